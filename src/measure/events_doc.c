// SPDX-License-Identifier: GPL-2.0-or-later
/* events' document (mthpscope.events/1) and its text: a CPU family's TLB
 * event set from its arch description, each event encoded by libpfm4. On
 * the measurement side: the descriptions and the encoder are arch/ and
 * counters code. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "arch_pmu.h"
#include "counters.h"
#include "events_doc.h"
#include "results.h"

void events_list_pmus(FILE *f)
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

/* One event's row: its string as bound here, and what it encodes to. */
static json_t *event_row(const struct arch_desc *d, const struct arch_event *e, const char *pfm,
			 struct events_bad *bad)
{
	struct perf_event_attr a;
	unsigned long long raw;
	char name[64], pmu[64], bound[320];
	const char *ev = arch_event_bind(d, e->event, pfm, bound, sizeof(bound));
	int err = ev ? counters_encode(ev, false, &a) : -ENAMETOOLONG;
	int counted = d->counted ? d->counted(e->event) : -ENOSYS;
	json_t *m;

	metric_name(d, e, name, sizeof(name));
	m = json_pack("{s:s, s:s}", "metric", name, "event", ev ? ev : e->event);
	/* only where the description can ask this machine's PMU */
	if (d->counted)
		json_object_set_new(m, "counted", counted < 0 ? json_null() : json_boolean(counted));
	if (err) {
		/* a hybrid PMU absent here: its perf type is a property of the host */
		bool parsed = !arch_parse_raw(e->event, pmu, sizeof(pmu), &raw);

		json_object_set_new(m, "type", json_null());
		json_object_set_new(m, "config", parsed ? json_integer((json_int_t)raw) : json_null());
		json_object_set_new(m, "config1", parsed ? json_integer(0) : json_null());
		json_object_set_new(m, "error", json_string(ev ? counters_encode_detail() :
							    strerror(ENAMETOOLONG)));
		if (e->pmu)
			bad->absent_pmu++;
		else
			bad->not_encoded++;
	} else {
		json_object_set_new(m, "type", json_integer(a.type));
		json_object_set_new(m, "config", json_integer((json_int_t)a.config));
		json_object_set_new(m, "config1", json_integer((json_int_t)a.config1));
	}
	return m;
}

json_t *events_doc_build(const struct arch_desc *d, enum arch_access access,
			 struct events_bad *bad)
{
	const struct arch_event *e;
	json_t *metrics = json_array();
	char pfm[64];

	memset(bad, 0, sizeof(*bad));
	for (e = arch_pmu_bind(d, access, pfm, sizeof(pfm)); e->metric; e++)
		json_array_append_new(metrics, event_row(d, e, pfm, bad));
	return json_pack("{s:s, s:o, s:s, s:s, s:o}", "schema", EVENTS_SCHEMA, "tool",
			 results_tool_json(), "pmu", d->name, "access",
			 access == ARCH_ACCESS_STORES ? "stores" : "loads", "metrics", metrics);
}

/* Which patterns the listed set counts, and where the others' set is. */
static void write_access(const struct arch_desc *d, json_t *doc, FILE *out)
{
	bool stores = !strcmp(json_string_value(json_object_get(doc, "access")), "stores");

	if (!d->store_events)
		fprintf(out, "Every pattern counts with these events (they count loads and stores)\n");
	else if (stores)
		fprintf(out, "The store pattern counts with these events (stores' DTLB events); "
			"the other patterns with 'mthpscope events' without --pattern store\n");
	else
		fprintf(out, "Every pattern but store counts with these events (loads' DTLB "
			"events); the store pattern's: 'mthpscope events --pattern store'\n");
}

void events_write_text(const struct arch_desc *d, json_t *doc, bool this_cpu, FILE *out)
{
	const struct arch_formula *lists[2] = { d->derived, arch_common_formulas() };
	const struct arch_formula *f;
	struct arch_tlb t;
	json_t *m;
	size_t i;
	int l;

	fprintf(out, "%s: %s\n\n", d->name, d->family);
	fprintf(out, "  %-20s %-5s %-12s %-8s %s\n", "metric", "type", "config", "config1", "event");
	json_array_foreach(json_object_get(doc, "metrics"), i, m) {
		json_t *type = json_object_get(m, "type");

		char tbuf[16];

		if (json_is_null(type))
			snprintf(tbuf, sizeof(tbuf), "-");
		else
			snprintf(tbuf, sizeof(tbuf), "%lld", (long long)json_integer_value(type));
		json_t *counted = json_object_get(m, "counted");

		fprintf(out, "  %-20s %-5s 0x%-10llx 0x%-6llx %s%s%s%s%s\n",
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
	fprintf(out, "\nDerived metrics\n");
	for (l = 0; l < 2; l++)
		for (f = lists[l]; f && f->name; f++)
			fprintf(out, "  %-24s %s\n", f->name, f->help);
	fprintf(out, "\n");
	write_access(d, doc, out);
	fprintf(out, "TLB coalescing: %s\n", d->coalesce);
#if defined(__aarch64__)
	if (this_cpu) {
		long ps = sysconf(_SC_PAGESIZE);
		int co = arch_arm64_contpte_order(ps);

		if (co >= 0)
			fprintf(out, "With this kernel's %ldK pages: the contpte block is %ldK (order %d)\n",
				ps >> 10, (ps << co) >> 10, co);
	}
#endif
	fprintf(out, "Notes: %s\n", d->notes);
	if (this_cpu && !arch_tlb_geometry(&t))
		fprintf(out, "This CPU's data TLB (%s): L1 %d x 4K, %d x 2M; L2 %d x 4K, %d x 2M\n",
			t.source, t.l1d_4k, t.l1d_2m, t.l2_4k, t.l2_2m);
}
