// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for run --metric (src/measure/bench_metric.c): the
 * input's first line is the NAME=REGEX argument, the rest the command's
 * output, served from a memfd; parse, then extract under the PCRE2 limits.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t alen = nl ? (size_t)(nl - data) : size;
	struct bench_metric m;
	char arg[512], why[256], path[64];
	double v;
	long line;
	int fd;

	if (alen >= sizeof(arg) || memchr(data, '\0', alen))
		return 0;
	memcpy(arg, data, alen);
	arg[alen] = '\0';
	if (bench_metric_parse(arg, &m, why, sizeof(why)))
		return 0;
	fd = memfd_create("fuzz_metric", MFD_CLOEXEC);
	if (fd >= 0) {
		if (nl && write(fd, nl + 1, size - alen - 1) < 0) {
			/* nothing to match */
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		bench_metric_extract(&m, path, &v, &line);
		close(fd);
	}
	bench_metric_free(&m);
	return 0;
}
