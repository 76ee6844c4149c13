// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every CPU family's event set, encoded by the installed libpfm4 with
 * LIBPFM_ENCODE_INACTIVE=1 (libpfm4's tests/validate_*.c habit), must equal
 * the vendor's event code and umask. Each row names its source. The x86 rows
 * run in the x86 build, the arm64 rows in the arm64 build (under qemu-user).
 * Also: descriptor look-up, derived-metric formulas, the no-PMU reason.
 */
#include <perfmon/pfmlib.h>
#include <stdlib.h>

#include "arch.h"
#include "arch_pmu.h"
#include "bench.h"
#include "counters.h"
#include "harness.h"
#include "kernel.h"
#include "metrics.h"
#include "mthpscope.h"

struct row {
	const char *desc, *metric, *pmu; /* pmu: hybrid sysfs PMU, else NULL */
	unsigned long long config;
	const char *source;
	bool store; /* a row of the store pattern's set (arch_desc.store_events) */
};

#define INTEL_ARCH "Intel SDM Vol. 3B, architectural events table: 0x3c/0x00, 0xc0/0x00"
#define AMD_PPR "AMD PPR PMCx045 L1_DTLB_MISS; perf pmu-events amdzen*/memory.json"
#define ARM_ARM "Arm ARM DDI 0487, common PMU event numbers"

static const struct row rows[] = {
#if defined(__x86_64__) || defined(__i386__)
	{ "skl", "walks", NULL, 0x0e08, "perf skylake/virtual-memory.json DTLB_LOAD_MISSES.WALK_COMPLETED 0x08/0x0e" },
	{ "skl", "stlb_hits", NULL, 0x2008, "perf skylake DTLB_LOAD_MISSES.STLB_HIT 0x08/0x20" },
	{ "skl", "walk_cycles", NULL, 0x1001008, "perf skylake DTLB_LOAD_MISSES.WALK_ACTIVE 0x08/0x10 cmask 1" },
	{ "skl", "cycles", NULL, 0x3c, INTEL_ARCH },
	{ "skl", "instructions", NULL, 0xc0, INTEL_ARCH },
	{ "icl", "walks", NULL, 0x0e08, "perf icelake/virtual-memory.json DTLB_LOAD_MISSES.WALK_COMPLETED 0x08/0x0e" },
	{ "icl", "stlb_hits", NULL, 0x2008, "perf icelake DTLB_LOAD_MISSES.STLB_HIT 0x08/0x20" },
	{ "icl", "walk_cycles", NULL, 0x1001008, "perf icelake DTLB_LOAD_MISSES.WALK_ACTIVE 0x08/0x10 cmask 1" },
	{ "icl", "cycles", NULL, 0x3c, INTEL_ARCH },
	{ "icl", "instructions", NULL, 0xc0, INTEL_ARCH },
	{ "spr", "walks", NULL, 0x0e12, "perf sapphirerapids/virtual-memory.json WALK_COMPLETED 0x12/0x0e" },
	{ "spr", "stlb_hits", NULL, 0x2012, "perf sapphirerapids STLB_HIT 0x12/0x20" },
	{ "spr", "walk_cycles", NULL, 0x1001012, "perf sapphirerapids WALK_ACTIVE 0x12/0x10 cmask 1" },
	{ "spr", "cycles", NULL, 0x3c, INTEL_ARCH },
	{ "spr", "instructions", NULL, 0xc0, INTEL_ARCH },
	{ "gnr", "walks", NULL, 0x0e12, "intel/perfmon GNR graniterapids_core.json V1.21 DTLB_LOAD_MISSES.WALK_COMPLETED 0x12/0x0e" },
	{ "gnr", "stlb_hits", NULL, 0x2012, "intel/perfmon GNR V1.21 DTLB_LOAD_MISSES.STLB_HIT 0x12/0x20" },
	{ "gnr", "walk_cycles", NULL, 0x1001012, "intel/perfmon GNR V1.21 DTLB_LOAD_MISSES.WALK_ACTIVE 0x12/0x10 CounterMask 1" },
	{ "gnr", "cycles", NULL, 0x3c, INTEL_ARCH },
	{ "gnr", "instructions", NULL, 0xc0, INTEL_ARCH },
	{ "adl", "walks", "cpu_core", 0x0e12, "perf alderlake/virtual-memory.json cpu_core WALK_COMPLETED 0x12/0x0e" },
	{ "adl", "stlb_hits", "cpu_core", 0x2012, "perf alderlake cpu_core STLB_HIT 0x12/0x20" },
	{ "adl", "walk_cycles", "cpu_core", 0x1001012, "perf alderlake cpu_core WALK_ACTIVE 0x12/0x10 cmask 1" },
	{ "adl", "cycles", "cpu_core", 0x3c, INTEL_ARCH },
	{ "adl", "instructions", "cpu_core", 0xc0, INTEL_ARCH },
	{ "adl", "walks", "cpu_atom", 0x0e08, "perf alderlake cpu_atom WALK_COMPLETED 0x08/0x0e" },
	{ "adl", "cycles", "cpu_atom", 0x3c, INTEL_ARCH },
	{ "adl", "instructions", "cpu_atom", 0xc0, INTEL_ARCH },
	/* The store pattern's sets: DTLB_STORE_MISSES, 0x49 before Golden
	 * Cove, 0x13 from it; libpfm4 4.13 intel_skl_events.h, intel_icl_events.h,
	 * intel_spr_events.h encode the named ones to these. */
#define ST(d, m, pmu, config, src) { d, m, pmu, config, src, true }
	ST("skl", "walks", NULL, 0x0e49, "perf skylake/virtual-memory.json DTLB_STORE_MISSES.WALK_COMPLETED 0x49/0x0e"),
	ST("skl", "stlb_hits", NULL, 0x2049, "perf skylake DTLB_STORE_MISSES.STLB_HIT 0x49/0x20"),
	ST("skl", "walk_cycles", NULL, 0x1001049, "perf skylake DTLB_STORE_MISSES.WALK_ACTIVE 0x49/0x10 cmask 1"),
	ST("skl", "cycles", NULL, 0x3c, INTEL_ARCH),
	ST("skl", "instructions", NULL, 0xc0, INTEL_ARCH),
	ST("icl", "walks", NULL, 0x0e49, "perf icelake/virtual-memory.json DTLB_STORE_MISSES.WALK_COMPLETED 0x49/0x0e"),
	ST("icl", "stlb_hits", NULL, 0x2049, "perf icelake DTLB_STORE_MISSES.STLB_HIT 0x49/0x20"),
	ST("icl", "walk_cycles", NULL, 0x1001049, "perf icelake DTLB_STORE_MISSES.WALK_ACTIVE 0x49/0x10 cmask 1"),
	ST("icl", "cycles", NULL, 0x3c, INTEL_ARCH),
	ST("icl", "instructions", NULL, 0xc0, INTEL_ARCH),
	ST("spr", "walks", NULL, 0x0e13, "perf sapphirerapids/virtual-memory.json DTLB_STORE_MISSES.WALK_COMPLETED 0x13/0x0e"),
	ST("spr", "stlb_hits", NULL, 0x2013, "perf sapphirerapids DTLB_STORE_MISSES.STLB_HIT 0x13/0x20"),
	ST("spr", "walk_cycles", NULL, 0x1001013, "perf sapphirerapids DTLB_STORE_MISSES.WALK_ACTIVE 0x13/0x10 cmask 1"),
	ST("spr", "cycles", NULL, 0x3c, INTEL_ARCH),
	ST("spr", "instructions", NULL, 0xc0, INTEL_ARCH),
	ST("gnr", "walks", NULL, 0x0e13, "intel/perfmon GNR V1.21 DTLB_STORE_MISSES.WALK_COMPLETED 0x13/0x0e"),
	ST("gnr", "stlb_hits", NULL, 0x2013, "intel/perfmon GNR V1.21 DTLB_STORE_MISSES.STLB_HIT 0x13/0x20"),
	ST("gnr", "walk_cycles", NULL, 0x1001013, "intel/perfmon GNR V1.21 DTLB_STORE_MISSES.WALK_ACTIVE 0x13/0x10 CounterMask 1"),
	ST("gnr", "cycles", NULL, 0x3c, INTEL_ARCH),
	ST("gnr", "instructions", NULL, 0xc0, INTEL_ARCH),
	ST("adl", "walks", "cpu_core", 0x0e13, "perf alderlake cpu_core DTLB_STORE_MISSES.WALK_COMPLETED 0x13/0x0e"),
	ST("adl", "stlb_hits", "cpu_core", 0x2013, "perf alderlake cpu_core DTLB_STORE_MISSES.STLB_HIT 0x13/0x20"),
	ST("adl", "walk_cycles", "cpu_core", 0x1001013, "perf alderlake cpu_core DTLB_STORE_MISSES.WALK_ACTIVE 0x13/0x10 cmask 1"),
	ST("adl", "cycles", "cpu_core", 0x3c, INTEL_ARCH),
	ST("adl", "instructions", "cpu_core", 0xc0, INTEL_ARCH),
	ST("adl", "walks", "cpu_atom", 0x0e49, "perf alderlake cpu_atom DTLB_STORE_MISSES.WALK_COMPLETED 0x49/0x0e"),
	ST("adl", "cycles", "cpu_atom", 0x3c, INTEL_ARCH),
	ST("adl", "instructions", "cpu_atom", 0xc0, INTEL_ARCH),
#define ZEN(d)                                                                              \
	{ d, "dtlb_misses", NULL, 0xff45, AMD_PPR " umask 0xff (all)" },                   \
	{ d, "stlb_hits", NULL, 0x0f45, AMD_PPR " umasks 0x01|0x02|0x04|0x08 (L2 hits)" },  \
	{ d, "walks", NULL, 0xf045, AMD_PPR " umasks 0x10|0x20|0x40|0x80 (L2 misses)" },    \
	{ d, "coalesced_hits", NULL, 0x0245, AMD_PPR " umask 0x02 TlbReloadCoalescedPageHit" }, \
	{ d, "cycles", NULL, 0x76, "AMD PPR PMCx076 cycles not in halt" },                 \
	{ d, "instructions", NULL, 0xc0, "AMD PPR PMCx0C0 retired instructions" }
	ZEN("amd64_fam17h_zen2"),
	ZEN("amd64_fam19h_zen3"),
	ZEN("amd64_fam19h_zen4"),
	ZEN("amd64_fam1ah_zen5"),
#elif defined(__aarch64__)
#define ARM(d)                                                                   \
	{ d, "dtlb_misses", NULL, 0x05, ARM_ARM " L1D_TLB_REFILL" },            \
	{ d, "dtlb_accesses", NULL, 0x25, ARM_ARM " L1D_TLB" },                 \
	{ d, "l2_tlb_refills", NULL, 0x2d, ARM_ARM " L2D_TLB_REFILL" },         \
	{ d, "walks", NULL, 0x34, ARM_ARM " DTLB_WALK" },                       \
	{ d, "cycles", NULL, 0x11, ARM_ARM " CPU_CYCLES" },                     \
	{ d, "instructions", NULL, 0x08, ARM_ARM " INST_RETIRED" }
#define PERCYC(d) { d, "walk_pending", NULL, 0x8128, ARM_ARM " DTLB_WALK_PERCYC; perf neoverse-n3 tlb.json" }
	ARM("arm_n1"), ARM("arm_n2"), ARM("arm_v1"), ARM("arm_v2"),
	ARM("arm_n3"), PERCYC("arm_n3"), ARM("arm_v3"), PERCYC("arm_v3"),
	ARM("arm_ac76"), ARM("arm_ac720"), PERCYC("arm_ac720"),
	ARM("arm_pmuv3"), /* any other PMUv3: the architected common events */
#endif
};

static const struct row *find_row(const char *desc, const struct arch_event *e, bool store)
{
	size_t i;

	for (i = 0; i < MS_ARRAY_SIZE(rows); i++)
		if (rows[i].store == store && !strcmp(rows[i].desc, desc) &&
		    !strcmp(rows[i].metric, e->metric) &&
		    (!rows[i].pmu ? !e->pmu : e->pmu && !strcmp(rows[i].pmu, e->pmu)))
			return &rows[i];
	return NULL;
}

/* One event resolves and equals its row. */
static void check_event(const struct arch_desc *d, const struct arch_event *e, bool store)
{
	const struct row *r = find_row(d->name, e, store);
	struct perf_event_attr a;
	char pmu[64];
	unsigned long long raw;
	int ret;

	printf("  %-18s %-14s %s%s\n", d->name, e->metric, e->event, store ? " (stores)" : "");
	if (!r) {
		FAIL_AT("no expected-encoding row for %s %s%s", d->name, e->metric,
			store ? " (stores)" : "");
		return;
	}
	ret = counters_encode(e->event, false, &a);
	if (e->pmu) {
		/* hybrid raw: the config is fixed, the type is the host's */
		EXPECT_EQ(arch_parse_raw(e->event, pmu, sizeof(pmu), &raw), 0);
		EXPECT_STREQ(pmu, e->pmu);
		EXPECT_EQ(raw, r->config);
		if (ret == 0)
			EXPECT_EQ(a.config, r->config);
		else
			EXPECT_EQ(ret, -ENOMSG); /* no such PMU on this host */
	} else {
		if (ret)
			printf("    %s\n", counters_encode_detail());
		EXPECT_EQ(ret, 0);
		EXPECT_EQ(a.type, PERF_TYPE_RAW);
		EXPECT_EQ(a.config, r->config);
		EXPECT_EQ(a.config1, 0);
		EXPECT_STREQ(counters_attr_source(&a), "pmu");
	}
	EXPECT_EQ(a.exclude_kernel, ret == 0 ? 1 : 0);
}

/* Every event of every compiled description, of its raw fallback table and
 * of its store pattern's tables, resolves and equals its row. */
TEST(every_family_encodes_vendor_codes)
{
	const struct arch_desc *const *d;
	const struct arch_event *e;
	int checked = 0;

	for (d = arch_descs; *d; d++) {
		for (e = (*d)->events; e->metric; e++, checked++)
			check_event(*d, e, false);
		for (e = (*d)->raw_events; e && e->metric; e++, checked++)
			check_event(*d, e, false);
		for (e = (*d)->store_events; e && e->metric; e++, checked++)
			check_event(*d, e, true);
		for (e = (*d)->store_raw_events; e && e->metric; e++, checked++)
			check_event(*d, e, true);
	}
	printf("  %d events checked\n", checked);
	EXPECT_TRUE(checked >= (int)MS_ARRAY_SIZE(rows));
}

/* Two tables count the same metrics (and PMUs), in the same order. */
static void expect_same_metrics(const struct arch_event *a, const struct arch_event *b)
{
	for (; a->metric && b->metric; a++, b++) {
		EXPECT_STREQ(a->metric, b->metric);
		EXPECT_STREQ(a->pmu ? a->pmu : "-", b->pmu ? b->pmu : "-");
	}
	EXPECT_TRUE(!a->metric && !b->metric);
}

/* A raw fallback table counts the same metrics as the named one, in the
 * same order; a description that detect()s a CPU and names its events
 * has one (a CPU libpfm4 does not know cannot encode the names). */
TEST(raw_fallbacks_match_named_sets)
{
	const struct arch_desc *const *d;
	int with_raw = 0;

	for (d = arch_descs; *d; d++) {
		const struct arch_event *e, *r = (*d)->raw_events;
		bool named = false;

		for (e = (*d)->events; e->metric; e++)
			named |= strstr(e->event, "::") != NULL;
		if ((*d)->detect && named && !r)
			FAIL_AT("%s: detect() without raw_events", (*d)->name);
		/* the store side needs its raw codes wherever the load side does */
		EXPECT_EQ(!!(*d)->store_raw_events, r && (*d)->store_events);
		if (!r)
			continue;
		with_raw++;
		expect_same_metrics(r, (*d)->events);
		if ((*d)->store_raw_events)
			expect_same_metrics((*d)->store_raw_events, (*d)->store_events);
	}
#if defined(__x86_64__)
	EXPECT_EQ(with_raw, 2); /* spr (Emerald Rapids), zen4 (Raphael, Phoenix, Bergamo) */
#endif
}

#if defined(__x86_64__)
/* detect(): the CPU ranges of arch/tlb_geometry.c (Linux intel-family.h,
 * bsp_init_amd). A NULL row is a CPU libpfm4 4.13 identifies itself (Zen 3,
 * Genoa is both) or one no table claims. */
TEST(detect_by_cpuid)
{
	static const struct {
		const char *vendor;
		int family, model;
		const char *want;
	} t[] = {
		{ "AuthenticAMD", 0x19, 0x00, NULL }, /* Zen 3 Milan: libpfm4's zen3 */
		{ "AuthenticAMD", 0x19, 0x0f, NULL },
		{ "AuthenticAMD", 0x19, 0x21, NULL }, /* Vermeer */
		{ "AuthenticAMD", 0x19, 0x50, NULL }, /* Cezanne */
		{ "AuthenticAMD", 0x19, 0x5f, NULL },
		{ "AuthenticAMD", 0x19, 0x10, "amd64_fam19h_zen4" },
		{ "AuthenticAMD", 0x19, 0x11, "amd64_fam19h_zen4" }, /* Genoa */
		{ "AuthenticAMD", 0x19, 0x1f, "amd64_fam19h_zen4" },
		{ "AuthenticAMD", 0x19, 0x61, "amd64_fam19h_zen4" }, /* Raphael */
		{ "AuthenticAMD", 0x19, 0x74, "amd64_fam19h_zen4" }, /* Phoenix */
		{ "AuthenticAMD", 0x19, 0xa0, "amd64_fam19h_zen4" }, /* Bergamo */
		{ "AuthenticAMD", 0x19, 0xaf, "amd64_fam19h_zen4" },
		{ "AuthenticAMD", 0x19, 0xb0, NULL },
		{ "AuthenticAMD", 0x1a, 0x02, "amd64_fam1ah_zen5" },
		{ "AuthenticAMD", 0x1a, 0x44, "amd64_fam1ah_zen5" },
		{ "AuthenticAMD", 0x1a, 0x50, NULL }, /* Zen 6 (bsp_init_amd) */
		{ "AuthenticAMD", 0x17, 0x31, NULL }, /* Rome: libpfm4's zen2 */
		{ "GenuineIntel", 6, 0x8f, "spr" },
		{ "GenuineIntel", 6, 0xcf, "spr" },   /* Emerald Rapids */
		{ "GenuineIntel", 6, 0xad, "gnr" },
		{ "GenuineIntel", 6, 0xae, "gnr" },
		{ "GenuineIntel", 6, 0x97, "adl" },
		{ "GenuineIntel", 6, 0xbf, "adl" },
		{ "GenuineIntel", 6, 0xbe, NULL },    /* ADL-N: E-cores only */
		{ "GenuineIntel", 6, 0x55, NULL },    /* Skylake-SP: libpfm4's skx */
		{ "HygonGenuine", 0x18, 0x00, NULL },
	};
	size_t i;

	for (i = 0; i < MS_ARRAY_SIZE(t); i++) {
		struct arch_cpu c = { .family = t[i].family, .model = t[i].model,
				      .implementer = -1, .part = -1 };
		const struct arch_desc *d;

		snprintf(c.vendor, sizeof(c.vendor), "%s", t[i].vendor);
		d = arch_detect(&c);
		printf("  %s %#x %#x: %s\n", t[i].vendor, t[i].family, t[i].model,
		       d ? d->name : "-");
		EXPECT_STREQ(d ? d->name : "-", t[i].want ? t[i].want : "-");
	}
}
#endif

/* libpfm4 (4.13) reports a Skylake server as skx, a Cascade Lake as clx, an
 * Ice Lake server as icx, and encodes no event of an inactive PMU without
 * LIBPFM_ENCODE_INACTIVE: 'run' binds the named events to the PMU found
 * active. Each alias a description lists must encode every named event to
 * the same code as the description's own name (the same libpfm4 table). */
static bool pfm_knows(const char *name)
{
	pfm_pmu_t p;

	pfm_for_all_pmus(p) {
		pfm_pmu_info_t info = { .size = sizeof(info) };

		if (pfm_get_pmu_info(p, &info) == PFM_SUCCESS && !strcmp(info.name, name))
			return true;
	}
	return false;
}

/* The named events of one table bound to the alias n: each encodes to the
 * same code as under the description's name. Returns how many were bound. */
static int bind_table(const struct arch_desc *d, const char *n, const struct arch_event *e)
{
	int bound = 0;

	for (; e && e->metric; e++) {
		struct perf_event_attr a, b;
		char buf[320];
		const char *ev = arch_event_bind(d, e->event, n, buf, sizeof(buf));

		EXPECT_TRUE(ev != NULL);
		if (!ev || ev == e->event)
			continue; /* raw or hybrid: nothing to bind */
		printf("  %s\n", ev);
		EXPECT_EQ(strncmp(ev, n, strlen(n)), 0);
		EXPECT_EQ(counters_encode(e->event, false, &a), 0);
		EXPECT_EQ(counters_encode(ev, false, &b), 0);
		EXPECT_EQ(a.config, b.config);
		bound++;
	}
	return bound;
}

TEST(aliases_bind_to_the_same_codes)
{
	const struct arch_desc *const *d;
	int bound = 0;

	ASSERT_EQ(counters_pfm_init(), 0);
	for (d = arch_descs; *d; d++) {
		const char *const *n;

		for (n = (*d)->pfm_names; *n; n++) {
			if (!strcmp(*n, (*d)->name) || !pfm_knows(*n))
				continue; /* an upstream name this libpfm4 lacks */
			bound += bind_table(*d, *n, (*d)->events);
			bound += bind_table(*d, *n, (*d)->store_events);
		}
	}
#if defined(__x86_64__)
	/* skx, clx: skl's five and its store side's five; icx: icl's */
	EXPECT_EQ(bound, 2 * (5 + 5) + (5 + 5));
#endif
}

/* The store pattern's set (Intel: DTLB_STORE_MISSES) counts the same
 * metrics as the loads' set, so the two patterns' trials read alike; and
 * where a family has one, its walks are not the loads' walks. */
TEST(store_sets_match_load_sets)
{
	const struct arch_desc *const *d;
	int with_store = 0;

	for (d = arch_descs; *d; d++) {
		if (!(*d)->store_events)
			continue;
		with_store++;
		expect_same_metrics((*d)->store_events, (*d)->events);
		EXPECT_TRUE(strcmp((*d)->store_events[0].event, (*d)->events[0].event) != 0);
	}
#if defined(__x86_64__)
	EXPECT_EQ(with_store, 5); /* skl, icl, spr, gnr, adl; AMD's PMCx045 counts stores */
#elif defined(__aarch64__)
	EXPECT_EQ(with_store, 0); /* L1D_TLB_REFILL, L2D_TLB_REFILL, DTLB_WALK count stores */
#endif
}

/* The config of 'metric' (the first PMU's) in a table, 0 when absent. */
static unsigned long long table_config(const struct arch_event *e, const char *metric)
{
	struct perf_event_attr a;
	char pmu[64];
	unsigned long long raw;

	for (; e && e->metric; e++) {
		if (strcmp(e->metric, metric))
			continue;
		if (!arch_parse_raw(e->event, pmu, sizeof(pmu), &raw))
			return raw;
		return counters_encode(e->event, false, &a) ? 0 : a.config;
	}
	return 0;
}

/* What a trial counts follows its pattern: the store pattern's kernel gets
 * the stores' events on an Intel description (what arch_pmu_bind hands
 * bench, as on the machine), every other kernel the loads'; on a family
 * whose events count stores (AMD, Arm) every kernel gets the one set. */
TEST(store_pattern_selects_store_events)
{
	static const struct {
		const char *desc, *metric;
		unsigned long long loads, stores;
	} t[] = {
#if defined(__x86_64__)
		{ "skl", "walks", 0x0e08, 0x0e49 },
		{ "skl", "walk_cycles", 0x1001008, 0x1001049 },
		{ "icl", "stlb_hits", 0x2008, 0x2049 },
		{ "spr", "walks", 0x0e12, 0x0e13 },
		{ "spr", "walk_cycles", 0x1001012, 0x1001013 },
		{ "gnr", "stlb_hits", 0x2012, 0x2013 },
		{ "adl", "walks", 0x0e12, 0x0e13 },
		{ "amd64_fam19h_zen4", "walks", 0xf045, 0xf045 },
		{ "amd64_fam1ah_zen5", "stlb_hits", 0x0f45, 0x0f45 },
#elif defined(__aarch64__)
		{ "arm_n1", "walks", 0x34, 0x34 },
		{ "arm_pmuv3", "dtlb_misses", 0x05, 0x05 },
#endif
	};
	const struct kernel_desc *const *k;
	int stores = 0;
	size_t i;

	ASSERT_EQ(counters_pfm_init(), 0);
	for (k = kernel_table; *k; k++) {
		stores += bench_access(*k) == ARCH_ACCESS_STORES;
		EXPECT_EQ(bench_access(*k) == ARCH_ACCESS_STORES, *k == &kernel_store);
	}
	EXPECT_EQ(stores, 1);
	EXPECT_EQ(bench_access(NULL), ARCH_ACCESS_LOADS); /* a command */
	for (i = 0; i < MS_ARRAY_SIZE(t); i++) {
		const struct arch_desc *d = arch_find(t[i].desc);
		char pfm[64];
		const struct arch_event *ld, *st;

		ASSERT_TRUE(d != NULL);
		ld = arch_pmu_bind(d, bench_access(&kernel_random), pfm, sizeof(pfm));
		st = arch_pmu_bind(d, bench_access(&kernel_store), pfm, sizeof(pfm));
		printf("  %-18s %-12s loads %#llx, store pattern %#llx\n", t[i].desc, t[i].metric,
		       table_config(ld, t[i].metric), table_config(st, t[i].metric));
		EXPECT_EQ(table_config(ld, t[i].metric), t[i].loads);
		EXPECT_EQ(table_config(st, t[i].metric), t[i].stores);
		EXPECT_TRUE(arch_events_for(d, ARCH_ACCESS_LOADS, false) == d->events);
		EXPECT_TRUE(arch_events_for(d, ARCH_ACCESS_STORES, false) ==
			    (d->store_events ? d->store_events : d->events));
	}
}

TEST(event_bind_syntax)
{
	static const char *const names[] = { "skl", "skx", NULL };
	static const struct arch_desc d = { .name = "skl", .pfm_names = names };
	static const struct {
		const char *event, *pfm, *want;
	} t[] = {
		{ "skl::DTLB_LOAD_MISSES:STLB_HIT", "skx", "skx::DTLB_LOAD_MISSES:STLB_HIT" },
		{ "skl::DTLB_LOAD_MISSES:STLB_HIT", "skl", "skl::DTLB_LOAD_MISSES:STLB_HIT" },
		{ "skl::DTLB_LOAD_MISSES:STLB_HIT", "", "skl::DTLB_LOAD_MISSES:STLB_HIT" },
		{ "skl::DTLB_LOAD_MISSES:STLB_HIT", NULL, "skl::DTLB_LOAD_MISSES:STLB_HIT" },
		{ "r2008", "skx", "r2008" },
		{ "cpu_core/r2012/", "skx", "cpu_core/r2012/" },
		{ "sklx::EV", "skx", "sklx::EV" }, /* another PMU's prefix is left alone */
	};
	char buf[64], small[8];
	size_t i;

	for (i = 0; i < MS_ARRAY_SIZE(t); i++) {
		const char *got = arch_event_bind(&d, t[i].event, t[i].pfm, buf, sizeof(buf));

		ASSERT_TRUE(got != NULL);
		EXPECT_STREQ(got, t[i].want);
	}
	EXPECT_TRUE(arch_event_bind(&d, t[0].event, "skx", small, sizeof(small)) == NULL);
}

/* The table has no row for an event no description uses. */
TEST(no_orphan_rows)
{
	size_t i;

	for (i = 0; i < MS_ARRAY_SIZE(rows); i++) {
		const struct arch_desc *d = arch_find(rows[i].desc);
		const struct arch_event *e;
		bool found = false;

		if (!d) {
			FAIL_AT("row %zu: no description %s", i, rows[i].desc);
			continue;
		}
		for (e = rows[i].store ? d->store_events : d->events; e && e->metric; e++)
			found |= find_row(d->name, e, rows[i].store) == &rows[i];
		if (!found)
			FAIL_AT("row %zu (%s %s) matches no event", i, rows[i].desc, rows[i].metric);
	}
}

TEST(descriptions_are_complete)
{
	const struct arch_desc *const *d;
	int n = 0;

	for (d = arch_descs; *d; d++, n++) {
		const struct arch_event *e;
		bool walks = false, cycles = false;

		EXPECT_TRUE((*d)->family && *(*d)->family);
		EXPECT_TRUE((*d)->coalesce && (*d)->notes);
		EXPECT_TRUE(arch_find((*d)->name) == *d);
		for (e = (*d)->events; e->metric; e++) {
			walks |= !strcmp(e->metric, "walks");
			cycles |= !strcmp(e->metric, "cycles");
			EXPECT_EQ(!!e->pmu, (*d)->hybrid);
		}
		EXPECT_TRUE(walks && cycles);
	}
#if defined(__x86_64__)
	EXPECT_EQ(n, 9);
	EXPECT_TRUE(arch_find("icx") == arch_find("icl"));
	EXPECT_TRUE(arch_find("adl_grt") == arch_find("adl"));
	EXPECT_EQ(arch_find("amd64_fam19h_zen4")->coalesce_order, 2);
	EXPECT_EQ(arch_find("icl")->coalesce_order, -1);
	/* AMD: no walk-cycle event, said rather than invented */
	for (d = arch_descs; *d; d++) {
		const struct arch_event *e;

		if (strncmp((*d)->name, "amd64", 5))
			continue;
		for (e = (*d)->events; e->metric; e++)
			EXPECT_TRUE(strcmp(e->metric, "walk_cycles") != 0);
		EXPECT_TRUE(strstr((*d)->notes, "walk") != NULL);
	}
#elif defined(__aarch64__)
	EXPECT_EQ(n, 9);
	EXPECT_EQ(arch_find("arm_n1")->coalesce_order, 4);
	/* the generic PMUv3 description comes last: a named core wins */
	EXPECT_TRUE(arch_descs[n - 1] == arch_find("arm_pmuv3"));
	EXPECT_TRUE(arch_find("arm_pmuv3")->counted != NULL);
	EXPECT_TRUE(arch_find("arm_n1")->counted == NULL);
#endif
	EXPECT_TRUE(arch_find("no_such_pmu") == NULL);
	EXPECT_TRUE(arch_find(NULL) == NULL);
}

/* Every name an arch table gives a metric is a row of the registry, from
 * the PMU: a new metric is one row there, not four edits. */
static void expect_pmu_metric(const char *name)
{
	const struct metrics_def *m = metrics_find(name);

	EXPECT_TRUE(m != NULL);
	if (!m)
		fprintf(stderr, "  '%s' is not in src/doc/metrics.c\n", name);
	else
		EXPECT_TRUE(!strcmp(m->source, "pmu"));
}

TEST(arch_metrics_are_registered)
{
	const struct arch_desc *const *d;
	const struct arch_formula *f;
	const struct arch_event *e;

	for (d = arch_descs; *d; d++) {
		for (e = (*d)->events; e->metric; e++)
			expect_pmu_metric(e->metric);
		for (f = (*d)->derived; f && f->name; f++)
			expect_pmu_metric(f->name);
	}
	for (f = arch_common_formulas(); f->name; f++)
		expect_pmu_metric(f->name);
}

struct fake {
	const char *name;
	double value;
};

static double fake_get(const char *metric, void *ctx)
{
	const struct fake *f;

	for (f = ctx; f->name; f++)
		if (!strcmp(f->name, metric))
			return f->value;
	return NAN;
}

static double derived(const struct arch_value *v, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return v[i].value;
	return NAN;
}

TEST(derive_formulas)
{
	/* an Intel-like trial: dtlb_misses derived from stlb_hits + walks */
	static const struct fake intel[] = {
		{ "accesses", 1e6 }, { "walks", 2000 }, { "stlb_hits", 3000 },
		{ "walk_cycles", 50000 }, { "cycles", 1e6 }, { "instructions", 5e5 }, { NULL },
	};
	/* an AMD-like trial: dtlb_misses measured, no walk cycles */
	static const struct fake amd[] = {
		{ "accesses", 1e6 }, { "walks", 10 }, { "dtlb_misses", 7000 },
		{ "cycles", 2e6 }, { "instructions", 1e6 }, { NULL },
	};
	static const struct arch_formula intel_like[] = {
		{ "dtlb_misses", ARCH_OP_ADD, "stlb_hits", "walks", 1.0, "" }, { NULL },
	};
	struct arch_desc d = { .name = "t", .derived = intel_like };
	struct arch_value v[16];
	int n;

	n = arch_derive(&d, fake_get, (void *)intel, v, 16);
	EXPECT_NEAR(derived(v, n, "dtlb_misses"), 5000, 0);
	EXPECT_NEAR(derived(v, n, "walks_per_kaccess"), 2.0, 1e-12);
	EXPECT_NEAR(derived(v, n, "dtlb_misses_per_kaccess"), 5.0, 1e-12);
	EXPECT_NEAR(derived(v, n, "walk_cycles_per_access"), 0.05, 1e-12);
	EXPECT_NEAR(derived(v, n, "mmu_overhead"), 0.05, 1e-12);
	EXPECT_NEAR(derived(v, n, "ipc"), 0.5, 1e-12);
	EXPECT_EQ(n, 6);

	n = arch_derive(&d, fake_get, (void *)amd, v, 16);
	EXPECT_TRUE(isnan(derived(v, n, "dtlb_misses"))); /* measured: not derived again */
	EXPECT_TRUE(isnan(derived(v, n, "mmu_overhead"))); /* absent, never zero */
	EXPECT_TRUE(isnan(derived(v, n, "walk_cycles_per_access")));
	EXPECT_NEAR(derived(v, n, "dtlb_misses_per_kaccess"), 7.0, 1e-12);
	EXPECT_NEAR(derived(v, n, "walks_per_kaccess"), 0.01, 1e-12);
	EXPECT_EQ(n, 3);

	/* division by zero accesses: absent */
	{
		static const struct fake zero[] = { { "accesses", 0 }, { "walks", 5 }, { NULL } };
		n = arch_derive(NULL, fake_get, (void *)zero, v, 16);
		EXPECT_EQ(n, 0);
	}
	/* out[] capacity respected */
	EXPECT_EQ(arch_derive(&d, fake_get, (void *)intel, v, 2), 2);
}

/* walk_cycles means cycles with a data walk in flight (mmu_overhead divides
 * it by cycles, HawkEye's share). Arm's DTLB_WALK_PERCYC (0x8128) adds the
 * walks in progress each cycle: two overlapping walks add 2 a cycle, and
 * the "share" passes 1. It is walk_pending, and no mmu_overhead comes of it. */
TEST(percyc_is_occupancy_not_walk_cycles)
{
	static const struct fake overlapping[] = {
		{ "accesses", 1e6 }, { "walks", 1e4 }, { "walk_pending", 3e6 },
		{ "cycles", 1e6 }, { "instructions", 1e6 }, { NULL },
	};
	const struct arch_desc *const *d;
	struct arch_value v[16];
	int n, percyc = 0;

	for (d = arch_descs; *d; d++) {
		const struct arch_event *e;

		for (e = (*d)->events; e->metric; e++) {
			char pmu[32];
			unsigned long long code;

			if (arch_parse_raw(e->event, pmu, sizeof(pmu), &code) || code != 0x8128)
				continue;
			EXPECT_STREQ(e->metric, "walk_pending");
			percyc++;
			n = arch_derive(*d, fake_get, (void *)overlapping, v, 16);
			EXPECT_TRUE(isnan(derived(v, n, "mmu_overhead")));
			EXPECT_TRUE(isnan(derived(v, n, "walk_cycles_per_access")));
		}
	}
#if defined(__aarch64__)
	EXPECT_EQ(percyc, 3); /* arm_n3, arm_v3, arm_ac720 */
#endif
}

/* Without a PMU (this VM) the specs say why; with one, they match the set. */
TEST(pmu_specs_or_reason)
{
	struct arch_specs s;
	char why[512];
	int n, probe = counters_probe_hw();

	if (probe == -ENOSYS)
		SKIP("perf_event_open is not implemented here (qemu-user?)");
	n = arch_pmu_specs(NULL, ARCH_ACCESS_LOADS, -1, &s, why, sizeof(why));
	printf("  arch_pmu_specs: %d (%s)\n", n, why);
	if (n == -ENODEV) {
		EXPECT_TRUE(strlen(why) > 0);
		return;
	}
	if (probe) {
		EXPECT_EQ(n, probe);
		EXPECT_TRUE(strstr(why, "does not open") != NULL);
		return;
	}
	ASSERT_TRUE(n > 0);
	EXPECT_TRUE(s.desc != NULL);
	EXPECT_STREQ(why, "");
}

TEST(pmu_specs_hybrid_names)
{
	/* with a named description and cpu < 0 every PMU's metrics are
	 * listed; the second PMU's carry its name */
	const struct arch_desc *d = arch_find("adl");
	struct arch_specs s;
	char why[256];
	int n, i;

	if (!d)
		SKIP("no hybrid description in this arch build");
	if (counters_probe_hw())
		SKIP("no hardware PMU: arch_pmu_specs reports the reason instead");
	n = arch_pmu_specs(d, ARCH_ACCESS_LOADS, -1, &s, why, sizeof(why));
	ASSERT_EQ(n, 8);
	for (i = 0; i < n; i++)
		printf("  %s %s\n", s.spec[i].metric, s.spec[i].event);
	EXPECT_STREQ(s.spec[5].metric, "walks_cpu_atom");
}

TEST(raw_syntax)
{
	static const struct {
		const char *s;
		int ret;
		const char *pmu;
		unsigned long long config;
	} t[] = {
		{ "r8128", 0, "", 0x8128 },
		{ "cpu_core/r1001012/", 0, "cpu_core", 0x1001012 },
		{ "cpu_atom/r0e08/", 0, "cpu_atom", 0xe08 },
		{ "cpu_core/r0e08", -EINVAL, "", 0 },
		{ "/r0e08/", -EINVAL, "", 0 },
		{ "cpu_core//", -EINVAL, "", 0 },
		{ "cpu_core/rzz/", -EINVAL, "", 0 },
		{ "r", -EINVAL, "", 0 },
	};
	size_t i;

	for (i = 0; i < MS_ARRAY_SIZE(t); i++) {
		char pmu[32] = "x";
		unsigned long long c = 0;
		int ret = arch_parse_raw(t[i].s, pmu, sizeof(pmu), &c);

		printf("  %s\n", t[i].s);
		EXPECT_EQ(ret, t[i].ret);
		if (!ret) {
			EXPECT_STREQ(pmu, t[i].pmu);
			EXPECT_EQ(c, t[i].config);
		}
	}
}

TEST(tlb_geometry)
{
	struct arch_tlb t;
	int err = arch_tlb_geometry(&t);

	if (err == -EOPNOTSUPP)
		SKIP("no CPUID TLB leaves on this CPU/arch");
	if (err == -ENODATA) {
		/* an empty leaf is no geometry, never one of 0 entries */
		EXPECT_TRUE(t.l1d_4k == 0 && t.l2_4k == 0 && !t.source);
		SKIP("this CPU's (or hypervisor's) CPUID TLB leaves list no data TLB");
	}
	ASSERT_EQ(err, 0);
	printf("  %s: L1D 4K %d, 2M %d; L2 4K %d, 2M %d\n", t.source, t.l1d_4k, t.l1d_2m,
	       t.l2_4k, t.l2_2m);
	EXPECT_TRUE(t.l1d_4k > 0 || t.l2_4k > 0);
}

int main(void)
{
	/* encode every family's events on any host; must precede pfm_initialize() */
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	return harness_main();
}
