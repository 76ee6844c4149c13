/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * collapse's text for people, from the document's model (collapse_doc.h):
 * the header of the sweep, then one block per max_ptes_none run as it ends.
 * Writes only to the stream it is given.
 */
#ifndef COLLAPSE_REPORT_H
#define COLLAPSE_REPORT_H

#include <stdio.h>

#include "collapse_doc.h"

/* The mode, span, fill, seed, target orders with the word each was set to,
 * and the khugepaged knobs (config and thp of d). */
void collapse_report_header(const struct collapse_doc *d, FILE *out);
/* One run: the timeline where something changed, RSS, the kernel's
 * counters, creep, the measure and the statement. */
void collapse_report_run(const struct collapse_doc_run *r, FILE *out);

#endif
