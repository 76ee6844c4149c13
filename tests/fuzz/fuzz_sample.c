// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the perf ring reader (sampling.c, sampling_parse_type)
 * and the PEBS-side decoding of its samples (hws_from_perf, and the IBS
 * decoder for raw bytes): the first 8 bytes choose the sample_type among
 * the fields record asks for and the ring's head, the rest is the ring
 * (its size rounded down to a power of two).
 */
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hwsample.h"
#include "sampling.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_sample(const struct sampling_sample *s, void *ctx)
{
	struct hws_access a;
	struct hws_ibs_op op;

	(void)ctx;
	hws_from_perf(s->addr, s->data_src, s->phys_addr, s->data_page_size, &a);
	if (s->raw && !hws_ibs_op_parse(s->raw, s->raw_size, &op))
		hws_ibs_op_access(&op, &a);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t extra[] = { PERF_SAMPLE_CPU, PERF_SAMPLE_RAW, PERF_SAMPLE_PHYS_ADDR,
					  PERF_SAMPLE_DATA_PAGE_SIZE };
	uint64_t type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	uint64_t ring = 8, head, tail = 0;
	struct sampling_stats st = { 0 };
	unsigned char *copy;
	size_t i;

	if (size < 10)
		return 0;
	for (i = 0; i < 4; i++)
		if (data[0] & (1u << i))
			type |= extra[i];
	while (ring * 2 <= size - 8 && ring < (1u << 20))
		ring *= 2;
	if (ring > size - 8)
		return 0;
	head = ((uint64_t)data[1] << 16 | (uint64_t)data[2] << 8 | data[3]) % (2 * ring + 1);
	tail = data[4] % 64;
	if (tail > head)
		tail = head;
	copy = malloc(ring); /* exact size: ASan sees any read past the ring */
	if (!copy)
		return 0;
	memcpy(copy, data + 8, ring);
	if (sampling_parse_type(copy, ring, head, &tail, type, &st, on_sample, NULL) == 0 && tail != head)
		abort(); /* a clean parse consumes everything up to head */
	free(copy);
	return 0;
}
