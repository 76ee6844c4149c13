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

#include "arch_pmu.h"
#include "bench.h"
#include "cli.h"
#include "commands.h"
#include "counters.h"
#include "events_doc.h"
#include "kernel.h"
#include "report.h"

struct events_cmd_opts {
	const char *pmu;
	const char *pattern;
	enum report_format format;
};

static const struct cli_cmd events_cli = {
	.name = "events",
	.summary = "List the TLB event set of this CPU family (or --pmu NAME) with encodings.",
	.details = "Each semantic metric (dtlb_misses, stlb_hits, walks, walk_cycles,\n"
		   "walk_pending, coalesced_hits, cycles, instructions) with its event string and the\n"
		   "perf_event_attr type/config/config1 libpfm4 encodes it to. A named PMU is\n"
		   "encoded even when it is not this CPU's (LIBPFM_ENCODE_INACTIVE), for reference.\n"
		   "The set is the one 'run' counts every pattern but store with; --pattern store\n"
		   "lists the store pattern's, which differs where the CPU counts stores' TLB\n"
		   "misses apart (Intel: DTLB_STORE_MISSES instead of DTLB_LOAD_MISSES).",
	.exit_status =
		   "0 listed, 2 unknown --pmu or --pattern, 3 no event set fits this CPU.",
	.opts = (const struct cli_opt[]){
		{ "pmu", 'p', "NAME",
		  "a libpfm4 PMU name (icl, spr, amd64_fam19h_zen4, arm_n1, ...) instead of this CPU's; "
		  "'list' prints the known names", CLI_ROW_STRING(struct events_cmd_opts, pmu) },
		{ "pattern", 0, "NAME",
		  "the set 'run --pattern NAME' counts with (default chase-tlb; store differs on Intel)",
		  CLI_ROW_STRING(struct events_cmd_opts, pattern) },
		CLI_FORMAT_ROWS(struct events_cmd_opts, format, 'f', cli_formats_text_json,
				cli_formats_text_json_vals,
				"text (default) or json (schema mthpscope.events/1)"),
		CLI_END,
	},
};

static int events_cmd(int argc, char **argv)
{
	struct events_cmd_opts o = { .format = REPORT_TEXT };
	const struct arch_desc *d = NULL;
	char why[512];
	json_t *doc;
	struct events_bad bad;
	const struct kernel_desc *k = NULL;
	int i, err;

	if ((i = cli_parse_no_args(&events_cli, argc, argv, &o)) >= 0)
		return i;
	if (o.pattern && !(k = kernel_find(o.pattern))) {
		ms_err("events: unknown pattern '%s'; patterns:", o.pattern);
		for (i = 0; kernel_table[i]; i++)
			fprintf(stderr, "  %-10s %s\n", kernel_table[i]->name, kernel_table[i]->help);
		return MS_EXIT_USAGE;
	}
	if (o.pmu && !strcmp(o.pmu, "list")) {
		events_list_pmus(stdout);
		return MS_EXIT_OK;
	}
	if (o.pmu) {
		d = arch_find(o.pmu);
		if (!d) {
			ms_err("events: no event set for PMU '%s'; known names:", o.pmu);
			events_list_pmus(stderr);
			return MS_EXIT_USAGE;
		}
		/* another CPU's table: libpfm4 encodes it only when asked to,
		 * and must be told before it starts */
		setenv("LIBPFM_ENCODE_INACTIVE", "1", 0);
	} else if ((err = arch_pmu_detect(&d, why, sizeof(why)))) {
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

	doc = events_doc_build(d, bench_access(k), &bad);
	if (bad.absent_pmu)
		ms_note("%d event(s) name a PMU this host does not have (hybrid cpu_core/cpu_atom): "
			"their perf type is left null", bad.absent_pmu);
	if (bad.not_encoded)
		ms_note("%d event(s) do not encode here (libpfm4's reason beside each): 'run' "
			"could not count them", bad.not_encoded);
	if (o.format == REPORT_JSON) {
		json_dumpf(doc, stdout, JSON_INDENT(2));
		putchar('\n');
	} else {
		events_write_text(d, doc, !o.pmu, stdout);
	}
	json_decref(doc);
	return MS_EXIT_OK;
}

MS_COMMAND(events, "the TLB event set of this CPU family, with encodings");
