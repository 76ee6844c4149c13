/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The seeded hole pattern of 'collapse' (the spans it faults) and of
 * 'collapse --replay' (the same span replayed by a policy model): pure
 * computation, so that the model replays exactly the pages the kernel was
 * given (src/measure/collapse.c faults them; src/analysis/replay.c reads
 * them).
 */
#ifndef COLLAPSE_PATTERN_H
#define COLLAPSE_PATTERN_H

#include <stddef.h>
#include <stdint.h>

/*
 * present[i] = 1 for the pages to fault, 0 for holes: in each PMD-sized
 * range of pmd_pages, round(fill * pmd_pages) pages present, the holes of
 * log-uniform lengths from 1 page to the whole range, placed at seeded
 * random cut points (the same seed gives the same pattern).
 */
void collapse_pattern(uint64_t seed, double fill, size_t span_pages, unsigned pmd_pages,
		      unsigned char *present);

#endif
