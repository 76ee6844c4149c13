#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mthpscope.h"
#include "plot.h"
#include "results.h"
#include "stats.h"

/* DESIGN.md's metric names, in the order reports list them, with the way
 * each one gets better. Counts of TLB hits at a second level or of coalesced
 * entries are not good or bad by themselves (fewer misses also means fewer
 * of them), so they carry no direction. */
static const struct {
	const char *name;
	enum compare_dir dir;
} metric_table[] = {
	{ "ns_per_access", COMPARE_DIR_LOWER },
	{ "wall_ns_per_access", COMPARE_DIR_LOWER },
	{ "cycles", COMPARE_DIR_LOWER },
	{ "instructions", COMPARE_DIR_NONE },
	{ "dtlb_misses", COMPARE_DIR_LOWER },
	{ "stlb_hits", COMPARE_DIR_NONE },
	{ "walks", COMPARE_DIR_LOWER },
	{ "walk_cycles", COMPARE_DIR_LOWER },
	{ "coalesced_hits", COMPARE_DIR_NONE },
	{ "mmu_overhead", COMPARE_DIR_LOWER },
	{ "page_faults", COMPARE_DIR_LOWER },
	{ "fault_ns", COMPARE_DIR_LOWER },
	{ "populate_ns", COMPARE_DIR_LOWER },
	{ "anon_fault_alloc", COMPARE_DIR_NONE },
	{ "anon_fault_fallback", COMPARE_DIR_LOWER },
	{ "rss_bytes", COMPARE_DIR_LOWER },
};

static int metric_rank(const char *metric)
{
	size_t i;

	for (i = 0; i < MS_ARRAY_SIZE(metric_table); i++)
		if (!strcmp(metric_table[i].name, metric))
			return (int)i;
	return (int)MS_ARRAY_SIZE(metric_table);
}

enum compare_dir compare_metric_dir(const char *metric)
{
	int r = metric_rank(metric);

	return r < (int)MS_ARRAY_SIZE(metric_table) ? metric_table[r].dir : COMPARE_DIR_NONE;
}

const char *compare_dir_name(enum compare_dir d)
{
	return d == COMPARE_DIR_LOWER ? "lower" : d == COMPARE_DIR_HIGHER ? "higher" : "none";
}

const char *compare_verdict_name(enum compare_verdict v)
{
	static const char *const names[] = { "same", "better", "worse", "changed" };

	return names[v];
}

int compare_format_parse(const char *s, enum compare_format *out)
{
	static const char *const names[] = { "text", "markdown", "json", "lkml" };
	size_t i;

	for (i = 0; i < MS_ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i])) {
			*out = (enum compare_format)i;
			return 0;
		}
	return -EINVAL;
}

MS_PRINTF(2, 3)
static int add_warning(struct compare_report *r, const char *fmt, ...)
{
	char **w;
	char *s;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	w = realloc(r->warnings, (r->nr_warnings + 1) * sizeof(*w));
	if (!w) {
		free(s);
		return -ENOMEM;
	}
	w[r->nr_warnings++] = s;
	r->warnings = w;
	return 0;
}

void compare_report_free(struct compare_report *r)
{
	size_t i;

	for (i = 0; i < r->nr_warnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r->rows);
	r->warnings = NULL;
	r->rows = NULL;
	r->nr_warnings = r->nr_rows = 0;
}

/* ---- inputs from results files --------------------------------------- */

struct entry {
	const struct results_trial *t;
	const struct results_metric *m;
};

static int cmp_entry(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	int c = strcmp(a->t->pattern, b->t->pattern);

	if (!c)
		c = strcmp(a->m->name, b->m->name);
	if (!c && a->t->span != b->t->span)
		c = a->t->span < b->t->span ? -1 : 1;
	if (!c)
		c = a->t->order - b->t->order;
	if (!c)
		c = a->t->rep - b->t->rep;
	return c;
}

static bool same_key(const struct entry *a, const struct entry *b)
{
	return a->t->order == b->t->order && a->t->span == b->t->span &&
	       !strcmp(a->t->pattern, b->t->pattern) && !strcmp(a->m->name, b->m->name);
}

struct owned {
	struct compare_series *series;
	struct compare_setting *settings;
	double *values;
};

static void input_settings(const struct results *res, struct compare_setting *set, size_t *n)
{
	int i;

	*n = 0;
	if (res->thp_enabled[0]) {
		snprintf(set[*n].name, sizeof(set[0].name), "enabled");
		snprintf(set[*n].value, sizeof(set[0].value), "%s", res->thp_enabled);
		(*n)++;
	}
	if (res->thp_defrag[0]) {
		snprintf(set[*n].name, sizeof(set[0].name), "defrag");
		snprintf(set[*n].value, sizeof(set[0].value), "%s", res->thp_defrag);
		(*n)++;
	}
	for (i = 0; i < res->nr_sizes; i++) {
		if (!res->sizes[i].enabled[0])
			continue;
		snprintf(set[*n].name, sizeof(set[0].name), "hugepages-%llukB/enabled",
			 (unsigned long long)(res->page_size ? res->page_size : 4096) / 1024
				 << res->sizes[i].order);
		snprintf(set[*n].value, sizeof(set[0].value), "%s", res->sizes[i].enabled);
		(*n)++;
	}
	if (res->max_ptes_none >= 0) {
		snprintf(set[*n].name, sizeof(set[0].name), "khugepaged/max_ptes_none");
		snprintf(set[*n].value, sizeof(set[0].value), "%ld", res->max_ptes_none);
		(*n)++;
	}
}

int compare_input_from_results(const struct results *res, const char *label,
			       struct compare_input *in)
{
	struct entry *e = NULL;
	struct owned *o = NULL;
	size_t i, j, n = 0, ns = 0;
	int err = -ENOMEM;

	memset(in, 0, sizeof(*in));
	for (i = 0; i < res->nr_trials; i++)
		n += res->trials[i].nr_metrics;
	o = calloc(1, sizeof(*o));
	e = calloc(n + 1, sizeof(*e));
	if (!o || !e)
		goto out;
	o->series = calloc(n + 1, sizeof(*o->series));
	o->values = calloc(n + 1, sizeof(*o->values));
	o->settings = calloc((size_t)res->nr_sizes + 3, sizeof(*o->settings));
	if (!o->series || !o->values || !o->settings)
		goto out;
	n = 0;
	for (i = 0; i < res->nr_trials; i++) {
		const struct results_trial *t = &res->trials[i];

		/* A trial whose folios are not of its order measured another order;
		 * a command that failed or timed out measured nothing. */
		if ((t->has_folios && !(t->coverage >= RESULTS_MIN_COVERAGE)) ||
		    (t->flags & RESULTS_F_FAILED)) {
			in->nr_dropped++;
			continue;
		}
		for (j = 0; j < t->nr_metrics; j++)
			e[n++] = (struct entry){ t, &t->metrics[j] };
	}
	qsort(e, n, sizeof(*e), cmp_entry);
	for (i = 0; i < n; i++) {
		o->values[i] = e[i].m->value;
		if (i && same_key(&e[i - 1], &e[i])) {
			o->series[ns - 1].n++;
			continue;
		}
		o->series[ns++] = (struct compare_series){
			.pattern = e[i].t->pattern, .order = e[i].t->order,
			.span = e[i].t->span, .metric = e[i].m->name,
			.values = &o->values[i], .n = 1,
		};
	}
	input_settings(res, o->settings, &in->nr_settings);
	in->label = label;
	in->kernel = res->kernel;
	in->arch = res->arch;
	in->cpu_model = res->cpu_model;
	in->virtualized = res->virtualized;
	in->emulated = res->emulated;
	in->pmu_available = res->pmu_available;
	in->page_size = (unsigned long)res->page_size;
	in->settings = o->settings;
	in->series = o->series;
	in->nr_series = ns;
	in->owned = o;
	o = NULL;
	err = 0;
out:
	if (o) {
		free(o->series);
		free(o->values);
		free(o->settings);
		free(o);
	}
	free(e);
	return err;
}

void compare_input_free(struct compare_input *in)
{
	struct owned *o = in->owned;

	if (o) {
		free(o->series);
		free(o->values);
		free(o->settings);
		free(o);
	}
	memset(in, 0, sizeof(*in));
}

/* ---- comparability ---------------------------------------------------- */

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
		err = add_warning(r, "architecture differs: %s is %s, %s is %s", a->label, a->arch,
				  b->label, b->arch);
	}
	if (!err && str_differs(a->cpu_model, b->cpu_model)) {
		r->comparable = false;
		err = add_warning(r, "CPU model differs: %s ran on '%s', %s on '%s'", a->label,
				  a->cpu_model, b->label, b->cpu_model);
	}
	if (!err && a->virtualized >= 0 && b->virtualized >= 0 &&
	    a->virtualized != b->virtualized) {
		r->comparable = false;
		err = add_warning(r, "virtualization differs: %s ran %s, %s %s: TLB misses cost "
				  "more under nested paging", a->label,
				  tri(a->virtualized, "in a VM", "on bare metal"), b->label,
				  tri(b->virtualized, "in a VM", "on bare metal"));
	}
	/* not a comparability issue (both sides may be emulated alike), but
	 * every time-based row then measures the emulator */
	if (!err && (a->emulated > 0 || b->emulated > 0))
		err = add_warning(r, "emulated CPU (QEMU TCG) in %s: time and cycle rows measure "
				  "the emulator, not hardware; faults, folio coverage and RSS are "
				  "the kernel's own", a->emulated > 0 && b->emulated > 0 ? "both" :
				  a->emulated > 0 ? a->label : b->label);
	if (!err && a->pmu_available >= 0 && b->pmu_available >= 0 &&
	    a->pmu_available != b->pmu_available) {
		r->comparable = false;
		err = add_warning(r, "PMU differs: %s had %s, %s had %s", a->label,
				  tri(a->pmu_available, "a hardware PMU", "no hardware PMU"),
				  b->label, tri(b->pmu_available, "a hardware PMU", "no hardware PMU"));
	}
	return err;
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
			err = add_warning(r, "THP setting %s differs: %s in %s, %s in %s", sa->name,
					  sa->value, a->label, sb->value, b->label);
	}
	return err;
}

/* ---- small sets of orders, spans and metric names --------------------- */

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

/* "5, 6, 7" from the members of s missing from t; "" when none. */
static void llset_missing(const struct llset *s, const struct llset *t, bool sizes, char *buf,
			  size_t size)
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

		if (sizes)
			cli_format_size((unsigned long long)m.v[i], num, sizeof(num));
		else
			snprintf(num, sizeof(num), "%lld", m.v[i]);
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", num);
	}
}

static void input_sets(const struct compare_input *in, struct llset *orders, struct llset *spans)
{
	size_t i;

	orders->n = spans->n = 0;
	for (i = 0; i < in->nr_series; i++) {
		llset_add(orders, in->series[i].order);
		llset_add(spans, (long long)in->series[i].span);
	}
}

static bool input_has_metric(const struct compare_input *in, const char *metric)
{
	size_t i;

	for (i = 0; i < in->nr_series; i++)
		if (!strcmp(in->series[i].metric, metric))
			return true;
	return false;
}

static bool input_has_pattern(const struct compare_input *in, const char *pattern)
{
	size_t i;

	for (i = 0; i < in->nr_series; i++)
		if (!strcmp(in->series[i].pattern, pattern))
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

static int check_patterns(struct compare_report *r, const struct compare_input *x,
			  const struct compare_input *y)
{
	size_t i, j;
	int err = 0;

	for (i = 0; i < x->nr_series && !err; i++) {
		const char *p = x->series[i].pattern;
		bool seen = false;

		for (j = 0; j < i; j++)
			seen |= !strcmp(x->series[j].pattern, p);
		if (seen || input_has_pattern(y, p))
			continue;
		r->comparable = false;
		err = add_warning(r, "access pattern %s is in %s only: not compared", p, x->label);
	}
	return err;
}

/* Patterns, orders and spans run by one side only. */
static int check_overlap(struct compare_report *r, const struct compare_input *a,
			 const struct compare_input *b)
{
	struct llset oa, ob, sa, sb;
	char buf[256];
	int err;

	err = check_patterns(r, a, b);
	if (!err)
		err = check_patterns(r, b, a);
	if (err)
		return err;

	input_sets(a, &oa, &sa);
	input_sets(b, &ob, &sb);
	llset_missing(&oa, &ob, false, buf, sizeof(buf));
	if (buf[0]) {
		r->comparable = false;
		err = add_warning(r, "orders %s are in %s only: not compared", buf, a->label);
	}
	llset_missing(&ob, &oa, false, buf, sizeof(buf));
	if (!err && buf[0]) {
		r->comparable = false;
		err = add_warning(r, "orders %s are in %s only: not compared", buf, b->label);
	}
	llset_missing(&sa, &sb, true, buf, sizeof(buf));
	if (!err && buf[0]) {
		r->comparable = false;
		err = add_warning(r, "spans %s are in %s only: not compared", buf, a->label);
	}
	llset_missing(&sb, &sa, true, buf, sizeof(buf));
	if (!err && buf[0]) {
		r->comparable = false;
		err = add_warning(r, "spans %s are in %s only: not compared", buf, b->label);
	}
	return err;
}

/* A metric measured on one side only (no PMU on one host, a newer tool on
 * the other): say so once per metric. */
static int check_metrics(struct compare_report *r, const struct compare_opts *o,
			 const struct compare_input *a, const struct compare_input *b)
{
	const struct compare_input *sides[2][2] = { { a, b }, { b, a } };
	size_t s, i, j;
	int err = 0;

	for (s = 0; s < 2 && !err; s++) {
		const struct compare_input *x = sides[s][0], *y = sides[s][1];

		for (i = 0; i < x->nr_series && !err; i++) {
			const char *m = x->series[i].metric;
			bool seen = false;

			for (j = 0; j < i; j++)
				seen |= !strcmp(x->series[j].metric, m);
			if (seen || !metric_selected(o, m) || input_has_metric(y, m))
				continue;
			err = add_warning(r, "metric %s is in %s but not in %s: not compared", m,
					  x->label, y->label);
		}
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
		c = metric_rank(a->metric) - metric_rank(b->metric);
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
	double u, lo, hi;
	int err;

	row->na = sa->n;
	row->nb = sb->n;
	row->ci_lo = row->ci_hi = row->p_value = row->p_holm = NAN;
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
	    stats_mann_whitney(sa->values, sa->n, sb->values, sb->n, &u, &row->p_value))
		row->p_value = NAN;
	return 0;
}

static void row_verdict(struct compare_row *row)
{
	if (!row->significant)
		row->verdict = COMPARE_SAME;
	else if (row->dir == COMPARE_DIR_NONE || isnan(row->delta_pct))
		row->verdict = COMPARE_CHANGED;
	else if ((row->delta_pct < 0) == (row->dir == COMPARE_DIR_LOWER))
		row->verdict = COMPARE_BETTER;
	else
		row->verdict = COMPARE_WORSE;
}

static double binom(size_t n, size_t k)
{
	double c = 1.0;
	size_t i;

	for (i = 1; i <= k; i++)
		c = c * (double)(n - k + i) / (double)i;
	return c;
}

/* Holm over the rows [first, last) of one pair. Rows without a p-value
 * (fewer than two repetitions) are not in the family. */
static int holm_pair(struct compare_report *r, size_t first, size_t last, double alpha)
{
	double *p = NULL, *adj = NULL, min_p;
	size_t i, m = 0, na = 0, nb = 0;
	int err = 0;

	p = calloc(last - first + 1, sizeof(*p));
	adj = calloc(last - first + 1, sizeof(*adj));
	if (!p || !adj) {
		err = -ENOMEM;
		goto out;
	}
	for (i = first; i < last; i++)
		if (!isnan(r->rows[i].p_value)) {
			p[m++] = r->rows[i].p_value;
			if (r->rows[i].na + r->rows[i].nb > na + nb) {
				na = r->rows[i].na;
				nb = r->rows[i].nb;
			}
		}
	if (m) {
		err = stats_holm_adjust(p, m, adj);
		if (err)
			goto out;
	}
	m = 0;
	for (i = first; i < last; i++) {
		struct compare_row *row = &r->rows[i];
		if (!isnan(row->p_value))
			row->p_holm = adj[m++];
		row->significant = !isnan(row->p_holm) && row->p_holm < alpha;
		row_verdict(row);
	}
	/* With few repetitions the rank test cannot reach alpha once Holm
	 * multiplies by the number of rows: say so rather than report
	 * "no change" as if it were evidence. */
	if (m && na <= 20 && nb <= 20) {
		min_p = 2.0 / binom(na + nb, na);
		if (min_p * (double)m >= alpha)
			err = add_warning(r, "with %zu and %zu repetitions the smallest possible "
					  "Mann-Whitney p-value is %.3g; after Holm over %zu rows no "
					  "change can be significant at %.2g: run more repetitions "
					  "(--reps) or compare fewer metrics (--metric)",
					  na, nb, min_p, m, alpha);
	}
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
		err = check_settings(r, a, b);
	if (!err)
		err = check_overlap(r, a, b);
	if (!err)
		err = check_metrics(r, o, a, b);
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
		row.dir = compare_metric_dir(sa->metric);
		err = row_stats(&row, sa, sb, o);
		if (!err)
			err = add_row(&r->rows, &r->nr_rows, cap, &row);
		if (o->progress)
			o->progress((size_t)(other - 1) * a->nr_series + i + 1,
				    (r->nr_inputs - 1) * a->nr_series, o->progress_ctx);
	}
	if (err)
		return err;
	if (r->nr_rows == first) {
		struct llset oa, ob, sa, sb;
		char la[128], lb[128];

		input_sets(a, &oa, &sa);
		input_sets(b, &ob, &sb);
		qsort(oa.v, oa.n, sizeof(oa.v[0]), cmp_ll);
		qsort(ob.v, ob.n, sizeof(ob.v[0]), cmp_ll);
		llset_missing(&oa, &(struct llset){ .n = 0 }, false, la, sizeof(la));
		llset_missing(&ob, &(struct llset){ .n = 0 }, false, lb, sizeof(lb));
		snprintf(r->error, sizeof(r->error),
			 "%s (orders %s) and %s (orders %s) have no order, span and metric in "
			 "common: nothing to compare", a->label, la[0] ? la : "none", b->label,
			 lb[0] ? lb : "none");
		return -ENODATA;
	}
	qsort(r->rows + first, r->nr_rows - first, sizeof(r->rows[0]), cmp_row);
	return holm_pair(r, first, r->nr_rows, o->alpha);
}

int compare_build(const struct compare_input *inputs, size_t nr_inputs,
		  const struct compare_opts *opts, struct compare_report *r)
{
	struct compare_opts o = COMPARE_OPTS_DEFAULT;
	size_t cap = 0, i, j;
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
		bool found = false;

		for (j = 0; j < nr_inputs; j++)
			found |= input_has_metric(&inputs[j], o.metrics[i]);
		if (!found) {
			snprintf(r->error, sizeof(r->error),
				 "metric '%s' is in none of the files (names as in DESIGN.md: "
				 "ns_per_access, walks, dtlb_misses, page_faults, ...)",
				 o.metrics[i]);
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

size_t compare_count_regressions(const struct compare_report *r, double pct)
{
	size_t i, n = 0;

	for (i = 0; i < r->nr_rows; i++)
		n += r->rows[i].verdict == COMPARE_WORSE && fabs(r->rows[i].delta_pct) > pct;
	return n;
}

/* ---- output ----------------------------------------------------------- */

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *compare_json(const struct compare_report *r)
{
	json_t *doc, *warnings = json_array(), *rows = json_array(), *others = json_array();
	size_t i;

	for (i = 0; i < r->nr_warnings; i++)
		json_array_append_new(warnings, json_string(r->warnings[i]));
	for (i = 1; i < r->nr_inputs; i++)
		json_array_append_new(others, json_pack("{s:s?, s:s?}", "file", r->inputs[i].label,
							"kernel", r->inputs[i].kernel));
	for (i = 0; i < r->nr_rows; i++) {
		const struct compare_row *w = &r->rows[i];
		json_t *ci = json_null();

		if (isfinite(w->ci_lo) && isfinite(w->ci_hi))
			ci = json_pack("[f, f]", w->ci_lo, w->ci_hi);
		json_array_append_new(
			rows, json_pack("{s:i, s:s, s:o, s:o, s:o, s:o, s:o, s:b, s:I, s:s?, s:I, s:I, "
					"s:o, s:s, s:s, s:s}",
					"order", w->order, "metric", w->metric, "a", num_or_null(w->a),
					"b", num_or_null(w->b), "delta_pct", num_or_null(w->delta_pct),
					"ci", ci, "p_value", num_or_null(w->p_value), "significant",
					w->significant, "span", (json_int_t)w->span, "file",
					r->inputs[w->other].label, "n_a", (json_int_t)w->na, "n_b",
					(json_int_t)w->nb, "p_holm", num_or_null(w->p_holm), "better",
					compare_dir_name(w->dir), "verdict",
					compare_verdict_name(w->verdict), "pattern", w->pattern));
	}
	doc = json_pack("{s:s, s:b, s:o, s:{s:s?, s:s?}, s:o, s:f, s:f, s:s, s:o}", "schema",
			COMPARE_SCHEMA, "comparable", r->comparable, "warnings", warnings,
			"baseline", "file", r->inputs[0].label, "kernel", r->inputs[0].kernel,
			"others", others, "alpha", r->alpha, "ci_level", r->ci_level, "test",
			"Mann-Whitney U, two-sided; significance after Holm correction per pair",
			"rows", rows);
	return doc;
}

static void fmt_value(double v, char *buf, size_t size)
{
	if (isfinite(v))
		snprintf(buf, size, "%.2f", v);
	else
		snprintf(buf, size, "n/a");
}

static void fmt_pct(double v, char *buf, size_t size)
{
	if (isfinite(v))
		snprintf(buf, size, "%+.2f%%", v);
	else
		snprintf(buf, size, "n/a");
}

static void fmt_ci(const struct compare_row *w, char *buf, size_t size)
{
	if (isfinite(w->ci_lo) && isfinite(w->ci_hi))
		snprintf(buf, size, "[%+.2f, %+.2f]", w->ci_lo, w->ci_hi);
	else
		snprintf(buf, size, "n/a");
}

static void fmt_p(const struct compare_row *w, char *buf, size_t size)
{
	if (isnan(w->p_holm))
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, "%.4f%s", w->p_holm, w->significant ? " *" : "");
}

static void fmt_span(unsigned long long span, char *buf, size_t size)
{
	cli_format_size(span, buf, size);
}

static const char *or_unknown(const char *s)
{
	return s && *s ? s : "unknown kernel";
}

static void write_pair_head(const struct compare_report *r, size_t other, FILE *f,
			    const char *prefix)
{
	const struct compare_input *a = &r->inputs[0], *b = &r->inputs[other];

	fprintf(f, "%s%s (%s) against the baseline %s (%s)", prefix, b->label,
		or_unknown(b->kernel), a->label, or_unknown(a->kernel));
	if (r->single_pattern && r->nr_rows)
		fprintf(f, ", pattern %s", r->rows[0].pattern);
	fputc('\n', f);
}

static void fmt_metric(const struct compare_report *r, const struct compare_row *w, char *buf,
		       size_t size)
{
	if (r->single_pattern)
		snprintf(buf, size, "%s", w->metric);
	else
		snprintf(buf, size, "%s:%s", w->pattern, w->metric);
}

static void write_text(const struct compare_report *r, FILE *f)
{
	size_t i, other = 0;
	int mw = 6;

	for (i = 0; i < r->nr_rows; i++) {
		char m[96];
		int n;

		fmt_metric(r, &r->rows[i], m, sizeof(m));
		n = (int)strlen(m);
		mw = n > mw ? n : mw;
	}
	for (i = 0; i < r->nr_rows; i++) {
		const struct compare_row *w = &r->rows[i];
		char va[32], vb[32], d[32], ci[64], p[32], sp[32], m[96];

		if ((size_t)w->other != other) {
			other = (size_t)w->other;
			if (i)
				fputc('\n', f);
			write_pair_head(r, other, f, "");
			fprintf(f, "medians; delta = (B - A) / A; %.0f%% bootstrap CI of delta; "
				   "p: Mann-Whitney U, Holm-adjusted, * below %.2g\n",
				r->ci_level * 100, r->alpha);
			fprintf(f, "%-*s %5s %6s %12s %12s %9s %20s %10s  %s\n", mw, "metric", "order",
				"span", "A", "B", "delta", "CI", "p", "verdict");
		}
		fmt_value(w->a, va, sizeof(va));
		fmt_value(w->b, vb, sizeof(vb));
		fmt_pct(w->delta_pct, d, sizeof(d));
		fmt_ci(w, ci, sizeof(ci));
		fmt_p(w, p, sizeof(p));
		fmt_span(w->span, sp, sizeof(sp));
		fmt_metric(r, w, m, sizeof(m));
		fprintf(f, "%-*s %5d %6s %12s %12s %9s %20s %10s  %s%s\n", mw, m, w->order, sp,
			va, vb, d, ci, p, compare_verdict_name(w->verdict),
			w->dir == COMPARE_DIR_NONE ? " (no better direction)" : "");
	}
}

static void write_markdown(const struct compare_report *r, FILE *f)
{
	size_t i, other = 0;

	for (i = 0; i < r->nr_rows; i++) {
		const struct compare_row *w = &r->rows[i];
		char va[32], vb[32], d[32], ci[64], p[32], sp[32], m[96];

		if ((size_t)w->other != other) {
			other = (size_t)w->other;
			if (i)
				fputc('\n', f);
			write_pair_head(r, other, f, "### ");
			fprintf(f, "\n| metric | order | span | A median | B median | delta | "
				   "%.0f %% CI | p (Holm) | verdict |\n"
				   "|---|---:|---:|---:|---:|---:|---:|---:|---|\n",
				r->ci_level * 100);
		}
		fmt_value(w->a, va, sizeof(va));
		fmt_value(w->b, vb, sizeof(vb));
		fmt_pct(w->delta_pct, d, sizeof(d));
		fmt_ci(w, ci, sizeof(ci));
		fmt_p(w, p, sizeof(p));
		fmt_span(w->span, sp, sizeof(sp));
		fmt_metric(r, w, m, sizeof(m));
		fprintf(f, "| %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", m, w->order, sp,
			va, vb, d, ci, p, w->significant ? compare_verdict_name(w->verdict) : "");
	}
	if (r->nr_rows)
		fprintf(f, "\ndelta = (B - A) / A of the medians; p: Mann-Whitney U, two-sided, "
			   "Holm-adjusted over each table; verdict when p < %.2g.\n", r->alpha);
}

/* lkml: the MMTests compare-kernels layout mm developers know from cover
 * letters. Percentages there are gains (positive is better), and a
 * significant difference is framed by '*' instead of parentheses. */

static const struct compare_row *find_row(const struct compare_report *r, size_t other,
					  const struct compare_row *key)
{
	size_t i;

	for (i = 0; i < r->nr_rows; i++) {
		const struct compare_row *w = &r->rows[i];
		if ((size_t)w->other == other && w->order == key->order && w->span == key->span &&
		    !strcmp(w->metric, key->metric) && !strcmp(w->pattern, key->pattern))
			return w;
	}
	return NULL;
}

static double gain_pct(const struct compare_row *w)
{
	/* + 0.0: no "-0.00%" for an unchanged lower-is-better metric */
	return (w->dir == COMPARE_DIR_LOWER ? -w->delta_pct : w->delta_pct) + 0.0;
}

static void lkml_label(const struct compare_report *r, const struct compare_row *w, char *buf,
		       size_t size)
{
	char sp[32] = "";

	if (!r->single_span) {
		sp[0] = '-';
		fmt_span(w->span, sp + 1, sizeof(sp) - 1);
	}
	snprintf(buf, size, "%s%s%s-o%d%s", r->single_pattern ? "" : w->pattern,
		 r->single_pattern ? "" : "-", w->metric, w->order, sp);
}

static void lkml_cell(const struct compare_row *w, bool baseline, int vw, char *buf, size_t size)
{
	char v[32];
	double g;

	if (!w) {
		snprintf(buf, size, "%*s %10s", vw, "n/a", "");
		return;
	}
	fmt_value(baseline ? w->a : w->b, v, sizeof(v));
	g = baseline ? 0.0 : gain_pct(w);
	if (!isfinite(g))
		snprintf(buf, size, "%*s (    n/a)", vw, v);
	else if (!baseline && w->significant)
		snprintf(buf, size, "%*s *%7.2f%%*", vw, v, g);
	else
		snprintf(buf, size, "%*s (%7.2f%%)", vw, v, g);
}

static void write_lkml(const struct compare_report *r, FILE *f)
{
	int lw = 0, vw = 6, cw;
	size_t i, k, nkeys = 0;
	char buf[128];
	const struct compare_row **keys;
	bool lower = false, higher = false, none = false;

	keys = calloc(r->nr_rows + 1, sizeof(*keys));
	if (!keys)
		return;
	/* The union of the rows of all pairs, in the first pair's order. */
	for (i = 0; i < r->nr_rows; i++) {
		for (k = 0; k < nkeys; k++)
			if (keys[k]->order == r->rows[i].order && keys[k]->span == r->rows[i].span &&
			    !strcmp(keys[k]->metric, r->rows[i].metric) &&
			    !strcmp(keys[k]->pattern, r->rows[i].pattern))
				break;
		if (k == nkeys)
			keys[nkeys++] = &r->rows[i];
	}
	for (i = 0; i < r->nr_rows; i++) {
		int n;

		lkml_label(r, &r->rows[i], buf, sizeof(buf));
		n = (int)strlen(buf);
		lw = n > lw ? n : lw;
		fmt_value(r->rows[i].a, buf, sizeof(buf));
		n = (int)strlen(buf);
		vw = n > vw ? n : vw;
		fmt_value(r->rows[i].b, buf, sizeof(buf));
		n = (int)strlen(buf);
		vw = n > vw ? n : vw;
	}
	cw = vw + 11;
	for (i = 0; i < r->nr_inputs; i++) {
		int n = (int)strlen(or_unknown(r->inputs[i].kernel));
		int m = (int)strlen(r->inputs[i].label);
		cw = n > cw ? n : cw;
		cw = m > cw ? m : cw;
	}
	vw = cw - 11;
	fprintf(f, "%-6s %-*s", "", lw, "");
	for (i = 0; i < r->nr_inputs; i++)
		fprintf(f, "  %*s", cw, or_unknown(r->inputs[i].kernel));
	fprintf(f, "\n%-6s %-*s", "", lw, "");
	for (i = 0; i < r->nr_inputs; i++)
		fprintf(f, "  %*s", cw, r->inputs[i].label);
	fputc('\n', f);
	for (k = 0; k < nkeys; k++) {
		lkml_label(r, keys[k], buf, sizeof(buf));
		fprintf(f, "%-6s %-*s", "Median", lw, buf);
		for (i = 0; i < r->nr_inputs; i++) {
			const struct compare_row *w = i ? find_row(r, i, keys[k]) : keys[k];

			lkml_cell(w, i == 0, vw, buf, sizeof(buf));
			fprintf(f, "  %s", buf);
		}
		fputc('\n', f);
		lower |= keys[k]->dir == COMPARE_DIR_LOWER;
		higher |= keys[k]->dir == COMPARE_DIR_HIGHER;
		none |= keys[k]->dir == COMPARE_DIR_NONE;
	}
	fprintf(f, "\n(x.xx%%): gain over %s, positive is better%s%s%s; *x.xx%%*: significant "
		   "(Mann-Whitney U, Holm-adjusted p < %.2g)\n",
		or_unknown(r->inputs[0].kernel),
		lower && higher ? "" : lower ? " (lower values are better)" : "",
		higher && !lower ? " (higher values are better)" : "",
		none ? "; plain change for counts without a better direction" : "", r->alpha);
	free(keys);
}

int compare_write(const struct compare_report *r, enum compare_format fmt, FILE *f)
{
	json_t *doc;
	int err = 0;

	switch (fmt) {
	case COMPARE_FMT_TEXT:
		write_text(r, f);
		break;
	case COMPARE_FMT_MARKDOWN:
		write_markdown(r, f);
		break;
	case COMPARE_FMT_LKML:
		write_lkml(r, f);
		break;
	case COMPARE_FMT_JSON:
		doc = compare_json(r);
		if (!doc || json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) ||
		    fputc('\n', f) == EOF)
			err = -EIO;
		json_decref(doc);
		break;
	}
	if (!err && ferror(f))
		err = -EIO;
	return err;
}

/* ---- A/B figures ------------------------------------------------------ */

/* Rows [first, last) share other, pattern, metric and span (rows are
 * sorted that way): one figure. */
static int plot_group(const struct compare_report *r, size_t first, size_t last,
		      const char *dir, enum plot_format fmt, char *err, size_t errsize)
{
	const struct compare_row *w0 = &r->rows[first];
	const struct compare_input *a = &r->inputs[0], *b = &r->inputs[w0->other];
	struct plot_ab_row *pr;
	char name[64], title[256], subtitle[256], ylabel[128], sp[32], la[160], lb[160];
	size_t i;
	int rc;

	pr = calloc(last - first, sizeof(*pr));
	if (!pr)
		return -ENOMEM;
	for (i = first; i < last; i++) {
		const struct compare_row *w = &r->rows[i];
		struct plot_ab_row *p = &pr[i - first];

		p->order = w->order;
		cli_format_size((unsigned long long)(a->page_size ? a->page_size : 4096)
					<< w->order, p->label, sizeof(p->label));
		p->a = w->a;
		p->a_lo = w->a_lo;
		p->a_hi = w->a_hi;
		p->b = w->b;
		p->b_lo = w->b_lo;
		p->b_hi = w->b_hi;
	}
	cli_format_size(w0->span, sp, sizeof(sp));
	/* File names from the metric and what tells figures apart. */
	snprintf(name, sizeof(name), "ab-%s%s%s%s%s%s%s", w0->metric, r->nr_inputs > 2 ? "-" : "",
		 r->nr_inputs > 2 ? b->label : "", r->single_pattern ? "" : "-",
		 r->single_pattern ? "" : w0->pattern, r->single_span ? "" : "-",
		 r->single_span ? "" : sp);
	for (i = 0; name[i]; i++)
		if (name[i] == '/' || name[i] == ' ')
			name[i] = '_';
	snprintf(title, sizeof(title), "%s: %s against %s", w0->metric, b->label, a->label);
	snprintf(subtitle, sizeof(subtitle),
		 "pattern %s, span %s; medians of %zu and %zu repetitions, %.0f %% bootstrap CI; "
		 "%s is better", w0->pattern, sp, w0->na, w0->nb, r->ci_level * 100,
		 w0->dir == COMPARE_DIR_LOWER ? "lower" : w0->dir == COMPARE_DIR_HIGHER ? "higher"
										   : "neither");
	snprintf(ylabel, sizeof(ylabel), "%s (median)", w0->metric);
	snprintf(la, sizeof(la), "A: %s (%s)", a->label, or_unknown(a->kernel));
	snprintf(lb, sizeof(lb), "B: %s (%s)", b->label, or_unknown(b->kernel));
	rc = plot_ab(dir, name, fmt, title, subtitle, ylabel, la, lb, pr, last - first, err,
		     errsize);
	free(pr);
	return rc;
}

int compare_plot(const struct compare_report *r, const char *dir, int fmt, size_t *nr_written,
		 char *err, size_t errsize)
{
	size_t i, first = 0;
	int rc = 0;

	*nr_written = 0;
	for (i = 1; i <= r->nr_rows && !rc; i++) {
		const struct compare_row *p = &r->rows[first], *w = &r->rows[i];

		if (i < r->nr_rows && w->other == p->other && w->span == p->span &&
		    !strcmp(w->metric, p->metric) && !strcmp(w->pattern, p->pattern))
			continue;
		rc = plot_group(r, first, i, dir, (enum plot_format)fmt, err, errsize);
		if (rc == -ENOMEM)
			snprintf(err, errsize, "out of memory");
		if (!rc)
			(*nr_written)++;
		first = i;
	}
	return rc;
}
