// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The placement summary (src/measure/placement.h) on made-up PFNs, any host:
 * min, median and max, and the distinct 2 MiB and 1 GiB frames the pages
 * fall in (issue 38: results placement.regions_pmd and regions_pud, which
 * analyze's time model reads for the host's side of the nested walk).
 */
#include <math.h>

#include "harness.h"
#include "placement.h"

/* Sorted PFNs of 4K pages: one whole 2 MiB frame (512 pages from 0), three
 * pages in the next, one page in a frame 1 GiB away. */
TEST(regions_of_sorted_pfns)
{
	uint64_t pfns[512 + 3 + 1];
	struct results_placement p = { 0 };
	size_t i, n = 0;

	for (i = 0; i < 512; i++)
		pfns[n++] = i;
	pfns[n++] = 512;
	pfns[n++] = 600;
	pfns[n++] = 1023;
	pfns[n++] = 1ULL << 18;
	placement_summary(pfns, n, 9, &p);
	EXPECT_TRUE(p.has_regions);
	EXPECT_EQ(p.regions_pmd, 3);
	EXPECT_EQ(p.regions_pud, 2);
	EXPECT_EQ(p.pfn_min, 0);
	EXPECT_EQ(p.pfn_max, 1ULL << 18);
	EXPECT_EQ(p.pfn_median, pfns[n / 2]);
	/* one page: one frame of each size */
	placement_summary(pfns + 513, 1, 9, &p);
	EXPECT_EQ(p.regions_pmd, 1);
	EXPECT_EQ(p.regions_pud, 1);
	/* no PFNs (pagemap hid them): no regions, not zero of them */
	placement_summary(pfns, 0, 9, &p);
	EXPECT_TRUE(!p.has_regions);
	EXPECT_EQ(p.regions_pmd, 0);
}

/* 64K pages (pmd_order 13: 512 MiB frames): the shift follows the order. */
TEST(regions_follow_the_pmd_order)
{
	const uint64_t pfns[] = { 0, 8191, 8192, 3 * 8192 + 5 };
	struct results_placement p = { 0 };

	placement_summary(pfns, 4, 13, &p);
	EXPECT_EQ(p.regions_pmd, 3);
	EXPECT_EQ(p.regions_pud, 1);
}

TEST(reused_share)
{
	const uint64_t a[] = { 1, 2, 3, 4 }, b[] = { 3, 4, 5, 6 };

	EXPECT_NEAR(placement_reused(a, 4, b, 4), 0.5, 1e-12);
	EXPECT_TRUE(isnan(placement_reused(a, 0, b, 4)));
}

HARNESS_MAIN
