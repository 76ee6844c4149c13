/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The running kernel's build configuration, where the system keeps it
 * (/boot/config-RELEASE as Debian installs it, /lib/modules/RELEASE/config,
 * or $MTHPSCOPE_KCONFIG), and the kernel log's mTHP collapse message.
 *
 * Return convention: 0 or negative errno; nothing here prints or exits.
 */
#ifndef KCONFIG_H
#define KCONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* The options 'info' reports, in this order (THP and what the tool needs). */
extern const char *const kconfig_thp_options[];

/* Path of the config file into 'path'. -ENOENT when none is readable. */
int kconfig_find(char *path, size_t size);

/*
 * The value of CONFIG_<name> (name without the prefix) in the config file
 * 'path': "y", "m", a number or a quoted string as written, or "n" for
 * "# CONFIG_<name> is not set". -ENOENT when the file does not mention it,
 * -errno when it cannot be read.
 */
int kconfig_get(const char *path, const char *name, char *val, size_t size);

/* khugepaged's pr_warn_once when mTHP collapse rewrites max_ptes_none (Linux 7.2+). */
#define KLOG_MPN_MESSAGE "mTHP collapse does not support max_ptes_none values other than 0 or "

/*
 * Search the kernel log (syslog READ_ALL; needs CAP_SYSLOG where
 * dmesg_restrict is set) for KLOG_MPN_MESSAGE. 0 with *found and, when found,
 * *kept = the number after "0 or " (HPAGE_PMD_NR - 1); -EPERM/-EACCES when
 * the log is not readable. $MTHPSCOPE_KLOG names a file read instead (tests).
 */
int klog_find_mpn_message(bool *found, int *kept);

#endif
