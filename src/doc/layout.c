// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The contiguity histogram (layout.h): its arithmetic, its JSON form and the
 * strict reader of that form. The reader checks what the histogram cannot
 * help being (a block of 2^k pages holds two counted blocks of 2^(k-1), a
 * block inside one folio is a contiguous block), so that a model computing
 * entries from it never sees a negative count.
 */
#include "layout.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "mthpscope.h"

void layout_hist_init(struct layout_hist *h, unsigned page_shift, int pmd_order)
{
	memset(h, 0, sizeof(*h));
	h->page_shift = page_shift;
	h->pmd_order = pmd_order;
}

int layout_hist_add(struct layout_hist *h, const struct layout_hist *o)
{
	int k;

	if (h->page_shift != o->page_shift || h->pmd_order != o->pmd_order)
		return -EINVAL;
	for (k = 0; k <= LAYOUT_MAX_K; k++) {
		h->contig[k] += o->contig[k];
		h->folio[k] += o->folio[k];
	}
	h->pmd_maps += o->pmd_maps;
	h->excluded += o->excluded;
	return 0;
}

unsigned long long layout_hist_pages(const struct layout_hist *h)
{
	return h->contig[0] + (h->pmd_maps << h->pmd_order);
}

void layout_count_run(unsigned long long vpn, unsigned long long pfn, unsigned long long n,
		      int max_k, unsigned long long *blocks)
{
	/* congruent up to the lowest bit where the two numbers differ */
	int top = (vpn ^ pfn) ? __builtin_ctzll(vpn ^ pfn) : 63;
	int k;

	if (top > max_k)
		top = max_k;
	for (k = 0; k <= top; k++) {
		unsigned long long first = (vpn + (1ULL << k) - 1) >> k, last = (vpn + n) >> k;

		if (last <= first)
			break; /* no block of 2^k fits: none larger does */
		blocks[k] += last - first;
	}
}

/* ---- JSON ------------------------------------------------------------- */

static json_t *counts_json(const unsigned long long *c, int top)
{
	json_t *a = json_array();
	int k;

	for (k = 0; a && k <= top; k++)
		if (json_array_append_new(a, json_integer((json_int_t)c[k]))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

json_t *layout_hist_json(const struct layout_hist *h)
{
	json_t *o;

	if (h->pmd_order < 0 || h->pmd_order > LAYOUT_MAX_K)
		return NULL;
	o = json_pack("{s:I, s:i, s:I, s:I, s:o?, s:o?}", "page_shift", (json_int_t)h->page_shift,
		      "pmd_order", h->pmd_order, "pmd_maps", (json_int_t)h->pmd_maps,
		      "excluded", (json_int_t)h->excluded,
		      "contig", counts_json(h->contig, h->pmd_order),
		      "folio", counts_json(h->folio, h->pmd_order));
	/* an array that could not be made is absent: no half histogram */
	if (o && (!json_object_get(o, "contig") || !json_object_get(o, "folio"))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static const char *jtype(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* o.key, a required integer in [min, max]. */
static int read_int(const json_t *o, const char *key, long long min, long long max,
		    long long *out, char *err, size_t errsize)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		return ms_fail(err, errsize, -EINVAL, "%s: missing", key);
	if (!json_is_integer(v))
		return ms_fail(err, errsize, -EINVAL, "%s: expected an integer, found %s", key,
			       jtype(v));
	if (json_integer_value(v) < min || json_integer_value(v) > max)
		return ms_fail(err, errsize, -EINVAL, "%s: %lld is out of range [%lld, %lld]", key,
			       (long long)json_integer_value(v), min, max);
	*out = json_integer_value(v);
	return 0;
}

/* o.key, an array of exactly top + 1 block counts. */
static int read_counts(const json_t *o, const char *key, int top, unsigned long long *c,
		       char *err, size_t errsize)
{
	json_t *a = json_object_get(o, key), *v;
	size_t i;

	if (!a)
		return ms_fail(err, errsize, -EINVAL, "%s: missing", key);
	if (!json_is_array(a))
		return ms_fail(err, errsize, -EINVAL, "%s: expected an array, found %s", key,
			       jtype(a));
	if (json_array_size(a) != (size_t)top + 1)
		return ms_fail(err, errsize, -EINVAL, "%s: %zu counts, expected %d (k = 0 to "
			       "pmd_order %d)", key, json_array_size(a), top + 1, top);
	json_array_foreach(a, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return ms_fail(err, errsize, -EINVAL, "%s[%zu]: expected a block count (an "
				       "integer >= 0), found %s", key, i, jtype(v));
		c[i] = (unsigned long long)json_integer_value(v);
	}
	return 0;
}

/* What every real layout is: a counted block of 2^k pages is two counted
 * blocks of 2^(k-1); one inside a folio is a contiguous one; every
 * PTE-mapped page is inside its own folio. */
static int check_blocks(const struct layout_hist *h, char *err, size_t errsize)
{
	int k;

	if (h->folio[0] != h->contig[0])
		return ms_fail(err, errsize, -EINVAL, "folio[0]: %llu, but contig[0] is %llu (every "
			       "PTE-mapped page is inside its folio)", h->folio[0], h->contig[0]);
	for (k = 1; k <= h->pmd_order; k++) {
		if (h->contig[k] > h->contig[k - 1] / 2)
			return ms_fail(err, errsize, -EINVAL, "contig[%d]: %llu blocks of 2^%d pages "
				       "need %llu of 2^%d, contig[%d] is %llu", k, h->contig[k], k,
				       2 * h->contig[k], k - 1, k - 1, h->contig[k - 1]);
		if (h->folio[k] > h->folio[k - 1] / 2)
			return ms_fail(err, errsize, -EINVAL, "folio[%d]: %llu blocks of 2^%d pages "
				       "need %llu of 2^%d, folio[%d] is %llu", k, h->folio[k], k,
				       2 * h->folio[k], k - 1, k - 1, h->folio[k - 1]);
		if (h->folio[k] > h->contig[k])
			return ms_fail(err, errsize, -EINVAL, "folio[%d]: %llu is more than contig[%d] "
				       "(%llu): a block inside one folio is contiguous", k,
				       h->folio[k], k, h->contig[k]);
	}
	/* the pages must fit in a 64-bit address space */
	if (h->pmd_maps > (~0ULL >> (h->page_shift + (unsigned)h->pmd_order)) ||
	    h->contig[0] > (~0ULL >> h->page_shift) ||
	    layout_hist_pages(h) > (~0ULL >> h->page_shift))
		return ms_fail(err, errsize, -EINVAL, "pmd_maps: %llu PMD mappings and %llu pages "
			       "are more than a 64-bit address space holds", h->pmd_maps,
			       h->contig[0]);
	return 0;
}

int layout_hist_from_json(const json_t *o, struct layout_hist *h, char *err, size_t errsize)
{
	long long shift, pmd, maps, excl;
	int rc;

	memset(h, 0, sizeof(*h));
	if (!json_is_object(o))
		return ms_fail(err, errsize, -EINVAL, "expected an object, found %s", jtype(o));
	if ((rc = read_int(o, "page_shift", 12, 16, &shift, err, errsize)))
		return rc;
	if (shift != 12 && shift != 14 && shift != 16)
		return ms_fail(err, errsize, -EINVAL, "page_shift: %lld is not a page size of "
			       "4K, 16K or 64K (12, 14, 16)", shift);
	if ((rc = read_int(o, "pmd_order", 1, LAYOUT_MAX_K, &pmd, err, errsize)) ||
	    (rc = read_int(o, "pmd_maps", 0, LLONG_MAX, &maps, err, errsize)) ||
	    (rc = read_int(o, "excluded", 0, LLONG_MAX, &excl, err, errsize)))
		return rc;
	layout_hist_init(h, (unsigned)shift, (int)pmd);
	h->pmd_maps = (unsigned long long)maps;
	h->excluded = (unsigned long long)excl;
	if ((rc = read_counts(o, "contig", h->pmd_order, h->contig, err, errsize)) ||
	    (rc = read_counts(o, "folio", h->pmd_order, h->folio, err, errsize)) ||
	    (rc = check_blocks(h, err, errsize))) {
		memset(h, 0, sizeof(*h));
		return rc;
	}
	/* a PMD maps a page table of 8-byte entries, 2^(page_shift - 3) pages
	 * (layout.h: 9, 11, 13): any other order mixes two page sizes */
	if (pmd != shift - 3) {
		memset(h, 0, sizeof(*h));
		return ms_fail(err, errsize, -EINVAL, "pmd_order: %lld does not go with "
			       "page_shift %lld (the PMD order of %lldK pages is %lld)", pmd, shift,
			       1LL << (shift - 10), shift - 3);
	}
	return 0;
}
