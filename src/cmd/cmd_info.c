// SPDX-License-Identifier: GPL-2.0-or-later
/* mthpscope info: what this machine can measure. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "counters.h"
#include "folio.h"
#include "results.h"
#include "thp.h"
#include "tlb_opt.h"
#include "topo.h"

#define INFO_SCHEMA "mthpscope.info/1"

enum { OPT_JSON = 'j', OPT_TLB_MODEL = 0x100, OPT_TLB_GEOMETRY };

static const struct cli_opt info_options[] = {
	{ "json", OPT_JSON, NULL, "print JSON (schema mthpscope.info/1) instead of text" },
	TLB_OPT_ROWS(OPT_TLB_MODEL, OPT_TLB_GEOMETRY),
	{ NULL },
};

static const struct cli_cmd info_cli = {
	.name = "info",
	.summary = "Describe this machine: CPU, caches, mTHP sizes and knobs, khugepaged, "
		   "pagemap access, PMU and software events.",
	.details = "Read-only; works without root (PFN visibility and some files need root).",
	.opts = info_options,
};

struct info_cmd_opts {
	bool json;
	struct tlb_opt tlb;
};

static int on_opt(int key, const char *arg, void *ctx)
{
	struct info_cmd_opts *o = ctx;

	if (key == OPT_JSON)
		o->json = true;
	else if (key == OPT_TLB_MODEL)
		return tlb_opt_model(&o->tlb, "info", arg);
	else if (key == OPT_TLB_GEOMETRY)
		return tlb_opt_geometry(&o->tlb, "info", arg);
	return 0;
}

/* CPUID's TLB figures as read (0: not reported; ways -1: fully associative). */
static json_t *tlb_cpuid_json(const struct tlb_host *h)
{
	const struct arch_tlb *r = &h->raw;

	if (!h->has_cpuid)
		return json_pack("{s:b, s:s}", "available", false, "reason",
				 !strcmp(h->vendor, "arm") ? "arm64 has no CPUID: the table by MIDR"
							   : "CPUID reports no data TLB");
	return json_pack("{s:b, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}",
			 "available", true, "source", r->source, "l1d_4k", r->l1d_4k, "l1d_4k_ways",
			 r->l1d_4k_ways, "l1d_2m", r->l1d_2m, "l1d_2m_ways", r->l1d_2m_ways, "l2_4k",
			 r->l2_4k, "l2_4k_ways", r->l2_4k_ways, "l2_2m", r->l2_2m, "l2_2m_ways",
			 r->l2_2m_ways, "l1d_1g", r->l1d_1g, "l2_1g", r->l2_1g);
}

/* The model's geometry for this host (or the one asked for), each level
 * with CPUID's figure beside and the disagreement in words. */
static json_t *tlb_json(const struct tlb_opt *opt, const struct tlb_host *h,
			const struct tlb_geometry *g)
{
	json_t *o, *geo, *lv;
	char diff[160];
	size_t i;
	int n = 0;

	o = json_pack("{s:{s:s, s:i, s:i}, s:o}", "cpu", "vendor", h->vendor, "family", h->family,
		      "model", h->model, "cpuid", tlb_cpuid_json(h));
	json_object_set_new(o, "picked_by", json_string(opt->have_user ? "--tlb-geometry" :
							 tlb_opt_given(opt) ? "--tlb-model" :
							 h->table ? "cpu identity" :
							 g ? "cpuid (no table entry)" : "none"));
	if (!g) {
		json_object_set_new(o, "geometry", json_null());
		json_object_set_new(o, "reason", json_string("no table entry for this CPU and no "
							     "CPUID figures: give --tlb-model NAME "
							     "or --tlb-geometry FILE"));
		return o;
	}
	geo = tlb_geometry_json(g);
	json_array_foreach(json_object_get(geo, "levels"), i, lv) {
		tlb_host_compare(h, g, (int)i, diff, sizeof(diff));
		if (h->has_cpuid && g != &h->cpuid && (int)i < h->cpuid.nr_levels)
			json_object_set_new(lv, "cpuid_entries",
					    json_integer(h->cpuid.level[i].entries));
		json_object_set_new(lv, "disagreement", diff[0] ? json_string(diff) : json_null());
		n += diff[0] != '\0';
	}
	json_object_set_new(o, "geometry", geo);
	json_object_set_new(o, "disagreements", json_integer(n));
	return o;
}

static json_t *sw_events_json(void)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < ctr_nr_sw_events; i++) {
		int err = ctr_probe_sw(&ctr_sw_events[i]);
		json_t *e = json_pack("{s:s, s:b}", "name", ctr_sw_events[i].name, "opens", err == 0);
		if (err)
			json_object_set_new(e, "error", json_string(strerror(-err)));
		json_array_append_new(arr, e);
	}
	return arr;
}

static json_t *build_info(const struct info_cmd_opts *o, int *env_err)
{
	const struct tlb_geometry *g;
	struct tlb_host th;
	struct topo_info t;
	struct thp_settings s;
	struct folio_probe fp;
	json_t *doc, *thp, *orders;
	char msg[512];
	int err, i;

	*env_err = 0;
	topo_describe(&t);
	err = thp_read(&s);
	doc = json_pack("{s:s, s:o}", "schema", INFO_SCHEMA, "tool", results_tool_json());
	json_object_set_new(doc, "host", results_host_json(&t, &s));
	if (err) {
		thp_strerror(err, msg, sizeof(msg));
		thp = json_pack("{s:b, s:s}", "available", false, "reason", msg);
		*env_err = err;
	} else {
		thp = results_thp_json(&s, true);
		json_object_set_new(thp, "available", json_true());
		orders = json_array();
		for (i = 0; i < s.nr_sizes; i++)
			if (s.sizes[i].anon)
				json_array_append_new(orders, json_integer(s.sizes[i].order));
		json_object_set_new(thp, "anon_orders", orders);
		json_object_set_new(thp, "size_defer", json_boolean(s.size_defer));
		json_object_set_new(thp, "mthp_collapse", json_boolean(s.mthp_collapse));
		json_object_set_new(thp, "mthp_collapse_reason",
				    json_string(s.mthp_collapse
							? "per-size collapse counters exist below the PMD size"
							: "no per-size collapse counters below the PMD size: "
							  "khugepaged collapses only to the PMD size"));
	}
	json_object_set_new(doc, "thp", thp);
	folio_probe(&fp);
	json_object_set_new(doc, "pagemap",
			    json_pack("{s:b, s:b, s:b, s:s}", "pagemap_readable",
				      fp.pagemap_readable, "pfns_visible", fp.pfns_visible,
				      "kpageflags_readable", fp.kpageflags_readable, "reason",
				      fp.reason));
	json_object_set_new(doc, "perf",
			    json_pack("{s:i, s:o}", "paranoid", ctr_paranoid(), "software_events",
				      sw_events_json()));
	json_object_set_new(doc, "journal", json_pack("{s:b, s:s}", "present",
						      thp_journal_exists(), "rundir", thp_rundir()));
	tlb_host_describe(&th);
	g = tlb_opt_pick(&o->tlb, "info", &th, tlb_host_geometry(&th));
	if (!g && o->tlb.cpuid) {
		json_decref(doc);
		*env_err = -ENODEV;
		return NULL;
	}
	json_object_set_new(doc, "tlb", tlb_json(&o->tlb, &th, g));
	return doc;
}

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
		printf(" (%lld x 4K pages in one entry)",
		       json_integer_value(json_object_get(g, "merge_pages")));
	printf("%s\n", json_is_true(json_object_get(g, "hpa")) ? ", HPA on" : "");
	json_array_foreach(json_object_get(g, "levels"), i, lv)
		print_tlb_level(lv);
	if (json_is_string(json_object_get(g, "notes")))
		printf("  note          %s\n", str(g, "notes"));
}

static void print_text(json_t *doc)
{
	json_t *host = json_object_get(doc, "host"), *thp = json_object_get(doc, "thp");
	json_t *topo = json_object_get(host, "topology"), *caches = json_object_get(topo, "caches");
	json_t *pmu = json_object_get(host, "pmu"), *pm = json_object_get(doc, "pagemap");
	json_t *perf = json_object_get(doc, "perf"), *v;
	char l1[32], l2[32], l3[32];
	size_t i;
	const char *k;

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

	printf("\nTransparent huge pages\n");
	if (!json_is_true(json_object_get(thp, "available"))) {
		printf("  not available: %s\n", str(thp, "reason"));
	} else {
		json_t *sizes = json_object_get(thp, "sizes");
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

	printf("\nFolio orders (pagemap + kpageflags)\n");
	printf("  pagemap %s, PFNs %s, kpageflags %s%s%s\n",
	       json_is_true(json_object_get(pm, "pagemap_readable")) ? "readable" : "unreadable",
	       json_is_true(json_object_get(pm, "pfns_visible")) ? "visible" : "hidden",
	       json_is_true(json_object_get(pm, "kpageflags_readable")) ? "readable" : "unreadable",
	       *str(pm, "reason") ? ": " : "", str(pm, "reason"));

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
	print_tlb(json_object_get(doc, "tlb"));
}

static int info_cmd(int argc, char **argv)
{
	struct info_cmd_opts o = { 0 };
	json_t *doc;
	int i, env_err, rc = MS_EXIT_OK;

	i = cli_parse(&info_cli, argc, argv, on_opt, &o);
	if (i == CLI_DONE)
		goto out;
	rc = MS_EXIT_USAGE;
	if (i < 0)
		goto out;
	if (i < argc) {
		ms_err("info: unexpected argument '%s'", argv[i]);
		cli_usage(&info_cli, stderr);
		goto out;
	}
	rc = MS_EXIT_OK;
	if (tlb_opt_done(&o.tlb, o.json))
		goto out;
	if (!(doc = build_info(&o, &env_err))) {
		rc = env_err == -ENODEV ? MS_EXIT_ENV : MS_EXIT_FAIL;
		goto out;
	}
	if (o.json) {
		json_dumpf(doc, stdout, JSON_INDENT(2));
		putchar('\n');
	} else {
		print_text(doc);
	}
	json_decref(doc);
	if (env_err == -EBADMSG)
		rc = MS_EXIT_FAIL;
out:
	tlb_opt_release(&o.tlb);
	return rc;
}

const struct ms_command cmd_info = {
	.name = "info",
	.summary = "what this machine can measure (CPU, mTHP sizes, khugepaged, PMU)",
	.run = info_cmd,
	.cli = &info_cli,
};
