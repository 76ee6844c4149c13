// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the contiguity histogram's reader
 * (layout_hist_from_json, src/doc/layout.c): what it accepts, the writer
 * writes and the reader takes back unchanged, and every geometry of the
 * table computes a footprint of it without a negative count (the model
 * trusts what the reader let through).
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "tlb_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_model(const struct layout_hist *h)
{
	const struct tlb_geometry *const *g;
	struct tlb_footprint fp;

	for (g = tlb_geometries; *g; g++) {
		if (tlb_footprint(*g, h, &fp))
			continue;
		/* entries never exceed the pages they map */
		if (fp.entries_base + fp.entries_merged > h->contig[0] ||
		    fp.entries_pmd != h->pmd_maps) {
			fprintf(stderr, "%s: %llu + %llu entries for %llu pages\n", (*g)->name,
				fp.entries_base, fp.entries_merged, h->contig[0]);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	struct layout_hist h, back;
	char err[256];
	json_t *out;

	if (!doc)
		return 0;
	if (!layout_hist_from_json(doc, &h, err, sizeof(err))) {
		out = layout_hist_json(&h);
		if (!out)
			abort(); /* only allocation failure, which libFuzzer reports itself */
		if (layout_hist_from_json(out, &back, err, sizeof(err))) {
			fprintf(stderr, "the writer's histogram does not read back: %s\n", err);
			abort();
		}
		if (memcmp(&h, &back, sizeof(h))) {
			fprintf(stderr, "read(write(h)) differs from h\n");
			abort();
		}
		json_decref(out);
		check_model(&h);
	} else if (!err[0]) {
		fprintf(stderr, "a refusal without a reason\n");
		abort();
	}
	json_decref(doc);
	return 0;
}
