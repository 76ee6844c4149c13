/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A/B comparison of results files (doc/ARCHITECTURE.md, "Documents"). The first input is
 * the baseline; every other input is compared with it, order by order and
 * metric by metric: medians, the change in percent, a bootstrap CI of the
 * change, a Mann-Whitney p-value and significance after Holm correction over
 * the rows of one baseline/other pair.
 *
 * Return convention: 0 or negative errno; the module never prints. When the
 * inputs cannot be compared at all, compare_build() returns an error and
 * leaves the reason in words in report->error.
 */
#ifndef COMPARE_H
#define COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define COMPARE_SCHEMA "mthpscope.compare/1"

/* Which way a metric gets better. A metric without a better direction
 * (instructions, stlb_hits, ...) is compared but never called a regression. */
enum compare_dir {
	COMPARE_DIR_NONE,
	COMPARE_DIR_LOWER,  /* lower is better: ns_per_access, walks, ... */
	COMPARE_DIR_HIGHER, /* higher is better */
};
enum compare_dir compare_metric_dir(const char *metric);
const char *compare_dir_name(enum compare_dir d); /* "lower", "higher", "none" */
struct compare_series;
/* A series' direction: the registry's (compare_metric_dir), or for a metric
 * the registry does not know, the one its file declares (a workload's
 * --metric with --better). */
enum compare_dir compare_series_dir(const struct compare_series *s);

/* The repetitions of one metric at one pattern, order and span, in one input. */
struct results_trial;
struct compare_series {
	const char *pattern;
	int order;
	unsigned long long span;
	const char *metric;
	const double *values;
	size_t n;
	const char *source;    /* "timing", "pmu", "sw", "kernel"; NULL: unknown */
	/* the trial of each value (its rep and per-round times), for the gain
	 * rows; NULL in inputs built by hand: no gain rows then */
	const struct results_trial *const *trials;
	/* the run (file, 0..nr_runs-1) of each value where a side pools several
	 * runs; NULL: one run */
	const unsigned *runs;
	/* the direction the file declares ("better" of a workload's metric);
	 * NONE: it declares none */
	enum compare_dir declared;
};

/* A metric whose absolute value moves with the machine between runs (load,
 * frequency, the host's share of a VM): times and cycles. Its absolute A/B
 * rows are drift-prone; its gain against the file's own order 0 is not. */
bool compare_metric_drift_prone(const char *metric, const char *source);

/* A THP setting as "hugepages-64kB/enabled" = "never". */
struct compare_setting {
	char name[48];
	char value[24];
};

/* One results file, as compare needs it: built from a loaded results file
 * by compare_input_from_results() (which owns the arrays), or by hand in
 * tests. The strings point into the results, which must outlive it. */
struct compare_input {
	const char *label;     /* short name: the file name without ".json" */
	const char *kernel;    /* host.kernel */
	const char *arch;
	const char *cpu_model;
	int virtualized;       /* 1, 0, or -1 when unknown */
	int emulated;          /* 1: QEMU TCG, timing means nothing; 0 otherwise */
	int pmu_available;     /* 1, 0, or -1 when unknown */
	unsigned long page_size; /* 0: unknown (4096 assumed for labels) */
	const struct compare_setting *settings;
	size_t nr_settings;
	const struct compare_series *series;
	size_t nr_series;
	size_t nr_dropped;     /* trials left out: their folios missed the order */
	size_t nr_failed;      /* trials left out: their command failed or timed out */
	bool interleaved;      /* config.schedule "interleaved": rounds pair across orders */
	bool placement_per_rep; /* config.placement "per-rep" (results_config) */
	/* its trials carry placement ids (issue 39): each rep was a placement
	 * of its own, recorded and checked by pagemap, so a side of one run
	 * takes its run-to-run part from its placements' spread instead of
	 * assuming gain_run_sd */
	bool placements;
	bool interrupted;      /* a run of it was cut by a signal ($.interrupted) */
	/* run -- CMD's command (config.workload.argv of its first run), or NULL */
	char *const *argv;
	/* Runs (results files) pooled in this side: 0 or 1 is one run. With two
	 * or more, the gain rows estimate the run-to-run variance from the
	 * spread of the runs' gains instead of assuming gain_run_sd. */
	size_t nr_runs;
	/* analyze's recommendation of the side's first run (compare --format
	 * lkml: the cover letter's "which order"); has_rec false: not given */
	bool has_rec;
	int min_order, plateau_order; /* -1: none */
	void *owned;
};

struct results;
/* Group the trials of res by pattern, order, span and metric. Trials whose
 * verified folio coverage is below RESULTS_MIN_COVERAGE did not measure
 * their order and are left out (counted in nr_dropped), as are trials whose
 * command failed or timed out (counted in nr_failed, whatever their
 * coverage). 0 or -ENOMEM. */
int compare_input_from_results(const struct results *res, const char *label,
			       struct compare_input *in);
/* The same for one side of several runs with identical settings (repeated
 * runs of one kernel or setting): their trials pooled, each value tagged
 * with its run. 0 or -ENOMEM. */
int compare_input_from_runs(const struct results *const *res, size_t nr, const char *label,
			    struct compare_input *in);
/* Whether runs meant as repeats of one side differ in what compare checks
 * between sides (kernel, architecture, page size, schedule, virtualization,
 * emulation, PMU, THP settings by name, patterns;
 * not the CPU's name, which hwloc gave two ways on one machine before
 * mthpscope read CPUID itself): the index of the first run that differs from res[0], with the
 * field and both values in why; 0 when they agree. */
size_t compare_runs_differ(const struct results *const *res, size_t nr, char *why,
			   size_t size);
void compare_input_free(struct compare_input *in);
/* in->kernel, or "unknown kernel". */
const char *compare_kernel_name(const struct compare_input *in);

struct compare_opts {
	const char *const *metrics; /* only these metrics (NULL: all in common) */
	size_t nr_metrics;
	double alpha;               /* significance level after Holm, default 0.05 */
	double ci_level;            /* default 0.95 */
	unsigned bootstrap_iters;   /* default 2000 */
	unsigned long long seed;    /* bootstrap seed, default 1 */
	/* The run-to-run SD of an access-time gain, in points per file: the part
	 * of a gain that moves between runs minutes apart but not within one
	 * (the machine's state: other load, memory layout), which the reps of one
	 * file cannot show. Added to each side's variance of the gain rows;
	 * 0: within-run variance only. */
	double gain_run_sd;    /* used for a side of one run only */
	/* Called after each compared series (a progress line); may be NULL. */
	void (*on_series)(size_t done, size_t total, void *ctx);
	void *on_series_ctx;
};
/* Estimated from 30 A/A pairs of default runs on this project's VM
 * (data/vm-amd-epyc-6.18/stability/after: the spread of the gain differences
 * over their within-run standard errors is 1.9 without it, 1.0 with it). */
#define COMPARE_GAIN_RUN_SD 1.7
#define COMPARE_OPTS_DEFAULT                                                        \
	{ .alpha = 0.05, .ci_level = 0.95, .bootstrap_iters = 2000, .seed = 1,          \
	  .gain_run_sd = COMPARE_GAIN_RUN_SD }

/* Worse, better or no change: what a reader of the row should conclude. */
enum compare_verdict {
	COMPARE_SAME,       /* not significant */
	COMPARE_BETTER,
	COMPARE_WORSE,
	COMPARE_CHANGED,    /* significant, metric has no better direction */
	COMPARE_UNCLEAR,    /* not significant, but too few reps to be: "unclear
			     * (too few reps)", never "same" */
};
const char *compare_verdict_name(enum compare_verdict v);

struct compare_row {
	int other;           /* index of the compared input (1..nr_inputs-1) */
	const char *pattern;
	int order;
	unsigned long long span;
	const char *metric;
	size_t na, nb;
	double a, b;         /* medians */
	double a_lo, a_hi, b_lo, b_hi; /* bootstrap CIs of the medians, for plots */
	double delta_pct;    /* 100 * (b - a) / a; NAN when a == 0 */
	double ci_lo, ci_hi; /* CI of delta_pct; NAN when not computable */
	double p_value;      /* Mann-Whitney U, two-sided, unadjusted; NAN if n < 2 */
	double u;            /* its U of A (pairs a > b, ties half): the way the
			      * samples moved where the medians tie; NAN if n < 2 */
	double p_holm;       /* Holm-adjusted over the rows of this pair */
	bool significant;    /* p_holm < alpha */
	enum compare_dir dir;
	enum compare_verdict verdict;
	bool drift_prone;    /* compare_metric_drift_prone(): machine drift moves it */
};

/*
 * The drift-proof row: each file's gain of an order against its own order 0
 * (per pair of the same round, or rep, within the file, so drift between
 * the runs cancels), and the difference of the two gains with a Welch CI
 * and a rank test over the reps (compare_gain.c says why reps).
 */
struct compare_gain_row {
	int other;
	const char *pattern;
	int order;
	unsigned long long span;
	const char *metric;
	const char *paired_by; /* "round" or "rep" */
	size_t na, nb;         /* pairs in A and in B */
	size_t runs_a, runs_b; /* runs with pairs in A and in B */
	/* the run-to-run part of each side's variance: estimated from its runs'
	 * gains (2 runs or more) or assumed (gain_run_sd) */
	bool run_sd_estimated_a, run_sd_estimated_b;
	/* a side of one run whose spread came from its placements (the file's
	 * placement ids), not from gain_run_sd */
	bool run_sd_placements_a, run_sd_placements_b;
	double gain_a, gain_b; /* percent of order 0's value saved (lower is
				  better) or added (higher is better) */
	double diff;           /* gain_b - gain_a, percentage points */
	double ci_lo, ci_hi;   /* CI of diff; NAN with fewer than 2 reps a side */
	double p_value;        /* Welch t with the run-to-run part, two-sided */
	double p_holm;         /* Holm over the gain rows of this pair */
	bool significant;
	enum compare_dir dir;
	enum compare_verdict verdict; /* better: B gains more than A */
};

struct compare_report {
	const struct compare_input *inputs;
	size_t nr_inputs;
	bool comparable;     /* no difference in host, pattern or THP settings */
	char **warnings;
	size_t nr_warnings;
	struct compare_row *rows; /* grouped by other, then metric, span, order */
	size_t nr_rows;
	struct compare_gain_row *gains; /* the same grouping; orders above 0 */
	size_t nr_gains;
	bool single_span;    /* every row has the same span */
	bool single_pattern; /* every row has the same pattern */
	double alpha, ci_level;
	char error[512];     /* why compare_build() failed, in words */
};

/* Compare inputs[1..n-1] with inputs[0]. Returns 0, -EINVAL (fewer than two
 * inputs, or a --metric no input has), -ENODATA (no order/span/metric in
 * common), -ENOMEM. On error report->error says why; free the report in
 * every case. */
int compare_build(const struct compare_input *inputs, size_t nr_inputs,
		  const struct compare_opts *opts, struct compare_report *report);
void compare_report_free(struct compare_report *report);
/* The metric a --metric name selects in these inputs: a metric of that name
 * in any of them, else the one a word of the program table names (sys,
 * real, user, faults, peak: analyze --metric's words), else name itself. */
const char *compare_metric_name(const struct compare_input *inputs, size_t nr_inputs,
				const char *name);

/*
 * The gate: significant changes for the worse larger than pct (percent, or
 * points of gain). Gain rows lead: a drift-prone absolute row counts only
 * where the pair has no gain row at its pattern and span (no order 0 in
 * both files); *skipped (may be NULL) gets the drift-prone absolute
 * regressions left out so.
 */
size_t compare_count_regressions(const struct compare_report *report, double pct,
				 size_t *skipped);

/* Whether one row counts in the gate (compare_count_regressions()). */
bool compare_gain_gates(const struct compare_gain_row *g, double pct);
bool compare_row_gates(const struct compare_report *r, const struct compare_row *w, double pct);

/* A warning in report->warnings (printf format); 0 or -ENOMEM. For the
 * compare*.c units. */
int compare_add_warning(struct compare_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The gain rows of one pair (compare_gain.c); called by compare_build(). */
int compare_gains_pair(struct compare_report *r, const struct compare_opts *o, int other);


enum compare_format { COMPARE_FMT_TEXT, COMPARE_FMT_MARKDOWN, COMPARE_FMT_JSON, COMPARE_FMT_LKML };
/* The formats' words, by value, NULL-terminated. */
extern const char *const compare_format_words[];

/* ---- collapse documents (mthpscope.collapse/1) side by side ---------------- */

#define COMPARE_COLLAPSE_SCHEMA "mthpscope.compare-collapse/1"
#define COMPARE_COLLAPSE_MAX_INPUTS 8
/* max_ptes_none values: every input's sweep (COLLAPSE_DOC_MAX_MPN each) */
#define COMPARE_COLLAPSE_MAX_ROWS 256
#define COMPARE_COLLAPSE_ORDERS 21   /* FOLIO_MAX_ORDER + 1 */
#define COMPARE_COLLAPSE_MAX_WARNINGS 120 /* each config field of each other input, and more */

/* One input at one max_ptes_none: the final folio orders, RSS, time. */
struct compare_collapse_cell {
	bool present;
	unsigned long long pages[COMPARE_COLLAPSE_ORDERS]; /* last sample's hist */
	unsigned long long mapped;                  /* their sum */
	long long rss_before, rss_after;            /* bytes */
	long long t_steady_ms;  /* first sample equal to the last (hist and RSS) */
	long long elapsed_ms;
	bool steady;
	bool changed;           /* the last sample differs from the first */
	char verdict[16];
};

struct compare_collapse_row {
	long long max_ptes_none;
	struct compare_collapse_cell cell[COMPARE_COLLAPSE_MAX_INPUTS];
};

struct compare_collapse {
	size_t nr_inputs;
	const char *labels[COMPARE_COLLAPSE_MAX_INPUTS];
	char kernels[COMPARE_COLLAPSE_MAX_INPUTS][72];
	char config[192];        /* the baseline's mode, orders, fill, span, seed, page size */
	struct compare_collapse_row rows[COMPARE_COLLAPSE_MAX_ROWS];
	size_t nr_rows;
	unsigned long orders;    /* target orders, and orders holding pages in any cell */
	/* the same workload everywhere: mode, target orders, fill, span, seed,
	 * page size and the words the sizes were enabled as; the timing knobs
	 * (interval, timeout, khugepaged's pace) and --measure only warn */
	bool comparable;
	char warnings[COMPARE_COLLAPSE_MAX_WARNINGS][384];
	size_t nr_warnings;
};

struct collapse_doc;
/* Rows by max_ptes_none (the baseline's values first, then others'), one
 * for every value any input ran; a warning for every config field that
 * differs from the baseline, saying what the difference moves, for a value
 * an input ran twice (its last run shown) and for runs without samples.
 * 0, or -EINVAL (fewer than two or more than COMPARE_COLLAPSE_MAX_INPUTS
 * inputs), -E2BIG (more than COMPARE_COLLAPSE_MAX_ROWS values in all: only
 * documents of more runs than a sweep has); err says so. */
int compare_collapse_build(const struct collapse_doc *docs, const char *const *labels,
			   size_t nr, struct compare_collapse *out, char *err, size_t errsize);

/* Its writers are beside analyze's: report_compare_json() and
 * report_compare_write() (report.h); its figures plot_compare() (plot.h). */

#endif
