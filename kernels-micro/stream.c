// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stream: sequential 8-byte reads, one per cache line, wrapping at the end of
 * the span. The prefetchers hide most of the memory latency, so what is left
 * of translation is one TLB miss per page (or per folio where the TLB
 * coalesces or holds a larger entry).
 *
 * The load goes through a volatile pointer: gcc must emit one load per line
 * and may not vectorise or skip lines. Checked with objdump -d (gcc 12 -O2
 * x86-64): one `mov (%rax),%rsi` load per iteration, then the pointer
 * increment, a branch-free wrap (cmp + cmove) and the loop branch.
 */
#include "kernel.h"

#include <errno.h>

static int stream_setup(struct kernel_state *st)
{
	st->nlines = st->span / KERNEL_LINE;
	if (st->nlines < 1)
		return -EINVAL;
	st->cursor = st->base;
	st->cycle = st->nlines;
	return 0;
}

__attribute__((noinline)) static uint64_t stream_loop(struct kernel_state *st,
						      unsigned long long n)
{
	const char *p = st->cursor, *base = st->base, *end = st->base + st->span;
	uint64_t sum = 0;

	while (n--) {
		sum += *(volatile const uint64_t *)p;
		p += KERNEL_LINE;
		if (p == end)
			p = base;
	}
	st->cursor = (void *)p;
	return sum;
}

const struct kernel_desc kernel_stream = {
	.name = "stream",
	.help = "sequential reads, one per cache line: prefetch-friendly",
	.setup = stream_setup,
	.loop = stream_loop,
};
