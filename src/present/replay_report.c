// SPDX-License-Identifier: GPL-2.0-or-later
/* collapse --replay's text and JSON (replay_report.h). */
#include "replay_report.h"

#include <stdio.h>
#include <string.h>

#include "json_write.h"
#include "mthpscope.h"

void replay_report_mass(const struct replay_state *st, int pmd_order, char *buf, size_t size)
{
	size_t n = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k <= pmd_order && n < size; k++)
		if (st->pages[k])
			n += (size_t)snprintf(buf + n, size - n, "%s%d:%llu", n ? "," : "", k,
					      st->pages[k]);
	if (st->unknown && n < size)
		snprintf(buf + n, size - n, "%s?:%llu", n ? "," : "", st->unknown);
}

/* The entries the model's last (largest) level needs, or -1 where the
 * geometry does not fit the layout. */
static long long entries_needed(const struct tlb_geometry *g, const struct replay_state *st,
				struct tlb_footprint *fp)
{
	if (tlb_footprint(g, &st->layout, fp) || fp->nr_levels < 1)
		return -1;
	return (long long)fp->level[fp->nr_levels - 1].entries_needed;
}

static double growth_pct(const struct replay_state *st, const struct replay_state *start)
{
	return start->rss_pages ? 100.0 * ((double)st->rss_pages - (double)start->rss_pages) /
					  (double)start->rss_pages
				: 0.0;
}

static void text_run(const struct replay_report *r, const struct replay_report_run *run,
		     FILE *out)
{
	char mass[512], msg[160];
	struct tlb_footprint fp;
	size_t m;
	int i;

	fprintf(out, "\nmax_ptes_none %d\n", run->max_ptes_none);
	if (run->rewritten) {
		replay_rewrite_message(1 << r->pmd_order, msg, sizeof(msg));
		fprintf(out, "  (the kernel's warning, as the merged policy applies it: %s)\n", msg);
	}
	fprintf(out, "  %4s %10s %7s", "pass", "rss KiB", "growth");
	for (m = 0; m < r->nr_models; m++)
		fprintf(out, " %12s", r->models[m]->name);
	fprintf(out, "  pages by order\n");
	for (i = 0; i <= r->passes; i++) {
		const struct replay_state *st = &run->states[i];

		fprintf(out, "  %4d %10llu %6.1f%%", i,
			st->rss_pages << r->page_shift >> 10, growth_pct(st, &run->states[0]));
		for (m = 0; m < r->nr_models; m++) {
			long long e = entries_needed(r->models[m], st, &fp);

			if (e < 0)
				fprintf(out, " %12s", "-");
			else
				fprintf(out, " %12lld", e);
		}
		replay_report_mass(st, r->pmd_order, mass, sizeof(mass));
		fprintf(out, "  %s\n", mass);
	}
}

void replay_report_text(const struct replay_report *r, FILE *out)
{
	size_t i;
	int k;

	fprintf(out, "collapse --replay %s (model): ", r->policy);
	if (r->presence)
		fprintf(out, "%s%s%s%s, ", r->presence, r->command ? " (" : "",
			r->command ? r->command : "", r->command ? ")" : "");
	else
		fprintf(out, "the pattern of collapse --fill %g --span %lluM --seed %llu, ",
			r->fill * 100, r->span >> 20, r->seed);
	fprintf(out, "%zu PMD ranges of %u KiB pages\n", r->nr_ranges, (1u << r->page_shift) >> 10);
	fprintf(out, "orders");
	for (k = 0; k <= r->pmd_order; k++)
		if (r->orders & (1UL << k))
			fprintf(out, " %d", k);
	fprintf(out, ", minimum order %d, %d pass%s (a pass: one khugepaged full scan)\n",
		r->min_order, r->passes, r->passes == 1 ? "" : "es");
	fprintf(out, "TLB entries: the model's entries needed in each CPU's last level "
		     "(tlb_footprint; model)\n");
	for (i = 0; i < r->nr_runs; i++)
		text_run(r, &r->runs[i], out);
}

static json_t *tlb_json(const struct replay_report *r, const struct replay_state *st)
{
	json_t *a = json_array();
	struct tlb_footprint fp;
	size_t m;

	for (m = 0; a && m < r->nr_models; m++) {
		json_t *v = entries_needed(r->models[m], st, &fp) < 0
				    ? json_pack("{s:s, s:n}", "model", r->models[m]->name, "levels")
				    : tlb_footprint_json(&fp);

		if (json_array_append_new(a, v)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *pass_json(const struct replay_report *r, const struct replay_report_run *run,
			 int i)
{
	const struct replay_state *st = &run->states[i];
	json_t *o = json_pack("{s:i, s:o, s:I, s:I, s:f, s:o, s:o, s:o}", "pass", i, "pages",
			      wr_order_counts(st->pages, r->pmd_order), "unknown_order_pages",
			      (json_int_t)st->unknown, "rss_pages", (json_int_t)st->rss_pages,
			      "rss_growth_pct", growth_pct(st, &run->states[0]), "collapses",
			      wr_order_counts(st->collapses, r->pmd_order), "layout",
			      layout_hist_json(&st->layout), "tlb", tlb_json(r, st));

	return o;
}

/* final_ranges: [{range, pages, unknown_order_pages}], as collapse's document
 * gives the kernel's (its runs' final_ranges) */
static json_t *ranges_json(const struct replay_report *r, const struct replay_report_run *run)
{
	json_t *a = json_array();
	size_t k;

	for (k = 0; a && k < r->nr_ranges; k++)
		if (json_array_append_new(a, json_pack("{s:I, s:o, s:I}", "range", (json_int_t)k,
						       "pages", wr_order_counts(run->ranges[k].pages,
										r->pmd_order),
						       "unknown_order_pages",
						       (json_int_t)run->ranges[k].unknown))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *run_json(const struct replay_report *r, const struct replay_report_run *run)
{
	json_t *passes = json_array(), *o;
	char msg[160];
	int i;

	for (i = 0; passes && i <= r->passes; i++)
		if (json_array_append_new(passes, pass_json(r, run, i))) {
			json_decref(passes);
			return NULL;
		}
	replay_rewrite_message(1 << r->pmd_order, msg, sizeof(msg));
	o = json_pack("{s:i, s:o, s:o}", "max_ptes_none", run->max_ptes_none, "kernel_warning",
		      run->rewritten ? json_string(msg) : json_null(), "passes", passes);
	if (o && run->ranges && json_object_set_new(o, "final_ranges", ranges_json(r, run))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *input_json(const struct replay_report *r)
{
	json_t *o = r->presence ? json_pack("{s:s}", "presence", r->presence)
				: json_pack("{s:{s:f, s:I, s:I}}", "synthetic", "fill", r->fill,
					    "span", (json_int_t)r->span, "seed", (json_int_t)r->seed);

	if (o && r->command)
		json_object_set_new(o, "command", json_string(r->command));
	if (o && json_object_update_new(o, json_pack("{s:i, s:i, s:I}", "page_size",
						     1 << r->page_shift, "pmd_order", r->pmd_order,
						     "ranges", (json_int_t)r->nr_ranges))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *replay_report_json(const struct replay_report *r)
{
	json_t *runs = json_array(), *orders = json_array(), *doc;
	size_t i;
	int k;

	for (k = 0; orders && k <= r->pmd_order; k++)
		if ((r->orders & (1UL << k)) && json_array_append_new(orders, json_integer(k)))
			break;
	for (i = 0; runs && i < r->nr_runs; i++)
		if (json_array_append_new(runs, run_json(r, &r->runs[i]))) {
			json_decref(runs);
			runs = NULL;
		}
	doc = json_pack("{s:s, s:{s:s, s:s}, s:s, s:s, s:o, s:o, s:i, s:i, s:s, s:o}", "schema",
			REPLAY_SCHEMA, "tool", "name", "mthpscope", "version", ms_version,
			"computed_by", "model", "policy", r->policy, "input", input_json(r),
			"orders", orders, "min_order", r->min_order, "passes", r->passes,
			"assumptions", "a pass is one khugepaged full scan; every present page is "
			"referenced and exclusive, no swap entries, every allocation succeeds, no "
			"fault between passes; frames of collapsed folios are the model's",
			"runs", runs);
	return doc;
}
