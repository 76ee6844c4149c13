/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hwloc: CPU model, caches, NUMA, pinning; uname; virtualization. */
#ifndef TOPO_H
#define TOPO_H

#include <stdbool.h>

struct topo_info {
	char kernel[65];       /* uname release */
	char arch[65];         /* uname machine */
	char cpu_vendor[64];
	char cpu_model[128];
	int cpu_family, cpu_model_number; /* x86 CPUID family/model; -1 elsewhere */
	bool virtualized;
	char virt_reason[96];  /* "CPUID hypervisor bit (KVMKVMKVM)", "DMI: QEMU", ... */
	/* The CPU itself is emulated (QEMU TCG): timing and cycle counts say
	 * nothing about any hardware; faults, folio orders and bloat are real. */
	bool emulated;
	char emul_reason[128];
	int packages, cores, pus, numa_nodes;
	unsigned long long l1d_bytes, l2_bytes, l3_bytes; /* 0 when unknown */
	long page_size;
	/* steal_known: /proc/stat was read (steal.h); steal_counted: it has
	 * counted steal time since boot (false: a hypervisor that reports none,
	 * so CPU time includes the host's share) */
	bool steal_known, steal_counted;
};

int topo_describe(struct topo_info *t);
/* Is 'midr' (MIDR_EL1) an emulated CPU? Implementer 0x00 is reserved for
 * software use; QEMU's TCG 'max' CPU reports 0x00, part 0x051 ('Q'). */
bool topo_midr_emulated(unsigned long midr);
/* Bind the calling thread to one PU (by OS index). */
int topo_pin_cpu(int cpu);
/* The PU a benchmark should use by default: the last one (away from CPU 0's
 * interrupts). */
int topo_default_cpu(void);
void topo_release(void);
/* MemAvailable of /proc/meminfo in bytes: 0 or -errno (-ENOENT without the line). */
int topo_mem_available(unsigned long long *bytes);

#endif
