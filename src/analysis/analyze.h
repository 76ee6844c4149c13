/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Analysis of one results file: per-order gains of the primary metric with
 * bootstrap CIs and rank tests, the cost side (sparse RSS bloat, page
 * faults), excluded trials, and the recommendation (the smallest order worth
 * creating). Pure computation: report.c and plot.c present it.
 */
#ifndef ANALYZE_H
#define ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "results.h"

#define ANALYSIS_SCHEMA "mthpscope.analysis/1"

/* A gain is material when the primary metric falls by at least 5 % of its
 * order-0 value: below that, run-to-run drift between boots and machines of
 * the same model (1-3 % for TLB-bound loops) swallows it, and no one enables
 * a folio size for it. Overridable per call (analyze_opts). */
#define ANALYZE_MATERIAL_GAIN 0.05
#define ANALYZE_ALPHA 0.05       /* Holm-adjusted two-sided Mann-Whitney */
#define ANALYZE_LEVEL 0.95       /* confidence level of every interval */
#define ANALYZE_BOOT_ITERS 4000
/* How the paired gains' CIs treat the placements (the reps): drawn with
 * their rounds, widened to a t interval on P - 1 df (stats.h: the coverage
 * of each method, tests/test_cluster_ci.c; stats.h must be included). */
#define ANALYZE_CI_METHOD STATS_CI_EXPANDED
#define ANALYZE_TRIM 0.10        /* paired gain: mean of the log ratios, 10 % cut each end */
#define ANALYZE_MAX_METRICS 32
#define ANALYZE_MAX_SPANS 32
/* An order is on the plateau when its gain is statistically
 * indistinguishable from the best gain below the PMD order (the CI of the
 * difference reaches 0) or reaches this share of it: within a tenth, no
 * one sets a larger minimum order for the rest (src/analysis/plateau.c). */
#define ANALYZE_PLATEAU_SHARE 0.90
#define ANALYZE_NR_ORDERS (FOLIO_MAX_ORDER + 1)

enum analyze_verdict {
	AN_MTHP,         /* an order below PMD gains */
	AN_PMD_ONLY,     /* only the PMD order gains */
	AN_NO_GAIN,      /* no order gains, and the data can say so */
	AN_INCONCLUSIVE, /* too noisy to tell */
};

/* How the orders were compared with order 0 (issue 12). */
enum analyze_method {
	AN_UNPAIRED,     /* trial medians, bootstrap of each order apart, Mann-Whitney */
	AN_PAIRED,       /* per-round log ratios to order 0 (interleaved schedule),
			  * bootstrap over reps and whole rounds, Wilcoxon signed-rank */
};

/* What the data say about one order against order 0. */
enum analyze_status {
	AN_ST_BASE,      /* "baseline": order 0 itself */
	AN_ST_GAIN,      /* "gain": significant, material, CI above 0 */
	AN_ST_NONE,      /* "none": the CI rules a material gain out */
	AN_ST_UNCLEAR,   /* "unclear": neither */
};

/* Median and its bootstrap CI over n trials; all NaN when n == 0. */
struct analyze_stat {
	size_t n;
	double median, lo, hi;
};

/* A relative change against order 0 with its CI (NaN when not computable). */
struct analyze_change {
	double value, lo, hi;
};

struct analyze_order {
	int order;
	bool present;              /* dense trials of this order exist (included or not) */
	size_t n_excluded;
	struct analyze_stat primary;
	struct analyze_change gain; /* 1 - median(k) / median(0): share of the metric saved */
	double u, p, p_adj;         /* Mann-Whitney vs order 0; NaN for order 0 */
	bool significant;
	enum analyze_status status;
	struct analyze_change share; /* share of the PMD gain; NaN without a PMD gain */
	struct analyze_stat faults;  /* page_faults per trial (dense trials) */
	struct analyze_change fault_saving; /* 1 - faults(k) / faults(0) */
	struct analyze_stat rss;     /* rss_bytes of sparse trials */
	struct analyze_change bloat; /* rss(k) / rss(0) - 1 */
	double coverage;             /* median folio coverage, NaN if unverified */
	size_t n_pairs;              /* paired rounds behind gain and p (paired method) */
	/* The monotone structure: below the PMD order the true gain cannot
	 * fall as the order grows, so the gains are fitted by isotonic
	 * regression; status is then taken from the fit (raw_status is the
	 * order's own). fitted is NaN where no fit was made. */
	struct analyze_change fitted;
	enum analyze_status raw_status;
	bool violation;              /* the raw gain's CI excludes the fitted value */
	/* Placements (issue 39; paired method): each rep is populated anew
	 * (bench.c), so each is a placement and the gain's CI resamples them
	 * with their rounds inside (stats.h, cluster bootstrap). placement_sd:
	 * the SD of the placements' own gains beyond what their rounds' scatter
	 * explains; round_se: the gain's SE from the rounds' scatter alone;
	 * rerun: the half-width within which a rerun's gain is expected
	 * (sqrt 2 x the CI's half-width); all gain units, NaN without.
	 * placements_gaining: of 'placements', those whose own gain is material;
	 * placement_split: the status is unclear and the placements disagree. */
	double placement_sd, round_se, rerun;
	size_t placements, placements_gaining;
	bool placement_split;
};

/* Any metric present in the analysed trials, per order (for plots, reports). */
struct analyze_metric {
	char name[32];
	char source[16];
	char unit[32];               /* "walks/access", "ns/access", "faults", ... */
	bool per_access;             /* value divided by the trial's accesses */
	bool sparse;                 /* measured on the sparse trials */
	struct analyze_stat by_order[ANALYZE_NR_ORDERS];
};

/* Where the gain below the PMD order saturates (src/analysis/plateau.c):
 * the seed's question, "which smallest order should khugepaged create". */
struct analyze_plateau {
	int order;                   /* -1 = null: no claim (reason says why) */
	int best;                    /* the order below PMD with the largest gain; -1 none */
	bool by_share;               /* on the plateau by ANALYZE_PLATEAU_SHARE, not by the CI */
	const char *rule;            /* "indistinguishable", "share", "largest" (no order
				      * above it below PMD), "none" */
	struct analyze_change gain;  /* of order */
	struct analyze_change share; /* gain(order) / mean gain of the orders above it below
				      * PMD; of the largest, gain(order) / gain(best) */
	struct analyze_change diff;  /* that mean (or gain(best)) - gain(order), in points */
	struct analyze_change min_share; /* gain(min_order) / gain(order) */
	char reason[384];            /* why null, or which rule put the order there */
	char setting[256];           /* what to set, in one sentence; "" without a claim */
};

/* The primary metric per order at one span (the staircase of a sweep). */
struct analyze_span {
	uint64_t span;
	struct analyze_stat by_order[ANALYZE_NR_ORDERS];
	/* the recommendation at this span alone (files with several spans) */
	bool analysed;               /* false: no usable order-0 trials here */
	enum analyze_verdict verdict;
	int min_order;               /* -1 = null */
	int candidate_order;         /* -1 = none */
	struct analyze_change gain;  /* of min_order (or candidate), NaN without one */
	int plateau_order;           /* -1 = null (src/analysis/plateau.c) */
	struct analyze_change plateau_gain;
	struct analyze_change gains[ANALYZE_NR_ORDERS]; /* every order's gain at this span */
};

struct analyze_excluded {
	size_t trial;                /* index in results->trials */
	int order;
	uint64_t span;
	int rep;
	char reason[96];
};

struct analysis {
	const struct results *res;
	double threshold;            /* material gain */
	double level;                /* confidence level of the intervals */
	char pattern[32];            /* the dense pattern analysed */
	uint64_t span;               /* the span the verdict rests on (the largest) */
	char metric[32];             /* primary metric name */
	char metric_source[16];
	char metric_unit[64];        /* a 31-character name + " (higher is better)" */
	bool per_access;
	bool higher_better;          /* a workload's "better": "higher": gains are rises */
	int pmd_order;
	struct analyze_order orders[ANALYZE_NR_ORDERS]; /* indexed by order */
	struct analyze_metric metrics[ANALYZE_MAX_METRICS];
	int nr_metrics;
	struct analyze_span spans[ANALYZE_MAX_SPANS];  /* ascending */
	int nr_spans;
	uint64_t sparse_span;        /* 0 without sparse trials */
	struct analyze_excluded *excluded;
	size_t nr_excluded;
	size_t nr_included;
	size_t nr_unverified;        /* included trials without folio verification */
	char other_patterns[128];    /* dense patterns present but not analysed, "" if none */
	enum analyze_method method;
	char method_note[256];       /* why this method, in words */
	/* a command's own --metric passed over as the verdict's metric (not in
	 * every analysed trial), and what it rests on instead; "" otherwise */
	char metric_note[256];
	bool monotone;               /* the isotonic fit was made (>= 2 orders below PMD) */
	char monotone_warning[768];  /* raw gains violating monotonicity beyond noise, or "" */
	char span_summary[768];      /* the knee per working-set size in words, "" for one span */
	/* recommendation */
	enum analyze_verdict verdict;
	int min_order;               /* -1 = null */
	int candidate_order;         /* the order an inconclusive verdict leans to, or -1 */
	char reason[2048];
	char advice[512];            /* what to do next (inconclusive) or how to apply */
	char hardware_note[1024];
	char khugepaged_note[512];
	/* "between placements: SD ... ; a rerun is expected within ..." for the
	 * verdict's order, or why there is no such line (an older file) */
	char placement_note[768];
	bool has_placement_ids;      /* the analysed trials carry "placement" */
	struct analyze_plateau plateau;
};

struct analyze_opts {
	double threshold;            /* 0 = ANALYZE_MATERIAL_GAIN */
	unsigned iters;              /* 0 = ANALYZE_BOOT_ITERS */
	uint64_t seed;               /* bootstrap seed; the same input gives the same output */
	uint64_t span;               /* the span the verdict rests on; 0 = the largest */
	bool unpaired;               /* ignore per-round data: the unpaired method */
	/* the metric the verdict rests on (analyze --metric): a name of the
	 * file's trials, or a word of the program table (real, user, sys,
	 * faults, peak); NULL = by strength of evidence (metrics.h) */
	const char *metric;
	double level;                /* confidence level of every interval; 0 = ANALYZE_LEVEL
				      * (run --precision widens it: src/analysis/precision.h) */
};

/* The metric a word of the program table names (real or wall, user, sys or
 * system, faults, peak: wall_ns ... max_rss_bytes), or NULL for another
 * word. A metric of the file so named comes first (a run --metric 'faults'). */
const char *analyze_metric_word(const char *word);

/* 0, or a negative errno with a message: -ENODATA when there is nothing to
 * compare (no usable order-0 trials, a single order, no primary metric),
 * -EINVAL for an option the file cannot take (--span of a command's file). */
int analyze_run(const struct results *r, const struct analyze_opts *o, struct analysis **out,
		char *err, size_t errsize);
void analyze_free(struct analysis *a);
/* placement_note, has_placement_ids and the orders' placement_split (with a
 * sentence in the reason): analyze_placement.c, after the recommendation. */
void analyze_placement_notes(struct analysis *a);
const char *analyze_verdict_name(enum analyze_verdict v);
const char *analyze_status_name(enum analyze_status s);
const char *analyze_method_name(enum analyze_method m);   /* "paired", "unpaired" */
const char *analyze_test_name(enum analyze_method m);     /* "wilcoxon-signed-rank", ... */
/* "4K", "16K", "2M" for an order with this page size. */
void analyze_order_size(const struct analysis *a, int order, char *buf, size_t size);
bool analyze_order_measured(const struct analysis *a, int order);

#endif
