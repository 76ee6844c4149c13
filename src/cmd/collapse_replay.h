/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * collapse --replay POLICY: the policy model over a presence map
 * (src/analysis/replay.h) instead of the kernel. A part of cmd_collapse.c:
 * the same --orders, --max-ptes-none, --fill, --span and --seed (the
 * pattern collapse faults), so that a replay and a real run of one
 * command line can be set side by side; no root, no sysfs write.
 *
 * Why an option of collapse and not a command of its own: a replay answers
 * collapse's question (which orders, at what RSS) for another algorithm, on
 * the same inputs: --orders, --max-ptes-none (a sweep, one run each) and,
 * without --presence, --fill/--span/--seed name exactly the span collapse
 * faults, so 'collapse ARGS' and 'collapse --replay merged ARGS' compare
 * page for page (scripts/replay-check.sh does so for every guest cell).
 * The options only a kernel run takes (--mode madvise, --measure, --hold,
 * -o, --plot, the khugepaged timings) are refused with --replay (exit 2).
 */
#ifndef COLLAPSE_REPLAY_H
#define COLLAPSE_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "folio_types.h"

struct collapse_replay_opts {
	const char *policy;      /* --replay (NULL: a real collapse) */
	const char *presence;    /* --presence FILE (NULL: the pattern) */
	const char *tlb_models;  /* --tlb-model all | NAME[,NAME...] */
	const char *final_map;   /* --final-map FILE (NULL: none) */
	int passes, min_order;
	unsigned long long page_size; /* --page-size (0: this host's) */
	/* the collapse options it shares */
	struct folio_orders orders;
	const int *mpn;
	int nr_mpn;
	bool mpn_given;
	double fill;
	unsigned long long span, seed;
	bool json;
};

/* The replay, printed: an exit status. */
int collapse_replay(const struct collapse_replay_opts *o);

#endif
