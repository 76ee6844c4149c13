// SPDX-License-Identifier: GPL-2.0-or-later
/* The sequential rule of run --precision (precision.h). */
#include <errno.h>
#include <math.h>

#include "precision.h"

int precision_look_reps(int look)
{
	int n = PRECISION_MIN_REPS;

	while (--look > 0 && n < 1 << 28)
		n = (3 * n + 1) / 2;
	return n;
}

int precision_plan_looks(double elapsed_s, double rep_s, double max_time_s, long max_reps)
{
	double fit = rep_s > 0 ? floor((max_time_s - elapsed_s) / rep_s) : 0;
	long budget = PRECISION_MIN_REPS + (long)fmax(0, fmin(fit, 1e9));
	int k = 0;

	if (budget > max_reps)
		budget = max_reps;
	while (precision_look_reps(k + 1) <= budget && k < 64)
		k++;
	return k + 1;
}

double precision_level(int looks)
{
	return 1.0 - PRECISION_ALPHA / (looks > 1 ? looks : 1);
}

unsigned precision_iters(double level)
{
	double tail = (1.0 - level) / 2, n = ceil(PRECISION_TAIL_REPLICATES / tail);

	return n > ANALYZE_BOOT_ITERS ? (unsigned)fmin(n, 1e6) : ANALYZE_BOOT_ITERS;
}

/* the larger side; NaN when either end is (fmax would drop it) */
static double half_of(const struct analyze_change *g)
{
	if (!isfinite(g->value) || !isfinite(g->lo) || !isfinite(g->hi))
		return NAN;
	return fmax(g->hi - g->value, g->value - g->lo);
}

int precision_width(const struct analysis *a, bool all, double *half, int *order)
{
	int k, want = a->min_order >= 0 ? a->min_order : a->candidate_order;

	*half = NAN;
	*order = -1;
	if (!all && want > 0 && want < ANALYZE_NR_ORDERS) {
		*half = half_of(&a->orders[want].gain);
		*order = want;
		return isfinite(*half) ? 0 : -ENODATA;
	}
	for (k = 1; k < ANALYZE_NR_ORDERS; k++) {
		double h = half_of(&a->orders[k].gain);

		if (a->orders[k].primary.n && isfinite(h) && !(h <= *half)) {
			*half = h;
			*order = k;
		}
	}
	return *order < 0 ? -ENODATA : 0;
}
