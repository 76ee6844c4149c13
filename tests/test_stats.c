// SPDX-License-Identifier: GPL-2.0-or-later
/* Table tests of the statistics module: known values from textbooks and
 * from brute-force enumeration, reproducibility, and CI coverage. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "harness.h"
#include "stats.h"

TEST(median_mean_mad)
{
	const double odd[] = { 5, 1, 3, 2, 4 };
	const double even[] = { 4, 1, 3, 2 };
	const double mad_x[] = { 1, 1, 2, 2, 4, 6, 9 }; /* median 2, |dev| 1 1 0 0 2 4 7 */
	double v;

	ASSERT_EQ(stats_median(odd, 5, &v), 0);
	EXPECT_NEAR(v, 3.0, 0);
	ASSERT_EQ(stats_median(even, 4, &v), 0);
	EXPECT_NEAR(v, 2.5, 0);
	ASSERT_EQ(stats_mean(odd, 5, &v), 0);
	EXPECT_NEAR(v, 3.0, 1e-15);
	ASSERT_EQ(stats_mad(mad_x, 7, &v), 0);
	EXPECT_NEAR(v, 1.0, 0);
	ASSERT_EQ(stats_median(odd, 1, &v), 0);
	EXPECT_NEAR(v, 5.0, 0);
}

TEST(quantile_type7)
{
	/* R: quantile(c(1,2,3,4,5,6,7,8,9,10), c(.1,.25,.9), type = 7) = 1.9 3.25 9.1 */
	const double x[] = { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 };
	double v;

	ASSERT_EQ(stats_quantile(x, 10, 0.1, &v), 0);
	EXPECT_NEAR(v, 1.9, 1e-12);
	ASSERT_EQ(stats_quantile(x, 10, 0.25, &v), 0);
	EXPECT_NEAR(v, 3.25, 1e-12);
	ASSERT_EQ(stats_quantile(x, 10, 0.9, &v), 0);
	EXPECT_NEAR(v, 9.1, 1e-12);
	ASSERT_EQ(stats_quantile(x, 10, 0.0, &v), 0);
	EXPECT_NEAR(v, 1.0, 0);
	ASSERT_EQ(stats_quantile(x, 10, 1.0, &v), 0);
	EXPECT_NEAR(v, 10.0, 0);
}

TEST(rejects_bad_input)
{
	const double x[] = { 1, NAN, 3 }, y[] = { 1, INFINITY }, ok[] = { 1, 2 };
	double v, lo, hi, p[2];

	EXPECT_EQ(stats_median(x, 3, &v), -EINVAL);
	EXPECT_EQ(stats_mean(y, 2, &v), -EINVAL);
	EXPECT_EQ(stats_median(ok, 0, &v), -EINVAL);
	EXPECT_EQ(stats_quantile(ok, 2, 1.5, &v), -EINVAL);
	EXPECT_EQ(stats_bootstrap_median_ci(ok, 2, 1.0, 100, 1, &lo, &hi), -EINVAL);
	EXPECT_EQ(stats_mann_whitney(ok, 2, y, 2, &v, &lo), -EINVAL);
	p[0] = 0.5;
	p[1] = -0.1;
	EXPECT_EQ(stats_holm_adjust(p, 2, p), -EINVAL);
}

/* Exact p-values checked by enumerating every split of the pooled
 * sample (and, for the last row, Hollander & Wolfe's example as printed by
 * R's wilcox.test: W = 35, one-sided p = 0.1272). */
TEST(mann_whitney_exact)
{
	static const struct {
		double a[10];
		size_t na;
		double b[10];
		size_t nb;
		double u, p;
	} rows[] = {
		{ { 1, 2, 3, 4, 5 }, 5, { 6, 7, 8, 9, 10 }, 5, 0.0, 2.0 / 252.0 },
		{ { 6, 7, 8, 9, 10 }, 5, { 1, 2, 3, 4, 5 }, 5, 25.0, 2.0 / 252.0 },
		{ { 1.1, 2.2, 3.3 }, 3, { 4.4, 5.5, 6.6 }, 3, 0.0, 0.1 },
		{ { 19, 22, 16, 29, 24 }, 5, { 20, 11, 17, 12 }, 4, 17.0, 0.1111111111111111 },
		{ { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46 }, 10,
		  { 1.15, 0.88, 0.90, 0.74, 1.21 }, 5, 35.0, 0.2544122544122544 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double u, p;

		ASSERT_EQ(stats_mann_whitney(rows[i].a, rows[i].na, rows[i].b, rows[i].nb, &u, &p),
			  0);
		EXPECT_NEAR(u, rows[i].u, 1e-12);
		EXPECT_NEAR(p, rows[i].p, 1e-12);
	}
}

TEST(mann_whitney_exact_large)
{
	/* 20 vs 20 fully separated: p = 2 / C(40, 20) */
	double a[20], b[20], u, p;
	int i;

	for (i = 0; i < 20; i++) {
		a[i] = i;
		b[i] = 100 + i;
	}
	ASSERT_EQ(stats_mann_whitney(a, 20, b, 20, &u, &p), 0);
	EXPECT_NEAR(u, 0.0, 0);
	EXPECT_NEAR(p / (2.0 / 137846528820.0), 1.0, 1e-9);
}

/* p by enumerating every split of the pooled values into na and nb (n up to
 * 16): twice the smaller tail of a's mid-rank sum, as the exact test defines
 * it. Sums of mid-ranks are kept doubled, so they are whole numbers. */
static double enumerated_p(const double *a, size_t na, const double *b, size_t nb)
{
	double v[16], r2[16], obs = 0, le = 0, ge = 0, total = 0;
	size_t n = na + nb, i, j;
	unsigned mask;

	for (i = 0; i < n; i++)
		v[i] = i < na ? a[i] : b[i - na];
	for (i = 0; i < n; i++) {
		size_t below = 0, equal = 0;

		for (j = 0; j < n; j++) {
			below += v[j] < v[i];
			equal += v[j] == v[i];
		}
		r2[i] = (double)(2 * below + equal + 1);
		if (i < na)
			obs += r2[i];
	}
	for (mask = 0; mask < 1u << n; mask++) {
		double s = 0;

		if ((size_t)__builtin_popcount(mask) != na)
			continue;
		for (i = 0; i < n; i++)
			if (mask & 1u << i)
				s += r2[i];
		total++;
		le += s <= obs;
		ge += s >= obs;
	}
	return fmin(1.0, 2.0 * fmin(le, ge) / total);
}

/*
 * Ties, up to 20 a side: the exact permutation distribution of the mid-rank
 * sum. The normal approximation it replaced gave 4 vs 4, all equal within
 * each side, p = 0.0131, below 2/70 = 0.0286, the smallest p any 4 vs 4 split
 * can have (compare's warning then said no row could be significant next to
 * rows that were); 3 vs 3 gave 0.0469 against 0.1.
 */
TEST(mann_whitney_ties_exact)
{
	static const struct {
		double a[8];
		size_t na;
		double b[8];
		size_t nb;
		double p;
	} rows[] = {
		{ { 65536, 65536, 65536, 65536 }, 4, { 65600, 65600, 65600, 65600 }, 4, 2.0 / 70 },
		{ { 5, 5, 5 }, 3, { 6, 6, 6 }, 3, 0.1 },
		{ { 1, 2, 2, 3, 3, 3, 4, 5 }, 8, { 3, 4, 4, 5, 5, 6, 7, 7 }, 8, 7.0 / 715 },
		{ { 1, 1, 2 }, 3, { 1, 2, 2, 2, 3 }, 5, NAN },
		{ { 4, 4, 1, 9, 4 }, 5, { 4, 9, 9, 2, 4, 4, 9 }, 7, NAN },
		{ { 0, 0, 1 }, 3, { 0 }, 1, NAN },
		{ { 2, 2, 2 }, 3, { 2, 2 }, 2, 1.0 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double u, p, want = enumerated_p(rows[i].a, rows[i].na, rows[i].b, rows[i].nb);

		if (!isnan(rows[i].p))
			EXPECT_NEAR(want, rows[i].p, 1e-12);
		ASSERT_EQ(stats_mann_whitney(rows[i].a, rows[i].na, rows[i].b, rows[i].nb, &u, &p),
			  0);
		EXPECT_NEAR(p, want, 1e-12);
		EXPECT_TRUE(p >= stats_mann_whitney_min_p(rows[i].na, rows[i].nb) * (1 - 1e-12));
	}
}

TEST(mann_whitney_ties_normal_beyond_20)
{
	/* 21 vs 21 with ties: normal approximation with tie and continuity
	 * correction, value computed from the textbook formula */
	double a[21], b[21], u, p;
	int i;

	for (i = 0; i < 21; i++) {
		a[i] = i % 5;
		b[i] = i % 5 + 1;
	}
	ASSERT_EQ(stats_mann_whitney(a, 21, b, 21, &u, &p), 0);
	EXPECT_NEAR(u, 142.0, 1e-12);
	EXPECT_NEAR(p, 0.04605289915420636, 1e-12);
}

TEST(holm)
{
	/* R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02 */
	const double p[] = { 0.01, 0.04, 0.03, 0.005 };
	const double want[] = { 0.03, 0.06, 0.06, 0.02 };
	const double big[] = { 0.5, 0.9 };
	double adj[4];
	int i;

	ASSERT_EQ(stats_holm_adjust(p, 4, adj), 0);
	for (i = 0; i < 4; i++)
		EXPECT_NEAR(adj[i], want[i], 1e-12);
	ASSERT_EQ(stats_holm_adjust(big, 2, adj), 0);
	EXPECT_NEAR(adj[0], 1.0, 0);
	EXPECT_NEAR(adj[1], 1.0, 0);
}

TEST(rng_reproducible)
{
	struct stats_rng a, b;
	int i;

	stats_rng_seed(&a, 42);
	stats_rng_seed(&b, 42);
	for (i = 0; i < 1000; i++) {
		double u = stats_rng_uniform(&a);

		EXPECT_TRUE(u >= 0.0 && u < 1.0);
		EXPECT_NEAR(u, stats_rng_uniform(&b), 0);
	}
	stats_rng_seed(&b, 43);
	EXPECT_TRUE(stats_rng_next(&a) != stats_rng_next(&b));
}

TEST(bootstrap_reproducible)
{
	const double x[] = { 10.2, 9.8, 10.5, 10.1, 9.9, 10.7, 10.0 };
	const double y[] = { 8.1, 8.4, 7.9, 8.0, 8.3, 8.2, 8.6 };
	double lo1, hi1, lo2, hi2;

	ASSERT_EQ(stats_bootstrap_median_ci(x, 7, 0.95, 2000, 7, &lo1, &hi1), 0);
	ASSERT_EQ(stats_bootstrap_median_ci(x, 7, 0.95, 2000, 7, &lo2, &hi2), 0);
	EXPECT_NEAR(lo1, lo2, 0);
	EXPECT_NEAR(hi1, hi2, 0);
	EXPECT_TRUE(lo1 <= 10.1 && hi1 >= 10.1 && lo1 >= 9.8 && hi1 <= 10.7);
	ASSERT_EQ(stats_bootstrap_rel_change_ci(x, 7, y, 7, 0.95, 2000, 7, &lo1, &hi1), 0);
	ASSERT_EQ(stats_bootstrap_rel_change_ci(x, 7, y, 7, 0.95, 2000, 7, &lo2, &hi2), 0);
	EXPECT_NEAR(lo1, lo2, 0);
	/* 8.2 / 10.1 - 1 = -0.188 lies inside; the interval excludes 0 */
	EXPECT_TRUE(lo1 < -0.188 && hi1 > -0.188 && hi1 < 0);
}

static double normal(struct stats_rng *r)
{
	/* Box-Muller */
	double u1 = 1.0 - stats_rng_uniform(r), u2 = stats_rng_uniform(r);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* Normal data of known mean 100 (= its median): the 95 % interval of the
 * median must hold it in about 95 % of 400 synthetic data sets. The
 * percentile bootstrap of a median at n = 15 under-covers a little (the
 * resampled medians sit on a few order statistics; 90-93 % here), and the
 * binomial noise at 400 sets is +-1.5 %: the bounds allow for both. */
TEST(bootstrap_ci_coverage)
{
	struct stats_rng r;
	int d, covered = 0, rel_covered = 0, sets = 400;

	stats_rng_seed(&r, 2026);
	for (d = 0; d < sets; d++) {
		double x[15], y[15], lo, hi;
		int i;

		for (i = 0; i < 15; i++) {
			x[i] = 100.0 + 5.0 * normal(&r);
			y[i] = 80.0 + 4.0 * normal(&r);
		}
		ASSERT_EQ(stats_bootstrap_median_ci(x, 15, 0.95, 1000, (uint64_t)d, &lo, &hi), 0);
		covered += lo <= 100.0 && hi >= 100.0;
		ASSERT_EQ(stats_bootstrap_rel_change_ci(x, 15, y, 15, 0.95, 1000, (uint64_t)d,
							&lo, &hi), 0);
		rel_covered += lo <= -0.2 && hi >= -0.2;
	}
	printf("  coverage: median %d/%d, relative change %d/%d\n", covered, sets, rel_covered,
	       sets);
	EXPECT_TRUE(covered >= (int)(0.87 * sets) && covered <= (int)(0.995 * sets));
	EXPECT_TRUE(rel_covered >= (int)(0.87 * sets) && rel_covered <= (int)(0.995 * sets));
}


/* Wilcoxon signed-rank against published values:
 * - scipy.stats.wilcoxon documentation (Examples; data from Cureton 1967 /
 *   Fisher's corn heights): d = [6, 8, ..., -67, 75], two-sided exact
 *   p = 0.041259765625 (1352/32768), W+ = 96 (scipy reports min(W+, W-) = 24);
 *   the normal approximation with continuity correction gives
 *   0.0437723237630412.
 * - R ?wilcox.test, Hollander & Wolfe (1973) p. 29, depression scale x - y:
 *   V = 40, one-sided ("greater") p = 0.01953 -> two-sided 40/1024.
 * - R wilcox.test(c(8, 3, 7, 5, 5, 2, 4, 4, -2, -3)) (ties: normal
 *   approximation, correct = TRUE): V = 50, p = 0.02456 (stdlib's R fixture
 *   for @stdlib/stats/wilcoxon; value recomputed by the formula). */
TEST(wilcoxon_signed_rank_table)
{
	static const double corn[] = { 6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75 };
	static const double hw_x[] = { 1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30 };
	static const double hw_y[] = { 0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29 };
	static const double tied[] = { 8, 3, 7, 5, 5, 2, 4, 4, -2, -3 };
	double d[60], w, p;
	size_t i, used;

	ASSERT_EQ(stats_wilcoxon_signed_rank(corn, 15, &w, &p, &used), 0);
	EXPECT_NEAR(w, 96.0, 0);
	EXPECT_EQ(used, 15);
	EXPECT_NEAR(p, 0.041259765625, 1e-15);
	for (i = 0; i < 9; i++)
		d[i] = hw_x[i] - hw_y[i];
	ASSERT_EQ(stats_wilcoxon_signed_rank(d, 9, &w, &p, &used), 0);
	EXPECT_NEAR(w, 40.0, 0);
	EXPECT_NEAR(p, 40.0 / 1024.0, 1e-15);
	ASSERT_EQ(stats_wilcoxon_signed_rank(tied, 10, &w, &p, &used), 0);
	EXPECT_NEAR(w, 50.0, 0);
	EXPECT_NEAR(p, 0.024557387036904372, 1e-12);
	/* zeros are dropped: the corn data with three zeros added is the same test */
	memcpy(d, corn, sizeof(corn));
	d[15] = d[16] = d[17] = 0.0;
	ASSERT_EQ(stats_wilcoxon_signed_rank(d, 18, &w, &p, &used), 0);
	EXPECT_EQ(used, 15);
	EXPECT_NEAR(p, 0.041259765625, 1e-15);
	/* 50 distinct differences: the normal approximation (no ties), which for
	 * 1..50 all positive gives z = (1275 - 637.5 - 0.5) / sqrt(10731.25) */
	for (i = 0; i < 50; i++)
		d[i] = (double)(i + 1);
	ASSERT_EQ(stats_wilcoxon_signed_rank(d, 50, &w, &p, &used), 0);
	EXPECT_NEAR(w, 1275.0, 0);
	EXPECT_NEAR(p, erfc(637.0 / sqrt(10731.25) / sqrt(2.0)), 1e-15);
	/* exact: all 5 positive is the most extreme of 32 sign patterns */
	ASSERT_EQ(stats_wilcoxon_signed_rank(d, 5, &w, &p, &used), 0);
	EXPECT_NEAR(p, 2.0 / 32.0, 1e-15);
	/* nothing but zeros: no evidence */
	d[0] = d[1] = 0.0;
	ASSERT_EQ(stats_wilcoxon_signed_rank(d, 2, &w, &p, &used), 0);
	EXPECT_EQ(used, 0);
	EXPECT_NEAR(p, 1.0, 0);
	d[0] = NAN;
	EXPECT_EQ(stats_wilcoxon_signed_rank(d, 2, &w, &p, &used), -EINVAL);
	EXPECT_EQ(stats_wilcoxon_signed_rank(d, 0, &w, &p, &used), -EINVAL);
}

/* The exact distribution sums to 1 and matches enumeration of all 2^n sign
 * patterns for a small n (brute force). */
TEST(wilcoxon_exact_matches_enumeration)
{
	static const double d[] = { 1.5, -2.25, 3.0, 4.5, -5.0, 6.25, 7.0, -8.5, 9.0, 10.5, 11.0 };
	const size_t n = sizeof(d) / sizeof(d[0]);
	double w, p, ge = 0, le = 0;
	size_t used;
	unsigned mask, k;

	ASSERT_EQ(stats_wilcoxon_signed_rank(d, n, &w, &p, &used), 0);
	/* |d| are distinct and already in rank order: rank of d[k] is k + 1 */
	for (mask = 0; mask < (1u << n); mask++) {
		double s = 0;

		for (k = 0; k < n; k++)
			if (mask & (1u << k))
				s += (double)(k + 1);
		ge += s >= w;
		le += s <= w;
	}
	EXPECT_NEAR(p, fmin(1.0, 2.0 * fmin(ge, le) / (double)(1u << n)), 1e-15);
}

/* PAVA against hand-worked fits (each pooled block is its weighted mean). */
TEST(isotonic_pava_table)
{
	static const struct {
		size_t n;
		double y[8], w[8], want[8];
		bool weighted;
	} rows[] = {
		/* already monotone: unchanged */
		{ 5, { 1, 2, 2, 3, 9 }, { 0 }, { 1, 2, 2, 3, 9 }, false },
		/* one dip pooled with its left neighbour: (3 + 1) / 2 */
		{ 4, { 0, 3, 1, 4 }, { 0 }, { 0, 2, 2, 4 }, false },
		/* a dip that needs two merges: 5,3,1 -> 3 3 3 */
		{ 4, { 0, 5, 3, 1 }, { 0 }, { 0, 3, 3, 3 }, false },
		/* strictly decreasing: everything pooled to the mean */
		{ 4, { 4, 3, 2, 1 }, { 0 }, { 2.5, 2.5, 2.5, 2.5 }, false },
		/* weights: (10 * 3 + 1 * 1) / 11 */
		{ 3, { 0, 3, 1 }, { 1, 10, 1 }, { 0, 31.0 / 11, 31.0 / 11 }, true },
		/* two separate violations: 1 3 2 4 3 5 -> 1 2.5 2.5 3.5 3.5 5 */
		{ 6, { 1, 3, 2, 4, 3, 5 }, { 0 }, { 1, 2.5, 2.5, 3.5, 3.5, 5 }, false },
		/* weighted pool of three: (2*6 + 1*4 + 1*2) / 4 = 4.5 */
		{ 4, { 1, 6, 4, 2 }, { 1, 2, 1, 1 }, { 1, 4.5, 4.5, 4.5 }, true },
		/* a single value */
		{ 1, { 7 }, { 0 }, { 7 }, false },
	};
	double fit[8], bad_w[2] = { 1, 0 }, two[2] = { 2, 1 };
	size_t i, k;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ASSERT_EQ(stats_isotonic_fit(rows[i].y, rows[i].weighted ? rows[i].w : NULL,
					     rows[i].n, fit), 0);
		for (k = 0; k < rows[i].n; k++)
			if (fabs(fit[k] - rows[i].want[k]) > 1e-12)
				FAIL_AT("row %zu [%zu]: %g, want %g", i, k, fit[k], rows[i].want[k]);
	}
	/* in place */
	ASSERT_EQ(stats_isotonic_fit(two, NULL, 2, two), 0);
	EXPECT_NEAR(two[0], 1.5, 0);
	EXPECT_NEAR(two[1], 1.5, 0);
	EXPECT_EQ(stats_isotonic_fit(two, bad_w, 2, fit), -EINVAL);
	EXPECT_EQ(stats_isotonic_fit(two, NULL, 0, fit), -EINVAL);
}

/* Student's t against the printed tables and the closed forms of df 1 and 2;
 * a non-integer df (Welch-Satterthwaite) round-trips. */
TEST(student_t_table)
{
	static const struct {
		double df, q975;
	} rows[] = { { 1, 12.7062047 }, { 2, 4.30265273 }, { 3, 3.18244631 },
		     { 4, 2.77644511 }, { 10, 2.22813885 }, { 30, 2.04227246 },
		     { 1e6, 1.95996635 } };
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		EXPECT_NEAR(stats_t_quantile(0.95, rows[i].df), rows[i].q975, 2e-6);
	EXPECT_NEAR(stats_t_quantile(0.99, 4), 4.60409487, 2e-6);
	EXPECT_NEAR(stats_t_two_sided_p(1.0, 1), 0.5, 1e-12);            /* 1 - 2 atan(1) / pi */
	EXPECT_NEAR(stats_t_two_sided_p(2.0, 2), 1 - 2 / sqrt(6.0), 1e-12); /* 1 - t / sqrt(2 + t^2) */
	EXPECT_NEAR(stats_t_two_sided_p(-2.0, 5), 0.10194, 1e-5);
	EXPECT_NEAR(stats_t_two_sided_p(0.0, 7), 1.0, 1e-12);
	EXPECT_NEAR(stats_t_two_sided_p(stats_t_quantile(0.95, 2.5), 2.5), 0.05, 1e-9);
	/* the normal limit */
	EXPECT_NEAR(stats_t_quantile(0.95, INFINITY), 1.95996398, 1e-6);
	EXPECT_NEAR(stats_t_two_sided_p(2.0, INFINITY), 0.04550026, 1e-7);
	EXPECT_NEAR(stats_t_quantile(0.95, 1e12), 1.95996398, 1e-6);
	EXPECT_TRUE(isnan(stats_t_quantile(0.95, 0)));
	EXPECT_TRUE(isnan(stats_t_two_sided_p(1.0, -1)));
	EXPECT_TRUE(isnan(stats_t_quantile(1.0, 3)));
}

/* Synthetic clustered data: C clusters of R members, cluster c's mean drawn
 * with SD sb, its members around it with SD sw (Box-Muller normals). */
static void clustered(struct stats_rng *rng, size_t C, size_t R, double sb, double sw,
		      double *x, size_t *cl)
{
	size_t c, r;

	for (c = 0; c < C; c++) {
		double u1 = stats_rng_uniform(rng) + 1e-12, u2 = stats_rng_uniform(rng);
		double mu = sb * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);

		for (r = 0; r < R; r++) {
			u1 = stats_rng_uniform(rng) + 1e-12;
			u2 = stats_rng_uniform(rng);
			x[c * R + r] = mu + sw * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
			cl[c * R + r] = c;
		}
	}
}

/* The cluster bootstrap's CI of the trimmed mean against the plain one (every
 * value its own cluster): with the clusters' means far apart (between SD 10x
 * the within SD) the CI widens by about the design effect's root, sqrt(1 +
 * (R - 1) rho), here ~3; with no between-cluster part, resampling clusters
 * only agrees with the plain one within 25 %, and the two-stage draw
 * (analyze's) is about sqrt 2 wider (stats.h). stats_cluster_spread finds
 * the SDs it was given (a floor of noise where there is none). */
TEST(cluster_bootstrap_widens_with_clusters)
{
	enum { C = 30, R = 9, N = C * R };
	double x[N], est, lo, hi, plo, phi, bsd, wse, means[N];
	size_t cl[N], own[N], i, k;
	struct stats_rng rng;

	for (i = 0; i < N; i++)
		own[i] = i;
	stats_rng_seed(&rng, 7);
	clustered(&rng, C, R, 1.0, 0.1, x, cl);
	ASSERT_EQ(stats_cluster_trimmed_mean_ci(x, cl, N, 0.1, STATS_CI_CLUSTERS, 0.95, 2000, 1,
						&est, &lo, &hi), 0);
	ASSERT_EQ(stats_cluster_trimmed_mean_ci(x, own, N, 0.1, STATS_CI_CLUSTERS, 0.95, 2000, 1,
						&est, &plo, &phi), 0);
	EXPECT_TRUE(lo <= est && est <= hi);
	EXPECT_TRUE((hi - lo) > 2.0 * (phi - plo));
	ASSERT_EQ(stats_cluster_trimmed_mean_ci(x, cl, N, 0.1, STATS_CI_TWO_STAGE, 0.95, 2000, 1,
						&est, &lo, &hi), 0);
	EXPECT_TRUE((hi - lo) > 2.0 * (phi - plo));
	ASSERT_EQ(stats_cluster_spread(x, cl, N, 0.1, &bsd, &wse, means, &k), 0);
	EXPECT_EQ(k, C);
	EXPECT_TRUE(bsd > 0.6 && bsd < 1.5);
	EXPECT_NEAR(wse, 0.1 / sqrt(N), 0.3 * 0.1 / sqrt(N));
	/* no between-cluster part: close to the plain bootstrap */
	clustered(&rng, C, R, 0.0, 1.0, x, cl);
	ASSERT_EQ(stats_cluster_trimmed_mean_ci(x, cl, N, 0.1, STATS_CI_CLUSTERS, 0.95, 2000, 1,
						&est, &lo, &hi), 0);
	ASSERT_EQ(stats_cluster_trimmed_mean_ci(x, own, N, 0.1, STATS_CI_CLUSTERS, 0.95, 2000, 1,
						&est, &plo, &phi), 0);
	EXPECT_TRUE((hi - lo) < 1.25 * (phi - plo) && (hi - lo) > 0.8 * (phi - plo));
	ASSERT_EQ(stats_cluster_trimmed_mean_ci(x, cl, N, 0.1, STATS_CI_TWO_STAGE, 0.95, 2000, 1,
						&est, &lo, &hi), 0);
	EXPECT_TRUE((hi - lo) > 1.2 * (phi - plo) && (hi - lo) < 1.7 * (phi - plo));
	ASSERT_EQ(stats_cluster_spread(x, cl, N, 0.1, &bsd, &wse, NULL, &k), 0);
	EXPECT_TRUE(bsd < 0.3); /* the members' SD is 1 */
	/* one cluster per value, or a bad value: refused */
	EXPECT_EQ(stats_cluster_spread(x, own, N, 0.1, &bsd, &wse, NULL, &k), -EINVAL);
	x[3] = NAN;
	EXPECT_EQ(stats_cluster_trimmed_mean_ci(x, cl, N, 0.1, STATS_CI_CLUSTERS, 0.95, 100, 1,
						&est, &lo, &hi), -EINVAL);
}

/* Coverage of the cluster bootstrap's 95 % CI with the structure of a run
 * (30 placements of 9 rounds, log-ratio SD 0.2 per round as README's runs,
 * between-placement SD 0.1): about 95 % of 200 simulated runs cover the
 * true mean 0 resampling clusters only, at least that two-stage; the plain
 * bootstrap's CI, which ignores the clusters, covers fewer. */
TEST(cluster_bootstrap_coverage)
{
	enum { C = 30, R = 9, N = C * R, RUNS = 200 };
	double x[N], est, lo, hi;
	size_t cl[N], own[N], i;
	struct stats_rng rng;
	int run, cover = 0, cover2 = 0, cover_plain = 0;

	for (i = 0; i < N; i++)
		own[i] = i;
	stats_rng_seed(&rng, 11);
	for (run = 0; run < RUNS; run++) {
		clustered(&rng, C, R, 0.1, 0.2, x, cl);
		ASSERT_EQ(stats_cluster_trimmed_mean_ci(x, cl, N, 0.1, STATS_CI_CLUSTERS, 0.95, 500,
							(uint64_t)run + 1, &est, &lo, &hi), 0);
		cover += lo <= 0 && 0 <= hi;
		ASSERT_EQ(stats_cluster_trimmed_mean_ci(x, cl, N, 0.1, STATS_CI_TWO_STAGE, 0.95,
							500, (uint64_t)run + 1, &est, &lo,
							&hi), 0);
		cover2 += lo <= 0 && 0 <= hi;
		ASSERT_EQ(stats_cluster_trimmed_mean_ci(x, own, N, 0.1, STATS_CI_CLUSTERS, 0.95,
							500, (uint64_t)run + 1, &est, &lo,
							&hi), 0);
		cover_plain += lo <= 0 && 0 <= hi;
	}
	printf("coverage of 200 runs: clusters %d, two-stage %d, plain %d\n", cover, cover2,
	       cover_plain);
	EXPECT_TRUE(cover >= 180 && cover <= 198); /* 0.95 +- 3.5 SE of 200 */
	EXPECT_TRUE(cover2 >= cover - 4);
	EXPECT_TRUE(cover_plain < cover);
}

HARNESS_MAIN
