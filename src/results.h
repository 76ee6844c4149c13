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
/* The "host" object; pmu_reason NULL when a PMU is available. */
json_t *results_host_json(const struct topo_info *t, const struct thp_settings *s,
			  bool pmu_available, json_t *pmu_models, const char *pmu_reason);
/* The "thp" object: enabled, defrag, sizes[], khugepaged{}. With stats=true
 * each size carries its stats/ counters. */
json_t *results_thp_json(const struct thp_settings *s, bool stats);

/* ---- Reader: a validated in-memory model of a results file ---------------
 * results_load() parses and checks a whole document before anything uses
 * it: every error names the problem and, for a field, its JSON path
 * ("trials[3].metrics.walks.value"). The model keeps what analysis needs;
 * unknown keys are ignored (more may be added, DESIGN.md).
 */
#include <stddef.h>
#include <stdint.h>

#define RESULTS_MAX_BYTES (64u << 20)   /* a sweep of 10^5 trials is ~50 MiB */
#define RESULTS_MAX_ORDER 20            /* folio orders above this are nonsense on any arch */
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
	char source[16];   /* pmu | sw | timing | kernel | pagemap | model */
	char event[128];   /* "" when absent */
	double value;
	double scale;      /* multiplexing scale (enabled/running), 1.0 when absent */
};

struct results_trial {
	int order;
	char pattern[32];
	uint64_t span;
	int rep;
	uint64_t accesses;     /* 0 when absent (sparse trials need none) */
	bool sparse;           /* "pattern": "sparse", or a "sparse" object */
	bool has_folios;       /* folio verification present (needs root) */
	double coverage;       /* NaN when not verified */
	uint64_t hist[RESULTS_MAX_ORDER + 1]; /* base pages mapped by folios of each order */
	bool multiplexed;      /* any counter ran less than the whole time */
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
	struct results_size sizes[RESULTS_MAX_ORDER + 1];
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


/* ---- results writer (run) ------------------------------------------------ */

#include "folio.h"

/* A new results document: schema, tool, host, thp, config (references to the
 * three objects are stolen) and an empty "trials" array. */
json_t *results_doc_new(json_t *host, json_t *thp, json_t *config);
/* One trial object with an empty "metrics" object; hist may be NULL (no
 * scan: "folios" is then absent, never a made-up histogram); a NaN coverage
 * is written as null (a histogram with nothing to cover, e.g. sparse). */
json_t *results_trial_new(int order, const char *pattern, unsigned long long span, int rep,
			  unsigned long long accesses, const struct folio_hist *hist,
			  double coverage);
/* metrics[name] = {value, source[, event, scale]}; event NULL and scale < 0
 * leave those keys out. Returns 0 or -ENOMEM / -EINVAL (non-finite value). */
int results_metric_set(json_t *trial, const char *name, double value, const char *source,
		       const char *event, double scale);
int results_trial_append(json_t *doc, json_t *trial); /* steals trial */
/* Per-round times of an interleaved schedule: copy v[0..n) (ns_per_access
 * of each round) into the typed trial, replacing any before; the trial owns
 * them (results_free frees them). 0, -EINVAL for n == 0, n >
 * RESULTS_MAX_ROUNDS or a non-finite or negative value, -ENOMEM. */
int results_trial_set_rounds(struct results_trial *t, const double *v, size_t n);
/* The writer's part: trial_obj.rounds = [v0, v1, ...] from the typed trial
 * (nothing when it has none). 0 or -ENOMEM. */
int results_trial_json_rounds(json_t *trial_obj, const struct results_trial *t);
/* config.schedule = "interleaved" | "sequential". 0 or -EINVAL / -ENOMEM. */
int results_config_set_schedule(json_t *config, enum results_schedule s);

#endif
