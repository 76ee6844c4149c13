// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A workload for the run -- CMD tests: map N MiB of anonymous memory,
 * PMD-aligned, and write one byte in every page, then report the page
 * faults that took (its own getrusage, so other processes on the machine do
 * not count): at folio order k exactly N MiB / (page size << k).
 *
 *   helper_alloc MIB [fork] [sleep=MS] [exit=N] [pidfile=PATH]
 *
 * fork: a child allocates and the parent waits for it (inherit over the
 * tree); sleep: stay alive MS ms after touching; exit: the exit status;
 * pidfile: the allocating process writes its pid there (after touching).
 * Prints "faults: F" and "mib_per_s: R" on stdout.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *pidfile;

static int allocate(unsigned long mib, long sleep_ms)
{
	size_t len = mib << 20, pmd = 2UL << 20, page = (size_t)sysconf(_SC_PAGESIZE);
	struct rusage a, b;
	struct timespec t0, t1;
	char *p, *base;
	size_t off;
	double s;

	p = mmap(NULL, len + pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	base = (char *)(((uintptr_t)p + pmd - 1) & ~(uintptr_t)(pmd - 1));
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
