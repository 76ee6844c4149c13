/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the installed files are found at run time: relative to the
 * executable (/proc/self/exe), so an installed tree can be moved (--prefix,
 * a .deb, DESTDIR), and the build tree works uninstalled. */
#ifndef DATADIR_H
#define DATADIR_H

#include <stddef.h>

/* The directory of the running executable into buf. 0 or -errno. */
int datadir_exe_dir(char *buf, size_t size);

/*
 * The gnuplot templates: $MTHPSCOPE_GNUPLOT_DIR when set; else
 * <exe>/<MTHPSCOPE_REL_DATADIR>/gnuplot (<prefix>/share/mthpscope/gnuplot of an
 * installed binary) when it holds common.gp; else the source tree's
 * scripts/gnuplot (the build tree, uninstalled). Never NULL; the string
 * lives until exit.
 */
const char *datadir_gnuplot(void);

/* The man page of a command ("mthpscope-run", or "mthpscope" for cmd NULL)
 * next to the executable: the build tree's man/NAME.1, else the install's
 * <exe>/<MTHPSCOPE_REL_MANDIR>/NAME.1.gz. 0 with the path, or -ENOENT. */
int datadir_man_page(const char *cmd, char *buf, size_t size);

#endif
