// SPDX-License-Identifier: GPL-2.0-or-later
/* The mthpscope.info/1 document: what this machine can measure, from the
 * probes of the measurement side (topo, thp, thp_kernel, kconfig, folio,
 * counters, tlb_host). Nothing here prints. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "folio.h"
#include "info_doc.h"
#include "kconfig.h"
#include "results.h"
#include "thp.h"
#include "thp_kernel.h"
#include "topo.h"

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

/* One column of the side-by-side view: where the figures come from, the
 * merge sizes (pages; [1] for none) and each level's entries. */
static json_t *column_json(const char *from, const struct tlb_geometry *g)
{
	json_t *sizes = json_array(), *lv = json_array();
	unsigned set = tlb_merge_set(g);
	int k;

	for (k = 0; k < 32; k++)
		if (set & (1u << k))
			json_array_append_new(sizes, json_integer(1 << k));
	if (!set)
		json_array_append_new(sizes, json_integer(1));
	for (k = 0; k < g->nr_levels; k++)
		json_array_append_new(lv, json_pack("{s:s, s:o, s:o}", "level",
						    g->level[k].name ? g->level[k].name : "?",
						    "entries", g->level[k].entries
							    ? json_integer(g->level[k].entries)
							    : json_null(),
						    "entries_pmd", !g->level[k].shared &&
								   g->level[k].entries_pmd
							    ? json_integer(g->level[k].entries_pmd)
							    : json_null()));
	return json_pack("{s:s, s:s, s:o, s:o}", "from", from, "model", g->name ? g->name : "?",
			 "merge_sizes", sizes, "levels", lv);
}

/* Table, CPUID and a file (a probe's measurement) side by side, where a
 * file was given and there is anything to set it against. */
static json_t *side_by_side(const struct tlb_host *h, const struct tlb_geometry *g)
{
	json_t *a = json_array();

	if (h->table)
		json_array_append_new(a, column_json("table", h->table));
	if (h->has_cpuid)
		json_array_append_new(a, column_json("cpuid", &h->cpuid));
	if (g && g != h->table && g != &h->cpuid && g->level[0].source == TLB_SRC_USER)
		json_array_append_new(a, column_json("file", g));
	return a;
}

/* The model's geometry for this host (or the one asked for), each level
 * with CPUID's figure beside and the disagreement in words. */
static json_t *tlb_json(const struct tlb_host *h, const struct tlb_geometry *g,
			const char *picked_by)
{
	json_t *o, *geo, *lv;
	char diff[160];
	size_t i;
	int n = 0;

	o = json_pack("{s:{s:s, s:i, s:i}, s:o}", "cpu", "vendor", h->vendor, "family", h->family,
		      "model", h->model, "cpuid", tlb_cpuid_json(h));
	json_object_set_new(o, "picked_by", json_string(picked_by));
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
	json_object_set_new(o, "side_by_side", side_by_side(h, g));
	return o;
}

static json_t *sw_events_json(void)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < counters_nr_sw_events; i++) {
		int err = counters_probe_sw(&counters_sw_events[i]);
		json_t *e = json_pack("{s:s, s:b}", "name", counters_sw_events[i].name, "opens", err == 0);
		if (err)
			json_object_set_new(e, "error", json_string(strerror(-err)));
		json_array_append_new(arr, e);
	}
	return arr;
}

/* Why THP is missing or limited (kconfig.h): thp.kernel, and the reasons. */
static void add_kernel_json(json_t *thp)
{
	struct thp_kernel k;
	char why[512];

	thp_kernel_probe(&k);
	json_object_set_new(thp, "kernel",
			    json_pack("{s:s, s:s?, s:b, s:b, s:b, s:b}", "release", k.release,
				      "config", k.config_path[0] ? k.config_path : NULL,
				      "preempt_rt", k.preempt_rt, "cmdline_never",
				      k.cmdline_never, "sysfs", k.sysfs, "per_size", k.per_size));
	json_object_set_new(json_object_get(thp, "kernel"), "transparent_hugepage_config",
			    k.configured < 0 ? json_null() : json_boolean(k.configured));
	thp_kernel_why(&k, why, sizeof(why));
	if (why[0] && json_is_true(json_object_get(thp, "available")))
		json_object_set_new(thp, "per_size_reason", json_string(why));
	thp_kernel_boot_note(&k, why, sizeof(why));
	/* stale once someone wrote the knob: said only while it still says never */
	if (why[0] && !json_is_false(json_object_get(thp, "available")) &&
	    strcmp(json_string_value(json_object_get(thp, "enabled")) ?: "never", "never"))
		why[0] = '\0';
	if (why[0])
		json_object_set_new(thp, "boot_note", json_string(why));
}

/* The kernel's build config, where the system keeps it: the THP options. */
static json_t *kconfig_json(void)
{
	json_t *o = json_object(), *opts = json_object();
	char path[512], val[128];
	size_t i;

	if (kconfig_find(path, sizeof(path))) {
		json_decref(opts);
		json_object_set_new(o, "found", json_false());
		json_object_set_new(o, "reason", json_string("no /boot/config-RELEASE, "
							     "/lib/modules/RELEASE/config or "
							     "/proc/config.gz"));
		return o;
	}
	json_object_set_new(o, "found", json_true());
	json_object_set_new(o, "path", json_string(path));
	for (i = 0; kconfig_thp_options[i]; i++) {
		char name[96];

		if (kconfig_get(path, kconfig_thp_options[i], val, sizeof(val)))
			continue;
		snprintf(name, sizeof(name), "CONFIG_%s", kconfig_thp_options[i]);
		json_object_set_new(opts, name, json_string(val));
	}
	json_object_set_new(o, "options", opts);
	return o;
}

json_t *info_doc_build(const struct tlb_host *th, const struct tlb_geometry *g,
		       const char *picked_by, int *env_err)
{
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
	json_object_set_new(doc, "kernel_config", kconfig_json());
	if (err == -ENOENT) {
		/* say what the config says about the missing THP */
		json_t *kc = json_object_get(doc, "kernel_config");
		const char *v = json_string_value(json_object_get(
			json_object_get(kc, "options"), "CONFIG_TRANSPARENT_HUGEPAGE"));

		if (v && strcmp(v, "y"))
			json_object_set_new(thp, "reason",
					    json_sprintf("%s: CONFIG_TRANSPARENT_HUGEPAGE is not set "
							 "in %s", msg,
							 json_string_value(json_object_get(kc, "path"))));
	}
	add_kernel_json(thp);
	json_object_set_new(doc, "thp", thp);
	folio_probe(&fp);
	json_object_set_new(doc, "pagemap",
			    json_pack("{s:b, s:b, s:b, s:s}", "pagemap_readable",
				      fp.pagemap_readable, "pfns_visible", fp.pfns_visible,
				      "kpageflags_readable", fp.kpageflags_readable, "reason",
				      fp.reason));
	json_object_set_new(doc, "perf",
			    json_pack("{s:i, s:o}", "paranoid", counters_paranoid(), "software_events",
				      sw_events_json()));
	json_object_set_new(doc, "journal", json_pack("{s:b, s:s}", "present",
						      thp_journal_exists(), "rundir", thp_rundir()));
	json_object_set_new(doc, "tlb", tlb_json(th, g, picked_by));
	return doc;
}
