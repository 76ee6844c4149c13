// SPDX-License-Identifier: GPL-2.0-or-later
/* Steal time from a stand-in /proc/stat (src/measure/steal.c): the 8th field
 * of a cpu line in USER_HZ ticks, per CPU and in total; an old kernel's
 * 7-field lines; a missing CPU; whether any steal was counted. */
#include <sys/stat.h>

#include "harness.h"
#include "steal.h"

static char root[64];

static void stat_file(const char *text)
{
	char path[128];
	FILE *f;

	snprintf(root, sizeof(root), "/tmp/mthpscope-steal.XXXXXX");
	ASSERT_TRUE(mkdtemp(root) != NULL);
	snprintf(path, sizeof(path), "%s/stat", root);
	f = fopen(path, "w");
	ASSERT_TRUE(f != NULL);
	fputs(text, f);
	fclose(f);
	setenv("MTHPSCOPE_PROC_ROOT", root, 1);
}

static void clean(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/stat", root);
	unlink(path);
	rmdir(root);
}

TEST(counted)
{
	unsigned long long ns = 0, tick = 1000000000ULL / (unsigned long long)sysconf(_SC_CLK_TCK);

	stat_file("cpu  530065 45582 286079 76105 844 0 594 12 0 0\n"
		  "cpu0 248525 27716 149750 43497 154 0 150 5 0 0\n"
		  "cpu1 281540 17865 136329 32607 690 0 444 7 0 0\n"
		  "intr 1 2 3\n");
	ASSERT_EQ(steal_read(-1, &ns), 0);
	EXPECT_EQ(ns, 12 * tick);
	ASSERT_EQ(steal_read(1, &ns), 0);
	EXPECT_EQ(ns, 7 * tick);
	EXPECT_EQ(steal_read(2, &ns), -ENOENT);
	EXPECT_EQ(steal_reported(), 1);
	clean();
}

/* This project's VM: the field is there and always 0. */
TEST(none_reported)
{
	unsigned long long ns = 1;

	stat_file("cpu  530065 45582 286079 76105 844 0 594 0 0 0\n"
		  "cpu0 248525 27716 149750 43497 154 0 150 0 0 0\n");
	ASSERT_EQ(steal_read(0, &ns), 0);
	EXPECT_EQ(ns, 0);
	EXPECT_EQ(steal_reported(), 0);
	clean();
}

TEST(old_kernel_and_no_file)
{
	unsigned long long ns;

	stat_file("cpu  1 2 3 4 5 6 7\ncpu0 1 2 3 4 5 6 7\n");
	EXPECT_EQ(steal_read(0, &ns), -ENODATA);
	EXPECT_EQ(steal_reported(), -ENODATA);
	clean();
	setenv("MTHPSCOPE_PROC_ROOT", "/nonexistent", 1);
	EXPECT_EQ(steal_read(-1, &ns), -ENOENT);
}

/* The real /proc/stat of this machine parses. */
TEST(this_machine)
{
	unsigned long long ns;

	unsetenv("MTHPSCOPE_PROC_ROOT");
	EXPECT_EQ(steal_read(-1, &ns), 0);
	EXPECT_TRUE(steal_reported() >= 0);
}

HARNESS_MAIN
