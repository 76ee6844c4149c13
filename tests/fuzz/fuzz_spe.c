// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the Arm SPE packet decoder (hwsample.c): any bytes as
 * an AUX buffer, walked record by record as the reader would; each step
 * must move forward and stay inside the buffer.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "hwsample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hws_spe_packet p;
	struct hws_access a;
	size_t off = 0;

	while (off < size) {
		size_t before = off;
		int rc = hws_spe_record(data, size, &off, &a);

		if (rc == 0)
			break;
		if (off <= before || off > size)
			abort();
	}
	for (off = 0; off < size;) {
		int n = hws_spe_packet(data + off, size - off, off, &p);

		if (n <= 0)
			break;
		if ((size_t)n > size - off)
			abort();
		off += (size_t)n;
	}
	return 0;
}
