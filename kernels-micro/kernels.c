// SPDX-License-Identifier: GPL-2.0-or-later
#include "kernel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const struct kernel_desc *const kernel_table[] = {
	&kernel_chase_tlb, &kernel_chase_mem, &kernel_random, &kernel_stream, &kernel_store, NULL,
};

const struct kernel_desc *kernel_find(const char *name)
{
	const struct kernel_desc *const *k;

	for (k = kernel_table; *k; k++)
		if (!strcmp((*k)->name, name))
			return *k;
	return NULL;
}

/* Uniform in [0, bound) without modulo bias worth caring about at these
 * sizes (Lemire's multiply-shift). */
static uint32_t below(uint64_t *s, uint32_t bound)
{
	return (uint32_t)(((stats_splitmix64(s) >> 32) * (uint64_t)bound) >> 32);
}

int kernel_random_cycle(uint32_t **next, uint64_t n, uint64_t seed)
{
	uint32_t *perm, i;
	uint64_t s = seed;

	if (n < 2 || n > UINT32_MAX)
		return -EINVAL;
	/* Sattolo: shuffle a permutation so that it is one n-cycle, then read
	 * it as "perm[i] follows perm[i-1]". */
	perm = malloc(n * sizeof(*perm));
	if (!perm)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = (uint32_t)n - 1; i > 0; i--) {
		uint32_t j = below(&s, i); /* j < i: Sattolo, not Fisher-Yates */
		uint32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	/* perm is now a cyclic permutation i -> perm[i]: already a successor
	 * table with a single cycle. */
	*next = perm;
	return 0;
}

int kernel_xorshift_setup(struct kernel_state *st, uint64_t salt)
{
	uint64_t s = st->seed ^ salt;

	st->nlines = st->span / KERNEL_LINE;
	if (st->nlines < 1 || st->nlines > UINT32_MAX)
		return -EINVAL;
	st->rng = stats_splitmix64(&s) | 1; /* xorshift must not start at 0 */
	st->cycle = st->nlines;
	return 0;
}

/*
 * The pointer chase shared by chase-tlb and chase-mem: each load's address is
 * the value of the previous load, so loads cannot overlap (one dependent load
 * per access) and the compiler cannot drop or merge them: the final pointer is
 * returned and stored by the caller.
 *
 * Checked with `objdump -d --no-show-raw-insn build/.../kernels.c.o` (gcc 12,
 * -O2, x86-64): the loop body is `mov (%rdx),%rdx; sub $0x1,%rax; jae` --
 * one load per iteration, nothing else touching memory. noinline keeps the
 * loop a separate function whatever the caller's optimisation does.
 */
__attribute__((noinline)) uint64_t kernel_chase_loop(struct kernel_state *st, unsigned long long n)
{
	void *const *p = st->cursor;

	while (n--)
		p = *p;
	st->cursor = (void *)p;
	return (uint64_t)(uintptr_t)p;
}
