// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * chase-tlb: a random cyclic pointer chase touching one cache line per page.
 * The line within each page is spread pseudo-randomly, so the chased lines
 * (span / page_size * 64 bytes) fill the cache sets evenly and stay in cache
 * while the pages are many more than the TLB reaches: each access costs a
 * translation, not a memory access -- the way lmbench's `tlb` and Calibrator
 * isolate TLB cost. The line choice hashes the page index rather than using
 * it directly so that physically contiguous large folios and scattered 4K
 * pages load the cache sets alike (a direct i % 64 would pile the lines of a
 * 2M folio into few L2 sets and penalise exactly the large orders).
 */
#include "kernel.h"

#include <stdlib.h>

static int chase_tlb_setup(struct kernel_state *st)
{
	uint64_t npages = st->span / st->page_size, i, hs;
	uint32_t *next;
	int err = kernel_random_cycle(&next, npages, st->seed);

	if (err)
		return err;
	for (i = 0; i < npages; i++) {
		uint32_t j = next[i];
		uint64_t li, lj;

		hs = st->seed ^ (i * 0x2545f4914f6cdd1dULL);
		li = stats_splitmix64(&hs) >> 58; /* 0..63 */
		hs = st->seed ^ ((uint64_t)j * 0x2545f4914f6cdd1dULL);
		lj = stats_splitmix64(&hs) >> 58;
		*(void **)(st->base + i * st->page_size + li * KERNEL_LINE) =
			st->base + (uint64_t)j * st->page_size + lj * KERNEL_LINE;
		if (i == 0)
			st->cursor = st->base + li * KERNEL_LINE;
	}
	free(next);
	st->cycle = npages;
	return 0;
}

const struct kernel_desc kernel_chase_tlb = {
	.name = "chase-tlb",
	.help = "random cyclic pointer chase, one cache line per page, lines fit in cache: "
		"translation-bound",
	.setup = chase_tlb_setup,
	.loop = kernel_chase_loop,
};
