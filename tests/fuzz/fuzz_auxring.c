// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the AUX area reader (auxring.c): the first 4 bytes
 * pick the area size (a power of two, 16 bytes to 1 KiB), the reader's
 * stream offset and how far the head is ahead; the rest fills the area.
 * The data is drained in up to 16 steps as the kernel would add it, then
 * with the last drain: the tail must only move forward, never past the head, and
 * end at it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "auxring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count(const struct hws_access *a, void *ctx)
{
	(void)a;
	++*(unsigned long *)ctx;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char area[4096];
	struct auxring_stats st = { 0 };
	uint64_t asize, tail, head, end, step;
	unsigned long n = 0;

	if (size < 4)
		return 0;
	asize = 16ULL << (data[0] % 7);
	tail = ((uint64_t)data[1] << 8 | data[2]) * 977; /* any stream offset */
	end = tail + (data[3] * asize) / 255;
	step = 1 + data[3] % 61;
	if ((end - tail) / 16 > step)
		step = (end - tail) / 16; /* at most 16 drains */
	memset(area, 0, sizeof(area));
	memcpy(area, data + 4, size - 4 < asize ? size - 4 : asize);
	for (head = tail; head < end;) {
		uint64_t before = tail;

		head = head + step < end ? head + step : end;
		if (auxring_parse_spe(area, asize, head, &tail, false, &st, count, &n) ||
		    tail < before || tail > head)
			abort();
	}
	if (auxring_parse_spe(area, asize, end, &tail, true, &st, count, &n) || tail != end)
		abort();
	/* the refusals */
	if (auxring_parse_spe(area, asize, tail + asize + 1, &tail, false, &st, NULL, NULL) !=
	    -EBADMSG)
		abort();
	return 0;
}
