// SPDX-License-Identifier: GPL-2.0-or-later
#include "folio.h"
#include "layout.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

int folio_probe(struct folio_probe *p)
{
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t ent = 0, flags = 0;
	volatile char *page;
	int fd;

	memset(p, 0, sizeof(*p));
	page = mmap(NULL, (size_t)ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return -errno;
	page[0] = 1;
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		p->pagemap_readable =
			pread(fd, &ent, sizeof(ent), (off_t)((uintptr_t)page / (uintptr_t)ps) * 8) ==
			sizeof(ent);
		close(fd);
	}
	p->pfns_visible = p->pagemap_readable && (ent & PM_PRESENT) && (ent & PM_PFN_MASK);
	fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		p->kpageflags_readable = !p->pfns_visible ||
					 pread(fd, &flags, sizeof(flags),
					       (off_t)(ent & PM_PFN_MASK) * 8) == sizeof(flags);
		close(fd);
	}
	munmap((void *)page, (size_t)ps);
	if (!p->pagemap_readable)
		snprintf(p->reason, sizeof(p->reason), "/proc/self/pagemap cannot be read");
	else if (!p->pfns_visible)
		snprintf(p->reason, sizeof(p->reason),
			 "pagemap hides PFNs without CAP_SYS_ADMIN: folio orders need root");
	else if (!p->kpageflags_readable)
		snprintf(p->reason, sizeof(p->reason),
			 "/proc/kpageflags cannot be read (needs root; kernels without "
			 "CONFIG_PROC_PAGE_MONITOR lack it)");
	return 0;
}

/* ---- scanner ---------------------------------------------------------- */

/*
 * PAGEMAP_SCAN (Linux 6.7+, include/uapi/linux/fs.h). Debian 12's headers
 * predate it, so the ABI is spelled out here; the kernel checks 'size'.
 */
struct folio_page_region {
	uint64_t start, end, categories;
};

struct folio_pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};

#define FOLIO_PAGEMAP_SCAN _IOWR('f', 16, struct folio_pm_scan_arg)
#define FOLIO_PAGE_IS_PRESENT (1ULL << 3)
#define FOLIO_PAGE_IS_SWAPPED (1ULL << 4)
#define FOLIO_PAGE_IS_HUGE (1ULL << 6)

/* Entries per pagemap pread and per kpageflags pread: the scanner's memory
 * is these buffers, whatever the size of the process. */
#define FOLIO_BATCH 32768
#define FOLIO_NR_REGIONS 1024
/* PFN gap up to which one read covers two runs (a system call costs about
 * as much as reading four flags) */
#define FOLIO_PFN_GAP 4

/* The THP folio (or part of one) being walked. */
struct folio_piece {
	bool active;
	bool head;        /* starts at a compound head */
	bool anon;
	bool pmd;         /* mapped by a PMD */
	bool whole;       /* a PMD maps all of it: a whole PMD-order folio */
	bool phantom;     /* begun before this chunk: its owner counts it */
	unsigned long long vfn, pfn, n;
};

struct folio_scanner {
	int pm_fd, kpf_fd;
	unsigned page_shift;
	unsigned pmd_order;
	bool use_scan;    /* PAGEMAP_SCAN works on this kernel */
	bool probe;       /* find the end of large folios by probing (see probe_big) */
	int last_order;   /* order of the last complete folio: probing pays after big ones */
	uint64_t *pm;     /* FOLIO_BATCH pagemap entries */
	uint64_t *kf;     /* FOLIO_BATCH + 1 kpageflags entries */
	struct folio_page_region *regions;

	/* per-range state */
	struct folio_hist *h;
	folio_extent_fn fn;
	void *ctx;
	int stop;
	struct folio_piece thp;
	struct folio_extent run; /* pending merged non-THP extent */
	bool run_active;
	/* kf[] holds the flags of PFNs [kf_pfn, kf_pfn + kf_len) */
	unsigned long long kf_pfn;
	size_t kf_len;
	/* the flags of the PFN after the last run read, kept past the next read */
	unsigned long long after_pfn;
	uint64_t after_fl;
	bool after_valid;

	/* the contiguity histogram (folio_scanner_layout), NULL when not asked */
	struct layout_hist *lh;
	unsigned long long lay_vfn, lay_pfn, lay_n; /* the open run of contiguous PTE pages */
	unsigned long long lay_pmd_guess;           /* see finish_thp */
};

static int read_full(int fd, void *buf, size_t len, off_t off, size_t *got)
{
	size_t done = 0;

	*got = 0; /* also on error: -O3 cannot tell -errno from 0 and warns */
	while (done < len) {
		ssize_t r = pread(fd, (char *)buf + done, len - done, off + (off_t)done);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		done += (size_t)r;
	}
	*got = done;
	return 0;
}

/*
 * Pagemap entries from vfn on. The kernel reads 0 bytes both for an mm
 * that went away and above the user address space ([vsyscall] on x86-64),
 * which no VMA below it reaches: the entry of address 0 tells them apart.
 * 0 with *got > 0, -ESRCH (the mm went away), -EFAULT (above the user
 * address space: nothing is mapped there by pages) or -errno.
 */
static int pm_read(struct folio_scanner *s, void *buf, size_t len, unsigned long long vfn,
		   size_t *got)
{
	uint64_t e;
	size_t g;
	int err = read_full(s->pm_fd, buf, len, (off_t)(vfn * 8), got);

	if (err || *got || !len)
		return err;
	if ((err = read_full(s->pm_fd, &e, sizeof(e), 0, &g)))
		return err;
	return g == sizeof(e) && vfn ? -EFAULT : -ESRCH;
}

static bool is_pow2(unsigned long long n)
{
	return n && !(n & (n - 1));
}

static int ilog2ull(unsigned long long n)
{
	return 63 - __builtin_clzll(n);
}

int folio_kind_add(const struct folio_extent *e, const struct folio_kind_sums *s)
{
	unsigned long long *sum;

	switch (e->kind) {
	case FOLIO_SMALL: sum = s->small; break;
	case FOLIO_KSM: sum = s->ksm; break;
	case FOLIO_ZERO: sum = s->zero; break;
	case FOLIO_HUGETLB: sum = s->hugetlb; break;
	case FOLIO_OTHER:
	case FOLIO_COMPOUND: sum = s->other; break;
	default: return -1;
	}
	*sum += e->pages;
	return 0;
}

static void account(struct folio_scanner *s, const struct folio_extent *e)
{
	struct folio_hist *h = s->h;

	if (h) {
		const struct folio_kind_sums sums = { .small = &h->pages[0], .ksm = &h->ksm,
						      .zero = &h->zero_page,
						      .hugetlb = &h->hugetlb, .other = &h->other };

		h->present += e->pages;
		if (!folio_kind_add(e, &sums)) {
			if (e->kind == FOLIO_KSM) /* KSM pages are order-0 folios */
				h->pages[0] += e->pages;
		} else if (e->partial) {
			h->partial += e->pages;
		} else {
			h->pages[folio_extent_order(e)] += e->pages;
			if (!e->aligned)
				h->unaligned += e->pages;
			if (e->pmd_mapped)
				h->pmd_mapped += e->pages;
		}
		if (folio_extent_is_rss(e)) {
			if (e->anon)
				h->anon += e->pages;
			else
				h->file += e->pages;
		}
	}
	if (s->fn && !s->stop)
		s->stop = s->fn(e, s->ctx);
}

/*
 * Linux 6.12's stable_page_flags() sets KPF_KSM on every anonymous order-0
 * page (it tests 'mapping & PAGE_MAPPING_KSM', and PAGE_MAPPING_KSM includes
 * the ANON bit): seen in Debian's 6.12.95 and 6.12.107 guests with KSM never
 * run, not in 6.1 nor 6.18. So KPF_KSM is believed only when KSM has merged
 * something (ksm/pages_shared > 0); without that file (no CONFIG_KSM) no page
 * can be KSM. Read at most once a second (every small anon page of a 6.12
 * kernel asks).
 */
static bool ksm_has_pages(void)
{
	static int cached = -1;
	static time_t when;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if (cached < 0 || now.tv_sec != when) {
		FILE *f = fopen("/sys/kernel/mm/ksm/pages_shared", "re");
		long v = 0;

		cached = f && fscanf(f, "%ld", &v) == 1 && v > 0;
		if (f)
			fclose(f);
		when = now.tv_sec;
	}
	return cached;
}

static enum folio_kind classify(uint64_t fl)
{
	if (fl & KPF_NOPAGE)
		return FOLIO_OTHER;
	if (fl & KPF_ZERO_PAGE)
		return FOLIO_ZERO;
	if (fl & KPF_HUGE)
		return FOLIO_HUGETLB;
	if (fl & KPF_THP)
		return FOLIO_THP;
	if ((fl & KPF_KSM) && ksm_has_pages())
		return FOLIO_KSM;
	/* compound but neither THP nor hugetlb: not an order-0 folio, nor a
	 * THP of any order; thpmaps gives it no label but counts it in its
	 * percent base (smaps Rss), as scan --smaps does */
	if (fl & (KPF_COMPOUND_HEAD | KPF_COMPOUND_TAIL))
		return FOLIO_COMPOUND;
	return FOLIO_SMALL;
}

/* Flags of one PFN: from the last kpageflags read when it covers it. */
static uint64_t flags_of(struct folio_scanner *s, unsigned long long pfn)
{
	uint64_t fl = 0;
	size_t got;

	if (pfn >= s->kf_pfn && pfn < s->kf_pfn + s->kf_len)
		return s->kf[pfn - s->kf_pfn];
	if (s->after_valid && pfn == s->after_pfn)
		return s->after_fl;
	/* Beyond the last PFN the read is short: nothing there, not a tail. */
	if (read_full(s->kpf_fd, &fl, sizeof(fl), (off_t)(pfn * 8), &got) || got != sizeof(fl))
		return 0;
	return fl;
}

static void flush_run(struct folio_scanner *s)
{
	if (!s->run_active)
		return;
	s->run_active = false;
	account(s, &s->run);
}

/* ---- the contiguity histogram ---------------------------------------- */

/* Close the open run: its aligned blocks in O(pmd_order), not per page. */
static void layout_close(struct folio_scanner *s)
{
	if (!s->lay_n)
		return;
	layout_count_run(s->lay_vfn, s->lay_pfn, s->lay_n, (int)s->pmd_order, s->lh->contig);
	s->lh->folio[0] += s->lay_n; /* each page is inside its own folio */
	s->lay_n = 0;
}

/*
 * n present pages from 'vfn' at 'pfn' (consecutive in both), flags 'fl' of
 * the first. A page mapped by a PMD or without a countable struct page (the
 * zero page, hugetlb, no page) is excluded and ends the run.
 */
static void layout_pages(struct folio_scanner *s, unsigned long long vfn, unsigned long long pfn,
			 unsigned long long n, uint64_t fl, bool pmd)
{
	if (!s->lh)
		return;
	if (pmd || (fl & (KPF_NOPAGE | KPF_ZERO_PAGE | KPF_HUGE))) {
		layout_close(s);
		s->lh->excluded += n;
		return;
	}
	if (s->lay_n && vfn == s->lay_vfn + s->lay_n && pfn == s->lay_pfn + s->lay_n) {
		s->lay_n += n;
		return;
	}
	layout_close(s);
	s->lay_vfn = vfn;
	s->lay_pfn = pfn;
	s->lay_n = n;
}

/* A whole PMD-order folio mapped by a PMD. */
static void layout_pmd(struct folio_scanner *s)
{
	if (!s->lh)
		return;
	layout_close(s);
	s->lh->pmd_maps++;
}

/*
 * The blocks of a THP piece (one folio, or the part of it mapped here) that
 * lie inside that folio: folio[k], k >= 1 (folio[0] is counted per page).
 * Without PAGEMAP_SCAN a PMD mapping cannot be told from PTEs; a complete,
 * aligned, VA/PA-congruent folio of the PMD order is taken for one (what a
 * fault or khugepaged makes; only a split PMD leaves it PTE-mapped), and
 * its blocks, already in the runs, come out at the end of the chunk.
 */
static void layout_folio(struct folio_scanner *s, const struct folio_piece *p, int order)
{
	unsigned long long blocks[LAYOUT_MAX_K + 1] = { 0 };
	int k;

	if (!s->lh || p->pmd)
		return;
	if (!s->use_scan && order == (int)s->pmd_order &&
	    !((p->vfn | p->pfn) & ((1ULL << s->pmd_order) - 1))) {
		s->lay_pmd_guess++;
		return;
	}
	layout_count_run(p->vfn, p->pfn, p->n, (int)s->pmd_order, blocks);
	for (k = 1; k <= (int)s->pmd_order; k++)
		s->lh->folio[k] += blocks[k];
}

/* The end of a chunk: the last run, and the folios taken for PMD mappings. */
static void layout_finish(struct folio_scanner *s)
{
	unsigned long long g = s->lay_pmd_guess;
	int k;

	if (!s->lh)
		return;
	layout_close(s);
	for (k = 0; k <= (int)s->pmd_order; k++)
		s->lh->contig[k] -= g << (s->pmd_order - (unsigned)k);
	s->lh->folio[0] -= g << s->pmd_order;
	s->lh->pmd_maps += g;
	s->lay_pmd_guess = 0;
}

/*
 * End the THP piece. As in thpmaps, it is a complete folio when it began at
 * a head and the page after it is not a tail of the same folio; its order is
 * then log2 of its length. A PMD-mapped piece is a whole PMD-order folio.
 */
static void finish_thp(struct folio_scanner *s)
{
	struct folio_piece *p = &s->thp;
	struct folio_extent e = { 0 };

	if (!p->active)
		return;
	p->active = false;
	if (p->phantom)
		return;
	e.start = (unsigned long)(p->vfn << s->page_shift);
	e.pfn = p->pfn;
	e.pages = (unsigned long)p->n;
	e.kind = FOLIO_THP;
	e.anon = p->anon;
	e.pmd_mapped = p->pmd;
	e.partial = true;
	e.order = -1;
	if (p->head && p->n >= 2 && is_pow2(p->n) &&
	    (p->whole || !(flags_of(s, p->pfn + p->n) & KPF_COMPOUND_TAIL))) {
		e.partial = false;
		e.order = ilog2ull(p->n);
		s->last_order = e.order;
		e.aligned = !(p->vfn & (p->n - 1));
	}
	layout_folio(s, p, e.order);
	account(s, &e);
}

/* One present page: extend the current extent or start the next. */
static void add_page(struct folio_scanner *s, unsigned long long vfn, unsigned long long pfn,
		     uint64_t fl, bool pmd)
{
	enum folio_kind kind = classify(fl);
	struct folio_piece *p = &s->thp;

	if (kind == FOLIO_THP) {
		if (p->active && !(fl & KPF_COMPOUND_HEAD) && vfn == p->vfn + p->n &&
		    pfn == p->pfn + p->n) {
			p->n++;
			return;
		}
		finish_thp(s);
		flush_run(s);
		*p = (struct folio_piece){ .active = true, .head = !!(fl & KPF_COMPOUND_HEAD),
					   .anon = !!(fl & KPF_ANON), .pmd = pmd,
					   .vfn = vfn, .pfn = pfn, .n = 1 };
		return;
	}
	finish_thp(s);
	s->last_order = 0;
	if (s->run_active && s->run.kind == kind && vfn == (s->run.start >> s->page_shift) +
	    s->run.pages && s->run.anon == !!(fl & KPF_ANON)) {
		s->run.pages++;
		return;
	}
	flush_run(s);
	s->run = (struct folio_extent){ .start = (unsigned long)(vfn << s->page_shift),
					.pfn = pfn, .pages = 1, .kind = kind,
					.order = kind == FOLIO_SMALL || kind == FOLIO_KSM ? 0 : -1,
					.aligned = true, .anon = !!(fl & KPF_ANON),
					.pmd_mapped = pmd };
	s->run_active = true;
}

/*
 * Read the flags of PFNs [pfn, pfn + n) into kf[], plus the PFN after them
 * when n > 1: that one tells whether the last folio goes on (a tail) and a
 * single page needs no such answer (a folio with a head has two pages).
 */
static int read_flags(struct folio_scanner *s, unsigned long long pfn, size_t n)
{
	size_t want = n > 1 ? n + 1 : n, got;
	int err;

	err = read_full(s->kpf_fd, s->kf, want * 8, (off_t)(pfn * 8), &got);
	if (err)
		return err;
	got /= 8;
	/* PFNs past the end of memory (device memory): no struct page */
	while (got < want)
		s->kf[got++] = KPF_NOPAGE;
	s->kf_pfn = pfn;
	s->kf_len = want;
	s->after_valid = want > n;
	if (s->after_valid) {
		s->after_pfn = pfn + n;
		s->after_fl = s->kf[n];
	}
	return 0;
}

#define FOLIO_PROBE_SEG 32   /* flags read to see whether a big folio starts */
#define FOLIO_PROBE_ORDER 6  /* probing pays from folios of 64 pages */
#define FOLIO_SEG 512        /* flags read at a time, so probing can start */

/*
 * A large folio mapped by PTEs, found without reading the flags of all its
 * pages. Its head is at 'pfn', pages [pfn + 1, pfn + FOLIO_PROBE_SEG] are
 * tails (already read): the folio has more than FOLIO_PROBE_SEG pages. A
 * folio is aligned to its size in PFNs, so while the page at pfn + 2^m is a
 * tail it is a tail of this folio, and the first m where it is not gives the
 * order: one read per order instead of 2^m. Returns the order, or 0 when the
 * folio goes on past 'avail' pages (it is partial here: read page by page).
 */
static int probe_big(struct folio_scanner *s, unsigned long long pfn, unsigned long long avail,
		     uint64_t *end_fl)
{
	int m;

	for (m = ilog2ull(FOLIO_PROBE_SEG) + 1; m <= (int)s->pmd_order; m++) {
		uint64_t fl = 0;
		size_t got;

		if ((1ULL << m) > avail || (pfn & ((1ULL << m) - 1)))
			return 0;
		if (read_full(s->kpf_fd, &fl, sizeof(fl), (off_t)((pfn + (1ULL << m)) * 8), &got) ||
		    got != sizeof(fl))
			fl = 0; /* past the last PFN: nothing, not a tail */
		if (!(fl & KPF_COMPOUND_TAIL)) {
			*end_fl = fl;
			return m;
		}
	}
	return 0;
}

/* Does kf[0 .. FOLIO_PROBE_SEG] show a head followed by tails only? */
static bool starts_big(const struct folio_scanner *s)
{
	size_t k;

	if (classify(s->kf[0]) != FOLIO_THP || !(s->kf[0] & KPF_COMPOUND_HEAD))
		return false;
	for (k = 1; k <= FOLIO_PROBE_SEG; k++)
		if ((s->kf[k] & (KPF_COMPOUND_HEAD | KPF_COMPOUND_TAIL)) != KPF_COMPOUND_TAIL)
			return false;
	return true;
}

/*
 * The present entries pm[i, j) at vfn + i.. hold ascending PFNs from 'pfn'
 * to 'last' with small gaps. Read their flags in segments and walk them.
 */
static int scan_window(struct folio_scanner *s, unsigned long long vfn, size_t i, size_t j,
		       unsigned long long pfn, unsigned long long last, bool pmd)
{
	/* a run without gaps: consecutive PFNs, where a big folio can be probed */
	bool exact = last - pfn == j - i - 1;
	size_t k = i;
	int err;

	while (k < j && !s->stop) {
		unsigned long long pk = s->pm[k] & PM_PFN_MASK, plast;
		size_t seg = j - k < FOLIO_SEG ? j - k : FOLIO_SEG, q;

		/* A folio cannot go on past a break in the PFNs or a hole:
		 * end it while the flags after it are still at hand. */
		if (s->thp.active && (vfn + k != s->thp.vfn + s->thp.n ||
				      pk != s->thp.pfn + s->thp.n))
			finish_thp(s);
		if (exact && s->probe && s->last_order >= FOLIO_PROBE_ORDER &&
		    j - k > 2 * FOLIO_PROBE_SEG) {
			uint64_t end_fl = 0;
			int m;

			err = read_flags(s, pk, FOLIO_PROBE_SEG + 1); /* + the one after */
			if (err)
				return err;
			if (starts_big(s) && (m = probe_big(s, pk, j - k, &end_fl))) {
				add_page(s, vfn + k, pk, s->kf[0], pmd);
				layout_pages(s, vfn + k, pk, 1ULL << m, s->kf[0], pmd);
				s->thp.n = 1ULL << m;
				/* finish_thp() asks for the flags after the folio */
				s->after_valid = true;
				s->after_pfn = pk + (1ULL << m);
				s->after_fl = end_fl;
				k += (size_t)1 << m;
				continue;
			}
			seg = FOLIO_PROBE_SEG;
		} else {
			plast = s->pm[k + seg - 1] & PM_PFN_MASK;
			/* the same PFN again (the zero page) needs no new read */
			if (pk < s->kf_pfn || plast >= s->kf_pfn + s->kf_len) {
				err = read_flags(s, pk, (size_t)(plast - pk + 1));
				if (err)
					return err;
			}
		}
		for (q = k; q < k + seg; q++) {
			unsigned long long pq = s->pm[q] & PM_PFN_MASK;
			uint64_t fl = s->kf[pq - s->kf_pfn];

			add_page(s, vfn + q, pq, fl, pmd);
			layout_pages(s, vfn + q, pq, 1, fl, pmd);
		}
		k += seg;
	}
	return 0;
}

/* Walk [vfn, vfn + n) page by page: pagemap batch, then flags per run of
 * consecutive PFNs. */
static int scan_ptes(struct folio_scanner *s, unsigned long long vfn, unsigned long long n,
		     bool pmd)
{
	while (n && !s->stop) {
		size_t len = n < FOLIO_BATCH ? (size_t)n : FOLIO_BATCH, got, i, j;
		unsigned long long last;
		int err;

		err = pm_read(s, s->pm, len * 8, vfn, &got);
		if (err == -EFAULT)
			return 0; /* above the user address space: nothing to see */
		if (err)
			return err;
		len = got / 8;
		for (i = 0; i < len; i = j) {
			uint64_t e = s->pm[i];
			unsigned long long pfn = e & PM_PFN_MASK;

			j = i + 1;
			if (!(e & PM_PRESENT)) {
				if (e & PM_SWAP && s->h)
					s->h->swapped++;
				continue;
			}
			if (!pfn)
				return -EPERM; /* PFNs are hidden without CAP_SYS_ADMIN */
			/*
			 * One kpageflags read for a window of ascending PFNs with small
			 * gaps: the few flags read in between cost less than a system
			 * call (order-0 faults mostly get ascending PFNs).
			 */
			last = pfn;
			while (j < len && (s->pm[j] & PM_PRESENT)) {
				unsigned long long next = s->pm[j] & PM_PFN_MASK;
				if (next <= last || next > last + FOLIO_PFN_GAP ||
				    next - pfn >= FOLIO_BATCH)
					break;
				last = next;
				j++;
			}
			err = scan_window(s, vfn, i, j, pfn, last, pmd);
			if (err)
				return err;
		}
		vfn += len;
		n -= len;
	}
	return 0;
}

/*
 * A range the kernel reports PMD-mapped: one pagemap entry and one flags
 * entry per PMD instead of 512 of each. Blocks cut by the range edge go
 * page by page (their pages are partial).
 */
static int scan_pmds(struct folio_scanner *s, unsigned long long vfn, unsigned long long n)
{
	unsigned long long nr = 1ULL << s->pmd_order, end = vfn + n;

	while (vfn < end && !s->stop) {
		unsigned long long blk_end = (vfn | (nr - 1)) + 1, pfn;
		uint64_t e, fl;
		size_t got;
		int err;

		if (vfn & (nr - 1) || blk_end > end) {
			err = scan_ptes(s, vfn, (blk_end < end ? blk_end : end) - vfn, true);
			if (err)
				return err;
			vfn = blk_end < end ? blk_end : end;
			continue;
		}
		err = pm_read(s, &e, sizeof(e), vfn, &got);
		if (err)
			return err;
		if (got != sizeof(e))
			return -ESRCH;
		pfn = e & PM_PFN_MASK;
		if (!(e & PM_PRESENT) || (pfn & (nr - 1))) {
			/* changed since the ioctl looked: take it page by page */
			err = scan_ptes(s, vfn, nr, false);
			if (err)
				return err;
			vfn += nr;
			continue;
		}
		if (!pfn)
			return -EPERM;
		finish_thp(s); /* a PMD maps a folio of its own */
		err = read_flags(s, pfn, 1);
		if (err)
			return err;
		fl = s->kf[0];
		add_page(s, vfn, pfn, fl, true);
		if (classify(fl) == FOLIO_THP && (fl & KPF_COMPOUND_HEAD)) {
			s->thp.n = nr;
			s->thp.whole = true;
			layout_pmd(s);
		} else if (classify(fl) == FOLIO_THP) {
			/* a PMD maps a whole folio, so this cannot be; be exact anyway */
			layout_pages(s, vfn, pfn, 1, fl, true);
			err = scan_ptes(s, vfn + 1, nr - 1, true);
			if (err)
				return err;
			vfn += nr;
			continue;
		} else {
			layout_pages(s, vfn, pfn, nr, fl, true);
			if (s->run_active)
				s->run.pages += nr - 1;
		}
		vfn += nr;
	}
	return 0;
}

/* PAGEMAP_SCAN: the present / swapped / PMD-mapped ranges of [vfn, end). */
static int scan_regions(struct folio_scanner *s, unsigned long long vfn, unsigned long long end)
{
	struct folio_pm_scan_arg a;
	int i, nr;

	while (vfn < end && !s->stop) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.start = vfn << s->page_shift;
		a.end = end << s->page_shift;
		a.vec = (uintptr_t)s->regions;
		a.vec_len = FOLIO_NR_REGIONS;
		a.category_anyof_mask = FOLIO_PAGE_IS_PRESENT | FOLIO_PAGE_IS_SWAPPED;
		a.return_mask = FOLIO_PAGE_IS_PRESENT | FOLIO_PAGE_IS_SWAPPED | FOLIO_PAGE_IS_HUGE;
		nr = ioctl(s->pm_fd, FOLIO_PAGEMAP_SCAN, &a);
		if (nr < 0 && errno == EFAULT)
			return 0; /* beyond the user address space ([vsyscall]): nothing to see */
		if (nr < 0)
			return -errno;
		for (i = 0; i < nr && !s->stop; i++) {
			unsigned long long r0 = s->regions[i].start >> s->page_shift;
			unsigned long long r1 = s->regions[i].end >> s->page_shift;
			uint64_t c = s->regions[i].categories;
			int err;

			if ((c & FOLIO_PAGE_IS_HUGE) && (c & FOLIO_PAGE_IS_PRESENT))
				err = scan_pmds(s, r0, r1 - r0);
			else
				err = scan_ptes(s, r0, r1 - r0, false);
			if (err)
				return err;
		}
		if (a.walk_end <= (vfn << s->page_shift))
			break;
		vfn = a.walk_end >> s->page_shift;
	}
	return 0;
}

static bool scan_ioctl_works(int fd)
{
	struct folio_pm_scan_arg a;
	struct folio_page_region r;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.start = 0;
	a.end = (uint64_t)sysconf(_SC_PAGESIZE);
	a.vec = (uintptr_t)&r;
	a.vec_len = 1;
	a.category_anyof_mask = FOLIO_PAGE_IS_PRESENT;
	a.return_mask = FOLIO_PAGE_IS_PRESENT;
	return ioctl(fd, FOLIO_PAGEMAP_SCAN, &a) >= 0;
}

static int scanner_open(struct folio_scanner **out, int pid, int pm_fd, int kpf_fd)
{
	struct folio_scanner *s;
	char path[64];
	long ps = sysconf(_SC_PAGESIZE);
	int err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		if (pm_fd >= 0) {
			close(pm_fd);
			close(kpf_fd);
		}
		return -ENOMEM;
	}
	s->pm_fd = s->kpf_fd = -1;
	s->page_shift = (unsigned)ilog2ull((unsigned long long)ps);
	s->pmd_order = s->page_shift == 12 ? 9 : s->page_shift - 3; /* a page of 8-byte entries */
	{
		FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "re");
		unsigned long long sz;

		if (f) {
			if (fscanf(f, "%llu", &sz) == 1 && is_pow2(sz) && sz > (unsigned long long)ps)
				s->pmd_order = (unsigned)(ilog2ull(sz) - (int)s->page_shift);
			fclose(f);
		}
	}
	if (pm_fd >= 0) {
		/* records from elsewhere (a fuzz target, a fixture) */
		s->pm_fd = pm_fd;
		s->kpf_fd = kpf_fd;
		goto buffers;
	}
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/pagemap");
	s->pm_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->pm_fd < 0) {
		err = errno == ENOENT ? -ESRCH : -errno;
		goto out;
	}
	s->kpf_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (s->kpf_fd < 0) {
		err = -errno;
		goto out;
	}
buffers:
	s->pm = malloc(FOLIO_BATCH * sizeof(*s->pm));
	s->kf = malloc((FOLIO_BATCH + 1) * sizeof(*s->kf));
	s->regions = malloc(FOLIO_NR_REGIONS * sizeof(*s->regions));
	if (!s->pm || !s->kf || !s->regions) {
		err = -ENOMEM;
		goto out;
	}
	s->use_scan = !getenv("MTHPSCOPE_NO_PAGEMAP_SCAN") && scan_ioctl_works(s->pm_fd);
	s->probe = !getenv("MTHPSCOPE_NO_PROBE");
	*out = s;
	return 0;
out:
	folio_scanner_close(s);
	return err;
}

int folio_scanner_open(struct folio_scanner **out, int pid)
{
	return scanner_open(out, pid, -1, -1);
}

int folio_scanner_open_fds(struct folio_scanner **out, int pm_fd, int kpf_fd)
{
	if (pm_fd < 0 || kpf_fd < 0)
		return -EBADF;
	return scanner_open(out, 0, pm_fd, kpf_fd);
}

void folio_scanner_close(struct folio_scanner *s)
{
	if (!s)
		return;
	if (s->pm_fd >= 0)
		close(s->pm_fd);
	if (s->kpf_fd >= 0)
		close(s->kpf_fd);
	free(s->pm);
	free(s->kf);
	free(s->regions);
	free(s);
}

/*
 * Does the page at 'vfn' continue the folio of the page before it (both
 * present, consecutive PFNs, both of one large folio)? Then the chunk that
 * holds the page before owns it.
 */
static int begins_inside(struct folio_scanner *s, unsigned long long vfn, bool *inside,
			 unsigned long long *prev_pfn, uint64_t *prev_fl)
{
	uint64_t e[2], fl[2];
	size_t got;
	int err;

	*inside = false;
	err = pm_read(s, e, sizeof(e), vfn - 1, &got);
	if (err == -EFAULT)
		return 0; /* above the user address space */
	if (err)
		return err;
	if (got != sizeof(e))
		return -ESRCH;
	if (!(e[0] & PM_PRESENT) || !(e[1] & PM_PRESENT) ||
	    (e[1] & PM_PFN_MASK) != (e[0] & PM_PFN_MASK) + 1)
		return 0;
	*prev_pfn = e[0] & PM_PFN_MASK;
	if (!*prev_pfn)
		return -EPERM;
	err = read_full(s->kpf_fd, fl, sizeof(fl), (off_t)(*prev_pfn * 8), &got);
	if (err)
		return err;
	if (got != sizeof(fl))
		return 0;
	*prev_fl = fl[0];
	*inside = classify(fl[0]) == FOLIO_THP && classify(fl[1]) == FOLIO_THP &&
		  !(fl[1] & KPF_COMPOUND_HEAD);
	return 0;
}

/* Follow the open folio past the chunk end, up to 'hi'. */
static int follow_tail(struct folio_scanner *s, unsigned long long vfn, unsigned long long hi)
{
	struct folio_piece *p = &s->thp;

	while (p->active && !p->whole && vfn < hi && vfn == p->vfn + p->n &&
	       p->n < (1ULL << s->pmd_order)) {
		/* a folio is at most PMD-sized: read no further than that */
		unsigned long long more = (1ULL << s->pmd_order) - p->n;
		size_t len = (size_t)(hi - vfn < more ? hi - vfn : more);
		size_t got, j = 0;
		int err;

		err = read_full(s->pm_fd, s->pm, len * 8, (off_t)(vfn * 8), &got);
		if (err)
			return err;
		len = got / 8;
		while (j < len && (s->pm[j] & PM_PRESENT) &&
		       (s->pm[j] & PM_PFN_MASK) == p->pfn + p->n + j)
			j++;
		if (!j)
			break;
		err = read_flags(s, p->pfn + p->n, j);
		if (err)
			return err;
		for (size_t k = 0; k < j; k++) {
			uint64_t fl = s->kf[k];
			if (classify(fl) != FOLIO_THP || (fl & KPF_COMPOUND_HEAD))
				return 0; /* finish_thp() has the flags at hand */
			p->n++;
		}
		vfn += j;
	}
	return 0;
}

int folio_scanner_chunk(struct folio_scanner *s, unsigned long lo, unsigned long hi,
			unsigned long start, unsigned long end, struct folio_hist *h,
			folio_extent_fn fn, void *ctx)
{
	unsigned long long vfn = start >> s->page_shift, evfn = end >> s->page_shift;
	unsigned long pmask = (1UL << s->page_shift) - 1;
	unsigned long long prev_pfn = 0;
	uint64_t prev_fl = 0;
	bool inside = false;
	int err;

	if (start > end || lo > start || end > hi || (lo | hi | start | end) & pmask)
		return -EINVAL;
	s->h = h;
	s->fn = fn;
	s->ctx = ctx;
	s->stop = 0;
	s->thp.active = false;
	s->run_active = false;
	s->kf_len = 0;
	s->after_valid = false;
	s->lay_n = 0;
	s->lay_pmd_guess = 0;
	if (start > lo && start < end) {
		err = begins_inside(s, vfn, &inside, &prev_pfn, &prev_fl);
		if (err)
			return err;
		if (inside)
			s->thp = (struct folio_piece){ .active = true, .phantom = true,
						       .anon = !!(prev_fl & KPF_ANON),
						       .vfn = vfn - 1, .pfn = prev_pfn, .n = 1 };
	}
	if (s->use_scan)
		err = scan_regions(s, vfn, evfn);
	else
		err = scan_ptes(s, vfn, evfn - vfn, false);
	if (!err && !s->stop && s->thp.active && !s->thp.phantom && end < hi)
		err = follow_tail(s, evfn, hi >> s->page_shift);
	if (err)
		return err;
	finish_thp(s);
	flush_run(s);
	layout_finish(s);
	return s->stop;
}

int folio_scanner_range(struct folio_scanner *s, unsigned long start, unsigned long end,
			struct folio_hist *h, folio_extent_fn fn, void *ctx)
{
	unsigned long long present0 = h ? h->present : 0;
	int err;

	err = folio_scanner_chunk(s, start, end, start, end, h, fn, ctx);
	if (h && !err && start <= end)
		h->not_present += ((end - start) >> s->page_shift) - (h->present - present0);
	return err;
}

bool folio_scanner_pagemap_scan(const struct folio_scanner *s)
{
	return s->use_scan;
}

int folio_scanner_next_mapped(struct folio_scanner *s, unsigned long start, unsigned long end,
			      unsigned long *next)
{
	struct folio_pm_scan_arg a;
	struct folio_page_region r;
	int nr;

	*next = start;
	if (!s->use_scan || start >= end)
		return 0;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.start = start;
	a.end = end;
	a.vec = (uintptr_t)&r;
	a.vec_len = 1;
	a.max_pages = 1;
	a.category_anyof_mask = FOLIO_PAGE_IS_PRESENT | FOLIO_PAGE_IS_SWAPPED;
	a.return_mask = FOLIO_PAGE_IS_PRESENT | FOLIO_PAGE_IS_SWAPPED;
	nr = ioctl(s->pm_fd, FOLIO_PAGEMAP_SCAN, &a);
	if (nr < 0 && errno == EFAULT) {
		*next = end; /* beyond the user address space */
		return 0;
	}
	if (nr < 0)
		return -errno;
	*next = nr ? (unsigned long)r.start : end;
	return 0;
}

int folio_scanner_page(struct folio_scanner *s, unsigned long addr, struct folio_extent *e)
{
	unsigned long long vfn = addr >> s->page_shift, pfn;
	uint64_t ent = 0, fl = 0;
	size_t got;
	int err;

	memset(e, 0, sizeof(*e));
	e->start = (unsigned long)(vfn << s->page_shift);
	e->order = -1;
	if ((err = pm_read(s, &ent, sizeof(ent), vfn, &got)))
		return err;
	if (got != sizeof(ent))
		return -ESRCH;
	if (!(ent & PM_PRESENT))
		return 1; /* e->pages 0: not present */
	if (!(pfn = ent & PM_PFN_MASK))
		return -EPERM;
	if ((err = read_full(s->kpf_fd, &fl, sizeof(fl), (off_t)(pfn * 8), &got)))
		return err;
	if (got != sizeof(fl) ||
	    (fl & (KPF_NOPAGE | KPF_THP | KPF_HUGE | KPF_COMPOUND_HEAD | KPF_COMPOUND_TAIL)))
		return 0; /* part of a large folio, or no struct page: scan */
	e->pfn = pfn;
	e->pages = 1;
	e->kind = classify(fl);
	e->order = e->kind == FOLIO_SMALL || e->kind == FOLIO_KSM ? 0 : -1;
	e->aligned = true;
	e->anon = !!(fl & KPF_ANON);
	return 1;
}

int folio_scanner_layout(struct folio_scanner *s, struct layout_hist *lh)
{
	if (lh && (lh->page_shift != s->page_shift || lh->pmd_order != (int)s->pmd_order))
		return -EINVAL;
	s->lh = lh;
	return 0;
}

void folio_scanner_layout_init(const struct folio_scanner *s, struct layout_hist *lh)
{
	layout_hist_init(lh, s->page_shift, (int)s->pmd_order);
}

int folio_scan_range_layout(int pid, unsigned long start, unsigned long end, struct folio_hist *h,
			    struct layout_hist *lh)
{
	struct folio_scanner *s;
	int err;

	memset(h, 0, sizeof(*h));
	err = folio_scanner_open(&s, pid);
	if (err)
		return err;
	if (lh) {
		folio_scanner_layout_init(s, lh);
		folio_scanner_layout(s, lh);
	}
	err = folio_scanner_range(s, start, end, h, NULL, NULL);
	folio_scanner_close(s);
	return err;
}

int folio_scan_range(int pid, unsigned long start, unsigned long end, struct folio_hist *h)
{
	return folio_scan_range_layout(pid, start, end, h, NULL);
}

double folio_coverage(const struct folio_hist *h, int order, unsigned long long span_pages)
{
	if (!span_pages || order < 0 || order > FOLIO_MAX_ORDER)
		return 0.0;
	return (double)h->pages[order] / (double)span_pages;
}

int folio_strerror(int err, char *buf, size_t size)
{
	switch (-err) {
	case EPERM:
	case EACCES:
		snprintf(buf, size, "PFNs and /proc/kpageflags need root (CAP_SYS_ADMIN); without "
			 "it only smaps totals (AnonHugePages, ShmemPmdMapped, FilePmdMapped) can "
			 "be shown");
		break;
	case ENOENT:
		snprintf(buf, size, "/proc/kpageflags is missing: the kernel was built without "
			 "CONFIG_PROC_PAGE_MONITOR");
		break;
	case ESRCH:
		snprintf(buf, size, "no such process (or it exited during the scan)");
		break;
	default:
		snprintf(buf, size, "%s", strerror(-err));
		break;
	}
	return 0;
}
