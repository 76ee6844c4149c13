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

#endif
