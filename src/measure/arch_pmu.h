/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The arch/ descriptions meet this machine's PMU: which description fits
 * the CPU (libpfm4's detected PMU first, then the descriptions' detect()
 * hooks), and the counters_specs of its metrics that a PMU here can count.
 * arch/ holds the tables and the CPU identification; this is the part that
 * needs libpfm4 and perf_event (counters.h).
 */
#ifndef ARCH_PMU_H
#define ARCH_PMU_H

#include <stddef.h>

#include "arch.h"
#include "counters.h"

/* The description for this CPU: libpfm4's detected PMU first, then the
 * detect() hooks. -ENODEV with 'why' when no description fits. */
int arch_pmu_detect(const struct arch_desc **out, char *why, size_t size);

/* d's event table for 'access' (arch_events_for) as this machine encodes
 * it: d->events (or d->store_events), its named events
 * bound to the PMU libpfm4 finds active among d's pfm_names (pfm: skx for
 * skl's table on a Skylake server; "" when none is: d's own name, encoded
 * only with LIBPFM_ENCODE_INACTIVE); or d->raw_events when libpfm4 has no
 * active PMU for d but d's detect() claims this CPU (Zen 4 Raphael; or
 * d->store_raw_events). */
const struct arch_event *arch_pmu_bind(const struct arch_desc *d, enum arch_access access,
				       char *pfm, size_t size);

/*
 * The counters_specs of d's PMU metrics for a thread pinned to 'cpu' (hybrid:
 * the core type of that cpu; cpu < 0: every PMU, metrics of the non-first
 * PMU suffixed "_<pmu>"). d NULL: arch_pmu_detect(). Returns the number of specs,
 * or negative errno with the reason in 'why' when no PMU counter opens here
 * (counters_probe_hw's errno: -ENOENT in a VM without a vPMU) or no description
 * fits (-ENODEV). Strings point into static tables or the 'names' and
 * 'events' storage. The events are arch_pmu_bind()'s table for 'access',
 * bound: on Intel the store pattern's walks are DTLB_STORE_MISSES'.
 */
#define ARCH_MAX_SPECS 16
#define ARCH_EVENT_MAX 320
struct arch_specs {
	const struct arch_desc *desc;
	int n;
	struct counters_spec spec[ARCH_MAX_SPECS];
	char names[ARCH_MAX_SPECS][48]; /* suffixed metric names (hybrid, cpu < 0) */
	char events[ARCH_MAX_SPECS][ARCH_EVENT_MAX]; /* events bound to another PMU name */
	/* d's events this PMU does not count (arch_event_counted() == 0): left
	 * out of spec[], named here so the caller can say which */
	const struct arch_event *missing[ARCH_MAX_SPECS];
	int nr_missing;
};
int arch_pmu_specs(const struct arch_desc *d, enum arch_access access, int cpu,
		   struct arch_specs *out, char *why, size_t size);

#endif
