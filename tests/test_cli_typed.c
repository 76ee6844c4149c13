// SPDX-License-Identifier: GPL-2.0-or-later
/* The typed option rows of src/cmd/cli.h: each type stores into its field,
 * defaults stay where nothing is given, bad values are usage errors, and
 * every command's table passes the row check (any host). */
#include <limits.h>
#include <errno.h>

#include "harness.h"
#include "cli.h"
#include "commands.h"
#include "folio_types.h"

struct t_opts {
	int i;
	unsigned u;
	long l;
	unsigned long long ull, size;
	double pct;
	bool flag, on, have_l;
	int word, format;
	struct folio_orders orders;
	const char *s, *out;
};

static const char *const words[] = { "low", "high", NULL };
static const int word_vals[] = { 10, 20 };
static const char *const formats[] = { "text", "markdown", "json", NULL };
static const char *const aliases[] = { "md", "markdown", NULL };

#define T(m) CLI_AT(struct t_opts, m)

static const struct cli_opt rows[] = {
	{ "int", 'i', "N", "", .type = CLI_INT, T(i), .imin = -5, .imax = 5 },
	{ "uns", 0, "N", "", .type = CLI_INT, T(u), .imin = 0, .imax = 100 },
	{ "long", 'l', "N", "", .type = CLI_INT, T(l), .imin = 1, .imax = LONG_MAX,
	  CLI_GIVEN(struct t_opts, have_l) },
	{ "ull", 0, "N", "", .type = CLI_INT, T(ull), .imin = 0, .imax = LONG_MAX },
	{ "size", 0, "SIZE", "", .type = CLI_SIZE, T(size), .imin = 4096 },
	{ "pct", 0, "PCT", "", .type = CLI_DOUBLE, T(pct), .dmin = 0, .dmax = 100, .div = 100 },
	{ "flag", 0, NULL, "", .type = CLI_FLAG, T(flag) },
	{ "no-on", 0, NULL, "", .type = CLI_CLEAR, T(on) },
	{ "word", 'w', "W", "", CLI_ROW_WORD(struct t_opts, word, words), .vals = word_vals },
	CLI_FORMAT_ROWS(struct t_opts, format, 'f', formats, NULL, "", .aliases = aliases),
	{ "orders", 0, "LIST", "", .type = CLI_ORDERS, T(orders) },
	{ "str", 0, "S", "", .type = CLI_STRING, T(s) },
	{ "output", 'o', "FILE", "", .type = CLI_OUTPUT_FILE, T(out) },
	CLI_END,
};

static const struct cli_cmd cmd = { .name = "t", .summary = "t", .opts = rows };

static int parse(struct t_opts *o, char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	return cli_parse(&cmd, argc, argv, o);
}

TEST(stores_each_type)
{
	struct t_opts o = { .on = true, .word = 10 };
	char *argv[] = { "t", "-i", "-5", "--uns", "7", "-l", "99", "--ull", "123456789012",
			 "--size", "64K", "--pct", "50", "--flag", "--no-on", "-w", "high",
			 "--format", "md", "--orders", "4,2-3,2", "--str", "", "-o", "-", NULL };

	ASSERT_EQ(parse(&o, argv), 25);
	EXPECT_EQ(o.i, -5);
	EXPECT_EQ(o.u, 7u);
	EXPECT_EQ(o.l, 99);
	EXPECT_TRUE(o.have_l);
	EXPECT_EQ(o.ull, 123456789012ULL);
	EXPECT_EQ(o.size, 65536ULL);
	EXPECT_NEAR(o.pct, 0.5, 1e-15);
	EXPECT_TRUE(o.flag && !o.on);
	EXPECT_EQ(o.word, 20);
	EXPECT_EQ(o.format, 1);
	ASSERT_EQ((int)o.orders.nr, 3);
	EXPECT_EQ(o.orders.order[0], 4);
	EXPECT_EQ(o.orders.order[2], 3);
	EXPECT_EQ(folio_orders_mask(&o.orders), 0x1cUL);
	EXPECT_STREQ(o.s, "");
	EXPECT_STREQ(o.out, "-");
}

TEST(defaults_and_json_alias)
{
	struct t_opts o = { .l = 42, .word = 10, .orders = { .all = true } };
	char *argv[] = { "t", "-j", "rest", NULL };

	ASSERT_EQ(parse(&o, argv), 2);
	EXPECT_EQ(o.l, 42);
	EXPECT_TRUE(!o.have_l);
	EXPECT_EQ(o.word, 10);
	EXPECT_EQ(o.format, CLI_FORMAT_JSON);
	EXPECT_TRUE(o.orders.all && !o.orders.nr);
}

TEST(bad_values_are_usage_errors)
{
	static char *bad[][3] = {
		{ "-i", "6" }, { "--uns", "-1" }, { "-l", "0" }, { "--size", "4095" },
		{ "--size", "1Q" }, { "--pct", "nan" }, { "-w", "middle" }, { "--format", "yaml" },
		{ "--orders", "21" }, { "--orders", "3-1" }, { "--orders", "" }, { "-o", "" },
		{ "--int", "0x" },
	};
	size_t k;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		struct t_opts o = { 0 };
		char *argv[] = { "t", bad[k][0], bad[k][1], NULL };

		EXPECT_EQ(parse(&o, argv), CLI_USAGE);
	}
}

TEST(orders_parser)
{
	struct folio_orders o;

	EXPECT_EQ(folio_orders_parse("all", &o), 0);
	EXPECT_TRUE(o.all);
	EXPECT_EQ(folio_orders_parse("0,20", &o), 0);
	EXPECT_EQ((int)o.nr, 2);
	EXPECT_EQ(folio_orders_parse("0,", &o), -EINVAL);
	EXPECT_EQ(folio_orders_parse("-1", &o), -EINVAL);
	EXPECT_EQ(folio_orders_parse("2-x", &o), -EINVAL);
	folio_orders_from_mask(&o, 0x204UL);
	EXPECT_EQ((int)o.nr, 2);
	EXPECT_EQ(o.order[1], 9);
	EXPECT_TRUE(folio_orders_has(&o, 2) && !folio_orders_has(&o, 3));
}

/* Every command's table passes the row check: --help parses it whole. */
TEST(every_table_is_well_formed)
{
	const struct ms_command *const *cmds = ms_commands;
	size_t k;

	for (k = 0; cmds[k]; k++) {
		char *argv[] = { (char *)cmds[k]->name, "--help", NULL };

		EXPECT_EQ(cli_parse(cmds[k]->cli, 2, argv, NULL), CLI_DONE);
	}
}

HARNESS_MAIN
