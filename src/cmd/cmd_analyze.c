// SPDX-License-Identifier: GPL-2.0-or-later
/* mthpscope analyze: per-order gains and the recommendation for a results file. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "cli.h"
#include "commands.h"
#include "report.h"
#include "results.h"
#include "tlb_opt.h"

struct analyze_cmd_opts {
	enum report_format format;
	struct analyze_opts ao;
	struct tlb_opt tlb;
};

static const struct cli_cmd analyze_cli = {
	.name = "analyze",
	.args = "FILE",
	.summary = "Per-order gains with CIs and the smallest folio order worth creating.",
	.details = "Reads a results file (schema mthpscope.results/1) written by 'mthpscope run'\n"
		   "(FILE '-': standard input).\n"
		   "Primary metric, by strength of evidence: walk_cycles, walks, dtlb_misses\n"
		   "per access (PMU), else ns_per_access (timing). Per order: median with a 95 %\n"
		   "bootstrap CI, gain against order 0 with its CI, two-sided Mann-Whitney p\n"
		   "(Holm-adjusted across orders), share of the PMD gain, page faults saved and\n"
		   "sparse RSS bloat. Files of an interleaved schedule (per-round times) are\n"
		   "compared round by round instead: gain from the per-round log ratios to\n"
		   "order 0, bootstrap over reps and whole rounds, Wilcoxon signed-rank p.\n"
		   "Gains below the PMD order are fitted monotone (isotonic regression); the\n"
		   "status comes from the fit, and raw gains beyond noise off it are warned of.\n"
		   "With several spans, a verdict per span too. Trials under 95 % folio coverage or with multiplexed\n"
		   "counters are left out and listed; a command's (run -- CMD) coverage is stated,\n"
		   "not a gate: its trial is left out only under 10 % of its memory at the order,\n"
		   "or under half its order's other trials. A command's every metric follows: real,\n"
		   "user and sys time, faults, peak memory and each --metric, per size against\n"
		   "4K with CIs (--format lkml: that table alone, with the host line). Verdict: mthp (min_order = smallest order\n"
		   "with a significant gain of at least the threshold), pmd-only, no-gain (every\n"
		   "CI rules a material gain out) or inconclusive (with what to do).\n"
		   "--metric NAME makes NAME the verdict's metric (a command's sys time:\n"
		   "--metric sys); a command's report names beside it the metric with the\n"
		   "largest material gain (\"largest: sys -25.3 % at 64K\").\n"
		   "Where the trials carry a layout histogram, the TLB model's prediction\n"
		   "follows (source model): entries needed and miss ratio per level and order,\n"
		   "walks saved, and the predicted knee per span beside the measured one, with\n"
		   "the likely cause where they disagree; --tlb-model/--tlb-geometry recompute\n"
		   "it for another CPU from the file alone.",
	.exit_status =
		   "0 analysed, 1 bad or unusable file, 2 usage error, 3 a TLB\n"
		   "model asked for that the file cannot give (no layout histogram).",
	.opts = (const struct cli_opt[]){
		CLI_FORMAT_ROWS(struct analyze_cmd_opts, format, 'f', analyze_format_words, NULL,
				"text (default), markdown, json (schema mthpscope.analysis/1) or "
				"lkml (a program's table per metric, for a cover letter)",
				.aliases = report_format_aliases),
		ANALYZE_VERDICT_OPTIONS(struct analyze_cmd_opts, ao),
		{ "metric", 'm', "NAME", "the metric the verdict rests on: a metric of the "
		  "file's trials (sys_ns, a run --metric's name) or real, user, sys, faults, "
		  "peak (default: for a command the run's first --metric, else wall time; "
		  "for the micro-benchmarks a hardware TLB count, else ns_per_access)",
		  CLI_ROW_STRING(struct analyze_cmd_opts, ao.metric), .imin = 1 },
		{ "unpaired", 0, NULL, "ignore per-round times (interleaved schedule): "
		  "compare trial medians with Mann-Whitney, as for older files",
		  CLI_ROW_FLAG(struct analyze_cmd_opts, ao.unpaired) },
		TLB_OPT_ROWS(struct analyze_cmd_opts, tlb),
		CLI_END,
	},
};

/* --tlb-model all: the trials' own model where they carry layouts, then
 * every table model beside the measurement (the fleet view). */
static int analyze_fleet(const struct analysis *a, const struct analyze_cmd_opts *o)
{
	static struct tlb_prediction p;
	static struct tlb_fleet fleet;
	bool own = tlb_predict_has_layouts(a);

	if (own)
		tlb_predict(a, NULL, &p);
	if (tlb_fleet_build(a, &fleet)) {
		ms_err("analyze: out of memory");
		return MS_EXIT_FAIL;
	}
	return report_write_fleet(a, own ? &p : NULL, &fleet, o->format, stdout) ? MS_EXIT_FAIL
										  : MS_EXIT_OK;
}

/* The analysis, with the TLB model where the trials carry layouts or a
 * model was asked for (a file without layouts and no option prints what it
 * always printed). Exit 3 when a model was asked for and cannot be had. */
static bool has_command(const struct analysis *a)
{
	size_t i;

	for (i = 0; i < a->res->nr_trials; i++)
		if (a->res->trials[i].workload == RESULTS_WL_COMMAND)
			return true;
	return false;
}

static int analyze_print(const struct analysis *a, const struct analyze_cmd_opts *o,
			 const char *file)
{
	static struct tlb_prediction p;
	const struct tlb_geometry *g = NULL;
	bool asked = tlb_opt_given(&o->tlb);
	struct tlb_host host = { 0 };

	/* the text report came without a word: "where is my lkml table?" */
	if (o->format == REPORT_LKML && !has_command(a))
		ms_note("analyze: %s: --format lkml is the table of a command's trials (run -- "
			"CMD); this file's are access patterns: the text report follows", file);
	if (o->tlb.all)
		return analyze_fleet(a, o);
	if (!asked && !tlb_predict_has_layouts(a))
		return report_write(a, o->format, stdout) ? MS_EXIT_FAIL : MS_EXIT_OK;
	if (o->tlb.cpuid)
		tlb_host_describe(&host);
	if (asked && !(g = tlb_opt_pick(&o->tlb, "analyze", &host, NULL)))
		return MS_EXIT_ENV;
	tlb_predict(a, g, &p);
	if (report_write_tlb(a, &p, o->format, stdout))
		return MS_EXIT_FAIL;
	if (asked && !p.available) {
		ms_err("analyze: %s: TLB model unavailable: %s", file, p.reason);
		return MS_EXIT_ENV;
	}
	return MS_EXIT_OK;
}

static int analyze_cmd(int argc, char **argv)
{
	struct analyze_cmd_opts o = { .format = REPORT_TEXT };
	struct results *r = NULL;
	struct analysis *a = NULL;
	const char *file = NULL;
	char err[1024];
	int i, rc = MS_EXIT_OK;

	i = cli_parse_mixed(&analyze_cli, argc, argv, &o, &file, 1);
	if (i == CLI_DONE)
		goto out;
	rc = MS_EXIT_USAGE;
	if (i < 0)
		goto out;
	if (tlb_opt_done(&o.tlb, o.format == REPORT_JSON)) {
		rc = MS_EXIT_OK;
		goto out;
	}
	if (i != 1) {
		ms_err("analyze: expected a results FILE");
		goto out;
	}
	rc = MS_EXIT_FAIL;
	if (results_load(file, &r, err, sizeof(err))) {
		ms_err("analyze: %s", err);
		goto out;
	}
	if ((i = analyze_run(r, &o.ao, &a, err, sizeof(err)))) {
		ms_err("analyze: %s: %s", file, err);
		rc = i == -EINVAL ? MS_EXIT_USAGE : MS_EXIT_FAIL;
		goto out;
	}
	/* the verdict's metric changed under the user: said, not only shown */
	if (a->metric_note[0])
		ms_warn("analyze: %s: %s", file, a->metric_note);
	rc = analyze_print(a, &o, file);
out:
	analyze_free(a);
	results_free(r);
	tlb_opt_release(&o.tlb);
	return rc;
}

MS_COMMAND(analyze, "per-order gains, CIs and the recommended minimum order");
