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

/* A gain with its interval: "+12.3% [10.1, 14.5]", "-" without one. */
static void gain_ci(const struct analyze_change *c, char *buf, size_t size)
{
	if (!isfinite(c->value))
		snprintf(buf, size, "-");
	else if (isfinite(c->lo) && isfinite(c->hi))
		snprintf(buf, size, "%.1f [%.1f, %.1f]", 100.0 * c->value, 100.0 * c->lo,
			 100.0 * c->hi);
	else
		snprintf(buf, size, "%.1f", 100.0 * c->value);
}

static const char *agree_words(const struct tlb_predict_cell *c)
{
	return c->agree < 0 ? "-" : c->agree ? "agree" : tlb_time_cause_name(c->cause);
}

static void order_head(const struct tlb_prediction *p, FILE *f, bool md)
{
	int lv;

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
	fprintf(f, md ? " walks saved (model) | time gain %% (model) | measured gain %% | time "
		      "model vs measured |\n" : " %11s  %-20s %-20s %s\n", "walks saved",
		"time gain % (model)", "measured gain %", "vs measured");
	if (md) {
		fprintf(f, "|---|---|");
		for (lv = 0; lv < p->g->nr_levels; lv++)
			fprintf(f, "---|---|");
		fprintf(f, "---|---|---|---|\n");
	}
}

static void order_rows(const struct analysis *a, const struct tlb_prediction *p, FILE *f, bool md)
{
	const struct tlb_predict_span *s = &p->spans[p->verdict_span];
	char size[16], m[16], g[16], tg[48], mg[48];
	int k, lv;

	order_head(p, f, md);
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
		gain_ci(&c->time_gain, tg, sizeof(tg));
		gain_ci(&c->measured, mg, sizeof(mg));
		if (!k)
			fprintf(f, md ? " baseline | baseline | baseline | - |\n" : " %11s  %-20s "
				"%-20s %s\n", "baseline", "baseline", "baseline", "-");
		else
			fprintf(f, md ? " %s | %s | %s | %s%s |\n" : " %11s  %-20s %-20s %s%s\n", g,
				tg, mg, k == a->pmd_order && s->calibrated ? "calibration" :
				agree_words(c), c->scatter ? " (scattered)" : "");
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

#define REGIONS_NOTE                                                                       \
	"the host side of the nested walk is not fitted: the trials carry no guest-physical "  \
	"regions (placement.regions_pmd, recorded by run from this version on), so only the "  \
	"first level's term was tried"

/* The model's second term at a span (tlb_time.c), fitted beside the walks. */
static void term_line(const struct tlb_prediction *p, const struct tlb_predict_span *s, FILE *f,
		      bool md)
{
	char tw[192], line[320];

	tlb_time_term_words(p, &s->model_fit, tw, sizeof(tw));
	snprintf(line, sizeof(line), "%s (model; chi2 %.1f over %d orders, %.1f without it)", tw,
		 s->model_fit.chi2, s->model_fit.n, s->model_fit.chi2_plain);
	if (md)
		fprintf(f, "  - with the %s term: %s\n", tlb_time_term_name(s->model_fit.term), line);
	else
		wrap(f, s->model_fit.term == TLB_TERM_HOST ? "              with the host side term:"
			: "              with the first level term:", line);
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
		if (s->nr_judged && !s->calibrated)
			fprintf(f, md ? "  - time model: %d of %d orders below PMD within the "
				"measured CI (no walks to save: order 0 fits)\n" : "              time "
				"model: %d of %d orders below PMD within the measured CI (order 0 fits)\n",
				s->nr_judged - s->nr_order_disagree, s->nr_judged);
		else if (s->nr_judged)
			fprintf(f, md ? "  - time model: %d of %d orders below PMD within the "
				"measured CI (a walk costs %.3g in %s, calibrated at order 0 and PMD)\n" :
				"              time model: %d of %d orders below PMD within the "
				"measured CI (a walk costs %.3g in %s)\n", s->nr_judged -
				s->nr_order_disagree, s->nr_judged, s->walk_cost, a->metric);
		if (s->nr_judged && s->calibrated && s->model_fit.term)
			term_line(p, s, f, md);
		if (s->cause[0] && md)
			fprintf(f, "  - likely cause: %s\n", s->cause);
		else if (s->cause[0])
			wrap(f, "              likely cause:", s->cause);
		/* orders that disagree where the knees agree: the fit says why */
		if (!s->cause[0] && s->fit[0] && md)
			fprintf(f, "  - orders that disagree, likely cause: %s\n", s->fit);
		else if (!s->cause[0] && s->fit[0])
			wrap(f, "              orders that disagree, likely cause:", s->fit);
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
	/* a VM's file from before placement.regions_pmd: the host term unfitted */
	if (p->regions_missing && md)
		fprintf(f, "\nNote: %s.\n", REGIONS_NOTE);
	else if (p->regions_missing)
		wrap(f, "  note:", REGIONS_NOTE);
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

/* ---- the fleet view (src/analysis/tlb_fleet.h) --------------------------- */

static void fleet_order(int v, char *buf, size_t size)
{
	if (v >= 0)
		snprintf(buf, size, "%d", v);
	else
		snprintf(buf, size, v == TLB_FLEET_PMD_ONLY ? "PMD only" : "unknown");
}

/* The orders any row has entries for, as the table's columns. */
static int fleet_columns(const struct tlb_fleet *fl, int *cols)
{
	int k, i, n = 0;

	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		for (i = 0; i < fl->nr; i++)
			if (fl->rows[i].entries[k]) {
				cols[n++] = k;
				break;
			}
	return n;
}

static void fleet_row(const struct analysis *a, const struct tlb_fleet_row *r, const int *cols,
		      int nc, FILE *f, bool md)
{
	char kn[16], pl[16];
	int c;

	fleet_order(r->knee == a->pmd_order ? TLB_FLEET_PMD_ONLY : r->knee, kn, sizeof(kn));
	fleet_order(r->plateau, pl, sizeof(pl));
	fprintf(f, md ? "| %s | %s | %s | %s |" : "  %-8s %-16s %9s %9s ", r->measured ? "measured" :
		"model", r->measured ? "(this run)" : r->model, kn, pl);
	for (c = 0; c < nc; c++) {
		if (r->entries[cols[c]])
			fprintf(f, md ? " %llu |" : " %7llu", r->entries[cols[c]]);
		else
			fprintf(f, md ? " - |" : " %7s", "-");
	}
	if (!r->available || r->plateau == TLB_FLEET_UNKNOWN)
		fprintf(f, md ? " %s |" : "  (%s)", r->reason);
	else if (md)
		fprintf(f, " |");
	fputc('\n', f);
}

static void fleet_section(const struct analysis *a, const struct tlb_fleet *fl, FILE *f, bool md)
{
	int cols[ANALYZE_NR_ORDERS], nc = fleet_columns(fl, cols), c, i;
	char sp[32], words[512];

	span_words(a, fl->span, sp, sizeof(sp));
	fprintf(f, md ? "\n### Every CPU at once (fleet view, %s)\n\n" :
		"\nEvery CPU at once (fleet view, %s; source: model, but the measured row)\n", sp);
	snprintf(words, sizeof(words), "From this file's %s layouts: each table model's "
		 "predicted knee (the smallest order whose predicted time gain reaches the "
		 "threshold), plateau (the smallest order within %.0f %% of the best predicted "
		 "below PMD) and the entries its last TLB level needs at each order (oN); the "
		 "measured row is this run's.", fl->assumed ? "assumed (each trial's folio "
		 "histogram laid out ideally)" : "measured", 100.0 * ANALYZE_PLATEAU_SHARE);
	if (md)
		fprintf(f, "%s\n\n", words);
	else
		wrap(f, " ", words);
	fprintf(f, md ? "| source | model | knee | plateau |" : "  %-8s %-16s %9s %9s ", "source",
		"model", "knee", "plateau");
	for (c = 0; c < nc; c++) {
		char col[16];

		snprintf(col, sizeof(col), md ? "order %d" : "o%d", cols[c]);
		fprintf(f, md ? " entries %s |" : " %7s", col);
	}
	fprintf(f, md ? " note |\n|---|---|---:|---:|" : "\n");
	for (c = 0; md && c < nc; c++)
		fprintf(f, "---:|");
	if (md)
		fprintf(f, "---|\n");
	for (i = 0; i < fl->nr; i++)
		fleet_row(a, &fl->rows[i], cols, nc, f, md);
}

int report_write_fleet(const struct analysis *a, const struct tlb_prediction *p,
		       const struct tlb_fleet *fleet, enum report_format fmt, FILE *f)
{
	json_t *doc;
	int rc;

	if (fmt != REPORT_JSON) {
		if ((rc = p ? report_write_tlb(a, p, fmt, f) : report_write(a, fmt, f)))
			return rc;
		fleet_section(a, fleet, f, fmt == REPORT_MARKDOWN);
		return ferror(f) ? -EIO : 0;
	}
	doc = report_analysis_json(a);
	if (p)
		json_object_set_new(doc, "tlb_model", tlb_prediction_json(p));
	json_object_set_new(doc, "tlb_fleet", tlb_fleet_json(a, fleet));
	rc = json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(doc);
	fputc('\n', f);
	return rc || ferror(f) ? -EIO : 0;
}
