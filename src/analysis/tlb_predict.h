/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The translation model beside an analysis: from each trial's layout
 * histogram (results "layout") and a geometry, the entries each TLB level
 * needs and the miss ratio that predicts, per span and order; the gain that
 * predicts (the share of last-level misses, that is page walks, saved
 * against order 0) and the predicted knee per span, set against the
 * measured one, with the likely cause where they disagree. Every number is
 * source "model". Pure computation on the documents (analyze.h, results.h).
 */
#ifndef TLB_PREDICT_H
#define TLB_PREDICT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "analyze.h"
#include "tlb_model.h"

/* Why a predicted time gain and a measured one disagree (tlb_time.c). */
enum tlb_time_cause {
	TLB_CAUSE_NONE,
	TLB_CAUSE_SCATTER,   /* the folios are not contiguous and aligned enough to merge */
	TLB_CAUSE_MERGE,     /* another merge rule fits the data better than the table's */
	TLB_CAUSE_CAPACITY,  /* another last-level capacity fits better */
	TLB_CAUSE_HOST,      /* a VM: the host's backing shapes the nested walk */
	TLB_CAUSE_OTHER,     /* not translation as modelled: caches, faults */
	TLB_CAUSE_LOCALITY,  /* a VM: physical locality, the host's side of the nested walk */
	TLB_CAUSE_FIRST,     /* the first level's reach: PMD entries fit it, smaller ones do not */
	TLB_CAUSE_UNEXPLAINED, /* no term of the model explains it */
};

/* The time model's second term (tlb_time.c): besides the walks the last
 * level saves, an order-dependent cost the table's figures alone miss. */
enum tlb_term_kind {
	TLB_TERM_NONE,
	TLB_TERM_FIRST,      /* first-level misses (that hit the last level) */
	TLB_TERM_HOST,       /* a VM: walks whose guest-physical region misses the host's
			      * side of the nested walk (its capacity in PMD-size regions) */
};

/* One hypothesis of what the CPU merges and holds, fitted to the measured
 * gains of the orders below PMD at one span (tlb_time.c). */
#define TLB_NR_RULES 6
struct tlb_hypothesis {
	unsigned mask;       /* merge sizes: bit j for 2^j pages (0: none) */
	double scale;        /* last-level capacity against the table's */
	double chi2;         /* sum of ((measured - predicted) / se)^2; NaN: not fitted */
	int n;               /* orders in the sum */
	/* the second term at its best for this rule and capacity (model) */
	enum tlb_term_kind term;
	double share;        /* the share of the PMD gain the term carries, in [0, 1] */
	double regions;      /* TLB_TERM_HOST: the host side's capacity in regions */
	double chi2_plain;   /* chi2 without the term */
};

struct tlb_predict_cell {
	size_t n;                                   /* trials with a layout that maps memory */
	size_t empty;         /* trials left out: their layout maps nothing (0 pages) */
	unsigned long long entries[TLB_MAX_LEVELS]; /* median over the trials */
	double miss[TLB_MAX_LEVELS];                /* median; NaN: capacity not known */
	double gain;          /* 1 - miss_last(k) / miss_last(0); NaN when not computable */
	double measured_gain; /* the analysis' gain at the verdict span; NaN elsewhere */
	bool scatter;         /* fewer merged blocks than folios of this order would give */
	/* the time model (tlb_time.c), source model: this order's gain of the
	 * primary metric from the walk cost calibrated at order 0 and PMD */
	struct analyze_change time_gain;
	struct analyze_change measured;   /* the analysis' gain at this span */
	int agree;            /* 1, 0, or -1 when not judged (no interval on a side) */
	enum tlb_time_cause cause;
};

/* Why a span has no predicted knee (tlb_predict_unknown_words says it). */
enum tlb_predict_unknown {
	TLB_PREDICT_KNOWN,       /* it has one (or "none") */
	TLB_PREDICT_NO_LAYOUTS,  /* no trial at this span carries a layout */
	TLB_PREDICT_EMPTY,       /* those that do map no memory */
	TLB_PREDICT_NO_ORDER0,   /* none of order 0 does: no baseline for the gains */
	TLB_PREDICT_EMPTY_ORDER0, /* those of order 0 map no memory */
	TLB_PREDICT_NO_CAPACITY, /* the last level's capacity is not known */
	TLB_PREDICT_NO_CALIBRATION, /* no PMD gain at this span to calibrate the walk cost */
};

struct tlb_predict_span {
	uint64_t span;
	struct tlb_predict_cell by_order[ANALYZE_NR_ORDERS];
	int knee;             /* predicted smallest order with gain >= threshold; -1 none */
	bool predicted_known; /* order 0 and the last level's capacity known: a knee */
	enum tlb_predict_unknown unknown; /* why not, when not predicted_known */
	bool fits;            /* order 0 already fits: no translation cost to save */
	int measured_knee;    /* the analysis' min_order at this span; -1 none */
	bool measured_known;  /* the measurement is conclusive at this span */
	bool agree;
	char cause[768];      /* where they disagree: the likely cause in words */
	/* the time model (tlb_time.c) */
	bool calibrated;      /* order 0 and PMD measured, the model saves walks at PMD */
	double walk_cost;     /* metric units per unit of last-level miss ratio (model) */
	int nr_judged, nr_order_disagree; /* orders 1 .. PMD-1 set against the measurement */
	/* the prediction's own: the geometry's rule and capacity with the
	 * second term where it fits better by a margin (term NONE otherwise) */
	struct tlb_hypothesis model_fit;
	struct tlb_hypothesis table_fit, best_fit, rule_fit[TLB_NR_RULES];
	enum tlb_time_cause cause_kind; /* the span's cause of the orders that disagree */
	unsigned merge_mask;  /* TLB_CAUSE_MERGE: the plausible rule that fits best */
	char fit[768];        /* the hypotheses in words, "" when not fitted */
};

struct tlb_prediction {
	bool available;
	char reason[512];     /* why not, when not available */
	size_t advice_at;     /* where reason's advice to name a model (--tlb-model,
			       * --tlb-geometry: analyze's options) starts; 0 none */
	const struct tlb_geometry *g;
	unsigned long long capacity[TLB_MAX_LEVELS];
	struct tlb_predict_span spans[ANALYZE_MAX_SPANS];
	int nr_spans;
	int verdict_span;     /* index of the analysis' verdict span */
	int nr_disagree;
	bool assumed;         /* no trial has a layout: assumed from each trial's folio
			       * histogram (aligned, contiguous folios, scattered apart) */
	int nr_order_disagree; /* orders whose predicted time gain misses the measured one */
	/* the guest-physical regions the host term reads (the trials'
	 * placement.regions_pmd): measured at some fitted span; missing at some
	 * span of a VM's file (a file from before them: no host term there) */
	bool regions_measured, regions_missing;
	/* may a merge size be named as a cause: the geometry is a file that
	 * merges (mthpscope probe's, --tlb-geometry), or the table's and it
	 * merges on this vendor's CPU; never on Intel without such a file */
	bool merge_plausible;
	unsigned merge_max;   /* pages: no size above the geometry's largest is plausible */
};

/* The model beside a; g NULL: the model the trials name (results "tlb"),
 * when the table has it. Never fails: an unavailable prediction says why. */
void tlb_predict(const struct analysis *a, const struct tlb_geometry *g, struct tlb_prediction *p);
/* Does any analysed trial carry a layout? (Without one and without a
 * --tlb-model, analyze prints exactly what it printed before.) */
bool tlb_predict_has_layouts(const struct analysis *a);
json_t *tlb_prediction_json(const struct tlb_prediction *p);
/* Why a span's knee is not predicted, in words ("no layouts at this span");
 * "" for TLB_PREDICT_KNOWN. */
const char *tlb_predict_unknown_words(enum tlb_predict_unknown u);

/* For tlb_time.c: the layout the model reads for trial i (its own, or
 * with p->assumed one made from its folio histogram into *buf), or NULL
 * when the trial is not one the analysis used or has neither. */
const struct layout_hist *tlb_predict_layout(const struct analysis *a,
					     const struct tlb_prediction *p, size_t i,
					     struct layout_hist *buf);
/* The time model at span si (tlb_time.c): every order's predicted time
 * gain with its interval, the knee in the measured knee's units, each
 * order set against the measured gain, the hypotheses fitted and the
 * likely cause of each disagreement. */
void tlb_time_span(const struct analysis *a, struct tlb_prediction *p, int si);
const char *tlb_time_cause_name(enum tlb_time_cause c); /* "scatter", "merge", ... */
const char *tlb_time_term_name(enum tlb_term_kind k); /* "none", "first level", "host side" */
/* A hypothesis' second term in words ("" without one), source model. */
void tlb_time_term_words(const struct tlb_prediction *p, const struct tlb_hypothesis *h,
			 char *buf, size_t size);
/* Set p->merge_plausible from p->g and the results' host (tlb_time.c). */
void tlb_time_plausible(const struct analysis *a, struct tlb_prediction *p);
/* "4 and 8", "none", "16": a hypothesis' merge sizes in pages. */
void tlb_time_rule_words(unsigned mask, char *buf, size_t size);
/* The span's time model as JSON members of o (source model). */
void tlb_time_span_json(const struct tlb_prediction *p, const struct tlb_predict_span *s,
			json_t *o);
json_t *tlb_time_cell_json(const struct tlb_predict_cell *c);

#endif
