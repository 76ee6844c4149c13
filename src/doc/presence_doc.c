// SPDX-License-Identifier: GPL-2.0-or-later
/* The presence document (presence_doc.h): model, writer, reader. */
#include "presence_doc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"
#include "mthpscope.h"

#define W_TOOL "mthpscope"
/* pagemap's PFN field is bits 0-54 */
#define PFN_MAX ((1LL << 55) - 1)

static unsigned pmd_pages_of(const struct presence_doc *d)
{
	return 1u << d->pmd_order;
}

int presence_doc_init(struct presence_doc *d, unsigned page_size)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->tool_version, sizeof(d->tool_version), "%s", ms_version);
	/* a page table page holds page_size / 8 entries */
	switch (page_size) {
	case 4096: d->pmd_order = 9; break;
	case 16384: d->pmd_order = 11; break;
	case 65536: d->pmd_order = 13; break;
	default: return -EINVAL;
	}
	d->page_size = page_size;
	return 0;
}

int presence_doc_add_range(struct presence_doc *d, unsigned long long addr, unsigned lo,
			   unsigned hi)
{
	unsigned long long size = (unsigned long long)d->page_size << d->pmd_order;
	struct presence_range *r;

	if (addr % size || lo >= hi || hi > pmd_pages_of(d) ||
	    (d->nr_ranges && d->ranges[d->nr_ranges - 1].addr >= addr))
		return -EINVAL;
	if (MS_GROW(d->ranges, d->nr_ranges, d->cap_ranges, 64))
		return -ENOMEM;
	r = &d->ranges[d->nr_ranges++];
	memset(r, 0, sizeof(*r));
	r->addr = addr;
	r->lo = lo;
	r->hi = hi;
	return 0;
}

int presence_doc_add_folio(struct presence_doc *d, unsigned offset, unsigned pages, int order,
			   unsigned long long pfn)
{
	struct presence_range *r;
	struct presence_folio *last;

	if (!d->nr_ranges)
		return -EINVAL;
	r = &d->ranges[d->nr_ranges - 1];
	last = r->nr_folios ? &r->folios[r->nr_folios - 1] : NULL;
	if (r->pmd_mapped || !pages || offset < r->lo || pages > r->hi - offset ||
	    order < -1 || order > d->pmd_order || pfn > (unsigned long long)PFN_MAX ||
	    (last && last->offset + last->pages > offset))
		return -EINVAL;
	/* order-0 pages at consecutive frames are one row */
	if (order == 0 && last && last->order == 0 && last->offset + last->pages == offset &&
	    last->pfn + last->pages == pfn) {
		last->pages += pages;
		return 0;
	}
	if (MS_GROW(r->folios, r->nr_folios, r->cap_folios, 16))
		return -ENOMEM;
	r->folios[r->nr_folios++] = (struct presence_folio){ offset, pages, order, pfn };
	return 0;
}

int presence_doc_set_pmd(struct presence_doc *d, unsigned long long pfn)
{
	struct presence_range *r = d->nr_ranges ? &d->ranges[d->nr_ranges - 1] : NULL;

	if (!r || r->nr_folios || r->lo || r->hi != pmd_pages_of(d) || pfn % pmd_pages_of(d) ||
	    pfn > (unsigned long long)PFN_MAX)
		return -EINVAL;
	r->pmd_mapped = true;
	r->pmd_pfn = pfn;
	return 0;
}

void presence_doc_free(struct presence_doc *d)
{
	size_t i;

	for (i = 0; i < d->nr_ranges; i++)
		free(d->ranges[i].folios);
	free(d->ranges);
	memset(d, 0, sizeof(*d));
}

/* ---- writer ------------------------------------------------------------- */

/* The present bits: hex digit j holds pages 4j..4j+3, page 4j in its bit 0. */
static json_t *present_hex(const struct presence_range *r, unsigned pmd_pages)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char *nib = calloc(pmd_pages / 4 + 1, 1);
	char *s = calloc(pmd_pages / 4 + 1, 1);
	json_t *v = NULL;
	size_t i;
	unsigned p;

	if (nib && s) {
		for (i = 0; i < r->nr_folios; i++)
			for (p = r->folios[i].offset; p < r->folios[i].offset + r->folios[i].pages; p++)
				nib[p / 4] |= (unsigned char)(1u << (p % 4));
		for (p = 0; p < pmd_pages / 4; p++)
			s[p] = hex[nib[p]];
		v = json_string(s);
	}
	free(nib);
	free(s);
	return v;
}

static json_t *range_json(const struct presence_range *r, unsigned pmd_pages)
{
	json_t *o = json_pack("{s:I, s:i, s:i}", "addr", (json_int_t)r->addr, "lo", (int)r->lo,
			      "hi", (int)r->hi);
	json_t *rows;
	size_t i;

	if (!o)
		return NULL;
	if (r->split && json_object_set_new(o, "split", json_true()))
		goto fail;
	if (r->pmd_mapped) {
		if (json_object_set_new(o, "pmd_pfn", json_integer((json_int_t)r->pmd_pfn)))
			goto fail;
		return o;
	}
	if (json_object_set_new(o, "present", present_hex(r, pmd_pages)) ||
	    json_object_set_new(o, "folios", rows = json_array()) || !rows)
		goto fail;
	for (i = 0; i < r->nr_folios; i++) {
		const struct presence_folio *f = &r->folios[i];

		if (json_array_append_new(rows, json_pack("[i, i, i, I]", (int)f->offset,
							  (int)f->pages, f->order,
							  (json_int_t)f->pfn)))
			goto fail;
	}
	return o;
fail:
	json_decref(o);
	return NULL;
}

int presence_doc_json(const struct presence_doc *d, json_t **out)
{
	json_t *ranges = json_array(), *doc, *src;
	size_t i;

	*out = NULL;
	for (i = 0; ranges && i < d->nr_ranges; i++)
		if (json_array_append_new(ranges, range_json(&d->ranges[i], pmd_pages_of(d)))) {
			json_decref(ranges);
			return -ENOMEM;
		}
	src = json_pack("{s:i}", "pid", d->pid);
	if (src && d->command[0])
		json_object_set_new(src, "command", json_string(d->command));
	doc = json_pack("{s:s, s:{s:s, s:s}, s:o, s:i, s:i, s:o}", "schema", PRESENCE_SCHEMA,
			"tool", "name", W_TOOL, "version", d->tool_version, "source", src,
			"page_size", (int)d->page_size, "pmd_order", d->pmd_order, "ranges", ranges);
	if (doc && d->has_host &&
	    json_object_set_new(doc, "host", results_host_to_json(&d->host))) {
		json_decref(doc);
		doc = NULL;
	}
	if (!doc)
		return -ENOMEM;
	*out = doc;
	return 0;
}

/* ---- reader ------------------------------------------------------------- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The present bits equal the rows' pages. */
static int check_present(const char *hex, const struct presence_range *r, unsigned pmd_pages,
			 const char *path, char *err, size_t errsize)
{
	unsigned char want[8192 / 4] = { 0 };
	unsigned p;
	size_t i;

	if (strlen(hex) != pmd_pages / 4) {
		snprintf(err, errsize, "%s.present: %u hex digits expected (one per 4 pages), "
				       "not %zu", path, pmd_pages / 4, strlen(hex));
		return -EBADMSG;
	}
	for (i = 0; i < r->nr_folios; i++)
		for (p = r->folios[i].offset; p < r->folios[i].offset + r->folios[i].pages; p++)
			want[p / 4] |= (unsigned char)(1u << (p % 4));
	for (p = 0; p < pmd_pages / 4; p++) {
		int v = hexval(hex[p]);

		if (v < 0) {
			snprintf(err, errsize, "%s.present: '%c' at digit %u is not a lower-case "
					       "hex digit", path, hex[p], p);
			return -EBADMSG;
		}
		if (v != want[p]) {
			snprintf(err, errsize, "%s.present: pages %u-%u say %x, the folios %x",
				 path, 4 * p, 4 * p + 3, (unsigned)v, want[p]);
			return -EBADMSG;
		}
	}
	return 0;
}

static int read_row(json_t *row, const struct presence_doc *d, struct presence_range *r,
		    const char *path, char *err, size_t errsize)
{
	long long v[4];
	const long long lo[4] = { 0, 1, -1, 0 }, hi[4] = { pmd_pages_of(d) - 1, pmd_pages_of(d),
							   d->pmd_order, PFN_MAX };
	static const char *const what[4] = { "offset", "pages", "order", "pfn" };
	const struct presence_folio *last = r->nr_folios ? &r->folios[r->nr_folios - 1] : NULL;
	int k;

	if (!json_is_array(row) || json_array_size(row) != 4) {
		snprintf(err, errsize, "%s: an array [offset, pages, order, pfn] expected", path);
		return -EBADMSG;
	}
	for (k = 0; k < 4; k++) {
		json_t *x = json_array_get(row, (size_t)k);

		if (!json_is_integer(x) || json_integer_value(x) < lo[k] ||
		    json_integer_value(x) > hi[k]) {
			snprintf(err, errsize, "%s[%d] (%s): an integer in %lld..%lld expected",
				 path, k, what[k], lo[k], hi[k]);
			return -EBADMSG;
		}
		v[k] = json_integer_value(x);
	}
	if (v[0] < r->lo || v[1] > r->hi - v[0]) {
		snprintf(err, errsize, "%s: pages %lld-%lld leave the range's part %u-%u in a VMA",
			 path, v[0], v[0] + v[1] - 1, r->lo, r->hi - 1);
		return -EBADMSG;
	}
	if (last && last->offset + last->pages > v[0]) {
		snprintf(err, errsize, "%s: offset %lld overlaps or precedes the row before it",
			 path, v[0]);
		return -EBADMSG;
	}
	if (v[2] > 0 && v[1] > 1LL << v[2]) {
		snprintf(err, errsize, "%s: %lld pages in one folio of order %lld", path, v[1], v[2]);
		return -EBADMSG;
	}
	if (MS_GROW(r->folios, r->nr_folios, r->cap_folios, 16))
		return -ENOMEM;
	r->folios[r->nr_folios++] = (struct presence_folio){ (unsigned)v[0], (unsigned)v[1],
							     (int)v[2], (unsigned long long)v[3] };
	return 0;
}

static int read_rows(json_t *o, const struct presence_doc *d, struct presence_range *r,
		     const char *path, char *err, size_t errsize)
{
	char p[96], hex[8192 / 4 + 1];
	json_t *rows;
	size_t i;
	int rc;

	if ((rc = rd_want(o, path, "folios", JSON_ARRAY, true, err, errsize)) ||
	    (rc = rd_want_str(o, path, "present", true, hex, sizeof(hex), err, errsize)))
		return rc;
	rows = json_object_get(o, "folios");
	for (i = 0; i < json_array_size(rows); i++) {
		snprintf(p, sizeof(p), "%s.folios[%zu]", path, i);
		if ((rc = read_row(json_array_get(rows, i), d, r, p, err, errsize)))
			return rc;
	}
	return check_present(hex, r, pmd_pages_of(d), path, err, errsize);
}

static int read_range(json_t *o, struct presence_doc *d, size_t i, char *err, size_t errsize)
{
	unsigned long long size = (unsigned long long)d->page_size << d->pmd_order;
	long long addr = 0, lo = 0, hi = 0;
	struct presence_range *r;
	char path[64];
	int rc;

	snprintf(path, sizeof(path), "$.ranges[%zu]", i);
	if (!json_is_object(o))
		return rd_want_not_object(o, path, err, errsize);
	if ((rc = rd_want_int(o, path, "addr", true, 0, LLONG_MAX, &addr, err, errsize)) ||
	    (rc = rd_want_int(o, path, "lo", true, 0, pmd_pages_of(d) - 1, &lo, err, errsize)) ||
	    (rc = rd_want_int(o, path, "hi", true, lo + 1, pmd_pages_of(d), &hi, err, errsize)))
		return rc;
	if ((unsigned long long)addr % size ||
	    (d->nr_ranges && d->ranges[d->nr_ranges - 1].addr >= (unsigned long long)addr)) {
		snprintf(err, errsize, "%s.addr: %#llx is not a multiple of the PMD size above the "
				       "range before it", path, (unsigned long long)addr);
		return -EBADMSG;
	}
	if ((rc = presence_doc_add_range(d, (unsigned long long)addr, (unsigned)lo, (unsigned)hi)))
		return rc;
	r = &d->ranges[d->nr_ranges - 1];
	if ((rc = rd_want_bool(o, path, "split", false, &r->split, err, errsize)))
		return rc;
	if (json_object_get(o, "pmd_pfn")) {
		long long pfn = 0;

		if (json_object_get(o, "folios") || json_object_get(o, "present")) {
			snprintf(err, errsize, "%s: a PMD-mapped range (pmd_pfn) has no folios", path);
			return -EBADMSG;
		}
		if ((rc = rd_want_int(o, path, "pmd_pfn", true, 0, PFN_MAX, &pfn, err, errsize)))
			return rc;
		if (pfn % pmd_pages_of(d) || lo || hi != pmd_pages_of(d)) {
			snprintf(err, errsize, "%s: a PMD mapping covers the whole range at an aligned "
					       "pmd_pfn", path);
			return -EBADMSG;
		}
		r->pmd_mapped = true;
		r->pmd_pfn = (unsigned long long)pfn;
		return 0;
	}
	return read_rows(o, d, r, path, err, errsize);
}

static int read_head(json_t *doc, struct presence_doc *d, char *err, size_t errsize)
{
	json_t *v;
	long long ps = 0, order = 0, pid = 0;
	int rc;

	if ((rc = rd_want_schema(doc, PRESENCE_SCHEMA, PRESENCE_SCHEMA_PREFIX, "scan --presence",
				  err, errsize)) ||
	    (rc = rd_want(doc, "$", "tool", JSON_OBJECT, true, err, errsize)) ||
	    (rc = rd_want(doc, "$", "source", JSON_OBJECT, true, err, errsize)) ||
	    (rc = rd_want(doc, "$", "host", JSON_OBJECT, false, err, errsize)) ||
	    (rc = rd_want(doc, "$", "ranges", JSON_ARRAY, true, err, errsize)) ||
	    (rc = rd_want_int(doc, "$", "page_size", true, 4096, 65536, &ps, err, errsize)) ||
	    (rc = rd_want_int(doc, "$", "pmd_order", true, 1, 20, &order, err, errsize)))
		return rc;
	v = json_object_get(doc, "tool");
	if ((rc = rd_want_word(v, "$.tool", "name", W_TOOL, err, errsize)) ||
	    (rc = rd_want_str(v, "$.tool", "version", true, d->tool_version,
			      sizeof(d->tool_version), err, errsize)))
		return rc;
	if (presence_doc_init(d, (unsigned)ps) || d->pmd_order != order) {
		snprintf(err, errsize, "$.page_size, $.pmd_order: %lld and %lld are not a page size "
				       "and its PMD order (4096 and 9, 16384 and 11, 65536 and 13)",
			 ps, order);
		return -EBADMSG;
	}
	snprintf(d->tool_version, sizeof(d->tool_version), "%s",
		 json_string_value(json_object_get(v, "version")));
	v = json_object_get(doc, "source");
	if ((rc = rd_want_int(v, "$.source", "pid", true, 0, 1LL << 22, &pid, err, errsize)) ||
	    (rc = rd_want_str(v, "$.source", "command", false, d->command, sizeof(d->command),
			      err, errsize)))
		return rc;
	d->pid = (int)pid;
	if ((v = json_object_get(doc, "host"))) {
		d->has_host = true;
		return results_host_read(v, "$.host", &d->host, err, errsize);
	}
	return 0;
}

int presence_doc_read(json_t *doc, struct presence_doc *d, char *err, size_t errsize)
{
	json_t *ranges;
	size_t i;
	int rc;

	memset(d, 0, sizeof(*d));
	if ((rc = read_head(doc, d, err, errsize)))
		goto out;
	ranges = json_object_get(doc, "ranges");
	for (i = 0; i < json_array_size(ranges); i++)
		if ((rc = read_range(json_array_get(ranges, i), d, i, err, errsize)))
			goto out;
out:
	if (rc == -ENOMEM)
		snprintf(err, errsize, "out of memory");
	if (rc)
		presence_doc_free(d);
	return rc;
}

static int read_presence(json_t *doc, void *d, char *err, size_t errsize)
{
	return presence_doc_read(doc, d, err, errsize);
}

int presence_doc_load(const char *path, struct presence_doc *d, char *err, size_t errsize)
{
	memset(d, 0, sizeof(*d));
	return results_load_doc(path, read_presence, d, err, errsize);
}
