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


/* ---- results writer (run) ------------------------------------------------ */

#include "folio.h"

/* A new results document: schema, tool, host, thp, config (references to the
 * three objects are stolen) and an empty "trials" array. */
json_t *results_doc_new(json_t *host, json_t *thp, json_t *config);
/* One trial object with an empty "metrics" object; hist may be NULL (no
 * scan: "folios" is then absent, never a made-up histogram). */
json_t *results_trial_new(int order, const char *pattern, unsigned long long span, int rep,
			  unsigned long long accesses, const struct folio_hist *hist,
			  double coverage);
/* metrics[name] = {value, source[, event, scale]}; event NULL and scale < 0
 * leave those keys out. Returns 0 or -ENOMEM / -EINVAL (non-finite value). */
int results_metric_set(json_t *trial, const char *name, double value, const char *source,
		       const char *event, double scale);
int results_trial_append(json_t *doc, json_t *trial); /* steals trial */

#endif
