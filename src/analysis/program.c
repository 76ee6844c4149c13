// SPDX-License-Identifier: GPL-2.0-or-later
/* A program measured whole: the coverage rule and the per-metric table (program.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mthpscope.h"
#include "program.h"
#include "stats.h"

static bool is_command(const struct results_trial *t)
{
	return t->workload == RESULTS_WL_COMMAND;
}

/* The median coverage of the other verified, finished trials of i's order. */
static bool others_median(const struct results *r, size_t i, double *med, size_t *n)
{
	const struct results_trial *t = &r->trials[i];
	double *x = malloc(r->nr_trials * sizeof(*x));
	bool ok;

	*n = 0;
	if (!x)
		return false;
	for (size_t j = 0; j < r->nr_trials; j++) {
		const struct results_trial *u = &r->trials[j];

		if (j != i && is_command(u) && u->order == t->order && u->has_folios &&
		    !(u->flags & (RESULTS_F_FAILED | RESULTS_F_TIMEOUT)))
			x[(*n)++] = u->coverage;
	}
	ok = *n && !stats_median(x, *n, med);
	free(x);
	return ok;
}

bool program_alloc_in_effect(const struct results_trial *t, unsigned long long page_size)
{
	const struct results_metric *a = results_trial_metric(t, "anon_fault_alloc");
	const struct results_metric *rss = results_trial_metric(t, "max_rss_bytes");

	return a && rss && rss->value > 0 &&
	       a->value * (double)(page_size << t->order) >= PROGRAM_ALLOC_IN_EFFECT * rss->value;
}

bool program_trial_out(const struct results *r, size_t i, char *why, size_t size)
{
	const struct results_trial *t = &r->trials[i];
	double med;
	size_t n;

	if (!is_command(t) || !t->has_folios || !t->order ||
	    program_alloc_in_effect(t, r->page_size))
		return false;
	if (t->coverage < PROGRAM_COVERAGE_NEAR_ZERO) {
		snprintf(why, size, "folio coverage %.1f %% < %.0f %%: order %d was not in effect",
			 100.0 * t->coverage, 100.0 * PROGRAM_COVERAGE_NEAR_ZERO, t->order);
		return true;
	}
	if (others_median(r, i, &med, &n) && t->coverage < PROGRAM_COVERAGE_FAR_BELOW * med) {
		snprintf(why, size, "folio coverage %.1f %%, under half the %.1f %% of the "
			 "other %zu trial%s of order %d", 100.0 * t->coverage, 100.0 * med, n,
			 n == 1 ? "" : "s", t->order);
		return true;
	}
	return false;
}

/* ---- the table ------------------------------------------------------------ */

struct column {
	const char *name, *alt, *label, *unit;
	double scale;
	int better;
};

/* The cover letters' columns: real / user / sys, faults, peak memory. */
static const struct column columns[] = {
	{ "wall_ns", NULL, "real", "s", 1e-9, -1 },
	{ "user_ns", NULL, "user", "s", 1e-9, -1 },
	{ "sys_ns", NULL, "sys", "s", 1e-9, -1 },
	{ "page_faults", "minor_faults", "faults", "", 1.0, 0 },
	{ "max_rss_bytes", NULL, "peak memory", "MiB", 1.0 / 1048576.0, 0 },
};

static bool included(const struct analysis *a, size_t i)
{
	for (size_t k = 0; k < a->nr_excluded; k++)
		if (a->excluded[k].trial == i)
			return false;
	return is_command(&a->res->trials[i]);
}

/* The included trials' values of 'name' at one order into x: their count. */
static size_t values(const struct analysis *a, const char *name, int order, double *x)
{
	const struct results *r = a->res;
	size_t n = 0;

	for (size_t i = 0; i < r->nr_trials; i++) {
		const struct results_metric *m;

		if (r->trials[i].order != order || !included(a, i))
			continue;
		if ((m = results_trial_metric(&r->trials[i], name)) && isfinite(m->value))
			x[n++] = m->value;
	}
	return n;
}

static bool has_metric(const struct analysis *a, const char *name)
{
	for (size_t i = 0; i < a->res->nr_trials; i++)
		if (included(a, i) && results_trial_metric(&a->res->trials[i], name))
			return true;
	return false;
}

static uint64_t seed_of(const char *name, int order)
{
	uint64_t h = 1469598103934665603ULL;

	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return (h ^ (uint64_t)order) * 1099511628211ULL;
}

/* One order of one column, against order 0's values b (nb of them). */
static void column_order(const struct analysis *a, struct program_metric *m, int k,
			 const double *b, size_t nb, double *x)
{
	size_t n = values(a, m->name, k, x);
	struct analyze_stat *s = &m->by_order[k];
	struct analyze_change *c = &m->change[k];
	double mb, mk, u, lo, hi;

	s->n = n;
	s->median = s->lo = s->hi = NAN;
	c->value = c->lo = c->hi = NAN;
	m->p[k] = NAN;
	if (!n || stats_median(x, n, &s->median))
		return;
	s->lo = s->hi = s->median;
	if (n > 1 && stats_bootstrap_median_ci(x, n, a->level, ANALYZE_BOOT_ITERS,
					       seed_of(m->name, k), &s->lo, &s->hi))
		s->lo = s->hi = NAN;
	if (!nb || stats_median(b, nb, &mb) || mb == 0.0)
		return;
	mk = s->median;
	c->value = k ? mk / mb - 1.0 : 0.0;
	if (!k)
		return;
	if (n > 1 && nb > 1 &&
	    !stats_bootstrap_rel_change_ci(b, nb, x, n, a->level, ANALYZE_BOOT_ITERS,
					   seed_of(m->name, k) ^ 0x9e37U, &lo, &hi)) {
		c->lo = lo;
		c->hi = hi;
	}
	if (stats_mann_whitney(x, n, b, nb, &u, &m->p[k]))
		m->p[k] = NAN;
}

static int column_fill(const struct analysis *a, const struct program_table *pt,
		       struct program_metric *m)
{
	size_t cap = a->res->nr_trials ? a->res->nr_trials : 1;
	double *b = malloc(cap * sizeof(*b)), *x = malloc(cap * sizeof(*x));
	size_t nb;
	int err = -ENOMEM;

	if (!b || !x)
		goto out;
	nb = values(a, m->name, 0, b);
	for (int i = 0; i < pt->nr_orders; i++)
		column_order(a, m, pt->orders[i], b, nb, x);
	err = 0;
out:
	free(b);
	free(x);
	return err;
}

static void add_column(struct program_table *pt, const char *name, const char *label,
		       const char *unit, double scale, int better)
{
	struct program_metric *m;

	if (pt->nr_metrics >= PROGRAM_MAX_METRICS)
		return;
	m = &pt->m[pt->nr_metrics++];
	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->label, sizeof(m->label), "%s", label);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->scale = scale;
	m->better = better;
}

/* The columns the trials have: the five of the series, then each --metric
 * (source "workload") in the order the first trial lists them. An emulated
 * CPU's times (the columns in seconds) are the emulator's: left out. */
static void choose_columns(const struct analysis *a, struct program_table *pt)
{
	const struct results *r = a->res;

	pt->timing_left_out = r->emulated;
	for (size_t i = 0; i < MS_ARRAY_SIZE(columns); i++) {
		const struct column *c = &columns[i];
		const char *name = has_metric(a, c->name) ? c->name :
				   c->alt && has_metric(a, c->alt) ? c->alt : NULL;

		if (r->emulated && !strcmp(c->unit, "s"))
			continue;
		if (name)
			add_column(pt, name, c->label, c->unit, c->scale, c->better);
	}
	for (size_t i = 0; i < r->nr_trials; i++) {
		if (!included(a, i))
			continue;
		for (size_t k = 0; k < r->trials[i].nr_metrics; k++) {
			const struct results_metric *m = &r->trials[i].metrics[k];

			if (!strcmp(m->source, "workload"))
				add_column(pt, m->name, m->name, "", 1.0,
					   m->higher_better ? 1 : -1);
		}
		break;
	}
}

/* Per order: the trials, the median lifetime coverage and share of the
 * tree's processes the scans saw. */
static int order_facts(const struct analysis *a, struct program_table *pt, int k)
{
	const struct results *r = a->res;
	double *cov = malloc((r->nr_trials + 1) * sizeof(*cov));
	double *seen = malloc((r->nr_trials + 1) * sizeof(*seen));
	size_t nc = 0, ns = 0;
	int err = cov && seen ? 0 : -ENOMEM;

	pt->coverage[k] = pt->seen[k] = NAN;
	pt->n[k] = 0;
	for (size_t i = 0; !err && i < r->nr_trials; i++) {
		const struct results_trial *t = &r->trials[i];

		if (t->order != k || !included(a, i))
			continue;
		pt->n[k]++;
		if (t->has_folios)
			cov[nc++] = t->coverage;
		if (t->processes)
			seen[ns++] = (double)t->processes_scanned / (double)t->processes;
	}
	if (!err && nc)
		stats_median(cov, nc, &pt->coverage[k]);
	if (!err && ns)
		stats_median(seen, ns, &pt->seen[k]);
	free(cov);
	free(seen);
	return err;
}

static void find_largest(const struct analysis *a, struct program_table *pt)
{
	double best = 0;

	pt->largest_metric = pt->largest_order = -1;
	for (int j = 0; j < pt->nr_metrics; j++)
		for (int i = 1; i < pt->nr_orders; i++) {
			const struct analyze_change *c = &pt->m[j].change[pt->orders[i]];
			double mag = c->value * pt->m[j].better;

			if (!isfinite(c->lo) || !isfinite(c->hi) || (c->lo <= 0 && c->hi >= 0))
				continue;
			if (mag >= a->threshold && mag > best) {
				best = mag;
				pt->largest_metric = j;
				pt->largest_order = pt->orders[i];
			}
		}
}

int program_table_build(const struct analysis *a, struct program_table *pt)
{
	int k, err = 0;

	memset(pt, 0, sizeof(*pt));
	pt->largest_metric = pt->largest_order = -1;
	for (k = 0; k < ANALYZE_NR_ORDERS && !err; k++) {
		if ((err = order_facts(a, pt, k)))
			break;
		if (pt->n[k])
			pt->orders[pt->nr_orders++] = k;
	}
	if (err || pt->nr_orders < 2 || pt->orders[0] != 0)
		return err;
	choose_columns(a, pt);
	for (k = 0; k < pt->nr_metrics && !err; k++)
		err = column_fill(a, pt, &pt->m[k]);
	if (err)
		return err;
	find_largest(a, pt);
	pt->available = pt->nr_metrics > 0;
	return 0;
}

/* ---- two tables: the difference ------------------------------------------ */

static bool has_order(const struct program_table *pt, int k)
{
	for (int i = 0; i < pt->nr_orders; i++)
		if (pt->orders[i] == k)
			return true;
	return false;
}

/* A change's CI as a normal interval's standard error; NaN without one. */
static double change_se(const struct analyze_change *c, double z)
{
	return isfinite(c->lo) && isfinite(c->hi) ? (c->hi - c->lo) / (2.0 * z) : NAN;
}

static void diff_cell(const struct analyze_change *ca, const struct analyze_change *cb, double z,
		      struct analyze_change *d)
{
	double sa = change_se(ca, z), sb = change_se(cb, z), se;

	d->value = cb->value - ca->value;
	d->lo = d->hi = NAN;
	if (!isfinite(d->value) || !isfinite(sa) || !isfinite(sb))
		return;
	se = sqrt(sa * sa + sb * sb);
	d->lo = d->value - z * se;
	d->hi = d->value + z * se;
}

int program_diff_build(const struct program_table *a, const struct program_table *b,
		       double level, struct program_diff *d)
{
	/* Student's t with a huge df: the normal quantile (1.96 at 0.95) */
	double z = stats_t_quantile(level, 1e9);

	memset(d, 0, sizeof(*d));
	for (int i = 1; i < a->nr_orders; i++)
		if (has_order(b, a->orders[i]))
			d->orders[d->nr_orders++] = a->orders[i];
	for (int j = 0; j < a->nr_metrics; j++)
		for (int k = 0; k < b->nr_metrics; k++)
			if (!strcmp(a->m[j].name, b->m[k].name)) {
				d->metric_a[d->nr_metrics] = j;
				d->metric_b[d->nr_metrics++] = k;
				break;
			}
	for (int j = 0; j < d->nr_metrics; j++)
		for (int i = 0; i < d->nr_orders; i++) {
			int o = d->orders[i];

			diff_cell(&a->m[d->metric_a[j]].change[o], &b->m[d->metric_b[j]].change[o],
				  z, &d->diff[j][o]);
		}
	return 0;
}
