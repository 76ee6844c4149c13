// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * store: independent random 8-byte stores, one per randomly chosen cache line:
 * the store side of the TLB (store misses walk too; Intel counts them apart,
 * DTLB_STORE_MISSES). Same generator as 'random' (kernel.h), salted apart.
 *
 * The store goes through a volatile pointer: gcc must emit exactly one store
 * per iteration and may not drop stores to the same line or combine them.
 * Checked with objdump -d (gcc 12 -O2 x86-64): one `mov %rax,(%rdx)` per
 * iteration, the rest register arithmetic and the loop branch.
 */
#include "kernel.h"

static int store_setup(struct kernel_state *st)
{
	return kernel_xorshift_setup(st, 0x5bd1e995ULL);
}

__attribute__((noinline)) static uint64_t store_loop(struct kernel_state *st,
						     unsigned long long n)
{
	char *base = st->base;
	uint64_t x = st->rng, nl = st->nlines;

	while (n--) {
		x = kernel_xorshift64(x);
		*(volatile uint64_t *)(base + (((x >> 32) * nl) >> 32) * KERNEL_LINE) = x;
	}
	st->rng = x;
	return x;
}

const struct kernel_desc kernel_store = {
	.name = "store",
	.help = "independent random stores: the store side of the TLB",
	.stores = true,
	.setup = store_setup,
	.loop = store_loop,
};
