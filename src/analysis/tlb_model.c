// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The translation model (src/analysis/tlb_model.h): entries needed per TLB
 * level from a contiguity histogram (src/doc/layout.h) and a geometry
 * (arch/tlb_geometry.c, a user's file, or the host's CPUID).
 */
#include "folio_types.h"
#include "mthpscope.h"
#include "tlb_model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define HPA_MAX_ORDER 3 /* Neoverse HPA: up to 8 contiguous pages in one entry */

/* The words documents and geometry files (tlb_geometry_file.c) use. */
static const char *const source_names[] = {
	[TLB_SRC_TABLE] = "table",
	[TLB_SRC_CPUID] = "cpuid",
	[TLB_SRC_USER] = "user",
};

static const char *const merge_names[] = {
	[TLB_MERGE_NONE] = "none",
	[TLB_MERGE_COALESCE] = "coalesce",
	[TLB_MERGE_CONTPTE] = "contpte",
};

const char *tlb_source_name(enum tlb_source s)
{
	return (size_t)s < MS_ARRAY_SIZE(source_names) ? source_names[s] : "?";
}

const char *tlb_merge_name(enum tlb_merge m)
{
	return (size_t)m < MS_ARRAY_SIZE(merge_names) ? merge_names[m] : "?";
}

int tlb_merge_from_name(const char *name, enum tlb_merge *m)
{
	size_t i;

	for (i = 0; i < MS_ARRAY_SIZE(merge_names); i++)
		if (!strcmp(merge_names[i], name)) {
			*m = (enum tlb_merge)i;
			return 0;
		}
	return -EINVAL;
}

static int log2_exact(unsigned v)
{
	int k = 0;

	if (!v || (v & (v - 1)))
		return -1;
	while ((1u << k) != v)
		k++;
	return k;
}

/* A histogram that no layout can have (a file edited by hand, a writer's
 * bug) is refused rather than counted into negative entries. */
static int hist_check(const struct layout_hist *h)
{
	int k;

	if (h->page_shift != 12 && h->page_shift != 14 && h->page_shift != 16)
		return -EINVAL;
	if (h->pmd_order < 1 || h->pmd_order > LAYOUT_MAX_K)
		return -EINVAL;
	for (k = 0; k <= h->pmd_order; k++) {
		if (h->folio[k] > h->contig[k])
			return -EINVAL;
		if (k < h->pmd_order && (h->contig[k + 1] > h->contig[k] / 2 ||
					 h->folio[k + 1] > h->folio[k] / 2))
			return -EINVAL;
	}
	return 0;
}

unsigned tlb_merge_set(const struct tlb_geometry *g)
{
	int m = log2_exact(g->merge_pages);

	if (g->merge == TLB_MERGE_NONE)
		return 0;
	if (g->merge_set)
		return g->merge_set;
	return m >= 1 && m < 32 ? 1u << m : 0;
}

void tlb_merge_set_text(unsigned set, char *buf, size_t size)
{
	size_t n = 0;
	int k;

	if (size)
		buf[0] = '\0';
	if (!set)
		snprintf(buf, size, "1");
	for (k = 0; k < 32 && n < size; k++)
		if (set & (1u << k))
			n += (size_t)snprintf(buf + n, size - n, "%s%u", n ? "," : "", 1u << k);
}

/* The highest set bit of a non-empty set. */
static int top_bit(unsigned set)
{
	return 31 - __builtin_clz(set);
}

int tlb_merge_orders(const struct tlb_geometry *g, const struct layout_hist *h, int *orders)
{
	unsigned set = tlb_merge_set(g);
	int k, n = 0;

	switch (g->merge) {
	case TLB_MERGE_NONE:
		/* an x86 table entry knows 4K base pages only (a user's
		 * geometry, or an Arm one, may say none for any granule) */
		return g->vendor && strcmp(g->vendor, "arm") && h->page_shift != 12 ? -1 : 0;
	case TLB_MERGE_COALESCE:
		/* AMD's rule is for 4K PTEs (x86 has no other base page) */
		if (h->page_shift != 12 || !set || (set & 1u))
			return -1;
		for (k = top_bit(set); k >= 1; k--)
			if (set & (1u << k))
				orders[n++] = k;
		return n;
	case TLB_MERGE_CONTPTE:
		/* the table gives the 4K block; other granules have their own */
		k = h->page_shift == 12 ? (set ? top_bit(set) : -1)
					: arch_arm64_contpte_order(1L << h->page_shift);
		if (k < 0)
			return -1;
		orders[0] = k;
		return 1;
	}
	return -1;
}

int tlb_merge_order(const struct tlb_geometry *g, const struct layout_hist *h)
{
	int orders[LAYOUT_MAX_K + 1], n = tlb_merge_orders(g, h, orders);

	return n < 0 ? -1 : n ? orders[0] : 0;
}

/*
 * The entries a layout needs, by the pages each maps: n[k] entries of 2^k
 * pages (k = 0 single pages, the merge order, HPA's groups, pmd_order the
 * PMD mappings). Entries of different sizes are not equally likely to be
 * used, so the miss ratio needs the sizes, not only the count.
 */
struct entry_sizes {
	unsigned long long n[LAYOUT_MAX_K + 1];
};

/*
 * HPA on the pages no contiguous-bit entry took: aligned contiguous blocks
 * of 2, 4 or 8 pages each take one entry (the histogram knows only aligned
 * blocks, so HPA's unaligned groups are not counted). A contpte block of
 * order m holds 2^(m-k) aligned order-k blocks, which are taken out first.
 */
static void hpa_counts(const struct layout_hist *h, int m, unsigned long long blocks,
		       struct entry_sizes *es)
{
	unsigned long long c[HPA_MAX_ORDER + 2];
	int k, top = HPA_MAX_ORDER < h->pmd_order ? HPA_MAX_ORDER : h->pmd_order;

	for (k = 0; k <= top; k++)
		c[k] = h->contig[k] - (k <= m ? blocks << (m - k) : 0);
	c[top + 1] = 0;
	for (k = 0; k <= top; k++)
		es->n[k] += c[k] - 2 * c[k + 1];
	es->n[m] += blocks;
}

/*
 * AMD's several sizes: each aligned contiguous block takes the largest
 * merged entry it allows, the pages left the next size down (contig[] is
 * nested: a block of 2^M pages holds 2^(M-m) of the 2^m ones).
 */
static void coalesce_counts(const struct layout_hist *h, const int *orders, int n,
			    struct entry_sizes *es)
{
	unsigned long long pages = 0;
	int i, j;

	for (i = 0; i < n; i++) {
		unsigned long long taken = 0;

		for (j = 0; j < i; j++)
			taken += es->n[orders[j]] << (orders[j] - orders[i]);
		es->n[orders[i]] = h->contig[orders[i]] - taken;
		pages += es->n[orders[i]] << orders[i];
	}
	es->n[0] += h->contig[0] - pages;
}

/* Entries that map the PTE-mapped pages, by size: single pages and merged
 * groups (AMD coalesced, contpte blocks, HPA groups). */
static int pte_entries(const struct tlb_geometry *g, const struct layout_hist *h,
		       struct entry_sizes *es)
{
	int orders[LAYOUT_MAX_K + 1], n = tlb_merge_orders(g, h, orders), m;
	unsigned long long blocks;

	memset(es, 0, sizeof(*es));
	if (n < 0 || (n && orders[0] > h->pmd_order))
		return -EINVAL;
	m = n ? orders[0] : 0;
	if (g->merge == TLB_MERGE_COALESCE && !g->hpa) {
		coalesce_counts(h, orders, n, es);
		return 0;
	}
	if (g->merge == TLB_MERGE_NONE)
		blocks = 0;
	else if (g->merge == TLB_MERGE_COALESCE)
		blocks = h->contig[m]; /* any folios: PFN contiguity is what counts */
	else
		blocks = h->folio[m];  /* the kernel sets PTE_CONT inside one folio only */
	if (g->hpa) {
		hpa_counts(h, g->merge == TLB_MERGE_NONE ? 0 : m, blocks, es);
		return 0;
	}
	es->n[0] = h->contig[0] - (blocks << m);
	es->n[m] += blocks;
	return 0;
}

static unsigned long long sizes_count(const struct entry_sizes *es)
{
	unsigned long long n = 0;
	int k;

	for (k = 0; k <= LAYOUT_MAX_K; k++)
		n += es->n[k];
	return n;
}

/*
 * The miss ratio of one pool of cap entries under uniform random access over
 * the pages its entries map, with LRU replacement: Che's approximation (an
 * entry of 2^k pages out of P is used with probability q = 2^k / P; the
 * pool holds what was used within a time T, where sum n (1 - e^(-qT)) =
 * cap; an access hits with sum n q (1 - e^(-qT))). When every entry maps
 * the same number of pages it is exactly max(0, 1 - cap/entries); a PMD
 * entry, used 512 times as often as a 4K one, mostly stays.
 */
/* Che's sum at time t: the entries used within t (what = 0), or the share
 * of the accesses that hit them (what = 1: each term weighted by q). */
static double che_sum(const struct entry_sizes *es, double pages, double t, int what)
{
	double sum = 0;
	int k;

	for (k = 0; k <= LAYOUT_MAX_K; k++)
		sum += (what ? ldexp((double)es->n[k], k) / pages : (double)es->n[k]) *
		       -expm1(-ldexp(t, k) / pages);
	return sum;
}

static double pool_miss(unsigned cap, const struct entry_sizes *es)
{
	unsigned long long needed = sizes_count(es);
	double pages = 0, lo = 0, hi = 1, t;
	int k, it;

	if (!needed)
		return 0.0;
	if (!cap)
		return NAN; /* capacity not known: no prediction, not zero */
	if (needed <= cap)
		return 0.0;
	for (k = 0; k <= LAYOUT_MAX_K; k++)
		if (es->n[k] == needed) /* one size: exact, no iteration */
			return 1.0 - (double)cap / (double)needed;
	for (k = 0; k <= LAYOUT_MAX_K; k++)
		pages += ldexp((double)es->n[k], k);
	/* bracket T (the pool fills as T grows), then bisect it */
	for (it = 0; it < 2000 && che_sum(es, pages, hi, 0) < cap; it++) {
		lo = hi;
		hi *= 2;
	}
	for (it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
		t = (lo + hi) / 2;
		if (che_sum(es, pages, t, 0) < cap)
			lo = t;
		else
			hi = t;
	}
	return fmax(0.0, 1.0 - che_sum(es, pages, hi, 1));
}

/* The entries as a level that holds only the sizes in 'sizes' (bit k: 2^k
 * bytes; 0: all) keeps them: a class it does not hold is broken into
 * entries of the largest size below it that it does (base pages always). */
static void split_sizes(unsigned long long sizes, int page_shift, struct entry_sizes *es)
{
	int k, j;

	if (!sizes)
		return;
	for (k = LAYOUT_MAX_K; k > 0; k--) {
		if (!es->n[k] || k + page_shift >= 64 || sizes & (1ULL << (k + page_shift)))
			continue;
		for (j = k - 1; j > 0 && !(sizes & (1ULL << (j + page_shift))); j--)
			;
		es->n[j] += es->n[k] << (k - j);
		es->n[k] = 0;
	}
}

static double pool_cover(unsigned cap, unsigned long long needed)
{
	return needed && cap ? (double)cap / (double)needed : NAN;
}

/*
 * One level. A shared pool holds every entry, PMD ones too; separate pools
 * (Intel's L1: base and PMD apart) each miss on their own, weighted by the
 * pages each maps (uniform access over pages).
 */
static void level_fill(const struct tlb_level_geometry *lg, const struct entry_sizes *pte,
		       unsigned long long pmd, const struct layout_hist *h,
		       struct tlb_level_footprint *lf)
{
	struct entry_sizes all = *pte, pmds = { { 0 } };
	unsigned long long npte = sizes_count(pte);
	int k, pmd_order = h->pmd_order;
	double ms, mp, cs, cp, pte_pages = 0, pmd_pages = ldexp((double)pmd, pmd_order);

	lf->name = lg->name;
	lf->entries_needed = npte + pmd;
	all.n[pmd_order] += pmd;
	if (lg->shared || !pmd) {
		split_sizes(lg->sizes, h->page_shift, &all);
		lf->entries_needed = sizes_count(&all);
		lf->capacity = lg->entries;
		lf->miss_ratio = pool_miss(lg->entries, &all);
		lf->coverage = pool_cover(lg->entries, lf->entries_needed);
		return;
	}
	for (k = 0; k <= LAYOUT_MAX_K; k++)
		pte_pages += ldexp((double)pte->n[k], k);
	pmds.n[pmd_order] = pmd;
	/* the pools this layout uses: a layout of PMD mappings alone has only
	 * the PMD pool to hold it */
	lf->capacity = (npte ? lg->entries : 0ULL) + lg->entries_pmd;
	ms = pool_miss(lg->entries, pte);
	mp = pool_miss(lg->entries_pmd, &pmds);
	lf->miss_ratio = (ms * pte_pages + mp * pmd_pages) / (pte_pages + pmd_pages);
	cs = npte ? pool_cover(lg->entries, npte) : INFINITY;
	cp = pool_cover(lg->entries_pmd, pmd);
	lf->coverage = isnan(cs) || isnan(cp) ? NAN : fmin(cs, cp);
}

enum tlb_misfit tlb_misfit(const struct tlb_geometry *g, const struct layout_hist *h, int *level)
{
	int m, i;

	if (!g || g->nr_levels < 1 || g->nr_levels > TLB_MAX_LEVELS)
		return TLB_MISFIT_GEOMETRY;
	if (hist_check(h))
		return TLB_MISFIT_LAYOUT;
	m = tlb_merge_order(g, h);
	if (m < 0 || m > h->pmd_order)
		return TLB_MISFIT_RULE;
	/* a level that lists its sizes must hold the base page (a geometry
	 * file's "sizes = 2M" was modelled as if it held 4K) */
	for (i = 0; i < g->nr_levels; i++)
		if (g->level[i].sizes && !(g->level[i].sizes & (1ULL << h->page_shift))) {
			if (level)
				*level = i;
			return TLB_MISFIT_SIZES;
		}
	return TLB_FITS;
}

enum tlb_misfit tlb_misfit_words(const struct tlb_geometry *g, const struct layout_hist *h,
				 char *buf, size_t size)
{
	int lv = 0;
	enum tlb_misfit why = tlb_misfit(g, h, &lv);
	/* hist_check has vouched for the page size past TLB_MISFIT_LAYOUT */
	unsigned kib = why > TLB_MISFIT_LAYOUT ? 1u << (h->page_shift - 10) : 0;

	switch (why) {
	case TLB_FITS:
		if (size)
			buf[0] = '\0';
		break;
	case TLB_MISFIT_GEOMETRY:
		snprintf(buf, size, "the model has no levels to hold entries");
		break;
	case TLB_MISFIT_LAYOUT:
		snprintf(buf, size, "the layout is not one a mapping can have");
		break;
	case TLB_MISFIT_RULE:
		snprintf(buf, size, "the model's rule does not fit %uK pages", kib);
		break;
	case TLB_MISFIT_SIZES:
		snprintf(buf, size, "the model's level %s does not hold %uK pages, the base page "
			 "size", g->level[lv].name ? g->level[lv].name : "?", kib);
		break;
	}
	return why;
}

int tlb_footprint(const struct tlb_geometry *g, const struct layout_hist *h,
		  struct tlb_footprint *fp)
{
	struct entry_sizes es;
	int i, err;

	memset(fp, 0, sizeof(*fp));
	if (tlb_misfit(g, h, NULL) != TLB_FITS)
		return -EINVAL;
	if ((err = pte_entries(g, h, &es)))
		return err;
	fp->model = g->name;
	fp->source = TLB_SRC_TABLE;
	fp->nr_levels = g->nr_levels;
	fp->entries_base = es.n[0];
	fp->entries_merged = sizes_count(&es) - es.n[0];
	fp->entries_pmd = h->pmd_maps;
	for (i = 1; i <= LAYOUT_MAX_K; i++)
		fp->merged_by_order[i] = es.n[i];
	for (i = 0; i < g->nr_levels; i++) {
		const struct tlb_level_geometry *lg = &g->level[i];

		level_fill(lg, &es, h->pmd_maps, h, &fp->level[i]);
		/* user over cpuid over table: the least vouched-for source used */
		if (lg->source == TLB_SRC_USER ||
		    (lg->source == TLB_SRC_CPUID && fp->source == TLB_SRC_TABLE))
			fp->source = lg->source;
	}
	return 0;
}

const char *tlb_model_assumptions(void)
{
	return "uniform random access over the mapped set; each level fully associative "
	       "with LRU replacement (associativity ignored) and holding this set only (no "
	       "other working set, no page-walk caches); an entry is used in proportion to the "
	       "pages it maps, and a pool's miss ratio is Che's approximation (max(0, 1 - "
	       "capacity/entries needed) when every entry maps the same size); separate "
	       "base/PMD pools weighted by the pages they map";
}

/* A double as JSON: NaN (not known) is null, never zero. */
static json_t *json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A JSON array of one(item) for the n items of size bytes at items; NULL
 * when the array or one item fails. */
static json_t *levels_json(const void *items, size_t size, int n, json_t *(*one)(const void *item))
{
	json_t *levels = json_array();
	int i;

	for (i = 0; levels && i < n; i++) {
		if (json_array_append_new(levels, one((const char *)items + (size_t)i * size))) {
			json_decref(levels);
			return NULL;
		}
	}
	return levels;
}

static json_t *level_json(const void *item)
{
	const struct tlb_level_footprint *lf = item;

	return json_pack("{s:s, s:I, s:o, s:o, s:o}", "level", lf->name ? lf->name : "?",
			 "entries_needed", (json_int_t)lf->entries_needed, "capacity",
			 lf->capacity ? json_integer((json_int_t)lf->capacity) : json_null(),
			 "coverage", json_num(lf->coverage), "miss_ratio",
			 json_num(lf->miss_ratio));
}

json_t *tlb_footprint_json(const struct tlb_footprint *fp)
{
	json_t *o, *levels;

	levels = levels_json(fp->level, sizeof(fp->level[0]), fp->nr_levels, level_json);
	if (!levels)
		return NULL;
	o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:o}", "model",
		      fp->model ? fp->model : "?", "source", tlb_source_name(fp->source),
		      "computed_by", "model", "assumptions", tlb_model_assumptions(),
		      "entries_base", (json_int_t)fp->entries_base, "entries_merged",
		      (json_int_t)fp->entries_merged, "entries_pmd", (json_int_t)fp->entries_pmd,
		      "levels", levels);
	return o;
}

const struct tlb_geometry *tlb_geometry_find(const char *name)
{
	const struct tlb_geometry *const *g;

	if (!name)
		return NULL;
	for (g = tlb_geometries; *g; g++)
		if (!strcmp((*g)->name, name))
			return *g;
	return NULL;
}

static json_t *level_geometry_json(const void *item)
{
	const struct tlb_level_geometry *l = item;
	json_t *o = json_pack("{s:s, s:o, s:b, s:o, s:o, s:s, s:s}", "level", l->name ? l->name : "?",
			      "entries", l->entries ? json_integer(l->entries) : json_null(),
			      "shared", l->shared, "entries_pmd",
			      !l->shared && l->entries_pmd ? json_integer(l->entries_pmd) : json_null(),
			      "ways", l->ways ? json_integer(l->ways) : json_null(), "source",
			      tlb_source_name(l->source), "cite", l->cite ? l->cite : "");
	json_t *sizes = l->sizes ? json_array() : NULL;

	/* the entry sizes it holds, in bytes, where known (absent: every size) */
	for (int k = 0; sizes && k < 63; k++)
		if (l->sizes & (1ULL << k))
			json_array_append_new(sizes, json_integer((json_int_t)(1ULL << k)));
	if (o && sizes)
		json_object_set_new(o, "sizes", sizes);
	return o;
}

json_t *tlb_geometry_json(const struct tlb_geometry *g)
{
	unsigned set = tlb_merge_set(g);
	json_t *levels, *o, *sizes;
	int k;

	levels = levels_json(g->level, sizeof(g->level[0]), g->nr_levels, level_geometry_json);
	if (!levels)
		return NULL;
	o = json_pack("{s:s, s:s, s:s, s:i, s:b, s:o}", "model", g->name ? g->name : "?", "desc",
		      g->desc ? g->desc : "", "merge", tlb_merge_name(g->merge), "merge_pages",
		      (int)g->merge_pages, "hpa", g->hpa, "levels", levels);
	sizes = o ? json_array() : NULL;
	for (k = 0; sizes && k < 32; k++)
		if (set & (1u << k))
			json_array_append_new(sizes, json_integer(1 << k));
	if (sizes)
		json_object_set_new(o, "merge_sizes", sizes);
	if (o && g->merge_cite)
		json_object_set_new(o, "merge_cite", json_string(g->merge_cite));
	if (o && g->notes)
		json_object_set_new(o, "notes", json_string(g->notes));
	return o;
}
