// SPDX-License-Identifier: GPL-2.0-or-later
/* The trial engine (bench.h). */
#include "bench.h"
#include "steal.h"

#include <errno.h>
#include <sched.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buffer.h"
#include "cleanup.h"
#include "child.h"
#include "folio.h"
#include "mthpscope.h"
#include "placement.h"
#include "presence.h"
#include "program.h"
#include "scan.h"

/* ---- plan ---------------------------------------------------------------- */

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t s = a ^ (b * 0x9e3779b97f4a7c15ULL);

	return stats_splitmix64(&s);
}

/*
 * Given two orders or more no two trials in a row share an order, never all
 * reps of one order run back to back, and drift in the machine falls on all
 * orders alike.
 */
/* Would a cell of 'order' at blk[k] stand beside one of the same order?
 * blk[-1] is the previous block's last cell where there is one. */
static bool plan_clash(const struct bench_cell *blk, int n, int k, int order, bool has_prev)
{
	return ((k > 0 || has_prev) && blk[k - 1].order == order) ||
	       (k + 1 < n && blk[k + 1].order == order);
}

/* Move blk[i], whose order is its left neighbour's, apart: swap it with the
 * next cell of another order, or where every later cell has its order (the
 * block's tail), with an earlier cell that fits at i and where blk[i] stands
 * alone. */
static void plan_apart(struct bench_cell *blk, int n, int i, bool has_prev)
{
	int order = blk[i].order, j;
	struct bench_cell t;

	for (j = i + 1; j < n && blk[j].order == order; j++)
		;
	if (j == n) {
		for (j = 0; j < i - 1; j++)
			if (blk[j].order != order && !plan_clash(blk, n, j, order, has_prev))
				break;
		if (j >= i - 1)
			return; /* no cell fits: the block has too many of this order */
	}
	t = blk[i];
	blk[i] = blk[j];
	blk[j] = t;
}

int bench_plan(const int *orders, int nr_orders, int nr_patterns, int nr_spans, int reps,
	       uint64_t seed, struct bench_cell **cells, int *n)
{
	int per_block = nr_patterns * nr_spans * nr_orders;
	uint64_t rng = mix(seed, 0x7472696173ULL);
	struct bench_cell *all;
	int rep, p, sp, i, j, k;

	*cells = NULL;
	*n = 0;
	if (per_block <= 0 || reps <= 0)
		return -EINVAL;
	all = calloc((size_t)per_block * (size_t)reps, sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (rep = 0; rep < reps; rep++) {
		struct bench_cell *blk = all + rep * per_block, t;

		k = 0;
		for (p = 0; p < nr_patterns; p++)
			for (sp = 0; sp < nr_spans; sp++)
				for (i = 0; i < nr_orders; i++)
					blk[k++] = (struct bench_cell){ .order = orders[i], .rep = rep,
									.pattern = p, .span = sp };
		for (i = per_block - 1; i > 0; i--) {
			j = (int)((stats_splitmix64(&rng) >> 33) % (uint64_t)(i + 1));
			t = blk[i];
			blk[i] = blk[j];
			blk[j] = t;
		}
		for (i = rep > 0 ? 0 : 1; i < per_block && nr_orders > 1; i++)
			if (blk[i].order == (i ? blk[i - 1].order : blk[-1].order))
				plan_apart(blk, per_block, i, rep > 0);
	}
	*cells = all;
	*n = per_block * reps;
	return 0;
}

/* ---- the engine ---------------------------------------------------------- */

void bench_say(struct bench *b, enum bench_event_kind kind, const char *fmt, ...)
{
	struct bench_event ev = { .kind = kind };
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ev.what = msg;
	if (b->report)
		b->report(&ev, b->report_ctx);
}

#define warn(b, ...) bench_say(b, BENCH_EV_WARN, __VA_ARGS__)
#define note(b, ...) bench_say(b, BENCH_EV_NOTE, __VA_ARGS__)

void bench_init(struct bench *b, const struct thp_settings *s, uint64_t seed,
		bench_report_fn report, void *ctx)
{
	memset(b, 0, sizeof(*b));
	b->thp = s;
	b->seed = seed;
	b->report = report;
	b->report_ctx = ctx;
	b->backend = "timing";
}

static const struct counters_spec fault_specs[] = {
	{ "page_faults", "page-faults" },
};
static const struct counters_spec loop_specs[] = {
	{ "context_switches", "context-switches" },
	{ "loop_page_faults", "page-faults" },
};
/* A command's software events, inherited over its tree. */
static const struct counters_spec tree_specs[] = {
	{ "page_faults", "page-faults" },
	{ "context_switches", "context-switches" },
};

enum arch_access bench_access(const struct kernel_desc *k)
{
	return k && k->stores ? ARCH_ACCESS_STORES : ARCH_ACCESS_LOADS;
}

/* One access side's PMU specs and set: > 0 opened, 0 nothing to count,
 * negative errno (the reason in 'why'). */
static int open_pmu_side(struct bench *b, enum arch_access access, int cpu,
			 struct arch_specs *specs, struct counters_set **set, char *why,
			 size_t size)
{
	struct counters_options popts = { .include_kernel = false };
	char adv[256];
	int bad = 0, err;

	err = arch_pmu_specs(NULL, access, cpu, specs, why, size);
	for (int i = 0; err >= 0 && i < specs->nr_missing; i++)
		note(b, "%s: this PMU does not count %s (%s): %s left out", specs->desc->name,
		     specs->missing[i]->event, specs->missing[i]->metric,
		     specs->missing[i]->metric);
	if (err <= 0)
		return err;
	err = counters_set_open(set, specs->spec, specs->n, &popts, &bad);
	if (err) {
		counters_strerror(err, true, adv, sizeof(adv));
		snprintf(why, size, "%s does not open: %s", specs->spec[bad].event, adv);
		*set = NULL;
		return err;
	}
	return specs->n;
}

/* The PMU sets: the loads' always; the stores' too where the run has a
 * store pattern and the family counts stores apart (Intel), since the
 * loads' events would count none of its accesses. */
static int open_pmu(struct bench *b, int cpu, char *why, size_t size)
{
	int err = open_pmu_side(b, ARCH_ACCESS_LOADS, cpu, &b->pmu, &b->pmu_set, why, size);

	if (err > 0 && b->stores && b->pmu.desc->store_events) {
		err = open_pmu_side(b, ARCH_ACCESS_STORES, cpu, &b->pmu_store, &b->pmu_store_set,
				    why, size);
		if (err <= 0) {
			counters_set_close(b->pmu_set);
			b->pmu_set = NULL;
		}
	}
	if (err == 0) {
		snprintf(why, size, "no PMU metrics described for this CPU");
		err = -ENODEV;
	}
	return err < 0 ? err : 0;
}

int bench_open_counters(struct bench *b, enum bench_backend want, int cpu, char *why,
			size_t size)
{
	struct counters_options copts = { .include_kernel = true };
	char msg[256];
	int bad = 0, err;

	why[0] = '\0';
	/* Software events need no PMU; a kernel without them (or a seccomp'd
	 * container) still gets timing, and says so. */
	err = counters_set_open(&b->fault_set, fault_specs, (int)MS_ARRAY_SIZE(fault_specs), &copts,
			   &bad);
	if (!err)
		err = counters_set_open(&b->loop_set, loop_specs, (int)MS_ARRAY_SIZE(loop_specs), &copts,
				   &bad);
	if (err) {
		counters_strerror(err, false, msg, sizeof(msg));
		warn(b, "software perf events do not open (%s): page faults are not counted: %s",
		     strerror(-err), msg);
		counters_set_close(b->fault_set);
		b->fault_set = NULL;
		b->loop_set = NULL;
	}
	b->sw_ok = !err;
	if (want == BENCH_BACKEND_TIMING)
		return 0;
	err = open_pmu(b, cpu, why, size);
	if (err)
		return want == BENCH_BACKEND_PMU ? -ENODEV : 0;
	b->have_pmu = true;
	b->backend = "pmu";
	return 0;
}

void bench_close(struct bench *b)
{
	counters_set_close(b->pmu_store_set);
	counters_set_close(b->pmu_set);
	counters_set_close(b->loop_set);
	counters_set_close(b->fault_set);
	b->pmu_store_set = b->pmu_set = b->loop_set = b->fault_set = NULL;
	free(b->placement_prev);
	b->placement_prev = NULL;
	b->placement_nprev = 0;
}

static void metric_from_ctr(struct results_trial *t, const struct counters_value *v)
{
	if (isfinite(v->value))
		results_trial_set_metric(t, v->metric, v->value, v->source, v->event, v->scale);
}

static double trial_metric(const char *name, void *ctx)
{
	const struct results_trial *t = ctx;
	const struct results_metric *m;

	if (!strcmp(name, "accesses"))
		return (double)t->accesses;
	m = results_trial_metric(t, name);
	return m ? m->value : NAN;
}

/* A derived metric is only as much a hardware count as its inputs: its
 * source is the weakest of theirs ("accesses" is the run's own exact count
 * and does not weaken it). */
static const char *derived_source(const struct results_trial *t, const struct arch_formula *f)
{
	const char *in[2] = { f ? f->a : NULL, f ? f->b : NULL };
	const char *src = "pmu";
	int k;

	if (!f)
		return "model";
	for (k = 0; k < 2; k++) {
		const struct results_metric *m;

		if (!in[k] || !strcmp(in[k], "accesses"))
			continue;
		m = results_trial_metric(t, in[k]);
		if (!m)
			return "model";
		if (strcmp(m->source, "pmu"))
			src = m->source;
	}
	return src;
}

static const struct arch_formula *find_formula(const struct arch_desc *d, const char *name)
{
	const struct arch_formula *f;

	for (f = d ? d->derived : NULL; f && f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	for (f = arch_common_formulas(); f && f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

/* The family's formulas (arch/): walks per 1000 accesses, MMU overhead, ...;
 * "formula" says how each was computed. */
static void add_derived(struct bench *b, struct results_trial *t)
{
	struct arch_value dv[16];
	int n, i;

	n = arch_derive(b->pmu.desc, trial_metric, t, dv, (int)MS_ARRAY_SIZE(dv));
	for (i = 0; i < n; i++) {
		const struct arch_formula *f = find_formula(b->pmu.desc, dv[i].name);
		struct results_metric *m;

		m = results_trial_set_metric(t, dv[i].name, dv[i].value, derived_source(t, f), NULL,
					     -1);
		if (m && f)
			snprintf(m->formula, sizeof(m->formula), "%s %s %s x %g", f->a,
				 f->op == ARCH_OP_DIV   ? "/"
				 : f->op == ARCH_OP_ADD ? "+"
							: "-",
				 f->b, f->scale);
	}
}

/* The PMU set that counts k's accesses, and its specs: the stores' where
 * one is open (the store pattern on Intel), else the loads'. */
static struct counters_set *pmu_for(const struct bench *b, const struct kernel_desc *k,
				    const struct arch_specs **specs)
{
	if (bench_access(k) == ARCH_ACCESS_STORES && b->pmu_store_set) {
		*specs = &b->pmu_store;
		return b->pmu_store_set;
	}
	*specs = &b->pmu;
	return b->pmu_set;
}

static void flag_pmu(const struct arch_specs *ps, struct results_trial *t,
		     const struct counters_value *v)
{
	bool mux = false;
	int i;

	for (i = 0; i < ps->n; i++) {
		metric_from_ctr(t, &v[i]);
		mux |= v[i].multiplexed;
	}
	t->has_multiplexed = true;
	t->multiplexed = mux;
}

/* ---- micro-benchmarks ------------------------------------------------------ */

static unsigned long long clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* Stored so the loops' results are used: nothing of the measured work is
 * dead code. */
static volatile uint64_t sink;

/* The thread's CPU time, not the wall clock: on a shared machine the time
 * this thread spends descheduled is not the loop's (the wall clock is kept
 * as a second metric). */
void bench_burst(const struct kernel_desc *k, struct kernel_state *ks, unsigned long long n,
		 struct bench_time *t)
{
	unsigned long long c0, c1, w0, w1;

	w0 = clock_ns(CLOCK_MONOTONIC);
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	sink = k->loop(ks, n);
	c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	w1 = clock_ns(CLOCK_MONOTONIC);
	t->cpu_ns = c1 - c0;
	t->wall_ns = w1 - w0;
}

double bench_ns_per_access(const struct bench_time *t, unsigned long long n)
{
	return n ? (double)t->cpu_ns / (double)n : NAN;
}

/* Map at the order, populate (faults counted), lay the pattern out. */
static int micro_prepare(struct bench *b, const struct bench_micro *w, int order, int rep,
			 struct buf *bf, struct kernel_state *ks, struct counters_value *faults)
{
	int err;

	if ((err = buffer_set_order(b->thp, order)))
		return err;
	if ((err = buffer_map(bf, b->thp, order, w->span)))
		return err;
	if ((err = buffer_populate(bf, b->fault_set)))
		return err;
	if (b->fault_set && (err = counters_set_read(b->fault_set, faults, 1)))
		return err;
	memset(ks, 0, sizeof(*ks));
	ks->base = bf->base;
	ks->span = bf->span;
	ks->page_size = bf->page_size;
	/* One layout per rep, the same for every order of that rep: orders are
	 * compared on the same chase, reps average over layouts. */
	ks->seed = mix(b->seed, (uint64_t)rep * 1000003u + (uint64_t)w->pattern_index);
	return w->kern->setup(ks);
}

/* Warm-up: one pass (at most a tenth of the trial) fills the caches with
 * the pattern's lines and page-table entries. */
static void warm_up(const struct kernel_desc *k, struct kernel_state *ks, unsigned long long n)
{
	unsigned long long warm = ks->cycle < n / 10 ? ks->cycle : n / 10;

	if (warm)
		sink = k->loop(ks, warm);
}

/* Calibration sizes the trials to the wall-clock budget: on a busy machine
 * the thread gets a share of the CPU, and the run's length is what --quick
 * and the defaults promise. The least disturbed of three probes: one
 * preemption must not halve every trial of the run. */
int bench_micro_calibrate(struct bench *b, const struct bench_micro *w, unsigned long long fixed,
			  double target_ns, unsigned long long *accesses)
{
	struct counters_value faults = { .value = NAN };
	unsigned long long probe = fixed ? fixed : 1ULL << 20, n;
	struct bench_event ev = { .kind = BENCH_EV_CALIBRATE, .what = w->kern->name,
				  .span = w->span };
	struct bench_time bt;
	struct kernel_state ks;
	struct buf bf;
	double ns = HUGE_VAL;
	int err, i;

	if (b->report)
		b->report(&ev, b->report_ctx);
	memset(&bf, 0, sizeof(bf));
	if ((err = micro_prepare(b, w, 0, 0, &bf, &ks, &faults)))
		goto out;
	warm_up(w->kern, &ks, probe);
	for (i = 0; i < 3; i++) {
		bench_burst(w->kern, &ks, probe, &bt);
		ns = fmin(ns, (double)bt.wall_ns / (double)probe);
	}
	if (fixed) {
		/* still one warm-up trial: the first timed trial should not be
		 * the one that pays for cold caches */
		*accesses = fixed;
		goto out;
	}
	n = (unsigned long long)(target_ns / (ns > 0.1 ? ns : 0.1));
	*accesses = n < probe ? probe : n;
out:
	buffer_unmap(&bf);
	return err;
}

/* Bloat: the same span at the same order, one page in every k touched; its
 * own trial (pattern "sparse"), since it measures memory, not accesses. */
static int micro_sparse(struct bench *b, const struct bench_micro *w, int order, int rep,
			struct results_trial *js)
{
	unsigned long long rss;
	struct folio_hist h;
	struct buf bf;
	int err;

	if ((err = buffer_map(&bf, b->thp, order, w->span)))
		return err;
	if ((err = buffer_populate_sparse(&bf, (unsigned long)w->sparse_k, &rss)))
		goto out;
	results_trial_init(js, order, "sparse", w->span, rep);
	if (!folio_scan_range(0, (unsigned long)bf.base, (unsigned long)(bf.base + bf.span), &h))
		results_trial_set_hist(js, &h, NAN);
	js->sparse_k = w->sparse_k;
	js->touched_pages = (bf.span / bf.page_size + (unsigned long)w->sparse_k - 1) /
			    (unsigned long)w->sparse_k;
	results_trial_set_metric(js, "rss_bytes", (double)rss, "kernel", NULL, -1);
out:
	buffer_unmap(&bf);
	return err;
}

/* The TLB model's metrics of a trial's layout (bench.h). */
void bench_model_metrics(const struct tlb_geometry *g, struct results_trial *t)
{
	static const char *const names[] = { "tlb_entries_l1", "tlb_entries_l2" };
	struct tlb_footprint fp;
	struct results_metric *m;
	char formula[96];
	int i;

	/* nothing seen mapped is nothing to predict, not zero entries */
	if (!g || !t->has_layout || !layout_hist_pages(&t->layout) ||
	    tlb_footprint(g, &t->layout, &fp))
		return;
	snprintf(formula, sizeof(formula), "model %s (%s geometry)", fp.model,
		 tlb_source_name(fp.source));
	snprintf(t->tlb_model, sizeof(t->tlb_model), "%s", fp.model);
	for (i = 0; i < fp.nr_levels && i < (int)MS_ARRAY_SIZE(names); i++)
		if ((m = results_trial_set_metric(t, names[i], (double)fp.level[i].entries_needed,
						  "model", NULL, -1)))
			snprintf(m->formula, sizeof(m->formula), "%s", formula);
	m = results_trial_set_metric(t, "tlb_miss_ratio_model",
				     fp.level[fp.nr_levels - 1].miss_ratio, "model", NULL, -1);
	/* what tlb_model.c computes: Che's approximation of an LRU pool (that
	 * is max(0, 1 - capacity / entries) only where every entry maps the
	 * same size) */
	if (m)
		snprintf(m->formula, sizeof(m->formula), "%s: %s miss ratio, Che's LRU "
			 "approximation", formula, fp.level[fp.nr_levels - 1].name);
}

static void micro_metrics(struct bench *b, const struct bench_micro *w, struct results_trial *t,
			  const struct buf *bf, const struct bench_time *bt,
			  const struct counters_value *faults, const struct counters_value *loopv,
			  const struct counters_value *pmuv)
{
	const struct arch_specs *ps;
	int i;

	results_trial_set_metric(t, "ns_per_access", bench_ns_per_access(bt, t->accesses),
				 "timing", NULL, -1);
	results_trial_set_metric(t, "wall_ns_per_access",
				 (double)bt->wall_ns / (double)t->accesses, "timing", NULL, -1);
	results_trial_set_metric(t, "populate_ns", (double)bf->populate_ns, "timing", NULL, -1);
	if (b->fault_set && isfinite(faults->value)) {
		metric_from_ctr(t, faults);
		if (faults->value > 0)
			results_trial_set_metric(t, "fault_ns",
						 (double)bf->populate_ns / faults->value, "timing",
						 NULL, -1);
	}
	if (b->loop_set)
		for (i = 0; i < (int)MS_ARRAY_SIZE(loop_specs); i++)
			metric_from_ctr(t, &loopv[i]);
	if (pmu_for(b, w->kern, &ps)) {
		flag_pmu(ps, t, pmuv);
		add_derived(b, t);
	}
	if (bf->have_size_stats) {
		results_trial_set_metric(t, "anon_fault_alloc", (double)bf->fault_alloc, "kernel",
					 NULL, -1);
		results_trial_set_metric(t, "anon_fault_fallback", (double)bf->fault_fallback,
					 "kernel", NULL, -1);
	}
	bench_model_metrics(b->tlb, t);
}

int bench_micro_trial(struct bench *b, const struct bench_micro *w, int order, int rep,
		      unsigned long long accesses, struct results_trial *t,
		      struct results_trial *sparse)
{
	struct counters_value faults = { .value = NAN }, loopv[MS_ARRAY_SIZE(loop_specs)];
	struct counters_value pmuv[ARCH_MAX_SPECS];
	const struct arch_specs *ps;
	struct counters_set *pmu = pmu_for(b, w->kern, &ps);
	struct bench_time bt;
	struct kernel_state ks;
	struct folio_hist h;
	struct buf bf;
	double coverage = 0;
	int err;

	results_trial_init(t, order, w->kern->name, w->span, rep);
	t->accesses = accesses;
	if (sparse)
		results_trial_init(sparse, order, NULL, w->span, rep);
	memset(&bf, 0, sizeof(bf));
	if ((err = micro_prepare(b, w, order, rep, &bf, &ks, &faults)))
		goto out;
	warm_up(w->kern, &ks, accesses);
	if (b->loop_set && (err = counters_set_enable(b->loop_set)))
		goto out;
	if (pmu && (err = counters_set_enable(pmu)))
		goto out;
	bench_burst(w->kern, &ks, accesses, &bt);
	if (pmu) {
		counters_set_disable(pmu);
		if ((err = counters_set_read(pmu, pmuv, ps->n)))
			goto out;
	}
	if (b->loop_set) {
		counters_set_disable(b->loop_set);
		if ((err = counters_set_read(b->loop_set, loopv, (int)MS_ARRAY_SIZE(loop_specs))))
			goto out;
	}
	err = buffer_verify(&bf, &h, &t->layout, &coverage);
	if (err && err != -ENOSYS && err != -EPERM && err != -EACCES)
		goto out;
	if (!err) {
		results_trial_set_hist(t, &h, coverage);
		t->has_layout = true;
	}
	err = 0;
	micro_metrics(b, w, t, &bf, &bt, &faults, loopv, pmuv);
	if (t->has_folios && coverage < BENCH_COVERAGE_MIN) {
		t->flags |= RESULTS_F_LOW_COVERAGE;
		b->low_coverage++;
		warn(b, "%s order %d rep %d: only %.1f%% of the span is backed by order-%d "
		     "folios (fallback %llu); the trial is flagged", w->kern->name, order, rep,
		     coverage * 100, order, bf.have_size_stats ? bf.fault_fallback : 0ULL);
	}
	buffer_unmap(&bf);
	if (sparse && w->sparse_k)
		err = micro_sparse(b, w, order, rep, sparse);
out:
	buffer_unmap(&bf);
	return err;
}

/* ---- the interleaved schedule ---------------------------------------------------- */

unsigned long long bench_interleaved_bytes(unsigned long long span, int nr_orders,
					   unsigned long pmd_size)
{
	/* the chase set-up's successor table is up to span/16; while populating,
	 * the ballast's copy of every span (populate_all; its drawn part is
	 * the session's to fit: bench.ballast_max) */
	return (unsigned long long)nr_orders * (2 * span + span / 16 + pmd_size);
}

int bench_rounds_for(unsigned long long accesses, double target_ns, int nr_orders)
{
	double per_burst = BENCH_ROUND_NS / (nr_orders > 0 ? nr_orders : 1);
	double rounds = target_ns / per_burst;

	if (rounds < BENCH_MIN_ROUNDS)
		rounds = BENCH_MIN_ROUNDS;
	if (rounds > (double)accesses)
		rounds = (double)accesses;
	return rounds > RESULTS_MAX_ROUNDS ? (int)RESULTS_MAX_ROUNDS : (int)rounds;
}

/* Round r's share of 'accesses': they differ by one at most and add up. */
static unsigned long long burst_of(unsigned long long accesses, int rounds, int r)
{
	return accesses / (unsigned)rounds + ((unsigned long long)r < accesses % (unsigned)rounds);
}

/* Counters of a trial, summed over its bursts. */
static void add_ctr(struct counters_value *sum, const struct counters_value *v, int n, bool first)
{
	for (int i = 0; i < n; i++) {
		if (first) {
			sum[i] = v[i];
			continue;
		}
		sum[i].value += v[i].value;
		sum[i].raw += v[i].raw;
		sum[i].multiplexed |= v[i].multiplexed;
		sum[i].scale = fmax(sum[i].scale, v[i].scale);
	}
}

struct slot {
	int order;
	struct buf bf;
	struct kernel_state ks;
	struct counters_value faults, loopv[MS_ARRAY_SIZE(loop_specs)], pmuv[ARCH_MAX_SPECS];
	struct bench_time sum;
	double *ns; /* per round */
	/* the rep's steal on this CPU and its disturbed rounds (steal.h);
	 * steal_ns < 0: the hypervisor counts none, nothing recorded */
	double steal_ns;
	int disturbed;
	struct results_placement pl; /* where populate_all put it */
};

/* Steal during one round of an interleaved rep, on the CPU this thread is
 * pinned to. A round with more than STEAL_DISTURBED_SHARE of its wall time
 * stolen is disturbed: its times are written as 0, which the paired
 * analyses leave out (analyze.c, compare_gain.c); the counts go into the
 * trials (steal_ns, disturbed_rounds). Only where the host counts steal. */
struct round_steal {
	bool on;
	int cpu;
	unsigned long long steal0, wall0;
};

static void round_steal_begin(struct round_steal *rs)
{
	rs->on = rs->on && !steal_read(rs->cpu, &rs->steal0);
	rs->wall0 = clock_ns(CLOCK_MONOTONIC);
}

static void round_steal_end(struct round_steal *rs, struct slot *sl, int nr, int r)
{
	unsigned long long s1, wall = clock_ns(CLOCK_MONOTONIC) - rs->wall0;
	int i;

	if (!rs->on || steal_read(rs->cpu, &s1))
		return;
	for (i = 0; i < nr; i++) {
		sl[i].steal_ns += (double)(s1 - rs->steal0);
		if ((double)(s1 - rs->steal0) > STEAL_DISTURBED_SHARE * (double)wall) {
			sl[i].ns[r] = 0.0;
			sl[i].disturbed++;
		}
	}
}

/* The user's per-size settings, as read at the start, written back (the
 * journal and the lock stay: the next rep populates again). */
static int put_sizes_back(struct bench *b)
{
	int i, err = 0;

	for (i = 0; i < b->thp->nr_sizes && !err; i++) {
		const struct thp_size *z = &b->thp->sizes[i];

		if (z->anon && z->enabled != THP_W_NONE)
			err = thp_set_size_enabled(z->order, z->enabled);
	}
	return err;
}

/* A seeded permutation of 0..nr-1 drawn from *rng. */
static void shuffle(int *perm, int nr, uint64_t *rng)
{
	int i, j, t;

	for (i = nr - 1; i > 0; i--) {
		j = (int)((stats_splitmix64(rng) >> 33) % (uint64_t)(i + 1));
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
}

/*
 * A ballast that mirrors the rep's buffers, populated before them and
 * unmapped after them: for each order, a span at that order plus a part
 * drawn rep by rep (placement_ballast_bytes: evenly over [0, ballast_max /
 * nr]). The kernel hands freed blocks out again last in, first out, per
 * size: the ballast takes the blocks the rep before freed, and its drawn
 * part shifts the buffers by a varying amount past them, so each rep's
 * buffers take their frames from another part of physical memory. An
 * order-0 ballast alone did not: 29 of 30 placements of a default run still
 * reused 55-80 % of the frames of the one before (large orders are served
 * from blocks order-0 pages do not touch); nor did a PMD-order one for an
 * order-0 buffer (placement.h). *bytes: its size.
 */
static int ballast_map(struct bench *b, const struct bench_micro *w, const struct slot *sl,
		       int nr, int rep, struct buf *bl, unsigned long long *bytes)
{
	unsigned long pmd = b->thp->pmd_size;
	unsigned long long max = (b->ballast_max ? b->ballast_max : w->span) / (unsigned)nr, n;
	int i, err = 0;

	memset(bl, 0, (size_t)nr * sizeof(*bl));
	*bytes = 0;
	if (!pmd)
		return 0;
	for (i = 0; i < nr && !err; i++) {
		n = w->span + placement_ballast_bytes(mix(b->seed, 0x62616c6cULL * (uint64_t)(i + 1) +
							      (uint64_t)w->pattern_index),
						      rep, max, pmd);
		if (buffer_set_order(b->thp, sl[i].order))
			continue;
		if (!(err = buffer_map(&bl[i], b->thp, sl[i].order, (size_t)n)))
			err = buffer_populate(&bl[i], NULL);
		*bytes += n;
	}
	return err;
}

/*
 * The placement just populated (placement.h): its id, each buffer's PFN
 * range, the share of its frames the placement before held. Without PFNs
 * (pagemap hides them without root) the id and the ballast alone.
 */
static int placement_record(struct bench *b, struct slot *sl, int nr, unsigned long long ballast)
{
	uint64_t *all = NULL;
	size_t nall = 0, start;
	double reused = NAN;
	long id = b->placement_next++;
	int i, err = 0;

	for (i = 0; i < nr && !err; i++) {
		start = nall;
		err = placement_pfns(sl[i].bf.base, sl[i].bf.span, sl[i].bf.page_size, &all, &nall);
		/* a PMD maps a page table of 8-byte entries (layout.h) */
		if (!err)
			placement_summary(all + start, nall - start,
					  __builtin_ctzll(sl[i].bf.page_size) - 3, &sl[i].pl);
	}
	if (!err) {
		placement_sort(all, nall);
		reused = placement_reused(b->placement_prev, b->placement_nprev, all, nall);
		free(b->placement_prev);
		b->placement_prev = all;
		b->placement_nprev = nall;
		all = NULL;
		b->placements_same += reused > 0.5;
	}
	for (i = 0; i < nr; i++) {
		sl[i].pl.id = id;
		sl[i].pl.reused = reused;
		sl[i].pl.ballast_bytes = ballast;
	}
	free(all);
	return err == -EPERM || err == -EACCES || err == -ENOENT ? 0 : err;
}

/*
 * Every order's buffer of one rep, populated at its order (the settings put
 * back after), in a seeded order of its own per rep, after a ballast of a
 * size of its own. The kernel hands freed frames
 * out again last-in first-out, so in a fixed order each order would get the
 * same physical memory in every rep, and where the memory sits (a VM's host
 * backing, cache colouring) would be a property of the run, not of the rep:
 * no CI over reps could see it, and two runs' gains would differ by it
 * (data/vm-zen5-6.18-aa-default). Drawn anew per rep, placement is
 * rep-to-rep noise that the CIs over reps carry: each rep is a placement,
 * the cluster analyze resamples (issue 39).
 */
static int populate_all(struct bench *b, const struct bench_micro *w, int rep, struct slot *sl,
			int nr)
{
	uint64_t rng = mix(b->seed, 0x706c616365ULL + (uint64_t)rep * 7919u +
					    (uint64_t)w->pattern_index);
	int perm[BENCH_MAX_ORDERS], i, err;
	unsigned long long ballast_bytes;
	struct buf ballast[BENCH_MAX_ORDERS];
	struct slot *s;

	for (i = 0; i < nr; i++)
		perm[i] = i;
	shuffle(perm, nr, &rng);
	err = ballast_map(b, w, sl, nr, rep, ballast, &ballast_bytes);
	for (i = 0; i < nr && !err; i++) {
		s = &sl[perm[i]];
		err = micro_prepare(b, w, s->order, rep, &s->bf, &s->ks, &s->faults);
		if (!err && perm[i] < 32 && (w->pte_split & (1u << perm[i])))
			err = buffer_split_pmd(&s->bf);
		/* populated: no setting may change its folios from here on */
		if (!err && madvise(s->bf.base, s->bf.span, MADV_NOHUGEPAGE))
			err = -errno;
	}
	for (i = 0; i < nr; i++)
		buffer_unmap(&ballast[i]);
	if (!err)
		err = placement_record(b, sl, nr, ballast_bytes);
	/* the knobs are changed only while populating */
	return err ? err : put_sizes_back(b);
}

static int timed_burst(struct bench *b, const struct bench_micro *w, struct slot *s,
		       unsigned long long burst, int round)
{
	struct counters_value loopv[MS_ARRAY_SIZE(loop_specs)], pmuv[ARCH_MAX_SPECS];
	const struct arch_specs *ps;
	struct counters_set *pmu = pmu_for(b, w->kern, &ps);
	struct bench_time bt;
	int err;

	warm_up(w->kern, &s->ks, burst);
	if (b->loop_set && (err = counters_set_enable(b->loop_set)))
		return err;
	if (pmu && (err = counters_set_enable(pmu)))
		return err;
	bench_burst(w->kern, &s->ks, burst, &bt);
	if (pmu) {
		counters_set_disable(pmu);
		if ((err = counters_set_read(pmu, pmuv, ps->n)))
			return err;
		add_ctr(s->pmuv, pmuv, ps->n, round == 0);
	}
	if (b->loop_set) {
		counters_set_disable(b->loop_set);
		if ((err = counters_set_read(b->loop_set, loopv, (int)MS_ARRAY_SIZE(loop_specs))))
			return err;
		add_ctr(s->loopv, loopv, (int)MS_ARRAY_SIZE(loop_specs), round == 0);
	}
	s->ns[round] = bench_ns_per_access(&bt, burst);
	s->sum.cpu_ns += bt.cpu_ns;
	s->sum.wall_ns += bt.wall_ns;
	return 0;
}

/* The trial of one slot after its rounds: as a sequential trial, plus rounds. */
static int finish_slot(struct bench *b, const struct bench_micro *w, struct slot *s, int rep,
		       unsigned long long accesses, int rounds, struct results_trial *t)
{
	struct folio_hist h;
	double coverage = 0;
	int err;

	results_trial_init(t, s->order, w->kern->name, w->span, rep);
	t->accesses = accesses;
	err = buffer_verify(&s->bf, &h, &t->layout, &coverage);
	if (err && err != -ENOSYS && err != -EPERM && err != -EACCES)
		return err;
	if (!err) {
		results_trial_set_hist(t, &h, coverage);
		t->has_layout = true;
	}
	micro_metrics(b, w, t, &s->bf, &s->sum, &s->faults, s->loopv, s->pmuv);
	if (s->steal_ns >= 0) {
		results_trial_set_metric(t, "steal_ns", s->steal_ns, "kernel", NULL, -1);
		results_trial_set_metric(t, "disturbed_rounds", s->disturbed, "kernel", NULL, -1);
	}
	if ((err = results_trial_set_rounds(t, s->ns, (size_t)rounds)))
		return err;
	t->has_placement = true;
	t->placement = s->pl;
	if (t->has_folios && coverage < BENCH_COVERAGE_MIN) {
		t->flags |= RESULTS_F_LOW_COVERAGE;
		b->low_coverage++;
		warn(b, "%s order %d rep %d: only %.1f%% of the span is backed by order-%d "
		     "folios (fallback %llu); the trial is flagged", w->kern->name, s->order, rep,
		     coverage * 100, s->order, s->bf.have_size_stats ? s->bf.fault_fallback : 0ULL);
	}
	return 0;
}

int bench_micro_interleaved(struct bench *b, const struct bench_micro *w, const int *orders,
			    int nr, int rep, unsigned long long accesses, int rounds,
			    struct results_trial *trials, struct results_trial *sparse)
{
	uint64_t rng = mix(b->seed, 0x726f756e64ULL + (uint64_t)rep * 7919u +
					    (uint64_t)w->pattern_index);
	int perm[BENCH_MAX_ORDERS], i, r, err = 0;
	struct round_steal rs = { .on = steal_reported() == 1, .cpu = sched_getcpu() };
	struct slot *sl;

	if (nr <= 0 || nr > BENCH_MAX_ORDERS || rounds <= 0 || accesses < (unsigned)rounds)
		return -EINVAL;
	sl = calloc((size_t)nr, sizeof(*sl));
	if (!sl)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		sl[i].order = orders[i];
		sl[i].faults.value = NAN;
		sl[i].steal_ns = rs.on ? 0.0 : -1.0;
		perm[i] = i;
		if (!(sl[i].ns = calloc((size_t)rounds, sizeof(double))))
			err = -ENOMEM;
	}
	if (err || (err = populate_all(b, w, rep, sl, nr)))
		goto out;
	for (r = 0; r < rounds && !err; r++) {
		/* a round is a block: every order sees the same machine */
		shuffle(perm, nr, &rng);
		round_steal_begin(&rs);
		for (i = 0; i < nr && !err; i++)
			err = timed_burst(b, w, &sl[perm[i]], burst_of(accesses, rounds, r), r);
		round_steal_end(&rs, sl, nr, r);
	}
	for (i = 0; i < nr && !err; i++)
		err = finish_slot(b, w, &sl[i], rep, accesses, rounds, &trials[i]);
	for (i = 0; i < nr; i++)
		buffer_unmap(&sl[i].bf);
	for (i = 0; i < nr && sparse && !err; i++) {
		results_trial_init(&sparse[i], orders[i], NULL, w->span, rep);
		if (w->sparse_k && !(err = buffer_set_order(b->thp, orders[i])))
			err = micro_sparse(b, w, orders[i], rep, &sparse[i]);
	}
out:
	for (i = 0; i < nr; i++) {
		buffer_unmap(&sl[i].bf);
		free(sl[i].ns);
	}
	free(sl);
	return err;
}

/* ---- a user's command ------------------------------------------------------- */

/* What a sample saw besides folios: the causes of low coverage. Bytes. */
struct evidence {
	unsigned long long thp_off;  /* anon of processes with THP_enabled: 0 (prctl) */
	unsigned long long nohuge;   /* anon in VMAs with VmFlags nh (MADV_NOHUGEPAGE) */
	unsigned long long shmem;    /* resident in shared anonymous/memfd/SysV mappings */
};

/* The last scan of one process of the tree. */
struct wproc {
	pid_t pid;
	int live;      /* 0, 1; 2 while a tick sorts the live set */
	bool scanned;
	struct scan_stats st;
	struct evidence ev;
	struct layout_hist layout;
};

/* What the watch keeps: each process's last scan, their sum over the live
 * ones (kept up to date: a sample is that sum), and the sample with the most
 * anonymous memory. A tick scans in rotation from where the last one
 * stopped, for at most its share of the CPU budget; a process is also
 * scanned at its exit stop. */
struct watch {
	struct scan_opts so;
	struct wproc *p;
	int n, cursor;
	size_t cap;
	struct scan_stats sum, best;
	struct scan_stats life;      /* every successful scan summed: the tree's life */
	int life_scans;
	struct evidence sum_ev, best_ev;
	struct layout_hist sum_layout, best_layout; /* every mapping of the live tree */
	unsigned long long best_anon;
	int live, scanned_live, best_live, best_scanned;
	long long slice_ns;
	int samples, exit_samples, scan_err;
	struct bench_presence *pres; /* this trial's samples map into it, or NULL */
	int rep;
	/* the scan in progress */
	struct scan_stats cur;
	struct evidence cur_ev;
	struct layout_hist cur_layout;
};

static int watch_new(struct watch **out)
{
	struct watch *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	scan_opts_init(&w->so);
	/* one worker: the workload keeps the other CPU */
	w->so.nr_threads = 1;
	w->so.layout = true;
	layout_hist_init(&w->sum_layout, w->so.page_shift, w->so.pmd_order);
	w->best_layout = w->sum_layout;
	*out = w;
	return 0;
}

static void watch_free(struct watch *w)
{
	if (w)
		free(w->p);
	free(w);
}

static void stats_acc(struct scan_stats *d, const struct scan_stats *s, int sign)
{
	unsigned long long *dp = (unsigned long long *)d;
	const unsigned long long *sp = (const unsigned long long *)s;

	for (size_t i = 0; i < sizeof(*d) / sizeof(*dp); i++)
		dp[i] += sign > 0 ? sp[i] : -sp[i];
}

static void ev_acc(struct evidence *d, const struct evidence *s, int sign)
{
	d->thp_off += sign > 0 ? s->thp_off : -s->thp_off;
	d->nohuge += sign > 0 ? s->nohuge : -s->nohuge;
	d->shmem += sign > 0 ? s->shmem : -s->shmem;
}

/* d += sign * s, block by block (same page size and PMD order). */
static void layout_acc(struct layout_hist *d, const struct layout_hist *s, int sign)
{
	for (int k = 0; k <= LAYOUT_MAX_K; k++) {
		d->contig[k] += sign > 0 ? s->contig[k] : -s->contig[k];
		d->folio[k] += sign > 0 ? s->folio[k] : -s->folio[k];
	}
	d->pmd_maps += sign > 0 ? s->pmd_maps : -s->pmd_maps;
	d->excluded += sign > 0 ? s->excluded : -s->excluded;
}

static bool is_shmem_vma(const struct scan_vma *v)
{
	return v->perms[3] == 's' && (!strncmp(v->name, "/dev/zero", 9) ||
				      !strncmp(v->name, "/memfd:", 7) ||
				      !strncmp(v->name, "/SYSV", 5) ||
				      !strncmp(v->name, "/dev/shm/", 9));
}

static int add_vma(const struct scan_vma *v, void *ctx)
{
	struct watch *w = ctx;

	if (!v->scanned)
		return 0;
	scan_stats_add(&w->cur, &v->st);
	layout_hist_add(&w->cur_layout, &v->layout);
	if (is_shmem_vma(v))
		w->cur_ev.shmem += v->st.total[SCAN_FILE] << w->so.page_shift;
	return 0;
}

static struct wproc *watch_proc(struct watch *w, pid_t pid)
{
	int lo = 0, hi = w->n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (w->p[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < w->n && w->p[lo].pid == pid)
		return &w->p[lo];
	if (MS_GROW(w->p, w->n, w->cap, 64))
		return NULL;
	memmove(&w->p[lo + 1], &w->p[lo], (size_t)(w->n - lo) * sizeof(*w->p));
	w->n++;
	memset(&w->p[lo], 0, sizeof(w->p[lo]));
	w->p[lo].pid = pid;
	return &w->p[lo];
}

/* "THP_enabled: 0" in /proc/PID/status: PR_SET_THP_DISABLE. */
static bool thp_disabled(pid_t pid)
{
	char path[64], line[128];
	FILE *f;
	bool off = false;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "THP_enabled:", 12)) {
			off = atoi(line + 12) == 0;
			break;
		}
	fclose(f);
	return off;
}

/* Anonymous bytes in VMAs advised MADV_NOHUGEPAGE (smaps VmFlags nh). */
static unsigned long long nohuge_anon(pid_t pid)
{
	char path[64];
	struct scan_vma *v = NULL;
	size_t nr = 0;
	unsigned long long kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	if (!(f = fopen(path, "re")))
		return 0;
	if (!scan_parse_smaps(f, &v, &nr))
		for (size_t i = 0; i < nr; i++)
			kb += v[i].vm_nohuge ? v[i].anon_kb : 0;
	free(v);
	fclose(f);
	return kb << 10;
}

/* Scan one process into its entry, read through thread 'via'; the live sum
 * follows. */
static void scan_one(struct watch *w, struct wproc *p, pid_t via, bool at_exit)
{
	int err;

	memset(&w->cur, 0, sizeof(w->cur));
	memset(&w->cur_ev, 0, sizeof(w->cur_ev));
	layout_hist_init(&w->cur_layout, w->so.page_shift, w->so.pmd_order);
	err = scan_process((int)via, &w->so, add_vma, w);
	/* a process that ended during the scan is no error */
	if (err && err != -ESRCH && err != -ENOENT && !w->scan_err)
		w->scan_err = err;
	if (err)
		return;
	stats_acc(&w->life, &w->cur, 1);
	w->life_scans++;
	if (thp_disabled(via))
		w->cur_ev.thp_off = w->cur.total[SCAN_ANON] << w->so.page_shift;
	/* smaps walks the page tables: only where the answer can matter */
	if (at_exit && w->cur.total[SCAN_ANON] << w->so.page_shift >= (4ULL << 20))
		w->cur_ev.nohuge = nohuge_anon(via);
	else
		w->cur_ev.nohuge = p->ev.nohuge;
	if (p->live) {
		stats_acc(&w->sum, &p->st, -1);
		ev_acc(&w->sum_ev, &p->ev, -1);
		stats_acc(&w->sum, &w->cur, 1);
		ev_acc(&w->sum_ev, &w->cur_ev, 1);
		layout_acc(&w->sum_layout, &p->layout, -1);
		layout_acc(&w->sum_layout, &w->cur_layout, 1);
		w->scanned_live += !p->scanned;
	}
	p->st = w->cur;
	p->ev = w->cur_ev;
	p->layout = w->cur_layout;
	p->scanned = true;
}

/* --presence: the largest live process of a sample that is the largest yet,
 * mapped; the map replaces the one kept. */
static void presence_of_best(struct watch *w, unsigned long long anon)
{
	struct bench_presence *bp = w->pres;
	struct presence_doc d;
	const struct wproc *big = NULL;
	int i, err;

	if (anon <= bp->anon)
		return;
	for (i = 0; i < w->n; i++)
		if (w->p[i].live && w->p[i].scanned &&
		    (!big || w->p[i].st.total[SCAN_ANON] > big->st.total[SCAN_ANON]))
			big = &w->p[i];
	if (!big || presence_doc_init(&d, bp->doc.page_size))
		return;
	d.has_host = bp->doc.has_host;
	d.host = bp->doc.host;
	if ((err = presence_capture(big->pid, &d))) {
		if (err != -ESRCH)
			bp->err = err;
		presence_doc_free(&d);
		return;
	}
	presence_doc_free(&bp->doc);
	bp->doc = d;
	bp->anon = anon;
	bp->rep = w->rep;
	bp->err = 0; /* a failure of a smaller sample does not matter now */
}

static void keep_if_best(struct watch *w)
{
	unsigned long long anon = w->sum.total[SCAN_ANON];

	w->samples++;
	/* the evidence is the most seen in any sample: smaps' VmFlags are read
	 * at exit stops only, and the largest sample may be a tick's */
	w->best_ev.thp_off = w->best_ev.thp_off > w->sum_ev.thp_off ? w->best_ev.thp_off
								   : w->sum_ev.thp_off;
	w->best_ev.nohuge = w->best_ev.nohuge > w->sum_ev.nohuge ? w->best_ev.nohuge
								 : w->sum_ev.nohuge;
	w->best_ev.shmem = w->best_ev.shmem > w->sum_ev.shmem ? w->best_ev.shmem
							      : w->sum_ev.shmem;
	if (w->samples == 1 || anon > w->best_anon) {
		w->best = w->sum;
		w->best_layout = w->sum_layout;
		w->best_anon = anon;
		w->best_live = w->live;
		w->best_scanned = w->scanned_live;
		if (w->pres)
			presence_of_best(w, anon);
	}
}

static void set_live(struct watch *w, struct wproc *p, bool live)
{
	if (p->live == live)
		return;
	p->live = live;
	w->live += live ? 1 : -1;
	if (p->scanned) {
		stats_acc(&w->sum, &p->st, live ? 1 : -1);
		ev_acc(&w->sum_ev, &p->ev, live ? 1 : -1);
		layout_acc(&w->sum_layout, &p->layout, live ? 1 : -1);
		w->scanned_live += live ? 1 : -1;
	}
}

static long long cpu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void on_tick(void *ctx, const pid_t *pids, int n)
{
	struct watch *w = ctx;
	long long c0 = cpu_now_ns();
	int i, done;

	if (n <= 0)
		return;
	/* the live set is the tick's list */
	for (i = 0; i < w->n; i++)
		w->p[i].live = w->p[i].live ? 2 : 0;
	for (i = 0; i < n; i++) {
		struct wproc *p = watch_proc(w, pids[i]);

		if (!p)
			return;
		if (p->live)
			p->live = 1;
		else
			set_live(w, p, true);
	}
	for (i = 0; i < w->n; i++)
		if (w->p[i].live == 2) {
			w->p[i].live = 1;
			set_live(w, &w->p[i], false);
		}
	/* in rotation, within the tick's share of the budget */
	for (done = 0; done < n; done++) {
		struct wproc *p = watch_proc(w, pids[(w->cursor + done) % n]);

		if (done && cpu_now_ns() - c0 > w->slice_ns)
			break;
		if (p)
			scan_one(w, p, p->pid, false);
	}
	w->cursor = (w->cursor + done) % n;
	keep_if_best(w);
}

static void on_exit_stop(void *ctx, pid_t pid, pid_t tid)
{
	struct watch *w = ctx;
	struct wproc *p = watch_proc(w, pid);

	if (!p)
		return;
	set_live(w, p, true);
	scan_one(w, p, tid, true);
	w->exit_samples++;
	keep_if_best(w);
	/* it exits: its memory leaves the tree's sum */
	set_live(w, p, false);
}

/* Anonymous memory of 'st' as a histogram by folio order; its total pages. */
static unsigned long long anon_hist(const struct watch *w, const struct scan_stats *st,
				    struct folio_hist *h)
{
	unsigned long long total = 0;
	int o;

	memset(h, 0, sizeof(*h));
	h->pages[0] = st->small[SCAN_ANON];
	for (o = 1; o <= FOLIO_MAX_ORDER; o++)
		h->pages[o] = st->aligned[SCAN_ANON][o] + st->unaligned[SCAN_ANON][o];
	if (w->so.pmd_order <= FOLIO_MAX_ORDER)
		h->pages[w->so.pmd_order] += st->pmd[SCAN_ANON];
	h->partial = st->partial[SCAN_ANON];
	for (o = 0; o <= FOLIO_MAX_ORDER; o++)
		total += h->pages[o];
	return total + h->partial;
}

/* The histogram of the tree's life (every scan summed: memory that lived
 * longer was scanned more often, and a buffer freed before exit counts as
 * long as a scan saw it) and the share at 'order' or larger; the largest
 * sample's sizes and layout; how much of the tree the scans saw. */
static void watch_hist(const struct bench *b, const struct watch *w, int order,
		       const struct child_result *cr, struct results_trial *t)
{
	struct folio_hist h;
	unsigned long long total = anon_hist(w, &w->life, &h), at = 0;
	int o, seen = 0;

	for (o = order; o <= FOLIO_MAX_ORDER; o++)
		at += h.pages[o];
	results_trial_set_hist(t, &h, total ? (double)at / (double)total : NAN);
	t->anon_bytes = w->best.total[SCAN_ANON] << w->so.page_shift;
	t->file_bytes = w->best.total[SCAN_FILE] << w->so.page_shift;
	for (o = 0; o < w->n; o++)
		seen += w->p[o].scanned;
	t->scans = (uint64_t)w->life_scans;
	t->processes = (uint64_t)(cr->nr_processes > seen ? cr->nr_processes : seen);
	t->processes_scanned = (uint64_t)seen;
	/* a scan that failed saw part of the memory: no layout, not a wrong one */
	if (!w->scan_err) {
		t->layout = w->best_layout;
		t->has_layout = true;
		bench_model_metrics(b->tlb, t);
	}
}

/* The trial's stdout/stderr files: in --log DIR, or unlinked ones (child.h:
 * child_tmpfile) reached as /proc/self/fd/N, which a SIGKILL cannot leave
 * behind; fd[] holds them (-1 when none). */
static int log_paths(const struct bench_command *w, int order, int rep, long seq, char *out,
		     char *err, size_t size, int fd[2])
{
	char *p[2] = { out, err };
	int i, e;

	fd[0] = fd[1] = -1;
	if (w->log_dir) {
		snprintf(out, size, "%s/trial-%03ld-order%d-rep%d.out", w->log_dir, seq, order, rep);
		snprintf(err, size, "%s/trial-%03ld-order%d-rep%d.err", w->log_dir, seq, order, rep);
		return 0;
	}
	for (i = 0; i < 2; i++) {
		if ((e = child_tmpfile(&fd[i])))
			return e;
		snprintf(p[i], size, "/proc/self/fd/%d", fd[i]);
	}
	return 0;
}

static void drop_logs(const int fd[2])
{
	for (int i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

/* --show-output with --metric: stdout went to the file for the metric;
 * it is shown after the trial. */
static void replay(const char *path)
{
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(f);
}

/* One --metric from the output, or a warning that says why it is absent. */
static void user_metric(struct bench *b, const struct bench_metric *bm, struct results_trial *t,
			const char *out_path)
{
	struct results_metric *m;
	double v;
	long line = 0;
	int err = bench_metric_extract(bm, out_path, &v, &line);

	if (err == -ENOENT)
		warn(b, "order %d rep %d: --metric %s: no line of the output matches '%s'; "
		     "the metric is absent", t->order, t->rep, bm->name, bm->regex);
	else if (err == -EINVAL)
		warn(b, "order %d rep %d: --metric %s: the captured text is not a number; "
		     "the metric is absent", t->order, t->rep, bm->name);
	else if (err == -E2BIG)
		warn(b, "order %d rep %d: --metric %s: the regex hit PCRE2's match limit on line "
		     "%ld of the output (it backtracks without bound: nested quantifiers such as "
		     "(a+)+); the metric is absent", t->order, t->rep, bm->name, line);
	else if (err == -ETIME)
		warn(b, "order %d rep %d: --metric %s: matching took over %g s (stopped at line "
		     "%ld); the metric is absent", t->order, t->rep, bm->name,
		     BENCH_METRIC_BUDGET_S, line);
	else if (err)
		warn(b, "order %d rep %d: --metric %s: %s", t->order, t->rep, bm->name,
		     strerror(-err));
	else if ((m = results_trial_set_metric(t, bm->name, v, "workload", NULL, -1)))
		m->higher_better = bm->higher_better;
}

static void command_metrics(struct bench *b, const struct bench_command *w,
			    struct results_trial *t, const struct child_result *cr,
			    const char *out_path)
{
	double cpu_s = (double)cr->ru.ru_utime.tv_sec + cr->ru.ru_utime.tv_usec / 1e6 +
		       (double)cr->ru.ru_stime.tv_sec + cr->ru.ru_stime.tv_usec / 1e6;
	static const char *const per_cpu[] = { "walk_cycles", "walks", "dtlb_misses" };
	struct results_metric *m;
	char name[40];
	int i;

	results_trial_set_metric(t, "wall_ns", (double)cr->wall_ns, "timing", NULL, -1);
	results_trial_set_metric(t, "user_ns",
				 (double)cr->ru.ru_utime.tv_sec * 1e9 + cr->ru.ru_utime.tv_usec * 1e3,
				 "kernel", NULL, -1);
	results_trial_set_metric(t, "sys_ns",
				 (double)cr->ru.ru_stime.tv_sec * 1e9 + cr->ru.ru_stime.tv_usec * 1e3,
				 "kernel", NULL, -1);
	results_trial_set_metric(t, "minor_faults", (double)cr->ru.ru_minflt, "kernel", NULL, -1);
	results_trial_set_metric(t, "major_faults", (double)cr->ru.ru_majflt, "kernel", NULL, -1);
	results_trial_set_metric(t, "max_rss_bytes", (double)cr->max_rss_kb * 1024, "kernel", NULL,
				 -1);
	results_trial_set_metric(t, "voluntary_switches", (double)cr->ru.ru_nvcsw, "kernel", NULL,
				 -1);
	results_trial_set_metric(t, "involuntary_switches", (double)cr->ru.ru_nivcsw, "kernel",
				 NULL, -1);
	/* a hardware TLB count per second of CPU: what analyze prefers */
	for (i = 0; i < (int)MS_ARRAY_SIZE(per_cpu) && cpu_s > 0; i++) {
		const struct results_metric *src = results_trial_metric(t, per_cpu[i]);

		if (!src || strcmp(src->source, "pmu"))
			continue;
		snprintf(name, sizeof(name), "%s_per_cpu_s", per_cpu[i]);
		m = results_trial_set_metric(t, name, src->value / cpu_s, "pmu", NULL, -1);
		if (m)
			snprintf(m->formula, sizeof(m->formula), "%s / (user_ns + sys_ns) x 1e9",
				 per_cpu[i]);
	}
	for (i = 0; i < w->nr_metrics && out_path; i++)
		user_metric(b, &w->metrics[i], t, out_path);
}

/* Counters on the child: opened between prepare and start, counting from
 * its exec over its whole tree. */
static void command_counters_open(struct bench *b, pid_t pid, struct counters_set **sw,
				  struct counters_set **pmu)
{
	struct counters_options o = { .include_kernel = true, .pid = pid, .inherit = true,
				 .enable_on_exec = true };
	int bad;

	*sw = *pmu = NULL;
	if (b->sw_ok && counters_set_open(sw, tree_specs, (int)MS_ARRAY_SIZE(tree_specs), &o, &bad))
		*sw = NULL;
	o.include_kernel = false;
	if (b->have_pmu && counters_set_open(pmu, b->pmu.spec, b->pmu.n, &o, &bad))
		*pmu = NULL;
}

static void command_counters_read(struct bench *b, struct results_trial *t, struct counters_set *sw,
				  struct counters_set *pmu)
{
	struct counters_value v[ARCH_MAX_SPECS > 2 ? ARCH_MAX_SPECS : 2];
	int i;

	if (sw && !counters_set_read(sw, v, (int)MS_ARRAY_SIZE(tree_specs)))
		for (i = 0; i < (int)MS_ARRAY_SIZE(tree_specs); i++)
			metric_from_ctr(t, &v[i]);
	if (pmu && !counters_set_read(pmu, v, b->pmu.n))
		flag_pmu(&b->pmu, t, v);
}

/* What the kernel's settings were at the trial's end, against what it set:
 * "" when as set, else the first knob the command (or someone) changed. */
static void knobs_changed(const struct bench *b, int order, char *what, size_t size)
{
	struct thp_settings now;

	what[0] = '\0';
	if (thp_read(&now))
		return;
	if (now.enabled != THP_W_ALWAYS) {
		snprintf(what, size, "enabled is '%s' (the trial set 'always')",
			 thp_word_name(now.enabled));
		return;
	}
	for (int i = 0; i < now.nr_sizes; i++) {
		const struct thp_size *z = &now.sizes[i];
		enum thp_word want = z->order == order ? THP_W_ALWAYS : THP_W_NEVER;

		if (!z->anon || b->thp->legacy_pmd || z->enabled == want)
			continue;
		snprintf(what, size, "hugepages-%lukB/enabled is '%s' (the trial set '%s')", z->kb,
			 thp_word_name(z->enabled), thp_word_name(want));
		return;
	}
}

/* Why the kernel did not give the order, from what was seen: the knobs at
 * the end, the process's prctl, its VMAs' advice, its shared memory, the
 * fallback count; then the sizes of its memory. */
static void explain_coverage(struct bench *b, const struct results_trial *t,
			     const struct watch *wt, const char *knobs)
{
	const struct results_metric *fb = results_trial_metric(t, "anon_fault_fallback");
	unsigned long long folio = (unsigned long long)b->thp->page_size << t->order;
	unsigned long long anon = t->anon_bytes, half = anon / 2;
	const struct evidence *ev = &wt->best_ev;
	char why[320] = "";

	if (knobs[0])
		snprintf(why, sizeof(why), "the THP settings changed during the trial: %s (the "
			 "command, or another program, wrote them)", knobs);
	else if (anon && ev->thp_off > half)
		snprintf(why, sizeof(why), "the process disabled THP for itself "
			 "(prctl PR_SET_THP_DISABLE: THP_enabled 0 in /proc/PID/status)");
	else if (anon && ev->nohuge > half)
		snprintf(why, sizeof(why), "%llu MiB of its %llu MiB anonymous memory is advised "
			 "MADV_NOHUGEPAGE (VmFlags nh in smaps)", ev->nohuge >> 20, anon >> 20);
	else if (fb && fb->value > 0)
		snprintf(why, sizeof(why), "the kernel fell back %.0f times (no free block of "
			 "the size: fragmentation or memory pressure)", fb->value);
	else if (ev->shmem > anon)
		snprintf(why, sizeof(why), "most of its memory is shared anonymous or memfd "
			 "memory (%llu MiB, %llu MiB private anon): shmem, governed by "
			 "shmem_enabled and hugepages-<size>kB/shmem_enabled, not by the anon "
			 "settings this run changes", ev->shmem >> 20, anon >> 20);
	else if (t->file_bytes > anon)
		snprintf(why, sizeof(why), "most of its memory is file-backed (%llu MiB file, "
			 "%llu MiB anon): anonymous mTHP settings do not apply to it",
			 (unsigned long long)t->file_bytes >> 20, anon >> 20);
	else if (anon < 16 * folio)
		snprintf(why, sizeof(why), "little anonymous memory (%llu KiB, under 16 folios "
			 "of the order): a small heap is mostly partial folios and edges", anon >> 10);
	else
		snprintf(why, sizeof(why), "mappings too small or unaligned for the size, or "
			 "memory faulted before the order was set");
	warn(b, "command order %d rep %d: only %.1f%% of the anonymous memory is in folios of "
	     "order %d or larger: %s; the trial is flagged", t->order, t->rep,
	     t->coverage * 100, t->order, why);
}

static int command_set_order(struct bench *b, int order)
{
	int err = thp_set_only_order(b->thp, order);

	/* the workload is not expected to madvise: the top-level setting
	 * lets the per-size 'always' apply to every anonymous mapping */
	return err ? err : thp_set_top("enabled", THP_W_ALWAYS);
}

/* The command at 'order': knobs set, the child run and watched to its end,
 * its counters and the size's stats read, the knobs as the end found them
 * in 'knobs' (knobs_changed). -ENOTTY when it needed the terminal. */
static int command_run(struct bench *b, const struct bench_command *w, int order,
		       struct results_trial *t, const struct child_opts *co,
		       const struct child_watch *cw, struct child *ch, struct child_result *cr,
		       char *knobs, size_t size)
{
	struct counters_set *sw = NULL, *pmu = NULL;
	unsigned long long a0 = 0, f0 = 0, a1 = 0, f1 = 0;
	bool stats;
	int err;

	if ((err = command_set_order(b, order)))
		return err;
	stats = order && !buffer_size_stats(order, &a0, &f0);
	if ((err = child_prepare(ch, w->argv, co)))
		goto out;
	command_counters_open(b, ch->pid, &sw, &pmu);
	if ((err = child_start(ch))) {
		b->exec_err = err;
		goto out;
	}
	if ((err = child_wait(ch, cw, cr)))
		goto out;
	knobs_changed(b, order, knobs, size);
	command_counters_read(b, t, sw, pmu);
	if (stats && !buffer_size_stats(order, &a1, &f1)) {
		results_trial_set_metric(t, "anon_fault_alloc", (double)(a1 - a0), "kernel", NULL,
					 -1);
		results_trial_set_metric(t, "anon_fault_fallback", (double)(f1 - f0), "kernel",
					 NULL, -1);
	}
	if (cr->needs_tty)
		err = -ENOTTY;
out:
	counters_set_close(sw);
	counters_set_close(pmu);
	return err;
}

/* The trial's knobs back to the user's (per size, then the top level): the
 * lock and journal stay for the next trial. */
static int command_put_back(struct bench *b)
{
	int err = put_sizes_back(b);

	if (!err && b->thp->enabled != THP_W_NONE)
		err = thp_set_top("enabled", b->thp->enabled);
	return err;
}

/* The last non-empty line of a file, for a failure's message; 0 when the
 * file is empty. */
static long last_line(const char *path, char *buf, size_t size)
{
	char line[512];
	FILE *f = path ? fopen(path, "re") : NULL;
	long bytes;

	buf[0] = '\0';
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0])
			snprintf(buf, size, ": \"%.200s\"", line);
	}
	bytes = ftell(f);
	fclose(f);
	return bytes;
}

/* Debuggers and tracers ptrace their inferior; a process has one tracer,
 * and run -- CMD is already the tree's (gdb then says "exited with code
 * 127"). */
static bool is_tracer(const char *argv0)
{
	static const char *const names[] = { "gdb", "gdb-multiarch", "strace", "ltrace", "lldb",
					     "rr", "cgdb" };
	const char *base = strrchr(argv0, '/');

	base = base ? base + 1 : argv0;
	for (size_t i = 0; i < MS_ARRAY_SIZE(names); i++)
		if (!strcmp(base, names[i]))
			return true;
	return false;
}

/* Where the command said why it failed: stderr, or stdout when stderr is
 * empty and stdout is not. */
static void failure_tail(const struct bench_command *w, const char *out_path,
			 const char *err_path, char *tail, size_t size, const char **see)
{
	bool logs = w->log_dir != NULL;

	*see = NULL;
	if (!w->show_output && last_line(err_path, tail, size) > 0) {
		*see = logs ? err_path : NULL;
		return;
	}
	if ((!w->show_output || w->nr_metrics) && last_line(out_path, tail, size) > 0)
		*see = logs ? out_path : NULL;
}

static void command_failed(struct bench *b, const struct bench_command *w,
			   struct results_trial *t, const struct child_result *cr,
			   const char *tail, const char *see)
{
	char what[64];

	t->flags |= RESULTS_F_FAILED;
	if (WIFSIGNALED(cr->status))
		snprintf(what, sizeof(what), "died of signal %d (%s)", WTERMSIG(cr->status),
			 strsignal(WTERMSIG(cr->status)));
	else
		snprintf(what, sizeof(what), "exited with status %d", WEXITSTATUS(cr->status));
	warn(b, "order %d rep %d: %s %s%s%s%s; the trial is flagged failed", t->order, t->rep,
	     w->argv[0], what, tail, see ? ", see " : "", see ? see : "");
	if (is_tracer(w->argv[0]))
		warn(b, "%s traces its program with ptrace, but run -- CMD already traces the "
		     "command's tree and a process has one tracer: the program cannot start "
		     "under it (gdb says \"exited with code 127\"); measure the program itself, "
		     "not its debugger", w->argv[0]);
}

static void command_outcome(struct bench *b, const struct bench_command *w,
			    struct results_trial *t, const struct child_result *cr,
			    const char *out_path, const char *err_path)
{
	const char *see;
	char tail[256];

	failure_tail(w, out_path, err_path, tail, sizeof(tail), &see);
	if (cr->timed_out) {
		t->flags |= RESULTS_F_FAILED | RESULTS_F_TIMEOUT;
		warn(b, "order %d rep %d: %s killed after the --timeout of %g s; the trial is "
		     "flagged timeout", t->order, t->rep, w->argv[0], w->timeout_s);
	} else if (WIFSIGNALED(cr->status) || WEXITSTATUS(cr->status)) {
		command_failed(b, w, t, cr, tail, see);
	}
	if (cr->nr_outlived > 0)
		warn(b, "order %d rep %d: %d process%s outlived %s and %s %s", t->order, t->rep,
		     cr->nr_outlived, cr->nr_outlived == 1 ? "" : "es", w->argv[0],
		     cr->nr_outlived == 1 ? "was" : "were",
		     w->wait_descendants ? "waited for (--wait-descendants)"
					 : "killed (--wait-descendants waits for them)");
	t->exit_signal = WIFSIGNALED(cr->status) ? WTERMSIG(cr->status) : 0;
	t->exit_code = WIFEXITED(cr->status) ? WEXITSTATUS(cr->status) : -1;
}

/* The scans' own cost and reach: the watcher's CPU against the trial's wall
 * time, and processes that no scan covered. */
static void command_watch_report(struct bench *b, struct results_trial *t,
				 const struct child_result *cr, const struct watch *wt)
{
	results_trial_set_metric(t, "watch_cpu_ns", (double)cr->watch_cpu_ns, "kernel", NULL, -1);
	if (cr->exit_scans_skipped)
		warn(b, "order %d rep %d: %d of the tree's %d processes were not scanned at their "
		     "exit (the scans keep within %.0f%% of the wall time in CPU)", t->order,
		     t->rep, cr->exit_scans_skipped, cr->nr_processes, CHILD_CPU_BUDGET * 100);
	if (wt->best_live > wt->best_scanned)
		warn(b, "order %d rep %d: the largest sample of the tree scanned %d of its %d "
		     "live processes (the scans keep within %.0f%% of the wall time in CPU); "
		     "anon_bytes counts those only", t->order, t->rep,
		     wt->best_scanned, wt->best_live, CHILD_CPU_BUDGET * 100);
}

int bench_command_trial(struct bench *b, const struct bench_command *w, int order, int rep,
			long seq, struct results_trial *t)
{
	char out_path[512] = "", err_path[512] = "";
	struct child_opts co = { .trace = true, .stdin_path = w->stdin_path,
				 .foreground = w->show_output };
	struct child_watch cw = { .interval_ms = w->scan_interval_ms,
				  .timeout_ns = (long long)(w->timeout_s * 1e9),
				  .tick = on_tick, .at_exit = on_exit_stop,
				  .wait_descendants = w->wait_descendants };
	struct child_result cr;
	struct watch *wt = NULL;
	struct child ch = { .go_fd = -1, .err_fd = -1 };
	bool want_out = w->nr_metrics > 0;
	char knobs[160];
	int log_fd[2] = { -1, -1 };
	int err;

	results_trial_init(t, order, "command", 0, rep);
	t->seq = seq;
	t->workload = RESULTS_WL_COMMAND;
	if ((err = results_trial_set_argv(t, w->argv)))
		return err;
	if ((err = log_paths(w, order, rep, seq < 0 ? 0 : seq, out_path, err_path,
			     sizeof(out_path), log_fd)))
		goto out;
	if (!w->show_output || want_out)
		co.stdout_path = out_path;
	if (!w->show_output)
		co.stderr_path = err_path;
	if ((err = watch_new(&wt)))
		goto out;
	cw.ctx = wt;
	if (w->presence && w->presence->order == order)
		wt->pres = w->presence, wt->rep = rep;
	wt->slice_ns = (long long)((double)w->scan_interval_ms * 1e6 * CHILD_CPU_BUDGET);
	if ((err = command_run(b, w, order, t, &co, &cw, &ch, &cr, knobs, sizeof(knobs))))
		goto out;
	if (wt->samples)
		watch_hist(b, wt, order, &cr, t);
	command_watch_report(b, t, &cr, wt);
	/* nothing of the command's output is read at the trial's settings */
	if ((err = command_put_back(b)))
		goto out;
	command_outcome(b, w, t, &cr, co.stdout_path, co.stderr_path);
	command_metrics(b, w, t, &cr, co.stdout_path);
	if (w->show_output && want_out)
		replay(out_path);
	if (!ch.traced && ch.trace_err)
		warn(b, "order %d rep %d: ptrace does not attach (%s): no last scan at exit; a "
		     "short-lived process may be missed, and max_rss_bytes includes mthpscope's "
		     "own memory at fork", order, rep, strerror(ch.trace_err));
	if (wt->scan_err)
		warn(b, "order %d rep %d: scanning the command's memory failed: %s", order, rep,
		     strerror(-wt->scan_err));
	/* a program's coverage is stated; flagged only where the order was
	 * clearly not in effect (program.h) */
	if (t->has_folios && t->order && t->coverage < PROGRAM_COVERAGE_NEAR_ZERO &&
	    !program_alloc_in_effect(t, b->thp->page_size) && !(t->flags & RESULTS_F_FAILED)) {
		t->flags |= RESULTS_F_LOW_COVERAGE;
		b->low_coverage++;
		explain_coverage(b, t, wt, knobs);
	}
out:
	if (err)
		child_cancel(&ch);
	watch_free(wt);
	drop_logs(log_fd);
	return err;
}
