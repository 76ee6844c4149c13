/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A program measured whole (run -- CMD): which trials show their order in
 * effect, and the table the mTHP series post (Ryan Roberts' kernel build on
 * arm64, Yin Fengwei's allmodconfig on x86): per folio size against 4K, the
 * change of real, user and system time, page faults and peak memory, each
 * a median over the trials with its bootstrap CI and a Mann-Whitney p.
 * Pure computation on an analysis (analyze.h); present/program_report.c
 * prints it.
 */
#ifndef PROGRAM_H
#define PROGRAM_H

#include <stdbool.h>
#include <stddef.h>

#include "analyze.h"
#include "results.h"

/* A program's folio coverage is stated, not a gate: a compiler's small and
 * short-lived mappings cannot all be large folios (85-92 % at orders 2-9
 * for a kernel build), and the program as it runs is what is measured. A
 * trial is left out only when its order was clearly not in effect: under
 * 10 % of the scanned anonymous memory at the order (the settings did not
 * take), or under half the median of the other trials of its order. */
#define PROGRAM_COVERAGE_NEAR_ZERO 0.10
#define PROGRAM_COVERAGE_FAR_BELOW 0.50
#define PROGRAM_MAX_METRICS 8

/* A program whose buffer lives between two scans (a Python script that
 * frees 192 MiB before it exits) leaves no trace in them; the kernel's own
 * count does: folios of the order allocated during the trial
 * (anon_fault_alloc, hugepages-<size>kB/stats) covering at least this share
 * of the tree's peak RSS say the order was in effect, whatever the scans
 * saw. The count is the whole machine's, so it is evidence, not proof. */
#define PROGRAM_ALLOC_IN_EFFECT 0.50

/* The kernel's count says order t->order was in effect (above). */
bool program_alloc_in_effect(const struct results_trial *t, unsigned long long page_size);

/* True (with the reason in words) when trial i of r, a command's, is to be
 * left out for its coverage: its order not in effect by the scans and not
 * by the kernel's count. */
bool program_trial_out(const struct results *r, size_t i, char *why, size_t size);

/* One column of the table: a metric per order. */
struct program_metric {
	char name[32];                   /* in the results file: "sys_ns" */
	char label[24];                  /* "sys", "peak memory", the --metric's name */
	char unit[16];                   /* "s", "MiB", "" */
	double scale;                    /* value x scale in unit */
	int better;                      /* -1 a fall is a gain (time), +1 a rise (a
					  * --metric "higher"), 0 a cost (faults, memory) */
	struct analyze_stat by_order[ANALYZE_NR_ORDERS];
	struct analyze_change change[ANALYZE_NR_ORDERS]; /* median(k) / median(0) - 1 */
	double p[ANALYZE_NR_ORDERS];     /* two-sided Mann-Whitney against order 0 */
};

struct program_table {
	bool available;                  /* a command's trials at order 0 and another */
	int orders[ANALYZE_NR_ORDERS];   /* measured, ascending, order 0 first */
	int nr_orders;
	size_t n[ANALYZE_NR_ORDERS];     /* included trials per order */
	double coverage[ANALYZE_NR_ORDERS]; /* median lifetime folio coverage, NaN */
	double seen[ANALYZE_NR_ORDERS];  /* median share of the tree's processes scanned, NaN */
	struct program_metric m[PROGRAM_MAX_METRICS];
	int nr_metrics;
	/* the largest gain (a time's fall, a --metric's way) whose CI excludes
	 * 0 and which is at least the analysis' material threshold: metric
	 * index and order, -1 if none */
	int largest_metric, largest_order;
	/* an emulated CPU's file (QEMU TCG, host.emulated): real, user and
	 * sys time measure the emulator, not hardware, and are left out of
	 * the columns; faults, peak memory and coverage are the kernel's own */
	bool timing_left_out;
};

/* Two programs' tables side by side (compare of two kernels or settings):
 * per size both have and metric both have, B's change against its own 4K
 * minus A's, in points (-0.10: B's fall is 10 points deeper). The CI comes
 * from the two sides' bootstrap CIs, each read as a normal interval
 * (half-width / z), their variances added: an approximation, said where it
 * is printed. */
struct program_diff {
	int orders[ANALYZE_NR_ORDERS];   /* above 0, in both, ascending */
	int nr_orders;
	int metric_a[PROGRAM_MAX_METRICS]; /* index in A's table of each column */
	int metric_b[PROGRAM_MAX_METRICS];
	int nr_metrics;
	struct analyze_change diff[PROGRAM_MAX_METRICS][ANALYZE_NR_ORDERS]; /* by order */
};

/* d from two available tables at confidence level 'level'; 0 (nothing in
 * common leaves d->nr_orders or d->nr_metrics 0). */
int program_diff_build(const struct program_table *a, const struct program_table *b,
		       double level, struct program_diff *d);

/* Fills pt from the analysis' included trials (a->excluded are left out).
 * 0, or -ENOMEM. pt->available false when the file is not a command's. */
int program_table_build(const struct analysis *a, struct program_table *pt);

#endif
