// SPDX-License-Identifier: GPL-2.0-or-later
/* What the document writers share (json_write.h). */
#include <stdio.h>

#include "json_write.h"

json_t *wr_order_counts(const unsigned long long *v, int max_order)
{
	json_t *o = json_object();
	char k[8];
	int i;

	for (i = 0; o && i <= max_order; i++) {
		if (!v[i])
			continue;
		snprintf(k, sizeof(k), "%d", i);
		json_object_set_new(o, k, json_integer((json_int_t)v[i]));
	}
	return o;
}
