/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The record document for people: per VMA, the samples by folio order
 * against the VMA's memory by order ("62 % of the samples fall on order-0
 * pages of [heap], which are 18 % of its memory"), data page sizes where
 * the kernel gave them, and the hottest windows; text, markdown or the
 * JSON document itself. Writes only to the stream it is given.
 */
#ifndef RECORD_REPORT_H
#define RECORD_REPORT_H

#include <stdio.h>

#include "record_doc.h"
#include "report.h"

/* 0, -ENOMEM, or -EIO when the stream fails. */
int record_report_write(const struct record_doc *d, enum report_format f, FILE *out);
/* "[heap]", a path's last part, or "anon 0x7f..." for a nameless VMA. */
void record_vma_label(const struct record_vma *v, char *buf, size_t size);

#endif
