// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The workload of the record tests: two anonymous mappings of MIB MiB each,
 * 2 MiB-aligned and fenced into VMAs of their own: 'small' with
 * MADV_NOHUGEPAGE (order 0 whatever the knobs), 'large' with MADV_HUGEPAGE
 * (the order the knobs allow), each page written once. Prints their
 * addresses on stdout ("small 0x... large 0x...").
 *
 *   helper_record [mib=N] [spin=MS [churn=1]] [exit=N] [pidfile=PATH] [nothp=1] [thread=1|2|3]
 *                 [heap=N] [stack=N] [remap=1] [split=1] [vanish=1] [vsyscall=1]
 *                 [burst=N]
 *
 * spin: then, for MS ms, map, touch and unmap 1 MiB over and over (page
 * faults for record --pid), and print "spun N" at the end; churn: each time
 * also fault 'small' again (MADV_DONTNEED), a large VMA sampled; exit: the
 * exit status; pidfile: written once the mappings are touched. The record
 * tests of VMAs that change under the sampler (each page then faults
 * exactly once): nothp: no THP in this process (PR_SET_THP_DISABLE), every
 * fault one page; thread: first start a thread and join it (a thread's exit
 * is not the process's), thread=2 also one that sleeps until the process
 * exits (its leader stops at its exit first), thread=3 the leader ends
 * (pthread_exit) and a thread does the rest; heap: then grow the heap by N
 * steps of 1 MiB, each touched ("heap START END"); stack: then recurse N KiB
 * deep, a page a frame ("stack DEPTH"); remap: then map 4 MiB at X, touch
 * it, unmap it, map 8 MiB at X and touch it, 100 ms apart so that a drain
 * sees each ("remap X"); split: then a 2 MiB window of two VMAs, 16
 * anonymous pages touched first and a memfd ("hot") over the rest touched
 * after them ("split X"); vanish: then 8 MiB at X, half touched, 100 ms,
 * the rest touched and all unmapped at once ("vanish X"); vsyscall: 20
 * calls of the legacy vsyscall time() between 'small' and 'large' (x86-64;
 * each a page fault above the user address space, emulated); burst: once
 * the pidfile is written, 700 ms (a record --pid attaches), then N threads
 * one after another, each writing 8 pages of a VMA of N * 16 pages and
 * starting a thread that writes the next 8 ("burst X"), then the spin.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
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

static void *thread_main(void *arg)
{
	if (arg)
		pause();
	return NULL;
}

static void touch(char *p, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), off;

	for (off = 0; off < len; off += page)
		p[off] = 1;
}

static int grow_heap(unsigned long steps)
{
	char *start = sbrk(0), *p;

	for (unsigned long i = 0; i < steps; i++) {
		p = sbrk(1 << 20);
		if (p == (void *)-1)
			return -1;
		touch(p, 1 << 20);
		usleep(30000); /* a drain between the steps */
	}
	printf("heap %p %p\n", (void *)start, sbrk(0));
	return 0;
}

/* One page of stack a frame, each written once. */
static unsigned long recurse(unsigned long n)
{
	volatile char frame[4096 - 256];

	frame[0] = (char)n;
	frame[sizeof(frame) - 1] = (char)n;
	if (!n)
		return (unsigned char)frame[sizeof(frame) - 1];
	return recurse(n - 1) + (unsigned char)frame[0];
}

static int remap(void)
{
	size_t four = 4UL << 20, eight = 8UL << 20;
	char *x = map_fenced(eight, MADV_NOHUGEPAGE), *y;

	if (!x || munmap(x + four, eight - four))
		return -1;
	touch(x, four);
	usleep(100000);
	munmap(x, four);
	usleep(100000);
	y = mmap(x, eight, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (y != x || madvise(y, eight, MADV_NOHUGEPAGE))
		return -1;
	touch(y, eight);
	usleep(100000);
	printf("remap %p\n", (void *)x);
	return 0;
}

/* 8 MiB at X: the first half touched, a drain's time, then the second half
 * touched and the whole unmapped at once: samples looked up after their
 * VMA is gone. */
static int vanish(void)
{
	size_t half = 4UL << 20;
	char *x = map_fenced(2 * half, MADV_NOHUGEPAGE);

	if (!x)
		return -1;
	touch(x, half);
	usleep(100000);
	touch(x + half, half);
	munmap(x, 2 * half);
	usleep(100000);
	printf("vanish %p\n", (void *)x);
	return 0;
}

static int split(void)
{
	size_t head = 16 * (size_t)sysconf(_SC_PAGESIZE);
	char *w = map_fenced(PMD, MADV_NOHUGEPAGE);
	int fd = memfd_create("hot", MFD_CLOEXEC);

	if (!w || fd < 0 || ftruncate(fd, (off_t)(PMD - head)) ||
	    mmap(w + head, PMD - head, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
		    MAP_FAILED)
		return -1;
	touch(w, head);
	usleep(50000); /* a drain: the anonymous pages are sampled first */
	touch(w + head, PMD - head);
	printf("split %p\n", (void *)w);
	return 0;
}

/* burst: a thread writes its 8 pages; one of the first level starts a
 * second to write the next 8 */
struct burst_arg {
	char *p;
	int level;
};

static void *burst_main(void *arg)
{
	struct burst_arg *a = arg, next = { a->p + 8 * sysconf(_SC_PAGESIZE), 2 };
	pthread_t t;

	touch(a->p, 8 * (size_t)sysconf(_SC_PAGESIZE));
	if (a->level == 1 && (pthread_create(&t, NULL, burst_main, &next) || pthread_join(t, NULL)))
		return (void *)1;
	return NULL;
}

static int burst(unsigned long n)
{
	size_t block = 16 * (size_t)sysconf(_SC_PAGESIZE);
	char *x = map_fenced(n * block, MADV_NOHUGEPAGE);
	void *ret;

	if (!x)
		return -1;
	usleep(700000);
	for (unsigned long i = 0; i < n; i++) {
		struct burst_arg a = { x + i * block, 1 };
		pthread_t t;

		if (pthread_create(&t, NULL, burst_main, &a) || pthread_join(t, &ret) || ret)
			return -1;
	}
	printf("burst %p\n", (void *)x);
	fflush(stdout);
	return 0;
}

static int main_argc;
static char **main_argv;

static int call_vsyscall(int n)
{
#ifdef __x86_64__
	long (*t)(long *) = (long (*)(long *))0xffffffffff600400UL;

	while (n--)
		t(NULL);
	return 0;
#else
	(void)n;
	return -1;
#endif
}
static bool in_worker;

int main(int argc, char **argv);

/* thread=3: the rest of main, once the leader has gone */
static void *worker_main(void *arg)
{
	(void)arg;
	usleep(50000);
	in_worker = true;
	exit(main(main_argc, main_argv));
}

int main(int argc, char **argv)
{
	unsigned long heap = 0, stack = 0;
	unsigned long thread = 0;
	bool again = false, churn = false, two = false, gone = false, vsys = false;
	unsigned long mib = 64, spin = 0, spun = 0, bursts = 0;
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
		else if (!strcmp(argv[i], "nothp=1"))
			prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
		else if (!strncmp(argv[i], "thread=", 7))
			thread = strtoul(argv[i] + 7, NULL, 10);
		else if (!strncmp(argv[i], "heap=", 5))
			heap = strtoul(argv[i] + 5, NULL, 10);
		else if (!strncmp(argv[i], "stack=", 6))
			stack = strtoul(argv[i] + 6, NULL, 10);
		else if (!strcmp(argv[i], "remap=1"))
			again = true;
		else if (!strcmp(argv[i], "churn=1"))
			churn = true;
		else if (!strcmp(argv[i], "split=1"))
			two = true;
		else if (!strcmp(argv[i], "vanish=1"))
			gone = true;
		else if (!strcmp(argv[i], "vsyscall=1"))
			vsys = true;
		else if (!strncmp(argv[i], "burst=", 6))
			bursts = strtoul(argv[i] + 6, NULL, 10);
	}
	if (thread == 3 && !in_worker) {
		pthread_t t;

		main_argc = argc;
		main_argv = argv;
		if (pthread_create(&t, NULL, worker_main, NULL))
			return 102;
		pthread_exit(NULL);
	}
	if (thread && thread < 3) {
		pthread_t t;

		if (pthread_create(&t, NULL, thread_main, NULL) || pthread_join(t, NULL))
			return 102;
		if (thread > 1 && pthread_create(&t, NULL, thread_main, argv))
			return 102;
	}
	len = mib << 20;
	small = map_fenced(len, MADV_NOHUGEPAGE);
	large = map_fenced(len, MADV_HUGEPAGE);
	if (!small || !large) {
		perror("helper_record: mmap");
		return 100;
	}
	if (vsys) {
		for (off = 0; off < len; off += page)
			small[off] = 1;
		if (call_vsyscall(20))
			return 103;
		for (off = 0; off < len; off += page)
			large[off] = 1;
	}
	for (off = 0; !vsys && off < len; off += page) {
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
	if (bursts && burst(bursts))
		return 104;
	for (double end = now_ms() + (double)spin; spin && now_ms() < end; spun++) {
		char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED)
			return 101;
		if (churn) {
			madvise(small, len, MADV_DONTNEED);
			touch(small, len);
		}
		for (off = 0; off < (1 << 20); off += page)
			p[off] = 1;
		munmap(p, 1 << 20);
	}
	if (spin)
		printf("spun %lu\n", spun);
	if ((heap && grow_heap(heap)) || (again && remap()) || (two && split()) ||
	    (gone && vanish()))
		return 103;
	if (stack)
		printf("stack %lu %lu\n", stack, recurse(stack / 4) & 1);
	return status;
}
