/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The running kernel's build configuration, where the system keeps it
 * (/boot/config-RELEASE as Debian installs it, /lib/modules/RELEASE/config,
 * /proc/config.gz, or $MTHPSCOPE_KCONFIG), and the kernel log's mTHP collapse message.
 *
 * Return convention: 0 or negative errno; nothing here prints or exits.
 */
#ifndef KCONFIG_H
#define KCONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* The options 'info' reports, in this order (THP and what the tool needs). */
extern const char *const kconfig_thp_options[];

/* The running kernel's release (uname -r, or $MTHPSCOPE_KERNEL_RELEASE). */
int kconfig_release(char *buf, size_t size);

/*
 * Path of the config file into 'path': $MTHPSCOPE_KCONFIG alone when set;
 * else the first readable of $MTHPSCOPE_BOOT_DIR/config-RELEASE (/boot),
 * /lib/modules/RELEASE/config, /usr/lib/modules/RELEASE/config and
 * $MTHPSCOPE_PROC_ROOT/config.gz (/proc). -ENOENT when none is readable.
 */
int kconfig_find(char *path, size_t size);

/*
 * Each line of the config file 'path' (without its newline; a .gz through
 * gzip -dc) to on_line, until on_line returns non-zero: that value, 0 at the
 * end, -errno when the file cannot be read, -EIO when gzip fails.
 */
int kconfig_read(const char *path, int (*on_line)(const char *line, void *ctx), void *ctx);

/*
 * The value of CONFIG_<name> (name without the prefix) in the config file
 * 'path': "y", "m", a number or a quoted string as written, or "n" for
 * "# CONFIG_<name> is not set". -ENOENT when the file does not mention it,
 * -errno when it cannot be read.
 */
int kconfig_get(const char *path, const char *name, char *val, size_t size);

/* One config line (no newline) as kconfig_get reads it: 0 with the value,
 * -ENOENT when the line is not about CONFIG_<name>. */
int kconfig_value(const char *line, const char *name, char *val, size_t size);
/* One config line: CONFIG_<name>=y or =m -> 1, another value or "# CONFIG_<name>
 * is not set" -> 0, a line about something else -1. */
int kconfig_line(const char *line, const char *name);

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
