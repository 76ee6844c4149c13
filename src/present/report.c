// SPDX-License-Identifier: GPL-2.0-or-later
/* Text, markdown and JSON reports of an analysis (report.h). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "mthpscope.h"
#include "program_report.h"
#include "report.h"
#include "run_summary.h"

const char *const report_format_words[] = { "text", "markdown", "json", NULL };
const char *const report_format_aliases[] = { "md", "markdown", NULL };
const char *const analyze_format_words[] = { "text", "markdown", "json", "lkml", NULL };

/* ---- JSON ------------------------------------------------------------------ */

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *interval(double lo, double hi)
{
	if (!isfinite(lo) || !isfinite(hi))
		return json_null();
	return json_pack("[f, f]", lo, hi);
}

static json_t *order_json(const struct analysis *a, const struct analyze_order *o)
{
	json_t *j = json_object();

	json_object_set_new(j, "order", json_integer(o->order));
	json_object_set_new(j, "size_kb",
			    json_integer((json_int_t)((a->res->page_size << o->order) >> 10)));
	json_object_set_new(j, "n", json_integer((json_int_t)o->primary.n));
	json_object_set_new(j, "n_excluded", json_integer((json_int_t)o->n_excluded));
	json_object_set_new(j, "median", num(o->primary.median));
	json_object_set_new(j, "median_ci", interval(o->primary.lo, o->primary.hi));
	json_object_set_new(j, "gain", o->order ? num(o->gain.value) : json_real(0.0));
	json_object_set_new(j, "ci", o->order ? interval(o->gain.lo, o->gain.hi) :
				     json_pack("[f, f]", 0.0, 0.0));
	json_object_set_new(j, "p_value", num(o->p));
	json_object_set_new(j, "p_adjusted", num(o->p_adj));
	json_object_set_new(j, "significant", json_boolean(o->significant));
	json_object_set_new(j, "status", json_string(analyze_status_name(o->status)));
	json_object_set_new(j, "share_of_pmd_gain", num(o->share.value));
	json_object_set_new(j, "share_ci", interval(o->share.lo, o->share.hi));
	json_object_set_new(j, "coverage", num(o->coverage));
	json_object_set_new(j, "page_faults", num(o->faults.median));
	json_object_set_new(j, "fault_saving", num(o->fault_saving.value));
	json_object_set_new(j, "fault_saving_ci", interval(o->fault_saving.lo, o->fault_saving.hi));
	json_object_set_new(j, "sparse_rss_bytes", num(o->rss.median));
	json_object_set_new(j, "bloat", num(o->bloat.value));
	json_object_set_new(j, "bloat_ci", interval(o->bloat.lo, o->bloat.hi));
	/* issue 12: paired statistics and the monotone fit */
	json_object_set_new(j, "n_pairs", json_integer((json_int_t)o->n_pairs));
	json_object_set_new(j, "fitted_gain", num(o->fitted.value));
	json_object_set_new(j, "fitted_ci", interval(o->fitted.lo, o->fitted.hi));
	json_object_set_new(j, "raw_status", json_string(analyze_status_name(o->raw_status)));
	json_object_set_new(j, "monotone_violation", json_boolean(o->violation));
	/* issue 39: placements */
	json_object_set_new(j, "placement_sd", num(o->placement_sd));
	json_object_set_new(j, "round_se", num(o->round_se));
	json_object_set_new(j, "rerun_within", num(o->rerun));
	json_object_set_new(j, "placements", json_integer((json_int_t)o->placements));
	json_object_set_new(j, "placements_gaining",
			    json_integer((json_int_t)o->placements_gaining));
	json_object_set_new(j, "placement_split", json_boolean(o->placement_split));
	return j;
}

/* The recommendation at one span of a sweep (spans[] entries). */
static void span_verdict_json(json_t *j, const struct analyze_span *sp)
{
	json_object_set_new(j, "verdict", sp->analysed ?
			    json_string(analyze_verdict_name(sp->verdict)) : json_null());
	json_object_set_new(j, "min_order", sp->min_order >= 0 ? json_integer(sp->min_order) :
			    json_null());
	json_object_set_new(j, "candidate_order", sp->candidate_order >= 0 ?
			    json_integer(sp->candidate_order) : json_null());
	json_object_set_new(j, "gain", num(sp->gain.value));
	json_object_set_new(j, "gain_ci", interval(sp->gain.lo, sp->gain.hi));
	json_object_set_new(j, "plateau_order", sp->plateau_order >= 0 ?
			    json_integer(sp->plateau_order) : json_null());
	json_object_set_new(j, "plateau_gain", num(sp->plateau_gain.value));
	json_object_set_new(j, "plateau_gain_ci", interval(sp->plateau_gain.lo,
							   sp->plateau_gain.hi));
}

/* recommendation.plateau: where the gain below PMD saturates (plateau.c). */
static json_t *plateau_json(const struct analysis *a)
{
	const struct analyze_plateau *p = &a->plateau;
	json_t *j = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:f, s:s, s:s}",
			      "order", p->order >= 0 ? json_integer(p->order) : json_null(),
			      "gain", num(p->gain.value), "ci", interval(p->gain.lo, p->gain.hi),
			      "share", num(p->share.value), "share_ci",
			      interval(p->share.lo, p->share.hi), "best_order",
			      p->best >= 0 ? json_integer(p->best) : json_null(),
			      "diff_from_best", num(p->diff.value), "diff_ci",
			      interval(p->diff.lo, p->diff.hi), "min_order_share",
			      num(p->min_share.value), "min_order_share_ci",
			      interval(p->min_share.lo, p->min_share.hi), "share_rule",
			      ANALYZE_PLATEAU_SHARE, "rule", p->rule ? p->rule : "none", "reason", p->reason);

	json_object_set_new(j, "what_to_set", p->setting[0] ? json_string(p->setting) :
			    json_null());
	return j;
}

static json_t *monotone_json(const struct analysis *a)
{
	json_t *v = json_array();
	int k;

	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		if (a->orders[k].violation)
			json_array_append_new(v, json_integer(k));
	return json_pack("{s:b, s:o, s:o}", "applied", a->monotone, "violations", v, "warning",
			 a->monotone_warning[0] ? json_string(a->monotone_warning) : json_null());
}

/* "a, b" -> ["a", "b"] */
static json_t *split_list(const char *s)
{
	json_t *arr = json_array();
	const char *p = s;

	while (*p) {
		size_t len = strcspn(p, ",");

		json_array_append_new(arr, json_stringn(p, len));
		p += len;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return arr;
}

/* A signal cut the run: a fixed plan's, or --precision's stop. */
static bool run_interrupted(const struct results *r)
{
	return r->head.interrupted ||
	       (r->head.has_precision && r->head.precision.stop == RESULTS_PREC_INTERRUPTED);
}

/* The method, the placements' line (issue 39), the monotone fit, an
 * interruption and a program's table. */
static void doc_tail(json_t *doc, const struct analysis *a)
{
	struct program_table pt;

	json_object_update_new(doc, json_pack("{s:s, s:s, s:s, s:s, s:b}", "method",
					      analyze_method_name(a->method), "test",
					      analyze_test_name(a->method), "method_note",
					      a->method_note, "placement_note", a->placement_note,
					      "placement_ids", a->has_placement_ids));
	json_object_set_new(doc, "monotone", monotone_json(a));
	if (run_interrupted(a->res))
		json_object_set_new(doc, "interrupted", json_true());
	if (!program_table_build(a, &pt) && pt.available)
		json_object_set_new(doc, "program", program_report_json(a, &pt));
}

static json_t *recommendation_json(const struct analysis *a)
{
	json_t *rec = json_pack("{s:o, s:s, s:s, s:s, s:s, s:s}", "min_order",
				a->min_order >= 0 ? json_integer(a->min_order) : json_null(),
				"verdict", analyze_verdict_name(a->verdict), "reason", a->reason,
				"advice", a->advice, "hardware", a->hardware_note, "khugepaged",
				a->khugepaged_note);

	if (a->candidate_order >= 0)
		json_object_set_new(rec, "candidate_order", json_integer(a->candidate_order));
	json_object_set_new(rec, "span_summary", json_string(a->span_summary));
	json_object_set_new(rec, "plateau_order", a->plateau.order >= 0 ?
			    json_integer(a->plateau.order) : json_null());
	json_object_set_new(rec, "plateau", plateau_json(a));
	return rec;
}

json_t *report_analysis_json(const struct analysis *a)
{
	const struct results *r = a->res;
	json_t *doc, *orders = json_array(), *excl = json_array(), *spans = json_array();
	json_t *metrics = json_array(), *rec;
	size_t i;
	int k, s;

	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		if (a->orders[k].primary.n)
			json_array_append_new(orders, order_json(a, &a->orders[k]));
	for (i = 0; i < a->nr_excluded; i++) {
		const struct analyze_excluded *e = &a->excluded[i];

		json_array_append_new(excl, json_pack("{s:I, s:i, s:I, s:i, s:s}", "trial",
						      (json_int_t)e->trial, "order", e->order,
						      "span", (json_int_t)e->span, "rep", e->rep,
						      "reason", e->reason));
	}
	for (s = 0; s < a->nr_spans; s++) {
		json_t *per = json_array();

		for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
			const struct analyze_stat *st = &a->spans[s].by_order[k];

			if (st->n)
				json_array_append_new(per, json_pack("{s:i, s:I, s:o, s:o}", "order", k,
								     "n", (json_int_t)st->n, "median",
								     num(st->median), "ci",
								     interval(st->lo, st->hi)));
		}
		json_t *sj = json_pack("{s:I, s:o}", "span", (json_int_t)a->spans[s].span,
				       "orders", per);

		span_verdict_json(sj, &a->spans[s]);
		json_array_append_new(spans, sj);
	}
	for (s = 0; s < a->nr_metrics; s++) {
		const struct analyze_metric *m = &a->metrics[s];
		json_t *per = json_array();

		for (k = 0; k < ANALYZE_NR_ORDERS; k++)
			if (m->by_order[k].n)
				json_array_append_new(per, json_pack("{s:i, s:I, s:o, s:o}", "order", k,
								     "n", (json_int_t)m->by_order[k].n,
								     "median", num(m->by_order[k].median),
								     "ci", interval(m->by_order[k].lo,
										    m->by_order[k].hi)));
		json_array_append_new(metrics, json_pack("{s:s, s:s, s:s, s:b, s:b, s:o}", "name",
							 m->name, "source", m->source, "unit",
							 m->unit, "per_access", m->per_access,
							 "sparse", m->sparse, "orders", per));
	}
	rec = recommendation_json(a);
	doc = json_pack("{s:s, s:o, s:{s:s, s:s, s:s, s:s, s:b, s:b, s:i}, s:s, s:I, s:s, s:s, "
			"s:s, s:f, s:f, s:f, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o}",
			"schema", ANALYSIS_SCHEMA, "tool", results_tool_json(),
			"source", "file", r->path, "kernel", r->kernel, "arch", r->arch,
			"cpu_model", r->cpu_model, "virtualized", r->virtualized, "pmu_available",
			r->pmu_available, "pmd_order", r->pmd_order,
			"pattern", a->pattern, "span", (json_int_t)a->span,
			"primary_metric", a->metric, "primary_metric_source", a->metric_source,
			"primary_metric_unit", a->metric_unit,
			"threshold", a->threshold, "alpha", ANALYZE_ALPHA, "level", ANALYZE_LEVEL,
			"trials_used", (json_int_t)a->nr_included, "trials_excluded",
			(json_int_t)a->nr_excluded, "trials_unverified", (json_int_t)a->nr_unverified,
			"other_patterns", split_list(a->other_patterns),
			"orders", orders, "excluded", excl, "spans", spans, "metrics", metrics,
			"recommendation", rec);
	doc_tail(doc, a);
	return doc;
}

/* ---- text and markdown ------------------------------------------------------ */

/* A signed percentage with 'decimals' places, or 'missing'. */
static void fmt_pct(char *b, size_t n, double pct, int decimals, const char *missing)
{
	if (isfinite(pct))
		snprintf(b, n, "%+.*f%%", decimals, pct);
	else
		snprintf(b, n, "%s", missing);
}

static void fmt_ci_pct(char *b, size_t n, const struct analyze_change *c)
{
	if (isfinite(c->lo) && isfinite(c->hi))
		snprintf(b, n, "[%+.1f, %+.1f]", 100.0 * c->lo, 100.0 * c->hi);
	else
		snprintf(b, n, "-");
}

static void fmt_num(char *b, size_t n, double v)
{
	if (isfinite(v))
		snprintf(b, n, "%.4g", v);
	else
		snprintf(b, n, "-");
}

static void fmt_p(char *b, size_t n, double p)
{
	if (!isfinite(p))
		snprintf(b, n, "-");
	else if (p < 0.001)
		snprintf(b, n, "<0.001");
	else
		snprintf(b, n, "%.3f", p);
}

/* Print text wrapped at 78 columns: the first line indented by 'first', the
 * others by 'rest'. */
static void wrap_lines(FILE *f, const char *first, const char *rest, const char *text)
{
	const char *p = text, *ind = first;

	while (*p) {
		size_t width = 78 - strlen(ind), len = strlen(p), cut = len;

		if (len > width) {
			cut = width;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = width;
		}
		fprintf(f, "%s%.*s\n", ind, (int)cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		ind = rest;
	}
}

/* Lines after the first indented. */
static void wrap_hanging(FILE *f, const char *text, const char *indent)
{
	wrap_lines(f, "", indent, text);
}

/* Each line indented. */
static void wrap(FILE *f, const char *indent, const char *text)
{
	wrap_lines(f, indent, indent, text);
}

struct row {
	char order[8], size[8], n[16], median[16], mci[40], gain[16], gci[40], p[16],
		status[24], share[16], faults[16], bloat[16], fit[16];
};

static void make_row(const struct analysis *a, const struct analyze_order *o, struct row *w)
{
	snprintf(w->order, sizeof(w->order), "%d", o->order);
	analyze_order_size(a, o->order, w->size, sizeof(w->size));
	if (o->n_excluded)
		snprintf(w->n, sizeof(w->n), "%zu(-%zu)", o->primary.n, o->n_excluded);
	else
		snprintf(w->n, sizeof(w->n), "%zu", o->primary.n);
	fmt_num(w->median, sizeof(w->median), o->primary.median);
	if (isfinite(o->primary.lo))
		snprintf(w->mci, sizeof(w->mci), "[%.4g, %.4g]", o->primary.lo, o->primary.hi);
	else
		snprintf(w->mci, sizeof(w->mci), "-");
	if (o->order) {
		fmt_pct(w->gain, sizeof(w->gain), 100.0 * o->gain.value, 1, "-");
		fmt_ci_pct(w->gci, sizeof(w->gci), &o->gain);
	} else {
		snprintf(w->gain, sizeof(w->gain), "base");
		snprintf(w->gci, sizeof(w->gci), "-");
	}
	fmt_p(w->p, sizeof(w->p), o->p_adj);
	snprintf(w->status, sizeof(w->status), "%s",
		 o->order ? analyze_status_name(o->status) : "baseline");
	fmt_pct(w->share, sizeof(w->share), 100.0 * o->share.value, 1, "-");
	fmt_pct(w->fit, sizeof(w->fit), 100.0 * (o->order ? o->fitted.value : NAN), 1, "-");
	if (o->violation)
		strcat(w->fit, "!");
	fmt_pct(w->faults, sizeof(w->faults), 100.0 * (o->order ? o->fault_saving.value : NAN), 1,
		"-");
	if (o->order && isfinite(o->bloat.value))
		snprintf(w->bloat, sizeof(w->bloat), "%.3gx", 1.0 + o->bloat.value);
	else
		snprintf(w->bloat, sizeof(w->bloat), "-");
}

static const char *test_words(const struct analysis *a)
{
	return a->method == AN_PAIRED ? "Wilcoxon signed-rank test of the per-round log ratios" :
					"Mann-Whitney";
}

/* A run --precision file: the CI its stop rests on (the rule's level, wider
 * than the 95 % ones analyze gives: src/analysis/precision.h); a run whose
 * plan a signal cut: so; false for other files. */
/* Why a precision run stopped short of its target, as run says it. */
static void stop_reason(const struct results_precision *p, char *buf, size_t size)
{
	const char *w = run_summary_stop_words(p->stop);

	if (*w)
		snprintf(buf, size, " (%s)", w);
	else
		buf[0] = '\0';
}

static bool stop_words(const struct results *r, char *buf, size_t size, const char *lead)
{
	const struct results_precision *p = &r->head.precision;
	char why[64];

	if (r->head.interrupted && !r->head.has_precision) {
		snprintf(buf, size, "%sinterrupted (SIGINT or SIGTERM) before the end of its plan: "
			 "%zu trials, the orders and reps measured by then", lead, r->nr_trials);
		return true;
	}
	if (!r->head.has_precision)
		return false;
	stop_reason(p, why, sizeof(why));
	if (!isfinite(p->half_width)) {
		snprintf(buf, size, "%srun --precision %.1f not reached after %ld reps%s: no look "
			 "could make a CI", lead, 100 * p->target, p->reps, why);
		return true;
	}
	snprintf(buf, size, "%srun --precision %.1f %s after %ld reps%s; the CI the stop rests on "
		 "(order %d) is +/-%.1f points at %.2f %% (Bonferroni over %d looks), wider than "
		 "the 95 %% CIs below", lead, 100 * p->target,
		 p->reached ? "reached" : "not reached", p->reps, why, p->order,
		 100 * p->half_width, 100 * p->level, p->planned_looks);
	return true;
}

/*
 * Below the PMD order a status is read from the monotone fit where it was
 * made (analyze.c monotone_fit): the legend says so, or it would call an
 * order "significant" whose own test is not (a fitted gain resting on a
 * significant gain at a smaller order) and give its own CI as what ruled a
 * gain out. material: how the legend says material.
 */
static void fit_legend(const struct analysis *a, const char *material, char *buf, size_t size)
{
	if (!a->monotone)
		buf[0] = '\0';
	else
		snprintf(buf, size, " (below PMD: the monotone fit %s with its CI above 0, and a "
			 "significant gain at that order or a smaller one)", material);
}

static const char *fit_none_words(const struct analysis *a)
{
	return a->monotone ? " (below PMD, the fit's)" : "";
}

bool report_span_name(const struct analysis *a, uint64_t span, bool gib, char *buf, size_t size)
{
	if (!strcmp(a->pattern, "command")) {
		snprintf(buf, size, "- (a command)");
		return true;
	}
	if (gib && span >= (1ull << 30) && !(span % (1ull << 30)))
		snprintf(buf, size, "%llu GiB", (unsigned long long)(span >> 30));
	else
		snprintf(buf, size, "%llu MiB", (unsigned long long)(span >> 20));
	return false;
}

/* " (virtual machine)", or for QEMU TCG " (emulated CPU, QEMU TCG)": its
 * times are the emulator's, not a machine's */
static const char *machine_words(const struct results *r)
{
	return r->emulated ? " (emulated CPU, QEMU TCG)" : r->virtualized ? " (virtual machine)" : "";
}

static void header(const struct analysis *a, const struct program_table *pt, FILE *f, bool md)
{
	const struct results *r = a->res;
	char span[32], line[640], material[16], fit[160], largest[160] = "";
	const char *lower = a->higher_better ? "" : "; lower is better";
	const char *gain = a->higher_better ? "rise over the order-0 value"
					    : "share of the order-0 value saved";

	report_span_name(a, a->span, false, span, sizeof(span));
	if (pt->available)
		program_report_largest(a, pt, largest, sizeof(largest));
	if (md) {
		fit_legend(a, "material", fit, sizeof(fit));
		fprintf(f, "## mthpscope analysis: %s\n\n", r->path);
		fprintf(f, "- Host: Linux %s, %s, %s%s; PMU: %s\n", r->kernel, r->arch,
			r->cpu_model[0] ? r->cpu_model : "unknown CPU", machine_words(r),
			r->pmu_available ? "available" : "none");
		fprintf(f, "- Trials: %zu used, %zu excluded (all spans and sparse trials); the "
			"verdict rests on pattern `%s` at span %s%s\n", a->nr_included,
			a->nr_excluded, a->pattern, span, a->nr_spans > 1 && a->span == a->spans[a->nr_spans - 1].span ?
			" (the largest)" : "");
		fprintf(f, "- Primary metric: `%s` (%s, %s%s). Gain = %s, 95 %% bootstrap CI; "
			"p = two-sided %s vs order 0, Holm-adjusted; material = at least %.0f %%; "
			"status gain = significant and material%s, none = the CI%s rules a material "
			"gain out.\n", a->metric, a->metric_source, a->metric_unit, lower, gain,
			test_words(a), 100.0 * a->threshold, fit, fit_none_words(a));
		if (largest[0])
			fprintf(f, "- Largest material gain of the program: %s.\n", largest);
		fprintf(f, "- Method: %s.\n", a->method_note);
		if (stop_words(r, line, sizeof(line), "- Stop: "))
			fprintf(f, "%s.\n", line);
		fputc('\n', f);
		return;
	}
	fprintf(f, "mthpscope analysis of %s\n", r->path);
	fprintf(f, "host:    Linux %s, %s, %s%s\n", r->kernel, r->arch,
		r->cpu_model[0] ? r->cpu_model : "unknown CPU", machine_words(r));
	snprintf(line, sizeof(line), "PMU:     %s", r->pmu_available ? "available" :
		 (r->pmu_reason[0] ? r->pmu_reason : "none"));
	wrap_hanging(f, line, "         ");
	fprintf(f, "trials:  %zu used, %zu excluded (all spans and sparse trials)\n",
		a->nr_included, a->nr_excluded);
	fprintf(f, "verdict: on pattern %s at span %s%s\n", a->pattern, span,
		a->nr_spans > 1 && a->span == a->spans[a->nr_spans - 1].span ?
			" (the largest)" : "");
	fprintf(f, "metric:  %s (%s, %s%s)\n", a->metric, a->metric_source, a->metric_unit, lower);
	if (largest[0])
		fprintf(f, "largest: %s\n", largest);
	snprintf(line, sizeof(line), "method:  %s.", a->method_note);
	wrap_hanging(f, line, "         ");
	snprintf(material, sizeof(material), ">= %.0f %%", 100.0 * a->threshold);
	fit_legend(a, material, fit, sizeof(fit));
	snprintf(line, sizeof(line), "gain:    %s%s, 95 %% "
		 "bootstrap CI; p: two-sided %s vs order 0, Holm-adjusted; status gain = "
		 "significant and %s%s, none = the CI%s rules that out, unclear = neither",
		 gain, a->method == AN_PAIRED ? " (1 - exp(10 % trimmed mean of the per-round log ratios))" : "",
		 test_words(a), material, fit, fit_none_words(a));
	wrap_hanging(f, line, "         ");
	if (stop_words(r, line, sizeof(line), "stop:    "))
		wrap_hanging(f, line, "         ");
	fputc('\n', f);
}

static void table(const struct analysis *a, FILE *f, bool md)
{
	int k;

	if (md)
		fprintf(f, "| order | size | n | median | 95%% CI | gain | gain 95%% CI | p (Holm) "
			"| status | monotone fit | share of PMD gain | faults saved | sparse RSS vs "
			"order 0 |\n"
			"|---:|---:|---:|---:|---|---:|---|---:|---|---:|---:|---:|---:|\n");
	else
		fprintf(f, "%5s %5s %6s %9s %7s %16s %8s %8s %7s %7s %7s %7s\n", "order", "size",
			"n", "median", "gain", "gain CI (%)", "p(Holm)", "status", "fit", "PMD",
			"faults", "sparse");
	for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
		const struct analyze_order *o = &a->orders[k];
		struct row w;

		if (!o->primary.n)
			continue;
		make_row(a, o, &w);
		if (md)
			fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				w.order, w.size, w.n, w.median, w.mci, w.gain, w.gci, w.p,
				w.status, w.fit, w.share, w.faults, w.bloat);
		else
			fprintf(f, "%5s %5s %6s %9s %7s %16s %8s %8s %7s %7s %7s %7s\n", w.order,
				w.size, w.n, w.median, w.gain, w.gci, w.p, w.status, w.fit, w.share,
				w.faults, w.bloat);
	}
	if (!md)
		fprintf(f, "n(-k): k trials excluded; fit: monotone (isotonic) fit of the gain "
			"below PMD,\n! = the raw gain's CI excludes it; PMD: share of the PMD gain; "
			"faults: page\nfaults saved; sparse: RSS of the sparse trials as a multiple "
			"of order 0's\n");
	fprintf(f, "\n");
}

/* A paragraph: wrapped for a terminal, one line for markdown. */
static void paragraph(FILE *f, bool md, const char *text)
{
	if (md)
		fprintf(f, "%s\n\n", text);
	else {
		wrap(f, "", text);
		fputc('\n', f);
	}
}

/* The recommendation per working-set size (a sweep). */
static void span_table(const struct analysis *a, FILE *f, bool md)
{
	int s;

	if (a->nr_spans < 2)
		return;
	if (md)
		fprintf(f, "**Per working-set size** (each span from its own trials):\n\n"
			"| span | verdict | min_order | gain of min_order | 95%% CI | plateau_order |\n"
			"|---:|---|---:|---:|---|---:|\n");
	else
		fprintf(f, "Per working-set size (each span from its own trials):\n"
			"%10s %-13s %9s %7s %16s %8s\n", "span", "verdict", "min_order", "gain",
			"gain CI (%)", "plateau");
	for (s = 0; s < a->nr_spans; s++) {
		const struct analyze_span *sp = &a->spans[s];
		char span[24], mo[16], g[16], ci[40], pl[16] = "-";

		snprintf(span, sizeof(span), "%llu MiB", (unsigned long long)(sp->span >> 20));
		if (sp->min_order >= 0)
			snprintf(mo, sizeof(mo), "%d", sp->min_order);
		else if (sp->candidate_order >= 0)
			snprintf(mo, sizeof(mo), "(%d?)", sp->candidate_order);
		else
			snprintf(mo, sizeof(mo), "-");
		fmt_pct(g, sizeof(g), 100.0 * sp->gain.value, 1, "-");
		fmt_ci_pct(ci, sizeof(ci), &sp->gain);
		if (sp->plateau_order >= 0)
			snprintf(pl, sizeof(pl), "%d", sp->plateau_order);
		if (md)
			fprintf(f, "| %s | %s | %s | %s | %s | %s |\n", span, sp->analysed ?
				analyze_verdict_name(sp->verdict) : "-", mo, g, ci, pl);
		else
			fprintf(f, "%10s %-13s %9s %7s %16s %8s\n", span, sp->analysed ?
				analyze_verdict_name(sp->verdict) : "-", mo, g, ci, pl);
	}
	fputc('\n', f);
	if (a->span_summary[0])
		paragraph(f, md, a->span_summary);
}

static void notes(const struct analysis *a, FILE *f, bool md)
{
	char buf[512];
	size_t i;

	if (a->monotone_warning[0]) {
		char warn[sizeof(a->monotone_warning) + 16];

		snprintf(warn, sizeof(warn), "%s %s", md ? "**Warning:**" : "Warning:",
			 a->monotone_warning);
		paragraph(f, md, warn);
	}
	span_table(a, f, md);
	if (a->placement_note[0]) {
		char pn[sizeof(a->placement_note) + 2];

		snprintf(pn, sizeof(pn), "%s.", a->placement_note);
		paragraph(f, md, pn);
	}

	if (a->sparse_span)
		snprintf(buf, sizeof(buf), "Cost side: faults saved = fewer page faults than order "
			 "0 in the dense trials; sparse = RSS of the sparse trials (span %llu MiB, "
			 "a few pages touched per stride) as a multiple of order 0's RSS.",
			 (unsigned long long)(a->sparse_span >> 20));
	else
		snprintf(buf, sizeof(buf), "Cost side: no sparse trials, so no RSS bloat "
			 "figure%s.", a->orders[0].faults.n ? "" : "; no page_faults metric either");
	paragraph(f, md, buf);
	if (a->other_patterns[0]) {
		snprintf(buf, sizeof(buf), "Also in the file, not analysed here: pattern(s) %s. "
			 "The verdict rests on pattern %s alone.", a->other_patterns, a->pattern);
		paragraph(f, md, buf);
	}
	if (a->nr_unverified) {
		snprintf(buf, sizeof(buf), "%zu trials carry no folio verification (a run "
			 "without root cannot read PFNs): their folio order is assumed, not "
			 "proven.", a->nr_unverified);
		paragraph(f, md, buf);
	}
	if (a->nr_excluded) {
		fprintf(f, "%s\n", md ? "**Excluded trials:**\n" : "Excluded trials:");
		for (i = 0; i < a->nr_excluded; i++) {
			const struct analyze_excluded *e = &a->excluded[i];
			char sp[32];

			/* a command's trial has no span: not "span 0 MiB" */
			if (report_span_name(a, e->span, false, sp, sizeof(sp)))
				fprintf(f, "%s trial %zu (order %d, rep %d): %s\n", md ? "-" : " ",
					e->trial, e->order, e->rep, e->reason);
			else
				fprintf(f, "%s trial %zu (order %d, span %s, rep %d): %s\n",
					md ? "-" : " ", e->trial, e->order, sp, e->rep, e->reason);
		}
		fprintf(f, "\n");
	}
}

/* What to set (the plateau's sentence) and why, or why no plateau is claimed. */
static void plateau_words(const struct analysis *a, FILE *f, bool md)
{
	const struct analyze_plateau *p = &a->plateau;
	char buf[sizeof(p->reason) + sizeof(p->setting) + 160], g[16], ci[40];

	if (p->order < 0) {
		snprintf(buf, sizeof(buf), "Plateau: none claimed (%s).", p->reason);
	} else {
		fmt_pct(g, sizeof(g), 100.0 * p->gain.value, 1, "n/a");
		fmt_ci_pct(ci, sizeof(ci), &p->gain);
		snprintf(buf, sizeof(buf), "%s%s.%s Plateau: order %d gains %s %s; %s.",
			 md ? "**" : "", p->setting, md ? "**" : "", p->order, g, ci, p->reason);
	}
	if (md)
		fprintf(f, "%s\n\n", buf);
	else
		wrap(f, "  ", buf);
}

/* The verdict line, then its notes: the reason always, the others where
 * there are any; markdown paragraphs (the advice in italics) or text
 * wrapped under the line. */
static void recommendation(const struct analysis *a, FILE *f, bool md)
{
	const char *const notes[] = { a->reason, a->hardware_note, a->khugepaged_note, a->advice };
	size_t i;

	fprintf(f, md ? "### Recommendation: **%s**" : "recommendation: %s",
		analyze_verdict_name(a->verdict));
	if (a->min_order >= 0)
		fprintf(f, md ? ", min_order **%d**" : ", min_order %d", a->min_order);
	else if (!md)
		fprintf(f, ", min_order none");
	if (a->plateau.order >= 0)
		fprintf(f, md ? ", plateau_order **%d**" : ", plateau_order %d", a->plateau.order);
	else if (!md)
		fprintf(f, ", plateau_order none");
	fprintf(f, md ? "\n\n" : "\n");
	plateau_words(a, f, md);
	for (i = 0; i < sizeof(notes) / sizeof(notes[0]); i++) {
		if (i && !notes[i][0])
			continue;
		if (!md)
			wrap(f, "  ", notes[i]);
		else if (notes[i] == a->advice)
			fprintf(f, "*%s*\n", notes[i]);
		else
			fprintf(f, "%s\n\n", notes[i]);
	}
}

int report_write(const struct analysis *a, enum report_format fmt, FILE *f)
{
	struct program_table pt;
	int rc;

	if (fmt == REPORT_JSON) {
		json_t *doc = report_analysis_json(a);
		rc = json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10));

		json_decref(doc);
		fputc('\n', f);
		return rc || ferror(f) ? -EIO : 0;
	}
	if ((rc = program_table_build(a, &pt)))
		return rc;
	if (fmt == REPORT_LKML && pt.available)
		return program_report_write(a, &pt, fmt, f);
	if (fmt == REPORT_LKML)
		fmt = REPORT_TEXT; /* a micro-kernel run: its own table */
	header(a, &pt, f, fmt == REPORT_MARKDOWN);
	table(a, f, fmt == REPORT_MARKDOWN);
	if ((rc = program_report_write(a, &pt, fmt, f)))
		return rc;
	notes(a, f, fmt == REPORT_MARKDOWN);
	recommendation(a, f, fmt == REPORT_MARKDOWN);
	return ferror(f) ? -EIO : 0;
}

/* ---- compare: the mthpscope.compare/1 document, text, markdown, lkml ---- */

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A row's CI as [lo, hi], null when it was not computable. */
static json_t *ci_json(double lo, double hi)
{
	return isfinite(lo) && isfinite(hi) ? json_pack("[f, f]", lo, hi) : json_null();
}

/* A gain row's runs a side, and whether the run-to-run part of each side's
 * variance was estimated from its runs or assumed (gain_run_sd). */
static void run_fields(json_t *j, const struct compare_gain_row *g)
{
	json_object_set_new(j, "runs_a", json_integer((json_int_t)g->runs_a));
	json_object_set_new(j, "runs_b", json_integer((json_int_t)g->runs_b));
	json_object_set_new(j, "run_to_run_a",
			    json_string(g->run_sd_estimated_a ? "estimated" :
					g->run_sd_placements_a ? "placements" : "assumed"));
	json_object_set_new(j, "run_to_run_b",
			    json_string(g->run_sd_estimated_b ? "estimated" :
					g->run_sd_placements_b ? "placements" : "assumed"));
}

/* The gain rows: each file's gain against its own order 0, and their difference. */
static json_t *compare_gains_json(const struct compare_report *r)
{
	json_t *gains = json_array();
	size_t i;

	for (i = 0; i < r->nr_gains; i++) {
		const struct compare_gain_row *g = &r->gains[i];

		json_array_append_new(
			gains, json_pack("{s:s, s:s, s:i, s:I, s:s, s:s?, s:s, s:I, s:I, s:o, s:o, "
					 "s:o, s:o, s:o, s:o, s:b, s:s, s:s}",
					 "pattern", g->pattern, "metric", g->metric, "order",
					 g->order, "span", (json_int_t)g->span, "paired_by",
					 g->paired_by, "file", r->inputs[g->other].label, "better",
					 compare_dir_name(g->dir), "n_a", (json_int_t)g->na, "n_b",
					 (json_int_t)g->nb, "gain_a_pct", num_or_null(g->gain_a),
					 "gain_b_pct", num_or_null(g->gain_b), "diff_points",
					 num_or_null(g->diff), "ci", ci_json(g->ci_lo, g->ci_hi),
					 "p_value", num_or_null(g->p_value), "p_holm",
					 num_or_null(g->p_holm), "significant", g->significant,
					 "verdict", compare_verdict_name(g->verdict), "test",
					 "Welch t test of the mean log ratios with the run-to-run "
					 "part: assumed (gain_run_sd) for a side of one run, from the "
					 "spread of the runs' gains for a side of several; "
					 "two-sided; Holm over the gain rows of each pair"));
		run_fields(json_array_get(gains, i), g);
	}
	return gains;
}

static size_t nr_runs(const struct compare_input *in)
{
	return in->nr_runs > 1 ? in->nr_runs : 1;
}

/* Whether a side of the report pools several runs. */
static bool any_runs(const struct compare_report *r)
{
	size_t i;

	for (i = 0; i < r->nr_inputs; i++)
		if (nr_runs(&r->inputs[i]) > 1)
			return true;
	return false;
}

json_t *report_compare_json(const struct compare_report *r)
{
	json_t *doc, *warnings = json_array(), *rows = json_array(), *others = json_array();
	size_t i;

	for (i = 0; i < r->nr_warnings; i++)
		json_array_append_new(warnings, json_string(r->warnings[i]));
	for (i = 1; i < r->nr_inputs; i++)
		json_array_append_new(others, json_pack("{s:s?, s:s?, s:I}", "file",
							r->inputs[i].label, "kernel",
							r->inputs[i].kernel, "runs",
							(json_int_t)nr_runs(&r->inputs[i])));
	for (i = 0; i < r->nr_rows; i++) {
		const struct compare_row *w = &r->rows[i];

		json_array_append_new(
			rows, json_pack("{s:i, s:s, s:o, s:o, s:o, s:o, s:o, s:b, s:I, s:s?, s:I, s:I, "
					"s:o, s:s, s:s, s:s}",
					"order", w->order, "metric", w->metric, "a", num_or_null(w->a),
					"b", num_or_null(w->b), "delta_pct", num_or_null(w->delta_pct),
					"ci", ci_json(w->ci_lo, w->ci_hi), "p_value",
					num_or_null(w->p_value), "significant", w->significant,
					"span", (json_int_t)w->span, "file",
					r->inputs[w->other].label, "n_a", (json_int_t)w->na, "n_b",
					(json_int_t)w->nb, "p_holm", num_or_null(w->p_holm), "better",
					compare_dir_name(w->dir), "verdict",
					compare_verdict_name(w->verdict), "pattern", w->pattern));
		json_object_set_new(json_array_get(rows, i), "drift_prone",
				    json_boolean(w->drift_prone));
	}
	doc = json_pack("{s:s, s:o, s:b, s:o, s:{s:s?, s:s?, s:I}, s:o, s:f, s:f, s:s, s:o}",
			"schema", COMPARE_SCHEMA, "tool", results_tool_json(), "comparable",
			r->comparable, "warnings",
			warnings, "baseline", "file", r->inputs[0].label, "kernel",
			r->inputs[0].kernel, "runs", (json_int_t)nr_runs(&r->inputs[0]),
			"others", others, "alpha", r->alpha, "ci_level", r->ci_level, "test",
			"Mann-Whitney U, two-sided; significance after Holm correction per pair",
			"rows", rows);
	json_object_set_new(doc, "gains", compare_gains_json(r));
	return doc;
}

static void fmt_value(double v, char *buf, size_t size)
{
	if (isfinite(v))
		snprintf(buf, size, "%.2f", v);
	else
		snprintf(buf, size, "n/a");
}

static void fmt_ci(double lo, double hi, char *buf, size_t size)
{
	if (isfinite(lo) && isfinite(hi))
		snprintf(buf, size, "[%+.2f, %+.2f]", lo, hi);
	else
		snprintf(buf, size, "n/a");
}

static void fmt_p_holm(double p_holm, bool significant, char *buf, size_t size)
{
	if (isnan(p_holm))
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, "%.4f%s", p_holm, significant ? " *" : "");
}

static void fmt_span(unsigned long long span, char *buf, size_t size)
{
	ms_format_size(span, buf, size);
}

static void write_pair_head(const struct compare_report *r, size_t other, FILE *f,
			    const char *prefix)
{
	const struct compare_input *a = &r->inputs[0], *b = &r->inputs[other];

	fprintf(f, "%s%s (%s", prefix, b->label, compare_kernel_name(b));
	if (nr_runs(b) > 1)
		fprintf(f, "; %zu runs", nr_runs(b));
	fprintf(f, ") against the baseline %s (%s", a->label, compare_kernel_name(a));
	if (nr_runs(a) > 1)
		fprintf(f, "; %zu runs", nr_runs(a));
	fputc(')', f);
	if (r->single_pattern && r->nr_rows)
		fprintf(f, ", pattern %s", r->rows[0].pattern);
	fputc('\n', f);
}

static void fmt_metric(const struct compare_report *r, const struct compare_row *w, char *buf,
		       size_t size)
{
	if (r->single_pattern)
		snprintf(buf, size, "%s", w->metric);
	else
		snprintf(buf, size, "%s:%s", w->pattern, w->metric);
}

/* The cells of one compare row, as the text and markdown tables print them. */
struct row_cells {
	char va[32], vb[32], d[32], ci[64], p[32], sp[32], m[96];
};

static void fmt_row_cells(const struct compare_report *r, const struct compare_row *w,
			  struct row_cells *c)
{
	fmt_value(w->a, c->va, sizeof(c->va));
	fmt_value(w->b, c->vb, sizeof(c->vb));
	fmt_pct(c->d, sizeof(c->d), w->delta_pct, 2, "n/a");
	fmt_ci(w->ci_lo, w->ci_hi, c->ci, sizeof(c->ci));
	fmt_p_holm(w->p_holm, w->significant, c->p, sizeof(c->p));
	fmt_span(w->span, c->sp, sizeof(c->sp));
	fmt_metric(r, w, c->m, sizeof(c->m));
}

/* The cells of one gain row, as the text and markdown tables print them. */
struct gain_cells {
	char m[96], sp[32], n[48], ga[32], gb[32], d[32], ci[64], p[32];
};

static void fmt_gain_cells(const struct compare_report *r, const struct compare_gain_row *g,
			   struct gain_cells *c)
{
	struct compare_row key = { .metric = g->metric, .pattern = g->pattern };

	fmt_metric(r, &key, c->m, sizeof(c->m));
	fmt_span(g->span, c->sp, sizeof(c->sp));
	snprintf(c->n, sizeof(c->n), "%zu/%zu %s", g->na, g->nb, g->paired_by);
	fmt_pct(c->ga, sizeof(c->ga), g->gain_a, 1, "n/a");
	fmt_pct(c->gb, sizeof(c->gb), g->gain_b, 1, "n/a");
	snprintf(c->d, sizeof(c->d), "%+.2f", g->diff);
	fmt_ci(g->ci_lo, g->ci_hi, c->ci, sizeof(c->ci));
	fmt_p_holm(g->p_holm, g->significant, c->p, sizeof(c->p));
}

/*
 * One table of a compare report, row by row: 'head' before the first row of
 * each pair (first: of the whole table), 'row' for each row. The text and
 * markdown writers of the gain rows and of the absolute rows are four of
 * these.
 */
struct rows_pass {
	const struct compare_report *r;
	FILE *f;
	int mw; /* text: the metric column's width */
	void (*head)(const struct rows_pass *p, size_t other, bool first);
	void (*row)(const struct rows_pass *p, size_t i);
};

static int gain_pair(const struct compare_report *r, size_t i)
{
	return r->gains[i].other;
}

static int row_pair(const struct compare_report *r, size_t i)
{
	return r->rows[i].other;
}

/* Rows 0..n-1 of pair 'only' (-1: of every pair, in the report's order, which
 * groups them by pair). True when a row was written. */
static bool each_row(const struct rows_pass *p, size_t n,
		     int (*pair_of)(const struct compare_report *r, size_t i), int only)
{
	int last = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		int other = pair_of(p->r, i);

		if (only >= 0 && other != only)
			continue;
		if (other != last)
			p->head(p, (size_t)other, last < 0);
		last = other;
		p->row(p, i);
	}
	return last >= 0;
}

static void gains_text_head(const struct rows_pass *p, size_t other, bool first)
{
	bool runs = any_runs(p->r);

	(void)other, (void)first;
	fprintf(p->f, "gains against each file's own order 0 (drift-proof): share of order 0's "
		      "value saved, paired within the file; %sdiff = B - A in points, %.0f%% Welch "
		      "CI %s; p: its t test, Holm-adjusted, * below %.2g\n",
		runs ? "a side of several runs: the gain of its runs' mean log ratio; " : "",
		p->r->ci_level * 100,
		runs ? "from the spread of the runs' gains (a side of one run: its reps plus the "
		       "assumed run-to-run part)" : "over the reps plus the run-to-run part",
		p->r->alpha);
	fprintf(p->f, "%-*s %5s %6s %18s %8s %8s %8s %18s %10s  %s\n", p->mw, "metric", "order",
		"span", "pairs A/B", "gain A", "gain B", "diff", "CI", "p", "verdict");
}

static void gains_text_row(const struct rows_pass *p, size_t i)
{
	const struct compare_gain_row *g = &p->r->gains[i];
	struct gain_cells c;

	fmt_gain_cells(p->r, g, &c);
	fprintf(p->f, "%-*s %5d %6s %18s %8s %8s %8s %18s %10s  %s\n", p->mw, c.m, g->order, c.sp,
		c.n, c.ga, c.gb, c.d, c.ci, c.p, compare_verdict_name(g->verdict));
}

static bool any_drift_prone(const struct compare_report *r)
{
	size_t i;

	for (i = 0; i < r->nr_rows; i++)
		if (r->rows[i].drift_prone)
			return true;
	return false;
}

/* A pair's head, its gain table, then its absolute rows' head. */
static void rows_text_head(const struct rows_pass *p, size_t other, bool first)
{
	const struct rows_pass gains = { p->r, p->f, p->mw, gains_text_head, gains_text_row };

	if (!first)
		fputc('\n', p->f);
	write_pair_head(p->r, other, p->f, "");
	if (each_row(&gains, p->r->nr_gains, gain_pair, (int)other))
		fputc('\n', p->f);
	fprintf(p->f, "medians; delta = (B - A) / A; %.0f%% bootstrap CI of delta; p: "
		      "Mann-Whitney U, Holm-adjusted, * below %.2g\n",
		p->r->ci_level * 100, p->r->alpha);
	fprintf(p->f, "%-*s %5s %6s %12s %12s %9s %20s %10s  %s\n", p->mw, "metric", "order",
		"span", "A", "B", "delta", "CI", "p", "verdict");
}

static void rows_text_row(const struct rows_pass *p, size_t i)
{
	const struct compare_row *w = &p->r->rows[i];
	struct row_cells c;

	fmt_row_cells(p->r, w, &c);
	fprintf(p->f, "%-*s %5d %6s %12s %12s %9s %20s %10s  %s%s%s\n", p->mw, c.m, w->order, c.sp,
		c.va, c.vb, c.d, c.ci, c.p, compare_verdict_name(w->verdict),
		w->drift_prone ? " ~" : "",
		w->dir == COMPARE_DIR_NONE ? " (no better direction)" : "");
}

static void write_compare_text(const struct compare_report *r, FILE *f)
{
	struct rows_pass p = { r, f, 6, rows_text_head, rows_text_row };
	size_t i;

	for (i = 0; i < r->nr_rows; i++) {
		char m[96];
		int n;

		fmt_metric(r, &r->rows[i], m, sizeof(m));
		n = (int)strlen(m);
		p.mw = n > p.mw ? n : p.mw;
	}
	each_row(&p, r->nr_rows, row_pair, -1);
	if (any_drift_prone(r))
		fprintf(f, "~ drift-prone: an absolute time or cycle count moves with the machine "
			   "between runs (load, frequency, a VM host's share), so these rows can "
			   "flag drift; the gain rows are the drift-proof test\n");
}

static void gains_md_head(const struct rows_pass *p, size_t other, bool first)
{
	(void)other, (void)first;
	fprintf(p->f, "\nGains against each file's own order 0 (drift-proof; diff = B - A in "
		      "points%s):\n\n| metric | order | span | pairs A/B | gain A | gain B | diff | "
		      "%.0f %% CI | p (Holm) | verdict |\n"
		      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
		any_runs(p->r) ? "; a side of several runs: the gain of its runs' mean log ratio, and the "
				 "CI from their spread" : "",
		p->r->ci_level * 100);
}

static void gains_md_row(const struct rows_pass *p, size_t i)
{
	const struct compare_gain_row *g = &p->r->gains[i];
	struct gain_cells c;

	fmt_gain_cells(p->r, g, &c);
	fprintf(p->f, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.m, g->order,
		c.sp, c.n, c.ga, c.gb, c.d, c.ci, c.p,
		g->significant ? compare_verdict_name(g->verdict) : "");
}

static void rows_md_head(const struct rows_pass *p, size_t other, bool first)
{
	const struct rows_pass gains = { p->r, p->f, 0, gains_md_head, gains_md_row };

	if (!first)
		fputc('\n', p->f);
	write_pair_head(p->r, other, p->f, "### ");
	each_row(&gains, p->r->nr_gains, gain_pair, (int)other);
	fprintf(p->f, "\n| metric | order | span | A median | B median | delta | %.0f %% CI | "
		      "p (Holm) | verdict |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n",
		p->r->ci_level * 100);
}

static void rows_md_row(const struct rows_pass *p, size_t i)
{
	const struct compare_row *w = &p->r->rows[i];
	struct row_cells c;

	fmt_row_cells(p->r, w, &c);
	fprintf(p->f, "| %s%s | %d | %s | %s | %s | %s | %s | %s | %s |\n", c.m,
		w->drift_prone ? " ~" : "", w->order, c.sp, c.va, c.vb, c.d, c.ci, c.p,
		w->significant ? compare_verdict_name(w->verdict) : "");
}

static void write_compare_markdown(const struct compare_report *r, FILE *f)
{
	const struct rows_pass p = { r, f, 0, rows_md_head, rows_md_row };

	each_row(&p, r->nr_rows, row_pair, -1);
	if (r->nr_rows)
		fprintf(f, "\ndelta = (B - A) / A of the medians; p: Mann-Whitney U, two-sided, "
			   "Holm-adjusted over each table; verdict when p < %.2g.%s\n", r->alpha,
			any_drift_prone(r) ? " ~ drift-prone: an absolute time moves with the "
					     "machine between runs; the gain rows are the "
					     "drift-proof test." : "");
}

/* lkml: the MMTests compare-kernels layout mm developers know from cover
 * letters. Percentages there are gains (positive is better), and a
 * significant difference is framed by '*' instead of parentheses. */

/* A cell of the lkml table: the same order, span, metric and pattern. */
#define SAME_CELL(w, k)                                                                   \
	((w)->order == (k)->order && (w)->span == (k)->span &&                            \
	 !strcmp((w)->metric, (k)->metric) && !strcmp((w)->pattern, (k)->pattern))

/* find_row(), find_gain(): the row of input 'other' in key's cell, or NULL */
#define DEFINE_FIND_CELL(name, type, rows, nr_rows)                                       \
	static const type *name(const struct compare_report *r, size_t other,             \
				const type *key)                                          \
	{                                                                                 \
		size_t i;                                                                 \
                                                                                          \
		for (i = 0; i < r->nr_rows; i++)                                          \
			if ((size_t)r->rows[i].other == other && SAME_CELL(&r->rows[i], key)) \
				return &r->rows[i];                                       \
		return NULL;                                                              \
	}

DEFINE_FIND_CELL(find_row, struct compare_row, rows, nr_rows)
DEFINE_FIND_CELL(find_gain, struct compare_gain_row, gains, nr_gains)

static double row_gain_pct(const struct compare_row *w)
{
	/* + 0.0: no "-0.00%" for an unchanged lower-is-better metric */
	return (w->dir == COMPARE_DIR_LOWER ? -w->delta_pct : w->delta_pct) + 0.0;
}

static void lkml_label(const struct compare_report *r, const struct compare_row *w, char *buf,
		       size_t size)
{
	char sp[32] = "";

	if (!r->single_span) {
		sp[0] = '-';
		fmt_span(w->span, sp + 1, sizeof(sp) - 1);
	}
	snprintf(buf, size, "%s%s%s-o%d%s", r->single_pattern ? "" : w->pattern,
		 r->single_pattern ? "" : "-", w->metric, w->order, sp);
}

static void lkml_cell(const struct compare_row *w, bool baseline, int vw, char *buf, size_t size)
{
	char v[32];
	double g;

	if (!w) {
		snprintf(buf, size, "%*s %10s", vw, "n/a", "");
		return;
	}
	fmt_value(baseline ? w->a : w->b, v, sizeof(v));
	g = baseline ? 0.0 : row_gain_pct(w);
	if (!isfinite(g))
		snprintf(buf, size, "%*s (    n/a)", vw, v);
	else if (!baseline && w->significant)
		snprintf(buf, size, "%*s *%7.2f%%*", vw, v, g);
	else
		snprintf(buf, size, "%*s (%7.2f%%)", vw, v, g);
}

/* The kernel names, then the file labels where they add something (files
 * named after their kernels, as scripts/kernel-ab.sh writes, give one row). */
static void lkml_header(const struct compare_report *r, FILE *f, int lw, int cw)
{
	bool labels = false;
	size_t i;

	for (i = 0; i < r->nr_inputs; i++)
		labels |= strcmp(r->inputs[i].label, compare_kernel_name(&r->inputs[i])) != 0;
	fprintf(f, "%-6s %-*s", "", lw, "");
	for (i = 0; i < r->nr_inputs; i++)
		fprintf(f, "  %*s", cw, compare_kernel_name(&r->inputs[i]));
	fputc('\n', f);
	if (!labels)
		return;
	fprintf(f, "%-6s %-*s", "", lw, "");
	for (i = 0; i < r->nr_inputs; i++)
		fprintf(f, "  %*s", cw, r->inputs[i].label);
	fputc('\n', f);
}

/* The gain rows first (the drift-proof answer to an mTHP question): each
 * file's gain against its own order 0, and in parentheses its difference in
 * points from the baseline's. */
static void lkml_gains(const struct compare_report *r, FILE *f, int lw, int vw)
{
	size_t i, k;
	char buf[128], v[32];

	for (k = 0; k < r->nr_gains; k++) {
		const struct compare_gain_row *g0 = &r->gains[k];
		struct compare_row key = { .pattern = g0->pattern, .metric = g0->metric,
					   .order = g0->order, .span = g0->span };

		if (g0->other != 1)
			continue;
		lkml_label(r, &key, buf, sizeof(buf));
		fprintf(f, "%-6s %-*s", "Gain", lw, buf);
		snprintf(v, sizeof(v), "%.2f%%", g0->gain_a);
		fprintf(f, "  %*s (%7.2f) ", vw, v, 0.0);
		for (i = 1; i < r->nr_inputs; i++) {
			const struct compare_gain_row *g = find_gain(r, i, g0);

			if (!g) {
				fprintf(f, "  %*s %10s", vw, "n/a", "");
				continue;
			}
			snprintf(v, sizeof(v), "%.2f%%", g->gain_b);
			if (g->significant)
				fprintf(f, "  %*s *%+7.2f*", vw, v, g->diff + 0.0);
			else
				fprintf(f, "  %*s (%+7.2f)", vw, v, g->diff + 0.0);
		}
		fputc('\n', f);
	}
}

/* analyze's two orders per side: "min_order/plateau_order" (where given). */
static void lkml_orders(const struct compare_report *r, FILE *f, int lw, int cw)
{
	char buf[32];
	size_t i;

	for (i = 0; i < r->nr_inputs && !r->inputs[i].has_rec; i++)
		;
	if (i == r->nr_inputs)
		return;
	fprintf(f, "%-6s %-*s", "Order", lw, "min/plateau");
	for (i = 0; i < r->nr_inputs; i++) {
		const struct compare_input *in = &r->inputs[i];

		if (!in->has_rec)
			snprintf(buf, sizeof(buf), "n/a");
		else if (in->min_order < 0)
			snprintf(buf, sizeof(buf), "none");
		else if (in->plateau_order < 0)
			snprintf(buf, sizeof(buf), "%d/none", in->min_order);
		else
			snprintf(buf, sizeof(buf), "%d/%d", in->min_order, in->plateau_order);
		fprintf(f, "  %*s", cw, buf);
	}
	fputc('\n', f);
}

static void write_lkml(const struct compare_report *r, FILE *f)
{
	int lw = 0, vw = 6, cw;
	size_t i, k, nkeys = 0;
	char buf[128];
	const struct compare_row **keys;
	bool lower = false, higher = false, none = false;

	keys = calloc(r->nr_rows + 1, sizeof(*keys));
	if (!keys)
		return;
	/* The union of the rows of all pairs, in the first pair's order. */
	for (i = 0; i < r->nr_rows; i++) {
		for (k = 0; k < nkeys; k++)
			if (keys[k]->order == r->rows[i].order && keys[k]->span == r->rows[i].span &&
			    !strcmp(keys[k]->metric, r->rows[i].metric) &&
			    !strcmp(keys[k]->pattern, r->rows[i].pattern))
				break;
		if (k == nkeys)
			keys[nkeys++] = &r->rows[i];
	}
	for (i = 0; i < r->nr_rows; i++) {
		int n;

		lkml_label(r, &r->rows[i], buf, sizeof(buf));
		n = (int)strlen(buf);
		lw = n > lw ? n : lw;
		fmt_value(r->rows[i].a, buf, sizeof(buf));
		n = (int)strlen(buf);
		vw = n > vw ? n : vw;
		fmt_value(r->rows[i].b, buf, sizeof(buf));
		n = (int)strlen(buf);
		vw = n > vw ? n : vw;
	}
	cw = vw + 11;
	for (i = 0; i < r->nr_inputs; i++) {
		int n = (int)strlen(compare_kernel_name(&r->inputs[i]));
		int m = (int)strlen(r->inputs[i].label);
		cw = n > cw ? n : cw;
		cw = m > cw ? m : cw;
	}
	vw = cw - 11;
	lkml_header(r, f, lw, cw);
	lkml_gains(r, f, lw, vw);
	lkml_orders(r, f, lw, cw);
	for (k = 0; k < nkeys; k++) {
		lkml_label(r, keys[k], buf, sizeof(buf));
		fprintf(f, "%-6s %-*s", "Median", lw, buf);
		for (i = 0; i < r->nr_inputs; i++) {
			const struct compare_row *w = i ? find_row(r, i, keys[k]) : keys[k];

			lkml_cell(w, i == 0, vw, buf, sizeof(buf));
			fprintf(f, "  %s", buf);
		}
		fputs(r->nr_gains && keys[k]->drift_prone ? " ~\n" : "\n", f);
		lower |= keys[k]->dir == COMPARE_DIR_LOWER;
		higher |= keys[k]->dir == COMPARE_DIR_HIGHER;
		none |= keys[k]->dir == COMPARE_DIR_NONE;
	}
	fprintf(f, "\n(x.xx%%): gain over %s, positive is better%s%s%s; *x.xx%%*: significant "
		   "(Mann-Whitney U, Holm-adjusted p < %.2g)\n",
		compare_kernel_name(&r->inputs[0]),
		lower && higher ? "" : lower ? " (lower values are better)" : "",
		higher && !lower ? " (higher values are better)" : "",
		none ? "; plain change for counts without a better direction" : "", r->alpha);
	if (r->nr_gains)
		fprintf(f, "Gain: share of order 0's value saved, each file against its own order 0 "
			   "(paired within the file, so drift between the runs cancels); (x.xx): "
			   "difference in points from %s, *x.xx*: significant (Welch t over the reps "
			   "plus the run-to-run part%s, Holm p < %.2g); ~: a drift-prone absolute row (times move with the "
			   "machine between runs)\n", compare_kernel_name(&r->inputs[0]),
			any_runs(r) ? "; a side of several runs: the gain of its runs' mean log ratio, the "
				      "part from their spread" : "", r->alpha);
	free(keys);
}

/* doc (its reference taken; NULL: it could not be built) and a newline.
 * 0 or -EIO. */
static int write_json(json_t *doc, size_t flags, FILE *f)
{
	int err = !doc || json_dumpf(doc, f, flags) || fputc('\n', f) == EOF ? -EIO : 0;

	json_decref(doc);
	return err;
}

int report_compare_write_json(const struct compare_report *r, json_t *programs, FILE *f)
{
	json_t *doc = report_compare_json(r);

	if (doc && programs)
		json_object_set(doc, "programs", programs);
	return write_json(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10), f) ? -EIO :
	       ferror(f) ? -EIO : 0;
}

int report_compare_write(const struct compare_report *r, enum compare_format fmt, FILE *f)
{
	int err = 0;

	switch (fmt) {
	case COMPARE_FMT_TEXT:
		write_compare_text(r, f);
		break;
	case COMPARE_FMT_MARKDOWN:
		write_compare_markdown(r, f);
		break;
	case COMPARE_FMT_LKML:
		write_lkml(r, f);
		break;
	case COMPARE_FMT_JSON:
		err = write_json(report_compare_json(r), JSON_INDENT(2) | JSON_REAL_PRECISION(10),
				 f);
		break;
	}
	if (!err && ferror(f))
		err = -EIO;
	return err;
}

/* ---- compare of collapse documents ----------------------------------------- */

/* One line of the side-by-side table: a name and one value per input. The
 * text, markdown and lkml layouts print the same lines. */
struct cc_line {
	char name[32];
	char val[COMPARE_COLLAPSE_MAX_INPUTS][40];
};
#define CC_MAX_LINES (COMPARE_COLLAPSE_ORDERS + 6)

static double cc_growth_pct(const struct compare_collapse_cell *c)
{
	return c->rss_before ? 100.0 * (double)(c->rss_after - c->rss_before) /
				       (double)c->rss_before : 0.0;
}

static size_t cc_lines(const struct compare_collapse *c, const struct compare_collapse_row *row,
		       struct cc_line *l)
{
	size_t n = 0, i;
	int o;

	for (o = 0; o < COMPARE_COLLAPSE_ORDERS; o++) {
		if (!(c->orders & (1UL << o)))
			continue;
		snprintf(l[n].name, sizeof(l[n].name), "order %d pages", o);
		for (i = 0; i < c->nr_inputs; i++) {
			const struct compare_collapse_cell *x = &row->cell[i];

			if (!x->present)
				snprintf(l[n].val[i], sizeof(l[n].val[i]), "n/a");
			else if (!x->pages[o])
				snprintf(l[n].val[i], sizeof(l[n].val[i]), "-");
			else
				snprintf(l[n].val[i], sizeof(l[n].val[i]), "%llu (%.1f%%)", x->pages[o],
					 100.0 * (double)x->pages[o] / (double)x->mapped);
		}
		n++;
	}
	snprintf(l[n].name, sizeof(l[n].name), "RSS before MiB");
	snprintf(l[n + 1].name, sizeof(l[n + 1].name), "RSS after MiB");
	snprintf(l[n + 2].name, sizeof(l[n + 2].name), "RSS growth");
	snprintf(l[n + 3].name, sizeof(l[n + 3].name), "time to steady ms");
	snprintf(l[n + 4].name, sizeof(l[n + 4].name), "verdict");
	for (i = 0; i < c->nr_inputs; i++) {
		const struct compare_collapse_cell *x = &row->cell[i];
		int k;

		if (!x->present) {
			for (k = 0; k < 5; k++)
				snprintf(l[n + k].val[i], sizeof(l[n + k].val[i]), "n/a");
			continue;
		}
		snprintf(l[n].val[i], sizeof(l[n].val[i]), "%.2f", (double)x->rss_before / 1048576);
		snprintf(l[n + 1].val[i], sizeof(l[n + 1].val[i]), "%.2f",
			 (double)x->rss_after / 1048576);
		snprintf(l[n + 2].val[i], sizeof(l[n + 2].val[i]), "%+.1f%%", cc_growth_pct(x));
		if (x->changed)
			snprintf(l[n + 3].val[i], sizeof(l[n + 3].val[i]), "%lld%s", x->t_steady_ms,
				 x->steady ? "" : " (timeout)");
		else
			snprintf(l[n + 3].val[i], sizeof(l[n + 3].val[i]), "no change in %lld",
				 x->elapsed_ms);
		snprintf(l[n + 4].val[i], sizeof(l[n + 4].val[i]), "%s", x->verdict);
	}
	return n + 5;
}

static void cc_head(const struct compare_collapse *c, FILE *f, const char *lead, int nw, int vw)
{
	bool same = true;
	size_t i;

	fprintf(f, "%s%-*s", lead, nw, "");
	for (i = 0; i < c->nr_inputs; i++) {
		fprintf(f, " %*s", vw, c->kernels[i]);
		same &= !strcmp(c->kernels[i], c->labels[i]);
	}
	if (same) { /* kernel-ab.sh names the files after the kernels */
		fprintf(f, "\n");
		return;
	}
	fprintf(f, "\n%s%-*s", lead, nw, "");
	for (i = 0; i < c->nr_inputs; i++)
		fprintf(f, " %*s", vw, c->labels[i]);
	fprintf(f, "\n");
}

static void cc_text(const struct compare_collapse *c, FILE *f, bool lkml)
{
	struct cc_line l[CC_MAX_LINES];
	size_t r, k, i, n;
	char name[64];

	if (!lkml)
		fprintf(f, "collapse A/B: %s\n", c->config);
	if (lkml)
		cc_head(c, f, "", 28, 22);
	for (r = 0; r < c->nr_rows; r++) {
		n = cc_lines(c, &c->rows[r], l);
		if (!lkml) {
			fprintf(f, "\nmax_ptes_none %lld\n", c->rows[r].max_ptes_none);
			cc_head(c, f, "  ", 20, 22);
		}
		for (k = 0; k < n; k++) {
			if (lkml)
				snprintf(name, sizeof(name), "%s-mpn%lld", l[k].name,
					 c->rows[r].max_ptes_none);
			fprintf(f, lkml ? "%-28s" : "  %-20s", lkml ? name : l[k].name);
			for (i = 0; i < c->nr_inputs; i++)
				fprintf(f, " %22s", l[k].val[i]);
			fprintf(f, "\n");
		}
	}
	if (lkml)
		fprintf(f, "\n(collapse A/B: %s; pages: the span's folio orders at the end, "
			   "share of its mapped pages)\n", c->config);
}

static void cc_markdown(const struct compare_collapse *c, FILE *f)
{
	struct cc_line l[CC_MAX_LINES];
	size_t r, k, i, n;

	fprintf(f, "**collapse A/B**: %s\n", c->config);
	for (r = 0; r < c->nr_rows; r++) {
		n = cc_lines(c, &c->rows[r], l);
		fprintf(f, "\n#### max_ptes_none %lld\n\n|  |", c->rows[r].max_ptes_none);
		for (i = 0; i < c->nr_inputs; i++)
			fprintf(f, " %s (%s) |", c->kernels[i], c->labels[i]);
		fprintf(f, "\n|---|");
		for (i = 0; i < c->nr_inputs; i++)
			fprintf(f, "---:|");
		fprintf(f, "\n");
		for (k = 0; k < n; k++) {
			fprintf(f, "| %s |", l[k].name);
			for (i = 0; i < c->nr_inputs; i++)
				fprintf(f, " %s |", l[k].val[i]);
			fprintf(f, "\n");
		}
	}
}

static json_t *cc_json(const struct compare_collapse *c)
{
	json_t *doc, *inputs = json_array(), *rows = json_array(), *warn = json_array();
	size_t r, i;
	int o;

	for (i = 0; i < c->nr_inputs; i++)
		json_array_append_new(inputs, json_pack("{s:s, s:s}", "file", c->labels[i],
							"kernel", c->kernels[i]));
	for (i = 0; i < c->nr_warnings; i++)
		json_array_append_new(warn, json_string(c->warnings[i]));
	for (r = 0; r < c->nr_rows; r++) {
		json_t *cells = json_array();

		for (i = 0; i < c->nr_inputs; i++) {
			const struct compare_collapse_cell *x = &c->rows[r].cell[i];
			json_t *h = json_object();
			char k[8];

			if (!x->present) {
				json_array_append_new(cells, json_null());
				json_decref(h);
				continue;
			}
			for (o = 0; o < COMPARE_COLLAPSE_ORDERS; o++)
				if (x->pages[o]) {
					snprintf(k, sizeof(k), "%d", o);
					json_object_set_new(h, k, json_integer((json_int_t)x->pages[o]));
				}
			json_array_append_new(cells, json_pack(
				"{s:o, s:I, s:I, s:I, s:f, s:I, s:b, s:s}", "hist", h, "mapped_pages",
				(json_int_t)x->mapped, "rss_before", (json_int_t)x->rss_before,
				"rss_after", (json_int_t)x->rss_after, "rss_growth_pct",
				cc_growth_pct(x), "t_steady_ms", (json_int_t)x->t_steady_ms, "steady",
				x->steady, "verdict", x->verdict));
		}
		json_array_append_new(rows, json_pack("{s:I, s:o}", "max_ptes_none",
						      (json_int_t)c->rows[r].max_ptes_none, "cells",
						      cells));
	}
	doc = json_pack("{s:s, s:s, s:b, s:o, s:o, s:o}", "schema", COMPARE_COLLAPSE_SCHEMA,
			"config", c->config, "comparable", c->comparable, "warnings", warn,
			"inputs", inputs, "rows", rows);
	return doc;
}

int report_compare_collapse_write(const struct compare_collapse *c, enum compare_format fmt,
				  FILE *f)
{
	int err = 0;

	switch (fmt) {
	case COMPARE_FMT_TEXT:
		cc_text(c, f, false);
		break;
	case COMPARE_FMT_LKML:
		cc_text(c, f, true);
		break;
	case COMPARE_FMT_MARKDOWN:
		cc_markdown(c, f);
		break;
	case COMPARE_FMT_JSON:
		err = write_json(cc_json(c), JSON_INDENT(2), f);
		break;
	}
	if (!err && ferror(f))
		err = -EIO;
	return err;
}
