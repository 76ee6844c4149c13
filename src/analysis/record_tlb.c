// SPDX-License-Identifier: GPL-2.0-or-later
#include "record_tlb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int record_tlb_orders(const struct tlb_geometry *g, const struct layout_hist *h, int *orders)
{
	int m = tlb_merge_order(g, h), n = 0;

	if (m < 0)
		return -EINVAL;
	if (m > 0 && m < h->pmd_order)
		orders[n++] = m;
	orders[n++] = h->pmd_order;
	return n;
}

void record_tlb_layout_at(const struct layout_hist *h, int order, struct layout_hist *out)
{
	unsigned long long pages = h->contig[0], folios;
	int k;

	layout_hist_init(out, h->page_shift, h->pmd_order);
	if (order >= h->pmd_order) {
		pages = layout_hist_pages(h);
		out->pmd_maps = (pages + (1ULL << h->pmd_order) - 1) >> h->pmd_order;
		return;
	}
	out->pmd_maps = h->pmd_maps;
	folios = (pages + (1ULL << order) - 1) >> order;
	for (k = 0; k <= order; k++)
		out->contig[k] = out->folio[k] = folios << (order - k);
}

static unsigned long long entries(const struct tlb_footprint *fp)
{
	return fp->entries_base + fp->entries_merged + fp->entries_pmd;
}

int record_tlb_window(const struct tlb_geometry *g, const struct layout_hist *h,
		      struct record_window_tlb *t)
{
	int orders[RECORD_TLB_MAX_ORDERS], n, i, err;
	struct tlb_footprint fp;
	struct layout_hist at;

	memset(t, 0, sizeof(*t));
	if ((n = record_tlb_orders(g, h, orders)) < 0)
		return n;
	if ((err = tlb_footprint(g, h, &fp)))
		return err;
	t->entries_now = entries(&fp);
	for (i = 0; i < n; i++) {
		record_tlb_layout_at(h, orders[i], &at);
		if ((err = tlb_footprint(g, &at, &fp)))
			return err;
		t->order[i] = orders[i];
		t->entries_at[i] = entries(&fp);
	}
	t->nr_at = n;
	return 0;
}

/*
 * All or nothing: every window's figures go into scratch first, and d takes
 * them only when each window with a layout has them. A window g does not fit
 * once overwrote the windows before it and left the rest, and the header,
 * to the model they had (record -i FILE --tlb-model NAME).
 */
/* A window whose scan found no memory (freed before the scan, or never
 * scanned) has no figures: the model's entries for it are unknown, not 0. */
static bool seen(const struct record_window *w)
{
	return w->has_layout && layout_hist_pages(&w->layout) > 0;
}

int record_tlb_doc(struct record_doc *d, const struct tlb_geometry *g)
{
	enum tlb_source src = TLB_SRC_TABLE;
	struct record_window_tlb *t = NULL;
	struct tlb_footprint fp;
	bool any = false;
	size_t i;
	int err = 0;

	if (d->nr_windows && !(t = calloc(d->nr_windows, sizeof(*t))))
		return -ENOMEM;
	for (i = 0; i < d->nr_windows; i++) {
		const struct record_window *w = &d->windows[i];

		if (!seen(w))
			continue;
		if ((err = record_tlb_window(g, &w->layout, &t[i])) ||
		    (err = tlb_footprint(g, &w->layout, &fp)))
			goto out;
		any = true;
		src = fp.source;
	}
	for (i = 0; i < d->nr_windows; i++) {
		struct record_window *w = &d->windows[i];

		w->has_tlb = seen(w);
		if (w->has_tlb)
			w->tlb = t[i];
	}
	d->tlb_model[0] = d->tlb_source[0] = '\0';
	if (any) {
		snprintf(d->tlb_model, sizeof(d->tlb_model), "%s", g->name ? g->name : "?");
		snprintf(d->tlb_source, sizeof(d->tlb_source), "%s", tlb_source_name(src));
	}
out:
	free(t);
	return err;
}

size_t record_tlb_misfit(const struct record_doc *d, const struct tlb_geometry *g, char *why,
			 size_t size)
{
	struct record_window_tlb t;
	size_t i;
	int err;

	for (i = 0; i < d->nr_windows; i++) {
		const struct record_window *w = &d->windows[i];

		if (!w->has_layout || !(err = record_tlb_window(g, &w->layout, &t)))
			continue;
		if (tlb_misfit_words(g, &w->layout, why, size) == TLB_FITS)
			snprintf(why, size, "%s", strerror(-err));
		return i;
	}
	if (size)
		why[0] = '\0';
	return d->nr_windows;
}
