/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The description of a host every document carries ($.host): a plain type,
 * filled by the measurement layer (topo_describe, src/measure/topo.c) and
 * read back from files by the document readers. */
#ifndef HOST_H
#define HOST_H

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

#endif
