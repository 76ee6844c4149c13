// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Data TLB geometry and merge rules per microarchitecture (the translation
 * model, src/analysis/tlb_model.h). Pure data, compiled on every
 * architecture: a what-if for a CPU this host is not needs every entry.
 *
 * Each level's 'cite' names the vendor document the figure comes from. A
 * figure a document does not give is 0 ("not known"): the model then gives
 * no prediction for that level rather than a guessed one. 'ways' is shown
 * for information only; the model treats each level as fully associative.
 *
 * Merge rules (several sizes per CPU: .merge_set, each with .merge_cite):
 *  - AMD Zen 2-5: 4K PTEs that map physically contiguous pages, aligned and
 *    congruent in VA and PA, are coalesced into one TLB entry whatever
 *    folios hold them: 4 of them (16K; AMD Software Optimization Guides for
 *    families 17h/19h/1Ah, "L1/L2 Translation Lookaside Buffers"; the PPRs'
 *    PMC event L1_DTLB_MISS:TLB_RELOAD_COALESCED_PAGE_HIT counts them) or 8
 *    (32K: Eliot Solomon, "Effective Techniques for Managing
 *    Intermediate-Sized Superpages", Rice University thesis, August 2024,
 *    inferred with a microbenchmark on AMD Ryzen; and every Zen 4 run here
 *    steps at order 3, data/vm-amd-epyc-6.18/analysis-32M.txt). Zen 5 is
 *    not documented and not measured: 4 and 8 are assumed from Zen 4
 *    (mthpscope probe measures it).
 *  - Intel: the Optimization Reference Manual documents no 4K merging.
 *  - Arm: a 16 x 4K block (64K) the kernel maps with the contiguous bit
 *    (Arm ARM DDI 0487 D8.6.1; Linux sets it on a fully mapped, aligned
 *    block inside one folio) takes one entry: the TRMs list 64K among the
 *    L1 data TLB's entry sizes. HPA (the Neoverse TRMs' hardware page
 *    aggregation) is off here: firmware mitigations for CVE-2024-5660 turn
 *    it off; a user's geometry file can set hpa = yes.
 */
#include "tlb_model.h"

#include <stddef.h>
#include <string.h>

#define AMD_SOG(fam, doc) "AMD Software Optimization Guide for Family " fam " Processors (" doc ")"
#define INTEL_ORM "Intel 64 and IA-32 Architectures Optimization Reference Manual (248966)"

#define AMD_MERGE_4_8 .merge = TLB_MERGE_COALESCE, .merge_pages = 8, .merge_set = 1u << 2 | 1u << 3
/* The source of 4 and 8 (the comment at the top). */
#define AMD_MERGE_CITE(measured)                                                           \
	"4 pages (16K): AMD Software Optimization Guide, L1/L2 TLBs (coalescing of 4 "      \
	"contiguous aligned 4K PTEs); 8 pages (32K): E. Solomon, Effective Techniques for " \
	"Managing Intermediate-Sized Superpages, Rice University thesis, Aug 2024 (AMD "     \
	"Ryzen coalesces 16 KB or 32 KB from aligned contiguous groups of 4 KB pages)" measured

/* ---- AMD ------------------------------------------------------------------ */

static const struct tlb_geometry zen2 = {
	.name = "zen2",
	.desc = "AMD Zen 2 (family 17h, models 30h-4Fh, 60h-7Fh, 90h-91h, A0h-AFh)",
	AMD_MERGE_4_8,
	.merge_cite = AMD_MERGE_CITE("; not measured on Zen 2 here"),
	.nr_levels = 2,
	.level = {
		{ .name = "L1D", .entries = 64, .shared = true, .ways = 0, .source = TLB_SRC_TABLE,
		  .cite = AMD_SOG("17h Models 30h and Greater", "56305") ", L1 data TLB: 64 entries, "
			  "fully associative, all page sizes" },
		{ .name = "L2", .entries = 2048, .shared = true, .ways = 12, .source = TLB_SRC_TABLE,
		  .cite = AMD_SOG("17h Models 30h and Greater", "56305") ", L2 data TLB: 2048 "
			  "entries, 12-way, 4K and 2M (1G pages smashed to 2M)" },
	},
	.vendor = "AuthenticAMD",
	/* the model ranges of Linux's bsp_init_amd (arch/x86/kernel/cpu/amd.c) */
	.match = { { 0x17, 0x30, 0x4f }, { 0x17, 0x60, 0x7f }, { 0x17, 0x90, 0x91 },
		   { 0x17, 0xa0, 0xaf } },
};

static const struct tlb_geometry zen3 = {
	.name = "zen3",
	.desc = "AMD Zen 3 (family 19h, models 00h-0Fh, 20h-5Fh)",
	AMD_MERGE_4_8,
	.merge_cite = AMD_MERGE_CITE("; not measured on Zen 3 here"),
	.nr_levels = 2,
	.level = {
		{ .name = "L1D", .entries = 64, .shared = true, .source = TLB_SRC_TABLE,
		  .cite = AMD_SOG("19h", "56665") ", L1 data TLB: 64 entries, fully associative, "
			  "all page sizes" },
		{ .name = "L2", .entries = 2048, .shared = true, .source = TLB_SRC_TABLE,
		  .cite = AMD_SOG("19h", "56665") ", L2 data TLB: 2048 entries, 4K and 2M "
			  "(associativity not taken from the guide)" },
	},
	.vendor = "AuthenticAMD",
	.match = { { 0x19, 0x00, 0x0f }, { 0x19, 0x20, 0x5f } },
};

static const struct tlb_geometry zen4 = {
	.name = "zen4",
	.desc = "AMD Zen 4 (family 19h, models 10h-1Fh, 60h-AFh)",
	AMD_MERGE_4_8,
	.merge_cite = AMD_MERGE_CITE("; measured here: data/vm-amd-epyc-6.18/analysis-32M.txt "
				     "(step at order 3)"),
	.nr_levels = 2,
	.level = {
		{ .name = "L1D", .entries = 72, .shared = true, .source = TLB_SRC_TABLE,
		  .cite = AMD_SOG("19h Models 10h and Greater", "57647") ", L1 data TLB: 72 entries, "
			  "fully associative, all page sizes" },
		{ .name = "L2", .entries = 3072, .shared = true, .source = TLB_SRC_TABLE,
		  .cite = AMD_SOG("19h Models 10h and Greater", "57647") ", L2 data TLB: 3072 "
			  "entries, 4K and 2M (associativity not taken from the guide)" },
	},
	.vendor = "AuthenticAMD",
	.match = { { 0x19, 0x10, 0x1f }, { 0x19, 0x60, 0xaf } },
};

static const struct tlb_geometry zen5 = {
	.name = "zen5",
	.desc = "AMD Zen 5 (family 1Ah)",
	AMD_MERGE_4_8,
	.merge_cite = AMD_MERGE_CITE("; Zen 5: unknown, neither documented nor measured here: "
				     "4 and 8 assumed as on Zen 4 (run mthpscope probe)"),
	.nr_levels = 2,
	.level = {
		{ .name = "L1D", .entries = 96, .shared = true, .source = TLB_SRC_TABLE,
		  .cite = "AMD, Next Generation \"Zen 5\" Core, Hot Chips 2024, TLBs: L1 96-entry "
			  "DTLB; " AMD_SOG("1Ah", "58455") },
		{ .name = "L2", .entries = 4096, .shared = true, .source = TLB_SRC_TABLE,
		  .cite = "AMD, Next Generation \"Zen 5\" Core, Hot Chips 2024, TLBs: L2 4K-entry "
			  "DTLB, every page size but 1G (associativity not given)" },
	},
	.vendor = "AuthenticAMD",
	/* not 50h-5Fh, 80h-AFh, C0h-EFh: Zen 6 there (bsp_init_amd) */
	.match = { { 0x1a, 0x00, 0x2f }, { 0x1a, 0x40, 0x4f }, { 0x1a, 0x60, 0x7f } },
};

/* ---- Intel ---------------------------------------------------------------- */

static const struct tlb_geometry skylake = {
	.name = "skylake",
	.desc = "Intel Skylake (client and server; Kaby/Coffee/Cascade Lake cores)",
	.merge = TLB_MERGE_NONE,
	.merge_pages = 1,
	.merge_cite = INTEL_ORM ": no 4K merging documented",
	.nr_levels = 2,
	.level = {
		{ .name = "L1D", .entries = 64, .entries_pmd = 32, .shared = false, .ways = 4,
		  .source = TLB_SRC_TABLE,
		  .cite = INTEL_ORM ", Skylake client TLB parameters (Table 2-15 in -045): DTLB 4K "
			  "64 entries 4-way, 2M/4M 32 entries 4-way" },
		{ .name = "L2", .entries = 1536, .shared = true, .ways = 12, .source = TLB_SRC_TABLE,
		  .cite = INTEL_ORM ", Skylake client TLB parameters: STLB 4K+2M shared, 1536 "
			  "entries, 12-way" },
	},
	.vendor = "GenuineIntel",
	.match = { { 6, 0x4e, 0x4e }, { 6, 0x5e, 0x5e }, { 6, 0x55, 0x55 }, { 6, 0x8e, 0x8e },
		   { 6, 0x9e, 0x9e }, { 6, 0xa5, 0xa6 } },
};

#define GOLDEN_COVE_LEVELS                                                                 \
	{ .name = "L1D", .entries = 96, .entries_pmd = 32, .shared = false, .ways = 6,      \
	  .source = TLB_SRC_TABLE,                                                           \
	  .cite = INTEL_ORM ", Golden Cove TLB parameters: DTLB (loads) 4K 96 entries "     \
		  "6-way, 2M/4M 32 entries 4-way" },                                         \
	{ .name = "L2", .entries = 2048, .shared = true, .ways = 16, .source = TLB_SRC_TABLE, \
	  .cite = INTEL_ORM ", Golden Cove TLB parameters: STLB 4K and 2M/4M shared, 2048 " \
		  "entries, 16-way" }

static const struct tlb_geometry golden_cove = {
	.name = "golden-cove",
	.desc = "Intel Golden Cove / Raptor Cove P-cores (Alder Lake, Raptor Lake)",
	.merge = TLB_MERGE_NONE,
	.merge_pages = 1,
	.merge_cite = INTEL_ORM ": no 4K merging documented",
	.nr_levels = 2,
	.level = { GOLDEN_COVE_LEVELS },
	.vendor = "GenuineIntel",
	/* hybrid parts report one family/model for P- and E-cores: the P-core */
	.match = { { 6, 0x97, 0x97 }, { 6, 0x9a, 0x9a }, { 6, 0xb7, 0xb7 }, { 6, 0xba, 0xba },
		   { 6, 0xbf, 0xbf } },
	.notes = "the E-cores of these hybrid parts (Gracemont) have their own TLBs, not in this "
		 "table",
};

static const struct tlb_geometry sapphire_rapids = {
	.name = "sapphire-rapids",
	.desc = "Intel Sapphire Rapids / Emerald Rapids (Golden Cove server cores)",
	.merge = TLB_MERGE_NONE,
	.merge_pages = 1,
	.merge_cite = INTEL_ORM ": no 4K merging documented",
	.nr_levels = 2,
	.level = { GOLDEN_COVE_LEVELS },
	.vendor = "GenuineIntel",
	.match = { { 6, 0x8f, 0x8f }, { 6, 0xcf, 0xcf } },
};

static const struct tlb_geometry granite_rapids = {
	.name = "granite-rapids",
	.desc = "Intel Granite Rapids (Redwood Cove server cores)",
	.merge = TLB_MERGE_NONE,
	.merge_pages = 1,
	.merge_cite = INTEL_ORM ": no 4K merging documented",
	.nr_levels = 2,
	.level = { GOLDEN_COVE_LEVELS },
	.vendor = "GenuineIntel",
	.match = { { 6, 0xad, 0xae } },
	.notes = "no Redwood Cove TLB table was found: the Golden Cove figures are assumed; "
		 "check against CPUID leaf 0x18 (mthpscope info) on the machine",
};

/* ---- Arm ------------------------------------------------------------------ */

#define ARM_CONTPTE .merge = TLB_MERGE_CONTPTE, .merge_pages = 16, .hpa = false, .vendor = "arm", \
	.merge_cite = "contpte: 16 x 4K (64K), 128 x 16K (2M), 32 x 64K (2M): Arm ARM DDI 0487 " \
		      "D8.6.1 (contiguous bit); Linux arch/arm64 CONT_PTE_SHIFT"
/* The data L1 TLB's entry sizes where a TRM lists them: 4K, 16K, 64K, 2M
 * and 512M only; the L2 TLB breaks a 16K granule's 32M block into 2M
 * entries for it (Cortex-A76 TRM 100798 A5.2, A5.2.2). */
#define ARM_L1D_SIZES (1ULL << 12 | 1ULL << 14 | 1ULL << 16 | 1ULL << 21 | 1ULL << 29)

static const struct tlb_geometry cortex_a76 = {
	.name = "cortex-a76",
	.desc = "Arm Cortex-A76 (MIDR part D0Bh)",
	ARM_CONTPTE,
	.nr_levels = 2,
	.level = {
		{ .name = "L1D", .entries = 48, .shared = true, .sizes = ARM_L1D_SIZES,
		  .source = TLB_SRC_TABLE,
		  .cite = "Arm Cortex-A76 Core TRM (100798) A5.2.2: data L1 TLB 48 entries, fully "
			  "associative, 4K/16K/64K/2M/512M" },
		{ .name = "L2", .entries = 1280, .shared = true, .ways = 5, .source = TLB_SRC_TABLE,
		  .cite = "Arm Cortex-A76 Core TRM (100798) Table A5-3: L2 TLB 1280 entries, "
			  "5-way, shared by instructions and data" },
	},
	.match = { { 0x41, 0xd0b, 0xd0b } },
};

static const struct tlb_geometry neoverse_n1 = {
	.name = "neoverse-n1",
	.desc = "Arm Neoverse N1 (MIDR part D0Ch; the Cortex-A76's server core)",
	ARM_CONTPTE,
	.nr_levels = 2,
	.level = {
		{ .name = "L1D", .entries = 48, .shared = true, .sizes = ARM_L1D_SIZES,
		  .source = TLB_SRC_TABLE,
		  .cite = "Arm Neoverse N1 Core TRM (100616), L1 data TLB: 48 entries, fully "
			  "associative, 4K/16K/64K/2M/512M (as the Cortex-A76, TRM 100798 "
			  "A5.2.2)" },
		{ .name = "L2", .entries = 1280, .shared = true, .ways = 5, .source = TLB_SRC_TABLE,
		  .cite = "Arm Neoverse N1 Core TRM (100616), L2 TLB: 1280 entries, 5-way (as the "
			  "Cortex-A76, TRM 100798 Table A5-3)" },
	},
	.match = { { 0x41, 0xd0c, 0xd0c } },
};

static const struct tlb_geometry neoverse_n2 = {
	.name = "neoverse-n2",
	.desc = "Arm Neoverse N2 (MIDR part D49h)",
	ARM_CONTPTE,
	.nr_levels = 2,
	.level = {
		{ .name = "L1D", .entries = 48, .shared = true, .source = TLB_SRC_TABLE,
		  .cite = "Arm Neoverse N2 Core TRM (102099), L1 data TLB: 48 entries, fully "
			  "associative" },
		{ .name = "L2", .entries = 1536, .shared = true, .ways = 6, .source = TLB_SRC_TABLE,
		  .cite = "Arm Neoverse N2 Core TRM (102099), L2 TLB: 1536 entries, 6-way" },
	},
	.match = { { 0x41, 0xd49, 0xd49 } },
};

static const struct tlb_geometry neoverse_v1 = {
	.name = "neoverse-v1",
	.desc = "Arm Neoverse V1 (MIDR part D40h)",
	ARM_CONTPTE,
	.nr_levels = 2,
	.level = {
		{ .name = "L1D", .entries = 40, .shared = true, .source = TLB_SRC_TABLE,
		  .cite = "Arm Neoverse V2 Hot Chips 2023 talk: L1 DTLB \"increased from 40 to "
			  "48 entries\" over V1; Arm Neoverse V1 Core TRM (101427)" },
		{ .name = "L2", .entries = 2048, .shared = true, .ways = 8, .source = TLB_SRC_TABLE,
		  .cite = "Arm Neoverse V1 Core TRM (101427), L2 TLB: 2048 entries, 8-way" },
	},
	.match = { { 0x41, 0xd40, 0xd40 } },
};

static const struct tlb_geometry neoverse_v2 = {
	.name = "neoverse-v2",
	.desc = "Arm Neoverse V2 (MIDR part D4Fh)",
	ARM_CONTPTE,
	.nr_levels = 2,
	.level = {
		{ .name = "L1D", .entries = 48, .shared = true, .source = TLB_SRC_TABLE,
		  .cite = "Arm Neoverse V2 Hot Chips 2023 talk: fully associative L1 DTLB, 48 "
			  "entries; Arm Neoverse V2 Core TRM (102375)" },
		{ .name = "L2", .entries = 2048, .shared = true, .ways = 8, .source = TLB_SRC_TABLE,
		  .cite = "Arm Neoverse V2 Core TRM (102375), L2 TLB: 2048 entries, 8-way" },
	},
	.match = { { 0x41, 0xd4f, 0xd4f } },
};

static const struct tlb_geometry neoverse_v3 = {
	.name = "neoverse-v3",
	.desc = "Arm Neoverse V3 (MIDR part D84h; the Cortex-X4's server core)",
	ARM_CONTPTE,
	.nr_levels = 2,
	.level = {
		{ .name = "L1D", .entries = 96, .shared = true, .source = TLB_SRC_TABLE,
		  .cite = "Arm Cortex-X4 announcement (2023): L1 data TLB 48 -> 96 entries; V3 is "
			  "its server core (Neoverse V3 Core TRM 107734 not consulted)" },
		{ .name = "L2", .entries = 0, .shared = true, .source = TLB_SRC_TABLE,
		  .cite = "not found in the documents consulted: give it with --tlb-geometry" },
	},
	.match = { { 0x41, 0xd84, 0xd84 } },
	.notes = "L2 TLB size not documented here: no L2 prediction",
};

static const struct tlb_geometry cortex_x925 = {
	.name = "cortex-x925",
	.desc = "Arm Cortex-X925 (MIDR part D85h)",
	ARM_CONTPTE,
	.nr_levels = 2,
	.level = {
		{ .name = "L1D", .entries = 96, .shared = true, .sizes = ARM_L1D_SIZES,
		  .source = TLB_SRC_TABLE,
		  .cite = "Arm Cortex-X925 Core TRM (102807): L1 data TLB 96 entries, fully "
			  "associative, 4K/16K/64K/2M/512M" },
		{ .name = "L2", .entries = 2048, .shared = true, .ways = 8, .source = TLB_SRC_TABLE,
		  .cite = "Arm Cortex-X925 Core TRM (102807): L2 TLB 2048 entries, 8-way, shared "
			  "by instructions and data" },
	},
	.match = { { 0x41, 0xd85, 0xd85 } },
};

const struct tlb_geometry *const tlb_geometries[] = {
	&zen2, &zen3, &zen4, &zen5,
	&skylake, &golden_cove, &sapphire_rapids, &granite_rapids,
	&cortex_a76, &neoverse_n1, &neoverse_n2, &neoverse_v1, &neoverse_v2, &neoverse_v3,
	&cortex_x925,
	NULL,
};

const struct tlb_geometry *tlb_geometry_match(const char *vendor, int family, int model)
{
	const struct tlb_geometry *const *g;
	int i;

	if (!vendor)
		return NULL;
	for (g = tlb_geometries; *g; g++) {
		if (!(*g)->vendor || strcmp((*g)->vendor, vendor))
			continue;
		for (i = 0; i < TLB_MAX_MATCH && (*g)->match[i].family; i++)
			if ((*g)->match[i].family == family && model >= (*g)->match[i].model_lo &&
			    model <= (*g)->match[i].model_hi)
				return *g;
	}
	return NULL;
}
