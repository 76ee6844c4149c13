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

struct tlb_predict_cell {
	size_t n;                                   /* trials with a layout that maps memory */
	size_t empty;         /* trials left out: their layout maps nothing (0 pages) */
	unsigned long long entries[TLB_MAX_LEVELS]; /* median over the trials */
	double miss[TLB_MAX_LEVELS];                /* median; NaN: capacity not known */
	double gain;          /* 1 - miss_last(k) / miss_last(0); NaN when not computable */
	double measured_gain; /* the analysis' gain at the verdict span; NaN elsewhere */
	bool scatter;         /* fewer merged blocks than folios of this order would give */
};

/* Why a span has no predicted knee (tlb_predict_unknown_words says it). */
enum tlb_predict_unknown {
	TLB_PREDICT_KNOWN,       /* it has one (or "none") */
	TLB_PREDICT_NO_LAYOUTS,  /* no trial at this span carries a layout */
	TLB_PREDICT_EMPTY,       /* those that do map no memory */
	TLB_PREDICT_NO_ORDER0,   /* none of order 0 does: no baseline for the gains */
	TLB_PREDICT_EMPTY_ORDER0, /* those of order 0 map no memory */
	TLB_PREDICT_NO_CAPACITY, /* the last level's capacity is not known */
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
	char cause[320];      /* where they disagree: the likely cause in words */
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

#endif
