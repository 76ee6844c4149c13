// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The precise-sample decoders (src/measure/hwsample.c) on records built
 * from the documented layouts, since no machine here has PEBS, IBS or SPE:
 * every field each decoder reads, AMD's Zen 5 IbsOpData3 variant, and
 * truncated and garbage records.
 */
#include <linux/perf_event.h>

#include "harness.h"
#include "hwsample.h"

/* ---- Intel PEBS: data_src as arch/x86/events/intel/ds.c fills it --------- */

static uint64_t src(unsigned op, unsigned tlb)
{
	union perf_mem_data_src d = { .val = 0 };

	d.mem_op = op;
	d.mem_dtlb = tlb;
	return d.val;
}

TEST(pebs_data_src)
{
	static const struct {
		unsigned op, tlb;
		enum hws_tlb want;
		bool l1_miss, load, store;
	} t[] = {
		{ PERF_MEM_OP_LOAD, PERF_MEM_TLB_L2 | PERF_MEM_TLB_MISS, HWS_TLB_MISS, true, true, false },
		{ PERF_MEM_OP_STORE, PERF_MEM_TLB_L1 | PERF_MEM_TLB_L2 | PERF_MEM_TLB_HIT,
		  HWS_TLB_L1_HIT, false, false, true },
		{ PERF_MEM_OP_LOAD, PERF_MEM_TLB_L2 | PERF_MEM_TLB_HIT, HWS_TLB_L2_HIT, true, true, false },
		{ PERF_MEM_OP_LOAD, PERF_MEM_TLB_WK | PERF_MEM_TLB_MISS, HWS_TLB_MISS, true, true, false },
		{ PERF_MEM_OP_LOAD, PERF_MEM_TLB_L1 | PERF_MEM_TLB_MISS, HWS_TLB_UNKNOWN, true, true, false },
		{ PERF_MEM_OP_LOAD, PERF_MEM_TLB_HIT, HWS_TLB_HIT, false, true, false },
		{ PERF_MEM_OP_NA, PERF_MEM_TLB_NA, HWS_TLB_UNKNOWN, false, false, false },
		{ PERF_MEM_OP_LOAD, 0, HWS_TLB_UNKNOWN, false, true, false },
	};
	struct hws_access a;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		hws_from_perf(0x7f0000001234ULL, src(t[i].op, t[i].tlb), 0x12345000ULL, 2 << 20, &a);
		EXPECT_EQ(a.tlb, t[i].want);
		EXPECT_EQ(a.l1_miss, t[i].l1_miss);
		EXPECT_EQ(a.load, t[i].load);
		EXPECT_EQ(a.store, t[i].store);
		EXPECT_TRUE(a.vaddr_valid && a.vaddr == 0x7f0000001234ULL);
		EXPECT_TRUE(a.paddr_valid && a.paddr == 0x12345000ULL);
		EXPECT_EQ(a.page_size, 2 << 20);
	}
	hws_from_perf(0, 0, 0, 0, &a);
	EXPECT_TRUE(!a.vaddr_valid && !a.paddr_valid && a.page_size == 0);
	EXPECT_STREQ(hws_tlb_name(HWS_TLB_MISS), "miss");
	EXPECT_STREQ(hws_tlb_name(HWS_TLB_L2_HIT), "l2-hit");
}

/* ---- AMD IBS op ---------------------------------------------------------------- */

#define CAPS_BASE 0x7u /* AVAIL | FETCHSAM | OPSAM */

/* { u32 caps; u64 regs[n] } as ibs.c writes it into PERF_SAMPLE_RAW. */
static size_t ibs_raw(unsigned char *buf, uint32_t caps, uint64_t d3, const uint64_t *extra,
		      size_t n_extra)
{
	uint64_t regs[9] = { 1ULL << 18 /* IbsOpVal */, 0x401000, 0, 0, d3, 0x7f00deadb000ULL,
			     0x1234567000ULL };
	size_t n = 7, i;

	for (i = 0; i < n_extra; i++)
		regs[n++] = extra[i];
	memcpy(buf, &caps, 4);
	memcpy(buf + 4, regs, n * 8);
	return 4 + n * 8;
}

static void ibs(uint32_t caps, uint64_t d3, struct hws_access *a, struct hws_ibs_op *op)
{
	unsigned char buf[128];
	size_t len = ibs_raw(buf, caps, d3, NULL, 0);

	ASSERT_EQ(hws_ibs_op_parse(buf, len, op), 0);
	hws_ibs_op_access(op, a);
}

TEST(ibs_before_zen5)
{
	const uint64_t lin = HWS_IBS_DC_LIN_ADDR_VALID, ld = HWS_IBS_LD_OP;
	static const struct {
		uint64_t d3;
		enum hws_tlb tlb;
		uint64_t psize;
	} t[] = {
		{ 0, HWS_TLB_L1_HIT, 4096 },
		{ HWS_IBS_DC_L1TLB_HIT_2M, HWS_TLB_L1_HIT, 2 << 20 },
		{ HWS_IBS_DC_L1TLB_HIT_1G, HWS_TLB_L1_HIT, 1 << 30 },
		{ HWS_IBS_DC_L1TLB_MISS, HWS_TLB_L2_HIT, 4096 },
		{ HWS_IBS_DC_L1TLB_MISS | HWS_IBS_DC_L2TLB_HIT_2M, HWS_TLB_L2_HIT, 2 << 20 },
		{ HWS_IBS_DC_L1TLB_MISS | HWS_IBS_DC_L2TLB_HIT_1G, HWS_TLB_L2_HIT, 1 << 30 },
		{ HWS_IBS_DC_L1TLB_MISS | HWS_IBS_DC_L2TLB_MISS, HWS_TLB_MISS, 0 },
	};
	struct hws_ibs_op op;
	struct hws_access a;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ibs(CAPS_BASE, t[i].d3 | lin | ld, &a, &op);
		EXPECT_TRUE(!op.zen5_layout);
		EXPECT_EQ(a.tlb, t[i].tlb);
		EXPECT_EQ(a.page_size, t[i].psize);
		EXPECT_EQ(a.l1_miss, (t[i].d3 & HWS_IBS_DC_L1TLB_MISS) != 0);
		EXPECT_TRUE(a.vaddr_valid && a.vaddr == 0x7f00deadb000ULL);
		EXPECT_TRUE(a.load && !a.store);
		EXPECT_TRUE(!a.paddr_valid && a.paddr == 0);
	}
	/* no valid linear address: no TLB word (ibs.c perf_ibs_get_tlb_lvl) */
	ibs(CAPS_BASE, HWS_IBS_DC_L1TLB_MISS | ld, &a, &op);
	EXPECT_TRUE(!a.vaddr_valid && a.vaddr == 0 && a.tlb == HWS_TLB_UNKNOWN);
	/* neither load nor store: not a memory op */
	ibs(CAPS_BASE, lin | HWS_IBS_DC_L1TLB_MISS, &a, &op);
	EXPECT_EQ(a.tlb, HWS_TLB_UNKNOWN);
	/* a store with a physical address */
	ibs(CAPS_BASE, lin | HWS_IBS_ST_OP | HWS_IBS_DC_PHY_ADDR_VALID, &a, &op);
	EXPECT_TRUE(a.store && !a.load && a.paddr_valid && a.paddr == 0x1234567000ULL);
	/* latencies: IbsDcMissLat 32-47, IbsTlbRefillLat 48-63 */
	ibs(CAPS_BASE, lin | ld | (0x1234ULL << 32) | (0xbeefULL << 48), &a, &op);
	EXPECT_EQ(op.dc_miss_lat, 0x1234);
	EXPECT_EQ(op.tlb_refill_lat, 0xbeef);
	EXPECT_EQ(op.op_ctl, 1ULL << 18);
	EXPECT_EQ(op.op_rip, 0x401000);
}

TEST(ibs_zen5_layout)
{
	const uint32_t caps = CAPS_BASE | HWS_IBS_CAPS_OPDTLBPGSIZE;
	const uint64_t base = HWS_IBS_DC_LIN_ADDR_VALID | HWS_IBS_DC_PHY_ADDR_VALID | HWS_IBS_LD_OP;
	static const uint64_t sizes[4] = { 4096, 2 << 20, 1 << 30, 0 };
	struct hws_ibs_op op;
	struct hws_access a;
	uint64_t ps;

	for (ps = 0; ps < 4; ps++) {
		/* bits 6 and 19 are reserved on Zen 5: set, they change nothing */
		ibs(caps, base | (ps << 4) | HWS_IBS_DC_L2TLB_HIT_2M | HWS_IBS_DC_L2TLB_HIT_1G, &a, &op);
		EXPECT_TRUE(op.zen5_layout);
		EXPECT_EQ(a.page_size, sizes[ps]);
		EXPECT_EQ(a.tlb, HWS_TLB_L1_HIT);
	}
	ibs(caps, base | HWS_IBS_DC_L1TLB_MISS | (1 << 4), &a, &op);
	EXPECT_TRUE(a.tlb == HWS_TLB_L2_HIT && a.l1_miss && a.page_size == 2 << 20);
	ibs(caps, base | HWS_IBS_DC_L1TLB_MISS | HWS_IBS_DC_L2TLB_MISS, &a, &op);
	EXPECT_TRUE(a.tlb == HWS_TLB_MISS && a.page_size == 4096);
	/* without DcPhyAddrValid the miss and size bits mean nothing */
	ibs(caps, (base & ~HWS_IBS_DC_PHY_ADDR_VALID) | HWS_IBS_DC_L2TLB_MISS | (2 << 4), &a, &op);
	EXPECT_TRUE(a.tlb == HWS_TLB_UNKNOWN && a.page_size == 0 && a.vaddr_valid);
	/* the same bits read with the old layout: an L1 hit in a 1G page */
	ibs(CAPS_BASE, base | (2 << 4), &a, &op);
	EXPECT_TRUE(a.tlb == HWS_TLB_L1_HIT && a.page_size == 1 << 30);
}

TEST(ibs_optional_registers_and_truncation)
{
	const uint64_t extra[2] = { 0xffffffff81000000ULL, 0xabcdULL };
	unsigned char buf[128];
	struct hws_ibs_op op;
	size_t len;

	len = ibs_raw(buf, CAPS_BASE | HWS_IBS_CAPS_BRNTRGT | HWS_IBS_CAPS_OPDATA4, 0, extra, 2);
	ASSERT_EQ(len, 4 + 9 * 8);
	ASSERT_EQ(hws_ibs_op_parse(buf, len, &op), 0);
	EXPECT_TRUE(op.has_br_target && op.br_target == extra[0]);
	EXPECT_TRUE(op.has_op_data4 && op.op_data4 == extra[1]);
	len = ibs_raw(buf, CAPS_BASE | HWS_IBS_CAPS_OPDATA4, 0, extra + 1, 1);
	ASSERT_EQ(hws_ibs_op_parse(buf, len, &op), 0);
	EXPECT_TRUE(!op.has_br_target && op.op_data4 == extra[1]);
	/* caps announce 9 registers, 8 are there */
	len = ibs_raw(buf, CAPS_BASE | HWS_IBS_CAPS_BRNTRGT | HWS_IBS_CAPS_OPDATA4, 0, extra, 1);
	EXPECT_EQ(hws_ibs_op_parse(buf, len, &op), -EBADMSG);
	for (len = 0; len < 4 + 7 * 8; len++)
		EXPECT_EQ(hws_ibs_op_parse(buf, len, &op), -EBADMSG);
	EXPECT_EQ(hws_ibs_op_parse(NULL, 64, &op), -EBADMSG);
	/* a newer kernel's extra trailing bytes are ignored */
	len = ibs_raw(buf, CAPS_BASE, 0, NULL, 0);
	EXPECT_EQ(hws_ibs_op_parse(buf, len + 16, &op), 0);
}

/* ---- Arm SPE ------------------------------------------------------------------ */

static size_t put(unsigned char *b, size_t at, unsigned hdr, uint64_t payload, size_t n)
{
	b[at] = (unsigned char)hdr;
	memcpy(b + at + 1, &payload, n);
	return at + 1 + n;
}

TEST(spe_record_fields)
{
	unsigned char b[128];
	struct hws_access a;
	size_t n = 0, off = 0;

	n = put(b, n, 0x49, 0x00, 1);                      /* op type: load/store class, load */
	n = put(b, n, 0xb0, 0x400123, 8);                  /* PC, ignored */
	n = put(b, n, 0xb2, 0x5a00ffff12345678ULL, 8);     /* data VA, tag 0x5a */
	n = put(b, n, 0xb3, 0x8000000087654000ULL, 8);     /* data PA, NS bit */
	n = put(b, n, 0x52, HWS_SPE_EV_TLB_ACCESS | HWS_SPE_EV_TLB_WALK | HWS_SPE_EV_L1D_REFILL, 2);
	n = put(b, n, 0x98, 0x0123, 2);                    /* total latency */
	n = put(b, n, 0x65, 0x4321, 4);                    /* context */
	n = put(b, n, 0x43, 0x1, 1);                       /* data source */
	b[n++] = 0x01;                                     /* END */
	ASSERT_EQ(hws_spe_record(b, n, &off, &a), 1);
	EXPECT_EQ(off, n);
	EXPECT_TRUE(a.vaddr_valid && a.vaddr == 0xffff12345678ULL);
	EXPECT_TRUE(a.paddr_valid && a.paddr == 0x87654000ULL);
	EXPECT_TRUE(a.tlb == HWS_TLB_MISS && a.l1_miss);
	EXPECT_TRUE(a.load && !a.store);
	EXPECT_EQ(a.page_size, 0); /* SPE does not say */
}

TEST(spe_variants)
{
	unsigned char b[128];
	struct hws_access a;
	struct hws_spe_packet p;
	size_t n = 0, off = 0;

	/* a store that hit the TLB, a kernel address, ended by a timestamp;
	 * the VA in the extended header form */
	n = put(b, n, 0x49, 0x01, 1);
	b[n++] = 0x20;
	n = put(b, n, 0xb2, 0x00ff800000001000ULL, 8);
	n = put(b, n, 0x42, HWS_SPE_EV_TLB_ACCESS, 1);
	n = put(b, n, 0x71, 123456789, 8);
	b[n++] = 0x00; /* padding before the next record */
	ASSERT_EQ(hws_spe_record(b, n, &off, &a), 1);
	EXPECT_TRUE(a.store && !a.load && a.tlb == HWS_TLB_HIT && !a.l1_miss);
	EXPECT_EQ(a.vaddr, 0xffff800000001000ULL);
	EXPECT_EQ(off, n - 1);
	EXPECT_EQ(hws_spe_record(b, n, &off, &a), 0); /* padding only: no record */
	EXPECT_EQ(off, n);                            /* and the padding consumed */
	/* payload sizes of the events packet: 1, 2, 4, 8 bytes */
	EXPECT_EQ(hws_spe_packet((const unsigned char *)"\x42\x30", 2, 0, &p), 2);
	EXPECT_EQ(hws_spe_packet((const unsigned char *)"\x52\x30\x00", 3, 0, &p), 3);
	EXPECT_EQ(hws_spe_packet((const unsigned char *)"\x62\x30\x00\x00\x00", 5, 0, &p), 5);
	EXPECT_EQ(p.type, HWS_SPE_EVENTS);
	EXPECT_EQ(hws_spe_packet((const unsigned char *)"\x72\x30\0\0\0\0\0\0\0", 9, 0, &p), 9);
	/* extended: index from both headers; counter */
	EXPECT_EQ(hws_spe_packet((const unsigned char *)"\x21\x99\x01\x00", 4, 0, &p), 4);
	EXPECT_TRUE(p.type == HWS_SPE_COUNTER && p.index == 9 && p.payload == 1);
	/* alignment: pads to the boundary of the stream offset */
	EXPECT_EQ(hws_spe_packet((const unsigned char *)"\x21\x00\x00\x00\x00\x00\x00\x00", 8, 0,
				 &p), 4);
	EXPECT_EQ(p.type, HWS_SPE_PAD);
	EXPECT_EQ(hws_spe_packet((const unsigned char *)"\x21\x00\x00\x00\x00\x00\x00\x00", 8, 3,
				 &p), 5);
}

TEST(spe_truncated_and_garbage)
{
	unsigned char b[64] = { 0 }, g[4096];
	struct hws_spe_packet p;
	struct hws_access a;
	size_t n = put(b, 0, 0xb2, 0x1000, 8), off = 0, i;
	unsigned seed = 1;

	for (i = 0; i < n; i++) /* every cut of an address packet: more bytes needed */
		EXPECT_EQ(hws_spe_packet(b, i, 0, &p), 0);
	EXPECT_EQ(hws_spe_record(b, n, &off, &a), 0); /* no END yet */
	EXPECT_EQ(off, 0);
	b[0] = 0x02; /* no packet has this header */
	EXPECT_EQ(hws_spe_record(b, n, &off, &a), -EBADMSG);
	EXPECT_EQ(off, 1);
	b[0] = 0x20;
	b[1] = 0x77; /* an extended header of nothing */
	EXPECT_EQ(hws_spe_packet(b, 2, 0, &p), -EBADMSG);
	/* garbage: every record ends inside the buffer, the offset only grows */
	for (i = 0; i < sizeof(g); i++)
		g[i] = (unsigned char)((seed = seed * 1103515245u + 12345u) >> 16);
	for (off = 0; off < sizeof(g);) {
		size_t before = off;
		int rc = hws_spe_record(g, sizeof(g), &off, &a);

		if (rc == 0)
			break;
		ASSERT_TRUE(off > before && off <= sizeof(g));
	}
}

/* A bad packet inside a record: perf goes on one byte past the bad packet
 * (arm-spe-decoder.c, arm_spe_get_next_packet), never back into the
 * record's packets, whose payload bytes would decode as packets: here an
 * address packet's payload read one byte on is a second address packet,
 * 0x00007fff12345000, that no record held. */
TEST(spe_resync_after_bad_packet)
{
	static const unsigned char b[] = {
		0xb2, 0xb2, 0x00, 0x50, 0x34, 0x12, 0xff, 0x7f, 0x00, /* data VA */
		0xff,                                                 /* no packet */
		0x01,                                                 /* END */
	};
	struct hws_access a;
	size_t off = 0;

	EXPECT_EQ(hws_spe_record(b, sizeof(b), &off, &a), -EBADMSG);
	EXPECT_EQ(off, 10);
	ASSERT_EQ(hws_spe_record(b, sizeof(b), &off, &a), 1);
	EXPECT_EQ(off, 11);
	EXPECT_TRUE(!a.vaddr_valid);
	EXPECT_EQ(a.vaddr, 0);
}

/* The data VA's top byte is a tag; perf fills it when bits 55:52 are all
 * set (arm_spe_calc_ip), whatever bits 51:48 hold. */
TEST(spe_kernel_address_top_byte)
{
	static const struct {
		uint64_t payload, vaddr;
	} t[] = {
		{ 0x00f8000012345000ULL, 0xfff8000012345000ULL }, /* 52-bit VA kernel */
		{ 0x00ff800000001000ULL, 0xffff800000001000ULL }, /* 48-bit VA kernel */
		{ 0x5af0000000002000ULL, 0xfff0000000002000ULL }, /* tag dropped, then filled */
		{ 0x00e8000012345000ULL, 0x00e8000012345000ULL }, /* bit 52 clear: user */
		{ 0x000ffff123456000ULL, 0x000ffff123456000ULL }, /* 52-bit user */
		{ 0x5a007fff12345000ULL, 0x00007fff12345000ULL }, /* tag dropped */
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		unsigned char b[16];
		struct hws_access a;
		size_t n = put(b, 0, 0xb2, t[i].payload, 8), off = 0;

		b[n++] = 0x01;
		ASSERT_EQ(hws_spe_record(b, n, &off, &a), 1);
		EXPECT_TRUE(a.vaddr_valid);
		EXPECT_EQ(a.vaddr, t[i].vaddr);
	}
}

HARNESS_MAIN
