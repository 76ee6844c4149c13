/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the hardware merges, inferred from times (mthpscope probe, issue 38):
 * the spans to measure, chosen from a geometry's capacities, and the
 * inference from the measured times and layouts. Pure computation on plain
 * types (the measuring is src/measure/probe.c, through the one engine).
 *
 * The hypotheses: the CPU folds aligned, physically contiguous runs of 4K
 * PTEs into one entry of at most 1 (no merging), 4, 8 or 16 pages, every
 * smaller power of two from 4 up as well (Zen: 4 and 8). Each is the model
 * (tlb_model.h) under that rule; each level's effective capacity is a
 * multiple of the geometry's (a grid), so a reach that differs from the
 * table is a hypothesis too. At every span the time per access is fitted
 * as a + b1 * miss(L1) + b2 * miss(L2) over the variants' mean times, with
 * 0 <= b1 <= b2 (a miss never saves time, and a page walk costs at least
 * what a second-level hit does: without it a hypothesis could call every
 * walk free and explain the PMD gain by the first level alone, which fits
 * any merge size); the hypothesis whose best fit
 * leaves the least residual, in units of the means' noise, wins.
 * Resampling the reps (bootstrap) gives each hypothesis's support and the
 * capacities' intervals. It tells only when one hypothesis takes most of
 * the resamples and fits clearly better than the next; otherwise it says
 * it cannot tell, and why.
 *
 * Return convention: 0 or negative errno.
 */
#ifndef TLB_PROBE_H
#define TLB_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "layout.h"
#include "tlb_model.h"

/* The layouts timed at every span. */
enum probe_variant {
	PROBE_O0,   /* order-0 folios (physically scattered, as the kernel gives them) */
	PROBE_O2,   /* order-2 folios (16K) */
	PROBE_O3,   /* order-3 folios (32K) */
	PROBE_O4,   /* order-4 folios (64K) */
	PROBE_C0,   /* 4K PTEs on purpose contiguous: a PMD folio mapped by PTEs */
	PROBE_PMD,  /* PMD mappings: what a translation costs at all */
	PROBE_NR_VARIANTS
};

#define PROBE_NR_HYP 4
#define PROBE_MAX_SPANS 4
#define PROBE_MAX_REPS 64
#define PROBE_NR_SCALES 7

/* The hypotheses' largest merge, in pages: 1, 4, 8, 16. */
extern const unsigned probe_hyp_pages[PROBE_NR_HYP];
/* The capacity multiples tried per level. */
extern const double probe_scales[PROBE_NR_SCALES];

const char *probe_variant_name(enum probe_variant v);
/* The folio order a variant is populated at (PROBE_C0 and PROBE_PMD: the PMD order). */
int probe_variant_order(enum probe_variant v, int pmd_order);

/*
 * The spans (bytes, multiples of pmd_size, ascending) where g's capacities
 * make 4- and 8-page merging differ in fit or not: at L1 (4-merged entries
 * overflow it, 8-merged fit), at the last level (the same), and a control
 * where both fit the last level. Fewer when two coincide. The number, or
 * -EINVAL for a geometry without a known capacity.
 */
int probe_spans(const struct tlb_geometry *g, unsigned long long pmd_size,
		unsigned long long *spans, int max);

struct probe_input {
	const struct tlb_geometry *base; /* the capacities the scales multiply */
	int nr_spans;
	unsigned long long span[PROBE_MAX_SPANS];
	/* the measured layouts (one rep's is enough: they differ little) */
	struct layout_hist layout[PROBE_MAX_SPANS][PROBE_NR_VARIANTS];
	int nr_reps;
	/* ns per access of each rep; NaN: missing (left out of the means) */
	double ns[PROBE_MAX_SPANS][PROBE_NR_VARIANTS][PROBE_MAX_REPS];
	uint64_t seed;
	unsigned boots;                  /* resamples; 0: 1000 */
};

enum probe_verdict {
	PROBE_TELLS,         /* one hypothesis fits clearly best */
	PROBE_AMBIGUOUS,     /* several fit about as well */
	PROBE_FLAT,          /* no translation cost visible: PMD no faster than order 0 */
	PROBE_TOO_FEW,       /* fewer than 3 reps with every variant timed */
};

struct probe_result {
	enum probe_verdict verdict;
	int best;                         /* index into probe_hyp_pages */
	double support[PROBE_NR_HYP];     /* share of the resamples each hypothesis won */
	/* each hypothesis's best fit: residual in units of the noise (a
	 * chi-square-like sum over every span's variants), and its scales */
	double misfit[PROBE_NR_HYP];
	int scale_at[PROBE_NR_HYP][2];
	/* the merge size's 95 % interval over the resamples (pages) */
	unsigned merge_lo, merge_hi;
	/* the effective capacity of L1 and the last level: the best fit's
	 * and the resamples' 95 % interval (entries) */
	int nr_levels;
	double capacity[2], capacity_lo[2], capacity_hi[2];
	/* what the variants' layouts allow: a variant whose blocks are not
	 * contiguous cannot test the merge it was meant for */
	bool scattered[PROBE_NR_VARIANTS];
	/* the PMD variant's saving over order 0 at each span (share of order
	 * 0's time): the translation cost these spans show */
	double pmd_gain[PROBE_MAX_SPANS];
};

/* The threshold of 'tells': the winner's share of the resamples, and the
 * misfit the runner-up must exceed the winner by (about two standard
 * errors squared). */
#define PROBE_MIN_SUPPORT 0.8
#define PROBE_MIN_MISFIT_GAP 4.0

int tlb_probe_infer(const struct probe_input *in, struct probe_result *out);

/* The geometry the result describes: base's levels with the fitted
 * capacities, the merge sizes of the winning hypothesis (none when 1).
 * The caller owns name/desc/cite strings it passes; no allocation. */
void tlb_probe_geometry(const struct probe_input *in, const struct probe_result *r,
			const char *name, const char *desc, const char *cite,
			struct tlb_geometry *g);

/* The predicted miss ratios of one variant under hypothesis h at scales
 * (s1, s2): for tests and the report. -EINVAL when the model refuses. */
int tlb_probe_miss(const struct tlb_geometry *base, int h, int s1, int s2,
		   const struct layout_hist *lh, double miss[2]);

#endif
