/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pagemap + kpageflags: which folio orders back a range of a process.
 * Bits as in Documentation/admin-guide/mm/pagemap.rst.
 *
 * A scan reads the range's pagemap in batches and the flags of present PFNs
 * in runs of consecutive PFNs, and walks them in address order into extents
 * (one folio, or the part of one mapped here) with the semantics of the
 * kernel's tools/mm/thpmaps. Where the kernel has PAGEMAP_SCAN (6.7+) it
 * finds present and PMD-mapped ranges first: holes cost nothing and a PMD
 * mapping costs one pagemap and one flags read. Memory is the scanner's
 * fixed buffers, whatever the size of the range.
 *
 * Return convention: 0 or negative errno; nothing here prints.
 */
#ifndef FOLIO_H
#define FOLIO_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "folio_types.h" /* FOLIO_MAX_ORDER, struct folio_hist */

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

/* What an extent is; pages of one kind are never mixed in an extent. */
enum folio_kind {
	FOLIO_THP,     /* (part of) a large folio: KPF_THP */
	FOLIO_SMALL,   /* order-0 folios, consecutive addresses merged */
	FOLIO_KSM,     /* KSM pages (order 0), merged like FOLIO_SMALL */
	FOLIO_ZERO,    /* the shared zero page or huge zero page */
	FOLIO_HUGETLB, /* hugetlbfs pages */
	FOLIO_OTHER,   /* no struct page behind the PFN */
	FOLIO_COMPOUND, /* a compound page neither THP nor hugetlb: a driver's or
			 * io_uring's higher-order page, or a large folio off the
			 * LRU for a moment; the process's memory (smaps Rss counts
			 * it), in no folio order (counted with 'other') */
};

/*
 * One extent, in address order. For FOLIO_THP it is one folio, or the part
 * of one folio mapped contiguously (partial); the other kinds merge runs of
 * consecutive present pages of the same kind.
 */
struct folio_extent {
	unsigned long start;      /* virtual address of the first page */
	unsigned long long pfn;   /* PFN of the first page */
	unsigned long pages;
	int order;                /* folio order; -1 for partial and for kinds other than THP/SMALL/KSM */
	enum folio_kind kind;
	bool aligned;             /* start is a multiple of the folio size (complete folios) */
	bool anon;                /* KPF_ANON */
	bool pmd_mapped;
	bool partial;             /* only part of the folio is mapped here (or the range cuts it) */
};

/* Is the extent in folios of an order (THP, small, KSM)? */
static inline bool folio_extent_has_order(const struct folio_extent *e)
{
	return e->kind == FOLIO_THP || e->kind == FOLIO_SMALL || e->kind == FOLIO_KSM;
}

/* Is the extent the process's own memory, counted as anon or file (those,
 * and compound pages: what smaps counts in Rss)? */
static inline bool folio_extent_is_rss(const struct folio_extent *e)
{
	return folio_extent_has_order(e) || e->kind == FOLIO_COMPOUND;
}

/* A large folio's order, orders above FOLIO_MAX_ORDER counted at it. */
static inline int folio_extent_order(const struct folio_extent *e)
{
	return e->order <= FOLIO_MAX_ORDER ? e->order : FOLIO_MAX_ORDER;
}

/* The counters of the kinds other than FOLIO_THP, for folio_kind_add. */
struct folio_kind_sums {
	unsigned long long *small, *ksm, *zero, *hugetlb, *other;
};

/* The one switch over the kinds: e->pages into its kind's counter of s. 0,
 * or -1 for a FOLIO_THP extent, which each caller counts its own way. */
int folio_kind_add(const struct folio_extent *e, const struct folio_kind_sums *s);

/* Called for each extent; a nonzero return stops the scan with that value. */
typedef int (*folio_extent_fn)(const struct folio_extent *e, void *ctx);

/* A scanner holds the open files and bounded buffers for one process. */
struct folio_scanner;

/* pid 0 = this process. -ESRCH: no such process; -ENOENT: no kpageflags;
 * -EACCES/-EPERM: not allowed. */
int folio_scanner_open(struct folio_scanner **out, int pid);
/*
 * Scan [start, end) (page aligned). Adds into *h (when not NULL) and calls fn
 * (when not NULL) for each extent. Reads pagemap only for this range and
 * kpageflags only for its present PFNs. -EPERM when PFNs are hidden (not
 * root), -ESRCH when the process went away.
 */
int folio_scanner_range(struct folio_scanner *s, unsigned long start, unsigned long end,
			struct folio_hist *h, folio_extent_fn fn, void *ctx);
/*
 * The share of [lo, hi) (one VMA) that a worker scanning [start, end) owns:
 * a folio that begins before 'start' is left to the chunk holding its
 * beginning; one that begins before 'end' is followed past it (up to 'hi').
 * Chunks tiling [lo, hi) add up to folio_scanner_range() over [lo, hi),
 * except 'not_present', which is not counted here.
 */
int folio_scanner_chunk(struct folio_scanner *s, unsigned long lo, unsigned long hi,
			unsigned long start, unsigned long end, struct folio_hist *h,
			folio_extent_fn fn, void *ctx);
/* The kernel has PAGEMAP_SCAN (6.7+): PMD mappings are seen and skipped
 * over in one read each. */
bool folio_scanner_pagemap_scan(const struct folio_scanner *s);
/* The one page at addr, when it is a folio of its own (two reads: its
 * pagemap entry and its flags): 1 with e filled (e->pages 0: not present),
 * 0 when it is part of a large folio or has no struct page (scan a range
 * for its extent), -errno (-ESRCH: the mm went away; -EFAULT: addr is above
 * the user address space, as [vsyscall] on x86-64, where pagemap has no
 * entries). A range scan sees nothing there. */
int folio_scanner_page(struct folio_scanner *s, unsigned long addr, struct folio_extent *e);
/* The first page in [start, end) that is present or swapped (end if none),
 * found by PAGEMAP_SCAN without reading the holes; without it, start. */
int folio_scanner_next_mapped(struct folio_scanner *s, unsigned long start, unsigned long end,
			      unsigned long *next);
void folio_scanner_close(struct folio_scanner *s);
/* A scanner over pagemap and kpageflags records held in other files (the
 * fuzz target of the record decoder). It owns both descriptors from the
 * call on: folio_scanner_close() closes them, as does a failure. */
int folio_scanner_open_fds(struct folio_scanner **out, int pm_fd, int kpf_fd);

/*
 * Scan [start, end) of process 'pid' (0 = this process); reads only this
 * range of pagemap and only the kpageflags of its present PFNs. Zeroes *h
 * first. 0 or negative errno (-EPERM/-EACCES: PFNs need root; -ESRCH: no
 * such process).
 */
int folio_scan_range(int pid, unsigned long start, unsigned long end, struct folio_hist *h);

/*
 * The contiguity histogram (src/doc/layout.h) of the memory the scanner walks:
 * while 'lh' is set, every scan adds its layout into *lh (NULL stops).
 * *lh must have this scanner's page size and PMD order (initialise it with
 * folio_scanner_layout_init): -EINVAL otherwise. A scan tracks runs of
 * consecutive PFNs and counts the aligned blocks of each run once, so the
 * cost is a few compares per page. PMD mappings are what PAGEMAP_SCAN
 * shows; without it, complete aligned PMD-order folios are taken for them.
 * Chunks (folio_scanner_chunk) must be cut at multiples of the PMD size
 * for no block to be cut.
 */
struct layout_hist;
int folio_scanner_layout(struct folio_scanner *s, struct layout_hist *lh);
void folio_scanner_layout_init(const struct folio_scanner *s, struct layout_hist *lh);
/* folio_scan_range plus the layout into *lh (initialised here; NULL: none). */
int folio_scan_range_layout(int pid, unsigned long start, unsigned long end, struct folio_hist *h,
			    struct layout_hist *lh);

/* What the user can do about a folio_* error. */
int folio_strerror(int err, char *buf, size_t size);

/* Share of the range's 'span_pages' pages mapped by folios of 'order'. */
double folio_coverage(const struct folio_hist *h, int order, unsigned long long span_pages);

/* Fault one page of our own and try to see its PFN and flags. */
int folio_probe(struct folio_probe *p);

#endif
