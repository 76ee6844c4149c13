// SPDX-License-Identifier: GPL-2.0-or-later
/* Placements' page frame numbers: placement.h. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "folio.h"
#include "placement.h"

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

void placement_sort(uint64_t *pfns, size_t n)
{
	qsort(pfns, n, sizeof(*pfns), cmp_u64);
}

int placement_pfns(const void *base, size_t len, size_t page_size, uint64_t **pfns, size_t *n)
{
	size_t pages = len / page_size, i, first = *n, got = 0;
	uint64_t *e = NULL, *grown;
	ssize_t rd;
	int fd, err = 0;

	if (!pages)
		return 0;
	if ((fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	grown = realloc(*pfns, (first + pages) * sizeof(**pfns));
	e = malloc(pages * sizeof(*e));
	if (grown)
		*pfns = grown;
	if (!grown || !e) {
		err = -ENOMEM;
		goto out;
	}
	rd = pread(fd, e, pages * sizeof(*e), (off_t)((uintptr_t)base / page_size * sizeof(*e)));
	if (rd < 0) {
		err = -errno;
		goto out;
	}
	for (i = 0; i < (size_t)rd / sizeof(*e); i++)
		if ((e[i] & PM_PRESENT) && !(e[i] & PM_SWAP))
			(*pfns)[first + got++] = e[i] & PM_PFN_MASK;
	/* present pages with PFN 0 everywhere: pagemap hides them from us */
	if (got && !(*pfns)[first] && !(*pfns)[first + got - 1]) {
		err = -EPERM;
		goto out;
	}
	placement_sort(*pfns + first, got);
	*n = first + got;
out:
	free(e);
	close(fd);
	return err;
}

/* Distinct values of sorted[i] >> shift (sorted ascending: one pass). */
static uint64_t distinct_frames(const uint64_t *sorted, size_t n, int shift)
{
	uint64_t d = 0;
	size_t i;

	for (i = 0; i < n; i++)
		d += !i || (sorted[i] >> shift) != (sorted[i - 1] >> shift);
	return d;
}

void placement_summary(const uint64_t *sorted, size_t n, int pmd_order,
		       struct results_placement *p)
{
	p->pfn_min = n ? sorted[0] : 0;
	p->pfn_median = n ? sorted[n / 2] : 0;
	p->pfn_max = n ? sorted[n - 1] : 0;
	p->has_regions = n && pmd_order > 0 && pmd_order < 32;
	p->regions_pmd = p->has_regions ? distinct_frames(sorted, n, pmd_order) : 0;
	p->regions_pud = p->has_regions ? distinct_frames(sorted, n, 2 * pmd_order) : 0;
}

double placement_reused(const uint64_t *prev, size_t nprev, const uint64_t *cur, size_t ncur)
{
	size_t i = 0, j = 0, both = 0;

	if (!nprev || !ncur)
		return NAN;
	while (i < nprev && j < ncur) {
		if (prev[i] < cur[j]) {
			i++;
		} else if (prev[i] > cur[j]) {
			j++;
		} else {
			both++;
			i++;
			j++;
		}
	}
	return (double)both / (double)ncur;
}

unsigned long long placement_ballast_bytes(uint64_t seed, int rep, unsigned long long max,
					   unsigned long long align)
{
	/* 1/phi: the additive recurrence that fills [0, 1) most evenly */
	double u = (double)(seed % 1000003u) / 1000003.0 + 0.6180339887498949 * (double)rep;
	unsigned long long b;

	u -= floor(u);
	b = (unsigned long long)(u * (double)max);
	return align ? b / align * align : b;
}
