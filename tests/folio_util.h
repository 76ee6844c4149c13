/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test helpers: anonymous memory faulted at one folio order. The THP knobs
 * are put back (thp_restore) right after the faults, before any assertion
 * can _exit the test child, so a failing test never leaves them changed.
 */
#ifndef FOLIO_UTIL_H
#define FOLIO_UTIL_H

#include <stdint.h>
#include <sys/mman.h>

#include "folio.h"
#include "thp.h"

#define TU_PMD (2UL << 20)

/* Skip unless PFNs and kpageflags are visible. */
static inline void tu_require_pfns(void)
{
	struct folio_probe p;

	if (folio_probe(&p) || !p.pfns_visible || !p.kpageflags_readable)
		SKIP("%s", p.reason[0] ? p.reason : "folio probe failed");
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

/* Map 'size' bytes PMD-aligned and read-fault them with only PMD-size THP
 * enabled: the huge zero page (or the small one when use_zero_page is 0). */
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
