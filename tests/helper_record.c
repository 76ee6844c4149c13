// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The workload of the record tests: two anonymous mappings of MIB MiB each,
 * 2 MiB-aligned and fenced into VMAs of their own: 'small' with
 * MADV_NOHUGEPAGE (order 0 whatever the knobs), 'large' with MADV_HUGEPAGE
 * (the order the knobs allow), each page written once. Prints their
 * addresses on stdout ("small 0x... large 0x...").
 *
 *   helper_record [mib=N] [spin=MS] [exit=N] [pidfile=PATH]
 *
 * spin: then, for MS ms, map, touch and unmap 1 MiB over and over (page
 * faults for record --pid), and print "spun N" at the end; exit: the exit
 * status; pidfile: written once the mappings are touched.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PMD (2UL << 20)

static char *map_fenced(size_t len, int advice)
{
	char *raw = mmap(NULL, len + 2 * PMD, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p;

	if (raw == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)raw + PMD) & ~(uintptr_t)(PMD - 1));
	if (mprotect(p, len, PROT_READ | PROT_WRITE) || madvise(p, len, advice))
		return NULL;
	return p;
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	unsigned long mib = 64, spin = 0, spun = 0;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), off, len;
	const char *pidfile = NULL;
	int status = 0, i;
	char *small, *large;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "mib=", 4))
			mib = strtoul(argv[i] + 4, NULL, 10);
		else if (!strncmp(argv[i], "spin=", 5))
			spin = strtoul(argv[i] + 5, NULL, 10);
		else if (!strncmp(argv[i], "exit=", 5))
			status = atoi(argv[i] + 5);
		else if (!strncmp(argv[i], "pidfile=", 8))
			pidfile = argv[i] + 8;
	}
	len = mib << 20;
	small = map_fenced(len, MADV_NOHUGEPAGE);
	large = map_fenced(len, MADV_HUGEPAGE);
	if (!small || !large) {
		perror("helper_record: mmap");
		return 100;
	}
	for (off = 0; off < len; off += page) {
		small[off] = 1;
		large[off] = 1;
	}
	printf("small %p large %p\n", (void *)small, (void *)large);
	fflush(stdout);
	if (pidfile) {
		FILE *f = fopen(pidfile, "w");

		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
	}
	for (double end = now_ms() + (double)spin; spin && now_ms() < end; spun++) {
		char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED)
			return 101;
		for (off = 0; off < (1 << 20); off += page)
			p[off] = 1;
		munmap(p, 1 << 20);
	}
	if (spin)
		printf("spun %lu\n", spun);
	return status;
}
