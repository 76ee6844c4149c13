// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the command-line layer: the input, split at NUL
 * bytes, is an argv parsed by cli_parse_mixed against a table with every
 * kind of option (flag, short and long with values, long-only), each value
 * going through the value parsers (size, integer, number).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct cli_opt opts[] = {
	{ "span", 's', "SIZE", "a size" },
	{ "reps", 'r', "N", "an integer" },
	{ "threshold", 't', "PCT", "a number" },
	{ "json", 'j', NULL, "a flag" },
	{ "plot", 256, "DIR", "long only" },
	{ "plot-format", 257, "FMT", "long only, a prefix of another" },
	{ NULL },
};

static const struct cli_cmd cmd = {
	.name = "fuzz", .args = "FILE...", .summary = "fuzz", .opts = opts,
};

static int on_opt(int key, const char *arg, void *ctx)
{
	unsigned long long sz;
	double d;
	long l;

	(void)ctx;
	switch (key) {
	case 's':
		return cli_parse_size_min("span", arg, 1, &sz);
	case 'r':
		return cli_parse_long("reps", arg, 1, 1000, &l);
	case 't':
		return cli_parse_double("threshold", arg, 0.1, 90, &d);
	case 256:
	case 257:
		if (!arg)
			abort(); /* a value option always has its value */
		return 0;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[66];
	const char *pos[64];
	int argc = 1, n, i;
	size_t k;

	if (size > 4096)
		return 0;
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[0] = "fuzz";
	argv[argc++] = buf;
	for (k = 0; k < size && argc < 65; k++)
		if (!buf[k])
			argv[argc++] = buf + k + 1;
	argv[argc] = NULL;
	n = cli_parse_mixed(&cmd, argc, argv, on_opt, NULL, pos, 64);
	for (i = 0; i < n; i++)
		if (!pos[i])
			abort();
	free(buf);
	return 0;
}
