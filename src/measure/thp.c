// SPDX-License-Identifier: GPL-2.0-or-later
#include "thp.h"
#include "thp_kernel.h"
#include "atomic.h"
#include "cleanup.h"
#include "mthpscope.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define JOURNAL_SCHEMA "mthpscope.journal/1"
#define JOURNAL_NAME "mthpscope.journal"
#define LOCK_NAME "mthpscope.lock"
#define MAX_KNOBS 96

/* The khugepaged knobs we may write, hence snapshot and restore. */
static const char *const khugepaged_knobs[] = {
	"defrag", "max_ptes_none", "max_ptes_swap", "max_ptes_shared",
	"pages_to_scan", "scan_sleep_millisecs", "alloc_sleep_millisecs",
};
/* The same for the top directory and each hugepages-<size>kB one. */
static const char *const top_knobs[] = { "enabled", "defrag", "shmem_enabled" };
static const char *const size_knobs[] = { "enabled", "shmem_enabled" };

/* Per-size stats that only kernels with khugepaged mTHP collapse have
 * (Nico Pache's "khugepaged: mTHP support" series). */
static const char *const mthp_collapse_stats[] = {
	"collapse_exceed_none_pte", "collapse_exceed_swap_pte",
	"collapse_exceed_shared_pte",
};

static char last_path[512];

/* The snapshot lives in fixed storage so a signal handler can write it back
 * without malloc or stdio. */
struct knob {
	char path[320]; /* absolute */
	char value[48];
};
static struct knob snapshot[MAX_KNOBS];
static int nr_snapshot;
static volatile sig_atomic_t journal_armed;
static int lock_fd = -1;
static char journal_file[4096];
static char lock_path[4096]; /* kept for the signal handler: no snprintf there */
static int lock_wait_seconds = -1;

const char *thp_rundir(void)
{
	const char *r = getenv("MTHPSCOPE_RUNDIR");

	return r && *r ? r : "/run";
}

/* ENOENT under the THP root: the kernel's true reason (kconfig.h). */
static int why_not_found(char *buf, size_t size)
{
	struct thp_kernel k;
	int n;

	if (strncmp(last_path, thp_root(), strlen(thp_root())))
		return snprintf(buf, size, "%s: not found", last_path);
	thp_kernel_probe(&k);
	if (!k.sysfs || !k.per_size)
		return thp_kernel_why(&k, buf, size);
	n = snprintf(buf, size, "%s: not found: this kernel (%s) does not offer it", last_path,
		     k.release);
	return n;
}

const char *thp_last_path(void)
{
	return last_path;
}

static int read_text(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	snprintf(last_path, sizeof(last_path), "%s", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

static int read_choice_at(const char *path, enum thp_word *w, unsigned *offered)
{
	char buf[256];
	int err = read_text(path, buf, sizeof(buf));

	if (err)
		return err;
	return thp_parse_choice(buf, w, offered);
}

static int read_long_at(const char *path, long *v)
{
	char buf[64], *end;
	int err = read_text(path, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	*v = strtol(buf, &end, 10);
	if (errno || end == buf || *end)
		return -EBADMSG;
	return 0;
}

static int cmp_size(const void *a, const void *b)
{
	const struct thp_size *x = a, *y = b;

	return x->order - y->order;
}

static int log2_exact(unsigned long v)
{
	int o = 0;

	if (!v || (v & (v - 1)))
		return -1;
	while (v >>= 1)
		o++;
	return o;
}

static void read_stats(const char *dir, struct thp_size *z, bool *collapse)
{
	char path[600];
	struct dirent *de;
	DIR *d;
	size_t i;

	snprintf(path, sizeof(path), "%s/stats", dir);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) && z->nr_stats < THP_MAX_STATS) {
		char file[900], buf[64], *end;
		unsigned long long v;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(z->stats[0].name))
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		if (read_text(file, buf, sizeof(buf)))
			continue;
		v = strtoull(buf, &end, 10);
		if (end == buf)
			continue;
		snprintf(z->stats[z->nr_stats].name, sizeof(z->stats[0].name), "%s", de->d_name);
		z->stats[z->nr_stats++].value = v;
		for (i = 0; i < sizeof(mthp_collapse_stats) / sizeof(mthp_collapse_stats[0]); i++)
			if (!strcmp(de->d_name, mthp_collapse_stats[i]))
				*collapse = true;
	}
	closedir(d);
}

/* The khugepaged knobs (-1 where absent) and its two event counters. */
static int read_khugepaged(const char *root, struct thp_settings *s)
{
	char path[600];
	size_t i;
	int err;

	for (i = 0; i < sizeof(khugepaged_knobs) / sizeof(khugepaged_knobs[0]); i++) {
		long *dst[] = { &s->khugepaged.defrag, &s->khugepaged.max_ptes_none,
				&s->khugepaged.max_ptes_swap, &s->khugepaged.max_ptes_shared,
				&s->khugepaged.pages_to_scan, &s->khugepaged.scan_sleep_millisecs,
				&s->khugepaged.alloc_sleep_millisecs };
		snprintf(path, sizeof(path), "%s/khugepaged/%s", root, khugepaged_knobs[i]);
		*dst[i] = -1;
		err = read_long_at(path, dst[i]);
		if (err && err != -ENOENT)
			return err;
	}
	snprintf(path, sizeof(path), "%s/khugepaged/pages_collapsed", root);
	if (read_long_at(path, &s->khugepaged.pages_collapsed))
		s->khugepaged.pages_collapsed = -1;
	snprintf(path, sizeof(path), "%s/khugepaged/full_scans", root);
	if (read_long_at(path, &s->khugepaged.full_scans))
		s->khugepaged.full_scans = -1;
	return 0;
}

/* A hugepages-<N>kB directory ('name' under root) into s->sizes; other names
 * and sizes beyond THP_MAX_SIZES are skipped. 0 or -errno. */
static int read_size(const char *root, const char *name, struct thp_settings *s)
{
	unsigned long kb;
	char tail[8], path[600], dir[600];
	struct thp_size *z;
	bool collapse = false;
	int err;

	if (sscanf(name, "hugepages-%lukB%7s", &kb, tail) != 1 || s->nr_sizes >= THP_MAX_SIZES)
		return 0;
	z = &s->sizes[s->nr_sizes];
	memset(z, 0, sizeof(*z));
	z->kb = kb;
	z->order = log2_exact(kb * 1024 / (unsigned long)s->page_size);
	if (z->order < 0)
		return 0;
	z->enabled = z->shmem_enabled = THP_W_NONE;
	snprintf(dir, sizeof(dir), "%s/%s", root, name);
	snprintf(path, sizeof(path), "%s/enabled", dir);
	err = read_choice_at(path, &z->enabled, &z->enabled_offered);
	if (!err)
		z->anon = true;
	else if (err != -ENOENT)
		return err;
	snprintf(path, sizeof(path), "%s/shmem_enabled", dir);
	err = read_choice_at(path, &z->shmem_enabled, NULL);
	if (!err)
		z->shmem = true;
	else if (err != -ENOENT)
		return err;
	read_stats(dir, z, &collapse);
	if (collapse && z->order < s->pmd_order)
		s->mthp_collapse = true;
	if (z->anon && (z->enabled_offered & (1u << THP_W_DEFER)))
		s->size_defer = true;
	s->nr_sizes++;
	return 0;
}

int thp_read(struct thp_settings *s)
{
	const char *root = thp_root();
	char path[600];
	struct dirent *de;
	DIR *d;
	long v;
	int err;

	memset(s, 0, sizeof(*s));
	s->page_size = sysconf(_SC_PAGESIZE);
	s->shmem_enabled = THP_W_NONE;

	snprintf(path, sizeof(path), "%s/enabled", root);
	if ((err = read_choice_at(path, &s->enabled, NULL)))
		return err;
	snprintf(path, sizeof(path), "%s/defrag", root);
	if ((err = read_choice_at(path, &s->defrag, &s->defrag_offered)))
		return err;
	snprintf(path, sizeof(path), "%s/shmem_enabled", root);
	err = read_choice_at(path, &s->shmem_enabled, NULL);
	if (err && err != -ENOENT)
		return err;
	snprintf(path, sizeof(path), "%s/hpage_pmd_size", root);
	if (!read_long_at(path, &v) && v > 0)
		s->pmd_size = (unsigned long)v;
	else
		s->pmd_size = (unsigned long)s->page_size * (s->page_size / 8);
	s->pmd_order = log2_exact(s->pmd_size / (unsigned long)s->page_size);

	if ((err = read_khugepaged(root, s)))
		return err;

	/* Kernels before 6.8 have no hugepages-*kB: nr_sizes stays 0. */
	d = opendir(root);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if ((err = read_size(root, de->d_name, s))) {
			closedir(d);
			return err;
		}
	}
	closedir(d);
	qsort(s->sizes, (size_t)s->nr_sizes, sizeof(s->sizes[0]), cmp_size);
	if (s->nr_sizes == 0 && s->pmd_order > 0) {
		/* before per-size mTHP, the top-level knob drives the PMD size */
		struct thp_size *z = &s->sizes[s->nr_sizes++];

		memset(z, 0, sizeof(*z));
		z->order = s->pmd_order;
		z->kb = s->pmd_size / 1024;
		z->anon = true;
		/* the PMD size follows the top-level knob: "inherit" in today's words */
		z->enabled = THP_W_INHERIT;
		z->enabled_offered = (1u << THP_W_ALWAYS) | (1u << THP_W_MADVISE) |
				     (1u << THP_W_NEVER);
		z->shmem_enabled = THP_W_NONE;
		s->legacy_pmd = true;
	}
	return 0;
}

/* ---- journal and lock ---------------------------------------------------- */

void thp_set_lock_wait(int seconds)
{
	lock_wait_seconds = seconds;
}

int thp_lock_wait_env(int *seconds)
{
	const char *e = getenv("MTHPSCOPE_LOCK_WAIT");
	char *end;
	long v;

	*seconds = 0;
	if (!e || !*e) /* MTHPSCOPE_LOCK_WAIT= as unset */
		return 0;
	/* digits only: "abc", "-1" and "1e9" were atoi()'s 0 (or 1), said nothing */
	if (strspn(e, "0123456789") != strlen(e))
		return -EINVAL;
	errno = 0;
	v = strtol(e, &end, 10);
	if (errno || v > THP_LOCK_WAIT_MAX)
		return -ERANGE;
	*seconds = (int)v;
	return 0;
}

static int lock_wait(void)
{
	int s;

	if (lock_wait_seconds >= 0)
		return lock_wait_seconds;
	return thp_lock_wait_env(&s) ? 0 : s;
}

int thp_journal_path(char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/%s", thp_rundir(), JOURNAL_NAME);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

bool thp_journal_exists(void)
{
	char p[4096];

	return !thp_journal_path(p, sizeof(p)) && access(p, F_OK) == 0;
}

bool thp_journal_active(void)
{
	return journal_armed;
}

int thp_lock_holder(void)
{
	char p[4096], buf[32];

	snprintf(p, sizeof(p), "%s/%s", thp_rundir(), LOCK_NAME);
	if (read_text(p, buf, sizeof(buf)))
		return 0;
	return atoi(buf);
}

static void restore_hook(void);

/* flock() on a file that may be unlinked by its holder at exit: after taking
 * the lock, make sure the path still names the file we locked, else retry. */
static int lock_take(void)
{
	char p[4096], buf[32];
	struct stat a, b;
	int fd, rc, tries = 0, wait_s = lock_wait();
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	if (lock_fd >= 0)
		return 0;
	/* The exit signals end the wait for the lock as they end the run after
	 * it: a SIGINT ignored since the start (a background job of a script)
	 * was caught once the lock was taken, but did not end the wait. */
	if ((rc = cleanup_add(restore_hook)))
		return rc;
	snprintf(p, sizeof(p), "%s/%s", thp_rundir(), LOCK_NAME);
	for (;;) {
		fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0) {
			int err = -errno;

			snprintf(last_path, sizeof(last_path), "%s", p); /* for thp_strerror */
			return err;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			int err = errno;
			close(fd);
			if (err != EWOULDBLOCK)
				return -err;
			if (tries++ >= wait_s * 20)
				return -EBUSY;
			nanosleep(&ts, NULL);
			continue;
		}
		if (fstat(fd, &a) == 0 && stat(p, &b) == 0 && a.st_ino == b.st_ino &&
		    a.st_dev == b.st_dev)
			break;
		close(fd);
	}
	snprintf(lock_path, sizeof(lock_path), "%s", p);
	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, strlen(buf), 0) < 0) {
		/* the pid is only for messages */
	}
	lock_fd = fd;
	return 0;
}

/* Async-signal-safe. */
static void lock_release(void)
{
	if (lock_fd < 0)
		return;
	unlink(lock_path); /* while still holding it: see lock_take() */
	close(lock_fd);
	lock_fd = -1;
}

static unsigned long long proc_starttime(int pid)
{
	char p[64], buf[1024], *s;
	unsigned long long st = 0;
	int i;

	snprintf(p, sizeof(p), "/proc/%d/stat", pid);
	if (read_text(p, buf, sizeof(buf)))
		return 0;
	s = strrchr(buf, ')');
	if (!s)
		return 0;
	/* field 22 (starttime); after ')' comes field 3 */
	for (i = 3; i <= 22 && s; i++)
		s = strchr(s + 1, ' ');
	if (s)
		st = strtoull(s + 1, NULL, 10);
	return st;
}

static void add_knob(const char *path)
{
	char buf[256];
	enum thp_word w;
	struct knob *k;

	if (nr_snapshot >= MAX_KNOBS || read_text(path, buf, sizeof(buf)))
		return;
	k = &snapshot[nr_snapshot];
	if (!thp_parse_choice(buf, &w, NULL))
		snprintf(k->value, sizeof(k->value), "%s", thp_word_name(w));
	else if (strlen(buf) < sizeof(k->value) && buf[0] && strspn(buf, "0123456789") == strlen(buf))
		snprintf(k->value, sizeof(k->value), "%s", buf);
	else
		return;
	snprintf(k->path, sizeof(k->path), "%s", path);
	nr_snapshot++;
}

/* The knobs 'names' of the directory 'dir'. */
static void add_knobs(const char *dir, const char *const *names, size_t n)
{
	char path[600];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		add_knob(path);
	}
}

static int snapshot_take(void)
{
	const char *root = thp_root();
	char dir[600];
	struct dirent *de;
	DIR *d;

	nr_snapshot = 0;
	add_knobs(root, top_knobs, MS_ARRAY_SIZE(top_knobs));
	snprintf(dir, sizeof(dir), "%s/khugepaged", root);
	add_knobs(dir, khugepaged_knobs, MS_ARRAY_SIZE(khugepaged_knobs));
	d = opendir(root);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "hugepages-", 10))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", root, de->d_name);
		add_knobs(dir, size_knobs, MS_ARRAY_SIZE(size_knobs));
	}
	closedir(d);
	return nr_snapshot ? 0 : -ENOENT;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		err = -errno;
	close(fd);
	return err;
}

static int journal_write(void)
{
	json_t *doc, *arr;
	int i, err;

	doc = json_pack("{s:s, s:i, s:I, s:s, s:o}", "schema", JOURNAL_SCHEMA,
			"pid", (int)getpid(), "starttime", (json_int_t)proc_starttime(getpid()),
			"root", thp_root(), "knobs", json_array());
	if (!doc)
		return -ENOMEM;
	arr = json_object_get(doc, "knobs");
	for (i = 0; i < nr_snapshot; i++)
		json_array_append_new(arr, json_pack("{s:s, s:s}", "path", snapshot[i].path,
						     "value", snapshot[i].value));
	err = atomic_write_json(journal_file, doc, JSON_INDENT(1));
	if (err)
		snprintf(last_path, sizeof(last_path), "%s", journal_file);
	json_decref(doc);
	return err;
}

/* Does the file's text show 'value': the number itself, or the word
 * selected as "[value]"? Async-signal-safe (no stdio, no locale). */
static bool shows_value(const char *text, size_t n, const char *value)
{
	size_t vl = strlen(value), i;

	while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
		n--;
	if (n == vl && !memcmp(text, value, vl))
		return true;
	for (i = 0; i + vl + 2 <= n; i++)
		if (text[i] == '[' && !memcmp(text + i + 1, value, vl) && text[i + vl + 1] == ']')
			return true;
	return false;
}

/* Write a knob and read it back. 0, -errno of the open or write, or -EIO
 * when the file does not show the value afterwards. Async-signal-safe:
 * open/write/read/close only. */
static int write_knob_verified(const char *path, const char *value)
{
	char buf[256];
	ssize_t n;
	int fd, err = 0;

	/* O_TRUNC as the shell's '>' does: sysfs ignores it, a fixture file
	 * then holds the value alone */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	return shows_value(buf, (size_t)n, value) ? 0 : -EIO;
}

/* What the last restore of this process's snapshot could not put back
 * (filled outside the signal handler by thp_restore()). */
static int restore_err[MAX_KNOBS];
static volatile sig_atomic_t restore_failed;
static struct thp_recovery restore_result;

/* The exit hook: restore, drop the journal, release the lock. The journal
 * is kept while a knob could not be put back: it is the only record of
 * the user's setting. */
static void restore_hook(void)
{
	int i, failed = 0;

	if (!journal_armed)
		return;
	for (i = 0; i < nr_snapshot; i++) {
		restore_err[i] = write_knob_verified(snapshot[i].path, snapshot[i].value);
		failed += restore_err[i] != 0;
	}
	if (!failed)
		unlink(journal_file);
	restore_failed = failed;
	journal_armed = 0;
	lock_release();
}

int thp_journal_begin(void)
{
	struct thp_recovery rec;
	int err;

	if (journal_armed)
		return 0;
	if (geteuid() != 0 && !getenv("MTHPSCOPE_THP_ROOT"))
		return -EPERM;
	if ((err = thp_journal_path(journal_file, sizeof(journal_file))))
		return err;
	if ((err = lock_take()))
		return err;
	/* A journal of a dead process comes first: its snapshot is the truth. */
	err = thp_recover(&rec);
	if (err)
		goto fail;
	if ((err = snapshot_take()))
		goto fail;
	if ((err = cleanup_add(restore_hook)))
		goto fail;
	if ((err = journal_write()))
		goto fail;
	journal_armed = 1;
	return 0;
fail:
	lock_release();
	return err;
}

int thp_journal_begin_read(struct thp_settings *s)
{
	int err = thp_journal_begin();

	return err ? err : thp_read(s);
}

static void add_failure(struct thp_recovery *r, const char *path, const char *value, int err)
{
	const char *rel = path;
	size_t n = strlen(thp_root());

	if (r->nr_failed >= (int)(sizeof(r->failed) / sizeof(r->failed[0])))
		return;
	if (!strncmp(path, thp_root(), n) && path[n] == '/')
		rel = path + n + 1;
	if (err == -EIO)
		snprintf(r->failed[r->nr_failed++], sizeof(r->failed[0]), "%s: still not '%s' "
			 "after writing it", rel, value);
	else
		snprintf(r->failed[r->nr_failed++], sizeof(r->failed[0]), "%s: writing '%s' "
			 "failed: %s", rel, value, strerror(-err));
}

int thp_restore(void)
{
	int i;

	if (journal_armed) {
		restore_hook();
		memset(&restore_result, 0, sizeof(restore_result));
		restore_result.pid = (int)getpid();
		for (i = 0; restore_failed && i < nr_snapshot; i++)
			if (restore_err[i])
				add_failure(&restore_result, snapshot[i].path, snapshot[i].value,
					    restore_err[i]);
	}
	return restore_failed ? -EIO : 0;
}

const struct thp_recovery *thp_restore_result(void)
{
	return &restore_result;
}

static int write_knob(const char *rel, const char *value)
{
	char path[600];
	int fd, err;

	if ((err = thp_journal_begin()))
		return err;
	snprintf(path, sizeof(path), "%s/%s", thp_root(), rel);
	snprintf(last_path, sizeof(last_path), "%s", path);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = 0;
	if (write(fd, value, strlen(value)) < 0)
		err = -errno;
	close(fd);
	return err;
}

int thp_set_size_enabled(int order, enum thp_word w)
{
	char rel[64];
	long ps = sysconf(_SC_PAGESIZE);

	if (order < 1 || order > 20 || w < 0 || w >= THP_W_COUNT)
		return -EINVAL;
	snprintf(rel, sizeof(rel), "hugepages-%lukB/enabled", (unsigned long)(ps << order) / 1024);
	{
		char path[600];
		long pmd = 0;

		/* a kernel without per-size mTHP: the PMD size is the top-level knob */
		snprintf(path, sizeof(path), "%s/hugepages-%lukB", thp_root(),
			 (unsigned long)(ps << order) / 1024);
		if (access(path, F_OK) && errno == ENOENT) {
			snprintf(path, sizeof(path), "%s/hpage_pmd_size", thp_root());
			if (!read_long_at(path, &pmd) && pmd == ps << order)
				return w == THP_W_INHERIT ? 0 : write_knob("enabled", thp_word_name(w));
		}
	}
	return write_knob(rel, thp_word_name(w));
}

int thp_set_top(const char *name, enum thp_word w)
{
	if (strcmp(name, "enabled") && strcmp(name, "defrag") && strcmp(name, "shmem_enabled"))
		return -EINVAL;
	if (w < 0 || w >= THP_W_COUNT)
		return -EINVAL;
	return write_knob(name, thp_word_name(w));
}

int thp_set_khugepaged(const char *knob, long value)
{
	char rel[64], val[32];
	size_t i;

	for (i = 0; i < sizeof(khugepaged_knobs) / sizeof(khugepaged_knobs[0]); i++)
		if (!strcmp(knob, khugepaged_knobs[i]))
			break;
	if (i == sizeof(khugepaged_knobs) / sizeof(khugepaged_knobs[0]) || value < 0)
		return -EINVAL;
	snprintf(rel, sizeof(rel), "khugepaged/%s", knob);
	snprintf(val, sizeof(val), "%ld", value);
	return write_knob(rel, val);
}

int thp_set_only_order(const struct thp_settings *s, int order)
{
	int i, err;

	if (order != 0) {
		const struct thp_size *z = thp_size_by_order(s, order);
		if (!z || !z->anon)
			return -EINVAL;
	}
	/* 'never' first, then the one 'always': never two sizes on at once. */
	for (i = 0; i < s->nr_sizes; i++) {
		if (!s->sizes[i].anon || s->sizes[i].order == order)
			continue;
		if ((err = thp_set_size_enabled(s->sizes[i].order, THP_W_NEVER)))
			return err;
	}
	if (order)
		return thp_set_size_enabled(order, THP_W_ALWAYS);
	return 0;
}

/* ---- recovery ------------------------------------------------------------ */

static bool pid_alive(int pid, unsigned long long starttime)
{
	if (pid <= 0)
		return false;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	/* a recycled pid is not the writer */
	return proc_starttime(pid) == starttime;
}

static void current_value(const char *path, char *out, size_t size)
{
	char buf[256];
	enum thp_word w;

	out[0] = '\0';
	if (read_text(path, buf, sizeof(buf)))
		return;
	if (!thp_parse_choice(buf, &w, NULL))
		snprintf(out, size, "%s", thp_word_name(w));
	else
		snprintf(out, size, "%s", buf);
}

int thp_journal_check(json_t *doc, int *pid, unsigned long long *starttime)
{
	const char *schema, *p, *v;
	json_int_t jpid = 0, st = 0;
	json_t *knobs, *e;
	size_t i, n = strlen(thp_root());

	if (!doc || json_unpack(doc, "{s:s, s:I, s:I, s:o}", "schema", &schema, "pid", &jpid,
				"starttime", &st, "knobs", &knobs) ||
	    strcmp(schema, JOURNAL_SCHEMA) || jpid <= 0 || jpid > INT_MAX || st < 0 ||
	    !json_is_array(knobs) || !json_array_size(knobs) || json_array_size(knobs) > MAX_KNOBS)
		return -EBADMSG;
	/* Validate every entry before writing any. */
	json_array_foreach(knobs, i, e) {
		if (json_unpack(e, "{s:s, s:s}", "path", &p, "value", &v) ||
		    (strncmp(p, "/sys/", 5) != 0 && (strncmp(p, thp_root(), n) != 0 || p[n] != '/')) ||
		    strstr(p, "..") || strlen(p) >= sizeof(snapshot[0].path) || !*v ||
		    strlen(v) > 40 || strpbrk(v, "\n/"))
			return -EBADMSG;
	}
	if (pid)
		*pid = (int)jpid;
	if (starttime)
		*starttime = (unsigned long long)st;
	return 0;
}

/* Write back each journalled knob whose value differs: r->changed lists
 * them, r->failed those that could not be written. */
static void apply_knobs(const json_t *knobs, struct thp_recovery *r)
{
	size_t i;

	for (i = 0; i < json_array_size(knobs); i++) {
		const char *p, *v;
		char cur[64];
		int werr;

		json_unpack(json_array_get(knobs, i), "{s:s, s:s}", "path", &p, "value", &v);
		current_value(p, cur, sizeof(cur));
		if (!strcmp(cur, v))
			continue;
		if ((werr = write_knob_verified(p, v))) {
			add_failure(r, p, v, werr);
			continue;
		}
		if (r->nr_changed < (int)(sizeof(r->changed) / sizeof(r->changed[0]))) {
			const char *rel = p;
			size_t n = strlen(thp_root());
			if (!strncmp(p, thp_root(), n) && p[n] == '/')
				rel = p + n + 1;
			snprintf(r->changed[r->nr_changed++], sizeof(r->changed[0]), "%s: %s -> %s",
				 rel, cur, v);
		}
	}
}

int thp_recover(struct thp_recovery *r)
{
	char path[4096];
	json_error_t jerr;
	json_t *doc = NULL;
	unsigned long long st = 0;
	int err = 0, pid = 0;
	bool own_lock = false;

	memset(r, 0, sizeof(*r));
	if ((err = thp_journal_path(path, sizeof(path))))
		return err;
	if (access(path, F_OK) < 0) {
		/* a journal write killed half-way leaves only its temporary */
		if (geteuid() == 0 || getenv("MTHPSCOPE_THP_ROOT"))
			atomic_remove_stale(path);
		return 0;
	}
	/* A live writer's journal is not ours to apply: say so without waiting
	 * for its lock (and before "needs root": a user beside a root run must
	 * not be told its settings were left behind). */
	doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!thp_journal_check(doc, &pid, &st) && pid != getpid() && pid_alive(pid, st)) {
		r->pid = pid;
		json_decref(doc);
		return -EBUSY;
	}
	json_decref(doc);
	doc = NULL;
	if (geteuid() != 0 && !getenv("MTHPSCOPE_THP_ROOT"))
		return -EPERM;
	if (lock_fd < 0) {
		if ((err = lock_take()))
			return err;
		own_lock = true;
	}
	/* a journal write killed half-way leaves its temporary file */
	atomic_remove_stale(path);
	/* Its writer may have restored and removed it while we waited. */
	if (access(path, F_OK) < 0)
		goto out;
	snprintf(last_path, sizeof(last_path), "%s", path);
	doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if ((err = thp_journal_check(doc, &pid, &st)))
		goto out;
	r->pid = pid;
	if (pid != getpid() && pid_alive(pid, st)) {
		err = -EBUSY;
		goto out;
	}
	apply_knobs(json_object_get(doc, "knobs"), r);
	if (r->nr_failed) {
		/* the journal is the only record of those settings: keep it */
		err = -EIO;
		goto out;
	}
	if (unlink(path) < 0)
		err = -errno;
	else
		fsync_dir(thp_rundir());
	r->applied = true;
out:
	json_decref(doc);
	if (own_lock)
		lock_release();
	return err;
}

int thp_strerror(int err, char *buf, size_t size)
{
	switch (-err) {
	case EPERM:
		return snprintf(buf, size,
				"changing THP settings needs root (writes to %s); run as root or with sudo",
				thp_root());
	case EBUSY: {
		int pid = thp_lock_holder();
		char who[32] = "";

		/* the holder writes its pid after taking the lock: none yet, or a
		 * holder that is not mthpscope (flock(1) in a script) */
		if (pid > 0)
			snprintf(who, sizeof(who), " (pid %d)", pid);
		if (lock_wait() > 0) /* it waited already: "set it to wait" misled */
			return snprintf(buf, size,
					"another mthpscope%s is changing THP settings: still after "
					"waiting %d s for it (MTHPSCOPE_LOCK_WAIT)", who, lock_wait());
		return snprintf(buf, size,
				"another mthpscope%s is changing THP settings; wait for it to finish"
				" (set MTHPSCOPE_LOCK_WAIT=SECONDS to wait)", who);
	}
	case EACCES:
	case EROFS:
		return snprintf(buf, size,
				"cannot write the settings journal under %s (%s); THP settings were left "
				"untouched (set MTHPSCOPE_RUNDIR to a writable directory)",
				thp_rundir(), strerror(-err));
	case ENOENT:
		if (!strncmp(last_path, thp_rundir(), strlen(thp_rundir())) &&
		    last_path[strlen(thp_rundir())] == '/')
			return snprintf(buf, size, "the run directory %s does not exist (it holds the "
					"lock and the settings journal; create it, or set "
					"MTHPSCOPE_RUNDIR to an existing directory)", thp_rundir());
		return why_not_found(buf, size);
	case EBADMSG:
		return snprintf(buf, size, "%s: unexpected contents (corrupt, or a format this "
				"version does not know)", last_path);
	case EINVAL:
		return snprintf(buf, size, "%s: the kernel rejected the value, or this size does "
				"not support it", last_path);
	case EIO: {
		char j[4096];
		thp_journal_path(j, sizeof(j));
		return snprintf(buf, size, "some THP settings could not be put back; the journal "
				"%s is kept: fix the cause, then run 'mthpscope restore' as root", j);
	}
	default:
		return snprintf(buf, size, "%s: %s", last_path[0] ? last_path : "THP settings",
				strerror(-err));
	}
}
