// SPDX-License-Identifier: GPL-2.0-or-later
/* mthpscope analyze: per-order gains and the recommendation for a results file. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "cli.h"
#include "commands.h"
#include "report.h"
#include "results.h"

enum { OPT_FORMAT = 'f', OPT_UNPAIRED = 0x100 };

static const struct cli_opt analyze_options[] = {
	{ "format", OPT_FORMAT, "FORMAT", "text (default), markdown or json "
	  "(schema mthpscope.analysis/1)" },
	ANALYZE_VERDICT_OPTIONS,
	{ "unpaired", OPT_UNPAIRED, NULL, "ignore per-round times (interleaved schedule): "
	  "compare trial medians with Mann-Whitney, as for older files" },
	{ NULL },
};

static const struct cli_cmd analyze_cli = {
	.name = "analyze",
	.args = "FILE",
	.summary = "Per-order gains with CIs and the smallest folio order worth creating.",
	.details = "Reads a results file (schema mthpscope.results/1) written by 'mthpscope run'.\n"
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
		   "counters are left out and listed. Verdict: mthp (min_order = smallest order\n"
		   "with a significant gain of at least the threshold), pmd-only, no-gain (every\n"
		   "CI rules a material gain out) or inconclusive (with what to do).\n"
		   "Exit status: 0 analysed, 1 bad or unusable file, 2 usage error.",
	.opts = analyze_options,
};

struct analyze_cmd_opts {
	enum report_format format;
	struct analyze_opts ao;
};

int analyze_verdict_opt(int key, const char *arg, struct analyze_opts *ao)
{
	if (key == ANALYZE_OPT_THRESHOLD) {
		if (cli_parse_double("threshold", arg, 0.1, 90.0, &ao->threshold))
			return -1;
		ao->threshold /= 100.0;
	} else if (key == ANALYZE_OPT_SPAN) {
		unsigned long long span;

		if (cli_parse_size_min("span", arg, 1, &span))
			return -1;
		ao->span = span;
	}
	return 0;
}

static int on_opt(int key, const char *arg, void *ctx)
{
	struct analyze_cmd_opts *o = ctx;

	if (key == OPT_FORMAT) {
		if (report_parse_format(arg, &o->format)) {
			ms_err("analyze: invalid --format '%s' (text, markdown or json)", arg);
			return -1;
		}
	} else if (key == OPT_UNPAIRED) {
		o->ao.unpaired = true;
	} else {
		return analyze_verdict_opt(key, arg, &o->ao);
	}
	return 0;
}

static int analyze_cmd(int argc, char **argv)
{
	struct analyze_cmd_opts o = { .format = REPORT_TEXT };
	struct results *r = NULL;
	struct analysis *a = NULL;
	const char *file = NULL;
	char err[1024];
	int i, rc;

	i = cli_parse_mixed(&analyze_cli, argc, argv, on_opt, &o, &file, 1);
	if (i == CLI_DONE)
		return MS_EXIT_OK;
	if (i < 0)
		return MS_EXIT_USAGE;
	if (i != 1) {
		ms_err("analyze: expected a results FILE");
		return MS_EXIT_USAGE;
	}
	if (results_load(file, &r, err, sizeof(err))) {
		ms_err("analyze: %s", err);
		return MS_EXIT_FAIL;
	}
	rc = analyze_run(r, &o.ao, &a, err, sizeof(err));
	if (rc) {
		ms_err("analyze: %s: %s", file, err);
		results_free(r);
		return MS_EXIT_FAIL;
	}
	rc = report_write(a, o.format, stdout);
	analyze_free(a);
	results_free(r);
	return rc ? MS_EXIT_FAIL : MS_EXIT_OK;
}

MS_COMMAND(analyze, "per-order gains, CIs and the recommended minimum order");
