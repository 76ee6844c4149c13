// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * run --metric on PCRE2 (src/measure/bench_metric.c): patterns that used to
 * stall glibc's regex for minutes or hours end within the limits, a capture
 * of any length is read whole, Perl syntax works. No THP knob is touched.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "harness.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A file of 'lines' lines, each 'len' times 'c' then 'tail'. */
static void write_file(const char *path, long lines, size_t len, char c, const char *tail)
{
	FILE *f = fopen(path, "w");
	char *buf = malloc(len);

	memset(buf, c, len);
	for (long i = 0; i < lines; i++) {
		fwrite(buf, 1, len, f);
		fprintf(f, "%s\n", tail);
	}
	free(buf);
	fclose(f);
}

static const char *tmp = "/tmp/mthpscope-test-metric.txt";

/* ((a+)+)+b on one line of 1 MB of 'a': 23.5 s per 100 KB with glibc. The
 * time bounds of these tests tell a bounded match from a catastrophic one
 * (minutes), with room for a slow or busy host (scripts/test-busy.sh):
 * they are not speed goals. */
TEST(nested_quantifiers_on_1mb_end_in_2s)
{
	struct bench_metric m;
	char why[256];
	double v, t0;
	long line;
	int err;

	ASSERT_EQ(bench_metric_parse("x=((a+)+)+b", &m, why, sizeof(why)), 0);
	write_file(tmp, 1, 1 << 20, 'a', "");
	t0 = now_s();
	err = bench_metric_extract(&m, tmp, &v, &line);
	printf("  %.3f s, %s\n", now_s() - t0, strerror(-err));
	EXPECT_TRUE(now_s() - t0 < 20.0);
	EXPECT_TRUE(err == -ENOENT || err == -E2BIG || err == -ETIME);
	bench_metric_free(&m);
	unlink(tmp);
}

/* Catastrophic backtracking with no literal to rule the line out: the match
 * limit stops it, and says so. */
TEST(backtracking_hits_the_match_limit)
{
	struct bench_metric m;
	char why[256];
	double v, t0;
	long line = 0;
	int err;

	ASSERT_EQ(bench_metric_parse("x=^(a+)+$", &m, why, sizeof(why)), 0);
	write_file(tmp, 3, 40, 'a', "!");
	t0 = now_s();
	err = bench_metric_extract(&m, tmp, &v, &line);
	printf("  %.3f s, %s at line %ld\n", now_s() - t0, strerror(-err), line);
	EXPECT_EQ(err, -E2BIG);
	EXPECT_EQ(line, 1);
	EXPECT_TRUE(now_s() - t0 < 20.0);
	bench_metric_free(&m);
	unlink(tmp);
}

/* Many lines each under the limit: the budget of wall time ends it. */
TEST(many_slow_lines_end_within_the_budget)
{
	struct bench_metric m;
	char why[256];
	double v, t0;
	long line = 0;
	int err;

	ASSERT_EQ(bench_metric_parse("x=^(a+)+$", &m, why, sizeof(why)), 0);
	write_file(tmp, 100000, 17, 'a', "!");
	t0 = now_s();
	err = bench_metric_extract(&m, tmp, &v, &line);
	printf("  %.3f s, %s at line %ld\n", now_s() - t0, strerror(-err), line);
	EXPECT_TRUE(err == -ETIME || err == -ENOENT);
	EXPECT_TRUE(now_s() - t0 < BENCH_METRIC_BUDGET_S + 10.0);
	bench_metric_free(&m);
	unlink(tmp);
}

/* (a{1,1000}){1,1000}: 106 s and 13.5 GB to compile with glibc; PCRE2
 * compiles it at once and its match is bounded. Bad patterns: exit 2 at
 * parse time, with the reason. */
TEST(huge_repeat_compiles_and_matches_bounded)
{
	struct bench_metric m;
	char why[256];
	double v, t0 = now_s();
	int err;

	ASSERT_EQ(bench_metric_parse("x=(a{1,1000}){1,1000}b", &m, why, sizeof(why)), 0);
	EXPECT_TRUE(now_s() - t0 < 20.0); /* 106 s with glibc */
	write_file(tmp, 2, 5000, 'a', "");
	t0 = now_s();
	err = bench_metric_extract(&m, tmp, &v, NULL);
	printf("  %.3f s: %s\n", now_s() - t0, strerror(-err));
	EXPECT_TRUE(err == -ENOENT || err == -E2BIG || err == -ETIME);
	EXPECT_TRUE(now_s() - t0 < 20.0);
	bench_metric_free(&m);
	unlink(tmp);
	EXPECT_EQ(bench_metric_parse("x=no group", &m, why, sizeof(why)), -EINVAL);
	EXPECT_TRUE(strstr(why, "no capture group") != NULL);
	EXPECT_EQ(bench_metric_parse("x=(unclosed", &m, why, sizeof(why)), -EINVAL);
	EXPECT_TRUE(strstr(why, "offset") != NULL);
	EXPECT_EQ(bench_metric_parse("x=(a)(?<!a+)", &m, why, sizeof(why)), -EINVAL);
}

/* A capture of 200 characters was cut at 127: "0.000...5e+150" read 0.0. */
TEST(long_capture_read_whole)
{
	struct bench_metric m;
	char why[256], num[256];
	double v;
	FILE *f;

	memset(num, '0', 200);
	num[0] = '0';
	num[1] = '.';
	snprintf(num + 195, sizeof(num) - 195, "5e+150");
	ASSERT_EQ(bench_metric_parse("x=value: (\\S+)", &m, why, sizeof(why)), 0);
	f = fopen(tmp, "w");
	fprintf(f, "value: 1\nvalue: %s\n", num);
	fclose(f);
	ASSERT_EQ(bench_metric_extract(&m, tmp, &v, NULL), 0);
	EXPECT_NEAR(v, 5e-44, 1e-50);
	bench_metric_free(&m);
	unlink(tmp);
}

HARNESS_MAIN
