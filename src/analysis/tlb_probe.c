// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe's inference (src/analysis/tlb_probe.h): which merge size and
 * which effective capacities explain the measured times best.
 */
#include "tlb_probe.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

const unsigned probe_hyp_pages[PROBE_NR_HYP] = { 1, 4, 8, 16 };
const double probe_scales[PROBE_NR_SCALES] = { 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0 };
#define SCALE_ONE 3 /* probe_scales[SCALE_ONE] == 1 */

static const char *const variant_names[PROBE_NR_VARIANTS] = {
	[PROBE_O0] = "order 0",         [PROBE_O2] = "order 2",
	[PROBE_O3] = "order 3",         [PROBE_O4] = "order 4",
	[PROBE_C0] = "order 0 contiguous", [PROBE_PMD] = "PMD",
};

const char *probe_variant_name(enum probe_variant v)
{
	return (unsigned)v < PROBE_NR_VARIANTS ? variant_names[v] : "?";
}

int probe_variant_order(enum probe_variant v, int pmd_order)
{
	static const int order[PROBE_NR_VARIANTS] = { 0, 2, 3, 4, -1, -1 };

	return (unsigned)v < PROBE_NR_VARIANTS && order[v] >= 0 ? order[v] : pmd_order;
}

/* The entries of the level that holds 4K translations (its base pool). */
static unsigned level_cap(const struct tlb_geometry *g, int lv)
{
	return g->level[lv].entries;
}

/* A span of n PMDs with P pages: 8-merged entries fit cap, 4-merged do not. */
static unsigned long long span_between(unsigned cap, unsigned long long pmd_pages,
				       unsigned long long pmd_size)
{
	unsigned long long n, best = 0, want = 6ULL * cap; /* P/6 = cap: in the middle */

	for (n = 1; n <= 4096; n++) {
		unsigned long long p = n * pmd_pages;

		if (p / 8 <= cap && p / 4 > cap &&
		    (!best || llabs((long long)p - (long long)want) <
				      llabs((long long)(best * pmd_pages) - (long long)want)))
			best = n;
	}
	return best * pmd_size;
}

static int add_span(unsigned long long *spans, int n, int max, unsigned long long s)
{
	int i, j;

	if (!s || n >= max)
		return n;
	for (i = 0; i < n; i++)
		if (spans[i] == s)
			return n;
	for (i = 0; i < n && spans[i] < s; i++)
		;
	for (j = n; j > i; j--)
		spans[j] = spans[j - 1];
	spans[i] = s;
	return n + 1;
}

int probe_spans(const struct tlb_geometry *g, unsigned long long pmd_size,
		unsigned long long *spans, int max)
{
	unsigned long long pmd_pages = pmd_size >> 12, fit;
	unsigned c1, c2;
	int n = 0;

	if (!g || g->nr_levels < 1 || !pmd_pages)
		return -EINVAL;
	c1 = level_cap(g, 0);
	c2 = level_cap(g, g->nr_levels - 1);
	if (!c1 || !c2)
		return -EINVAL;
	n = add_span(spans, n, max, span_between(c1, pmd_pages, pmd_size));
	n = add_span(spans, n, max, span_between(c2, pmd_pages, pmd_size));
	/* the control: 4-merged entries fit the last level (P/4 <= cap), at
	 * about half of it */
	fit = (2ULL * c2 / pmd_pages) * pmd_size;
	n = add_span(spans, n, max, fit ? fit : pmd_size);
	return n;
}

/* Geometry of hypothesis h with the first and last levels' capacities scaled. */
static void hyp_geometry(const struct tlb_geometry *base, int h, int s1, int s2,
			 struct tlb_geometry *g)
{
	unsigned pages = probe_hyp_pages[h], k;
	int last = base->nr_levels - 1, lv;

	*g = *base;
	g->vendor = NULL;
	g->hpa = false;
	g->merge_set = 0;
	g->merge = pages > 1 ? TLB_MERGE_COALESCE : TLB_MERGE_NONE;
	g->merge_pages = pages;
	for (k = 4; k <= pages; k *= 2)
		g->merge_set |= k;
	for (lv = 0; lv <= last; lv++) {
		double f = lv == 0 ? probe_scales[s1] : lv == last ? probe_scales[s2] : 1.0;
		struct tlb_level_geometry *l = &g->level[lv];

		l->entries = (unsigned)fmax(1.0, round(l->entries * f));
		if (!l->shared)
			l->entries_pmd = (unsigned)fmax(1.0, round(l->entries_pmd * f));
	}
}

int tlb_probe_miss(const struct tlb_geometry *base, int h, int s1, int s2,
		   const struct layout_hist *lh, double miss[2])
{
	struct tlb_geometry g;
	struct tlb_footprint fp;
	int err;

	if (h < 0 || h >= PROBE_NR_HYP || s1 < 0 || s1 >= PROBE_NR_SCALES || s2 < 0 ||
	    s2 >= PROBE_NR_SCALES)
		return -EINVAL;
	hyp_geometry(base, h, s1, s2, &g);
	if ((err = tlb_footprint(&g, lh, &fp)))
		return err;
	miss[0] = fp.level[0].miss_ratio;
	miss[1] = fp.level[fp.nr_levels - 1].miss_ratio;
	return isfinite(miss[0]) && isfinite(miss[1]) ? 0 : -EINVAL;
}

/* ---- the fit --------------------------------------------------------------- */

struct probe_work {
	const struct probe_input *in;
	/* miss ratios: [hyp][scale][span][variant], L1 and the last level */
	double m1[PROBE_NR_HYP][PROBE_NR_SCALES][PROBE_MAX_SPANS][PROBE_NR_VARIANTS];
	double m2[PROBE_NR_HYP][PROBE_NR_SCALES][PROBE_MAX_SPANS][PROBE_NR_VARIANTS];
	/* the first predictor: miss(L1) + miss(last), so that the fit's slopes
	 * are an L1 miss's cost b1 and a walk's extra cost c, both >= 0: a walk
	 * then costs b1 + c >= b1, at least a second-level hit (a walk reads
	 * page-table entries; a second-level hit is one lookup) */
	double x1[PROBE_NR_HYP][PROBE_NR_SCALES][PROBE_NR_SCALES][PROBE_MAX_SPANS]
		 [PROBE_NR_VARIANTS];
	int valid[PROBE_MAX_SPANS][PROBE_MAX_REPS], nr_valid[PROBE_MAX_SPANS];
};

/* The least squares residual of y ~ a + b1 x1 + b2 x2 over n points with
 * b1, b2 >= 0: the unconstrained fit where it is feasible, else the best
 * of the fits that drop a slope (a predictor constant over the points
 * cannot be told from the intercept and is dropped). */
static double sse_of(const double *y, const double *x1, const double *x2, int n, bool u1,
		     bool u2, double *b1, double *b2)
{
	double my = 0, m1 = 0, m2 = 0, s11 = 0, s22 = 0, s12 = 0, s1y = 0, s2y = 0, syy = 0;
	double det, sse;
	int i;

	for (i = 0; i < n; i++) {
		my += y[i] / n;
		m1 += x1[i] / n;
		m2 += x2[i] / n;
	}
	for (i = 0; i < n; i++) {
		double dy = y[i] - my, d1 = x1[i] - m1, d2 = x2[i] - m2;

		s11 += d1 * d1, s22 += d2 * d2, s12 += d1 * d2;
		s1y += d1 * dy, s2y += d2 * dy, syy += dy * dy;
	}
	u1 = u1 && s11 > 1e-12;
	u2 = u2 && s22 > 1e-12;
	*b1 = *b2 = 0;
	det = s11 * s22 - s12 * s12;
	if (u1 && u2 && det > 1e-12 * s11 * s22) {
		*b1 = (s22 * s1y - s12 * s2y) / det;
		*b2 = (s11 * s2y - s12 * s1y) / det;
	} else if (u1 && !u2) {
		*b1 = s1y / s11;
	} else if (u2 && !u1) {
		*b2 = s2y / s22;
	} else if (u1 && u2) {
		*b1 = s1y / s11; /* collinear: one slope carries both */
	}
	sse = syy - 2 * (*b1 * s1y + *b2 * s2y) + *b1 * *b1 * s11 + *b2 * *b2 * s22 +
	      2 * *b1 * *b2 * s12;
	return sse < 0 ? 0 : sse;
}

static double nnls_sse(const double *y, const double *x1, const double *x2, int n)
{
	double b1, b2, best, s;

	best = sse_of(y, x1, x2, n, true, true, &b1, &b2);
	if (b1 >= 0 && b2 >= 0)
		return best;
	best = sse_of(y, x1, x2, n, false, false, &b1, &b2);
	if ((s = sse_of(y, x1, x2, n, true, false, &b1, &b2)) < best && b1 >= 0)
		best = s;
	if ((s = sse_of(y, x1, x2, n, false, true, &b1, &b2)) < best && b2 >= 0)
		best = s;
	return best;
}

/* Means and the noise of a mean at one span, over reps idx[0..n). */
static void span_means(const struct probe_input *in, int sp, const int *idx, int n,
		       double *mean, double *var)
{
	double pooled = 0, grand = 0;
	int v, i;

	for (v = 0; v < PROBE_NR_VARIANTS; v++) {
		double m = 0, ss = 0;

		for (i = 0; i < n; i++)
			m += in->ns[sp][v][idx[i]] / n;
		for (i = 0; i < n; i++)
			ss += (in->ns[sp][v][idx[i]] - m) * (in->ns[sp][v][idx[i]] - m);
		mean[v] = m;
		grand += m / PROBE_NR_VARIANTS;
		pooled += ss / (n > 1 ? n - 1 : 1) / PROBE_NR_VARIANTS;
	}
	/* a floor: times are never known better than 0.2 % (clock, placement) */
	*var = fmax(pooled, (0.002 * grand) * (0.002 * grand)) / n;
}

struct probe_pick {
	int h, s1, s2;
	double misfit[PROBE_NR_HYP];
	int at[PROBE_NR_HYP][2];
};

/* Every hypothesis's best misfit over the scales, for the means given. */
static void evaluate(const struct probe_work *w, double mean[][PROBE_NR_VARIANTS],
		     const double *var, struct probe_pick *pk)
{
	int h, s1, s2, sp, nsp = w->in->nr_spans;

	pk->h = 0;
	for (h = 0; h < PROBE_NR_HYP; h++) {
		pk->misfit[h] = INFINITY;
		for (s1 = 0; s1 < PROBE_NR_SCALES; s1++)
			for (s2 = 0; s2 < PROBE_NR_SCALES; s2++) {
				double f = 0;

				for (sp = 0; sp < nsp; sp++)
					f += nnls_sse(mean[sp], w->x1[h][s1][s2][sp],
						      w->m2[h][s2][sp], PROBE_NR_VARIANTS) / var[sp];
				/* ties go to the table's capacity, then the smaller step */
				if (f < pk->misfit[h] - 1e-9 ||
				    (fabs(f - pk->misfit[h]) <= 1e-9 &&
				     abs(s1 - SCALE_ONE) + abs(s2 - SCALE_ONE) <
					     abs(pk->at[h][0] - SCALE_ONE) +
						     abs(pk->at[h][1] - SCALE_ONE))) {
					pk->misfit[h] = f;
					pk->at[h][0] = s1;
					pk->at[h][1] = s2;
				}
			}
		if (pk->misfit[h] < pk->misfit[pk->h] - 1e-9)
			pk->h = h;
	}
	pk->s1 = pk->at[pk->h][0];
	pk->s2 = pk->at[pk->h][1];
}

static int precompute(struct probe_work *w)
{
	const struct probe_input *in = w->in;
	double miss[2];
	int h, s, sp, v, err;

	for (h = 0; h < PROBE_NR_HYP; h++)
		for (s = 0; s < PROBE_NR_SCALES; s++)
			for (sp = 0; sp < in->nr_spans; sp++)
				for (v = 0; v < PROBE_NR_VARIANTS; v++) {
					err = tlb_probe_miss(in->base, h, s, s, &in->layout[sp][v],
							     miss);
					if (err)
						return err;
					w->m1[h][s][sp][v] = miss[0];
					w->m2[h][s][sp][v] = miss[1];
				}
	for (h = 0; h < PROBE_NR_HYP; h++)
		for (s = 0; s < PROBE_NR_SCALES; s++)
			for (int s2 = 0; s2 < PROBE_NR_SCALES; s2++)
				for (sp = 0; sp < in->nr_spans; sp++)
					for (v = 0; v < PROBE_NR_VARIANTS; v++)
						w->x1[h][s][s2][sp][v] = w->m1[h][s][sp][v] +
									 w->m2[h][s2][sp][v];
	for (sp = 0; sp < in->nr_spans; sp++) {
		w->nr_valid[sp] = 0;
		for (int r = 0; r < in->nr_reps; r++) {
			bool ok = true;

			for (v = 0; v < PROBE_NR_VARIANTS; v++)
				ok &= isfinite(in->ns[sp][v][r]) && in->ns[sp][v][r] > 0;
			if (ok)
				w->valid[sp][w->nr_valid[sp]++] = r;
		}
		if (w->nr_valid[sp] < 3)
			return -ERANGE;
	}
	return 0;
}

/* ---- the result -------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double quantile_sorted(const double *v, int n, double q)
{
	int i = (int)floor(q * (n - 1) + 0.5);

	return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

/* A variant whose blocks are not contiguous at the size it was meant to test. */
static void mark_scattered(const struct probe_input *in, struct probe_result *r)
{
	static const int test_k[PROBE_NR_VARIANTS] = { -1, 2, 3, 4, 4, -1 };
	int sp, v;

	for (sp = 0; sp < in->nr_spans; sp++)
		for (v = 0; v < PROBE_NR_VARIANTS; v++) {
			const struct layout_hist *h = &in->layout[sp][v];
			unsigned long long want = h->contig[0] >> (test_k[v] > 0 ? test_k[v] : 0);

			if (test_k[v] > 0 && h->contig[test_k[v]] * 10 < want * 9)
				r->scattered[v] = true;
		}
}

/* The PMD variant's saving at each span; flat when none is beyond noise. */
static bool translation_flat(const struct probe_work *w, double mean[][PROBE_NR_VARIANTS],
			     const double *var, struct probe_result *r)
{
	bool flat = true;
	int sp;

	for (sp = 0; sp < w->in->nr_spans; sp++) {
		double d = mean[sp][PROBE_O0] - mean[sp][PROBE_PMD];

		r->pmd_gain[sp] = d / mean[sp][PROBE_O0];
		flat &= d < 2.0 * sqrt(2.0 * var[sp]);
	}
	return flat;
}

/* The resamples: support per hypothesis, the merge size's and the
 * capacities' intervals. */
static int bootstrap(const struct probe_work *w, struct probe_result *r)
{
	const struct probe_input *in = w->in;
	unsigned boots = in->boots ? in->boots : 1000, b;
	double mean[PROBE_MAX_SPANS][PROBE_NR_VARIANTS], var[PROBE_MAX_SPANS];
	double *pages = calloc(boots, sizeof(double)), *cap[2];
	struct stats_rng rng;
	struct probe_pick pk;
	int idx[PROBE_MAX_REPS], sp, i, lv, last = in->base->nr_levels - 1;

	cap[0] = calloc(boots, sizeof(double));
	cap[1] = calloc(boots, sizeof(double));
	if (!pages || !cap[0] || !cap[1]) {
		free(pages), free(cap[0]), free(cap[1]);
		return -ENOMEM;
	}
	stats_rng_seed(&rng, in->seed ^ 0x70726f6265ULL);
	for (b = 0; b < boots; b++) {
		for (sp = 0; sp < in->nr_spans; sp++) {
			for (i = 0; i < w->nr_valid[sp]; i++)
				idx[i] = w->valid[sp][stats_rng_next(&rng) % (unsigned)w->nr_valid[sp]];
			span_means(in, sp, idx, w->nr_valid[sp], mean[sp], &var[sp]);
		}
		evaluate(w, mean, var, &pk);
		r->support[pk.h] += 1.0 / boots;
		pages[b] = probe_hyp_pages[pk.h];
		cap[0][b] = level_cap(in->base, 0) * probe_scales[pk.s1];
		cap[1][b] = level_cap(in->base, last) * probe_scales[pk.s2];
	}
	qsort(pages, boots, sizeof(double), cmp_double);
	r->merge_lo = (unsigned)quantile_sorted(pages, (int)boots, 0.025);
	r->merge_hi = (unsigned)quantile_sorted(pages, (int)boots, 0.975);
	for (lv = 0; lv < 2; lv++) {
		qsort(cap[lv], boots, sizeof(double), cmp_double);
		r->capacity_lo[lv] = quantile_sorted(cap[lv], (int)boots, 0.025);
		r->capacity_hi[lv] = quantile_sorted(cap[lv], (int)boots, 0.975);
	}
	free(pages), free(cap[0]), free(cap[1]);
	return 0;
}

static void decide(struct probe_result *r, bool flat)
{
	double gap = INFINITY;
	int h;

	for (h = 0; h < PROBE_NR_HYP; h++)
		if (h != r->best)
			gap = fmin(gap, r->misfit[h] - r->misfit[r->best]);
	if (flat)
		r->verdict = PROBE_FLAT;
	else if (r->support[r->best] >= PROBE_MIN_SUPPORT && gap >= PROBE_MIN_MISFIT_GAP)
		r->verdict = PROBE_TELLS;
	else
		r->verdict = PROBE_AMBIGUOUS;
}

int tlb_probe_infer(const struct probe_input *in, struct probe_result *out)
{
	double mean[PROBE_MAX_SPANS][PROBE_NR_VARIANTS], var[PROBE_MAX_SPANS];
	struct probe_work *w;
	struct probe_pick pk;
	int sp, err, last;

	memset(out, 0, sizeof(*out));
	if (!in->base || in->base->nr_levels < 1 || in->nr_spans < 1 ||
	    in->nr_spans > PROBE_MAX_SPANS || in->nr_reps < 1 || in->nr_reps > PROBE_MAX_REPS)
		return -EINVAL;
	if (!(w = calloc(1, sizeof(*w))))
		return -ENOMEM;
	w->in = in;
	last = in->base->nr_levels - 1;
	out->nr_levels = in->base->nr_levels > 1 ? 2 : 1;
	mark_scattered(in, out);
	if ((err = precompute(w))) {
		if (err == -ERANGE) {
			out->verdict = PROBE_TOO_FEW;
			err = 0;
		}
		goto out;
	}
	for (sp = 0; sp < in->nr_spans; sp++)
		span_means(in, sp, w->valid[sp], w->nr_valid[sp], mean[sp], &var[sp]);
	evaluate(w, mean, var, &pk);
	out->best = pk.h;
	memcpy(out->misfit, pk.misfit, sizeof(out->misfit));
	memcpy(out->scale_at, pk.at, sizeof(out->scale_at));
	out->capacity[0] = level_cap(in->base, 0) * probe_scales[pk.s1];
	out->capacity[1] = level_cap(in->base, last) * probe_scales[pk.s2];
	if ((err = bootstrap(w, out)))
		goto out;
	decide(out, translation_flat(w, mean, var, out));
out:
	free(w);
	return err;
}

void tlb_probe_geometry(const struct probe_input *in, const struct probe_result *r,
			const char *name, const char *desc, const char *cite,
			struct tlb_geometry *g)
{
	int lv;

	hyp_geometry(in->base, r->best, r->scale_at[r->best][0], r->scale_at[r->best][1], g);
	g->name = name;
	g->desc = desc;
	g->merge_cite = cite;
	g->notes = NULL;
	memset(g->match, 0, sizeof(g->match));
	if (g->merge == TLB_MERGE_COALESCE && g->merge_set == g->merge_pages)
		g->merge_set = 0; /* one size: merge_pages says it */
	for (lv = 0; lv < g->nr_levels; lv++) {
		g->level[lv].source = TLB_SRC_USER;
		g->level[lv].cite = cite;
	}
}
