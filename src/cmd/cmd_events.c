// SPDX-License-Identifier: GPL-2.0-or-later
/* mthpscope events: the TLB event set of this CPU family (or a named one),
 * each semantic metric with its event string and the perf_event_attr it
 * encodes to. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch.h"
#include "cli.h"
#include "commands.h"
#include "counters.h"
#include "report.h"

#define EVENTS_SCHEMA "mthpscope.events/1"

struct events_cmd_opts {
	const char *pmu;
	enum report_format format;
};

static const struct cli_cmd events_cli = {
	.name = "events",
	.summary = "List the TLB event set of this CPU family (or --pmu NAME) with encodings.",
	.details = "Each semantic metric (dtlb_misses, stlb_hits, walks, walk_cycles,\n"
		   "coalesced_hits, cycles, instructions) with its event string and the\n"
		   "perf_event_attr type/config/config1 libpfm4 encodes it to. A named PMU is\n"
		   "encoded even when it is not this CPU's (LIBPFM_ENCODE_INACTIVE), for reference.\n"
		   "Exit status: 0 listed, 2 unknown --pmu, 3 no event set fits this CPU.",
	.opts = (const struct cli_opt[]){
		{ "pmu", 'p', "NAME",
		  "a libpfm4 PMU name (icl, spr, amd64_fam19h_zen4, arm_n1, ...) instead of this CPU's; "
		  "'list' prints the known names", .type = CLI_STRING,
		  CLI_AT(struct events_cmd_opts, pmu) },
		CLI_FORMAT_ROWS(struct events_cmd_opts, format, 'f', cli_formats_text_json,
				cli_formats_text_json_vals,
				"text (default) or json (schema mthpscope.events/1)"),
		CLI_END,
	},
};

static void list_names(FILE *f)
{
	const struct arch_desc *const *d;

	for (d = arch_descs; *d; d++)
		fprintf(f, "  %-20s %s\n", (*d)->name, (*d)->family);
}

/* The metric name as arch_pmu_specs gives it: hybrid metrics of the
 * second PMU carry its name. */
static void metric_name(const struct arch_desc *d, const struct arch_event *e, char *buf,
			size_t size)
{
	if (e->pmu && d->events[0].pmu && strcmp(e->pmu, d->events[0].pmu))
		snprintf(buf, size, "%s_%s", e->metric, e->pmu);
	else
		snprintf(buf, size, "%s", e->metric);
}

static json_t *build(const struct arch_desc *d, int *nr_bad)
{
	const struct arch_event *e;
	json_t *metrics = json_array();

	*nr_bad = 0;
	for (e = d->events; e->metric; e++) {
		struct perf_event_attr a;
		unsigned long long raw;
		char name[64], pmu[64];
		json_t *m;
		int err = counters_encode(e->event, false, &a);

		int counted = d->counted ? d->counted(e->event) : -ENOSYS;

		metric_name(d, e, name, sizeof(name));
		m = json_pack("{s:s, s:s}", "metric", name, "event", e->event);
		/* only where the description can ask this machine's PMU */
		if (d->counted)
			json_object_set_new(m, "counted", counted < 0 ? json_null() :
					    json_boolean(counted));
		if (err) {
			/* a hybrid PMU absent here: its perf type is a property of the host */
			bool parsed = !counters_parse_raw(e->event, pmu, sizeof(pmu), &raw);

			json_object_set_new(m, "type", json_null());
			json_object_set_new(m, "config",
					    parsed ? json_integer((json_int_t)raw) : json_null());
			json_object_set_new(m, "config1", parsed ? json_integer(0) : json_null());
			json_object_set_new(m, "error", json_string(counters_encode_detail()));
			(*nr_bad)++;
		} else {
			json_object_set_new(m, "type", json_integer(a.type));
			json_object_set_new(m, "config", json_integer((json_int_t)a.config));
			json_object_set_new(m, "config1", json_integer((json_int_t)a.config1));
		}
		json_array_append_new(metrics, m);
	}
	return json_pack("{s:s, s:s, s:o}", "schema", EVENTS_SCHEMA, "pmu", d->name, "metrics",
			 metrics);
}

static void print_text(const struct arch_desc *d, json_t *doc, bool this_cpu)
{
	const struct arch_formula *lists[2] = { d->derived, arch_common_formulas() };
	const struct arch_formula *f;
	struct arch_tlb t;
	json_t *m;
	size_t i;
	int l;

	printf("%s: %s\n\n", d->name, d->family);
	printf("  %-20s %-5s %-12s %-8s %s\n", "metric", "type", "config", "config1", "event");
	json_array_foreach(json_object_get(doc, "metrics"), i, m) {
		json_t *type = json_object_get(m, "type");

		char tbuf[16];

		if (json_is_null(type))
			snprintf(tbuf, sizeof(tbuf), "-");
		else
			snprintf(tbuf, sizeof(tbuf), "%lld", (long long)json_integer_value(type));
		json_t *counted = json_object_get(m, "counted");

		printf("  %-20s %-5s 0x%-10llx 0x%-6llx %s%s%s%s%s\n",
		       json_string_value(json_object_get(m, "metric")), tbuf,
		       (unsigned long long)json_integer_value(json_object_get(m, "config")),
		       (unsigned long long)json_integer_value(json_object_get(m, "config1")),
		       json_string_value(json_object_get(m, "event")),
		       json_is_null(type) ? "  (" : "",
		       json_is_null(type) ? json_string_value(json_object_get(m, "error")) : "",
		       json_is_null(type) ? ")" : "",
		       !counted ? "" : json_is_true(counted) ? "  [counted by this PMU]" :
		       json_is_false(counted) ? "  [NOT counted by this PMU]" :
		       "  [unknown whether this PMU counts it]");
	}
	printf("\nDerived metrics\n");
	for (l = 0; l < 2; l++)
		for (f = lists[l]; f && f->name; f++)
			printf("  %-24s %s\n", f->name, f->help);
	printf("\nTLB coalescing: %s\n", d->coalesce);
#if defined(__aarch64__)
	if (this_cpu) {
		long ps = sysconf(_SC_PAGESIZE);
		int co = arch_arm64_contpte_order(ps);

		if (co >= 0)
			printf("With this kernel's %ldK pages: the contpte block is %ldK (order %d)\n",
			       ps >> 10, (ps << co) >> 10, co);
	}
#endif
	printf("Notes: %s\n", d->notes);
	if (this_cpu && !arch_tlb_geometry(&t))
		printf("This CPU's data TLB (%s): L1 %d x 4K, %d x 2M; L2 %d x 4K, %d x 2M\n",
		       t.source, t.l1d_4k, t.l1d_2m, t.l2_4k, t.l2_2m);
}

static int events_cmd(int argc, char **argv)
{
	struct events_cmd_opts o = { .format = REPORT_TEXT };
	const struct arch_desc *d = NULL;
	char why[512];
	json_t *doc;
	int i, err, nr_bad;

	if ((i = cli_parse_no_args(&events_cli, argc, argv, &o)) >= 0)
		return i;
	if (o.pmu && !strcmp(o.pmu, "list")) {
		list_names(stdout);
		return MS_EXIT_OK;
	}
	if (o.pmu) {
		d = arch_find(o.pmu);
		if (!d) {
			ms_err("events: no event set for PMU '%s'; known names:", o.pmu);
			list_names(stderr);
			return MS_EXIT_USAGE;
		}
		/* another CPU's table: libpfm4 encodes it only when asked to,
		 * and must be told before it starts */
		setenv("LIBPFM_ENCODE_INACTIVE", "1", 0);
	} else if ((err = arch_detect(&d, why, sizeof(why)))) {
		ms_err("events: %s", why);
		return MS_EXIT_ENV;
	}

	err = counters_probe_hw();
	if (err && err != -ENOSYS) {
		counters_strerror(err, true, why, sizeof(why));
		if (o.pmu)
			ms_note("the encodings below are for reference: no hardware counter opens "
				"here (%s)", why);
		else
			ms_note("libpfm4 detects '%s', but no hardware counter opens here (%s): %s; "
				"these encodings are what 'run' would use on this CPU with a PMU",
				d->name, strerror(-err), why);
	}

	doc = build(d, &nr_bad);
	if (nr_bad)
		ms_note("%d event(s) name a PMU this host does not have (hybrid cpu_core/cpu_atom): "
			"their perf type is left null", nr_bad);
	if (o.format == REPORT_JSON) {
		json_dumpf(doc, stdout, JSON_INDENT(2));
		putchar('\n');
	} else {
		print_text(d, doc, !o.pmu);
	}
	json_decref(doc);
	return MS_EXIT_OK;
}

MS_COMMAND(events, "the TLB event set of this CPU family, with encodings");
