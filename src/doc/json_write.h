/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the document writers share (the readers' kit is json_read.h). */
#ifndef JSON_WRITE_H
#define JSON_WRITE_H

#include <jansson.h>

/* {"0": n, "9": n}: the counts v[0..max_order] by folio order, the orders
 * with a count only (a histogram says what is there). NULL without memory. */
json_t *wr_order_counts(const unsigned long long *v, int max_order);

#endif
