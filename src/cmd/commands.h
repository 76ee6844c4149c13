/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command contract: exit statuses, struct ms_command, ms_err/ms_warn/
 * ms_note; the subcommands are listed in one table in commands.c. */
#ifndef COMMANDS_H
#define COMMANDS_H

#include "mthpscope.h"

/* Exit statuses (doc/ARCHITECTURE.md, "Contracts"). Only main() and cmd_*.c exit. */
enum ms_exit {
	MS_EXIT_OK = 0,
	MS_EXIT_FAIL = 1,  /* runtime failure */
	MS_EXIT_USAGE = 2, /* bad command line */
	MS_EXIT_ENV = 3,   /* the environment cannot do what was asked */
};

struct cli_cmd;

/* A subcommand: one cmd_<name>.c file defines one of these. */
struct ms_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv); /* returns an ms_exit value */
	const struct cli_cmd *cli; /* its options: man pages, completion, help CMD */
};

void ms_err(const char *fmt, ...) MS_PRINTF(1, 2);  /* "mthpscope: ..." to stderr */
void ms_warn(const char *fmt, ...) MS_PRINTF(1, 2); /* "mthpscope: warning: ..." */
void ms_note(const char *fmt, ...) MS_PRINTF(1, 2); /* "mthpscope: note: ..." */

struct bench_event;
struct progress;
/* A bench engine's BENCH_EV_WARN or BENCH_EV_NOTE (run, probe): the
 * progress line pg erased, then the message as a warning or a note. */
void ms_bench_message(const struct bench_event *ev, struct progress *pg);

/* Map a negative errno from a module to an exit status: 3 for what the
 * environment lacks (permission, a missing kernel feature, a busy lock), else 1.
 * Usage errors (2) come from the option parsers only. */
int ms_exit_for_errno(int err);

/* The command 'name': entry point name_cmd, option table name_cli, one line
 * for its summary in the command list. */
#define MS_COMMAND(cmd, sum)                                                       \
	const struct ms_command cmd_##cmd = { .name = #cmd, .summary = (sum),       \
					      .run = cmd##_cmd, .cli = &cmd##_cli }

extern const struct ms_command cmd_info;
extern const struct ms_command cmd_restore;
extern const struct ms_command cmd_run;
extern const struct ms_command cmd_collapse;
extern const struct ms_command cmd_analyze;
extern const struct ms_command cmd_plot;
extern const struct ms_command cmd_scan;
extern const struct ms_command cmd_events;
extern const struct ms_command cmd_compare;
extern const struct ms_command cmd_record;
extern const struct ms_command cmd_probe;
/* Every command, in the order of the command list; NULL-terminated
 * (commands.c). */
extern const struct ms_command *const ms_commands[];

/* --threshold and --span of analyze and plot: the verdict's materiality and
 * the span it rests on, bound to the struct analyze_opts member m of T. */
#define ANALYZE_VERDICT_OPTIONS(T, m)                                                       \
	{ "threshold", 't', "PCT", "smallest gain that counts as material, "                 \
	  "in % of the order-0 value (default 5)",                                            \
	  CLI_ROW_DOUBLE(T, m.threshold, 0.1, 90.0), .div = 100.0 },                           \
	{ "span", 's', "SIZE", "the span the verdict rests on, e.g. 32M "                     \
	  "(default: the largest with order-0 trials)", CLI_ROW_SIZE(T, m.span, 1) }

#endif
