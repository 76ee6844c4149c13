/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hwloc: CPU model, caches, NUMA, pinning; uname; virtualization. */
#ifndef TOPO_H
#define TOPO_H

#include <stdbool.h>

#include "host.h" /* struct topo_info */
#include "results.h" /* struct results_host */
#include "thp_settings.h"

int topo_describe(struct topo_info *t);
/* Is 'midr' (MIDR_EL1) an emulated CPU? Implementer 0x00 is reserved for
 * software use; QEMU's TCG 'max' CPU reports 0x00, part 0x051 ('Q'). */
bool topo_midr_emulated(unsigned long midr);
/* Bind the calling thread to one PU (by OS index). */
int topo_pin_cpu(int cpu);
/* The PU a benchmark should use by default: the last one (away from CPU 0's
 * interrupts). */
int topo_default_cpu(void);
/* MemAvailable of /proc/meminfo in bytes: 0 or -errno (-ENOENT without the line). */
int topo_mem_available(unsigned long long *bytes);

/* The host every document describes: h from the topology and the THP
 * settings, with the PMU probed here (libpfm4's models, whether a hardware
 * cycles counter opens, and why not in words). */
void results_host_describe(struct results_host *h, const struct topo_info *t,
			   const struct thp_settings *s);
/* describe + results_host_to_json: the "host" object of this machine now. */
json_t *results_host_json(const struct topo_info *t, const struct thp_settings *s);

#endif
