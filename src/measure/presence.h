/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The presence map of a process (scan --presence): for each PMD-sized range
 * of its private anonymous memory (the VMAs khugepaged's anon collapse
 * scans: no file, writable, private; [heap] and [stack] too) the present
 * pages with their folio orders and PFNs, into a presence document
 * (src/doc/presence_doc.h). PFNs come from /proc/PID/pagemap, orders from
 * the folio scanner (folio.h); the zero page, KSM, hugetlb and pages
 * without a struct page are left out, as khugepaged counts the zero page
 * among the empty PTEs. Ranges without a present page are left out.
 * Two VMAs in one PMD range share its entry ('lo' to 'hi' spans both).
 *
 * Return convention: 0 or negative errno (-EPERM without the privilege to
 * see PFNs, -ESRCH when the process is gone); nothing here prints.
 */
#ifndef PRESENCE_H
#define PRESENCE_H

#include "presence_doc.h"

/* d initialised with presence_doc_init; adds the process's ranges, and its
 * name (/proc/PID/comm) where d->command is empty.
 * -ESRCH: no such process; -ENODATA: it has no memory map (a kernel thread). */
int presence_capture(int pid, struct presence_doc *d);

#endif
