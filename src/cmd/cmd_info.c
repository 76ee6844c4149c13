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
#include "kconfig.h"
#include "results.h"
#include "thp.h"
#include "topo.h"

#define INFO_SCHEMA "mthpscope.info/1"

enum { OPT_JSON = 'j' };

static const struct cli_opt info_options[] = {
	{ "json", OPT_JSON, NULL, "print JSON (schema mthpscope.info/1) instead of text" },
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
};

static int on_opt(int key, const char *arg, void *ctx)
{
	struct info_cmd_opts *o = ctx;

	(void)arg;
	if (key == OPT_JSON)
		o->json = true;
	return 0;
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

static json_t *build_info(int *env_err)
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
	add_kernel_json(thp);
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
	if (json_object_get(thp, "boot_note"))
		printf("  note: %s\n", str(thp, "boot_note"));
	if (!json_is_true(json_object_get(thp, "available"))) {
		printf("  not available: %s\n", str(thp, "reason"));
	} else {
		if (json_object_get(thp, "per_size_reason"))
			printf("  limited: %s\n", str(thp, "per_size_reason"));
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
}

static int info_cmd(int argc, char **argv)
{
	struct info_cmd_opts o = { 0 };
	json_t *doc;
	int i, env_err;

	i = cli_parse(&info_cli, argc, argv, on_opt, &o);
	if (i == CLI_DONE)
		return MS_EXIT_OK;
	if (i < 0)
		return MS_EXIT_USAGE;
	if (i < argc) {
		ms_err("info: unexpected argument '%s'", argv[i]);
		cli_usage(&info_cli, stderr);
		return MS_EXIT_USAGE;
	}
	doc = build_info(&env_err);
	if (o.json) {
		json_dumpf(doc, stdout, JSON_INDENT(2));
		putchar('\n');
	} else {
		print_text(doc);
	}
	json_decref(doc);
	if (env_err == -EBADMSG)
		return MS_EXIT_FAIL;
	return MS_EXIT_OK;
}

const struct ms_command cmd_info = {
	.name = "info",
	.summary = "what this machine can measure (CPU, mTHP sizes, khugepaged, PMU)",
	.run = info_cmd,
	.cli = &info_cli,
};
