// SPDX-License-Identifier: GPL-2.0-or-later
#include "buffer.h"
#include "counters.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/*
 * Write one byte in every 'step'-th page. Not instrumented by ASan: its shadow
 * check on each store would fault the shadow pages in (one per 32 KiB of the
 * span) and the fault count of the span would be off under the sanitizer
 * build the tests run in.
 */
__attribute__((no_sanitize_address)) static void touch_pages(char *base, size_t span,
							     size_t stride)
{
	volatile char *p;
	size_t off;

	for (off = 0; off < span; off += stride) {
		p = base + off;
		*p = 1;
	}
}

int buffer_set_order(const struct thp_settings *s, int order)
{
	return thp_set_only_order(s, order);
}

int buffer_map(struct buf *b, const struct thp_settings *s, int order, size_t span)
{
	uintptr_t start;
	char *p;

	memset(b, 0, sizeof(*b));
	b->page_size = (size_t)sysconf(_SC_PAGESIZE);
	b->pmd_size = s->pmd_size ? s->pmd_size : 2UL << 20;
	if (!span || span % b->pmd_size)
		return -EINVAL;
	if (order && (!thp_size_by_order(s, order) || !thp_size_by_order(s, order)->anon))
		return -EINVAL;
	/* Over-map by one PMD and trim, so the span starts on a PMD boundary:
	 * a folio of any order up to the PMD's is then naturally aligned. */
	b->map_len = span + b->pmd_size;
	p = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	b->map = p;
	start = ((uintptr_t)p + b->pmd_size - 1) & ~((uintptr_t)b->pmd_size - 1);
	b->base = (char *)start;
	b->span = span;
	b->order = order;
	/* MADV_HUGEPAGE also makes defrag=madvise compact for us, which is
	 * what lets the high orders succeed on a fragmented machine;
	 * MADV_NOHUGEPAGE keeps khugepaged off an order-0 span. */
	if (madvise(b->base, span, order ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) < 0) {
		int err = -errno;
		buffer_unmap(b);
		return err;
	}
	return 0;
}

int buffer_size_stats(int order, unsigned long long *alloc, unsigned long long *fallback)
{
	struct thp_settings s;
	const struct thp_size *z;
	bool found_a, found_f;
	int err;

	if ((err = thp_read(&s)))
		return err;
	z = thp_size_by_order(&s, order);
	if (!z)
		return -ENOENT;
	*alloc = thp_size_stat(z, "anon_fault_alloc", &found_a);
	*fallback = thp_size_stat(z, "anon_fault_fallback", &found_f);
	return found_a && found_f ? 0 : -ENOENT;
}

int buffer_populate(struct buf *b, struct counters_set *faults)
{
	int err;

	unsigned long long a0 = 0, f0 = 0, a1 = 0, f1 = 0, t0;

	b->have_size_stats = b->order && !buffer_size_stats(b->order, &a0, &f0);
	/* the counter brackets the touching only: reading the stats above
	 * faults pages of its own */
	if (faults && (err = counters_set_enable(faults)))
		return err;
	t0 = now_ns();
	touch_pages(b->base, b->span, b->page_size);
	b->populate_ns = now_ns() - t0;
	if (faults && (err = counters_set_disable(faults)))
		return err;
	if (b->have_size_stats && !buffer_size_stats(b->order, &a1, &f1)) {
		b->fault_alloc = a1 - a0;
		b->fault_fallback = f1 - f0;
	} else {
		b->have_size_stats = false;
	}
	return 0;
}

int buffer_populate_sparse(struct buf *b, unsigned long k, unsigned long long *rss_bytes)
{
	size_t npages = b->span / b->page_size, i, resident = 0;
	unsigned char *vec;

	if (!k)
		return -EINVAL;
	touch_pages(b->base, b->span, k * b->page_size);
	vec = malloc(npages);
	if (!vec)
		return -ENOMEM;
	if (mincore(b->base, b->span, vec) < 0) {
		int err = -errno;
		free(vec);
		return err;
	}
	for (i = 0; i < npages; i++)
		resident += vec[i] & 1;
	free(vec);
	*rss_bytes = (unsigned long long)resident * b->page_size;
	return 0;
}

int buffer_verify(const struct buf *b, struct folio_hist *h, struct layout_hist *lh,
	       double *coverage)
{
	int err;

	err = folio_scan_range_layout(0, (unsigned long)b->base, (unsigned long)(b->base + b->span),
				      h, lh);
	if (err)
		return err;
	*coverage = folio_coverage(h, b->order, b->span / b->page_size);
	return 0;
}

int buffer_split_pmd(struct buf *b)
{
	size_t off;

	if (!b->base || !b->pmd_size || !b->page_size)
		return -EINVAL;
	for (off = 0; off + b->pmd_size <= b->span; off += b->pmd_size) {
		if (mprotect(b->base + off, b->page_size, PROT_READ))
			return -errno;
		if (mprotect(b->base + off, b->page_size, PROT_READ | PROT_WRITE))
			return -errno;
	}
	return 0;
}

void buffer_unmap(struct buf *b)
{
	if (b->map)
		munmap(b->map, b->map_len);
	b->map = NULL;
	b->base = NULL;
}
