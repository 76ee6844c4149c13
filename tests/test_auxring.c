// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The AUX area reader (auxring.c) on a fake user page and area built from
 * the documented layout (perf_event.h: aux_head/aux_tail as stream
 * offsets over a power-of-two area; Arm SPE records of the packet format
 * that test_hwsample.c checks field by field, padded with 0x00 as
 * drivers/perf/arm_spe_pmu.c pads): records in order, a record across the
 * end of the area, an unfinished record kept for the next drain and given
 * up at the last, padding consumed, garbage skipped, aux_tail stored,
 * PERF_RECORD_AUX flags counted by the data ring's parser, the event
 * restarted after a truncation once there is room. No SPE hardware here:
 * nothing else could drive it.
 */
#include <stdlib.h>

#include "auxring.h"
#include "harness.h"
#include "sampling.h"

#define AREA 256

/* One SPE record: a load/store op, a data VA, events (TLB access, and
 * walk when miss), a context, a PC, END: 29 bytes. */
static size_t spe_rec(unsigned char *b, uint64_t va, bool miss, uint32_t ctx)
{
	uint64_t ev = HWS_SPE_EV_TLB_ACCESS | (miss ? HWS_SPE_EV_TLB_WALK : 0);
	size_t n = 0;

	b[n++] = 0x49; /* op type: load/store class */
	b[n++] = 0x00; /* a load */
	b[n++] = 0xb2; /* data virtual address */
	memcpy(b + n, &va, 8);
	n += 8;
	b[n++] = 0x52; /* events, 2 bytes */
	memcpy(b + n, &ev, 2);
	n += 2;
	b[n++] = 0x65; /* context (CONTEXTIDR_EL1), 4 bytes */
	memcpy(b + n, &ctx, 4);
	n += 4;
	b[n++] = 0xb0; /* PC, ignored */
	memset(b + n, 0x11, 8);
	n += 8;
	b[n++] = 0x01; /* END */
	return n;
}

struct fake {
	struct perf_event_mmap_page pg;
	unsigned char area[AREA];
};

/* Write len bytes at stream offset head of the area (wrapping), as the
 * kernel would, and move aux_head. */
static void produce(struct fake *f, const unsigned char *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		f->area[(f->pg.aux_head + i) % AREA] = b[i];
	f->pg.aux_head += len;
}

struct seen {
	int n;
	uint64_t va[16];
	bool miss[16];
	uint32_t ctx[16];
	int stop_after;
};

static int on_access(const struct hws_access *a, void *ctx)
{
	struct seen *s = ctx;

	if (s->n < 16) {
		s->va[s->n] = a->vaddr;
		s->miss[s->n] = a->tlb == HWS_TLB_MISS;
		s->ctx[s->n] = a->context_valid ? a->context : 0;
	}
	s->n++;
	return s->stop_after && s->n == s->stop_after ? 7 : 0;
}

static struct fake *fake_new(void)
{
	struct fake *f = calloc(1, sizeof(*f));

	f->pg.aux_size = AREA;
	return f;
}

TEST(records_in_order_and_tail_stored)
{
	struct fake *f = fake_new();
	struct auxring_stats st = { 0 };
	struct seen s = { 0 };
	unsigned char b[64];
	size_t n;

	n = spe_rec(b, 0x7f0000001000ULL, true, 41);
	produce(f, b, n);
	n = spe_rec(b, 0x7f0000002000ULL, false, 42);
	produce(f, b, n);
	memset(b, 0, 30); /* padding to the next alignment */
	produce(f, b, 30);
	ASSERT_EQ(auxring_drain(&f->pg, f->area, false, &st, on_access, &s), 0);
	EXPECT_EQ(s.n, 2);
	EXPECT_EQ(s.va[0], 0x7f0000001000ULL);
	EXPECT_TRUE(s.miss[0] && !s.miss[1]);
	EXPECT_EQ(s.ctx[1], 42);
	EXPECT_EQ(st.records, 2);
	/* the padding after the last record is consumed: no record starts in it */
	EXPECT_EQ(f->pg.aux_tail, 88);
	EXPECT_EQ(st.bytes, 88);
	/* nothing new: nothing read, the tail stays */
	ASSERT_EQ(auxring_drain(&f->pg, f->area, false, &st, on_access, &s), 0);
	EXPECT_EQ(s.n, 2);
	EXPECT_EQ(f->pg.aux_tail, 88);
	/* the last drain has nothing to give up */
	ASSERT_EQ(auxring_drain(&f->pg, f->area, true, &st, on_access, &s), 0);
	EXPECT_EQ(f->pg.aux_tail, 88);
	EXPECT_EQ(st.dropped, 0);
	EXPECT_EQ(st.bad_bytes, 0);
	free(f);
}

TEST(wrap_around_the_end)
{
	struct fake *f = fake_new();
	struct auxring_stats st = { 0 };
	struct seen s = { 0 };
	unsigned char b[64];
	size_t n;
	int i;

	/* the reader is 240 bytes into the stream: the next record (29
	 * bytes) runs from 240 to 269, over the end of the 256-byte area */
	f->pg.aux_head = f->pg.aux_tail = 240;
	n = spe_rec(b, 0x5555aaaa0000ULL, true, 7);
	produce(f, b, n);
	ASSERT_EQ(auxring_drain(&f->pg, f->area, false, &st, on_access, &s), 0);
	EXPECT_EQ(s.n, 1);
	EXPECT_EQ(s.va[0], 0x5555aaaa0000ULL);
	EXPECT_EQ(st.wrapped, 1);
	EXPECT_EQ(f->pg.aux_tail, 269);
	/* many times round: every record read once */
	for (i = 0; i < 40; i++) {
		n = spe_rec(b, 0x1000ULL * (uint64_t)(i + 1), i & 1, (uint32_t)i);
		produce(f, b, n);
		ASSERT_EQ(auxring_drain(&f->pg, f->area, false, &st, on_access, &s), 0);
	}
	EXPECT_EQ(s.n, 41);
	EXPECT_EQ(st.records, 41);
	EXPECT_EQ(f->pg.aux_tail, f->pg.aux_head);
	EXPECT_TRUE(st.wrapped >= 5);
	free(f);
}

TEST(unfinished_record_waits_then_completes)
{
	struct fake *f = fake_new();
	struct auxring_stats st = { 0 };
	struct seen s = { 0 };
	unsigned char b[64];
	size_t n = spe_rec(b, 0xabc000ULL, false, 3);

	produce(f, b, 20); /* the kernel has written part of it */
	ASSERT_EQ(auxring_drain(&f->pg, f->area, false, &st, on_access, &s), 0);
	EXPECT_EQ(s.n, 0);
	EXPECT_EQ(f->pg.aux_tail, 0);
	produce(f, b + 20, n - 20);
	ASSERT_EQ(auxring_drain(&f->pg, f->area, false, &st, on_access, &s), 0);
	EXPECT_EQ(s.n, 1);
	EXPECT_EQ(s.va[0], 0xabc000ULL);
	EXPECT_EQ(f->pg.aux_tail, n);
	/* truncated for good: given up at the last drain */
	produce(f, b, 12);
	ASSERT_EQ(auxring_drain(&f->pg, f->area, true, &st, on_access, &s), 0);
	EXPECT_EQ(s.n, 1);
	EXPECT_EQ(st.dropped, 12);
	EXPECT_EQ(f->pg.aux_tail, f->pg.aux_head);
	free(f);
}

TEST(garbage_skipped_and_bad_heads)
{
	struct fake *f = fake_new();
	struct auxring_stats st = { 0 };
	struct seen s = { 0 };
	unsigned char b[64];
	uint64_t tail = 0;
	size_t n;

	b[0] = 0xff; /* no packet has this header... */
	b[1] = 0xfe;
	produce(f, b, 2);
	n = spe_rec(b, 0x2000ULL, true, 9); /* ...then a good record */
	produce(f, b, n);
	ASSERT_EQ(auxring_drain(&f->pg, f->area, false, &st, on_access, &s), 0);
	EXPECT_EQ(s.n, 1);
	EXPECT_EQ(st.bad_bytes, 2);
	EXPECT_EQ(f->pg.aux_tail, 2 + n);
	/* a head behind the tail, or more than an area ahead: refused, and
	 * the tail is not moved */
	EXPECT_EQ(auxring_parse_spe(f->area, AREA, 0, &(uint64_t){ 10 }, false, &st, NULL, NULL),
		  -EBADMSG);
	EXPECT_EQ(auxring_parse_spe(f->area, AREA, AREA + 1, &tail, false, &st, NULL, NULL),
		  -EBADMSG);
	EXPECT_EQ(tail, 0);
	EXPECT_EQ(auxring_parse_spe(f->area, 100, 10, &tail, false, &st, NULL, NULL), -EBADMSG);
	free(f);
}

/* A bad packet in a record: the reader goes on one byte past it, so the
 * address packet read before it is not decoded again from its second byte
 * (which made a record of vaddr 0x00007fff12345000); the record it cut
 * short counts as bad bytes, the END after it is a record of nothing. */
TEST(bad_packet_resyncs_after_itself)
{
	static const unsigned char b[] = {
		0xb2, 0xb2, 0x00, 0x50, 0x34, 0x12, 0xff, 0x7f, 0x00, 0xff, 0x01,
	};
	struct fake *f = fake_new();
	struct auxring_stats st = { 0 };
	struct seen s = { 0 };

	produce(f, b, sizeof(b));
	ASSERT_EQ(auxring_drain(&f->pg, f->area, false, &st, on_access, &s), 0);
	EXPECT_EQ(s.n, 1);
	EXPECT_EQ(s.va[0], 0);
	EXPECT_EQ(st.records, 1);
	EXPECT_EQ(st.bad_bytes, 10);
	EXPECT_EQ(f->pg.aux_tail, 11);
	EXPECT_EQ(st.bytes, 11);
	free(f);
}

/* The driver pads the rest of a buffer it cannot fill with 0x00 (up to a
 * page: 64 KiB on a 64K-page kernel): a record then 64 KiB of padding is
 * one record and all consumed at once, no byte of it bad or held back
 * (it was read as an unfinished record, skipped byte by byte past 2 KiB,
 * rescanning the rest each time: 16 s). A 64 KiB run of packets with no
 * END is garbage, each byte given up once the record would be longer than
 * AUXRING_MAX_RECORD, only the last 2 KiB or less kept for more. */
TEST(padding_tail_and_long_garbage)
{
	enum { PAD = 64 << 10, SIZE = 128 << 10, RUN = 7282 * 9 };
	unsigned char *area = calloc(1, SIZE);
	struct auxring_stats st = { 0 };
	struct seen s = { 0 };
	uint64_t tail = 0, head, keep;
	size_t n, i;

	ASSERT_TRUE(area != NULL);
	n = spe_rec(area, 0x4000ULL, true, 5);
	head = n + PAD;
	ASSERT_EQ(auxring_parse_spe(area, SIZE, head, &tail, false, &st, on_access, &s), 0);
	EXPECT_EQ(s.n, 1);
	EXPECT_EQ(st.records, 1);
	EXPECT_EQ(tail, head);
	EXPECT_EQ(st.bytes, head);
	EXPECT_EQ(st.bad_bytes, 0);
	EXPECT_EQ(st.dropped, 0);
	/* address packets (b0 and eight 0x11, no packet's header) without END */
	memset(&st, 0, sizeof(st));
	tail = 0;
	for (i = 0; i < RUN; i += 9) {
		area[i] = 0xb0;
		memset(area + i + 1, 0x11, 8);
	}
	/* kept: from the first packet that starts at most 2 KiB before the end */
	keep = (RUN - AUXRING_MAX_RECORD + 8) / 9 * 9;
	ASSERT_EQ(auxring_parse_spe(area, SIZE, RUN, &tail, false, &st, on_access, &s), 0);
	EXPECT_EQ(st.records, 0);
	EXPECT_EQ(tail, keep);
	EXPECT_EQ(st.bad_bytes, keep);
	ASSERT_EQ(auxring_parse_spe(area, SIZE, RUN, &tail, true, &st, on_access, &s), 0);
	EXPECT_EQ(tail, RUN);
	EXPECT_EQ(st.dropped, RUN - keep);
	EXPECT_EQ(st.bad_bytes, keep);
	free(area);
}

TEST(callback_stops_after_its_record)
{
	struct fake *f = fake_new();
	struct auxring_stats st = { 0 };
	struct seen s = { .stop_after = 1 };
	unsigned char b[64];
	size_t n = spe_rec(b, 0x3000ULL, false, 1);

	produce(f, b, n);
	produce(f, b, n);
	EXPECT_EQ(auxring_drain(&f->pg, f->area, false, &st, on_access, &s), 7);
	EXPECT_EQ(f->pg.aux_tail, n);
	s.stop_after = 0;
	ASSERT_EQ(auxring_drain(&f->pg, f->area, false, &st, on_access, &s), 0);
	EXPECT_EQ(s.n, 2);
	free(f);
}

/* PERF_RECORD_AUX in the data ring: its flags are counted. */
static size_t aux_record(unsigned char *ring, size_t at, uint64_t flags)
{
	struct perf_event_header h = { .type = PERF_RECORD_AUX, .size = 32 };
	uint64_t body[3] = { 0x1000, 0x200, flags };

	memcpy(ring + at, &h, sizeof(h));
	memcpy(ring + at + 8, body, sizeof(body));
	return at + 32;
}

TEST(perf_record_aux_flags)
{
	unsigned char ring[256];
	struct sampling_stats st = { 0 };
	struct perf_event_header h = { .type = PERF_RECORD_AUX, .size = 24 };
	uint64_t tail = 0;
	size_t n = 0;

	n = aux_record(ring, n, 0);
	n = aux_record(ring, n, PERF_AUX_FLAG_COLLISION | PERF_AUX_FLAG_PARTIAL);
	ASSERT_EQ(sampling_parse(ring, sizeof(ring), n, &tail, &st, NULL, NULL), 0);
	EXPECT_TRUE(!st.aux.stopped); /* the kernel disables the event at a truncation only */
	n = aux_record(ring, n, PERF_AUX_FLAG_TRUNCATED);
	ASSERT_EQ(sampling_parse(ring, sizeof(ring), n, &tail, &st, NULL, NULL), 0);
	EXPECT_EQ(st.aux_records, 3);
	EXPECT_EQ(st.aux_truncated, 1);
	EXPECT_EQ(st.aux_collision, 1);
	EXPECT_EQ(st.aux_partial, 1);
	EXPECT_TRUE(st.aux.stopped); /* ...which the drain then enables again */
	EXPECT_EQ(tail, n);
	/* shorter than its fields: refused */
	memcpy(ring, &h, sizeof(h));
	tail = 0;
	EXPECT_EQ(sampling_parse(ring, sizeof(ring), 24, &tail, &st, NULL, NULL), -EBADMSG);
}

/* A truncation stops the event (kernel/events/ring_buffer.c,
 * perf_aux_output_end disables it): the drain says to enable it again once
 * the area has room, not while the kernel would find it full
 * (perf_aux_output_begin disables it at once, without a record, when
 * aux_size - 1 bytes are held), and once per truncation. */
TEST(truncation_restarts_once_room_is_made)
{
	struct fake *f = fake_new();
	struct auxring_stats st = { 0 };
	struct seen s = { 0 };
	unsigned char b[64];
	size_t n = 0;
	int i;

	EXPECT_TRUE(!auxring_restart(&f->pg, &st)); /* never stopped */
	for (i = 0; i < 8; i++) { /* 8 records of 29 bytes and 23 of padding: 255 */
		n = spe_rec(b, 0x1000ULL * (uint64_t)(i + 1), false, 1);
		produce(f, b, n);
	}
	memset(b, 0, 23);
	produce(f, b, 23);
	ASSERT_EQ(f->pg.aux_head, AREA - 1);
	st.stopped = true; /* as sampling_parse at PERF_RECORD_AUX with TRUNCATED */
	EXPECT_TRUE(!auxring_restart(&f->pg, &st)); /* full: not yet */
	EXPECT_TRUE(st.stopped);
	EXPECT_EQ(st.restarts, 0);
	ASSERT_EQ(auxring_drain(&f->pg, f->area, false, &st, on_access, &s), 0);
	EXPECT_EQ(s.n, 8);
	EXPECT_EQ(f->pg.aux_tail, AREA - 1);
	EXPECT_TRUE(auxring_restart(&f->pg, &st));
	EXPECT_TRUE(!st.stopped);
	EXPECT_EQ(st.restarts, 1);
	EXPECT_TRUE(!auxring_restart(&f->pg, &st)); /* once */
	/* the truncation seen after its data was drained: the area is empty */
	st.stopped = true;
	EXPECT_TRUE(auxring_restart(&f->pg, &st));
	EXPECT_EQ(st.restarts, 2);
	free(f);
}

HARNESS_MAIN
