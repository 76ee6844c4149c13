/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Statistics for small samples of benchmark repetitions. Names say exactly
 * what is computed. Functions that need a sorted copy make their own; inputs
 * are never modified. Return convention: 0 or negative errno (-EINVAL for
 * n == 0 or non-finite input), results through out-parameters.
 */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>
#include <stdint.h>

/* A small seeded PRNG (xoshiro256**), so bootstraps are reproducible. */
struct stats_rng {
	uint64_t s[4];
};
/* splitmix64: advances *state and returns the next value. */
uint64_t stats_splitmix64(uint64_t *state);
void stats_rng_seed(struct stats_rng *r, uint64_t seed);
uint64_t stats_rng_next(struct stats_rng *r);
double stats_rng_uniform(struct stats_rng *r); /* [0, 1) */

int stats_median(const double *x, size_t n, double *out);
/* The median of x, reordering x in place (no copy, linear time on
 * average): for bootstraps that take thousands of medians of scratch data. */
int stats_median_inplace(double *x, size_t n, double *out);
int stats_mean(const double *x, size_t n, double *out);
/* Median absolute deviation (unscaled: median |x - median|). */
int stats_mad(const double *x, size_t n, double *out);
/* Linear-interpolated quantile, q in [0, 1] (Hyndman-Fan type 7). */
int stats_quantile(const double *x, size_t n, double q, double *out);

/* Percentile bootstrap CI of the median of x, at level (e.g. 0.95),
 * 'iters' resamples with a seeded rng. */
int stats_bootstrap_median_ci(const double *x, size_t n, double level, unsigned iters,
			      uint64_t seed, double *lo, double *hi);
/* Percentile bootstrap CI of the ratio median(b) / median(a) - 1 (the
 * relative change of b against a), resampling both independently. */
int stats_bootstrap_rel_change_ci(const double *a, size_t na, const double *b, size_t nb,
				  double level, unsigned iters, uint64_t seed,
				  double *lo, double *hi);

/* Two-sided Mann-Whitney U test: exact p for small samples (na, nb <= 20),
 * with ties the exact permutation distribution of a's mid-rank sum (never
 * below stats_mann_whitney_min_p); normal approximation with tie and
 * continuity correction for larger samples. */
/* u is U of a: the pairs (x in a, y in b) with x > y, ties counted half. */
int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		       double *u, double *p_two_sided);
/* The smallest two-sided p the exact test can give for na vs nb without
 * ties: 2 / C(na + nb, na). */
double stats_mann_whitney_min_p(size_t na, size_t nb);

/* Two-sided Wilcoxon signed-rank test of paired differences d (x - y)
 * against a distribution symmetric about 0. Zero differences are dropped
 * (Wilcoxon's method, the default of R's wilcox.test and scipy); the exact
 * null distribution is used for fewer than 50 non-zero differences without
 * ties (R's rule), else the normal approximation with tie and continuity
 * correction. w_plus is the sum of the ranks of the positive differences,
 * n_used the number of non-zero ones (p = 1 when there are none). */
int stats_wilcoxon_signed_rank(const double *d, size_t n, double *w_plus, double *p_two_sided,
			       size_t *n_used);

/* Weighted isotonic (non-decreasing) least-squares fit of y by the
 * pool-adjacent-violators algorithm; w NULL = equal weights, else every
 * weight finite and > 0. fit may be y. */
int stats_isotonic_fit(const double *y, const double *w, size_t n, double *fit);

/* Student's t with df > 0 degrees of freedom (not only whole numbers: a
 * Welch-Satterthwaite df): the two-sided tail P(|T| >= |t|), from the
 * regularized incomplete beta function, and the t whose two-sided tail is
 * 1 - level (level 0.95, df 1 -> 12.706). NAN for df <= 0 or a level
 * outside (0, 1). */
double stats_t_two_sided_p(double t, double df);
double stats_t_quantile(double level, double df);

/* Holm-Bonferroni: adjusted p-values (monotone), in the input order. */
int stats_holm_adjust(const double *p, size_t n, double *p_adj);

#endif
