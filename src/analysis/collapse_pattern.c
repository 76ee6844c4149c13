// SPDX-License-Identifier: GPL-2.0-or-later
/* The seeded hole pattern (collapse_pattern.h). */
#include "collapse_pattern.h"

#include <math.h>
#include <stdlib.h>

#include "stats.h"

static unsigned rng_below(uint64_t *s, unsigned n)
{
	return n ? (unsigned)(stats_splitmix64(s) % n) : 0;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

void collapse_pattern(uint64_t seed, double fill, size_t span_pages, unsigned pmd_pages,
		      unsigned char *present)
{
	/* At most pmd_pages hole runs and as many cut points per PMD; the
	 * largest PMD (64K pages on arm64) has 8192 pages. */
	static unsigned holes[8192], cuts[8192 + 1];
	unsigned present_per_pmd, holes_per_pmd, max_scale = 0;
	uint64_t st = seed;
	size_t pmd, nr_pmds = span_pages / pmd_pages;

	if (pmd_pages > 8192)
		pmd_pages = 8192;
	while ((1u << (max_scale + 1)) <= pmd_pages)
		max_scale++;
	present_per_pmd = (unsigned)lround(fill * pmd_pages);
	if (present_per_pmd > pmd_pages)
		present_per_pmd = pmd_pages;
	holes_per_pmd = pmd_pages - present_per_pmd;
	for (pmd = 0; pmd < nr_pmds; pmd++) {
		unsigned char *p = present + pmd * pmd_pages;
		unsigned m = 0, rem = holes_per_pmd, i, j, prev, pos = 0;

		/* Hole lengths log-uniform over 1 .. pmd_pages: every scale
		 * from a single PTE to a whole mTHP-sized range occurs. */
		while (rem) {
			unsigned scale = rng_below(&st, max_scale + 1);
			unsigned len = (1u << scale) + rng_below(&st, 1u << scale);

			if (len > rem)
				len = rem;
			holes[m++] = len;
			rem -= len;
		}
		/* Present pages split into m + 1 runs around the holes. */
		for (i = 0; i < m; i++)
			cuts[i] = rng_below(&st, present_per_pmd + 1);
		qsort(cuts, m, sizeof(cuts[0]), cmp_uint);
		cuts[m] = present_per_pmd;
		prev = 0;
		for (i = 0; i <= m; i++) {
			unsigned run = cuts[i] - prev;

			prev = cuts[i];
			for (j = 0; j < run; j++)
				p[pos++] = 1;
			if (i < m)
				for (j = 0; j < holes[i]; j++)
					p[pos++] = 0;
		}
	}
}

