/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Man pages in roff, generated from the commands' option tables (the same
 * tables --help prints) plus a hand-written description (doc/man/NAME.txt),
 * so a page and --help cannot drift. The build runs the binary to write
 * them (mthpscope --man-page CMD DESC.txt); not shown in --help. */
#ifndef MANPAGE_H
#define MANPAGE_H

#include <stdio.h>

#include "mthpscope.h"
#include "commands.h"

/*
 * Write the page of command 'cmd' (NULL or "mthpscope": mthpscope(1), the
 * overview that lists every command) to out. desc is the hand-written text
 * in its small markup: paragraphs split by blank lines, "    " indented
 * lines verbatim, "- " bullets, "TERM::" a tagged paragraph whose body
 * follows, "## TITLE" a section of its own. 0, -ENOENT (no such command),
 * -EIO (a write failed).
 */
int manpage_write(const struct ms_command *const *cmds, const char *cmd, const char *desc,
		  FILE *out);

#endif
