/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mthpscope probe's measuring half (issue 38): the variants of
 * src/analysis/tlb_probe.h timed through the one engine (bench.h's
 * interleaved schedule: every variant of a rep in the same rounds, a
 * seeded placement per rep), the layouts read back from pagemap. The
 * inference is tlb_probe_infer's. Return convention: 0 or negative errno;
 * progress through the bench's report callback.
 */
#ifndef PROBE_H
#define PROBE_H

#include <signal.h>

#include "bench.h"
#include "tlb_probe.h"

#define PROBE_DEFAULT_REPS 5
#define PROBE_DEFAULT_TRIAL_NS 250e6 /* each variant's share of a rep */

struct probe_plan {
	int nr_spans;
	unsigned long long span[PROBE_MAX_SPANS];
	int reps;
	double trial_ns;
	/* set by probe_measure: what each trial did */
	unsigned long long accesses[PROBE_MAX_SPANS];
	int rounds[PROBE_MAX_SPANS];
	bool verified;    /* the layouts were read (root, pagemap PFNs) */
	int low_coverage; /* trials below the engine's coverage share */
};

/*
 * Every span of p, calibrated, then p->reps reps of the six variants
 * (orders 0, 2, 3, 4, the PMD order split to 4K PTEs, the PMD order),
 * into in->ns (the median of each trial's undisturbed rounds) and
 * in->layout (the first rep's). b's counters opened and the THP journal
 * begun by the caller (b->thp: its settings); every knob change goes
 * through thp.c (buffer_set_order). 'stop' (may be NULL) ends it after the
 * rep in progress: in->nr_reps then counts the reps done.
 */
int probe_measure(struct bench *b, struct probe_plan *p, struct probe_input *in,
		  volatile sig_atomic_t *stop);

#endif
