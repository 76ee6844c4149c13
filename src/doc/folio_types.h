/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Plain facts about folio orders that every layer may use (documents,
 * analysis, presentation): the order limit, the histogram a scan fills
 * (src/measure/folio.c) and documents carry, the arm64 contiguous-PTE order.
 * No code of the measurement layer behind them.
 */
#ifndef FOLIO_TYPES_H
#define FOLIO_TYPES_H

#include <stdbool.h>
#include <stddef.h>

/* The top folio order anything here handles (histogram slots 0..20, the
 * results reader's limit, --orders): above it an order is nonsense on any
 * arch. The one spelling of that limit. */
#define FOLIO_MAX_ORDER 20

/*
 * A set of folio orders, each once, in the order first given: what --orders
 * asks for (every command, one parser), what a document lists ([2, 3, 9]).
 * 'all' says "every order the kernel offers" (nr 0 until resolved).
 */
struct folio_orders {
	size_t nr;
	bool all;
	int order[FOLIO_MAX_ORDER + 1];
};

/* "0,2-9" (decimal, 0..FOLIO_MAX_ORDER) or "all" into *o: 0, or -EINVAL
 * (nothing printed: the caller says what it supports). */
int folio_orders_parse(const char *s, struct folio_orders *o);
/* Add an order not in the set yet (a full set or a bad order: ignored). */
void folio_orders_add(struct folio_orders *o, int order);
bool folio_orders_has(const struct folio_orders *o, int order);
/* The set as a bit mask (bit i: order i). */
unsigned long folio_orders_mask(const struct folio_orders *o);
/* The orders of a mask, ascending. */
void folio_orders_from_mask(struct folio_orders *o, unsigned long mask);

/*
 * What backs a range, in base pages. pages[o] counts the pages mapped by
 * complete folios of order o (thpmaps semantics: a folio runs from its head to
 * the next head while virtual and physical frame numbers both advance by one);
 * pages of folios cut by the range edge or only partly mapped count in
 * 'partial', not in pages[]. pages[0] holds small (order-0) folios, KSM
 * pages included. The zero page (small or huge), hugetlb pages and PFNs
 * without a struct page are classified in their own counters and are in
 * neither pages[] nor 'partial'.
 */
struct folio_hist {
	unsigned long long pages[FOLIO_MAX_ORDER + 1];
	unsigned long long present;     /* present pages in the range */
	unsigned long long not_present; /* holes (none / swapped) */
	unsigned long long swapped;
	unsigned long long partial;
	unsigned long long unaligned;   /* pages of complete folios whose address is not size-aligned */
	unsigned long long pmd_mapped;  /* pages of complete folios mapped by a PMD; needs
					 * PAGEMAP_SCAN (6.7+), else 0 */
	unsigned long long anon, file;  /* pages in pages[] + partial, by KPF_ANON */
	unsigned long long zero_page, ksm, hugetlb;
	unsigned long long other;       /* present PFNs without a struct page (KPF_NOPAGE, PFNMAP)
					 * or in a compound page that is no THP (io_uring's rings) */
};

/* The arm64 contiguous-PTE block as a folio order for a base page size:
 * CONT_PTE_SHIFT of Linux arch/arm64/include/asm/pgtable-hwdef.h (Arm ARM
 * DDI 0487 D8.6.1, Contiguous bit): 16 x 4K = 64K (order 4), 128 x 16K = 2M
 * (order 7), 32 x 64K = 2M (order 5). -1 for other page sizes. Compiled on
 * every architecture: results files from arm64 are analysed anywhere. */
static inline int arch_arm64_contpte_order(long page_size)
{
	switch (page_size) {
	case 4096:
		return 4;
	case 16384:
		return 7;
	case 65536:
		return 5;
	default:
		return -1;
	}
}

#endif
