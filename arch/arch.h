/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a CPU family offers for address-translation measurement, as data
 * (after libpfm4's pmu descriptors and LIKWID's TLB_DATA groups): the
 * semantic metrics of src/doc/metrics.c mapped to event
 * strings, derived metrics as formulas, and hints (TLB coalescing, TLB sizes).
 *
 * Exactly one of arch/x86/ and arch/arm64/ is compiled; it defines
 * arch_descs[] and the CPU identification hooks. arch/arch.c holds what is
 * common. Return convention: 0 / count on success, negative errno on failure.
 */
#ifndef ARCH_H
#define ARCH_H

#include <stdbool.h>
#include <stddef.h>

#include "folio_types.h"

/* One semantic metric on one family. */
struct arch_event {
	const char *metric; /* "walks", "walk_cycles", ... (src/doc/metrics.c names) */
	const char *event;  /* libpfm4 string, raw "rNNNN", or "cpu_core/rNNNN/" (hybrid) */
	const char *pmu;    /* hybrid: the sysfs PMU that counts it ("cpu_core"); else NULL */
};

enum arch_op {
	ARCH_OP_DIV, /* a / b * scale */
	ARCH_OP_ADD, /* (a + b) * scale */
	ARCH_OP_SUB, /* (a - b) * scale */
};

/* A derived metric: 'a' and 'b' name metrics of the same trial, or
 * "accesses" (the micro-kernel's access count). */
struct arch_formula {
	const char *name;
	enum arch_op op;
	const char *a, *b;
	double scale;
	const char *help;
};

/* Identification of this CPU, for detect() hooks and 'events'. */
struct arch_cpu {
	char vendor[16];   /* "GenuineIntel", "AuthenticAMD", "arm" */
	int family, model; /* x86 CPUID (display) family and model; -1 on arm64 */
	int implementer, part; /* arm64 MIDR_EL1 fields; -1 on x86 */
};
int arch_cpu_id(struct arch_cpu *c);

struct arch_desc {
	const char *name;    /* libpfm4 PMU name; upstream's when Debian's 4.13 lacks it */
	const char *family;  /* "Intel Ice Lake" */
	/* libpfm4 PMU names that select this description (NULL-terminated).
	 * Each must share the event table of the PMU 'name' (libpfm4's skx and
	 * clx use skl's, icx icl's): the named events, written "name::EVENT",
	 * are encoded on such a host as "skx::EVENT" (arch_event_bind), since
	 * libpfm4 encodes no event of a PMU it does not find active. */
	const char *const *pfm_names;
	/* Fallback when the installed libpfm4 has no table for the CPU:
	 * x86 vendor/family/model or arm64 MIDR implementer/part (c as
	 * arch_cpu_id() fills it; a table test passes others). */
	bool (*detect)(const struct arch_cpu *c);
	bool hybrid;                        /* events carry their sysfs PMU */
	const struct arch_event *events;    /* terminated by { NULL } */
	/* The same metrics in raw codes, for a CPU detect() finds but the
	 * installed libpfm4 does not know (its PMU is not active, so the
	 * named events do not encode): Zen 4 outside Genoa, Emerald Rapids.
	 * NULL when 'events' is raw already. */
	const struct arch_event *raw_events;
	/* The same metrics, in the same order, for a workload of stores (the
	 * store pattern, kernels-micro/store.c) where the family counts
	 * store-side TLB misses apart: Intel's DTLB_STORE_MISSES, whose
	 * DTLB_LOAD_MISSES counterparts see no store. NULL: 'events' count
	 * stores too (AMD PMCx045, Arm L1D_TLB_REFILL and DTLB_WALK).
	 * store_raw_events: raw_events' counterpart. */
	const struct arch_event *store_events;
	const struct arch_event *store_raw_events;
	const struct arch_formula *derived; /* terminated by { NULL } */
	int coalesce_order;   /* TLB coalescing of adjacent PTEs: AMD 2, arm64 contpte 4; -1 none */
	const char *coalesce; /* in words, with its source */
	const char *notes;    /* what is missing on purpose ("no walk-cycle event") */
	/* Does this machine's PMU count the event? 1 yes, 0 no, negative errno
	 * when it cannot tell. NULL: assume yes. (arm64 generic PMUv3: the
	 * kernel lists in sysfs only the common events the PMCEID registers
	 * announce.) */
	int (*counted)(const char *event);
};

/* Which accesses a workload makes, for arch_events_for(). */
enum arch_access {
	ARCH_ACCESS_LOADS,  /* every pattern but store, and a command */
	ARCH_ACCESS_STORES, /* the store pattern */
};

/* d's event table for 'access': d->store_events (store_raw_events when
 * raw) for ARCH_ACCESS_STORES where d has them, else d->events
 * (raw_events). raw without such a table: NULL. */
const struct arch_event *arch_events_for(const struct arch_desc *d, enum arch_access access,
					 bool raw);

/* arch_arm64_contpte_order: in folio_types.h (plain facts analysis uses). */

/* d->counted(event), or 1 when d has no such hook. */
int arch_event_counted(const struct arch_desc *d, const char *event);

/* The compiled arch directory's descriptions, NULL-terminated. */
extern const struct arch_desc *const arch_descs[];

/* By libpfm4 PMU name (any of pfm_names, or the description's name). */
const struct arch_desc *arch_find(const char *pmu_name);
/* The first description whose detect() claims c, or NULL. */
const struct arch_desc *arch_detect(const struct arch_cpu *c);

/* 'event' as the libpfm4 PMU 'pfm' (one of d->pfm_names, active here)
 * names it: "skl::X" becomes "skx::X" in buf. Returns event itself when
 * nothing changes (pfm NULL, empty or d->name; a raw or hybrid string), buf
 * when it does, NULL when buf is too small. */
const char *arch_event_bind(const struct arch_desc *d, const char *event, const char *pfm,
			    char *buf, size_t size);

/* Raw event syntax of the tables: "rHEX" (pmu "") or "PMU/rHEX/" (pmu
 * named, perf's hybrid form). 0 or -EINVAL. */
int arch_parse_raw(const char *s, char *pmu, size_t pmu_size, unsigned long long *config);

/* Evaluate d's formulas (and the common ones: walks per 1000 accesses, walk
 * cycles per access, MMU overhead = walk cycles / cycles as in HawkEye).
 * get(metric) returns a measured value or NAN when absent; a formula whose
 * input is absent yields NAN (the metric is then absent, never zero), and a
 * metric already measured is not derived again. Fills out[] with up to max
 * entries; returns the count. */
struct arch_value {
	const char *name;
	double value;
};
int arch_derive(const struct arch_desc *d, double (*get)(const char *metric, void *ctx),
		void *ctx, struct arch_value *out, int max);
const struct arch_formula *arch_common_formulas(void);

/* Data TLB geometry from CPUID where x86 offers it (AMD leaves 0x80000005/6,
 * Intel leaf 0x18); -EOPNOTSUPP elsewhere, -ENODATA when the leaves list no
 * data TLB (a VM's empty leaf). Entries 0 when not reported. */
struct arch_tlb {
	int l1d_4k, l1d_2m, l2_4k, l2_2m; /* entries */
	const char *source;               /* "CPUID 0x80000005/0x80000006" */
	/* ways of the same (0: not reported; -1 fully associative) */
	int l1d_4k_ways, l1d_2m_ways, l2_4k_ways, l2_2m_ways;
	int l1d_1g, l2_1g;                /* 1G entries (AMD 0x80000019, Intel 0x18) */
};
int arch_tlb_geometry(struct arch_tlb *t);


#endif
