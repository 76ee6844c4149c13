/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * run --precision: the sequential rule that decides when the verdict's gain
 * CI is narrow enough, without the stop itself narrowing the CI below its
 * coverage.
 *
 * Why a rule at all: stopping the first time a 95 % CI is within +/-P picks
 * the moment the data happen to look least noisy (a low spread among the
 * reps drawn so far), so the CIs a run stops on are too narrow: on this
 * data's structure (paired log ratios with rep-to-rep drift) the naive rule
 * covers well below 95 % (tests/test_precision.c, doc/run.md "Precision
 * on demand").
 *
 * The rule, Bonferroni over looks:
 * - no look before PRECISION_MIN_REPS reps (a CI over fewer reps has a
 *   spread estimate too noisy to stop on);
 * - looks at fixed rep counts that grow by half each time (10, 15, 23, 35,
 *   53, 80, 120, ...: precision_look_reps), so the number of looks grows
 *   with the log of the budget, not with it;
 * - at the first look the number of looks K is fixed from the time one rep
 *   took and what is left of --max-time (the scheduled looks that fit, plus
 *   one for the look at the stop), before any CI is seen;
 * - every look's CI is made at level 1 - alpha / K, so the chance that any
 *   of the K CIs misses is at most alpha, whatever the rule does with them:
 *   the CI the run stops on covers with at least 1 - alpha.
 * Bonferroni rather than an alpha-spending boundary (Pocock, O'Brien-
 * Fleming) because the stop depends on the CI's width, not on the
 * estimate crossing a boundary, and the bootstrap CIs are not the normal
 * statistics the boundaries are computed for; its price is a wider CI per
 * look (1.37x the 95 % width for K = 7 under normality), paid in more reps.
 */
#ifndef PRECISION_H
#define PRECISION_H

#include <stdbool.h>

#include "analyze.h"

#define PRECISION_MIN_REPS 10
#define PRECISION_ALPHA (1.0 - ANALYZE_LEVEL)
#define PRECISION_DEFAULT_MAX_TIME 300.0
/* the bootstrap's tails at level 1 - alpha/K hold at least this many
 * replicates (precision_iters) */
#define PRECISION_TAIL_REPLICATES 25

/* The reps at which look 'look' (1-based) falls: 10, then each one and a
 * half times the last, rounded up. */
int precision_look_reps(int look);
/*
 * K, the looks a run plans for, fixed at the first look: the scheduled looks
 * at or below the reps the budget allows (PRECISION_MIN_REPS done in
 * elapsed_s, one rep taking rep_s, max_time_s in all, at most max_reps), plus
 * one for the look at the stop. At least 1.
 */
int precision_plan_looks(double elapsed_s, double rep_s, double max_time_s, long max_reps);
/* 1 - alpha / K */
double precision_level(int looks);
/* Bootstrap replicates for that level: ANALYZE_BOOT_ITERS, or more so that
 * each tail holds PRECISION_TAIL_REPLICATES. */
unsigned precision_iters(double level);
/*
 * The half-width that counts in an analysis: the larger side of the gain CI
 * of the verdict's order (min_order, else the candidate of an inconclusive
 * verdict), or with 'all' (or no such order: a "no gain" verdict rests on
 * every order) the widest over every paired order. In gain units (0.03 = 3
 * points). 0 with *half and *order set; -ENODATA when no order has a CI.
 */
int precision_width(const struct analysis *a, bool all, double *half, int *order);

#endif
