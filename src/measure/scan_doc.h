/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scan's document (schema mthpscope.scan/1), built from the scanner's VMAs
 * and sums (scan.h): the head, one object per VMA, process and skipped
 * process, and a sample with its rollup. scan --tlb adds "layout" and "tlb"
 * to a VMA's object and to the rollup (scan_tlb.h). Every function returns
 * a new reference, NULL on no memory.
 */
#ifndef SCAN_DOC_H
#define SCAN_DOC_H

#include <jansson.h>
#include <stdbool.h>

#include "scan.h"

#define SCAN_SCHEMA "mthpscope.scan/1"

/* The head: page and PMD sizes, the --cont sizes, the interval; its
 * "samples" array also in *samples (a second reference, to fill). */
json_t *scan_doc_new(const struct scan_opts *o, long interval_ms, json_t **samples);
/* thpmaps' labels of st, {"label": kB}; all: also the labels at 0 kB. */
json_t *scan_doc_labels(const struct scan_stats *st, const struct scan_opts *o, bool all);
/* A VMA: its maps line's fields, anon and file kB, its labels. */
json_t *scan_doc_vma(const struct scan_vma *v, const struct scan_opts *o);
/* A process and its VMAs (steals the reference to vmas). */
json_t *scan_doc_process(int pid, const char *comm, json_t *vmas);
/* A process left out of a scan of many, and why. */
json_t *scan_doc_skipped(int pid, const char *reason);
/*
 * A sample at t seconds: its processes (NULL with --rollup), the "rollup"
 * of st (kB per type and every label) and the skipped processes. Steals
 * procs and skipped. The rollup object is "rollup" of the result.
 */
json_t *scan_doc_sample(double t, json_t *procs, const struct scan_stats *st,
			const struct scan_opts *o, json_t *skipped);

#endif
