// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scan --tlb's writers (src/present/scan_tlb.c) on known layouts, any host,
 * no root: a model that does not fit the layout says why, in the lines, in
 * the total's sentence and in the JSON.
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "scan_tlb.h"

/* 64 MiB of scattered 4K pages. */
static void layout_4k(struct layout_hist *h)
{
	layout_hist_init(h, 12, 9);
	h->contig[0] = h->folio[0] = 16384;
}

static void parse(const char *text, struct tlb_geometry *g)
{
	char err[256] = "";

	if (tlb_geometry_parse(text, strlen(text), "test", g, err, sizeof(err)))
		FAIL_AT("geometry: %s", err);
}

/* What the writer puts out, as one string (the caller frees it). */
static char *total_text(struct scan_tlb_view v, const struct layout_hist *h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_TRUE(f != NULL);
	scan_tlb_write_total(v, h, false, f);
	fclose(f);
	return buf;
}

/* scan_tlb_write of one model over h, as one string (the caller frees it). */
static char *model_text(const struct tlb_geometry *g, const struct layout_hist *h)
{
	const struct tlb_geometry *models[1] = { g };
	struct scan_tlb_view v = { .models = models, .nr_models = 1 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_TRUE(f != NULL);
	scan_tlb_write(v, h, f);
	fclose(f);
	return buf;
}

/* big.tlb of the reviewer: one level that holds 2M entries only */
static const char big[] = "name = big-only\nmerge = none\nlevel1.entries = 64\n"
			  "level1.sizes = 2M\n";

TEST(model_that_does_not_fit_says_why)
{
	const struct tlb_geometry *models[2];
	struct scan_tlb_view v = { .models = models };
	struct tlb_geometry g;
	struct layout_hist h;
	json_t *o, *mis;
	char *t;

	parse(big, &g);
	layout_4k(&h);
	/* alone: the lines and a whole sentence, no "these mappings need" */
	models[0] = &g;
	v.nr_models = 1;
	t = total_text(v, &h);
	EXPECT_STREQ(t, "tlb-big-only: no footprint (the model's level L1D does not hold 4K "
			"pages, the base page size)\n"
			"# tlb (model): no footprint on big-only (the model's level L1D does not "
			"hold 4K pages, the base page size)\n");
	free(t);
	/* after one that fits: its figures, then the misfit */
	models[0] = tlb_geometry_find("skylake");
	models[1] = &g;
	v.nr_models = 2;
	t = total_text(v, &h);
	EXPECT_TRUE(strstr(t, "\n# tlb (model): these mappings need 16,384 L2 entries on skylake "
			      "(capacity 1536, table); no footprint on big-only (the model's level "
			      "L1D does not hold 4K pages, the base page size)\n") != NULL);
	free(t);
	/* JSON: the footprint of the one that fits, the reason of the other */
	o = json_object();
	scan_tlb_json(v, &h, o);
	EXPECT_EQ(json_array_size(json_object_get(o, "tlb")), 1);
	mis = json_array_get(json_object_get(o, "tlb_misfits"), 0);
	ASSERT_TRUE(mis != NULL);
	EXPECT_STREQ(json_string_value(json_object_get(mis, "model")), "big-only");
	EXPECT_STREQ(json_string_value(json_object_get(mis, "computed_by")), "model");
	EXPECT_STREQ(json_string_value(json_object_get(mis, "reason")),
		     "the model's level L1D does not hold 4K pages, the base page size");
	json_decref(o);
	tlb_geometry_release(&g);
}

/* A rule that does not fit the page size keeps its words; every model fits:
 * no "tlb_misfits" key. */
TEST(rule_misfit_and_all_fit)
{
	const struct tlb_geometry *models[1] = { tlb_geometry_find("zen4") };
	struct scan_tlb_view v = { .models = models, .nr_models = 1 };
	struct layout_hist h;
	json_t *o;
	char *t;

	layout_hist_init(&h, 14, 11);
	h.contig[0] = h.folio[0] = 4096;
	t = total_text(v, &h);
	EXPECT_STREQ(t, "tlb-zen4: no footprint (the model's rule does not fit 16K pages)\n"
			"# tlb (model): no footprint on zen4 (the model's rule does not fit 16K "
			"pages)\n");
	free(t);
	layout_4k(&h);
	o = json_object();
	scan_tlb_json(v, &h, o);
	EXPECT_EQ(json_array_size(json_object_get(o, "tlb")), 1);
	EXPECT_TRUE(json_object_get(o, "tlb_misfits") == NULL);
	json_decref(o);
}

/* The longest names a geometry file allows (31 characters each, the
 * reviewer's long.tlb): each level keeps its own label. A 64-byte buffer cut
 * "tlb-" + 31 + "-" + 31 to 63 characters, and two levels whose names differ
 * in the last character got the same label. */
TEST(longest_names_keep_their_labels)
{
	static const char lng[] = "name = abcdefghijklmnopqrstuvwxyz01234\nmerge = none\n"
				  "level1.entries = 64\n"
				  "level1.name = Level-one-data-tlb-long-name-xx\n"
				  "level2.entries = 64\n"
				  "level2.name = Level-one-data-tlb-long-name-xy\n";
	struct tlb_geometry g;
	struct layout_hist h;
	char *buf;

	parse(lng, &g);
	layout_4k(&h);
	buf = model_text(&g, &h);
	EXPECT_STREQ(buf, "tlb-abcdefghijklmnopqrstuvwxyz01234-Level-one-data-tlb-long-name-xx:"
			  "   16384 entries of 64 (miss 99.6%, model, user)\n"
			  "tlb-abcdefghijklmnopqrstuvwxyz01234-Level-one-data-tlb-long-name-xy:"
			  "   16384 entries of 64 (miss 99.6%, model, user)\n");
	free(buf);
	tlb_geometry_release(&g);
}

/* A miss ratio short of 1 never reads "100.0%": 1 GiB of scattered 4K
 * pages on 64 entries misses 1 - 64/262144 = 99.98 %, which %.1f printed
 * as "100.0%". */
TEST(miss_short_of_all_is_not_100)
{
	static const char small[] = "name = small\nmerge = none\nlevel1.entries = 64\n";
	struct tlb_geometry g;
	struct layout_hist h;
	char *buf;

	parse(small, &g);
	layout_hist_init(&h, 12, 9);
	h.contig[0] = h.folio[0] = 262144;
	buf = model_text(&g, &h);
	EXPECT_STREQ(buf, "tlb-small-L1D:                    262144 entries of 64 (miss >99.9%, "
			  "model, user)\n");
	free(buf);
	tlb_geometry_release(&g);
}

HARNESS_MAIN
