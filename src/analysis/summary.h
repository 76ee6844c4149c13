/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The end-of-run summary's numbers, from a results model (in memory after a
 * run, or loaded): a metric's values per cell, medians with the bootstrap CI
 * of stats.c, failed trials, and the precision of analyze's paired gains.
 * Pure computation: present/run_summary.c prints them.
 */
#ifndef SUMMARY_H
#define SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "results.h"

#define SUMMARY_CI_LEVEL 0.95
#define SUMMARY_CI_ITERS 2000
#define SUMMARY_CI_TARGET 0.05 /* a CI this wide (share of order 0) resolves a 5 % gain */

/* Values of one metric over the reps of one cell (failed trials left out),
 * in file order; "coverage" is the verified folio coverage; sparse cells
 * match any pattern. v holds r->nr_trials values at most. Returns how many. */
int summary_collect(const struct results *r, const char *pattern, bool sparse, uint64_t span,
		    int order, const char *metric, double *v);
double summary_median(const double *v, int n); /* NaN when n == 0 */
double summary_min(const double *v, int n);    /* NaN when n == 0: the worst rep */

/* A median and its bootstrap CI (SUMMARY_CI_LEVEL, SUMMARY_CI_ITERS, seed). */
struct summary_ci {
	double median, lo, hi;
	double half; /* the farther end from the median; NaN without a CI */
};
void summary_median_ci(const double *v, int n, uint64_t seed, struct summary_ci *ci);

/* Trials of an order that ran and those that failed. */
void summary_count_failed(const struct results *r, int order, int *ran, int *failed);
/* The first of the config's orders whose every trial failed, or -1. */
int summary_all_failed_order(const struct results *r);

/* Interleaved runs: the widest CI of analyze's paired gains, in points of
 * order 0's time. */
struct summary_paired {
	double widest;
	int order;
	char pattern[32];
	uint64_t span;
	char placements[768];  /* analyze's placement_note: the spread between placements */
};
/* 0, or -ENODATA when analyze cannot make a paired analysis (it says why). */
int summary_paired_precision(const struct results *r, struct summary_paired *p);

#endif
