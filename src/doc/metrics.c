// SPDX-License-Identifier: GPL-2.0-or-later
#include "metrics.h"

#include <stddef.h>
#include <string.h>

#define LOWER METRICS_BETTER_LOWER
#define NONE METRICS_BETTER_NONE

/* Primary metric by strength of evidence: cycles spent walking say most about
 * translation cost, completed walks next, first-level misses (many hit the
 * second-level TLB) after that; time per access is what any machine can
 * measure, but mixes translation with cache and memory. A command (run --
 * CMD) is judged by what its user sees (issue 42): the user's own --metric
 * (analyze's rule, not a row), else wall time; its hardware TLB counts per
 * CPU second are analysed and shown, but the verdict does not rest on them
 * unless analyze --metric names one. */
const struct metrics_def metrics_table[] = {
	/* name                  unit (NULL: the name)       per_acc better prim cmd source */
	{ "ns_per_access",       "ns/access",                false, LOWER, 4, 0, "timing" },
	{ "wall_ns_per_access",  "ns/access (wall clock)",   false, LOWER, 0, 0, "timing" },
	{ "cycles",              "cycles/access",            true,  LOWER, 0, 0, "pmu" },
	{ "instructions",        "instructions/access",      true,  NONE,  0, 0, "pmu" },
	{ "dtlb_misses",         "dTLB misses/access",       true,  LOWER, 3, 0, "pmu" },
	{ "stlb_hits",           "STLB hits/access",         true,  NONE,  0, 0, "pmu" },
	{ "walks",               "walks/access",             true,  LOWER, 2, 0, "pmu" },
	{ "walk_cycles",         "walk cycles/access",       true,  LOWER, 1, 0, "pmu" },
	{ "coalesced_hits",      "coalesced hits/access",    true,  NONE,  0, 0, "pmu" },
	{ "mmu_overhead",        NULL,    false, LOWER, 0, 0, "pmu" },
	{ "page_faults",         "page faults",              false, LOWER, 0, 0, "sw" },
	{ "fault_ns",            "ns in faults",             false, LOWER, 0, 0, "timing" },
	{ "populate_ns",         "ns to populate the span",  false, LOWER, 0, 0, "timing" },
	{ "anon_fault_alloc",    "mTHP fault allocations",   false, NONE,  0, 0, "kernel" },
	{ "anon_fault_fallback", "mTHP fault fallbacks",     false, LOWER, 0, 0, "kernel" },
	{ "rss_bytes",           "RSS bytes",                false, LOWER, 0, 0, "kernel" },
	/* listed after the ones above, by name, as compare always did */
	{ "context_switches",    "context switches",         false, NONE,  0, 0, "sw" },
	{ "disturbed_rounds",    "rounds left out (steal)",  false, NONE,  0, 0, "kernel" },
	{ "dtlb_accesses",       NULL,     false,  NONE,  0, 0, "pmu" },
	{ "dtlb_miss_ratio",     NULL,   false, NONE,  0, 0, "pmu" },
	{ "dtlb_misses_per_cpu_s", "dTLB misses per CPU second", false, NONE, 0, 0, "pmu" },
	{ "dtlb_misses_per_kaccess", NULL, false, NONE, 0, 0, "pmu" },
	{ "involuntary_switches", "involuntary context switches", false, NONE, 0, 0, "kernel" },
	{ "ipc",                 NULL,   false, NONE,  0, 0, "pmu" },
	{ "l2_tlb_refills",      NULL,    false,  NONE,  0, 0, "pmu" },
	{ "loop_page_faults",    "page faults in the loop",  false, NONE,  0, 0, "sw" },
	{ "major_faults",        "major faults (rusage)",    false, NONE,  0, 0, "kernel" },
	{ "max_rss_bytes",       "peak RSS bytes (rusage)",  false, NONE,  0, 0, "kernel" },
	{ "minor_faults",        "minor faults (rusage)",    false, NONE,  0, 0, "kernel" },
	{ "steal_ns",            "ns stolen by the hypervisor", false, NONE, 0, 0, "kernel" },
	{ "sys_ns",              "ns of system CPU per run", false, NONE,  0, 0, "kernel" },
	{ "user_ns",             "ns of user CPU per run",   false, NONE,  0, 0, "kernel" },
	{ "voluntary_switches",  "voluntary context switches", false, NONE, 0, 0, "kernel" },
	{ "wall_ns",             "ns of wall time per run",  false, NONE,  0, 1, "timing" },
	{ "walk_cycles_per_access", NULL, false, NONE, 0, 0, "pmu" },
	{ "walk_cycles_per_cpu_s", "walk cycles per CPU second", false, NONE, 0, 0, "pmu" },
	/* Arm DTLB_WALK_PERCYC: walks in progress summed over cycles (occupancy,
	 * Intel's WALK_PENDING), not cycles with a walk in flight: its own name,
	 * so mmu_overhead never reads it as a share of cycles */
	{ "walk_pending",        "walks in flight x cycles/access", true, LOWER, 0, 0, "pmu" },
	{ "walks_per_cpu_s",     "walks per CPU second",     false, NONE,  0, 0, "pmu" },
	{ "walks_per_kaccess",   NULL,  false, NONE,  0, 0, "pmu" },
	{ "watch_cpu_ns",        "ns of CPU spent scanning", false, NONE,  0, 0, "kernel" },
	/* the translation model (src/analysis/tlb_model.h) on the trial's
	 * layout: predictions, never evidence, so never primary */
	{ "tlb_entries_l1",      "L1 TLB entries needed (model)", false, LOWER, 0, 0, "model" },
	{ "tlb_entries_l2",      "L2 TLB entries needed (model)", false, LOWER, 0, 0, "model" },
	{ "tlb_miss_ratio_model", "TLB miss ratio (model)",  false, LOWER, 0, 0, "model" },
	{ NULL },
};

const struct metrics_def *metrics_find(const char *name)
{
	const struct metrics_def *m;

	for (m = metrics_table; name && m->name; m++)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

int metrics_rank(const char *name)
{
	const struct metrics_def *m = metrics_find(name);
	int n = 0;

	if (m)
		return (int)(m - metrics_table);
	while (metrics_table[n].name)
		n++;
	return n;
}

int metrics_primary_candidates(bool command, const struct metrics_def **out, int max)
{
	const struct metrics_def *m;
	int n = 0, rank, nr_rows = metrics_rank(NULL);

	for (rank = 1; rank <= nr_rows; rank++)
		for (m = metrics_table; m->name; m++)
			if ((command ? m->primary_command : m->primary) == rank && n < max)
				out[n++] = m;
	return n;
}
