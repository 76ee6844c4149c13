// SPDX-License-Identifier: GPL-2.0-or-later
/* mthpscope probe: measure which runs of 4K PTEs this CPU merges into one
 * TLB entry, and write the geometry --tlb-geometry reads (issue 38). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "cli.h"
#include "commands.h"
#include "probe.h"
#include "probe_report.h"
#include "progress.h"
#include "report.h"
#include "thp.h"
#include "tlb_opt.h"
#include "topo.h"

struct probe_cmd {
	enum report_format format;
	struct tlb_opt tlb;
	const char *output;
	int reps, cpu;
	bool have_reps, have_cpu, quick;
	unsigned long long seed;
	/* the run */
	struct thp_settings s;
	struct bench b;
	struct progress pg;
	struct topo_info host;
	struct probe_plan plan;
	struct probe_input in;
	struct probe_result res;
	const struct tlb_geometry *base;
	const char *base_source;
	char cite[320], desc[160], name[TLB_NAME_MAX + 1];
};

static const struct cli_cmd probe_cli = {
	.name = "probe",
	.summary = "Measure which runs of 4K PTEs this CPU merges into one TLB entry (none, "
		   "4, 8 or 16 pages) and the TLBs' effective reach, and write a geometry file "
		   "for --tlb-geometry.",
	.details =
		"At spans chosen from the TLB geometry (where entries merged by 4 and by 8 differ\n"
		"in fit, and a control where they do not), it times the chase-tlb pattern on\n"
		"folios of order 0, 2, 3 and 4, on 4K PTEs made physically contiguous on purpose\n"
		"(a PMD folio mapped by PTEs) and on PMD mappings, all in the same interleaved\n"
		"rounds of the engine run uses. Each hypothesis is the TLB model under that merge\n"
		"rule with fitted capacities; the one that explains the times best wins when it\n"
		"takes most bootstrap resamples of the reps and fits clearly better than the\n"
		"next. Otherwise it says it cannot tell, and why: scattered folios, no translation\n"
		"cost at these spans, or a VM whose host maps the guest with small pages. A\n"
		"default probe takes about a minute (at most two); --quick about 30 s. Needs\n"
		"root (THP settings, through the journal; PFNs from pagemap).",
	.exit_status = "0 done (whatever the verdict), 1 runtime failure, 2 usage error,\n"
		       "3 not root, no geometry for this CPU, not 4K pages, or too little memory.",
	.opts = (const struct cli_opt[]){
		{ "output", 'o', "FILE", "write the measured geometry (key = value lines, "
		  "--tlb-geometry's format) to FILE, atomically",
		  .type = CLI_OUTPUT_FILE, CLI_AT(struct probe_cmd, output) },
		CLI_FORMAT_ROWS(struct probe_cmd, format, 'f', cli_formats_text_json,
				cli_formats_text_json_vals,
				"text (default) or json (schema mthpscope.probe/1)"),
		{ "reps", 0, "N", "repetitions of every span (default 5; --quick 3)",
		  CLI_ROW_INT(struct probe_cmd, reps, 3, PROBE_MAX_REPS),
		  CLI_GIVEN(struct probe_cmd, have_reps) },
		{ "quick", 0, NULL, "a short probe: 3 reps of 0.15 s per variant (about 30 s)",
		  CLI_ROW_FLAG(struct probe_cmd, quick) },
		{ "seed", 0, "N", "seed of the placement, the access pattern and the resampling "
		  "(default 1)", CLI_ROW_INT(struct probe_cmd, seed, 0, 1ULL << 62) },
		{ "cpu", 0, "N", "pin to this CPU (default: the last one)",
		  CLI_ROW_INT(struct probe_cmd, cpu, 0, 4095), CLI_GIVEN(struct probe_cmd, have_cpu) },
		TLB_OPT_ROWS(struct probe_cmd, tlb),
		CLI_END,
	},
};

static void on_event(const struct bench_event *ev, void *ctx)
{
	struct probe_cmd *c = ctx;

	switch (ev->kind) {
	case BENCH_EV_WARN:
	case BENCH_EV_NOTE:
		ms_bench_message(ev, &c->pg);
		return;
	case BENCH_EV_CALIBRATE:
		progress_show(&c->pg, -1, "calibrating span %llu MiB", ev->span >> 20);
		return;
	case BENCH_EV_TRIAL:
		progress_show(&c->pg, ev->total ? (double)ev->done / ev->total : 1,
			      "%d/%d span %llu MiB, six layouts in rounds", ev->done, ev->total,
			      ev->span >> 20);
		return;
	}
}

/* The geometry the capacities come from, and the spans: an exit status or -1. */
static int probe_plan_spans(struct probe_cmd *c)
{
	struct tlb_host th;
	int n;

	tlb_host_describe(&th);
	c->base = tlb_opt_pick(&c->tlb, "probe", &th, tlb_host_geometry(&th));
	if (!c->base) {
		ms_err("probe: no TLB geometry for this CPU: give --tlb-model NAME or "
		       "--tlb-geometry FILE for the capacities to start from");
		return MS_EXIT_ENV;
	}
	c->base_source = c->tlb.have_user ? "--tlb-geometry" : c->tlb.table ? "--tlb-model"
		       : c->base == th.table ? "table" : "cpuid";
	if (sysconf(_SC_PAGESIZE) != 4096) {
		ms_err("probe: the hypotheses are runs of 4K PTEs; this kernel's page is %ld bytes",
		       sysconf(_SC_PAGESIZE));
		return MS_EXIT_ENV;
	}
	n = probe_spans(c->base, 2ULL << 20, c->plan.span, PROBE_MAX_SPANS);
	if (n < 1) {
		ms_err("probe: the geometry %s has a level of unknown capacity", c->base->name);
		return MS_EXIT_ENV;
	}
	c->plan.nr_spans = n;
	c->plan.reps = c->have_reps ? c->reps : c->quick ? 3 : PROBE_DEFAULT_REPS;
	c->plan.trial_ns = c->quick ? 150e6 : PROBE_DEFAULT_TRIAL_NS;
	return -1;
}

/* Root, memory, pinning, the journal: an exit status or -1. */
static int probe_begin(struct probe_cmd *c)
{
	unsigned long long avail, need;
	char why[512], msg[512];
	int err, cpu = c->have_cpu ? c->cpu : topo_default_cpu();

	if (geteuid() != 0) {
		ms_err("probe: needs root: it writes the THP sysfs settings and reads PFNs from "
		       "pagemap");
		return MS_EXIT_ENV;
	}
	if ((err = cli_check_outputs(&probe_cli, c)))
		return err;
	if ((err = thp_read(&c->s)) || c->s.pmd_order <= 4) {
		ms_err("probe: cannot read the THP settings, or no PMD size above order 4");
		return MS_EXIT_ENV;
	}
	need = bench_interleaved_bytes(c->plan.span[c->plan.nr_spans - 1], PROBE_NR_VARIANTS,
				       c->s.pmd_size);
	if (!topo_mem_available(&avail) && avail < need + need / 4) {
		ms_err("probe: needs %llu MiB free for the largest span's six buffers, %llu MiB "
		       "available", need >> 20, avail >> 20);
		return MS_EXIT_ENV;
	}
	if ((err = topo_pin_cpu(cpu)))
		return cli_pin_failed("probe", cpu, err);
	bench_init(&c->b, &c->s, c->seed, on_event, c);
	bench_open_counters(&c->b, BENCH_BACKEND_TIMING, cpu, why, sizeof(why));
	if ((err = thp_journal_begin_read(&c->s))) {
		thp_strerror(err, msg, sizeof(msg));
		ms_err("probe: %s", msg);
		return ms_exit_for_errno(err);
	}
	return -1;
}

static int emit_geometry(FILE *f, void *ctx)
{
	const struct probe_cmd *c = ctx;
	struct tlb_geometry g;
	char text[8192];
	int n;

	if (c->res.verdict == PROBE_TELLS) {
		tlb_probe_geometry(&c->in, &c->res, c->name, c->desc, c->cite, &g);
	} else {
		g = *c->base; /* nothing measured to say otherwise: the base's figures */
		g.name = c->name;
		g.desc = c->desc;
		g.merge_cite = c->cite;
	}
	if ((n = tlb_geometry_format(&g, text, sizeof(text))) < 0)
		return n;
	fprintf(f, "# mthpscope probe %s on %s%s (kernel %s)\n", ms_version, c->host.cpu_model,
		c->host.virtualized ? ", a VM" : "", c->host.kernel);
	return fputs(text, f) < 0 ? -EIO : 0;
}

/* The geometry file's name, description and source line (one line, no '#'). */
static void geometry_words(struct probe_cmd *c)
{
	const struct probe_result *res = &c->res;
	unsigned best = probe_hyp_pages[res->best];
	size_t n;

	snprintf(c->name, sizeof(c->name), "probe-%.24s", c->base->name);
	snprintf(c->desc, sizeof(c->desc), "measured by mthpscope probe from %s's capacities",
		 c->base->name);
	n = (size_t)snprintf(c->cite, sizeof(c->cite), "measured here by mthpscope probe (%d "
			     "reps, timing%s): ", c->in.nr_reps, c->host.virtualized ? ", a VM" : "");
	if (n >= sizeof(c->cite))
		return;
	if (res->verdict == PROBE_TELLS)
		snprintf(c->cite + n, sizeof(c->cite) - n, "largest merge %u page%s, support %.0f "
			 "%%, interval [%u, %u]%s", best, best == 1 ? "" : "s",
			 100 * res->support[res->best], res->merge_lo, res->merge_hi,
			 best == 1 && c->host.virtualized ? "; in a VM this cannot tell the CPU from "
							  "a host that backs the guest with 4K pages"
							: "");
	else
		snprintf(c->cite + n, sizeof(c->cite) - n, "cannot tell (%s); the figures of %s "
			 "kept", res->verdict == PROBE_FLAT ? "no translation cost seen"
				 : res->verdict == PROBE_TOO_FEW ? "too few reps"
								 : "the hypotheses fit alike",
			 c->base->name);
}

static int probe_finish(struct probe_cmd *c, double elapsed)
{
	struct probe_report r = { .host = &c->host, .base = c->base,
				  .base_source = c->base_source, .in = &c->in, .res = &c->res,
				  .reps_asked = c->plan.reps, .trial_s = c->plan.trial_ns / 1e9,
				  .elapsed_s = elapsed, .verified = c->plan.verified,
				  .low_coverage = c->plan.low_coverage };
	json_t *doc;
	int err = 0;

	geometry_words(c);
	/* a failed -o (a full disk, /dev/full) loses the file, not the report:
	 * the minutes measured are still shown, then exit 1 */
	if (c->output && (err = atomic_write(c->output, emit_geometry, c)))
		ms_err("probe: cannot write %s: %s (the report follows; the geometry was not "
		       "written)", c->output, strerror(-err));
	r.output = err ? NULL : c->output;
	if (c->format != REPORT_JSON) {
		probe_report_text(stdout, &r);
		return err ? MS_EXIT_FAIL : MS_EXIT_OK;
	}
	if (!(doc = probe_report_json(&r)))
		return MS_EXIT_FAIL;
	json_dumpf(doc, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(doc);
	return err ? MS_EXIT_FAIL : MS_EXIT_OK;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Measure, put the settings back, infer: an exit status or -1. */
static int probe_run(struct probe_cmd *c)
{
	char msg[512];
	int err;

	progress_init(&c->pg);
	c->in.base = c->base;
	c->in.seed = c->seed;
	cli_catch_stops(true);
	err = probe_measure(&c->b, &c->plan, &c->in, &cli_stops);
	cli_catch_stops(false);
	progress_clear(&c->pg);
	thp_restore();
	if (err) {
		thp_strerror(err, msg, sizeof(msg));
		ms_err("probe: %s", err == -ENOMEM ? "out of memory mapping a span" : msg);
		return ms_exit_for_errno(err);
	}
	if (!c->plan.verified)
		ms_warn("probe: the layouts were not read (no PFNs): the model assumes ideal ones");
	if ((err = tlb_probe_infer(&c->in, &c->res))) {
		ms_err("probe: the inference failed: %s", strerror(-err));
		return MS_EXIT_FAIL;
	}
	return -1;
}

static int probe_cmd(int argc, char **argv)
{
	static struct probe_cmd c; /* large: the times of every rep */
	double t0;
	int rc;

	memset(&c, 0, sizeof(c));
	c.format = REPORT_TEXT;
	c.seed = 1;
	if ((rc = cli_parse_no_args(&probe_cli, argc, argv, &c)) >= 0)
		goto out;
	rc = MS_EXIT_OK;
	if (tlb_opt_done(&c.tlb, c.format == REPORT_JSON))
		goto out;
	if (c.quick && c.have_reps) {
		ms_err("probe: --quick sets the reps: it excludes --reps");
		rc = MS_EXIT_USAGE;
		goto out;
	}
	topo_describe(&c.host);
	if ((rc = probe_plan_spans(&c)) >= 0 || (rc = probe_begin(&c)) >= 0)
		goto out;
	t0 = now_s(); /* after the lock: the probe's own time */
	if ((rc = probe_run(&c)) >= 0)
		goto out;
	rc = probe_finish(&c, now_s() - t0);
out:
	bench_close(&c.b);
	if (cli_stops)
		cli_end_of_stop();
	tlb_opt_release(&c.tlb);
	return rc;
}

MS_COMMAND(probe, "measure which runs of 4K PTEs the CPU merges into one TLB entry");
