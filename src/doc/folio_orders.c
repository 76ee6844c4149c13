// SPDX-License-Identifier: GPL-2.0-or-later
/* struct folio_orders (folio_types.h): the one parser of --orders. */
#include "folio_types.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void folio_orders_add(struct folio_orders *o, int order)
{
	if (order < 0 || order > FOLIO_MAX_ORDER || folio_orders_has(o, order) ||
	    o->nr >= FOLIO_MAX_ORDER + 1)
		return;
	o->order[o->nr++] = order;
}

bool folio_orders_has(const struct folio_orders *o, int order)
{
	size_t i;

	for (i = 0; i < o->nr; i++)
		if (o->order[i] == order)
			return true;
	return false;
}

unsigned long folio_orders_mask(const struct folio_orders *o)
{
	unsigned long m = 0;
	size_t i;

	for (i = 0; i < o->nr; i++)
		m |= 1UL << o->order[i];
	return m;
}

void folio_orders_from_mask(struct folio_orders *o, unsigned long mask)
{
	int i;

	o->nr = 0;
	o->all = false;
	for (i = 0; i <= FOLIO_MAX_ORDER; i++)
		if (mask & (1UL << i))
			o->order[o->nr++] = i;
}

int folio_orders_parse(const char *s, struct folio_orders *o)
{
	const char *p = s;

	memset(o, 0, sizeof(*o));
	if (!strcmp(s, "all")) {
		o->all = true;
		return 0;
	}
	for (;;) {
		char *end;
		long lo, hi, i;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		errno = 0;
		lo = hi = strtol(p, &end, 10);
		if (*end == '-') {
			p = end + 1;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			hi = strtol(p, &end, 10);
		}
		if (errno || hi < lo || hi > FOLIO_MAX_ORDER || (*end && *end != ','))
			return -EINVAL;
		for (i = lo; i <= hi; i++)
			folio_orders_add(o, (int)i);
		if (!*end)
			break;
		p = end + 1;
	}
	return o->nr ? 0 : -EINVAL;
}
