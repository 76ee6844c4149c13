// SPDX-License-Identifier: GPL-2.0-or-later
/* mthpscope run: micro-benchmarks at each folio order. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze.h"
#include "arch.h"
#include "atomic.h"
#include "bench.h"
#include "child.h"
#include "cli.h"
#include "commands.h"
#include "counters.h"
#include "folio.h"
#include "kernel.h"
#include "progress.h"
#include "results.h"
#include "stats.h"
#include "thp.h"
#include "topo.h"

#define RUN_MAX_SPANS RESULTS_MAX_SPANS
#define RUN_MAX_PATTERNS RESULTS_MAX_PATTERNS
#define RUN_MAX_METRICS RESULTS_MAX_METRICS
#define RUN_COVERAGE_MIN BENCH_COVERAGE_MIN
/*
 * Reps per order: 10, not the 5 first planned. With 5, the 95 % percentile
 * bootstrap CI of a median is the range of the five values (a resample's
 * median falls on the smallest value with probability 5.8 % > 2.5 %), so one
 * disturbed trial sets the CI; 7 or more trim one value at each end. On the
 * shared 2-vCPU VM 10 reps took 30 s and gave order 0 a CI of +/-3 %. And
 * with 5 a side the exact Mann-Whitney p is at least 2/252 = 0.008, which
 * Holm across 8 orders lifts above 0.05: analyze could never call a gain
 * significant.
 */
#define RUN_DEFAULT_REPS 10
#define RUN_QUICK_REPS 3
/*
 * The interleaved schedule: many short reps instead. Each rep re-populates
 * every order, so it samples placement and the machine's state anew, and
 * that rep-to-rep variation, not the burst-to-burst noise inside a rep, is
 * what bounds the paired gain's CI. On the project's VM (recorded runs of
 * 10 reps x 0.5 s per order): per-round log ratios scatter with sd
 * 0.15-0.22, a rep's gain moves by sd 0.03-0.08 beyond that. 30 reps of
 * 0.15 s each (9 rounds) take about the time of 10 x 0.5 s (populating 16 MiB
 * at 9 orders costs ~40 ms a rep) and gave CI half-widths of 2.6 points
 * (median; 3.8 the widest) against 3.2 (5.1) for 10 x 0.5 s, measured side
 * by side on the same machine and load: see the README.
 */
#define RUN_INTERLEAVED_REPS 30
#define RUN_INTERLEAVED_TRIAL_NS 0.15e9
/* Never map more than this share of MemAvailable: the rest of the machine
 * keeps working and the kernel keeps room to compact for the large orders. */
#define RUN_MEM_SHARE 0.5

enum {
	OPT_ORDERS = 256,
	OPT_PATTERN,
	OPT_SPAN,
	OPT_SWEEP,
	OPT_REPS,
	OPT_SEED,
	OPT_CPU,
	OPT_QUICK,
	OPT_ACCESSES,
	OPT_SPARSE,
	OPT_BACKEND,
	OPT_DEFRAG,
	OPT_SCAN_INTERVAL,
	OPT_TIMEOUT,
	OPT_METRIC,
	OPT_BETTER,
	OPT_LOG,
	OPT_SHOW_OUTPUT,
	OPT_SCHEDULE,
	OPT_STDIN,
	OPT_WAIT_DESCENDANTS,
	OPT_OUTPUT = 'o',
};

static const struct cli_opt run_options[] = {
	{ "orders", OPT_ORDERS, "LIST",
	  "folio orders, e.g. 0,2-9 or all (default: 0 and every anon mTHP order)" },
	{ "pattern", OPT_PATTERN, "NAME[,NAME]",
	  "chase-tlb (default), chase-mem, random, stream, store" },
	{ "span", OPT_SPAN, "SIZE",
	  "buffer size, a multiple of the PMD size (default from the caches and TLB reach)" },
	{ "sweep", OPT_SWEEP, "MIN:MAX", "spans MIN, 2*MIN, ... up to MAX: the TLB-reach staircase" },
	{ "reps", OPT_REPS, "N", "repetitions of each order (default 30 of 0.15 s interleaved, 10 of 0.5 s sequential; --quick 3 of 0.1 s)" },
	{ "seed", OPT_SEED, "N", "seed of the trial order and the access patterns (default 1)" },
	{ "cpu", OPT_CPU, "N", "pin to this CPU (default: the last one)" },
	{ "quick", OPT_QUICK, NULL, "a short run: 3 reps, 0.1 s trials (under 15 s)" },
	{ "accesses", OPT_ACCESSES, "N",
	  "accesses per trial (default: calibrated to about 0.15 s at order 0 interleaved, 0.5 s sequential)" },
	{ "sparse", OPT_SPARSE, "K",
	  "bloat check: touch one page in every K and report RSS (default: pages per PMD; 0 off)" },
	{ "backend", OPT_BACKEND, "auto|pmu|timing",
	  "pmu: hardware counters or fail; timing: time and software events (default auto)" },
	{ "defrag", OPT_DEFRAG, "WORD",
	  "set the top-level THP defrag (always, defer, defer+madvise, madvise, never) for "
	  "the run, restored after: one side of a settings A/B" },
	{ "output", OPT_OUTPUT, "FILE", "write the results (mthpscope.results/1) to FILE" },
	{ "schedule", OPT_SCHEDULE, "interleaved|sequential",
	  "interleaved (default when every order's span fits): all orders populated up front, "
	  "timed round-robin in short bursts; sequential: one order per trial" },
	{ "scan-interval", OPT_SCAN_INTERVAL, "MS",
	  "-- CMD: scan the command's memory every MS ms (default 250; 0: only at each "
	  "process's exit)" },
	{ "timeout", OPT_TIMEOUT, "S", "-- CMD: kill a trial's process group after S seconds" },
	{ "metric", OPT_METRIC, "NAME=REGEX",
	  "-- CMD: a metric the command prints: the first group of the last stdout line "
	  "REGEX matches (several allowed)" },
	{ "better", OPT_BETTER, "higher|lower",
	  "-- CMD: direction of the --metric just before (default lower)" },
	{ "log", OPT_LOG, "DIR", "-- CMD: keep each trial's stdout and stderr in DIR" },
	{ "show-output", OPT_SHOW_OUTPUT, NULL,
	  "-- CMD: let the command write to the terminal (and have it, to read)" },
	{ "stdin", OPT_STDIN, "FILE",
	  "-- CMD: every trial's standard input, read from the start (default: piped "
	  "input, read once and given whole to every trial; a terminal: /dev/null)" },
	{ "wait-descendants", OPT_WAIT_DESCENDANTS, NULL,
	  "-- CMD: wait for processes that outlive the command (default: kill them, and say "
	  "how many)" },
	{ NULL },
};

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
		   "Exit status: 0 done, 1 runtime failure (or every trial of an order of CMD\n"
		   "failed), 2 bad option or CMD not found, 3 not root / PMU missing for\n"
		   "--backend pmu / span above half of MemAvailable / output not writable.",
	.opts = run_options,
};

struct run_cmd_opts {
	const char *orders_arg;
	const char *patterns_arg;
	unsigned long long span, sweep_min, sweep_max;
	long reps, cpu, sparse_k;
	unsigned long long seed, accesses;
	bool quick, have_seed, have_reps, have_cpu, have_sparse;
	enum bench_backend backend;
	int defrag; /* enum thp_word, or THP_W_NONE: leave it */
	const char *output;
	int schedule;      /* -1: default; else enum results_schedule */
	/* -- CMD */
	long scan_interval_ms;
	double timeout_s;
	struct bench_metric metrics[RUN_MAX_METRICS];
	int nr_metrics;
	const char *log_dir;
	bool show_output;
	const char *stdin_file;
	bool wait_descendants;
	bool cmd_only_opt; /* an option that only applies to -- CMD was given */
};

/* The options of run -- CMD. */
static int on_cmd_opt(int key, const char *arg, struct run_cmd_opts *o)
{
	char why[512];

	o->cmd_only_opt = true;
	switch (key) {
	case OPT_SCAN_INTERVAL:
		return cli_parse_long("scan-interval", arg, 0, 3600000, &o->scan_interval_ms);
	case OPT_TIMEOUT:
		return cli_parse_double("timeout", arg, 0.001, 1e6, &o->timeout_s);
	case OPT_METRIC:
		if (o->nr_metrics == RUN_MAX_METRICS) {
			ms_err("run: at most %d --metric options", RUN_MAX_METRICS);
			return -1;
		}
		if (bench_metric_parse(arg, &o->metrics[o->nr_metrics], why, sizeof(why))) {
			ms_err("run: invalid --metric value: %s", why);
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
	case OPT_BETTER:
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
	if (key == OPT_LOG)
		o->log_dir = arg;
	if (key == OPT_STDIN)
		o->stdin_file = arg;
	o->show_output |= key == OPT_SHOW_OUTPUT;
	o->wait_descendants |= key == OPT_WAIT_DESCENDANTS;
	return 0;
}

static int on_opt(int key, const char *arg, void *ctx)
{
	struct run_cmd_opts *o = ctx;
	long v;
	char *colon;

	switch (key) {
	case OPT_ORDERS:
		o->orders_arg = arg;
		return 0;
	case OPT_PATTERN:
		o->patterns_arg = arg;
		return 0;
	case OPT_SPAN:
		return cli_parse_size_min("span", arg, 1, &o->span);
	case OPT_SWEEP: {
		char lo[64];
		colon = strchr(arg, ':');
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
	case OPT_REPS:
		o->have_reps = true;
		return cli_parse_long("reps", arg, 1, 1000, &o->reps);
	case OPT_SEED:
		if (cli_parse_long("seed", arg, 0, LONG_MAX, &v))
			return -1;
		o->seed = (unsigned long long)v;
		o->have_seed = true;
		return 0;
	case OPT_CPU:
		o->have_cpu = true;
		return cli_parse_long("cpu", arg, 0, 65535, &o->cpu);
	case OPT_QUICK:
		o->quick = true;
		return 0;
	case OPT_ACCESSES:
		if (cli_parse_long("accesses", arg, 1, LONG_MAX, &v))
			return -1;
		o->accesses = (unsigned long long)v;
		return 0;
	case OPT_SPARSE:
		o->have_sparse = true;
		return cli_parse_long("sparse", arg, 0, 1L << 30, &o->sparse_k);
	case OPT_BACKEND:
		if (!strcmp(arg, "auto"))
			o->backend = BENCH_BACKEND_AUTO;
		else if (!strcmp(arg, "pmu"))
			o->backend = BENCH_BACKEND_PMU;
		else if (!strcmp(arg, "timing"))
			o->backend = BENCH_BACKEND_TIMING;
		else {
			ms_err("invalid --backend value '%s' (auto, pmu or timing)", arg);
			return -1;
		}
		return 0;
	case OPT_DEFRAG:
		o->defrag = thp_word_parse(arg);
		if (o->defrag < 0) {
			ms_err("invalid --defrag value '%s' (always, defer, defer+madvise, madvise, "
			       "never)", arg);
			return -1;
		}
		return 0;
	case OPT_OUTPUT:
		return cli_parse_path("output", arg, &o->output);
	case OPT_SCHEDULE:
		if (!strcmp(arg, "interleaved") || !strcmp(arg, "sequential")) {
			o->schedule = strcmp(arg, "interleaved") ? RESULTS_SCHED_SEQUENTIAL
								 : RESULTS_SCHED_INTERLEAVED;
			return 0;
		}
		ms_err("invalid --schedule value '%s' (interleaved or sequential)", arg);
		return -1;
	}
	return on_cmd_opt(key, arg, o);
}

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

/* "0,2-9" or "all" -> orders[]; exit status on error (message printed). */
static int parse_orders(const char *arg, const struct thp_settings *s, int *orders, int *n)
{
	char supp[128];
	int given[FOLIO_MAX_ORDER + 1], nr_given, i, j;

	*n = 0;
	supported_orders_text(s, supp, sizeof(supp));
	if (!arg || !strcmp(arg, "all")) {
		if (s->legacy_pmd)
			ms_note("run: this kernel has no per-size mTHP (hugepages-<N>kB/, Linux 6.8 "
				"and later): measuring order 0 and the PMD order %d only", s->pmd_order);
		orders[(*n)++] = 0;
		for (i = 0; i < s->nr_sizes && *n < BENCH_MAX_ORDERS; i++)
			if (s->sizes[i].anon)
				orders[(*n)++] = s->sizes[i].order;
		return 0;
	}
	if (cli_parse_orders(arg, given, MS_ARRAY_SIZE(given), &nr_given))
		goto bad;
	for (j = 0; j < nr_given; j++) {
		i = given[j];
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
		if (*n < BENCH_MAX_ORDERS)
			orders[(*n)++] = i;
	}
	if (!*n)
		goto bad;
	return 0;
bad:
	ms_err("run: invalid --orders value '%s' (e.g. 0,2-9 or all; supported: %s)", arg, supp);
	return MS_EXIT_USAGE;
}

static int parse_patterns(const char *arg, const struct kern_desc **pats, int *n)
{
	char buf[256], *tok, *save = NULL;
	const struct kern_desc *const *k;
	int i;

	*n = 0;
	if (!arg) {
		pats[(*n)++] = &kern_chase_tlb;
		return 0;
	}
	if (strlen(arg) >= sizeof(buf))
		goto bad;
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct kern_desc *d = kern_find(tok);
		if (!d) {
			ms_err("run: unknown pattern '%s'; patterns:", tok);
			for (k = kern_table; *k; k++)
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

/* ---- defaults from the machine ------------------------------------------- */

/* Bytes the last-level data TLB maps with base pages: CPUID where x86 has
 * it (arch_tlb_geometry); elsewhere 2048 entries are assumed, the size of
 * current big cores' second-level TLBs (Golden Cove, Neoverse V2), and the
 * config says so. */
static unsigned long long tlb_reach(long page_size, const char **source)
{
	struct arch_tlb t;
	int entries;

	if (!arch_tlb_geometry(&t)) {
		entries = t.l2_4k ? t.l2_4k : t.l1d_4k;
		if (entries > 0) {
			*source = t.source ? t.source : "cpuid";
			return (unsigned long long)entries * (unsigned long long)page_size;
		}
	}
	*source = "assumed: 2048 entries";
	return 2048ULL * (unsigned long long)page_size;
}

static unsigned long long round_up(unsigned long long v, unsigned long long to)
{
	return (v + to - 1) / to * to;
}

/*
 * chase-tlb: one line per page, so the chased lines take span/64 bytes; keep
 * them within half the L2 (32 x L2) while the pages are at least twice the
 * TLB reach. The other patterns want memory, not cache: four times the
 * last-level cache.
 */
static unsigned long long default_span(const struct kern_desc *k, const struct topo_info *t,
				       unsigned long long reach, unsigned long pmd)
{
	unsigned long long v, l2 = t->l2_bytes ? t->l2_bytes : 1ULL << 20;
	unsigned long long llc = t->l3_bytes ? t->l3_bytes : l2;

	if (k == &kern_chase_tlb) {
		v = 32 * l2;
		if (v < 2 * reach)
			v = 2 * reach;
	} else {
		v = 4 * llc;
		if (v < 64ULL << 20)
			v = 64ULL << 20;
	}
	if (v > 1ULL << 30)
		v = 1ULL << 30;
	return round_up(v, pmd);
}

/* ---- the run ----------------------------------------------------------------- */

struct run {
	struct run_cmd_opts o;
	struct thp_settings s;
	struct topo_info topo;
	int orders[BENCH_MAX_ORDERS], nr_orders;
	const struct kern_desc *pats[RUN_MAX_PATTERNS];
	int nr_pats;
	unsigned long long spans[RUN_MAX_SPANS];
	int nr_spans;
	unsigned long long accesses[RUN_MAX_PATTERNS][RUN_MAX_SPANS];
	double target_ns;
	enum results_schedule schedule;
	char **cmd; /* -- CMD [ARGS...], NULL-terminated; NULL for micro-benchmarks */
	struct bench_cell *cells;
	int nr_cells;
	struct results_trial *trials; /* [2 * nr_cells]: each cell's trial and its sparse one */
	int nr_done;
	struct progress pg;
	json_t *doc;
	struct bench b;
	char stdin_path[64]; /* every trial's stdin (child_input); "" the default */
	int stdin_fd;        /* the unlinked copy of piped stdin, or -1 */
};

/* The engine's progress and warnings, on the terminal. */
static void on_event(const struct bench_event *ev, void *ctx)
{
	struct run *r = ctx;

	switch (ev->kind) {
	case BENCH_EV_WARN:
		progress_clear(&r->pg);
		ms_warn("%s", ev->what);
		return;
	case BENCH_EV_NOTE:
		progress_clear(&r->pg);
		ms_note("%s", ev->what);
		return;
	case BENCH_EV_CALIBRATE:
		progress_show(&r->pg, -1, "calibrating %s, span %llu MiB", ev->what, ev->span >> 20);
		return;
	case BENCH_EV_TRIAL:
		if (ev->cell && ev->cell->order < 0) /* interleaved: every order at once */
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

static void progress(struct run *r, int done, const struct bench_cell *c)
{
	struct bench_event ev = { .kind = BENCH_EV_TRIAL, .cell = c, .done = done,
				  .total = r->nr_cells };

	ev.what = r->cmd ? r->cmd[0] : c ? r->pats[c->pattern]->name : "";
	on_event(&ev, r);
}

/* ---- summary -------------------------------------------------------------- */

/* Values of one metric over the reps of one cell (failed trials left out);
 * "coverage" is the verified folio coverage. Returns how many. */
static int collect(const struct run *r, const char *pattern, bool sparse, uint64_t span,
		   int order, const char *metric, double *v)
{
	int j, n = 0;

	for (j = 0; j < 2 * r->nr_done; j++) {
		const struct results_trial *t = &r->trials[j];
		const struct results_metric *m;

		if (!t->pattern[0] || t->sparse != sparse || t->order != order ||
		    t->span != span || (t->flags & RESULTS_F_FAILED) ||
		    (!sparse && strcmp(t->pattern, pattern)))
			continue;
		if (!strcmp(metric, "coverage")) {
			if (t->has_folios)
				v[n++] = t->coverage;
			continue;
		}
		m = results_trial_metric(t, metric);
		if (m)
			v[n++] = m->value;
	}
	return n;
}

static double median_or_nan(const double *v, int n)
{
	double m;

	return n > 0 && !stats_median(v, (size_t)n, &m) ? m : NAN;
}

static double min_or_nan(const double *v, int n)
{
	double m = NAN;

	/* the worst rep: one bad trial is what must show */
	while (n-- > 0)
		m = isnan(m) || v[n] < m ? v[n] : m;
	return m;
}

static void fmt_bytes(double b, char *buf, size_t size)
{
	if (!isfinite(b))
		snprintf(buf, size, "-");
	else if (b >= 1 << 30)
		snprintf(buf, size, "%.1f GiB", b / (1 << 30));
	else if (b >= 1 << 20)
		snprintf(buf, size, "%.1f MiB", b / (1 << 20));
	else
		snprintf(buf, size, "%.0f KiB", b / 1024);
}

/* prec digits after the point, or significant digits with 'sig'; "-" when
 * nothing was measured */
static const char *fmt_num(double v, int prec, bool sig, char *buf, size_t size)
{
	if (!isfinite(v))
		snprintf(buf, size, "-");
	else if (sig)
		snprintf(buf, size, "%.*g", prec, v);
	else
		snprintf(buf, size, "%.*f", prec, v);
	return buf;
}

static void fmt_coverage(double cov, char *buf, size_t size)
{
	if (isnan(cov))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.3f%s", cov, cov < RUN_COVERAGE_MIN ? "!" : "");
}

#define RUN_CI_LEVEL 0.95
#define RUN_CI_ITERS 2000
#define RUN_CI_TARGET 0.05

/* Median and "[lo, hi]" (or "-") of v; *half the farther end from the median. */
static double median_ci(const struct run *r, const double *v, int n, double scale, char *ci,
			size_t size, double *half)
{
	double med = median_or_nan(v, n), lo, hi;

	*half = NAN;
	if (n > 1 && !stats_bootstrap_median_ci(v, (size_t)n, RUN_CI_LEVEL, RUN_CI_ITERS,
						r->o.seed, &lo, &hi)) {
		snprintf(ci, size, "[%.2f, %.2f]", lo / scale, hi / scale);
		*half = fmax(hi - med, med - lo);
	} else {
		snprintf(ci, size, "-");
	}
	return med;
}

static void print_precision(FILE *f, double base, double widest, bool paired)
{
	/* The precision a reader can expect of a gain: CIs against the
	 * order-0 value they are compared to. With the interleaved schedule
	 * the gains are paired (print_paired_precision): each order's own
	 * median CI then only says how much the load moved the times. */
	if (!isfinite(base) || base <= 0)
		return;
	if (paired)
		fprintf(f, "unpaired: each order's own median CI reaches %.1f%% of order 0's "
			"median at most\n(it carries the load that pairing by round cancels)\n",
			100 * widest / base);
	else
		fprintf(f, "precision: the widest CI reaches %.1f%% of order 0's median "
			"(%.1f%% or less resolves a 5%% gain)%s\n", 100 * widest / base,
			RUN_CI_TARGET * 100,
			widest / base > RUN_CI_TARGET
				? "; more --reps or a quieter machine narrow it"
				: "");
}

static void print_micro_cell(struct run *r, FILE *f, int p, int sp, double *v)
{
	const char *pat = r->pats[p]->name;
	unsigned long long span = r->spans[sp];
	double base = NAN, widest = 0, half;
	char spb[32];
	int i, n;

	fmt_bytes((double)span, spb, sizeof(spb));
	fprintf(f, "%s, span %s, %llu accesses per trial, %ld reps, cpu %ld\n", pat, spb,
		r->accesses[p][sp], r->o.reps, r->o.cpu);
	fprintf(f, "%5s %7s %8s %10s %21s %8s %11s %11s\n", "order", "folio", "coverage",
		"ns/access", "95% CI", "faults", "populate", "sparse RSS");
	for (i = 0; i < r->nr_orders; i++) {
		int o = r->orders[i];
		double med, faults, pop, rss;
		char fol[16], rssb[32], ci[40], cvb[16], fb[16];

		n = collect(r, pat, false, span, o, "ns_per_access", v);
		med = median_ci(r, v, n, 1, ci, sizeof(ci), &half);
		if (isfinite(half)) {
			if (o == 0)
				base = med;
			widest = fmax(widest, half);
		}
		n = collect(r, pat, false, span, o, "coverage", v);
		fmt_coverage(min_or_nan(v, n), cvb, sizeof(cvb));
		n = collect(r, pat, false, span, o, "page_faults", v);
		faults = median_or_nan(v, n);
		if (isnan(faults))
			snprintf(fb, sizeof(fb), "-");
		else
			snprintf(fb, sizeof(fb), "%.0f", faults);
		n = collect(r, pat, false, span, o, "populate_ns", v);
		pop = median_or_nan(v, n);
		n = collect(r, pat, true, span, o, "rss_bytes", v);
		rss = median_or_nan(v, n);
		fmt_bytes(rss, rssb, sizeof(rssb));
		snprintf(fol, sizeof(fol), "%lukB", (unsigned long)(r->topo.page_size << o) / 1024);
		fprintf(f, "%5d %7s %8s %10.2f %21s %8s %8.2f ms %11s\n", o, fol, cvb, med, ci, fb,
			pop / 1e6, rssb);
	}
	print_precision(f, base, widest, r->schedule == RESULTS_SCHED_INTERLEAVED);
	fprintf(f, "\n");
}

/*
 * Interleaved: the precision of what analyze's verdict rests on, the paired
 * gains, told by the analyzer itself (the table above gives each order's
 * own median, whose CI also carries the load that pairing cancels). Silent
 * when the analysis cannot be made: analyze says why.
 */
static void print_paired_precision(struct run *r, FILE *f)
{
	struct results *res = NULL;
	struct analysis *a = NULL;
	char *buf = json_dumps(r->doc, JSON_COMPACT), err[256], sb[32];
	double widest = -1;
	int k, at = -1;

	if (!buf || results_load_buffer(buf, strlen(buf), "run", &res, err, sizeof(err)) ||
	    analyze_run(res, NULL, &a, err, sizeof(err)) || a->method != AN_PAIRED)
		goto out;
	for (k = 1; k < ANALYZE_NR_ORDERS; k++) {
		const struct analyze_change *g = &a->orders[k].gain;
		double half = fmax(g->hi - g->value, g->value - g->lo);

		if (a->orders[k].n_pairs && isfinite(half) && half > widest) {
			widest = half;
			at = k;
		}
	}
	if (at < 0)
		goto out;
	fmt_bytes((double)a->span, sb, sizeof(sb));
	fprintf(f, "paired precision (%s, span %s: what analyze's verdict rests on): the\n"
		"widest gain CI is +/-%.1f points of order 0's time (order %d)%s\n\n", a->pattern, sb,
		100 * widest, at,
		widest > RUN_CI_TARGET ? "; more --reps or a quieter machine narrow it" : "");
out:
	analyze_free(a);
	results_free(res);
	free(buf);
}

/* The table goes to 'f': stdout, or stderr when the JSON goes to stdout. */
static void print_micro_summary(struct run *r, FILE *f)
{
	/* every pattern's cell has its own sparse trial, and sparse trials
	 * carry no pattern: a (span, order) has reps x patterns of them */
	double *v = calloc((size_t)r->o.reps * (size_t)r->nr_pats, sizeof(double));
	int p, sp;

	if (!v)
		return;
	for (p = 0; p < r->nr_pats; p++)
		for (sp = 0; sp < r->nr_spans; sp++)
			print_micro_cell(r, f, p, sp, v);
	free(v);
	if (r->schedule == RESULTS_SCHED_INTERLEAVED)
		print_paired_precision(r, f);
	fprintf(f, "ns/access: median over the reps of the thread's CPU time per access (timing),\n"
		"with a %.0f%% bootstrap CI of the median. coverage: the lowest share of the span\n"
		"at the requested order over the reps (pagemap; '!' below %.0f%%). faults: page\n"
		"faults to populate the span (sw). populate: median time to fault it in (timing).\n"
		"sparse RSS: resident bytes when one page in every %ld is touched (kernel, mincore).\n",
		RUN_CI_LEVEL * 100, RUN_COVERAGE_MIN * 100, r->o.sparse_k);
}

/* Trials of an order that ran and those that failed. */
static void count_failed(const struct run *r, int order, int *ran, int *failed)
{
	*ran = *failed = 0;
	for (int j = 0; j < 2 * r->nr_done; j++) {
		const struct results_trial *t = &r->trials[j];

		if (!t->pattern[0] || t->order != order)
			continue;
		(*ran)++;
		*failed += !!(t->flags & RESULTS_F_FAILED);
	}
}

/* The command line, each argument escaped: a newline or an escape code in
 * one must not break (or recolour) the table. */
static void print_argv(char **argv, FILE *f)
{
	for (int i = 0; argv[i]; i++) {
		char *e = ms_escape(argv[i]);

		fprintf(f, "%s%s", i ? " " : "", e ? e : "?");
		free(e);
	}
}

/* The scans' own CPU (watch_cpu_ns) against the wall time, where it passes
 * 1 %: the measurement's share of the machine. */
static void print_watch_share(struct run *r, FILE *f, double *v)
{
	for (int i = 0; i < r->nr_orders; i++) {
		int o = r->orders[i], n;
		double cpu, wall;

		n = collect(r, "command", false, 0, o, "watch_cpu_ns", v);
		cpu = median_or_nan(v, n);
		n = collect(r, "command", false, 0, o, "wall_ns", v);
		wall = median_or_nan(v, n);
		if (isfinite(cpu) && wall > 0 && cpu / wall > 0.01)
			fprintf(f, "order %d: the scans took %.1f%% of the wall time in CPU "
				"(watch_cpu_ns %.0f ms, median)\n", o, 100 * cpu / wall, cpu / 1e6);
	}
}

static void print_command_summary(struct run *r, FILE *f)
{
	double *v = calloc((size_t)r->o.reps, sizeof(double)), base = NAN, widest = 0, half;
	int i, k, n;

	if (!v)
		return;
	print_argv(r->cmd, f);
	fprintf(f, "\n%ld reps, scan every %ld ms\n", r->o.reps, r->o.scan_interval_ms);
	fprintf(f, "%5s %7s %8s %9s %21s %9s %10s %10s %6s", "order", "folio", "coverage",
		"wall s", "95% CI", "cpu s", "faults", "max RSS", "failed");
	for (k = 0; k < r->o.nr_metrics; k++)
		fprintf(f, " %12s", r->o.metrics[k].name);
	fprintf(f, "\n");
	for (i = 0; i < r->nr_orders; i++) {
		int o = r->orders[i], ran, failed;
		double med, cpu, flt, rss;
		char fol[16], ci[48], cvb[16], rssb[32], wb[32], cb[32], fb[32];

		n = collect(r, "command", false, 0, o, "wall_ns", v);
		med = median_ci(r, v, n, 1e9, ci, sizeof(ci), &half);
		if (isfinite(half)) {
			if (o == 0)
				base = med;
			widest = fmax(widest, half);
		}
		n = collect(r, "command", false, 0, o, "coverage", v);
		fmt_coverage(min_or_nan(v, n), cvb, sizeof(cvb));
		n = collect(r, "command", false, 0, o, "user_ns", v);
		cpu = median_or_nan(v, n);
		n = collect(r, "command", false, 0, o, "sys_ns", v);
		cpu += median_or_nan(v, n);
		n = collect(r, "command", false, 0, o, "minor_faults", v);
		flt = median_or_nan(v, n);
		n = collect(r, "command", false, 0, o, "max_rss_bytes", v);
		rss = median_or_nan(v, n);
		fmt_bytes(rss, rssb, sizeof(rssb));
		count_failed(r, o, &ran, &failed);
		snprintf(fol, sizeof(fol), "%lukB", (unsigned long)(r->topo.page_size << o) / 1024);
		fprintf(f, "%5d %7s %8s %9s %21s %9s %10s %10s %3d/%-2d", o, fol, cvb,
			fmt_num(med / 1e9, 3, false, wb, sizeof(wb)), ci,
			fmt_num(cpu / 1e9, 3, false, cb, sizeof(cb)),
			fmt_num(flt, 0, false, fb, sizeof(fb)),
			rssb, failed, ran);
		for (k = 0; k < r->o.nr_metrics; k++) {
			n = collect(r, "command", false, 0, o, r->o.metrics[k].name, v);
			fprintf(f, " %12s", fmt_num(median_or_nan(v, n), 6, true, wb, sizeof(wb)));
		}
		fprintf(f, "\n");
	}
	print_precision(f, base, widest, false);
	print_watch_share(r, f, v);
	free(v);
	fprintf(f, "\nwall s: median over the reps of the command's wall time (timing), with a %.0f%%\n"
		"bootstrap CI of the median. cpu s: user + system time of the whole tree (kernel,\n"
		"rusage). coverage: the lowest share over the reps of the anonymous memory in\n"
		"folios of the order or larger, from the scan with the most anonymous memory\n"
		"(pagemap; '!' below %.0f%%). faults: minor faults of the tree (kernel). failed:\n"
		"trials whose command failed or timed out (left out of every median).\n",
		RUN_CI_LEVEL * 100, RUN_COVERAGE_MIN * 100);
}

/* ---- the command ---------------------------------------------------------- */

/* $.config: what run was asked and what it chose. Both shapes share
 * command, orders, reps, seed, cpu, backend, coverage_min and defrag;
 * results_head_json writes each shape's keys in its order. */
static int fill_config(const struct run *r, struct results_config *c, const char *reach_source,
		       unsigned long long reach)
{
	int i;

	results_config_init(c);
	snprintf(c->command, sizeof(c->command), "run");
	for (i = 0; i < r->nr_orders; i++)
		c->orders[i] = r->orders[i];
	c->nr_orders = r->nr_orders;
	c->reps = r->o.reps;
	c->seed = r->o.seed;
	c->cpu = r->o.cpu;
	snprintf(c->backend, sizeof(c->backend), "%s", r->b.backend);
	c->coverage_min = RUN_COVERAGE_MIN;
	c->defrag = r->o.defrag;
	if (r->cmd) {
		c->workload = RESULTS_WL_COMMAND;
		snprintf(c->pattern, sizeof(c->pattern), "command");
		c->scan_interval_ms = r->o.scan_interval_ms;
		c->timeout_s = r->o.timeout_s;
		for (i = 0; i < r->o.nr_metrics; i++) {
			snprintf(c->metrics[i].name, sizeof(c->metrics[i].name), "%s",
				 r->o.metrics[i].name);
			snprintf(c->metrics[i].regex, sizeof(c->metrics[i].regex), "%s",
				 r->o.metrics[i].regex);
			c->metrics[i].higher_better = r->o.metrics[i].higher_better;
		}
		c->nr_metrics = r->o.nr_metrics;
		/* each trial enables its order with the top-level knob 'always' */
		snprintf(c->top_enabled, sizeof(c->top_enabled), "always");
		return results_config_set_argv(c, r->cmd);
	}
	snprintf(c->pattern, sizeof(c->pattern), "%s", r->pats[0]->name);
	for (i = 0; i < r->nr_pats; i++)
		snprintf(c->patterns[i], sizeof(c->patterns[i]), "%s", r->pats[i]->name);
	c->nr_patterns = r->nr_pats;
	for (i = 0; i < r->nr_spans; i++)
		c->spans[i] = r->spans[i];
	c->nr_spans = r->nr_spans;
	c->quick = r->o.quick;
	c->target_trial_seconds = r->target_ns / 1e9;
	c->tlb_reach_bytes = reach;
	snprintf(c->tlb_reach_source, sizeof(c->tlb_reach_source), "%s", reach_source);
	c->sparse_k = r->o.sparse_k;
	snprintf(c->sparse_metric, sizeof(c->sparse_metric), "rss_bytes");
	/* what ns_per_access is measured with (wall_ns_per_access: MONOTONIC) */
	snprintf(c->clock, sizeof(c->clock), "CLOCK_THREAD_CPUTIME_ID");
	c->schedule = r->schedule;
	return 0;
}

/* The results document: tool, host (with what the PMU can do), the THP
 * settings in effect and the config, as one typed head. */
static int make_doc(struct run *r, const char *reach_source, unsigned long long reach)
{
	struct results_head h;
	int err;

	memset(&h, 0, sizeof(h));
	h.has_tool = true;
	snprintf(h.tool_version, sizeof(h.tool_version), "%s", ms_version);
	results_host_describe(&h.host, &r->topo, &r->s);
	/* the settings in effect: the user's, but for --defrag (the per-size
	 * enabled values are the user's too: each trial sets its own) */
	if (thp_read(&h.thp))
		h.thp = r->s;
	h.has_thp = true;
	err = fill_config(r, &h.config, reach_source, reach);
	if (!err)
		err = results_head_json(&h, &r->doc);
	results_config_clear(&h.config);
	return err;
}

/* Interleaved unless asked otherwise or the spans of every order do not fit
 * at once (then sequential, and it says so). */
static void choose_schedule(struct run *r, unsigned long long largest, unsigned long long avail)
{
	unsigned long long need = bench_interleaved_bytes(largest, r->nr_orders, r->s.pmd_size);

	r->schedule = r->o.schedule < 0 ? RESULTS_SCHED_INTERLEAVED
					: (enum results_schedule)r->o.schedule;
	if (r->schedule == RESULTS_SCHED_INTERLEAVED && avail &&
	    (double)need > RUN_MEM_SHARE * (double)avail) {
		char a[32], l[32];

		fmt_bytes((double)need, l, sizeof(l));
		fmt_bytes((double)avail, a, sizeof(a));
		ms_note("the spans of all %d orders at once (%s) exceed half of MemAvailable (%s): "
			"the sequential schedule is used (one order per trial)", r->nr_orders, l, a);
		r->schedule = RESULTS_SCHED_SEQUENTIAL;
	}
}

/* Spans and the defaults that depend on the machine; an exit status or 0. */
static int micro_setup(struct run *r, const char **reach_src, unsigned long long *reach)
{
	unsigned long long largest = 0, avail, u;
	int i;

	*reach = tlb_reach(r->topo.page_size, reach_src);
	if (r->o.sweep_min) {
		for (u = r->o.sweep_min; u <= r->o.sweep_max && r->nr_spans < RUN_MAX_SPANS; u *= 2)
			r->spans[r->nr_spans++] = u;
	} else if (r->o.span) {
		r->spans[r->nr_spans++] = r->o.span;
	} else {
		r->spans[r->nr_spans++] = default_span(r->pats[0], &r->topo, *reach, r->s.pmd_size);
	}
	for (i = 0; i < r->nr_spans; i++) {
		if (r->spans[i] % r->s.pmd_size) {
			ms_err("run: span %llu is not a multiple of the PMD size (%lu bytes): every "
			       "order must be able to fill it with aligned folios",
			       r->spans[i], r->s.pmd_size);
			return MS_EXIT_USAGE;
		}
		largest = r->spans[i] > largest ? r->spans[i] : largest;
	}
	if (largest / KERN_LINE > UINT32_MAX) {
		ms_err("run: span %llu is too large (at most %llu bytes)", largest,
		       (unsigned long long)UINT32_MAX * KERN_LINE);
		return MS_EXIT_USAGE;
	}
	if (r->o.span && r->topo.l2_bytes && kern_find("chase-tlb") == r->pats[0] &&
	    r->o.span / r->topo.page_size * KERN_LINE > r->topo.l2_bytes / 2)
		ms_note("chase-tlb at %llu MiB chases %llu KiB of lines, more than half of the "
			"L2 (%llu KiB): cache misses add to the translation cost", r->o.span >> 20,
			r->o.span / (unsigned long long)r->topo.page_size * KERN_LINE >> 10,
			r->topo.l2_bytes >> 10);
	if (!r->o.have_sparse)
		r->o.sparse_k = (long)(r->s.pmd_size / (unsigned long)r->topo.page_size);
	r->target_ns = r->o.quick ? 0.1e9 : 0.5e9;
	if (geteuid() != 0)
		return 0; /* said by run_begin */
	if (topo_mem_available(&avail))
		avail = 0;
	/* the span, the sparse copy is mapped after it is gone; the chase
	 * set-up's successor table is up to span/16 */
	if (avail &&
	    (double)(largest + largest / 16 + r->s.pmd_size) > RUN_MEM_SHARE * (double)avail) {
		char a[32], l[32];

		fmt_bytes((double)largest, l, sizeof(l));
		fmt_bytes((double)avail, a, sizeof(a));
		ms_err("run: a span of %s is more than half of MemAvailable (%s); choose a "
		       "smaller --span", l, a);
		return MS_EXIT_ENV;
	}
	choose_schedule(r, largest, avail);
	if (r->schedule == RESULTS_SCHED_INTERLEAVED && !r->o.quick) {
		r->target_ns = RUN_INTERLEAVED_TRIAL_NS;
		if (!r->o.have_reps)
			r->o.reps = RUN_INTERLEAVED_REPS;
	}
	return 0;
}

/* Root, the output, counters, pinning, the journal: an exit status or 0. */
static int run_begin(struct run *r)
{
	char why[512], msg[512];
	int err, cpu = r->cmd && !r->o.have_cpu ? -1 : (int)r->o.cpu;

	if (geteuid() != 0) {
		ms_err("run: needs root: it writes the THP sysfs settings and reads PFNs from "
		       "pagemap");
		return MS_EXIT_ENV;
	}
	if (r->o.output && (err = atomic_check_writable(r->o.output))) {
		ms_err("run: cannot write '%s': %s", r->o.output, strerror(-err));
		return MS_EXIT_ENV;
	}
	/* a command runs where the scheduler puts it, unless --cpu says */
	if (cpu >= 0 && (err = topo_pin_cpu(cpu))) {
		ms_err("run: cannot pin to CPU %d: %s", cpu, strerror(-err));
		return MS_EXIT_ENV;
	}
	/* after pinning: a hybrid CPU's event set depends on the core type */
	err = bench_open_counters(&r->b, r->o.backend, cpu, why, sizeof(why));
	if (err) {
		ms_err("run: --backend pmu: %s", why);
		return MS_EXIT_ENV;
	}
	if (why[0] && r->o.backend != BENCH_BACKEND_TIMING)
		ms_note("hardware counters unavailable (%s): timing and software events only", why);
	if ((err = thp_journal_begin())) {
		thp_strerror(err, msg, sizeof(msg));
		ms_err("run: %s", msg);
		return ms_exit_for_errno(err);
	}
	if (r->o.defrag != THP_W_NONE && (err = thp_set_top("defrag", r->o.defrag))) {
		thp_strerror(err, msg, sizeof(msg));
		ms_err("run: --defrag %s: %s", thp_word_name(r->o.defrag), msg);
		return err == -EINVAL ? MS_EXIT_USAGE : ms_exit_for_errno(err);
	}
	return 0;
}

/* Interleaved: per rep and (pattern, span), every order at once, in rounds. */
static int micro_trials_interleaved(struct run *r)
{
	int rep, p, sp, i, rounds, err, n = 0;

	for (rep = 0; rep < r->o.reps; rep++) {
		for (p = 0; p < r->nr_pats; p++) {
			for (sp = 0; sp < r->nr_spans; sp++) {
				struct bench_micro w = { .kern = r->pats[p], .pattern_index = p,
							 .span = r->spans[sp],
							 .sparse_k = r->o.sparse_k };
				struct results_trial *t = &r->trials[2 * n];
				struct bench_cell c = { .order = -1, .rep = rep, .pattern = p,
							.span = sp };

				progress(r, n, &c);
				rounds = bench_rounds_for(r->accesses[p][sp], r->target_ns,
							  r->nr_orders);
				err = bench_micro_interleaved(&r->b, &w, r->orders, r->nr_orders, rep,
							      r->accesses[p][sp], rounds, t,
							      t + r->nr_orders);
				r->nr_done = n + r->nr_orders;
				if (err)
					return err;
				/* trial and sparse trial of each order side by side */
				for (i = 0; i < r->nr_orders; i++) {
					t[i].seq = t[r->nr_orders + i].seq = n + i;
					if ((err = results_doc_add_trial(r->doc, &t[i])) ||
					    (t[r->nr_orders + i].pattern[0] &&
					     (err = results_doc_add_trial(r->doc,
									  &t[r->nr_orders + i]))))
						return err;
				}
				n += r->nr_orders;
			}
		}
	}
	return 0;
}

static int micro_trials(struct run *r)
{
	int p, sp, i, err;

	for (p = 0; p < r->nr_pats; p++) {
		for (sp = 0; sp < r->nr_spans; sp++) {
			struct bench_micro w = { .kern = r->pats[p], .pattern_index = p,
						 .span = r->spans[sp] };

			if ((err = bench_micro_calibrate(&r->b, &w, r->o.accesses, r->target_ns,
							 &r->accesses[p][sp])))
				return err;
		}
	}
	if (r->schedule == RESULTS_SCHED_INTERLEAVED)
		return micro_trials_interleaved(r);
	for (i = 0; i < r->nr_cells; i++) {
		const struct bench_cell *c = &r->cells[i];
		struct bench_micro w = { .kern = r->pats[c->pattern], .pattern_index = c->pattern,
					 .span = r->spans[c->span], .sparse_k = r->o.sparse_k };
		struct results_trial *t = &r->trials[2 * i];

		progress(r, i, c);
		err = bench_micro_trial(&r->b, &w, c->order, c->rep, r->accesses[c->pattern][c->span],
					t, t + 1);
		r->nr_done = i + 1;
		if (err)
			return err;
		t[0].seq = t[1].seq = i;
		if ((err = results_doc_add_trial(r->doc, t)) ||
		    (t[1].pattern[0] && (err = results_doc_add_trial(r->doc, t + 1))))
			return err;
	}
	return 0;
}

static int command_trials(struct run *r)
{
	struct bench_command w = { .argv = r->cmd, .scan_interval_ms = (unsigned)r->o.scan_interval_ms,
				   .timeout_s = r->o.timeout_s, .log_dir = r->o.log_dir,
				   .show_output = r->o.show_output, .metrics = r->o.metrics,
				   .nr_metrics = r->o.nr_metrics,
				   .stdin_path = r->stdin_path[0] ? r->stdin_path : NULL,
				   .wait_descendants = r->o.wait_descendants };
	int i, err;

	for (i = 0; i < r->nr_cells; i++) {
		const struct bench_cell *c = &r->cells[i];
		struct results_trial *t = &r->trials[2 * i];

		progress(r, i, c);
		err = bench_command_trial(&r->b, &w, c->order, c->rep, i, t);
		r->nr_done = i + 1;
		if (err)
			return err;
		if ((err = results_doc_add_trial(r->doc, t)))
			return err;
	}
	return 0;
}

/* Options that belong to one kind of run only; an exit status or 0. */
static int check_kind(struct run *r, int argc, char **argv, int i)
{
	if (i < argc && !strcmp(argv[i - 1], "--")) {
		r->cmd = argv + i;
	} else if (i < argc) {
		ms_err("run: unexpected argument '%s' (a command to run goes after --)", argv[i]);
		cli_usage(&run_cli, stderr);
		return MS_EXIT_USAGE;
	} else if (i > 1 && !strcmp(argv[i - 1], "--")) {
		ms_err("run: no command after --");
		return MS_EXIT_USAGE;
	}
	if (!r->cmd && r->o.cmd_only_opt) {
		ms_err("run: --scan-interval, --timeout, --metric, --better, --log, --show-output, "
		       "--stdin and --wait-descendants apply to a command only (run [OPTIONS] -- CMD)");
		return MS_EXIT_USAGE;
	}
	if (r->cmd && (r->o.patterns_arg || r->o.span || r->o.sweep_min || r->o.accesses ||
		       r->o.have_sparse)) {
		ms_err("run: --pattern, --span, --sweep, --accesses and --sparse apply to the "
		       "micro-benchmarks, not to a command");
		return MS_EXIT_USAGE;
	}
	if (r->o.span && r->o.sweep_min) {
		ms_err("run: --span and --sweep exclude each other");
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
	return 0;
}

/* The command before anything is touched: exit 2 when it cannot run. */
static int check_cmd(struct run *r)
{
	char path[4096];
	struct stat st;
	int err;

	if (!r->cmd)
		return 0;
	err = child_resolve(r->cmd[0], path, sizeof(path));
	if (err == -EACCES || err == -EISDIR) {
		ms_err("run: '%s' is not executable%s", r->cmd[0], err == -EISDIR ? " (a directory)" : "");
		return MS_EXIT_USAGE;
	}
	if (err) {
		ms_err("run: command '%s' not found%s", r->cmd[0],
		       strchr(r->cmd[0], '/') ? "" : " in PATH");
		return MS_EXIT_USAGE;
	}
	if (r->o.log_dir && stat(r->o.log_dir, &st)) {
		ms_err("run: --log %s: %s", r->o.log_dir,
		       errno == ENOENT ? "does not exist" : strerror(errno));
		return MS_EXIT_USAGE;
	}
	if (r->o.log_dir && (!S_ISDIR(st.st_mode) || access(r->o.log_dir, W_OK | X_OK))) {
		ms_err("run: --log %s: not a writable directory", r->o.log_dir);
		return MS_EXIT_USAGE;
	}
	return check_input(r);
}

/* Parse and check everything that needs no privilege; an exit status, or
 * -1 to go on. */
static int run_prepare(struct run *r, int argc, char **argv)
{
	char msg[512];
	int i, rc, err;

	i = cli_parse(&run_cli, argc, argv, on_opt, &r->o);
	if (i == CLI_DONE)
		return MS_EXIT_OK;
	if (i < 0)
		return MS_EXIT_USAGE;
	if ((rc = check_kind(r, argc, argv, i)) || (rc = check_cmd(r)))
		return rc;
	if ((err = thp_read(&r->s))) {
		thp_strerror(err, msg, sizeof(msg));
		ms_err("run: %s", msg);
		return err == -ENOENT ? MS_EXIT_ENV : MS_EXIT_FAIL;
	}
	if ((rc = parse_orders(r->o.orders_arg, &r->s, r->orders, &r->nr_orders)) ||
	    (rc = parse_patterns(r->o.patterns_arg, r->pats, &r->nr_pats)))
		return rc;
	topo_describe(&r->topo);
	if (r->topo.page_size <= 0)
		r->topo.page_size = sysconf(_SC_PAGESIZE);
	/* defaults applied after parsing */
	if (!r->o.have_reps)
		r->o.reps = r->o.quick ? RUN_QUICK_REPS : RUN_DEFAULT_REPS;
	if (!r->o.have_seed)
		r->o.seed = 1;
	if (!r->o.have_cpu)
		r->o.cpu = topo_default_cpu();
	return -1;
}

/* Every trial of an order failed: the run measured nothing there. */
static int all_failed_order(const struct run *r)
{
	for (int i = 0; i < r->nr_orders; i++) {
		int ran, failed;

		count_failed(r, r->orders[i], &ran, &failed);
		if (ran && failed == ran)
			return r->orders[i];
	}
	return -1;
}

static int run_finish(struct run *r)
{
	FILE *out = r->o.output && !strcmp(r->o.output, "-") ? stderr : stdout;
	int err, bad;

	/* Put the user's settings back before printing: the numbers are in. */
	thp_restore();
	if (r->o.output) {
		err = atomic_write_json(r->o.output, r->doc, JSON_INDENT(2));
		if (err) {
			ms_err("run: writing '%s' failed: %s", r->o.output, strerror(-err));
			return MS_EXIT_FAIL;
		}
		if (strcmp(r->o.output, "-"))
			ms_note("results written to %s (%d trials)", r->o.output,
				(int)json_array_size(json_object_get(r->doc, "trials")));
	}
	if (r->cmd)
		print_command_summary(r, out);
	else
		print_micro_summary(r, out);
	if (r->b.low_coverage)
		ms_warn("%d trial%s below %.0f%% coverage (flagged in the results)",
			r->b.low_coverage, r->b.low_coverage == 1 ? "" : "s", RUN_COVERAGE_MIN * 100);
	if (r->cmd && (bad = all_failed_order(r)) >= 0) {
		ms_err("run: every trial of order %d failed: see the warnings above", bad);
		return MS_EXIT_FAIL;
	}
	return MS_EXIT_OK;
}

static int run_cmd(int argc, char **argv)
{
	struct run r;
	const char *reach_src = "";
	unsigned long long reach = 0;
	char msg[512];
	int i, rc, err;

	memset(&r, 0, sizeof(r));
	r.stdin_fd = -1;
	r.o.backend = BENCH_BACKEND_AUTO;
	r.o.defrag = THP_W_NONE;
	r.o.scan_interval_ms = 250;
	r.o.schedule = -1;
	if ((rc = run_prepare(&r, argc, argv)) >= 0)
		goto out_opts;
	if (!r.cmd && (rc = micro_setup(&r, &reach_src, &reach)))
		goto out_opts;
	bench_init(&r.b, &r.s, r.o.seed, on_event, &r);
	if ((rc = run_begin(&r)))
		goto out;
	progress_init(&r.pg);
	/* the command's own output owns the terminal */
	r.pg.on &= !r.o.show_output;
	err = bench_plan(r.orders, r.nr_orders, r.cmd ? 1 : r.nr_pats, r.cmd ? 1 : r.nr_spans,
			 (int)r.o.reps, r.o.seed, &r.cells, &r.nr_cells);
	if (!err && !(r.trials = calloc(2 * (size_t)r.nr_cells, sizeof(*r.trials))))
		err = -ENOMEM;
	if (!err)
		err = make_doc(&r, reach_src, reach);
	if (!err)
		err = r.cmd ? command_trials(&r) : micro_trials(&r);
	progress(&r, r.nr_cells, NULL);
	if (err == -ENOTTY) {
		ms_err("run: %s needs a terminal: use --stdin FILE or --show-output", r.cmd[0]);
		rc = MS_EXIT_USAGE;
		goto out;
	}
	if (err) {
		thp_strerror(err, msg, sizeof(msg));
		ms_err("run: %s", msg);
		rc = ms_exit_for_errno(err);
		goto out;
	}
	rc = run_finish(&r);
out:
	bench_close(&r.b);
	json_decref(r.doc);
	for (i = 0; r.trials && i < 2 * r.nr_cells; i++)
		results_trial_clear(&r.trials[i]);
	free(r.trials);
	free(r.cells);
out_opts:
	if (r.stdin_fd >= 0)
		close(r.stdin_fd);
	for (i = 0; i < r.o.nr_metrics; i++)
		bench_metric_free(&r.o.metrics[i]);
	return rc;
}

const struct ms_command cmd_run = {
	.name = "run",
	.summary = "micro-benchmarks, or a command, at each folio order (verified by pagemap)",
	.run = run_cmd,
	.cli = &run_cli,
};
