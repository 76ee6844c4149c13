// SPDX-License-Identifier: GPL-2.0-or-later
/* mthpscope compare: A/B comparison of results files. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze.h"
#include "cli.h"
#include "collapse_doc.h"
#include "commands.h"
#include "compare.h"
#include "report.h"
#include "plot.h"
#include "program.h"
#include "program_report.h"
#include "progress.h"
#include "results.h"

#define MAX_METRICS 16

struct compare_cmd_opts {
	enum compare_format format;
	const char *metrics[MAX_METRICS];
	size_t nr_metrics;
	char *metric_buf[MAX_METRICS];
	size_t nr_bufs;
	double fail_pct; /* < 0: off */
	double alpha;
	double gain_run_sd;
	const char *plot_dir;
	enum plot_format plot_format;
};

/* --metric M[,M...]: the field is the whole struct compare_cmd_opts. */
static int add_metrics(const struct cli_cmd *cmd, const char *arg, void *field)
{
	struct compare_cmd_opts *o = field;
	char *copy, *tok, *save;

	(void)cmd;
	/* strtok_r would skip an empty name: "" then meant every metric */
	if (!*arg || *arg == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,")) {
		ms_err("compare: invalid --metric value '%s' (an empty metric name; give "
		       "names such as ns_per_access or walks, separated by commas)", arg);
		return -1;
	}
	if (o->nr_bufs == MAX_METRICS || !(copy = strdup(arg)))
		return -1;
	o->metric_buf[o->nr_bufs++] = copy;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nr_metrics == MAX_METRICS) {
			ms_err("compare: at most %d metrics", MAX_METRICS);
			return -1;
		}
		o->metrics[o->nr_metrics++] = tok;
	}
	return 0;
}

static const struct cli_cmd compare_cli = {
	.name = "compare",
	.args = "A.json[,A2.json...] B.json[,B2.json...] [OTHER.json...]",
	.summary = "Compare results files order by order: the first is the baseline.",
	.details =
		"A file '-' is standard input (once).\n"
		"For every order, span and metric both files measured: the medians, the change\n"
		"(B - A) / A in percent, its bootstrap CI, a Mann-Whitney U p-value and\n"
		"significance after Holm correction over all rows of a pair. Lower is better\n"
		"for times, TLB misses, walks, faults and RSS; counts without a better\n"
		"direction (instructions, stlb_hits, coalesced_hits) are shown, never judged.\n"
		"First, for files with order-0 trials, gain rows: each order's gain in time\n"
		"per access against its own file's order 0 (drift between the runs cancels),\n"
		"their difference in points with a CI and Holm p; absolute time rows are\n"
		"marked drift-prone (~), and the gate leads with the gain rows.\n"
		"A side may be several runs of one kernel or setting, as a comma list\n"
		"(a1.json,a2.json,a3.json): the gain rows then estimate the run-to-run\n"
		"spread from the runs' gains instead of assuming --gain-run-sd, which a VM's\n"
		"host can exceed; three runs a side or more are worth it there, run in turn\n"
		"(A B A B ...) so that a change of the host falls on both sides. The runs of\n"
		"a side must be repeats (kernel, host setup, THP settings by name,\n"
		"patterns); their absolute rows pool the trials.\n"
		"A side of one run whose trials carry placement ids (run from issue 39 on:\n"
		"each rep populated in a placement of its own) takes its run-to-run part from\n"
		"the spread of its placements instead (run_to_run \"placements\").\n"
		"Differences in CPU, virtualization, PMU, pattern, orders or spans are warnings\n"
		"(\"comparable\": false); THP settings that differ are warnings too. Options may\n"
		"follow the files. Collapse documents (collapse -o) are set side by side per\n"
		"max_ptes_none: final folio orders, RSS, time to steady, verdict.",
	.exit_status =
		"0 compared; 1 unreadable input, nothing in common, collapse documents of\n"
		"more than 256 max_ptes_none values in all, or (with --fail-on-regression)\n"
		"a significant regression over the threshold; 2 usage; 3 --plot DIR that\n"
		"cannot be written (checked first) or gnuplot missing.",
	.opts = (const struct cli_opt[]){
		CLI_FORMAT_ROWS(struct compare_cmd_opts, format, 'f', compare_format_words, NULL,
				"text (default), markdown, json (mthpscope.compare/1) or lkml (an "
				"MMTests-style table for a cover letter)"),
		{ "metric", 'm', "M", "compare only metric M (repeat, or M1,M2; a command's also "
				      "real, user, sys, faults, peak); default: every metric "
				      "both files have",
		  CLI_ROW_CB_ALL(struct compare_cmd_opts, add_metrics) },
		{ "fail-on-regression", 0, "PCT", "exit 1 when a significant change for the "
						  "worse is larger than PCT percent (gain rows: points); "
						  "drift-prone absolute rows with a gain row are not counted",
		  CLI_ROW_DOUBLE(struct compare_cmd_opts, fail_pct, 0, 1e9) },
		{ "gain-run-sd", 0, "POINTS", "run-to-run SD of an access-time gain per "
					      "file, added to the gain rows' variance of a "
					      "side of one run without placement ids (default "
					      "1.7, from A/A runs on a shared VM; 0: within-run "
					      "only)",
		  CLI_ROW_DOUBLE(struct compare_cmd_opts, gain_run_sd, 0, 100) },
		{ "alpha", 0, "A", "significance level after Holm correction (default 0.05)",
		  CLI_ROW_DOUBLE(struct compare_cmd_opts, alpha, 1e-9, 0.5) },
		{ "plot", 0, "DIR", "also write A/B figures (per order, A and B side by side with "
				    "CIs; one per metric) into DIR through gnuplot",
		  CLI_ROW_OUTPUT_DIR(struct compare_cmd_opts, plot_dir) },
		{ "plot-format", 0, "FMT", "png (default) or svg",
		  CLI_ROW_WORD(struct compare_cmd_opts, plot_format, plot_format_words) },
		CLI_END,
	},
};

/* "compare-base" for "runs/compare-base.json"; the path itself when two
 * files would get the same short name, or for a descriptor of a pipe
 * (<(cmd) is /dev/fd/63: "63" would name nothing); "stdin" for "-". */
static void make_labels(char **paths, int n, char **labels)
{
	int i, j;
	bool clash = false;

	for (i = 0; i < n; i++) {
		char *copy = strdup(paths[i]), *base, *dot;

		labels[i] = NULL;
		if (!copy)
			continue;
		if (!strcmp(copy, "-")) {
			free(copy);
			labels[i] = strdup("stdin");
			continue;
		}
		if (!strncmp(copy, "/dev/fd/", 8) || !strncmp(copy, "/proc/", 6)) {
			labels[i] = copy;
			continue;
		}
		base = basename(copy);
		memmove(copy, base, strlen(base) + 1);
		dot = strrchr(copy, '.');
		if (dot && dot != copy && !strcmp(dot, ".json"))
			*dot = '\0';
		labels[i] = copy;
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			clash |= labels[i] && labels[j] && !strcmp(labels[i], labels[j]);
	for (i = 0; clash && i < n; i++) {
		free(labels[i]);
		labels[i] = strdup(paths[i]);
	}
}

static void print_regressions(const struct compare_report *r, double pct)
{
	size_t i;

	for (i = 0; i < r->nr_gains; i++) {
		const struct compare_gain_row *g = &r->gains[i];

		if (compare_gain_gates(g, pct))
			ms_err("regression: %s order %d %s gain vs order 0: %+.2f%% -> %+.2f%% "
			       "(%+.2f points, Holm p = %.3g) in %s", g->pattern, g->order,
			       g->metric, g->gain_a, g->gain_b, g->diff, g->p_holm,
			       r->inputs[g->other].label);
	}
	for (i = 0; i < r->nr_rows; i++) {
		const struct compare_row *w = &r->rows[i];

		if (compare_row_gates(r, w, pct))
			ms_err("regression: %s order %d %s: %.2f -> %.2f (%+.2f%%, Holm p = %.3g) "
			       "in %s", w->pattern, w->order, w->metric, w->a, w->b, w->delta_pct,
			       w->p_holm, r->inputs[w->other].label);
	}
}

/* The sides: the files of side i are paths[first[i] .. first[i] + count[i]). */
struct sides {
	char **paths;     /* every file, side by side (strings owned) */
	char **labels;    /* per file */
	char **names;     /* per side: its file's label, or the labels joined by commas */
	int *first, *count;
	int nfiles, nsides;
	bool have0;       /* buf0, len0: the first file's bytes, read to tell its kind */
	char *buf0;
	size_t len0;
};

static void sides_free(struct sides *sd)
{
	ms_strings_free(sd->paths, (size_t)sd->nfiles);
	ms_strings_free(sd->labels, (size_t)sd->nfiles);
	ms_strings_free(sd->names, (size_t)sd->nsides);
	free(sd->first);
	free(sd->count);
	free(sd->buf0);
	memset(sd, 0, sizeof(*sd));
}

/* File i's bytes (*buf NULL when empty; the caller frees it), each file
 * read once (a pipe, as compare <(...) gives, cannot be read twice): the
 * first file's kept from when its kind was told. 0, or -1 after the
 * message. */
static int side_bytes(struct sides *sd, int i, char **buf, size_t *len)
{
	char msg[1024];

	if (i == 0 && sd->have0) {
		*buf = sd->buf0;
		*len = sd->len0;
		sd->buf0 = NULL;
		sd->have0 = false;
		return 0;
	}
	if (results_read_file(sd->paths[i], buf, len, msg, sizeof(msg))) {
		ms_err("compare: %s", msg);
		return -1;
	}
	return 0;
}

/* A report not written whole: where stdout failed (a full disk, a reader
 * gone: | head), main says why once, or nothing for a closed pipe. */
static void report_failed(const char *what)
{
	if (!cli_stdout_error())
		ms_err("compare: writing %s failed", what);
}

/* Whether the first file is a collapse document; -1 after the message
 * when it cannot be read. */
static int sides_collapse(struct sides *sd)
{
	if (side_bytes(sd, 0, &sd->buf0, &sd->len0))
		return -1;
	sd->have0 = true;
	return collapse_doc_buffer_is(sd->buf0 ? sd->buf0 : "", sd->len0);
}

/* Collapse documents: order mass, RSS and time side by side (no statistics:
 * one run per max_ptes_none and kernel). */
static int compare_collapse_files(struct sides *sd, const struct compare_cmd_opts *o)
{
	char **paths = sd->paths;
	int n = sd->nfiles;
	struct collapse_doc *docs = calloc((size_t)n, sizeof(*docs));
	struct compare_collapse *cc = calloc(1, sizeof(*cc));
	char msg[1024];
	int i, rc = MS_EXIT_FAIL;
	size_t k;

	if (o->nr_metrics || o->fail_pct >= 0 || o->plot_dir) {
		ms_err("compare: --metric, --fail-on-regression and --plot are for results files, "
		       "not collapse documents");
		rc = MS_EXIT_USAGE;
		goto out;
	}
	if (!docs || !cc) {
		ms_err("compare: out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		size_t len;
		char *buf;
		int err;

		if (side_bytes(sd, i, &buf, &len))
			goto out;
		err = collapse_doc_load_buffer(buf ? buf : "", len, &docs[i], msg, sizeof(msg));
		if (err == -EPROTO && !collapse_doc_buffer_is(buf ? buf : "", len))
			ms_err("compare: %s is not a collapse document, %s is: compare one kind "
			       "of file at a time", paths[i], paths[0]);
		else if (err)
			ms_err("compare: %s: %s", paths[i], msg);
		free(buf);
		if (err)
			goto out;
	}
	if ((i = compare_collapse_build(docs, (const char *const *)sd->labels, (size_t)n, cc, msg,
					sizeof(msg)))) {
		ms_err("compare: %s", msg);
		/* too many files is the command line's; too many values, the files' */
		rc = i == -EINVAL ? MS_EXIT_USAGE : MS_EXIT_FAIL;
		goto out;
	}
	for (k = 0; k < cc->nr_warnings; k++)
		ms_warn("%s", cc->warnings[k]);
	if (report_compare_collapse_write(cc, o->format, stdout)) {
		report_failed("the report");
		goto out;
	}
	rc = MS_EXIT_OK;
out:
	for (i = 0; docs && i < n; i++)
		collapse_doc_free(&docs[i]);
	free(docs);
	free(cc);
	return rc;
}

/* The gate's count; a note for the drift-prone rows it left out. */
static size_t count_regressions(const struct compare_report *r, double pct)
{
	size_t skipped, n = compare_count_regressions(r, pct, &skipped);

	if (skipped)
		ms_note("compare: %zu significant change%s for the worse in drift-prone "
			"absolute rows not counted: their gains against order 0 are the "
			"drift-proof test (gain rows)", skipped, skipped == 1 ? "" : "s");
	return n;
}

static void show_rows(size_t done, size_t total, void *ctx)
{
	progress_show(ctx, (double)done / (double)total, "compare: %zu of %zu series", done, total);
}

/* Split "a.json,b.json" into its files (a name that exists as it is stays
 * whole); 0, -EINVAL after the message, or -ENOMEM. */
static int side_split(struct sides *sd, const char *arg, size_t cap)
{
	char *copy, *tok, *save;
	int err = 0;

	if (!strchr(arg, ',') || !access(arg, F_OK)) {
		if (!(sd->paths[sd->nfiles] = strdup(arg)))
			return -ENOMEM;
		sd->nfiles++;
		return 0;
	}
	if (*arg == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,")) {
		ms_err("compare: '%s': an empty file name in a comma list of runs", arg);
		return -EINVAL;
	}
	if (!(copy = strdup(arg)))
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		if ((size_t)sd->nfiles == cap || !(sd->paths[sd->nfiles] = strdup(tok)))
			err = -ENOMEM;
		else
			sd->nfiles++;
	}
	free(copy);
	return err;
}

/* The side's name: its labels joined by commas; NULL when out of memory. */
static char *side_name(char *const *labels, int n)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < n; i++)
		len += strlen(labels[i] ? labels[i] : "") + 1;
	if (!(s = calloc(1, len)))
		return NULL;
	for (i = 0; i < n; i++) {
		if (i)
			strcat(s, ",");
		strcat(s, labels[i] ? labels[i] : "");
	}
	return s;
}

/* Whether two regular files of the same size hold the same bytes. */
static bool same_bytes(const char *p, const char *q, const struct stat *sp,
		       const struct stat *sq)
{
	char a[8192], b[8192];
	bool same = sp->st_size == sq->st_size && S_ISREG(sp->st_mode) && S_ISREG(sq->st_mode);
	FILE *fp = same ? fopen(p, "r") : NULL, *fq = same ? fopen(q, "r") : NULL;
	size_t n;

	same = fp && fq;
	while (same && (n = fread(a, 1, sizeof(a), fp)) > 0)
		same = fread(b, 1, n, fq) == n && !memcmp(a, b, n);
	if (fp)
		fclose(fp);
	if (fq)
		fclose(fq);
	return same;
}

/* Whether a run is given twice in one side: one file by name or inode, or
 * a copy of it (the same run counted twice would shrink the runs' spread);
 * says which. */
static bool side_repeats(const struct sides *sd, int k)
{
	int i, j, f = sd->first[k];
	struct stat si, sj;

	for (i = f; i < f + sd->count[k]; i++)
		for (j = i + 1; j < f + sd->count[k]; j++) {
			bool both = !stat(sd->paths[i], &si) && !stat(sd->paths[j], &sj);

			if (!strcmp(sd->paths[i], sd->paths[j]) ||
			    (both && si.st_dev == sj.st_dev && si.st_ino == sj.st_ino)) {
				ms_err("compare: %s and %s are one file, given twice in a side "
				       "(each run once)", sd->paths[i], sd->paths[j]);
				return true;
			}
			if (both && same_bytes(sd->paths[i], sd->paths[j], &si, &sj)) {
				ms_err("compare: %s and %s are copies of one run (the same bytes): "
				       "each run once", sd->paths[i], sd->paths[j]);
				return true;
			}
		}
	return false;
}

/* A file that is not a regular one (a pipe: compare <(...)), given twice:
 * its bytes can be read once, says which. */
static bool pipe_twice(const struct sides *sd)
{
	struct stat st;
	int i, j;

	for (i = 0; i < sd->nfiles; i++)
		for (j = i + 1; j < sd->nfiles; j++)
			if (!strcmp(sd->paths[i], sd->paths[j]) &&
			    (!strcmp(sd->paths[i], "-") ||
			     (!stat(sd->paths[i], &st) && !S_ISREG(st.st_mode) &&
			      !S_ISDIR(st.st_mode)))) {
				ms_err("compare: %s is given twice, and is not a file: its bytes "
				       "can be read once (save them to a file)",
				       strcmp(sd->paths[i], "-") ? sd->paths[i]
								  : "- (standard input)");
				return true;
			}
	return false;
}

/* The sides of the positional arguments; MS_EXIT_OK, or after the message
 * MS_EXIT_USAGE (an empty name in a list) or MS_EXIT_FAIL. */
static int sides_make(struct sides *sd, char **v, int nv)
{
	size_t cap = 0;
	int i;

	for (i = 0; i < nv; i++)
		cap += strlen(v[i]) / 2 + 1; /* a comma list of n names is >= 2n - 1 long */
	sd->paths = calloc(cap, sizeof(*sd->paths));
	sd->labels = calloc(cap, sizeof(*sd->labels));
	sd->names = calloc((size_t)nv, sizeof(*sd->names));
	sd->first = calloc((size_t)nv, sizeof(*sd->first));
	sd->count = calloc((size_t)nv, sizeof(*sd->count));
	if (!sd->paths || !sd->labels || !sd->names || !sd->first || !sd->count)
		goto oom;
	for (i = 0; i < nv; i++) {
		int err;

		sd->first[i] = sd->nfiles;
		if ((err = side_split(sd, v[i], cap)) == -EINVAL)
			return MS_EXIT_USAGE;
		if (err)
			goto oom;
		sd->count[i] = sd->nfiles - sd->first[i];
		sd->nsides++;
		if (side_repeats(sd, i))
			return MS_EXIT_USAGE;
	}
	if (pipe_twice(sd))
		return MS_EXIT_USAGE;
	make_labels(sd->paths, sd->nfiles, sd->labels);
	for (i = 0; i < nv; i++)
		if (!(sd->names[i] = side_name(sd->labels + sd->first[i], sd->count[i])))
			goto oom;
	return MS_EXIT_OK;
oom:
	ms_err("compare: out of memory");
	return MS_EXIT_FAIL;
}

/* The trials a side left out, each kind with its own reason: a failed
 * command's trial may have had every folio of its order. */
static void warn_left_out(const char *side, const struct compare_input *in)
{
	if (in->nr_failed)
		ms_warn("%s: %zu trial%s left out: the command failed or timed out, so %s "
			"measured nothing", side, in->nr_failed, in->nr_failed == 1 ? "" : "s",
			in->nr_failed == 1 ? "it" : "they");
	if (in->nr_dropped)
		ms_warn("%s: %zu trial%s left out: their folios were not of the order "
			"they were meant to measure (coverage below %.0f%%; a command's: "
			"under %.0f%%, or under half its order's others)", side,
			in->nr_dropped, in->nr_dropped == 1 ? "" : "s",
			RESULTS_MIN_COVERAGE * 100, PROGRAM_COVERAGE_NEAR_ZERO * 100);
}

/* Load each file into res[] and each side's compare input; 0, or -1 after
 * the message. */
static int load_inputs(struct sides *sd, struct results **res, struct compare_input *inputs)
{
	char msg[512];
	int i, k;

	for (i = 0; i < sd->nfiles; i++) {
		size_t len;
		char *buf;
		int err;

		if (side_bytes(sd, i, &buf, &len))
			return -1;
		err = results_load_buffer(buf ? buf : "", len, sd->paths[i], &res[i], msg,
					  sizeof(msg));
		free(buf);
		if (err) {
			ms_err("compare: %s", msg);
			return -1;
		}
	}
	for (k = 0; k < sd->nsides; k++) {
		const struct results *const *rs = (const struct results *const *)res + sd->first[k];
		size_t bad = compare_runs_differ(rs, (size_t)sd->count[k], msg, sizeof(msg));

		if (bad) {
			ms_err("compare: %s is not a repeat of %s: %s (the runs of a side must "
			       "be repeats: one kernel, host setup, THP settings and patterns)",
			       sd->paths[sd->first[k] + (int)bad], sd->paths[sd->first[k]], msg);
			return -1;
		}
		if (!sd->names[k] ||
		    compare_input_from_runs(rs, (size_t)sd->count[k], sd->names[k], &inputs[k])) {
			ms_err("compare: out of memory");
			return -1;
		}
		warn_left_out(sd->count[k] == 1 ? sd->paths[sd->first[k]] : sd->names[k],
			      &inputs[k]);
	}
	return 0;
}

/* analyze's min_order and plateau_order of each side's first run, for the
 * lkml table's "Order" row; a file analyze refuses has none. */
static void recommend_inputs(const struct sides *sd, struct results **res,
			     struct compare_input *inputs)
{
	char msg[256];
	int k;

	for (k = 0; k < sd->nsides; k++) {
		struct analysis *a;

		if (analyze_run(res[sd->first[k]], NULL, &a, msg, sizeof(msg)))
			continue;
		inputs[k].has_rec = true;
		inputs[k].min_order = a->min_order;
		inputs[k].plateau_order = a->plateau.order;
		analyze_free(a);
	}
}

static bool is_program(const struct results *r)
{
	for (size_t i = 0; i < r->nr_trials; i++)
		if (r->trials[i].workload == RESULTS_WL_COMMAND)
			return true;
	return false;
}

/* Programs' files (run -- CMD): each side's table per metric and the
 * difference of the others against the first, after the rows (text,
 * markdown, lkml), or as "programs" in the JSON document (*json: a new
 * reference, NULL when they are not programs). Nothing unless every side's
 * first run gives a table. */
static int programs_write(const struct sides *sd, struct results **res,
			  enum compare_format fmt, json_t **json)
{
	struct analysis **a = calloc((size_t)sd->nsides, sizeof(*a));
	struct program_table *pt = calloc((size_t)sd->nsides, sizeof(*pt));
	struct program_side *s = calloc((size_t)sd->nsides, sizeof(*s));
	char msg[256];
	int k, rc = MS_EXIT_FAIL;

	if (!a || !pt || !s) {
		ms_err("compare: out of memory");
		goto out;
	}
	rc = MS_EXIT_OK;
	for (k = 0; k < sd->nsides; k++)
		if (!is_program(res[sd->first[k]]))
			goto out;
	for (k = 0; k < sd->nsides; k++) {
		if (analyze_run(res[sd->first[k]], NULL, &a[k], msg, sizeof(msg)) ||
		    program_table_build(a[k], &pt[k]) || !pt[k].available)
			goto out; /* not programs, or one analyze refuses: no tables */
		s[k] = (struct program_side){ sd->names[k], a[k], &pt[k] };
	}
	if (fmt == COMPARE_FMT_JSON) {
		*json = json_array();
		for (k = 0; *json && k < sd->nsides; k++)
			json_array_append_new(*json, json_pack("{s:s, s:o}", "side", sd->names[k],
					      "program", program_report_json(a[k], &pt[k])));
		goto out;
	}
	fputc('\n', stdout);
	if (program_report_sides(s, (size_t)sd->nsides, fmt == COMPARE_FMT_MARKDOWN ?
				 REPORT_MARKDOWN : fmt == COMPARE_FMT_LKML ? REPORT_LKML :
				 REPORT_TEXT, stdout)) {
		report_failed("the programs' tables");
		rc = MS_EXIT_FAIL;
	}
out:
	for (k = 0; a && k < sd->nsides; k++)
		analyze_free(a[k]);
	free(a);
	free(pt);
	free(s);
	return rc;
}

/* Where a gain row of a side of one run is flagged: how to tell it from
 * the run-to-run part, which that side only assumes. */
static void note_runs(const struct compare_report *r, double gain_run_sd)
{
	size_t i;

	for (i = 0; i < r->nr_gains; i++)
		if (r->gains[i].significant &&
		    ((!r->gains[i].run_sd_estimated_a && !r->gains[i].run_sd_placements_a) ||
		     (!r->gains[i].run_sd_estimated_b && !r->gains[i].run_sd_placements_b))) {
			fflush(stdout);
			ms_note("compare: a flagged gain row with one run a side assumes the "
				"run-to-run part (--gain-run-sd %g points); a VM's host can move "
				"gains between runs by more: give three runs a side or more "
				"(a1.json,a2.json,a3.json b1.json,b2.json,b3.json) to estimate it",
				gain_run_sd);
			return;
		}
}

/* The report, the figures and the --fail-above check: an exit status. */
static int compare_output(const struct compare_report *report, const struct compare_cmd_opts *o,
			  json_t *programs)
{
	char msg[512];
	size_t nreg;
	int err;

	if (o->format == COMPARE_FMT_JSON ? report_compare_write_json(report, programs, stdout) :
	    report_compare_write(report, o->format, stdout)) {
		report_failed("the report");
		return MS_EXIT_FAIL;
	}
	note_runs(report, o->gain_run_sd);
	if (o->plot_dir) {
		size_t nfig = 0;

		fflush(stdout);
		err = plot_compare(report, o->plot_dir, o->plot_format, &nfig, msg, sizeof(msg));
		if (err) {
			ms_err("compare: plot: %s", msg);
			return err == -ENOPKG ? MS_EXIT_ENV : MS_EXIT_FAIL;
		}
		ms_note("%zu A/B figure%s written to %s", nfig, nfig == 1 ? "" : "s", o->plot_dir);
	}
	if (o->fail_pct >= 0) {
		nreg = count_regressions(report, o->fail_pct);
		if (nreg) {
			fflush(stdout);
			print_regressions(report, o->fail_pct);
			ms_err("compare: %zu significant regression%s larger than %g%%", nreg,
			       nreg == 1 ? "" : "s", o->fail_pct);
			return MS_EXIT_FAIL;
		}
	}
	return MS_EXIT_OK;
}

/* The comparison of the loaded inputs, with the progress line. */
static int build_report(struct compare_input *inputs, int nfiles,
			const struct compare_cmd_opts *o, struct compare_report *report)
{
	struct compare_opts copts = COMPARE_OPTS_DEFAULT;
	const char *names[MAX_METRICS];
	struct progress prog;
	size_t i;
	int err;

	/* --metric sys: the word, as analyze --metric takes it */
	for (i = 0; i < o->nr_metrics; i++)
		names[i] = compare_metric_name(inputs, (size_t)nfiles, o->metrics[i]);
	copts.metrics = names;
	copts.nr_metrics = o->nr_metrics;
	copts.alpha = o->alpha;
	copts.gain_run_sd = o->gain_run_sd;
	progress_init(&prog);
	copts.on_series = show_rows;
	copts.on_series_ctx = &prog;
	err = compare_build(inputs, (size_t)nfiles, &copts, report);
	progress_clear(&prog);
	return err;
}

/* Results files side by side: an exit status. */
static int compare_results(struct sides *sd, const struct compare_cmd_opts *o)
{
	struct compare_report report = { .nr_rows = 0 };
	json_t *programs = NULL;
	struct compare_input *inputs = calloc((size_t)sd->nsides, sizeof(*inputs));
	struct results **res = calloc((size_t)sd->nfiles, sizeof(*res));
	int i, rc = MS_EXIT_FAIL, err;
	size_t k;

	if (!inputs || !res) {
		ms_err("compare: out of memory");
		goto out;
	}
	if (load_inputs(sd, res, inputs))
		goto out;
	if (o->format == COMPARE_FMT_LKML)
		recommend_inputs(sd, res, inputs);
	err = build_report(inputs, sd->nsides, o, &report);
	for (k = 0; k < report.nr_warnings; k++)
		ms_warn("%s", report.warnings[k]);
	if (err) {
		ms_err("compare: %s", report.error);
		rc = err == -EINVAL && o->nr_metrics ? MS_EXIT_USAGE : MS_EXIT_FAIL;
		goto out;
	}
	if (o->format == COMPARE_FMT_JSON && programs_write(sd, res, o->format, &programs)) {
		rc = MS_EXIT_FAIL;
		goto out;
	}
	rc = compare_output(&report, o, programs);
	if (o->format != COMPARE_FMT_JSON && programs_write(sd, res, o->format, NULL))
		rc = MS_EXIT_FAIL;
out:
	json_decref(programs);
	compare_report_free(&report);
	for (i = 0; inputs && i < sd->nsides; i++)
		compare_input_free(&inputs[i]);
	for (i = 0; res && i < sd->nfiles; i++)
		if (res[i])
			results_free(res[i]);
	free(inputs);
	free(res);
	return rc;
}

static int compare_cmd(int argc, char **argv)
{
	struct compare_cmd_opts o = { .format = COMPARE_FMT_TEXT, .fail_pct = -1, .alpha = 0.05,
				      .gain_run_sd = COMPARE_GAIN_RUN_SD,
				      .plot_format = PLOT_PNG };
	struct sides sd = { .nfiles = 0 };
	char **v;
	int vc, rc = MS_EXIT_FAIL;
	size_t k;

	/* options may come before, between and after the file names; one
	 * parser for all of them, so a missing value is a usage error */
	v = calloc((size_t)argc + 1, sizeof(*v));
	if (!v) {
		ms_err("compare: out of memory");
		return MS_EXIT_FAIL;
	}
	vc = cli_parse_mixed(&compare_cli, argc, argv, &o, (const char **)v, argc);
	if (vc < 0) {
		rc = vc == CLI_DONE ? MS_EXIT_OK : MS_EXIT_USAGE;
		goto out;
	}
	if (vc < 2) {
		ms_err("compare: needs two results files or more (the first is the baseline)");
		cli_usage(&compare_cli, stderr);
		rc = MS_EXIT_USAGE;
		goto out;
	}
	if ((rc = cli_check_outputs(&compare_cli, &o)))
		goto out;
	if ((rc = sides_make(&sd, v, vc)))
		goto out;
	if ((rc = sides_collapse(&sd)) < 0) {
		rc = MS_EXIT_FAIL;
		goto out;
	}
	if (rc) {
		if (sd.nfiles != sd.nsides) {
			ms_err("compare: collapse documents are compared one per side, not as "
			       "comma lists of runs");
			rc = MS_EXIT_USAGE;
			goto out;
		}
		rc = compare_collapse_files(&sd, &o);
		goto out;
	}
	rc = compare_results(&sd, &o);
out:
	sides_free(&sd);
	for (k = 0; k < o.nr_bufs; k++)
		free(o.metric_buf[k]);
	free(v);
	return rc;
}

MS_COMMAND(compare, "A/B comparison of results files (kernels or settings), order by order");
