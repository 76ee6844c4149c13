// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * analyze's TLB model section (src/analysis/tlb_predict.h): per order at the
 * verdict span, the entries each level needs and the miss ratio the model
 * predicts, the walks it predicts saved; per span the predicted knee beside
 * the measured one. Every figure here is labelled model.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mthpscope.h"
#include "report.h"

/* A span of the model's section: "128 MiB", "1 GiB"; a command's, which has
 * none, "span - (a command)" as the report's header says it. */
static void span_words(const struct analysis *a, uint64_t span, char *buf, size_t size)
{
	char sp[24];

	if (report_span_name(a, span, true, sp, sizeof(sp)))
		snprintf(buf, size, "span %s", sp);
	else
		snprintf(buf, size, "%s", sp);
}

static void order_rows(const struct analysis *a, const struct tlb_prediction *p, FILE *f, bool md)
{
	const struct tlb_predict_span *s = &p->spans[p->verdict_span];
	char size[16], m[16], g[16], mg[16];
	int k, lv;

	fprintf(f, md ? "| order | size |" : "  %5s %6s", "order", "size");
	for (lv = 0; lv < p->g->nr_levels; lv++) {
		const char *name = p->g->level[lv].name;

		/* markdown names the level in both columns; text puts it over the
		 * entries and "miss" beside them */
		if (md)
			fprintf(f, " %s entries | %s miss |", name, name);
		else
			fprintf(f, " %10s %8s", name, "miss");
	}
	fprintf(f, md ? " walks saved (model) | measured gain |\n" : " %12s %14s\n", "walks saved",
		"measured gain");
	if (md) {
		fprintf(f, "|---|---|");
		for (lv = 0; lv < p->g->nr_levels; lv++)
			fprintf(f, "---|---|");
		fprintf(f, "---|---|\n");
	}
	for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
		const struct tlb_predict_cell *c = &s->by_order[k];

		if (!c->n)
			continue;
		analyze_order_size(a, k, size, sizeof(size));
		fprintf(f, md ? "| %d | %s |" : "  %5d %6s", k, size);
		for (lv = 0; lv < p->g->nr_levels; lv++) {
			ms_format_share(c->miss[lv], m, sizeof(m));
			fprintf(f, md ? " %llu | %s |" : " %10llu %8s", c->entries[lv], m);
		}
		ms_format_share(c->gain, g, sizeof(g));
		ms_format_share(c->measured_gain, mg, sizeof(mg));
		fprintf(f, md ? " %s | %s%s |\n" : " %12s %14s%s\n", k ? g : "baseline",
			k ? mg : "baseline", c->scatter ? " (scattered)" : "");
	}
}

/* Words of 'text' after 'lead', wrapped before column 90, indented 4. */
static void wrap(FILE *f, const char *lead, const char *text)
{
	const char *w = text;
	int col = fprintf(f, "%s", lead);

	while (*w) {
		int len = (int)strcspn(w, " ");

		if (col + 1 + len > 88) {
			fputs("\n   ", f);
			col = 3;
		}
		col += fprintf(f, " %.*s", len, w);
		w += len;
		while (*w == ' ')
			w++;
	}
	fputc('\n', f);
}

static void knee_words(const struct tlb_predict_span *s, char *buf, size_t size)
{
	char pr[96], me[48];

	if (!s->predicted_known)
		snprintf(pr, sizeof(pr), "unknown (%s)", tlb_predict_unknown_words(s->unknown));
	else if (s->knee >= 0)
		snprintf(pr, sizeof(pr), "order %d", s->knee);
	else
		snprintf(pr, sizeof(pr), s->fits ? "none (fits at order 0)" : "none");
	if (!s->measured_known)
		snprintf(me, sizeof(me), "inconclusive");
	else if (s->measured_knee >= 0)
		snprintf(me, sizeof(me), "order %d", s->measured_knee);
	else
		snprintf(me, sizeof(me), "none");
	snprintf(buf, size, "predicted %s, measured %s%s", pr, me,
		 !s->measured_known || !s->predicted_known ? "" : s->agree ? ": agree"
								     : ": DISAGREE");
}

static void knees(const struct analysis *a, const struct tlb_prediction *p, FILE *f, bool md)
{
	char sp[32], w[192];
	int i;

	fprintf(f, md ? "\nKnee per span (model vs measured):\n\n" : "  knee per span:\n");
	for (i = 0; i < p->nr_spans; i++) {
		const struct tlb_predict_span *s = &p->spans[i];

		span_words(a, s->span, sp, sizeof(sp));
		knee_words(s, w, sizeof(w));
		fprintf(f, md ? "- %s: %s\n" : "    %-9s %s\n", sp, w);
		if (s->cause[0] && md)
			fprintf(f, "  - likely cause: %s\n", s->cause);
		else if (s->cause[0])
			wrap(f, "              likely cause:", s->cause);
	}
}

static void section(const struct analysis *a, const struct tlb_prediction *p, FILE *f, bool md)
{
	const struct tlb_predict_span *s = &p->spans[p->verdict_span];
	char sp[32];
	int lv;

	fprintf(f, md ? "\n### TLB model\n\n" : "\nTLB model (source: model)\n");
	if (!p->available) {
		fprintf(f, md ? "Unavailable: %s.\n" : "  unavailable: %s\n", p->reason);
		return;
	}
	fprintf(f, md ? "Model **%s** (figures from %s):" : "  %s (figures from %s):", p->g->name,
		tlb_source_name(p->g->level[0].source));
	for (lv = 0; lv < p->g->nr_levels; lv++) {
		const struct tlb_level_geometry *l = &p->g->level[lv];

		if (p->capacity[lv])
			fprintf(f, " %s %llu", l->name, p->capacity[lv]);
		else
			fprintf(f, " %s not known", l->name);
		/* a separate pool for PMD entries (Intel's L1) */
		if (!l->shared && l->entries_pmd)
			fprintf(f, " + %u PMD", l->entries_pmd);
	}
	fprintf(f, " entries; merge %s.\n", tlb_merge_name(p->g->merge));
	if (md)
		fprintf(f, "Assumes %s.\n\n", tlb_model_assumptions());
	else
		wrap(f, "  assumes", tlb_model_assumptions());
	span_words(a, s->span, sp, sizeof(sp));
	if (s->unknown == TLB_PREDICT_NO_LAYOUTS || s->unknown == TLB_PREDICT_EMPTY) {
		/* no rows to show: say why rather than a table's bare header */
		fprintf(f, md ? "Entries needed and predicted miss ratio at %s: none, %s.\n"
			      : "  entries needed and predicted miss ratio at %s: none (%s)\n", sp,
			tlb_predict_unknown_words(s->unknown));
	} else {
		fprintf(f, md ? "Entries needed and predicted miss ratio at %s:\n\n"
			      : "  entries needed and predicted miss ratio at %s:\n", sp);
		order_rows(a, p, f, md);
	}
	knees(a, p, f, md);
}

int report_write_tlb(const struct analysis *a, const struct tlb_prediction *p,
		     enum report_format fmt, FILE *f)
{
	json_t *doc;
	int rc;

	if (!p || fmt == REPORT_LKML)
		return report_write(a, fmt, f);
	if (fmt != REPORT_JSON) {
		if ((rc = report_write(a, fmt, f)))
			return rc;
		section(a, p, f, fmt == REPORT_MARKDOWN);
		return ferror(f) ? -EIO : 0;
	}
	doc = report_analysis_json(a);
	json_object_set_new(doc, "tlb_model", tlb_prediction_json(p));
	rc = json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(doc);
	fputc('\n', f);
	return rc || ferror(f) ? -EIO : 0;
}
