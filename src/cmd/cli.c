// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli.h"
#include "commands.h"
#include "mthpscope.h"
#include "folio.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void vmsg(const char *prefix, const char *fmt, va_list ap)
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
	if (cmd->details)
		fprintf(f, "\n%s\n", cmd->details);
}

int cli_parse(const struct cli_cmd *cmd, int argc, char **argv,
	      int (*on_opt)(int key, const char *arg, void *ctx), void *ctx)
{
	struct option lopts[64];
	char sopts[160];
	size_t n = 0, s = 0;
	const struct cli_opt *o;
	int c;

	sopts[s++] = '+'; /* stop at the first positional: "record -- cmd" */
	sopts[s++] = ':';
	for (o = cmd->opts; o && o->name && n < MS_ARRAY_SIZE(lopts) - 2; o++, n++) {
		lopts[n] = (struct option){ o->name, o->arg ? required_argument : no_argument,
					    NULL, o->key };
		if (o->key > 0 && o->key < 256 && s < sizeof(sopts) - 3) {
			sopts[s++] = (char)o->key;
			if (o->arg)
				sopts[s++] = ':';
		}
	}
	lopts[n++] = (struct option){ "help", no_argument, NULL, CLI_HELP_KEY };
	lopts[n] = (struct option){ 0 };
	sopts[s++] = 'h';
	sopts[s] = '\0';

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
		if (on_opt(c, optarg, ctx) < 0)
			goto usage;
	}
	return optind;
usage:
	fprintf(stderr, "\n");
	cli_usage(cmd, stderr);
	return CLI_USAGE;
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

int cli_parse_orders(const char *s, int *orders, int max, int *n)
{
	bool seen[FOLIO_MAX_ORDER + 1] = { false };
	const char *p = s;

	*n = 0;
	if (!strcmp(s, "all"))
		return 1;
	for (;;) {
		char *end;
		long lo, hi, i;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		errno = 0;
		lo = hi = strtol(p, &end, 10);
		if (*end == '-') {
			p = end + 1;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			hi = strtol(p, &end, 10);
		}
		if (errno || hi < lo || hi > FOLIO_MAX_ORDER || (*end && *end != ','))
			return -EINVAL;
		for (i = lo; i <= hi; i++)
			if (!seen[i] && *n < max) {
				seen[i] = true;
				orders[(*n)++] = (int)i;
			}
		if (!*end)
			break;
		p = end + 1;
	}
	return *n ? 0 : -EINVAL;
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

int cli_parse_mixed(const struct cli_cmd *cmd, int argc, char **argv,
		    int (*on_opt)(int key, const char *arg, void *ctx), void *ctx,
		    const char **pos, int max_pos)
{
	int n = 0, i = cli_parse(cmd, argc, argv, on_opt, ctx);
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
		i = cli_parse(cmd, argc, argv, on_opt, ctx);
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

int cli_parse_path(const char *opt, const char *s, const char **out)
{
	if (!*s) {
		ms_err("invalid --%s value '' (a file or directory name)", opt);
		return -1;
	}
	*out = s;
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

int cli_parse_no_args(const struct cli_cmd *cmd, int argc, char **argv,
		      int (*on_opt)(int key, const char *arg, void *ctx), void *ctx)
{
	int i = cli_parse(cmd, argc, argv, on_opt, ctx);

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
