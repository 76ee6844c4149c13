// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * random: independent random 8-byte loads, one per randomly chosen cache line
 * of the span. The addresses come from a xorshift64 generator in registers,
 * not from memory, so many loads (and page walks) are in flight at once:
 * this is the throughput side of translation, where chase-tlb is the latency
 * side. The generator's three shifts/xors and the multiply-shift are the only
 * non-access work in the loop; they are register-only.
 *
 * The load goes through a volatile pointer, so gcc must emit exactly one load
 * per iteration and may not vectorise, hoist or merge them. Checked with
 * objdump -d (gcc 12 -O2 x86-64): one `mov (%rax),%rax` load per iteration
 * (summed into a register), the rest register arithmetic and the loop branch.
 */
#include "kernel.h"

static int random_setup(struct kernel_state *st)
{
	return kernel_xorshift_setup(st, 0);
}

__attribute__((noinline)) static uint64_t random_loop(struct kernel_state *st,
						      unsigned long long n)
{
	const char *base = st->base;
	uint64_t x = st->rng, nl = st->nlines, sum = 0;

	while (n--) {
		x = kernel_xorshift64(x);
		sum += *(volatile const uint64_t *)(base + (((x >> 32) * nl) >> 32) * KERNEL_LINE);
	}
	st->rng = x;
	return sum;
}

const struct kernel_desc kernel_random = {
	.name = "random",
	.help = "independent random loads, many in flight: translation throughput",
	.setup = random_setup,
	.loop = random_loop,
};
