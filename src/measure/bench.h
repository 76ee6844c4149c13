/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trial engine: every measurement of mthpscope (run's micro-benchmarks,
 * run -- CMD, the collapse experiment's timing) goes through it.
 *
 *   plan       randomised blocks of (order, rep, pattern, span) cells
 *   calibrate  accesses per micro trial for a wall-clock budget
 *   trial      set the order through the thp journal, run the workload,
 *              verify the folio orders, read the counters -> results_trial
 *
 * A workload is one of two kinds: a kernels-micro loop on a buffer
 * (struct bench_micro) or a child command (struct bench_command).
 *
 * Return convention: 0 or negative errno. The engine never prints: progress
 * and warnings go through the report callback.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "arch_pmu.h"
#include "counters.h"
#include "kernel.h"
#include "mthpscope.h"
#include "presence_doc.h"
#include "results.h"
#include "thp.h"
#include "tlb_model.h"

/* Below this share of the span (micro) or of the anonymous memory (command)
 * at the requested order, a trial is flagged low_coverage. */
#define BENCH_COVERAGE_MIN RESULTS_MIN_COVERAGE

/* ---- plan ---------------------------------------------------------------- */

/* One place in the run: pattern and span index the caller's lists (0 for a
 * command). */
struct bench_cell {
	int order, rep, pattern, span;
};

/*
 * Randomised blocks: rep r runs every (pattern, span, order) once, shuffled
 * with the seed, then neighbours of the same order are moved apart. *cells
 * is allocated (free()); *n = nr_patterns * nr_spans * nr_orders * reps.
 */
int bench_plan(const int *orders, int nr_orders, int nr_patterns, int nr_spans, int reps,
	       uint64_t seed, struct bench_cell **cells, int *n);

/* ---- the engine ---------------------------------------------------------- */

enum bench_event_kind {
	BENCH_EV_CALIBRATE, /* 'what' names the pattern, 'span' its span */
	BENCH_EV_TRIAL,     /* a trial starts: 'cell', 'done' of 'total' */
	BENCH_EV_WARN,      /* 'what' is the message */
	BENCH_EV_NOTE,      /* 'what' is the message: worth knowing, nothing wrong */
};

struct bench_event {
	enum bench_event_kind kind;
	const struct bench_cell *cell;
	int done, total;
	const char *what;
	unsigned long long span;
};

typedef void (*bench_report_fn)(const struct bench_event *ev, void *ctx);

enum bench_backend { BENCH_BACKEND_AUTO, BENCH_BACKEND_PMU, BENCH_BACKEND_TIMING };

struct bench {
	const struct thp_settings *thp;
	uint64_t seed;
	bench_report_fn report;
	void *report_ctx;
	/* bench_open_counters(): software events around populate (faults) and
	 * the loop (context switches); the CPU family's PMU set (arch/), or
	 * NULL with the timing backend */
	struct counters_set *fault_set, *loop_set, *pmu_set;
	struct arch_specs pmu;
	/* Set before bench_open_counters when a pattern of the run stores
	 * (kernel_desc.stores). Where the family counts store-side TLB misses
	 * apart (arch_desc.store_events: Intel's DTLB_STORE_MISSES), the store
	 * pattern's trials are counted with this second set, its events in
	 * each trial's metrics; elsewhere it stays NULL and pmu_set, which
	 * counts stores too (AMD, Arm), serves every pattern. */
	bool stores;
	struct counters_set *pmu_store_set;
	struct arch_specs pmu_store;
	bool have_pmu;       /* pmu specs usable (a command opens its own set) */
	bool sw_ok;          /* software events open */
	const char *backend; /* "pmu" or "timing" */
	int low_coverage;    /* trials flagged so far */
	/* a command that did not start: its exec's -errno (a #! interpreter
	 * that is not there: -ENOENT), told apart from the engine's own */
	int exec_err;
	/* the TLB model of each trial's layout (tlb_* metrics); NULL: none */
	const struct tlb_geometry *tlb;
	/* The interleaved schedule's placements (placement.h): the largest
	 * drawn part of the ballast before a rep's buffers, beyond a copy of
	 * the buffers' own size (0: one span; shared by the orders), the next
	 * placement id, the sorted PFNs of the last placement, and how many
	 * placements reused most of the frames of the one before. */
	unsigned long long ballast_max;
	long placement_next;
	uint64_t *placement_prev;
	size_t placement_nprev;
	int placements_same;
};

void bench_init(struct bench *b, const struct thp_settings *s, uint64_t seed,
		bench_report_fn report, void *ctx);
/*
 * The TLB model's metrics of t's layout under g (source "model", never a
 * count): tlb_entries_l1 and tlb_entries_l2, the entries the first and
 * second level need, and tlb_miss_ratio_model, the last level's predicted
 * miss ratio for uniform random access, each with a formula naming the
 * model and the source of its figures. Nothing without g or a layout, or
 * for a layout that maps nothing or that g does not fit; a capacity not
 * known gives no miss ratio (results_trial_set_metric refuses the NaN:
 * absent, not zero).
 */
void bench_model_metrics(const struct tlb_geometry *g, struct results_trial *t);
/* A message, BENCH_EV_WARN or BENCH_EV_NOTE, to b's report callback (cut
 * at 767 bytes; no callback: dropped). */
void bench_say(struct bench *b, enum bench_event_kind kind, const char *fmt, ...) MS_PRINTF(3, 4);
/*
 * Open the counters for 'cpu' (after pinning: a hybrid CPU's event set
 * depends on the core). Software events that do not open are a warning.
 * The PMU sets (the loads', and the stores' with b->stores where the family
 * has one; both or neither open): with BENCH_BACKEND_PMU a failure is -ENODEV with the reason
 * in 'why'; with AUTO it is a note in 'why' and the run is timing-only.
 */
int bench_open_counters(struct bench *b, enum bench_backend want, int cpu, char *why,
			size_t size);
void bench_close(struct bench *b);
/* The accesses k makes, for its PMU events (arch_events_for):
 * ARCH_ACCESS_STORES for a kernel of stores (the store pattern), else
 * ARCH_ACCESS_LOADS (NULL, a command, too). */
enum arch_access bench_access(const struct kernel_desc *k);

/* ---- micro-benchmarks ------------------------------------------------------ */

struct bench_micro {
	const struct kernel_desc *kern;
	int pattern_index;          /* seeds the layout with the rep */
	unsigned long long span;    /* bytes, a multiple of the PMD size */
	long sparse_k;              /* bloat trial: one page in every k; 0 none */
	/* bench_micro_interleaved: bit i: slot i (orders[i], the PMD order)
	 * has its PMD mappings split into 4K PTEs once populated
	 * (buffer_split_pmd: contiguous frames, PTE-mapped; the probe's
	 * contiguous order 0). Its trial keeps orders[i]: the layout says
	 * pmd_maps 0. 0: none (run). */
	unsigned pte_split;
};

/* The engine's clock: the thread's CPU time (ns_per_access) and the wall
 * clock (wall_ns_per_access, and calibration's budget). */
struct bench_time {
	unsigned long long cpu_ns, wall_ns;
};

/*
 * A burst: exactly n accesses of the loop on a buffer already populated and
 * laid out (ks from k->setup), timed. The unit every timing is made of:
 * a trial is one burst; a per-round schedule is several.
 */
void bench_burst(const struct kernel_desc *k, struct kernel_state *ks, unsigned long long n,
		 struct bench_time *t);
/* CPU ns per access of a burst of n accesses. */
double bench_ns_per_access(const struct bench_time *t, unsigned long long n);

/* Accesses per trial so that one lasts about target_ns of wall clock at order
 * 0 (at least 2^20, whole passes); 'fixed' > 0 keeps that count and only warms
 * up. */
int bench_micro_calibrate(struct bench *b, const struct bench_micro *w, unsigned long long fixed,
			  double target_ns, unsigned long long *accesses);
/*
 * One micro trial: order set, span mapped and populated (faults counted),
 * the pattern laid out, one warm-up pass, the timed burst with the counters,
 * the folio histogram verified. 't' is initialised and filled; 'sparse'
 * (may be NULL) gets the bloat trial when w->sparse_k > 0, else its pattern
 * is left empty.
 */
int bench_micro_trial(struct bench *b, const struct bench_micro *w, int order, int rep,
		      unsigned long long accesses, struct results_trial *t,
		      struct results_trial *sparse);

/* ---- the interleaved schedule ---------------------------------------------------- */

#define BENCH_MAX_ORDERS (FOLIO_MAX_ORDER + 1) /* each order once */

/* Bytes the interleaved schedule holds at once for one (pattern, span): a
 * buffer per order and its chase table. */
unsigned long long bench_interleaved_bytes(unsigned long long span, int nr_orders,
					   unsigned long pmd_size);
/* Rounds for a trial of 'accesses' lasting target_ns at order 0: a round (a
 * burst at every order) then lasts about BENCH_ROUND_NS; at least
 * BENCH_MIN_ROUNDS. */
#define BENCH_ROUND_NS 150e6
#define BENCH_MIN_ROUNDS 5
int bench_rounds_for(unsigned long long accesses, double target_ns, int nr_orders);
/*
 * One rep of one (pattern, span), every order at once: each order's span
 * populated with only its order enabled (faults counted), laid out, then the
 * user's per-size settings put back (the spans get MADV_NOHUGEPAGE so nothing
 * collapses them meanwhile; the lock is kept); then 'rounds' rounds, each a
 * burst at every order (after a warm-up pass; the bursts of a trial add up to
 * exactly 'accesses'), the orders shuffled each round with the seed; then
 * each span verified. trials[i] (order orders[i]) gets
 * rounds[] (ns_per_access of each round), ns_per_access = CPU time over all
 * its bursts / their accesses, the loop counters summed over its bursts.
 * sparse (NULL, or nr entries) as in bench_micro_trial.
 */
int bench_micro_interleaved(struct bench *b, const struct bench_micro *w, const int *orders,
			    int nr, int rep, unsigned long long accesses, int rounds,
			    struct results_trial *trials, struct results_trial *sparse);

/* ---- a user's command ------------------------------------------------------- */

/* --metric NAME=REGEX: the first capture group of the last line of stdout the
 * regex matches, as a number. The regex is PCRE2 (Perl syntax), matched with
 * limits (src/measure/bench_metric.c): a pattern that backtracks without
 * bound gives up on its trial instead of running for hours. */
struct bench_metric {
	char name[32];
	char regex[256];
	struct pcre2_real_code_8 *re;
	bool higher_better;
};
/* Parse and compile "NAME=REGEX": -EINVAL with the reason in 'why'. */
int bench_metric_parse(const char *arg, struct bench_metric *m, char *why, size_t size);
void bench_metric_free(struct bench_metric *m);
/* The value in a file: 0, -ENOENT when no line matches, -EINVAL when the
 * capture is not a number, -E2BIG when a line hit PCRE2's match, depth or
 * heap limit, -ETIME past BENCH_METRIC_BUDGET_S of matching; the number of
 * the line where it stopped in *line (may be NULL). */
#define BENCH_METRIC_BUDGET_S 1.0
int bench_metric_extract(const struct bench_metric *m, const char *path, double *value,
			 long *line);

/*
 * run -- CMD --presence: the presence map (presence.h) of the tree's largest
 * sample in the trials of one order: at each sample whose anonymous memory
 * is the largest yet, the largest process of it is mapped again (a second
 * walk of its page tables, in the watcher's CPU time). The caller
 * initialises doc (presence_doc_init) and order, and frees doc.
 */
struct bench_presence {
	int order;                  /* the trials whose samples count */
	struct presence_doc doc;    /* the map kept; pid 0 while none */
	unsigned long long anon;    /* the tree's anonymous pages at that sample */
	int rep;                    /* the trial it came from */
	int err;                    /* a failure (not -ESRCH) of a sample larger than
				     * the map's, or 0 */
};

struct bench_command {
	char *const *argv;
	unsigned scan_interval_ms;  /* periodic scans of the tree; 0 none */
	double timeout_s;           /* per trial; 0 none */
	const char *log_dir;        /* stdout/stderr per trial; NULL: unlinked files */
	bool show_output;           /* pass stdout/stderr through (and the terminal) */
	const struct bench_metric *metrics;
	int nr_metrics;
	const char *stdin_path;     /* every trial's stdin from the start; NULL: as child.h */
	bool wait_descendants;      /* wait for processes that outlive the command */
	struct bench_presence *presence; /* NULL, or the map of the largest sample */
};

/*
 * One command trial: only 'order' enabled (always; order 0: every size
 * never) and the top-level enabled 'always', the command run to its end with
 * its tree watched (periodic scans, a last scan of each process at its exit),
 * rusage of the tree, inherited software (and PMU) counters, the size's
 * stats/ deltas; then the user's per-size and top-level settings are put
 * back (the journal and the lock stay) before anything of the output is
 * read: the user's metrics never run with the knobs changed. A command that
 * fails is a trial flagged failed (timeout: failed and timeout), not an
 * error; an error is the engine's own (-errno), or -ENOTTY when the command
 * needed the terminal (SIGTTIN/SIGTTOU: child.h), which ends the run.
 */
int bench_command_trial(struct bench *b, const struct bench_command *w, int order, int rep,
			long seq, struct results_trial *t);

#endif
