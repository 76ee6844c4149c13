#include "atomic.h"
#include "cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
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

int atomic_check_writable(const char *path)
{
	char dir[PATH_MAX];
	int err;

	if (!strcmp(path, "-"))
		return 0;
	if ((err = dir_of(path, dir, sizeof(dir))))
		return err;
	if (access(dir, W_OK | X_OK) < 0)
		return -errno;
	if (access(path, F_OK) == 0 && access(path, W_OK) < 0)
		return -errno;
	return 0;
}

int atomic_write(const char *path, int (*emit)(FILE *f, void *ctx), void *ctx)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 32];
	FILE *f = NULL;
	int fd, dfd, err, slot;

	if (!strcmp(path, "-")) {
		err = emit(stdout, ctx);
		if (!err && fflush(stdout))
			err = -errno;
		return err;
	}
	if ((err = dir_of(path, dir, sizeof(dir))))
		return err;
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	/* O_EXCL | O_NOFOLLOW: as root in a shared directory, never follow a
	 * planted symlink or reuse someone else's file. */
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	slot = cleanup_unlink_path(tmp);
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		goto fail;
	}
	errno = 0;
	if ((err = emit(f, ctx)))
		goto fail;
	if (fflush(f) || fsync(fileno(f))) {
		err = errno ? -errno : -EIO;
		goto fail;
	}
	if (fclose(f)) {
		f = NULL;
		err = -errno;
		goto fail;
	}
	f = NULL;
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
	if (f)
		fclose(f);
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
