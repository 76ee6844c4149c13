// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A workload for the run -- CMD tests: map N MiB of anonymous memory,
 * PMD-aligned, and write one byte in every page, then report the page
 * faults that took (its own getrusage, so other processes on the machine do
 * not count): at folio order k exactly N MiB / (page size << k).
 *
 *   helper_alloc MIB [fork] [sleep=MS] [exit=N] [pidfile=PATH] [thpoff] [nohuge]
 *                [shared] [memfd] [memfd=NAME] [knob=PATH] [free=MS]
 *
 * fork: a child allocates and the parent waits for it (inherit over the
 * tree); sleep: stay alive MS ms after touching; exit: the exit status;
 * pidfile: the allocating process writes its pid there (after touching).
 * thpoff: prctl(PR_SET_THP_DISABLE) first; nohuge: MADV_NOHUGEPAGE on the
 * mapping; shared: MAP_SHARED anonymous; memfd: a memfd mapped shared
 * (memfd=NAME: named so, a hostile name for the escape tests);
 * knob=PATH: write "never" to that THP sysfs file before touching (a
 * command that rewrites the knobs). The causes of low coverage, one each.
 * free=MS: unmap the buffer after the sleep and live MS ms more, so the
 * exit sees none of it (a program that frees its memory before it ends).
 * Prints "faults: F" and "mib_per_s: R" on stdout.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *pidfile, *knob, *memfd_name = "helper_alloc";
static int nohuge, shared, use_memfd;
static long free_ms = -1;

/* The mapping as the options say: private, shared, or a shared memfd. */
static char *map_it(size_t len)
{
	int fd = -1;
	char *p;

	if (use_memfd) {
		fd = memfd_create(memfd_name, 0);
		if (fd < 0 || ftruncate(fd, (off_t)len)) {
			perror("memfd");
			return MAP_FAILED;
		}
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 (shared || use_memfd ? MAP_SHARED : MAP_PRIVATE) | (fd < 0 ? MAP_ANONYMOUS : 0), fd,
		 0);
	if (fd >= 0)
		close(fd);
	return p;
}

static int allocate(unsigned long mib, long sleep_ms)
{
	size_t len = mib << 20, pmd = 2UL << 20, page = (size_t)sysconf(_SC_PAGESIZE);
	struct rusage a, b;
	struct timespec t0, t1;
	char *p, *base;
	size_t off;
	double s;

	p = map_it(len + pmd);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	base = (char *)(((uintptr_t)p + pmd - 1) & ~(uintptr_t)(pmd - 1));
	if (nohuge && madvise(p, len + pmd, MADV_NOHUGEPAGE))
		perror("madvise");
	if (knob) {
		FILE *k = fopen(knob, "w");

		if (!k || fputs("never", k) < 0 || fclose(k))
			perror(knob);
	}
	/* every page the measurement itself writes is faulted before it */
	getrusage(RUSAGE_SELF, &b);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_SELF, &a);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (off = 0; off < len; off += page)
		((volatile char *)base)[off] = 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_SELF, &b);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("faults: %ld\n", b.ru_minflt - a.ru_minflt);
	printf("mib_per_s: %.3f\n", s > 0 ? (double)mib / s : 0.0);
	fflush(stdout);
	if (pidfile) {
		FILE *f = fopen(pidfile, "w");

		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
	}
	if (sleep_ms > 0) {
		struct timespec ts = { sleep_ms / 1000, (sleep_ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}
	if (free_ms >= 0) {
		struct timespec ts = { free_ms / 1000, (free_ms % 1000) * 1000000L };

		munmap(p, len + pmd);
		nanosleep(&ts, NULL);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long mib;
	long sleep_ms = 0;
	int i, status = 0, fork_child = 0;

	if (argc < 2 || (mib = strtoul(argv[1], NULL, 10)) == 0) {
		fprintf(stderr, "usage: helper_alloc MIB [fork] [sleep=MS] [exit=N]\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "fork"))
			fork_child = 1;
		else if (!strncmp(argv[i], "sleep=", 6))
			sleep_ms = atol(argv[i] + 6);
		else if (!strncmp(argv[i], "exit=", 5))
			status = atoi(argv[i] + 5);
		else if (!strncmp(argv[i], "pidfile=", 8))
			pidfile = argv[i] + 8;
		else if (!strncmp(argv[i], "knob=", 5))
			knob = argv[i] + 5;
		else if (!strncmp(argv[i], "free=", 5))
			free_ms = atol(argv[i] + 5);
		else if (!strcmp(argv[i], "thpoff"))
			prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
		else if (!strcmp(argv[i], "nohuge"))
			nohuge = 1;
		else if (!strcmp(argv[i], "shared"))
			shared = 1;
		else if (!strcmp(argv[i], "memfd"))
			use_memfd = 1;
		else if (!strncmp(argv[i], "memfd=", 6))
			use_memfd = 1, memfd_name = argv[i] + 6;
	}
	if (fork_child) {
		pid_t pid = fork();
		int st;

		if (pid < 0)
			return 1;
		if (pid == 0)
			_exit(allocate(mib, sleep_ms));
		if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
		return status;
	}
	if (allocate(mib, sleep_ms))
		return 1;
	return status;
}
