/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The events command's document and text, from an arch description. */
#ifndef EVENTS_DOC_H
#define EVENTS_DOC_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "arch.h"

#define EVENTS_SCHEMA "mthpscope.events/1"

/* "  NAME  FAMILY" a line for every known description. */
void events_list_pmus(FILE *f);
/* Events that did not encode here (their perf type is null): a hybrid
 * PMU this host does not have, or a string libpfm4 refused. */
struct events_bad {
	int absent_pmu;
	int not_encoded;
};
/* The mthpscope.events/1 document of d's events for 'access' (new
 * reference; "access": "loads" or "stores"), its named events as this
 * machine encodes them (arch_pmu_bind). */
json_t *events_doc_build(const struct arch_desc *d, enum arch_access access,
			 struct events_bad *bad);
/* The document as a table, the derived metrics, coalescing and notes;
 * this_cpu adds what this machine's CPU and kernel say. */
void events_write_text(const struct arch_desc *d, json_t *doc, bool this_cpu, FILE *out);

#endif
