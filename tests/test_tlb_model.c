// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The translation model on known layouts: the footprints of issue 19's
 * acceptance table, AMD's rule on order-0 pages that happen to be
 * contiguous, the arm64 contiguous sizes of 16K and 64K kernels, HPA off
 * unless asked, the miss ratio with shared and separate pools, and the
 * geometry table's invariants (every figure cited, names unique).
 */
#include "bench.h"
#include "harness.h"
#include "tlb_host.h"
#include "tlb_model.h"

#define MIB (1ull << 20)

/* 'bytes' mapped by PTEs in folios of 'order', the folios physically
 * scattered (no contiguity across folios). */
static void hist_folios(struct layout_hist *h, unsigned page_shift, int pmd_order,
			unsigned long long bytes, int order)
{
	unsigned long long pages = bytes >> page_shift;
	int k;

	memset(h, 0, sizeof(*h));
	h->page_shift = page_shift;
	h->pmd_order = pmd_order;
	for (k = 0; k <= order; k++)
		h->contig[k] = h->folio[k] = pages >> k;
}

static void hist_pmd(struct layout_hist *h, unsigned long long bytes)
{
	memset(h, 0, sizeof(*h));
	h->page_shift = 12;
	h->pmd_order = 9;
	h->pmd_maps = bytes >> 21;
}

static unsigned long long l2_needed(const char *model, const struct layout_hist *h)
{
	const struct tlb_geometry *g = tlb_geometry_find(model);
	struct tlb_footprint fp;

	if (!g || tlb_footprint(g, h, &fp))
		return ~0ull;
	return fp.level[fp.nr_levels - 1].entries_needed;
}

/* Issue 19's table: 64 MiB at order 4 and 64 MiB PMD-mapped. */
TEST(acceptance_footprints)
{
	struct layout_hist o4, pmd, both;
	int k;

	hist_folios(&o4, 12, 9, 64 * MIB, 4);
	hist_pmd(&pmd, 64 * MIB);
	EXPECT_EQ(l2_needed("skylake", &o4), 16384ull);
	EXPECT_EQ(l2_needed("golden-cove", &o4), 16384ull);
	/* Zen merges up to 8 pages (Solomon 2024; issue 38): 16384 / 8 */
	EXPECT_EQ(l2_needed("zen4", &o4), 2048ull);
	EXPECT_EQ(l2_needed("zen5", &o4), 2048ull);
	EXPECT_EQ(l2_needed("neoverse-n2", &o4), 1024ull);
	EXPECT_EQ(l2_needed("skylake", &pmd), 32ull);
	EXPECT_EQ(l2_needed("zen4", &pmd), 32ull);
	EXPECT_EQ(l2_needed("neoverse-n2", &pmd), 32ull);
	/* one process with both: the entries add up */
	both = o4;
	both.pmd_maps = pmd.pmd_maps;
	EXPECT_EQ(l2_needed("skylake", &both), 16384ull + 32);
	EXPECT_EQ(l2_needed("zen4", &both), 2048ull + 32);
	EXPECT_EQ(l2_needed("neoverse-v2", &both), 1024ull + 32);
	for (k = 0; k <= 4; k++)
		EXPECT_EQ(o4.contig[k], (64 * MIB >> 12) >> k);
}

/* AMD merges contiguous PFNs whatever folios hold them; arm64's contiguous
 * bit needs one folio; Intel merges nothing. */
TEST(order0_contiguous_amd_rule)
{
	struct layout_hist h;
	struct tlb_footprint fp;
	int k;

	/* 4 MiB of order-0 folios that sit physically contiguous and aligned */
	memset(&h, 0, sizeof(h));
	h.page_shift = 12;
	h.pmd_order = 9;
	for (k = 0; k <= 9; k++)
		h.contig[k] = 1024ull >> k;
	h.folio[0] = 1024;
	ASSERT_EQ(tlb_footprint(tlb_geometry_find("zen4"), &h, &fp), 0);
	EXPECT_EQ(fp.entries_merged, 128ull); /* 8-page entries: 1024 / 8 */
	EXPECT_EQ(fp.merged_by_order[3], 128ull);
	EXPECT_EQ(fp.merged_by_order[2], 0ull);
	EXPECT_EQ(fp.entries_base, 0ull);
	EXPECT_EQ(fp.level[1].entries_needed, 128ull);
	EXPECT_EQ(l2_needed("neoverse-n1", &h), 1024ull);
	EXPECT_EQ(l2_needed("skylake", &h), 1024ull);

	/* half of them contiguous: contig[2] = 128 of the 256 aligned quads */
	memset(&h, 0, sizeof(h));
	h.page_shift = 12;
	h.pmd_order = 9;
	h.contig[0] = h.folio[0] = 1024;
	h.contig[1] = 384;
	h.contig[2] = 128;
	ASSERT_EQ(tlb_footprint(tlb_geometry_find("zen3"), &h, &fp), 0);
	EXPECT_EQ(fp.entries_merged, 128ull);
	EXPECT_EQ(fp.entries_base, 1024ull - 512);
	EXPECT_EQ(fp.level[1].entries_needed, 128ull + 512);
}

/* L2 entries of g (a pointer, for parsed files) for h, or ~0 when it refuses. */
static unsigned long long l2_of(const struct tlb_geometry *g, const struct layout_hist *h)
{
	struct tlb_footprint fp;

	if (!g || tlb_footprint(g, h, &fp))
		return ~0ull;
	return fp.level[fp.nr_levels - 1].entries_needed;
}

/*
 * Issue 38: a CPU may merge 2^k PTEs for more than one k. Zen takes 8
 * where an aligned contiguous block of 8 allows it, else 4; a geometry
 * file from before several sizes ("merge_pages = 4") still merges 4 only.
 * 32 MiB = 8192 pages, each layout's exact entries.
 */
TEST(merge_sizes_4_and_8)
{
	static const char four[] = "name = four\nmerge = coalesce\nmerge_pages = 4\n"
				   "level1.entries = 72\nlevel2.entries = 3072\n";
	static const char both[] = "name = both\nmerge = coalesce\nmerge_pages = 4,8\n"
				   "level1.entries = 72\nlevel2.entries = 3072\n";
	const struct tlb_geometry *zen4 = tlb_geometry_find("zen4");
	struct tlb_geometry g4, g48;
	struct layout_hist h;
	struct tlb_footprint fp;
	char err[256];
	int k, orders[LAYOUT_MAX_K + 1];

	ASSERT_EQ(tlb_geometry_parse(four, sizeof(four) - 1, "four", &g4, err, sizeof(err)), 0);
	ASSERT_EQ(tlb_geometry_parse(both, sizeof(both) - 1, "both", &g48, err, sizeof(err)), 0);
	EXPECT_EQ(tlb_merge_set(&g4), 4u);
	EXPECT_EQ(tlb_merge_set(&g48), 12u);
	EXPECT_EQ(g48.merge_pages, 8u);
	hist_folios(&h, 12, 9, 32 * MIB, 0);
	EXPECT_EQ(tlb_merge_orders(zen4, &h, orders), 2);
	EXPECT_EQ(orders[0], 3);
	EXPECT_EQ(orders[1], 2);
	/* scattered order 0: nothing merges */
	EXPECT_EQ(l2_of(zen4, &h), 8192ull);
	/* order 2 folios, scattered: 4-page entries on both, none on Intel */
	hist_folios(&h, 12, 9, 32 * MIB, 2);
	EXPECT_EQ(l2_of(zen4, &h), 2048ull);
	EXPECT_EQ(l2_of(&g4, &h), 2048ull);
	EXPECT_EQ(l2_needed("sapphire-rapids", &h), 8192ull);
	/* order 3: where 4- and 8-merging differ */
	hist_folios(&h, 12, 9, 32 * MIB, 3);
	EXPECT_EQ(l2_of(zen4, &h), 1024ull);
	EXPECT_EQ(l2_of(&g48, &h), 1024ull);
	EXPECT_EQ(l2_of(&g4, &h), 2048ull);
	ASSERT_EQ(tlb_footprint(zen4, &h, &fp), 0);
	EXPECT_EQ(fp.merged_by_order[3], 1024ull);
	EXPECT_EQ(fp.merged_by_order[2], 0ull);
	/* order 4: Zen stops at 8, contpte takes 16 */
	hist_folios(&h, 12, 9, 32 * MIB, 4);
	EXPECT_EQ(l2_of(zen4, &h), 1024ull);
	EXPECT_EQ(l2_needed("neoverse-n2", &h), 512ull);
	/* order 0 made contiguous on purpose (PFNs contiguous, folios of
	 * order 0): Zen 8-merges, the arm64 kernel sets no contiguous bit
	 * (it needs one folio), Intel merges nothing */
	for (k = 0; k <= 9; k++)
		h.contig[k] = 8192ull >> k;
	for (k = 1; k <= 9; k++)
		h.folio[k] = 0;
	h.folio[0] = 8192;
	EXPECT_EQ(l2_of(zen4, &h), 1024ull);
	EXPECT_EQ(l2_of(&g4, &h), 2048ull);
	EXPECT_EQ(l2_needed("neoverse-n2", &h), 8192ull);
	EXPECT_EQ(l2_needed("sapphire-rapids", &h), 8192ull);
	/* a mixed run of 16 pages: an 8-block, a 4-block, 4 scattered pages:
	 * Zen 1 + 1 + 4 = 6 entries, 4-only 2 + 1 + 4 = 7 */
	layout_hist_init(&h, 12, 9);
	h.contig[0] = h.folio[0] = 16;
	h.contig[1] = 6;
	h.contig[2] = 3;
	h.contig[3] = 1;
	ASSERT_EQ(tlb_footprint(zen4, &h, &fp), 0);
	EXPECT_EQ(fp.merged_by_order[3], 1ull);
	EXPECT_EQ(fp.merged_by_order[2], 1ull);
	EXPECT_EQ(fp.entries_base, 4ull);
	EXPECT_EQ(fp.level[1].entries_needed, 6ull);
	EXPECT_EQ(l2_of(&g4, &h), 7ull);
	tlb_geometry_release(&g4);
	tlb_geometry_release(&g48);
}

/* Linux CONT_PTE_SHIFT: 16 x 4K, 128 x 16K, 32 x 64K. */
TEST(contpte_sizes_per_granule)
{
	struct layout_hist h;

	EXPECT_EQ(arch_arm64_contpte_order(1L << 12), 4);
	EXPECT_EQ(arch_arm64_contpte_order(1L << 14), 7);
	EXPECT_EQ(arch_arm64_contpte_order(1L << 16), 5);
	EXPECT_EQ(arch_arm64_contpte_order(1L << 13), -1);

	/* 64 MiB in 16K pages, folios of order 7 (2M): 4096 pages -> 32 blocks */
	hist_folios(&h, 14, 11, 64 * MIB, 7);
	EXPECT_EQ(l2_needed("neoverse-n2", &h), 32ull);
	/* order 6 folios are too small for the 16K contiguous block */
	hist_folios(&h, 14, 11, 64 * MIB, 6);
	EXPECT_EQ(l2_needed("neoverse-n2", &h), 4096ull);
	/* 64 MiB in 64K pages, folios of order 5 (2M): 1024 pages -> 32 blocks */
	hist_folios(&h, 16, 13, 64 * MIB, 5);
	EXPECT_EQ(l2_needed("neoverse-v1", &h), 32ull);
	/* AMD's rule has no 16K-page form */
	hist_folios(&h, 14, 11, 64 * MIB, 7);
	EXPECT_EQ(l2_needed("zen4", &h), ~0ull);
}

/* HPA is off in the table; a geometry that asks for it merges aligned
 * contiguous blocks of 2, 4 or 8 pages outside contiguous-bit blocks. */
TEST(hpa_only_when_asked)
{
	struct tlb_geometry g = *tlb_geometry_find("neoverse-n2");
	struct layout_hist h;
	struct tlb_footprint fp;

	EXPECT_TRUE(!g.hpa);
	hist_folios(&h, 12, 9, 64 * MIB, 3); /* order 3: no contpte block */
	EXPECT_EQ(l2_needed("neoverse-n2", &h), 16384ull);
	g.hpa = true;
	ASSERT_EQ(tlb_footprint(&g, &h, &fp), 0);
	EXPECT_EQ(fp.level[1].entries_needed, 16384ull / 8);
	/* with order-4 folios the contiguous bit takes them first */
	hist_folios(&h, 12, 9, 64 * MIB, 4);
	ASSERT_EQ(tlb_footprint(&g, &h, &fp), 0);
	EXPECT_EQ(fp.level[1].entries_needed, 1024ull);
	EXPECT_EQ(fp.entries_base, 0ull);
}

/* max(0, 1 - capacity/needed) for entries of one size; Che's approximation
 * for a shared pool of mixed sizes; separate PMD pool weighted by pages. */
TEST(miss_ratio)
{
	struct layout_hist h;
	struct tlb_footprint fp;

	hist_folios(&h, 12, 9, 64 * MIB, 2); /* 4096 entries of 4 pages */
	ASSERT_EQ(tlb_footprint(tlb_geometry_find("zen4"), &h, &fp), 0);
	EXPECT_EQ(fp.level[0].capacity, 72ull);
	EXPECT_NEAR(fp.level[0].miss_ratio, 1.0 - 72.0 / 4096, 1e-12);
	EXPECT_EQ(fp.level[1].capacity, 3072ull);
	EXPECT_NEAR(fp.level[1].miss_ratio, 1.0 - 3072.0 / 4096, 1e-12);
	EXPECT_NEAR(fp.level[1].coverage, 3072.0 / 4096, 1e-12);
	EXPECT_EQ((int)fp.source, (int)TLB_SRC_TABLE);

	/* fits: no miss, coverage above 1 */
	hist_folios(&h, 12, 9, 8 * MIB, 4);
	ASSERT_EQ(tlb_footprint(tlb_geometry_find("zen4"), &h, &fp), 0);
	EXPECT_NEAR(fp.level[1].miss_ratio, 0.0, 0);
	EXPECT_NEAR(fp.level[1].coverage, 3072.0 / 256, 1e-12); /* 2048 pages / 8 */

	/* Skylake L1: 64 4K entries and 32 2M entries, apart */
	hist_folios(&h, 12, 9, 2 * MIB, 0); /* 512 base pages */
	h.pmd_maps = 64;                    /* 128 MiB PMD-mapped */
	ASSERT_EQ(tlb_footprint(tlb_geometry_find("skylake"), &h, &fp), 0);
	EXPECT_EQ(fp.level[0].entries_needed, 512ull + 64);
	EXPECT_EQ(fp.level[0].capacity, 96ull);
	EXPECT_NEAR(fp.level[0].miss_ratio,
		    ((1 - 64.0 / 512) * 512 + (1 - 32.0 / 64) * 64 * 512) / (512 + 64 * 512.0), 1e-12);
	EXPECT_NEAR(fp.level[0].coverage, 64.0 / 512, 1e-12); /* min(64/512, 32/64) */

	/* A shared pool of mixed sizes: 6 MiB of 4K pages beside 4 GiB of PMD
	 * mappings on zen4. Each entry is used in proportion to the pages it
	 * maps (Che's approximation for LRU; the expected values from an
	 * independent bisection in Python): the PMD entries stay, so the L2
	 * misses 0.049 %, where counting the entries alike gave 1 - 3072/3584
	 * = 14.3 %; L1's 72 entries cannot hold the PMD set, 96.5 %. */
	memset(&h, 0, sizeof(h));
	h.page_shift = 12;
	h.pmd_order = 9;
	h.contig[0] = h.folio[0] = 6 * 256;
	h.pmd_maps = 2048;
	ASSERT_EQ(tlb_footprint(tlb_geometry_find("zen4"), &h, &fp), 0);
	EXPECT_EQ(fp.level[1].entries_needed, 3584ull);
	EXPECT_NEAR(fp.level[1].miss_ratio, 0.0004875670404681509, 1e-9);
	EXPECT_NEAR(fp.level[0].miss_ratio, 0.9649473385938454, 1e-9);

	/* an unknown capacity predicts nothing (NaN), never zero */
	hist_folios(&h, 12, 9, 64 * MIB, 4);
	ASSERT_EQ(tlb_footprint(tlb_geometry_find("neoverse-v3"), &h, &fp), 0);
	EXPECT_TRUE(isnan(fp.level[1].miss_ratio));
	EXPECT_EQ(fp.level[1].capacity, 0ull);
}

/* Intel's split L1: a layout of PMD mappings alone uses the PMD pool
 * alone, so its capacity is that pool's and coverage is capacity / needed
 * (it said 96 of 64 needed with coverage 0.5; analyze said 64). */
TEST(split_pool_capacity)
{
	struct layout_hist h;
	struct tlb_footprint fp;

	hist_pmd(&h, 128 * MIB);
	ASSERT_EQ(tlb_footprint(tlb_geometry_find("skylake"), &h, &fp), 0);
	EXPECT_EQ(fp.level[0].entries_needed, 64ull);
	EXPECT_EQ(fp.level[0].capacity, 32ull);
	EXPECT_NEAR(fp.level[0].coverage, 32.0 / 64, 1e-12);
	EXPECT_NEAR(fp.level[0].miss_ratio, 0.5, 1e-12);
	/* base pages alone: the base pool alone */
	hist_folios(&h, 12, 9, 2 * MIB, 0);
	ASSERT_EQ(tlb_footprint(tlb_geometry_find("skylake"), &h, &fp), 0);
	EXPECT_EQ(fp.level[0].capacity, 64ull);
	EXPECT_NEAR(fp.level[0].coverage, 64.0 / 512, 1e-12);
}

/* Arm's data L1 TLBs hold 4K/16K/64K/2M/512M entries only (Cortex-A76 TRM
 * A5.2.2): a 16K granule's 32M PMD block takes 16 entries of 2M there, one
 * in the L2 (which holds 32M). It was one L1 entry: 2 GiB in 64 blocks
 * "missed" 25 % of a 48-entry L1 on the A76. Levels whose sizes no source
 * gives (neoverse-n2) keep one entry a block. */
TEST(arm_l1_splits_32m_blocks)
{
	struct layout_hist h;
	struct tlb_footprint fp;

	memset(&h, 0, sizeof(h));
	h.page_shift = 14;
	h.pmd_order = 11;
	h.pmd_maps = 64; /* 2 GiB */
	ASSERT_EQ(tlb_footprint(tlb_geometry_find("cortex-a76"), &h, &fp), 0);
	EXPECT_EQ(fp.level[0].entries_needed, 1024ull);
	EXPECT_NEAR(fp.level[0].miss_ratio, 1.0 - 48.0 / 1024, 1e-12);
	EXPECT_EQ(fp.level[1].entries_needed, 64ull);
	ASSERT_EQ(tlb_footprint(tlb_geometry_find("cortex-x925"), &h, &fp), 0);
	EXPECT_NEAR(fp.level[0].miss_ratio, 1.0 - 96.0 / 1024, 1e-12);
	ASSERT_EQ(tlb_footprint(tlb_geometry_find("neoverse-n2"), &h, &fp), 0);
	EXPECT_EQ(fp.level[0].entries_needed, 64ull);
	/* 4K and 64K granules: their PMD blocks (2M, 512M) are L1 sizes */
	hist_pmd(&h, 128 * MIB);
	ASSERT_EQ(tlb_footprint(tlb_geometry_find("cortex-a76"), &h, &fp), 0);
	EXPECT_EQ(fp.level[0].entries_needed, 64ull);
	memset(&h, 0, sizeof(h));
	h.page_shift = 16;
	h.pmd_order = 13;
	h.pmd_maps = 4;
	ASSERT_EQ(tlb_footprint(tlb_geometry_find("cortex-a76"), &h, &fp), 0);
	EXPECT_EQ(fp.level[0].entries_needed, 4ull);
}

/* An x86 table entry knows 4K base pages: a 16K or 64K layout is refused on
 * Intel as on AMD (skylake accepted it, with a 512M "PMD" in its 2M pool);
 * a user's geometry with merge none takes any granule. */
/* A level that lists its sizes holds the layout's base page or the model
 * refuses the layout: a geometry file's "level1.sizes = 2M" was modelled as
 * if the level held 4K pages. */
TEST(sizes_without_the_base_page_refused)
{
	static const char two_m[] = "name = t\nmerge = none\nlevel1.entries = 64\n"
				    "level1.sizes = 2M\n";
	struct layout_hist h;
	struct tlb_footprint fp;
	struct tlb_geometry g;
	char err[256];

	ASSERT_EQ(tlb_geometry_parse(two_m, sizeof(two_m) - 1, "t", &g, err, sizeof(err)), 0);
	hist_folios(&h, 12, 9, 8 * MIB, 0);
	EXPECT_EQ(tlb_footprint(&g, &h, &fp), -EINVAL);
	tlb_geometry_release(&g);
	/* the table's Arm L1 lists 4K, 16K and 64K: every granule fits */
	hist_folios(&h, 16, 13, 64 * MIB, 0);
	EXPECT_EQ(tlb_footprint(tlb_geometry_find("cortex-a76"), &h, &fp), 0);
}

TEST(x86_models_refuse_other_granules)
{
	static const char user[] = "name = mine\nmerge = none\nlevel1.entries = 64\n";
	struct layout_hist h;
	struct tlb_footprint fp;
	struct tlb_geometry g;
	char err[256];

	hist_folios(&h, 16, 13, 64 * MIB, 0);
	h.pmd_maps = 1;
	EXPECT_EQ(tlb_footprint(tlb_geometry_find("skylake"), &h, &fp), -EINVAL);
	EXPECT_EQ(tlb_footprint(tlb_geometry_find("golden-cove"), &h, &fp), -EINVAL);
	EXPECT_EQ(tlb_footprint(tlb_geometry_find("zen4"), &h, &fp), -EINVAL);
	ASSERT_EQ(tlb_geometry_parse(user, sizeof(user) - 1, "t", &g, err, sizeof(err)), 0);
	EXPECT_EQ(tlb_footprint(&g, &h, &fp), 0);
	tlb_geometry_release(&g);
}

TEST(rejects_impossible_histograms)
{
	struct layout_hist h;
	struct tlb_footprint fp;
	const struct tlb_geometry *g = tlb_geometry_find("zen4");

	hist_folios(&h, 12, 9, 4 * MIB, 4);
	h.contig[3] = h.contig[2]; /* more order-3 blocks than halves of order 2 */
	EXPECT_EQ(tlb_footprint(g, &h, &fp), -EINVAL);
	hist_folios(&h, 12, 9, 4 * MIB, 4);
	h.folio[1] = h.contig[1] + 1;
	EXPECT_EQ(tlb_footprint(g, &h, &fp), -EINVAL);
	hist_folios(&h, 13, 9, 4 * MIB, 0);
	EXPECT_EQ(tlb_footprint(g, &h, &fp), -EINVAL);
	hist_folios(&h, 12, 0, 4 * MIB, 0);
	EXPECT_EQ(tlb_footprint(g, &h, &fp), -EINVAL);
	EXPECT_EQ(tlb_footprint(NULL, &h, &fp), -EINVAL);
}

TEST(json_form)
{
	struct layout_hist h;
	struct tlb_footprint fp;
	json_t *o, *lv;

	hist_folios(&h, 12, 9, 64 * MIB, 2);
	ASSERT_EQ(tlb_footprint(tlb_geometry_find("zen4"), &h, &fp), 0);
	o = tlb_footprint_json(&fp);
	ASSERT_TRUE(o != NULL);
	EXPECT_STREQ(json_string_value(json_object_get(o, "model")), "zen4");
	EXPECT_STREQ(json_string_value(json_object_get(o, "source")), "table");
	EXPECT_STREQ(json_string_value(json_object_get(o, "computed_by")), "model");
	EXPECT_TRUE(strstr(json_string_value(json_object_get(o, "assumptions")),
			   "uniform random access") != NULL);
	lv = json_array_get(json_object_get(o, "levels"), 1);
	EXPECT_STREQ(json_string_value(json_object_get(lv, "level")), "L2");
	EXPECT_EQ(json_integer_value(json_object_get(lv, "entries_needed")), 4096);
	EXPECT_EQ(json_integer_value(json_object_get(lv, "capacity")), 3072);
	EXPECT_NEAR(json_real_value(json_object_get(lv, "miss_ratio")), 0.25, 1e-12);
	json_decref(o);

	ASSERT_EQ(tlb_footprint(tlb_geometry_find("neoverse-v3"), &h, &fp), 0);
	o = tlb_footprint_json(&fp);
	lv = json_array_get(json_object_get(o, "levels"), 1);
	EXPECT_TRUE(json_is_null(json_object_get(lv, "capacity")));
	EXPECT_TRUE(json_is_null(json_object_get(lv, "miss_ratio")));
	json_decref(o);
}

/* Every table entry: a unique name, levels named, every figure cited,
 * a merge rule that fits its vendor. */
TEST(table_invariants)
{
	const struct tlb_geometry *const *g, *const *o;
	int i, n = 0;

	for (g = tlb_geometries; *g; g++, n++) {
		EXPECT_TRUE((*g)->name && (*g)->desc && (*g)->vendor);
		EXPECT_TRUE(tlb_geometry_find((*g)->name) == *g);
		EXPECT_TRUE((*g)->nr_levels >= 1 && (*g)->nr_levels <= TLB_MAX_LEVELS);
		/* scan's labels are sized for names of at most TLB_NAME_MAX */
		EXPECT_TRUE(strlen((*g)->name) <= TLB_NAME_MAX);
		for (o = tlb_geometries; o != g; o++)
			EXPECT_TRUE(strcmp((*o)->name, (*g)->name) != 0);
		for (i = 0; i < (*g)->nr_levels; i++) {
			const struct tlb_level_geometry *l = &(*g)->level[i];

			EXPECT_TRUE(l->name && l->cite && strlen(l->cite) > 20);
			EXPECT_TRUE(strlen(l->name) <= TLB_NAME_MAX);
			EXPECT_EQ((int)l->source, (int)TLB_SRC_TABLE);
		}
		if (!strcmp((*g)->vendor, "AuthenticAMD"))
			EXPECT_TRUE((*g)->merge == TLB_MERGE_COALESCE && (*g)->merge_pages == 8 &&
				    tlb_merge_set(*g) == (4u | 8u));
		/* every merge rule says where it comes from */
		EXPECT_TRUE((*g)->merge_cite && strlen((*g)->merge_cite) > 20);
		if (!strcmp((*g)->vendor, "GenuineIntel"))
			EXPECT_TRUE((*g)->merge == TLB_MERGE_NONE);
		if (!strcmp((*g)->vendor, "arm"))
			EXPECT_TRUE((*g)->merge == TLB_MERGE_CONTPTE && (*g)->merge_pages == 16 &&
				    !(*g)->hpa);
	}
	EXPECT_TRUE(n >= 14);
	EXPECT_TRUE(tlb_geometry_find("no-such-cpu") == NULL);
	EXPECT_TRUE(tlb_geometry_find(NULL) == NULL);
}

TEST(match_by_cpu_id)
{
	EXPECT_STREQ(tlb_geometry_match("AuthenticAMD", 0x1a, 0x02)->name, "zen5");
	EXPECT_STREQ(tlb_geometry_match("AuthenticAMD", 0x19, 0x11)->name, "zen4");
	EXPECT_STREQ(tlb_geometry_match("AuthenticAMD", 0x19, 0x01)->name, "zen3");
	EXPECT_STREQ(tlb_geometry_match("AuthenticAMD", 0x17, 0x31)->name, "zen2");
	EXPECT_STREQ(tlb_geometry_match("GenuineIntel", 6, 0x8f)->name, "sapphire-rapids");
	EXPECT_STREQ(tlb_geometry_match("GenuineIntel", 6, 0x55)->name, "skylake");
	EXPECT_STREQ(tlb_geometry_match("arm", 0x41, 0xd49)->name, "neoverse-n2");
	EXPECT_STREQ(tlb_geometry_match("arm", 0x41, 0xd0c)->name, "neoverse-n1");
	EXPECT_TRUE(tlb_geometry_match("AuthenticAMD", 0x17, 0x01) == NULL); /* Zen 1 */
	/* Linux's bsp_init_amd ranges: Zen 2 17h 47h, Zen 4 19h 80h-9Fh; 1Ah 50h
	 * and 80h are Zen 6, whose TLBs the table does not know */
	EXPECT_STREQ(tlb_geometry_match("AuthenticAMD", 0x17, 0x47)->name, "zen2");
	EXPECT_STREQ(tlb_geometry_match("AuthenticAMD", 0x19, 0x90)->name, "zen4");
	EXPECT_STREQ(tlb_geometry_match("AuthenticAMD", 0x1a, 0x44)->name, "zen5");
	EXPECT_TRUE(tlb_geometry_match("AuthenticAMD", 0x1a, 0x50) == NULL);
	EXPECT_TRUE(tlb_geometry_match("AuthenticAMD", 0x1a, 0x80) == NULL);
	EXPECT_TRUE(tlb_geometry_match("AuthenticAMD", 0x17, 0x85) == NULL);
	EXPECT_TRUE(tlb_geometry_match("HygonGenuine", 0x18, 0) == NULL);
	EXPECT_TRUE(tlb_geometry_match(NULL, 0, 0) == NULL);
}

/* --tlb-geometry FILE: a full file, defaults, and each refusal naming its
 * line and key. */
TEST(geometry_file)
{
	static const char ok[] = "# a VM\n name = zen5-vm \ndesc = Zen 5, as the VM says\n"
				 "merge = coalesce\n\nlevel1.entries = 96\nlevel2.entries = 128  # CPUID\n"
				 "level2.ways = 8\nlevel1.entries_pmd = 32\nlevel2.sizes = 4K,2M,1G\n";
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "merge = none\nlevel1.entries = 1\n", "t: 'name' is missing" },
		{ "name = a\nlevel1.entries = 1\n", "t: 'merge' is missing" },
		{ "name = a\nmerge = none\nlevel1.entries = 0\n", "t: line 3: 'level1.entries' wants a number in 1..1000000, not '0'" },
		{ "name = a\nmerge = none\nlevel1.entries = 12x\n", "t: line 3: 'level1.entries' wants a number" },
		{ "name = a\nmerge = none\nlevel1.entries = -1\n", "t: line 3: 'level1.entries' wants a number, not '-1'" },
		{ "name = a\nname = b\n", "t: line 2: 'name' given twice" },
		{ "name = a\nmerge = maybe\n", "t: line 2: 'merge' wants none, coalesce or contpte, not 'maybe'" },
		{ "name = a\nmerge = none\nlevel4.entries = 5\n", "t: line 3: unknown key 'level4.entries'" },
		{ "name = a\nmerge = none\nlevel1.size = 5\n", "t: line 3: unknown key 'level1.size'" },
		{ "name = a\nmerge = none\nlevel2.entries = 5\n", "t: level2 is given but level1 is not" },
		{ "name = a\nmerge = none\nlevel1.ways = 5\n", "t: 'level1.entries' is missing" },
		{ "name = a\nmerge = none\n", "t: no level" },
		{ "name = a\nmerge = coalesce\nmerge_pages = 3\nlevel1.entries = 5\n", "power of two" },
		{ "name = a\nmerge = coalesce\nmerge_pages = 4,6\nlevel1.entries = 5\n", "power of two" },
		{ "name = a\nmerge = coalesce\nmerge_pages = 4,\nlevel1.entries = 5\n", "wants a number" },
		{ "name = a\nmerge = contpte\nmerge_pages = 8,16\nlevel1.entries = 5\n", "one size" },
		{ "name = a\nmerge = coalesce\nhpa = yes\nlevel1.entries = 5\n", "'hpa' is an arm64 feature" },
		{ "name = a\nmerge = none\nlevel1.entries = 5\nhpa = maybe\n", "t: line 4: 'hpa' wants yes or no" },
		{ "name = a b\n", "t: line 1: 'name': character ' '" },
		{ "just words\n", "t: line 1: not 'key = value'" },
		{ " = 5\n", "t: line 1: no key before '='" },
		{ "name =\n", "t: line 1: 'name' has no value" },
		{ "name = a\n\x01\n", "not a text file" },
		{ "name = a\nmerge = none\nlevel1.entries = 5\nlevel1.sizes = 3K\n", "t: line 4: 'level1.sizes' wants sizes such as 4K,2M,512M" },
		{ "name = a\nmerge = none\nlevel1.entries = 5\nlevel1.sizes = 2K\n", "'level1.sizes' wants sizes" },
		{ "name = a\nmerge = none\nlevel1.entries = 5\nlevel1.sizes = 4K,\n", "'level1.sizes' wants sizes" },
		{ "name = a\nmerge = none\nlevel1.entries = 5\nlevel1.sizes = 2T\n", "'level1.sizes' wants sizes" },
		{ "name = a\nmerge = none\nlevel1.entries = 5\nlevel1.sizes = 4KB\n", "'level1.sizes' wants sizes" },
		{ "name = a\nmerge = none\nlevel1.entries = 5\nlevel1.sizes = K\n", "'level1.sizes' wants sizes" },
		{ "name = a\nmerge = none\nlevel1.entries = 5\nlevel1.entries_pmd = 2\nlevel1.sizes = 4K,2M\n", "'level1.sizes' is for a level of one pool" },
		{ "name = a\nmerge = none\nlevel1.entries = 5\nlevel1.sizes = 4K,,2M\n", "'level1.sizes' wants sizes" },
	};
	struct tlb_geometry g;
	char err[256];
	size_t i;

	ASSERT_EQ(tlb_geometry_parse(ok, sizeof(ok) - 1, "t", &g, err, sizeof(err)), 0);
	EXPECT_STREQ(g.name, "zen5-vm");
	EXPECT_STREQ(g.desc, "Zen 5, as the VM says");
	EXPECT_EQ((int)g.merge, (int)TLB_MERGE_COALESCE);
	EXPECT_EQ(g.merge_pages, 4u);
	EXPECT_EQ(g.nr_levels, 2);
	EXPECT_STREQ(g.level[0].name, "L1D");
	EXPECT_STREQ(g.level[1].name, "L2");
	EXPECT_EQ(g.level[0].entries, 96u);
	EXPECT_TRUE(!g.level[0].shared && g.level[0].entries_pmd == 32);
	EXPECT_TRUE(g.level[1].shared && g.level[1].ways == 8);
	EXPECT_EQ(g.level[1].sizes, (1ULL << 12) | (1ULL << 21) | (1ULL << 30));
	EXPECT_EQ(g.level[0].sizes, 0ULL);
	EXPECT_EQ((int)g.level[1].source, (int)TLB_SRC_USER);
	EXPECT_TRUE(strstr(g.level[1].cite, "user geometry file t") != NULL);
	tlb_geometry_release(&g);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		EXPECT_EQ(tlb_geometry_parse(bad[i].text, strlen(bad[i].text), "t", &g, err,
					     sizeof(err)), -EINVAL);
		if (!strstr(err, bad[i].msg))
			FAIL_AT("case %zu: '%s' lacks '%s'", i, err, bad[i].msg);
	}
	EXPECT_EQ(tlb_geometry_load("/nonexistent/x.tlb", &g, err, sizeof(err)), -ENOENT);
	EXPECT_EQ(tlb_geometry_load("/", &g, err, sizeof(err)), -EISDIR);
}

/* Every table entry written as a geometry file reads back to the same
 * figures (run carries a geometry the table lacks that way). */
TEST(geometry_format_round_trip)
{
	char text[4096], err[256];
	struct tlb_geometry g;
	int i, lv, n, unknown = 0;

	for (i = 0; tlb_geometries[i]; i++) {
		const struct tlb_geometry *t = tlb_geometries[i];

		if ((n = tlb_geometry_format(t, text, sizeof(text))) == -EINVAL) {
			unknown++; /* a level's capacity not known: no file says that */
			continue;
		}
		ASSERT_TRUE(n > 0);
		EXPECT_EQ((size_t)n, strlen(text));
		if (tlb_geometry_parse(text, (size_t)n, "t", &g, err, sizeof(err))) {
			FAIL_AT("%s: %s\n%s", t->name, err, text);
			continue;
		}
		EXPECT_STREQ(g.name, t->name);
		EXPECT_STREQ(g.desc, t->desc);
		EXPECT_EQ((int)g.merge, (int)t->merge);
		EXPECT_EQ(g.merge_pages, t->merge_pages);
		EXPECT_EQ(tlb_merge_set(&g), tlb_merge_set(t));
		EXPECT_STREQ(g.merge_cite, t->merge_cite);
		EXPECT_EQ(g.hpa, t->hpa);
		EXPECT_EQ(g.nr_levels, t->nr_levels);
		for (lv = 0; lv < t->nr_levels; lv++) {
			const struct tlb_level_geometry *a = &g.level[lv], *b = &t->level[lv];

			EXPECT_STREQ(a->name, b->name);
			EXPECT_EQ(a->entries, b->entries);
			EXPECT_EQ(a->shared, b->shared);
			if (!b->shared)
				EXPECT_EQ(a->entries_pmd, b->entries_pmd);
			EXPECT_EQ(a->ways, b->ways);
			EXPECT_EQ(a->sizes, b->shared ? b->sizes : 0ULL);
		}
		tlb_geometry_release(&g);
	}
	printf("  %d table entries round-trip, %d have a capacity not known\n", i - unknown,
	       unknown);
	EXPECT_TRUE(unknown < i / 2);
	EXPECT_EQ(tlb_geometry_format(tlb_geometry_find("zen4"), text, 16), -ENOSPC);
}

/* This host: the table entry by CPU identity and CPUID's figures beside. */
TEST(host_geometry)
{
	struct tlb_host h;
	char diff[160];

	tlb_host_describe(&h);
	if (!h.vendor[0])
		SKIP("this CPU cannot be identified here (no CPUID, no readable MIDR: qemu-user?)");
	if (!h.table && !h.has_cpuid)
		SKIP("this CPU (%s %#x/%#x) has no table entry and no CPUID TLB figures", h.vendor,
		     (unsigned)h.family, (unsigned)h.model);
	ASSERT_TRUE(tlb_host_geometry(&h) != NULL);
	if (h.table)
		EXPECT_TRUE(tlb_host_geometry(&h) == h.table);
	if (!h.has_cpuid) {
		printf("  %s: table %s, no CPUID figures\n", h.vendor, h.table->name);
		return;
	}
	EXPECT_EQ((int)h.cpuid.level[0].source, (int)TLB_SRC_CPUID);
	EXPECT_EQ(h.cpuid.level[0].entries, (unsigned)h.raw.l1d_4k);
	printf("  %s family %#x model %#x: table %s, CPUID L1D %d L2 %d, %d disagreement(s)\n",
	       h.vendor, h.family, h.model, h.table ? h.table->name : "none", h.raw.l1d_4k,
	       h.raw.l2_4k, h.nr_disagree);
	/* a geometry that differs from CPUID everywhere is flagged at every level */
	{
		struct tlb_geometry g = *tlb_host_geometry(&h);

		g.level[0].entries = (unsigned)h.raw.l1d_4k + 1;
		tlb_host_compare(&h, &g, 0, diff, sizeof(diff));
		EXPECT_TRUE(strstr(diff, "this host's CPUID") != NULL);
	}
}

/*
 * run's model metrics (bench_model_metrics) say what they compute: the miss
 * ratio is Che's approximation over entries of mixed sizes. 315 PMD
 * mappings beside 7834 scattered 4K pages need 8149 L2 entries on zen5; the
 * PMD entries, each used 512 times as often, mostly stay in its 4096, so the
 * L2 misses about 2.4 %, where the formula the label gave, max(0, 1 - L2
 * capacity / entries), says 49.7 %.
 */
TEST(run_metrics_say_what_they_compute)
{
	const struct results_metric *e, *m;
	struct results_trial t;

	results_trial_init(&t, 0, "chase-tlb", 4ULL << 30, 0);
	layout_hist_init(&t.layout, 12, 9);
	t.layout.pmd_maps = 315;
	t.layout.contig[0] = t.layout.folio[0] = 7834;
	t.has_layout = true;
	bench_model_metrics(tlb_geometry_find("zen5"), &t);
	e = results_trial_metric(&t, "tlb_entries_l2");
	m = results_trial_metric(&t, "tlb_miss_ratio_model");
	ASSERT_TRUE(e != NULL && m != NULL);
	EXPECT_EQ((long long)e->value, 8149);
	EXPECT_STREQ(m->source, "model");
	if (!(m->value > 0.0235 && m->value < 0.0245))
		FAIL_AT("miss ratio %.4f, expected about 0.024", m->value);
	EXPECT_STREQ(m->formula, "model zen5 (table geometry): L2 miss ratio, Che's LRU "
				 "approximation");
	EXPECT_STREQ(e->formula, "model zen5 (table geometry)");
	/* a layout that maps nothing predicts nothing: no metric, not zero */
	results_trial_clear(&t);
	results_trial_init(&t, 0, "chase-tlb", 4ULL << 30, 0);
	layout_hist_init(&t.layout, 12, 9);
	t.has_layout = true;
	bench_model_metrics(tlb_geometry_find("zen5"), &t);
	EXPECT_TRUE(results_trial_metric(&t, "tlb_miss_ratio_model") == NULL);
	results_trial_clear(&t);
}

HARNESS_MAIN
