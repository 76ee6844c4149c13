/*
 * pagemap + kpageflags: which folio orders back a range of a process.
 * Bits as in Documentation/admin-guide/mm/pagemap.rst.
 */
#ifndef FOLIO_H
#define FOLIO_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define BIT_ULL(n) (1ULL << (n))

/* /proc/PID/pagemap */
#define PM_PFN_MASK (BIT_ULL(55) - 1)
#define PM_SOFT_DIRTY BIT_ULL(55)
#define PM_MMAP_EXCLUSIVE BIT_ULL(56)
#define PM_UFFD_WP BIT_ULL(57)
#define PM_FILE BIT_ULL(61)
#define PM_SWAP BIT_ULL(62)
#define PM_PRESENT BIT_ULL(63)

/* /proc/kpageflags */
#define KPF_LOCKED BIT_ULL(0)
#define KPF_ANON BIT_ULL(12)
#define KPF_COMPOUND_HEAD BIT_ULL(15)
#define KPF_COMPOUND_TAIL BIT_ULL(16)
#define KPF_HUGE BIT_ULL(17)
#define KPF_NOPAGE BIT_ULL(20)
#define KPF_KSM BIT_ULL(21)
#define KPF_THP BIT_ULL(22)
#define KPF_OFFLINE BIT_ULL(23)
#define KPF_ZERO_PAGE BIT_ULL(24)

struct folio_probe {
	bool pagemap_readable;
	bool pfns_visible;       /* PFNs are shown (root / CAP_SYS_ADMIN) */
	bool kpageflags_readable;
	char reason[160];        /* what is missing and why, when something is */
};

#define FOLIO_MAX_ORDER 20 /* histogram slots: order 0 .. FOLIO_MAX_ORDER */

/*
 * What backs a range, in base pages. pages[o] counts the pages mapped by
 * complete folios of order o (thpmaps semantics: a folio runs from its head to
 * the next head while virtual and physical frame numbers both advance by one);
 * pages of folios cut by the range edge or only partly mapped count in
 * 'partial', not in pages[].
 */
struct folio_hist {
	unsigned long long pages[FOLIO_MAX_ORDER + 1];
	unsigned long long present;     /* present pages in the range */
	unsigned long long not_present; /* holes (none / swapped) */
	unsigned long long swapped;
	unsigned long long partial;
	unsigned long long unaligned;   /* pages of folios whose address is not size-aligned */
	unsigned long long pmd_mapped;  /* pages mapped by a PMD */
	unsigned long long anon, file;
	unsigned long long zero_page, ksm, hugetlb;
};

/*
 * Scan [start, end) of process 'pid' (0 = this process); reads only this
 * range of pagemap and only the kpageflags of its present PFNs. 0 or
 * negative errno (-EPERM/-EACCES: PFNs need root; -ESRCH: no such process).
 */
int folio_scan_range(int pid, unsigned long start, unsigned long end, struct folio_hist *h);

/* Share of the range's 'span_pages' pages mapped by folios of 'order'. */
double folio_coverage(const struct folio_hist *h, int order, unsigned long long span_pages);

/* Fault one page of our own and try to see its PFN and flags. */
int folio_probe(struct folio_probe *p);

#endif
