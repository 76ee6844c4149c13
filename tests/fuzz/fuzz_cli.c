// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the command-line layer: the input, split at NUL
 * bytes, is an argv parsed by cli_parse_mixed against a table with every
 * type of row (flag, integer of each width, number, size, words with
 * aliases, orders, strings, paths, outputs, a callback, the --format/--json
 * pair, short and long-only), each value going through the typed store.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "folio_types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_opts {
	unsigned long long span;
	long reps;
	int precise;
	double threshold;
	bool json_flag, cleared, have_reps;
	int format, mode;
	struct folio_orders orders;
	const char *name, *event, *path, *out, *dir;
	int calls;
};

static const char *const words[] = { "text", "markdown", "json", NULL };
static const char *const aliases[] = { "md", "markdown", NULL };
static const char *const modes[] = { "one", "two", NULL };
static const int mode_vals[] = { 7, 9 };

static int cb(const struct cli_cmd *cmd, const char *arg, void *field)
{
	struct fuzz_opts *o = field;

	(void)cmd;
	if (!arg)
		abort(); /* a value option always has its value */
	o->calls++;
	return *arg == 'x' ? -1 : 0;
}

#define F(m) CLI_AT(struct fuzz_opts, m)

static const struct cli_opt opts[] = {
	{ "span", 's', "SIZE", "a size", .type = CLI_SIZE, F(span), .imin = 1 },
	{ "reps", 'r', "N", "an integer", .type = CLI_INT, F(reps), .imin = 1, .imax = 1000,
	  CLI_GIVEN(struct fuzz_opts, have_reps) },
	{ "precise", 0, "N", "an int", .type = CLI_INT, F(precise), .imin = 0, .imax = 3 },
	{ "threshold", 't', "PCT", "a number", .type = CLI_DOUBLE, F(threshold), .dmin = 0.1,
	  .dmax = 90, .div = 100 },
	CLI_FORMAT_ROWS(struct fuzz_opts, format, 'f', words, NULL, "a format",
			.aliases = aliases),
	{ "mode", 'm', "MODE", "words with values", CLI_ROW_WORD(struct fuzz_opts, mode, modes),
	  .vals = mode_vals },
	{ "flag", 'F', NULL, "a flag", .type = CLI_FLAG, F(json_flag) },
	{ "no-flag", 0, NULL, "a flag off", .type = CLI_CLEAR, F(cleared) },
	{ "orders", 'O', "LIST", "orders", .type = CLI_ORDERS, F(orders) },
	{ "name", 0, "NAME", "a string", .type = CLI_STRING, F(name) },
	{ "event", 'e', "NAME", "a string not empty", .type = CLI_STRING, F(event), .imin = 1 },
	{ "input", 'i', "FILE", "a path", .type = CLI_PATH, F(path) },
	{ "output", 'o', "FILE", "an output", .type = CLI_OUTPUT_FILE, F(out) },
	{ "plot", 0, "DIR", "long only", .type = CLI_OUTPUT_DIR, F(dir) },
	{ "plot-format", 0, "FMT", "long only, a prefix of another",
	  CLI_ROW_CB_ALL(struct fuzz_opts, cb) },
	CLI_END,
};

static const struct cli_cmd cmd = {
	.name = "fuzz", .args = "FILE...", .summary = "fuzz", .opts = opts,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_opts o = { .format = 0 };
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
	n = cli_parse_mixed(&cmd, argc, argv, &o, pos, 64);
	for (i = 0; i < n; i++)
		if (!pos[i])
			abort();
	if (n >= 0 && (o.orders.nr > FOLIO_MAX_ORDER + 1 || (o.have_reps && !o.reps) ||
		       (o.format != 0 && o.format != 1 && o.format != 2) ||
		       (o.mode != 0 && o.mode != 7 && o.mode != 9)))
		abort();
	free(buf);
	return 0;
}
