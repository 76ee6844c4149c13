// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The folio scanner on real mappings: exact histograms for memory faulted at
 * orders 0, 2, 4 and 9, and the classified kinds (zero page).
 * Writes THP knobs: MTHPSCOPE_TEST_WRITES_THP.
 */
#include <fcntl.h>
#include <linux/io_uring.h>
#include <sys/syscall.h>

#include "harness.h"
#include "folio_util.h"

#define SIZE (4UL << 20)
#define NPAGES (SIZE / 4096)

static void check_order(int order, bool pagemap_scan)
{
	unsigned long long fallbacks;
	struct folio_hist h;
	char *p;
	int o, err;

	tu_require_pfns();
	if (!pagemap_scan)
		setenv("MTHPSCOPE_NO_PAGEMAP_SCAN", "1", 1);
	p = tu_map_order(order, SIZE, &fallbacks);
	err = folio_scan_range(0, (unsigned long)p, (unsigned long)p + SIZE, &h);
	ASSERT_EQ(err, 0);
	if (h.pages[order] != NPAGES && fallbacks)
		SKIP("the kernel fell back from order %d %llu times (memory fragmented)", order,
		     fallbacks);
	for (o = 0; o <= FOLIO_MAX_ORDER; o++)
		EXPECT_EQ(h.pages[o], o == order ? NPAGES : 0);
	EXPECT_EQ(h.present, NPAGES);
	EXPECT_EQ(h.not_present, 0);
	EXPECT_EQ(h.partial, 0);
	EXPECT_EQ(h.unaligned, 0);
	/* without PAGEMAP_SCAN (before 6.7) pagemap cannot tell a PMD mapping */
	EXPECT_EQ(h.pmd_mapped, order == 9 && pagemap_scan ? NPAGES : 0);
	EXPECT_EQ(h.anon, NPAGES);
	EXPECT_EQ(h.file, 0);
	EXPECT_EQ(h.zero_page + h.ksm + h.hugetlb + h.other, 0);
	EXPECT_NEAR(folio_coverage(&h, order, NPAGES), 1.0, 1e-12);
	munmap(p, SIZE);
}

TEST(order0) { check_order(0, true); }
TEST(order2) { check_order(2, true); }
TEST(order4) { check_order(4, true); }
TEST(order9) { check_order(9, true); }
/* the page-by-page path kernels before 6.7 take */
TEST(order4_pagemap_only) { check_order(4, false); }
TEST(order9_pagemap_only) { check_order(9, false); }

/* A sub-range that cuts folios: the cut folios are partial. */
TEST(range_edges_partial)
{
	unsigned long long fallbacks;
	struct folio_hist h;
	char *p;

	tu_require_pfns();
	p = tu_map_order(4, SIZE, &fallbacks);
	/* start 2 pages into a 16-page folio, end 3 pages into another */
	ASSERT_EQ(folio_scan_range(0, (unsigned long)p + 2 * 4096,
				   (unsigned long)p + 64 * 4096 + 3 * 4096, &h), 0);
	if (h.pages[4] != 48 && fallbacks)
		SKIP("order-4 faults fell back");
	EXPECT_EQ(h.pages[4], 48);
	EXPECT_EQ(h.partial, 14 + 3);
	EXPECT_EQ(h.present, 65);
	munmap(p, SIZE);
}

/*
 * Read faults map the zero page: classified, not counted as folios. Kernels
 * that give a read fault a private page instead (tu_read_kind) get order-0
 * anon folios here (MADV_NOHUGEPAGE: no mTHP either).
 */
TEST(zero_page)
{
	struct folio_hist h;
	volatile char *p;
	size_t off;
	char sum = 0;

	tu_require_pfns();
	p = tu_map_aligned(SIZE);
	ASSERT_TRUE(p != NULL);
	madvise((void *)p, SIZE, MADV_NOHUGEPAGE);
	for (off = 0; off < SIZE; off += 4096)
		sum += p[off];
	(void)sum;
	ASSERT_EQ(folio_scan_range(0, (unsigned long)p, (unsigned long)p + SIZE, &h), 0);
	if (tu_read_kind((char *)p, SIZE) == TU_ZERO_SMALL) {
		EXPECT_EQ(h.zero_page, NPAGES);
		EXPECT_EQ(h.pages[0], 0);
		EXPECT_EQ(h.anon, 0);
	} else {
		TEST_NOTE("read faults map private pages on this kernel: expecting order-0 anon folios");
		EXPECT_EQ(h.zero_page, 0);
		EXPECT_EQ(h.pages[0], NPAGES);
		EXPECT_EQ(h.anon, NPAGES);
	}
	EXPECT_EQ(h.present, NPAGES);
	EXPECT_EQ(h.partial, 0);
	munmap((void *)p, SIZE);
}

/* Chunks tiling a range add up to the scan of the whole range, wherever
 * their edges cut folios (the parallel scan relies on it). */
TEST(chunks_add_up)
{
	static const unsigned long chunk_pages[] = { 1, 3, 7, 16, 64, 1000 };
	unsigned long long fallbacks;
	struct folio_scanner *sc;
	struct folio_hist whole, sum;
	char *p, *q, *dst;
	unsigned long lo, hi, a;
	size_t i;
	int o;

	tu_require_pfns();
	p = tu_map_order(4, 2UL << 20, &fallbacks);
	dst = tu_map_aligned(8UL << 20);
	ASSERT_TRUE(dst != NULL);
	/* one page off: folios straddle every aligned chunk edge */
	q = mremap(p, 2UL << 20, 2UL << 20, MREMAP_MAYMOVE | MREMAP_FIXED, dst + 4096);
	ASSERT_TRUE(q != MAP_FAILED);
	madvise(q + 40 * 4096, 5 * 4096, MADV_DONTNEED); /* holes and partial folios */
	lo = (unsigned long)q;
	hi = lo + (2UL << 20);
	ASSERT_EQ(folio_scanner_open(&sc, 0), 0);
	memset(&whole, 0, sizeof(whole));
	ASSERT_EQ(folio_scanner_range(sc, lo, hi, &whole, NULL, NULL), 0);
	EXPECT_TRUE(whole.partial > 0);
	EXPECT_TRUE(whole.pages[4] > 0 || fallbacks);
	for (i = 0; i < sizeof(chunk_pages) / sizeof(chunk_pages[0]); i++) {
		memset(&sum, 0, sizeof(sum));
		for (a = lo; a < hi; a += chunk_pages[i] * 4096) {
			unsigned long b = a + chunk_pages[i] * 4096 < hi ? a + chunk_pages[i] * 4096 : hi;
			ASSERT_EQ(folio_scanner_chunk(sc, lo, hi, a, b, &sum, NULL, NULL), 0);
		}
		for (o = 0; o <= FOLIO_MAX_ORDER; o++)
			EXPECT_EQ(sum.pages[o], whole.pages[o]);
		EXPECT_EQ(sum.present, whole.present);
		EXPECT_EQ(sum.partial, whole.partial);
		EXPECT_EQ(sum.unaligned, whole.unaligned);
		EXPECT_EQ(sum.anon, whole.anon);
	}
	folio_scanner_close(sc);
}

/*
 * The huge zero page: classified, neither an order-9 folio nor partial. Where
 * the kernel maps private folios instead (use_zero_page 0, no zero page at
 * all), they are the PMD-mapped order-9 folios smaps counts in AnonHugePages
 * and order-0 folios for the rest (faults that fell back).
 */
static void check_huge_zero(bool pagemap_scan)
{
	enum tu_read_kind kind;
	struct folio_hist h;
	long long pmd_kb;
	char *p;

	tu_require_pfns();
	if (!pagemap_scan)
		setenv("MTHPSCOPE_NO_PAGEMAP_SCAN", "1", 1);
	p = tu_map_huge_zero(SIZE);
	ASSERT_EQ(folio_scan_range(0, (unsigned long)p, (unsigned long)p + SIZE, &h), 0);
	kind = tu_read_kind(p, SIZE);
	EXPECT_EQ(h.partial, 0);
	EXPECT_EQ(h.present, NPAGES);
	if (kind != TU_PRIVATE) {
		EXPECT_EQ(h.zero_page, NPAGES);
		EXPECT_EQ(h.pages[9], 0);
		EXPECT_EQ(h.anon + h.file, 0);
		munmap(p, SIZE);
		return;
	}
	pmd_kb = tu_smaps_kb(p, "AnonHugePages:");
	ASSERT_TRUE(pmd_kb >= 0);
	TEST_NOTE("read faults map private folios on this kernel (%lld kB PMD-mapped)", pmd_kb);
	EXPECT_EQ(h.zero_page, 0);
	EXPECT_EQ(h.anon, NPAGES);
	EXPECT_EQ(h.pages[9], (unsigned long long)pmd_kb / 4);
	EXPECT_EQ(h.pages[0], NPAGES - (unsigned long long)pmd_kb / 4);
	/* without PAGEMAP_SCAN (before 6.7) pagemap cannot tell a PMD mapping */
	EXPECT_EQ(h.pmd_mapped, pagemap_scan ? (unsigned long long)pmd_kb / 4 : 0);
	munmap(p, SIZE);
}

TEST(huge_zero_page) { check_huge_zero(true); }
TEST(huge_zero_page_pagemap_only) { check_huge_zero(false); }

/* KSM pages: order-0 folios, counted in 'ksm' too. Needs ksmd running. */
TEST(ksm_pages)
{
	struct folio_hist h;
	char run = '0', *p;
	int i, fd;

	tu_require_pfns();
	fd = open("/sys/kernel/mm/ksm/run", O_RDONLY);
	if (fd < 0 || read(fd, &run, 1) != 1 || run != '1')
		SKIP("KSM is not running (/sys/kernel/mm/ksm/run is not 1)");
	close(fd);
	p = tu_map_aligned(SIZE);
	ASSERT_TRUE(p != NULL);
	madvise(p, SIZE, MADV_NOHUGEPAGE);
	memset(p, 0x5a, SIZE); /* identical pages */
	ASSERT_EQ(madvise(p, SIZE, MADV_MERGEABLE), 0);
	for (i = 0; i < 100; i++) { /* up to 10 s for ksmd to merge them */
		ASSERT_EQ(folio_scan_range(0, (unsigned long)p, (unsigned long)p + SIZE, &h), 0);
		if (h.ksm == NPAGES)
			break;
		usleep(100000);
	}
	if (!h.ksm)
		SKIP("ksmd merged nothing within 10 s");
	/* merged or not yet, every page is an order-0 folio */
	EXPECT_EQ(h.pages[0], NPAGES);
	EXPECT_EQ(h.partial, 0);
	EXPECT_TRUE(h.ksm <= NPAGES);
}

/* hugetlb pages: classified, not THP. Needs free 2 MiB huge pages. */
TEST(hugetlb_pages)
{
	struct folio_hist h;
	char *p;
	size_t off;

	tu_require_pfns();
	p = mmap(NULL, 2 * TU_PMD, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p == MAP_FAILED)
		SKIP("no free hugetlb pages (vm.nr_hugepages is 0)");
	for (off = 0; off < 2 * TU_PMD; off += 4096)
		p[off] = 1;
	ASSERT_EQ(folio_scan_range(0, (unsigned long)p, (unsigned long)p + 2 * TU_PMD, &h), 0);
	EXPECT_EQ(h.hugetlb, 2 * TU_PMD / 4096);
	EXPECT_EQ(h.pages[9] + h.partial + h.pages[0], 0);
	munmap(p, 2 * TU_PMD);
}

/* A compound page that is no THP: io_uring's SQE array (4096 entries of 64
 * bytes, one allocation of 256 KiB). Its pages are neither order-0 folios nor
 * THP: the scanner counts them as other (it counted 64 order-0 pages), and
 * as the process's memory, as smaps Rss does and so thpmaps' percent base
 * (it left them out, so scan's default percentages of a process with such
 * pages were larger than thpmaps' and scan --smaps'). */
TEST(compound_not_thp)
{
	struct io_uring_params par;
	struct folio_hist h;
	unsigned long long fl = 0, pfn;
	size_t len;
	char *p;
	int fd, kf;

	tu_require_pfns();
	memset(&par, 0, sizeof(par));
	fd = (int)syscall(__NR_io_uring_setup, 4096, &par);
	if (fd < 0)
		SKIP("io_uring_setup: %s", strerror(errno));
	len = (size_t)par.sq_entries * sizeof(struct io_uring_sqe);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
		 IORING_OFF_SQES);
	ASSERT_TRUE(p != MAP_FAILED);
	if (tu_smaps_vmflag(p, "pf")) {
		/* kernels that mapped the rings with remap_pfn_range (before
		 * vm_insert_pages) make a PFN mapping: the page walk passes over
		 * it as a hole (mm/pagewalk.c, walk_page_test), so pagemap says
		 * not present and smaps Rss 0; scan and thpmaps agree on nothing */
		ASSERT_EQ(folio_scan_range(0, (unsigned long)p, (unsigned long)p + len, &h), 0);
		EXPECT_EQ(h.present, 0ull);
		EXPECT_EQ(tu_smaps_kb(p, "Rss:"), 0);
		munmap(p, len);
		close(fd);
		SKIP("the SQE array is a PFN mapping here (VmFlags pf): no page of it to see");
	}
	pfn = tu_pfn(p);
	kf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	ASSERT_TRUE(kf >= 0);
	ASSERT_EQ(pread(kf, &fl, sizeof(fl), (off_t)(pfn * 8)), (ssize_t)sizeof(fl));
	close(kf);
	if (!(fl & KPF_COMPOUND_HEAD) || (fl & KPF_THP)) {
		munmap(p, len);
		close(fd);
		SKIP("this kernel's SQE array is no compound page (flags %#llx)", fl);
	}
	ASSERT_EQ(folio_scan_range(0, (unsigned long)p, (unsigned long)p + len, &h), 0);
	EXPECT_EQ(h.pages[0], 0ull);
	EXPECT_EQ(h.other, len / 4096);
	EXPECT_EQ(h.present, len / 4096);
	EXPECT_EQ(h.anon + h.file, len / 4096);
	EXPECT_EQ((long long)(h.anon + h.file) * 4, tu_smaps_kb(p, "Rss:"));
	munmap(p, len);
	close(fd);
}

/* A PFN mapping (VM_PFNMAP: [vvar] here; io_uring's rings on kernels that
 * used remap_pfn_range) is a hole to the page walk behind pagemap, as to
 * smaps: the scanner sees nothing of it, even after it was read. */
TEST(pfn_mapping_is_a_hole)
{
	char line[512], name[64];
	unsigned long start = 0, end = 0, s, e;
	volatile const char *v;
	struct folio_hist h;
	FILE *f = fopen("/proc/self/maps", "r");

	ASSERT_TRUE(f != NULL);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %63s", &s, &e, name) == 3 &&
		    !strcmp(name, "[vvar]")) {
			start = s;
			end = e;
		}
	fclose(f);
	if (!start || !tu_smaps_vmflag((void *)start, "pf"))
		SKIP("no [vvar] PFN mapping in this process");
	v = (volatile const char *)start;
	(void)v[0]; /* its first page read: mapped, if the kernel maps it at all */
	ASSERT_EQ(folio_scan_range(0, start, end, &h), 0);
	EXPECT_EQ(h.present, 0ull);
	EXPECT_EQ(h.anon + h.file + h.other, 0ull);
	EXPECT_EQ(tu_smaps_kb((void *)start, "Rss:"), 0);
}

struct ext_sum {
	unsigned long long n, hash;
};

static int sum_extent(const struct folio_extent *e, void *ctx)
{
	struct ext_sum *x = ctx;

	x->n++;
	x->hash = x->hash * 1000003ULL ^ (e->start + e->pages * 7 + (unsigned)(e->order + 1) * 131 +
					   e->partial * 17 + e->aligned * 19 + e->kind * 23 +
					   e->pmd_mapped * 29);
	return 0;
}

static void scan_both(unsigned long lo, unsigned long hi, struct folio_hist *h,
		      struct ext_sum *x, bool probe)
{
	struct folio_scanner *sc;

	if (probe)
		unsetenv("MTHPSCOPE_NO_PROBE");
	else
		setenv("MTHPSCOPE_NO_PROBE", "1", 1);
	ASSERT_EQ(folio_scanner_open(&sc, 0), 0);
	memset(h, 0, sizeof(*h));
	memset(x, 0, sizeof(*x));
	/* twice: the first pass teaches the scanner that folios are big */
	ASSERT_EQ(folio_scanner_range(sc, lo, hi, h, NULL, NULL), 0);
	memset(h, 0, sizeof(*h));
	ASSERT_EQ(folio_scanner_range(sc, lo, hi, h, sum_extent, x), 0);
	folio_scanner_close(sc);
}

/*
 * Probing the end of big PTE-mapped folios gives exactly what reading every
 * page's flags gives: orders 6 and 8, and PMD-size folios moved to an
 * unaligned address, with holes and partial folios.
 */
TEST(probing_matches_full_read)
{
	static const int orders[] = { 6, 8, 9 };
	unsigned long long fallbacks;
	struct folio_hist a, b;
	struct ext_sum xa, xb;
	size_t i;
	int o;

	tu_require_pfns();
	for (i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		char *p = tu_map_order(orders[i], 8UL << 20, &fallbacks), *q = p;
		unsigned long lo, hi;

		if (orders[i] == 9) {
			char *dst = tu_map_aligned(10UL << 20);
			ASSERT_TRUE(dst != NULL);
			q = mremap(p, 8UL << 20, 8UL << 20, MREMAP_MAYMOVE | MREMAP_FIXED,
				   dst + 4096);
			ASSERT_TRUE(q != MAP_FAILED);
		}
		madvise(q + (3UL << 20) + 5 * 4096, 3 * 4096, MADV_DONTNEED);
		madvise(q + (5UL << 20), 300 * 4096, MADV_DONTNEED);
		lo = (unsigned long)q;
		hi = lo + (8UL << 20);
		scan_both(lo, hi, &a, &xa, true);
		scan_both(lo, hi, &b, &xb, false);
		for (o = 0; o <= FOLIO_MAX_ORDER; o++)
			EXPECT_EQ(a.pages[o], b.pages[o]);
		EXPECT_EQ(a.present, b.present);
		EXPECT_EQ(a.partial, b.partial);
		EXPECT_EQ(a.unaligned, b.unaligned);
		EXPECT_EQ(a.anon, b.anon);
		EXPECT_EQ(xa.n, xb.n);
		EXPECT_EQ(xa.hash, xb.hash);
		/* most of it in big folios, some partial */
		EXPECT_TRUE(a.pages[orders[i]] > 0 || fallbacks);
		EXPECT_TRUE(a.partial > 0 || fallbacks);
		munmap(q, 8UL << 20);
	}
}

/* [vsyscall] (x86-64) lies above the user address space, where pagemap
 * reads 0 bytes, as it does for an mm that went away: the page is
 * -EFAULT, a range over it is empty, and neither is -ESRCH (record took
 * the process for ended, or exec'd). */
static void check_above_user(bool pagemap_scan)
{
	const unsigned long vsys = 0xffffffffff600000UL;
	struct folio_scanner *s;
	struct folio_extent e;
	struct folio_hist h;
	FILE *f;
	char line[256];
	bool seen = false;

	tu_require_pfns();
#ifndef __x86_64__
	SKIP("the legacy vsyscall page is x86-64's");
#endif
	ASSERT_TRUE((f = fopen("/proc/self/maps", "r")) != NULL);
	while (fgets(line, sizeof(line), f))
		seen |= strstr(line, "[vsyscall]") != NULL;
	fclose(f);
	if (!seen)
		SKIP("no [vsyscall] page here (vsyscall=none)");
	if (!pagemap_scan)
		setenv("MTHPSCOPE_NO_PAGEMAP_SCAN", "1", 1);
	ASSERT_EQ(folio_scanner_open(&s, 0), 0);
	EXPECT_EQ(folio_scanner_page(s, vsys, &e), -EFAULT);
	memset(&h, 0, sizeof(h));
	EXPECT_EQ(folio_scanner_range(s, vsys, vsys + 4096, &h, NULL, NULL), 0);
	EXPECT_EQ(h.present, 0);
	/* below it, the process is there */
	EXPECT_TRUE(folio_scanner_page(s, (unsigned long)&e & ~4095UL, &e) >= 0);
	folio_scanner_close(s);
	unsetenv("MTHPSCOPE_NO_PAGEMAP_SCAN");
}

TEST(above_user_space) { check_above_user(true); }
TEST(above_user_space_pagemap_only) { check_above_user(false); }

TEST(bad_input)
{
	struct folio_hist h;

	tu_require_pfns();
	EXPECT_EQ(folio_scan_range(0, 4096, 1, &h), -EINVAL);
	EXPECT_EQ(folio_scan_range(0, 4097, 8192, &h), -EINVAL);
	EXPECT_EQ(folio_scan_range(999999999, 0, 4096, &h), -ESRCH);
}

HARNESS_MAIN
