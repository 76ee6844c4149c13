// SPDX-License-Identifier: GPL-2.0-or-later
/* Table tests of the THP word tables and sysfs value parsing (any host). */
#include "harness.h"
#include "thp.h"

TEST(words_round_trip)
{
	int w;

	for (w = 0; w < THP_W_COUNT; w++)
		EXPECT_EQ(thp_word_parse(thp_word_name(w)), w);
	EXPECT_EQ(thp_word_parse("sometimes"), -EINVAL);
	EXPECT_EQ(thp_word_parse(""), -EINVAL);
	EXPECT_STREQ(thp_word_name(THP_W_DEFER_MADVISE), "defer+madvise");
	EXPECT_STREQ(thp_word_name(THP_W_NONE), "?");
}

static const struct {
	const char *text;
	int ret;
	int selected;
	unsigned offered;
} choices[] = {
	/* per-size anon "enabled" (transhuge.rst) */
	{ "always inherit madvise [never]", 0, THP_W_NEVER,
	  1u << THP_W_ALWAYS | 1u << THP_W_INHERIT | 1u << THP_W_MADVISE | 1u << THP_W_NEVER },
	{ "always [inherit] madvise never\n", 0, THP_W_INHERIT,
	  1u << THP_W_ALWAYS | 1u << THP_W_INHERIT | 1u << THP_W_MADVISE | 1u << THP_W_NEVER },
	/* top-level defrag */
	{ "always defer defer+madvise [madvise] never", 0, THP_W_MADVISE,
	  1u << THP_W_ALWAYS | 1u << THP_W_DEFER | 1u << THP_W_DEFER_MADVISE |
		  1u << THP_W_MADVISE | 1u << THP_W_NEVER },
	/* shmem_enabled */
	{ "always within_size advise [never] deny force", 0, THP_W_NEVER,
	  1u << THP_W_ALWAYS | 1u << THP_W_WITHIN_SIZE | 1u << THP_W_ADVISE | 1u << THP_W_NEVER |
		  1u << THP_W_DENY | 1u << THP_W_FORCE },
	/* a patched kernel's per-size defer */
	{ "always inherit madvise defer [defer]", 0, THP_W_DEFER,
	  1u << THP_W_ALWAYS | 1u << THP_W_INHERIT | 1u << THP_W_MADVISE | 1u << THP_W_DEFER },
	{ "always madvise never", -EBADMSG, 0, 0 },            /* nothing selected */
	{ "[always] [madvise] never", -EBADMSG, 0, 0 },        /* two selected */
	{ "always [sometimes] never", -EBADMSG, 0, 0 },        /* unknown word */
	{ "", -EBADMSG, 0, 0 },
	{ "[]", -EBADMSG, 0, 0 },
	{ "[always", -EBADMSG, 0, 0 },
};

TEST(parse_choice_table)
{
	size_t i;

	for (i = 0; i < sizeof(choices) / sizeof(choices[0]); i++) {
		enum thp_word sel = THP_W_NONE;
		unsigned off = 0;
		int ret = thp_parse_choice(choices[i].text, &sel, &off);

		EXPECT_EQ(ret, choices[i].ret);
		if (ret == 0 && choices[i].ret == 0) {
			EXPECT_EQ(sel, choices[i].selected);
			EXPECT_EQ(off, choices[i].offered);
		}
	}
}

TEST(parse_choice_long_token)
{
	char big[4096];

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	EXPECT_EQ(thp_parse_choice(big, NULL, NULL), -EBADMSG);
}

HARNESS_MAIN
