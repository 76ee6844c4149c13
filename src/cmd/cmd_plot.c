// SPDX-License-Identifier: GPL-2.0-or-later
/* mthpscope plot: the figures of an analysis, through gnuplot. */
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "atomic.h"
#include "cli.h"
#include "collapse.h"
#include "record_doc.h"
#include "commands.h"
#include "plot.h"
#include "results.h"

struct plot_cmd_opts {
	const char *dir;
	enum plot_format format;
	struct analyze_opts ao;
};

static const struct cli_cmd plot_cli = {
	.name = "plot",
	.args = "FILE",
	.summary = "Figures of a results file: per-order bars with CIs, gain, span staircase, "
		   "gain vs bloat, faults.",
	.details = "Writes into DIR: gain.* (primary metric saved vs order 0, or its rise where\n"
		   "higher is better; CI whiskers, materiality line, recommended order marked),\n"
		   "metric_<name>.* (per-order bars of every metric that is not zero at every\n"
		   "order), staircase.* (when the file holds several spans: log x, one line per\n"
		   "order), gain_bloat.* (gain against sparse RSS, when sparse trials exist),\n"
		   "faults.* (page faults per order, log y). Each figure keeps its NAME.dat and\n"
		   "NAME.gp; 'gnuplot NAME.gp' redraws it. Needs gnuplot (Debian: gnuplot-nox).\n"
		   "Prints the files written.\n"
		   "An mthpscope collapse document (" COLLAPSE_SCHEMA ") gives collapse.*:\n"
		   "the span's order mass over time, stacked, one panel per max_ptes_none.\n"
		   "An mthpscope record document (" RECORD_SCHEMA ") gives record_orders.*\n"
		   "(per VMA, the share of its samples and of its memory at each folio order)\n"
		   "and record_windows.* (the hottest windows, samples by order).",
	.exit_status =
		   "0 written, 1 bad file or gnuplot failed, 2 usage error,\n"
		   "3 gnuplot missing, or -o names something other than a directory that can be\n"
		   "written.",
	.opts = (const struct cli_opt[]){
		{ "output", 'o', "DIR", "directory for the figures (created if missing; required)",
		  .type = CLI_OUTPUT_DIR, CLI_AT(struct plot_cmd_opts, dir) },
		{ "format", 'f', "FORMAT", "png (default) or svg",
		  CLI_ROW_WORD(struct plot_cmd_opts, format, plot_format_words) },
		ANALYZE_VERDICT_OPTIONS(struct plot_cmd_opts, ao),
		CLI_END,
	},
};

/* A collapse document (COLLAPSE_SCHEMA) gets its own figure (order mass over
 * time), a record document (RECORD_SCHEMA) its two; anything else goes to
 * the results reader and its checks. */
static bool has_schema(const char *file, const char *prefix)
{
	json_t *doc = json_load_file(file, 0, NULL);
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	bool yes = schema && !strncmp(schema, prefix, strlen(prefix));

	json_decref(doc);
	return yes;
}

enum plot_doc { PLOT_DOC_COLLAPSE, PLOT_DOC_RECORD };

/* A collapse or a record document: load it, plot it, print the files written. */
static int plot_doc_file(const char *file, enum plot_doc kind, const struct plot_cmd_opts *o)
{
	struct plot_files files = { .nr = 0 };
	struct collapse_doc cd;
	struct record_doc rd;
	char err[1024];
	int i, rc;

	if (kind == PLOT_DOC_COLLAPSE) {
		rc = collapse_doc_load(file, &cd, err, sizeof(err));
		if (!rc)
			rc = plot_collapse(&cd, o->dir, o->format, &files, err, sizeof(err));
		collapse_doc_free(&cd);
	} else {
		rc = record_doc_load(file, &rd, err, sizeof(err));
		if (!rc)
			rc = plot_record(&rd, o->dir, o->format, &files, err, sizeof(err));
		record_doc_free(&rd);
	}
	if (rc)
		ms_err("plot: %s: %s", file, err);
	for (i = 0; i < files.nr; i++)
		printf("%s/%s\n", o->dir, files.name[i]);
	if (rc == -ENOPKG)
		return MS_EXIT_ENV;
	return rc ? MS_EXIT_FAIL : MS_EXIT_OK;
}

static int plot_cmd(int argc, char **argv)
{
	struct plot_cmd_opts o = { .format = PLOT_PNG };
	struct results *r = NULL;
	struct analysis *a = NULL;
	struct plot_files files;
	const char *file = NULL;
	char err[1024];
	int i, rc;

	i = cli_parse_mixed(&plot_cli, argc, argv, &o, &file, 1);
	if (i == CLI_DONE)
		return MS_EXIT_OK;
	if (i < 0)
		return MS_EXIT_USAGE;
	if (i != 1 || !o.dir) {
		ms_err("plot: expected a results FILE and -o DIR");
		return MS_EXIT_USAGE;
	}
	if ((rc = cli_check_outputs(&plot_cli, &o)))
		return rc;
	if (collapse_doc_file_is(file))
		return plot_doc_file(file, PLOT_DOC_COLLAPSE, &o);
	if (has_schema(file, RECORD_SCHEMA_PREFIX))
		return plot_doc_file(file, PLOT_DOC_RECORD, &o);
	if (results_load(file, &r, err, sizeof(err))) {
		ms_err("plot: %s", err);
		return MS_EXIT_FAIL;
	}
	if (analyze_run(r, &o.ao, &a, err, sizeof(err))) {
		ms_err("plot: %s: %s", file, err);
		results_free(r);
		return MS_EXIT_FAIL;
	}
	rc = plot_analysis(a, o.dir, o.format, &files, err, sizeof(err));
	if (!rc && tlb_predict_has_layouts(a)) {
		/* the model the trials name, over their layouts (source model) */
		static struct tlb_prediction p;

		tlb_predict(a, NULL, &p);
		rc = plot_tlb(a, &p, o.dir, o.format, &files, err, sizeof(err));
	}
	if (rc)
		ms_err("plot: %s", err);
	for (i = 0; i < files.nr; i++)
		printf("%s/%s\n", o.dir, files.name[i]);
	analyze_free(a);
	results_free(r);
	if (rc == -ENOPKG)
		return MS_EXIT_ENV;
	return rc ? MS_EXIT_FAIL : MS_EXIT_OK;
}

MS_COMMAND(plot, "figures of a results file (gnuplot): bars with CIs, staircase, costs");
