/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Steal time: how long the hypervisor ran something else while a vCPU of
 * this guest was runnable, from /proc/stat (the 8th number of a "cpu" line,
 * in USER_HZ ticks). Kernels with paravirtual steal accounting (KVM, Xen,
 * Hyper-V) count it; hypervisors that report none leave it 0, and then a
 * thread's CPU time includes the host's share. MTHPSCOPE_PROC_ROOT points
 * at a stand-in /proc (tests).
 */
#ifndef STEAL_H
#define STEAL_H

#include <stdbool.h>

/* Steal of one CPU (-1: all CPUs) since boot, in ns. -ENODATA when the
 * kernel has no steal field, -ENOENT when there is no such CPU line. */
int steal_read(int cpu, unsigned long long *ns);

/* Whether any CPU has counted steal since boot: 1 yes, 0 none (this
 * hypervisor reports none, or there was none to report), -errno. */
int steal_reported(void);

/* A round whose steal exceeds this share of its wall time is disturbed. */
#define STEAL_DISTURBED_SHARE 0.10

#endif
