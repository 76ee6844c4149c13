/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The presence document (mthpscope.presence/1): which PTEs of a process's
 * anonymous memory are present, per PMD-sized range, with the folio order
 * and PFN of each present page: what khugepaged's scan sees, and what
 * 'collapse --replay' replays a policy on. 'scan --presence FILE' writes it
 * (src/measure/presence.c fills the model); the reader checks every field.
 *
 *   { "schema": "mthpscope.presence/1", "tool": {"name", "version"},
 *     "host": { ... as a results file's ... },
 *     "source": { "pid": 123, "command": "sort" },
 *     "page_size": 4096, "pmd_order": 9,
 *     "ranges": [ { "addr": 140..., "lo": 0, "hi": 512,
 *                   "present": "ff00...",          (pmd_pages / 4 hex digits,
 *                                                   page i: bit i % 4 of digit i / 4)
 *                   "folios": [[offset, pages, order, pfn], ...] },
 *                 { "addr": ..., "lo": 0, "hi": 512, "pmd_pfn": 4096 } ] }
 *
 * A folios row is a run of pages at offset..offset+pages-1 of the range,
 * PFNs pfn..pfn+pages-1: one folio of that order (or the part of it mapped
 * in the range), or for order 0 that many order-0 folios; order -1 is a part
 * of a large folio whose order pagemap did not tell. Rows are in offset
 * order, do not overlap and cover exactly the present bits; every present
 * page lies in [lo, hi), the part of the range a VMA khugepaged may
 * collapse covers ("split": true when more than one VMA does: khugepaged
 * scans no such range). A PMD-mapped range has "pmd_pfn" instead of both.
 *
 * Return convention: 0 or negative errno; nothing here prints or exits.
 */
#ifndef PRESENCE_DOC_H
#define PRESENCE_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "results.h"

#define PRESENCE_SCHEMA_PREFIX "mthpscope.presence/"
#define PRESENCE_SCHEMA PRESENCE_SCHEMA_PREFIX "1"

struct presence_folio {
	unsigned offset, pages;
	int order;                 /* -1: a part of a large folio, order not known */
	unsigned long long pfn;
};

struct presence_range {
	unsigned long long addr;   /* a multiple of the PMD size */
	unsigned lo, hi;
	bool pmd_mapped;
	unsigned long long pmd_pfn;
	bool split;                /* "split": more than one VMA covers [lo, hi) */
	struct presence_folio *folios;
	size_t nr_folios, cap_folios;
};

struct presence_doc {
	char tool_version[64];
	bool has_host;
	struct results_host host;
	int pid;                   /* 0: not from a process (hand-made) */
	char command[256];
	unsigned page_size;
	int pmd_order;
	struct presence_range *ranges;
	size_t nr_ranges, cap_ranges;
};

/* page_size 4096, 16384 or 65536 and its PMD order (9, 11, 13): -EINVAL otherwise. */
int presence_doc_init(struct presence_doc *d, unsigned page_size);
/* Append a range (addresses ascending) and its rows; -EINVAL for what the
 * reader would refuse, -ENOMEM. */
int presence_doc_add_range(struct presence_doc *d, unsigned long long addr, unsigned lo,
			   unsigned hi);
int presence_doc_add_folio(struct presence_doc *d, unsigned offset, unsigned pages, int order,
			   unsigned long long pfn);
/* The last range is mapped by one PMD at pfn (a multiple of the PMD's pages)
 * and covers its whole range: -EINVAL otherwise, or when it has rows. */
int presence_doc_set_pmd(struct presence_doc *d, unsigned long long pfn);
void presence_doc_free(struct presence_doc *d);

/* The writer: new reference in *out. 0 or -ENOMEM. */
int presence_doc_json(const struct presence_doc *d, json_t **out);
/* The reader: every field typed and in range (see above), into d (free
 * with presence_doc_free; zeroed on failure). -EPROTO (another schema),
 * -EBADMSG (err names the JSON path), -ENOMEM. */
int presence_doc_read(json_t *doc, struct presence_doc *d, char *err, size_t errsize);
/* A file ('-': stdin) through results_read_file, rd_parse and the reader;
 * err starts with the file name. */
int presence_doc_load(const char *path, struct presence_doc *d, char *err, size_t errsize);

#endif
