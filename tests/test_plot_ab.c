// SPDX-License-Identifier: GPL-2.0-or-later
/* plot_ab (used by compare): a real picture from three orders of A and B. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "plot.h"

TEST(ab_png)
{
	const struct plot_ab_row rows[] = {
		{ 0, "4K", { 80.0, 79.0, 81.0 }, { 78.0, 77.5, 78.5 } },
		{ 4, "64K", { 66.0, 65.0, 67.0 }, { 60.0, 59.0, 61.0 } },
		{ 9, "2M", { 46.0, 45.5, 46.5 }, { NAN, NAN, NAN } }, /* absent in B */
	};
	char dir[] = "/tmp/mthpscope-ab-XXXXXX", path[4200], err[512], magic[4];
	FILE *f;

	if (system("command -v gnuplot >/dev/null 2>&1"))
		SKIP("gnuplot is not installed");
	ASSERT_TRUE(mkdtemp(dir) != NULL);
	if (plot_ab(dir, "ab_ns", PLOT_PNG, "ns_per_access, A vs B", "kernel A vs kernel B",
		    "ns/access (median)", "A: 6.18 (it's ours)", "B: 6.18+series", rows, 3, err,
		    sizeof(err))) {
		FAIL_AT("%s", err);
		return;
	}
	snprintf(path, sizeof(path), "%s/ab_ns.png", dir);
	f = fopen(path, "rb");
	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(fread(magic, 1, 4, f), 4);
	fclose(f);
	EXPECT_TRUE(!memcmp(magic, "\x89PNG", 4));
	EXPECT_EQ(plot_ab(dir, "none", PLOT_SVG, "t", "s", "y", "a", "b", rows, 0, err,
			  sizeof(err)), -ENODATA);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	EXPECT_EQ(system(path), 0);
}

/* A row label with a quote and a newline: each row stays one line of the
 * .dat, its label one quoted field (a raw one ended the row early and made
 * the rest of the label a row of its own). */
TEST(ab_label_stays_one_field)
{
	struct plot_ab_row rows[2] = {
		{ 0, "4\"K\n9 1 2", { 80.0, 79.0, 81.0 }, { 78.0, 77.5, 78.5 } },
		{ 4, "64K", { 66.0, 65.0, 67.0 }, { 60.0, 59.0, 61.0 } },
	};
	char dir[] = "/tmp/mthpscope-ab-XXXXXX", path[4200], err[512], line[256];
	int lines = 0;
	FILE *f;

	if (system("command -v gnuplot >/dev/null 2>&1"))
		SKIP("gnuplot is not installed");
	ASSERT_TRUE(mkdtemp(dir) != NULL);
	if (plot_ab(dir, "ab_q", PLOT_PNG, "t", "s", "y", "a", "b", rows, 2, err, sizeof(err))) {
		FAIL_AT("%s", err);
		return;
	}
	snprintf(path, sizeof(path), "%s/ab_q.dat", dir);
	f = fopen(path, "r");
	ASSERT_TRUE(f != NULL);
	while (fgets(line, sizeof(line), f))
		if (lines++ == 1)
			EXPECT_STREQ(line, "0 \"0 (4'K'9 1 2)\" 80 79 81 78 77.5 78.5\n");
	fclose(f);
	EXPECT_EQ(lines, 3);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	EXPECT_EQ(system(path), 0);
}

HARNESS_MAIN
