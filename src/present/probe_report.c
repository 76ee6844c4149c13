// SPDX-License-Identifier: GPL-2.0-or-later
/* mthpscope probe's report (src/present/probe_report.h). */
#include "probe_report.h"

#include <math.h>
#include <string.h>

#include "mthpscope.h"

static const char *const verdict_names[] = {
	[PROBE_TELLS] = "tells", [PROBE_AMBIGUOUS] = "cannot-tell",
	[PROBE_FLAT] = "no-translation-cost", [PROBE_TOO_FEW] = "too-few-reps",
};

static double mean_of(const struct probe_input *in, int sp, int v, double *lo, double *hi)
{
	double m = 0;
	int r, n = 0;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (r = 0; r < in->nr_reps; r++) {
		double x = in->ns[sp][v][r];

		if (!isfinite(x) || x <= 0)
			continue;
		m += x;
		n++;
		*lo = fmin(*lo, x);
		*hi = fmax(*hi, x);
	}
	return n ? m / n : NAN;
}

/* "4 (62 %) and 8 (38 %)": the hypotheses with any support, best first. */
static void support_words(const struct probe_result *res, char *buf, size_t size)
{
	size_t n = 0;
	int h, k, order[PROBE_NR_HYP] = { 0, 1, 2, 3 };

	for (h = 0; h < PROBE_NR_HYP; h++)
		for (k = h + 1; k < PROBE_NR_HYP; k++)
			if (res->support[order[k]] > res->support[order[h]]) {
				int t = order[h];

				order[h] = order[k];
				order[k] = t;
			}
	buf[0] = '\0';
	for (h = 0; h < PROBE_NR_HYP && n < size; h++)
		if (res->support[order[h]] >= 0.005)
			n += (size_t)snprintf(buf + n, size - n, "%s%u (%.0f %%)", n ? ", " : "",
					      probe_hyp_pages[order[h]],
					      100 * res->support[order[h]]);
}

static void scattered_words(const struct probe_result *res, char *buf, size_t size)
{
	size_t n = 0;
	int v;

	buf[0] = '\0';
	for (v = 0; v < PROBE_NR_VARIANTS && n < size; v++)
		if (res->scattered[v])
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
					      probe_variant_name((enum probe_variant)v));
}

static const char *const host_backing =
	"in a VM the TLB holds the guest's and the host's translation combined, no larger "
	"than the host's page: a host that maps this guest with 4K pages merges nothing the "
	"guest can see, so a guest cannot separate that from a CPU that merges nothing";

void probe_verdict_words(const struct probe_report *r, char *buf, size_t size)
{
	const struct probe_result *res = r->res;
	unsigned best = probe_hyp_pages[res->best];
	char sup[128], sc[128];

	support_words(res, sup, sizeof(sup));
	scattered_words(res, sc, sizeof(sc));
	switch (res->verdict) {
	case PROBE_TELLS:
		if (best == 1)
			snprintf(buf, size, "no merging seen: orders 2-4 and contiguous 4K PTEs cost "
				 "what their entries without merging predict (support %.0f %%)%s%s",
				 100 * res->support[res->best], r->host->virtualized ? "; but " : "",
				 r->host->virtualized ? host_backing : "");
		else
			snprintf(buf, size, "merges up to %u pages (%uK) into one TLB entry: support "
				 "%.0f %% of the resamples, 95 %% interval [%u, %u] pages", best,
				 best * 4, 100 * res->support[res->best], res->merge_lo,
				 res->merge_hi);
		break;
	case PROBE_AMBIGUOUS:
		snprintf(buf, size, "cannot tell: the hypotheses %s fit about as well%s%s%s%s", sup,
			 sc[0] ? "; scattered (their blocks not contiguous): " : "", sc,
			 r->host->virtualized ? "; " : "", r->host->virtualized ? host_backing : "");
		break;
	case PROBE_FLAT:
		snprintf(buf, size, "cannot tell: PMD mappings are no faster than order 0 at these "
			 "spans, so no translation cost separates the hypotheses (the TLBs hold "
			 "every span, or a host maps this guest with small pages)");
		break;
	case PROBE_TOO_FEW:
		snprintf(buf, size, "cannot tell: fewer than 3 reps timed every variant");
		break;
	}
}

/* Why each span: where entries merged by 8 fit a level and by 4 do not. */
static void text_spans(FILE *f, const struct probe_report *r)
{
	const struct tlb_geometry *b = r->base;
	int sp, lv, last = b->nr_levels - 1;

	fprintf(f, "spans:    ");
	for (sp = 0; sp < r->in->nr_spans; sp++) {
		unsigned long long pages = r->in->span[sp] >> 12;
		const char *why = "control: 4- and 8-merged entries both fit the last level";

		for (lv = last; lv >= 0; lv -= last ? last : 1)
			if (pages / 8 <= b->level[lv].entries && pages / 4 > b->level[lv].entries)
				why = lv ? "last level: 8-merged entries fit, 4-merged do not"
					 : "L1: 8-merged entries fit, 4-merged do not";
		fprintf(f, "%s%llu MiB (%s)\n", sp ? "          " : "", r->in->span[sp] >> 20, why);
	}
}

static void text_times(FILE *f, const struct probe_input *in)
{
	double lo, hi, m;
	int sp, v;

	fprintf(f, "\nns per access (timing: mean of the reps' medians; [min, max] of the reps)\n");
	fprintf(f, "%-9s", "span");
	for (v = 0; v < PROBE_NR_VARIANTS; v++)
		fprintf(f, " %20s", probe_variant_name((enum probe_variant)v));
	fprintf(f, "\n");
	for (sp = 0; sp < in->nr_spans; sp++) {
		fprintf(f, "%5llu MiB", in->span[sp] >> 20);
		for (v = 0; v < PROBE_NR_VARIANTS; v++) {
			char cell[48];

			m = mean_of(in, sp, v, &lo, &hi);
			snprintf(cell, sizeof(cell), "%.2f [%.2f, %.2f]", m, lo, hi);
			fprintf(f, " %20s", isfinite(m) ? cell : "-");
		}
		fprintf(f, "\n");
	}
}

static void text_hypotheses(FILE *f, const struct probe_report *r)
{
	const struct probe_result *res = r->res;
	const struct tlb_geometry *b = r->base;
	int h, last = b->nr_levels - 1;

	fprintf(f, "\nhypotheses (model: each fitted at every span as a + b1 miss(L1) + b2 "
		   "miss(%s), 0 <= b1 <= b2; misfit = residual / noise of the means, lower fits better)\n",
		b->level[last].name);
	fprintf(f, "%-14s %10s %9s %10s %10s\n", "largest merge", "misfit", "support",
		"L1 entries", "L2 entries");
	for (h = 0; h < PROBE_NR_HYP; h++)
		fprintf(f, "%4u page%-5s %10.1f %8.0f%% %10.0f %10.0f%s\n", probe_hyp_pages[h],
			probe_hyp_pages[h] == 1 ? " " : "s", res->misfit[h], 100 * res->support[h],
			b->level[0].entries * probe_scales[res->scale_at[h][0]],
			b->level[last].entries * probe_scales[res->scale_at[h][1]],
			h == res->best ? "  <- best" : "");
}

void probe_report_text(FILE *f, const struct probe_report *r)
{
	const struct probe_result *res = r->res;
	const struct tlb_geometry *b = r->base;
	char words[1024];
	int sp, last = b->nr_levels - 1;

	fprintf(f, "mthpscope probe: which runs of 4K PTEs this CPU merges into one TLB entry\n");
	fprintf(f, "host:     %s%s, kernel %s\n", r->host->cpu_model,
		r->host->virtualized ? " (virtual machine)" : "", r->host->kernel);
	fprintf(f, "base:     %s (%s): L1 %u, %s %u entries; the hypotheses scale these\n",
		b->name, r->base_source, b->level[0].entries, b->level[last].name,
		b->level[last].entries);
	fprintf(f, "measured: chase-tlb, %d reps of %.2f s per variant, interleaved rounds, "
		   "%.0f s%s\n", r->in->nr_reps, r->trial_s, r->elapsed_s,
		r->verified ? "" : "; layouts NOT read (no PFNs): the model assumed ideal ones");
	text_spans(f, r);
	text_times(f, r->in);
	fprintf(f, "PMD saves (timing):");
	for (sp = 0; sp < r->in->nr_spans; sp++)
		fprintf(f, " %llu MiB %+.1f %%", r->in->span[sp] >> 20, 100 * res->pmd_gain[sp]);
	fprintf(f, "\n");
	if (res->verdict != PROBE_TOO_FEW)
		text_hypotheses(f, r);
	probe_verdict_words(r, words, sizeof(words));
	fprintf(f, "\nverdict:  %s\n", words);
	if (res->verdict != PROBE_TOO_FEW)
		fprintf(f, "reach:    L1 %.0f entries [%.0f, %.0f], %s %.0f entries [%.0f, %.0f] "
			   "(model fit, 95 %% bootstrap over reps); with %u-page entries %.0f KiB "
			   "and %.0f KiB\n", res->capacity[0], res->capacity_lo[0],
			res->capacity_hi[0], b->level[last].name, res->capacity[1],
			res->capacity_lo[1], res->capacity_hi[1], probe_hyp_pages[res->best],
			res->capacity[0] * 4 * probe_hyp_pages[res->best],
			res->capacity[1] * 4 * probe_hyp_pages[res->best]);
	if (r->host->virtualized)
		fprintf(f, "note:     a VM: every miss is a two-dimensional walk, and the host's "
			   "page size bounds what merging the guest can see\n");
	if (r->low_coverage)
		fprintf(f, "note:     %d trials below the coverage share at their order\n",
			r->low_coverage);
	fprintf(f, "note:     times are CPU time per access on a machine other work may share: "
		   "a busy machine widens every interval\n");
	if (r->output)
		fprintf(f, "geometry: written to %s (use it with --tlb-geometry)\n", r->output);
}

static json_t *times_json(const struct probe_input *in)
{
	json_t *spans = json_array(), *o, *reps;
	double lo, hi;
	int sp, v, k;

	for (sp = 0; spans && sp < in->nr_spans; sp++) {
		o = json_pack("{s:I, s:o}", "span", (json_int_t)in->span[sp], "variants",
			      json_array());
		for (v = 0; o && v < PROBE_NR_VARIANTS; v++) {
			reps = json_array();
			for (k = 0; reps && k < in->nr_reps; k++)
				json_array_append_new(reps, isfinite(in->ns[sp][v][k])
								    ? json_real(in->ns[sp][v][k])
								    : json_null());
			json_array_append_new(
				json_object_get(o, "variants"),
				json_pack("{s:s, s:o, s:o, s:o}", "variant",
					  probe_variant_name((enum probe_variant)v), "mean_ns",
					  json_real(mean_of(in, sp, v, &lo, &hi)), "reps_ns",
					  reps ? reps : json_null(), "layout",
					  layout_hist_json(&in->layout[sp][v])));
		}
		json_array_append_new(spans, o);
	}
	return spans;
}

static json_t *hyp_json(const struct probe_report *r)
{
	const struct probe_result *res = r->res;
	int h, last = r->base->nr_levels - 1;
	json_t *a = json_array();

	for (h = 0; a && h < PROBE_NR_HYP; h++)
		json_array_append_new(
			a, json_pack("{s:i, s:f, s:f, s:f, s:f, s:s}", "merge_pages",
				     (int)probe_hyp_pages[h], "misfit", res->misfit[h], "support",
				     res->support[h], "l1_entries",
				     r->base->level[0].entries * probe_scales[res->scale_at[h][0]],
				     "last_level_entries",
				     r->base->level[last].entries *
					     probe_scales[res->scale_at[h][1]],
				     "computed_by", "model"));
	return a;
}

json_t *probe_report_json(const struct probe_report *r)
{
	const struct probe_result *res = r->res;
	char words[1024];
	json_t *o;

	probe_verdict_words(r, words, sizeof(words));
	o = json_pack("{s:s, s:{s:s, s:s}, s:{s:s, s:s, s:b}, s:{s:s, s:s}, s:{s:i, s:f, s:f, "
		      "s:b}, s:o, s:o}",
		      "schema", "mthpscope.probe/1", "tool", "name", "mthpscope", "version",
		      ms_version, "host", "cpu_model", r->host->cpu_model, "kernel",
		      r->host->kernel, "virtualized", r->host->virtualized, "base", "model",
		      r->base->name, "source", r->base_source, "config", "reps", r->in->nr_reps,
		      "trial_s", r->trial_s, "elapsed_s", r->elapsed_s, "layouts_verified",
		      r->verified, "spans", times_json(r->in), "hypotheses", hyp_json(r));
	if (!o)
		return NULL;
	json_object_set_new(o, "result", json_pack(
		"{s:s, s:s, s:o, s:[i, i], s:[f, f, f], s:[f, f, f], s:s}", "verdict",
		verdict_names[res->verdict], "words", words, "merge_pages",
		res->verdict == PROBE_TELLS ? json_integer(probe_hyp_pages[res->best]) : json_null(),
		"merge_interval", (int)res->merge_lo, (int)res->merge_hi, "l1_entries",
		res->capacity[0], res->capacity_lo[0], res->capacity_hi[0],
		"last_level_entries", res->capacity[1], res->capacity_lo[1], res->capacity_hi[1],
		"source", "timing"));
	/* "none seen" in a guest: the CPU or the host's backing, not told apart */
	if (res->verdict == PROBE_TELLS && probe_hyp_pages[res->best] == 1 && r->host->virtualized)
		json_object_set_new(json_object_get(o, "result"), "cannot_tell",
				    json_string(host_backing));
	if (r->output)
		json_object_set_new(o, "geometry_file", json_string(r->output));
	return o;
}
