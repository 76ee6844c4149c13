// SPDX-License-Identifier: GPL-2.0-or-later
/* scan's TLB footprints (scan_tlb.h): text and JSON. */
#include <stdio.h>
#include <string.h>

#include "mthpscope.h"
#include "scan_tlb.h"

/* 41000 -> "41,000" */
static const char *grouped(unsigned long long v, char *buf, size_t size)
{
	char digits[32];
	size_t n, i, o = 0;

	n = (size_t)snprintf(digits, sizeof(digits), "%llu", v);
	for (i = 0; i < n && o + 2 < size; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

void scan_tlb_write(struct scan_tlb_view c, const struct layout_hist *h, FILE *f)
{
	struct tlb_footprint fp;
	int m, i;

	if (!layout_hist_pages(h) && !c.inc_empty)
		return;
	for (m = 0; m < c.nr_models; m++) {
		if (tlb_footprint(c.models[m], h, &fp)) {
			char why[160];

			tlb_misfit_words(c.models[m], h, why, sizeof(why));
			fprintf(f, "tlb-%s: no footprint (%s)\n", c.models[m]->name, why);
			continue;
		}
		for (i = 0; i < fp.nr_levels; i++) {
			const struct tlb_level_footprint *l = &fp.level[i];
			/* "tlb-MODEL-LEVEL": the longest names fit whole (64 bytes cut
			 * two long level names to one label) */
			char name[sizeof("tlb--") + 2 * TLB_NAME_MAX], miss[16];
			int pad;

			snprintf(name, sizeof(name), "tlb-%s-%s", fp.model, l->name);
			pad = 32 - (int)strlen(name) - 1;
			fprintf(f, "%s:%*s%8llu entries", name, pad > 0 ? pad : 0, "", l->entries_needed);
			if (l->capacity && l->entries_needed) {
				/* never "100.0%" short of all (ms_format_share) */
				ms_format_share(l->miss_ratio, miss, sizeof(miss));
				fprintf(f, " of %llu (miss %s, model, %s)", l->capacity, miss,
					tlb_source_name(fp.source));
			}
			else if (!l->capacity)
				fprintf(f, " (capacity not known: no prediction)");
			fputc('\n', f);
		}
	}
}

/*
 * The total's labels and its sentence: entries of the last level on each
 * model that fits the layout, then each that does not with its reason
 * ("no footprint on M (...)"); with none that fits, only those.
 */
void scan_tlb_write_total(struct scan_tlb_view c, const struct layout_hist *h, bool head,
			  FILE *f)
{
	struct tlb_footprint fp;
	char buf[32], why[160];
	int m, n = 0;

	if (head)
		fprintf(f, "total:\n");
	scan_tlb_write(c, h, f);
	fprintf(f, "# tlb (model):");
	for (m = 0; m < c.nr_models; m++) {
		const struct tlb_level_footprint *l;

		if (tlb_footprint(c.models[m], h, &fp))
			continue;
		l = &fp.level[fp.nr_levels - 1];
		fprintf(f, "%s %s %s entries on %s%s", n++ ? ";" : " these mappings need",
			grouped(l->entries_needed, buf, sizeof(buf)), l->name,
			c.this_cpu && !m ? "this CPU, " : "", fp.model);
		if (l->capacity)
			fprintf(f, " (capacity %llu, %s)", l->capacity, tlb_source_name(fp.source));
	}
	for (m = 0; m < c.nr_models; m++)
		if (tlb_misfit_words(c.models[m], h, why, sizeof(why)) != TLB_FITS)
			fprintf(f, "%s no footprint on %s (%s)", n++ ? ";" : "", c.models[m]->name,
				why);
	fprintf(f, "\n");
}

/* "layout", "tlb" (one footprint per model that fits) and, where one does
 * not, "tlb_misfits" (its model and the reason) into object o. */
void scan_tlb_json(struct scan_tlb_view c, const struct layout_hist *h, json_t *o)
{
	struct tlb_footprint fp;
	json_t *a = json_array(), *mis = NULL;
	char why[160];
	int m;

	json_object_set_new(o, "layout", layout_hist_json(h));
	for (m = 0; m < c.nr_models; m++) {
		if (!tlb_footprint(c.models[m], h, &fp)) {
			json_array_append_new(a, tlb_footprint_json(&fp));
			continue;
		}
		tlb_misfit_words(c.models[m], h, why, sizeof(why));
		if (!mis)
			mis = json_array();
		json_array_append_new(mis, json_pack("{s:s, s:s, s:s}", "model",
						     c.models[m]->name ? c.models[m]->name : "?",
						     "computed_by", "model", "reason", why));
	}
	json_object_set_new(o, "tlb", a);
	if (mis)
		json_object_set_new(o, "tlb_misfits", mis);
}
