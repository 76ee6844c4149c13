/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sampling through the perf ring buffer (for 'record'): one event on the
 * calling thread or a target process (pid, inherit, enable_on_exec),
 * PERF_SAMPLE_TID | TIME | ADDR | DATA_SRC, and on request CPU, RAW (AMD IBS
 * registers), PHYS_ADDR and DATA_PAGE_SIZE, drained by the reader in place
 * (data_head / data_tail protocol), with PERF_RECORD_LOST and
 * PERF_RECORD_LOST_SAMPLES counted, and on request each exec of the target
 * (PERF_RECORD_COMM) delivered in its place among the samples. Return convention: 0 or negative
 * errno; nothing prints.
 *
 * Precise memory sampling: Intel PEBS with a libpfm4 string such as
 * "icl::MEM_INST_RETIRED:STLB_MISS_LOADS" and precise = 2; AMD IBS op with
 * "ibs_op/rNNNN/" (type from sysfs); Arm SPE ("arm_spe_0/rHEX/") writes its
 * records to an AUX area (aux_pages), read by auxring.c.
 */
#ifndef SAMPLING_H
#define SAMPLING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auxring.h"

struct sampling_options {
	const char *event;            /* any counters_encode() string: "page-faults", libpfm4, raw */
	unsigned long long period;    /* sample every N events (1: every one) */
	unsigned long long freq;      /* instead: about this many samples a second
				       * (attr.freq; perf -F); 0 = use period */
	unsigned data_pages;          /* ring size in pages, a power of two */
	int precise;                  /* attr.precise_ip (0-3) */
	bool include_kernel;
	/* the target, as struct counters_options: 0 = the calling thread */
	int pid;
	bool inherit;                 /* the target's later threads and children too */
	bool inherit_thread;          /* with inherit: its later threads, not its
				       * children (attr.inherit_thread, 5.13+) */
	bool enable_on_exec;          /* start at the target's exec (a prepared child) */
	/* on one CPU only (on_cpu): the kernel maps no ring of an inherited
	 * event bound to a task on every CPU, so an inherited target takes one
	 * ring per CPU, as perf record does */
	bool on_cpu;
	int cpu;
	/* records go to this ring, an event's on the same CPU (on_cpu), and
	 * this one maps none (PERF_EVENT_IOC_SET_OUTPUT): one ring a CPU for
	 * the events of many threads; its drains find nothing */
	struct sampling_ring *output;
	/* more of the sample, each where the kernel allows it (open fails
	 * with -EINVAL where it does not: see sampling_open) */
	bool data_page_size;          /* PERF_SAMPLE_DATA_PAGE_SIZE (5.11+) */
	bool phys_addr;               /* PERF_SAMPLE_PHYS_ADDR (root) */
	bool raw;                     /* PERF_SAMPLE_RAW (IBS op registers) */
	bool sample_cpu;              /* PERF_SAMPLE_CPU */
	/* an AUX area of this many pages (a power of two; 0: none) whose
	 * contents are Arm SPE records (auxring.h), delivered as samples */
	unsigned aux_pages;
	/* each exec of the target, delivered as a sample with exec set
	 * (attr.comm, comm_exec; sample_id_all for its time) */
	bool execs;
};

struct sampling_sample {
	uint32_t pid, tid;
	uint64_t time;     /* ns, perf clock */
	uint64_t addr;     /* data address (the faulting address for page faults) */
	uint64_t data_src; /* union perf_mem_data_src */
	/* present when asked for (sampling_options), else 0 / NULL */
	uint32_t cpu;
	uint64_t phys_addr;
	uint64_t data_page_size; /* bytes of the mapping at sample time; 0 = none */
	const void *raw;         /* PERF_SAMPLE_RAW bytes (valid during the call) */
	uint32_t raw_size;
	/* an SPE record of the AUX area, decoded (valid during the call; addr
	 * is its virtual address, tid its context or else the ring's target,
	 * pid that thread's process); NULL for a perf sample */
	const struct hws_access *access;
	/* not a sample: process pid (thread tid) exec'd at time (0: not
	 * known), a PERF_RECORD_COMM of an exec; every other field 0 */
	bool exec;
	/* not a sample: thread tid of process pid started at time, a
	 * PERF_RECORD_FORK (the kernel writes one with execs asked, into the
	 * ring of the event of the thread that started it); other fields 0 */
	bool fork;
};

struct sampling_stats {
	uint64_t samples;       /* PERF_RECORD_SAMPLE delivered */
	uint64_t lost_records;  /* PERF_RECORD_LOST and _LOST_SAMPLES records seen */
	uint64_t lost_samples;  /* their 'lost' fields summed */
	uint64_t execs;         /* PERF_RECORD_COMM of an exec, delivered */
	uint64_t forks;         /* PERF_RECORD_FORK, delivered */
	uint64_t other_records; /* other record types, skipped */
	uint64_t wrapped;       /* records that straddled the end of the ring */
	uint64_t bytes;         /* bytes consumed */
	/* PERF_RECORD_AUX: pieces of AUX data the kernel announced, and how
	 * many said data was lost (TRUNCATED: the area was full; COLLISION:
	 * the hardware lost records) or came with a gap (PARTIAL) */
	uint64_t aux_records, aux_truncated, aux_collision, aux_partial;
	struct auxring_stats aux; /* the AUX area's own */
};

typedef int (*sampling_sample_fn)(const struct sampling_sample *s, void *ctx);

/* The process (thread group) of thread 'tid': the Tgid: line of
 * /proc/TID/status. -ESRCH when the thread is gone, -EINVAL for tid <= 0. */
int sampling_tgid(int tid);

/* An SPE record's context is a thread id (CONFIG_PID_IN_CONTEXTIDR puts
 * task_pid_nr there) and record files samples by process: each thread's,
 * looked up once (a tid that another process reuses within one recording
 * is misfiled). */
#define SAMPLING_TGID_CACHE 64
struct sampling_tgid_cache {
	struct {
		int tid, tgid;
	} e[SAMPLING_TGID_CACHE];
};
/* tid's process (c zero-initialised at first); a thread already gone keeps
 * its own id, which record counts as a process that ended (process_gone),
 * as it does any sample of a vanished process. */
int sampling_tgid_cached(struct sampling_tgid_cache *c, int tid);

struct sampling_ring;

/* Open and mmap (1 + data_pages pages). On a bad event -ENOMSG (see
 * counters_strerror / counters_encode_detail); -EINVAL for data_pages not a power of 2. */
int sampling_open(struct sampling_ring **r, const struct sampling_options *o);
int sampling_enable(struct sampling_ring *r);
int sampling_disable(struct sampling_ring *r);
/* Consume every complete record between data_tail and data_head, calling
 * fn for samples (fn returning non-zero stops early; the rest stays for the
 * next drain), then the AUX area's; an event the kernel stopped at a
 * truncation of its AUX data is enabled again once there is room
 * (stats.aux.restarts), unless sampling_disable stopped it. Returns 0, fn's
 * value or -errno of the enable. */
int sampling_drain(struct sampling_ring *r, sampling_sample_fn fn, void *ctx);
/* The last drain, after the event is disabled: an unfinished record left
 * in the AUX area is given up (counted in stats.aux.dropped). */
int sampling_drain_last(struct sampling_ring *r, sampling_sample_fn fn, void *ctx);
const struct sampling_stats *sampling_stats(const struct sampling_ring *r);
void sampling_close(struct sampling_ring *r);

/*
 * The parsing core, independent of the kernel (table-tested with synthetic
 * rings): records in data[0..size) (size a power of two) from *tail to head;
 * *tail advances past each consumed record.
 */
int sampling_parse(const unsigned char *data, uint64_t size, uint64_t head, uint64_t *tail,
	      struct sampling_stats *st, sampling_sample_fn fn, void *ctx);
/* The same for samples of another sample_type (the PERF_SAMPLE_* bits of
 * sampling_sample_type(); others are -EINVAL). Records longer than
 * SAMPLING_MAX_RECORD are -EBADMSG. */
#define SAMPLING_MAX_RECORD 1024
int sampling_parse_type(const unsigned char *data, uint64_t size, uint64_t head, uint64_t *tail,
		   uint64_t sample_type, struct sampling_stats *st, sampling_sample_fn fn, void *ctx);
/* The sample_type sampling_open asks for with these options. */
uint64_t sampling_sample_type(const struct sampling_options *o);

/* PERF_MEM_TLB_* bits of a data_src, decoded. */
struct sampling_tlb {
	bool known;   /* not PERF_MEM_TLB_NA and some bit set */
	bool hit, miss;
	bool l1, l2;  /* which TLB level answered (or missed) */
	bool walker;  /* hardware walker (PERF_MEM_TLB_WK) */
	bool os;      /* OS fault handler (PERF_MEM_TLB_OS) */
};
void sampling_decode_tlb(uint64_t data_src, struct sampling_tlb *t);
/* "L1 hit", "L2 miss, walk", "n/a", ... */
int sampling_tlb_str(uint64_t data_src, char *buf, size_t size);

#endif
