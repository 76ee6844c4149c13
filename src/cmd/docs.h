/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The documents a command line can ask for: 'mthpscope help CMD' (the man
 * page, else --help), and the build's generators (--man-page,
 * --bash-completion), which are not listed in --help. */
#ifndef DOCS_H
#define DOCS_H

#include "mthpscope.h"
#include "commands.h"

/* 'mthpscope help CMD': man's page of CMD (the build tree's or the
 * installed one, then man's own search), falling back to CMD --help when
 * man is missing or has no page. Returns an ms_exit value. */
int docs_help(const struct ms_command *const *cmds, const char *cmd);

/* argv[0] is "--man-page" (then CMD|mthpscope, DESC.txt) or
 * "--bash-completion"; writes to stdout. Returns an ms_exit value. */
int docs_generate(const struct ms_command *const *cmds, int argc, char **argv);

#endif
