/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The table of a program measured whole (program.h), in the shape the mTHP
 * series post: a row per folio size against 4K, columns real / user / sys,
 * faults, peak memory, then the folio coverage achieved. Text and lkml
 * (plain columns for a mail), markdown, and the "program" object of
 * analyze's JSON.
 */
#ifndef PROGRAM_REPORT_H
#define PROGRAM_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "analyze.h"
#include "program.h"
#include "report.h"

/* The table after a heading; nothing when pt is not available. 0 or -EIO. */
int program_report_write(const struct analysis *a, const struct program_table *pt,
			 enum report_format fmt, FILE *f);
/* One side of a compare of programs: its label, analysis and table. */
struct program_side {
	const char *label;
	const struct analysis *a;
	const struct program_table *pt;
};

/* compare of programs (two kernels or settings): each side's table under its
 * label, with its workload and host lines, then per other side the
 * difference against the first (program.h's program_diff). fmt text, lkml
 * or markdown. 0, -ENOMEM or -EIO. */
int program_report_sides(const struct program_side *s, size_t n, enum report_format fmt,
			 FILE *f);

/* "sys -25.3 % at 64K (sys_ns)": the metric with the largest material gain
 * (program.h), or why there is none. */
void program_report_largest(const struct analysis *a, const struct program_table *pt,
			    char *buf, size_t size);
/* The "program" object (new reference). */
json_t *program_report_json(const struct analysis *a, const struct program_table *pt);

#endif
