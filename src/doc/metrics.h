/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The metric registry: every metric name (doc/ARCHITECTURE.md), in the order
 * reports list them, with its unit, whether the counter is normalised per
 * access, which way it gets better, its rank as a primary metric and the
 * source it comes from. arch/ names its events and formulas after these
 * (test_arch checks every name is here), analyze picks its primary metric
 * and units here, compare its directions and row order, plot its labels
 * through analyze. A new metric is one row.
 */
#ifndef METRICS_H
#define METRICS_H

#include <stdbool.h>

/* Which way a metric gets better. Counts of TLB hits at a second level or of
 * coalesced entries are not good or bad by themselves (fewer misses also
 * means fewer of them), so they carry none. */
enum metrics_better {
	METRICS_BETTER_NONE,
	METRICS_BETTER_LOWER,
	METRICS_BETTER_HIGHER,
};

struct metrics_def {
	const char *name;
	const char *unit;        /* for axis labels and reports; NULL: the name */
	bool per_access;         /* a count analyze divides by the trial's accesses */
	enum metrics_better better;
	/* Rank as the primary metric, by strength of evidence (1 first; 0
	 * never): of a micro-benchmark run, and of a run -- CMD (where the
	 * user's own --metric comes after the "pmu" rows, analyze's rule). */
	int primary, primary_command;
	/* The source a value comes from ("pmu", "timing", "kernel", "sw",
	 * "model"); as a primary metric it must come from "pmu" when that is
	 * the hint, any source otherwise. */
	const char *source;
};

/* The registry, in report order, terminated by { NULL }. */
extern const struct metrics_def metrics_table[];

/* The row of 'name', or NULL for a metric the registry does not know (a
 * --metric of run -- CMD, say). */
const struct metrics_def *metrics_find(const char *name);
/* Report order: the row's index; unknown metrics after every known one. */
int metrics_rank(const char *name);
/* The primary-metric candidates in rank order (command: of run -- CMD):
 * up to max rows; returns how many. */
int metrics_primary_candidates(bool command, const struct metrics_def **out, int max);

#endif
