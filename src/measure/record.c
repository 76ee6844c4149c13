// SPDX-License-Identifier: GPL-2.0-or-later
#include "record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "counters.h"
#include "folio.h"
#include "hwsample.h"
#include "mthpscope.h"
#include "sampling.h"
#include "scan.h"
#include "thp.h"
#include "topo.h"

#define REC_MAX_RINGS 65536    /* events: a --pid target's threads on each CPU */
#define REC_ATTACH_PASSES 8    /* --pid: looks at the threads until none is new */
#define REC_MAX_EXTENTS 1024   /* extents of one window (512 pages at most on 4K) */
#define REC_MAX_PENDING (1u << 20)
#define REC_MAX_REOPEN 8       /* reader reopenings for one sample (exec chains) */
#define REC_LOOKUP_BUDGET_MS 1000 /* a drain's slow lookups: the rest not looked up */
#define REC_LOOKUP_SLOW_NS 1000000LL /* slow: 1 ms a lookup on average (5-30 us usual) */
#define REC_SPE_AUX_PAGES 128  /* the SPE AUX area per ring (512 KiB with 4K pages) */

#ifndef PROCMAP_QUERY
/* Linux 6.11's query of the VMA covering an address on a /proc/PID/maps
 * fd (include/uapi/linux/fs.h), for headers older than the kernel */
struct procmap_query {
	uint64_t size, query_flags, query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define PROCMAP_QUERY _IOWR('f', 17, struct procmap_query)
#endif

void rec_options_init(struct rec_options *o)
{
	memset(o, 0, sizeof(*o));
	o->event = "page-faults";
	o->freq = 4000; /* perf record's default */
	o->data_pages = 256;
	o->interval_ms = 10;
	o->top_windows = 20;
	o->data_page_size = true;
}

/* ---- state ---------------------------------------------------------------- */

/* The extents of one range scanned in this drain. */
struct extcache {
	bool valid;
	unsigned long lo, hi;
	size_t nr;
	struct folio_extent ext[REC_MAX_EXTENTS];
};

struct proc {
	int pid;
	int via;                      /* the thread whose /proc is read (the last at exit) */
	bool gone, final_done;
	struct folio_scanner *fs;
	struct scan_vma *maps;
	size_t nr_maps;
	int *row;                     /* doc VMA row of maps[i], -1 until sampled */
	bool maps_fresh;              /* read during this drain */
	int query_fd;                 /* /proc/PID/maps for PROCMAP_QUERY, -1: none */
	int checked;                  /* maps[] index found unchanged in this drain */
	size_t first_row;             /* doc rows before it are an image it exec'd from */
	uint64_t exec_time;           /* its last exec the rings told (perf clock), 0: none */
	uint64_t exec_time_open;      /* exec_time when its pagemap reader was opened */
	unsigned long untold_drain;   /* the drain that found an exec the rings had not told */
	unsigned long opened_drain;   /* the drain whose ring reads opened its reader */
	unsigned long tried_drain;    /* the drain whose ring reads last tried to */
	/* the ranges scanned last in this drain: the 16-page block of a
	 * sample, and its PMD window when the block cuts its folio */
	struct extcache near, wide;
};

struct pending {
	int pid;
	unsigned long addr;
	bool tlb_miss, psize_given, retried;
	unsigned char reopened;       /* the pagemap reader reopened for it (execs) */
	uint64_t time;                /* perf clock; 0: not known (SPE) */
	unsigned long long psize;
};

struct pending_list {
	struct pending *v;
	size_t n, cap;
};

/* A VMA a window's samples fell in: the window is named after the one
 * with the most, not the first sampled. */
struct win_row {
	int row;
	unsigned long long samples;
};

struct win {
	int pid;
	unsigned long long start;
	struct win_row *rows;
	size_t nr_rows, cap_rows;
	struct record_counts s;
	struct record_memory mem;
	bool has_layout;              /* the exit scan's contiguity histogram */
	struct layout_hist layout;
};

struct rec {
	const struct rec_options *o;
	struct record_doc *d;
	struct sampling_ring **ring;  /* an event each, with a ring or into one */
	int *tid;                     /* --pid: the thread of each event */
	int nr_rings, cap_rings;
	int *cpu_ring;                /* --pid: the event whose ring is a CPU's, -1 */
	int nr_cpus;
	int *forked;                  /* --pid, attaching: threads started since
				       * (PERF_RECORD_FORK), their events inherited */
	size_t nr_forked, cap_forked;
	bool attaching;
	struct proc **procs;
	int nr_procs;
	struct pending_list batch;    /* this drain's samples, then sorted */
	struct pending_list retry;    /* not present yet: looked up at the next drain */
	struct win *wins;
	size_t nr_wins, cap_wins;
	size_t *hash;                 /* wins index + 1; 0 = empty */
	size_t hash_size;
	size_t vma_cap;
	unsigned long win_mask;
	int err;                      /* the first failure inside a callback */
	unsigned long nr_drains;
	bool no_query;                /* the kernel has no PROCMAP_QUERY (before 6.11) */
	int count_fd;                 /* the sampled event counted over the command, or -1 */
	int *count_fds;               /* --pid: counted over each thread followed (-c 1) */
	size_t nr_count_fds, cap_count_fds;
	pid_t pgid;
	int stops_sent;
	bool caught;                  /* our SIGINT/SIGTERM handlers are in place */
	bool last;                    /* the rings are disabled: the last drain */
	long long lookup_budget;      /* a drain's time for slow lookups (ns) */
	long long lookup_end;         /* --pid: no slow lookup or scan after it (ns), 0: none */
	bool slowed;                  /* lookups were cut for their time: the scan is too */
	char event[192];              /* the event as encoded ("arm_spe_0//" as PMU/r0/) */
	struct sigaction old_int, old_term;
};

static char warnings[1024];
static volatile sig_atomic_t stop_requests;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requests++;
}

/* Where the last rec_run failed, for rec_strerror. */
enum { STAGE_EVENT, STAGE_PFNS, STAGE_TARGET, STAGE_LAUNCH };
static int fail_stage;

static void warn_add(const char *fmt, ...) MS_PRINTF(1, 2);
static void warn_add(const char *fmt, ...)
{
	size_t n = strlen(warnings);
	va_list ap;

	if (n + 2 >= sizeof(warnings))
		return;
	va_start(ap, fmt);
	vsnprintf(warnings + n, sizeof(warnings) - n - 1, fmt, ap);
	va_end(ap);
	strcat(warnings, "\n");
}

const char *rec_warnings(void)
{
	return warnings;
}

const char *rec_event_source(const char *event)
{
	if (!strncmp(event, "ibs_op", 6))
		return "ibs";
	if (!strncmp(event, "arm_spe", 7))
		return "spe";
	if (!strcmp(event, "page-faults") || !strcmp(event, "faults") ||
	    !strcmp(event, "minor-faults") || !strcmp(event, "major-faults"))
		return "sw";
	return "pmu";
}

/* The fields of a /proc stat file after the name (the last ')'), in buf;
 * NULL when the task is gone or the line is not one. */
static const char *stat_fields(const char *path, char *buf, size_t size)
{
	const char *c;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	c = strrchr(buf, ')');
	return c && c[1] == ' ' ? c + 2 : NULL;
}

/* A kernel thread (PF_KTHREAD in the flags of /proc/PID/stat): no user
 * memory, nothing to record. */
static bool is_kthread(int pid)
{
	char path[64], buf[512];
	const char *f;
	unsigned flags = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = stat_fields(path, buf, sizeof(buf));
	return f && sscanf(f, "%*c %*d %*d %*d %*d %*d %u", &flags) == 1 &&
	       (flags & 0x00200000u);
}

int rec_strerror(int err, const struct rec_options *o, char *buf, size_t size)
{
	bool hw = strcmp(rec_event_source(o->event), "sw") != 0;

	if (fail_stage == STAGE_PFNS)
		return snprintf(buf, size, "folio orders need the PFNs of pagemap and "
				"/proc/kpageflags, which only root reads: run as root");
	if (fail_stage == STAGE_LAUNCH)
		return snprintf(buf, size, "cannot run '%s': %s", o->argv ? o->argv[0] : "?",
				strerror(-err));
	switch (-err) {
	case ESRCH:
		if (o->pid > 0 && is_kthread(o->pid))
			return snprintf(buf, size, "process %d is a kernel thread: it has no user "
					"memory to record", o->pid);
		return snprintf(buf, size, "no process %d (it has exited, or never was)", o->pid);
	case EOPNOTSUPP:
		return snprintf(buf, size, "'%s' has no sampling support here (EOPNOTSUPP): the "
				"PMU counts it but cannot sample it, or not with addresses; a VM "
				"without a virtual PMU cannot sample hardware events at all; "
				"'-e page-faults' samples everywhere", o->event);
	case EPERM:
	case EACCES:
		if (o->pid)
			return snprintf(buf, size, "not permitted to sample process %d: it is not "
					"yours (ptrace access mode) or perf_event_paranoid is %d; run "
					"as root", o->pid, counters_paranoid());
		break;
	case ENOSPC:
	case ENOMEM:
		return snprintf(buf, size, "the sample ring cannot be mapped (%s): "
				"perf_event_mlock_kb limits a user's locked rings; use a smaller "
				"-m/--mmap-pages or run as root", strerror(-err));
	case ENOEXEC:
		return snprintf(buf, size, "the command could not be executed");
	}
	if (!strcmp(rec_event_source(o->event), "spe") && err == -ENOMSG)
		return snprintf(buf, size, "no Arm SPE PMU here (%.*s is not in "
				"/sys/bus/event_source/devices): SPE needs an Armv8.2+ CPU that has it, "
				"the arm_spe_pmu driver and, in a VM, a hypervisor that passes it "
				"through; record page-faults instead", (int)strcspn(o->event, "/"),
				o->event);
	return counters_strerror(err, hw, buf, size);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- processes, VMAs and doc rows ----------------------------------------- */

static void proc_free(struct proc *p)
{
	if (!p)
		return;
	folio_scanner_close(p->fs);
	if (p->query_fd >= 0)
		close(p->query_fd);
	free(p->maps);
	free(p->row);
	free(p);
}

static struct proc *proc_get(struct rec *r, int pid)
{
	struct proc **n, *p;
	int i;

	for (i = 0; i < r->nr_procs; i++)
		if (r->procs[i]->pid == pid)
			return r->procs[i];
	n = realloc(r->procs, (size_t)(r->nr_procs + 1) * sizeof(*n));
	if (!n)
		return NULL;
	r->procs = n;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->via = pid;
	p->query_fd = -1;
	p->checked = -1;
	r->procs[r->nr_procs++] = p;
	return p;
}

static void rows_follow(struct rec *r, const struct proc *p);

/* fn(tid, ctx) for each thread of process pid until fn returns non-zero:
 * that, 0 after the last, or -ESRCH when pid has no /proc entry (-errno
 * for another failure to list them). */
static int task_each(int pid, int (*fn)(int pid, int tid, void *ctx), void *ctx)
{
	char path[64];
	struct dirent *e;
	int rc = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	if (!(dir = opendir(path)))
		return errno == ENOENT ? -ESRCH : -errno;
	while (!rc && (e = readdir(dir))) {
		int tid = atoi(e->d_name);

		if (tid > 0)
			rc = fn(pid, tid, ctx);
	}
	closedir(dir);
	return rc;
}

/* tid, when its /proc shows the memory and it is not p->via */
static int shows_memory(int pid, int tid, void *ctx)
{
	const struct proc *p = ctx;
	char path[64];
	int shows = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", pid, tid);
	if (tid != p->via && (f = fopen(path, "re"))) {
		shows = fgetc(f) != EOF ? tid : 0;
		fclose(f);
	}
	return shows;
}

/* Another thread of p whose /proc shows the memory, as p->via: the
 * leader's is empty once the leader has ended (pthread_exit) while other
 * threads run on. 0, or -ESRCH when none does. */
static int via_thread(struct proc *p)
{
	int tid = task_each(p->pid, shows_memory, p);

	if (tid <= 0)
		return -ESRCH;
	p->via = tid;
	return 0;
}

static int maps_read_via(struct rec *r, struct proc *p)
{
	char path[64];
	struct scan_vma *v = NULL;
	size_t nr = 0, i;
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/maps", p->via);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	err = scan_parse_smaps(f, &v, &nr);
	fclose(f);
	if (err)
		return err;
	free(p->maps);
	free(p->row);
	p->maps = v;
	p->nr_maps = nr;
	p->row = malloc((nr ? nr : 1) * sizeof(*p->row));
	if (!p->row)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		p->row[i] = -1;
	p->maps_fresh = true;
	/* the VMAs sampled are checked against it until the next read (the
	 * mm of the image it was opened on) */
	if (p->query_fd >= 0)
		close(p->query_fd);
	p->query_fd = r->no_query ? -1 : open(path, O_RDONLY | O_CLOEXEC);
	rows_follow(r, p);
	return nr ? 0 : -ESRCH; /* a process without a VMA is a zombie */
}

/* Whether process pid has ended: gone from /proc, or a zombie (its state,
 * after the name's last ')', Z or X). */
static bool stat_ended(const char *path)
{
	char buf[512];
	const char *f = stat_fields(path, buf, sizeof(buf));

	return !f || *f == 'Z' || *f == 'X';
}

static bool proc_ended(int pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	return stat_ended(path);
}

static int runs_on(int pid, int tid, void *ctx)
{
	char path[64];

	(void)ctx;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	return !stat_ended(path);
}

/* Whether a thread of process pid runs on: a zombie whose parent has not
 * reaped it has ended, a zombie leader (pthread_exit) may have threads
 * that have not (each looked at only then). */
static bool process_lives(int pid)
{
	return !proc_ended(pid) || task_each(pid, runs_on, NULL) > 0;
}

/* p's VMAs, read through p->via, else through another of its threads.
 * None from a process that has not ended is an exec switching its mm under
 * the read (the old one's are gone, the new one is not yet the one read):
 * read again, for up to 2 ms, rather than take it for the end. */
static int maps_read(struct rec *r, struct proc *p)
{
	struct timespec pause = { 0, 100000 };
	int err = maps_read_via(r, p), tries = 0;

	if (err == -ESRCH && !via_thread(p))
		err = maps_read_via(r, p);
	while (err == -ESRCH && tries++ < 20 && !proc_ended(p->pid)) {
		nanosleep(&pause, NULL);
		err = maps_read_via(r, p);
	}
	return err;
}

static int maps_find(const struct proc *p, unsigned long addr)
{
	size_t lo = 0, hi = p->nr_maps;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (addr < p->maps[mid].start)
			hi = mid;
		else if (addr >= p->maps[mid].end)
			lo = mid + 1;
		else
			return (int)mid;
	}
	return -1;
}

/* Whether p's maps must be read again before addr is looked up in them:
 * none yet, addr in none of them, or its VMA changed since they were read
 * (unmapped, another mapped there: the new one's samples would go to the
 * old). Each VMA sampled is checked once a drain with PROCMAP_QUERY, one
 * system call; where the kernel has none, maps are read once a drain,
 * which costs 8.5 ms for 10000 VMAs. */
static bool maps_stale(struct rec *r, struct proc *p, unsigned long addr)
{
	struct procmap_query q = { .size = sizeof(q), .query_addr = addr };
	int i;

	if (p->maps_fresh)
		return false;
	if (!p->maps || (i = maps_find(p, addr)) < 0 || p->query_fd < 0)
		return true;
	if (i == p->checked)
		return false;
	if (ioctl(p->query_fd, PROCMAP_QUERY, &q)) {
		if (errno == ENOTTY || errno == EINVAL)
			r->no_query = true;
		return true;
	}
	if (q.vma_start != p->maps[i].start || q.vma_end != p->maps[i].end ||
	    q.inode != p->maps[i].inode)
		return true;
	p->checked = i;
	return false;
}

static const char *vma_kind(const struct scan_vma *v)
{
	if (!strcmp(v->name, "[heap]"))
		return "heap";
	if (!strncmp(v->name, "[stack", 6))
		return "stack";
	/* shared memory by name (a shared mapping of a plain file is "file") */
	if (!strncmp(v->name, "/memfd:", 7) || !strncmp(v->name, "/SYSV", 5) ||
	    !strncmp(v->name, "/dev/shm/", 9) || !strncmp(v->name, "/dev/zero", 9) ||
	    !strcmp(v->name, "[anon_shmem]"))
		return "shmem";
	if (v->name[0] == '/')
		return "file";
	if (v->name[0] == '[' && strncmp(v->name, "[anon", 5))
		return "special";
	return "anon";
}

/* The doc row of p's image that is VMA v as it is (-1: none). */
static int row_find(const struct record_doc *d, const struct proc *p, const struct scan_vma *v)
{
	size_t k;

	for (k = p->first_row; k < d->nr_vmas; k++)
		if (d->vmas[k].pid == p->pid && d->vmas[k].start == v->start &&
		    d->vmas[k].end == v->end && !strncmp(d->vmas[k].name, v->name, RECORD_NAME_MAX - 1))
			return (int)k;
	return -1;
}

/* The newest of p's rows that holds addr (a VMA an earlier drain saw
 * there), or -1. */
static int row_held(const struct record_doc *d, const struct proc *p, unsigned long addr)
{
	size_t k;

	for (k = d->nr_vmas; k-- > p->first_row;)
		if (d->vmas[k].pid == p->pid && d->vmas[k].start <= addr && addr < d->vmas[k].end)
			return (int)k;
	return -1;
}

/* Whether row v is one of p's VMAs as they are now. */
static bool row_current(const struct proc *p, const struct record_vma *v)
{
	int i = p->maps ? maps_find(p, (unsigned long)v->start) : -1;

	return i >= 0 && p->maps[i].start == v->start && p->maps[i].end == v->end &&
	       !strncmp(p->maps[i].name, v->name, RECORD_NAME_MAX - 1);
}

/* A heap grows up from its start, a stack down to its end: a row of one
 * sampled before it grew is the same VMA, and is given its bounds now, so
 * that a growing VMA stays one row and its memory is scanned once (not
 * once per size it was sampled at). Called with p's maps just read. */
static void rows_follow(struct rec *r, const struct proc *p)
{
	struct record_doc *d = r->d;
	size_t k;

	for (k = p->first_row; k < d->nr_vmas; k++) {
		struct record_vma *v = &d->vmas[k];
		bool heap = !strcmp(v->kind, "heap");
		int i;

		if (v->pid != p->pid || (!heap && strcmp(v->kind, "stack")) || row_current(p, v))
			continue;
		i = maps_find(p, (unsigned long)(heap ? v->start : v->end - 1));
		if (i < 0 || strncmp(p->maps[i].name, v->name, RECORD_NAME_MAX - 1) ||
		    (heap ? p->maps[i].start != v->start : p->maps[i].end != v->end))
			continue;
		if (row_find(d, p, &p->maps[i]) >= 0)
			continue; /* already a row of its own: kept apart */
		v->start = p->maps[i].start;
		v->end = p->maps[i].end;
	}
}

/* The doc row of maps[i] (found or added). */
static int vma_row(struct rec *r, struct proc *p, int i)
{
	const struct scan_vma *v = &p->maps[i];
	struct record_doc *d = r->d;
	struct record_vma *row;
	int k;

	if (p->row[i] >= 0)
		return p->row[i];
	if ((k = row_find(d, p, v)) >= 0)
		return p->row[i] = k;
	if (MS_GROW(d->vmas, d->nr_vmas, r->vma_cap, 64))
		return -ENOMEM;
	row = &d->vmas[d->nr_vmas];
	memset(row, 0, sizeof(*row));
	row->pid = p->pid;
	row->start = v->start;
	row->end = v->end;
	snprintf(row->name, sizeof(row->name), "%s", v->name);
	snprintf(row->kind, sizeof(row->kind), "%s", vma_kind(v));
	return p->row[i] = (int)d->nr_vmas++;
}

/* ---- hot windows: an open-addressing table ---------------------------------- */

static size_t win_hash(int pid, unsigned long long start, size_t size)
{
	unsigned long long h = (start >> 21) * 0x9E3779B97F4A7C15ULL ^ (unsigned long long)pid;

	return (size_t)(h ^ (h >> 29)) & (size - 1);
}

static int win_grow(struct rec *r)
{
	size_t size = r->hash_size ? 2 * r->hash_size : 1024, i;
	size_t *h = calloc(size, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (i = 0; i < r->nr_wins; i++) {
		size_t k = win_hash(r->wins[i].pid, r->wins[i].start, size);

		while (h[k])
			k = (k + 1) & (size - 1);
		h[k] = i + 1;
	}
	free(r->hash);
	r->hash = h;
	r->hash_size = size;
	return 0;
}

/* The window of (pid, start); 'add' makes it when missing. */
static struct win *win_get(struct rec *r, int pid, unsigned long long start, bool add)
{
	size_t k;

	if (!r->hash_size || (add && 2 * (r->nr_wins + 1) > r->hash_size))
		if (win_grow(r))
			return NULL;
	for (k = win_hash(pid, start, r->hash_size); r->hash[k]; k = (k + 1) & (r->hash_size - 1)) {
		struct win *w = &r->wins[r->hash[k] - 1];

		if (w->pid == pid && w->start == start)
			return w;
	}
	if (!add)
		return NULL;
	if (MS_GROW(r->wins, r->nr_wins, r->cap_wins, 256))
		return NULL;
	memset(&r->wins[r->nr_wins], 0, sizeof(r->wins[0]));
	r->wins[r->nr_wins].pid = pid;
	r->wins[r->nr_wins].start = start;
	r->hash[k] = ++r->nr_wins;
	return &r->wins[r->nr_wins - 1];
}

/* ---- the join ------------------------------------------------------------- */

static int keep_extent(const struct folio_extent *e, void *ctx)
{
	struct extcache *c = ctx;

	if (c->nr == REC_MAX_EXTENTS)
		return 0; /* more than a window holds on any page size: the rest unseen */
	c->ext[c->nr++] = *e;
	return 0;
}

/* The extents of [lo, hi), scanned unless this drain did already. */
static int cache_scan(struct proc *p, struct extcache *c, unsigned long lo, unsigned long hi)
{
	int err;

	if (c->valid && c->lo == lo && c->hi == hi)
		return 0;
	if (!p->fs && (err = folio_scanner_open(&p->fs, p->via)))
		return err;
	c->nr = 0;
	c->valid = false;
	if ((err = folio_scanner_range(p->fs, lo, hi, NULL, keep_extent, c)))
		return err;
	c->valid = true;
	c->lo = lo;
	c->hi = hi;
	return 0;
}

/* The extent holding addr, or NULL (extents come in address order). */
static const struct folio_extent *cache_find(const struct extcache *c, unsigned long addr,
					     long ps)
{
	size_t a = 0, b = c->nr, k;

	while (a < b) {
		k = (a + b) / 2;
		if (c->ext[k].start <= addr)
			a = k + 1;
		else
			b = k;
	}
	if (a && addr < c->ext[a - 1].start + c->ext[a - 1].pages * (unsigned long)ps)
		return &c->ext[a - 1];
	return NULL;
}

/* What backs addr: a folio order, or RECORD_AT_PARTIAL/OTHER/UNMAPPED. */
static int extent_order(const struct folio_extent *e, bool *pmd)
{
	*pmd = e->pmd_mapped;
	if (!folio_extent_has_order(e))
		return RECORD_AT_OTHER;
	if (e->partial || e->order < 0)
		return RECORD_AT_PARTIAL;
	return e->order;
}

/* Look addr up in maps[i]: first the page alone (its pagemap entry and
 * flags: an order-0 page is answered with two reads, where its block
 * would take one flags read per page, the PFNs of order-0 faults being
 * scattered), then, for a page of a large folio, its 16-page block, then,
 * when the block cuts the folio, its PMD window; each range scanned at
 * most once a drain (the samples come sorted). *order a folio order or
 * RECORD_AT_*; 0 or -errno. */
static int page_order(struct rec *r, struct proc *p, int i, unsigned long addr, bool *pmd,
		      int *order)
{
	long ps = r->d->host.topo.page_size;
	unsigned long block = (unsigned long)ps * 16, vs = p->maps[i].start, ve = p->maps[i].end;
	unsigned long lo = addr & ~(block - 1), hi = lo + block;
	const struct folio_extent *e;
	struct folio_extent one;
	int err;

	if (!(p->near.valid && p->near.lo <= addr && addr < p->near.hi)) {
		if (!p->fs) {
			if ((err = folio_scanner_open(&p->fs, p->via)))
				return err;
			p->exec_time_open = p->exec_time;
		}
		if ((err = folio_scanner_page(p->fs, addr, &one)) < 0)
			return err;
		if (err == 1) {
			*pmd = false;
			*order = one.pages ? extent_order(&one, pmd) : RECORD_AT_UNMAPPED;
			return 0;
		}
	}
	if ((err = cache_scan(p, &p->near, lo < vs ? vs : lo, hi > ve ? ve : hi)))
		return err;
	e = cache_find(&p->near, addr, ps);
	if (e && e->partial) {
		lo = addr & ~r->win_mask;
		hi = lo + r->win_mask + 1;
		if ((err = cache_scan(p, &p->wide, lo < vs ? vs : lo, hi > ve ? ve : hi)))
			return err;
		e = cache_find(&p->wide, addr, ps);
	}
	*pmd = false;
	*order = e ? extent_order(e, pmd) : RECORD_AT_UNMAPPED;
	return 0;
}

/* One more sample of row in w. */
static int win_row_add(struct win *w, int row)
{
	size_t k;

	for (k = 0; k < w->nr_rows; k++)
		if (w->rows[k].row == row)
			break;
	if (k == w->nr_rows) {
		if (MS_GROW(w->rows, w->nr_rows, w->cap_rows, 2))
			return -ENOMEM;
		w->rows[w->nr_rows++] = (struct win_row){ .row = row };
	}
	w->rows[k].samples++;
	return 0;
}

static void count(struct rec *r, int row, int pid, unsigned long addr, int order, bool pmd,
		  const struct pending *s)
{
	struct win *w;

	record_counts_add(&r->d->total, order, pmd, s->tlb_miss, s->psize_given, s->psize);
	if (row < 0)
		return;
	record_counts_add(&r->d->vmas[row].s, order, pmd, s->tlb_miss, s->psize_given, s->psize);
	w = win_get(r, pid, addr & ~(unsigned long long)r->win_mask, true);
	if (!w || win_row_add(w, row)) {
		r->err = -ENOMEM;
		return;
	}
	record_counts_add(&w->s, order, pmd, s->tlb_miss, s->psize_given, s->psize);
}

static void push(struct rec *r, struct pending_list *l, const struct pending *s)
{
	if (MS_GROW(l->v, l->n, l->cap, 4096)) {
		r->err = -ENOMEM;
		return;
	}
	l->v[l->n++] = *s;
}

/* p's pagemap reader read an mm that is gone: p ended, or it exec'd, once
 * or more (a chain of execs, as a shim's, passes several images within one
 * drain). /proc/PID/maps tells: it has the VMAs of the image p runs now,
 * none once p ended. Then the reader and maps are the new image's; its
 * rows so far are the old images', kept with their samples, never matched,
 * grown or scanned again. 0 when it exec'd, -ESRCH when it ended. */
static int proc_exec(struct rec *r, struct proc *p)
{
	folio_scanner_close(p->fs);
	p->fs = NULL;
	p->near.valid = false;
	p->wide.valid = false;
	p->first_row = r->d->nr_vmas;
	return maps_read(r, p) ? -ESRCH : 0;
}

/* A sample in no row: counted in *why and in the totals. */
static void count_rowless(struct rec *r, const struct pending *s, unsigned long long *why)
{
	(*why)++;
	count(r, -1, s->pid, s->addr, RECORD_AT_NONE, false, s);
}

/* s's address in no VMA of p: unmapped before this drain, its page gone,
 * but not the VMA an earlier drain saw there (memory freed within a drain
 * of its faults; perf puts the sample there by its address). */
static void count_unmapped(struct rec *r, const struct proc *p, const struct pending *s)
{
	int row = row_held(r->d, p, s->addr);

	if (row < 0)
		r->d->outcome.no_vma++;
	count(r, row, s->pid, s->addr, row < 0 ? RECORD_AT_NONE : RECORD_AT_UNMAPPED, false, s);
}

/* Whether s is of an image its process p exec'd from in an exec the rings
 * have not told yet: that exec is after s (its record would have come
 * before any sample after it), and the reader, opened since the last exec
 * they told, reads an mm that is gone (err -ESRCH from it; with err 0, a
 * probe) while p lives on. Then the reader and maps are made the new
 * image's, and every sample of p in this drain is of an image gone (they
 * were all taken before the exec). Not for a sample whose time is not
 * known. */
static bool exec_untold(struct rec *r, struct proc *p, const struct pending *s, int err)
{
	struct folio_extent one;

	if (!s->time)
		return false;
	if (p->untold_drain == r->nr_drains)
		return true;
	if (!p->fs || p->exec_time != p->exec_time_open)
		return false;
	if (!err)
		err = folio_scanner_page(p->fs, p->nr_maps ? p->maps[0].start : 0, &one);
	if (err != -ESRCH || proc_exec(r, p))
		return false;
	p->untold_drain = r->nr_drains;
	return true;
}

/* One sample (or one retried): into its VMA, window and folio order. */
static void resolve(struct rec *r, const struct pending *s)
{
	struct proc *p = proc_get(r, s->pid);
	bool pmd = false;
	int i, order, row, err;

	if (!p) {
		r->err = -ENOMEM;
		return;
	}
	if (p->gone || p->final_done) {
		count_rowless(r, s, &r->d->outcome.process_gone);
		return;
	}
	if (s->time && s->time < p->exec_time) {
		/* of an image the process exec'd from: its memory is gone, and
		 * the new image's VMAs are not its */
		count_rowless(r, s, &r->d->outcome.before_exec);
		return;
	}
	if (maps_stale(r, p, s->addr) && maps_read(r, p) == -ESRCH) {
		p->gone = true;
		resolve(r, s);
		return;
	}
	i = p->maps ? maps_find(p, s->addr) : -1;
	if (i < 0 && exec_untold(r, p, s, 0)) {
		count_rowless(r, s, &r->d->outcome.before_exec);
		return;
	}
	if (i < 0) {
		count_unmapped(r, p, s);
		return;
	}
	err = page_order(r, p, i, s->addr, &pmd, &order);
	if (err == -EFAULT) {
		/* above the user address space ([vsyscall]): no pagemap
		 * entries there, and no JSON integer holds its address:
		 * zero/other, in no row */
		count(r, -1, s->pid, s->addr, RECORD_AT_OTHER, false, s);
		return;
	}
	if (err == -ESRCH && exec_untold(r, p, s, err)) {
		count_rowless(r, s, &r->d->outcome.before_exec);
		return;
	}
	if (err == -ESRCH) {
		/* its memory went away: it ended, or it exec'd in an exec the
		 * rings told, maybe before the sample, then of an image since
		 * (without the sample's time, as many images as REC_MAX_REOPEN
		 * openings of the reader; then it is counted outside any VMA) */
		struct pending again = *s;

		if (proc_exec(r, p))
			p->gone = true;
		if (p->gone || ++again.reopened <= REC_MAX_REOPEN)
			resolve(r, &again);
		else
			count_rowless(r, s, &r->d->outcome.no_vma);
		return;
	}
	if (err) { /* say it once, count unmapped */
		if (!r->err)
			r->err = err;
		order = RECORD_AT_UNMAPPED;
	}
	if (order == RECORD_AT_UNMAPPED && !s->retried && r->retry.n < REC_MAX_PENDING) {
		struct pending again = *s;

		again.retried = true;
		push(r, &r->retry, &again);
		return;
	}
	if ((row = vma_row(r, p, i)) < 0) {
		r->err = row;
		return;
	}
	count(r, row, s->pid, s->addr, order, pmd, s);
}

static int forked_add(struct rec *r, int tid)
{
	if (MS_GROW(r->forked, r->nr_forked, r->cap_forked, 64))
		return -ENOMEM;
	r->forked[r->nr_forked++] = tid;
	return 0;
}

static int on_sample(const struct sampling_sample *s, void *ctx)
{
	struct rec *r = ctx;
	struct pending x = { .pid = (int)s->pid, .time = s->time };
	struct hws_access a;
	struct hws_ibs_op op;
	struct proc *p;

	if (s->fork) {
		/* while attaching to --pid: a thread its inherited events
		 * follow (a child process is not followed) */
		if (r->attaching && (int)s->pid == r->o->pid && forked_add(r, (int)s->tid))
			r->err = -ENOMEM;
		return 0;
	}
	if (!(p = proc_get(r, x.pid))) {
		r->err = -ENOMEM;
		return 0;
	}
	/* the reader is opened on the image the process runs as its samples
	 * are read, after every exec the rings hold (exec_time_open is set
	 * once they are read): an exec before its samples are looked up is
	 * then seen (exec_untold); once a drain, for a process that ended */
	if (!p->fs && !p->gone && !p->final_done && p->tried_drain != r->nr_drains) {
		p->tried_drain = r->nr_drains;
		if (!folio_scanner_open(&p->fs, p->via))
			p->opened_drain = r->nr_drains;
	}
	if (s->exec) {
		if (s->time > p->exec_time)
			p->exec_time = s->time;
		return 0;
	}
	if (s->access)
		a = *s->access; /* an SPE record */
	else if (s->raw && !hws_ibs_op_parse(s->raw, s->raw_size, &op))
		hws_ibs_op_access(&op, &a);
	else
		hws_from_perf(s->addr, s->data_src, s->phys_addr, s->data_page_size, &a);
	x.addr = (unsigned long)a.vaddr;
	x.tlb_miss = a.tlb == HWS_TLB_MISS;
	if (r->o->data_page_size && r->d->config.data_page_size) {
		x.psize_given = true;
		x.psize = s->data_page_size;
	} else if (a.page_size) {
		x.psize_given = true;
		x.psize = a.page_size;
	}
	if (!a.vaddr_valid && !s->addr) {
		r->d->outcome.no_vma++;
		count(r, -1, x.pid, 0, RECORD_AT_NONE, false, &x);
		return 0;
	}
	push(r, &r->batch, &x);
	return 0;
}

static int by_pid_addr(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Look the samples v up, for a drain's time at most when they are slow. A
 * lookup waits for the process's memory map (mmap_lock), behind its
 * threads' mmap and munmap: 0.3-6 s each where 500 threads map and unmap,
 * and --pid's --duration 1 then lasted as long as the target (190-570 s).
 * Slow lookups end on time, those left are counted (outcome.not_looked_up);
 * lookups that are not slow (a drain of a large ring) all run. */
static void lookups(struct rec *r, const struct pending *v, size_t n)
{
	long long t0 = now_ns(), deadline = t0 + r->lookup_budget, t;
	/* a budget of 0 (the tests'): every lookup as if slow */
	long long slow = r->lookup_budget > 0 ? REC_LOOKUP_SLOW_NS : 0;
	size_t i;

	if (r->lookup_end && r->lookup_end < deadline)
		deadline = r->lookup_end;
	for (i = 0; i < n; i++) {
		t = now_ns();
		/* past the time, or asked to stop (SIGINT, SIGTERM), with lookups
		 * slow: this drain's so far, else (none yet) the last cut's */
		if ((t >= deadline || stop_requests) &&
		    (i ? t - t0 >= (long long)i * slow : r->slowed || !slow))
			break;
		resolve(r, &v[i]);
	}
	r->slowed |= i < n;
	for (; i < n; i++)
		count_rowless(r, &v[i], &r->d->outcome.not_looked_up);
}

/* --pid's lookups were slow and their time after the recording is past:
 * no more of them, nor of the memory scan. */
static bool past_lookups(const struct rec *r)
{
	return r->lookup_end && r->slowed && now_ns() > r->lookup_end;
}

/* Drain every ring and join. The samples (and the last drain's retries)
 * are sorted by process and address first: each window is then scanned
 * once a drain, however the program's accesses interleave. */
static void drain(struct rec *r)
{
	size_t i;
	int k;

	for (k = 0; k < r->nr_procs; k++) {
		r->procs[k]->near.valid = false;
		r->procs[k]->wide.valid = false;
		r->procs[k]->maps_fresh = false;
		r->procs[k]->checked = -1;
	}
	r->nr_drains++;
	r->batch.n = 0;
	for (i = 0; i < r->retry.n; i++)
		push(r, &r->batch, &r->retry.v[i]);
	r->retry.n = 0;
	for (k = 0; k < r->nr_rings; k++) {
		int err = r->last ? sampling_drain_last(r->ring[k], on_sample, r)
				  : sampling_drain(r->ring[k], on_sample, r);

		if (err && !r->err)
			r->err = err;
	}
	for (k = 0; k < r->nr_procs; k++)
		if (r->procs[k]->opened_drain == r->nr_drains)
			r->procs[k]->exec_time_open = r->procs[k]->exec_time;
	if (r->batch.n)
		qsort(r->batch.v, r->batch.n, sizeof(*r->batch.v), by_pid_addr);
	lookups(r, r->batch.v, r->batch.n);
	r->batch.n = 0;
}

/* ---- memory at the end ------------------------------------------------------ */

/*
 * The exit scan: every sampled VMA of one process, cut into chunks of one
 * window (the PMD size: folio_scanner_chunk gives a folio across an edge
 * to the chunk where it begins), so that a sampled window's contiguity
 * histogram (layout.h, the TLB model's input) is its chunks'. Two workers
 * take them in turn when there is more than one CPU: the process is
 * stopped, so its CPU is free, and the scan is one kpageflags read per
 * order-0 page (their PFNs are scattered), system calls that two threads
 * make in half the time.
 */
#define REC_MEM_THREADS 2
#define REC_MEM_MIN_SPAN (16UL << 20) /* below it one thread: a thread costs more */

struct mem_job {
	struct scan_pool pool;        /* first: the pool's callbacks are given it;
				       * its err -ESRCH: the process went away */
	struct rec *r;
	int pid;                      /* the process (the pool reads through its last thread) */
	const bool *scan;             /* the rows to scan: each address once */
	size_t next_vma;              /* cursor: the next chunk to hand out */
	unsigned long long next_addr;
	bool cut;                     /* slow lookups, and r->lookup_end came: no scan */
};

struct mem_ctx {
	struct mem_job *j;
	struct record_memory *vma;
};

static void memory_add(struct record_memory *m, const struct folio_extent *e)
{
	bool pmd;
	int o = extent_order(e, &pmd);

	m->scanned = true;
	m->present += e->pages;
	if (o >= 0)
		m->pages[o] += e->pages;
	else if (o == RECORD_AT_PARTIAL)
		m->partial += e->pages;
	else
		m->other += e->pages;
}

static int memory_extent(const struct folio_extent *e, void *ctx)
{
	struct mem_ctx *m = ctx;
	struct rec *r = m->j->r;
	struct win *w;

	pthread_mutex_lock(&m->j->pool.lock);
	w = win_get(r, m->j->pid, e->start & ~(unsigned long long)r->win_mask, false);
	memory_add(m->vma, e);
	if (w)
		memory_add(&w->mem, e);
	pthread_mutex_unlock(&m->j->pool.lock);
	return 0;
}

/* The next chunk, one window or less of a VMA, with the window if sampled. */
static bool mem_take(struct scan_pool *pool, struct folio_scanner *s, struct scan_chunk *c)
{
	struct mem_job *j = (struct mem_job *)pool;
	const struct record_doc *d = j->r->d;

	(void)s;
	if (past_lookups(j->r)) {
		j->cut = true;
		return false;
	}
	while (j->next_vma < d->nr_vmas) {
		const struct record_vma *v = &d->vmas[j->next_vma];

		if (v->pid != j->pid || !j->scan[j->next_vma] || j->next_addr >= v->end) {
			j->next_vma++;
			j->next_addr = 0;
			continue;
		}
		if (j->next_addr < v->start)
			j->next_addr = v->start;
		c->vma = j->next_vma;
		c->start = (unsigned long)j->next_addr;
		c->end = (c->start & ~j->r->win_mask) + j->r->win_mask + 1;
		if (c->end > v->end)
			c->end = (unsigned long)v->end;
		j->next_addr = c->end;
		c->arg = win_get(j->r, j->pid, c->start & ~(unsigned long long)j->r->win_mask, false);
		return true;
	}
	return false;
}

static int mem_scan(struct scan_pool *pool, struct folio_scanner *s, const struct scan_chunk *c)
{
	struct mem_job *j = (struct mem_job *)pool;
	struct record_vma *v = &j->r->d->vmas[c->vma];
	struct mem_ctx m = { .j = j, .vma = &v->mem };
	struct win *w = c->arg;
	struct layout_hist lh;
	int err;

	folio_scanner_layout_init(s, &lh);
	folio_scanner_layout(s, w ? &lh : NULL);
	err = folio_scanner_chunk(s, (unsigned long)v->start, (unsigned long)v->end, c->start,
				  c->end, NULL, memory_extent, &m);
	pthread_mutex_lock(&pool->lock);
	if (w && !err && (w->has_layout ? layout_hist_add(&w->layout, &lh) : 0) == 0) {
		if (!w->has_layout)
			w->layout = lh;
		w->has_layout = true;
	}
	pthread_mutex_unlock(&pool->lock);
	/* a VMA unmapped since its samples: its memory is what is left */
	return err == -ESRCH ? err : 0;
}

static bool rows_overlap(const struct record_vma *a, const struct record_vma *b)
{
	return a->start < b->end && b->start < a->end;
}

/* Which of p's rows the exit scan reads, each address once: the VMAs as
 * they are now (maps just read), then a row whose VMA has gone (unmapped,
 * or mapped over by another) where no row already read lies, its memory
 * what is left there; a row that overlaps one read is left unscanned, as
 * its memory is the other's. Returns the span to scan. */
static unsigned long long rows_to_scan(const struct rec *r, const struct proc *p, bool *scan)
{
	const struct record_doc *d = r->d;
	unsigned long long span = 0;
	size_t k, m;

	for (k = p->first_row; k < d->nr_vmas; k++)
		scan[k] = d->vmas[k].pid == p->pid && row_current(p, &d->vmas[k]);
	for (k = p->first_row; k < d->nr_vmas; k++) {
		if (d->vmas[k].pid != p->pid || scan[k] || row_current(p, &d->vmas[k]))
			continue;
		for (m = p->first_row; m < d->nr_vmas; m++)
			if (scan[m] && d->vmas[m].pid == p->pid &&
			    rows_overlap(&d->vmas[k], &d->vmas[m]))
				break;
		scan[k] = m == d->nr_vmas;
	}
	for (k = p->first_row; k < d->nr_vmas; k++) {
		struct record_vma *v = &d->vmas[k];

		if (v->pid != p->pid)
			continue;
		memset(&v->mem, 0, sizeof(v->mem));
		v->mem.scanned = scan[k];
		span += scan[k] ? v->end - v->start : 0;
	}
	return span;
}

/* A scan cut short is none: p's rows and windows as not scanned, and why. */
static void scan_forget(struct rec *r, const struct proc *p)
{
	size_t k;

	for (k = p->first_row; k < r->d->nr_vmas; k++)
		if (r->d->vmas[k].pid == p->pid)
			memset(&r->d->vmas[k].mem, 0, sizeof(r->d->vmas[k].mem));
	for (k = 0; k < r->nr_wins; k++)
		if (r->wins[k].pid == p->pid) {
			memset(&r->wins[k].mem, 0, sizeof(r->wins[k].mem));
			r->wins[k].has_layout = false;
		}
	warn_add("the memory of process %d was not scanned: the time for lookups ran out "
		 "(each waits for its memory map, behind its mmap and munmap)", p->pid);
}

/* Scan every sampled VMA of p (its memory is still mapped: an exit stop,
 * or the end of --duration). */
static void memory_scan(struct rec *r, struct proc *p)
{
	struct mem_job j = { .pool = { .pid = p->via, .lock = PTHREAD_MUTEX_INITIALIZER,
				       .take = mem_take, .scan = mem_scan },
			     .r = r, .pid = p->pid };
	int n = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? REC_MEM_THREADS : 1;
	bool *scan = NULL;

	if (p->final_done || p->gone)
		return;
	if (past_lookups(r)) {
		scan_forget(r, p);
		goto out;
	}
	/* the process's memory must be readable before it is said scanned */
	if (!p->fs && folio_scanner_open(&p->fs, p->via))
		goto out;
	/* its VMAs as they are at the end (a heap grown since its last
	 * sample is given its size now); a failed read leaves every row
	 * gone, scanned where no other lies */
	maps_read(r, p);
	if (!(scan = calloc(r->d->nr_vmas + 1, sizeof(*scan))))
		goto out;
	j.scan = scan;
	if (rows_to_scan(r, p, scan) < REC_MEM_MIN_SPAN)
		n = 1;
	scan_pool_run(&j.pool, n);
	if (j.cut)
		scan_forget(r, p);
out:
	free(scan);
	p->final_done = true;
	folio_scanner_close(p->fs); /* each worker held its own */
	p->fs = NULL;
}

/* ---- following the command --------------------------------------------------- */

static void on_tick(void *ctx, const pid_t *pids, int n)
{
	struct rec *r = ctx;

	(void)pids;
	(void)n;

	if (stop_requests > r->stops_sent && r->pgid > 0) {
		/* as the terminal would: SIGINT to the command's group; a second
		 * request kills it */
		kill(-r->pgid, r->stops_sent ? SIGKILL : SIGINT);
		r->stops_sent++;
		r->d->outcome.interrupted = true;
	}
	drain(r);
}

static void on_exit_stop(void *ctx, pid_t pid, pid_t tid)
{
	struct rec *r = ctx;
	struct proc *p;

	long long t0 = now_ns();

	/* the leader may have let go of the memory: read it through the
	 * thread that holds it */
	if ((p = proc_get(r, pid)))
		p->via = tid;
	/* twice: the first drain's misses are looked up once more while the
	 * memory is still there */
	drain(r);
	drain(r);
	p = proc_get(r, pid);
	if (p)
		memory_scan(r, p);
	r->d->outcome.exit_scan_s += (double)(now_ns() - t0) / 1e9;
}

/* A process stopped just after an exec: the rings hold the exec's record
 * and every sample of the images before it, and nothing of the new image
 * has run, so a drain now tells each sample its image: the old ones' are
 * counted as such, and the maps and reader opened are the new image's. A
 * chain of execs faster than the drains is then followed one image at a
 * time. */
static void on_exec_stop(void *ctx, pid_t pid, pid_t tid)
{
	struct rec *r = ctx;
	struct proc *p;

	(void)tid;
	drain(r);
	/* the reader and maps of the image it stands at, whose exec the drain
	 * was told, unless the drain opened them (its samples of the new
	 * image, the kernel's faults in the exec, are then in their rows) */
	p = proc_get(r, pid);
	if (!p || p->gone || p->final_done || (p->fs && p->exec_time_open == p->exec_time))
		return;
	if (!proc_exec(r, p) && !folio_scanner_open(&p->fs, p->via))
		p->exec_time_open = p->exec_time;
}

/* ---- the rings ---------------------------------------------------------------- */

/* SPE's sampling interval when -c is not given: the PMU's smallest
 * (caps/min_interval in sysfs, as perf record takes it), else 4096. */
static unsigned long long spe_period(const char *event)
{
	char pmu[64], path[160];
	unsigned long long v = 0;
	size_t n = strcspn(event, "/");
	FILE *f;

	snprintf(pmu, sizeof(pmu), "%.*s", (int)(n < sizeof(pmu) ? n : sizeof(pmu) - 1), event);
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/caps/min_interval", pmu);
	if ((f = fopen(path, "re"))) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v ? v : 4096;
}

/* What an event follows: a command's tree on one CPU (inherited, from its
 * exec); one thread of a running process and the threads it starts, on
 * one CPU (inherit_thread), the events of a CPU sharing one ring, as perf
 * record -p does; or, where the kernel cannot follow threads alone
 * (before 5.13), one thread on every CPU, its own ring (the threads it
 * starts are looked for at ticks). */
enum ring_kind { RING_COMMAND, RING_THREADS, RING_THREAD };

/* Room for one more event: its slot, and a descriptor (the soft limit is
 * raised to the hard one, as perf does for a process of many threads). */
static int ring_room(struct rec *r)
{
	struct rlimit rl;

	if (r->nr_rings == r->cap_rings) {
		int cap = r->cap_rings ? 2 * r->cap_rings : 64;
		struct sampling_ring **v;
		int *t;

		if (r->nr_rings == REC_MAX_RINGS)
			return -E2BIG;
		if (!(v = realloc(r->ring, (size_t)cap * sizeof(*v))))
			return -ENOMEM;
		r->ring = v;
		if (!(t = realloc(r->tid, (size_t)cap * sizeof(*t))))
			return -ENOMEM;
		r->tid = t;
		r->cap_rings = cap;
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < rl.rlim_max && (rlim_t)r->nr_rings + 64 >= rl.rlim_cur) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	return 0;
}

static int ring_open(struct rec *r, int pid, int cpu, enum ring_kind kind)
{
	bool child = kind == RING_COMMAND;
	const struct rec_options *o = r->o;
	struct sampling_options so = {
		.event = r->event, .period = o->period, .freq = o->period ? 0 : o->freq,
		.data_pages = o->data_pages, .precise = o->precise,
		.include_kernel = geteuid() == 0, .pid = pid, .inherit = kind != RING_THREAD,
		.inherit_thread = kind == RING_THREADS, .enable_on_exec = child,
		.on_cpu = kind != RING_THREAD, .cpu = cpu,
		.data_page_size = r->d->config.data_page_size,
		.phys_addr = o->phys_addr && geteuid() == 0,
		.raw = !strcmp(r->d->config.source, "ibs"), .execs = true,
	};
	int err;

	if (kind == RING_THREADS && r->cpu_ring[cpu] >= 0)
		so.output = r->ring[r->cpu_ring[cpu]];

	if (!strcmp(r->d->config.source, "spe")) {
		/* as perf: a period (SPE takes no frequency), the AUX area */
		so.freq = 0;
		so.period = o->period ? o->period : spe_period(o->event);
		so.aux_pages = REC_SPE_AUX_PAGES;
	}

	if ((err = ring_room(r)))
		return err;
	err = sampling_open(&r->ring[r->nr_rings], &so);
	if (err == -EINVAL && so.data_page_size) {
		/* before 5.11, or not for this event: go on without the sizes */
		so.data_page_size = false;
		err = sampling_open(&r->ring[r->nr_rings], &so);
		if (!err) {
			r->d->config.data_page_size = false;
			warn_add("the kernel refused PERF_SAMPLE_DATA_PAGE_SIZE: no data page sizes");
		}
	}
	if (err)
		return err;
	r->tid[r->nr_rings] = child ? 0 : pid;
	if (kind == RING_THREADS && r->cpu_ring[cpu] < 0)
		r->cpu_ring[cpu] = r->nr_rings;
	r->nr_rings++;
	return child ? 0 : sampling_enable(r->ring[r->nr_rings - 1]);
}

/* The sampled event, counting, over the command's tree (one event on every
 * CPU: a counter needs no ring). With -c N the kernel took count / N
 * samples; those not read were dropped, whether or not a PERF_RECORD_LOST
 * said so: the kernel writes one only once a later record fits, so what
 * is dropped after the last drain is never reported. Not for -F (the
 * period varies) nor IBS and SPE (their period is not one of events). */
static int count_event(struct rec *r, pid_t pid, bool command)
{
	struct perf_event_attr a;

	if (!r->o->period || (strcmp(r->d->config.source, "sw") && strcmp(r->d->config.source, "pmu")))
		return -1;
	if (counters_encode(r->event, geteuid() == 0, &a))
		return -1;
	a.inherit = 1;
	a.disabled = a.enable_on_exec = command; /* from the command's exec */
	a.inherit_thread = !command;             /* --pid: a thread and its threads */
	return counters_perf_open(&a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void count_open(struct rec *r, pid_t pid)
{
	int fd = count_event(r, pid, true);

	r->count_fd = fd >= 0 ? fd : -1;
}

/* --pid: the same over one thread and the threads it starts, at -c 1
 * only (each event of threads x CPUs keeps its own remainder of a period:
 * at -c N their sum would overstate the samples taken). A failure leaves
 * that thread uncounted, and nothing said lost. */
static void count_thread(struct rec *r, int tid)
{
	int fd;

	if (r->o->period != 1 || MS_GROW(r->count_fds, r->nr_count_fds, r->cap_count_fds, 64))
		return;
	if ((fd = count_event(r, tid, false)) >= 0)
		r->count_fds[r->nr_count_fds++] = fd;
}

/* What the counters counted: 0, or -1 when there is none (a thread's
 * counter that cannot be read counts nothing: lost is never overstated). */
static int counted(const struct rec *r, unsigned long long *count)
{
	unsigned long long v;
	size_t k;

	*count = 0;
	if (r->count_fd >= 0)
		return read(r->count_fd, count, sizeof(*count)) == sizeof(*count) ? 0 : -1;
	for (k = 0; k < r->nr_count_fds; k++)
		if (read(r->count_fds[k], &v, sizeof(v)) == sizeof(v))
			*count += v;
	return r->nr_count_fds ? 0 : -1;
}

/* Whether thread tid is followed: an event of its own, or inherited from
 * the thread that started it (a PERF_RECORD_FORK said so). */
static bool tid_known(const struct rec *r, int tid)
{
	size_t i;
	int k;

	for (k = 0; k < r->nr_rings; k++)
		if (r->tid[k] == tid)
			return true;
	for (i = 0; i < r->nr_forked; i++)
		if (r->forked[i] == tid)
			return true;
	return false;
}

struct tids {
	int *v;
	size_t n, cap;
};

static int tid_add(int pid, int tid, void *ctx)
{
	struct tids *t = ctx;

	(void)pid;
	if (MS_GROW(t->v, t->n, t->cap, 64))
		return -ENOMEM;
	t->v[t->n++] = tid;
	return 0;
}

/* The threads of process pid: a new array of n; 0 or -errno. */
static int task_list(int pid, int **tids, size_t *n)
{
	struct tids t = { NULL, 0, 0 };
	int err = task_each(pid, tid_add, &t);

	if (err) {
		free(t.v);
		t.v = NULL;
		t.n = 0;
	}
	*tids = t.v;
	*n = t.n;
	return err;
}

/* Events for one thread: on every CPU (RING_THREADS), or one (RING_THREAD). */
static int thread_events(struct rec *r, int tid, enum ring_kind kind)
{
	int cpu, err = 0;

	if (kind == RING_THREAD)
		return ring_open(r, tid, -1, kind);
	for (cpu = 0; cpu < r->nr_cpus && !err; cpu++) {
		err = ring_open(r, tid, cpu, kind);
		if (err == -ENODEV || err == -ENXIO)
			err = 0; /* an offline CPU */
	}
	if (!err)
		count_thread(r, tid);
	return err;
}

/* Events for the threads of a running process not yet followed; *added
 * how many threads got them. */
static int rings_for_pid(struct rec *r, int pid, enum ring_kind kind, int *added)
{
	size_t i, n;
	int *tids, err;

	*added = 0;
	if ((err = task_list(pid, &tids, &n)))
		return err;
	if (kind == RING_THREADS && n && r->nr_rings) {
		/* a thread started by one followed, listed before its fork
		 * record is written (proc sees it a little earlier): the
		 * record is given time and read */
		usleep(2000);
		drain(r);
	}
	for (i = 0; i < n && !err && !stop_requests; i++) {
		if (tid_known(r, tids[i]))
			continue;
		err = thread_events(r, tids[i], kind);
		if (!err)
			(*added)++;
		if (err == -ESRCH)
			err = 0; /* the thread ended meanwhile */
		if (err == -E2BIG) {
			warn_add("more than %d events (threads times CPUs): the rest of the threads "
				 "are not sampled", REC_MAX_RINGS);
			err = 0;
			break;
		}
	}
	free(tids);
	return err;
}

/* Every thread of a running process, then the threads started while that
 * was done, until none is new: from then on the kernel follows every
 * thread they start. Before 5.13, each thread alone (*kind RING_THREAD). */
static int attach_pid(struct rec *r, int pid, enum ring_kind *kind)
{
	int pass, added, err, cpu, late = 0;

	r->nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (r->nr_cpus < 1)
		r->nr_cpus = 1;
	if (!(r->cpu_ring = malloc((size_t)r->nr_cpus * sizeof(*r->cpu_ring))))
		return -ENOMEM;
	for (cpu = 0; cpu < r->nr_cpus; cpu++)
		r->cpu_ring[cpu] = -1;
	/* MTHPSCOPE_NO_INHERIT_THREAD: as before 5.13 (the tests' way there) */
	*kind = RING_THREADS;
	r->attaching = true;
	err = getenv("MTHPSCOPE_NO_INHERIT_THREAD") ? -EINVAL : rings_for_pid(r, pid, *kind, &added);
	if (err == -EINVAL && !r->nr_rings) {
		*kind = RING_THREAD;
		if (!(err = rings_for_pid(r, pid, *kind, &added)))
			warn_add("the kernel cannot follow a process's threads alone "
				 "(attr.inherit_thread, 5.13+): threads started while recording are "
				 "looked for every %d ms, and their samples before are missed",
				 10 * r->o->interval_ms);
	}
	for (pass = 1; !err && added && *kind == RING_THREADS && pass < REC_ATTACH_PASSES &&
		       !stop_requests; pass++) {
		err = rings_for_pid(r, pid, *kind, &added);
		late += added;
	}
	/* a thread started while its starter's events were being opened
	 * inherits those opened so far, and its fork record may come after
	 * its listing: it may be sampled on some CPUs only, or twice */
	if (!err && *kind == RING_THREADS && (r->nr_forked || late))
		warn_add("%zu threads started while the events were being opened: their samples "
			 "may be missed on some CPUs or counted twice (threads started after the "
			 "attach are followed exactly)", r->nr_forked + (size_t)late);
	r->attaching = false;
	free(r->forked);
	r->forked = NULL;
	r->nr_forked = r->cap_forked = 0;
	return err;
}

/* The rings stop, and the counters beside them, so that both tell the
 * same stretch (a --pid target runs on through the last drains). The
 * counters first: a sample taken between the two is then read and not
 * counted, which can hide a loss, where the other way round it was
 * counted and not read, a loss that was none (1 in an ASan run of
 * test_record pid_duration): lost is never overstated. */
static void rings_stop(struct rec *r)
{
	size_t i;
	int k;

	if (r->count_fd >= 0)
		ioctl(r->count_fd, PERF_EVENT_IOC_DISABLE, 0);
	for (i = 0; i < r->nr_count_fds; i++)
		ioctl(r->count_fds[i], PERF_EVENT_IOC_DISABLE, 0);
	for (k = 0; k < r->nr_rings; k++)
		sampling_disable(r->ring[k]);
}

/* The rings closed, once drained. Samples lost: where a counter says how
 * many were taken, exactly the ones not read (the LOST records count
 * records of every kind the ring had no room for, a thread's fork and
 * exit, an exec, and none is written for the ring's last overflow); else
 * what the LOST records say. */
static void rings_close(struct rec *r)
{
	unsigned long long aux_lost = 0, aux_bad = 0, aux_restarts = 0, got = 0, said = 0, count;
	bool exact = r->nr_rings && !counted(r, &count);
	int k;

	rings_stop(r);
	for (k = 0; k < r->nr_rings; k++) {
		const struct sampling_stats *st = sampling_stats(r->ring[k]);

		got += st->samples;
		said += st->lost_samples;
		aux_lost += st->aux_truncated + st->aux_collision;
		aux_bad += st->aux.bad_bytes + st->aux.dropped;
		aux_restarts += st->aux.restarts;
		sampling_close(r->ring[k]);
	}
	if (exact) {
		r->d->outcome.has_taken = true;
		r->d->outcome.taken += count / r->o->period;
		r->d->outcome.lost += count / r->o->period > got ? count / r->o->period - got : 0;
	} else
		r->d->outcome.lost += said;
	r->nr_rings = 0;
	if (aux_lost)
		warn_add("the SPE buffer lost records %llu times (AUX data truncated: full, or "
			 "collisions; the kernel stops sampling at a truncation, restarted %llu "
			 "times); a larger -c loses fewer", aux_lost, aux_restarts);
	if (aux_bad)
		warn_add("%llu bytes of the SPE buffer were no packet or an unfinished record "
			 "(skipped)", aux_bad);
}


/* ---- the two targets ------------------------------------------------------------ */

/* SIGINT and SIGTERM end the recording, not mthpscope: the document is
 * still written (a command gets SIGINT from on_tick). */
static void catch_stops(struct rec *r)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &r->old_int);
	sigaction(SIGTERM, &sa, &r->old_term);
	r->caught = true;
}

static int rings_for_command(struct rec *r, int pid)
{
	long n = sysconf(_SC_NPROCESSORS_CONF), cpu;
	int err = 0;

	for (cpu = 0; cpu < n && cpu < REC_MAX_RINGS; cpu++) {
		err = ring_open(r, pid, (int)cpu, RING_COMMAND);
		if (err == -ENODEV || err == -ENXIO)
			err = 0; /* an offline CPU */
		if (err)
			break;
	}
	return err;
}

static int run_command(struct rec *r)
{
	/* the terminal is the command's while it runs, as under perf record:
	 * it reads its input there, and Ctrl-C reaches it */
	struct child_opts co = { .trace = true, .trace_exec = true, .foreground = true,
				 .tty_stdin = true };
	/* the ring must be drained whatever the drains cost (a ring left full
	 * loses samples): no CPU budget short of all of one CPU */
	struct child_watch cw = { .interval_ms = r->o->interval_ms, .tick = on_tick,
				  .at_exit = on_exit_stop, .at_exec = on_exec_stop, .ctx = r,
				  .cpu_budget = 1.0 };
	struct child ch = { .go_fd = -1, .err_fd = -1 };
	struct child_result cr;
	struct record_outcome *out = &r->d->outcome;
	int err;

	fail_stage = STAGE_LAUNCH;
	if ((err = child_prepare(&ch, r->o->argv, &co)))
		return err;
	r->pgid = ch.pid;
	/* after child_prepare, whose cleanup hooks own the signals until now */
	catch_stops(r);
	fail_stage = STAGE_EVENT;
	if ((err = rings_for_command(r, ch.pid)))
		goto out;
	count_open(r, ch.pid);
	fail_stage = STAGE_LAUNCH;
	if (!ch.traced)
		warn_add("ptrace does not attach (%s): no scan at exit, memory shares are absent",
			 strerror(ch.trace_err));
	if ((err = child_start(&ch)))
		goto out;
	if ((err = child_wait(&ch, &cw, &cr)))
		goto out;
	out->has_exit = true;
	out->exit_code = WIFEXITED(cr.status) ? WEXITSTATUS(cr.status) : -1;
	out->exit_signal = WIFSIGNALED(cr.status) ? WTERMSIG(cr.status) : 0;
	out->wall_s = (double)cr.wall_ns / 1e9;
	out->nr_processes = cr.nr_processes;
	/* Ctrl-C at the terminal reaches the command, whose group holds it;
	 * child_wait raises it here then, and catch_stops counts it */
	if (cr.needs_tty)
		warn_add("%s was stopped for reading the terminal, which it could not be given",
			 r->o->argv[0]);
out:
	if (err)
		child_cancel(&ch);
	r->pgid = 0;
	return err;
}

static int run_pid(struct rec *r)
{
	long long t0 = now_ns(), end;
	unsigned long ticks = 0;
	enum ring_kind kind = RING_THREADS;
	struct proc *p;
	int err, added;

	fail_stage = STAGE_TARGET;
	if (!process_lives(r->o->pid))
		return -ESRCH;
	if (!(p = proc_get(r, r->o->pid)))
		return -ENOMEM;
	/* the target's memory must be readable before anything is sampled
	 * (through another thread when the leader has ended) */
	err = folio_scanner_open(&p->fs, r->o->pid);
	if ((err == -ESRCH || err == -ENOENT) && !via_thread(p))
		err = folio_scanner_open(&p->fs, p->via);
	if (err)
		return err == -ENOENT ? -ESRCH : err;
	fail_stage = STAGE_EVENT;
	/* SIGINT, SIGTERM while attaching: the document of what was sampled */
	catch_stops(r);
	if ((err = attach_pid(r, r->o->pid, &kind)))
		return err;
	/* --duration is of sampling: from the end of the attach on */
	end = now_ns() + (long long)(r->o->duration_s * 1e9);
	r->d->outcome.nr_processes = 1;
	while (!stop_requests && now_ns() < end) {
		long long left = end - now_ns(), step = (long long)r->o->interval_ms * 1000000LL;
		struct timespec ts;

		if (left < step)
			step = left > 0 ? left : 0;
		ts.tv_sec = step / 1000000000LL;
		ts.tv_nsec = step % 1000000000LL;
		nanosleep(&ts, NULL); /* a signal cuts it short */
		if (kind == RING_THREAD && ++ticks % 10 == 0)
			rings_for_pid(r, r->o->pid, kind, &added); /* threads started since */
		drain(r);
		if (!process_lives(r->o->pid)) {
			r->d->outcome.target_gone = true;
			break;
		}
	}
	r->d->outcome.interrupted = stop_requests > 0;
	/* the last lookups and the scan end on time, behind a busy memory map */
	r->lookup_end = now_ns() + r->lookup_budget;
	/* the rings stop before the scan: a sample drained after it would
	 * be counted after its process ended, the process alive */
	rings_stop(r);
	drain(r);
	drain(r);
	p = proc_get(r, r->o->pid);
	if (p && !r->d->outcome.target_gone)
		memory_scan(r, p);
	r->d->outcome.wall_s = (double)(now_ns() - t0) / 1e9;
	return 0;
}

/* ---- the document --------------------------------------------------------------- */

static int doc_begin(struct rec *r)
{
	struct record_doc *d = r->d;
	struct record_config *c = &d->config;
	struct topo_info t;
	int err;

	memset(d, 0, sizeof(*d));
	snprintf(d->tool_version, sizeof(d->tool_version), "%s", ms_version);
	topo_describe(&t);
	if (!thp_read(&d->thp))
		d->has_thp = true;
	results_host_describe(&d->host, &t, &d->thp);
	if (d->host.topo.page_size <= 0)
		d->host.topo.page_size = sysconf(_SC_PAGESIZE);
	snprintf(c->event, sizeof(c->event), "%s", r->o->event);
	snprintf(c->source, sizeof(c->source), "%s", rec_event_source(r->o->event));
	c->period = r->o->period;
	c->freq = r->o->period ? 0 : r->o->freq;
	if (!strcmp(c->source, "spe") && !c->period) {
		c->period = spe_period(r->o->event); /* what ring_open gives SPE */
		c->freq = 0;
	}
	c->data_pages = r->o->data_pages;
	c->interval_ms = r->o->interval_ms;
	c->data_page_size = r->o->data_page_size;
	c->phys_addr = r->o->phys_addr && geteuid() == 0;
	c->pid = r->o->pid;
	c->duration_s = r->o->pid ? r->o->duration_s : 0;
	c->window_bytes = d->thp.pmd_size ? (unsigned)d->thp.pmd_size : 2u << 20;
	c->top_windows = r->o->top_windows;
	r->win_mask = c->window_bytes - 1;
	if (r->o->argv && (err = record_config_set_argv(c, r->o->argv)))
		return err;
	return 0;
}

static int by_samples(const void *a, const void *b)
{
	const struct win *x = a, *y = b;

	if (x->s.samples != y->s.samples)
		return x->s.samples < y->s.samples ? 1 : -1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* A window is named after the VMA with most of its samples (the first
 * of them on a tie) and says how many it spans. */
static void win_name(const struct record_doc *d, const struct win *x, struct record_window *w)
{
	size_t k, top = 0;

	for (k = 1; k < x->nr_rows; k++)
		if (x->rows[k].samples > x->rows[top].samples)
			top = k;
	if (x->nr_rows)
		snprintf(w->vma, sizeof(w->vma), "%s", d->vmas[x->rows[top].row].name);
	w->nr_vmas = (int)x->nr_rows;
}

static int doc_windows(struct rec *r)
{
	struct record_doc *d = r->d;
	size_t n = r->nr_wins < r->o->top_windows ? r->nr_wins : r->o->top_windows, i;

	if (r->nr_wins)
		qsort(r->wins, r->nr_wins, sizeof(*r->wins), by_samples);
	if (!n)
		return 0;
	d->windows = calloc(n, sizeof(*d->windows));
	if (!d->windows)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct record_window *w = &d->windows[i];

		w->pid = r->wins[i].pid;
		w->start = r->wins[i].start;
		w->s = r->wins[i].s;
		w->mem = r->wins[i].mem;
		w->has_layout = r->wins[i].has_layout;
		w->layout = r->wins[i].layout;
		win_name(d, &r->wins[i], w);
	}
	d->nr_windows = n;
	return 0;
}

static void rec_free(struct rec *r)
{
	int k;

	rings_close(r);
	free(r->ring);
	free(r->tid);
	free(r->cpu_ring);
	free(r->forked);
	if (r->count_fd >= 0)
		close(r->count_fd);
	for (size_t i = 0; i < r->nr_count_fds; i++)
		close(r->count_fds[i]);
	free(r->count_fds);
	for (k = 0; k < r->nr_procs; k++)
		proc_free(r->procs[k]);
	free(r->procs);
	free(r->batch.v);
	free(r->retry.v);
	for (k = 0; k < (int)r->nr_wins; k++)
		free(r->wins[k].rows);
	free(r->wins);
	free(r->hash);
}

/* MTHPSCOPE_LOOKUP_BUDGET_MS: a drain's time for slow lookups other than
 * the second (the tests' way to a short one; 0: none at all, as if every
 * lookup were slow), 0 to an hour; anything else is warned of, unused. */
static long long lookup_budget_ms(void)
{
	const char *v = getenv("MTHPSCOPE_LOOKUP_BUDGET_MS");
	long long ms;
	char *end;

	if (!v)
		return REC_LOOKUP_BUDGET_MS;
	errno = 0;
	ms = strtoll(v, &end, 10);
	if (errno || end == v || *end || ms < 0 || ms > 3600000) {
		warn_add("MTHPSCOPE_LOOKUP_BUDGET_MS='%.32s' is not 0 to 3600000 ms: the %d ms "
			 "are kept", v, REC_LOOKUP_BUDGET_MS);
		return REC_LOOKUP_BUDGET_MS;
	}
	return ms;
}

int rec_run(const struct rec_options *o, struct record_doc *d)
{
	struct rec r = { .o = o, .d = d, .count_fd = -1 };
	struct folio_probe fp;
	size_t n;
	int err;

	warnings[0] = '\0';
	stop_requests = 0;
	fail_stage = STAGE_EVENT;
	r.lookup_budget = lookup_budget_ms() * 1000000LL;
	if ((err = doc_begin(&r)))
		goto out;
	/* perf's "arm_spe_0//" (the PMU, config 0) in the raw syntax counters.c knows */
	n = strlen(o->event);
	if (!strcmp(d->config.source, "spe") && n > 2 && !strcmp(o->event + n - 2, "//"))
		snprintf(r.event, sizeof(r.event), "%.*s/r0/", (int)(n - 2), o->event);
	else
		snprintf(r.event, sizeof(r.event), "%s", o->event);
	if (folio_probe(&fp) || !fp.pfns_visible || !fp.kpageflags_readable) {
		fail_stage = STAGE_PFNS;
		err = -EPERM;
		goto out;
	}
	err = o->argv ? run_command(&r) : run_pid(&r);
	/* the last samples: their processes have ended; the rings stopped
	 * first, so an unfinished SPE record is given up at the last drain */
	rings_stop(&r);
	drain(&r);
	r.last = true;
	drain(&r);
	/* what is still not present is unmapped: resolve counts a retried
	 * sample as it finds it */
	lookups(&r, r.retry.v, r.retry.n);
	if (stop_requests)
		d->outcome.interrupted = true;
	if (r.caught) {
		sigaction(SIGINT, &r.old_int, NULL);
		sigaction(SIGTERM, &r.old_term, NULL);
	}
	rings_close(&r);
	if (!err)
		err = doc_windows(&r);
	if (!err && r.err && r.err != -ESRCH)
		warn_add("looking samples up failed: %s", strerror(-r.err));
out:
	rec_free(&r);
	if (err)
		record_doc_free(d);
	return err;
}
