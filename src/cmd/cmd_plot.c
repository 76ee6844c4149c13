// SPDX-License-Identifier: GPL-2.0-or-later
/* mthpscope plot: the figures of an analysis, through gnuplot. */
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "cli.h"
#include "collapse.h"
#include "record_doc.h"
#include "commands.h"
#include "json_read.h"
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
		   "Prints the files written. FILE '-' is standard input.\n"
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
		  CLI_ROW_OUTPUT_DIR(struct plot_cmd_opts, dir) },
		{ "format", 'f', "FORMAT", "png (default) or svg",
		  CLI_ROW_WORD(struct plot_cmd_opts, format, plot_format_words) },
		ANALYZE_VERDICT_OPTIONS(struct plot_cmd_opts, ao),
		CLI_END,
	},
};

enum plot_doc { PLOT_DOC_OTHER, PLOT_DOC_COLLAPSE, PLOT_DOC_RECORD };

/* The JSON of buf: a collapse document (COLLAPSE_SCHEMA) gets its own
 * figure (order mass over time), a record document (RECORD_SCHEMA) its
 * two. *doc is the document as their readers take it (duplicate keys
 * rejected), NULL with 'why' saying why when it is not JSON that way. */
static enum plot_doc doc_kind(const char *buf, size_t len, json_t **doc, char *why,
			      size_t size)
{
	json_t *any;
	const char *schema;
	enum plot_doc kind = PLOT_DOC_OTHER;

	rd_parse(buf, len, doc, why, size);
	any = *doc ? json_incref(*doc) : json_loadb(buf, len, 0, NULL);
	schema = json_string_value(json_object_get(any, "schema"));
	if (schema && !strncmp(schema, COLLAPSE_SCHEMA_PREFIX, strlen(COLLAPSE_SCHEMA_PREFIX)))
		kind = PLOT_DOC_COLLAPSE;
	else if (schema && !strncmp(schema, RECORD_SCHEMA_PREFIX, strlen(RECORD_SCHEMA_PREFIX)))
		kind = PLOT_DOC_RECORD;
	json_decref(any);
	return kind;
}

/* The pictures written, each on a line (however many), and a note for
 * each figure not drawn, then freed. */
static void print_files(const char *dir, struct plot_files *files)
{
	size_t i;

	for (i = 0; i < files->nr; i++)
		printf("%s/%s\n", dir, files->name[i]);
	for (i = 0; i < files->nr_skipped; i++)
		ms_note("plot: figure %s not drawn: none of its values can be drawn (none is "
			"finite, or all are beyond %g)", files->skipped[i], PLOT_MAX_VALUE);
	plot_files_free(files);
}

/* A collapse or a record document: read it, plot it, print the files written. */
static int plot_doc(const char *file, enum plot_doc kind, json_t *doc, const char *why,
		    const struct plot_cmd_opts *o)
{
	struct plot_files files = { 0 };
	struct collapse_doc cd;
	struct record_doc rd;
	char err[1024];
	int rc;

	if (!doc) {
		rc = ms_fail(err, sizeof(err), -EBADMSG, "%s", why);
	} else if (kind == PLOT_DOC_COLLAPSE) {
		rc = collapse_doc_read(doc, &cd, err, sizeof(err));
		if (!rc)
			rc = plot_collapse(&cd, o->dir, o->format, &files, err, sizeof(err));
		collapse_doc_free(&cd);
	} else {
		rc = record_doc_read(doc, &rd, err, sizeof(err));
		if (!rc)
			rc = plot_record(&rd, o->dir, o->format, &files, err, sizeof(err));
		record_doc_free(&rd);
	}
	if (rc)
		ms_err("plot: %s: %s", file, err);
	print_files(o->dir, &files);
	if (rc == -ENOPKG)
		return MS_EXIT_ENV;
	return rc ? MS_EXIT_FAIL : MS_EXIT_OK;
}

/* Trials with layouts and no TLB model figure (analyze prints its section
 * saying why): say why here too. plot draws the model the trials name and
 * takes no --tlb-model: the advice to name one is analyze's. */
static void tlb_note(const char *file, const struct tlb_prediction *p)
{
	if (p->advice_at)
		ms_note("plot: %s: no TLB model figure: %.*s (plot draws the model the trials "
			"name; 'mthpscope analyze --tlb-model NAME' shows one you name)", file,
			(int)p->advice_at, p->reason);
	else
		ms_note("plot: %s: no TLB model figure: %s", file, p->reason);
}

/* The figures of a results file's analysis, then those of the TLB model. */
static int plot_results(const char *file, struct results *r, const struct plot_cmd_opts *o)
{
	struct plot_files files = { 0 };
	struct analysis *a = NULL;
	char err[1024];
	int rc;

	if (analyze_run(r, &o->ao, &a, err, sizeof(err))) {
		ms_err("plot: %s: %s", file, err);
		return MS_EXIT_FAIL;
	}
	rc = plot_analysis(a, o->dir, o->format, &files, err, sizeof(err));
	if (!rc && tlb_predict_has_layouts(a)) {
		/* the model the trials name, over their layouts (source model) */
		static struct tlb_prediction p;

		tlb_predict(a, NULL, &p);
		rc = plot_tlb(a, &p, o->dir, o->format, &files, err, sizeof(err));
		if (!p.available)
			tlb_note(file, &p);
	}
	if (rc)
		ms_err("plot: %s", err);
	print_files(o->dir, &files);
	analyze_free(a);
	if (rc == -ENOPKG)
		return MS_EXIT_ENV;
	return rc ? MS_EXIT_FAIL : MS_EXIT_OK;
}

/* FILE read once (a pipe or <(...) can be read only once), with the results
 * reader's limit, then plotted by what it holds: a results file, else a
 * collapse or a record document, else the results reader's complaint. */
static int plot_file(const char *file, const struct plot_cmd_opts *o)
{
	struct results *r = NULL;
	enum plot_doc kind;
	json_t *doc = NULL;
	char err[1024], why[512];
	size_t len;
	char *buf;
	int rc;

	if (results_read_file(file, &buf, &len, err, sizeof(err))) {
		ms_err("plot: %s", err);
		return MS_EXIT_FAIL;
	}
	if (!results_load_buffer(buf ? buf : "", len, file, &r, err, sizeof(err))) {
		rc = plot_results(file, r, o);
		results_free(r);
	} else if ((kind = doc_kind(buf ? buf : "", len, &doc, why, sizeof(why))) !=
		   PLOT_DOC_OTHER) {
		rc = plot_doc(file, kind, doc, why, o);
	} else {
		ms_err("plot: %s", err);
		rc = MS_EXIT_FAIL;
	}
	json_decref(doc);
	free(buf);
	return rc;
}

static int plot_cmd(int argc, char **argv)
{
	struct plot_cmd_opts o = { .format = PLOT_PNG };
	const char *file = NULL;
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
	return plot_file(file, &o);
}

MS_COMMAND(plot, "figures of a results file (gnuplot): bars with CIs, staircase, costs");
