// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 event sets: Intel Skylake, Ice Lake, Sapphire/Granite Rapids, Alder/
 * Raptor Lake (hybrid); AMD Zen 2-5. Strings use libpfm4's names where the
 * installed libpfm4 (Debian 12: 4.13) has the table, raw codes where it does
 * not (adl, gnr, zen5; spr's and zen4's raw_events for Emerald Rapids and
 * the Zen 4 models 4.13 does not identify). tests/test_arch.c checks every
 * string's encoding against the vendor's event code and umask.
 *
 * detect() takes the CPU model ranges of arch/tlb_geometry.c (Linux's
 * intel-family.h and bsp_init_amd), so the event sets and the TLB sizes
 * name the same CPUs.
 *
 * Intel config layout (SDM Vol. 3B, IA32_PERFEVTSELx): event [7:0],
 * umask [15:8], cmask [31:24]. AMD (APM Vol. 2, PERF_CTL): event [7:0] and
 * [35:32], unit mask [15:8].
 */
#include <cpuid.h>
#include <errno.h>
#include <string.h>

#include "arch.h"
#include "tlb_model.h"

/* ---- Intel ----------------------------------------------------------------
 * dtlb_misses on Intel is derived: a load that misses the first-level DTLB
 * either hits the STLB or starts a walk. WALK_ACTIVE (= WALK_PENDING with
 * cmask=1) counts cycles with at least one load walk in flight: HawkEye's
 * walk-cycle event (it was DTLB_LOAD_MISSES.WALK_DURATION:c1 on Haswell and
 * Broadwell; Skylake renamed it WALK_PENDING and named the cmask=1 form
 * WALK_ACTIVE). These count loads only; stores have their own event,
 * DTLB_STORE_MISSES (0x49 before Golden Cove, 0x13 from it), with the same
 * umasks: the store pattern (kernels-micro/store.c) is counted with the
 * *_store_events tables (arch_events_for), every other pattern and a command
 * with the load ones.
 *
 * libpfm4 reports a Skylake-SP as skx, Cascade Lake as clx and Ice Lake-SP as
 * icx, each with skl's or icl's event table; the strings below are bound to
 * the active name at run time (arch_event_bind). */
static const struct arch_formula intel_derived[] = {
	{ "dtlb_misses", ARCH_OP_ADD, "stlb_hits", "walks", 1.0,
	  "first-level DTLB misses of loads (of stores with the store pattern) = STLB hits + "
	  "completed walks (aborted walks not counted)" },
	{ NULL },
};

#define INTEL_SIDES "loads' DTLB events; the store pattern's are the stores' (DTLB_STORE_MISSES)"

/* Is c one of the CPUs arch/tlb_geometry.c's entry 'name' describes? */
static bool geometry_is(const struct arch_cpu *c, const char *name)
{
	const struct tlb_geometry *g = tlb_geometry_match(c->vendor, c->family, c->model);

	return g && !strcmp(g->name, name);
}

/* Golden Cove and Redwood Cove (SPR, EMR, GNR; ADL/RPL cpu_core) in raw codes:
 * perf pmu-events sapphirerapids/virtual-memory.json (intel/perfmon SPR),
 * intel/perfmon GNR/events/graniterapids_core.json V1.21; cycles and instructions are the SDM Vol. 3B
 * architectural events 0x3c and 0xc0. */
static const struct arch_event golden_cove_raw[] = {
	{ "walks", "r0e12" },           /* DTLB_LOAD_MISSES.WALK_COMPLETED 0x12 umask 0x0e */
	{ "stlb_hits", "r2012" },       /* DTLB_LOAD_MISSES.STLB_HIT 0x12 umask 0x20 */
	{ "walk_cycles", "r1001012" },  /* DTLB_LOAD_MISSES.WALK_ACTIVE 0x12 umask 0x10 cmask 1 */
	{ "cycles", "r003c" },          /* CPU_CLK_UNHALTED.THREAD_P */
	{ "instructions", "r00c0" },    /* INST_RETIRED.ANY_P */
	{ NULL },
};
/* The store side: DTLB_STORE_MISSES 0x13, the same umasks (perf pmu-events
 * sapphirerapids/virtual-memory.json; intel/perfmon GNR graniterapids_core.json
 * V1.21). */
static const struct arch_event golden_cove_store_raw[] = {
	{ "walks", "r0e13" },           /* DTLB_STORE_MISSES.WALK_COMPLETED 0x13 umask 0x0e */
	{ "stlb_hits", "r2013" },       /* DTLB_STORE_MISSES.STLB_HIT 0x13 umask 0x20 */
	{ "walk_cycles", "r1001013" },  /* DTLB_STORE_MISSES.WALK_ACTIVE 0x13 umask 0x10 cmask 1 */
	{ "cycles", "r003c" },
	{ "instructions", "r00c0" },
	{ NULL },
};

/* Intel 64 and IA-32 Architectures SDM Vol. 3B, ch. 19 "Performance
 * Monitoring Events", Skylake microarchitecture table; libpfm4
 * lib/events/intel_skl_events.h. */
static const struct arch_event skl_events[] = {
	{ "walks", "skl::DTLB_LOAD_MISSES:WALK_COMPLETED" },  /* 0x08 umask 0x0e */
	{ "stlb_hits", "skl::DTLB_LOAD_MISSES:STLB_HIT" },    /* 0x08 umask 0x20 */
	{ "walk_cycles", "skl::DTLB_LOAD_MISSES:WALK_ACTIVE" }, /* 0x08 umask 0x10 cmask 1 */
	{ "cycles", "skl::UNHALTED_CORE_CYCLES" },            /* 0x3c, architectural */
	{ "instructions", "skl::INST_RETIRED:ANY_P" },        /* 0xc0, architectural */
	{ NULL },
};
static const struct arch_event skl_store_events[] = {
	{ "walks", "skl::DTLB_STORE_MISSES:WALK_COMPLETED" },  /* 0x49 umask 0x0e */
	{ "stlb_hits", "skl::DTLB_STORE_MISSES:STLB_HIT" },    /* 0x49 umask 0x20 */
	{ "walk_cycles", "skl::DTLB_STORE_MISSES:WALK_ACTIVE" }, /* 0x49 umask 0x10 cmask 1 */
	{ "cycles", "skl::UNHALTED_CORE_CYCLES" },
	{ "instructions", "skl::INST_RETIRED:ANY_P" },
	{ NULL },
};
static const char *const skl_names[] = { "skl", "skx", "clx", NULL };
static const struct arch_desc intel_skl = {
	.name = "skl",
	.family = "Intel Skylake (client and server, Cascade Lake)",
	.pfm_names = skl_names,
	.events = skl_events,
	.store_events = skl_store_events,
	.derived = intel_derived,
	.coalesce_order = -1,
	.coalesce = "no PTE coalescing",
	.notes = INTEL_SIDES "; no coalescing counter",
};

/* perf pmu-events icelake/virtual-memory.json (from Intel's event files at
 * github.com/intel/perfmon, ICL); libpfm4 lib/events/intel_icl_events.h. */
static const struct arch_event icl_events[] = {
	{ "walks", "icl::DTLB_LOAD_MISSES:WALK_COMPLETED" },  /* 0x08 umask 0x0e */
	{ "stlb_hits", "icl::DTLB_LOAD_MISSES:STLB_HIT" },    /* 0x08 umask 0x20 */
	{ "walk_cycles", "icl::DTLB_LOAD_MISSES:WALK_ACTIVE" }, /* 0x08 umask 0x10 cmask 1 */
	{ "cycles", "icl::CPU_CLK_UNHALTED:THREAD_P" },       /* 0x3c */
	{ "instructions", "icl::INST_RETIRED:ANY_P" },        /* 0xc0 */
	{ NULL },
};
static const struct arch_event icl_store_events[] = {
	{ "walks", "icl::DTLB_STORE_MISSES:WALK_COMPLETED" },  /* 0x49 umask 0x0e */
	{ "stlb_hits", "icl::DTLB_STORE_MISSES:STLB_HIT" },    /* 0x49 umask 0x20 */
	{ "walk_cycles", "icl::DTLB_STORE_MISSES:WALK_ACTIVE" }, /* 0x49 umask 0x10 cmask 1 */
	{ "cycles", "icl::CPU_CLK_UNHALTED:THREAD_P" },
	{ "instructions", "icl::INST_RETIRED:ANY_P" },
	{ NULL },
};
static const char *const icl_names[] = { "icl", "icx", NULL };
static const struct arch_desc intel_icl = {
	.name = "icl",
	.family = "Intel Ice Lake (client and server)",
	.pfm_names = icl_names,
	.events = icl_events,
	.store_events = icl_store_events,
	.derived = intel_derived,
	.coalesce_order = -1,
	.coalesce = "no PTE coalescing",
	.notes = INTEL_SIDES,
};

/* Golden Cove moved the DTLB events to 0x12 (loads) / 0x13 (stores):
 * perf pmu-events sapphirerapids/virtual-memory.json (intel/perfmon SPR);
 * libpfm4 lib/events/intel_spr_events.h. */
static const struct arch_event spr_events[] = {
	{ "walks", "spr::DTLB_LOAD_MISSES:WALK_COMPLETED" },  /* 0x12 umask 0x0e */
	{ "stlb_hits", "spr::DTLB_LOAD_MISSES:STLB_HIT" },    /* 0x12 umask 0x20 */
	{ "walk_cycles", "spr::DTLB_LOAD_MISSES:WALK_ACTIVE" }, /* 0x12 umask 0x10 cmask 1 */
	{ "cycles", "spr::CPU_CLK_UNHALTED:THREAD_P" },       /* 0x3c */
	{ "instructions", "spr::INST_RETIRED:ANY_P" },        /* 0xc0 */
	{ NULL },
};
static const struct arch_event spr_store_events[] = {
	{ "walks", "spr::DTLB_STORE_MISSES:WALK_COMPLETED" },  /* 0x13 umask 0x0e */
	{ "stlb_hits", "spr::DTLB_STORE_MISSES:STLB_HIT" },    /* 0x13 umask 0x20 */
	{ "walk_cycles", "spr::DTLB_STORE_MISSES:WALK_ACTIVE" }, /* 0x13 umask 0x10 cmask 1 */
	{ "cycles", "spr::CPU_CLK_UNHALTED:THREAD_P" },
	{ "instructions", "spr::INST_RETIRED:ANY_P" },
	{ NULL },
};
/* SPR (0x8f) and EMR (0xcf). libpfm4 4.13 knows SPR only and has no emr
 * PMU (an upstream "emr" is not listed here: its table is not checked), so
 * on Emerald Rapids detect() picks this set and its raw codes. */
static bool spr_detect(const struct arch_cpu *c)
{
	return geometry_is(c, "sapphire-rapids");
}
static const char *const spr_names[] = { "spr", NULL };
static const struct arch_desc intel_spr = {
	.name = "spr",
	.family = "Intel Sapphire Rapids / Emerald Rapids",
	.pfm_names = spr_names,
	.detect = spr_detect,
	.events = spr_events,
	.raw_events = golden_cove_raw,
	.store_events = spr_store_events,
	.store_raw_events = golden_cove_store_raw,
	.derived = intel_derived,
	.coalesce_order = -1,
	.coalesce = "no PTE coalescing",
	.notes = INTEL_SIDES,
};

/* Granite Rapids (Redwood Cove): Intel's event list, intel/perfmon
 * GNR/events/graniterapids_core.json V1.21, has DTLB_LOAD_MISSES
 * WALK_COMPLETED 0x12/0x0e, STLB_HIT 0x12/0x20 and WALK_ACTIVE 0x12/0x10
 * CounterMask 1: SPR's codes (perf's graniterapids/virtual-memory.json
 * lists only WALK_COMPLETED). Debian's libpfm4 4.13 has no gnr table: raw
 * codes, golden_cove_raw. */
static bool gnr_detect(const struct arch_cpu *c)
{
	return geometry_is(c, "granite-rapids"); /* 0xad, 0xae: Linux intel-family.h */
}
static const char *const gnr_names[] = { "gnr", NULL };
static const struct arch_desc intel_gnr = {
	.name = "gnr",
	.family = "Intel Granite Rapids",
	.pfm_names = gnr_names,
	.detect = gnr_detect,
	.events = golden_cove_raw,
	.store_events = golden_cove_store_raw,
	.derived = intel_derived,
	.coalesce_order = -1,
	.coalesce = "no PTE coalescing",
	.notes = INTEL_SIDES "; raw codes (no libpfm4 4.13 table)",
};

/* Alder Lake / Raptor Lake: two PMUs. perf pmu-events alderlake/
 * virtual-memory.json: cpu_core (Golden Cove) as SPR, 0x12; cpu_atom
 * (Gracemont) DTLB_LOAD_MISSES.WALK_COMPLETED 0x08 umask 0x0e and no STLB
 * hit or walk-duration event. Events of the two PMUs go in separate groups
 * (their perf types differ). Upstream libpfm4 names: adl_glc, adl_grt. */
static const struct arch_event adl_events[] = {
	{ "walks", "cpu_core/r0e12/", "cpu_core" },
	{ "stlb_hits", "cpu_core/r2012/", "cpu_core" },
	{ "walk_cycles", "cpu_core/r1001012/", "cpu_core" }, /* umask 0x10, cmask 1 */
	{ "cycles", "cpu_core/r003c/", "cpu_core" },
	{ "instructions", "cpu_core/r00c0/", "cpu_core" },
	{ "walks", "cpu_atom/r0e08/", "cpu_atom" },
	{ "cycles", "cpu_atom/r003c/", "cpu_atom" },
	{ "instructions", "cpu_atom/r00c0/", "cpu_atom" },
	{ NULL },
};
/* The store side: cpu_core DTLB_STORE_MISSES 0x13, cpu_atom 0x49 umask 0x0e
 * (WALK_COMPLETED; perf pmu-events alderlake/virtual-memory.json). */
static const struct arch_event adl_store_events[] = {
	{ "walks", "cpu_core/r0e13/", "cpu_core" },
	{ "stlb_hits", "cpu_core/r2013/", "cpu_core" },
	{ "walk_cycles", "cpu_core/r1001013/", "cpu_core" }, /* umask 0x10, cmask 1 */
	{ "cycles", "cpu_core/r003c/", "cpu_core" },
	{ "instructions", "cpu_core/r00c0/", "cpu_core" },
	{ "walks", "cpu_atom/r0e49/", "cpu_atom" },
	{ "cycles", "cpu_atom/r003c/", "cpu_atom" },
	{ "instructions", "cpu_atom/r00c0/", "cpu_atom" },
	{ NULL },
};
static bool adl_detect(const struct arch_cpu *c)
{
	/* ADL-S/P 0x97/0x9a, RPL 0xb7/0xba/0xbf (Linux intel-family.h);
	 * ADL-N (0xbe) has E-cores only and is left out */
	return geometry_is(c, "golden-cove");
}
static const char *const adl_names[] = { "adl_glc", "adl_grt", "adl", NULL };
static const struct arch_desc intel_adl = {
	.name = "adl",
	.family = "Intel Alder Lake / Raptor Lake (hybrid: cpu_core + cpu_atom)",
	.pfm_names = adl_names,
	.detect = adl_detect,
	.hybrid = true,
	.events = adl_events,
	.store_events = adl_store_events,
	.derived = intel_derived,
	.coalesce_order = -1,
	.coalesce = "no PTE coalescing",
	.notes = "cpu_atom has walks only; pin the benchmark to one core type; " INTEL_SIDES,
};

/* ---- AMD ------------------------------------------------------------------
 * PMCx045 L1_DTLB_MISS ("ls_l1_d_tlb_miss"): umask 0x01 4K L2 hit, 0x02
 * coalesced-page L2 hit, 0x04 2M L2 hit, 0x08 1G L2 hit, 0x10-0x80 the same
 * four with an L2 miss (a page-table walk is requested). A coalesced page is
 * 16K made of four adjacent, aligned 4K PTEs: order 2. Zen 2-5 have no event
 * that counts page-walk cycles: walk_cycles and mmu_overhead are absent on
 * AMD, not estimated. */
#define AMD_COALESCE "four adjacent aligned 4K PTEs are cached as one 16K L1/L2 DTLB entry " \
		     "(PMCx045 'coalesced page' umasks; order 2)"
#define AMD_NOTES "no page-walk-cycle event on Zen 2-5: walk_cycles and mmu_overhead absent"

/* PPR for AMD Family 17h Model 31h (doc 55803), PMCx045, PMCx076, PMCx0C0;
 * libpfm4 lib/events/amd64_events_fam17h_zen2.h. */
static const struct arch_event zen2_events[] = {
	{ "dtlb_misses", "amd64_fam17h_zen2::L1_DTLB_MISS:TLB_RELOAD_4K_L2_HIT:"
			 "TLB_RELOAD_COALESCED_PAGE_HIT:TLB_RELOAD_2M_L2_HIT:TLB_RELOAD_1G_L2_HIT:"
			 "TLB_RELOAD_4K_L2_MISS:TLB_RELOAD_COALESCED_PAGE_MISS:"
			 "TLB_RELOAD_2M_L2_MISS:TLB_RELOAD_1G_L2_MISS" },       /* 0x45 umask 0xff */
	{ "stlb_hits", "amd64_fam17h_zen2::L1_DTLB_MISS:TLB_RELOAD_4K_L2_HIT:"
		       "TLB_RELOAD_COALESCED_PAGE_HIT:TLB_RELOAD_2M_L2_HIT:"
		       "TLB_RELOAD_1G_L2_HIT" },                                 /* 0x45 umask 0x0f */
	{ "walks", "amd64_fam17h_zen2::L1_DTLB_MISS:TLB_RELOAD_4K_L2_MISS:"
		   "TLB_RELOAD_COALESCED_PAGE_MISS:TLB_RELOAD_2M_L2_MISS:"
		   "TLB_RELOAD_1G_L2_MISS" },                                    /* 0x45 umask 0xf0 */
	{ "coalesced_hits", "amd64_fam17h_zen2::L1_DTLB_MISS:TLB_RELOAD_COALESCED_PAGE_HIT" },
	{ "cycles", "amd64_fam17h_zen2::CYCLES_NOT_IN_HALT" },                  /* 0x76 */
	{ "instructions", "amd64_fam17h_zen2::RETIRED_INSTRUCTIONS" },          /* 0xc0 */
	{ NULL },
};
static const char *const zen2_names[] = { "amd64_fam17h_zen2", NULL };
static const struct arch_desc amd_zen2 = {
	.name = "amd64_fam17h_zen2",
	.family = "AMD Zen 2",
	.pfm_names = zen2_names,
	.events = zen2_events,
	.coalesce_order = 2,
	.coalesce = AMD_COALESCE,
	.notes = AMD_NOTES,
};

/* PPR for AMD Family 19h Model 01h (doc 55898), PMCx045; libpfm4
 * lib/events/amd64_events_fam19h_zen3.h. */
static const struct arch_event zen3_events[] = {
	{ "dtlb_misses", "amd64_fam19h_zen3::L1_DTLB_MISS:TLB_RELOAD_4K_L2_HIT:"
			 "TLB_RELOAD_COALESCED_PAGE_HIT:TLB_RELOAD_2M_L2_HIT:TLB_RELOAD_1G_L2_HIT:"
			 "TLB_RELOAD_4K_L2_MISS:TLB_RELOAD_COALESCED_PAGE_MISS:"
			 "TLB_RELOAD_2M_L2_MISS:TLB_RELOAD_1G_L2_MISS" },
	{ "stlb_hits", "amd64_fam19h_zen3::L1_DTLB_MISS:TLB_RELOAD_4K_L2_HIT:"
		       "TLB_RELOAD_COALESCED_PAGE_HIT:TLB_RELOAD_2M_L2_HIT:TLB_RELOAD_1G_L2_HIT" },
	{ "walks", "amd64_fam19h_zen3::L1_DTLB_MISS:TLB_RELOAD_4K_L2_MISS:"
		   "TLB_RELOAD_COALESCED_PAGE_MISS:TLB_RELOAD_2M_L2_MISS:TLB_RELOAD_1G_L2_MISS" },
	{ "coalesced_hits", "amd64_fam19h_zen3::L1_DTLB_MISS:TLB_RELOAD_COALESCED_PAGE_HIT" },
	{ "cycles", "amd64_fam19h_zen3::CYCLES_NOT_IN_HALT" },
	{ "instructions", "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS" },
	{ NULL },
};
static const char *const zen3_names[] = { "amd64_fam19h_zen3", NULL };
static const struct arch_desc amd_zen3 = {
	.name = "amd64_fam19h_zen3",
	.family = "AMD Zen 3",
	.pfm_names = zen3_names,
	.events = zen3_events,
	.coalesce_order = 2,
	.coalesce = AMD_COALESCE,
	.notes = AMD_NOTES,
};

/* Zen 4 and Zen 5 in raw codes: PMCx045 with the umasks above (PPR for AMD
 * Family 19h Model 11h, doc 55901; Family 1Ah Model 02h, doc 57238; perf
 * pmu-events amdzen4/ and amdzen5/load-store.json ls_l1_d_tlb_miss.*),
 * PMCx076, PMCx0C0. */
static const struct arch_event amd_raw[] = {
	{ "dtlb_misses", "rff45" },    /* ls_l1_d_tlb_miss.all */
	{ "stlb_hits", "r0f45" },      /* the four L2-hit umasks */
	{ "walks", "rf045" },          /* ls_l1_d_tlb_miss.all_l2_miss */
	{ "coalesced_hits", "r0245" }, /* tlb_reload_coalesced_page_hit */
	{ "cycles", "r0076" },         /* ls_not_halted_cyc */
	{ "instructions", "r00c0" },   /* ex_ret_instr */
	{ NULL },
};

/* PPR for AMD Family 19h Model 11h (doc 55901), PMCx045; libpfm4
 * lib/events/amd64_events_fam19h_zen4.h. */
static const struct arch_event zen4_events[] = {
	{ "dtlb_misses", "amd64_fam19h_zen4::L1_DTLB_MISS:TLB_RELOAD_4K_L2_HIT:"
			 "TLB_RELOAD_COALESCED_PAGE_HIT:TLB_RELOAD_2M_L2_HIT:TLB_RELOAD_1G_L2_HIT:"
			 "TLB_RELOAD_4K_L2_MISS:TLB_RELOAD_COALESCED_PAGE_MISS:"
			 "TLB_RELOAD_2M_L2_MISS:TLB_RELOAD_1G_L2_MISS" },
	{ "stlb_hits", "amd64_fam19h_zen4::L1_DTLB_MISS:TLB_RELOAD_4K_L2_HIT:"
		       "TLB_RELOAD_COALESCED_PAGE_HIT:TLB_RELOAD_2M_L2_HIT:TLB_RELOAD_1G_L2_HIT" },
	{ "walks", "amd64_fam19h_zen4::L1_DTLB_MISS:TLB_RELOAD_4K_L2_MISS:"
		   "TLB_RELOAD_COALESCED_PAGE_MISS:TLB_RELOAD_2M_L2_MISS:TLB_RELOAD_1G_L2_MISS" },
	{ "coalesced_hits", "amd64_fam19h_zen4::L1_DTLB_MISS:TLB_RELOAD_COALESCED_PAGE_HIT" },
	{ "cycles", "amd64_fam19h_zen4::CYCLES_NOT_IN_HALT" },
	{ "instructions", "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS" },
	{ NULL },
};
/* Family 19h models 10h-1Fh and 60h-AFh (Linux bsp_init_amd; 00h-0Fh and
 * 20h-5Fh are Zen 3). libpfm4 4.13 calls only Genoa (model 11h) zen4:
 * Raphael (61h), Phoenix (74h), Bergamo (A0h) have no libpfm4 PMU and are
 * found here, with the raw codes. */
static bool zen4_detect(const struct arch_cpu *c)
{
	return geometry_is(c, "zen4");
}
static const char *const zen4_names[] = { "amd64_fam19h_zen4", NULL };
static const struct arch_desc amd_zen4 = {
	.name = "amd64_fam19h_zen4",
	.family = "AMD Zen 4",
	.pfm_names = zen4_names,
	.detect = zen4_detect,
	.events = zen4_events,
	.raw_events = amd_raw,
	.coalesce_order = 2,
	.coalesce = AMD_COALESCE,
	.notes = AMD_NOTES,
};

/* Family 1Ah, the Zen 5 model ranges of Linux bsp_init_amd (not the Zen 6
 * ones). Debian's libpfm4 4.13 has no Zen 5 table: raw codes (amd_raw). */
static bool zen5_detect(const struct arch_cpu *c)
{
	return geometry_is(c, "zen5");
}
static const char *const zen5_names[] = { "amd64_fam1ah_zen5", NULL };
static const struct arch_desc amd_zen5 = {
	.name = "amd64_fam1ah_zen5",
	.family = "AMD Zen 5",
	.pfm_names = zen5_names,
	.detect = zen5_detect,
	.events = amd_raw,
	.coalesce_order = 2,
	.coalesce = AMD_COALESCE,
	.notes = AMD_NOTES,
};

const struct arch_desc *const arch_descs[] = {
	&intel_skl, &intel_icl, &intel_spr, &intel_gnr, &intel_adl,
	&amd_zen2,  &amd_zen3,  &amd_zen4,  &amd_zen5,  NULL,
};

/* ---- CPUID ----------------------------------------------------------------- */

int arch_cpu_id(struct arch_cpu *c)
{
	unsigned a, b, cx, d, fam, model;

	memset(c, 0, sizeof(*c));
	c->implementer = c->part = -1;
	if (!__get_cpuid(0, &a, &b, &cx, &d))
		return -EOPNOTSUPP;
	memcpy(c->vendor, &b, 4);
	memcpy(c->vendor + 4, &d, 4);
	memcpy(c->vendor + 8, &cx, 4);
	__get_cpuid(1, &a, &b, &cx, &d);
	/* SDM Vol. 2A CPUID.01H:EAX: display family/model */
	fam = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	if (fam == 0xf)
		fam += (a >> 20) & 0xff;
	if (fam == 0x6 || fam >= 0xf)
		model |= ((a >> 16) & 0xf) << 4;
	c->family = (int)fam;
	c->model = (int)model;
	return 0;
}

/* Intel SDM Vol. 2A, CPUID leaf 18H "Deterministic Address Translation
 * Parameters": one sub-leaf per translation structure. */
static void intel_tlb_store(struct arch_tlb *t, unsigned b, unsigned level, int entries, int ways)
{
	if (level == 1) {
		if (b & 1)
			t->l1d_4k = entries, t->l1d_4k_ways = ways;
		if (b & 2)
			t->l1d_2m = entries, t->l1d_2m_ways = ways;
		if (b & 8)
			t->l1d_1g = entries;
	} else {
		if (b & 1)
			t->l2_4k = entries, t->l2_4k_ways = ways;
		if (b & 2)
			t->l2_2m = entries, t->l2_2m_ways = ways;
		if (b & 8)
			t->l2_1g = entries;
	}
}

static int intel_tlb(struct arch_tlb *t)
{
	unsigned a, b, c, d, max, i;

	if (__get_cpuid_max(0, NULL) < 0x18)
		return -EOPNOTSUPP;
	__cpuid_count(0x18, 0, max, b, c, d);
	for (i = 0; i <= max && i < 64; i++) {
		unsigned type, level;
		int ways;

		__cpuid_count(0x18, i, a, b, c, d);
		type = d & 0x1f;  /* 1 data, 2 instruction, 3 unified, 4 load-only, 5 store-only */
		level = (d >> 5) & 0x7;
		ways = (d & (1u << 8)) ? -1 : (int)(b >> 16); /* EDX[8]: fully associative */
		if (type == 0 || type == 2 || type == 5)
			continue;
		if ((level == 1 && (type == 1 || type == 4)) || (level == 2 && (type == 1 || type == 3)))
			intel_tlb_store(t, b, level, (int)((b >> 16) * c), ways); /* ways * sets */
	}
	t->source = "CPUID leaf 0x18";
	return 0;
}

/* AMD APM Vol. 3, CPUID Fn8000_0006: the L2 TLB associativity code. */
static int amd_l2_ways(unsigned code)
{
	static const int ways[16] = { 0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, -1 };

	return ways[code & 0xf];
}

/* AMD APM Vol. 3, CPUID Fn8000_0005 (L1 TLB), Fn8000_0006 (L2 TLB) and
 * Fn8000_0019 (1G TLB). L1 associativity: FFh fully, else the ways. */
static int amd_tlb(struct arch_tlb *t)
{
	unsigned a = 0, b = 0, c = 0, d = 0, max = __get_cpuid_max(0x80000000, NULL);

	if (max < 0x80000006)
		return -EOPNOTSUPP;
	__get_cpuid(0x80000005, &a, &b, &c, &d);
	t->l1d_2m = (int)((a >> 16) & 0xff);
	t->l1d_2m_ways = (a >> 24) == 0xff ? -1 : (int)(a >> 24);
	t->l1d_4k = (int)((b >> 16) & 0xff);
	t->l1d_4k_ways = (b >> 24) == 0xff ? -1 : (int)(b >> 24);
	__get_cpuid(0x80000006, &a, &b, &c, &d);
	t->l2_2m = (int)((a >> 16) & 0xfff);
	t->l2_2m_ways = amd_l2_ways(a >> 28);
	t->l2_4k = (int)((b >> 16) & 0xfff);
	t->l2_4k_ways = amd_l2_ways(b >> 28);
	t->source = "CPUID 0x80000005/0x80000006";
	if (max >= 0x80000019) {
		__get_cpuid(0x80000019, &a, &b, &c, &d);
		t->l1d_1g = (int)((a >> 16) & 0xfff);
		t->l2_1g = (int)((b >> 16) & 0xfff);
	}
	return 0;
}

int arch_tlb_geometry(struct arch_tlb *t)
{
	struct arch_cpu c;
	int err;

	memset(t, 0, sizeof(*t));
	if ((err = arch_cpu_id(&c)))
		return err;
	if (!strcmp(c.vendor, "AuthenticAMD") || !strcmp(c.vendor, "HygonGenuine"))
		err = amd_tlb(t);
	else if (!strcmp(c.vendor, "GenuineIntel"))
		err = intel_tlb(t);
	else
		return -EOPNOTSUPP;
	/* a hypervisor may offer the leaf and leave it empty (a Firecracker
	 * VM on a Sapphire Rapids host: leaf 0x18 lists no data TLB) */
	if (!err && t->l1d_4k <= 0 && t->l2_4k <= 0) {
		memset(t, 0, sizeof(*t));
		return -ENODATA;
	}
	return err;
}
