// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the AMD IBS op decoder (hwsample.c): any bytes as a
 * PERF_SAMPLE_RAW record; what parses must decode, within the record.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "hwsample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hws_ibs_op op;
	struct hws_access a;

	if (hws_ibs_op_parse(data, size, &op))
		return 0;
	hws_ibs_op_access(&op, &a);
	if (a.page_size & (a.page_size - 1))
		abort(); /* a page size is a power of two or 0 */
	if (a.vaddr_valid != ((op.op_data3 & HWS_IBS_DC_LIN_ADDR_VALID) != 0))
		abort();
	return 0;
}
