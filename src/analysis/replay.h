/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * khugepaged policies replayed on a presence map (collapse --replay): a
 * model, not a measurement. A map is a process's PMD-sized ranges page by
 * page (which PTEs are present, in which folio, at which PFN), from a
 * presence document (presence_doc.h, written by scan --presence) or from
 * collapse's seeded hole pattern (collapse_pattern.h). A policy walks every
 * range once per pass, as one khugepaged full scan would, and collapses the
 * windows its rule accepts; after each pass the model gives the folio
 * orders, the RSS (holes a collapse filled are RSS growth: creep) and the
 * layout (layout.h) the TLB model (tlb_model.h) reads.
 *
 * The policies, each from its published description:
 *  - merged: the mTHP collapse of the 7.x kernel (mm/khugepaged.c,
 *    collapse_scan_pmd() and the offset/order walk that followed Nico
 *    Pache's "khugepaged: add mTHP support" series after review by David
 *    Hildenbrand and Lorenzo Stoakes; Documentation/admin-guide/mm/
 *    transhuge.rst, "khugepaged"): a bitmap of the range's present,
 *    non-zero PTEs; from offset 0 the largest enabled order that the offset's
 *    alignment allows, then smaller orders at the same offset, a collapse
 *    (or a window already one folio) moving the offset past it. PMD
 *    collapse takes max_ptes_none as set; mTHP collapse takes 0, or any
 *    number of empty PTEs ((1 << order) - 1) when max_ptes_none is
 *    HPAGE_PMD_NR - 1; other values are taken as 0 after the kernel's
 *    warning (collapse_max_ptes_none()).
 *  - pache-v1: the first posting of the same series (v1, January 2025):
 *    the same largest-first walk of the bitmap with max_ptes_none scaled to
 *    each order (max_ptes_none >> (PMD order - order)) and no cap, so that a
 *    collapse that doubles a window's present pages can satisfy the next
 *    order up on the next scan: the creep its review named.
 *  - jain: Dev Jain's "khugepaged: Asynchronous mTHP collapse" (RFC,
 *    December 2024): the PMD order first, then order by order downwards
 *    over the range's windows of each order; mTHP collapse only at
 *    max_ptes_none 0 (no empty PTE) or HPAGE_PMD_NR - 1 (any), none at
 *    other values (the PMD order keeps the value as set).
 *  - the -defer variants: Pache's per-size 'defer' setting (a size that
 *    faults at order 0 and is reached by collapse only): the map's large
 *    folios of the enabled orders start as order-0 pages (every page of
 *    them present, as their fault made them), then the policy runs.
 *
 * What the model leaves out: allocation failures, swap entries and shared
 * pages (max_ptes_swap, max_ptes_shared), pages not referenced, new faults
 * between passes, and khugepaged's scan budget (a pass is one full scan).
 * Only a range one VMA covers whole is scanned (as khugepaged_scan_mm_slot()
 * scans a VMA from its first to its last whole PMD range).
 *
 * Return convention: 0 or negative errno; nothing here prints.
 */
#ifndef REPLAY_H
#define REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "presence_doc.h"

enum replay_policy { REPLAY_MERGED, REPLAY_PACHE_V1, REPLAY_JAIN, REPLAY_NR_POLICIES };

/* "merged", "pache-v1", "jain" (the -defer suffix is a flag of its own). */
extern const char *const replay_policy_names[];
/* POLICY or POLICY-defer into *p, *defer: 0 or -EINVAL. */
int replay_policy_parse(const char *s, enum replay_policy *p, bool *defer);

/* The map: ranges of pmd_pages pages each, page i of range r at [r * pmd_pages + i]. */
struct replay_range {
	unsigned long long addr; /* virtual address of the range */
	unsigned lo, hi;         /* pages [lo, hi) lie in a collapsible VMA */
	bool pmd_mapped;         /* mapped by one PMD (then the page arrays are not read) */
	bool split;              /* more than one VMA covers it */
};

struct replay_map {
	unsigned page_shift;
	int pmd_order;
	unsigned pmd_pages;
	size_t nr_ranges;
	struct replay_range *ranges;
	int *folio;                /* per page: folio id, -1 not present */
	signed char *order;        /* per page: its folio's order (-1: a part of one not known) */
	unsigned long long *pfn;   /* per page */
	int next_folio;            /* ids of the folios a collapse makes */
	unsigned long long next_pfn; /* frames of the folios a collapse makes (model) */
};

/* The map of a presence document. -EINVAL (a document the reader would refuse),
 * -ENOMEM. */
int replay_map_from_presence(const struct presence_doc *d, struct replay_map *m);
/* The map collapse faults: span_pages / pmd_pages ranges, the pattern's pages
 * present at order 0, at PFNs no two of which are contiguous. */
int replay_map_synthetic(uint64_t seed, double fill, size_t span_pages, unsigned page_shift,
			 int pmd_order, struct replay_map *m);
int replay_map_copy(const struct replay_map *src, struct replay_map *dst);
void replay_map_free(struct replay_map *m);

struct replay_params {
	enum replay_policy policy;
	bool defer;
	unsigned long orders;   /* enabled orders (bit k: order k) */
	int max_ptes_none;      /* 0 .. pmd_pages - 1 */
	int min_order;          /* the smallest mTHP order collapse makes: 2, 3 or 4 */
};

/* The state after a pass (pass 0: the map as given). */
struct replay_state {
	unsigned long long pages[LAYOUT_MAX_K + 1];  /* present pages by folio order (PMD-mapped at the PMD order) */
	unsigned long long unknown;                   /* present pages of folios whose order is not known */
	unsigned long long rss_pages;                 /* every present page */
	unsigned long long collapses[LAYOUT_MAX_K + 1]; /* collapses made by this pass, by order */
	struct layout_hist layout;                    /* for tlb_footprint() */
};

/* The max_ptes_none a policy applies at 'order' (-1: no collapse at that
 * order whatever it holds); *rewritten set when the merged policy takes a
 * value other than 0 and pmd_pages - 1 as 0 (the kernel's warning). */
int replay_max_ptes_none(const struct replay_params *p, int order, int pmd_order,
			 bool *rewritten);
/* The kernel's words for that rewrite (pr_warn_once in collapse_max_ptes_none()). */
void replay_rewrite_message(int pmd_pages, char *buf, size_t size);

/* The state of m now. */
void replay_state_of(const struct replay_map *m, struct replay_state *st);

/* One range of m now: present pages by folio order (PMD-mapped: all at the
 * PMD order) and those of folios whose order is not known; what
 * replay_state_of adds up over the ranges. */
struct replay_range_pages {
	unsigned long long pages[LAYOUT_MAX_K + 1];
	unsigned long long unknown;
};
void replay_range_pages_of(const struct replay_map *m, size_t r, struct replay_range_pages *rp);
/* Prepare m for policy p (the -defer variants' order-0 start). -EINVAL for
 * parameters out of range (err says which). */
int replay_begin(struct replay_map *m, const struct replay_params *p, char *err, size_t errsize);
/* One pass over every range; *st the state after it. */
void replay_pass(struct replay_map *m, const struct replay_params *p, struct replay_state *st);
/* The whole replay on a copy of m0: states[0] the start (after the -defer
 * variants' order-0 start), states[1..passes] after each pass; *rewritten
 * when the merged policy took max_ptes_none as 0 for an enabled mTHP order.
 * -EINVAL (err says why), -ENOMEM. */
int replay_run(const struct replay_map *m0, const struct replay_params *p, int passes,
	       struct replay_state *states, bool *rewritten, char *err, size_t errsize);
/* The same on m itself: m is the map after the last pass. */
int replay_run_in_place(struct replay_map *m, const struct replay_params *p, int passes,
			struct replay_state *states, bool *rewritten, char *err, size_t errsize);
/* The map as a presence document (collapse --replay --final-map): d
 * initialised with m's page size (presence_doc_init); collapsed folios at
 * the model's frames. -EINVAL for another page size, -ENOMEM. */
int replay_map_to_presence(const struct replay_map *m, struct presence_doc *d);

#endif
