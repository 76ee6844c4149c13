// SPDX-License-Identifier: GPL-2.0-or-later
/* The translation model beside an analysis (src/analysis/tlb_predict.h). */
#include "folio_types.h"
#include "tlb_predict.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Room for one cell's values per level: as many as the file has trials, so
 * that every trial of a cell counts (run allows 1000 repetitions; the
 * medians once looked at the first 256). */
struct cell_scratch {
	double *mem;
	double *ent[TLB_MAX_LEVELS], *mr[TLB_MAX_LEVELS];
};

static int scratch_alloc(struct cell_scratch *sc, size_t nr_trials)
{
	size_t n = nr_trials ? nr_trials : 1;
	int lv;

	sc->mem = calloc(2 * TLB_MAX_LEVELS * n, sizeof(*sc->mem));
	if (!sc->mem)
		return -ENOMEM;
	for (lv = 0; lv < TLB_MAX_LEVELS; lv++) {
		sc->ent[lv] = sc->mem + (size_t)(2 * lv) * n;
		sc->mr[lv] = sc->mem + (size_t)(2 * lv + 1) * n;
	}
	return 0;
}

static bool trial_excluded(const struct analysis *a, size_t idx)
{
	size_t i;

	for (i = 0; i < a->nr_excluded; i++)
		if (a->excluded[i].trial == idx)
			return true;
	return false;
}

static bool trial_used(const struct analysis *a, size_t idx)
{
	const struct results_trial *t = &a->res->trials[idx];

	return !t->sparse && !strcmp(t->pattern, a->pattern) && t->order < ANALYZE_NR_ORDERS &&
	       !trial_excluded(a, idx);
}

static bool has_hists(const struct analysis *a)
{
	size_t i;

	for (i = 0; i < a->res->nr_trials; i++)
		if (a->res->trials[i].has_hist && trial_used(a, i))
			return true;
	return false;
}

bool tlb_predict_has_layouts(const struct analysis *a)
{
	size_t i;

	for (i = 0; i < a->res->nr_trials; i++)
		if (a->res->trials[i].has_layout && trial_used(a, i))
			return true;
	return false;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The median of v[0..n) (NaNs sort nowhere useful: any NaN gives NaN). */
static double median(double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (isnan(v[i]))
			return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Did folios of 'order' come out physically scattered for g's merge rule:
 * the merged blocks the layout has fall short of what its PTE-mapped pages
 * in aligned, contiguous folios of that order would give (by a tenth)?
 */
static bool scattered(const struct tlb_geometry *g, const struct layout_hist *h, int order)
{
	unsigned long long want, have;
	int m;

	if (g->merge == TLB_MERGE_NONE || order >= h->pmd_order)
		return false;
	m = g->merge == TLB_MERGE_CONTPTE && h->page_shift != 12 ? arch_arm64_contpte_order(1L << h->page_shift)
								 : (int)log2((double)g->merge_pages);
	if (m < 1 || order < m || m > h->pmd_order)
		return false;
	want = h->contig[0] >> m;
	have = g->merge == TLB_MERGE_COALESCE ? h->contig[m] : h->folio[m];
	return want && have * 10 < want * 9;
}

/* The layout of an ideal placement of the trial's folio histogram: every
 * folio aligned and physically contiguous within itself, folios scattered
 * against each other (nothing merges across them), PMD-size ones mapped by
 * a PMD (tests/data/gen_layout.py makes the same). */
static bool assumed_layout(const struct analysis *a, const struct results_trial *t,
			   struct layout_hist *h)
{
	unsigned shift = 0;
	int k, j, pmd = a->res->pmd_order;

	while (shift < 30 && (1ULL << shift) < a->res->page_size)
		shift++;
	if (!t->has_hist || pmd < 1 || pmd > LAYOUT_MAX_K || (1ULL << shift) != a->res->page_size)
		return false;
	layout_hist_init(h, shift, pmd);
	for (k = 0; k <= FOLIO_MAX_ORDER; k++) {
		if (!t->hist[k])
			continue;
		if (k >= pmd) {
			h->pmd_maps += t->hist[k] >> pmd;
			continue;
		}
		for (j = 0; j <= k; j++) {
			h->contig[j] += t->hist[k] >> j;
			h->folio[j] += t->hist[k] >> j;
		}
	}
	return true;
}

const struct layout_hist *tlb_predict_layout(const struct analysis *a,
					     const struct tlb_prediction *p, size_t i,
					     struct layout_hist *buf)
{
	const struct results_trial *t = &a->res->trials[i];

	if (!trial_used(a, i))
		return NULL;
	if (t->has_layout)
		return &t->layout;
	return p->assumed && assumed_layout(a, t, buf) ? buf : NULL;
}

/*
 * The footprints of the trials at (span, order), their medians per level. A
 * layout that maps nothing (0 pages: nothing seen mapped) is left out, as
 * run's own metrics leave it (bench.c, bench_model_metrics): it would be "0
 * entries, fits at order 0", a prediction of nothing.
 */
static int cell_fill(const struct analysis *a, const struct tlb_prediction *p, uint64_t span,
		     int order, struct tlb_predict_cell *c, const struct cell_scratch *sc,
		     const struct layout_hist **bad)
{
	static struct layout_hist badbuf;
	const struct tlb_geometry *g = p->g;
	const struct layout_hist *last = NULL, *h;
	struct layout_hist buf, lastbuf;
	struct tlb_footprint fp;
	size_t i, n = 0;
	int lv, err;

	c->empty = 0;
	for (i = 0; i < a->res->nr_trials; i++) {
		const struct results_trial *t = &a->res->trials[i];

		if (t->span != span || t->order != order || !(h = tlb_predict_layout(a, p, i, &buf)))
			continue;
		if (!layout_hist_pages(h)) {
			c->empty++;
			continue;
		}
		if ((err = tlb_footprint(g, h, &fp))) {
			badbuf = *h;
			*bad = &badbuf;
			return err;
		}
		for (lv = 0; lv < g->nr_levels; lv++) {
			sc->ent[lv][n] = (double)fp.level[lv].entries_needed;
			sc->mr[lv][n] = fp.level[lv].miss_ratio;
		}
		lastbuf = *h;
		last = &lastbuf;
		n++;
	}
	c->scatter = last && scattered(g, last, order);
	c->n = n;
	c->gain = c->measured_gain = NAN;
	for (lv = 0; lv < g->nr_levels; lv++) {
		c->entries[lv] = n ? (unsigned long long)llround(median(sc->ent[lv], n)) : 0;
		c->miss[lv] = n ? median(sc->mr[lv], n) : NAN;
	}
	return 0;
}

/* Do the time gains of both knees' orders agree with the measurement?
 * Then the knees differ only where the gains cross the threshold. */
static bool knees_agree_in_time(const struct tlb_predict_span *s)
{
	int kp = s->knee, km = s->measured_knee;

	return kp >= 0 && km >= 0 && s->by_order[kp].agree != 0 && s->by_order[km].agree != 0 &&
	       (s->by_order[kp].agree > 0 || s->by_order[km].agree > 0);
}

/* The likely cause of a disagreement, in words. */
static void cause(const struct analysis *a, const struct tlb_prediction *p,
		  struct tlb_predict_span *s)
{
	int k = s->measured_knee >= 0 ? s->measured_knee : s->knee;
	bool model_more = s->knee >= 0 && (s->measured_knee < 0 || s->knee < s->measured_knee);
	/* merging is named only where something makes it plausible (tlb_time.c) */
	const char *more = p->merge_plausible ? "capacity or merging" : "capacity";

	if (k >= 0 && s->by_order[k].scatter)
		snprintf(s->cause, sizeof(s->cause), "physical scatter: the order-%d folios are not "
			 "contiguous and aligned enough for %s to merge them (fewer merged blocks "
			 "than the order gives)", k, tlb_merge_name(p->g->merge));
	else if (s->fit[0])
		snprintf(s->cause, sizeof(s->cause), "%s", s->fit);
	else if (knees_agree_in_time(s))
		snprintf(s->cause, sizeof(s->cause), "the threshold only: every order's predicted "
			 "time gain is within its measured CI, and the knees differ where the gains "
			 "cross %.0f %% (order %d: predicted %.1f %%, measured %.1f %%)",
			 100.0 * a->threshold, s->measured_knee, 100.0 *
			 s->by_order[s->measured_knee].time_gain.value, 100.0 *
			 s->by_order[s->measured_knee].measured.value);
	else if (model_more && a->res->virtualized)
		snprintf(s->cause, sizeof(s->cause), "host backing in a VM: the guest's contiguous "
			 "pages may sit on smaller or scattered host pages, and the nested walk "
			 "pays for those whatever the guest's folio order");
	else if (model_more)
		snprintf(s->cause, sizeof(s->cause), "a geometry wrong for this CPU: its TLB reaches "
			 "further than %s's capacity, or merges less", p->g->name);
	else
		snprintf(s->cause, sizeof(s->cause), "not explained by the model: the measured "
			 "gain needs more %s than %s has, or is not translation (faults, caches)",
			 more, p->g->name);
}

const char *tlb_predict_unknown_words(enum tlb_predict_unknown u)
{
	switch (u) {
	case TLB_PREDICT_KNOWN:
		break;
	case TLB_PREDICT_NO_LAYOUTS:
		return "no layouts at this span";
	case TLB_PREDICT_EMPTY:
		return "the layouts at this span map no memory";
	case TLB_PREDICT_NO_ORDER0:
		return "no order-0 layout at this span";
	case TLB_PREDICT_EMPTY_ORDER0:
		return "the order-0 layouts at this span map no memory";
	case TLB_PREDICT_NO_CAPACITY:
		return "a level's capacity is not known";
	case TLB_PREDICT_NO_CALIBRATION:
		return "no PMD gain at this span to calibrate the walk cost";
	}
	return "";
}

/* Why the knee at s is not predicted: no layouts there (or only ones that
 * map nothing), none at order 0 (the gains' baseline), or a level's
 * capacity not known (its miss ratio NaN). */
static enum tlb_predict_unknown span_unknown(const struct tlb_predict_span *s, double m0)
{
	bool any = false, empty = false;
	int k;

	if (s->by_order[0].n)
		return isnan(m0) ? TLB_PREDICT_NO_CAPACITY : TLB_PREDICT_KNOWN;
	for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
		any |= s->by_order[k].n > 0;
		empty |= s->by_order[k].empty > 0;
	}
	if (any)
		return s->by_order[0].empty ? TLB_PREDICT_EMPTY_ORDER0 : TLB_PREDICT_NO_ORDER0;
	return empty ? TLB_PREDICT_EMPTY : TLB_PREDICT_NO_LAYOUTS;
}

/* Predicted gains and knee at one span, set against the measured knee. */
static void span_knee(const struct analysis *a, struct tlb_prediction *p, int si)
{
	struct tlb_predict_span *s = &p->spans[si];
	const struct analyze_span *as = &a->spans[si];
	int last = p->g->nr_levels - 1, k;
	double m0 = s->by_order[0].miss[last];

	s->knee = -1;
	s->fits = s->by_order[0].n && m0 == 0.0;
	for (k = 1; k <= a->pmd_order && k < ANALYZE_NR_ORDERS; k++) {
		struct tlb_predict_cell *c = &s->by_order[k];

		if (!c->n || !s->by_order[0].n || isnan(m0) || isnan(c->miss[last]))
			continue;
		c->gain = m0 > 0 ? 1.0 - c->miss[last] / m0 : 0.0;
	}
	/* the knee in the measured one's units: the predicted time gain
	 * against the threshold (tlb_time.c), not the walks saved */
	tlb_time_span(a, p, si);
	/* no layouts, no baseline, a level of unknown capacity or nothing to
	 * calibrate the walk cost: no knee to set against the measured one */
	s->unknown = span_unknown(s, m0);
	if (s->unknown == TLB_PREDICT_KNOWN && !s->fits && !s->calibrated)
		s->unknown = TLB_PREDICT_NO_CALIBRATION;
	s->predicted_known = s->unknown == TLB_PREDICT_KNOWN;
	s->measured_known = as->analysed && as->verdict != AN_INCONCLUSIVE;
	s->measured_knee = as->analysed ? as->min_order : -1;
	s->agree = !s->measured_known || !s->predicted_known || s->knee == s->measured_knee;
	if (!s->agree) {
		cause(a, p, s);
		p->nr_disagree++;
	}
}

/* The geometry the results carry ($.config.tlb_geometry: run keeps there
 * one the table lacks, its CPU's CPUID), when it is the one named: parsed
 * once a text, kept until the next text or the exit. One that does not
 * parse, or is of another name, leaves why in err. */
static const struct tlb_geometry *carried(const struct analysis *a, const char *name,
					  char *err, size_t errsize)
{
	static struct tlb_geometry g;
	static char text[sizeof(a->res->head.config.tlb_geometry)];
	const char *t = a->res->head.config.tlb_geometry;
	char why[256];
	int lv;

	if (!t[0])
		return NULL;
	if (strcmp(text, t)) {
		tlb_geometry_release(&g);
		text[0] = '\0';
		if (tlb_geometry_parse(t, strlen(t), "$.config.tlb_geometry", &g, why,
				       sizeof(why))) {
			snprintf(err, errsize, "it does not parse: %.120s", why);
			return NULL;
		}
		snprintf(text, sizeof(text), "%s", t);
		for (lv = 0; lv < g.nr_levels && !strcmp(g.name, "cpuid"); lv++)
			g.level[lv].source = TLB_SRC_CPUID;
	}
	if (strcmp(g.name, name))
		snprintf(err, errsize, "it is named '%.64s'", g.name);
	return !strcmp(g.name, name) ? &g : NULL;
}

/* The geometry: given, else the one the trials name (the table's, or the
 * one the results carry). */
static const struct tlb_geometry *pick(const struct analysis *a, const struct tlb_geometry *g,
				       struct tlb_prediction *p)
{
	const char *name = NULL;
	char bad[256] = "";
	size_t i;

	if (g)
		return g;
	for (i = 0; i < a->res->nr_trials && !name; i++)
		if (a->res->trials[i].tlb_model[0])
			name = a->res->trials[i].tlb_model;
	if (!name)
		snprintf(p->reason, sizeof(p->reason), "the trials name no TLB model");
	else if (!(g = tlb_geometry_find(name)) && !(g = carried(a, name, bad, sizeof(bad))) &&
		 bad[0])
		snprintf(p->reason, sizeof(p->reason), "the TLB geometry the results carry is "
			 "not the trials' model '%.64s': %s", name, bad);
	else if (!g)
		snprintf(p->reason, sizeof(p->reason), "the trials' TLB model '%s' is not in this "
			 "version's table", name);
	else
		return g;
	/* the advice apart: plot, which has no such options, words its own */
	p->advice_at = strlen(p->reason);
	snprintf(p->reason + p->advice_at, sizeof(p->reason) - p->advice_at,
		 ": give --tlb-model NAME or --tlb-geometry FILE");
	return NULL;
}

/* Why the layout h of a trial does not fit p's geometry: a level that does
 * not hold its base page, else (as before) the rule and its page size; a
 * shift no machine has is named as it stands. */
static void misfit_reason(struct tlb_prediction *p, const struct layout_hist *h)
{
	unsigned shift = h->page_shift;
	unsigned long long kib = shift >= 10 && shift <= 30 ? 1ULL << (shift - 10) : 0;
	int lv = 0;

	if (tlb_misfit(p->g, h, &lv) == TLB_MISFIT_SIZES)
		snprintf(p->reason, sizeof(p->reason), "the layouts do not fit %s: its level %s "
			 "does not hold their %llu KiB pages, the base page size", p->g->name,
			 p->g->level[lv].name, kib);
	else if (kib)
		snprintf(p->reason, sizeof(p->reason), "the layouts do not fit %s's rule (page "
			 "size %llu KiB)", p->g->name, kib);
	else
		snprintf(p->reason, sizeof(p->reason), "the layouts do not fit %s's rule "
			 "(page_shift %u)", p->g->name, shift);
}

void tlb_predict(const struct analysis *a, const struct tlb_geometry *g, struct tlb_prediction *p)
{
	struct cell_scratch sc = { 0 };
	const struct layout_hist *bad = NULL;
	int si, k, lv;

	memset(p, 0, sizeof(*p));
	/* a model named for a file without layouts: each trial's folio
	 * histogram laid out ideally, and said so */
	p->assumed = g && !tlb_predict_has_layouts(a) && has_hists(a);
	if (!tlb_predict_has_layouts(a) && !p->assumed) {
		snprintf(p->reason, sizeof(p->reason), "the trials carry no layout histogram (a "
			 "results file from before it, or PFNs hidden without root): unavailable, "
			 "not zero");
		return;
	}
	if (!(p->g = pick(a, g, p)))
		return;
	tlb_time_plausible(a, p);
	if (scratch_alloc(&sc, a->res->nr_trials)) {
		snprintf(p->reason, sizeof(p->reason), "out of memory for the model's medians");
		return;
	}
	for (lv = 0; lv < p->g->nr_levels; lv++)
		p->capacity[lv] = p->g->level[lv].entries;
	p->nr_spans = a->nr_spans;
	for (si = 0; si < a->nr_spans; si++) {
		p->spans[si].span = a->spans[si].span;
		if (a->spans[si].span == a->span)
			p->verdict_span = si;
		for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
			if (cell_fill(a, p, a->spans[si].span, k, &p->spans[si].by_order[k], &sc,
				      &bad)) {
				misfit_reason(p, bad);
				goto out;
			}
		}
		span_knee(a, p, si);
	}
	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		if (a->orders[k].present)
			p->spans[p->verdict_span].by_order[k].measured_gain = a->orders[k].gain.value;
	p->available = true;
out:
	free(sc.mem);
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *cell_json(const struct tlb_prediction *p, const struct tlb_predict_cell *c, int k)
{
	json_t *e = json_array(), *m = json_array();
	int lv;

	for (lv = 0; lv < p->g->nr_levels; lv++) {
		json_array_append_new(e, json_integer((json_int_t)c->entries[lv]));
		json_array_append_new(m, num(c->miss[lv]));
	}
	json_t *o = json_pack("{s:i, s:I, s:o, s:o, s:o, s:o, s:b}", "order", k, "trials",
			      (json_int_t)c->n, "entries_needed", e, "miss_ratio", m,
			      "predicted_gain", num(c->gain), "measured_gain",
			      num(c->measured_gain), "scatter", c->scatter);

	json_t *t = tlb_time_cell_json(c);

	/* the time model's members beside them (tlb_time.c) */
	if (o && t)
		json_object_update(o, t);
	json_decref(t);
	return o;
}

static json_t *span_json(const struct tlb_prediction *p, const struct tlb_predict_span *s)
{
	json_t *orders = json_array(), *o;
	int k;

	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		if (s->by_order[k].n)
			json_array_append_new(orders, cell_json(p, &s->by_order[k], k));
	o = json_pack("{s:I, s:o, s:o, s:b, s:o, s:o, s:o}", "span", (json_int_t)s->span,
		      "orders", orders, "predicted_knee",
		      s->knee >= 0 ? json_integer(s->knee) : json_null(), "fits_at_order_0",
		      s->fits, "measured_knee",
		      s->measured_knee >= 0 ? json_integer(s->measured_knee) : json_null(),
		      "agree", s->measured_known && s->predicted_known ? json_boolean(s->agree)
								      : json_null(),
		      "likely_cause", s->cause[0] ? json_string(s->cause) : json_null());
	/* a knee not predicted says why (absent where it is predicted) */
	if (o && !s->predicted_known)
		json_object_set_new(o, "predicted_unknown",
				    json_string(tlb_predict_unknown_words(s->unknown)));
	tlb_time_span_json(p, s, o);
	return o;
}

json_t *tlb_prediction_json(const struct tlb_prediction *p)
{
	json_t *o, *levels, *spans;
	int i;

	if (!p->available)
		return json_pack("{s:b, s:s}", "available", false, "reason", p->reason);
	levels = json_array();
	for (i = 0; i < p->g->nr_levels; i++) {
		const struct tlb_level_geometry *l = &p->g->level[i];
		json_t *lj = json_pack("{s:s, s:o}", "level", l->name, "capacity", p->capacity[i] ?
				       json_integer((json_int_t)p->capacity[i]) : json_null());

		/* base-page capacity above; a separate PMD pool beside it */
		if (lj && !l->shared && l->entries_pmd)
			json_object_set_new(lj, "capacity_pmd", json_integer(l->entries_pmd));
		json_array_append_new(levels, lj);
	}
	spans = json_array();
	for (i = 0; i < p->nr_spans; i++)
		json_array_append_new(spans, span_json(p, &p->spans[i]));
	o = json_pack("{s:b, s:s, s:s, s:s, s:s, s:o, s:I, s:i, s:o}", "available", true, "model",
		      p->g->name, "geometry_source", tlb_source_name(p->g->level[0].source),
		      "source", "model", "assumptions", tlb_model_assumptions(), "levels", levels,
		      "verdict_span", (json_int_t)p->spans[p->verdict_span].span, "disagreements",
		      p->nr_disagree, "spans", spans);
	if (o) {
		json_object_set_new(o, "order_disagreements", json_integer(p->nr_order_disagree));
		json_object_set_new(o, "layouts", json_string(p->assumed ? "assumed from each "
				    "trial's folio histogram" : "measured"));
		/* the host term's regions, where it is fitted (tlb_time.c) */
		json_object_set_new(o, "regions", p->regions_missing ?
				    json_string("not recorded (a file from before "
						"placement.regions_pmd): no host-side term") :
				    p->regions_measured ? json_string("measured") : json_null());
		json_object_set_new(o, "merge_plausible", json_boolean(p->merge_plausible));
	}
	return o;
}
