/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Option tables: one table per command, parsed with getopt_long, --help, the
 * man page and bash completion generated from the same rows
 * (doc/ARCHITECTURE.md, "Add a command" and "Typed options").
 *
 * A row carries a type and binds to a field of the command's options struct
 * (CLI_AT: its offset and size); cli_parse stores the value itself, with the
 * checks of its type (range, words, a non-empty path). Defaults are the
 * struct's initialiser. The few options that need code have a callback.
 */
#ifndef CLI_H
#define CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct cli_cmd;
struct cli_opt;
struct json_t;

enum cli_type {
	CLI_NONE,        /* not a row a parser can store: a table error */
	CLI_FLAG,        /* no argument: bool = true */
	CLI_CLEAR,       /* no argument: bool = false (--no-page-size) */
	CLI_SET,         /* no argument: int = .value (--json: format = json) */
	CLI_INT,         /* an integer in [imin, imax], stored by the field's size:
			  * int or unsigned (4), long, unsigned long long (8) */
	CLI_DOUBLE,      /* a finite number in [dmin, dmax], divided by .div if set */
	CLI_SIZE,        /* unsigned long long bytes, K/M/G/T suffixes, at least imin */
	CLI_WORD,        /* int: one of .words (stored as .vals[i], or i) */
	CLI_ORDERS,      /* struct folio_orders (src/doc/folio_types.h) */
	CLI_STRING,      /* const char *, as given (.imin 1: not empty) */
	CLI_PATH,        /* const char *, a path that is not empty */
	CLI_OUTPUT_FILE, /* const char *, -o FILE ('-': stdout): cli_check_outputs */
	CLI_OUTPUT_DIR,  /* const char *, a directory for figures: cli_check_outputs */
	CLI_CALLBACK,    /* .cb(cmd, arg, field) */
};

/* A callback: 0, or -1 after a message (the usage follows, exit 2). */
typedef int cli_cb(const struct cli_cmd *cmd, const char *arg, void *field);

struct cli_opt {
	const char *name;    /* long name */
	int key;             /* short letter, or 0 for long-only */
	const char *arg;     /* argument name; NULL for a flag */
	const char *help;
	enum cli_type type;
	size_t off, size;    /* the field: CLI_AT(struct, member) */
	size_t given;        /* CLI_GIVEN(struct, bool member): set when given; 0 none */
	long long imin, imax;
	double dmin, dmax, div;
	const char *const *words; /* CLI_WORD: NULL-terminated */
	const int *vals;          /* CLI_WORD: the value of each word (NULL: its index) */
	const char *const *aliases; /* CLI_WORD: pairs of an unlisted alias and its word */
	int value;                /* CLI_SET */
	cli_cb *cb;
};

#define CLI_AT(T, m) .off = offsetof(T, m), .size = sizeof(((T *)0)->m)
#define CLI_GIVEN(T, m) .given = offsetof(T, m) + 1
#define CLI_END { .name = NULL }

/* CLI_AT with the member's type checked at compile time, as perf's OPT_*
 * (check_vtype): 'ok' is a _Generic of the types the row stores, and a
 * member of another type (a double for CLI_INT, an int for CLI_FLAG) is a
 * negative array size. row_ok() in cli.c checks only the size, at run time. */
#define CLI_AT_TYPED(T, m, ...)                                                              \
	.off = offsetof(T, m) + 0 * sizeof(char[_Generic(((T *)0)->m, __VA_ARGS__: 1,          \
							 default: 0) ? 1 : -1]),           \
	.size = sizeof(((T *)0)->m)
#define CLI_AT_INTEGER(T, m)                                                                 \
	CLI_AT_TYPED(T, m, int: 1, unsigned: 1, long: 1, unsigned long: 1, long long: 1,         \
		     unsigned long long)
#define CLI_AT_STRING(T, m) CLI_AT_TYPED(T, m, char *: 1, const char *)

/* The row kinds, bound to member m of struct T (its type checked). */
#define CLI_ROW_FLAG(T, m) .type = CLI_FLAG, CLI_AT_TYPED(T, m, bool)
#define CLI_ROW_CLEAR(T, m) .type = CLI_CLEAR, CLI_AT_TYPED(T, m, bool)
/* an int or an enum (an enum is compatible with int or unsigned) */
#define CLI_ROW_SET(T, m, v) .type = CLI_SET, CLI_AT_TYPED(T, m, int: 1, unsigned), .value = (v)
#define CLI_ROW_INT(T, m, lo, hi) .type = CLI_INT, CLI_AT_INTEGER(T, m), .imin = (lo), .imax = (hi)
#define CLI_ROW_DOUBLE(T, m, lo, hi)                                                         \
	.type = CLI_DOUBLE, CLI_AT_TYPED(T, m, double), .dmin = (lo), .dmax = (hi)
/* unsigned long long, or a uint64_t (unsigned long on LP64; row_ok checks its 8 bytes) */
#define CLI_ROW_SIZE(T, m, lo)                                                               \
	.type = CLI_SIZE, CLI_AT_TYPED(T, m, unsigned long long: 1, unsigned long), .imin = (lo)
#define CLI_ROW_WORD(T, m, w) .type = CLI_WORD, CLI_AT_TYPED(T, m, int: 1, unsigned), .words = (w)
#define CLI_ROW_ORDERS(T, m) .type = CLI_ORDERS, CLI_AT_TYPED(T, m, struct folio_orders)
#define CLI_ROW_STRING(T, m) .type = CLI_STRING, CLI_AT_STRING(T, m)
#define CLI_ROW_PATH(T, m) .type = CLI_PATH, CLI_AT_STRING(T, m)
#define CLI_ROW_OUTPUT_FILE(T, m) .type = CLI_OUTPUT_FILE, CLI_AT_STRING(T, m)
#define CLI_ROW_OUTPUT_DIR(T, m) .type = CLI_OUTPUT_DIR, CLI_AT_STRING(T, m)
/* a callback's field is its own business: any type */
#define CLI_ROW_CB(T, m, f) .type = CLI_CALLBACK, CLI_AT(T, m), .cb = (f)
/* A callback given the whole options struct T. */
#define CLI_ROW_CB_ALL(T, f) .type = CLI_CALLBACK, .off = 0, .size = sizeof(T), .cb = (f)

/* --format FMT and its alias --json (-j), bound to the same enum
 * report_format field (src/present/report.h): 'w' the words this command
 * writes, 'v' their values (NULL: the word's index); more designators of
 * the --format row may follow (.aliases). */
#define CLI_FORMAT_ROWS(T, m, key, w, v, help, ...)                                         \
	{ "format", key, "FMT", help, CLI_ROW_WORD(T, m, w), .vals = (v), __VA_ARGS__ },     \
	{ "json", 'j', NULL, "the same as --format json", CLI_ROW_SET(T, m, CLI_FORMAT_JSON) }
#define CLI_FORMAT_JSON 2 /* REPORT_JSON and COMPARE_FMT_JSON */
/* The formats of a command that writes text or JSON only. */
extern const char *const cli_formats_text_json[];
extern const int cli_formats_text_json_vals[];

struct cli_cmd {
	const char *name;      /* "info" */
	const char *args;      /* positional synopsis, e.g. "FILE" or NULL */
	const char *summary;   /* one line */
	const char *details;   /* paragraph after the options, or NULL */
	const char *exit_status; /* "0 done, 1 ...": --help's "Exit status:" paragraph
				  * and the man page's EXIT STATUS, or NULL */
	const struct cli_opt *opts; /* terminated by CLI_END; --help is implicit */
};

#define CLI_HELP_KEY 'h'

/*
 * Parse argv (argv[0] is the command name) into the options struct 'opts'.
 * Returns the index of the first positional argument, CLI_DONE when --help
 * was printed, CLI_USAGE on a usage error (message and usage on stderr).
 */
enum { CLI_DONE = -1, CLI_USAGE = -2 };
int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, void *opts);
void cli_usage(const struct cli_cmd *cmd, FILE *f);
/* The long name of the first option the last cli_parse (or cli_parse_mixed)
 * was given that is not in allowed (NULL-terminated), or NULL: a mode that
 * takes some of a command's options refuses the others (record -i -o). */
const char *cli_given_except(const char *const *allowed);
/* cli_parse for a command without positional arguments: an exit status
 * (0 after --help, 2 after a usage message, also for an argument), or -1
 * to go on. */
int cli_parse_no_args(const struct cli_cmd *cmd, int argc, char **argv, void *opts);
/* Like cli_parse, but options may follow positionals ("analyze FILE
 * --format json"): up to max_pos positionals go to pos[]. Returns their
 * number, or CLI_DONE / CLI_USAGE (message printed, also for too many). */
int cli_parse_mixed(const struct cli_cmd *cmd, int argc, char **argv, void *opts,
		    const char **pos, int max_pos);
/* The table's output rows (CLI_OUTPUT_FILE, CLI_OUTPUT_DIR) that were given,
 * checked with atomic_check_output before anything is measured or written:
 * 0, or MS_EXIT_ENV after "CMD: cannot write ...". */
int cli_check_outputs(const struct cli_cmd *cmd, const void *opts);
/* The document a command made, written to its -o path. Where that fails
 * (a full disk, a closed pipe) it is saved anew in $TMPDIR, /var/tmp or
 * /tmp rather than lost, and both are told: 0 or the write's -errno. */
int cli_write_doc(const char *cmd, const char *path, struct json_t *doc, size_t flags);
struct presence_doc;
/* A presence map's host (this machine and its THP settings now). */
void cli_presence_host(struct presence_doc *d);
/* A presence map (scan --presence, run --presence) written to path (as
 * cli_write_doc), and "CMD: wrote PATH: N PMD ranges of pid P (COMM)WHERE"
 * noted: an exit status. */
int cli_write_presence(const char *cmd, const char *path, const struct presence_doc *d,
		       const char *where);
/* The words of a CLI_WORD row as "a, b or c". */
void cli_words_text(const struct cli_opt *o, char *buf, size_t size);

/*
 * SIGINT and SIGTERM as "stop": while caught (cli_catch_stops(true)), the
 * first one only counts in cli_stops, and the command ends its loop and
 * writes what it has (run --precision, scan --interval). A second one takes
 * the action in place before (src/base/cleanup.c: the knobs put back) and
 * then the default one. cli_catch_stops(false) puts the handlers back.
 */
extern volatile sig_atomic_t cli_stops;
void cli_catch_stops(bool on);
/* After a stop that the command has written what it had for: put the
 * handlers back and end as the signal would have (the knobs put back, exit
 * 128 + its number), so a script still sees the interruption. Returns only
 * when no stop was caught. */
void cli_end_of_stop(void);
/* CLOCK_MONOTONIC in seconds; and a sleep until such a time or a stop
 * (cli_stops), whichever comes first (scan --interval, collapse --hold). */
double cli_now_s(void);

/* topo_pin_cpu()'s failure as the user's --cpu: no such CPU (or not in this
 * process's CPU set) is a usage error; prints; an exit status. */
int cli_pin_failed(const char *cmd, int cpu, int err);
void cli_sleep_until(double t);

/* Value parsers for callbacks: return 0 or -1 after printing "invalid
 * --name value". */
int cli_parse_long(const char *opt, const char *s, long min, long max, long *out);
int cli_parse_double(const char *opt, const char *s, double min, double max, double *out);
/* Sizes with K/M/G suffixes (binary), e.g. "64K", "128M". */
int cli_parse_size(const char *opt, const char *s, unsigned long long *out);
/* A size of at least 'min' bytes ("--span 0" is a usage error, not "not
 * given"). */
int cli_parse_size_min(const char *opt, const char *s, unsigned long long min,
		       unsigned long long *out);

/* Standard output, checked: 0 while every write so far reached it, else the
 * -errno of the first failure (buffered text is flushed now). Loops that
 * print (scan --interval) stop on it. */
int cli_stdout_error(void);
/* The end of every command (main): flush stdout; a failed write turns rc
 * into 1 with a message, a closed pipe (EPIPE) into 1 quietly, as a reader
 * that went away is no error to report. */
int cli_stdout_finish(int rc);

#endif
