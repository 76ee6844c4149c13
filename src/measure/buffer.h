/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A span of anonymous memory backed by folios of one order: only that size
 * enabled ('always'; order 0: every size 'never'), MADV_HUGEPAGE (order 0:
 * MADV_NOHUGEPAGE), PMD-aligned, populated by touching every page. The folio
 * scanner (folio.h) then says what the kernel really gave.
 *
 * Return convention: 0 or negative errno. Nothing here prints.
 */
#ifndef BUFFER_H
#define BUFFER_H

#include <stdbool.h>
#include <stddef.h>

#include "folio.h"
#include "thp.h"

struct buf {
	char *map;            /* the raw mapping (alignment slack included) */
	size_t map_len;
	char *base;           /* PMD-aligned start of the span */
	size_t span;
	int order;
	size_t page_size, pmd_size;
	/* buffer_populate(): */
	unsigned long long populate_ns;
	bool have_size_stats;  /* order > 0: the size's stats/ deltas below */
	unsigned long long fault_alloc, fault_fallback;
};

/* Apply the knobs for 'order' (through the thp journal). -EINVAL when the
 * kernel has no anon support for that order. */
int buffer_set_order(const struct thp_settings *s, int order);

/* Map 'span' bytes (a multiple of s->pmd_size), PMD-aligned, with the madvise
 * that matches 'order'. Nothing is touched yet. */
int buffer_map(struct buf *b, const struct thp_settings *s, int order, size_t span);

/* Write one byte in every page (a write fault: a read would map the zero
 * page), timing the whole pass; for order > 0 the deltas of the size's
 * anon_fault_alloc / anon_fault_fallback around it. The stats are global:
 * another process faulting at the same size at the same time adds to them.
 * 'faults' (may be NULL) is enabled around the touching alone and disabled
 * after; the caller reads it. */
struct counters_set;
int buffer_populate(struct buf *b, struct counters_set *faults);

/* The size's anon_fault_alloc / anon_fault_fallback now (stats/; global to
 * the machine). -ENOENT when the kernel has no such counters for the order. */
int buffer_size_stats(int order, unsigned long long *alloc, unsigned long long *fallback);

/* Write one byte in every k-th page only (k >= 1): what a sparse user of the
 * span costs at this order. *rss_bytes: the span's resident bytes after it
 * (mincore). */
int buffer_populate_sparse(struct buf *b, unsigned long k, unsigned long long *rss_bytes);

/* Folio histogram of the span and the share of its pages at b->order;
 * with lh (may be NULL) its contiguity histogram too (src/doc/layout.h). */
int buffer_verify(const struct buf *b, struct folio_hist *h, struct layout_hist *lh,
	       double *coverage);

/* Split every PMD mapping of a populated span into 4K PTEs, the frames kept
 * (mprotect of one page of each PMD range and back: the kernel splits the
 * PMD, not the folio): 4K translations of physically contiguous, aligned
 * memory, what PTE merging needs and order-0 faults rarely give (the
 * probe's contiguous order 0). The span should then get MADV_NOHUGEPAGE so
 * khugepaged leaves it. */
int buffer_split_pmd(struct buf *b);

void buffer_unmap(struct buf *b);

#endif
