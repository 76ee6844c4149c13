// SPDX-License-Identifier: GPL-2.0-or-later
/* The micro-kernels' set-up and loop contracts, on any host (no root). */
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "kernel.h"

#define PAGE 4096UL

static char *alloc_span(size_t span)
{
	char *p = aligned_alloc(PAGE, span);

	ASSERT_TRUE(p != NULL);
	memset(p, 0, span);
	return p;
}

TEST(random_cycle_is_one_cycle)
{
	static const uint32_t sizes[] = { 2, 3, 10, 1000, 65537 };
	uint32_t *none = NULL;
	size_t k;

	for (k = 0; k < (sizeof(sizes) / sizeof(sizes[0])); k++) {
		uint32_t n = sizes[k], i, cur = 0;
		uint32_t *next = NULL;
		unsigned char *seen = calloc(n, 1);

		ASSERT_TRUE(seen);
		ASSERT_EQ(kernel_random_cycle(&next, n, 42 + k), 0);
		for (i = 0; i < n; i++) {
			ASSERT_TRUE(next[cur] < n);
			EXPECT_EQ(seen[cur], 0);
			seen[cur] = 1;
			cur = next[cur];
		}
		EXPECT_EQ(cur, 0); /* back at the start after exactly n steps */
		free(next);
		free(seen);
	}
	EXPECT_EQ(kernel_random_cycle(&none, 1, 0), -EINVAL);
	EXPECT_EQ(kernel_random_cycle(&none, (uint64_t)UINT32_MAX + 1, 0), -EINVAL);
	EXPECT_TRUE(none == NULL);
}

/* The chase permutation visits every page exactly once per cycle. */
TEST(chase_tlb_visits_every_page_once_per_cycle)
{
	size_t span = 8UL << 20, npages = span / PAGE, i;
	char *base = alloc_span(span);
	unsigned *visits = calloc(npages, sizeof(*visits));
	struct kernel_state st = { .base = base, .span = span, .page_size = PAGE, .seed = 7 };
	void *start, *p;
	int lines_used[64] = { 0 }, distinct = 0;

	ASSERT_TRUE(visits != NULL);
	ASSERT_EQ(kernel_chase_tlb.setup(&st), 0);
	ASSERT_EQ(st.cycle, npages);
	start = p = st.cursor;
	for (i = 0; i < 2 * npages; i++) {
		size_t off = (size_t)((char *)p - base);
		ASSERT_TRUE(off < span);
		EXPECT_EQ(off % KERNEL_LINE, 0);
		visits[off / PAGE]++;
		lines_used[(off % PAGE) / KERNEL_LINE] = 1;
		p = *(void **)p;
		if (i == npages - 1)
			EXPECT_TRUE(p == start);
	}
	for (i = 0; i < npages; i++)
		if (visits[i] != 2)
			FAIL_AT("page %zu visited %u times in two cycles", i, visits[i]);
	for (i = 0; i < 64; i++)
		distinct += lines_used[i];
	/* the line offsets are spread over the page, not piled on one set */
	EXPECT_EQ(distinct, 64);
	/* the loop does exactly n dependent loads: after one cycle, back at start */
	st.cursor = start;
	kernel_chase_tlb.loop(&st, st.cycle);
	EXPECT_TRUE(st.cursor == start);
	kernel_chase_tlb.loop(&st, 1);
	EXPECT_TRUE(st.cursor == *(void **)start);
	free(visits);
	free(base);
}

TEST(chase_mem_visits_every_line_once_per_cycle)
{
	size_t span = 2UL << 20, nlines = span / KERNEL_LINE, i;
	char *base = alloc_span(span);
	unsigned char *seen = calloc(nlines, 1);
	struct kernel_state st = { .base = base, .span = span, .page_size = PAGE, .seed = 3 };
	void *p;

	ASSERT_TRUE(seen != NULL);
	ASSERT_EQ(kernel_chase_mem.setup(&st), 0);
	ASSERT_EQ(st.cycle, nlines);
	p = st.cursor;
	for (i = 0; i < nlines; i++) {
		size_t off = (size_t)((char *)p - base);
		ASSERT_TRUE(off < span && off % KERNEL_LINE == 0);
		EXPECT_EQ(seen[off / KERNEL_LINE], 0);
		seen[off / KERNEL_LINE] = 1;
		p = *(void **)p;
	}
	EXPECT_TRUE(p == st.cursor);
	free(seen);
	free(base);
}

TEST(stream_counts_exact_and_wraps)
{
	size_t span = 1UL << 20, nlines = span / KERNEL_LINE;
	char *base = alloc_span(span);
	struct kernel_state st = { .base = base, .span = span, .page_size = PAGE, .seed = 1 };

	ASSERT_EQ(kernel_stream.setup(&st), 0);
	/* every line holds 1: the sum is the number of loads */
	for (size_t i = 0; i < nlines; i++)
		*(uint64_t *)(base + i * KERNEL_LINE) = 1;
	EXPECT_EQ(kernel_stream.loop(&st, nlines + 5), nlines + 5);
	EXPECT_TRUE(st.cursor == base + 5 * KERNEL_LINE);
	free(base);
}

TEST(random_and_store_stay_inside_and_count_exact)
{
	size_t span = 1UL << 20, nlines = span / KERNEL_LINE, i, touched = 0;
	char *base = alloc_span(span);
	struct kernel_state st = { .base = base, .span = span, .page_size = PAGE, .seed = 9 };
	uint64_t x;

	ASSERT_EQ(kernel_store.setup(&st), 0);
	x = st.rng;
	kernel_store.loop(&st, 1000);
	EXPECT_TRUE(st.rng != x);
	for (i = 0; i < nlines; i++)
		touched += *(uint64_t *)(base + i * KERNEL_LINE) != 0;
	EXPECT_TRUE(touched > 900 && touched <= 1000); /* 1000 stores, few collisions */
	/* the random loads sum what they read: all ones -> the count */
	for (i = 0; i < nlines; i++)
		*(uint64_t *)(base + i * KERNEL_LINE) = 1;
	ASSERT_EQ(kernel_random.setup(&st), 0);
	EXPECT_EQ(kernel_random.loop(&st, 12345), 12345);
	free(base);
}

TEST(table_lists_every_kernel)
{
	static const char *const names[] = { "chase-tlb", "chase-mem", "random", "stream", "store" };
	size_t i;

	for (i = 0; i < (sizeof(names) / sizeof(names[0])); i++) {
		const struct kernel_desc *k = kernel_find(names[i]);
		ASSERT_TRUE(k != NULL);
		EXPECT_STREQ(k->name, names[i]);
		EXPECT_TRUE(k->help && k->setup && k->loop);
	}
	EXPECT_TRUE(kernel_find("nope") == NULL);
}

HARNESS_MAIN
