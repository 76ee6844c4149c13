/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decoders of precise memory samples into one shape, struct hws_access:
 * the data address, the TLB outcome and the page size the hardware saw.
 *
 * - Intel PEBS (MEM_INST_RETIRED.STLB_MISS_LOADS / _STORES): the kernel
 *   decodes the PEBS record into the perf sample (ADDR, DATA_SRC with its
 *   PERF_MEM_TLB_* bits, PHYS_ADDR, DATA_PAGE_SIZE): hws_from_perf().
 * - AMD IBS op: the PERF_SAMPLE_RAW of an ibs_op event is { u32 caps;
 *   u64 IbsOpCtl, IbsOpRip, IbsOpData, IbsOpData2, IbsOpData3, IbsDcLinAd,
 *   IbsDcPhysAd; [IbsBrTarget if caps has BRNTRGT]; [IbsOpData4 if caps
 *   has OPDATA4] } (Linux arch/x86/events/amd/ibs.c). IbsOpData3 changed
 *   on Zen 5 (caps bit 19, OPDTLBPGSIZE; "dtlb_pgsize" in the PMU's sysfs
 *   caps): bits 4-5 are a page size (0 4K, 1 2M, 2 1G), bits 6 and 19 are
 *   reserved, and the miss bits are valid only with DcPhyAddrValid.
 *   Before: bits 4/5 L1 hit in 2M/1G, 6/19 L2 hit in 2M/1G. Layout facts
 *   from Linux arch/x86/include/asm/amd-ibs.h and
 *   tools/perf/util/amd-sample-raw.c; AMD PPR 55898 (Family 19h).
 * - Arm SPE: the AUX buffer holds records of packets, each ending at an
 *   END or TIMESTAMP packet (Linux drivers/perf/arm_spe_pmu.c, perf's
 *   arm-spe-pkt-decoder; Arm ARM, "Statistical Profiling Extension").
 *
 * None of these has met real hardware here (a VM without a PMU): they are
 * tested on records built from the documented layouts. Nothing prints.
 */
#ifndef HWSAMPLE_H
#define HWSAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hws_tlb {
	HWS_TLB_UNKNOWN = 0,
	HWS_TLB_L1_HIT,   /* first-level data TLB hit */
	HWS_TLB_L2_HIT,   /* L1 miss, second-level (STLB / L2 DTLB) hit */
	HWS_TLB_MISS,     /* missed every TLB level: a page walk */
	HWS_TLB_HIT,      /* a TLB hit, level not said (SPE) */
};

struct hws_access {
	bool vaddr_valid, paddr_valid;
	uint64_t vaddr, paddr;
	uint64_t page_size;   /* bytes of the translation; 0 = not said */
	enum hws_tlb tlb;
	bool l1_miss;         /* the first-level DTLB missed (also with tlb MISS) */
	bool load, store;
	/* Arm SPE's context packet: CONTEXTIDR, the thread's id where the
	 * kernel puts it there (CONFIG_PID_IN_CONTEXTIDR) */
	bool context_valid;
	uint32_t context;
};

const char *hws_tlb_name(enum hws_tlb t); /* "l1-hit", "l2-hit", "miss", "hit", "unknown" */

/* ---- Intel PEBS (and any perf sample with data_src) -------------------- */
/* From the perf sample's fields (data_src: union perf_mem_data_src). */
void hws_from_perf(uint64_t addr, uint64_t data_src, uint64_t phys_addr, uint64_t data_page_size,
		   struct hws_access *a);

/* ---- AMD IBS op -------------------------------------------------------- */
#define HWS_IBS_CAPS_BRNTRGT (1U << 5)
#define HWS_IBS_CAPS_OPDATA4 (1U << 10)
#define HWS_IBS_CAPS_ZEN4 (1U << 11)
#define HWS_IBS_CAPS_OPDTLBPGSIZE (1U << 19)

/* IbsOpData3 bits */
#define HWS_IBS_LD_OP (1ULL << 0)
#define HWS_IBS_ST_OP (1ULL << 1)
#define HWS_IBS_DC_L1TLB_MISS (1ULL << 2)
#define HWS_IBS_DC_L2TLB_MISS (1ULL << 3)
#define HWS_IBS_DC_L1TLB_HIT_2M (1ULL << 4)   /* Zen 5: page size bit 0 */
#define HWS_IBS_DC_L1TLB_HIT_1G (1ULL << 5)   /* Zen 5: page size bit 1 */
#define HWS_IBS_DC_L2TLB_HIT_2M (1ULL << 6)   /* Zen 5: reserved */
#define HWS_IBS_DC_LIN_ADDR_VALID (1ULL << 17)
#define HWS_IBS_DC_PHY_ADDR_VALID (1ULL << 18)
#define HWS_IBS_DC_L2TLB_HIT_1G (1ULL << 19)  /* Zen 5: reserved */
/* IbsOpCtl */
#define HWS_IBS_OP_VAL (1ULL << 18)

struct hws_ibs_op {
	uint32_t caps;
	uint64_t op_ctl, op_rip, op_data, op_data2, op_data3, dc_lin_addr, dc_phys_addr;
	bool has_br_target, has_op_data4;
	uint64_t br_target, op_data4;
	bool zen5_layout;         /* caps has OPDTLBPGSIZE */
	uint16_t dc_miss_lat, tlb_refill_lat; /* IbsOpData3 bits 32-47, 48-63 */
};

/* Split a raw record (PERF_SAMPLE_RAW bytes) into its registers: -EBADMSG
 * when shorter than the registers its caps announce (trailing bytes are
 * ignored: a newer kernel may add registers). */
int hws_ibs_op_parse(const void *raw, size_t len, struct hws_ibs_op *op);
/* What the registers say about the access (layout by op->zen5_layout). */
void hws_ibs_op_access(const struct hws_ibs_op *op, struct hws_access *a);

/* ---- Arm SPE ----------------------------------------------------------- */
enum hws_spe_type {
	HWS_SPE_BAD, HWS_SPE_PAD, HWS_SPE_END, HWS_SPE_TIMESTAMP, HWS_SPE_ADDRESS,
	HWS_SPE_COUNTER, HWS_SPE_CONTEXT, HWS_SPE_OP_TYPE, HWS_SPE_EVENTS, HWS_SPE_DATA_SOURCE,
};

#define HWS_SPE_ADDR_INS 0
#define HWS_SPE_ADDR_BRANCH 1
#define HWS_SPE_ADDR_DATA_VIRT 2
#define HWS_SPE_ADDR_DATA_PHYS 3

/* Events packet bits */
#define HWS_SPE_EV_L1D_ACCESS (1ULL << 2)
#define HWS_SPE_EV_L1D_REFILL (1ULL << 3)
#define HWS_SPE_EV_TLB_ACCESS (1ULL << 4)
#define HWS_SPE_EV_TLB_WALK (1ULL << 5)

struct hws_spe_packet {
	enum hws_spe_type type;
	unsigned index;     /* address / counter / context index, op class */
	uint64_t payload;
};

/* One packet at buf[0..len): its length in bytes, 0 when more bytes are
 * needed, -EBADMSG for a header that is no packet. 'pos' is the offset of
 * buf in the stream (alignment packets pad to a boundary of it). */
int hws_spe_packet(const unsigned char *buf, size_t len, uint64_t pos, struct hws_spe_packet *p);
/* Past the padding at buf + off (PAD and alignment packets): what the
 * driver writes between records and over the rest of a buffer it cannot
 * fill. 'base' as for hws_spe_record_at. */
size_t hws_spe_skip_padding(const unsigned char *buf, size_t len, uint64_t base, size_t off);
/* One record from buf + *off, after the padding before it: 1 with *a
 * filled and *off past it, 0 when the buffer ends first (*off past the
 * padding), -EBADMSG on a bad packet (*off one byte past the bad packet's
 * start, to resynchronise as perf does; the record's packets before it are
 * given up). */
int hws_spe_record(const unsigned char *buf, size_t len, size_t *off, struct hws_access *a);
/* The same for a buf that starts at offset 'base' of the stream (the AUX
 * area: alignment packets pad to boundaries of the stream). */
int hws_spe_record_at(const unsigned char *buf, size_t len, uint64_t base, size_t *off,
		      struct hws_access *a);

#endif
