// SPDX-License-Identifier: GPL-2.0-or-later
#include "hwsample.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

const char *hws_tlb_name(enum hws_tlb t)
{
	switch (t) {
	case HWS_TLB_L1_HIT: return "l1-hit";
	case HWS_TLB_L2_HIT: return "l2-hit";
	case HWS_TLB_MISS: return "miss";
	case HWS_TLB_HIT: return "hit";
	default: return "unknown";
	}
}

void hws_from_perf(uint64_t addr, uint64_t data_src, uint64_t phys_addr, uint64_t data_page_size,
		   struct hws_access *a)
{
	union perf_mem_data_src d = { .val = data_src };
	unsigned tlb = d.mem_dtlb;

	memset(a, 0, sizeof(*a));
	a->vaddr = addr;
	a->vaddr_valid = addr != 0;
	a->paddr = phys_addr;
	a->paddr_valid = phys_addr != 0;
	a->page_size = data_page_size;
	a->load = d.mem_op & PERF_MEM_OP_LOAD;
	a->store = d.mem_op & PERF_MEM_OP_STORE;
	if (!tlb || (tlb & PERF_MEM_TLB_NA))
		return;
	/* Intel's PEBS (arch/x86/events/intel/ds.c): an STLB miss is TLB
	 * L2|MISS, a hit L1|L2|HIT; the walker and OS bits may join a miss */
	if (tlb & PERF_MEM_TLB_MISS) {
		/* a miss that names the second level or the walker missed
		 * every level; one that names only L1 leaves L2 unsaid */
		a->l1_miss = true;
		if (tlb & (PERF_MEM_TLB_L2 | PERF_MEM_TLB_WK | PERF_MEM_TLB_OS))
			a->tlb = HWS_TLB_MISS;
	} else if (tlb & PERF_MEM_TLB_HIT) {
		/* Intel says L1|L2|HIT for "hit in either": taken as L1 */
		a->tlb = (tlb & PERF_MEM_TLB_L1) ? HWS_TLB_L1_HIT
			 : (tlb & PERF_MEM_TLB_L2) ? HWS_TLB_L2_HIT : HWS_TLB_HIT;
		a->l1_miss = a->tlb == HWS_TLB_L2_HIT;
	}
}

/* ---- AMD IBS op ---------------------------------------------------------- */

int hws_ibs_op_parse(const void *raw, size_t len, struct hws_ibs_op *op)
{
	const unsigned char *p = raw;
	uint64_t r[9];
	size_t n = 7, i = 7;

	memset(op, 0, sizeof(*op));
	if (!raw || len < 4)
		return -EBADMSG;
	memcpy(&op->caps, p, 4);
	op->has_br_target = op->caps & HWS_IBS_CAPS_BRNTRGT;
	op->has_op_data4 = op->caps & HWS_IBS_CAPS_OPDATA4;
	n += op->has_br_target + op->has_op_data4;
	if (len - 4 < n * 8)
		return -EBADMSG;
	memcpy(r, p + 4, n * 8);
	op->op_ctl = r[0];
	op->op_rip = r[1];
	op->op_data = r[2];
	op->op_data2 = r[3];
	op->op_data3 = r[4];
	op->dc_lin_addr = r[5];
	op->dc_phys_addr = r[6];
	if (op->has_br_target)
		op->br_target = r[i++];
	if (op->has_op_data4)
		op->op_data4 = r[i];
	op->zen5_layout = op->caps & HWS_IBS_CAPS_OPDTLBPGSIZE;
	op->dc_miss_lat = (uint16_t)(op->op_data3 >> 32);
	op->tlb_refill_lat = (uint16_t)(op->op_data3 >> 48);
	return 0;
}

/* Zen 5: bits 4-5 are the page size, bits 2-3 the misses, all valid only
 * with DcPhyAddrValid. */
static void ibs_zen5(uint64_t d3, struct hws_access *a)
{
	static const uint64_t sizes[4] = { 4096, 2ULL << 20, 1ULL << 30, 0 };

	if (!(d3 & HWS_IBS_DC_PHY_ADDR_VALID))
		return;
	a->page_size = sizes[(d3 >> 4) & 3];
	a->l1_miss = d3 & HWS_IBS_DC_L1TLB_MISS;
	a->tlb = (d3 & HWS_IBS_DC_L2TLB_MISS) ? HWS_TLB_MISS
		 : a->l1_miss ? HWS_TLB_L2_HIT : HWS_TLB_L1_HIT;
}

/* Zen 1-4: hit bits per level and size; the size of a page the walk found
 * is not said. */
static void ibs_before_zen5(uint64_t d3, struct hws_access *a)
{
	a->l1_miss = d3 & HWS_IBS_DC_L1TLB_MISS;
	if (!a->l1_miss) {
		a->tlb = HWS_TLB_L1_HIT;
		a->page_size = (d3 & HWS_IBS_DC_L1TLB_HIT_1G) ? 1ULL << 30
			       : (d3 & HWS_IBS_DC_L1TLB_HIT_2M) ? 2ULL << 20 : 4096;
	} else if (!(d3 & HWS_IBS_DC_L2TLB_MISS)) {
		a->tlb = HWS_TLB_L2_HIT;
		a->page_size = (d3 & HWS_IBS_DC_L2TLB_HIT_1G) ? 1ULL << 30
			       : (d3 & HWS_IBS_DC_L2TLB_HIT_2M) ? 2ULL << 20 : 4096;
	} else {
		a->tlb = HWS_TLB_MISS;
	}
}

void hws_ibs_op_access(const struct hws_ibs_op *op, struct hws_access *a)
{
	uint64_t d3 = op->op_data3;

	memset(a, 0, sizeof(*a));
	a->load = d3 & HWS_IBS_LD_OP;
	a->store = d3 & HWS_IBS_ST_OP;
	a->vaddr_valid = d3 & HWS_IBS_DC_LIN_ADDR_VALID;
	a->paddr_valid = d3 & HWS_IBS_DC_PHY_ADDR_VALID;
	a->vaddr = a->vaddr_valid ? op->dc_lin_addr : 0;
	a->paddr = a->paddr_valid ? op->dc_phys_addr : 0;
	/* the kernel's own reading (ibs.c, perf_ibs_get_tlb_lvl): no TLB
	 * information without a valid linear address */
	if (!a->vaddr_valid || !(a->load || a->store))
		return;
	if (op->zen5_layout)
		ibs_zen5(d3, a);
	else
		ibs_before_zen5(d3, a);
}

/* ---- Arm SPE --------------------------------------------------------------- */

static int spe_payload(const unsigned char *buf, size_t len, size_t hdr, size_t n,
		       struct hws_spe_packet *p)
{
	if (len < hdr + n)
		return 0;
	p->payload = 0;
	memcpy(&p->payload, buf + hdr, n); /* little-endian, as the AUX data */
	return (int)(hdr + n);
}

/* An address or a counter packet, after its index is read: h is its header
 * byte (the second of an extended header), hdr the header's length. */
static int spe_indexed(const unsigned char *buf, size_t len, unsigned h, size_t hdr,
		       struct hws_spe_packet *p)
{
	if ((h & 0xf8) == 0xb0) {
		p->type = HWS_SPE_ADDRESS;
		return spe_payload(buf, len, hdr, 8, p);
	}
	if ((h & 0xf8) == 0x98) {
		p->type = HWS_SPE_COUNTER;
		return spe_payload(buf, len, hdr, 2, p);
	}
	p->type = HWS_SPE_BAD;
	return -EBADMSG;
}

static int spe_extended(const unsigned char *buf, size_t len, uint64_t pos,
			struct hws_spe_packet *p)
{
	unsigned h1;

	if (len < 2)
		return 0;
	h1 = buf[1];
	if (h1 == 0) {
		/* alignment: pad to a 2^(n+1)-byte boundary of the stream */
		uint64_t align = 1ULL << ((buf[0] & 0xf) + 1);
		uint64_t skip = align - (pos & (align - 1));

		p->type = HWS_SPE_PAD;
		if (skip < 2)
			skip += align; /* the 2-byte header passes the nearer boundary */
		return skip > len ? 0 : (int)skip;
	}
	p->index = ((buf[0] & 3u) << 3) | (h1 & 7u);
	return spe_indexed(buf, len, h1, 2, p);
}

int hws_spe_packet(const unsigned char *buf, size_t len, uint64_t pos, struct hws_spe_packet *p)
{
	unsigned h;

	memset(p, 0, sizeof(*p));
	if (!len)
		return 0;
	h = buf[0];
	if (h == 0x00) {
		p->type = HWS_SPE_PAD;
		return 1;
	}
	if (h == 0x01) {
		p->type = HWS_SPE_END;
		return 1;
	}
	if (h == 0x71) {
		p->type = HWS_SPE_TIMESTAMP;
		return spe_payload(buf, len, 1, 8, p);
	}
	if ((h & 0xcf) == 0x42 || (h & 0xcf) == 0x43) {
		p->type = (h & 0xcf) == 0x42 ? HWS_SPE_EVENTS : HWS_SPE_DATA_SOURCE;
		return spe_payload(buf, len, 1, (size_t)1 << ((h >> 4) & 3), p);
	}
	if ((h & 0xfc) == 0x64) {
		p->type = HWS_SPE_CONTEXT;
		p->index = h & 3;
		return spe_payload(buf, len, 1, 4, p);
	}
	if ((h & 0xfc) == 0x48) {
		p->type = HWS_SPE_OP_TYPE;
		p->index = h & 3; /* class: 0 other, 1 load/store/atomic, 2 branch */
		return spe_payload(buf, len, 1, 1, p);
	}
	if ((h & 0xfc) == 0x20)
		return spe_extended(buf, len, pos, p);
	p->index = h & 7;
	return spe_indexed(buf, len, h, 1, p);
}

static void spe_apply(const struct hws_spe_packet *p, struct hws_access *a)
{
	uint64_t v = p->payload & ((1ULL << 56) - 1);

	if (p->type == HWS_SPE_ADDRESS && p->index == HWS_SPE_ADDR_DATA_VIRT) {
		/* the top byte is a tag; bits 55:52 all set: a kernel address,
		 * whose top byte perf fills (arm-spe-decoder.c, arm_spe_calc_ip;
		 * Documentation/arch/arm64/memory.rst) */
		if (((v >> 52) & 0xf) == 0xf)
			v |= 0xffULL << 56;
		a->vaddr = v;
		a->vaddr_valid = true;
	} else if (p->type == HWS_SPE_ADDRESS && p->index == HWS_SPE_ADDR_DATA_PHYS) {
		a->paddr = v;
		a->paddr_valid = true;
	} else if (p->type == HWS_SPE_EVENTS && (p->payload & HWS_SPE_EV_TLB_ACCESS)) {
		a->tlb = (p->payload & HWS_SPE_EV_TLB_WALK) ? HWS_TLB_MISS : HWS_TLB_HIT;
		a->l1_miss = a->tlb == HWS_TLB_MISS;
	} else if (p->type == HWS_SPE_CONTEXT) {
		a->context = (uint32_t)p->payload;
		a->context_valid = true;
	} else if (p->type == HWS_SPE_OP_TYPE && p->index == 1) {
		/* load/store class: payload bit 0 set for a store */
		a->store = p->payload & 1;
		a->load = !a->store;
	}
}

size_t hws_spe_skip_padding(const unsigned char *buf, size_t len, uint64_t base, size_t off)
{
	struct hws_spe_packet p;
	int n;

	while (off < len && (n = hws_spe_packet(buf + off, len - off, base + off, &p)) > 0 &&
	       p.type == HWS_SPE_PAD)
		off += (size_t)n;
	return off;
}

int hws_spe_record(const unsigned char *buf, size_t len, size_t *off, struct hws_access *a)
{
	return hws_spe_record_at(buf, len, 0, off, a);
}

int hws_spe_record_at(const unsigned char *buf, size_t len, uint64_t base, size_t *off,
		      struct hws_access *a)
{
	size_t o;

	memset(a, 0, sizeof(*a));
	/* padding is no part of a record: a buffer that ends in it holds no
	 * unfinished record */
	o = *off = hws_spe_skip_padding(buf, len, base, *off);
	while (o < len) {
		struct hws_spe_packet p;
		int n = hws_spe_packet(buf + o, len - o, base + o, &p);

		if (n < 0) {
			/* as perf's arm_spe_get_next_packet: one byte past the bad
			 * packet, not past the record's start, whose packets were
			 * read already (their payloads would decode as headers) */
			*off = o + 1;
			return -EBADMSG;
		}
		if (n == 0)
			return 0;
		o += (size_t)n;
		spe_apply(&p, a);
		if (p.type == HWS_SPE_END || p.type == HWS_SPE_TIMESTAMP) {
			*off = o;
			return 1;
		}
	}
	return 0;
}
