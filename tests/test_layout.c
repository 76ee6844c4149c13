// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The contiguity histogram (src/doc/layout.h): its block arithmetic and JSON
 * form on any host, and exact histograms of real mappings: 64 MiB at order
 * 4, PMD-mapped 64 MiB (faulted and MADV_COLLAPSE'd), and order-0 pages
 * that are physically contiguous on purpose (a PMD folio split in place by
 * MADV_COLD on one of its pages), where AMD's rule must count the contiguity the
 * PFNs really have. Writes THP knobs: MTHPSCOPE_TEST_WRITES_THP.
 */
#include <fcntl.h>

#include "harness.h"
#include "folio_util.h"
#include "collapse.h" /* MADV_COLLAPSE */
#include "layout.h"
#include "scan.h"

#define MIB (1UL << 20)

/* ---- arithmetic and JSON (any host) ---------------------------------- */

TEST(count_run_blocks)
{
	unsigned long long b[LAYOUT_MAX_K + 1] = { 0 };

	/* 16 pages from VPN 2 at PFN 6: congruent mod 4 (not 8); blocks of 4
	 * at VPN 4, 8, 12: 3; of 2: 2..16 = 7 */
	layout_count_run(2, 6, 16, 9, b);
	EXPECT_EQ(b[0], 16);
	EXPECT_EQ(b[1], 8);
	EXPECT_EQ(b[2], 3);
	EXPECT_EQ(b[3], 0);
	memset(b, 0, sizeof(b));
	/* a PMD-aligned 512-page run: the whole pyramid up to max_k */
	layout_count_run(512, 1024, 512, 9, b);
	for (int k = 0; k <= 9; k++)
		EXPECT_EQ(b[k], 512 >> k);
	EXPECT_EQ(b[10], 0);
	memset(b, 0, sizeof(b));
	/* VA and PA disagree in bit 0: only single pages */
	layout_count_run(0, 1, 64, 9, b);
	EXPECT_EQ(b[0], 64);
	EXPECT_EQ(b[1], 0);
}

static void sample(struct layout_hist *h)
{
	layout_hist_init(h, 12, 9);
	layout_count_run(16, 32, 64, 9, h->contig);
	h->folio[0] = h->contig[0];
	h->folio[4] = 2;
	h->folio[3] = 4;
	h->folio[2] = 8;
	h->folio[1] = 16;
	h->pmd_maps = 3;
	h->excluded = 7;
}

TEST(json_round_trip)
{
	struct layout_hist h, back, sum;
	char err[256];
	json_t *j;

	sample(&h);
	j = layout_hist_json(&h);
	ASSERT_TRUE(j != NULL);
	EXPECT_EQ(json_array_size(json_object_get(j, "contig")), 10);
	ASSERT_EQ(layout_hist_from_json(j, &back, err, sizeof(err)), 0);
	EXPECT_TRUE(!memcmp(&h, &back, sizeof(h)));
	EXPECT_EQ(layout_hist_pages(&h), 64 + 3 * 512);
	sum = h;
	ASSERT_EQ(layout_hist_add(&sum, &back), 0);
	EXPECT_EQ(sum.contig[2], 2 * h.contig[2]);
	EXPECT_EQ(sum.pmd_maps, 6);
	back.pmd_order = 11;
	EXPECT_EQ(layout_hist_add(&sum, &back), -EINVAL);
	json_decref(j);
}

/* Each bad document is refused with the path of its first bad field. */
TEST(json_reader_names_the_field)
{
	static const struct {
		const char *doc, *path;
	} bad[] = {
		{ "[]", "expected an object" },
		{ "{\"pmd_order\":9,\"pmd_maps\":0,\"excluded\":0,\"contig\":[1],\"folio\":[1]}",
		  "page_shift: missing" },
		{ "{\"page_shift\":13,\"pmd_order\":9,\"pmd_maps\":0,\"excluded\":0}", "page_shift:" },
		{ "{\"page_shift\":12,\"pmd_order\":21,\"pmd_maps\":0,\"excluded\":0}", "pmd_order:" },
		{ "{\"page_shift\":12,\"pmd_order\":2,\"pmd_maps\":-1,\"excluded\":0}", "pmd_maps:" },
		{ "{\"page_shift\":12,\"pmd_order\":2,\"pmd_maps\":0,\"excluded\":1.5}", "excluded:" },
		{ "{\"page_shift\":12,\"pmd_order\":2,\"pmd_maps\":0,\"excluded\":0,"
		  "\"contig\":[4,2],\"folio\":[4,2,1]}", "contig: 2 counts" },
		{ "{\"page_shift\":12,\"pmd_order\":2,\"pmd_maps\":0,\"excluded\":0,"
		  "\"contig\":[4,2,\"1\"],\"folio\":[4,2,1]}", "contig[2]:" },
		{ "{\"page_shift\":12,\"pmd_order\":2,\"pmd_maps\":0,\"excluded\":0,"
		  "\"contig\":[4,2,1],\"folio\":[4,-2,1]}", "folio[1]:" },
		{ "{\"page_shift\":12,\"pmd_order\":2,\"pmd_maps\":0,\"excluded\":0,"
		  "\"contig\":[4,3,1],\"folio\":[4,2,1]}", "contig[1]:" },
		{ "{\"page_shift\":12,\"pmd_order\":2,\"pmd_maps\":0,\"excluded\":0,"
		  "\"contig\":[4,1,0],\"folio\":[4,2,0]}", "folio[1]:" },
		{ "{\"page_shift\":12,\"pmd_order\":2,\"pmd_maps\":0,\"excluded\":0,"
		  "\"contig\":[4,2,1],\"folio\":[3,1,0]}", "folio[0]:" },
		{ "{\"page_shift\":12,\"pmd_order\":9,\"pmd_maps\":9223372036854775807,"
		  "\"excluded\":0,\"contig\":[0,0,0,0,0,0,0,0,0,0],"
		  "\"folio\":[0,0,0,0,0,0,0,0,0,0]}", "pmd_maps:" },
		/* 4K pages with 64K pages' PMD order (a PMD of 2^13 pages) */
		{ "{\"page_shift\":12,\"pmd_order\":13,\"pmd_maps\":4,\"excluded\":0,"
		  "\"contig\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0],"
		  "\"folio\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0]}",
		  "pmd_order: 13 does not go with page_shift 12 (the PMD order of 4K pages is 9)" },
		{ "{\"page_shift\":16,\"pmd_order\":11,\"pmd_maps\":0,\"excluded\":0,"
		  "\"contig\":[0,0,0,0,0,0,0,0,0,0,0,0],\"folio\":[0,0,0,0,0,0,0,0,0,0,0,0]}",
		  "pmd_order: 11 does not go with page_shift 16" },
	};
	struct layout_hist h;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *j = json_loads(bad[i].doc, 0, NULL);

		ASSERT_TRUE(j != NULL);
		err[0] = '\0';
		EXPECT_EQ(layout_hist_from_json(j, &h, err, sizeof(err)), -EINVAL);
		if (strncmp(err, bad[i].path, strlen(bad[i].path)))
			FAIL_AT("case %zu: '%s' does not start with '%s'", i, err, bad[i].path);
		json_decref(j);
	}
}

/* ---- real mappings ----------------------------------------------------- */

static void scan_layout(char *p, size_t size, struct folio_hist *h, struct layout_hist *lh)
{
	ASSERT_EQ(folio_scan_range_layout(0, (unsigned long)p, (unsigned long)p + size, h, lh), 0);
	ASSERT_EQ(lh->page_shift, 12);
}

/* 64 MiB at order 4: every 64K block is one folio. */
static void check_order4(bool pagemap_scan)
{
	size_t size = 64 * MIB, pages = size / 4096;
	unsigned long long fallbacks;
	struct layout_hist lh;
	struct folio_hist h;
	char *p;

	tu_require_pfns();
	if (sysconf(_SC_PAGESIZE) != 4096)
		SKIP("the sizes here are for 4K pages");
	if (!pagemap_scan)
		setenv("MTHPSCOPE_NO_PAGEMAP_SCAN", "1", 1);
	p = tu_map_order(4, size, &fallbacks);
	scan_layout(p, size, &h, &lh);
	if (h.pages[4] != pages)
		SKIP("only %llu of %zu pages at order 4 (%llu fallbacks: memory fragmented)",
		     h.pages[4], pages, fallbacks);
	EXPECT_EQ(lh.contig[0], pages);
	EXPECT_EQ(lh.folio[0], pages);
	for (int k = 1; k <= 4; k++)
		EXPECT_EQ(lh.folio[k], pages >> k);
	EXPECT_EQ(lh.folio[4], 1024);
	for (int k = 5; k <= lh.pmd_order; k++)
		EXPECT_EQ(lh.folio[k], 0);
	/* folios of 64K are 64K-aligned in both spaces: at least the same
	 * blocks, more where neighbouring folios happen to be adjacent */
	EXPECT_TRUE(lh.contig[2] >= 4096);
	EXPECT_TRUE(lh.contig[4] >= 1024);
	EXPECT_EQ(lh.pmd_maps, 0);
	EXPECT_EQ(lh.excluded, 0);
	EXPECT_EQ(layout_hist_pages(&lh), pages);
	munmap(p, size);
}

TEST(order4_64m) { check_order4(true); }
TEST(order4_64m_pagemap_only) { check_order4(false); }

static void check_pmd(const struct layout_hist *lh, const struct folio_hist *h, size_t size)
{
	if (h->pages[9] != size / 4096)
		SKIP("only %llu pages in PMD folios (memory fragmented)", h->pages[9]);
	EXPECT_EQ(lh->pmd_maps, size / TU_PMD);
	EXPECT_EQ(lh->contig[0], 0);
	EXPECT_EQ(lh->folio[0], 0);
	for (int k = 1; k <= lh->pmd_order; k++)
		EXPECT_EQ(lh->contig[k] + lh->folio[k], 0);
	EXPECT_EQ(lh->excluded, 0);
	EXPECT_EQ(layout_hist_pages(lh), size / 4096);
}

/* 64 MiB faulted at the PMD order: 32 PMD mappings (seen by PAGEMAP_SCAN,
 * and without it taken from the complete aligned PMD-order folios). */
static void check_pmd_fault(bool pagemap_scan)
{
	size_t size = 64 * MIB;
	unsigned long long fallbacks;
	struct layout_hist lh;
	struct folio_hist h;
	char *p;

	tu_require_pfns();
	if (sysconf(_SC_PAGESIZE) != 4096)
		SKIP("the sizes here are for 4K pages");
	if (!pagemap_scan)
		setenv("MTHPSCOPE_NO_PAGEMAP_SCAN", "1", 1);
	p = tu_map_order(9, size, &fallbacks);
	scan_layout(p, size, &h, &lh);
	check_pmd(&lh, &h, size);
	munmap(p, size);
}

TEST(pmd_64m) { check_pmd_fault(true); }
TEST(pmd_64m_pagemap_only) { check_pmd_fault(false); }

/* Order-0 pages collapsed by MADV_COLLAPSE: 32 PMD mappings. */
TEST(pmd_64m_collapse)
{
	size_t size = 64 * MIB;
	struct layout_hist lh;
	struct folio_hist h;
	char *p;

	tu_require_pfns();
	if (sysconf(_SC_PAGESIZE) != 4096)
		SKIP("the sizes here are for 4K pages");
	p = tu_map_order(0, size, NULL);
	madvise(p, size, MADV_HUGEPAGE);
	if (madvise(p, size, MADV_COLLAPSE))
		SKIP("MADV_COLLAPSE: %s", strerror(errno));
	scan_layout(p, size, &h, &lh);
	check_pmd(&lh, &h, size);
	munmap(p, size);
}

/*
 * What the PFNs say, read straight from pagemap: aligned blocks of 4 pages
 * whose PFNs advance by one from a multiple of 4.
 */
static unsigned long long blocks_of_4(char *p, size_t size)
{
	size_t pages = size / 4096, i;
	unsigned long long n = 0;
	uint64_t *pm = malloc(pages * 8);
	int fd = open("/proc/self/pagemap", O_RDONLY);

	ASSERT_TRUE(pm && fd >= 0);
	ASSERT_EQ(pread(fd, pm, pages * 8, (off_t)((uintptr_t)p / 4096 * 8)), (ssize_t)(pages * 8));
	for (i = 0; i + 4 <= pages; i += 4) {
		uint64_t f = pm[i] & PM_PFN_MASK;
		bool ok = (pm[i] & PM_PRESENT) && !(f & 3);

		for (size_t j = 1; j < 4 && ok; j++)
			ok = (pm[i + j] & PM_PRESENT) && (pm[i + j] & PM_PFN_MASK) == f + j;
		n += ok;
	}
	close(fd);
	free(pm);
	return n;
}

/*
 * A PMD folio split in place into 512 order-0 folios keeps its PFNs: order-0
 * memory that is contiguous on purpose. AMD's rule merges any 4 contiguous,
 * congruent PTEs, so contig[2] must be what pagemap shows (128 per split
 * PMD), while folio[2] stays 0 (no block is inside one folio).
 */
TEST(order0_contiguous_on_purpose)
{
	size_t size = 8 * MIB, pages = size / 4096;
	struct layout_hist lh;
	struct folio_hist h;
	unsigned long long truth;
	size_t off;
	char *p;

	tu_require_pfns();
	if (sysconf(_SC_PAGESIZE) != 4096)
		SKIP("the sizes here are for 4K pages");
	p = tu_map_order(9, size, NULL);
	/* MADV_COLD on part of an exclusive PMD folio splits the folio (not
	 * only the PMD) and leaves every page mapped where it was
	 * (mm/madvise.c, madvise_cold_or_pageout_pte_range) */
	for (off = 0; off < size; off += TU_PMD)
		if (madvise(p + off + TU_PMD - 4096, 4096, MADV_COLD))
			SKIP("MADV_COLD: %s (before 5.4)", strerror(errno));
	scan_layout(p, size, &h, &lh);
	if (h.pages[0] != pages)
		SKIP("the split left %llu of %zu pages at order 0 (memory fragmented before)",
		     h.pages[0], pages);
	truth = blocks_of_4(p, size);
	EXPECT_EQ(truth, pages / 4); /* split in place: every PFN stayed */
	EXPECT_EQ(lh.contig[2], truth);
	EXPECT_EQ(lh.contig[9], size / TU_PMD);
	EXPECT_EQ(lh.folio[0], pages);
	for (int k = 1; k <= lh.pmd_order; k++)
		EXPECT_EQ(lh.folio[k], 0);
	EXPECT_EQ(lh.pmd_maps, 0);
	munmap(p, size);
}

/*
 * Order-0 faults take whatever pages the allocator hands out: whatever
 * contiguity that gives, the histogram is what pagemap shows.
 */
TEST(order0_faulted_matches_pagemap)
{
	size_t size = 16 * MIB;
	struct layout_hist lh;
	struct folio_hist h;
	char *p;

	tu_require_pfns();
	if (sysconf(_SC_PAGESIZE) != 4096)
		SKIP("the sizes here are for 4K pages");
	p = tu_map_order(0, size, NULL);
	scan_layout(p, size, &h, &lh);
	EXPECT_EQ(lh.contig[0], size / 4096);
	EXPECT_EQ(lh.contig[2], blocks_of_4(p, size));
	EXPECT_EQ(lh.folio[2], 0);
	munmap(p, size);
}

struct find_vma {
	unsigned long start;
	struct layout_hist lh;
	int found;
};

static int on_vma(const struct scan_vma *v, void *ctx)
{
	struct find_vma *f = ctx;

	if (v->start == f->start) {
		f->lh = v->layout;
		f->found++;
	}
	return 0;
}

/*
 * scan's workers cut a VMA into 32 MiB chunks: the VMA's histogram, added up
 * from its chunks by two workers, is the one of a single scan of the range
 * (no block is cut: chunks are PMD-aligned).
 */
TEST(chunks_add_up)
{
	size_t size = 96 * MIB;
	struct find_vma f = { 0 };
	struct layout_hist lh;
	struct scan_opts o;
	struct folio_hist h;
	char *p;

	tu_require_pfns();
	if (sysconf(_SC_PAGESIZE) != 4096)
		SKIP("the sizes here are for 4K pages");
	p = tu_map_order(4, size, NULL);
	/* a third of it order 0, so runs of contiguous order-0 pages cross edges */
	ASSERT_EQ(madvise(p + 40 * MIB, 16 * MIB, MADV_DONTNEED), 0);
	for (size_t off = 40 * MIB; off < 56 * MIB; off += 4096)
		p[off] = 1;
	scan_layout(p, size, &h, &lh);
	scan_opts_init(&o);
	o.layout = true;
	o.nr_threads = 2;
	f.start = (unsigned long)p;
	ASSERT_EQ(scan_process(0, &o, on_vma, &f), 0);
	ASSERT_EQ(f.found, 1);
	EXPECT_TRUE(!memcmp(&f.lh, &lh, sizeof(lh)));
	EXPECT_EQ(f.lh.contig[0], size / 4096);
	munmap(p, size);
}

/* The zero page is excluded, not counted as contiguous memory. */
TEST(zero_page_excluded)
{
	size_t size = 4 * MIB;
	struct layout_hist lh;
	struct folio_hist h;
	volatile char *p;
	char sum = 0;

	tu_require_pfns();
	p = tu_map_aligned(size);
	ASSERT_TRUE(p != NULL);
	for (size_t off = 0; off < size; off += 4096)
		sum += p[off];
	(void)sum;
	scan_layout((char *)p, size, &h, &lh);
	EXPECT_EQ(lh.excluded, h.zero_page);
	EXPECT_EQ(lh.contig[0], h.present - h.zero_page);
	munmap((void *)p, size);
}

HARNESS_MAIN
