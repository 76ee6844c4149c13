/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TLB model (tlb_model.h) over the hot windows of a record document:
 * for each window whose memory was scanned with its contiguity (layout.h),
 * the entries that map it now, and what they would be at each order the
 * model cares about: its merge order (AMD's 4-page coalescing: 2; arm64's
 * contiguous bit: 4 with 4K pages) and the PMD order. Every figure is the
 * model's (labelled "model"), never a count.
 *
 * "At order N": the window's PTE-mapped present pages, rounded up to whole
 * folios of order N (what faulting it in at that order would map), each
 * folio aligned and physically contiguous (so each is mergeable), no two
 * folios adjacent; its PMD mappings stay. At the PMD order: every present
 * page, rounded up to whole PMD mappings.
 *
 * Return convention: 0 or negative errno.
 */
#ifndef RECORD_TLB_H
#define RECORD_TLB_H

#include "layout.h"
#include "record_doc.h"
#include "tlb_model.h"

/* The orders the model shows for g (ascending, at most
 * RECORD_TLB_MAX_ORDERS): the merge order when g merges, then the PMD
 * order. The count, or -EINVAL when g's rule does not fit h's page size. */
int record_tlb_orders(const struct tlb_geometry *g, const struct layout_hist *h, int *orders);
/* The layout h's memory would have at 'order' (see above). */
void record_tlb_layout_at(const struct layout_hist *h, int order, struct layout_hist *out);
/* One window's figures. */
int record_tlb_window(const struct tlb_geometry *g, const struct layout_hist *h,
		      struct record_window_tlb *t);
/* Every window of d with a layout; d->tlb_model and d->tlb_source name g
 * and the source of its figures. Windows without a layout get none. All or
 * nothing: when g does not fit one window's layout (or memory runs out), d
 * is left as it was, its windows' figures and model too, and the error is
 * returned. */
int record_tlb_doc(struct record_doc *d, const struct tlb_geometry *g);
/* The first window whose layout g does not fit, with the reason in 'why'
 * (tlb_misfit_words); d->nr_windows when g fits every window. */
size_t record_tlb_misfit(const struct record_doc *d, const struct tlb_geometry *g, char *why,
			 size_t size);

#endif
