/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * collapse --replay's output: each max_ptes_none run of a policy over a
 * presence map, pass by pass (orders made, RSS growth, TLB entries per CPU
 * model), as text or as the JSON document mthpscope.replay/1 (stdout only).
 * Every figure is the model's (computed_by "model").
 */
#ifndef REPLAY_REPORT_H
#define REPLAY_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "replay.h"
#include "tlb_model.h"

#define REPLAY_SCHEMA "mthpscope.replay/1"

struct replay_report_run {
	int max_ptes_none;
	bool rewritten;                    /* merged: taken as 0 for mTHP orders */
	const struct replay_state *states; /* passes + 1 */
	/* after the last pass, range by range (the report's nr_ranges, in the
	 * map's order); NULL: not given */
	const struct replay_range_pages *ranges;
};

struct replay_report {
	const char *policy;                /* as given, with -defer */
	unsigned long orders;
	int min_order, passes;
	const char *presence;              /* the map's file, or NULL: synthetic */
	const char *command;               /* the map's process, or NULL */
	double fill;                       /* synthetic: share, span bytes, seed */
	unsigned long long span, seed;
	unsigned page_shift;
	int pmd_order;
	size_t nr_ranges;
	const struct tlb_geometry *const *models;
	size_t nr_models;
	const struct replay_report_run *runs;
	size_t nr_runs;
};

/* "0:44,2:36,...": present pages by order, the orders holding any. */
void replay_report_mass(const struct replay_state *st, int pmd_order, char *buf, size_t size);
void replay_report_text(const struct replay_report *r, FILE *out);
/* NULL without memory. */
json_t *replay_report_json(const struct replay_report *r);

#endif
