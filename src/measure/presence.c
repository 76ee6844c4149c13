// SPDX-License-Identifier: GPL-2.0-or-later
/* The presence map of a process (presence.h). */
#include "presence.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "folio.h"
#include "mthpscope.h"
#include "scan.h"

/* One PMD range being filled: per page the extent that holds it. */
struct prange {
	unsigned long long base;   /* virtual address of the range */
	unsigned pmd_pages, page_shift;
	int *ext;                  /* per page: index into ext_order, -1 none */
	struct { int order; bool pmd; } *ext_info; /* per extent: folio order (-1 a part,
						   * order unknown), PMD-mapped */
	size_t nr_ext, cap_ext;
	unsigned long long *pfn;   /* per page, from pagemap (0: not present) */
};

static int on_extent(const struct folio_extent *e, void *ctx)
{
	struct prange *r = ctx;
	unsigned long first = (unsigned long)((e->start - r->base) >> r->page_shift), i;

	if (!folio_extent_has_order(e) || e->kind == FOLIO_KSM)
		return 0; /* zero page, hugetlb, no struct page: not collapsible memory */
	if (MS_GROW(r->ext_info, r->nr_ext, r->cap_ext, 64))
		return -ENOMEM;
	r->ext_info[r->nr_ext].order = e->partial ? -1 : e->order;
	r->ext_info[r->nr_ext].pmd = e->pmd_mapped;
	for (i = first; i < first + e->pages && i < r->pmd_pages; i++)
		r->ext[i] = (int)r->nr_ext;
	r->nr_ext++;
	return 0;
}

/* The range's rows: a THP extent's pages as one row, order-0 pages merged by
 * presence_doc_add_folio where their frames run on. */
static int emit_rows(const struct prange *r, struct presence_doc *d)
{
	unsigned i = 0, j;
	int err;

	while (i < r->pmd_pages) {
		int x = r->ext[i], order;

		if (x < 0 || !r->pfn[i]) {
			i++;
			continue;
		}
		order = r->ext_info[x].order;
		for (j = i + 1; order != 0 && j < r->pmd_pages && r->ext[j] == x &&
				r->pfn[j] == r->pfn[j - 1] + 1; j++)
			;
		if (order == 0)
			j = i + 1;
		if ((err = presence_doc_add_folio(d, i, j - i, order, r->pfn[i])))
			return err;
		i = j;
	}
	return 0;
}

/* pagemap's PFNs of [lo, hi) of the range (0 where not present). */
static int read_pfns(int pm, struct prange *r, unsigned lo, unsigned hi)
{
	unsigned long long ent[512];
	unsigned i = lo, k;

	while (i < hi) {
		unsigned n = hi - i < 512 ? hi - i : 512;
		off_t at = (off_t)(((r->base >> r->page_shift) + i) * 8);
		ssize_t got = pread(pm, ent, n * 8, at);

		if (got <= 0)
			return got < 0 ? -errno : -ESRCH;
		n = (unsigned)got / 8;
		for (k = 0; k < n; k++)
			r->pfn[i + k] = (ent[k] & PM_PRESENT) ? ent[k] & PM_PFN_MASK : 0;
		i += n;
	}
	return 0;
}

static bool collapsible(const struct scan_vma *v)
{
	if (v->inode || v->perms[1] != 'w' || v->perms[3] != 'p')
		return false;
	return !v->name[0] || !strcmp(v->name, "[heap]") || !strcmp(v->name, "[stack]") ||
	       !strncmp(v->name, "[anon", 5);
}

/* One PMD range of one VMA: [lo, hi) pages of it. */
static int one_range(struct folio_scanner *s, int pm, struct prange *r, unsigned lo,
		     unsigned hi, struct presence_doc *d)
{
	struct presence_range *last = d->nr_ranges ? &d->ranges[d->nr_ranges - 1] : NULL;
	unsigned i, present = 0;
	int err;

	for (i = 0; i < r->pmd_pages; i++)
		r->ext[i] = -1, r->pfn[i] = 0;
	r->nr_ext = 0;
	if ((err = read_pfns(pm, r, lo, hi)))
		return err;
	for (i = lo; i < hi; i++)
		present += r->pfn[i] != 0;
	if (!present)
		return 0;
	err = folio_scanner_range(s, (unsigned long)(r->base + ((unsigned long long)lo << r->page_shift)),
				  (unsigned long)(r->base + ((unsigned long long)hi << r->page_shift)),
				  NULL, on_extent, r);
	if (err)
		return err;
	if (last && last->addr == r->base) {
		last->hi = hi; /* a second VMA in the range: khugepaged scans neither */
		last->split = true;
	} else if ((err = presence_doc_add_range(d, r->base, lo, hi))) {
		return err;
	}
	if (lo == 0 && hi == r->pmd_pages && r->nr_ext == 1 && r->ext_info[0].pmd &&
	    r->ext[0] == 0 && r->ext_info[0].order == (int)__builtin_ctz(r->pmd_pages))
		return presence_doc_set_pmd(d, r->pfn[0]);
	return emit_rows(r, d);
}

static int capture_vmas(struct folio_scanner *s, int pm, const struct scan_vma *v, size_t nr,
			struct prange *r, struct presence_doc *d)
{
	unsigned long long size = (unsigned long long)r->pmd_pages << r->page_shift, a;
	size_t i;
	int err;

	for (i = 0; i < nr; i++) {
		if (!collapsible(&v[i]))
			continue;
		for (a = v[i].start & ~(size - 1); a < v[i].end; a += size) {
			unsigned long long lo = a < v[i].start ? v[i].start : a;
			unsigned long long hi = a + size > v[i].end ? v[i].end : a + size;

			r->base = a;
			if ((err = one_range(s, pm, r, (unsigned)((lo - a) >> r->page_shift),
					     (unsigned)((hi - a) >> r->page_shift), d)))
				return err;
		}
	}
	return 0;
}

/* The process's name, where the caller left it empty. */
static void read_comm(int pid, struct presence_doc *d)
{
	char path[64];
	FILE *f;

	if (d->command[0])
		return;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (!(f = fopen(path, "re")))
		return;
	if (fgets(d->command, sizeof(d->command), f))
		d->command[strcspn(d->command, "\n")] = '\0';
	fclose(f);
}

int presence_capture(int pid, struct presence_doc *d)
{
	struct prange r = { .pmd_pages = 1u << d->pmd_order };
	struct folio_scanner *s = NULL;
	struct scan_vma *v = NULL;
	char path[64];
	size_t nr = 0;
	FILE *maps = NULL;
	int pm = -1, err;

	while ((1u << r.page_shift) < d->page_size)
		r.page_shift++;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	r.ext = malloc(r.pmd_pages * sizeof(*r.ext));
	r.pfn = malloc(r.pmd_pages * sizeof(*r.pfn));
	if (!r.ext || !r.pfn) {
		err = -ENOMEM;
		goto out;
	}
	if (!(maps = fopen(path, "re"))) {
		err = errno == ENOENT ? -ESRCH : -errno;
		goto out;
	}
	if ((err = scan_parse_smaps(maps, &v, &nr)))
		goto out;
	if (!nr) { /* a kernel thread's (or a zombie's): pagemap says ESRCH */
		err = -ENODATA;
		goto out;
	}
	if ((err = folio_scanner_open(&s, pid)))
		goto out;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	if ((pm = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		err = errno == ENOENT ? -ESRCH : -errno;
		goto out;
	}
	read_comm(pid, d);
	err = capture_vmas(s, pm, v, nr, &r, d);
	if (!err)
		d->pid = pid;
out:
	if (pm >= 0)
		close(pm);
	if (s)
		folio_scanner_close(s);
	if (maps)
		fclose(maps);
	free(v);
	free(r.ext);
	free(r.pfn);
	free(r.ext_info);
	return err;
}
