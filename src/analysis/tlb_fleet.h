/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fleet view (analyze --tlb-model all, issue 38 item 5): from one
 * results file's own layouts, every table model's predicted knee and
 * plateau order and the entries its last level needs at each order, beside
 * what was measured: "3 on Zen, 4 on Neoverse, PMD only on Intel". Each row
 * is labelled model or measured. Pure computation (tlb_predict.h).
 */
#ifndef TLB_FLEET_H
#define TLB_FLEET_H

#include <jansson.h>
#include <stdbool.h>

#include "analyze.h"
#include "tlb_predict.h"

#define TLB_FLEET_MAX 48
/* plateau / knee values besides an order */
#define TLB_FLEET_PMD_ONLY (-1)  /* no order below PMD reaches the threshold */
#define TLB_FLEET_UNKNOWN (-2)   /* not predicted (reason says why) */

struct tlb_fleet_row {
	const char *model;       /* geometry name; "measured" for the measured row */
	bool measured;
	bool available;
	char reason[160];        /* why not, when not available or not known */
	int knee, plateau;       /* an order, TLB_FLEET_PMD_ONLY or TLB_FLEET_UNKNOWN */
	unsigned long long entries[ANALYZE_NR_ORDERS]; /* last level, median; 0: no layout */
	struct analyze_change gain[ANALYZE_NR_ORDERS]; /* predicted time gain, or measured */
	char last_level[16];
};

struct tlb_fleet {
	uint64_t span;           /* the verdict span */
	bool assumed;            /* layouts assumed from the folio histograms */
	int nr;
	struct tlb_fleet_row rows[TLB_FLEET_MAX];
};

/* Every table model and the measurement at a's verdict span. 0 or -ENOMEM. */
int tlb_fleet_build(const struct analysis *a, struct tlb_fleet *f);
json_t *tlb_fleet_json(const struct analysis *a, const struct tlb_fleet *f);

#endif
