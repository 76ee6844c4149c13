// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Benchmark helper for scripts/bench-scan.sh (not a test): build a process
 * with GIB GiB of anonymous memory, a quarter each faulted at folio orders
 * 0, 2, 4 and 9 (PMD), print "ready PID" and wait until stdin closes.
 * The THP knobs go through the thp module and are restored before "ready".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "thp.h"

#define PMD (2UL << 20)

static char *fault_at(const struct thp_settings *s, int order, size_t size)
{
	char *raw, *p;
	size_t off;
	int err;

	err = thp_set_only_order(s, order);
	if (err) {
		char msg[256];
		thp_strerror(err, msg, sizeof(msg));
		fprintf(stderr, "bench-scan: cannot enable order %d: %s\n", order, msg);
		return NULL;
	}
	/* PROT_NONE fences keep each order in a VMA of its own */
	raw = mmap(NULL, size + 2 * PMD, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)raw + PMD) & ~(PMD - 1));
	if (mprotect(p, size, PROT_READ | PROT_WRITE))
		return NULL;
	madvise(p, size, MADV_HUGEPAGE);
	for (off = 0; off < size; off += 4096)
		p[off] = 1;
	/* no khugepaged collapse while the benchmark runs */
	madvise(p, size, MADV_NOHUGEPAGE);
	return p;
}

int main(int argc, char **argv)
{
	static const int orders[] = { 0, 2, 4, 9 };
	double gib = argc > 1 ? atof(argv[1]) : 4.0;
	size_t part = (size_t)(gib * (double)(1UL << 30) / 4) & ~(PMD - 1);
	struct thp_settings s;
	char c;
	size_t i;

	if (thp_read(&s)) {
		fprintf(stderr, "bench-scan: no THP sysfs\n");
		return 3;
	}
	for (i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		if (!fault_at(&s, orders[i], part)) {
			thp_restore();
			return 1;
		}
	}
	thp_restore();
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
