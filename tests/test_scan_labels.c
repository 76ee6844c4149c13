// SPDX-License-Identifier: GPL-2.0-or-later
/* Table tests of the scan labels and --cont sizes (any host, no root). */
#include "harness.h"
#include "scan.h"

static const struct {
	unsigned long long bytes;
	int ret;
} conts[] = {
	{ 8192, 0 },             /* 2 pages: the smallest block */
	{ 65536, 0 },            /* arm64 contpte */
	{ 2UL << 20, 0 },        /* the PMD size */
	{ 4096, -EINVAL },       /* one page */
	{ 12288, -EINVAL },      /* 3 pages */
	{ 4UL << 20, -EINVAL },  /* beyond the PMD size */
	{ 6000, -EINVAL },       /* not a page multiple */
	{ 0, -EINVAL },
};

TEST(cont_sizes)
{
	struct scan_opts o;
	size_t i;

	scan_opts_init(&o);
	if (o.page_shift != 12 || o.pmd_order != 9)
		SKIP("table written for 4 KiB pages and 2 MiB PMDs");
	for (i = 0; i < sizeof(conts) / sizeof(conts[0]); i++)
		EXPECT_EQ(scan_opts_add_cont(&o, conts[i].bytes), conts[i].ret);
	EXPECT_EQ(o.nr_cont, 3);
	EXPECT_EQ(o.cont_order[0], 1);
	EXPECT_EQ(o.cont_order[1], 4);
	EXPECT_EQ(o.cont_order[2], 9);
	/* a size given twice is one label, as in thpmaps (it was two) */
	EXPECT_EQ(scan_opts_add_cont(&o, 65536), 0);
	EXPECT_EQ(o.nr_cont, 3);
	/* more sizes than fit: with 4K pages and a PMD order past 9 (16K and
	 * 64K pages have PMD orders 11 and 13) */
	o.pmd_order = 20;
	for (i = 0; o.nr_cont < SCAN_MAX_CONT; i++)
		ASSERT_EQ(scan_opts_add_cont(&o, 8192ULL << i), 0);
	EXPECT_EQ(scan_opts_add_cont(&o, 8192ULL << i), -E2BIG);
}

/* thpmaps' order: pmd (anon, file), then per type pte-aligned by size,
 * pte-unaligned by size, partial; then per --cont size pmd and pte. */
TEST(label_order_and_values)
{
	static const char *const want[] = {
		"anon-thp-pmd-aligned-2048kB", "file-thp-pmd-aligned-2048kB",
		"anon-thp-pte-aligned-16kB", "anon-thp-pte-aligned-32kB",
		"anon-thp-pte-aligned-64kB", "anon-thp-pte-aligned-128kB",
		"anon-thp-pte-aligned-256kB", "anon-thp-pte-aligned-512kB",
		"anon-thp-pte-aligned-1024kB", "anon-thp-pte-aligned-2048kB",
		"anon-thp-pte-unaligned-16kB", "anon-thp-pte-unaligned-32kB",
		"anon-thp-pte-unaligned-64kB", "anon-thp-pte-unaligned-128kB",
		"anon-thp-pte-unaligned-256kB", "anon-thp-pte-unaligned-512kB",
		"anon-thp-pte-unaligned-1024kB", "anon-thp-pte-unaligned-2048kB",
		"anon-thp-pte-partial",
		"file-thp-pte-aligned-16kB", "file-thp-pte-aligned-32kB",
		"file-thp-pte-aligned-64kB", "file-thp-pte-aligned-128kB",
		"file-thp-pte-aligned-256kB", "file-thp-pte-aligned-512kB",
		"file-thp-pte-aligned-1024kB", "file-thp-pte-aligned-2048kB",
		"file-thp-pte-unaligned-16kB", "file-thp-pte-unaligned-32kB",
		"file-thp-pte-unaligned-64kB", "file-thp-pte-unaligned-128kB",
		"file-thp-pte-unaligned-256kB", "file-thp-pte-unaligned-512kB",
		"file-thp-pte-unaligned-1024kB", "file-thp-pte-unaligned-2048kB",
		"file-thp-pte-partial",
		"anon-cont-pmd-aligned-64kB", "file-cont-pmd-aligned-64kB",
		"anon-cont-pte-aligned-64kB", "file-cont-pte-aligned-64kB",
		"zero-page", "anon-ksm", "hugetlb",
	};
	struct scan_label l[SCAN_MAX_LABELS];
	struct scan_stats st;
	struct scan_opts o;
	int n, i;

	scan_opts_init(&o);
	if (o.page_shift != 12 || o.pmd_order != 9)
		SKIP("table written for 4 KiB pages and 2 MiB PMDs");
	ASSERT_EQ(scan_opts_add_cont(&o, 65536), 0);
	memset(&st, 0, sizeof(st));
	st.pmd[SCAN_ANON] = 512;
	st.aligned[SCAN_ANON][4] = 32;
	st.unaligned[SCAN_FILE][2] = 8;
	st.partial[SCAN_FILE] = 3;
	st.cont[SCAN_ANON][0] = 16;
	st.zero = 1;
	st.total[SCAN_ANON] = 600;
	n = scan_labels(&st, &o, l, SCAN_MAX_LABELS);
	ASSERT_EQ(n, (int)(sizeof(want) / sizeof(want[0])));
	for (i = 0; i < n; i++)
		EXPECT_STREQ(l[i].name, want[i]);
	EXPECT_EQ(l[0].kb, 2048);
	EXPECT_EQ(l[0].type, SCAN_ANON);
	EXPECT_EQ(l[4].kb, 128);          /* anon-thp-pte-aligned-64kB */
	EXPECT_EQ(l[27].kb, 32);          /* file-thp-pte-unaligned-16kB */
	EXPECT_EQ(l[35].kb, 12);          /* file-thp-pte-partial */
	EXPECT_EQ(l[35].type, SCAN_FILE);
	EXPECT_EQ(l[36].kb, 2048);        /* anon-cont-pmd-aligned-64kB = PMD-mapped */
	EXPECT_EQ(l[38].kb, 64);
	EXPECT_EQ(l[40].kb, 4);           /* zero-page */
	EXPECT_EQ(l[40].type, -1);
	EXPECT_EQ(scan_total_kb(&st, &o, SCAN_ANON), 2400);

	/* order-1 folios (file only) appear when present */
	st.aligned[SCAN_FILE][1] = 2;
	EXPECT_EQ(scan_labels(&st, &o, l, SCAN_MAX_LABELS), n + 1);
	EXPECT_STREQ(l[19].name, "file-thp-pte-aligned-8kB");
	EXPECT_EQ(l[19].kb, 8);
}

HARNESS_MAIN
