// SPDX-License-Identifier: GPL-2.0-or-later
#include "kconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/utsname.h>
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

int kconfig_find(char *path, size_t size)
{
	/* before and after the release */
	static const char *const where[][2] = { { "/boot/config-", "" },
						{ "/lib/modules/", "/config" },
						{ "/usr/lib/modules/", "/config" } };
	const char *env = getenv("MTHPSCOPE_KCONFIG");
	struct utsname u;
	size_t i;

	if (env && *env) {
		snprintf(path, size, "%s", env);
		return access(path, R_OK) ? -errno : 0;
	}
	if (uname(&u))
		return -errno;
	for (i = 0; i < MS_ARRAY_SIZE(where); i++) {
		snprintf(path, size, "%s%s%s", where[i][0], u.release, where[i][1]);
		if (!access(path, R_OK))
			return 0;
	}
	path[0] = '\0';
	return -ENOENT;
}

int kconfig_get(const char *path, const char *name, char *val, size_t size)
{
	char line[512], set[128], unset[128];
	size_t ls, lu;
	FILE *f;
	int rc = -ENOENT;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	snprintf(set, sizeof(set), "CONFIG_%s=", name);
	snprintf(unset, sizeof(unset), "# CONFIG_%s is not set", name);
	ls = strlen(set);
	lu = strlen(unset);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, set, ls)) {
			snprintf(val, size, "%s", line + ls);
			rc = 0;
			break;
		}
		if (!strncmp(line, unset, lu) && !line[lu]) {
			snprintf(val, size, "n");
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
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
