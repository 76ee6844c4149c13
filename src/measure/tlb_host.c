// SPDX-License-Identifier: GPL-2.0-or-later
/* This host's TLB geometry: table by CPU identity, CPUID's figures beside. */
#include "tlb_host.h"

#include <stdio.h>
#include <string.h>

/* CPUID's figures as a geometry. CPUID cannot say whether 4K and 2M
 * translations share one pool: equal figures are taken as one pool,
 * different ones as two. The merge rule is the vendor's (CPUID has none). */
static void cpuid_level(struct tlb_level_geometry *l, const char *name, int e4k, int e2m,
			int ways, const char *cite)
{
	l->name = name;
	l->entries = e4k > 0 ? (unsigned)e4k : 0;
	l->shared = e2m <= 0 || e2m == e4k;
	l->entries_pmd = l->shared ? 0 : (unsigned)e2m;
	l->ways = ways > 0 ? (unsigned)ways : 0;
	l->source = TLB_SRC_CPUID;
	l->cite = cite;
}

static void cpuid_geometry(struct tlb_host *h)
{
	struct tlb_geometry *g = &h->cpuid;
	bool amd = !strcmp(h->vendor, "AuthenticAMD") || !strcmp(h->vendor, "HygonGenuine");

	snprintf(h->cpuid_desc, sizeof(h->cpuid_desc), "this host's CPUID (%s family %#x model %#x)",
		 h->vendor, h->family, h->model);
	g->name = "cpuid";
	g->desc = h->cpuid_desc;
	g->merge = h->table ? h->table->merge : amd ? TLB_MERGE_COALESCE : TLB_MERGE_NONE;
	g->merge_pages = h->table ? h->table->merge_pages : amd ? 4 : 1;
	g->merge_set = h->table ? h->table->merge_set : 0;
	g->merge_cite = h->table ? h->table->merge_cite : NULL;
	g->nr_levels = h->raw.l2_4k > 0 ? 2 : 1;
	cpuid_level(&g->level[0], "L1D", h->raw.l1d_4k, h->raw.l1d_2m, h->raw.l1d_4k_ways,
		    h->raw.source);
	cpuid_level(&g->level[1], "L2", h->raw.l2_4k, h->raw.l2_2m, h->raw.l2_4k_ways,
		    h->raw.source);
}

void tlb_host_describe(struct tlb_host *h)
{
	struct arch_cpu c;
	int i;

	memset(h, 0, sizeof(*h));
	h->family = h->model = -1;
	if (!arch_cpu_id(&c)) {
		if (c.implementer >= 0) {
			snprintf(h->vendor, sizeof(h->vendor), "arm");
			h->family = c.implementer;
			h->model = c.part;
		} else {
			snprintf(h->vendor, sizeof(h->vendor), "%s", c.vendor);
			h->family = c.family;
			h->model = c.model;
		}
		h->table = tlb_geometry_match(h->vendor, h->family, h->model);
	}
	if (!arch_tlb_geometry(&h->raw) && h->raw.l1d_4k > 0) {
		h->has_cpuid = true;
		cpuid_geometry(h);
	}
	if (!h->table || !h->has_cpuid)
		return;
	for (i = 0; i < h->table->nr_levels; i++) {
		tlb_host_compare(h, h->table, i, h->disagree[i], sizeof(h->disagree[i]));
		h->nr_disagree += h->disagree[i][0] != '\0';
	}
}

const struct tlb_geometry *tlb_host_geometry(const struct tlb_host *h)
{
	if (h->table)
		return h->table;
	return h->has_cpuid ? &h->cpuid : NULL;
}

void tlb_host_compare(const struct tlb_host *h, const struct tlb_geometry *g, int level,
		      char *buf, size_t size)
{
	const struct tlb_level_geometry *l, *c;

	buf[0] = '\0';
	if (!h->has_cpuid || g == &h->cpuid || level >= g->nr_levels ||
	    level >= h->cpuid.nr_levels)
		return;
	l = &g->level[level];
	c = &h->cpuid.level[level];
	if (!c->entries || !l->entries || c->entries == l->entries)
		return;
	snprintf(buf, size, "%s: %s says %u entries, this host's CPUID %u%s", l->name,
		 tlb_source_name(l->source), l->entries, c->entries,
		 h->table && g == h->table ? " (a VM's CPUID can be synthetic; the sweep of "
					     "run --sweep measures which holds)" : "");
}
