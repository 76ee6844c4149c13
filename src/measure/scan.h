/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-VMA folio statistics of processes, with the semantics and labels of
 * the kernel's tools/mm/thpmaps: complete folios mapped by PTEs, aligned or
 * not, per size; partially mapped folios; PMD-mapped memory taken from smaps
 * (AnonHugePages, ShmemPmdMapped + FilePmdMapped); contiguous aligned blocks
 * of chosen sizes (--cont, the arm64 contpte view). The zero page, KSM pages
 * and hugetlb are counted in their own labels.
 *
 * Return convention: 0 or negative errno; nothing here prints.
 */
#ifndef SCAN_H
#define SCAN_H

#include <pthread.h>
#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>

#include "folio.h"
#include "layout.h"

#define SCAN_MAX_CONT 10
#define SCAN_MAX_THREADS 16
#define SCAN_MAX_LABELS (2 * (3 * (FOLIO_MAX_ORDER + 1) + 2) + 4 * SCAN_MAX_CONT + 8)

enum { SCAN_ANON = 0, SCAN_FILE = 1 };

struct scan_opts {
	unsigned page_shift;
	int pmd_order;
	int nr_cont;
	int cont_order[SCAN_MAX_CONT];
	int nr_threads;        /* workers per process (0: 2 when there are 2 CPUs) */
	bool use_smaps;        /* PMD-mapped amounts and percent bases from smaps, as
				* thpmaps does, even where PAGEMAP_SCAN gives them */
	bool layout;           /* fill each VMA's contiguity histogram (scan --tlb) */
};

/* Statistics of one VMA or of a sum, in base pages; [SCAN_ANON] / [SCAN_FILE]. */
struct scan_stats {
	unsigned long long aligned[2][FOLIO_MAX_ORDER + 1];   /* complete, aligned; PMD-mapped
							       * ones removed at PMD order */
	unsigned long long unaligned[2][FOLIO_MAX_ORDER + 1];
	unsigned long long partial[2];
	unsigned long long pmd[2];                            /* PMD-mapped (from smaps) */
	unsigned long long cont[2][SCAN_MAX_CONT];            /* PTE-mapped aligned blocks */
	unsigned long long small[2];                          /* order-0 folios */
	unsigned long long zero, ksm, hugetlb, other, swapped;
	unsigned long long total[2];  /* smaps Anonymous, Rss - Anonymous: the percent base */
};

/* The additive smaps fields (kB) thpmaps --inc-smaps prints: its vma_all_stats. */
#define SCAN_NR_SMAPS 20
extern const char *const scan_smaps_names[SCAN_NR_SMAPS];

struct scan_vma {
	unsigned long start, end;
	char perms[5];
	unsigned long long pgoff, inode;
	unsigned major, minor;
	char name[512];
	/* kB: from smaps, or counted by the scan where PAGEMAP_SCAN shows PMD
	 * mappings (then ShmemPmdMapped is 0 and FilePmdMapped holds both) */
	unsigned long long rss_kb, anon_kb, anon_huge_kb, shmem_pmd_kb, file_pmd_kb;
	bool scanned;          /* accessible (and Rss > 0 with smaps): thpmaps skips the others */
	/* smaps VmFlags (only where smaps was read): "nh" (MADV_NOHUGEPAGE),
	 * "hg" (MADV_HUGEPAGE) */
	bool vm_nohuge, vm_hugepage;
	/* the scan_smaps_names fields this VMA's smaps has (only where smaps was
	 * read), in the file's order: smaps_kb[smaps_field[k]] for k < nr_smaps */
	unsigned long long smaps_kb[SCAN_NR_SMAPS];
	unsigned char smaps_field[SCAN_NR_SMAPS];
	int nr_smaps;
	struct scan_stats st;
	struct layout_hist layout; /* with scan_opts.layout: the VMA's physical layout */
};

/* Page size, PMD order; no --cont sizes. */
void scan_opts_init(struct scan_opts *o);
/* Add a --cont block size in bytes: -EINVAL unless a power-of-two number
 * (at least 2) of pages no larger than the PMD size; -E2BIG when full. */
int scan_opts_add_cont(struct scan_opts *o, unsigned long long bytes);

typedef int (*scan_vma_fn)(const struct scan_vma *v, void *ctx);

/*
 * Scan every VMA of 'pid' in address order, calling fn for each. -ESRCH when
 * the process does not exist or exits during the scan, -EACCES/-EPERM
 * without the privilege to see PFNs, -ENOENT without /proc/kpageflags.
 */
int scan_process(int pid, const struct scan_opts *o, scan_vma_fn fn, void *ctx);
/* 0 when 'pid' is there and has not exited, -ESRCH when not (a cheap check
 * before anything is printed; it may still exit before scan_process). */
int scan_process_exists(int pid);

void scan_stats_add(struct scan_stats *dst, const struct scan_stats *src);

/*
 * Workers that scan one process's memory chunk by chunk, each with its own
 * folio_scanner (scan_process here, record's exit scan): take() hands out
 * the next chunk, under the lock, false when none is left; scan() scans it
 * outside the lock, which it takes itself to add up. The first error, of a
 * scanner's open, of take() (put in err) or of scan(), stops every worker.
 */
struct scan_chunk {
	size_t vma;               /* the index of its VMA in the caller's list */
	unsigned long start, end; /* the chunk's addresses in that VMA */
	void *arg;                /* what take() found for scan() */
};

struct scan_pool {
	int pid;
	pthread_mutex_t lock;
	int err;
	bool (*take)(struct scan_pool *p, struct folio_scanner *s, struct scan_chunk *c);
	int (*scan)(struct scan_pool *p, struct folio_scanner *s, const struct scan_chunk *c);
};

/* Run n workers (this thread and up to n - 1 started ones, at most
 * SCAN_MAX_THREADS in all) until no chunk is left; returns p->err. */
int scan_pool_run(struct scan_pool *p, int n);

/* The VMAs of smaps (or maps) text read from f, header fields and the kB
 * fields scan uses; malformed headers are skipped. *v is malloc'd (free()).
 * The /proc reader's fuzz entry point. 0 or -errno. */
int scan_parse_smaps(FILE *f, struct scan_vma **v, size_t *nr);

/* One output line: thpmaps' label, its type (anon, file, or neither) and
 * its value in kB. */
struct scan_label {
	char name[48];
	int type;              /* SCAN_ANON, SCAN_FILE, or -1 */
	unsigned long long kb;
};

/* The labels of 'st' in thpmaps' order (then zero-page, ksm, hugetlb).
 * Returns the number written. */
int scan_labels(const struct scan_stats *st, const struct scan_opts *o, struct scan_label *out,
		int max);
/* Percent base of a type in kB (0 when none). */
unsigned long long scan_total_kb(const struct scan_stats *st, const struct scan_opts *o, int type);

#endif
