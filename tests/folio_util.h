/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test helpers: anonymous memory faulted at one folio order. The THP knobs
 * are put back (thp_restore) right after the faults, before any assertion
 * can _exit the test child, so a failing test never leaves them changed.
 */
#ifndef FOLIO_UTIL_H
#define FOLIO_UTIL_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "folio.h"
#include "thp.h"

#define TU_PMD (2UL << 20)

/* The PFN /proc/self/pagemap gives for 'addr' (0 when not present or hidden). */
static inline unsigned long long tu_pfn(const void *addr)
{
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &e, sizeof(e), (off_t)((uintptr_t)addr / 4096 * sizeof(e))) != sizeof(e))
		e = 0;
	close(fd);
	return e >> 63 ? e & ((1ULL << 55) - 1) : 0;
}

/* What read faults mapped over [p, p + size), told from PFNs alone. */
enum tu_read_kind {
	TU_ZERO_SMALL,	/* every page the one small zero page */
	TU_ZERO_HUGE,	/* every PMD the one huge zero page */
	TU_PRIVATE,	/* private folios (no zero page on this kernel) */
};

static inline enum tu_read_kind tu_read_kind(const char *p, size_t size)
{
	unsigned long long a = tu_pfn(p);

	if (a && a == tu_pfn(p + 4096))
		return TU_ZERO_SMALL;
	if (a && size >= 2 * TU_PMD && a == tu_pfn(p + TU_PMD))
		return TU_ZERO_HUGE;
	return TU_PRIVATE;
}

static inline const char *tu_read_kind_name(enum tu_read_kind k)
{
	return k == TU_ZERO_SMALL ? "the zero page" :
	       k == TU_ZERO_HUGE ? "the huge zero page" : "private pages";
}

/*
 * A field of /proc/self/smaps (e.g. "AnonHugePages:") for the VMA starting at
 * 'p', in kB; -1 when there is no such VMA or field. The kernel's own account
 * of PMD-mapped THP, independent of the folio scanner.
 */
static inline long long tu_smaps_kb(const void *p, const char *field)
{
	char line[512];
	unsigned long start, end;
	long long kb = -1;
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2) { /* a VMA's header */
			in = start == (uintptr_t)p;
			continue;
		}
		if (in && !strncmp(line, field, strlen(field))) {
			kb = strtoll(line + strlen(field), NULL, 10);
			break;
		}
	}
	fclose(f);
	return kb;
}

/* Whether the VmFlags of the VMA starting at p hold 'flag' ("pf": a PFN
 * mapping). */
static inline bool tu_smaps_vmflag(const void *p, const char *flag)
{
	char line[512], want[8];
	unsigned long start, end;
	bool in = false, has = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	snprintf(want, sizeof(want), " %s", flag);
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2) {
			in = start == (uintptr_t)p;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			line[strcspn(line, "\n")] = ' ';
			has = strstr(line + 8, want) && strstr(line + 8, want)[strlen(want)] == ' ';
			break;
		}
	}
	if (f)
		fclose(f);
	return has;
}

/* Skip unless PFNs and kpageflags are visible. */
static inline void tu_require_pfns(void)
{
	struct folio_probe p;

	struct thp_settings s;

	if (folio_probe(&p) || !p.pfns_visible || !p.kpageflags_readable)
		SKIP("%s", p.reason[0] ? p.reason : "folio probe failed");
	/* the sizes, orders and labels of these tests are 4 KiB pages' */
	if (sysconf(_SC_PAGESIZE) != 4096)
		SKIP("these tests assume 4 KiB pages; this kernel's are %ld bytes",
		     sysconf(_SC_PAGESIZE));
	if (!thp_read(&s) && s.pmd_order && s.pmd_order != 9)
		SKIP("these tests assume a PMD of order 9; this kernel's is order %d", s.pmd_order);
}

/*
 * The deferred split may split a partly unmapped large folio at any time
 * (the shrinker under memory pressure): 'partial' pages of it are then
 * order-0 folios instead. True when that happened; the test asserts either.
 */
static inline bool tu_was_split(const struct folio_hist *h, unsigned long long partial)
{
	if (h->partial == 0 && h->pages[0] == partial) {
		TEST_NOTE("the kernel split the partly unmapped folio (deferred split ran)");
		return true;
	}
	return false;
}

/*
 * A PMD-aligned anonymous mapping of 'size' bytes (not faulted), fenced by
 * PROT_NONE pages so that it stays one VMA of its own, starting at the
 * returned address.
 */
static inline char *tu_map_aligned(size_t size)
{
	char *raw, *p;

	raw = mmap(NULL, size + 2 * TU_PMD, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)raw + TU_PMD) & ~(TU_PMD - 1));
	if (mprotect(p, size, PROT_READ | PROT_WRITE)) {
		munmap(raw, size + 2 * TU_PMD);
		return NULL;
	}
	return p;
}

/* The fault fallbacks so far at 'order' (to tell a test failure from an
 * allocation the kernel could not make). */
static inline unsigned long long tu_fallbacks(int order)
{
	struct thp_settings s;
	const struct thp_size *z;
	bool found;

	if (thp_read(&s) || !(z = thp_size_by_order(&s, order)))
		return 0;
	return thp_size_stat(z, "anon_fault_fallback", &found);
}

/*
 * Map 'size' bytes PMD-aligned and fault every page (writes) with only
 * 'order' enabled; SKIP when the machine lacks that order or the knobs
 * cannot be written. *fallbacks gets the fault fallbacks counted meanwhile.
 */
static inline char *tu_map_order(int order, size_t size, unsigned long long *fallbacks)
{
	struct thp_settings s;
	unsigned long long fb0;
	char msg[256];
	size_t off;
	char *p;
	int err;

	if (thp_read(&s))
		SKIP("no THP sysfs");
	if (order && !thp_size_by_order(&s, order))
		SKIP("no anon mTHP size of order %d", order);
	err = thp_set_only_order(&s, order);
	if (err) {
		thp_strerror(err, msg, sizeof(msg));
		thp_restore();
		SKIP("cannot set THP knobs: %s", msg);
	}
	fb0 = order ? tu_fallbacks(order) : 0;
	p = tu_map_aligned(size);
	if (p) {
		madvise(p, size, MADV_HUGEPAGE);
		for (off = 0; off < size; off += 4096)
			p[off] = (char)(off >> 12 | 1);
		/* keep khugepaged from collapsing it to PMD size while a later
		 * step of the test has the PMD order enabled */
		madvise(p, size, MADV_NOHUGEPAGE);
	}
	if (fallbacks)
		*fallbacks = order ? tu_fallbacks(order) - fb0 : 0;
	thp_restore();
	if (!p)
		SKIP("mmap failed");
	return p;
}

/*
 * Map 'size' bytes PMD-aligned and read-fault them with only PMD-size THP
 * enabled. What the kernel maps there differs: the huge zero page; the small
 * one where the huge one could not be had; or private folios (order 9 when
 * use_zero_page is 0, or on kernels that never map a zero page:
 * mm_forbids_zeropage on s390 KVM guests, or patched hosts). tu_read_kind()
 * tells which, without kpageflags.
 */
static inline char *tu_map_huge_zero(size_t size)
{
	struct thp_settings s;
	volatile char *p;
	size_t off;
	char sum = 0;

	if (thp_read(&s) || !s.pmd_order)
		SKIP("no THP sysfs");
	if (thp_set_only_order(&s, s.pmd_order)) {
		thp_restore();
		SKIP("cannot set THP knobs");
	}
	p = tu_map_aligned(size);
	if (p) {
		madvise((void *)p, size, MADV_HUGEPAGE);
		for (off = 0; off < size; off += 4096)
			sum += p[off];
		madvise((void *)p, size, MADV_NOHUGEPAGE);
	}
	(void)sum;
	thp_restore();
	if (!p)
		SKIP("mmap failed");
	return (char *)p;
}

#endif
