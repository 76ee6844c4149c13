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
#include "info_report.h"
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

static int info_cmd(int argc, char **argv)
{
	struct info_cmd_opts o = { 0 };
	json_t *doc;
	int i, env_err;

	if ((i = cli_parse_no_args(&info_cli, argc, argv, on_opt, &o)) >= 0)
		return i;
	doc = build_info(&env_err);
	if (o.json) {
		json_dumpf(doc, stdout, JSON_INDENT(2));
		putchar('\n');
	} else {
		info_print_text(doc);
	}
	json_decref(doc);
	if (env_err == -EBADMSG)
		return MS_EXIT_FAIL;
	return MS_EXIT_OK;
}

MS_COMMAND(info, "what this machine can measure (CPU, mTHP sizes, khugepaged, PMU)");
