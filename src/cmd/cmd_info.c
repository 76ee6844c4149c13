// SPDX-License-Identifier: GPL-2.0-or-later
/* mthpscope info: what this machine can measure. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "info_doc.h"
#include "info_report.h"
#include "report.h"
#include "tlb_opt.h"

struct info_cmd_opts {
	enum report_format format;
	struct tlb_opt tlb;
};

static const struct cli_cmd info_cli = {
	.name = "info",
	.summary = "Describe this machine: CPU, caches, mTHP sizes and knobs, khugepaged, "
		   "pagemap access, PMU and software events.",
	.details = "Read-only; works without root (PFN visibility and some files need root).",
	.opts = (const struct cli_opt[]){
		CLI_FORMAT_ROWS(struct info_cmd_opts, format, 'f', cli_formats_text_json,
				cli_formats_text_json_vals,
				"text (default) or json (schema mthpscope.info/1)"),
		TLB_OPT_ROWS(struct info_cmd_opts, tlb),
		CLI_END,
	},
};

/* The document, with the TLB geometry tlb_opt_pick gives for this host;
 * NULL with *env_err = -ENODEV when --tlb-model cpuid finds none. */
static json_t *build_info(const struct info_cmd_opts *o, int *env_err)
{
	const struct tlb_geometry *g;
	struct tlb_host th;
	const char *picked_by;

	tlb_host_describe(&th);
	g = tlb_opt_pick(&o->tlb, "info", &th, tlb_host_geometry(&th));
	if (!g && o->tlb.cpuid) {
		*env_err = -ENODEV;
		return NULL;
	}
	picked_by = o->tlb.have_user ? "--tlb-geometry" : tlb_opt_given(&o->tlb) ? "--tlb-model"
		  : th.table ? "cpu identity" : g ? "cpuid (no table entry)" : "none";
	return info_doc_build(&th, g, picked_by, env_err);
}

static int info_cmd(int argc, char **argv)
{
	struct info_cmd_opts o = { .format = REPORT_TEXT };
	json_t *doc;
	int i, env_err, rc = MS_EXIT_OK;

	i = cli_parse(&info_cli, argc, argv, &o);
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
	if (tlb_opt_done(&o.tlb, o.format == REPORT_JSON))
		goto out;
	if (!(doc = build_info(&o, &env_err))) {
		rc = env_err == -ENODEV ? MS_EXIT_ENV : MS_EXIT_FAIL;
		goto out;
	}
	if (o.format == REPORT_JSON) {
		json_dumpf(doc, stdout, JSON_INDENT(2));
		putchar('\n');
	} else {
		info_print_text(doc);
	}
	json_decref(doc);
	if (env_err == -EBADMSG)
		rc = MS_EXIT_FAIL;
out:
	tlb_opt_release(&o.tlb);
	return rc;
}

MS_COMMAND(info, "what this machine can measure (CPU, mTHP sizes, khugepaged, PMU)");
