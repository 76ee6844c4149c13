// SPDX-License-Identifier: GPL-2.0-or-later
/* khugepaged policies replayed on a presence map (replay.h): a model. */
#include "replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collapse_pattern.h"
#include "mthpscope.h"

const char *const replay_policy_names[] = {
	[REPLAY_MERGED] = "merged",
	[REPLAY_PACHE_V1] = "pache-v1",
	[REPLAY_JAIN] = "jain",
	NULL,
};

int replay_policy_parse(const char *s, enum replay_policy *p, bool *defer)
{
	static const char suffix[] = "-defer";
	size_t len = strlen(s), sl = sizeof(suffix) - 1;
	int i;

	*defer = len > sl && !strcmp(s + len - sl, suffix);
	if (*defer)
		len -= sl;
	for (i = 0; i < REPLAY_NR_POLICIES; i++)
		if (strlen(replay_policy_names[i]) == len && !strncmp(s, replay_policy_names[i], len)) {
			*p = (enum replay_policy)i;
			return 0;
		}
	return -EINVAL;
}

/* ---- the map ------------------------------------------------------------ */

/* Frames of collapsed folios: far above any RAM this model meets, so that
 * they never run on from a real frame. */
#define REPLAY_PFN_BASE (1ULL << 40)

static int map_alloc(struct replay_map *m, unsigned page_shift, int pmd_order, size_t nr_ranges)
{
	size_t pages;

	memset(m, 0, sizeof(*m));
	if (pmd_order < 1 || pmd_order > LAYOUT_MAX_K || !nr_ranges)
		return -EINVAL;
	m->page_shift = page_shift;
	m->pmd_order = pmd_order;
	m->pmd_pages = 1u << pmd_order;
	m->nr_ranges = nr_ranges;
	pages = nr_ranges * m->pmd_pages;
	m->ranges = calloc(nr_ranges, sizeof(*m->ranges));
	m->folio = malloc(pages * sizeof(*m->folio));
	m->order = malloc(pages);
	m->pfn = calloc(pages, sizeof(*m->pfn));
	if (!m->ranges || !m->folio || !m->order || !m->pfn) {
		replay_map_free(m);
		return -ENOMEM;
	}
	memset(m->folio, 0xff, pages * sizeof(*m->folio)); /* -1: not present */
	memset(m->order, 0xff, pages);
	m->next_pfn = REPLAY_PFN_BASE;
	return 0;
}

void replay_map_free(struct replay_map *m)
{
	free(m->ranges);
	free(m->folio);
	free(m->order);
	free(m->pfn);
	memset(m, 0, sizeof(*m));
}

int replay_map_copy(const struct replay_map *src, struct replay_map *dst)
{
	size_t pages = src->nr_ranges * src->pmd_pages;
	int err = map_alloc(dst, src->page_shift, src->pmd_order, src->nr_ranges);

	if (err)
		return err;
	memcpy(dst->ranges, src->ranges, src->nr_ranges * sizeof(*src->ranges));
	memcpy(dst->folio, src->folio, pages * sizeof(*src->folio));
	memcpy(dst->order, src->order, pages);
	memcpy(dst->pfn, src->pfn, pages * sizeof(*src->pfn));
	dst->next_folio = src->next_folio;
	dst->next_pfn = src->next_pfn;
	return 0;
}

/* One row of a presence range into the map: order-0 rows are one folio a page. */
static void map_put_row(struct replay_map *m, size_t base, const struct presence_folio *f)
{
	unsigned i;

	for (i = 0; i < f->pages; i++) {
		m->folio[base + f->offset + i] = f->order == 0 ? m->next_folio++ : m->next_folio;
		m->order[base + f->offset + i] = (signed char)f->order;
		m->pfn[base + f->offset + i] = f->pfn + i;
	}
	if (f->order != 0)
		m->next_folio++;
}

int replay_map_from_presence(const struct presence_doc *d, struct replay_map *m)
{
	size_t r, j;
	unsigned shift = 0;
	int err;

	while ((1u << shift) < d->page_size)
		shift++;
	if ((err = map_alloc(m, shift, d->pmd_order, d->nr_ranges)))
		return err;
	for (r = 0; r < d->nr_ranges; r++) {
		const struct presence_range *pr = &d->ranges[r];
		size_t base = r * m->pmd_pages;

		m->ranges[r] = (struct replay_range){ .addr = pr->addr, .lo = pr->lo, .hi = pr->hi,
						      .pmd_mapped = pr->pmd_mapped,
						      .split = pr->split };
		if (pr->lo >= pr->hi || pr->hi > m->pmd_pages) {
			replay_map_free(m);
			return -EINVAL;
		}
		if (pr->pmd_mapped) {
			struct presence_folio whole = { 0, m->pmd_pages, m->pmd_order, pr->pmd_pfn };

			map_put_row(m, base, &whole);
			continue;
		}
		for (j = 0; j < pr->nr_folios; j++) {
			const struct presence_folio *f = &pr->folios[j];

			if (f->offset < pr->lo || f->pages > pr->hi - f->offset) {
				replay_map_free(m);
				return -EINVAL;
			}
			map_put_row(m, base, f);
		}
	}
	return 0;
}

int replay_map_synthetic(uint64_t seed, double fill, size_t span_pages, unsigned page_shift,
			 int pmd_order, struct replay_map *m)
{
	unsigned char *present;
	size_t i, nr;
	int err;

	if (pmd_order < 1 || pmd_order > LAYOUT_MAX_K || span_pages % (1u << pmd_order))
		return -EINVAL;
	nr = span_pages >> pmd_order;
	if ((err = map_alloc(m, page_shift, pmd_order, nr)))
		return err;
	if (!(present = malloc(span_pages))) {
		replay_map_free(m);
		return -ENOMEM;
	}
	collapse_pattern(seed, fill, span_pages, m->pmd_pages, present);
	for (i = 0; i < nr; i++)
		m->ranges[i] = (struct replay_range){ .addr = (unsigned long long)i << (pmd_order + page_shift),
						      .lo = 0, .hi = m->pmd_pages };
	for (i = 0; i < span_pages; i++) {
		if (!present[i])
			continue;
		m->folio[i] = m->next_folio++;
		m->order[i] = 0;
		m->pfn[i] = 2 * i + 1; /* odd frames: no two contiguous */
	}
	free(present);
	return 0;
}

/* ---- the policies ------------------------------------------------------- */

void replay_rewrite_message(int pmd_pages, char *buf, size_t size)
{
	snprintf(buf, size, "mTHP collapse does not support max_ptes_none values other than 0 "
			    "or %d, defaulting to 0.", pmd_pages - 1);
}

int replay_max_ptes_none(const struct replay_params *p, int order, int pmd_order, bool *rewritten)
{
	int limit = (1 << pmd_order) - 1, mpn = p->max_ptes_none;

	if (rewritten)
		*rewritten = false;
	if (order == pmd_order)
		return mpn;
	switch (p->policy) {
	case REPLAY_PACHE_V1:
		/* v1: scaled to the order, no cap */
		return mpn >> (pmd_order - order);
	case REPLAY_JAIN:
		return mpn == limit ? (1 << order) - 1 : mpn == 0 ? 0 : -1;
	case REPLAY_MERGED:
	default:
		if (mpn == limit)
			return (1 << order) - 1;
		if (mpn && rewritten)
			*rewritten = true;
		return 0;
	}
}

/* Is the window one folio of its order or more already (the kernel's
 * SCAN_PTE_MAPPED_HUGEPAGE: nothing to do, go past it)? */
static bool window_is_folio(const struct replay_map *m, size_t base, unsigned off, int order)
{
	int id = m->folio[base + off];
	unsigned i, n = 1u << order;

	if (id < 0 || m->order[base + off] < order)
		return false;
	for (i = 1; i < n; i++)
		if (m->folio[base + off + i] != id)
			return false;
	return true;
}

static unsigned window_present(const struct replay_map *m, size_t base, unsigned off, int order)
{
	unsigned i, n = 1u << order, c = 0;

	for (i = 0; i < n; i++)
		c += m->folio[base + off + i] >= 0;
	return c;
}

/* A new folio of 'order' over the window: every page present, frames
 * naturally aligned (what the buddy allocator hands out). */
static void window_collapse(struct replay_map *m, size_t r, unsigned off, int order)
{
	size_t base = r * m->pmd_pages;
	unsigned long long n = 1ULL << order, pfn = (m->next_pfn + n - 1) & ~(n - 1);
	unsigned i;

	for (i = 0; i < n; i++) {
		m->folio[base + off + i] = m->next_folio;
		m->order[base + off + i] = (signed char)order;
		m->pfn[base + off + i] = pfn + i;
	}
	m->next_folio++;
	m->next_pfn = pfn + n;
	if (order == m->pmd_order)
		m->ranges[r].pmd_mapped = true;
}

/* What happens to one window: 1 collapsed or already a folio (go past it),
 * 0 not taken (try smaller orders). */
static int window_try(struct replay_map *m, const struct replay_params *p, size_t r,
		      unsigned off, int order, struct replay_state *st)
{
	const struct replay_range *rg = &m->ranges[r];
	size_t base = r * m->pmd_pages;
	unsigned n = 1u << order;
	int none;

	if (!(p->orders & (1UL << order)) || (order < p->min_order && order != m->pmd_order))
		return 0;
	if (off < rg->lo || off + n > rg->hi)
		return 0; /* thp_vma_suitable_order(): the window leaves the VMA */
	if (window_is_folio(m, base, off, order))
		return 1;
	none = replay_max_ptes_none(p, order, m->pmd_order, NULL);
	if (none < 0 || window_present(m, base, off, order) + (unsigned)none < n)
		return 0;
	window_collapse(m, r, off, order);
	st->collapses[order]++;
	return 1;
}

/* The range walk of mthp_collapse() (mm/khugepaged.c): from offset 0 at the
 * PMD order; a window taken moves the offset past it, one not taken tries
 * the next smaller order at the same offset while one is enabled, the
 * smallest moves on. Jain's descent order by order tries the same windows
 * on a map that does not change under it (a window of order k is tried
 * exactly when no enclosing window was taken), so it walks here too. */
static void range_walk(struct replay_map *m, const struct replay_params *p, size_t r,
		       struct replay_state *st)
{
	unsigned off = 0, n;
	int order = m->pmd_order, floor = p->min_order;
	size_t base = r * m->pmd_pages;

	if (m->ranges[r].pmd_mapped)
		return; /* SCAN_PMD_MAPPED */
	/* khugepaged_scan_mm_slot() scans a VMA from round_up(vm_start) to
	 * round_down(vm_end) by the PMD size: a range one VMA does not cover
	 * whole is never scanned, for mTHP orders neither (the 7.3.4 guest:
	 * every such range of busybox sort and awk stayed as it was) */
	if (m->ranges[r].lo || m->ranges[r].hi != m->pmd_pages || m->ranges[r].split)
		return;
	/* an empty range has no page to be referenced or writable: not collapsed */
	if (!window_present(m, base, 0, m->pmd_order))
		return;
	while (off < m->pmd_pages) {
		n = 1u << order;
		if (window_try(m, p, r, off, order, st) == 0 && order > floor &&
		    (p->orders & ((1UL << order) - 1) & ~((1UL << floor) - 1))) {
			order--;
			continue;
		}
		off += n;
		order = off ? __builtin_ctz(off) : m->pmd_order;
		if (order > m->pmd_order)
			order = m->pmd_order;
		if (m->ranges[r].pmd_mapped)
			break;
	}
}

int replay_begin(struct replay_map *m, const struct replay_params *p, char *err, size_t errsize)
{
	size_t i, pages = m->nr_ranges * m->pmd_pages;

	if (p->min_order < 2 || p->min_order > 4) {
		snprintf(err, errsize, "the minimum order is 2, 3 or 4, not %d", p->min_order);
		return -EINVAL;
	}
	if (p->max_ptes_none < 0 || p->max_ptes_none >= (int)m->pmd_pages) {
		snprintf(err, errsize, "max_ptes_none %d is out of 0..%u for %u KiB pages",
			 p->max_ptes_none, m->pmd_pages - 1, (1u << m->page_shift) >> 10);
		return -EINVAL;
	}
	if (!p->defer)
		return 0;
	/* defer: the enabled sizes faulted at order 0, the PMD size too */
	for (i = 0; i < m->nr_ranges; i++)
		if (p->orders & (1UL << m->pmd_order))
			m->ranges[i].pmd_mapped = false;
	for (i = 0; i < pages; i++)
		if (m->folio[i] >= 0 && m->order[i] >= 1 && (p->orders & (1UL << m->order[i])) &&
		    !m->ranges[i / m->pmd_pages].pmd_mapped) {
			m->folio[i] = m->next_folio++;
			m->order[i] = 0;
		}
	return 0;
}

void replay_pass(struct replay_map *m, const struct replay_params *p, struct replay_state *st)
{
	unsigned long long made[LAYOUT_MAX_K + 1];
	size_t r;

	memset(st, 0, sizeof(*st));
	for (r = 0; r < m->nr_ranges; r++)
		range_walk(m, p, r, st);
	memcpy(made, st->collapses, sizeof(made));
	replay_state_of(m, st);
	memcpy(st->collapses, made, sizeof(made));
}

/* ---- the state ---------------------------------------------------------- */

/* The layout of one PTE-mapped range: runs of consecutive frames for
 * contig[], the same within one folio for folio[]. */
static void range_layout(const struct replay_map *m, size_t r, struct layout_hist *h)
{
	size_t base = r * m->pmd_pages;
	unsigned long long vpn0 = m->ranges[r].addr >> m->page_shift;
	unsigned i = 0, j;

	while (i < m->pmd_pages) {
		if (m->folio[base + i] < 0) {
			i++;
			continue;
		}
		for (j = i + 1; j < m->pmd_pages && m->folio[base + j] >= 0 &&
				m->pfn[base + j] == m->pfn[base + j - 1] + 1; j++)
			;
		layout_count_run(vpn0 + i, m->pfn[base + i], j - i, m->pmd_order, h->contig);
		i = j;
	}
	for (i = 0; i < m->pmd_pages; i = j) {
		int id = m->folio[base + i];

		for (j = i + 1; id >= 0 && j < m->pmd_pages && m->folio[base + j] == id &&
				m->pfn[base + j] == m->pfn[base + j - 1] + 1; j++)
			;
		if (id >= 0)
			layout_count_run(vpn0 + i, m->pfn[base + i], j - i, m->pmd_order, h->folio);
	}
}

void replay_range_pages_of(const struct replay_map *m, size_t r, struct replay_range_pages *rp)
{
	size_t base = r * m->pmd_pages;
	unsigned i;

	memset(rp, 0, sizeof(*rp));
	if (m->ranges[r].pmd_mapped) {
		rp->pages[m->pmd_order] = m->pmd_pages;
		return;
	}
	for (i = 0; i < m->pmd_pages; i++) {
		if (m->folio[base + i] < 0)
			continue;
		if (m->order[base + i] < 0)
			rp->unknown++;
		else
			rp->pages[m->order[base + i]]++;
	}
}

void replay_state_of(const struct replay_map *m, struct replay_state *st)
{
	struct replay_range_pages rp;
	size_t r;
	int k;

	memset(st, 0, sizeof(*st));
	layout_hist_init(&st->layout, m->page_shift, m->pmd_order);
	for (r = 0; r < m->nr_ranges; r++) {
		replay_range_pages_of(m, r, &rp);
		for (k = 0; k <= LAYOUT_MAX_K; k++) {
			st->pages[k] += rp.pages[k];
			st->rss_pages += rp.pages[k];
		}
		st->unknown += rp.unknown;
		st->rss_pages += rp.unknown;
		if (m->ranges[r].pmd_mapped)
			st->layout.pmd_maps++;
		else
			range_layout(m, r, &st->layout);
	}
}

int replay_run_in_place(struct replay_map *m, const struct replay_params *p, int passes,
			struct replay_state *states, bool *rewritten, char *err, size_t errsize)
{
	int i, k, rc;

	if (passes < 1) {
		snprintf(err, errsize, "the number of passes is at least 1");
		return -EINVAL;
	}
	*rewritten = false;
	for (k = 2; k < m->pmd_order; k++) {
		bool rw = false;

		if (p->orders & (1UL << k))
			replay_max_ptes_none(p, k, m->pmd_order, &rw);
		*rewritten |= rw;
	}
	if ((rc = replay_begin(m, p, err, errsize)))
		return rc;
	replay_state_of(m, &states[0]);
	for (i = 1; i <= passes; i++)
		replay_pass(m, p, &states[i]);
	return 0;
}

int replay_run(const struct replay_map *m0, const struct replay_params *p, int passes,
	       struct replay_state *states, bool *rewritten, char *err, size_t errsize)
{
	struct replay_map m;
	int rc;

	if ((rc = replay_map_copy(m0, &m))) {
		snprintf(err, errsize, "%s", strerror(-rc));
		return rc;
	}
	rc = replay_run_in_place(&m, p, passes, states, rewritten, err, errsize);
	replay_map_free(&m);
	return rc;
}

/* One range's rows: a run of one folio at consecutive frames is a row. */
static int range_rows(const struct replay_map *m, size_t r, struct presence_doc *d)
{
	size_t base = r * m->pmd_pages;
	unsigned i = 0, j;
	int err;

	while (i < m->pmd_pages) {
		int id = m->folio[base + i];

		if (id < 0) {
			i++;
			continue;
		}
		for (j = i + 1; j < m->pmd_pages && m->folio[base + j] == id &&
				m->pfn[base + j] == m->pfn[base + j - 1] + 1; j++)
			;
		if ((err = presence_doc_add_folio(d, i, j - i, m->order[base + i], m->pfn[base + i])))
			return err;
		i = j;
	}
	return 0;
}

int replay_map_to_presence(const struct replay_map *m, struct presence_doc *d)
{
	size_t r;
	int err;

	if ((1u << m->page_shift) != d->page_size || m->pmd_order != d->pmd_order)
		return -EINVAL;
	for (r = 0; r < m->nr_ranges; r++) {
		const struct replay_range *rg = &m->ranges[r];

		if ((err = presence_doc_add_range(d, rg->addr, rg->lo, rg->hi)))
			return err;
		d->ranges[d->nr_ranges - 1].split = rg->split;
		err = rg->pmd_mapped ? presence_doc_set_pmd(d, m->pfn[r * m->pmd_pages])
				     : range_rows(m, r, d);
		if (err)
			return err;
	}
	return 0;
}
