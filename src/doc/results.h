/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The result model and its JSON (doc/ARCHITECTURE.md, "Documents"). The builders
 * here describe the host and the THP settings once, for every document that
 * carries them (info, results, collapse).
 */
#ifndef RESULTS_H
#define RESULTS_H

#include <jansson.h>
#include <stdbool.h>

#include "host.h"
#include "layout.h"
#include "thp_settings.h"

#define RESULTS_SCHEMA "mthpscope.results/1"

/* {"name": "mthpscope", "version": "..."} */
json_t *results_tool_json(void);
/* $.host.pmu: libpfm4's models of this CPU, whether a hardware cycles
 * counter opens, and the reason in words when not. */
#define RESULTS_MAX_PMU_MODELS 8
struct results_pmu {
	bool available;
	int nr_models;
	char models[RESULTS_MAX_PMU_MODELS][64];
	char reason[512];     /* "" when available (then absent in the file) */
};

/* $.host, the typed description every document carries (info, results,
 * collapse): written by results_host_to_json, read by results_host_read. */
struct results_host {
	struct topo_info topo; /* kernel ... emulation; cpu_family/_number not written */
	int pmd_order;
	unsigned long pmd_size;
	struct results_pmu pmu;
};

/* results_host_describe (it probes the PMU): src/measure/topo.h. */
/* The "host" object of h; NULL on no memory. */
json_t *results_host_to_json(const struct results_host *h);
/* The reader of a "host" object at JSON path 'path' (e.g. "$.host") into h
 * (zeroed first). Every field is optional (documents of older versions carry
 * fewer); a field present must have the writer's type and fit the model.
 * 0 or -EBADMSG with the JSON path in err. */
int results_host_read(const json_t *host, const char *path, struct results_host *h, char *err,
		      size_t errsize);
/* The "thp" object: enabled, defrag, sizes[], khugepaged{}. With stats=true
 * each size carries its stats/ counters. */
json_t *results_thp_json(const struct thp_settings *s, bool stats);
/* Its reader, into s (zeroed first; knobs absent are -1): every field the
 * writer writes is required, words must be THP words; *stats says whether
 * the sizes carried "stats" (may be NULL). 0 or -EBADMSG with the path. */
int results_thp_read(const json_t *thp, const char *path, struct thp_settings *s, bool *stats,
		     char *err, size_t errsize);

/* ---- Reader: a validated in-memory model of a results file ---------------
 * results_load() parses and checks a whole document before anything uses
 * it: every error names the problem and, for a field, its JSON path
 * ("trials[3].metrics.walks.value"). The model keeps what analysis needs;
 * unknown keys are ignored (more may be added, doc/ARCHITECTURE.md).
 */
#include <stddef.h>
#include <stdint.h>

#include "folio_types.h" /* FOLIO_MAX_ORDER, struct folio_hist */
#include "layout.h"

#define RESULTS_MAX_BYTES (64u << 20)   /* a sweep of 10^5 trials is ~50 MiB */
#define RESULTS_MIN_COVERAGE 0.95       /* below this a trial did not measure its order */

/* config.schedule: how the orders' trials were timed. */
enum results_schedule {
	RESULTS_SCHED_SEQUENTIAL, /* "sequential": each order in its own block of time */
	RESULTS_SCHED_INTERLEAVED, /* "interleaved": orders round-robin, per-round "rounds" */
};
const char *results_schedule_name(enum results_schedule s);

#define RESULTS_MAX_ROUNDS (1u << 20)   /* per trial; far above any real run */

struct results_metric {
	char name[32];
	char source[16];   /* pmu | sw | timing | kernel | pagemap | model | workload */
	char event[128];   /* "" when absent */
	char formula[96];  /* derived metrics: how it was computed; "" when absent */
	double value;
	double scale;      /* multiplexing scale (enabled/running), 1.0 when absent */
	bool higher_better; /* "better": "higher" (a workload's own metric, e.g. ops/s) */
};

/* What a trial ran: a kernels-micro loop on a buffer, or a user's command. */
enum results_workload { RESULTS_WL_MICRO, RESULTS_WL_COMMAND };

/* Trial flags ("flags": [...] in the file). */
#define RESULTS_F_LOW_COVERAGE 0x1u /* below RESULTS_MIN_COVERAGE at its order */
#define RESULTS_F_FAILED       0x2u /* the command exited non-zero or died of a signal */
#define RESULTS_F_TIMEOUT      0x4u /* the command was killed by --timeout */

/*
 * "placement" of a trial (additive; absent in files from before it): the
 * physical placement its buffer was populated in (src/measure/bench.c,
 * populate_all). One id per populate of a rep's buffers: the unit of
 * replication, the cluster the analysis resamples. pfn_*: the page frame
 * numbers of the trial's own buffer (min, median, max); reused: the share
 * of the whole placement's frames that the placement before it held (NaN
 * for the first, or without PFNs); ballast_bytes: the order-0 ballast
 * populated before it, which moves it in physical memory.
 * regions_pmd, regions_pud: how many distinct PMD-size (2 MiB with 4K
 * pages) and PUD-size (1 GiB) frames of physical address space the
 * buffer's pages fall in, from the same PFNs (issue 38: in a VM these are
 * guest-physical regions, the units a host backs with its own large pages,
 * so the host's side of the nested walk needs that many of its
 * translations); 0 with has_regions false in files from before them.
 */
struct results_placement {
	long id;
	uint64_t pfn_min, pfn_median, pfn_max;
	double reused;
	uint64_t ballast_bytes;
	bool has_regions;
	uint64_t regions_pmd, regions_pud;
};

/*
 * One trial, the only shape a trial has: the engine (bench.c) fills it, the
 * writer (results_trial_json) turns it into JSON, the reader fills it back.
 * Strings and arrays it points to are owned: results_trial_clear() frees them.
 */
struct results_trial {
	int order;
	char pattern[32];      /* micro: the kernel's name, "sparse"; command: "command" */
	uint64_t span;         /* micro: bytes; command: 0 (absent in the file) */
	int rep;
	long seq;              /* position in the run's trial order; -1 when absent */
	uint64_t accesses;     /* 0 when absent (sparse and command trials need none) */
	bool sparse;           /* "pattern": "sparse", or a "sparse" object */
	long sparse_k;         /* sparse: one page in every k touched */
	uint64_t touched_pages;
	enum results_workload workload;
	char **argv;           /* command: NULL-terminated; NULL for micro trials */
	int argc;
	int exit_code;         /* command: exit status, -1 when it died of a signal */
	int exit_signal;       /* command: the signal that ended it, 0 */
	unsigned flags;        /* RESULTS_F_* */
	bool has_hist;         /* "folios" present */
	bool has_folios;       /* folio verification present (needs root): coverage valid */
	double coverage;       /* NaN when not verified */
	uint64_t hist[FOLIO_MAX_ORDER + 1]; /* base pages mapped by folios of each order */
	uint64_t partial, not_present;        /* folios.partial / folios.not_present */
	uint64_t anon_bytes, file_bytes;      /* command: the largest sample of the tree */
	/* command: the histogram and coverage are of the tree's life, every
	 * scan of every process summed (pages x scans: time-weighted), not of
	 * one moment; how many scans, and how many of the tree's processes
	 * they saw (0: absent, an older file) */
	uint64_t scans, processes, processes_scanned;
	bool multiplexed;      /* any counter ran less than the whole time */
	bool has_multiplexed;  /* "multiplexed" written (hardware counters were read) */
	struct results_metric *metrics;
	size_t nr_metrics;
	/* "rounds": ns_per_access of each round of an interleaved schedule;
	 * round i of every order at one (span, rep) was timed in the same
	 * round, so the rounds pair across orders. NULL / 0 when absent. */
	double *rounds;
	size_t nr_rounds;
	/* "layout": the buffer's (command: the kept scan's) contiguity
	 * histogram (src/doc/layout.h), and the name in "tlb": { "model": ... } of
	 * the TLB model run used for the tlb_* metrics; absent in files from
	 * before the histogram (has_layout false, tlb_model ""): the model is
	 * then unavailable, not zero. */
	bool has_layout;
	struct layout_hist layout;
	char tlb_model[32];
	bool has_placement;    /* "placement" present (new files) */
	struct results_placement placement;
};

struct results_size {
	int order;
	char enabled[16];      /* "" when the size has no anon control */
};

/* The limits of $.config (run's own: RUN_MAX_PATTERNS, _SPANS, _METRICS). */
#define RESULTS_MAX_PATTERNS 8
#define RESULTS_MAX_SPANS 32
#define RESULTS_MAX_METRICS 8

/* config.metrics[i] of run -- CMD: a metric the command prints. */
struct results_config_metric {
	char name[32];
	char regex[256];
	bool higher_better;    /* "better": "higher" | "lower" */
};

/*
 * $.config, what run was asked and what it chose: the one shape written by
 * results_head_json and read back by the loader. 'workload' picks the
 * document's shape: a micro run writes command .. schedule[, defrag], a
 * command run command, pattern, workload .. top_enabled[, defrag] (see
 * results.c, config_micro_json / config_command_json). Every field is
 * optional for the reader (older files carry fewer); absent ones are as
 * after results_config_init. Strings and argv are owned (results_config_clear).
 */
struct results_config {
	enum results_workload workload; /* RESULTS_WL_COMMAND: "workload" present */
	char command[16];      /* "run" */
	char pattern[32];      /* the first pattern; "command" for a command run */
	/* micro runs */
	char patterns[RESULTS_MAX_PATTERNS][32];
	int nr_patterns;
	struct folio_orders orders;
	uint64_t spans[RESULTS_MAX_SPANS];
	int nr_spans;
	long reps;             /* -1 when absent */
	uint64_t seed;
	long cpu;              /* -1 when absent */
	bool quick;
	char backend[16];      /* "pmu" | "timing" */
	double target_trial_seconds;
	uint64_t tlb_reach_bytes;
	char tlb_reach_source[64];
	/* tlb_geometry: the TLB model's geometry as the text of a geometry
	 * file (tlb_geometry_format), where the trials name one the table
	 * lacks (this CPU's CPUID): analysis reads it from here, not from the
	 * host it runs on; "" when absent */
	char tlb_geometry[1024];
	long sparse_k;         /* sparse.k: one page in every k (0 off) */
	char sparse_metric[16]; /* sparse.metric: "rss_bytes" */
	double coverage_min;
	char clock[32];        /* what ns_per_access is measured with */
	enum results_schedule schedule; /* sequential when absent (older files) */
	/* "placement": "per-rep" (interleaved runs): each rep populates the
	 * orders in a seeded order of its own, so no order keeps its physical
	 * memory for the whole run; false when absent (older files) */
	bool placement_per_rep;
	int defrag;            /* enum thp_word; THP_W_NONE when absent (not set) */
	/* command runs */
	char **argv;           /* workload.argv, NULL-terminated; NULL for micro runs */
	int argc;
	long scan_interval_ms;
	double timeout_s;      /* 0: none */
	struct results_config_metric metrics[RESULTS_MAX_METRICS];
	int nr_metrics;
	char top_enabled[16];  /* the top-level enabled word each trial set */
};

/* An empty config: absent everywhere (reps, cpu -1, defrag THP_W_NONE). */
void results_config_init(struct results_config *c);
/* Free argv and leave c as after init. */
void results_config_clear(struct results_config *c);
/* Copy a command's argv (NULL-terminated, non-empty). 0, -EINVAL, -ENOMEM. */
int results_config_set_argv(struct results_config *c, char *const argv[]);

/* Everything of a results document but its trials: schema, tool, host, thp,
 * config, in that order. run fills it; the loader fills it back. */
/*
 * $.precision: what `run --precision` asked and got (absent in other runs).
 * half_width and level: the last look's gain CI (the widest of the orders
 * it covers), in gain units (0.03 = 3 points of order 0's time), at the
 * level the sequential rule gives that look (src/analysis/precision.h).
 */
enum results_precision_stop {
	RESULTS_PREC_REACHED,     /* "reached": the CI got within the target */
	RESULTS_PREC_MAX_TIME,    /* "max-time": --max-time ran out first */
	RESULTS_PREC_INTERRUPTED, /* "interrupted": SIGINT or SIGTERM */
	RESULTS_PREC_MAX_REPS,    /* "max-reps": the most reps a run keeps */
	RESULTS_PREC_NR,
};

struct results_precision {
	double target;            /* half-width asked, gain units (--precision / 100) */
	bool all;                 /* every order's CI (--precision-all), not the verdict's */
	double max_time_s;
	bool reached;
	enum results_precision_stop stop;
	double half_width;        /* achieved; NaN when no look could make a CI */
	double level;             /* of that CI */
	int order;                /* the order whose CI it is (the widest); -1 none */
	int looks, planned_looks; /* looks made; the most the rule planned for */
	long reps;                /* reps measured */
	long rounds;              /* paired rounds of that order */
	double elapsed_s;         /* from the first calibration to the last look */
};

/* $.precision.rule: the sequential rule (src/analysis/precision.h) */
#define RESULTS_PRECISION_RULE "bonferroni-over-looks"

struct rd;
const char *results_precision_stop_name(enum results_precision_stop s);
/* $.precision of p; NULL on no memory. */
json_t *results_precision_json(const struct results_precision *p);
/* The reader's inverse (json_read.h): 0 or -EBADMSG with the path in rd. */
int results_precision_read(struct rd *rd, const json_t *o, const char *path,
			   struct results_precision *p);

struct results_head {
	bool has_tool;
	char tool_version[64];  /* $.tool.version */
	struct results_host host;
	/* thp read whole: files that carry thp.per_size_mthp (written since
	 * a73e96f); an older file's thp stays in the flat summary only, and a
	 * head written back from it has none */
	bool has_thp;
	bool thp_stats;         /* the sizes carry stats/ counters */
	struct thp_settings thp;
	struct results_config config;
	bool has_precision;     /* $.precision present */
	struct results_precision precision;
	/* $.interrupted: SIGINT or SIGTERM ended a run of a fixed plan before
	 * its end; the trials are those measured (absent, false, otherwise; a
	 * --precision run says it in precision.stop) */
	bool interrupted;
};

/* The writer: the head of 'h' with an empty "trials" array into *out (new
 * reference), for results_doc_add_trial to fill. 0, -EINVAL (a config field
 * outside the model, e.g. too many orders), -ENOMEM. */
int results_head_json(const struct results_head *h, json_t **out);

struct results {
	char path[256];
	/* the typed head: the writer's own model, read back whole */
	struct results_head head;
	char tool_version[32];
	/* host */
	char kernel[64];
	char arch[32];
	char cpu_vendor[64];
	char cpu_model[128];
	bool virtualized;
	bool emulated;         /* host.emulated: QEMU TCG, timing means nothing */
	int steal_reported;    /* host.steal_time_reported: 1, 0, -1 absent */
	char emulation[128];   /* host.emulation: the sign it was found by */
	uint64_t page_size;
	int pmd_order;
	bool pmu_available;
	char pmu_reason[256];
	/* thp summary */
	char thp_enabled[16];
	char thp_defrag[16];
	struct results_size sizes[FOLIO_MAX_ORDER + 1];
	int nr_sizes;
	long max_ptes_none;    /* -1 when absent */
	/* config */
	char config_pattern[32];
	enum results_schedule config_schedule; /* sequential when absent (older files) */
	long config_reps;      /* -1 when absent */
	uint64_t config_seed;
	/* trials */
	struct results_trial *trials;
	size_t nr_trials;
};

/* Load and validate path. 0, or a negative errno with a message in err:
 * -ENOENT/-EACCES etc. for the file, -EFBIG over RESULTS_MAX_BYTES,
 * -EBADMSG for malformed JSON or a schema violation, -EPROTO for another
 * schema version, -ENODATA for a file without trials. */
int results_load(const char *path, struct results **out, char *err, size_t errsize);
/* The same from a buffer (the fuzz target's entry point); name is used in messages. */
int results_load_buffer(const char *buf, size_t len, const char *name, struct results **out,
			char *err, size_t errsize);
/* The bytes of path ("-": standard input) into a malloc'd *buf (NULL when
 * empty; free()), with results_load's checks and messages: a directory,
 * more than RESULTS_MAX_BYTES (a pipe too). For a caller that looks at the document
 * before it chooses a reader, so the file is read once (plot). */
int results_read_file(const char *path, char **buf, size_t *len, char *err, size_t errsize);
/* Another document's file (record's, collapse's) read so, once, and
 * parsed as rd_parse does: 0 with *doc, or -errno with err saying why,
 * after the file's name. */
int results_read_json(const char *path, json_t **doc, char *err, size_t errsize);
/* A document's reader: 0 or -errno with err saying why (a field's path). */
typedef int (*results_doc_reader)(json_t *doc, void *d, char *err, size_t errsize);
/* path read with results_read_json and its document handed to read, into
 * d: a reader's failure after the file's name ("PATH: $.x: missing"), out
 * of memory alone (the record and presence documents' loaders). */
int results_load_doc(const char *path, results_doc_reader read, void *d, char *err,
		     size_t errsize);
void results_free(struct results *r);
/* Any trial of r carries "placement" (files from issue 39 on). */
bool results_has_placements(const struct results *r);
/* The flat summary of r (host, thp and config fields) from its typed head,
 * as results_load fills it from the file: a document built in memory (run's
 * session) is analysed without writing and reading it back. */
void results_summarize_head(struct results *r);
/* The metric of a trial by name, or NULL when absent. */
const struct results_metric *results_trial_metric(const struct results_trial *t,
						  const char *name);


/* ---- the typed trial: building and writing ----------------------------- */


/* A trial with nothing measured yet (coverage NaN, seq -1). */
void results_trial_init(struct results_trial *t, int order, const char *pattern, uint64_t span,
			int rep);
/* Free what the trial owns (metrics, argv) and leave it as after init with
 * order 0. */
void results_trial_clear(struct results_trial *t);
/* metrics[name] = {value, source[, event, scale]}: event NULL and scale < 0
 * leave those out; a metric of the same name is replaced. Returns the stored
 * metric (to add a formula or a direction) or NULL: non-finite value (a metric
 * not measured is absent, never NaN), name or source too long, no memory. */
struct results_metric *results_trial_set_metric(struct results_trial *t, const char *name,
						double value, const char *source,
						const char *event, double scale);
/* Copy a command's argv (NULL-terminated) into the trial. 0 or -ENOMEM. */
int results_trial_set_argv(struct results_trial *t, char *const argv[]);
/* The folio histogram; coverage NaN = not applicable (written as null). */
void results_trial_set_hist(struct results_trial *t, const struct folio_hist *h,
			    double coverage);

/* The JSON of one trial (the reader's inverse); NULL on no memory. */
json_t *results_trial_json(const struct results_trial *t);
/* Append the trial's JSON to doc's "trials". 0 or -ENOMEM / -EINVAL. */
int results_doc_add_trial(json_t *doc, const struct results_trial *t);
/* Per-round times of an interleaved schedule: copy v[0..n) (ns_per_access
 * of each round) into the typed trial, replacing any before; the trial owns
 * them (results_trial_clear / results_free free them). 0, -EINVAL for n == 0,
 * n > RESULTS_MAX_ROUNDS or a non-finite or negative value, -ENOMEM. */
int results_trial_set_rounds(struct results_trial *t, const double *v, size_t n);
/* The writer's part: trial_obj.rounds = [v0, v1, ...] from the typed trial
 * (nothing when it has none; results_trial_json calls it). 0 or -ENOMEM. */
int results_trial_json_rounds(json_t *trial_obj, const struct results_trial *t);

#endif
