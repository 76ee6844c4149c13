// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for the --tlb-geometry FILE parser (tlb_geometry_parse),
 * and the model on what it accepts. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tlb_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tlb_geometry g;
	struct tlb_footprint fp;
	struct layout_hist h;
	char err[256];
	json_t *o;
	int k;

	if (tlb_geometry_parse((const char *)data, size, "fuzz", &g, err, sizeof(err)))
		return 0;
	memset(&h, 0, sizeof(h));
	h.page_shift = 12;
	h.pmd_order = 9;
	for (k = 0; k <= 9; k++)
		h.contig[k] = h.folio[k] = 4096ull >> k;
	h.pmd_maps = 3;
	if (!tlb_footprint(&g, &h, &fp)) {
		o = tlb_footprint_json(&fp);
		json_decref(o);
	}
	o = tlb_geometry_json(&g);
	json_decref(o);
	tlb_geometry_release(&g);
	return 0;
}
