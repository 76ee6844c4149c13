/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A run session: what `mthpscope run` measures, as a library. The command
 * fills the plan (orders, patterns, options) from its option table; the
 * session picks the spans and the schedule (session_setup), writes the
 * document's head (session_prepare) and runs every trial through the engine
 * (session_trials, in session_trials.c). The trials land twice: in the JSON document (written
 * as they come, so a failure keeps what was measured) and in the in-memory
 * results model (s->res), which the end-of-run summary analyses directly.
 *
 * Return convention: 0 or negative errno, the reason in words in 'why'.
 * Never prints: notes go through the engine's report callback.
 */
#ifndef SESSION_H
#define SESSION_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench.h"
#include "results.h"
#include "topo.h"

#define SESSION_MAX_SPANS RESULTS_MAX_SPANS
#define SESSION_MAX_PATTERNS RESULTS_MAX_PATTERNS
#define SESSION_MAX_METRICS RESULTS_MAX_METRICS
#define SESSION_COVERAGE_MIN BENCH_COVERAGE_MIN
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
#define SESSION_DEFAULT_REPS 10
#define SESSION_QUICK_REPS 3
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
 * by side on the same machine and load: see
 * data/vm-amd-epyc-6.18/stability/after/PROVENANCE.md.
 */
#define SESSION_INTERLEAVED_REPS 30
#define SESSION_INTERLEAVED_TRIAL_NS 0.15e9
/* The largest drawn part of the ballast before a rep's buffers (bench.h:
 * ballast_max; the ballast is a copy of the buffers, each order's span at
 * its order, plus this shared by the orders), within the memory share
 * below. Drawn evenly over [0, 512 MiB], with 9 orders of 64 MiB a ballast
 * averages 0.8 GiB, mostly in large folios that populate fast. */
#define SESSION_BALLAST_MAX (512ULL << 20)
/* Never map more than this share of MemAvailable: the rest of the machine
 * keeps working and the kernel keeps room to compact for the large orders. */
#define SESSION_MEM_SHARE 0.5

/* What the user asked, after the command's defaults. */
struct session_opts {
	unsigned long long span, sweep_min, sweep_max; /* 0: not given */
	long reps, cpu, sparse_k;
	uint64_t seed;
	unsigned long long accesses; /* 0: calibrate */
	bool quick, have_reps, have_cpu, have_sparse;
	enum bench_backend backend;
	int defrag;        /* enum thp_word, or THP_W_NONE: leave it */
	int schedule;      /* -1: default; else enum results_schedule */
	/* -- CMD */
	long scan_interval_ms;
	double timeout_s;
	struct bench_metric metrics[SESSION_MAX_METRICS];
	int nr_metrics;
	const char *log_dir;
	bool show_output;
	const char *stdin_path;   /* every trial's stdin (child.h: child_input); NULL default */
	bool wait_descendants;    /* wait for processes that outlive CMD */
	struct bench_presence *presence; /* --presence: the largest sample's map, or NULL */
	/* --precision: the target half-width in gain units (0.03 = 3 points),
	 * 0 for a fixed number of reps; --precision-all, --max-time */
	double precision;
	bool precision_all;
	double max_time_s;
	volatile sig_atomic_t *interrupt; /* set (by a signal handler): stop after this rep */
};

struct session {
	struct session_opts o;
	struct thp_settings s;
	struct topo_info topo;
	struct folio_orders orders; /* resolved: no "all" */
	const struct kernel_desc *pats[SESSION_MAX_PATTERNS];
	int nr_pats;
	char **cmd; /* -- CMD [ARGS...], NULL-terminated; NULL for micro-benchmarks */
	/* session_setup */
	unsigned long long spans[SESSION_MAX_SPANS];
	int nr_spans;
	unsigned long long reach;   /* TLB reach in bytes, and where it comes from */
	const char *reach_source;
	double target_ns;
	enum results_schedule schedule;
	/* session_trials */
	unsigned long long accesses[SESSION_MAX_PATTERNS][SESSION_MAX_SPANS];
	struct bench_cell *cells;
	int nr_cells;
	struct results_trial *slots; /* [2 * nr_cells]: the engine's output, before the model */
	struct results *res;         /* the in-memory document: head and trials in file order */
	json_t *doc;                 /* the same as JSON */
	struct bench b;
	/* --precision: the outcome so far (progress reads it) and the final
	 * one, in s->res->head.precision and s->doc's "precision" too */
	struct results_precision prec;
	int prec_next_look;          /* the next scheduled look, 1-based */
	double prec_t0;              /* CLOCK_MONOTONIC seconds at the start */
	/* o.interrupt ended a fixed plan early (after the trial in progress,
	 * or the rep of the interleaved schedule): said in the document */
	bool interrupted;
	int nr_done;                 /* cells of the plan measured */
};

/* Spans (from --span, --sweep or the machine), the trial budget and the
 * schedule of a micro run. -EINVAL: a span the engine cannot use; -ENOSPC:
 * the span does not fit in memory. The reason in 'why'. */
int session_setup(struct session *s, char *why, size_t size);
/* The plan, the trial slots and the document's head (tool, host with its
 * PMU, THP settings in effect, config). Call after bench_init and
 * bench_open_counters. */
int session_prepare(struct session *s);
/* A trial starts (cell NULL: the last one is done): to the engine's report
 * hook, for progress. */
void session_progress(struct session *s, int done, const struct bench_cell *c);
/* A measured trial into the document and the model (which takes it over;
 * an unused sparse slot, pattern "", is skipped). 0, or results_doc_add_trial's
 * -ENOMEM or -EINVAL. */
int session_keep(struct session *s, struct results_trial *t);
/* Free what the session owns (not its options' metrics). */
void session_free(struct session *s);

/* ---- session_trials.c: the loops over the plan ---- */
/* Every trial of the plan: calibration, then the schedule's loops. Each
 * trial is in s->doc and s->res as soon as it is measured. o.interrupt
 * ends the micro-benchmarks' plan before the next trial (sequential) or
 * rep (interleaved): s->interrupted, and "interrupted" in the document. */
int session_trials(struct session *s);
/* The interleaved schedule in pieces (the precision loop uses them): the
 * calibration of every (pattern, span), and one rep of all of them. */
int session_calibrate(struct session *s);
int session_interleaved_rep(struct session *s, int rep, int *n);
/* --precision: reps until the rule of src/analysis/precision.h says the
 * verdict's gain CI is within o.precision, --max-time runs out, o.interrupt
 * is set or the plan's reps are used; then the outcome into s->prec, the
 * document ("precision", config.reps) and s->res. */
int session_precision_trials(struct session *s);
/* The reps a precision run's plan holds (its slots are allocated up front). */
long session_precision_max_reps(const struct session *s);

#endif
