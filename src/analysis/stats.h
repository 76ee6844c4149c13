/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Statistics for small samples of benchmark repetitions. Names say exactly
 * what is computed. Functions that need a sorted copy make their own; inputs
 * are never modified. Return convention: 0 or negative errno (-EINVAL for
 * n == 0 or non-finite input), results through out-parameters.
 */
#ifndef STATS_H
#define STATS_H

#include <stdbool.h>
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

/* ---- clustered samples (stats_cluster.c) ---------------------------------
 * Values that come in clusters: the rounds of one physical placement share
 * it (issue 39), so the placement, not the round, is the independent unit.
 * The cluster bootstrap draws clusters with replacement, then members within
 * each drawn cluster with replacement (two-stage; Davison and Hinkley 1997,
 * section 3.8): its CI carries the between-cluster variance that a
 * bootstrap of the pooled values would leave out.
 */
/* A value and its block (cluster x stride + member), sorted by value. */
struct stats_blk {
	double v;
	size_t i;
};
void stats_blk_sort(struct stats_blk *s, size_t n);
/* One draw: nclusters clusters with replacement, then (within) sizes[c]
 * members of each drawn cluster c with replacement, or (!within) each of
 * its members once; cnt[c * stride + m] counts the draws of each block
 * (zeroed first: nclusters * stride entries), *drawn all of them.
 * Two-stage (within) counts the members' scatter twice, once in the
 * clusters' means and once more in the members' draw: where the clusters
 * do not differ its CI is about sqrt 2 too wide; it is right where the
 * clusters differ much (Davison and Hinkley 1997, section 3.8).
 * Clusters only is right in both cases given enough clusters. */
void stats_cluster_draw(struct stats_rng *rng, const size_t *sizes, size_t nclusters,
			size_t stride, bool within, uint32_t *cnt, size_t *drawn);
/* The trimmed mean of a resample given as a count per block: the sorted
 * values weighted by their counts, 'trim' of the total weight dropped at
 * each end (fractional at the edges). total: the drawn count of these
 * blocks, or SIZE_MAX to count it. With every count 1 it is the sample's
 * own trimmed mean. NAN when nothing is drawn. */
double stats_counted_trimmed_mean(const struct stats_blk *s, size_t n, const uint32_t *cnt,
				  size_t total, double trim);
/*
 * How a cluster bootstrap makes its CI (issue 39; the coverage of each is
 * measured in tests/test_cluster_ci.c, doc/analyze.md "How wide a run's CI
 * is"):
 * - TWO_STAGE: clusters, then members within each drawn cluster; about
 *   sqrt 2 too wide where the clusters do not differ (see above).
 * - CLUSTERS: clusters only, the percentile interval. Right given many
 *   clusters; with few it under-covers, as a z interval with the clusters'
 *   SD taken with divisor P (P = 3: about 80 %).
 * - EXPANDED: clusters only, each replicate's distance from the estimate
 *   scaled by stats_cluster_expansion(P, level), which gives the
 *   percentile interval the width of a t interval on P - 1 degrees of
 *   freedom (the factor of Hesterberg's "expanded percentile" interval, The
 *   American Statistician 69(4), 2015, which moves the percentile levels
 *   instead: with 3 clusters the replicates take a few values only, and no
 *   level reaches beyond the extreme cluster). analyze's default.
 * With fewer than 2 clusters the clusters say nothing about each other:
 * every method draws the members of the one cluster (TWO_STAGE's draw).
 */
enum stats_cluster_ci { STATS_CI_TWO_STAGE, STATS_CI_CLUSTERS, STATS_CI_EXPANDED };
/* The short names "two-stage", "clusters", "expanded". */
const char *stats_cluster_ci_name(enum stats_cluster_ci m);
/* t_{P-1} / z * sqrt(P / (P - 1)) at 'level' for P clusters (P = 30 at
 * 0.95: 1.061; P = 3: 2.688); 1 for P < 2 or a level outside (0, 1). */
double stats_cluster_expansion(size_t nclusters, double level);
/* Whether method draws members within clusters for P clusters. */
bool stats_cluster_ci_within(enum stats_cluster_ci m, size_t nclusters);
/* The scale of a replicate's distance from the estimate: the expansion for
 * EXPANDED with 2 clusters or more, else 1. */
double stats_cluster_ci_scale(enum stats_cluster_ci m, size_t nclusters, double level);
/* The 'trim' trimmed mean of x and its cluster bootstrap CI at 'level' by
 * 'method'; cluster[i] (< n) is x[i]'s cluster. Every value in a cluster of
 * its own gives the plain bootstrap of the pooled values. -EINVAL for
 * n < 2 or a non-finite value, -ENOMEM. */
int stats_cluster_trimmed_mean_ci(const double *x, const size_t *cluster, size_t n, double trim,
				  enum stats_cluster_ci method, double level, unsigned iters,
				  uint64_t seed, double *est, double *lo, double *hi);
/* The spread of clustered values (one-way random effects, method of
 * moments): between_sd, the SD of the clusters' true means (the spread of
 * each cluster's 'trim' trimmed mean less the part its own members'
 * scatter explains, 0 when that part is all of it); within_se, the SE of
 * the grand mean from the members' scatter alone (pooled within-cluster
 * variance over all n), what a CI that takes every value as independent
 * would show. clusters: those with 2 members or more used, their trimmed
 * means in means[] (may be NULL; room for n). -EINVAL with fewer than 2
 * such clusters. */
int stats_cluster_spread(const double *x, const size_t *cluster, size_t n, double trim,
			 double *between_sd, double *within_se, double *means, size_t *clusters);

#endif
