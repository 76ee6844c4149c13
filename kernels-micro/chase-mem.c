// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * chase-mem: a random cyclic pointer chase over every cache line of the span.
 * With a span several times the last-level cache each access misses the
 * caches and, at small orders, the TLB too: DRAM-bound, with the page walk's
 * own misses on top. Same loop as chase-tlb (kernel_chase_loop).
 */
#include "kernel.h"

#include <stdlib.h>

static int chase_mem_setup(struct kernel_state *st)
{
	uint64_t nlines = st->span / KERNEL_LINE, i;
	uint32_t *next;
	int err = kernel_random_cycle(&next, nlines, st->seed);

	if (err)
		return err;
	for (i = 0; i < nlines; i++)
		*(void **)(st->base + i * KERNEL_LINE) = st->base + (uint64_t)next[i] * KERNEL_LINE;
	free(next);
	st->cursor = st->base;
	st->cycle = nlines;
	return 0;
}

const struct kernel_desc kernel_chase_mem = {
	.name = "chase-mem",
	.help = "random cyclic pointer chase over every cache line: DRAM-bound",
	.setup = chase_mem_setup,
	.loop = kernel_chase_loop,
};
