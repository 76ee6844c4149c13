// SPDX-License-Identifier: GPL-2.0-or-later
/* The sequential schedule's plan (bench_plan): randomised blocks, each a
 * permutation of the cells of one rep, the same for the same seed, and no
 * two neighbouring trials of the same order, block boundaries included. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "harness.h"

static void check(const int *orders, int nr_orders, int nr_patterns, int nr_spans, int reps)
{
	int per_block = nr_orders * nr_patterns * nr_spans, bad = 0, worst = -1;
	uint64_t seed;

	for (seed = 1; seed <= 20000; seed++) {
		struct bench_cell *c, *again;
		int n, n2, i, k, same = 0;

		ASSERT_EQ(bench_plan(orders, nr_orders, nr_patterns, nr_spans, reps, seed, &c, &n), 0);
		ASSERT_EQ(n, per_block * reps);
		for (i = 1; i < n; i++)
			same += c[i].order == c[i - 1].order;
		if (same) {
			bad++;
			worst = (int)seed;
		}
		/* each block holds every (order, pattern, span) of its rep once */
		for (i = 0; i < n; i++) {
			int copies = 0;

			for (k = i / per_block * per_block; k < (i / per_block + 1) * per_block; k++)
				copies += c[k].order == c[i].order && c[k].pattern == c[i].pattern &&
					  c[k].span == c[i].span;
			if (copies != 1 || c[i].rep != i / per_block)
				FAIL_AT("seed %llu: cell %d is in its block %d times",
					(unsigned long long)seed, i, copies);
		}
		ASSERT_EQ(bench_plan(orders, nr_orders, nr_patterns, nr_spans, reps, seed, &again,
				     &n2), 0);
		EXPECT_TRUE(n2 == n && !memcmp(c, again, (size_t)n * sizeof(*c)));
		free(c);
		free(again);
	}
	if (bad)
		FAIL_AT("%d of 20000 plans of %d orders x %d patterns x %d spans x %d reps run an "
			"order twice in a row (seed %d)", bad, nr_orders, nr_patterns, nr_spans, reps,
			worst);
}

/* the run where it was seen: --orders 0,2,9 --sweep 8M:16M --reps 2 --seed 1 */
TEST(sweep_two_spans) { check((const int[]){ 0, 2, 9 }, 3, 1, 2, 2); }
TEST(every_order_one_span) { check((const int[]){ 0, 2, 3, 4, 5, 6, 7, 8, 9 }, 9, 1, 1, 5); }
TEST(two_orders_three_spans) { check((const int[]){ 0, 9 }, 2, 1, 3, 3); }
TEST(patterns_and_spans) { check((const int[]){ 0, 2, 4, 9 }, 4, 2, 3, 2); }

HARNESS_MAIN
