/*
 * The result model and its JSON (DESIGN.md, "Results file"). The builders
 * here describe the host and the THP settings once, for every document that
 * carries them (info, results, collapse).
 */
#ifndef RESULTS_H
#define RESULTS_H

#include <jansson.h>
#include <stdbool.h>

#include "thp.h"
#include "topo.h"

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

/* Fill h from the topology and the THP settings, probing the PMU here. */
void results_host_describe(struct results_host *h, const struct topo_info *t,
			   const struct thp_settings *s);
/* The "host" object of h; NULL on no memory. */
json_t *results_host_to_json(const struct results_host *h);
/* describe + to_json: the "host" object of this machine now. */
json_t *results_host_json(const struct topo_info *t, const struct thp_settings *s);
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
 * unknown keys are ignored (more may be added, DESIGN.md).
 */
#include <stddef.h>
#include <stdint.h>

#include "folio.h" /* FOLIO_MAX_ORDER */

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
	uint64_t anon_bytes, file_bytes;      /* command: the sample the histogram is from */
	bool multiplexed;      /* any counter ran less than the whole time */
	bool has_multiplexed;  /* "multiplexed" written (hardware counters were read) */
	struct results_metric *metrics;
	size_t nr_metrics;
	/* "rounds": ns_per_access of each round of an interleaved schedule;
	 * round i of every order at one (span, rep) was timed in the same
	 * round, so the rounds pair across orders. NULL / 0 when absent. */
	double *rounds;
	size_t nr_rounds;
};

struct results_size {
	int order;
	char enabled[16];      /* "" when the size has no anon control */
};

struct results {
	char path[256];
	char tool_version[32];
	/* host */
	char kernel[64];
	char arch[32];
	char cpu_vendor[64];
	char cpu_model[128];
	bool virtualized;
	bool emulated;         /* host.emulated: QEMU TCG, timing means nothing */
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
void results_free(struct results *r);
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

/* A new results document: schema, tool, host, thp, config (references to the
 * three objects are stolen) and an empty "trials" array. */
json_t *results_doc_new(json_t *host, json_t *thp, json_t *config);
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
/* config.schedule = "interleaved" | "sequential". 0 or -EINVAL / -ENOMEM. */
int results_config_set_schedule(json_t *config, enum results_schedule s);

#endif
