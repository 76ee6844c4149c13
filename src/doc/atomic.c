// SPDX-License-Identifier: GPL-2.0-or-later
#include "atomic.h"
#include "cleanup.h"
#include "mthpscope.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int dir_of(const char *path, char *dir, size_t size)
{
	char tmp[PATH_MAX];

	if (strlen(path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	strcpy(tmp, path);
	snprintf(dir, size, "%s", dirname(tmp));
	return 0;
}

/* The nearest existing ancestor of a path that does not exist yet (what
 * "mkdir -p" would create under). */
static int existing_ancestor(const char *path, char *dir, size_t size)
{
	struct stat st;
	int err;

	if ((err = dir_of(path, dir, size)))
		return err;
	while (stat(dir, &st) < 0) {
		char up[PATH_MAX];

		if (errno != ENOENT)
			return -errno;
		if ((err = dir_of(dir, up, sizeof(up))))
			return err;
		if (!strcmp(up, dir))
			return -ENOENT;
		snprintf(dir, size, "%s", up);
	}
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/* The descriptor a path names by its words alone, or -1. */
static int fd_named(const char *path)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/" };
	static const char *const std[] = { "/dev/stdin", "/dev/stdout", "/dev/stderr" };
	size_t i, n;
	char *end;
	long fd;

	if (!strcmp(path, "-"))
		return STDOUT_FILENO;
	for (i = 0; i < MS_ARRAY_SIZE(std); i++)
		if (!strcmp(path, std[i]))
			return (int)i;
	for (i = 0; i < MS_ARRAY_SIZE(dirs); i++) {
		n = strlen(dirs[i]);
		if (strncmp(path, dirs[i], n) || !isdigit((unsigned char)path[n]))
			continue;
		errno = 0;
		fd = strtol(path + n, &end, 10);
		return !*end && !errno && fd <= INT_MAX ? (int)fd : -1;
	}
	return -1;
}

/* The kernel's rule for following link (fs.protected_symlinks), which a
 * link followed by hand would escape: in a sticky directory others may
 * write (/tmp), only a link of ours or of the directory's owner is
 * followed; root writing -o /tmp/x.json never follows one planted there. */
static int may_follow(const char *link, const struct stat *lst)
{
	char dir[PATH_MAX];
	struct stat st;
	int err;

	if ((err = dir_of(link, dir, sizeof(dir))))
		return err;
	if (stat(dir, &st) < 0)
		return -errno;
	if ((st.st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH) ||
	    lst->st_uid == geteuid() || lst->st_uid == st.st_uid)
		return 0;
	return -EACCES;
}

/* Where an output path leads: a descriptor of ours (*fd, see
 * atomic_output_fd), or the path with its symbolic links followed (out),
 * so that a link's target is replaced, never the link itself. */
static int output_target(const char *path, char *out, size_t size, int *fd)
{
	char cur[PATH_MAX], link[PATH_MAX], dir[PATH_MAX];
	struct stat st;
	ssize_t n;
	int i, err;

	if (strlen(path) >= sizeof(cur))
		return -ENAMETOOLONG;
	strcpy(cur, path);
	for (i = 0;; i++) {
		if ((*fd = fd_named(cur)) >= 0)
			return 0;
		if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode)) {
			if (strlen(cur) >= size)
				return -ENAMETOOLONG;
			strcpy(out, cur);
			return 0;
		}
		if (i == 40) /* the kernel's MAXSYMLINKS */
			return -ELOOP;
		if ((err = may_follow(cur, &st)))
			return err;
		if ((n = readlink(cur, link, sizeof(link) - 1)) < 0)
			return -errno;
		link[n] = '\0';
		if (link[0] == '/') {
			strcpy(cur, link);
			continue;
		}
		if ((err = dir_of(cur, dir, sizeof(dir))))
			return err;
		if (snprintf(cur, sizeof(cur), "%s/%s", dir, link) >= (int)sizeof(cur))
			return -ENAMETOOLONG;
	}
}

int atomic_output_fd(const char *path)
{
	char real[PATH_MAX];
	int fd;

	return output_target(path, real, sizeof(real), &fd) ? -1 : fd;
}

bool atomic_output_is_stdout(const char *path)
{
	char real[PATH_MAX];
	struct stat a, b;
	int fd;

	if (output_target(path, real, sizeof(real), &fd))
		return false;
	if (fd == STDOUT_FILENO)
		return true;
	if (fstat(STDOUT_FILENO, &b) < 0 || (fd >= 0 ? fstat(fd, &a) : stat(real, &a)) < 0)
		return false;
	/* a file or a pipe (not /dev/null, not a terminal named by its path) */
	return (S_ISREG(a.st_mode) || S_ISFIFO(a.st_mode)) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* Whether two paths not made yet are one name in one directory. */
static bool same_new_name(const char *a, const char *b)
{
	char da[PATH_MAX], db[PATH_MAX];
	const char *ba = strrchr(a, '/'), *bb = strrchr(b, '/');
	struct stat sa, sb;

	if (strcmp(ba ? ba + 1 : a, bb ? bb + 1 : b) || dir_of(a, da, sizeof(da)) ||
	    dir_of(b, db, sizeof(db)) || stat(da, &sa) < 0 || stat(db, &sb) < 0)
		return false;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool atomic_same_output(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];
	struct stat sa, sb;
	int fa, fb;

	if (output_target(a, ra, sizeof(ra), &fa) || output_target(b, rb, sizeof(rb), &fb))
		return false;
	if (atomic_output_is_stdout(a) && atomic_output_is_stdout(b))
		return true;
	if (fa >= 0 || fb >= 0)
		return fa == fb;
	if (stat(ra, &sa) == 0 && stat(rb, &sb) == 0)
		return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	return same_new_name(ra, rb);
}

/* A descriptor given as the output must be open for writing. */
static int fd_writable(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	return (fl & O_ACCMODE) == O_RDONLY ? -EBADF : 0;
}

/* access() lets root through where no file can be made (/proc, /sys): make
 * one, as the write will, and take it away. */
static int probe_dir(const char *dir)
{
	char p[PATH_MAX];
	int fd;

	if (snprintf(p, sizeof(p), "%s/.mthpscope-probe-XXXXXX", dir) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	fd = mkstemp(p);
	if (fd < 0)
		return -errno;
	close(fd);
	unlink(p);
	return 0;
}

int atomic_check_output(const char *path, bool want_dir)
{
	char dir[PATH_MAX], real[PATH_MAX];
	struct stat st;
	int err, fd;

	if (!want_dir && !strcmp(path, "-"))
		return 0;
	if (!*path)
		return -ENOENT;
	if (!want_dir) {
		if ((err = output_target(path, real, sizeof(real), &fd)))
			return err;
		if (fd >= 0)
			return fd_writable(fd);
		path = real;
	}
	if (stat(path, &st) == 0) {
		if (want_dir) {
			if (!S_ISDIR(st.st_mode))
				return -ENOTDIR;
			return access(path, W_OK | X_OK) < 0 ? -errno : probe_dir(path);
		}
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		/* a device, FIFO or socket is written in place, a file replaced */
		if (!S_ISREG(st.st_mode))
			return access(path, W_OK) < 0 ? -errno : 0;
		if ((err = dir_of(path, dir, sizeof(dir))))
			return err;
		if (access(dir, W_OK | X_OK) < 0 || access(path, W_OK) < 0)
			return -errno;
		return probe_dir(dir);
	}
	if (errno != ENOENT)
		return -errno;
	if (want_dir)
		err = existing_ancestor(path, dir, sizeof(dir));
	else
		err = dir_of(path, dir, sizeof(dir));
	if (err)
		return err;
	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return access(dir, W_OK | X_OK) < 0 ? -errno : probe_dir(dir);
}

int atomic_remove_stale(const char *path)
{
	char dir[PATH_MAX], base[PATH_MAX], tmp[PATH_MAX];
	struct dirent *de;
	size_t blen;
	DIR *d;
	int n = 0;

	if (dir_of(path, dir, sizeof(dir)) || strlen(path) >= sizeof(tmp))
		return 0;
	strcpy(tmp, path);
	snprintf(base, sizeof(base), "%s.tmp.", basename(tmp));
	blen = strlen(base);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		const char *p = de->d_name + blen;
		char *end, full[PATH_MAX + 256];
		struct stat st;
		long pid;

		if (strncmp(de->d_name, base, blen) || !isdigit((unsigned char)*p))
			continue;
		errno = 0;
		pid = strtol(p, &end, 10);
		if (*end || errno || pid <= 0 || pid > INT_MAX || pid == (long)getpid())
			continue;
		/* only a dead writer's file: a live one is still writing */
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(full, sizeof(full), "%s/%s", dir, de->d_name);
		if (lstat(full, &st) == 0 && S_ISREG(st.st_mode) && unlink(full) == 0)
			n++;
	}
	closedir(d);
	return n;
}

/* fd as a stream to write: NULL with -errno in *err (fd closed then). */
static FILE *stream_of(int fd, int *err)
{
	FILE *f = fdopen(fd, "w");

	if (!f) {
		*err = -errno;
		close(fd);
	}
	return f;
}

/* Emit into f, flushed (and synced: fsync), f closed: 0 or -errno. */
static int emit_and_close(FILE *f, int (*emit)(FILE *f, void *ctx), void *ctx, bool sync)
{
	int err;

	errno = 0;
	err = emit(f, ctx);
	if (!err && (fflush(f) || ferror(f) || (sync && fsync(fileno(f)))))
		err = errno ? -errno : -EIO;
	if (fclose(f) && !err)
		err = errno ? -errno : -EIO;
	return err;
}

/* A descriptor of ours (-o /dev/stdout, /dev/fd/3): written through it,
 * where and as its opener put it (appending, a pipe). */
static int write_to_fd(int fd, int (*emit)(FILE *f, void *ctx), void *ctx)
{
	FILE *f;
	int err;

	if (fd == STDOUT_FILENO) {
		err = emit(stdout, ctx);
		if (!err && fflush(stdout))
			err = -errno;
		return err;
	}
	if ((err = fd_writable(fd)))
		return err;
	if ((fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return -errno;
	if (!(f = stream_of(fd, &err)))
		return err;
	return emit_and_close(f, emit, ctx, false);
}

bool atomic_in_place(const char *path)
{
	char real[PATH_MAX];
	struct stat st;
	int fd;

	if (output_target(path, real, sizeof(real), &fd))
		return false;
	return fd >= 0 || (stat(real, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
}

/* Not a regular file (a character device such as /dev/null, a FIFO, a
 * socket): written in place, never replaced by a rename. */
static int write_in_place(const char *path, int (*emit)(FILE *f, void *ctx), void *ctx)
{
	FILE *f;
	int fd, err;

	fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!(f = stream_of(fd, &err)))
		return err;
	return emit_and_close(f, emit, ctx, false);
}

int atomic_write(const char *path, int (*emit)(FILE *f, void *ctx), void *ctx)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 32], real[PATH_MAX];
	struct stat st;
	FILE *f;
	int fd, dfd, err, slot;

	if ((err = output_target(path, real, sizeof(real), &fd)))
		return err;
	if (fd >= 0)
		return write_to_fd(fd, emit, ctx);
	path = real;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return -EISDIR;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return write_in_place(path, emit, ctx);
	if ((err = dir_of(path, dir, sizeof(dir))))
		return err;
	atomic_remove_stale(path);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	/* O_EXCL | O_NOFOLLOW: as root in a shared directory, never follow a
	 * planted symlink or reuse someone else's file. */
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	/* a file replaced keeps its owner and mode (a private one stays so) */
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		if (fchown(fd, st.st_uid, st.st_gid)) {
			/* not ours to give away: the mode alone */
		}
		fchmod(fd, st.st_mode & 0777);
	}
	slot = cleanup_unlink_path(tmp);
	if (!(f = stream_of(fd, &err)) || (err = emit_and_close(f, emit, ctx, true)))
		goto fail;
	if (rename(tmp, path) < 0) {
		err = -errno;
		goto fail;
	}
	cleanup_forget_path(slot);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
fail:
	unlink(tmp);
	cleanup_forget_path(slot);
	return err;
}

struct json_ctx {
	json_t *doc;
	size_t flags;
};

static int emit_json(FILE *f, void *ctx)
{
	struct json_ctx *c = ctx;

	if (json_dumpf(c->doc, f, c->flags) || fputc('\n', f) == EOF)
		return errno ? -errno : -EIO;
	return 0;
}

int atomic_write_json(const char *path, json_t *doc, size_t json_flags)
{
	struct json_ctx c = { doc, json_flags };

	return atomic_write(path, emit_json, &c);
}

/* One rescue file in dir: created new (mkstemps, 0600), written, synced. */
static int rescue_in(const char *dir, const char *tag, struct json_ctx *c, char *saved,
		     size_t size)
{
	char p[PATH_MAX], abs[PATH_MAX];
	FILE *f;
	int fd, err, slot;

	/* named whole in the message: "rel/" or "dir//" would not be */
	if (!realpath(dir, abs))
		return -errno;
	if (snprintf(p, sizeof(p), "%s/mthpscope-%s-XXXXXX.json", abs, tag) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	if ((fd = mkstemps(p, 5)) < 0)
		return -errno;
	slot = cleanup_unlink_path(p);
	if (!(f = stream_of(fd, &err)) || (err = emit_and_close(f, emit_json, c, true)))
		goto fail;
	cleanup_forget_path(slot);
	snprintf(saved, size, "%s", p);
	return 0;
fail:
	unlink(p);
	cleanup_forget_path(slot);
	return err;
}

int atomic_rescue_json(const char *tag, json_t *doc, size_t json_flags, char *saved, size_t size)
{
	const char *dirs[] = { getenv("TMPDIR"), "/var/tmp", "/tmp" };
	struct json_ctx c = { doc, json_flags };
	int err = -ENOENT;
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (!dirs[i] || !*dirs[i] || (i && dirs[0] && !strcmp(dirs[i], dirs[0])))
			continue;
		if (!(err = rescue_in(dirs[i], tag, &c, saved, size)))
			return 0;
	}
	return err;
}
