// SPDX-License-Identifier: GPL-2.0-or-later
/* info's text: the mthpscope.info/1 document for people (info_report.h). */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "info_report.h"

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "-";
}

static void human_bytes(json_int_t b, char *buf, size_t size)
{
	if (b <= 0)
		snprintf(buf, size, "?");
	else if (b >= 1 << 20)
		snprintf(buf, size, "%lld MiB", (long long)b >> 20);
	else
		snprintf(buf, size, "%lld KiB", (long long)b >> 10);
}

static void print_thp(json_t *thp)
{
	size_t i;
	const char *k;
	json_t *v;

	printf("\nTransparent huge pages\n");
	if (json_object_get(thp, "boot_note"))
		printf("  note: %s\n", str(thp, "boot_note"));
	if (!json_is_true(json_object_get(thp, "available"))) {
		printf("  not available: %s\n", str(thp, "reason"));
	} else {
		json_t *sizes = json_object_get(thp, "sizes");

		if (json_object_get(thp, "per_size_reason"))
			printf("  limited: %s\n", str(thp, "per_size_reason"));
		printf("  enabled %s, defrag %s, shmem_enabled %s\n", str(thp, "enabled"),
		       str(thp, "defrag"), str(thp, "shmem_enabled"));
		printf("  %5s %8s %5s %-9s %12s %12s %10s\n", "order", "size", "anon", "enabled",
		       "fault_alloc", "fallback", "nr_anon");
		json_array_foreach(sizes, i, v) {
			json_t *st = json_object_get(v, "stats");
			char sz[16];
			snprintf(sz, sizeof(sz), "%lldkB", json_integer_value(json_object_get(v, "kb")));
			printf("  %5lld %8s %5s %-9s %12lld %12lld %10lld\n",
			       json_integer_value(json_object_get(v, "order")), sz,
			       json_is_true(json_object_get(v, "anon")) ? "yes" : "no",
			       json_is_true(json_object_get(v, "anon")) ? str(v, "enabled") : "-",
			       json_integer_value(json_object_get(st, "anon_fault_alloc")),
			       json_integer_value(json_object_get(st, "anon_fault_fallback")),
			       json_integer_value(json_object_get(st, "nr_anon")));
		}
		printf("  khugepaged   ");
		json_object_foreach(json_object_get(thp, "khugepaged"), k, v)
			printf(" %s=%lld", k, json_integer_value(v));
		printf("\n  mTHP collapse %s (%s)\n",
		       json_is_true(json_object_get(thp, "mthp_collapse")) ? "yes" : "no",
		       str(thp, "mthp_collapse_reason"));
		printf("  per-size defer %s\n",
		       json_is_true(json_object_get(thp, "size_defer")) ? "offered" : "not offered");
	}
}

static void print_perf(json_t *pmu, json_t *perf)
{
	size_t i;
	json_t *v;

	printf("\nPerformance counters\n");
	printf("  perf_event_paranoid %lld\n", json_integer_value(json_object_get(perf, "paranoid")));
	printf("  libpfm4 PMU models:");
	if (!json_array_size(json_object_get(pmu, "models")))
		printf(" none detected");
	json_array_foreach(json_object_get(pmu, "models"), i, v)
		printf(" %s", json_string_value(v));
	printf("\n  hardware events: %s\n",
	       json_is_true(json_object_get(pmu, "available")) ? "available" : str(pmu, "reason"));
	printf("  software events:");
	json_array_foreach(json_object_get(perf, "software_events"), i, v)
		printf(" %s%s", str(v, "name"),
		       json_is_true(json_object_get(v, "opens")) ? "" : "(unavailable)");
	printf("\n");
}

static void print_tlb_level(json_t *lv)
{
	json_t *e = json_object_get(lv, "entries"), *c = json_object_get(lv, "cpuid_entries");
	char fig[64] = "not known", ways[24] = "", cp[32] = "";

	if (json_is_integer(e) && json_is_true(json_object_get(lv, "shared")))
		snprintf(fig, sizeof(fig), "%lld entries", json_integer_value(e));
	else if (json_is_integer(e))
		snprintf(fig, sizeof(fig), "%lld + %lld PMD entries", json_integer_value(e),
			 json_integer_value(json_object_get(lv, "entries_pmd")));
	if (json_is_integer(json_object_get(lv, "ways")))
		snprintf(ways, sizeof(ways), ", %lld-way",
			 json_integer_value(json_object_get(lv, "ways")));
	if (json_is_integer(c))
		snprintf(cp, sizeof(cp), "; cpuid %lld", json_integer_value(c));
	printf("  %-13s %s%s (%s)%s\n", str(lv, "level"), fig, ways, str(lv, "source"), cp);
	if (json_is_string(json_object_get(lv, "disagreement")))
		printf("  %-13s %s\n", "  DISAGREES", str(lv, "disagreement"));
}

/* " (4 or 8 x 4K pages in one entry)": every merged size */
static void print_merge_sizes(json_t *sizes, long long largest)
{
	size_t i, n = json_array_size(sizes);

	printf(" (");
	if (!n)
		printf("%lld", largest);
	for (i = 0; i < n; i++)
		printf("%s%lld", i ? (i + 1 == n ? " or " : ", ") : "",
		       json_integer_value(json_array_get(sizes, i)));
	printf(" x 4K pages in one entry)");
}

/* One row of the side-by-side view: a level's entries in every column. */
static void print_side_row(json_t *cols, size_t lv)
{
	json_t *col, *l;
	size_t i;
	char cell[48];

	l = json_array_get(json_object_get(json_array_get(cols, 0), "levels"), lv);
	printf("  %-13s", json_is_object(l) ? str(l, "level") : "?");
	json_array_foreach(cols, i, col) {
		json_t *e, *p;

		l = json_array_get(json_object_get(col, "levels"), lv);
		e = json_object_get(l, "entries");
		p = json_object_get(l, "entries_pmd");
		if (json_is_integer(e) && json_is_integer(p))
			snprintf(cell, sizeof(cell), "%lld + %lld PMD", json_integer_value(e),
				 json_integer_value(p));
		else if (json_is_integer(e))
			snprintf(cell, sizeof(cell), "%lld", json_integer_value(e));
		else
			snprintf(cell, sizeof(cell), "-");
		printf(i + 1 < json_array_size(cols) ? " %-24s" : " %s", cell);
	}
	printf("\n");
}

/* Table, CPUID and a file's figures (a probe's measurement) in columns. */
static void print_side_by_side(json_t *cols)
{
	json_t *col, *v;
	size_t i, k, levels = 0;
	char cell[64];

	if (json_array_size(cols) < 2)
		return;
	printf("  %-13s", "side by side");
	json_array_foreach(cols, i, col) {
		snprintf(cell, sizeof(cell), "%s (%s)", str(col, "from"), str(col, "model"));
		printf(i + 1 < json_array_size(cols) ? " %-24s" : " %s", cell);
		if (json_array_size(json_object_get(col, "levels")) > levels)
			levels = json_array_size(json_object_get(col, "levels"));
	}
	printf("\n  %-13s", "merge pages");
	json_array_foreach(cols, i, col) {
		size_t n = 0;

		cell[0] = '\0';
		json_array_foreach(json_object_get(col, "merge_sizes"), k, v)
			n += (size_t)snprintf(cell + n, n < sizeof(cell) ? sizeof(cell) - n : 0,
					      "%s%lld", k ? "," : "", json_integer_value(v));
		printf(i + 1 < json_array_size(cols) ? " %-24s" : " %s", cell);
	}
	printf("\n");
	for (k = 0; k < levels; k++)
		print_side_row(cols, k);
}

static void print_tlb(json_t *tlb)
{
	json_t *cpu = json_object_get(tlb, "cpu"), *g = json_object_get(tlb, "geometry");
	json_t *cpuid = json_object_get(tlb, "cpuid"), *lv;
	size_t i;

	printf("\nTLB model (figures from: table, cpuid or user; 'info --tlb-model list' for all)\n");
	printf("  cpu           %s family %#llx model %#llx\n", str(cpu, "vendor"),
	       json_integer_value(json_object_get(cpu, "family")),
	       json_integer_value(json_object_get(cpu, "model")));
	if (json_is_true(json_object_get(cpuid, "available")))
		printf("  cpuid         L1D 4K %lld, 2M %lld; L2 4K %lld, 2M %lld; 1G L1D %lld, "
		       "L2 %lld (%s)\n", json_integer_value(json_object_get(cpuid, "l1d_4k")),
		       json_integer_value(json_object_get(cpuid, "l1d_2m")),
		       json_integer_value(json_object_get(cpuid, "l2_4k")),
		       json_integer_value(json_object_get(cpuid, "l2_2m")),
		       json_integer_value(json_object_get(cpuid, "l1d_1g")),
		       json_integer_value(json_object_get(cpuid, "l2_1g")), str(cpuid, "source"));
	else
		printf("  cpuid         none (%s)\n", str(cpuid, "reason"));
	if (!json_is_object(g)) {
		printf("  model         none: %s\n", str(tlb, "reason"));
		return;
	}
	printf("  model         %s: %s (picked by %s)\n", str(g, "model"), str(g, "desc"),
	       str(tlb, "picked_by"));
	printf("  merge         %s", str(g, "merge"));
	if (strcmp(str(g, "merge"), "none"))
		print_merge_sizes(json_object_get(g, "merge_sizes"),
				  json_integer_value(json_object_get(g, "merge_pages")));
	printf("%s\n", json_is_true(json_object_get(g, "hpa")) ? ", HPA on" : "");
	if (json_is_string(json_object_get(g, "merge_cite")))
		printf("  merge source  %s\n", str(g, "merge_cite"));
	json_array_foreach(json_object_get(g, "levels"), i, lv)
		print_tlb_level(lv);
	if (json_is_string(json_object_get(g, "notes")))
		printf("  note          %s\n", str(g, "notes"));
	print_side_by_side(json_object_get(tlb, "side_by_side"));
}

static void print_kconfig(json_t *kc)
{
	json_t *v;
	const char *k;

	printf("\nKernel config\n");
	if (!json_is_true(json_object_get(kc, "found"))) {
		printf("  not found (%s)\n", str(kc, "reason"));
		return;
	}
	printf("  %s\n", str(kc, "path"));
	json_object_foreach(json_object_get(kc, "options"), k, v)
		printf("  %s=%s\n", k, json_string_value(v));
}

void info_print_text(json_t *doc)
{
	json_t *host = json_object_get(doc, "host"), *thp = json_object_get(doc, "thp");
	json_t *topo = json_object_get(host, "topology"), *caches = json_object_get(topo, "caches");
	json_t *pmu = json_object_get(host, "pmu"), *pm = json_object_get(doc, "pagemap");
	json_t *perf = json_object_get(doc, "perf");
	char l1[32], l2[32], l3[32];

	human_bytes(json_integer_value(json_object_get(caches, "l1d")), l1, sizeof(l1));
	human_bytes(json_integer_value(json_object_get(caches, "l2")), l2, sizeof(l2));
	human_bytes(json_integer_value(json_object_get(caches, "l3")), l3, sizeof(l3));
	printf("Host\n");
	printf("  kernel        %s (%s)\n", str(host, "kernel"), str(host, "arch"));
	printf("  cpu           %s\n", str(host, "cpu_model"));
	printf("  topology      %lld package(s), %lld core(s), %lld PU(s), %lld NUMA node(s)\n",
	       json_integer_value(json_object_get(topo, "packages")),
	       json_integer_value(json_object_get(topo, "cores")),
	       json_integer_value(json_object_get(topo, "pus")),
	       json_integer_value(json_object_get(topo, "numa_nodes")));
	printf("  caches        L1d %s, L2 %s, L3 %s\n", l1, l2, l3);
	printf("  virtualized   %s (%s)\n",
	       json_is_true(json_object_get(host, "virtualized")) ? "yes" : "no",
	       str(host, "virtualization"));
	printf("  emulated CPU  %s (%s)%s\n",
	       json_is_true(json_object_get(host, "emulated")) ? "yes" : "no", str(host, "emulation"),
	       json_is_true(json_object_get(host, "emulated")) ?
		       ": timing and cycles say nothing about hardware" : "");
	printf("  page size     %lld, PMD order %lld (%lld kB)\n",
	       json_integer_value(json_object_get(host, "page_size")),
	       json_integer_value(json_object_get(host, "pmd_order")),
	       json_integer_value(json_object_get(host, "pmd_size")) / 1024);

	print_thp(thp);
	print_kconfig(json_object_get(doc, "kernel_config"));

	printf("\nFolio orders (pagemap + kpageflags)\n");
	printf("  pagemap %s, PFNs %s, kpageflags %s%s%s\n",
	       json_is_true(json_object_get(pm, "pagemap_readable")) ? "readable" : "unreadable",
	       json_is_true(json_object_get(pm, "pfns_visible")) ? "visible" : "hidden",
	       json_is_true(json_object_get(pm, "kpageflags_readable")) ? "readable" : "unreadable",
	       *str(pm, "reason") ? ": " : "", str(pm, "reason"));

	print_perf(pmu, perf);
	print_tlb(json_object_get(doc, "tlb"));
}
