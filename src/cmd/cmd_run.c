// SPDX-License-Identifier: GPL-2.0-or-later
/* mthpscope run: micro-benchmarks at each folio order. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "bench.h"
#include "child.h"
#include "cli.h"
#include "commands.h"
#include "kernel.h"
#include "folio.h"
#include "metrics.h"
#include "precision.h"
#include "program.h"
#include "progress.h"
#include "results.h"
#include "run_summary.h"
#include "session.h"
#include "summary.h"
#include "thp.h"
#include "tlb_host.h"

#define RUN_MAX_PATTERNS SESSION_MAX_PATTERNS
#define RUN_MAX_METRICS SESSION_MAX_METRICS

/* The options only the command layer uses; the rest go to the session. */
struct run_cmd_opts {
	struct folio_orders orders;
	const char *patterns_arg;
	const char *output;
	bool cmd_only_opt; /* an option that only applies to -- CMD was given */
	bool have_max_time; /* --max-time given */
	const char *stdin_file; /* --stdin */
	const char *presence;   /* --presence FILE */
};

struct run {
	struct run_cmd_opts o;
	struct session s;
	struct progress pg;
	char stdin_path[64]; /* every trial's stdin (child_input); "" the default */
	int stdin_fd;        /* the unlinked copy of piped stdin, or -1 */
	struct bench_presence pres; /* --presence: the engine fills it */
};

/* --metric NAME=REGEX: the field is the struct session_opts. */
static int add_metric(const struct cli_cmd *cmd, const char *arg, void *field)
{
	struct session_opts *o = field;
	const struct metrics_def *d;
	char why[512];

	(void)cmd;
	if (o->nr_metrics == RUN_MAX_METRICS) {
		ms_err("run: at most %d --metric options", RUN_MAX_METRICS);
		return -1;
	}
	if (bench_metric_parse(arg, &o->metrics[o->nr_metrics], why, sizeof(why))) {
		ms_err("run: invalid --metric value: %s", why);
		return -1;
	}
	/* the trial's metrics are one object by name: a --metric wall_ns
	 * replaced the measured wall time with what the command printed */
	if ((d = metrics_find(o->metrics[o->nr_metrics].name))) {
		ms_err("run: invalid --metric value: '%s' is a metric mthpscope records itself "
		       "(%s): give yours another name", d->name, d->unit ? d->unit : d->name);
		bench_metric_free(&o->metrics[o->nr_metrics]);
		return -1;
	}
	for (int i = 0; i < o->nr_metrics; i++)
		if (!strcmp(o->metrics[i].name, o->metrics[o->nr_metrics].name)) {
			ms_err("run: --metric %s given twice", o->metrics[i].name);
			bench_metric_free(&o->metrics[o->nr_metrics]);
			return -1;
		}
	o->nr_metrics++;
	return 0;
}

/* --better higher|lower: of the --metric just before. */
static int set_better(const struct cli_cmd *cmd, const char *arg, void *field)
{
	struct session_opts *o = field;

	(void)cmd;
	if (!o->nr_metrics) {
		ms_err("run: --better applies to the --metric before it; there is none");
		return -1;
	}
	if (strcmp(arg, "higher") && strcmp(arg, "lower")) {
		ms_err("run: invalid --better value '%s' (higher or lower)", arg);
		return -1;
	}
	o->metrics[o->nr_metrics - 1].higher_better = !strcmp(arg, "higher");
	return 0;
}

/* --sweep MIN:MAX */
static int parse_sweep(const struct cli_cmd *cmd, const char *arg, void *field)
{
	struct session_opts *o = field;
	const char *colon = strchr(arg, ':');
	char lo[64];

	(void)cmd;
	if (!colon || (size_t)(colon - arg) >= sizeof(lo)) {
		ms_err("invalid --sweep value '%s' (MIN:MAX, e.g. 2M:256M)", arg);
		return -1;
	}
	memcpy(lo, arg, (size_t)(colon - arg));
	lo[colon - arg] = '\0';
	if (cli_parse_size("sweep", lo, &o->sweep_min) ||
	    cli_parse_size("sweep", colon + 1, &o->sweep_max))
		return -1;
	if (o->sweep_min == 0 || o->sweep_max < o->sweep_min) {
		ms_err("invalid --sweep value '%s' (0 < MIN <= MAX)", arg);
		return -1;
	}
	return 0;
}

static const char *const backend_words[] = { "auto", "pmu", "timing", NULL };
static const char *const defrag_words[] = { "always", "defer", "defer+madvise", "madvise",
					    "never", NULL };
static const int defrag_vals[] = { THP_W_ALWAYS, THP_W_DEFER, THP_W_DEFER_MADVISE,
				   THP_W_MADVISE, THP_W_NEVER };
static const char *const schedule_words[] = { "interleaved", "sequential", NULL };
static const int schedule_vals[] = { RESULTS_SCHED_INTERLEAVED, RESULTS_SCHED_SEQUENTIAL };

#define S(m) CLI_AT(struct run, s.o.m)
#define CMD_ONLY CLI_GIVEN(struct run, o.cmd_only_opt)

static const struct cli_cmd run_cli = {
	.name = "run",
	.args = "[-- CMD [ARGS...]]",
	.summary = "Micro-benchmarks at each folio order: a span backed by folios of one order at "
		   "a time, verified by pagemap, timed, with fault and bloat figures. With -- CMD: "
		   "your command at each order, with the folio orders it really got.",
	.details = "Needs root (THP sysfs writes, PFNs in pagemap). The THP settings are saved\n"
		   "first and restored on every exit path. Trials of all orders are interleaved in\n"
		   "a seeded random order. A trial whose span is less than 95% backed by folios of\n"
		   "the requested order is flagged.\n"
		   "With -- CMD, each trial enables only its order (top-level enabled 'always',\n"
		   "so CMD needs no madvise), runs CMD to its end in its own process group and\n"
		   "records the tree's wall and CPU time, faults, RSS, context switches, the\n"
		   "size's fault counters and the folio orders of its anonymous memory (scans,\n"
		   "and a last one of each process at its exit). A trial whose CMD fails or\n"
		   "times out is kept, flagged and left out of the statistics.\n"
		   "SIGINT or SIGTERM ends the micro-benchmarks after the trial in progress (the\n"
		   "rep, interleaved) and -o has what was measured, \"interrupted\": true; a\n"
		   "command's run ends at once, with no results.",
	.exit_status =
		   "0 done, 1 runtime failure (or every trial of an order of CMD\n"
		   "failed), 2 bad option or CMD not found, 3 not root / PMU missing for\n"
		   "--backend pmu / span above half of MemAvailable / output not writable;\n"
		   "128 + N: signal N ended it (--precision: 0, the target not reached).\n"
		   "An -o write that fails at the end (a full disk) is 1, and the results are\n"
		   "saved in $TMPDIR, /var/tmp or /tmp instead.",
	.opts = (const struct cli_opt[]){
		{ "orders", 0, "LIST",
		  "folio orders, e.g. 0,2-9 or all (default: 0 and every anon mTHP order)",
		  .type = CLI_ORDERS, CLI_AT(struct run, o.orders) },
		{ "pattern", 0, "NAME[,NAME]", "chase-tlb (default), chase-mem, random, stream, store",
		  .type = CLI_STRING, CLI_AT(struct run, o.patterns_arg) },
		{ "span", 0, "SIZE",
		  "buffer size, a multiple of the PMD size (default from the caches and TLB reach)",
		  .type = CLI_SIZE, S(span), .imin = 1 },
		{ "sweep", 0, "MIN:MAX", "spans MIN, 2*MIN, ... up to MAX: the TLB-reach staircase",
		  CLI_ROW_CB(struct run, s.o, parse_sweep) },
		{ "reps", 0, "N", "repetitions of each order (default 30 of 0.15 s interleaved, 10 of "
		  "0.5 s sequential; --quick 3 of 0.1 s)", .type = CLI_INT, S(reps), .imin = 1,
		  .imax = 1000, CLI_GIVEN(struct run, s.o.have_reps) },
		{ "seed", 0, "N", "seed of the trial order and the access patterns (default 1)",
		  .type = CLI_INT, S(seed), .imin = 0, .imax = LONG_MAX },
		{ "cpu", 0, "N", "pin to this CPU (default: the last one)", .type = CLI_INT, S(cpu),
		  .imin = 0, .imax = 65535, CLI_GIVEN(struct run, s.o.have_cpu) },
		{ "quick", 0, NULL, "a short run: 3 reps, 0.1 s trials (under 15 s)",
		  .type = CLI_FLAG, S(quick) },
		{ "precision", 0, "P",
		  "add reps until the verdict's gain CI is within +/-P points of order 0's time, or "
		  "--max-time runs out (a sequential rule keeps the CI's coverage)",
		  CLI_ROW_DOUBLE(struct run, s.o.precision, 0.01, 100), .div = 100 },
		{ "precision-all", 0, NULL,
		  "with --precision: every order's gain CI, not only the verdict's order's",
		  .type = CLI_FLAG, S(precision_all) },
		{ "max-time", 0, "S",
		  "with --precision: begin no rep that would end after S seconds (default 300)",
		  CLI_ROW_DOUBLE(struct run, s.o.max_time_s, 0.001, 7 * 86400),
		  CLI_GIVEN(struct run, o.have_max_time) },
		{ "accesses", 0, "N", "accesses per trial (default: calibrated to about 0.15 s at "
		  "order 0 interleaved, 0.5 s sequential)", .type = CLI_INT, S(accesses), .imin = 1,
		  .imax = LONG_MAX },
		{ "sparse", 0, "K",
		  "bloat check: touch one page in every K and report RSS (default: pages per PMD; 0 off)",
		  .type = CLI_INT, S(sparse_k), .imin = 0, .imax = 1L << 30,
		  CLI_GIVEN(struct run, s.o.have_sparse) },
		{ "backend", 0, "auto|pmu|timing",
		  "pmu: hardware counters or fail; timing: time and software events (default auto)",
		  CLI_ROW_WORD(struct run, s.o.backend, backend_words) },
		{ "defrag", 0, "WORD",
		  "set the top-level THP defrag (always, defer, defer+madvise, madvise, never) for "
		  "the run, restored after: one side of a settings A/B",
		  CLI_ROW_WORD(struct run, s.o.defrag, defrag_words), .vals = defrag_vals },
		{ "output", 'o', "FILE", "write the document (mthpscope.results/1) to FILE, "
		  "atomically ('-': stdout)", .type = CLI_OUTPUT_FILE, CLI_AT(struct run, o.output) },
		{ "schedule", 0, "interleaved|sequential",
		  "interleaved (default when every order's span fits): all orders populated up front, "
		  "timed round-robin in short bursts; sequential: one order per trial",
		  CLI_ROW_WORD(struct run, s.o.schedule, schedule_words), .vals = schedule_vals },
		{ "scan-interval", 0, "MS",
		  "-- CMD: scan the command's memory every MS ms (default 250; 0: only at each "
		  "process's exit)", .type = CLI_INT, S(scan_interval_ms), .imin = 0, .imax = 3600000,
		  CMD_ONLY },
		{ "timeout", 0, "S", "-- CMD: kill a trial's process group after S seconds",
		  .type = CLI_DOUBLE, S(timeout_s), .dmin = 0.001, .dmax = 1e6, CMD_ONLY },
		{ "metric", 0, "NAME=REGEX",
		  "-- CMD: a metric the command prints: the first group of the last stdout line "
		  "REGEX matches (several allowed)", CLI_ROW_CB(struct run, s.o, add_metric), CMD_ONLY },
		{ "better", 0, "higher|lower",
		  "-- CMD: direction of the --metric just before (default lower)",
		  CLI_ROW_CB(struct run, s.o, set_better), CMD_ONLY },
		{ "log", 0, "DIR", "-- CMD: keep each trial's stdout and stderr in DIR",
		  .type = CLI_STRING, S(log_dir), CMD_ONLY },
		{ "show-output", 0, NULL,
		  "-- CMD: let the command write to the terminal (and have it, to read)",
		  .type = CLI_FLAG, S(show_output), CMD_ONLY },
		{ "stdin", 0, "FILE",
		  "-- CMD: every trial's standard input, read from the start (default: piped "
		  "input, read once and given whole to every trial; a terminal: /dev/null)",
		  .type = CLI_STRING, CLI_AT(struct run, o.stdin_file), CMD_ONLY },
		{ "presence", 0, "FILE",
		  "-- CMD: write the presence map (mthpscope.presence/1, as scan --presence) of the "
		  "largest process at the tree's largest sample in the trials of the lowest order, "
		  "for 'collapse --replay'", .type = CLI_OUTPUT_FILE, CLI_AT(struct run, o.presence),
		  CMD_ONLY },
		{ "wait-descendants", 0, NULL,
		  "-- CMD: wait for processes that outlive the command (default: kill them, and say "
		  "how many)", .type = CLI_FLAG, S(wait_descendants), CMD_ONLY },
		CLI_END,
	},
};

/* ---- parsing of lists ---------------------------------------------------- */

static void supported_orders_text(const struct thp_settings *s, char *buf, size_t size)
{
	size_t n;
	int i;

	n = (size_t)snprintf(buf, size, "0");
	for (i = 0; i < s->nr_sizes && n < size; i++)
		if (s->sizes[i].anon)
			n += (size_t)snprintf(buf + n, size - n, " %d", s->sizes[i].order);
}

static bool order_supported(const struct thp_settings *s, int order)
{
	const struct thp_size *z;

	if (order == 0)
		return true;
	z = thp_size_by_order(s, order);
	return z && z->anon;
}

/* --orders against what this kernel offers -> *out; exit status on error
 * (message printed). */
static int resolve_orders(const struct folio_orders *given, const struct thp_settings *s,
			  struct folio_orders *out)
{
	char supp[128];
	size_t j;
	int i;

	memset(out, 0, sizeof(*out));
	supported_orders_text(s, supp, sizeof(supp));
	if (given->all) {
		if (s->legacy_pmd)
			ms_note("run: this kernel has no per-size mTHP (hugepages-<N>kB/, Linux 6.8 "
				"and later): measuring order 0 and the PMD order %d only", s->pmd_order);
		folio_orders_add(out, 0);
		for (i = 0; i < s->nr_sizes; i++)
			if (s->sizes[i].anon)
				folio_orders_add(out, s->sizes[i].order);
		return 0;
	}
	for (j = 0; j < given->nr; j++) {
		i = given->order[j];
		if (!order_supported(s, i) && s->legacy_pmd) {
			ms_note("run: order %d left out: this kernel has no per-size mTHP "
				"(hugepages-<N>kB/, Linux 6.8 and later), so only order 0 and "
				"the PMD order %d can be measured", i, s->pmd_order);
			continue;
		}
		if (!order_supported(s, i)) {
			ms_err("run: order %d is not supported for anonymous memory by this "
			       "kernel; supported orders: %s", i, supp);
			return MS_EXIT_USAGE;
		}
		folio_orders_add(out, i);
	}
	if (out->nr)
		return 0;
	ms_err("run: no order of --orders can be measured here (supported: %s)", supp);
	return MS_EXIT_USAGE;
}

static int parse_patterns(const char *arg, const struct kernel_desc **pats, int *n)
{
	char buf[256], *tok, *save = NULL;
	const struct kernel_desc *const *k;
	int i;

	*n = 0;
	if (!arg) {
		pats[(*n)++] = &kernel_chase_tlb;
		return 0;
	}
	if (strlen(arg) >= sizeof(buf))
		goto bad;
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct kernel_desc *d = kernel_find(tok);
		if (!d) {
			ms_err("run: unknown pattern '%s'; patterns:", tok);
			for (k = kernel_table; *k; k++)
				fprintf(stderr, "  %-10s %s\n", (*k)->name, (*k)->help);
			return MS_EXIT_USAGE;
		}
		for (i = 0; i < *n && pats[i] != d; i++)
			;
		if (i == *n && *n < RUN_MAX_PATTERNS)
			pats[(*n)++] = d;
	}
	if (*n)
		return 0;
bad:
	ms_err("run: invalid --pattern value '%s'", arg);
	return MS_EXIT_USAGE;
}

/* ---- the run ----------------------------------------------------------------- */

/* --precision: the rep, the last look's width against the target, the time
 * against --max-time. */
static void show_precision(struct run *r, int rep)
{
	const struct results_precision *p = &r->s.prec;
	double frac = p->elapsed_s / r->s.o.max_time_s;

	if (!p->looks)
		progress_show(&r->pg, frac, "rep %d, first CI at rep %d, target +/-%.1f pts, "
			      "%.0f/%.0f s", rep + 1, PRECISION_MIN_REPS, 100 * p->target,
			      p->elapsed_s, r->s.o.max_time_s);
	else
		progress_show(&r->pg, frac, "rep %d, CI +/-%.1f pts, target +/-%.1f, %.0f/%.0f s",
			      rep + 1, 100 * p->half_width, 100 * p->target, p->elapsed_s,
			      r->s.o.max_time_s);
}

/* The engine's progress and warnings, on the terminal. */
static void on_event(const struct bench_event *ev, void *ctx)
{
	struct run *r = ctx;

	switch (ev->kind) {
	case BENCH_EV_WARN:
	case BENCH_EV_NOTE:
		ms_bench_message(ev, &r->pg);
		return;
	case BENCH_EV_CALIBRATE:
		progress_show(&r->pg, -1, "calibrating %s, span %llu MiB", ev->what, ev->span >> 20);
		return;
	case BENCH_EV_TRIAL:
		if (ev->cell && r->s.o.precision > 0)
			show_precision(r, ev->cell->rep);
		else if (ev->cell && ev->cell->order < 0) /* interleaved: every order at once */
			progress_show(&r->pg, ev->total ? (double)ev->done / ev->total : 1,
				      "%d/%d %s rep %d, all orders in rounds", ev->done, ev->total,
				      ev->what, ev->cell->rep);
		else if (ev->cell)
			progress_show(&r->pg, ev->total ? (double)ev->done / ev->total : 1,
				      "%d/%d %s order %d rep %d", ev->done, ev->total, ev->what,
				      ev->cell->order, ev->cell->rep);
		else
			progress_clear(&r->pg);
		return;
	}
}

/*
 * The micro-benchmarks: SIGINT and SIGTERM end the run after the trial in
 * progress (the rep, interleaved), and the document is written with what
 * was measured: --precision's target not reached (exit 0), a fixed plan
 * "interrupted" (then the process ends of the signal). A second signal is
 * the usual one (cli_catch_stops). A command's run ends at once, as before.
 */
static void catch_stops(struct run *r, bool on)
{
	if (r->s.cmd)
		return;
	r->s.o.interrupt = &cli_stops;
	cli_catch_stops(on);
}

/* Root, the output, counters, pinning, the journal: an exit status or 0. */
static int run_begin(struct run *r)
{
	char why[512], msg[512];
	int err, cpu = r->s.cmd && !r->s.o.have_cpu ? -1 : (int)r->s.o.cpu;

	if (geteuid() != 0) {
		ms_err("run: needs root: it writes the THP sysfs settings and reads PFNs from "
		       "pagemap");
		return MS_EXIT_ENV;
	}
	if ((err = cli_check_outputs(&run_cli, r)))
		return err;
	/* a command runs where the scheduler puts it, unless --cpu says */
	if (cpu >= 0 && (err = topo_pin_cpu(cpu)))
		return cli_pin_failed("run", cpu, err);
	/* a store pattern needs the store side's events where they differ */
	for (int p = 0; p < r->s.nr_pats; p++)
		r->s.b.stores |= r->s.pats[p]->stores;
	/* after pinning: a hybrid CPU's event set depends on the core type */
	err = bench_open_counters(&r->s.b, r->s.o.backend, cpu, why, sizeof(why));
	if (err) {
		ms_err("run: --backend pmu: %s", why);
		return MS_EXIT_ENV;
	}
	if (why[0] && r->s.o.backend != BENCH_BACKEND_TIMING)
		ms_note("hardware counters unavailable (%s): timing and software events only", why);
	/* the settings the trials put back between orders, read again (the
	 * first read, before the lock, was for the sizes the kernel offers) */
	if ((err = thp_journal_begin_read(&r->s.s))) {
		thp_strerror(err, msg, sizeof(msg));
		ms_err("run: %s", msg);
		return ms_exit_for_errno(err);
	}
	if (r->s.o.defrag != THP_W_NONE && (err = thp_set_top("defrag", r->s.o.defrag))) {
		thp_strerror(err, msg, sizeof(msg));
		ms_err("run: --defrag %s: %s", thp_word_name(r->s.o.defrag), msg);
		return err == -EINVAL ? MS_EXIT_USAGE : ms_exit_for_errno(err);
	}
	return 0;
}

/* Options that belong to one kind of run only; an exit status or 0. */
static int check_kind(struct run *r, int argc, char **argv, int i)
{
	if (i < argc && !strcmp(argv[i - 1], "--")) {
		r->s.cmd = argv + i;
	} else if (i < argc) {
		ms_err("run: unexpected argument '%s' (a command to run goes after --)", argv[i]);
		cli_usage(&run_cli, stderr);
		return MS_EXIT_USAGE;
	} else if (i > 1 && !strcmp(argv[i - 1], "--")) {
		ms_err("run: no command after --");
		return MS_EXIT_USAGE;
	}
	if (!r->s.cmd && r->o.cmd_only_opt) {
		ms_err("run: --scan-interval, --timeout, --metric, --better, --log, --show-output, "
		       "--stdin, --presence and --wait-descendants apply to a command only "
		       "(run [OPTIONS] -- CMD)");
		return MS_EXIT_USAGE;
	}
	if (r->s.cmd && (r->o.patterns_arg || r->s.o.span || r->s.o.sweep_min || r->s.o.accesses ||
		       r->s.o.have_sparse)) {
		ms_err("run: --pattern, --span, --sweep, --accesses and --sparse apply to the "
		       "micro-benchmarks, not to a command");
		return MS_EXIT_USAGE;
	}
	if (r->s.o.span && r->s.o.sweep_min) {
		ms_err("run: --span and --sweep exclude each other");
		return MS_EXIT_USAGE;
	}
	return 0;
}

/* --precision and what goes with it; an exit status or 0. */
static int check_precision(struct run *r)
{
	const struct session_opts *o = &r->s.o;

	if (o->precision <= 0) {
		if (r->o.have_max_time || o->precision_all) {
			ms_err("run: --%s applies to --precision only (a run of a fixed number of "
			       "reps takes what it takes)",
			       r->o.have_max_time ? "max-time" : "precision-all");
			return MS_EXIT_USAGE;
		}
		return 0;
	}
	if (o->quick || o->have_reps) {
		ms_err("run: --precision chooses the number of reps itself: it excludes %s",
		       o->quick ? "--quick" : "--reps");
		return MS_EXIT_USAGE;
	}
	if (r->s.cmd || o->schedule == RESULTS_SCHED_SEQUENTIAL) {
		ms_err("run: --precision needs the paired gains of the interleaved schedule: it "
		       "applies to the micro-benchmarks, not to %s",
		       r->s.cmd ? "a command" : "--schedule sequential");
		return MS_EXIT_USAGE;
	}
	return 0;
}

static void input_waiting(void *ctx)
{
	(void)ctx;
	ms_note("reading standard input to give all of it to every trial (--stdin FILE, or "
		"--stdin /dev/null for none)");
}

/* Every trial's stdin, before anything is touched. */
static int check_input(struct run *r)
{
	int err = child_input(r->o.stdin_file, input_waiting, NULL, r->stdin_path,
			      sizeof(r->stdin_path), &r->stdin_fd);

	if (err == -EFBIG) {
		ms_err("run: standard input is over %llu MiB: give it as --stdin FILE",
		       CHILD_INPUT_MAX >> 20);
		return MS_EXIT_USAGE;
	}
	if (err) {
		ms_err("run: %s %s: %s", r->o.stdin_file ? "--stdin" : "reading standard input",
		       r->o.stdin_file ? r->o.stdin_file : "", strerror(-err));
		return r->o.stdin_file ? MS_EXIT_USAGE : MS_EXIT_FAIL;
	}
	r->s.o.stdin_path = r->stdin_path[0] ? r->stdin_path : NULL;
	return 0;
}

/* -o, --presence, the --stdin file and the command's own output
 * (--show-output) each need a place of their own: an exit status or 0. */
static int check_destinations(const struct run *r)
{
	const char *out = r->o.output, *map = r->o.presence, *in = r->o.stdin_file;
	const char *hit = out && in && atomic_same_output(out, in) ? out :
			  map && in && atomic_same_output(map, in) ? map : NULL;

	if (out && map && atomic_same_output(out, map)) {
		ms_err("run: -o %s and --presence %s lead to the same place: the map would replace "
		       "the results; give each its own", out, map);
		return MS_EXIT_USAGE;
	}
	if (hit) {
		ms_err("run: %s %s is the --stdin file: the document would replace the command's "
		       "input; give it another name", hit == out ? "-o" : "--presence", hit);
		return MS_EXIT_USAGE;
	}
	if (map && atomic_output_is_stdout(map))
		out = map;
	else if (!out || !atomic_output_is_stdout(out))
		return 0;
	if (r->s.o.show_output) {
		ms_err("run: %s %s would mix the document into the command's output "
		       "(--show-output): name a file", out == map ? "--presence" : "-o", out);
		return MS_EXIT_USAGE;
	}
	return 0;
}

/* The command before anything is touched: exit 2 when it cannot run. */
static int check_cmd(struct run *r)
{
	char path[4096];
	struct stat st;
	int err;

	if (!r->s.cmd)
		return 0;
	if ((err = check_destinations(r)))
		return err;
	err = child_resolve(r->s.cmd[0], path, sizeof(path));
	if (err == -EACCES || err == -EISDIR) {
		ms_err("run: '%s' is not executable%s", r->s.cmd[0], err == -EISDIR ? " (a directory)" : "");
		return MS_EXIT_USAGE;
	}
	if (err) {
		ms_err("run: command '%s' not found%s", r->s.cmd[0],
		       strchr(r->s.cmd[0], '/') ? "" : " in PATH");
		return MS_EXIT_USAGE;
	}
	if (r->s.o.log_dir && stat(r->s.o.log_dir, &st)) {
		ms_err("run: --log %s: %s", r->s.o.log_dir,
		       errno == ENOENT ? "does not exist" : strerror(errno));
		return MS_EXIT_USAGE;
	}
	if (r->s.o.log_dir && (!S_ISDIR(st.st_mode) || access(r->s.o.log_dir, W_OK | X_OK))) {
		ms_err("run: --log %s: not a writable directory", r->s.o.log_dir);
		return MS_EXIT_USAGE;
	}
	return check_input(r);
}

static bool has_order0(const struct session *s)
{
	for (size_t i = 0; i < s->orders.nr; i++)
		if (!s->orders.order[i])
			return true;
	return false;
}

/* --presence: the map the engine keeps, of the trials of the lowest order
 * (order 0 by default: the memory as faulted, where a replay starts). */
static int presence_setup(struct run *r)
{
	size_t i;

	if (!r->o.presence)
		return 0;
	if (presence_doc_init(&r->pres.doc, (unsigned)sysconf(_SC_PAGESIZE))) {
		ms_err("run: --presence: pages of %ld bytes have no presence map",
		       sysconf(_SC_PAGESIZE));
		return MS_EXIT_ENV;
	}
	cli_presence_host(&r->pres.doc);
	r->pres.order = r->s.orders.order[0];
	for (i = 1; i < r->s.orders.nr; i++)
		if (r->s.orders.order[i] < r->pres.order)
			r->pres.order = r->s.orders.order[i];
	r->s.o.presence = &r->pres;
	return 0;
}

/* --presence FILE written: an exit status. */
static int presence_finish(struct run *r)
{
	char where[96], msg[256];

	if (r->pres.err)
		folio_strerror(r->pres.err, msg, sizeof(msg));
	if (r->pres.doc.pid) {
		if (r->pres.err)
			ms_warn("run: --presence: mapping a larger sample failed (%s): the map is "
				"of the largest one mapped", msg);
		snprintf(where, sizeof(where), " at the largest sample (order %d, rep %d)",
			 r->pres.order, r->pres.rep);
		return cli_write_presence("run", r->o.presence, &r->pres.doc, where);
	}
	if (!r->pres.err)
		snprintf(msg, sizeof(msg), "no scan of its order-%d trials saw anonymous memory",
			 r->pres.order);
	ms_err("run: --presence: no map of %s written: %s", r->s.cmd[0], msg);
	return r->pres.err ? ms_exit_for_errno(r->pres.err) : MS_EXIT_FAIL;
}

/* Parse and check everything that needs no privilege; an exit status, or
 * -1 to go on. */
static int run_prepare(struct run *r, int argc, char **argv)
{
	char msg[512];
	int i, rc, err;

	i = cli_parse(&run_cli, argc, argv, r);
	if (i == CLI_DONE)
		return MS_EXIT_OK;
	if (i < 0)
		return MS_EXIT_USAGE;
	if ((rc = check_kind(r, argc, argv, i)) || (rc = check_precision(r)) ||
	    (rc = check_cmd(r)))
		return rc;
	if ((err = thp_read(&r->s.s))) {
		thp_strerror(err, msg, sizeof(msg));
		ms_err("run: %s", msg);
		return err == -ENOENT ? MS_EXIT_ENV : MS_EXIT_FAIL;
	}
	if ((rc = resolve_orders(&r->o.orders, &r->s.s, &r->s.orders)) ||
	    (rc = parse_patterns(r->o.patterns_arg, r->s.pats, &r->s.nr_pats)))
		return rc;
	if (r->s.o.precision > 0 && (r->s.orders.nr < 2 || !has_order0(&r->s))) {
		ms_err("run: --precision narrows the gains against order 0: --orders needs 0 and "
		       "at least one other order");
		return MS_EXIT_USAGE;
	}
	if ((rc = presence_setup(r)))
		return rc;
	topo_describe(&r->s.topo);
	if (r->s.topo.page_size <= 0)
		r->s.topo.page_size = sysconf(_SC_PAGESIZE);
	/* defaults applied after parsing */
	if (!r->s.o.have_reps)
		r->s.o.reps = r->s.o.quick ? SESSION_QUICK_REPS : SESSION_DEFAULT_REPS;
	if (!r->s.o.have_cpu)
		r->s.o.cpu = topo_default_cpu();
	return -1;
}

static int run_finish(struct run *r)
{
	/* -o - or --presence - (or /dev/stdout): the document has stdout, the
	 * summary stderr */
	bool to_stdout = r->o.output && atomic_output_fd(r->o.output) == STDOUT_FILENO;
	bool map_stdout = r->o.presence && atomic_output_fd(r->o.presence) == STDOUT_FILENO;
	FILE *out = to_stdout || map_stdout ? stderr : stdout;
	int rc = MS_EXIT_OK, bad;

	/* Put the user's settings back before printing: the numbers are in. */
	thp_restore();
	if (r->o.output) {
		/* not written: saved elsewhere, and the summary still printed */
		if (cli_write_doc("run", r->o.output, r->s.doc, JSON_INDENT(2)))
			rc = MS_EXIT_FAIL;
		else if (!to_stdout)
			ms_note("results written to %s (%d trials)", r->o.output,
				(int)json_array_size(json_object_get(r->s.doc, "trials")));
	}
	if (r->o.presence && (bad = presence_finish(r)))
		rc = bad;
	run_summary_print(out, r->s.res);
	if (r->s.b.low_coverage)
		ms_warn("%d trial%s below %.0f%% coverage (flagged in the results)",
			r->s.b.low_coverage, r->s.b.low_coverage == 1 ? "" : "s",
			(r->s.cmd ? PROGRAM_COVERAGE_NEAR_ZERO : SESSION_COVERAGE_MIN) * 100);
	if (r->s.cmd && (bad = summary_all_failed_order(r->s.res)) >= 0) {
		ms_err("run: every trial of order %d failed: see the warnings above", bad);
		return MS_EXIT_FAIL;
	}
	return rc;
}

/* The spans and schedule of a micro run: an exit status or 0. */
static int run_setup(struct run *r)
{
	char why[512];
	int err;

	if (r->s.cmd)
		return 0;
	if ((err = session_setup(&r->s, why, sizeof(why))))
		goto fail;
	if (r->s.o.precision <= 0)
		return 0;
	if (r->s.schedule != RESULTS_SCHED_INTERLEAVED) {
		ms_err("run: --precision needs the interleaved schedule, and the spans of every "
		       "order do not fit in memory at once: choose a smaller --span");
		return MS_EXIT_ENV;
	}
	r->s.o.reps = session_precision_max_reps(&r->s);
	return 0;
fail:
	ms_err("run: %s", why);
	return err == -ENOSPC ? MS_EXIT_ENV : MS_EXIT_USAGE;
}

static int run_cmd(int argc, char **argv)
{
	struct tlb_host tlb_host; /* r.s.b.tlb points into it */
	struct run r;
	char msg[512];
	int i, rc, err;

	memset(&r, 0, sizeof(r));
	r.stdin_fd = -1;
	r.s.o.backend = BENCH_BACKEND_AUTO;
	r.s.o.defrag = THP_W_NONE;
	r.s.o.scan_interval_ms = 250;
	r.s.o.schedule = -1;
	r.s.o.seed = 1;
	r.o.orders.all = true;
	r.s.o.max_time_s = PRECISION_DEFAULT_MAX_TIME;
	if ((rc = run_prepare(&r, argc, argv)) >= 0)
		goto out_opts;
	bench_init(&r.s.b, &r.s.s, r.s.o.seed, on_event, &r);
	/* the model of every trial's layout: this CPU's (none when unknown) */
	tlb_host_describe(&tlb_host);
	r.s.b.tlb = tlb_host_geometry(&tlb_host);
	if ((rc = run_setup(&r)) || (rc = run_begin(&r)))
		goto out;
	progress_init(&r.pg);
	/* the command's own output owns the terminal */
	r.pg.on &= !r.s.o.show_output;
	err = session_prepare(&r.s);
	catch_stops(&r, true);
	if (!err)
		err = session_trials(&r.s);
	catch_stops(&r, false);
	progress_clear(&r.pg);
	if (err == -ENOTTY) {
		ms_err("run: %s needs a terminal: use --stdin FILE or --show-output", r.s.cmd[0]);
		rc = MS_EXIT_USAGE;
		goto out;
	}
	if (err && err == r.s.b.exec_err) {
		/* found and executable up front (check_cmd), yet exec failed:
		 * not a THP knob's error, as thp_strerror would say */
		ms_err("run: cannot run '%s': %s%s", r.s.cmd[0], strerror(-err),
		       err == -ENOENT ? " (the file is there: its #! interpreter or ELF loader is not)" : "");
		rc = MS_EXIT_USAGE;
		goto out;
	}
	if (err == -ENOMEM) {
		/* a buffer's mapping or its population, not a knob: thp_strerror
		 * would name the last sysfs file written */
		ms_err("run: out of memory mapping or populating a span (%s)", strerror(-err));
		rc = MS_EXIT_FAIL;
		goto out;
	}
	if (err) {
		thp_strerror(err, msg, sizeof(msg));
		ms_err("run: %s", msg);
		rc = ms_exit_for_errno(err);
		goto out;
	}
	if (r.s.interrupted && !r.s.res->nr_trials) {
		ms_note("run: interrupted before the first trial ended: nothing to write");
		rc = MS_EXIT_FAIL;
		goto out;
	}
	if (r.s.interrupted)
		ms_note("run: interrupted after %d of the plan's %d measurements (the progress "
			"count); the results have their trials", r.s.nr_done, r.s.nr_cells);
	rc = run_finish(&r);
out:
	session_free(&r.s);
	if (r.s.interrupted)
		cli_end_of_stop();
out_opts:
	if (r.stdin_fd >= 0)
		close(r.stdin_fd);
	for (i = 0; i < r.s.o.nr_metrics; i++)
		bench_metric_free(&r.s.o.metrics[i]);
	presence_doc_free(&r.pres.doc);
	return rc;
}

MS_COMMAND(run, "micro-benchmarks, or a command, at each folio order (verified by pagemap)");
