// SPDX-License-Identifier: GPL-2.0-or-later
/* The fleet view (src/analysis/tlb_fleet.h). */
#include "tlb_fleet.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The model's plateau: the smallest order below PMD whose predicted time
 * gain is material and reaches ANALYZE_PLATEAU_SHARE of the best predicted
 * below PMD, the measurement's rule on the model's numbers. */
static int model_plateau(const struct analysis *a, const struct tlb_predict_span *s)
{
	double best = -INFINITY;
	int k;

	for (k = 1; k < a->pmd_order && k < ANALYZE_NR_ORDERS; k++)
		if (s->by_order[k].n && isfinite(s->by_order[k].time_gain.value))
			best = fmax(best, s->by_order[k].time_gain.value);
	if (!isfinite(best) || best < a->threshold)
		return TLB_FLEET_PMD_ONLY;
	for (k = 1; k < a->pmd_order && k < ANALYZE_NR_ORDERS; k++) {
		double g = s->by_order[k].time_gain.value;

		if (s->by_order[k].n && isfinite(g) && g >= a->threshold &&
		    g >= ANALYZE_PLATEAU_SHARE * best)
			return k;
	}
	return TLB_FLEET_PMD_ONLY;
}

static void model_row(const struct analysis *a, const struct tlb_prediction *p,
		      struct tlb_fleet_row *r)
{
	const struct tlb_predict_span *s = &p->spans[p->verdict_span];
	int k, last;

	r->available = p->available;
	r->knee = r->plateau = TLB_FLEET_UNKNOWN;
	if (!p->available) {
		snprintf(r->reason, sizeof(r->reason), "%.159s", p->reason);
		return;
	}
	last = p->g->nr_levels - 1;
	snprintf(r->last_level, sizeof(r->last_level), "%s", p->g->level[last].name ?
		 p->g->level[last].name : "last");
	for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
		r->entries[k] = s->by_order[k].n ? s->by_order[k].entries[last] : 0;
		r->gain[k] = s->by_order[k].time_gain;
	}
	if (!s->predicted_known) {
		snprintf(r->reason, sizeof(r->reason), "%s", tlb_predict_unknown_words(s->unknown));
		return;
	}
	r->knee = s->knee >= 0 ? s->knee : TLB_FLEET_PMD_ONLY;
	r->plateau = model_plateau(a, s);
}

static void measured_row(const struct analysis *a, struct tlb_fleet_row *r)
{
	int k;

	r->model = "measured";
	r->measured = r->available = true;
	r->knee = a->min_order >= 0 ? a->min_order : TLB_FLEET_UNKNOWN;
	if (a->verdict == AN_PMD_ONLY)
		r->knee = TLB_FLEET_PMD_ONLY;
	r->plateau = a->plateau.order >= 0 ? a->plateau.order : a->verdict == AN_PMD_ONLY ?
		TLB_FLEET_PMD_ONLY : TLB_FLEET_UNKNOWN;
	if (r->plateau == TLB_FLEET_UNKNOWN || r->knee == TLB_FLEET_UNKNOWN)
		snprintf(r->reason, sizeof(r->reason), "%s", a->plateau.reason);
	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		r->gain[k] = a->orders[k].gain;
}

int tlb_fleet_build(const struct analysis *a, struct tlb_fleet *f)
{
	const struct tlb_geometry *const *g;
	struct tlb_prediction *p = malloc(sizeof(*p));

	if (!p)
		return -ENOMEM;
	memset(f, 0, sizeof(*f));
	f->span = a->span;
	measured_row(a, &f->rows[f->nr++]);
	for (g = tlb_geometries; *g && f->nr < TLB_FLEET_MAX; g++) {
		struct tlb_fleet_row *r = &f->rows[f->nr++];

		tlb_predict(a, *g, p);
		r->model = (*g)->name;
		f->assumed |= p->assumed;
		model_row(a, p, r);
	}
	free(p);
	return 0;
}

static json_t *order_json(int v)
{
	return v >= 0 ? json_integer(v) : v == TLB_FLEET_PMD_ONLY ? json_string("pmd-only")
								 : json_null();
}

static json_t *row_json(const struct analysis *a, const struct tlb_fleet_row *r)
{
	json_t *e = json_object(), *g = json_object(), *o;
	char key[8];
	int k;

	for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
		snprintf(key, sizeof(key), "%d", k);
		if (r->entries[k])
			json_object_set_new(e, key, json_integer((json_int_t)r->entries[k]));
		if (k && k <= a->pmd_order && isfinite(r->gain[k].value))
			json_object_set_new(g, key, json_real(r->gain[k].value));
	}
	o = json_pack("{s:s, s:s, s:b, s:o, s:o, s:o}", "model", r->model, "source",
		      r->measured ? "measured" : "model", "available", r->available, "knee",
		      order_json(r->knee), "plateau_order", order_json(r->plateau),
		      r->measured ? "gain" : "predicted_time_gain", g);
	if (o && !r->measured) {
		json_object_set_new(o, "last_level", json_string(r->last_level));
		json_object_set_new(o, "entries_needed", e);
	} else {
		json_decref(e);
	}
	if (o && r->reason[0])
		json_object_set_new(o, "reason", json_string(r->reason));
	return o;
}

json_t *tlb_fleet_json(const struct analysis *a, const struct tlb_fleet *f)
{
	json_t *rows = json_array();
	int i;

	for (i = 0; i < f->nr; i++)
		json_array_append_new(rows, row_json(a, &f->rows[i]));
	return json_pack("{s:I, s:s, s:o}", "span", (json_int_t)f->span, "layouts",
			 f->assumed ? "assumed from each trial's folio histogram" : "measured",
			 "rows", rows);
}
