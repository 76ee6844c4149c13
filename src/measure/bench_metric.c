// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * run --metric NAME=REGEX: a number the command prints, found by a regex.
 *
 * PCRE2 rather than POSIX regcomp/regexec: glibc's regexec backtracks with no
 * bound (`((a+)+)+b` on a 100 KB line took 23.5 s, and compiling
 * `(a{1,1000}){1,1000}` 106 s and 13.5 GB), and offers no limit to set.
 * PCRE2 has a match limit (backtracking steps per call), a depth limit and a
 * heap limit per match, and refuses at compile time a pattern whose compiled
 * form is too large; each call is then bounded, and a budget of wall time
 * bounds the whole file. (RE2 would be linear-time but is C++ only.)
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

/* Per pcre2_match() call: backtracking steps, nested backtracking depth,
 * heap in KiB. A sane metric regex on a line of output needs a tiny share. */
#define METRIC_MATCH_LIMIT 1000000
#define METRIC_DEPTH_LIMIT 10000
#define METRIC_HEAP_KIB 16384

static bool name_ok(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (i && s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

int bench_metric_parse(const char *arg, struct bench_metric *m, char *why, size_t size)
{
	const char *eq = strchr(arg, '=');
	PCRE2_SIZE off;
	uint32_t groups = 0;
	int rc;
	size_t nl;

	memset(m, 0, sizeof(*m));
	if (!eq || eq == arg) {
		snprintf(why, size, "'%s' is not NAME=REGEX", arg);
		return -EINVAL;
	}
	nl = (size_t)(eq - arg);
	if (nl >= sizeof(m->name)) {
		snprintf(why, size, "metric name longer than %zu characters", sizeof(m->name) - 1);
		return -EINVAL;
	}
	if (!name_ok(arg, nl)) {
		snprintf(why, size, "metric name '%.*s': letters, digits and _ only", (int)nl, arg);
		return -EINVAL;
	}
	memcpy(m->name, arg, nl);
	if (strlen(eq + 1) >= sizeof(m->regex) || !eq[1]) {
		snprintf(why, size, "the regex of '%s' is empty or longer than %zu characters",
			 m->name, sizeof(m->regex) - 1);
		return -EINVAL;
	}
	m->re = pcre2_compile((PCRE2_SPTR)(eq + 1), PCRE2_ZERO_TERMINATED, 0, &rc, &off, NULL);
	if (!m->re) {
		PCRE2_UCHAR msg[160];

		pcre2_get_error_message(rc, msg, sizeof(msg));
		snprintf(why, size, "regex '%s': %s (at offset %zu)", eq + 1, (char *)msg,
			 (size_t)off);
		return -EINVAL;
	}
	pcre2_pattern_info(m->re, PCRE2_INFO_CAPTURECOUNT, &groups);
	if (groups < 1) {
		bench_metric_free(m);
		snprintf(why, size, "regex '%s' has no capture group: put the number in ( )",
			 eq + 1);
		return -EINVAL;
	}
	snprintf(m->regex, sizeof(m->regex), "%s", eq + 1);
	return 0;
}

void bench_metric_free(struct bench_metric *m)
{
	pcre2_code_free(m->re);
	m->re = NULL;
	m->regex[0] = '\0';
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The capture as a number: 0 or -EINVAL. */
static int to_number(const char *s, double *value)
{
	char *end;

	errno = 0;
	*value = strtod(s, &end);
	return end == s || *end || errno || !isfinite(*value) ? -EINVAL : 0;
}

/* Each line of 'f' in turn; the last capture kept whole in *last. */
static int match_lines(const struct bench_metric *m, FILE *f, pcre2_match_data *md,
		       pcre2_match_context *mc, char **last, long *at)
{
	double t0 = now_s();
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long n = 0;
	int err = -ENOENT;

	while ((len = getline(&line, &cap, f)) > 0) {
		PCRE2_SIZE *ov;
		int rc;

		n++;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		rc = pcre2_match(m->re, (PCRE2_SPTR)line, (PCRE2_SIZE)len, 0, 0, md, mc);
		if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
		    rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_NOMEMORY) {
			err = -E2BIG;
			break;
		}
		if (now_s() - t0 > BENCH_METRIC_BUDGET_S) {
			err = -ETIME;
			break;
		}
		ov = pcre2_get_ovector_pointer(md);
		if (rc < 2 || ov[2] == PCRE2_UNSET)
			continue;
		free(*last);
		*last = strndup(line + ov[2], ov[3] - ov[2]);
		if (!*last) {
			err = -ENOMEM;
			break;
		}
		err = 0;
	}
	free(line);
	*at = n;
	return err;
}

int bench_metric_extract(const struct bench_metric *m, const char *path, double *value,
			 long *line)
{
	pcre2_match_data *md = NULL;
	pcre2_match_context *mc = NULL;
	char *last = NULL;
	long at = 0;
	FILE *f = fopen(path, "re");
	int err;

	if (!f)
		return -errno;
	md = pcre2_match_data_create_from_pattern(m->re, NULL);
	mc = pcre2_match_context_create(NULL);
	if (!md || !mc) {
		err = -ENOMEM;
		goto out;
	}
	pcre2_set_match_limit(mc, METRIC_MATCH_LIMIT);
	pcre2_set_depth_limit(mc, METRIC_DEPTH_LIMIT);
	pcre2_set_heap_limit(mc, METRIC_HEAP_KIB);
	err = match_lines(m, f, md, mc, &last, &at);
	if (!err)
		err = to_number(last, value);
out:
	if (line)
		*line = at;
	free(last);
	pcre2_match_context_free(mc);
	pcre2_match_data_free(md);
	fclose(f);
	return err;
}
