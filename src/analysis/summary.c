// SPDX-License-Identifier: GPL-2.0-or-later
/* The end-of-run summary's numbers (summary.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "stats.h"
#include "summary.h"

int summary_collect(const struct results *r, const char *pattern, bool sparse, uint64_t span,
		    int order, const char *metric, double *v)
{
	size_t j;
	int n = 0;

	for (j = 0; j < r->nr_trials; j++) {
		const struct results_trial *t = &r->trials[j];
		const struct results_metric *m;

		if (!t->pattern[0] || t->sparse != sparse || t->order != order ||
		    t->span != span || (t->flags & RESULTS_F_FAILED) ||
		    (!sparse && strcmp(t->pattern, pattern)))
			continue;
		if (!strcmp(metric, "coverage")) {
			if (t->has_folios)
				v[n++] = t->coverage;
			continue;
		}
		m = results_trial_metric(t, metric);
		if (m)
			v[n++] = m->value;
	}
	return n;
}

double summary_median(const double *v, int n)
{
	double m;

	return n > 0 && !stats_median(v, (size_t)n, &m) ? m : NAN;
}

double summary_min(const double *v, int n)
{
	double m = NAN;

	while (n-- > 0)
		m = isnan(m) || v[n] < m ? v[n] : m;
	return m;
}

void summary_median_ci(const double *v, int n, uint64_t seed, struct summary_ci *ci)
{
	ci->median = summary_median(v, n);
	ci->lo = ci->hi = ci->half = NAN;
	if (n > 1 && !stats_bootstrap_median_ci(v, (size_t)n, SUMMARY_CI_LEVEL, SUMMARY_CI_ITERS,
						seed, &ci->lo, &ci->hi))
		ci->half = fmax(ci->hi - ci->median, ci->median - ci->lo);
}

void summary_count_failed(const struct results *r, int order, int *ran, int *failed)
{
	*ran = *failed = 0;
	for (size_t j = 0; j < r->nr_trials; j++) {
		const struct results_trial *t = &r->trials[j];

		if (!t->pattern[0] || t->order != order)
			continue;
		(*ran)++;
		*failed += !!(t->flags & RESULTS_F_FAILED);
	}
}

int summary_all_failed_order(const struct results *r)
{
	const struct results_config *c = &r->head.config;

	for (int i = 0; i < (int)c->orders.nr; i++) {
		int ran, failed;

		summary_count_failed(r, c->orders.order[i], &ran, &failed);
		if (ran && failed == ran)
			return c->orders.order[i];
	}
	return -1;
}

int summary_paired_precision(const struct results *r, struct summary_paired *p)
{
	struct analysis *a = NULL;
	char err[256];
	int k, rc = -ENODATA;

	memset(p, 0, sizeof(*p));
	p->widest = -1;
	p->order = -1;
	if (analyze_run(r, NULL, &a, err, sizeof(err)) || a->method != AN_PAIRED)
		goto out;
	for (k = 1; k < ANALYZE_NR_ORDERS; k++) {
		const struct analyze_change *g = &a->orders[k].gain;
		double half = fmax(g->hi - g->value, g->value - g->lo);

		if (a->orders[k].n_pairs && isfinite(half) && half > p->widest) {
			p->widest = half;
			p->order = k;
		}
	}
	if (p->order < 0)
		goto out;
	snprintf(p->pattern, sizeof(p->pattern), "%s", a->pattern);
	snprintf(p->placements, sizeof(p->placements), "%s", a->placement_note);
	p->span = a->span;
	rc = 0;
out:
	analyze_free(a);
	return rc;
}
