/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * This host's TLB geometry: the table entry (arch/tlb_geometry.c) picked by
 * CPUID family/model or MIDR implementer/part, with the figures x86 CPUID
 * reports beside it (AMD 0x80000005/0x80000006/0x80000019, Intel leaf 0x18;
 * arm64 has no such register: the table alone). In a VM CPUID can be
 * synthetic, so a disagreement is flagged, not resolved: the table wins
 * unless the user picks --tlb-model cpuid or gives --tlb-geometry FILE.
 */
#ifndef TLB_HOST_H
#define TLB_HOST_H

#include <jansson.h>
#include <stdbool.h>

#include "arch.h"
#include "tlb_model.h"

struct tlb_host {
	char vendor[16];                   /* "AuthenticAMD", "GenuineIntel", "arm" */
	int family, model;                 /* x86 display family/model; arm64 implementer/part */
	const struct tlb_geometry *table;  /* the table's entry for this CPU, or NULL */
	bool has_cpuid;                    /* CPUID gave figures */
	struct arch_tlb raw;               /* CPUID's figures as read */
	struct tlb_geometry cpuid;         /* the same as a geometry (source cpuid) */
	char cpuid_desc[96];
	int nr_disagree;                   /* levels where table and CPUID differ */
	char disagree[TLB_MAX_LEVELS][160];/* per level: "" or the difference in words */
};

/* Fill *h. Never fails: what could not be read is absent (table NULL,
 * has_cpuid false). */
void tlb_host_describe(struct tlb_host *h);
/* The geometry the model uses for this host: the table's entry, else the
 * CPUID figures; NULL when neither exists. */
const struct tlb_geometry *tlb_host_geometry(const struct tlb_host *h);
/* Per level of g, CPUID's figure beside g's and whether they differ:
 * "" when they agree or CPUID says nothing. */
void tlb_host_compare(const struct tlb_host *h, const struct tlb_geometry *g, int level,
		      char *buf, size_t size);

#endif
