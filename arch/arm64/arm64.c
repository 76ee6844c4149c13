// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * arm64 event sets: Neoverse N1/N2/N3/V1/V2/V3, Cortex-A76..A78, A710/A715,
 * A720/A725. The codes are Armv8/v9 common PMU events (Arm ARM DDI 0487,
 * "PMU events and event numbers"), the same number on every core that
 * implements them: L1D_TLB_REFILL 0x05, L1D_TLB 0x25, L2D_TLB_REFILL 0x2d,
 * DTLB_WALK 0x34, CPU_CYCLES 0x11, INST_RETIRED 0x08, DTLB_WALK_PERCYC 0x8128
 * (only on newer cores: it adds the number of data walks in progress each
 * cycle, an occupancy like Intel's WALK_PENDING, not the cycles with a walk
 * in flight that walk_cycles and mmu_overhead mean; with walks overlapping
 * it exceeds the cycles. It is recorded as walk_pending.) Strings use libpfm4's
 * tables where Debian's libpfm4 4.13 has them (arm_n1, arm_n2, arm_v1,
 * arm_v2), raw codes elsewhere. tests/test_arch.c checks every encoding under
 * qemu-user in the arm64 build.
 *
 * Arm has no counter for contiguous-PTE (contpte) TLB hits, and stlb_hits is
 * derived (first-level refills that did not walk).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"

static const struct arch_formula arm_derived[] = {
	{ "stlb_hits", ARCH_OP_SUB, "dtlb_misses", "walks", 1.0,
	  "L1D_TLB_REFILL - DTLB_WALK: first-level refills served by the L2 TLB" },
	{ "dtlb_miss_ratio", ARCH_OP_DIV, "dtlb_misses", "dtlb_accesses", 1.0,
	  "L1D_TLB_REFILL / L1D_TLB" },
	{ NULL },
};

#define CONTPTE "contpte: 16 contiguous, aligned 4K PTEs (64K, order 4) may share one TLB " \
		"entry (Arm ARM DDI 0487, Contiguous bit); Linux maps anon folios of order >= 4 " \
		"with it since 6.9. No PMU event counts contpte hits"
#define NO_PERCYC "no DTLB_WALK_PERCYC on this core: walk_cycles and mmu_overhead absent"
#define PERCYC_NOTES "raw codes (no libpfm4 4.13 table); DTLB_WALK_PERCYC counts walks in " \
		     "progress each cycle (occupancy): walk_pending, not walk_cycles; " \
		     "walk_cycles and mmu_overhead absent"

static int midr_part(int *implementer)
{
	char buf[64];
	unsigned long midr;
	FILE *f = fopen("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "re");

	if (!f)
		return -ENOENT;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	midr = strtoul(buf, NULL, 0);
	/* MIDR_EL1: implementer [31:24], part number [15:4] */
	*implementer = (int)((midr >> 24) & 0xff);
	return (int)((midr >> 4) & 0xfff);
}

int arch_cpu_id(struct arch_cpu *c)
{
	int part, impl = -1;

	memset(c, 0, sizeof(*c));
	snprintf(c->vendor, sizeof(c->vendor), "arm");
	c->family = c->model = -1;
	part = midr_part(&impl);
	if (part < 0) {
		c->implementer = c->part = -1;
		return part;
	}
	c->implementer = impl;
	c->part = part;
	return 0;
}

static bool arm_part_in(const struct arch_cpu *c, const int *parts)
{
	if (c->implementer != 0x41) /* 'A': Arm Ltd */
		return false;
	for (; *parts; parts++)
		if (c->part == *parts)
			return true;
	return false;
}

#define ARM_PFM_EVENTS(pmu)                                                     \
	{ "dtlb_misses", pmu "::L1D_TLB_REFILL" },   /* 0x05 */             \
	{ "dtlb_accesses", pmu "::L1D_TLB" },        /* 0x25 */             \
	{ "l2_tlb_refills", pmu "::L2D_TLB_REFILL" }, /* 0x2d */            \
	{ "walks", pmu "::DTLB_WALK" },              /* 0x34 */             \
	{ "cycles", pmu "::CPU_CYCLES" },            /* 0x11 */             \
	{ "instructions", pmu "::INST_RETIRED" }     /* 0x08 */

#define ARM_RAW_EVENTS                                                          \
	{ "dtlb_misses", "r05" }, { "dtlb_accesses", "r25" },                  \
	{ "l2_tlb_refills", "r2d" }, { "walks", "r34" },                        \
	{ "cycles", "r11" }, { "instructions", "r08" }

/* Arm Neoverse N1 TRM (doc 100616), PMU events; libpfm4
 * lib/events/arm_neoverse_n1_events.h. */
static const struct arch_event n1_events[] = { ARM_PFM_EVENTS("arm_n1"), { NULL } };
/* Arm Neoverse N2 TRM (doc 102099); libpfm4 arm_neoverse_n2_events.h. */
static const struct arch_event n2_events[] = { ARM_PFM_EVENTS("arm_n2"), { NULL } };
/* Arm Neoverse V1 TRM (doc 101427); libpfm4 arm_neoverse_v1_events.h. */
static const struct arch_event v1_events[] = { ARM_PFM_EVENTS("arm_v1"), { NULL } };
/* Arm Neoverse V2 TRM (doc 102375); libpfm4 arm_neoverse_v2_events.h. */
static const struct arch_event v2_events[] = { ARM_PFM_EVENTS("arm_v2"), { NULL } };
/* Neoverse N3 / V3 and Cortex-A720/A725: perf pmu-events neoverse-n3,
 * neoverse-v3, cortex-a720 tlb.json list DTLB_WALK_PERCYC (0x8128, Arm ARM
 * DDI 0487 common event); Debian's libpfm4 4.13 has no table: raw codes. */
static const struct arch_event percyc_events[] = {
	ARM_RAW_EVENTS,
	{ "walk_pending", "r8128" }, /* occupancy: not walk_cycles (see above) */
	{ NULL },
};
/* Cortex-A76 TRM (doc 100798), A77, A78, A710, A715 TRMs: common events
 * 0x05/0x25/0x2d/0x34; no per-cycle walk event. Raw codes: no libpfm4 4.13
 * table (upstream libpfm4 names it arm_ac76). */
static const struct arch_event a7x_events[] = { ARM_RAW_EVENTS, { NULL } };

static bool n3_detect(const struct arch_cpu *c)
{
	static const int parts[] = { 0xd8e, 0 }; /* Linux asm/cputype.h */
	return arm_part_in(c, parts);
}
static bool v3_detect(const struct arch_cpu *c)
{
	static const int parts[] = { 0xd84, 0 };
	return arm_part_in(c, parts);
}
static bool a7x_detect(const struct arch_cpu *c)
{
	/* A76 0xd0b, A77 0xd0d, A78 0xd41, A710 0xd47, A715 0xd4d */
	static const int parts[] = { 0xd0b, 0xd0d, 0xd41, 0xd47, 0xd4d, 0 };
	return arm_part_in(c, parts);
}
static bool a720_detect(const struct arch_cpu *c)
{
	static const int parts[] = { 0xd81, 0xd87, 0 }; /* A720, A725 */
	return arm_part_in(c, parts);
}

#define ARM_DESC(var, nm, fam, names_, det, evs, note)                          \
	static const char *const var##_names[] = names_;                         \
	static const struct arch_desc var = {                                   \
		.name = nm,                                                     \
		.family = fam,                                                  \
		.pfm_names = var##_names,                                       \
		.detect = det,                                                  \
		.events = evs,                                                  \
		.derived = arm_derived,                                         \
		.coalesce_order = 4,                                            \
		.coalesce = CONTPTE,                                            \
		.notes = note,                                                  \
	}
#define NAMES(...) { __VA_ARGS__, NULL }

ARM_DESC(arm_n1, "arm_n1", "Arm Neoverse N1", NAMES("arm_n1"), NULL, n1_events, NO_PERCYC);
ARM_DESC(arm_n2, "arm_n2", "Arm Neoverse N2", NAMES("arm_n2"), NULL, n2_events, NO_PERCYC);
ARM_DESC(arm_v1, "arm_v1", "Arm Neoverse V1", NAMES("arm_v1"), NULL, v1_events, NO_PERCYC);
ARM_DESC(arm_v2, "arm_v2", "Arm Neoverse V2", NAMES("arm_v2"), NULL, v2_events, NO_PERCYC);
ARM_DESC(arm_n3, "arm_n3", "Arm Neoverse N3", NAMES("arm_n3"), n3_detect, percyc_events,
	 PERCYC_NOTES);
ARM_DESC(arm_v3, "arm_v3", "Arm Neoverse V3", NAMES("arm_v3"), v3_detect, percyc_events,
	 PERCYC_NOTES);
ARM_DESC(arm_ac76, "arm_ac76", "Arm Cortex-A76/A77/A78/A710/A715", NAMES("arm_ac76"),
	 a7x_detect, a7x_events, NO_PERCYC);
ARM_DESC(arm_ac720, "arm_ac720", "Arm Cortex-A720/A725", NAMES("arm_ac720"), a720_detect,
	 percyc_events, PERCYC_NOTES);

/*
 * Any other PMUv3 (a core no table names, QEMU's emulated PMU): the common
 * events keep their numbers on every PMUv3 (Arm ARM DDI 0487, "Common
 * event numbers"), but a core need not implement each. Linux's PMUv3
 * driver lists under /sys/bus/event_source/devices/<pmu>/events/ only the
 * common events the PMCEID0/1 registers announce (armv8pmu_event_attr_is_visible),
 * so that list says which of them this PMU counts.
 */
#define PMU_SYSFS "/sys/bus/event_source/devices"

/* The core PMU's sysfs directory: armv8_pmuv3[_N], armv8_cortex_*, armv9_*. */
static int core_pmu_dir(char *buf, size_t size)
{
	DIR *d = opendir(PMU_SYSFS);
	struct dirent *de;
	int err = -ENOENT;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "armv8_", 6) && strncmp(de->d_name, "armv9_", 6))
			continue;
		snprintf(buf, size, PMU_SYSFS "/%s", de->d_name);
		err = 0;
		break;
	}
	closedir(d);
	return err;
}

static bool pmuv3_detect(const struct arch_cpu *c)
{
	char dir[300];

	(void)c; /* any core: the kernel's PMU directory decides */
	return core_pmu_dir(dir, sizeof(dir)) == 0;
}

static int pmuv3_counted(const char *event)
{
	char dir[300], path[600], buf[64];
	unsigned long long code;
	struct dirent *de;
	DIR *d;
	int found = 0;

	if (event[0] != 'r' || arch_parse_raw(event, buf, sizeof(buf), &code))
		return -EINVAL;
	if (core_pmu_dir(dir, sizeof(dir)))
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events", dir);
	if (!(d = opendir(path)))
		return -errno;
	while (!found && (de = readdir(d))) {
		FILE *f;
		const char *p;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", dir, de->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		/* "event=0x0011" */
		if (fgets(buf, sizeof(buf), f) && (p = strstr(buf, "event=")) &&
		    strtoull(p + 6, NULL, 0) == code)
			found = 1;
		fclose(f);
	}
	closedir(d);
	return found;
}

static const struct arch_event pmuv3_events[] = { ARM_RAW_EVENTS, { NULL } };
static const char *const pmuv3_names[] = { "arm_pmuv3", NULL };
static const struct arch_desc arm_pmuv3 = {
	.name = "arm_pmuv3",
	.family = "Arm PMUv3, core not in mthpscope's tables (architected common events)",
	.pfm_names = pmuv3_names,
	.detect = pmuv3_detect,
	.events = pmuv3_events,
	.derived = arm_derived,
	.coalesce_order = 4,
	.coalesce = CONTPTE,
	.notes = "raw common event numbers; each counted only where this PMU's PMCEID "
		 "announces it (the kernel's sysfs event list)",
	.counted = pmuv3_counted,
};

/* arm_pmuv3 last: it fits any PMUv3, the named cores first. */
const struct arch_desc *const arch_descs[] = {
	&arm_n1, &arm_n2, &arm_n3, &arm_v1, &arm_v2, &arm_v3, &arm_ac76, &arm_ac720, &arm_pmuv3,
	NULL,
};

int arch_tlb_geometry(struct arch_tlb *t)
{
	/* arm64 has no architectural register that reports TLB sizes */
	memset(t, 0, sizeof(*t));
	return -EOPNOTSUPP;
}
