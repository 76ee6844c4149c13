// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli.h"
#include "commands.h"
#include "mthpscope.h"
#include "atomic.h"
#include "bench.h"
#include "folio_types.h"
#include "compare.h"
#include "progress.h"
#include "report.h"
#include "thp.h"
#include "topo.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <time.h>
#include <getopt.h>
#include <signal.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MS_PRINTF(2, 0) static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "mthpscope: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void ms_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void ms_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void ms_note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("note: ", fmt, ap);
	va_end(ap);
}

void ms_bench_message(const struct bench_event *ev, struct progress *pg)
{
	progress_clear(pg);
	if (ev->kind == BENCH_EV_WARN)
		ms_warn("%s", ev->what);
	else
		ms_note("%s", ev->what);
}

int ms_exit_for_errno(int err)
{
	switch (-err) {
	case EPERM:
	case EACCES:
	case ENODEV:
	case ENOENT:
	case EOPNOTSUPP:
	case EBUSY:
	case EROFS:
	case ENOSYS:
		return MS_EXIT_ENV;
	default:
		return MS_EXIT_FAIL;
	}
}

void cli_usage(const struct cli_cmd *cmd, FILE *f)
{
	const struct cli_opt *o;

	fprintf(f, "Usage: mthpscope %s [OPTIONS]%s%s\n\n%s\n\nOptions:\n", cmd->name,
		cmd->args ? " " : "", cmd->args ? cmd->args : "", cmd->summary);
	for (o = cmd->opts; o && o->name; o++) {
		char left[64];
		if (o->key > 0 && o->key < 256)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->key, o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(f, "  %-30s %s\n", left, o->help);
	}
	fprintf(f, "  %-30s %s\n", "-h, --help", "show this help and exit");
	if (cmd->details || cmd->exit_status)
		fputc('\n', f);
	if (cmd->details)
		fprintf(f, "%s\n", cmd->details);
	if (cmd->exit_status)
		fprintf(f, "Exit status: %s\n", cmd->exit_status);
}

const char *const cli_formats_text_json[] = { "text", "json", NULL };
const int cli_formats_text_json_vals[] = { REPORT_TEXT, REPORT_JSON };
_Static_assert(REPORT_JSON == CLI_FORMAT_JSON && COMPARE_FMT_JSON == CLI_FORMAT_JSON,
	       "--json sets the format field to json");

/* A long-only row's getopt value: 256 + its index. */
static int opt_key(const struct cli_cmd *cmd, const struct cli_opt *o)
{
	return o->key > 0 && o->key < 256 ? o->key : 256 + (int)(o - cmd->opts);
}

/* A row whose field cannot hold its type is a table error (a programming
 * one): every command checks its whole table at each parse. */
static bool row_ok(const struct cli_opt *o)
{
	switch (o->type) {
	case CLI_FLAG:
	case CLI_CLEAR:
		return o->size == sizeof(bool) && !o->arg;
	case CLI_SET:
		return o->size == sizeof(int) && !o->arg;
	case CLI_INT:
		return (o->size == 4 || o->size == 8) && o->arg && o->imin <= o->imax;
	case CLI_DOUBLE:
		return o->size == sizeof(double) && o->arg;
	case CLI_SIZE:
		return o->size == sizeof(unsigned long long) && o->arg;
	case CLI_WORD:
		return o->size == sizeof(int) && o->arg && o->words && o->words[0];
	case CLI_ORDERS:
		return o->size == sizeof(struct folio_orders) && o->arg;
	case CLI_STRING:
	case CLI_PATH:
	case CLI_OUTPUT_FILE:
	case CLI_OUTPUT_DIR:
		return o->size == sizeof(const char *) && o->arg;
	case CLI_CALLBACK:
		return o->cb != NULL;
	case CLI_NONE:
		break;
	}
	return false;
}

void cli_words_text(const struct cli_opt *o, char *buf, size_t size)
{
	size_t n = 0, i;

	buf[0] = '\0';
	for (i = 0; o->words && o->words[i] && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", !i ? "" :
				      o->words[i + 1] ? ", " : " or ", o->words[i]);
}

static int store_word(const struct cli_opt *o, const char *arg, int *field)
{
	char list[256];
	size_t i;

	for (i = 0; o->aliases && o->aliases[i]; i += 2)
		if (!strcmp(o->aliases[i], arg))
			arg = o->aliases[i + 1];
	for (i = 0; o->words[i]; i++)
		if (!strcmp(o->words[i], arg)) {
			*field = o->vals ? o->vals[i] : (int)i;
			return 0;
		}
	cli_words_text(o, list, sizeof(list));
	ms_err("invalid --%s value '%s' (%s)", o->name, arg, list);
	return -1;
}

static int store_int(const struct cli_opt *o, const char *arg, void *field)
{
	long v;

	if (cli_parse_long(o->name, arg, (long)o->imin, (long)o->imax, &v))
		return -1;
	if (o->size == 4)
		*(int *)field = (int)v; /* an unsigned field of a value >= 0: the same bits */
	else
		*(long *)field = v;   /* unsigned long long: the same */
	return 0;
}

static int store_orders(const struct cli_opt *o, const char *arg, struct folio_orders *field)
{
	if (!folio_orders_parse(arg, field))
		return 0;
	ms_err("invalid --%s value '%s' (e.g. 0,2-9 or all; orders 0 to %d)", o->name, arg,
	       FOLIO_MAX_ORDER);
	return -1;
}

/* One row's value into its field: 0, or -1 after the message. */
static int store(const struct cli_cmd *cmd, const struct cli_opt *o, const char *arg, void *opts)
{
	void *field = (char *)opts + o->off;
	double d;

	if (o->given)
		*(bool *)((char *)opts + o->given - 1) = true;
	switch (o->type) {
	case CLI_FLAG:
	case CLI_CLEAR:
		*(bool *)field = o->type == CLI_FLAG;
		return 0;
	case CLI_SET:
		*(int *)field = o->value;
		return 0;
	case CLI_INT:
		return store_int(o, arg, field);
	case CLI_DOUBLE:
		if (cli_parse_double(o->name, arg, o->dmin, o->dmax, &d))
			return -1;
		*(double *)field = o->div ? d / o->div : d;
		return 0;
	case CLI_SIZE:
		return cli_parse_size_min(o->name, arg, (unsigned long long)o->imin, field);
	case CLI_WORD:
		return store_word(o, arg, field);
	case CLI_ORDERS:
		return store_orders(o, arg, field);
	case CLI_PATH:
	case CLI_OUTPUT_FILE:
	case CLI_OUTPUT_DIR:
		if (!*arg) {
			ms_err("invalid --%s value '' (a file or directory name)", o->name);
			return -1;
		}
		/* fall through */
	case CLI_STRING:
		if (!*arg && o->imin) {
			ms_err("invalid --%s value '': give a %s", o->name, o->arg);
			return -1;
		}
		*(const char **)field = arg;
		return 0;
	case CLI_CALLBACK:
		return o->cb(cmd, arg, field);
	case CLI_NONE:
		break;
	}
	return -1;
}

/* getopt_long's tables from the option table (aborts on a bad row). */
static void getopt_tables(const struct cli_cmd *cmd, struct option *lopts, size_t nl,
			  char *sopts, size_t ns)
{
	const struct cli_opt *o;
	size_t n = 0, s = 0;

	sopts[s++] = '+'; /* stop at the first positional: "record -- cmd" */
	sopts[s++] = ':';
	for (o = cmd->opts; o && o->name && n < nl - 2; o++, n++) {
		if (!row_ok(o)) {
			fprintf(stderr, "mthpscope: %s: option table row --%s is bad\n", cmd->name,
				o->name);
			abort();
		}
		lopts[n] = (struct option){ o->name, o->arg ? required_argument : no_argument,
					    NULL, opt_key(cmd, o) };
		if (o->key > 0 && o->key < 256 && s < ns - 3) {
			sopts[s++] = (char)o->key;
			if (o->arg)
				sopts[s++] = ':';
		}
	}
	lopts[n++] = (struct option){ "help", no_argument, NULL, CLI_HELP_KEY };
	lopts[n] = (struct option){ 0 };
	sopts[s++] = 'h';
	sopts[s] = '\0';
}

static const struct cli_opt *row_of(const struct cli_cmd *cmd, int key)
{
	const struct cli_opt *o;

	for (o = cmd->opts; o && o->name; o++)
		if (opt_key(cmd, o) == key)
			return o;
	return NULL;
}

/* The rows the last cli_parse or cli_parse_mixed stored, in order. */
static const struct cli_opt *given_rows[64];
static size_t nr_given;

const char *cli_given_except(const char *const *allowed)
{
	size_t i, k;

	for (i = 0; i < nr_given; i++) {
		for (k = 0; allowed[k] && strcmp(allowed[k], given_rows[i]->name); k++)
			;
		if (!allowed[k])
			return given_rows[i]->name;
	}
	return NULL;
}

static int parse_more(const struct cli_cmd *cmd, int argc, char **argv, void *opts)
{
	struct option lopts[64];
	const struct cli_opt *o;
	char sopts[160];
	int c;

	getopt_tables(cmd, lopts, MS_ARRAY_SIZE(lopts), sopts, sizeof(sopts));
	optind = 0; /* full reinitialisation: commands may be parsed twice in tests */
	opterr = 0;
	while ((c = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		if (c == CLI_HELP_KEY) {
			cli_usage(cmd, stdout);
			return CLI_DONE;
		}
		if (c == '?') {
			if (optopt && optopt < 256)
				ms_err("%s: unknown option '-%c'", cmd->name, optopt);
			else
				ms_err("%s: unknown option '%s'", cmd->name, argv[optind - 1]);
			goto usage;
		}
		if (c == ':') {
			ms_err("%s: option '%s' needs an argument", cmd->name, argv[optind - 1]);
			goto usage;
		}
		if (!(o = row_of(cmd, c)) || store(cmd, o, optarg, opts) < 0)
			goto usage;
		if (nr_given < MS_ARRAY_SIZE(given_rows))
			given_rows[nr_given++] = o;
	}
	return optind;
usage:
	fprintf(stderr, "\n");
	cli_usage(cmd, stderr);
	return CLI_USAGE;
}

int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, void *opts)
{
	nr_given = 0;
	return parse_more(cmd, argc, argv, opts);
}

int cli_check_outputs(const struct cli_cmd *cmd, const void *opts)
{
	const struct cli_opt *o;
	const char *path;
	bool dir;
	int err;

	for (o = cmd->opts; o && o->name; o++) {
		if (o->type != CLI_OUTPUT_FILE && o->type != CLI_OUTPUT_DIR)
			continue;
		dir = o->type == CLI_OUTPUT_DIR;
		path = *(const char *const *)((const char *)opts + o->off);
		if (!path || !(err = atomic_check_output(path, dir)))
			continue;
		ms_err("%s: cannot write %s'%s': %s", cmd->name, dir ? "figures into " : "", path,
		       strerror(-err));
		return MS_EXIT_ENV;
	}
	return 0;
}

int cli_write_doc(const char *cmd, const char *path, struct json_t *doc, size_t flags)
{
	char saved[PATH_MAX];
	int err, rerr;

	if (!(err = atomic_write_json(path, doc, flags)))
		return 0;
	ms_err("%s: writing '%s' failed: %s (%s)", cmd, path, strerror(-err),
	       atomic_in_place(path) ? "a part of it may be there" : "nothing was left there");
	/* told here: not again, in other words, when stdout is closed at exit */
	if (atomic_output_fd(path) == STDOUT_FILENO)
		clearerr(stdout);
	if (!(rerr = atomic_rescue_json(cmd, doc, flags, saved, sizeof(saved))))
		ms_note("the document was saved to %s instead", saved);
	else
		ms_err("%s: saving it in $TMPDIR, /var/tmp or /tmp failed as well: %s", cmd,
		       strerror(-rerr));
	return err;
}

void cli_presence_host(struct presence_doc *d)
{
	struct topo_info t;
	struct thp_settings s;

	if (!topo_describe(&t) && !thp_read(&s)) {
		results_host_describe(&d->host, &t, &s);
		d->has_host = true;
	}
}

int cli_write_presence(const char *cmd, const char *path, const struct presence_doc *d,
		       const char *where)
{
	json_t *doc = NULL;
	int rc = MS_EXIT_OK;

	if (presence_doc_json(d, &doc)) {
		ms_err("%s: out of memory", cmd);
		rc = MS_EXIT_FAIL;
	} else if (cli_write_doc(cmd, path, doc, JSON_COMPACT)) {
		rc = MS_EXIT_FAIL;
	} else if (strcmp(path, "-")) {
		ms_note("%s: wrote %s: %zu PMD ranges of pid %d (%s)%s", cmd, path, d->nr_ranges,
			d->pid, d->command, where);
	}
	json_decref(doc);
	return rc;
}

int cli_parse_long(const char *opt, const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max) {
		ms_err("invalid --%s value '%s' (an integer from %ld to %ld)", opt, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int cli_parse_double(const char *opt, const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max) {
		ms_err("invalid --%s value '%s' (a number from %g to %g)", opt, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int cli_parse_size(const char *opt, const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v, mul = 1;

	errno = 0;
	if (!isdigit((unsigned char)*s))
		goto bad;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		goto bad;
	switch (toupper((unsigned char)*end)) {
	case 'K': mul = 1ULL << 10; end++; break;
	case 'M': mul = 1ULL << 20; end++; break;
	case 'G': mul = 1ULL << 30; end++; break;
	case 'T': mul = 1ULL << 40; end++; break;
	case '\0': break;
	default: goto bad;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	else if ((*end == 'i' || *end == 'I') && (end[1] == 'B' || end[1] == 'b'))
		end += 2;
	if (*end || (v && mul > ULLONG_MAX / v))
		goto bad;
	*out = v * mul;
	return 0;
bad:
	ms_err("invalid --%s value '%s' (a size such as 4096, 64K, 128M, 1G)", opt, s);
	return -1;
}

int cli_parse_mixed(const struct cli_cmd *cmd, int argc, char **argv, void *opts,
		    const char **pos, int max_pos)
{
	int n = 0, i = cli_parse(cmd, argc, argv, opts);
	bool rest = false;

	while (i >= 0 && i < argc) {
		rest |= !strcmp(argv[i - 1], "--"); /* everything after "--" is positional */
		if (n == max_pos) {
			ms_err("%s: unexpected argument '%s'", cmd->name, argv[i]);
			return CLI_USAGE;
		}
		pos[n++] = argv[i];
		if (rest) {
			i++;
			continue;
		}
		/* resume after the positional: it stands in for argv[0] */
		argc -= i;
		argv += i;
		i = parse_more(cmd, argc, argv, opts);
	}
	return i < 0 ? i : n;
}

int cli_parse_size_min(const char *opt, const char *s, unsigned long long min,
		       unsigned long long *out)
{
	unsigned long long v;

	if (cli_parse_size(opt, s, &v))
		return -1;
	if (v < min) {
		ms_err("invalid --%s value '%s' (at least %llu bytes)", opt, s, min);
		return -1;
	}
	*out = v;
	return 0;
}

static int stdout_err;

int cli_stdout_error(void)
{
	int saved = errno; /* a failed fprintf just before says why */

	if (stdout_err)
		return stdout_err;
	errno = 0;
	if (fflush(stdout) == EOF)
		stdout_err = errno ? -errno : -EIO;
	else if (ferror(stdout))
		stdout_err = saved ? -saved : -EIO;
	return stdout_err;
}

int cli_stdout_finish(int rc)
{
	int err = cli_stdout_error();

	if (!err)
		return rc;
	if (err != -EPIPE)
		ms_err("writing to standard output failed: %s", strerror(-err));
	return rc == MS_EXIT_OK ? MS_EXIT_FAIL : rc;
}

int cli_parse_no_args(const struct cli_cmd *cmd, int argc, char **argv, void *opts)
{
	int i = cli_parse(cmd, argc, argv, opts);

	if (i == CLI_DONE)
		return MS_EXIT_OK;
	if (i < 0)
		return MS_EXIT_USAGE;
	if (i < argc) {
		ms_err("%s: unexpected argument '%s'", cmd->name, argv[i]);
		cli_usage(cmd, stderr);
		return MS_EXIT_USAGE;
	}
	return -1;
}

volatile sig_atomic_t cli_stops;
static volatile sig_atomic_t stop_signal;
static struct sigaction old_int, old_term;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
	if (cli_stops++) {
		sigaction(sig, sig == SIGINT ? &old_int : &old_term, NULL);
		raise(sig);
	}
}

void cli_catch_stops(bool on)
{
	struct sigaction sa = { .sa_handler = on_stop_signal, .sa_flags = SA_RESTART };

	if (!on) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		return;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
}

int cli_pin_failed(const char *cmd, int cpu, int err)
{
	if (err == -EINVAL) { /* hwloc's answer for a CPU outside the set */
		ms_err("%s: invalid --cpu value '%d': no such CPU, or not one this process may "
		       "run on (%ld online)", cmd, cpu, sysconf(_SC_NPROCESSORS_ONLN));
		return MS_EXIT_USAGE;
	}
	ms_err("%s: cannot pin to CPU %d: %s", cmd, cpu, strerror(-err));
	return MS_EXIT_ENV;
}

double cli_now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* In slices of at most 0.1 s: a stop that comes between the check and the
 * sleep ends it that late at most, not at the deadline. */
void cli_sleep_until(double t)
{
	double d;

	while (!cli_stops && (d = t - cli_now_s()) > 0) {
		struct timespec ts = { .tv_nsec = (long)((d < 0.1 ? d : 0.1) * 1e9) };

		nanosleep(&ts, NULL);
	}
}

void cli_end_of_stop(void)
{
	if (!cli_stops || !stop_signal)
		return;
	cli_catch_stops(false);
	fflush(stdout);
	raise(stop_signal);
}
