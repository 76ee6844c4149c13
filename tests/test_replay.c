// SPDX-License-Identifier: GPL-2.0-or-later
/* The khugepaged policy models (src/analysis/replay.c) on small hand-made
 * presence maps, layout by layout; and the merged policy on the seeded
 * pattern of a recorded 7.3.4 guest cell. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "presence_doc.h"
#include "replay.h"
#include "replay_report.h"
#include "tlb_model.h"

#define ORDERS_2_9 0x3fcUL
#define ORDERS_2_8 0x1fcUL

/* One 4K-page range at 2 MiB whose pages [0, present) are present at
 * order 0, each at its own (non-contiguous) frame; [lo, hi) in the VMA. */
static void one_range(struct replay_map *m, unsigned present, unsigned lo, unsigned hi)
{
	struct presence_doc d;
	unsigned i;

	ASSERT_EQ(presence_doc_init(&d, 4096), 0);
	ASSERT_EQ(presence_doc_add_range(&d, 2ULL << 20, lo, hi), 0);
	for (i = lo; i < present; i++)
		ASSERT_EQ(presence_doc_add_folio(&d, i, 1, 0, 1000 + 2 * i), 0);
	ASSERT_EQ(replay_map_from_presence(&d, m), 0);
	presence_doc_free(&d);
}

/* The final mass of a replay as "order:pages,..." after each pass. */
static void replay(const struct replay_map *m, const char *policy, unsigned long orders,
		   int mpn, int min_order, int passes, char out[][128])
{
	struct replay_params p = { .orders = orders, .max_ptes_none = mpn,
				   .min_order = min_order };
	struct replay_state st[8];
	char err[128];
	bool rw;
	int i;

	ASSERT_EQ(replay_policy_parse(policy, &p.policy, &p.defer), 0);
	ASSERT_EQ(replay_run(m, &p, passes, st, &rw, err, sizeof(err)), 0);
	for (i = 0; i <= passes; i++)
		replay_report_mass(&st[i], 9, out[i], 128);
}

/* 300 of 512 present, PMD enabled, max_ptes_none 200: pache-v1's scaled
 * values let a half-empty order-6 window collapse (RSS 300 -> 320 pages),
 * and the next pass finds 320 >= 512 - 200 present: PMD. Creep over passes. */
TEST(pache_v1_creeps_to_pmd_over_passes)
{
	struct replay_map m;
	char mass[4][128];

	one_range(&m, 300, 0, 512);
	replay(&m, "pache-v1", ORDERS_2_9, 200, 2, 3, mass);
	EXPECT_STREQ(mass[0], "0:300");
	EXPECT_STREQ(mass[1], "6:64,8:256");
	EXPECT_STREQ(mass[2], "9:512");
	EXPECT_STREQ(mass[3], "9:512");
	replay_map_free(&m);
}

/* The same map under the merged policy: PMD collapse keeps 200 (300 < 312
 * present), mTHP collapse takes 200 as 0: only full windows, largest first,
 * and nothing more in later passes. At 511 it is PMD at once. */
TEST(merged_collapses_full_windows_only_off_0_and_511)
{
	struct replay_map m;
	char mass[4][128];
	struct replay_params p = { .policy = REPLAY_MERGED, .orders = ORDERS_2_9,
				   .max_ptes_none = 200, .min_order = 2 };
	bool rw = false;

	one_range(&m, 300, 0, 512);
	replay(&m, "merged", ORDERS_2_9, 200, 2, 3, mass);
	EXPECT_STREQ(mass[1], "2:4,3:8,5:32,8:256");
	EXPECT_STREQ(mass[3], "2:4,3:8,5:32,8:256");
	EXPECT_EQ(replay_max_ptes_none(&p, 4, 9, &rw), 0);
	EXPECT_TRUE(rw);
	EXPECT_EQ(replay_max_ptes_none(&p, 9, 9, &rw), 200);
	replay(&m, "merged", ORDERS_2_9, 511, 2, 1, mass);
	EXPECT_STREQ(mass[1], "9:512");
	replay(&m, "merged", ORDERS_2_9, 0, 2, 1, mass);
	EXPECT_STREQ(mass[1], "2:4,3:8,5:32,8:256");
	/* the smallest order 4: the order-2 and -3 tails stay order 0 */
	replay(&m, "merged", ORDERS_2_9, 0, 4, 1, mass);
	EXPECT_STREQ(mass[1], "0:12,5:32,8:256");
	replay_map_free(&m);
}

/* Jain: the PMD order first, then order by order; mTHP only at 0 or 511. */
TEST(jain_descends_and_refuses_other_values)
{
	struct replay_map m;
	char mass[4][128];

	one_range(&m, 300, 0, 512);
	replay(&m, "jain", ORDERS_2_9, 200, 2, 2, mass);
	EXPECT_STREQ(mass[2], "0:300");
	replay(&m, "jain", ORDERS_2_8, 0, 2, 1, mass);
	EXPECT_STREQ(mass[1], "2:4,3:8,5:32,8:256");
	replay(&m, "jain", ORDERS_2_8, 511, 2, 1, mass);
	EXPECT_STREQ(mass[1], "8:512");
	replay(&m, "jain", ORDERS_2_9, 511, 2, 1, mass);
	EXPECT_STREQ(mass[1], "9:512");
	replay_map_free(&m);
}

/* khugepaged scans only PMD ranges one VMA covers whole
 * (khugepaged_scan_mm_slot's round_up/round_down): a VMA ending at page 256
 * leaves its range as it is at 511, and so does a whole range of two VMAs. */
TEST(only_whole_ranges_are_scanned)
{
	struct replay_map m;
	char mass[2][128];

	one_range(&m, 100, 0, 256);
	replay(&m, "merged", ORDERS_2_9, 511, 2, 1, mass);
	EXPECT_STREQ(mass[1], "0:100");
	replay(&m, "pache-v1", ORDERS_2_9, 511, 2, 1, mass);
	EXPECT_STREQ(mass[1], "0:100");
	replay_map_free(&m);
	one_range(&m, 100, 0, 512);
	m.ranges[0].split = true;
	replay(&m, "jain", ORDERS_2_9, 511, 2, 1, mass);
	EXPECT_STREQ(mass[1], "0:100");
	m.ranges[0].split = false;
	replay(&m, "jain", ORDERS_2_9, 511, 2, 1, mass);
	EXPECT_STREQ(mass[1], "9:512");
	replay_map_free(&m);
}

/* -defer: the map's large folios of enabled orders start at order 0; an
 * empty range is never collapsed; a PMD collapse is a PMD mapping. */
TEST(defer_starts_at_order_0)
{
	struct presence_doc d;
	struct replay_map m;
	struct replay_state st[3];
	struct replay_params p = { .orders = ORDERS_2_9, .max_ptes_none = 0, .min_order = 2 };
	char mass[3][128], err[128];
	bool rw;

	ASSERT_EQ(presence_doc_init(&d, 4096), 0);
	ASSERT_EQ(presence_doc_add_range(&d, 0, 0, 512), 0);
	ASSERT_EQ(presence_doc_add_folio(&d, 0, 16, 4, 4096), 0);
	ASSERT_EQ(presence_doc_add_range(&d, 2ULL << 20, 0, 512), 0);
	ASSERT_EQ(replay_map_from_presence(&d, &m), 0);
	presence_doc_free(&d);
	replay(&m, "merged", ORDERS_2_9, 0, 2, 1, mass);
	EXPECT_STREQ(mass[0], "4:16");
	EXPECT_STREQ(mass[1], "4:16");
	replay(&m, "merged-defer", ORDERS_2_9, 0, 2, 1, mass);
	EXPECT_STREQ(mass[0], "0:16");
	EXPECT_STREQ(mass[1], "4:16");
	ASSERT_EQ(replay_policy_parse("pache-v1-defer", &p.policy, &p.defer), 0);
	EXPECT_TRUE(p.defer);
	p.max_ptes_none = 511;
	ASSERT_EQ(replay_run(&m, &p, 2, st, &rw, err, sizeof(err)), 0);
	EXPECT_EQ(st[1].pages[9], 512);
	EXPECT_EQ(st[1].layout.pmd_maps, 1);
	EXPECT_EQ(st[1].rss_pages, 512);
	replay_map_free(&m);
}

/* The layout the TLB model reads: a collapsed order-4 folio is 16
 * contiguous, aligned frames (contig[4] and folio[4] count it once), and
 * tlb_footprint takes it. */
TEST(layout_of_a_collapse_feeds_the_tlb_model)
{
	struct replay_map m;
	struct replay_state st[2];
	struct replay_params p = { .policy = REPLAY_MERGED, .orders = 1UL << 4,
				   .max_ptes_none = 0, .min_order = 2 };
	struct tlb_footprint fp;
	char err[128];
	bool rw;

	one_range(&m, 16, 0, 512);
	ASSERT_EQ(replay_run(&m, &p, 1, st, &rw, err, sizeof(err)), 0);
	EXPECT_EQ(st[0].layout.contig[1], 0);
	EXPECT_EQ(st[1].layout.contig[4], 1);
	EXPECT_EQ(st[1].layout.folio[4], 1);
	EXPECT_EQ(st[1].layout.contig[0], 16);
	ASSERT_TRUE(tlb_geometry_find("zen4") != NULL);
	EXPECT_EQ(tlb_footprint(tlb_geometry_find("zen4"), &st[1].layout, &fp), 0);
	replay_map_free(&m);
}

/* The recorded 7.3.4 amd64 guest (data/guest-collapse-7.3.4-amd64/cells.tsv,
 * khugepaged, orders 2-9, fill 25, span 8M, seed 1): the kernel made exactly
 * this mass at max_ptes_none 0, 64 and 255, and PMD folios at 511. */
TEST(merged_matches_the_7_3_4_guest)
{
	struct replay_map m;
	char mass[3][128];

	ASSERT_EQ(replay_map_synthetic(1, 0.25, 2048, 12, 9, &m), 0);
	replay(&m, "merged", ORDERS_2_9, 0, 2, 2, mass);
	EXPECT_STREQ(mass[2], "0:44,2:36,3:96,4:176,5:96,6:64");
	replay(&m, "merged", ORDERS_2_9, 255, 2, 2, mass);
	EXPECT_STREQ(mass[2], "0:44,2:36,3:96,4:176,5:96,6:64");
	replay(&m, "merged", ORDERS_2_9, 511, 2, 2, mass);
	EXPECT_STREQ(mass[2], "9:2048");
	replay_map_free(&m);
}

/* The map after a replay as a presence document reads back to the same state. */
/* The map range by range (replay_range_pages_of, collapse --replay's
 * final_ranges) adds up to its state, and a PMD-mapped range is all at the
 * PMD order: the same cell at 0 (mTHPs) and at 511 (PMDs). */
TEST(range_pages_add_up_to_the_state)
{
	struct replay_params p = { .policy = REPLAY_MERGED, .orders = ORDERS_2_9,
				   .min_order = 2 };
	struct replay_range_pages rp;
	struct replay_state st[3];
	struct replay_map m0, m;
	unsigned long long sum[LAYOUT_MAX_K + 1];
	char err[128];
	int mpn, k;
	bool rw;
	size_t r;

	ASSERT_EQ(replay_map_synthetic(1, 0.25, 2048, 12, 9, &m0), 0);
	for (mpn = 0; mpn <= 511; mpn += 511) {
		p.max_ptes_none = mpn;
		ASSERT_EQ(replay_map_copy(&m0, &m), 0);
		ASSERT_EQ(replay_run_in_place(&m, &p, 2, st, &rw, err, sizeof(err)), 0);
		memset(sum, 0, sizeof(sum));
		for (r = 0; r < m.nr_ranges; r++) {
			replay_range_pages_of(&m, r, &rp);
			EXPECT_EQ(rp.unknown, 0);
			if (mpn == 511)
				EXPECT_EQ(rp.pages[9], 512);
			for (k = 0; k <= LAYOUT_MAX_K; k++)
				sum[k] += rp.pages[k];
		}
		for (k = 0; k <= LAYOUT_MAX_K; k++)
			EXPECT_EQ(sum[k], st[2].pages[k]);
		replay_map_free(&m);
	}
	replay_map_free(&m0);
}

TEST(final_map_round_trip)
{
	struct replay_map m, back;
	struct replay_state st[3], again;
	struct replay_params p = { .policy = REPLAY_PACHE_V1, .orders = ORDERS_2_9,
				   .max_ptes_none = 200, .min_order = 2 };
	struct presence_doc d, d2;
	json_t *doc;
	char err[256];
	bool rw;

	ASSERT_EQ(replay_map_synthetic(3, 0.4, 4096, 12, 9, &m), 0);
	ASSERT_EQ(replay_run_in_place(&m, &p, 2, st, &rw, err, sizeof(err)), 0);
	ASSERT_EQ(presence_doc_init(&d, 4096), 0);
	ASSERT_EQ(replay_map_to_presence(&m, &d), 0);
	ASSERT_EQ(presence_doc_json(&d, &doc), 0);
	ASSERT_EQ(presence_doc_read(doc, &d2, err, sizeof(err)), 0);
	ASSERT_EQ(replay_map_from_presence(&d2, &back), 0);
	replay_state_of(&back, &again);
	EXPECT_EQ(memcmp(again.pages, st[2].pages, sizeof(again.pages)), 0);
	EXPECT_EQ(again.rss_pages, st[2].rss_pages);
	EXPECT_EQ(memcmp(&again.layout, &st[2].layout, sizeof(again.layout)), 0);
	json_decref(doc);
	presence_doc_free(&d);
	presence_doc_free(&d2);
	replay_map_free(&back);
	replay_map_free(&m);
}

TEST(bad_parameters)
{
	struct replay_map m;
	struct replay_state st[2];
	struct replay_params p = { .policy = REPLAY_MERGED, .orders = ORDERS_2_9,
				   .max_ptes_none = 0, .min_order = 5 };
	enum replay_policy pol;
	char err[128];
	bool rw, defer;

	one_range(&m, 16, 0, 512);
	EXPECT_EQ(replay_run(&m, &p, 1, st, &rw, err, sizeof(err)), -EINVAL);
	p.min_order = 3;
	p.max_ptes_none = 512;
	EXPECT_EQ(replay_run(&m, &p, 1, st, &rw, err, sizeof(err)), -EINVAL);
	p.max_ptes_none = 0;
	EXPECT_EQ(replay_run(&m, &p, 0, st, &rw, err, sizeof(err)), -EINVAL);
	EXPECT_EQ(replay_policy_parse("pache", &pol, &defer), -EINVAL);
	EXPECT_EQ(replay_policy_parse("-defer", &pol, &defer), -EINVAL);
	EXPECT_EQ(replay_policy_parse("merged-defe", &pol, &defer), -EINVAL);
	replay_map_free(&m);
}

HARNESS_MAIN
