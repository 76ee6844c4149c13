// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The placements' words in an analysis (issue 39): how reproducible the
 * verdict's gain is, and where the spread between physical placements
 * leaves an order's status open. The numbers come from analyze.c
 * (placement_spread: the cluster bootstrap and spread of stats_cluster.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "mthpscope.h"

/* Placements disagree about an order: its status is unclear, between a
 * quarter and three quarters of them alone gain the threshold, and their
 * gains spread by at least half the threshold beyond what their rounds'
 * scatter explains (else the rounds' noise, not placement, splits them). */
#define SPLIT_LOW 0.25
#define SPLIT_HIGH 0.75

static bool file_has_placements(const struct analysis *a)
{
	size_t i;

	for (i = 0; i < a->res->nr_trials; i++) {
		const struct results_trial *t = &a->res->trials[i];

		if (!t->sparse && t->span == a->span && !strcmp(t->pattern, a->pattern) &&
		    t->has_placement)
			return true;
	}
	return false;
}

/* The order the line speaks of: the verdict's, else the widest spread. */
static int reference_order(const struct analysis *a)
{
	int k, best = -1;

	if (a->min_order > 0 && isfinite(a->orders[a->min_order].placement_sd))
		return a->min_order;
	if (a->candidate_order > 0 && isfinite(a->orders[a->candidate_order].placement_sd))
		return a->candidate_order;
	for (k = 1; k < ANALYZE_NR_ORDERS; k++)
		if (isfinite(a->orders[k].placement_sd) &&
		    (best < 0 || a->orders[k].placement_sd > a->orders[best].placement_sd))
			best = k;
	return best;
}

/* Orders whose placements disagree, said in the reason. */
static void split_orders(struct analysis *a)
{
	int k;

	for (k = 1; k < ANALYZE_NR_ORDERS; k++) {
		struct analyze_order *o = &a->orders[k];
		double share = o->placements ? (double)o->placements_gaining /
						       (double)o->placements : NAN;

		if (o->status != AN_ST_UNCLEAR || o->placements < 4 || !(share >= SPLIT_LOW) ||
		    !(share <= SPLIT_HIGH) || !(o->placement_sd >= a->threshold / 2))
			continue;
		o->placement_split = true;
		ms_appendf(a->reason, sizeof(a->reason), " Order %d depends on where its memory "
			   "sits: %zu of %zu placements alone gain at least %.0f %%, the others "
			   "less (between placements: SD %.1f points), so its status is left "
			   "unclear rather than picked.", k, o->placements_gaining, o->placements,
			   100.0 * a->threshold, 100.0 * o->placement_sd);
	}
}

void analyze_placement_notes(struct analysis *a)
{
	const struct analyze_order *o;
	int k;

	a->has_placement_ids = file_has_placements(a);
	if (a->method != AN_PAIRED) {
		if (!a->has_placement_ids)
			return;
		snprintf(a->placement_note, sizeof(a->placement_note), "placements: the trials "
			 "are compared unpaired; each trial's placement is its own");
		return;
	}
	split_orders(a);
	if ((k = reference_order(a)) < 0) {
		snprintf(a->placement_note, sizeof(a->placement_note), "one placement: the gains' "
			 "CIs hold the scatter of its rounds only; how far a rerun, placed "
			 "elsewhere in memory, moves is not known from this file");
		return;
	}
	o = &a->orders[k];
	snprintf(a->placement_note, sizeof(a->placement_note), "between placements: SD %.1f "
		 "points at order %d (%zu placements; rounds within one: SE %.1f); a rerun is "
		 "expected within +/-%.1f", 100.0 * o->placement_sd, k, o->placements,
		 100.0 * o->round_se, 100.0 * o->rerun);
	if (!a->has_placement_ids)
		ms_appendf(a->placement_note, sizeof(a->placement_note), ". Note: this file "
			   "carries no placement ids (written before they were recorded): each rep "
			   "is taken as a placement, as before, but whether its memory really moved "
			   "is not known, so the spread may be understated");
}
