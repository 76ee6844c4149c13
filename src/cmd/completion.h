/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The bash completion script, generated from the commands' option tables
 * (mthpscope --bash-completion; the build installs its output as
 * share/bash-completion/completions/mthpscope). */
#ifndef COMPLETION_H
#define COMPLETION_H

#include <stdio.h>

#include "mthpscope.h"
#include "commands.h"

/* 0, or -EIO when a write failed. */
int completion_write_bash(const struct ms_command *const *cmds, FILE *out);

#endif
