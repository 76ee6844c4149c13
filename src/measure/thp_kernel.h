/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Why THP is missing or limited on this kernel: not configured
 * (CONFIG_TRANSPARENT_HUGEPAGE, e.g. PREEMPT_RT kernels before it was
 * allowed there), off from boot (transparent_hugepage=never on the command
 * line), or too old for per-size mTHP (hugepages-<N>kB/, Linux 6.8).
 *
 * Read from the kernel's own files: its config where kconfig_find() finds
 * it (kconfig.h: /boot/config-<release> ... /proc/config.gz), /proc/cmdline, the THP sysfs root
 * (thp_root()). MTHPSCOPE_BOOT_DIR, MTHPSCOPE_PROC_ROOT and
 * MTHPSCOPE_KERNEL_RELEASE point them at stand-ins (the tests' fixtures).
 */
#ifndef THP_KERNEL_H
#define THP_KERNEL_H

#include <stdbool.h>
#include <stddef.h>

#define THP_SYSFS_ROOT "/sys/kernel/mm/transparent_hugepage"
/* The THP sysfs root (THP_SYSFS_ROOT, or $MTHPSCOPE_THP_ROOT for fixture
 * tests of malformed sysfs contents). */
const char *thp_root(void);

struct thp_kernel {
	char release[96];      /* uname -r */
	int major, minor;      /* from release; 0.0 when unparsable */
	int configured;        /* CONFIG_TRANSPARENT_HUGEPAGE: 1 y, 0 not set, -1 no config */
	bool preempt_rt;       /* CONFIG_PREEMPT_RT=y */
	char config_path[300]; /* where the config was read, "" when none */
	bool cmdline_never;    /* transparent_hugepage=never on the command line */
	bool sysfs;            /* the THP sysfs root exists */
	bool per_size;         /* it has hugepages-<N>kB/ directories */
};

/* Fill *k; never fails (what cannot be read stays unknown). */
void thp_kernel_probe(struct thp_kernel *k);

/*
 * The reason THP cannot be used, or per-size mTHP is missing, in one
 * sentence; "" when THP and per-size mTHP are both there. Returns the length.
 */
int thp_kernel_why(const struct thp_kernel *k, char *buf, size_t size);

/* A note for transparent_hugepage=never at boot; "" when not given. */
int thp_kernel_boot_note(const struct thp_kernel *k, char *buf, size_t size);

#endif
