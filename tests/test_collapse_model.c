/* collapse.c on any host: the hole pattern, the timeline summary and the
 * verdict sentences, from synthetic data. */
#include <stdlib.h>
#include <string.h>

#include "collapse.h"
#include "harness.h"

#define PMD_PAGES 512u

static unsigned longest_run(const unsigned char *p, unsigned n, unsigned char v)
{
	unsigned best = 0, cur = 0, i;

	for (i = 0; i < n; i++) {
		cur = p[i] == v ? cur + 1 : 0;
		if (cur > best)
			best = cur;
	}
	return best;
}

TEST(pattern_exact_fill_per_pmd)
{
	const double fills[] = { 0.0, 0.25, 0.5, 0.9, 1.0 };
	size_t pmds = 64, f, pmd, i;
	unsigned char *p = malloc(pmds * PMD_PAGES);

	ASSERT_TRUE(p);
	for (f = 0; f < sizeof(fills) / sizeof(fills[0]); f++) {
		unsigned want = (unsigned)(fills[f] * PMD_PAGES + 0.5);

		memset(p, 7, pmds * PMD_PAGES);
		collapse_pattern(1, fills[f], pmds * PMD_PAGES, PMD_PAGES, p);
		for (pmd = 0; pmd < pmds; pmd++) {
			unsigned n = 0;

			for (i = 0; i < PMD_PAGES; i++) {
				EXPECT_TRUE(p[pmd * PMD_PAGES + i] <= 1);
				n += p[pmd * PMD_PAGES + i];
			}
			EXPECT_EQ(n, want);
		}
	}
	free(p);
}

TEST(pattern_seeded_and_every_scale)
{
	size_t pmds = 256, n = pmds * PMD_PAGES, pmd;
	unsigned char *a = malloc(n), *b = malloc(n), *c = malloc(n);
	unsigned seen_small = 0, seen_mid = 0, seen_big = 0;

	ASSERT_TRUE(a && b && c);
	collapse_pattern(42, 0.5, n, PMD_PAGES, a);
	collapse_pattern(42, 0.5, n, PMD_PAGES, b);
	collapse_pattern(43, 0.5, n, PMD_PAGES, c);
	EXPECT_TRUE(!memcmp(a, b, n));
	EXPECT_TRUE(memcmp(a, c, n));
	/* Holes of one page, of mTHP sizes and of most of a PMD all occur. */
	for (pmd = 0; pmd < pmds; pmd++) {
		unsigned h = longest_run(a + pmd * PMD_PAGES, PMD_PAGES, 0);

		seen_small += h <= 2;
		seen_mid += h >= 16 && h < 128;
		seen_big += h >= 128;
	}
	EXPECT_TRUE(seen_mid > 0);
	EXPECT_TRUE(seen_big > 0);
	/* a single-page hole somewhere */
	for (size_t i = 1; i + 1 < n && !seen_small; i++)
		seen_small = a[i - 1] && !a[i] && a[i + 1];
	EXPECT_TRUE(seen_small > 0);
	free(a);
	free(b);
	free(c);
}

static void add(struct collapse_run *r, long t, unsigned long long o0, int hi,
		unsigned long long phi, int top, unsigned long long ptop)
{
	struct collapse_sample *s;

	if (r->nr_samples == r->cap_samples) {
		r->cap_samples = r->cap_samples ? r->cap_samples * 2 : 8;
		r->timeline = realloc(r->timeline, r->cap_samples * sizeof(*s));
	}
	s = &r->timeline[r->nr_samples++];
	memset(s, 0, sizeof(*s));
	s->t_ms = t;
	s->pages[0] = o0;
	s->pages[hi] += phi;
	s->pages[top] += ptop;
	s->rss_bytes = (o0 + phi + ptop) * 4096;
}

static void env_x86(struct collapse_env *env)
{
	memset(env, 0, sizeof(*env));
	env->pmd_order = 9;
	env->page_size = 4096;
}

TEST(summary_pmd_only_says_no_mthp)
{
	struct collapse_config cfg = { .mode = COLLAPSE_KHUGEPAGED, .orders = 0x3fc,
				       .max_ptes_none = 511, .fill = 0.5 };
	struct collapse_run r = { 0 };
	struct collapse_env env;
	char buf[512];
	const char *key;

	env_x86(&env);
	add(&r, 0, 1024, 0, 0, 0, 0);
	add(&r, 100, 512, 9, 512, 9, 0);
	add(&r, 200, 0, 9, 1024, 9, 0);
	r.steady = true;
	r.elapsed_ms = 200;
	collapse_summarize(&r, 9);
	EXPECT_EQ(r.orders_reached, 1UL << 9);
	EXPECT_EQ(r.first_collapse_ms, 100);
	EXPECT_TRUE(!r.creep);
	key = collapse_verdict(&cfg, &env, &r, buf, sizeof(buf));
	EXPECT_STREQ(key, "pmd-only");
	EXPECT_TRUE(strstr(buf, "this kernel's khugepaged does not collapse to mTHP orders") != NULL);
	EXPECT_TRUE(strstr(buf, "enabled orders 2,3,4,5,6,7,8 never appeared") != NULL);
	EXPECT_TRUE(strstr(buf, "collapsed to order 9 (PMD)") != NULL);
	free(r.timeline);
}

TEST(summary_creep)
{
	struct collapse_config cfg = { .mode = COLLAPSE_KHUGEPAGED, .orders = 0x3fc,
				       .max_ptes_none = 300, .fill = 0.5 };
	struct collapse_run r = { 0 };
	struct collapse_env env;
	char buf[512];

	env_x86(&env);
	add(&r, 0, 512, 0, 0, 0, 0);
	add(&r, 100, 256, 4, 256, 4, 0);   /* some order-4 folios */
	add(&r, 200, 256, 4, 128, 6, 128); /* order 4 mass moves to order 6 */
	collapse_summarize(&r, 9);
	EXPECT_TRUE(r.creep);
	EXPECT_EQ(r.creep_from, 4);
	EXPECT_EQ(r.creep_to, 6);
	EXPECT_EQ(r.creep_t_ms, 200);
	EXPECT_STREQ(collapse_verdict(&cfg, &env, &r, buf, sizeof(buf)), "mthp-creep");
	EXPECT_TRUE(strstr(buf, "collapsed to orders 4,6; orders crept up (order 4 -> 6") != NULL);
	free(r.timeline);
}

TEST(summary_nothing_explains_max_ptes_none)
{
	struct collapse_config cfg = { .mode = COLLAPSE_KHUGEPAGED, .orders = 1UL << 9,
				       .max_ptes_none = 0, .fill = 0.5 };
	struct collapse_run r = { 0 };
	struct collapse_env env;
	char buf[512];

	env_x86(&env);
	add(&r, 0, 512, 0, 0, 0, 0);
	add(&r, 100, 512, 0, 0, 0, 0);
	r.steady = true;
	r.elapsed_ms = 100;
	collapse_summarize(&r, 9);
	EXPECT_EQ(r.orders_reached, 0);
	EXPECT_EQ(r.first_collapse_ms, -1);
	EXPECT_STREQ(collapse_verdict(&cfg, &env, &r, buf, sizeof(buf)), "none");
	EXPECT_STREQ(buf, "nothing collapsed in 100 ms (each PMD has 256 empty PTEs, more than "
			  "max_ptes_none 0)");
	free(r.timeline);
}

TEST(mode_names)
{
	EXPECT_EQ(collapse_mode_parse("khugepaged"), COLLAPSE_KHUGEPAGED);
	EXPECT_EQ(collapse_mode_parse("madvise"), COLLAPSE_MADVISE);
	EXPECT_EQ(collapse_mode_parse("both"), -EINVAL);
	EXPECT_STREQ(collapse_mode_name(COLLAPSE_MADVISE), "madvise");
}

HARNESS_MAIN
