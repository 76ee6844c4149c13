// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where the gain saturates (src/analysis/plateau.h). min_order answers "the
 * smallest order with a material gain"; the seed's question is another:
 * which smallest order khugepaged should create, that is where the gain
 * below the PMD order stops growing. On a Zen 4 VM order 2 gains materially
 * and order 3 gains about twice as much, with orders 4-8 no better (issue
 * 38): min_order 2, plateau 3.
 */
#include "plateau.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mthpscope.h"
#include "stats.h"

static void nan_change(struct analyze_change *c)
{
	c->value = c->lo = c->hi = NAN;
}

/* The percentile interval of v[0..n) at the analysis' level; NaN with
 * fewer than half the replicates finite (as analyze.c's boot_interval). */
static void interval(const struct analysis *a, double *v, size_t n, unsigned iters,
		     struct analyze_change *c)
{
	double q = (1.0 - a->level) / 2.0;

	c->lo = c->hi = NAN;
	if (n < (size_t)iters / 2 + 1 || n < 2)
		return;
	if (stats_quantile(v, n, q, &c->lo) || stats_quantile(v, n, 1.0 - q, &c->hi))
		c->lo = c->hi = NAN;
}

/* The mean gain of the measured orders above k below PMD (x: one row of
 * gains, or the point gains); NaN when one is missing or there are none. */
static double above(const struct analysis *a, const double *x, int k)
{
	double sum = 0;
	int j, n = 0;

	for (j = k + 1; j < a->pmd_order && j < ANALYZE_NR_ORDERS; j++) {
		if (!a->orders[j].primary.n || !isfinite(a->orders[j].gain.value))
			continue;
		sum += x[j];
		n++;
	}
	return n ? sum / n : NAN;
}

/* ref - x[k] (ratio false) or x[k] / ref (where ref > 0), ref = x[b] (b >=
 * 0) or the mean of the orders above k (b < 0): c's value from the point
 * gains pt, its interval from every replicate row. */
struct joint_in {
	const struct analysis *a;
	const double *pt, *boot;
	unsigned iters;
	double *tmp;
};

static void joint(const struct joint_in *in, int k, int b, bool ratio, struct analyze_change *c)
{
	const struct analysis *a = in->a;
	double gr = b >= 0 ? in->pt[b] : above(a, in->pt, k);
	size_t n = 0;
	unsigned it;

	c->value = ratio ? (gr > 0 ? in->pt[k] / gr : NAN) : gr - in->pt[k];
	for (it = 0; it < in->iters; it++) {
		const double *row = &in->boot[(size_t)it * ANALYZE_NR_ORDERS];
		double r = b >= 0 ? row[b] : above(a, row, k);
		double v = ratio ? (r > 0 ? row[k] / r : NAN) : r - row[k];

		if (isfinite(v))
			in->tmp[n++] = v;
	}
	interval(a, in->tmp, n, in->iters, c);
}

static bool usable(const struct analysis *a, int k)
{
	return a->orders[k].primary.n && isfinite(a->orders[k].gain.value);
}

/* Why there is no plateau to claim, by the verdict. */
static void no_claim(struct analysis *a)
{
	struct analyze_plateau *p = &a->plateau;

	if (a->verdict == AN_PMD_ONLY)
		snprintf(p->reason, sizeof(p->reason), "only the PMD order gains materially: no "
			 "order below it to set (PMD-only)");
	else if (a->verdict == AN_NO_GAIN)
		snprintf(p->reason, sizeof(p->reason), "no order gains materially: there is no "
			 "gain to saturate");
	else
		snprintf(p->reason, sizeof(p->reason), "the verdict is inconclusive: no plateau is "
			 "claimed from gains the data cannot tell from noise");
}

/* How order k's gain stands to the orders above it, for the reason. */
static void short_of(struct analysis *a, int k, const struct analyze_change *d)
{
	struct analyze_plateau *p = &a->plateau;

	if (!isfinite(d->value))
		return;
	ms_appendf(p->reason, sizeof(p->reason), "%s the larger orders below PMD gain %.1f "
		   "points %s than order %d on average (%.3g %% CI %.1f to %.1f)",
		   p->reason[0] ? ";" : "", 100.0 * fabs(d->value), d->value >= 0 ? "more" : "less",
		   k, 100.0 * a->level, 100.0 * d->lo, 100.0 * d->hi);
}

/* The sentence of what to set, and the reason: which rule put the order
 * there, and how min_order falls short. */
static void words(struct analysis *a, const struct analyze_change *diff_min, int last)
{
	struct analyze_plateau *p = &a->plateau;

	p->reason[0] = '\0';
	if (p->order == last && p->order > a->min_order)
		snprintf(p->reason, sizeof(p->reason), "every order below order %d, the largest "
			 "measured below PMD, gains less than the ones above it", p->order);
	else if (p->order == last)
		snprintf(p->reason, sizeof(p->reason), "order %d is the only order below PMD "
			 "that gains", p->order);
	else if (p->by_share)
		snprintf(p->reason, sizeof(p->reason), "order %d reaches %.0f %% of the mean gain "
			 "of the larger orders below PMD (at least %.0f %% counts)", p->order,
			 100.0 * p->share.value, 100.0 * ANALYZE_PLATEAU_SHARE);
	else
		snprintf(p->reason, sizeof(p->reason), "order %d's gain is statistically "
			 "indistinguishable from that of the larger orders below PMD", p->order);
	if (p->order != last && !p->by_share)
		short_of(a, p->order, &p->diff);
	if (a->min_order < p->order)
		short_of(a, a->min_order, diff_min);
	if (a->min_order < p->order)
		snprintf(p->setting, sizeof(p->setting), "khugepaged's smallest collapse order: "
			 "%d on this CPU (order %d gets %.0f %% of what order %d gets)", p->order,
			 a->min_order, 100.0 * p->min_share.value, p->order);
	else if (p->order == last || p->share.value >= ANALYZE_PLATEAU_SHARE)
		snprintf(p->setting, sizeof(p->setting), "khugepaged's smallest collapse order: "
			 "%d on this CPU (the gain is flat from order %d on)", p->order, p->order);
	else
		snprintf(p->setting, sizeof(p->setting), "khugepaged's smallest collapse order: "
			 "%d on this CPU (its gain, %.0f %% of the larger orders', cannot be told "
			 "from theirs with these data)", p->order, 100.0 * p->share.value);
	if (a->min_order < p->order && a->advice[0])
		ms_appendf(a->advice, sizeof(a->advice), " The gain stops growing at order %d "
			   "(the plateau): the smallest collapse order that gets all of it.",
			   p->order);
}

/* The order below PMD, from min_order up, with the largest point gain. */
static int best_order(const struct analysis *a)
{
	int k, b = -1;

	for (k = a->min_order; k < a->pmd_order && k < ANALYZE_NR_ORDERS; k++)
		if (usable(a, k) && (b < 0 || a->orders[k].gain.value > a->orders[b].gain.value))
			b = k;
	return b;
}

/* The largest usable order below PMD, or -1. */
static int last_order(const struct analysis *a)
{
	int k;

	for (k = a->pmd_order - 1; k >= a->min_order && k >= 0; k--)
		if (k < ANALYZE_NR_ORDERS && usable(a, k))
			return k;
	return -1;
}

/* The smallest order from min_order up that the orders above it do not
 * beat: the difference's CI reaches 0, or it has ANALYZE_PLATEAU_SHARE of
 * their mean gain; the last order below PMD has none above it. */
static void find(struct analysis *a, const struct joint_in *in, int last,
		 struct analyze_change *diff_min)
{
	struct analyze_plateau *p = &a->plateau;
	struct analyze_change diff, share;
	int k;

	for (k = a->min_order; k <= last && p->order < 0; k++) {
		if (!usable(a, k))
			continue;
		if (k == last) {
			p->order = k;
			break;
		}
		joint(in, k, -1, false, &diff);
		joint(in, k, -1, true, &share);
		if (k == a->min_order)
			*diff_min = diff;
		if (diff.lo <= 0.0 || share.value >= ANALYZE_PLATEAU_SHARE) {
			p->order = k;
			p->by_share = !(diff.lo <= 0.0);
			p->diff = diff;
			p->share = share;
		}
	}
}

int analyze_plateau(struct analysis *a, const double *boot, unsigned iters)
{
	struct analyze_plateau *p = &a->plateau;
	struct analyze_change diff_min = { NAN, NAN, NAN };
	double pt[ANALYZE_NR_ORDERS];
	struct joint_in in = { .a = a, .pt = pt, .boot = boot, .iters = iters };
	int k, last;

	memset(p, 0, sizeof(*p));
	p->order = p->best = -1;
	p->rule = "none";
	nan_change(&p->gain);
	p->share = p->diff = p->min_share = p->gain;
	if (a->verdict != AN_MTHP || a->min_order < 0 || a->min_order >= a->pmd_order ||
	    (p->best = best_order(a)) < 0 || (last = last_order(a)) < 0) {
		no_claim(a);
		return 0;
	}
	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		pt[k] = a->orders[k].gain.value;
	if (!(in.tmp = malloc(((size_t)iters + 1) * sizeof(*in.tmp))))
		return -ENOMEM;
	find(a, &in, last, &diff_min);
	p->rule = p->order == last ? "largest" : p->by_share ? "share" : "indistinguishable";
	p->gain = a->orders[p->order].gain;
	joint(&in, a->min_order, p->order, true, &p->min_share);
	if (p->order == last) {
		/* nothing above it: its share of the best is what there is to say */
		joint(&in, p->order, p->best, true, &p->share);
		joint(&in, p->order, p->best, false, &p->diff);
	}
	free(in.tmp);
	words(a, &diff_min, last);
	return 0;
}
