/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scan --tlb: the TLB entries a layout (layout.h) needs under each model
 * (tlb_model.h), as text lines per VMA and in total, and as the JSON of the
 * mthpscope.scan/1 document ("layout", "tlb"). Writes only to the stream
 * or object it is given.
 */
#ifndef SCAN_TLB_H
#define SCAN_TLB_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "layout.h"
#include "tlb_model.h"

struct scan_tlb_view {
	const struct tlb_geometry *const *models;
	int nr_models;
	bool this_cpu;  /* models[0] is this CPU's (--tlb) */
	bool inc_empty; /* also an empty layout */
};

/* "tlb-MODEL-LEVEL: N entries of C (miss R%, model, SOURCE)" per model and level. */
void scan_tlb_write(struct scan_tlb_view v, const struct layout_hist *h, FILE *f);
/* The total: "total:" when head, the lines, then one sentence of the last
 * level's entries on each model (and "no footprint on M (why)" for each
 * model that does not fit the layout). */
void scan_tlb_write_total(struct scan_tlb_view v, const struct layout_hist *h, bool head,
			  FILE *f);
/* "layout" and "tlb" (one footprint per model) into object o; "tlb_misfits"
 * ([{"model", "computed_by": "model", "reason"}]) where a model does not
 * fit the layout. */
void scan_tlb_json(struct scan_tlb_view v, const struct layout_hist *h, json_t *o);

#endif
