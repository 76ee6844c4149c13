// SPDX-License-Identifier: GPL-2.0-or-later
/* Clustered samples: the two-stage cluster bootstrap and the between- and
 * within-cluster spread (stats.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_blk(const void *x, const void *y)
{
	double a = ((const struct stats_blk *)x)->v, b = ((const struct stats_blk *)y)->v;

	return (a > b) - (a < b);
}

void stats_blk_sort(struct stats_blk *s, size_t n)
{
	qsort(s, n, sizeof(*s), cmp_blk);
}

void stats_cluster_draw(struct stats_rng *rng, const size_t *sizes, size_t nclusters,
			size_t stride, bool within, uint32_t *cnt, size_t *drawn)
{
	size_t j, r;

	memset(cnt, 0, nclusters * stride * sizeof(*cnt));
	*drawn = 0;
	for (j = 0; j < nclusters; j++) {
		size_t c = (size_t)(stats_rng_uniform(rng) * (double)nclusters);

		for (r = 0; r < sizes[c]; r++) {
			size_t m = within ? (size_t)(stats_rng_uniform(rng) * (double)sizes[c]) : r;

			cnt[c * stride + m]++;
			(*drawn)++;
		}
	}
}

double stats_counted_trimmed_mean(const struct stats_blk *s, size_t n, const uint32_t *cnt,
				  size_t total, double trim)
{
	double lo, hi, cum = 0, sum = 0, wsum = 0;
	size_t i;

	if (total == SIZE_MAX) /* not every drawn block has a value here: count */
		for (i = total = 0; i < n; i++)
			total += cnt[s[i].i];
	if (!total)
		return NAN;
	lo = trim * (double)total;
	hi = (double)total - lo;
	for (i = 0; i < n && cum < hi; i++) {
		double w = cnt[s[i].i], a = fmin(cum + w, hi) - fmax(cum, lo);

		if (a > 0) {
			sum += a * s[i].v;
			wsum += a;
		}
		cum += w;
	}
	return wsum > 0 ? sum / wsum : NAN;
}

/* Clusters as blocks: the ids packed to 0..nclusters-1 (id[i] each
 * value's), sizes[c], and each value's block c * stride + m. */
struct layout {
	size_t nclusters, stride, *sizes, *id;
	struct stats_blk *blk;
	uint32_t *cnt;
};

static int layout_build(const double *x, const size_t *cluster, size_t n, struct layout *l)
{
	size_t i, *dense = NULL, *fill = NULL;
	int err = -ENOMEM;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < n; i++)
		if (!isfinite(x[i]) || cluster[i] >= n)
			return -EINVAL;
	dense = malloc(n * sizeof(*dense));
	l->sizes = calloc(n, sizeof(*l->sizes));
	l->id = malloc(n * sizeof(*l->id));
	fill = calloc(n, sizeof(*fill));
	l->blk = malloc(n * sizeof(*l->blk));
	if (!dense || !l->sizes || !l->id || !fill || !l->blk)
		goto out;
	for (i = 0; i < n; i++)
		dense[i] = SIZE_MAX;
	for (i = 0; i < n; i++) {
		if (dense[cluster[i]] == SIZE_MAX)
			dense[cluster[i]] = l->nclusters++;
		l->id[i] = dense[cluster[i]];
		if (++l->sizes[l->id[i]] > l->stride)
			l->stride = l->sizes[l->id[i]];
	}
	for (i = 0; i < n; i++)
		l->blk[i] = (struct stats_blk){ x[i], l->id[i] * l->stride + fill[l->id[i]]++ };
	stats_blk_sort(l->blk, n);
	l->cnt = malloc(l->nclusters * l->stride * sizeof(*l->cnt));
	err = l->cnt ? 0 : -ENOMEM;
out:
	free(dense);
	free(fill);
	return err;
}

static void layout_free(struct layout *l)
{
	free(l->sizes);
	free(l->id);
	free(l->blk);
	free(l->cnt);
}

const char *stats_cluster_ci_name(enum stats_cluster_ci m)
{
	switch (m) {
	case STATS_CI_TWO_STAGE:
		return "two-stage";
	case STATS_CI_CLUSTERS:
		return "clusters";
	case STATS_CI_EXPANDED:
		return "expanded";
	}
	return "?";
}

double stats_cluster_expansion(size_t nclusters, double level)
{
	double p = (double)nclusters, t, z;

	if (nclusters < 2 || !(level > 0.0 && level < 1.0))
		return 1.0;
	t = stats_t_quantile(level, p - 1.0);
	z = stats_t_quantile(level, 1e9); /* the normal's (stats.c's limit) */
	return t / z * sqrt(p / (p - 1.0));
}

bool stats_cluster_ci_within(enum stats_cluster_ci m, size_t nclusters)
{
	return m == STATS_CI_TWO_STAGE || nclusters < 2;
}

double stats_cluster_ci_scale(enum stats_cluster_ci m, size_t nclusters, double level)
{
	return m == STATS_CI_EXPANDED ? stats_cluster_expansion(nclusters, level) : 1.0;
}

int stats_cluster_trimmed_mean_ci(const double *x, const size_t *cluster, size_t n, double trim,
				  enum stats_cluster_ci method, double level, unsigned iters,
				  uint64_t seed, double *est, double *lo, double *hi)
{
	struct stats_rng rng;
	struct layout l;
	double *rep = NULL, f;
	size_t i, k, drawn;
	unsigned it;
	bool within;
	int err;

	if (n < 2 || !iters)
		return -EINVAL;
	if ((err = layout_build(x, cluster, n, &l)))
		goto out;
	if (!(rep = malloc(iters * sizeof(*rep)))) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < l.nclusters * l.stride; i++)
		l.cnt[i] = 1;
	*est = stats_counted_trimmed_mean(l.blk, n, l.cnt, n, trim);
	within = stats_cluster_ci_within(method, l.nclusters);
	f = stats_cluster_ci_scale(method, l.nclusters, level);
	stats_rng_seed(&rng, seed);
	for (it = k = 0; it < iters; it++) {
		stats_cluster_draw(&rng, l.sizes, l.nclusters, l.stride, within, l.cnt, &drawn);
		if (isfinite(rep[k] = stats_counted_trimmed_mean(l.blk, n, l.cnt, drawn, trim))) {
			rep[k] = *est + f * (rep[k] - *est);
			k++;
		}
	}
	if (k < 2 || stats_quantile(rep, k, (1.0 - level) / 2.0, lo) ||
	    stats_quantile(rep, k, 1.0 - (1.0 - level) / 2.0, hi))
		err = -EINVAL;
out:
	layout_free(&l);
	free(rep);
	return err;
}

/* Cluster c's trimmed mean and its members' variance (NaN below 2). */
static void cluster_moments(const struct layout *l, size_t n, size_t c, double trim,
			    double *mean, double *var)
{
	double s = 0, ss = 0, m;
	size_t i;

	for (i = 0; i < l->nclusters * l->stride; i++)
		l->cnt[i] = i / l->stride == c;
	*mean = stats_counted_trimmed_mean(l->blk, n, l->cnt, l->sizes[c], trim);
	for (i = 0; i < n; i++)
		if (l->blk[i].i / l->stride == c)
			s += l->blk[i].v;
	m = s / (double)l->sizes[c];
	for (i = 0; i < n; i++)
		if (l->blk[i].i / l->stride == c)
			ss += (l->blk[i].v - m) * (l->blk[i].v - m);
	*var = l->sizes[c] >= 2 ? ss / (double)(l->sizes[c] - 1) : NAN;
}

int stats_cluster_spread(const double *x, const size_t *cluster, size_t n, double trim,
			 double *between_sd, double *within_se, double *means, size_t *clusters)
{
	double *u = NULL, su = 0, ssu = 0, expl = 0, pooled = 0, dfw = 0, mu, var;
	size_t c, k = 0;
	struct layout l;
	int err;

	*between_sd = *within_se = NAN;
	*clusters = 0;
	if ((err = layout_build(x, cluster, n, &l)))
		goto out;
	if (!(u = malloc(l.nclusters * sizeof(*u)))) {
		err = -ENOMEM;
		goto out;
	}
	for (c = 0; c < l.nclusters; c++) {
		if (l.sizes[c] < 2)
			continue;
		cluster_moments(&l, n, c, trim, &u[k], &var);
		su += u[k++];
		expl += var / (double)l.sizes[c];
		pooled += var * (double)(l.sizes[c] - 1);
		dfw += (double)(l.sizes[c] - 1);
	}
	if (k < 2) {
		err = -EINVAL;
		goto out;
	}
	mu = su / (double)k;
	for (c = 0; c < k; c++)
		ssu += (u[c] - mu) * (u[c] - mu);
	var = ssu / (double)(k - 1) - expl / (double)k;
	*between_sd = var > 0 ? sqrt(var) : 0.0;
	if (means)
		memcpy(means, u, k * sizeof(*u));
	*within_se = sqrt(pooled / dfw / (double)n);
	*clusters = k;
out:
	layout_free(&l);
	free(u);
	return err;
}
