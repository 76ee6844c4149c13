// SPDX-License-Identifier: GPL-2.0-or-later
#include "kconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mthpscope.h"

const char *const kconfig_thp_options[] = {
	"TRANSPARENT_HUGEPAGE",
	"TRANSPARENT_HUGEPAGE_ALWAYS",
	"TRANSPARENT_HUGEPAGE_MADVISE",
	"TRANSPARENT_HUGEPAGE_NEVER",
	"THP_SWAP",
	"READ_ONLY_THP_FOR_FS",
	"PGTABLE_HAS_HUGE_LEAVES",
	"ARM64_4K_PAGES",
	"ARM64_16K_PAGES",
	"ARM64_64K_PAGES",
	"ARM64_CONTPTE",
	"PROC_PAGE_MONITOR",
	"PERF_EVENTS",
	NULL,
};

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

int kconfig_release(char *buf, size_t size)
{
	const char *rel = getenv("MTHPSCOPE_KERNEL_RELEASE");
	struct utsname u;

	if (rel && *rel)
		return snprintf(buf, size, "%s", rel), 0;
	if (uname(&u))
		return -errno;
	snprintf(buf, size, "%s", u.release);
	return 0;
}

int kconfig_find(char *path, size_t size)
{
	const char *env = getenv("MTHPSCOPE_KCONFIG");
	char rel[96];
	int i, err;

	if (env && *env) {
		snprintf(path, size, "%s", env);
		return access(path, R_OK) ? -errno : 0;
	}
	if ((err = kconfig_release(rel, sizeof(rel))))
		return err;
	/* Debian's /boot first, the module tree's copy, then the kernel's own */
	for (i = 0; i < 4; i++) {
		if (i == 0)
			snprintf(path, size, "%s/config-%s", env_or("MTHPSCOPE_BOOT_DIR", "/boot"),
				 rel);
		else if (i < 3)
			snprintf(path, size, "%s/%s/config", i == 1 ? "/lib/modules" :
				 "/usr/lib/modules", rel);
		else
			snprintf(path, size, "%s/config.gz", env_or("MTHPSCOPE_PROC_ROOT", "/proc"));
		if (!access(path, R_OK))
			return 0;
	}
	path[0] = '\0';
	return -ENOENT;
}

static bool is_gz(const char *path)
{
	size_t n = strlen(path);

	return n > 3 && !strcmp(path + n - 3, ".gz");
}

/* Each line of f to on_line until it returns non-zero (that value). */
static int read_lines(FILE *f, int (*on_line)(const char *line, void *ctx), void *ctx)
{
	char line[512];
	int rc = 0;

	while (!rc && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		rc = on_line(line, ctx);
	}
	return rc;
}

/* A .gz config through gzip -dc (gzip is essential on Debian). */
static int read_gz(const char *path, int (*on_line)(const char *line, void *ctx), void *ctx)
{
	int fds[2], st, rc = 0;
	FILE *f;
	pid_t pid;

	if (access(path, R_OK))
		return -errno;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(fds[1], STDOUT_FILENO);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		execlp("gzip", "gzip", "-dc", path, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f) {
		rc = -errno;
		close(fds[0]);
	} else {
		rc = read_lines(f, on_line, ctx);
		/* drain, so gzip does not die of SIGPIPE when on_line stopped early */
		while (fgetc(f) != EOF)
			;
		fclose(f);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		rc = rc ? rc : -EIO;
	return rc;
}

int kconfig_read(const char *path, int (*on_line)(const char *line, void *ctx), void *ctx)
{
	FILE *f;
	int rc;

	if (is_gz(path))
		return read_gz(path, on_line, ctx);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	rc = read_lines(f, on_line, ctx);
	fclose(f);
	return rc;
}

int kconfig_value(const char *line, const char *name, char *val, size_t size)
{
	size_t n = strlen(name);

	if (!strncmp(line, "CONFIG_", 7) && !strncmp(line + 7, name, n) && line[7 + n] == '=') {
		snprintf(val, size, "%s", line + 8 + n);
		return 0;
	}
	if (!strncmp(line, "# CONFIG_", 9) && !strncmp(line + 9, name, n) &&
	    !strcmp(line + 9 + n, " is not set")) {
		snprintf(val, size, "n");
		return 0;
	}
	return -ENOENT;
}

int kconfig_line(const char *line, const char *name)
{
	char val[4];

	if (kconfig_value(line, name, val, sizeof(val)))
		return -1;
	return val[0] == 'y' || val[0] == 'm';
}

struct get_ctx {
	const char *name;
	char *val;
	size_t size;
};

static int get_line(const char *line, void *ctx)
{
	struct get_ctx *g = ctx;

	return kconfig_value(line, g->name, g->val, g->size) ? 0 : 1;
}

int kconfig_get(const char *path, const char *name, char *val, size_t size)
{
	struct get_ctx g = { name, val, size };
	int rc = kconfig_read(path, get_line, &g);

	return rc == 1 ? 0 : rc ? rc : -ENOENT;
}

/* The whole log into a new buffer (NUL-terminated). */
static int klog_read(char **out)
{
	const char *file = getenv("MTHPSCOPE_KLOG");
	char *buf;
	int len, n;

	*out = NULL;
	if (file && *file) {
		FILE *f = fopen(file, "re");
		size_t got;

		if (!f)
			return -errno;
		buf = malloc(1 << 20);
		if (!buf) {
			fclose(f);
			return -ENOMEM;
		}
		got = fread(buf, 1, (1 << 20) - 1, f);
		fclose(f);
		buf[got] = '\0';
		*out = buf;
		return 0;
	}
	len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	if (len <= 0)
		return len < 0 ? -errno : -ENODATA;
	buf = malloc((size_t)len + 1);
	if (!buf)
		return -ENOMEM;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	if (n < 0) {
		int err = -errno;

		free(buf);
		return err;
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

int klog_find_mpn_message(bool *found, int *kept)
{
	char *log, *p;
	int err;

	*found = false;
	*kept = -1;
	if ((err = klog_read(&log)))
		return err;
	p = strstr(log, KLOG_MPN_MESSAGE);
	if (p) {
		*found = true;
		*kept = atoi(p + strlen(KLOG_MPN_MESSAGE));
	}
	free(log);
	return 0;
}
