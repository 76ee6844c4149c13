/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Option tables: one table per command, parsed with getopt_long, --help
 * generated from the same table (doc/ARCHITECTURE.md, "Add a command"). */
#ifndef CLI_H
#define CLI_H

#include <stdio.h>

struct cli_opt {
	const char *name;    /* long name */
	int key;             /* short letter, or a value >= 256 for long-only */
	const char *arg;     /* argument name; NULL for a flag */
	const char *help;
};

struct cli_cmd {
	const char *name;      /* "info" */
	const char *args;      /* positional synopsis, e.g. "FILE" or NULL */
	const char *summary;   /* one line */
	const char *details;   /* paragraph after the options, or NULL */
	const struct cli_opt *opts; /* terminated by { NULL } ; --help is implicit */
};

#define CLI_HELP_KEY 'h'

/*
 * Parse argv (argv[0] is the command name). Calls on_opt(key, optarg, ctx)
 * for each option; on_opt returns 0, or -1 after printing a usage error.
 * Returns the index of the first positional argument, or
 * -MS_EXIT_USAGE-1 style negatives: CLI_DONE when --help was printed,
 * CLI_USAGE on a usage error (message already on stderr).
 */
enum { CLI_DONE = -1, CLI_USAGE = -2 };
int cli_parse(const struct cli_cmd *cmd, int argc, char **argv,
	      int (*on_opt)(int key, const char *arg, void *ctx), void *ctx);
void cli_usage(const struct cli_cmd *cmd, FILE *f);
/* cli_parse for a command without positional arguments: an exit status
 * (0 after --help, 2 after a usage message, also for an argument), or -1
 * to go on. */
int cli_parse_no_args(const struct cli_cmd *cmd, int argc, char **argv,
		      int (*on_opt)(int key, const char *arg, void *ctx), void *ctx);
/* Like cli_parse, but options may follow positionals ("analyze FILE
 * --format json"): up to max_pos positionals go to pos[]. Returns their
 * number, or CLI_DONE / CLI_USAGE (message printed, also for too many). */
int cli_parse_mixed(const struct cli_cmd *cmd, int argc, char **argv,
		    int (*on_opt)(int key, const char *arg, void *ctx), void *ctx,
		    const char **pos, int max_pos);

/* Value parsers: return 0 or -1 after printing "invalid --name value". */
int cli_parse_long(const char *opt, const char *s, long min, long max, long *out);
int cli_parse_double(const char *opt, const char *s, double min, double max, double *out);
/* A list of folio orders, "0,2-9" (decimal, 0..FOLIO_MAX_ORDER), in the
 * order first given, each once: up to max go to orders[], *n says how many.
 * Returns 0, 1 for "all" (*n = 0), or -EINVAL (nothing printed: the caller
 * says what it supports). */
int cli_parse_orders(const char *s, int *orders, int max, int *n);
/* Sizes with K/M/G suffixes (binary), e.g. "64K", "128M". */
int cli_parse_size(const char *opt, const char *s, unsigned long long *out);
/* A size of at least 'min' bytes ("--span 0" is a usage error, not "not
 * given"). */
int cli_parse_size_min(const char *opt, const char *s, unsigned long long min,
		       unsigned long long *out);

/* A path option (-o FILE, --plot DIR): *out = s, or -1 after printing
 * "invalid --name value ''" for an empty one, which names no file. */
int cli_parse_path(const char *opt, const char *s, const char **out);

/* Standard output, checked: 0 while every write so far reached it, else the
 * -errno of the first failure (buffered text is flushed now). Loops that
 * print (scan --interval) stop on it. */
int cli_stdout_error(void);
/* The end of every command (main): flush stdout; a failed write turns rc
 * into 1 with a message, a closed pipe (EPIPE) into 1 quietly, as a reader
 * that went away is no error to report. */
int cli_stdout_finish(int rc);

#endif
