/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where a rep's buffers sit in physical memory (issue 39: placement is the
 * unit of replication). The engine (bench.c, populate_all) moves every
 * placement with a ballast (a copy of the rep's buffers, each order's at its
 * order, plus a part drawn per rep), then reads the
 * buffers' page frame numbers here: a summary per buffer (min, median, max)
 * for the results file, and the share of the frames the placement before it
 * held, which says whether the new placement really differs.
 *
 * Why a ballast of the buffers' own orders: on the project's VM (kernel
 * 6.18, 24 GiB) a 64 MiB order-0 buffer populated after a PMD-order ballast
 * of 0.25-3 GiB took its frames from the same scattered free fragments
 * every time (median PFN 7.2-7.5 GiB whatever the ballast), while after an
 * order-0 ballast of 256 MiB, 1 GiB, 2 GiB, 4 GiB its median moved to 11.2,
 * 10.0, 11.2, 12.0 GiB: each size of block is used up by allocations of its
 * own size. Likewise an order-0 ballast did not move the large orders.
 *
 * Return convention: 0 or negative errno; nothing here prints.
 */
#ifndef PLACEMENT_H
#define PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "results.h"

/* The present PFNs of [base, base + len), sorted ascending, appended to
 * *pfns (grown with realloc; *n counts them). -EPERM when pagemap hides
 * PFNs (no CAP_SYS_ADMIN), -errno when it cannot be read. */
int placement_pfns(const void *base, size_t len, size_t page_size, uint64_t **pfns, size_t *n);
void placement_sort(uint64_t *pfns, size_t n);
/* min, median and max of sorted PFNs into p (zeros when n == 0), and the
 * distinct frames of 2^pmd_order and 2^(2 pmd_order) pages they fall in
 * (2 MiB and 1 GiB with 4K pages: what a VM's host may back with one page
 * each; results.h, regions_pmd and regions_pud). */
void placement_summary(const uint64_t *sorted, size_t n, int pmd_order,
		       struct results_placement *p);
/* The share of cur's frames (sorted) that prev (sorted) holds too; NaN when
 * either is empty. */
double placement_reused(const uint64_t *prev, size_t nprev, const uint64_t *cur, size_t ncur);
/* The ballast before rep 'rep': a size in [0, max] from a low-discrepancy
 * (golden-ratio) sequence with a seeded start, so that any number of reps
 * spreads its ballasts evenly over the range; rounded down to 'align'. */
unsigned long long placement_ballast_bytes(uint64_t seed, int rep, unsigned long long max,
					   unsigned long long align);

#endif
