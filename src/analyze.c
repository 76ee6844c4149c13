/*
 * Per-order gains and the recommendation (analyze.h). Lower is better for
 * every metric analysed here (time, walks, misses, faults, memory), so a gain
 * is the share of the order-0 value that an order saves.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze.h"
#include "arch.h"
#include "mthpscope.h"
#include "stats.h"

/* The primary metric by strength of evidence: cycles spent walking say
 * most about translation cost, completed walks next, first-level misses
 * (many hit the second-level TLB) after that; time per access is what any
 * machine can measure, but mixes translation with cache and memory. */
static const struct {
	const char *name;
	const char *source; /* required source, NULL = any */
} primary_candidates[] = {
	{ "walk_cycles", "pmu" },
	{ "walks", "pmu" },
	{ "dtlb_misses", "pmu" },
	{ "ns_per_access", NULL },
};

/* Counters normalised per access; everything else is per trial. */
static const struct {
	const char *name;
	const char *unit;
	bool per_access;
} metric_units[] = {
	{ "ns_per_access", "ns/access", false },
	{ "walk_cycles", "walk cycles/access", true },
	{ "walks", "walks/access", true },
	{ "dtlb_misses", "dTLB misses/access", true },
	{ "stlb_hits", "STLB hits/access", true },
	{ "coalesced_hits", "coalesced hits/access", true },
	{ "cycles", "cycles/access", true },
	{ "instructions", "instructions/access", true },
	{ "page_faults", "page faults", false },
	{ "fault_ns", "ns in faults", false },
	{ "rss_bytes", "RSS bytes", false },
	{ "wall_ns_per_access", "ns/access (wall clock)", false },
	{ "populate_ns", "ns to populate the span", false },
	{ "context_switches", "context switches", false },
	{ "loop_page_faults", "page faults in the loop", false },
	{ "anon_fault_alloc", "mTHP fault allocations", false },
	{ "anon_fault_fallback", "mTHP fault fallbacks", false },
};

static void metric_unit(const char *name, char *unit, size_t size, bool *per_access)
{
	size_t i;

	for (i = 0; i < MS_ARRAY_SIZE(metric_units); i++)
		if (!strcmp(metric_units[i].name, name)) {
			snprintf(unit, size, "%s", metric_units[i].unit);
			*per_access = metric_units[i].per_access;
			return;
		}
	snprintf(unit, size, "%s", name);
	*per_access = false;
}

const char *analyze_verdict_name(enum analyze_verdict v)
{
	switch (v) {
	case AN_MTHP: return "mthp";
	case AN_PMD_ONLY: return "pmd-only";
	case AN_NO_GAIN: return "no-gain";
	default: return "inconclusive";
	}
}

const char *analyze_status_name(enum analyze_status s)
{
	switch (s) {
	case AN_ST_BASE: return "baseline";
	case AN_ST_GAIN: return "gain";
	case AN_ST_NONE: return "none";
	default: return "unclear";
	}
}

void analyze_order_size(const struct analysis *a, int order, char *buf, size_t size)
{
	unsigned long long kb = (a->res->page_size << order) >> 10;

	if (kb >= 1024 * 1024 && kb % (1024 * 1024) == 0)
		snprintf(buf, size, "%lluG", kb >> 20);
	else if (kb >= 1024 && kb % 1024 == 0)
		snprintf(buf, size, "%lluM", kb >> 10);
	else
		snprintf(buf, size, "%lluK", kb);
}

bool analyze_order_measured(const struct analysis *a, int order)
{
	return order >= 0 && order < ANALYZE_NR_ORDERS && a->orders[order].primary.n > 0;
}

MS_PRINTF(3, 4) static int fail(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return -ENODATA;
}

MS_PRINTF(3, 4) static void append(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

/* ---- trial selection ---------------------------------------------------- */

struct ctx {
	struct analysis *a;
	const struct results *r;
	bool *included;    /* per trial */
	double *buf;       /* nr_trials values */
	unsigned iters;
	uint64_t seed;
	uint64_t want_span; /* 0 = the largest */
};

static bool trial_dense_match(const struct ctx *c, const struct results_trial *t, uint64_t span)
{
	return !t->sparse && !strcmp(t->pattern, c->a->pattern) && (!span || t->span == span);
}

/* A trial's value of a metric, normalised; false when it has none. */
static bool trial_value(const struct results_trial *t, const char *metric, bool per_access,
			double *v)
{
	const struct results_metric *m = results_trial_metric(t, metric);

	if (!m)
		return false;
	if (per_access) {
		if (!t->accesses)
			return false;
		*v = m->value / (double)t->accesses;
	} else {
		*v = m->value;
	}
	return true;
}

/* The included values of a metric for one order (dense at span, or sparse). */
static size_t collect(const struct ctx *c, int order, uint64_t span, bool sparse,
		      const char *metric, bool per_access, double *out)
{
	size_t i, n = 0;

	for (i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i];

		if (!c->included[i] || t->order != order)
			continue;
		if (sparse ? (!t->sparse || t->span != span) : !trial_dense_match(c, t, span))
			continue;
		if (trial_value(t, metric, per_access, &out[n]))
			n++;
	}
	return n;
}

static uint64_t seed_for(const struct ctx *c, int order, int what)
{
	return c->seed * 1000003ULL + (uint64_t)order * 101ULL + (uint64_t)what;
}

static void stat_of(const struct ctx *c, const double *x, size_t n, uint64_t seed,
		    struct analyze_stat *s)
{
	s->n = n;
	s->median = s->lo = s->hi = NAN;
	if (!n || stats_median(x, n, &s->median))
		return;
	if (n == 1) {
		s->lo = s->hi = s->median;
		return;
	}
	if (stats_bootstrap_median_ci(x, n, ANALYZE_LEVEL, c->iters, seed, &s->lo, &s->hi))
		s->lo = s->hi = NAN;
}

/* b's relative change against a (median(b)/median(a) - 1), negated when
 * 'saving' so that a fall is a positive number. */
static void change_of(const struct ctx *c, const double *a, size_t na, const double *b,
		      size_t nb, uint64_t seed, bool saving, struct analyze_change *ch)
{
	double ma, mb, lo, hi;

	ch->value = ch->lo = ch->hi = NAN;
	if (!na || !nb || stats_median(a, na, &ma) || stats_median(b, nb, &mb) || ma == 0.0)
		return;
	ch->value = saving ? 1.0 - mb / ma : mb / ma - 1.0;
	if (na < 2 || nb < 2)
		return;
	if (stats_bootstrap_rel_change_ci(a, na, b, nb, ANALYZE_LEVEL, c->iters, seed, &lo, &hi))
		return;
	ch->lo = saving ? -hi : lo;
	ch->hi = saving ? -lo : hi;
}

static void exclude(struct ctx *c, size_t i, const char *reason)
{
	const struct results_trial *t = &c->r->trials[i];
	struct analyze_excluded *e = &c->a->excluded[c->a->nr_excluded++];

	c->included[i] = false;
	e->trial = i;
	e->order = t->order;
	e->span = t->span;
	e->rep = t->rep;
	snprintf(e->reason, sizeof(e->reason), "%s", reason);
}

/* Coverage under 95 % means the kernel did not give the requested order
 * for much of the span, so the trial measured a mix; multiplexed counters
 * are estimates. Sparse trials touch a few pages per folio by design, so
 * coverage does not apply to them. */
static void select_trials(struct ctx *c)
{
	size_t i;

	for (i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i];
		char why[96];

		c->included[i] = true;
		if (t->multiplexed) {
			exclude(c, i, "multiplexed counters (scaled estimates)");
		} else if (!t->sparse && t->has_folios && t->coverage < RESULTS_MIN_COVERAGE) {
			snprintf(why, sizeof(why), "folio coverage %.1f %% < %.0f %%",
				 100.0 * t->coverage, 100.0 * RESULTS_MIN_COVERAGE);
			exclude(c, i, why);
		} else if (!t->sparse && !t->has_folios) {
			c->a->nr_unverified++;
		}
		c->a->nr_included += c->included[i];
	}
}

/* The dense pattern: the configured one if trials have it, else the most
 * frequent one. */
static int choose_pattern(struct ctx *c)
{
	size_t i, j, best = 0;

	for (i = 0; i < c->r->nr_trials; i++)
		if (!c->r->trials[i].sparse && c->r->config_pattern[0] &&
		    !strcmp(c->r->trials[i].pattern, c->r->config_pattern)) {
			snprintf(c->a->pattern, sizeof(c->a->pattern), "%s", c->r->config_pattern);
			return 0;
		}
	for (i = 0; i < c->r->nr_trials; i++) {
		size_t count = 0;

		if (c->r->trials[i].sparse)
			continue;
		for (j = 0; j < c->r->nr_trials; j++)
			count += !c->r->trials[j].sparse &&
				 !strcmp(c->r->trials[j].pattern, c->r->trials[i].pattern);
		if (count > best) {
			best = count;
			snprintf(c->a->pattern, sizeof(c->a->pattern), "%s", c->r->trials[i].pattern);
		}
	}
	return best ? 0 : -ENODATA;
}

/* The verdict rests on one pattern; the others are named so nobody thinks
 * they were weighed in (analyse them from a file of their own). */
static void note_other_patterns(struct ctx *c)
{
	char *o = c->a->other_patterns;
	size_t i, size = sizeof(c->a->other_patterns);

	for (i = 0; i < c->r->nr_trials; i++) {
		const char *p = c->r->trials[i].pattern;
		size_t len = strlen(p);
		const char *hit;
		bool seen = false;

		/* an empty name would match everywhere, up to past the end */
		if (c->r->trials[i].sparse || !*p || !strcmp(p, c->a->pattern))
			continue;
		for (hit = strstr(o, p); hit && !seen; hit = strstr(hit + 1, p))
			seen = (hit == o || hit[-1] == ' ') && (hit[len] == ',' || !hit[len]);
		if (!seen)
			append(o, size, "%s%s", o[0] ? ", " : "", p);
	}
}

/* Spans of the pattern (ascending, distinct) and the verdict's span: the
 * largest one with included order-0 trials, where translation matters most. */
static void collect_spans(struct ctx *c)
{
	size_t i;
	int k, j;

	for (i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i];
		bool seen = false;

		if (!trial_dense_match(c, t, 0))
			continue;
		for (k = 0; k < c->a->nr_spans; k++)
			seen |= c->a->spans[k].span == t->span;
		if (seen || c->a->nr_spans == ANALYZE_MAX_SPANS)
			continue;
		/* insertion keeps them ascending */
		for (k = c->a->nr_spans; k > 0 && c->a->spans[k - 1].span > t->span; k--)
			c->a->spans[k] = c->a->spans[k - 1];
		memset(&c->a->spans[k], 0, sizeof(c->a->spans[k]));
		c->a->spans[k].span = t->span;
		c->a->nr_spans++;
	}
	for (j = c->a->nr_spans - 1; j >= 0; j--) {
		for (i = 0; i < c->r->nr_trials; i++)
			if (c->included[i] && c->r->trials[i].order == 0 &&
			    trial_dense_match(c, &c->r->trials[i], c->a->spans[j].span))
				break;
		if (c->want_span && c->a->spans[j].span != c->want_span)
			continue;
		if (i < c->r->nr_trials) {
			c->a->span = c->a->spans[j].span;
			return;
		}
	}
}

/* The first candidate present in every included trial at the span. */
static int choose_metric(struct ctx *c)
{
	size_t k, i;

	for (k = 0; k < MS_ARRAY_SIZE(primary_candidates); k++) {
		bool all = true, any = false;

		for (i = 0; i < c->r->nr_trials && all; i++) {
			const struct results_trial *t = &c->r->trials[i];
			const struct results_metric *m;

			if (!c->included[i] || !trial_dense_match(c, t, c->a->span))
				continue;
			m = results_trial_metric(t, primary_candidates[k].name);
			all = m && (!primary_candidates[k].source ||
				    !strcmp(m->source, primary_candidates[k].source));
			if (all)
				snprintf(c->a->metric_source, sizeof(c->a->metric_source), "%s",
					 m->source);
			any = true;
		}
		if (all && any) {
			snprintf(c->a->metric, sizeof(c->a->metric), "%s", primary_candidates[k].name);
			metric_unit(c->a->metric, c->a->metric_unit, sizeof(c->a->metric_unit),
				    &c->a->per_access);
			return 0;
		}
	}
	return -ENODATA;
}

/* ---- per-order numbers --------------------------------------------------- */

static int per_order(struct ctx *c)
{
	struct analysis *a = c->a;
	double *base, *ps = NULL, *padj = NULL;
	size_t nbase, i, np = 0;
	int k, idx[ANALYZE_NR_ORDERS], err = 0;

	base = malloc(c->r->nr_trials * sizeof(*base));
	ps = malloc(ANALYZE_NR_ORDERS * sizeof(*ps));
	padj = malloc(ANALYZE_NR_ORDERS * sizeof(*padj));
	if (!base || !ps || !padj) {
		err = -ENOMEM;
		goto out;
	}
	nbase = collect(c, 0, a->span, false, a->metric, a->per_access, base);
	for (i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i];

		if (!trial_dense_match(c, t, a->span))
			continue;
		a->orders[t->order].present = true;
		a->orders[t->order].n_excluded += !c->included[i];
	}
	for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
		struct analyze_order *o = &a->orders[k];
		size_t n;

		o->order = k;
		o->u = o->p = o->p_adj = NAN;
		o->gain.value = o->gain.lo = o->gain.hi = NAN;
		o->share = o->fault_saving = o->bloat = o->gain;
		o->coverage = NAN;
		o->status = k == 0 ? AN_ST_BASE : AN_ST_UNCLEAR;
		o->primary.median = o->primary.lo = o->primary.hi = NAN;
		o->faults = o->rss = o->primary;
		if (!o->present)
			continue;
		n = collect(c, k, a->span, false, a->metric, a->per_access, c->buf);
		stat_of(c, c->buf, n, seed_for(c, k, 1), &o->primary);
		if (k == 0 || !n)
			continue;
		change_of(c, base, nbase, c->buf, n, seed_for(c, k, 2), true, &o->gain);
		if (!stats_mann_whitney(base, nbase, c->buf, n, &o->u, &o->p)) {
			idx[np] = k;
			ps[np++] = o->p;
		}
	}
	if (np && !stats_holm_adjust(ps, np, padj))
		for (i = 0; i < np; i++)
			a->orders[idx[i]].p_adj = padj[i];
	/* folio coverage per order, for the report */
	for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
		size_t n = 0;

		for (i = 0; i < c->r->nr_trials; i++) {
			const struct results_trial *t = &c->r->trials[i];

			if (c->included[i] && t->order == k && t->has_folios &&
			    trial_dense_match(c, t, a->span))
				c->buf[n++] = t->coverage;
		}
		if (n)
			stats_median(c->buf, n, &a->orders[k].coverage);
	}
out:
	free(base);
	free(ps);
	free(padj);
	return err;
}

static void classify(struct analysis *a)
{
	int k;

	for (k = 1; k < ANALYZE_NR_ORDERS; k++) {
		struct analyze_order *o = &a->orders[k];

		if (!o->primary.n)
			continue;
		o->significant = o->p_adj < ANALYZE_ALPHA;
		if (o->significant && o->gain.value >= a->threshold && o->gain.lo > 0.0)
			o->status = AN_ST_GAIN;
		else if (o->gain.hi < a->threshold)
			o->status = AN_ST_NONE; /* a material gain lies outside the CI */
		else
			o->status = AN_ST_UNCLEAR;
	}
}

/* Share of the PMD gain reached by each order, when the PMD order gains. */
static int pmd_share(struct ctx *c)
{
	struct analysis *a = c->a;
	double *base = NULL, *pmd = NULL;
	size_t nb, np, n;
	int k, err = 0;

	if (!analyze_order_measured(a, a->pmd_order) ||
	    a->orders[a->pmd_order].status != AN_ST_GAIN)
		return 0;
	base = malloc(c->r->nr_trials * sizeof(*base));
	pmd = malloc(c->r->nr_trials * sizeof(*pmd));
	if (!base || !pmd) {
		err = -ENOMEM;
		goto out;
	}
	nb = collect(c, 0, a->span, false, a->metric, a->per_access, base);
	np = collect(c, a->pmd_order, a->span, false, a->metric, a->per_access, pmd);
	for (k = 1; k < ANALYZE_NR_ORDERS; k++) {
		struct analyze_order *o = &a->orders[k];

		if (!o->primary.n)
			continue;
		o->share.value = o->gain.value / a->orders[a->pmd_order].gain.value;
		n = collect(c, k, a->span, false, a->metric, a->per_access, c->buf);
		if (n >= 2 && nb >= 2 && np >= 2 &&
		    stats_bootstrap_gain_share_ci(base, nb, c->buf, n, pmd, np, ANALYZE_LEVEL,
						  c->iters, seed_for(c, k, 3), &o->share.lo,
						  &o->share.hi))
			o->share.lo = o->share.hi = NAN;
	}
out:
	free(base);
	free(pmd);
	return err;
}

/* Page faults of the dense trials and RSS of the sparse ones. */
static int cost_side(struct ctx *c)
{
	struct analysis *a = c->a;
	double *base = malloc(c->r->nr_trials * sizeof(double));
	size_t nb, n, i;
	int k;

	if (!base)
		return -ENOMEM;
	nb = collect(c, 0, a->span, false, "page_faults", false, base);
	for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
		struct analyze_order *o = &a->orders[k];

		n = collect(c, k, a->span, false, "page_faults", false, c->buf);
		stat_of(c, c->buf, n, seed_for(c, k, 4), &o->faults);
		if (k)
			change_of(c, base, nb, c->buf, n, seed_for(c, k, 5), true, &o->fault_saving);
	}
	/* the largest sparse span with an order-0 baseline */
	for (i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i];

		if (c->included[i] && t->sparse && t->order == 0 &&
		    results_trial_metric(t, "rss_bytes") && t->span > a->sparse_span)
			a->sparse_span = t->span;
	}
	if (a->sparse_span) {
		nb = collect(c, 0, a->sparse_span, true, "rss_bytes", false, base);
		for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
			struct analyze_order *o = &a->orders[k];

			n = collect(c, k, a->sparse_span, true, "rss_bytes", false, c->buf);
			stat_of(c, c->buf, n, seed_for(c, k, 6), &o->rss);
			if (k)
				change_of(c, base, nb, c->buf, n, seed_for(c, k, 7), false, &o->bloat);
		}
	}
	free(base);
	return 0;
}

/* Every metric of the analysed trials, per order, and the primary metric
 * per span. */
static void series(struct ctx *c)
{
	struct analysis *a = c->a;
	size_t i, j;
	int k, s;

	for (i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i];
		bool dense = trial_dense_match(c, t, a->span);
		bool sparse = t->sparse && a->sparse_span && t->span == a->sparse_span;

		if (!c->included[i] || (!dense && !sparse))
			continue;
		for (j = 0; j < t->nr_metrics; j++) {
			const struct results_metric *m = &t->metrics[j];
			bool seen = false;

			for (k = 0; k < a->nr_metrics; k++)
				seen |= !strcmp(a->metrics[k].name, m->name) &&
					a->metrics[k].sparse == sparse;
			if (seen || a->nr_metrics == ANALYZE_MAX_METRICS)
				continue;
			struct analyze_metric *am = &a->metrics[a->nr_metrics++];

			snprintf(am->name, sizeof(am->name), "%s", m->name);
			snprintf(am->source, sizeof(am->source), "%s", m->source);
			am->sparse = sparse;
			metric_unit(m->name, am->unit, sizeof(am->unit), &am->per_access);
		}
	}
	for (k = 0; k < a->nr_metrics; k++) {
		struct analyze_metric *am = &a->metrics[k];
		uint64_t span = am->sparse ? a->sparse_span : a->span;
		int o;

		for (o = 0; o < ANALYZE_NR_ORDERS; o++) {
			size_t n = collect(c, o, span, am->sparse, am->name, am->per_access, c->buf);

			stat_of(c, c->buf, n, seed_for(c, o, 10 + k), &am->by_order[o]);
		}
	}
	for (s = 0; s < a->nr_spans; s++)
		for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
			size_t n = collect(c, k, a->spans[s].span, false, a->metric, a->per_access,
					   c->buf);

			stat_of(c, c->buf, n, seed_for(c, k, 100 + s), &a->spans[s].by_order[k]);
		}
}

/* ---- recommendation ------------------------------------------------------ */

static bool vendor_is(const struct results *r, const char *vendor_id, const char *word)
{
	return !strcmp(r->cpu_vendor, vendor_id) || strcasestr(r->cpu_model, word);
}

static void hardware_note(struct analysis *a, int knee)
{
	const struct results *r = a->res;
	char *n = a->hardware_note;
	size_t size = sizeof(a->hardware_note);

	n[0] = '\0';
	if (!strcmp(r->arch, "aarch64") || !strcmp(r->arch, "arm64")) {
		int co = arch_arm64_contpte_order((long)r->page_size);

		append(n, size, "arm64 maps folios of order %d and above (%lluK with %lluK pages) "
		       "with contiguous PTEs (contpte), which a TLB entry can cover as one, so the "
		       "hardware predicts a knee at order %d", co,
		       (unsigned long long)(r->page_size << (co < 0 ? 0 : co)) >> 10,
		       (unsigned long long)r->page_size >> 10, co);
		if (knee >= 0)
			append(n, size, knee == co ? "; the measured knee matches it." :
			       "; the measured knee is at order %d instead.", knee);
		else
			append(n, size, ".");
	} else if (vendor_is(r, "AuthenticAMD", "AMD")) {
		append(n, size, "AMD Zen cores coalesce 4 contiguous, aligned 4K PTEs (order 2) "
		       "into one TLB entry, so the hardware predicts a knee at order 2");
		if (knee >= 0)
			append(n, size, knee == 2 ? "; the measured knee matches it." :
			       "; the measured knee is at order %d instead.", knee);
		else
			append(n, size, ".");
	} else if (vendor_is(r, "GenuineIntel", "Intel")) {
		append(n, size, "Intel cores are not documented to coalesce 4K PTEs in the data "
		       "TLB: below the PMD order, gains come from cheaper walks (PTEs of one "
		       "folio share cache lines) and fewer faults, not from TLB reach.");
	}
	if (r->virtualized)
		append(n, size, "%sThis ran in a VM: every TLB miss costs a two-dimensional "
		       "(guest + host) walk, and the host's backing page size bounds what a "
		       "guest folio can gain.", n[0] ? " " : "");
	if (strcmp(a->metric_source, "pmu"))
		append(n, size, " No hardware PMU counted TLB events here: the evidence is "
		       "time per access, which includes cache and memory effects.");
}

static void khugepaged_note(struct analysis *a)
{
	const struct results *r = a->res;

	if (a->verdict != AN_MTHP) {
		a->khugepaged_note[0] = '\0';
		return;
	}
	snprintf(a->khugepaged_note, sizeof(a->khugepaged_note),
		 "With several orders enabled (order %d up to the PMD order), keep "
		 "khugepaged/max_ptes_none at 255 or below (under half a PMD): above that a "
		 "collapse to a small order leaves the next larger range populated enough to "
		 "collapse again, and memory creeps up to PMD size.", a->min_order);
	if (r->max_ptes_none > 255)
		append(a->khugepaged_note, sizeof(a->khugepaged_note), " The measured machine "
		       "has %ld%s.", r->max_ptes_none, r->max_ptes_none == 511 ?
		       " (the default, made for PMD-only collapse)" : "");
}

static void pct(char *buf, size_t size, double v)
{
	if (isnan(v))
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, "%.1f %%", 100.0 * v);
}

static void describe_gain(struct analysis *a, char *buf, size_t size, int k)
{
	const struct analyze_order *o = &a->orders[k];
	char v[16], lo[16], hi[16];

	pct(v, sizeof(v), o->gain.value);
	pct(lo, sizeof(lo), o->gain.lo);
	pct(hi, sizeof(hi), o->gain.hi);
	append(buf, size, "order %d saves %s of %s [95 %% CI %s, %s; Holm p = %.3g]", k, v,
	       a->metric_unit, lo, hi, o->p_adj);
}

/* The smallest two-sided p an exact rank test can give for n vs n without
 * ties, 2 / C(2n, n), times m for Holm's first step. */
static double best_holm_p(size_t n, int m)
{
	double log_c = lgamma(2.0 * (double)n + 1.0) - 2.0 * lgamma((double)n + 1.0);

	return 2.0 * exp(-log_c) * (double)m;
}

static void reps_advice(struct analysis *a, size_t n, int m)
{
	size_t need = 2;

	while (need < 50 && best_holm_p(need, m) >= ANALYZE_ALPHA)
		need++;
	if (n < need)
		snprintf(a->advice, sizeof(a->advice), "Re-run with more repetitions: with %zu per "
			 "order and %d orders compared against order 0, no order can reach "
			 "significance (the smallest possible Holm-adjusted p is %.3g); %zu per "
			 "order is the minimum, 10 or more make the CIs tight. Also more accesses "
			 "per trial, and an idle machine (pinned CPU, no other load).", n, m,
			 best_holm_p(n, m), need);
	else
		snprintf(a->advice, sizeof(a->advice), "Re-run with more repetitions (%zu per "
			 "order now; 10 or more make the CIs tight), more accesses per trial, and "
			 "on an idle machine (pinned CPU, no other load).", n);
}

static void recommend(struct analysis *a)
{
	const struct analyze_order *o = a->orders;
	char *r = a->reason, thr[16], sz[16];
	size_t rs = sizeof(a->reason);
	int k, first_gain = -1, lowest_unclear = -1, nr_other = 0;
	size_t min_n = SIZE_MAX;

	pct(thr, sizeof(thr), a->threshold);
	for (k = 1; k < ANALYZE_NR_ORDERS; k++) {
		if (!o[k].primary.n)
			continue;
		nr_other++;
		if (o[k].primary.n < min_n)
			min_n = o[k].primary.n;
		if (k < a->pmd_order && o[k].status == AN_ST_GAIN && first_gain < 0)
			first_gain = k;
		if (o[k].status == AN_ST_UNCLEAR && lowest_unclear < 0)
			lowest_unclear = k;
	}
	if (o[0].primary.n < min_n)
		min_n = o[0].primary.n;
	a->min_order = a->candidate_order = -1;
	r[0] = '\0';
	if (first_gain < 0 && analyze_order_measured(a, a->pmd_order) &&
	    o[a->pmd_order].status == AN_ST_GAIN)
		first_gain = a->pmd_order;

	if (first_gain >= 0 && (lowest_unclear < 0 || lowest_unclear > first_gain)) {
		a->min_order = first_gain;
		a->verdict = first_gain < a->pmd_order ? AN_MTHP : AN_PMD_ONLY;
		analyze_order_size(a, first_gain, sz, sizeof(sz));
		if (a->verdict == AN_MTHP)
			append(r, rs, "Order %d (%s folios) is the smallest order whose gain is "
			       "significant and material (at least %s): ", first_gain, sz, thr);
		else
			append(r, rs, "Only the PMD order (%s) gains materially (at least %s): ",
			       sz, thr);
		describe_gain(a, r, rs, first_gain);
		append(r, rs, ".");
		for (k = 1; k < first_gain && !o[k].primary.n; k++)
			;
		if (k < first_gain)
			append(r, rs, " Every measured order below it stays under %s (its CI "
			       "rules a material gain out).", thr);
		if (a->verdict == AN_MTHP && !isnan(o[first_gain].share.value))
			append(r, rs, " It reaches %.0f %% of the PMD order's gain.",
			       100.0 * o[first_gain].share.value);
		if (a->verdict == AN_MTHP)
			snprintf(a->advice, sizeof(a->advice), "Enable hugepages-%llukB and the "
				 "larger sizes (always or madvise); for khugepaged (kernels with mTHP "
				 "collapse), a minimum collapse order of %d.",
				 (unsigned long long)(a->res->page_size << first_gain) >> 10,
				 first_gain);
		else
			snprintf(a->advice, sizeof(a->advice), "Keep the mTHP sizes below PMD off "
				 "for this access pattern; PMD THP alone gives the gain.");
	} else if (first_gain < 0 && lowest_unclear < 0) {
		a->verdict = AN_NO_GAIN;
		append(r, rs, "No order gains materially: for every measured order the 95 %% CI "
		       "of the saving in %s stays below %s", a->metric_unit, thr);
		for (k = ANALYZE_NR_ORDERS - 1; k > 0; k--)
			if (o[k].primary.n) {
				append(r, rs, " (the largest, ");
				describe_gain(a, r, rs, k);
				append(r, rs, ")");
				break;
			}
		append(r, rs, ".");
		snprintf(a->advice, sizeof(a->advice), "Larger folios buy nothing in translation "
			 "for this pattern and span; a larger span (beyond the TLB reach) may.");
	} else {
		a->verdict = AN_INCONCLUSIVE;
		a->candidate_order = first_gain;
		if (first_gain >= 0) {
			append(r, rs, "Order %d gains: ", first_gain);
			describe_gain(a, r, rs, first_gain);
			append(r, rs, ". But order %d below it can neither be shown to gain nor be "
			       "ruled out: ", lowest_unclear);
		} else if (o[0].primary.n && o[0].primary.median == 0.0) {
			/* a gain is a share of the order-0 value: none exists */
			append(r, rs, "No gain can be computed: the order-0 median of %s is 0, and "
			       "a gain is a share of it. The metric counted nothing at order 0 "
			       "(a counter that did not run, or a span inside the TLB reach)",
			       a->metric);
			snprintf(a->advice, sizeof(a->advice), "Check that %s counts at order 0 "
				 "(mthpscope events), or measure a span beyond the TLB reach.",
				 a->metric);
			goto noted;
		} else {
			append(r, rs, "Too noisy to tell: ");
		}
		describe_gain(a, r, rs, lowest_unclear);
		append(r, rs, "; the interval spans the %s threshold.", thr);
		reps_advice(a, min_n == SIZE_MAX ? 0 : min_n, nr_other);
	}
noted:
	if (nr_other == 0)
		a->verdict = AN_INCONCLUSIVE;
	hardware_note(a, a->verdict == AN_MTHP || a->verdict == AN_PMD_ONLY ? a->min_order : -1);
	khugepaged_note(a);
}

/* On an emulated CPU (QEMU TCG) time per access and cycle counts are the
 * emulator's, not a TLB's: no hardware conclusion may rest on them. Faults,
 * folio coverage and bloat stay real (the kernel made them) and are still
 * reported; only the verdict drawn from the primary metric is withheld. */
static void emulated_cpu_rule(struct analysis *a)
{
	char was[sizeof(a->reason)];

	if (!a->res->emulated || (strcmp(a->metric_source, "timing") &&
				  strcmp(a->metric_source, "pmu")))
		return;
	snprintf(was, sizeof(was), "%s", a->reason);
	a->candidate_order = a->verdict == AN_MTHP || a->verdict == AN_PMD_ONLY ?
		a->min_order : a->candidate_order;
	a->verdict = AN_INCONCLUSIVE;
	a->min_order = -1;
	snprintf(a->reason, sizeof(a->reason), "emulated CPU: this ran on an emulated CPU "
		 "(%s), so %s (%s) measures the emulator, not a TLB; no hardware conclusion "
		 "is drawn. Page faults, folio coverage and bloat are the kernel's own and "
		 "stay valid. The emulated data alone would say: %s",
		 a->res->emulation[0] ? a->res->emulation : "QEMU TCG", a->metric,
		 a->metric_source, was);
	snprintf(a->advice, sizeof(a->advice), "Run on real hardware, or in a guest with "
		 "hardware virtualization (KVM), for timing and TLB conclusions.");
	a->khugepaged_note[0] = '\0';
}

int analyze_run(const struct results *r, const struct analyze_opts *opts,
		struct analysis **out, char *err, size_t errsize)
{
	struct analysis *a = calloc(1, sizeof(*a));
	struct ctx c = { .a = a, .r = r };
	int rc = 0, k, nr_orders = 0;

	*out = NULL;
	if (!a)
		return -ENOMEM;
	c.included = calloc(r->nr_trials, sizeof(*c.included));
	c.buf = calloc(r->nr_trials, sizeof(*c.buf));
	a->excluded = calloc(r->nr_trials, sizeof(*a->excluded));
	if (!c.included || !c.buf || !a->excluded) {
		rc = -ENOMEM;
		goto out;
	}
	a->res = r;
	a->pmd_order = r->pmd_order;
	a->threshold = opts && opts->threshold > 0 ? opts->threshold : ANALYZE_MATERIAL_GAIN;
	c.iters = opts && opts->iters ? opts->iters : ANALYZE_BOOT_ITERS;
	c.seed = opts && opts->seed ? opts->seed : (r->config_seed ? r->config_seed : 1);
	c.want_span = opts ? opts->span : 0;
	select_trials(&c);
	if (choose_pattern(&c)) {
		rc = fail(err, errsize, "no dense trials (only sparse ones): nothing measures "
			  "translation");
		goto out;
	}
	note_other_patterns(&c);
	collect_spans(&c);
	if (!a->span && c.want_span) {
		rc = fail(err, errsize, "no usable order-0 trials of pattern '%s' at span %llu "
			  "(%llu MiB)", a->pattern, (unsigned long long)c.want_span,
			  (unsigned long long)(c.want_span >> 20));
		goto out;
	}
	if (!a->span) {
		rc = fail(err, errsize, "no usable order-0 trials of pattern '%s' (%zu of %zu "
			  "trials excluded): order 0 is the baseline every gain is measured "
			  "against", a->pattern, a->nr_excluded, r->nr_trials);
		goto out;
	}
	if (choose_metric(&c)) {
		rc = fail(err, errsize, "no primary metric: none of walk_cycles, walks, "
			  "dtlb_misses (pmu) or ns_per_access is in every trial of pattern '%s'",
			  a->pattern);
		goto out;
	}
	if ((rc = per_order(&c)))
		goto out;
	for (k = 1; k < ANALYZE_NR_ORDERS; k++)
		nr_orders += a->orders[k].primary.n > 0;
	if (!nr_orders) {
		rc = fail(err, errsize, "only order 0 has usable trials: there is nothing to "
			  "compare it with");
		goto out;
	}
	classify(a);
	if ((rc = pmd_share(&c)) || (rc = cost_side(&c)))
		goto out;
	series(&c);
	recommend(a);
	emulated_cpu_rule(a);
out:
	free(c.included);
	free(c.buf);
	if (rc) {
		if (rc == -ENOMEM)
			snprintf(err, errsize, "out of memory");
		analyze_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

void analyze_free(struct analysis *a)
{
	if (!a)
		return;
	free(a->excluded);
	free(a);
}
