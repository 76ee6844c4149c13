// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * compare_build: the report of two or more inputs. Per pair (input 0 and
 * each other one): the host and settings checks and their warnings, the
 * absolute rows (medians, their change with a CI, Mann-Whitney, Holm), then
 * the drift-proof gain rows of compare_gain.c; and which rows gate a
 * regression.
 */
#include "compare.h"
#include "analyze.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folio_types.h"
#include "metrics.h"
#include "mthpscope.h"
#include "results.h"
#include "stats.h"

static bool str_differs(const char *a, const char *b)
{
	return a && b && strcmp(a, b);
}

static const char *tri(int v, const char *yes, const char *no)
{
	return v > 0 ? yes : v == 0 ? no : "unknown";
}

static int check_host(struct compare_report *r, const struct compare_input *a,
		      const struct compare_input *b)
{
	int err = 0;

	if (str_differs(a->arch, b->arch)) {
		r->comparable = false;
		err = compare_add_warning(r, "architecture differs: %s is %s, %s is %s", a->label, a->arch,
				  b->label, b->arch);
	}
	if (!err && str_differs(a->cpu_model, b->cpu_model)) {
		r->comparable = false;
		err = compare_add_warning(r, "CPU model differs: %s ran on '%s', %s on '%s'", a->label,
				  a->cpu_model, b->label, b->cpu_model);
	}
	if (!err && a->virtualized >= 0 && b->virtualized >= 0 &&
	    a->virtualized != b->virtualized) {
		r->comparable = false;
		err = compare_add_warning(r, "virtualization differs: %s ran %s, %s %s: TLB misses cost "
				  "more under nested paging", a->label,
				  tri(a->virtualized, "in a VM", "on bare metal"), b->label,
				  tri(b->virtualized, "in a VM", "on bare metal"));
	}
	/* not a comparability issue (both sides may be emulated alike), but
	 * every time-based row then measures the emulator */
	if (!err && (a->emulated > 0 || b->emulated > 0))
		err = compare_add_warning(r, "emulated CPU (QEMU TCG) in %s: time and cycle rows measure "
				  "the emulator, not hardware; faults, folio coverage and RSS are "
				  "the kernel's own", a->emulated > 0 && b->emulated > 0 ? "both" :
				  a->emulated > 0 ? a->label : b->label);
	/* not a comparability issue either: the gains are comparable, their CIs
	 * only too narrow for a between-run question */
	for (const struct compare_input *x = a; !err && x; x = x == a ? b : NULL)
		if (x->interleaved && !x->placement_per_rep)
			err = compare_add_warning(r, "%s predates per-rep placement: each order kept its "
					  "physical memory for the whole run, so its gains carry a "
					  "run-level placement effect that no CI shows (doc/run.md, "
					  "\"Schedule\")", x->label);
	for (const struct compare_input *x = a; !err && x; x = x == a ? b : NULL)
		if (x->interrupted)
			err = compare_add_warning(r, "%s was interrupted (SIGINT or SIGTERM) "
						  "before the end of its plan: what it measured "
						  "is compared, a row it lacks is not", x->label);
	if (!err && a->pmu_available >= 0 && b->pmu_available >= 0 &&
	    a->pmu_available != b->pmu_available) {
		r->comparable = false;
		err = compare_add_warning(r, "PMU differs: %s had %s, %s had %s", a->label,
				  tri(a->pmu_available, "a hardware PMU", "no hardware PMU"),
				  b->label, tri(b->pmu_available, "a hardware PMU", "no hardware PMU"));
	}
	return err;
}

/* argv as one line, cut to size */
static void argv_line(char *const *argv, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; argv[i] && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? " " : "", argv[i]);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Two programs' files compared as one program under two kernels or
 * settings: said, not refused (the arguments may differ on purpose). The
 * program by its name: one script from two checkouts (a guest's /tmp and
 * the host's tree) is one program. */
static int check_command(struct compare_report *r, const struct compare_input *a,
			 const struct compare_input *b)
{
	char ca[160], cb[160];
	size_t i;

	if (!a->argv || !b->argv || !a->argv[0] || !b->argv[0])
		return 0;
	for (i = 1; a->argv[i] && b->argv[i] && !strcmp(a->argv[i], b->argv[i]); i++)
		;
	if (!a->argv[i] && !b->argv[i] && !strcmp(base_name(a->argv[0]), base_name(b->argv[0])))
		return 0;
	argv_line(a->argv, ca, sizeof(ca));
	argv_line(b->argv, cb, sizeof(cb));
	return compare_add_warning(r, "the command differs: %s ran '%s', %s ran '%s': the rows "
				   "set two programs side by side", a->label, ca, b->label, cb);
}

static const struct compare_setting *find_setting(const struct compare_input *in,
						  const char *name)
{
	size_t i;

	for (i = 0; i < in->nr_settings; i++)
		if (!strcmp(in->settings[i].name, name))
			return &in->settings[i];
	return NULL;
}

/* Settings differences are what a settings A/B varies: each one is a
 * warning (so nobody misses one), not a reason to call the runs
 * incomparable. */
static int check_settings(struct compare_report *r, const struct compare_input *a,
			  const struct compare_input *b)
{
	size_t i;
	int err = 0;

	for (i = 0; i < a->nr_settings && !err; i++) {
		const struct compare_setting *sa = &a->settings[i];
		const struct compare_setting *sb = find_setting(b, sa->name);

		if (sb && strcmp(sa->value, sb->value))
			err = compare_add_warning(r, "THP setting %s differs: %s in %s, %s in %s", sa->name,
					  sa->value, a->label, sb->value, b->label);
	}
	return err;
}

/* ---- orders (struct folio_orders) and small sets of spans --------------- */

/* "5, 6, 7": the orders of mask, ascending; "" when none. */
static void orders_list(unsigned long mask, char *buf, size_t size)
{
	struct folio_orders o;
	size_t i, len = 0;

	buf[0] = '\0';
	folio_orders_from_mask(&o, mask);
	for (i = 0; i < o.nr && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%d", i ? ", " : "", o.order[i]);
}

struct llset {
	long long v[64];
	size_t n;
};

static void llset_add(struct llset *s, long long v)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i] == v)
			return;
	if (s->n < MS_ARRAY_SIZE(s->v))
		s->v[s->n++] = v;
}

static bool llset_has(const struct llset *s, long long v)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i] == v)
			return true;
	return false;
}

static int cmp_ll(const void *x, const void *y)
{
	long long a = *(const long long *)x, b = *(const long long *)y;

	return (a > b) - (a < b);
}

/* "2M, 4M" from the spans of s missing from t; "" when none. */
static void llset_missing(const struct llset *s, const struct llset *t, char *buf, size_t size)
{
	struct llset m = { .n = 0 };
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < s->n; i++)
		if (!llset_has(t, s->v[i]))
			m.v[m.n++] = s->v[i];
	qsort(m.v, m.n, sizeof(m.v[0]), cmp_ll);
	for (i = 0; i < m.n && len < size; i++) {
		char num[32];

		ms_format_size((unsigned long long)m.v[i], num, sizeof(num));
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", num);
	}
}

/* The orders of in's series as a mask (bit i: order i), and its spans. */
static unsigned long input_sets(const struct compare_input *in, struct llset *spans)
{
	struct folio_orders orders = { .nr = 0 };
	size_t i;

	spans->n = 0;
	for (i = 0; i < in->nr_series; i++) {
		folio_orders_add(&orders, in->series[i].order);
		llset_add(spans, (long long)in->series[i].span);
	}
	return folio_orders_mask(&orders);
}

/* The names a series is looked up by when one side ran something the other
 * did not. */
enum series_name { SERIES_PATTERN, SERIES_METRIC };

static const char *series_name(const struct compare_series *s, enum series_name field)
{
	return field == SERIES_PATTERN ? s->pattern : s->metric;
}

/* Whether one of s[0..n) has name as its pattern or its metric. */
static bool series_have(const struct compare_series *s, size_t n, enum series_name field,
			const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(series_name(&s[i], field), name))
			return true;
	return false;
}

static const struct compare_series *find_series(const struct compare_input *in,
						const struct compare_series *key)
{
	size_t i;

	for (i = 0; i < in->nr_series; i++) {
		const struct compare_series *s = &in->series[i];
		if (s->order == key->order && s->span == key->span &&
		    !strcmp(s->metric, key->metric) && !strcmp(s->pattern, key->pattern))
			return s;
	}
	return NULL;
}

static bool metric_selected(const struct compare_opts *o, const char *metric)
{
	size_t i;

	if (!o->nr_metrics)
		return true;
	for (i = 0; i < o->nr_metrics; i++)
		if (!strcmp(o->metrics[i], metric))
			return true;
	return false;
}

/* A pattern or a metric that one side ran and the other did not, said once
 * per name: a pattern makes the sides incomparable; a metric (no PMU on one
 * host, a newer tool on the other) is only left out, and said only when the
 * options (o) select it. */
static int check_one_sided(struct compare_report *r, const struct compare_opts *o,
			   const struct compare_input *a, const struct compare_input *b,
			   enum series_name field)
{
	const struct compare_input *sides[2][2] = { { a, b }, { b, a } };
	size_t s, i;
	int err = 0;

	for (s = 0; s < 2 && !err; s++) {
		const struct compare_input *x = sides[s][0], *y = sides[s][1];

		for (i = 0; i < x->nr_series && !err; i++) {
			const char *name = series_name(&x->series[i], field);

			/* skip a name an earlier series had */
			if (series_have(x->series, i, field, name) ||
			    series_have(y->series, y->nr_series, field, name))
				continue;
			if (field == SERIES_PATTERN) {
				r->comparable = false;
				err = compare_add_warning(
					r, "access pattern %s is in %s only: not compared", name,
					x->label);
			} else if (metric_selected(o, name)) {
				err = compare_add_warning(
					r, "metric %s is in %s but not in %s: not compared", name,
					x->label, y->label);
			}
		}
	}
	return err;
}

/* The event a series' first trial counted its metric with; NULL when the
 * series has no trials (built by hand) or the metric no event. */
static const char *series_event(const struct compare_series *s)
{
	const struct results_metric *m = s->n && s->trials ? results_trial_metric(s->trials[0],
										   s->metric)
						       : NULL;

	return m && m->event[0] ? m->event : NULL;
}

/* Whether a's series s and b's of the same key both name an event, and
 * differ in it. */
static bool events_differ(const struct compare_series *s, const struct compare_input *b)
{
	const struct compare_series *t = find_series(b, s);

	return t && series_event(s) && series_event(t) && strcmp(series_event(s), series_event(t));
}

/* A metric both sides have but counted with different events (a store
 * pattern's walks from DTLB_LOAD_MISSES before it had its own set, from
 * DTLB_STORE_MISSES after): its rows would compare two different counts.
 * Said once per pattern and metric the options (o) select; the sides are
 * then not comparable. */
static int check_events(struct compare_report *r, const struct compare_opts *o,
			const struct compare_input *a, const struct compare_input *b)
{
	size_t i, j;
	int err = 0;

	for (i = 0; i < a->nr_series && !err; i++) {
		const struct compare_series *sa = &a->series[i];
		bool said = false;

		if (!metric_selected(o, sa->metric) || !events_differ(sa, b))
			continue;
		for (j = 0; j < i && !said; j++)
			said = !strcmp(a->series[j].pattern, sa->pattern) &&
			       !strcmp(a->series[j].metric, sa->metric) && events_differ(&a->series[j], b);
		if (said)
			continue;
		r->comparable = false;
		err = compare_add_warning(r, "%s of pattern %s counts different events: %s in %s, "
					  "%s in %s: not the same count", sa->metric, sa->pattern,
					  series_event(sa), a->label, series_event(find_series(b, sa)),
					  b->label);
	}
	return err;
}

/* Patterns, orders and spans run by one side only. */
static int check_overlap(struct compare_report *r, const struct compare_input *a,
			 const struct compare_input *b)
{
	struct llset sa, sb;
	unsigned long oa, ob;
	char buf[256];
	int err;

	err = check_one_sided(r, NULL, a, b, SERIES_PATTERN);
	if (err)
		return err;

	oa = input_sets(a, &sa);
	ob = input_sets(b, &sb);
	orders_list(oa & ~ob, buf, sizeof(buf));
	if (buf[0]) {
		r->comparable = false;
		err = compare_add_warning(r, "orders %s are in %s only: not compared", buf, a->label);
	}
	orders_list(ob & ~oa, buf, sizeof(buf));
	if (!err && buf[0]) {
		r->comparable = false;
		err = compare_add_warning(r, "orders %s are in %s only: not compared", buf, b->label);
	}
	llset_missing(&sa, &sb, buf, sizeof(buf));
	if (!err && buf[0]) {
		r->comparable = false;
		err = compare_add_warning(r, "spans %s are in %s only: not compared", buf, a->label);
	}
	llset_missing(&sb, &sa, buf, sizeof(buf));
	if (!err && buf[0]) {
		r->comparable = false;
		err = compare_add_warning(r, "spans %s are in %s only: not compared", buf, b->label);
	}
	return err;
}

/* ---- rows and statistics ---------------------------------------------- */

static int add_row(struct compare_row **rows, size_t *n, size_t *cap,
		   const struct compare_row *row)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct compare_row *p = realloc(*rows, c * sizeof(*p));
		if (!p)
			return -ENOMEM;
		*rows = p;
		*cap = c;
	}
	(*rows)[(*n)++] = *row;
	return 0;
}

static int cmp_row(const void *x, const void *y)
{
	const struct compare_row *a = x, *b = y;
	int c;

	if (a->other != b->other)
		return a->other - b->other;
	c = strcmp(a->pattern, b->pattern);
	if (!c)
		c = metrics_rank(a->metric) - metrics_rank(b->metric);
	if (!c)
		c = strcmp(a->metric, b->metric);
	if (c)
		return c;
	if (a->span != b->span)
		return a->span < b->span ? -1 : 1;
	return a->order - b->order;
}

static int row_stats(struct compare_row *row, const struct compare_series *sa,
		     const struct compare_series *sb, const struct compare_opts *o)
{
	double lo, hi;
	int err;

	row->na = sa->n;
	row->nb = sb->n;
	row->ci_lo = row->ci_hi = row->p_value = row->p_holm = row->u = NAN;
	row->a_lo = row->a_hi = row->b_lo = row->b_hi = NAN;
	err = stats_median(sa->values, sa->n, &row->a);
	if (!err)
		err = stats_median(sb->values, sb->n, &row->b);
	if (err)
		return err;
	if (row->a != 0.0)
		row->delta_pct = 100.0 * (row->b - row->a) / row->a;
	else
		row->delta_pct = row->b == 0.0 ? 0.0 : NAN; /* 0 -> 0 is no change */
	if (row->a != 0.0 && sa->n >= 2 && sb->n >= 2 &&
	    !stats_bootstrap_rel_change_ci(sa->values, sa->n, sb->values, sb->n, o->ci_level,
					   o->bootstrap_iters, o->seed, &lo, &hi)) {
		row->ci_lo = 100.0 * lo;
		row->ci_hi = 100.0 * hi;
	}
	if (sa->n >= 2 && stats_bootstrap_median_ci(sa->values, sa->n, o->ci_level,
						    o->bootstrap_iters, o->seed, &lo, &hi) == 0) {
		row->a_lo = lo;
		row->a_hi = hi;
	}
	if (sb->n >= 2 && stats_bootstrap_median_ci(sb->values, sb->n, o->ci_level,
						    o->bootstrap_iters, o->seed, &lo, &hi) == 0) {
		row->b_lo = lo;
		row->b_hi = hi;
	}
	if (sa->n >= 2 && sb->n >= 2 &&
	    stats_mann_whitney(sa->values, sa->n, sb->values, sb->n, &row->u, &row->p_value))
		row->p_value = row->u = NAN;
	return 0;
}

/* Which way B moved from A: the medians' sign, or where they tie (a shift of
 * the other values, which the rank test saw), U against its mean na*nb/2.
 * -1 down, 1 up, 0 neither. */
static int row_shift(const struct compare_row *row)
{
	double mid = (double)row->na * (double)row->nb / 2.0;

	if (row->delta_pct != 0.0)
		return row->delta_pct < 0 ? -1 : 1;
	return row->u > mid ? -1 : row->u < mid ? 1 : 0;
}

static void row_verdict(struct compare_row *row)
{
	int shift = row_shift(row);

	if (!row->significant)
		row->verdict = COMPARE_SAME;
	else if (row->dir == COMPARE_DIR_NONE || isnan(row->delta_pct) || !shift)
		row->verdict = COMPARE_CHANGED;
	else if ((shift < 0) == (row->dir == COMPARE_DIR_LOWER))
		row->verdict = COMPARE_BETTER;
	else
		row->verdict = COMPARE_WORSE;
}

/* Holm over the rows [first, last) of one pair. Rows without a p-value
 * (fewer than two repetitions) are not in the family. */
static int holm_pair(struct compare_report *r, size_t first, size_t last, double alpha)
{
	double *p = NULL, *adj = NULL, min_p;
	size_t i, m = 0, na = 0, nb = 0;
	bool underpowered;
	int err = 0;

	p = calloc(last - first + 1, sizeof(*p));
	adj = calloc(last - first + 1, sizeof(*adj));
	if (!p || !adj) {
		err = -ENOMEM;
		goto out;
	}
	/*
	 * With few repetitions the rank test cannot reach alpha once Holm
	 * multiplies by the number of rows: a row that is not significant is
	 * then "unclear", not "same", and the report says why. The floor is the
	 * smallest over the rows, each row's own sizes': Holm's smallest adjusted
	 * p is m times the smallest p, and ties only raise a row's p above its
	 * floor (stats_mann_whitney), so no row can be significant when the
	 * warning says none can. Beyond 20 a side the test is approximate and
	 * has no floor.
	 */
	min_p = INFINITY;
	for (i = first; i < last; i++) {
		const struct compare_row *row = &r->rows[i];
		double floor_p;

		if (isnan(row->p_value))
			continue;
		p[m++] = row->p_value;
		floor_p = row->na <= 20 && row->nb <= 20 ?
				  stats_mann_whitney_min_p(row->na, row->nb) : 0;
		if (floor_p < min_p) {
			min_p = floor_p;
			na = row->na;
			nb = row->nb;
		}
	}
	if (m) {
		err = stats_holm_adjust(p, m, adj);
		if (err)
			goto out;
	}
	underpowered = m && min_p * (double)m >= alpha;
	m = 0;
	for (i = first; i < last; i++) {
		struct compare_row *row = &r->rows[i];
		if (!isnan(row->p_value))
			row->p_holm = adj[m++];
		row->significant = !isnan(row->p_holm) && row->p_holm < alpha;
		row_verdict(row);
		if (row->verdict == COMPARE_SAME && (underpowered || isnan(row->p_value)))
			row->verdict = COMPARE_UNCLEAR;
	}
	if (underpowered)
		err = compare_add_warning(r, "with %zu and %zu repetitions the smallest possible "
				  "Mann-Whitney p-value is %.3g; after Holm over %zu rows no "
				  "change can be significant at %.2g: run more repetitions "
				  "(--reps) or compare fewer metrics (--metric)",
				  na, nb, min_p, m, alpha);
out:
	free(p);
	free(adj);
	return err;
}

static int build_pair(struct compare_report *r, const struct compare_opts *o, int other,
		      size_t *cap)
{
	const struct compare_input *a = &r->inputs[0], *b = &r->inputs[other];
	size_t i, first = r->nr_rows;
	int err;

	err = check_host(r, a, b);
	if (!err)
		err = check_command(r, a, b);
	if (!err)
		err = check_settings(r, a, b);
	if (!err)
		err = check_overlap(r, a, b);
	if (!err)
		err = check_one_sided(r, o, a, b, SERIES_METRIC);
	if (!err)
		err = check_events(r, o, a, b);
	for (i = 0; !err && i < a->nr_series; i++) {
		const struct compare_series *sa = &a->series[i], *sb;
		struct compare_row row = { .other = other };

		if (!metric_selected(o, sa->metric) || !sa->n)
			continue;
		sb = find_series(b, sa);
		if (!sb || !sb->n)
			continue;
		row.pattern = sa->pattern;
		row.order = sa->order;
		row.span = sa->span;
		row.metric = sa->metric;
		row.dir = compare_series_dir(sa);
		row.drift_prone = compare_metric_drift_prone(sa->metric, sa->source);
		err = row_stats(&row, sa, sb, o);
		if (!err)
			err = add_row(&r->rows, &r->nr_rows, cap, &row);
		if (o->on_series)
			o->on_series((size_t)(other - 1) * a->nr_series + i + 1,
				     (r->nr_inputs - 1) * a->nr_series, o->on_series_ctx);
	}
	if (err)
		return err;
	if (r->nr_rows == first) {
		struct llset sa, sb;
		char la[128], lb[128];

		orders_list(input_sets(a, &sa), la, sizeof(la));
		orders_list(input_sets(b, &sb), lb, sizeof(lb));
		snprintf(r->error, sizeof(r->error),
			 "%s (orders %s) and %s (orders %s) have no order, span and metric in "
			 "common: nothing to compare", a->label, la[0] ? la : "none", b->label,
			 lb[0] ? lb : "none");
		return -ENODATA;
	}
	qsort(r->rows + first, r->nr_rows - first, sizeof(r->rows[0]), cmp_row);
	err = holm_pair(r, first, r->nr_rows, o->alpha);
	return err ? err : compare_gains_pair(r, o, other);
}

static bool inputs_have(const struct compare_input *inputs, size_t nr_inputs, const char *name)
{
	for (size_t j = 0; j < nr_inputs; j++)
		if (series_have(inputs[j].series, inputs[j].nr_series, SERIES_METRIC, name))
			return true;
	return false;
}

const char *compare_metric_name(const struct compare_input *inputs, size_t nr_inputs,
				const char *name)
{
	const char *word = analyze_metric_word(name);

	return word && !inputs_have(inputs, nr_inputs, name) ? word : name;
}

int compare_build(const struct compare_input *inputs, size_t nr_inputs,
		  const struct compare_opts *opts, struct compare_report *r)
{
	struct compare_opts o = COMPARE_OPTS_DEFAULT;
	size_t cap = 0, i;
	int err = 0;

	memset(r, 0, sizeof(*r));
	if (opts)
		o = *opts;
	r->inputs = inputs;
	r->nr_inputs = nr_inputs;
	r->comparable = true;
	r->alpha = o.alpha;
	r->ci_level = o.ci_level;
	if (nr_inputs < 2) {
		snprintf(r->error, sizeof(r->error), "compare needs two results files or more");
		return -EINVAL;
	}
	for (i = 0; i < o.nr_metrics; i++) {
		if (!inputs_have(inputs, nr_inputs, o.metrics[i])) {
			snprintf(r->error, sizeof(r->error),
				 "metric '%s' is in none of the files (names as in doc/ARCHITECTURE.md: "
				 "ns_per_access, walks, dtlb_misses, page_faults, ...; a command's "
				 "also real, user, sys, faults, peak)", o.metrics[i]);
			return -EINVAL;
		}
	}
	for (i = 1; i < nr_inputs && !err; i++)
		err = build_pair(r, &o, (int)i, &cap);
	if (err == -ENOMEM)
		snprintf(r->error, sizeof(r->error), "out of memory");
	if (err)
		return err;
	r->single_span = r->single_pattern = true;
	for (i = 1; i < r->nr_rows; i++) {
		r->single_span &= r->rows[i].span == r->rows[0].span;
		r->single_pattern &= !strcmp(r->rows[i].pattern, r->rows[0].pattern);
	}
	return 0;
}

/* The pair has gain rows at the row's pattern and span: its mTHP question
 * is answered by them (and by the rows that are not drift-prone). */
static bool gain_covers(const struct compare_report *r, const struct compare_row *w)
{
	size_t i;

	for (i = 0; i < r->nr_gains; i++) {
		const struct compare_gain_row *g = &r->gains[i];

		if (g->other == w->other && g->span == w->span && !strcmp(g->pattern, w->pattern))
			return true;
	}
	return false;
}

bool compare_gain_gates(const struct compare_gain_row *g, double pct)
{
	return g->verdict == COMPARE_WORSE && fabs(g->diff) > pct;
}

bool compare_row_gates(const struct compare_report *r, const struct compare_row *w, double pct)
{
	return w->verdict == COMPARE_WORSE && fabs(w->delta_pct) > pct &&
	       !(w->drift_prone && gain_covers(r, w));
}

size_t compare_count_regressions(const struct compare_report *r, double pct, size_t *skipped)
{
	size_t i, n = 0;

	if (skipped)
		*skipped = 0;
	for (i = 0; i < r->nr_gains; i++)
		n += compare_gain_gates(&r->gains[i], pct);
	for (i = 0; i < r->nr_rows; i++) {
		const struct compare_row *w = &r->rows[i];

		n += compare_row_gates(r, w, pct);
		if (skipped && w->verdict == COMPARE_WORSE && fabs(w->delta_pct) > pct &&
		    !compare_row_gates(r, w, pct))
			(*skipped)++;
	}
	return n;
}
