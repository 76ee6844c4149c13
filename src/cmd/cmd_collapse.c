// SPDX-License-Identifier: GPL-2.0-or-later
/* mthpscope collapse: how fast, to which orders and at what RSS cost the
 * kernel collapses a sparse span (khugepaged or MADV_COLLAPSE). */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic.h"
#include "cli.h"
#include "collapse.h"
#include "collapse_replay.h"
#include "collapse_report.h"
#include "commands.h"
#include "counters.h"
#include "plot.h"
#include "progress.h"
#include "report.h"
#include "results.h"
#include "thp.h"
#include "topo.h"

#define MEASURE_REPS 5

struct collapse_cmd_opts {
	struct collapse_config cfg;
	struct folio_orders orders;
	int mpn[COLLAPSE_DOC_MAX_MPN];
	int nr_mpn;
	enum report_format format;
	bool json, measure;      /* json: --format json */
	const char *output, *plot;
	FILE *report;            /* the text: stdout, or stderr when -o is stdout */
	unsigned long long span;
	double timeout_s;
	unsigned hold_s;
	/* --replay */
	int replay;              /* index into replay_words, -1: a real collapse */
	bool mpn_given, fill_given, span_given, seed_given;
	struct collapse_replay_opts rp;
};

/* The policies of collapse --replay (src/analysis/replay.h). */
static const char *const replay_words[] = {
	"merged", "pache-v1", "jain", "merged-defer", "pache-v1-defer", "jain-defer", NULL,
};

/* --max-ptes-none N[,N...]: the field is the whole struct collapse_cmd_opts. */
static int parse_mpn(const struct cli_cmd *cmd, const char *arg, void *field)
{
	struct collapse_cmd_opts *o = field;
	char *copy = strdup(arg), *tok, *save = NULL;
	int rc = 0;

	(void)cmd;
	if (!copy)
		return -1;
	o->nr_mpn = 0;
	o->mpn_given = true;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long v;

		if (o->nr_mpn == COLLAPSE_DOC_MAX_MPN) {
			ms_err("--max-ptes-none: at most %d values", COLLAPSE_DOC_MAX_MPN);
			rc = -1;
			break;
		}
		/* the kernel takes 0 .. pages per PMD - 1: a page table page
		 * holds page size / 8 entries (511 with 4K pages, 2047 with
		 * 16K, 8191 with 64K); this host's limit is checked once
		 * --replay (whose map may have another page size) is known */
		if (cli_parse_long("max-ptes-none", tok, 0, 65536 / 8 - 1, &v)) {
			rc = -1;
			break;
		}
		o->mpn[o->nr_mpn++] = (int)v;
	}
	if (!rc && !o->nr_mpn) {
		ms_err("--max-ptes-none: no value given");
		rc = -1;
	}
	free(copy);
	return rc;
}

#define CO(m) CLI_AT(struct collapse_cmd_opts, m)

static const struct cli_cmd collapse_cli = {
	.name = "collapse",
	.summary = "Fault a span sparsely at order 0 and watch the kernel collapse it: "
		   "orders over time, RSS growth, khugepaged counters.",
	.details =
		"The span is faulted with MADV_NOHUGEPAGE, --fill percent of each PMD's pages\n"
		"present in holes of every size (seeded), so it starts at order 0. Then the\n"
		"target sizes are enabled ('madvise', or 'defer' where a kernel offers it per\n"
		"size), max_ptes_none is set and the span gets MADV_HUGEPAGE; khugepaged is\n"
		"sped up (mode khugepaged) or MADV_COLLAPSE is called (mode madvise), and the\n"
		"span's folio orders are sampled until steady (khugepaged: two full scans\n"
		"without change) or the timeout. Mainline MADV_COLLAPSE ignores max_ptes_none.\n"
		"Every THP knob is restored on exit. Needs root (sysfs writes, PFNs).\n"
		"SIGINT or SIGTERM ends the sweep: the runs whose timelines were whole are\n"
		"reported and written (the document says \"interrupted\": true), a timeline in\n"
		"progress is left out; during --hold it ends the hold and that run is kept.",
	.exit_status =
		"0 done (also when nothing collapsed), 1 runtime failure, 2 bad option,\n"
		"3 not root, unsupported order or a span that does not fit; 128 + N: signal N.\n"
		"An -o write that fails at the end (a full disk) is 1, and the document is\n"
		"saved in $TMPDIR, /var/tmp or /tmp instead.",
	.opts = (const struct cli_opt[]){
		{ "mode", 'm', "MODE", "khugepaged (default) or madvise (MADV_COLLAPSE)",
		  CLI_ROW_WORD(struct collapse_cmd_opts, cfg.mode, collapse_mode_words) },
		{ "orders", 'O', "LIST",
		  "target orders enabled for collapse: 2,4,9 or 2-9 or all (default: all anon orders); "
		  "every other size is set to never", .type = CLI_ORDERS, CO(orders) },
		{ "max-ptes-none", 'n', "N[,N...]",
		  "khugepaged/max_ptes_none, 0 to pages per PMD - 1 (511 with 4K pages); several values "
		  "sweep (default: that largest value, the kernel default)",
		  CLI_ROW_CB_ALL(struct collapse_cmd_opts, parse_mpn) },
		{ "fill", 'f', "PCT", "percent of each PMD's pages faulted (default 50)",
		  .type = CLI_DOUBLE, CO(cfg.fill), .dmin = 0, .dmax = 100, .div = 100.0,
		  CLI_GIVEN(struct collapse_cmd_opts, fill_given) },
		{ "span", 's', "SIZE", "span, a multiple of the PMD size (default 64M)",
		  .type = CLI_SIZE, CO(span), CLI_GIVEN(struct collapse_cmd_opts, span_given) },
		{ "interval", 'i', "MS", "sampling interval in ms (default 100)",
		  .type = CLI_INT, CO(cfg.interval_ms), .imin = 1, .imax = 60000 },
		{ "timeout", 't', "S", "stop waiting for a steady histogram after S seconds "
				       "(default 60)",
		  .type = CLI_DOUBLE, CO(timeout_s), .dmin = 0.001, .dmax = 86400 },
		{ "measure", 0, NULL,
		  "chase-tlb before (an identical span at order 0) and after the collapse",
		  .type = CLI_FLAG, CO(measure) },
		{ "seed", 0, "N", "seed of the hole pattern (default 1)",
		  .type = CLI_INT, CO(cfg.seed), .imin = 0, .imax = LONG_MAX,
		  CLI_GIVEN(struct collapse_cmd_opts, seed_given) },
		{ "scan-sleep", 0, "MS", "khugepaged/scan_sleep_millisecs while running (default 10)",
		  .type = CLI_INT, CO(cfg.scan_sleep_ms), .imin = 0, .imax = 600000 },
		{ "pages-to-scan", 0, "N",
		  "khugepaged/pages_to_scan while running (default 2 x the span's pages, >= 4096)",
		  .type = CLI_INT, CO(cfg.pages_to_scan), .imin = 1, .imax = 1L << 30 },
		{ "hold", 0, "S",
		  "keep each run's span mapped S seconds after its timeline (for scan --pid PID from "
		  "elsewhere; the pid is on stderr)", .type = CLI_INT, CO(hold_s), .imin = 0,
		  .imax = 86400 },
		CLI_FORMAT_ROWS(struct collapse_cmd_opts, format, 0, cli_formats_text_json,
				cli_formats_text_json_vals,
				"text (default) or json (schema " COLLAPSE_SCHEMA ") on stdout"),
		{ "output", 'o', "FILE", "also write the document (" COLLAPSE_SCHEMA ") to FILE, "
					 "atomically ('-': stdout, the text report then on stderr)",
		  .type = CLI_OUTPUT_FILE, CO(output) },
		{ "plot", 0, "DIR", "plot order mass over time (stacked areas) with gnuplot: "
				    "DIR/collapse.png (as 'mthpscope plot' does from the JSON)",
		  .type = CLI_OUTPUT_DIR, CO(plot) },
		{ "replay", 0, "POLICY",
		  "no kernel: replay a khugepaged policy model on a presence map (merged: the 7.x "
		  "kernel's; pache-v1; jain; each also POLICY-defer); needs no root",
		  CLI_ROW_WORD(struct collapse_cmd_opts, replay, replay_words) },
		{ "presence", 0, "FILE",
		  "--replay: the map of 'scan --presence FILE' (default: the pattern --fill, --span "
		  "and --seed give, as collapse faults it)", .type = CLI_PATH, CO(rp.presence) },
		{ "passes", 0, "N", "--replay: khugepaged full scans to replay (default 4)",
		  CLI_ROW_INT(struct collapse_cmd_opts, rp.passes, 1, 1000) },
		{ "min-order", 0, "N", "--replay: the smallest mTHP order collapse makes: 2 "
				       "(default), 3 or 4",
		  CLI_ROW_INT(struct collapse_cmd_opts, rp.min_order, 2, 4) },
		{ "final-map", 0, "FILE",
		  "--replay: also write the map after the last pass of the first --max-ptes-none "
		  "value as a presence document (the model's frames), atomically",
		  .type = CLI_OUTPUT_FILE, CO(rp.final_map) },
		{ "page-size", 0, "BYTES", "--replay without --presence: the pattern's page size, "
					   "4096, 16384 or 65536 (default: this host's)",
		  .type = CLI_SIZE, CO(rp.page_size), .imin = 4096 },
		{ "tlb-model", 0, "LIST", "--replay: the CPU models whose TLB entries are given: all "
					  "(default) or NAME[,NAME...] of 'info --tlb-model list'",
		  .type = CLI_STRING, CO(rp.tlb_models), .imin = 1 },
		CLI_END,
	},
};

static int exit_for(int err)
{
	if (err == -ENOMEM || err == -EOPNOTSUPP)
		return MS_EXIT_ENV;
	return ms_exit_for_errno(err);
}

/* The progress line while the kernel collapses: time against the timeout. */
struct sample_progress {
	struct progress p;
	unsigned timeout_ms;
};

static void show_sample(const struct collapse_run *r, void *ctx)
{
	const struct collapse_sample *s = &r->timeline[r->nr_samples - 1];
	struct sample_progress *sp = ctx;
	unsigned long long large = 0, all = 0;
	int k;

	for (k = 0; k <= FOLIO_MAX_ORDER; k++) {
		all += s->pages[k];
		large += k ? s->pages[k] : 0;
	}
	progress_show(&sp->p, sp->timeout_ms ? (double)s->t_ms / sp->timeout_ms : -1,
		      "max_ptes_none %d: %.1f s, %zu samples, %.0f%% in large folios",
		      r->max_ptes_none, s->t_ms / 1000.0, r->nr_samples,
		      all ? 100.0 * (double)large / (double)all : 0.0);
}

/* The span as the kernel left it, for a scan from outside (before
 * --measure, whose chase faults the holes), until the time is up or a stop
 * (SIGINT, SIGTERM) ends the hold: the run goes on to its report. */
static void hold_span(const struct collapse_span *sp, unsigned seconds)
{
	ms_note("collapse: pid %d holds the span %p-%p for %u s (SIGINT ends the hold and "
		"the sweep; this run is kept)", (int)getpid(), sp->base,
		(void *)((char *)sp->base + sp->len), seconds);
	cli_sleep_until(cli_now_s() + seconds);
}

/* One max_ptes_none value: fault, collapse, (measure), describe. */
static int one_run(struct collapse_cmd_opts *o, const struct collapse_env *env,
		   struct collapse_doc *doc)
{
	struct collapse_measure before, after;
	struct collapse_span sp = { 0 }, ref = { 0 };
	struct collapse_run r = { 0 };
	struct sample_progress prog;
	char msg[512], statement[512];
	const char *key;
	bool measured = false;
	int err;

	if ((err = collapse_span_map(&o->cfg, env, &sp))) {
		ms_err("collapse: mapping the %zu MiB span failed: %s", o->cfg.span >> 20,
		       strerror(-err));
		return exit_for(err);
	}
	if ((err = collapse_set_knobs(&o->cfg, env))) {
		thp_strerror(err, msg, sizeof(msg));
		ms_err("collapse: setting the THP knobs failed: %s", msg);
		collapse_span_unmap(&sp);
		return exit_for(err);
	}
	if (!o->json)
		fprintf(stderr, "mthpscope: collapse: max_ptes_none %d, %llu of %zu pages faulted, "
				"waiting up to %g s...\n",
			o->cfg.max_ptes_none, sp.filled_pages, sp.len / (size_t)env->page_size,
			o->cfg.timeout_ms / 1000.0);
	progress_init(&prog.p);
	prog.timeout_ms = o->cfg.timeout_ms;
	o->cfg.on_sample = show_sample;
	o->cfg.on_sample_ctx = &prog;
	err = collapse_run(&o->cfg, env, &sp, &r);
	progress_clear(&prog.p);
	if (err == -EINTR) {
		/* a stop cut the timeline: the run has no verdict and is left out */
		err = 0;
		goto out;
	}
	if (err) {
		ms_err("collapse: %s", err == -EPERM || err == -EACCES
					       ? "reading PFNs from pagemap needs root"
				       : err == -EOPNOTSUPP ? "this kernel has no MADV_COLLAPSE"
							    : strerror(-err));
		goto out;
	}
	if (o->hold_s)
		hold_span(&sp, o->hold_s);
	if (o->measure) {
		struct collapse_config full = o->cfg;

		full.fill = 1.0;
		err = collapse_span_map(&full, env, &ref);
		if (!err)
			err = collapse_measure(&ref, env->page_size, o->cfg.seed, MEASURE_REPS,
					       &before);
		if (!err)
			err = collapse_measure(&sp, env->page_size, o->cfg.seed, MEASURE_REPS, &after);
		if (err) {
			ms_err("collapse: --measure failed: %s", strerror(-err));
			goto out;
		}
		measured = true;
	}
	key = collapse_verdict(&o->cfg, env, &r, statement, sizeof(statement));
	if ((err = collapse_doc_add_run(doc, &r, key, statement, measured ? &before : NULL,
					measured ? &after : NULL))) {
		ms_err("collapse: %s", strerror(-err));
		goto out;
	}
	if (!o->json)
		collapse_report_run(&doc->runs[doc->nr_runs - 1], o->report);
out:
	collapse_run_free(&r);
	collapse_span_unmap(&ref);
	collapse_span_unmap(&sp);
	return err ? exit_for(err) : MS_EXIT_OK;
}

/* The options against the machine, before the first write: an exit
 * status, or -1 to go on. */
static int collapse_check(struct collapse_cmd_opts *o, struct collapse_env *env)
{
	char why[512];
	int i, err;

	if (o->span > SIZE_MAX / 2) {
		ms_err("collapse: --span is too large");
		return MS_EXIT_USAGE;
	}
	o->cfg.span = (size_t)o->span;
	o->cfg.timeout_ms = (unsigned)lround(o->timeout_s * 1000);
	o->cfg.max_ptes_none = o->mpn[0];
	o->cfg.orders = folio_orders_mask(&o->orders);
	if (o->orders.all) {
		struct thp_settings s;

		if ((err = thp_read(&s))) {
			thp_strerror(err, why, sizeof(why));
			ms_err("collapse: %s", why);
			return MS_EXIT_ENV;
		}
		o->cfg.orders = thp_anon_orders(&s);
		if (!o->cfg.orders) {
			ms_err("collapse: this kernel has no anon THP sizes");
			return MS_EXIT_ENV;
		}
	}
	/* Every value checked before the first write. */
	for (i = 0; i < o->nr_mpn; i++) {
		o->cfg.max_ptes_none = o->mpn[i];
		err = collapse_prepare(&o->cfg, env, why, sizeof(why));
		if (err) {
			ms_err("collapse: %s", why);
			/* prepare checks the options: EINVAL is a bad value given */
			return err == -EINVAL ? MS_EXIT_USAGE : exit_for(err);
		}
	}
	if (o->measure && o->cfg.span * 2 > env->mem_available) {
		ms_err("collapse: --measure needs a second span of the same size: %zu MiB do not "
		       "fit in the %llu MiB available",
		       o->cfg.span * 2 >> 20, env->mem_available >> 20);
		return MS_EXIT_ENV;
	}
	if (geteuid() != 0) {
		ms_err("collapse: needs root: it writes THP sysfs knobs and reads PFNs from pagemap");
		return MS_EXIT_ENV;
	}
	if ((err = cli_check_outputs(&collapse_cli, o)))
		return err;
	/* the settings the document gives as the machine's, read again */
	if ((err = thp_journal_begin_read(&env->thp))) {
		thp_strerror(err, why, sizeof(why));
		ms_err("collapse: %s", why);
		return ms_exit_for_errno(err);
	}
	if (o->cfg.mode == COLLAPSE_KHUGEPAGED && !o->cfg.pages_to_scan) {
		o->cfg.pages_to_scan = (long)(o->cfg.span / (size_t)env->page_size) * 2;
		if (o->cfg.pages_to_scan < 4096)
			o->cfg.pages_to_scan = 4096;
	}
	if (o->cfg.mode == COLLAPSE_KHUGEPAGED && !(o->cfg.orders & (1UL << env->pmd_order)) &&
	    !env->thp.mthp_collapse)
		ms_note("collapse: the PMD size is not a target and this kernel has no per-size "
			"collapse counters: mainline khugepaged does not scan this span; waiting "
			"the whole timeout anyway");
	return -1;
}

/* The document on stdout (--json), into -o FILE, and its figures (--plot):
 * an exit status. *doc is the caller's to free. */
static int collapse_output(const struct collapse_cmd_opts *o, const struct collapse_doc *cd,
			   json_t **doc)
{
	char why[512];
	int err, rc = MS_EXIT_OK;

	if ((err = collapse_doc_json(cd, doc))) {
		ms_err("collapse: %s", strerror(-err));
		return MS_EXIT_FAIL;
	}
	if (o->json) {
		json_dumpf(*doc, stdout, JSON_INDENT(2));
		putchar('\n');
	}
	if (o->output && cli_write_doc("collapse", o->output, *doc, JSON_INDENT(2)))
		return MS_EXIT_FAIL;
	if (o->plot) {
		struct plot_files files = { 0 };
		size_t f;

		/* the model the document was written from: plot draws what it says */
		err = plot_collapse(cd, o->plot, PLOT_PNG, &files, why, sizeof(why));
		if (err) {
			ms_err("collapse: %s", why);
			rc = err == -ENOPKG ? MS_EXIT_ENV : MS_EXIT_FAIL;
		}
		for (f = 0; f < files.nr; f++)
			ms_note("collapse: wrote %s/%s", o->plot, files.name[f]);
		for (f = 0; f < files.nr_skipped; f++)
			ms_note("collapse: figure %s not drawn: none of its values can be drawn",
				files.skipped[f]);
		plot_files_free(&files);
	}
	return rc;
}

/* collapse --replay: what a real collapse only takes is refused, then the
 * model runs: an exit status. */
static int replay_cmd(struct collapse_cmd_opts *o)
{
	const char *bad = NULL;
	int i;

	if (o->cfg.mode != COLLAPSE_KHUGEPAGED)
		bad = "--mode madvise";
	else if (o->measure)
		bad = "--measure";
	else if (o->hold_s)
		bad = "--hold";
	else if (o->output)
		bad = "--output";
	else if (o->plot)
		bad = "--plot";
	else if (o->cfg.interval_ms != 100 || o->timeout_s != 60 || o->cfg.scan_sleep_ms != 10 ||
		 o->cfg.pages_to_scan)
		bad = "--interval, --timeout, --scan-sleep or --pages-to-scan";
	else if (o->rp.presence &&
		 (o->fill_given || o->span_given || o->seed_given || o->rp.page_size))
		bad = "--fill, --span, --seed or --page-size with --presence";
	if (bad) {
		ms_err("collapse: --replay runs no kernel: %s does not apply", bad);
		return MS_EXIT_USAGE;
	}
	if (o->rp.final_map && atomic_output_is_stdout(o->rp.final_map)) {
		ms_err("collapse: --final-map %s would write the map into the report on stdout: "
		       "give it a file", o->rp.final_map);
		return MS_EXIT_USAGE;
	}
	if (o->rp.final_map && o->rp.presence &&
	    atomic_same_output(o->rp.final_map, o->rp.presence)) {
		ms_err("collapse: --final-map %s is the --presence map it replays: give it "
		       "another file", o->rp.final_map);
		return MS_EXIT_USAGE;
	}
	if ((i = cli_check_outputs(&collapse_cli, o)))
		return i;
	o->rp.policy = replay_words[o->replay];
	o->rp.orders = o->orders;
	o->rp.mpn = o->mpn;
	o->rp.nr_mpn = o->nr_mpn;
	o->rp.mpn_given = o->mpn_given;
	o->rp.fill = o->cfg.fill;
	o->rp.span = o->span;
	o->rp.seed = o->cfg.seed;
	o->rp.json = o->format == REPORT_JSON;
	return collapse_replay(&o->rp);
}

static int collapse_cmd(int argc, char **argv)
{
	struct collapse_cmd_opts o = {
		.cfg = { .mode = COLLAPSE_KHUGEPAGED, .fill = 0.5, .interval_ms = 100, .seed = 1,
			 .scan_sleep_ms = 10 },
		.orders = { .all = true },
		.span = 64ULL << 20,
		.timeout_s = 60,
		.nr_mpn = 1,
		.format = REPORT_TEXT,
		.replay = -1,
		.rp = { .passes = 4, .min_order = 2, .tlb_models = "all" },
	};
	struct collapse_env env;
	struct collapse_doc cd = { 0 };
	json_t *doc = NULL;
	int i, rc;

	o.mpn[0] = (int)(sysconf(_SC_PAGESIZE) / 8 - 1); /* the kernel default, HPAGE_PMD_NR - 1 */
	o.nr_mpn = 1;
	if ((i = cli_parse_no_args(&collapse_cli, argc, argv, &o)) >= 0)
		return i;
	if (o.replay >= 0)
		return replay_cmd(&o);
	for (i = 0; i < o.nr_mpn; i++)
		if (o.mpn[i] > sysconf(_SC_PAGESIZE) / 8 - 1) {
			ms_err("invalid --max-ptes-none value '%d' (an integer from 0 to %ld)",
			       o.mpn[i], sysconf(_SC_PAGESIZE) / 8 - 1);
			return MS_EXIT_USAGE;
		}
	if (o.rp.presence || o.rp.final_map || o.rp.passes != 4 || o.rp.page_size || o.rp.min_order != 2 ||
	    strcmp(o.rp.tlb_models, "all")) {
		ms_err("collapse: --presence, --final-map, --passes, --min-order, --page-size and "
		       "--tlb-model go with --replay");
		return MS_EXIT_USAGE;
	}
	o.json = o.format == REPORT_JSON;
	o.report = stdout;
	if (o.output && atomic_output_fd(o.output) == STDOUT_FILENO) {
		if (o.json) {
			ms_err("collapse: --format json and -o %s would both write the document to "
			       "stdout: choose one", o.output);
			return MS_EXIT_USAGE;
		}
		o.report = stderr; /* as run's summary: stdout has the document */
	}
	if ((rc = collapse_check(&o, &env)) >= 0)
		return rc;
	rc = MS_EXIT_OK;
	collapse_doc_init(&cd, &env);
	collapse_doc_set_config(&cd, &o.cfg, &env, o.mpn, (size_t)o.nr_mpn, o.measure);
	if (!o.json)
		collapse_report_header(&cd, o.report);
	/* A stop (SIGINT, SIGTERM) ends the sweep: the runs whose timelines
	 * were whole are written, then the signal ends the process. */
	o.cfg.interrupt = &cli_stops;
	cli_catch_stops(true);
	for (i = 0; i < o.nr_mpn && !cli_stops; i++) {
		o.cfg.max_ptes_none = o.mpn[i];
		rc = one_run(&o, &env, &cd);
		if (rc != MS_EXIT_OK)
			goto out;
	}
	if (cli_stops && (size_t)o.nr_mpn > cd.nr_runs) {
		cd.interrupted = true;
		ms_note("collapse: interrupted: %zu of %d max_ptes_none values ran%s", cd.nr_runs,
			o.nr_mpn, cd.nr_runs ? "; the document has them" : ", nothing to write");
	}
	if (cd.nr_runs)
		rc = collapse_output(&o, &cd, &doc);
out:
	collapse_doc_free(&cd);
	json_decref(doc);
	cli_end_of_stop();
	cli_catch_stops(false);
	return rc;
}

MS_COMMAND(collapse, "khugepaged / MADV_COLLAPSE: orders over time, creep, RSS growth");
