// SPDX-License-Identifier: GPL-2.0-or-later
/* record --pid's busy target: N threads map, touch and unmap 1 MiB in a loop for S seconds. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>
static int secs;
static void *run(void *a)
{
	time_t end = time(NULL) + secs;
	(void)a;
	while (time(NULL) < end) {
		char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		for (int i = 0; i < (1 << 20); i += 4096)
			p[i] = 1;
		munmap(p, 1 << 20);
	}
	return NULL;
}
int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s THREADS SECONDS\n", argv[0]);
		return 2;
	}
	int n = atoi(argv[1]);
	secs = atoi(argv[2]);
	pthread_t *t = calloc(n, sizeof(*t));
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, run, NULL);
	printf("%d\n", getpid());
	fflush(stdout);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
