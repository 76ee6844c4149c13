// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Statistics for small samples of benchmark repetitions (see stats.h).
 * Benchmark repetitions are few (3-20) and skewed by interference, so the
 * location estimate is the median, intervals come from a percentile
 * bootstrap, and tests are rank tests, which assume no distribution.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* splitmix64: small, seedable, the same sequence on every platform; it also
 * spreads a small seed over xoshiro's four state words (the seeding its
 * authors recommend). The one copy: kernels, the engine and collapse use it. */
uint64_t stats_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void stats_rng_seed(struct stats_rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = stats_splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t stats_rng_next(struct stats_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double stats_rng_uniform(struct stats_rng *r)
{
	/* the top 53 bits make every double in [0, 1) on a 2^-53 grid */
	return (double)(stats_rng_next(r) >> 11) * 0x1.0p-53;
}

/* An index in [0, n) without modulo bias worth caring about for n << 2^32. */
static size_t rng_index(struct stats_rng *r, size_t n)
{
	return (size_t)(stats_rng_uniform(r) * (double)n);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int check_finite(const double *x, size_t n)
{
	size_t i;

	if (!x || n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	return 0;
}

/* Type-7 quantile of an already sorted array. */
static double sorted_quantile(const double *s, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);

	if (lo + 1 >= n)
		return s[n - 1];
	return s[lo] + (h - (double)lo) * (s[lo + 1] - s[lo]);
}

static double *sorted_copy(const double *x, size_t n)
{
	double *s = malloc(n * sizeof(*s));

	if (!s)
		return NULL;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

int stats_quantile(const double *x, size_t n, double q, double *out)
{
	double *s;
	int err = check_finite(x, n);

	if (err)
		return err;
	if (!(q >= 0.0 && q <= 1.0))
		return -EINVAL;
	s = sorted_copy(x, n);
	if (!s)
		return -ENOMEM;
	*out = sorted_quantile(s, n, q);
	free(s);
	return 0;
}

int stats_median(const double *x, size_t n, double *out)
{
	return stats_quantile(x, n, 0.5, out);
}

int stats_mean(const double *x, size_t n, double *out)
{
	double sum = 0.0;
	size_t i;
	int err = check_finite(x, n);

	if (err)
		return err;
	for (i = 0; i < n; i++)
		sum += x[i];
	*out = sum / (double)n;
	return 0;
}

int stats_mad(const double *x, size_t n, double *out)
{
	double med, *dev;
	size_t i;
	int err = stats_median(x, n, &med);

	if (err)
		return err;
	dev = malloc(n * sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		dev[i] = fabs(x[i] - med);
	err = stats_median(dev, n, out);
	free(dev);
	return err;
}

/* Rearrange a[0..n) so a[k] is the k-th smallest, smaller ones before it
 * (Hoare's selection): linear on average, where sorting each of thousands
 * of resamples would cost n log n. */
static void select_kth(double *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double pivot = a[lo + (hi - lo) / 2], t;
		size_t i = lo, j = hi;

		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				t = a[i];
				a[i] = a[j];
				a[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

/* The median of buf[0..n), reordering it; the same value as
 * sorted_quantile(sorted, n, 0.5). */
static double median_of_scratch(double *buf, size_t n)
{
	size_t i, mid = (n - 1) / 2;
	double next;

	select_kth(buf, n, mid);
	if (n % 2)
		return buf[mid];
	/* even n: the mean of the two middle values; the upper one is the
	 * smallest of the part above mid */
	next = buf[mid + 1];
	for (i = mid + 2; i < n; i++)
		if (buf[i] < next)
			next = buf[i];
	return buf[mid] + 0.5 * (next - buf[mid]);
}

int stats_median_inplace(double *x, size_t n, double *out)
{
	int err = check_finite(x, n);

	if (err)
		return err;
	*out = median_of_scratch(x, n);
	return 0;
}

/*
 * Large samples (a sweep of 10^5 trials): drawing n indices per resample
 * made analyze take minutes. The k-th smallest of n draws floor(n U_i) is
 * floor(n U_(k)), and U_(k) ~ Beta(k, n - k + 1); the next one up is
 * U_(k) + (1 - U_(k)) Beta(1, n - k). So the median of a resample of the
 * sorted values is drawn exactly, in O(1), from two or three variates.
 */
#define STATS_BIG_N 200

static double rng_normal(struct stats_rng *r)
{
	double u1 = 1.0 - stats_rng_uniform(r), u2 = stats_rng_uniform(r);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* Marsaglia and Tsang (2000), shape a >= 1. */
static double rng_gamma(struct stats_rng *r, double a)
{
	double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);

	for (;;) {
		double z = rng_normal(r), v = 1.0 + c * z, u;

		if (v <= 0.0)
			continue;
		v = v * v * v;
		u = stats_rng_uniform(r);
		if (u < 1.0 - 0.0331 * z * z * z * z ||
		    log(u) < 0.5 * z * z + d * (1.0 - v + log(v)))
			return d * v;
	}
}

static size_t rank_of(double u, size_t n)
{
	size_t i = (size_t)(u * (double)n);

	return i < n ? i : n - 1;
}

static double big_resample_median(const double *sorted, size_t n, struct stats_rng *r)
{
	size_t k = (n - 1) / 2 + 1; /* 1-based rank of the (lower) median */
	double ga = rng_gamma(r, (double)k), gb = rng_gamma(r, (double)(n - k + 1));
	double u = ga / (ga + gb), u2;
	size_t i = rank_of(u, n);

	if (n % 2)
		return sorted[i];
	u2 = u + (1.0 - u) * (1.0 - pow(1.0 - stats_rng_uniform(r), 1.0 / (double)(n - k)));
	return sorted[i] + 0.5 * (sorted[rank_of(u2, n)] - sorted[i]);
}

/* The data a resampler reads: x itself, or above STATS_BIG_N a sorted copy
 * (*copy, to be freed). */
static int resample_input(const double *x, size_t n, double **copy, const double **use)
{
	*copy = NULL;
	*use = x;
	if (n <= STATS_BIG_N)
		return 0;
	*copy = malloc(n * sizeof(**copy));
	if (!*copy)
		return -ENOMEM;
	memcpy(*copy, x, n * sizeof(**copy));
	qsort(*copy, n, sizeof(**copy), cmp_double);
	*use = *copy;
	return 0;
}

/* Median of a bootstrap resample of x drawn into buf (n elements); the
 * same value as sorted_quantile(sorted, n, 0.5). Above STATS_BIG_N, x must
 * come from resample_input() (sorted) and buf is not used. */
static double resample_median(const double *x, size_t n, double *buf, struct stats_rng *r)
{
	size_t i;

	if (n > STATS_BIG_N)
		return big_resample_median(x, n, r);
	for (i = 0; i < n; i++)
		buf[i] = x[rng_index(r, n)];
	return median_of_scratch(buf, n);
}

/* The percentile interval of 'count' bootstrap statistics at 'level'. */
static void percentile_interval(double *stat, size_t count, double level, double *lo,
				double *hi)
{
	double alpha = (1.0 - level) / 2.0;

	qsort(stat, count, sizeof(*stat), cmp_double);
	*lo = sorted_quantile(stat, count, alpha);
	*hi = sorted_quantile(stat, count, 1.0 - alpha);
}

/* One sample of a bootstrap. */
struct boot_sample {
	const double *x;
	size_t n;
};

/*
 * The bootstrap percentile CI at level of a statistic of the medians of k
 * samples (k <= 3): each of the iters resamples draws the samples' medians
 * in turn, then stat(medians, &value). A statistic can be undefined for a
 * resample (stat returns false: a zero denominator); such resamples are
 * dropped, and too many of them (half or more: -EDOM) make the interval
 * meaningless.
 */
static int bootstrap_ci(const struct boot_sample *s, int k,
			bool (*stat)(const double *median, double *value), double level,
			unsigned iters, uint64_t seed, double *lo, double *hi)
{
	double *copy[3] = { NULL }, *buf = NULL, *values = NULL, median[3];
	const double *use[3];
	struct stats_rng r;
	size_t count = 0, nmax = 0;
	unsigned i;
	int j, err = 0;

	for (j = 0; j < k && !err; j++)
		err = check_finite(s[j].x, s[j].n);
	if (err)
		return err;
	if (!(level > 0.0 && level < 1.0) || iters < 2)
		return -EINVAL;
	for (j = 0; j < k; j++)
		nmax = s[j].n > nmax ? s[j].n : nmax;
	buf = malloc(nmax * sizeof(*buf));
	values = malloc(iters * sizeof(*values));
	if (!buf || !values) {
		err = -ENOMEM;
		goto out;
	}
	for (j = 0; j < k && !err; j++)
		err = resample_input(s[j].x, s[j].n, &copy[j], &use[j]);
	if (err)
		goto out;
	stats_rng_seed(&r, seed);
	for (i = 0; i < iters; i++) {
		for (j = 0; j < k; j++)
			median[j] = resample_median(use[j], s[j].n, buf, &r);
		if (stat(median, &values[count]))
			count++;
	}
	if (count < (size_t)iters / 2 + 1) {
		err = -EDOM;
		goto out;
	}
	percentile_interval(values, count, level, lo, hi);
out:
	for (j = 0; j < k; j++)
		free(copy[j]);
	free(buf);
	free(values);
	return err;
}

static bool median_stat(const double *median, double *value)
{
	*value = median[0];
	return true;
}

int stats_bootstrap_median_ci(const double *x, size_t n, double level, unsigned iters,
			      uint64_t seed, double *lo, double *hi)
{
	const struct boot_sample s[] = { { x, n } };

	return bootstrap_ci(s, 1, median_stat, level, iters, seed, lo, hi);
}

/* b / a - 1 of the medians; a zero baseline has no relative change. */
static bool rel_change_stat(const double *median, double *value)
{
	if (median[0] == 0.0)
		return false;
	*value = median[1] / median[0] - 1.0;
	return true;
}

int stats_bootstrap_rel_change_ci(const double *a, size_t na, const double *b, size_t nb,
				  double level, unsigned iters, uint64_t seed,
				  double *lo, double *hi)
{
	const struct boot_sample s[] = { { a, na }, { b, nb } };

	return bootstrap_ci(s, 2, rel_change_stat, level, iters, seed, lo, hi);
}

/* (base - x) / (base - ref) of the medians; undefined where ref gains nothing. */
/*
 * Exact null distribution of U for sample sizes m, n: the coefficients of
 * the Gaussian binomial [m+n choose m]_q = prod_{k=1..m} (1 - q^(n+k)) /
 * (1 - q^k). Each step multiplies by (1 - q^(n+k)) and divides by
 * (1 - q^k); after step k the polynomial is [n+k choose k]_q, so every
 * intermediate stays an integer polynomial and int64 is exact (the sum of
 * the coefficients is C(40, 20) < 2^38 at most).
 */
static int u_distribution(size_t m, size_t n, int64_t **out, size_t *len)
{
	size_t deg = m * n, k, u;
	int64_t *c = calloc(deg + 1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c[0] = 1;
	for (k = 1; k <= m; k++) {
		size_t sh = n + k;

		for (u = deg; u >= sh; u--)
			c[u] -= c[u - sh];
		for (u = k; u <= deg; u++)
			c[u] += c[u - k];
	}
	*out = c;
	*len = deg + 1;
	return 0;
}

struct ranked {
	double v;
	int group; /* 0 = a, 1 = b */
};

static int cmp_ranked(const void *a, const void *b)
{
	return cmp_double(&((const struct ranked *)a)->v, &((const struct ranked *)b)->v);
}

/* Sorts all[0..n) by value and returns the sum of the mid-ranks (ties share
 * the mean of their ranks, 1-based) of the elements of group; *tie_term gets
 * the sum of t^3 - t over the runs of t equal values, 0 when there are no ties. */
static double mid_rank_sum(struct ranked *all, size_t n, int group, double *tie_term)
{
	double sum = 0.0;
	size_t i, j;

	*tie_term = 0.0;
	qsort(all, n, sizeof(*all), cmp_ranked);
	for (i = 0; i < n; i = j) {
		double t, rank;
		size_t k;

		for (j = i + 1; j < n && all[j].v == all[i].v; j++)
			;
		t = (double)(j - i);
		rank = ((double)i + 1.0 + (double)j) / 2.0;
		for (k = i; k < j; k++)
			if (all[k].group == group)
				sum += rank;
		if (j - i > 1)
			*tie_term += t * t * t - t;
	}
	return sum;
}

double stats_mann_whitney_min_p(size_t na, size_t nb)
{
	double c = 1.0; /* C(na + nb, na): every partial product is an integer */
	size_t i;

	for (i = 1; i <= na; i++)
		c = c * (double)(nb + i) / (double)i;
	return 2.0 / c;
}

/* Exact two-sided p without ties: twice the smaller tail of U's exact
 * distribution, the observed U included in both tails. */
static int untied_exact_p(size_t na, size_t nb, double ua, double *p)
{
	int64_t *c;
	size_t len, k, ui = (size_t)llround(ua);
	double total = 0.0, le = 0.0, ge = 0.0;
	int err = u_distribution(na < nb ? na : nb, na < nb ? nb : na, &c, &len);

	if (err)
		return err;
	for (k = 0; k < len; k++) {
		total += (double)c[k];
		if (k <= ui)
			le += (double)c[k];
		if (k >= ui)
			ge += (double)c[k];
	}
	free(c);
	*p = 2.0 * (le < ge ? le : ge) / total;
	return 0;
}

/*
 * Exact two-sided p with ties, for the sizes the exact test takes: under the
 * null every split of the pooled values into na and nb is equally likely,
 * and a split's statistic is the sum of a's mid-ranks. Doubled, the mid-ranks
 * are integers (a run of equal values at sorted places [i, j) has mid-rank
 * (i + 1 + j) / 2), so c[k * w + s] counts the ways k of the values added so
 * far have doubled ranks summing to s; adding a value of doubled rank r adds
 * c[k - 1][s - r] to c[k][s]. The counts stay below C(40, 20) < 2^38, exact
 * in int64 and in a double. p is as the test without ties defines it, twice
 * the smaller tail with the observed sum in both, so it never falls below
 * stats_mann_whitney_min_p, the floor without ties (the normal approximation
 * did: 4 vs 4, all equal within each side, gave 0.0131 against 2/70 = 0.0286).
 * all is sorted, as mid_rank_sum leaves it.
 */
static int tied_exact_p(const struct ranked *all, size_t n, size_t na, double rank_sum_a,
			double *p)
{
	size_t w = n * (n + 1) + 1, obs = (size_t)llround(2.0 * rank_sum_a), i, j, k, s;
	int64_t *c = calloc((na + 1) * w, sizeof(*c));
	double total = 0.0, le = 0.0, ge = 0.0;

	if (!c)
		return -ENOMEM;
	c[0] = 1;
	for (i = 0; i < n; i = j) {
		size_t r, x;

		for (j = i + 1; j < n && all[j].v == all[i].v; j++)
			;
		r = i + 1 + j;
		/* the ranks come in ascending order: k values sum to k * r at most */
		for (x = i; x < j; x++)
			for (k = x + 1 < na ? x + 1 : na; k >= 1; k--)
				for (s = k * r < w - 1 ? k * r : w - 1; s >= r; s--)
					c[k * w + s] += c[(k - 1) * w + s - r];
	}
	for (s = 0; s < w; s++) {
		double v = (double)c[na * w + s];

		total += v;
		le += s <= obs ? v : 0.0;
		ge += s >= obs ? v : 0.0;
	}
	free(c);
	*p = 2.0 * (le < ge ? le : ge) / total;
	return 0;
}

int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		       double *u, double *p_two_sided)
{
	struct ranked *all;
	size_t n = na + nb, i;
	double rank_sum_a, tie_term, ua, mu, sigma2, z, p;
	int err = check_finite(a, na);

	if (!err)
		err = check_finite(b, nb);
	if (err)
		return err;
	all = malloc(n * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (i = 0; i < na; i++)
		all[i] = (struct ranked){ a[i], 0 };
	for (i = 0; i < nb; i++)
		all[na + i] = (struct ranked){ b[i], 1 };
	rank_sum_a = mid_rank_sum(all, n, 0, &tie_term);
	/* U of a: the number of pairs (x in a, y in b) with x > y, ties half */
	ua = rank_sum_a - (double)na * ((double)na + 1.0) / 2.0;
	mu = (double)na * (double)nb / 2.0;
	if (tie_term == 0.0 && na <= 20 && nb <= 20) {
		err = untied_exact_p(na, nb, ua, &p);
	} else if (na <= 20 && nb <= 20) {
		err = tied_exact_p(all, n, na, rank_sum_a, &p);
	} else {
		/* normal approximation with tie correction and continuity correction */
		sigma2 = (double)na * (double)nb / 12.0 *
			 (((double)n + 1.0) - tie_term / ((double)n * ((double)n - 1.0)));
		if (sigma2 <= 0.0) {
			p = 1.0; /* every value equal: no evidence either way */
		} else {
			double d = fabs(ua - mu) - 0.5;

			z = (d > 0.0 ? d : 0.0) / sqrt(sigma2);
			p = erfc(z / sqrt(2.0));
		}
	}
	free(all);
	if (err)
		return err;
	*u = ua;
	*p_two_sided = p > 1.0 ? 1.0 : p;
	return 0;
}

/* P(W+ = w) * 2^n for w = 0..n(n+1)/2 by the recurrence of adding rank k
 * to the subsets of 1..k-1; counts stay below 2^49 for n < 50, exact in a
 * double. */
static double *signed_rank_counts(size_t n, size_t *len)
{
	size_t max = n * (n + 1) / 2, k, w;
	double *c = calloc(max + 1, sizeof(*c));

	if (!c)
		return NULL;
	c[0] = 1.0;
	for (k = 1; k <= n; k++)
		for (w = k * (k + 1) / 2; w >= k; w--)
			c[w] += c[w - k];
	*len = max + 1;
	return c;
}

int stats_wilcoxon_signed_rank(const double *d, size_t n, double *w_plus, double *p_two_sided,
			       size_t *n_used)
{
	struct ranked *all;
	size_t m = 0, i;
	double wp, tie_term, mu, sigma2, p;
	int err = check_finite(d, n);

	if (err)
		return err;
	all = malloc(n * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (d[i] != 0.0)
			all[m++] = (struct ranked){ fabs(d[i]), d[i] > 0.0 };
	wp = mid_rank_sum(all, m, 1, &tie_term);
	free(all);
	*w_plus = wp;
	*n_used = m;
	if (m == 0) {
		*p_two_sided = 1.0;
		return 0;
	}
	mu = (double)m * ((double)m + 1.0) / 4.0;
	if (tie_term == 0.0 && m < 50) {
		size_t len, k, wi = (size_t)llround(wp);
		double *c = signed_rank_counts(m, &len), le = 0.0, ge = 0.0;

		if (!c)
			return -ENOMEM;
		for (k = 0; k < len; k++) {
			if (k <= wi)
				le += c[k];
			if (k >= wi)
				ge += c[k];
		}
		free(c);
		p = 2.0 * (le < ge ? le : ge) / ldexp(1.0, (int)m);
	} else {
		sigma2 = (double)m * ((double)m + 1.0) * (2.0 * (double)m + 1.0) / 24.0 -
			 tie_term / 48.0;
		if (sigma2 <= 0.0) {
			p = 1.0;
		} else {
			double dev = fabs(wp - mu) - 0.5;

			p = erfc((dev > 0.0 ? dev : 0.0) / sqrt(sigma2) / sqrt(2.0));
		}
	}
	*p_two_sided = p > 1.0 ? 1.0 : p;
	return 0;
}

/* Pool adjacent violators: blocks of (weighted mean, weight, length) on a
 * stack; a new value merges with the blocks before it while they are
 * above it. O(n). */
int stats_isotonic_fit(const double *y, const double *w, size_t n, double *fit)
{
	double *mean = NULL, *weight = NULL;
	size_t *len = NULL, top = 0, i, j, k;
	int err = check_finite(y, n);

	if (err)
		return err;
	if (w) {
		if ((err = check_finite(w, n)))
			return err;
		for (i = 0; i < n; i++)
			if (w[i] <= 0.0)
				return -EINVAL;
	}
	mean = malloc(n * sizeof(*mean));
	weight = malloc(n * sizeof(*weight));
	len = malloc(n * sizeof(*len));
	if (!mean || !weight || !len) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		mean[top] = y[i];
		weight[top] = w ? w[i] : 1.0;
		len[top] = 1;
		top++;
		while (top > 1 && mean[top - 2] > mean[top - 1]) {
			double wsum = weight[top - 2] + weight[top - 1];

			mean[top - 2] = (mean[top - 2] * weight[top - 2] +
					 mean[top - 1] * weight[top - 1]) / wsum;
			weight[top - 2] = wsum;
			len[top - 2] += len[top - 1];
			top--;
		}
	}
	for (j = 0, k = 0; j < top; j++)
		for (i = 0; i < len[j]; i++)
			fit[k++] = mean[j];
out:
	free(mean);
	free(weight);
	free(len);
	return err;
}

struct indexed_p {
	double p;
	size_t i;
};

static int cmp_indexed_p(const void *a, const void *b)
{
	const struct indexed_p *x = a, *y = b;

	if (x->p != y->p)
		return (x->p > y->p) - (x->p < y->p);
	return (x->i > y->i) - (x->i < y->i);
}

/* The continued fraction of the incomplete beta function (modified Lentz). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), h;
	int m;

	d = 1.0 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
		d = 1.0 + aa * d;
		c = 1.0 + aa / c;
		d = 1.0 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
		d = 1.0 + aa * d;
		c = 1.0 + aa / c;
		d = 1.0 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1.0) < eps)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b), 0 <= x <= 1. */
static double beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * beta_cf(a, b, x) / a;
	return 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

double stats_t_two_sided_p(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return 0.0;
	if (df > 1e7) /* the normal limit, where the beta's terms lose precision */
		return erfc(fabs(t) / sqrt(2.0));
	return beta_inc(df / 2.0, 0.5, df / (df + t * t));
}

double stats_t_quantile(double level, double df)
{
	double lo = 0.0, hi = 1.0, alpha = 1.0 - level;
	int i;

	if (!(df > 0) || !(level > 0.0 && level < 1.0))
		return NAN;
	while (stats_t_two_sided_p(hi, df) > alpha && hi < 1e300)
		hi *= 2.0;
	for (i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2.0;

		if (stats_t_two_sided_p(mid, df) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2.0;
}

int stats_holm_adjust(const double *p, size_t n, double *p_adj)
{
	struct indexed_p *s;
	double running = 0.0;
	size_t k;

	if (!p || n == 0)
		return -EINVAL;
	for (k = 0; k < n; k++)
		if (!(p[k] >= 0.0 && p[k] <= 1.0))
			return -EINVAL;
	s = malloc(n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (k = 0; k < n; k++)
		s[k] = (struct indexed_p){ p[k], k };
	qsort(s, n, sizeof(*s), cmp_indexed_p);
	for (k = 0; k < n; k++) {
		double v = (double)(n - k) * s[k].p;

		if (v > 1.0)
			v = 1.0;
		/* step-down: an adjusted p never falls below the one before it */
		if (v < running)
			v = running;
		running = v;
		p_adj[s[k].i] = v;
	}
	free(s);
	return 0;
}
