// SPDX-License-Identifier: GPL-2.0-or-later
/* compare's collapse documents (mthpscope.collapse/1) side by side, per
 * max_ptes_none. */
#include "compare.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collapse_doc.h"
#include "mthpscope.h"
#include "thp_settings.h"

/* ---- the config, field by field ---------------------------------------- */

/* The fill in percent: whole numbers as "50%", others with as many digits
 * as it takes to read the same share back, so fills that differ print
 * differently: 0.504 (258 of 512 pages present per PMD) is "50.4%", where
 * "%.0f" made it "50%" like 0.5 (256). */
static void w_fill(const struct collapse_doc *d, char *buf, size_t size)
{
	double pct = d->config.fill * 100;
	int prec;

	for (prec = 6; prec < 17; prec++) {
		snprintf(buf, size, "fill %.*g%%", prec, pct);
		if (strtod(buf + 5, NULL) / 100 == d->config.fill)
			return;
	}
	snprintf(buf, size, "fill %.17g%%", pct);
}

static void w_mode(const struct collapse_doc *d, char *buf, size_t size)
{
	snprintf(buf, size, "mode %s", d->config.mode[0] ? d->config.mode : "?");
}

static void w_orders(const struct collapse_doc *d, char *buf, size_t size)
{
	char list[64];

	ms_format_orders(folio_orders_mask(&d->config.orders), list, sizeof(list));
	snprintf(buf, size, "target orders %s", list);
}

static void w_span(const struct collapse_doc *d, char *buf, size_t size)
{
	long long span = d->config.span;

	if (span % (1LL << 20))
		snprintf(buf, size, "span %lld bytes", span);
	else
		snprintf(buf, size, "span %lld MiB", span >> 20);
}

static void w_seed(const struct collapse_doc *d, char *buf, size_t size)
{
	snprintf(buf, size, "seed %llu", d->config.seed);
}

static void w_page_size(const struct collapse_doc *d, char *buf, size_t size)
{
	snprintf(buf, size, "%ld-byte pages", d->host.topo.page_size);
}

/* config.enabled_as grouped by word, in order (the JSON's key order is not
 * the document's meaning): "sizes enabled as madvise 2-9". */
static void w_enabled_as(const struct collapse_doc *d, char *buf, size_t size)
{
	const struct collapse_doc_config *c = &d->config;
	int word[FOLIO_MAX_ORDER + 1], o, p;
	unsigned long mask;
	const char *sep = " "; /* "madvise 2-4,6-9; always 5" */
	char list[64];
	size_t i;

	snprintf(buf, size, "sizes enabled as");
	if (!c->nr_enabled_as) {
		ms_appendf(buf, size, " (not recorded)");
		return;
	}
	for (o = 0; o <= FOLIO_MAX_ORDER; o++)
		word[o] = THP_W_NONE;
	for (i = 0; i < c->nr_enabled_as; i++)
		word[c->enabled_as[i].order] = (int)c->enabled_as[i].word;
	for (o = 0; o <= FOLIO_MAX_ORDER; o++) {
		if (word[o] == THP_W_NONE)
			continue;
		for (mask = 1UL << o, p = o + 1; p <= FOLIO_MAX_ORDER; p++)
			if (word[p] == word[o]) {
				mask |= 1UL << p;
				word[p] = THP_W_NONE;
			}
		ms_format_orders(mask, list, sizeof(list));
		ms_appendf(buf, size, "%s%s %s", sep, thp_word_name((enum thp_word)word[o]), list);
		sep = "; ";
	}
}

static void w_measure(const struct collapse_doc *d, char *buf, size_t size)
{
	snprintf(buf, size, "%s", d->config.measure ? "--measure" : "no --measure");
}

static void w_interval(const struct collapse_doc *d, char *buf, size_t size)
{
	snprintf(buf, size, "interval_ms %lld", d->config.interval_ms);
}

static void w_timeout(const struct collapse_doc *d, char *buf, size_t size)
{
	snprintf(buf, size, "timeout_ms %lld", d->config.timeout_ms);
}

#define W_KHUGEPAGED(field)                                                                \
	static void w_##field(const struct collapse_doc *d, char *buf, size_t size)         \
	{                                                                                  \
		if (d->config.has_khugepaged)                                              \
			snprintf(buf, size, "khugepaged %s %lld", #field, d->config.field); \
		else                                                                       \
			snprintf(buf, size, "khugepaged %s not recorded", #field);          \
	}
W_KHUGEPAGED(scan_sleep_millisecs)
W_KHUGEPAGED(pages_to_scan)
W_KHUGEPAGED(alloc_sleep_millisecs)

/* Every field of $.config (and the host's page size). A workload field
 * changes what the runs did: a difference makes the pair not comparable.
 * The others change when the table's numbers were read, not the span's
 * final folio orders once a run is steady (two full scans without a change,
 * src/measure/collapse.c): a difference is a warning that says which rows it
 * moves. The first six, in this order, are the table's "config" line. */
static const struct cc_field {
	void (*words)(const struct collapse_doc *d, char *buf, size_t size);
	bool workload;
	const char *moves; /* what a difference does to the table */
} cc_fields[] = {
	{ w_mode, true, NULL },
	{ w_orders, true, NULL },
	{ w_fill, true, "another count of empty PTEs per PMD, which max_ptes_none is "
			"weighed against" },
	{ w_span, true, NULL },
	{ w_seed, true, "another placement of the faulted pages" },
	{ w_page_size, true, NULL },
	{ w_enabled_as, true, "khugepaged collapses to a size only as its word allows" },
	{ w_interval, false, "the sampling period: time to steady is read in its steps, "
			     "so those rows are not comparable" },
	{ w_timeout, false, "a run still changing at the timeout ends there: time to "
			    "steady and the final orders of a '(timeout)' run move with it" },
	{ w_scan_sleep_millisecs, false, "khugepaged's pace: time to steady is not comparable" },
	{ w_pages_to_scan, false, "khugepaged's pace: time to steady is not comparable" },
	{ w_alloc_sleep_millisecs, false, "khugepaged's pace after a failed allocation: "
					  "time to steady is not comparable" },
	{ w_measure, false, "measured after each timeline: no number in this table "
			    "depends on it" },
};
#define CC_LINE_FIELDS 6
/* Room for a warning per field and other input, and three per input from
 * collapse_place_runs. */
_Static_assert(COMPARE_COLLAPSE_MAX_WARNINGS >=
		       MS_ARRAY_SIZE(cc_fields) * (COMPARE_COLLAPSE_MAX_INPUTS - 1) +
			       3 * COMPARE_COLLAPSE_MAX_INPUTS,
	       "compare_collapse: warnings[] too small");
/* Every value of every input's sweep has its row. */
_Static_assert(COMPARE_COLLAPSE_MAX_ROWS == COLLAPSE_DOC_MAX_MPN * COMPARE_COLLAPSE_MAX_INPUTS,
	       "compare_collapse: rows[] is not COLLAPSE_DOC_MAX_MPN per input");

static void collapse_config_words(const struct collapse_doc *d, char *buf, size_t size)
{
	char w[96];
	size_t f;

	buf[0] = '\0';
	for (f = 0; f < CC_LINE_FIELDS; f++) {
		cc_fields[f].words(d, w, sizeof(w));
		ms_appendf(buf, size, "%s%s", f ? ", " : "", w);
	}
}

/* A warning for every field of docs[i] that differs from the baseline's. */
static void collapse_config_diff(const struct collapse_doc *docs, size_t i, const char *label,
				 struct compare_collapse *out)
{
	char a[96], b[96];
	size_t f;

	for (f = 0; f < MS_ARRAY_SIZE(cc_fields); f++) {
		const struct cc_field *x = &cc_fields[f];

		x->words(&docs[0], a, sizeof(a));
		x->words(&docs[i], b, sizeof(b));
		if (!strcmp(a, b))
			continue;
		if (x->workload)
			out->comparable = false;
		snprintf(out->warnings[out->nr_warnings++], sizeof(out->warnings[0]),
			 "%s: %s (baseline: %s)%s%s%s", label, b, a, x->moves ? ": " : "",
			 x->moves ? x->moves : "", x->workload ? "; not comparable" : "");
	}
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

/* The runs of input i into their rows. A run whose value has no row left is
 * an error naming it (only a document of more than COLLAPSE_DOC_MAX_MPN
 * values gets there: the collapse command never writes one); a value run
 * more than once (collapse --max-ptes-none 0,0) shows its last run with
 * samples, and a value with no such run is n/a, each with a warning. */
static int collapse_place_runs(const struct collapse_doc *d, size_t i, const char *label,
			       struct compare_collapse *out, char *err, size_t errsize)
{
	bool seen[COMPARE_COLLAPSE_MAX_ROWS] = { false };
	size_t r, repeated = 0, empty = 0;
	long long first_repeated = 0, first_empty = 0;
	int o;

	for (r = 0; r < d->nr_runs; r++) {
		const struct collapse_doc_run *run = &d->runs[r];
		struct compare_collapse_row *row = collapse_row_for(out, run->max_ptes_none);

		if (!row)
			return ms_fail(err, errsize, -E2BIG, "%s: run %zu of %zu (max_ptes_none "
				    "%lld) is past the %d max_ptes_none values compare shows (%d "
				    "documents of a %d-value sweep)", label, r + 1, d->nr_runs,
				    run->max_ptes_none, COMPARE_COLLAPSE_MAX_ROWS,
				    COMPARE_COLLAPSE_MAX_INPUTS, COLLAPSE_DOC_MAX_MPN);
		if (seen[row - out->rows] && !repeated++)
			first_repeated = run->max_ptes_none;
		seen[row - out->rows] = true;
		if (!run->nr_samples)
			continue;
		memset(&row->cell[i], 0, sizeof(row->cell[i]));
		collapse_cell_from(&row->cell[i], run);
		for (o = 0; o < COMPARE_COLLAPSE_ORDERS; o++)
			if (row->cell[i].pages[o])
				out->orders |= 1UL << o;
	}
	/* the values left without a run with samples, in the document's order */
	for (r = 0; r < d->nr_runs; r++) {
		struct compare_collapse_row *row = collapse_row_for(out, d->runs[r].max_ptes_none);

		if (!seen[row - out->rows] || row->cell[i].present)
			continue;
		seen[row - out->rows] = false; /* counted once */
		if (!empty++)
			first_empty = d->runs[r].max_ptes_none;
	}
	if (repeated)
		snprintf(out->warnings[out->nr_warnings++], sizeof(out->warnings[0]),
			 "%s: max_ptes_none %lld ran more than once (%zu repeated run%s in all): "
			 "the table shows each value's last run with samples", label,
			 first_repeated, repeated, repeated == 1 ? "" : "s");
	if (empty)
		snprintf(out->warnings[out->nr_warnings++], sizeof(out->warnings[0]),
			 "%s: %zu max_ptes_none value%s without a run with samples (first: %lld): "
			 "n/a in the table", label, empty, empty == 1 ? "" : "s", first_empty);
	if (d->interrupted)
		snprintf(out->warnings[out->nr_warnings++], sizeof(out->warnings[0]),
			 "%s: its sweep was interrupted after %zu of %zu max_ptes_none values: "
			 "the others are n/a in the table", label, d->nr_runs,
			 d->config.nr_max_ptes_none);
	return 0;
}

int compare_collapse_build(const struct collapse_doc *docs, const char *const *labels,
			   size_t nr, struct compare_collapse *out, char *err, size_t errsize)
{
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	if (nr < 2 || nr > COMPARE_COLLAPSE_MAX_INPUTS)
		return ms_fail(err, errsize, -EINVAL, "compare takes 2 to %d collapse documents, "
			    "not %zu", COMPARE_COLLAPSE_MAX_INPUTS, nr);
	out->nr_inputs = nr;
	out->comparable = true;
	collapse_config_words(&docs[0], out->config, sizeof(out->config));
	for (i = 0; i < nr; i++) {
		out->labels[i] = labels[i];
		snprintf(out->kernels[i], sizeof(out->kernels[i]), "%s",
			 docs[i].host.topo.kernel[0] ? docs[i].host.topo.kernel : "unknown kernel");
		if (i)
			collapse_config_diff(docs, i, labels[i], out);
		out->orders |= folio_orders_mask(&docs[i].config.orders);
		if ((rc = collapse_place_runs(&docs[i], i, labels[i], out, err, errsize)))
			return rc;
	}
	return 0;
}
