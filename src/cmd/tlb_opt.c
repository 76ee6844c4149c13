// SPDX-License-Identifier: GPL-2.0-or-later
/* --tlb-model / --tlb-geometry, shared by info, analyze, scan and record. */
#include "tlb_opt.h"

#include <jansson.h>
#include <string.h>

#include "mthpscope.h"
#include "commands.h"

int tlb_opt_model_cb(const struct cli_cmd *c, const char *name, void *field)
{
	struct tlb_opt *o = field;
	const char *cmd = c->name;

	if (o->have_user || o->model) {
		ms_err("%s: give one of --tlb-model and --tlb-geometry, once", cmd);
		return -1;
	}
	o->model = name;
	if (!strcmp(name, "list")) {
		o->list = true;
		return 0;
	}
	if (!strcmp(name, "all") && !strcmp(cmd, "analyze")) {
		o->all = true;
		return 0;
	}
	if (!strcmp(name, "cpuid")) {
		o->cpuid = true;
		return 0;
	}
	if (!(o->table = tlb_geometry_find(name))) {
		ms_err("%s: unknown --tlb-model '%s' ('mthpscope info --tlb-model list' lists "
		       "the models; --tlb-geometry FILE takes your own)", cmd, name);
		return -1;
	}
	return 0;
}

int tlb_opt_geometry_cb(const struct cli_cmd *c, const char *path, void *field)
{
	struct tlb_opt *o = field;
	const char *cmd = c->name;
	char err[384];
	int rc;

	if (o->have_user || o->model) {
		ms_err("%s: give one of --tlb-model and --tlb-geometry, once", cmd);
		return -1;
	}
	if (!*path) {
		ms_err("%s: invalid --tlb-geometry value ''", cmd);
		return -1;
	}
	if ((rc = tlb_geometry_load(path, &o->user, err, sizeof(err)))) {
		ms_err("%s: --tlb-geometry %s", cmd, err);
		return -1;
	}
	o->have_user = true;
	return 0;
}

void tlb_opt_release(struct tlb_opt *o)
{
	if (o->have_user)
		tlb_geometry_release(&o->user);
	o->have_user = false;
}

bool tlb_opt_given(const struct tlb_opt *o)
{
	return o->have_user || o->table || o->cpuid;
}

const struct tlb_geometry *tlb_opt_pick(const struct tlb_opt *o, const char *cmd,
					const struct tlb_host *host,
					const struct tlb_geometry *fallback)
{
	if (o->have_user)
		return &o->user;
	if (o->table)
		return o->table;
	if (o->cpuid) {
		if (host && host->has_cpuid)
			return &host->cpuid;
		ms_err("%s: --tlb-model cpuid: this host's CPUID gives no TLB figures (x86 AMD "
		       "0x80000005/6 or Intel leaf 0x18 only); name a model instead", cmd);
		return NULL;
	}
	return fallback;
}

static void print_level(FILE *f, const struct tlb_level_geometry *l, const char *beside)
{
	char e[48] = "not known", ways[24] = "";

	if (l->entries && l->shared)
		snprintf(e, sizeof(e), "%u entries", l->entries);
	else if (l->entries)
		snprintf(e, sizeof(e), "%u + %u PMD entries", l->entries, l->entries_pmd);
	if (l->ways)
		snprintf(ways, sizeof(ways), ", %u-way", l->ways);
	fprintf(f, "    %-4s %s%s (%s: %s)%s\n", l->name ? l->name : "?", e, ways,
		tlb_source_name(l->source), l->cite ? l->cite : "", beside ? beside : "");
}

void tlb_opt_print_geometry(FILE *f, const struct tlb_geometry *g, const struct tlb_host *host)
{
	char beside[224], diff[160];
	int i;

	fprintf(f, "  %-16s %s; merge %s", g->name, g->desc ? g->desc : "", tlb_merge_name(g->merge));
	if (g->merge != TLB_MERGE_NONE) {
		char sizes[64];

		tlb_merge_set_text(tlb_merge_set(g), sizes, sizeof(sizes));
		fprintf(f, " (%s x 4K)", sizes);
	}
	fprintf(f, "%s\n", g->hpa ? ", HPA on" : "");
	for (i = 0; i < g->nr_levels; i++) {
		beside[0] = '\0';
		if (host && host->has_cpuid && g != &host->cpuid && i < host->cpuid.nr_levels) {
			tlb_host_compare(host, g, i, diff, sizeof(diff));
			snprintf(beside, sizeof(beside), "; cpuid: %u%s%s",
				 host->cpuid.level[i].entries, diff[0] ? "  DISAGREES: " : "", diff);
		}
		print_level(f, &g->level[i], beside[0] ? beside : NULL);
	}
	if (g->merge_cite)
		fprintf(f, "    merge: %s\n", g->merge_cite);
	if (g->notes)
		fprintf(f, "    note: %s\n", g->notes);
}

void tlb_opt_print_list(FILE *f)
{
	const struct tlb_geometry *const *g;

	fprintf(f, "TLB models (--tlb-model NAME; 'cpuid' uses this host's CPUID figures):\n");
	for (g = tlb_geometries; *g; g++)
		tlb_opt_print_geometry(f, *g, NULL);
}

bool tlb_opt_done(const struct tlb_opt *o, bool json)
{
	const struct tlb_geometry *const *g;
	json_t *arr, *doc;

	if (!o->list)
		return false;
	if (!json) {
		tlb_opt_print_list(stdout);
		return true;
	}
	arr = json_array();
	for (g = tlb_geometries; arr && *g; g++)
		json_array_append_new(arr, tlb_geometry_json(*g));
	doc = json_pack("{s:s, s:o}", "schema", "mthpscope.tlb-models/1", "models", arr);
	json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(doc);
	return true;
}
