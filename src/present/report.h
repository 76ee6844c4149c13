/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Presentation of an analysis: text for a terminal, markdown for a mail or
 * a web page, JSON (schema mthpscope.analysis/1) for scripts; the same for
 * a comparison (compare.h), with lkml's layout too. The writers
 * print only to the stream they are given.
 */
#ifndef REPORT_H
#define REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze.h"
#include "compare.h"
#include "tlb_fleet.h"
#include "tlb_predict.h"

enum report_format {
	REPORT_TEXT,
	REPORT_MARKDOWN,
	REPORT_JSON,
	REPORT_LKML,     /* analyze: a program's table for a cover letter (program_report.h) */
};

/* The formats' words, by value, NULL-terminated; aliases: pairs of an
 * alias and its word ("md", "markdown"). */
extern const char *const report_format_words[];
extern const char *const report_format_aliases[];
/* analyze's: those and lkml */
extern const char *const analyze_format_words[];
/* The analysis document; the caller owns the reference. */
json_t *report_analysis_json(const struct analysis *a);
/* 0, or -EIO when the stream fails. */
int report_write(const struct analysis *a, enum report_format f, FILE *out);

/* A span in words, one rule for every section: "- (a command)" for a
 * command's trials (they have no span: 0), else "N MiB" ("N GiB" for whole
 * GiB where gib). True for a command's. */
bool report_span_name(const struct analysis *a, uint64_t span, bool gib, char *buf,
		      size_t size);

/* The same with the TLB model's section (text, markdown) or "tlb_model"
 * object (JSON); p NULL: exactly report_write. 0 or -EIO. */
int report_write_tlb(const struct analysis *a, const struct tlb_prediction *p,
		     enum report_format f, FILE *out);

/* The same with the fleet view after it (analyze --tlb-model all): every
 * table model's knee, plateau and entries per order beside the measured
 * row; JSON "tlb_fleet". p may be NULL (no section of the trials' model). */
int report_write_fleet(const struct analysis *a, const struct tlb_prediction *p,
		       const struct tlb_fleet *fleet, enum report_format f, FILE *out);

/* compare: the mthpscope.compare/1 document (new reference), and the report
 * in one format (text, markdown, json, lkml). 0 or -EIO. */
json_t *report_compare_json(const struct compare_report *report);
/* The JSON document of a compare with, where not NULL, the programs' tables
 * ("programs": [{side, program}], program_report_json's per side; the
 * caller keeps its reference). 0 or -EIO. */
int report_compare_write_json(const struct compare_report *report, json_t *programs, FILE *f);
int report_compare_write(const struct compare_report *report, enum compare_format fmt,
			 FILE *out);

/* compare of collapse documents: order mass, RSS and time side by side
 * (text, markdown, json = mthpscope.compare-collapse/1, lkml). 0 or -EIO. */
int report_compare_collapse_write(const struct compare_collapse *c, enum compare_format fmt,
				  FILE *out);

#endif
