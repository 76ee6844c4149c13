/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The physical layout of a set of mappings as a contiguity histogram: what
 * any CPU's TLB could do with it, computable from a saved document alone
 * (the TLB model, src/analysis/tlb_model.h, reads nothing else).
 *
 * A block of 2^k pages is counted when it is naturally aligned in VA (its
 * first virtual page number is a multiple of 2^k), every page of it is
 * present and PTE-mapped, and its PFNs advance by one with the VPNs from a
 * PFN that is itself a multiple of 2^k (physically contiguous and VA/PA
 * congruent: what AMD's PTE coalescing and arm64's contiguous bit need).
 * contig[k] counts such blocks whatever folios hold the pages; folio[k]
 * counts those of them inside one folio (of order k or more), the condition
 * under which the arm64 kernel sets the contiguous bit. contig[0] and
 * folio[0] are the PTE-mapped present pages. PMD mappings are counted apart
 * (pmd_maps), not in contig[] or folio[].
 *
 * Only memory with a struct page and a visible PFN is counted: the zero
 * page, hugetlb and PFNMAP are left out (they are in 'excluded').
 */
#ifndef LAYOUT_H
#define LAYOUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* One spelling of the top block order (FOLIO_MAX_ORDER has the same value). */
#define LAYOUT_MAX_K 20

struct layout_hist {
	unsigned page_shift;                           /* 12, 14, 16 */
	int pmd_order;                                 /* 9, 11, 13 */
	unsigned long long contig[LAYOUT_MAX_K + 1];   /* aligned contiguous blocks of 2^k pages */
	unsigned long long folio[LAYOUT_MAX_K + 1];    /* of those, inside one folio */
	unsigned long long pmd_maps;                   /* PMD mappings (2^pmd_order pages each) */
	unsigned long long excluded;                   /* present pages not counted (zero page, hugetlb, PFNMAP) */
};

void layout_hist_init(struct layout_hist *h, unsigned page_shift, int pmd_order);
/* h += o (same page_shift and pmd_order; -EINVAL otherwise). */
int layout_hist_add(struct layout_hist *h, const struct layout_hist *o);
/* Pages the histogram covers: contig[0] + pmd_maps << pmd_order. */
unsigned long long layout_hist_pages(const struct layout_hist *h);
/*
 * Count into blocks[k] (k = 0..max_k) the blocks of 2^k pages inside one
 * physically contiguous run: n pages from virtual page 'vpn' at frame 'pfn'
 * (both advance by one). A block counts when it is naturally aligned in VA
 * and VA and PA agree modulo its size. O(max_k): the scanner calls it once
 * per run of contiguous PFNs, not once per page.
 */
void layout_count_run(unsigned long long vpn, unsigned long long pfn, unsigned long long n,
		      int max_k, unsigned long long *blocks);

/*
 * JSON form (a results trial's "layout", a scan's per-VMA "layout"):
 *   { "page_shift": 12, "pmd_order": 9, "pmd_maps": 0, "excluded": 0,
 *     "contig": [n0, n1, ... n_pmd_order], "folio": [...] }
 * Arrays run from k = 0 to pmd_order. NULL on allocation failure.
 */
json_t *layout_hist_json(const struct layout_hist *h);
/* Fill *h from that form. -EINVAL with 'err' naming the JSON path of the
 * first bad field (relative to 'o'). */
int layout_hist_from_json(const json_t *o, struct layout_hist *h, char *err, size_t errsize);

#endif
