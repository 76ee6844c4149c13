/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mthpscope probe's report: the times per span and variant (timing), each
 * hypothesis's fit and support (model), the verdict in words, as text or
 * as the JSON document mthpscope.probe/1. Plain types in, nothing measured.
 */
#ifndef PROBE_REPORT_H
#define PROBE_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "host.h"
#include "tlb_probe.h"

struct probe_report {
	const struct topo_info *host;
	const struct tlb_geometry *base;   /* the capacities the hypotheses scale */
	const char *base_source;           /* "table", "cpuid", "--tlb-geometry F" */
	const struct probe_input *in;
	const struct probe_result *res;
	int reps_asked;
	double trial_s, elapsed_s;
	bool verified;                     /* the layouts were read from pagemap */
	int low_coverage;
	const char *output;                /* the geometry file written, or NULL */
};

/* The verdict in one sentence ("merges up to 8 pages", "cannot tell: ...")
 * into buf. */
void probe_verdict_words(const struct probe_report *r, char *buf, size_t size);
void probe_report_text(FILE *f, const struct probe_report *r);
/* The document; NULL on allocation failure. */
json_t *probe_report_json(const struct probe_report *r);

#endif
