// SPDX-License-Identifier: GPL-2.0-or-later
/* compare's collapse documents (mthpscope.collapse/1) side by side, per
 * max_ptes_none. */
#include "compare.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collapse_doc.h"
#include "mthpscope.h"

static void collapse_config_words(const struct collapse_doc *d, char *buf, size_t size)
{
	const struct collapse_doc_config *c = &d->config;
	char list[64];

	ms_format_orders(folio_orders_mask(&c->orders), list, sizeof(list));
	snprintf(buf, size, "mode %s, target orders %s", c->mode[0] ? c->mode : "?", list);
	ms_appendf(buf, size, ", fill %.0f%%, span %lld MiB, seed %llu, %ld-byte pages",
		   c->fill * 100, c->span >> 20, c->seed, d->host.topo.page_size);
}

static void collapse_cell_from(struct compare_collapse_cell *c, const struct collapse_doc_run *r)
{
	const struct collapse_doc_sample *last = &r->samples[r->nr_samples - 1];
	size_t i;
	int o;

	c->present = true;
	for (o = 0; o < COMPARE_COLLAPSE_ORDERS; o++) {
		c->pages[o] = last->pages[o];
		c->mapped += last->pages[o];
	}
	c->rss_before = r->rss_before ? r->rss_before : (long long)r->samples[0].rss_bytes;
	c->rss_after = r->rss_after ? r->rss_after : (long long)last->rss_bytes;
	c->t_steady_ms = last->t_ms;
	for (i = 0; i < r->nr_samples; i++)
		if (!memcmp(r->samples[i].pages, last->pages, sizeof(last->pages)) &&
		    r->samples[i].rss_bytes == last->rss_bytes) {
			c->t_steady_ms = r->samples[i].t_ms;
			break;
		}
	c->elapsed_ms = r->elapsed_ms;
	c->steady = r->steady;
	c->changed = memcmp(r->samples[0].pages, last->pages, sizeof(last->pages)) ||
		     r->samples[0].rss_bytes != last->rss_bytes;
	snprintf(c->verdict, sizeof(c->verdict), "%s", r->verdict[0] ? r->verdict : "-");
}

static struct compare_collapse_row *collapse_row_for(struct compare_collapse *out, long long mpn)
{
	size_t i;

	for (i = 0; i < out->nr_rows; i++)
		if (out->rows[i].max_ptes_none == mpn)
			return &out->rows[i];
	if (out->nr_rows == COMPARE_COLLAPSE_MAX_ROWS)
		return NULL;
	out->rows[out->nr_rows].max_ptes_none = mpn;
	return &out->rows[out->nr_rows++];
}

int compare_collapse_build(const struct collapse_doc *docs, const char *const *labels,
			   size_t nr, struct compare_collapse *out, char *err, size_t errsize)
{
	char base[192], other[192];
	size_t i, r;
	int o;

	memset(out, 0, sizeof(*out));
	if (nr < 2 || nr > COMPARE_COLLAPSE_MAX_INPUTS)
		return ms_fail(err, errsize, -EINVAL, "compare takes 2 to %d collapse documents, "
			    "not %zu", COMPARE_COLLAPSE_MAX_INPUTS, nr);
	out->nr_inputs = nr;
	out->comparable = true;
	collapse_config_words(&docs[0], base, sizeof(base));
	snprintf(out->config, sizeof(out->config), "%s", base);
	for (i = 0; i < nr; i++) {
		out->labels[i] = labels[i];
		snprintf(out->kernels[i], sizeof(out->kernels[i]), "%s",
			 docs[i].host.topo.kernel[0] ? docs[i].host.topo.kernel : "unknown kernel");
		collapse_config_words(&docs[i], other, sizeof(other));
		if (i && strcmp(base, other) && out->nr_warnings < MS_ARRAY_SIZE(out->warnings)) {
			out->comparable = false;
			snprintf(out->warnings[out->nr_warnings++], sizeof(out->warnings[0]),
				 "%s: %s (baseline: %s)", labels[i], other, base);
		}
		out->orders |= folio_orders_mask(&docs[i].config.orders);
		for (r = 0; r < docs[i].nr_runs; r++) {
			const struct collapse_doc_run *run = &docs[i].runs[r];
			struct compare_collapse_row *row;

			if (!run->nr_samples || !(row = collapse_row_for(out, run->max_ptes_none)))
				continue;
			collapse_cell_from(&row->cell[i], run);
			for (o = 0; o < COMPARE_COLLAPSE_ORDERS; o++)
				if (row->cell[i].pages[o])
					out->orders |= 1UL << o;
		}
	}
	return 0;
}
