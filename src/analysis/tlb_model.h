/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The translation model: from a layout's contiguity histogram (src/doc/layout.h)
 * and a CPU's TLB geometry and merge rules, the entries each TLB level needs,
 * the share of them it can hold, and the miss ratio that predicts for
 * uniform random access over the memory. Pure computation on plain types:
 * no CPUID, no sysfs, no perf_event (the host's live geometry is read on the
 * measurement side and handed in as a struct tlb_geometry with source
 * "cpuid"). Every number it gives is reported with source "model".
 *
 * This header is the contract between the geometry tables (arch/), the
 * layout scanner (src/measure/) and the consumers (scan --tlb, run trials,
 * analyze, plot, compare). Return convention: 0 or negative errno.
 */
#ifndef TLB_MODEL_H
#define TLB_MODEL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "layout.h"

#define TLB_MAX_LEVELS 3
/* The longest name of a model or of a level (a geometry file's "name" and
 * "levelN.name", tlb_geometry_file.c; the table's are shorter). */
#define TLB_NAME_MAX 31

/* What a CPU merges into one TLB entry below the PMD size. */
enum tlb_merge {
	TLB_MERGE_NONE,     /* Intel: no documented 4K merging */
	TLB_MERGE_COALESCE, /* AMD Zen: merge_pages contiguous, congruent PTEs, any folios (contig[]) */
	TLB_MERGE_CONTPTE,  /* arm64: the kernel's contiguous bit, inside one folio (folio[]) */
};

/* Where a figure came from. */
enum tlb_source { TLB_SRC_TABLE, TLB_SRC_CPUID, TLB_SRC_USER };

struct tlb_level_geometry {
	const char *name;        /* "L1D", "L2" (STLB) */
	unsigned entries;        /* entries for base-page and merged translations */
	unsigned entries_pmd;    /* entries for PMD-size translations; ignored when shared */
	bool shared;             /* one pool serves both: capacity is 'entries' */
	unsigned ways;           /* 0: fully associative or not known (see 'cite') */
	/* the entry sizes a shared level holds, bit k for 2^k bytes (0: every
	 * size, or not known): a larger block takes entries of the largest size
	 * below it that it holds (Arm's L1 data TLBs break a 16K granule's 32M
	 * PMD block into 2M entries); separate pools ignore it */
	unsigned long long sizes;
	enum tlb_source source;
	const char *cite;        /* vendor document, table or section of each figure */
};

/* What picks a table entry for a host (plain data: compared on the
 * measurement side, src/measure/tlb_host.c). */
#define TLB_MAX_MATCH 6
struct tlb_cpu_match {
	int family;              /* x86 display family; arm64 MIDR implementer; 0 ends the list */
	int model_lo, model_hi;  /* x86 display model range; arm64 MIDR part range */
};

struct tlb_geometry {
	const char *name;        /* "zen4", "golden-cove", "neoverse-n2", ... (--tlb-model NAME) */
	const char *desc;        /* "AMD Zen 4 (family 19h, models 10h-1Fh, 60h-AFh)" */
	enum tlb_merge merge;
	unsigned merge_pages;    /* pages the largest merged entry maps at page_shift 12 (8 AMD,
				  * 16 contpte); the model rescales contpte for 16K/64K pages */
	bool hpa;                /* arm64 HPA (2-8 contiguous pages): off unless asked */
	int nr_levels;
	struct tlb_level_geometry level[TLB_MAX_LEVELS];
	/* added: the CPUs this entry describes ("AuthenticAMD", "GenuineIntel",
	 * "arm"; NULL for a user's or CPUID's geometry) */
	const char *vendor;
	struct tlb_cpu_match match[TLB_MAX_MATCH];
	const char *notes;       /* added: what the table leaves out, in words */
	/* added: every merged size, bit k for 2^k pages at page_shift 12 (AMD
	 * Zen: bits 2 and 3, 4 and 8 pages); 0: merge_pages alone (a table
	 * entry or file from before several sizes). Its top bit is
	 * merge_pages. A layout's entries take the largest size each aligned
	 * contiguous block allows, then the next (tlb_merge_orders). */
	unsigned merge_set;
	const char *merge_cite;  /* added: the source of the merge sizes, or NULL */
};

/* One level's footprint of a layout. */
struct tlb_level_footprint {
	const char *name;
	unsigned long long entries_needed;
	unsigned long long capacity; /* of the pools the layout uses: with separate base
				      * and PMD pools, both, or the PMD pool alone */
	double coverage;         /* capacity / entries_needed (1 or more: it fits); with
				  * separate pools in use the smaller of each pool's */
	double miss_ratio;       /* max(0, 1 - capacity / entries_needed): uniform random access */
};

struct tlb_footprint {
	const char *model;       /* geometry name */
	enum tlb_source source;  /* of the capacities used (cpuid when any came from CPUID) */
	int nr_levels;
	struct tlb_level_footprint level[TLB_MAX_LEVELS];
	unsigned long long entries_base, entries_merged, entries_pmd; /* the breakdown */
	/* added: entries_merged by size: merged_by_order[k] entries of 2^k pages */
	unsigned long long merged_by_order[LAYOUT_MAX_K + 1];
};

/* The table (NULL-terminated, every CPU on every host: what-ifs need them all). */
extern const struct tlb_geometry *const tlb_geometries[];
/* A table entry by name, or NULL. */
const struct tlb_geometry *tlb_geometry_find(const char *name);
/* A user's geometry file (--tlb-geometry FILE) into *g; strings are
 * allocated and live until exit. -EINVAL with 'err' naming line and field. */
int tlb_geometry_load(const char *path, struct tlb_geometry *g, char *err, size_t errsize);
/* added: the same from text (the fuzz target's entry; 'origin' names it in
 * messages); and the release of a parsed geometry's strings (never of a
 * table entry). */
int tlb_geometry_parse(const char *text, size_t len, const char *origin, struct tlb_geometry *g,
		       char *err, size_t errsize);
void tlb_geometry_release(struct tlb_geometry *g);
/* A geometry as the text tlb_geometry_parse reads back to the same figures
 * (run keeps CPUID's in the results, where the table has no entry): the
 * length, -ENOSPC when buf is too small, -EINVAL for a level whose
 * capacity is not known (0 entries: a file cannot say so). */
int tlb_geometry_format(const struct tlb_geometry *g, char *buf, size_t size);
const char *tlb_source_name(enum tlb_source s);
/* added: "none", "coalesce", "contpte" */
const char *tlb_merge_name(enum tlb_merge m);
/* The merge named by one of those words: 0, or -EINVAL for another word. */
int tlb_merge_from_name(const char *name, enum tlb_merge *m);
/* added: the table entry describing a CPU (vendor as CPUID or "arm";
 * family/model as in struct tlb_cpu_match), or NULL. */
const struct tlb_geometry *tlb_geometry_match(const char *vendor, int family, int model);
/* the arm64 contiguous-PTE block order: arch_arm64_contpte_order (folio_types.h) */

/* added: the order of one merged entry under g's rule for h's page size
 * (0: g merges nothing), or -1 when the rule does not fit that page size. */
int tlb_merge_order(const struct tlb_geometry *g, const struct layout_hist *h);
/* added: the merge sizes of g as a set (bit k: 2^k pages at 4K pages;
 * 0 for merge none): merge_set, or merge_pages' bit where it is 0. */
unsigned tlb_merge_set(const struct tlb_geometry *g);
/* added: the orders of g's merged entries for h's page size, largest first,
 * into orders[] (room for LAYOUT_MAX_K + 1): their number (0: g merges
 * nothing), or -1 when the rule does not fit that page size. */
int tlb_merge_orders(const struct tlb_geometry *g, const struct layout_hist *h, int *orders);
/* added: "4,8" (the sizes in pages, smallest first; "1" for none). */
void tlb_merge_set_text(unsigned set, char *buf, size_t size);
/* added: the model's assumptions in words (the JSON "assumptions"). */
const char *tlb_model_assumptions(void);

/* The footprint of layout h under geometry g. -EINVAL when h's page size
 * does not fit the rule (e.g. a block larger than pmd_order), or a level
 * that lists its entry sizes does not hold h's base page (tlb_misfit). */
int tlb_footprint(const struct tlb_geometry *g, const struct layout_hist *h, struct tlb_footprint *fp);

/* What makes tlb_footprint(g, h) refuse, checked in its order. */
enum tlb_misfit {
	TLB_FITS,
	TLB_MISFIT_GEOMETRY, /* no geometry, or not 1 to TLB_MAX_LEVELS levels */
	TLB_MISFIT_LAYOUT,   /* a histogram no mapping can have */
	TLB_MISFIT_RULE,     /* the merge rule does not fit h's page size */
	TLB_MISFIT_SIZES,    /* a level's listed entry sizes leave out h's base page */
};
/* The misfit of g and h; for TLB_MISFIT_SIZES, *level (when level is not
 * NULL) is the index of the first level that does not hold the base page. */
enum tlb_misfit tlb_misfit(const struct tlb_geometry *g, const struct layout_hist *h, int *level);
/* The same in words, for "no footprint (...)": "the model's rule does not
 * fit 16K pages", "the model's level L1D does not hold 4K pages, the base
 * page size"; "" when g fits h. */
enum tlb_misfit tlb_misfit_words(const struct tlb_geometry *g, const struct layout_hist *h,
				 char *buf, size_t size);
/* JSON form: { "model": ..., "source": ..., "computed_by": "model",
 *   "assumptions": "...", "entries_base": n, "entries_merged": n, "entries_pmd": n,
 *   "levels": [ { "level": "L2", "entries_needed": n, "capacity": n,
 *                 "coverage": x, "miss_ratio": x }, ... ] }; "capacity", "coverage" and
 * "miss_ratio" are null where the geometry does not know a figure (never 0).
 * NULL on allocation failure. */
json_t *tlb_footprint_json(const struct tlb_footprint *fp);
/* added: a geometry as JSON: { "model", "desc", "merge", "merge_pages",
 * "merge_sizes" (pages, smallest first), "merge_cite"?, "hpa",
 * "levels": [ { "level", "entries", "shared", "entries_pmd", "ways",
 * "source", "cite" } ], "notes"? }; unknown figures null. */
json_t *tlb_geometry_json(const struct tlb_geometry *g);

#endif
