/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Micro-kernels: the measured loops and their set-up (stress-ng habit: each
 * kernel is one file with one const descriptor, listed in kernel_table).
 *
 * The buffer is mapped and populated by the caller (src/measure/buffer.c); set-up
 * only writes into it (chase pointers), never maps or faults new memory, so
 * that the fault side and the access side are measured apart.
 *
 * Contract of loop(): exactly n accesses to the buffer, nothing else that
 * touches memory; the value returned depends on every load (the caller stores
 * it to a volatile sink), so the compiler can neither drop nor merge them.
 * Each kernel file says how its disassembly was checked.
 */
#ifndef KERNEL_H
#define KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h" /* stats_splitmix64: the one splitmix64 */

struct kernel_state {
	char *base;          /* the populated span, PMD-aligned */
	size_t span;
	size_t page_size;
	uint64_t seed;
	/* set-up fills these: */
	unsigned long long cycle; /* accesses in one full pass over the pattern */
	void *cursor;        /* chase: next element; stream: next line */
	uint64_t rng;        /* random / store: generator state */
	uint64_t nlines;     /* random / store / stream: lines in the span */
};

struct kernel_desc {
	const char *name;
	const char *help;
	/* Its accesses are stores: Intel counts their TLB misses with other
	 * events (DTLB_STORE_MISSES), which bench_access() selects. */
	bool stores;
	/* Lay the pattern out in the populated buffer. 0 or negative errno. */
	int (*setup)(struct kernel_state *st);
	/* Exactly n accesses; continues where the previous call stopped. */
	uint64_t (*loop)(struct kernel_state *st, unsigned long long n);
};

extern const struct kernel_desc kernel_chase_tlb;
extern const struct kernel_desc kernel_chase_mem;
extern const struct kernel_desc kernel_random;
extern const struct kernel_desc kernel_stream;
extern const struct kernel_desc kernel_store;

/* NULL-terminated, in the order --help lists them. */
extern const struct kernel_desc *const kernel_table[];
const struct kernel_desc *kernel_find(const char *name);

/* Shared set-up helpers (kernels.c). */
#define KERNEL_LINE 64u
/* A single random cycle over 0..n-1 (Sattolo's algorithm): (*next)[i] is
 * the successor of i, and following it from any start visits all n. *next
 * is malloc'd (free()). -EINVAL unless 2 <= n <= UINT32_MAX, -ENOMEM. */
int kernel_random_cycle(uint32_t **next, uint64_t n, uint64_t seed);

/* random and store: nlines from the span and a xorshift64 state from
 * seed ^ salt (each kernel its own salt, so the two draw different lines).
 * 0, or -EINVAL unless 1 <= nlines <= UINT32_MAX (kernels.c). */
int kernel_xorshift_setup(struct kernel_state *st, uint64_t salt);

/* One step of their generator (Marsaglia's xorshift64, shifts 13/7/17):
 * register-only, inlined into each measured loop. */
static inline uint64_t kernel_xorshift64(uint64_t x)
{
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

/* The dependent-load loop of both chases (kernels.c). */
uint64_t kernel_chase_loop(struct kernel_state *st, unsigned long long n);

#endif
