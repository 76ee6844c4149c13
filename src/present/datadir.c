// SPDX-License-Identifier: GPL-2.0-or-later
#include "datadir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef MTHPSCOPE_DATADIR
#define MTHPSCOPE_DATADIR "scripts"
#endif
#ifndef MTHPSCOPE_REL_DATADIR
#define MTHPSCOPE_REL_DATADIR "../share/mthpscope"
#endif
#ifndef MTHPSCOPE_REL_MANDIR
#define MTHPSCOPE_REL_MANDIR "../share/man/man1"
#endif

int datadir_exe_dir(char *buf, size_t size)
{
	char *slash;
	ssize_t n;

	if (size < 2)
		return -ENAMETOOLONG;
	n = readlink("/proc/self/exe", buf, size - 1);
	if (n < 0)
		return -errno;
	if ((size_t)n >= size - 1)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash)
		return -ENOENT;
	*(slash == buf ? slash + 1 : slash) = '\0';
	return 0;
}

/* "rel" may be absolute (an absolute CMAKE_INSTALL_DATADIR). */
static int beside_exe(const char *rel, const char *tail, char *buf, size_t size)
{
	char dir[PATH_MAX];
	int err, n;

	if (rel[0] == '/')
		n = snprintf(buf, size, "%s/%s", rel, tail);
	else if ((err = datadir_exe_dir(dir, sizeof(dir))))
		return err;
	else
		n = snprintf(buf, size, "%s/%s/%s", dir, rel, tail);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return access(buf, R_OK) ? -errno : 0;
}

const char *datadir_gnuplot(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("MTHPSCOPE_GNUPLOT_DIR");
	char *end;

	if (env && env[0])
		return env;
	if (!dir[0]) {
		if (!beside_exe(MTHPSCOPE_REL_DATADIR, "gnuplot/common.gp", dir, sizeof(dir)) &&
		    (end = strrchr(dir, '/')))
			*end = '\0';
		else
			snprintf(dir, sizeof(dir), "%s", MTHPSCOPE_DATADIR "/gnuplot");
	}
	return dir;
}

int datadir_man_page(const char *cmd, char *buf, size_t size)
{
	char name[128];

	snprintf(name, sizeof(name), "%s%s%s", "mthpscope", cmd ? "-" : "", cmd ? cmd : "");
	{
		char tail[160];

		snprintf(tail, sizeof(tail), "%s.1", name);
		if (!beside_exe("man", tail, buf, size))
			return 0;
		snprintf(tail, sizeof(tail), "%s.1.gz", name);
		if (!beside_exe(MTHPSCOPE_REL_MANDIR, tail, buf, size))
			return 0;
	}
	return -ENOENT;
}
