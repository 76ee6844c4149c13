// SPDX-License-Identifier: GPL-2.0-or-later
/* collapse.c on any host: the hole pattern, the timeline summary and the
 * verdict sentences, from synthetic data. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	EXPECT_STREQ(buf, "this kernel cannot collapse to mTHP orders (no per-size collapse "
			  "counters below the PMD size): khugepaged collapsed to order 9 (PMD); "
			  "no creep");
	/* the same timeline on a kernel that can: PMD collapse was allowed
	 * (511 >= 256 empty PTEs per PMD) and won */
	env.thp.mthp_collapse = true;
	key = collapse_verdict(&cfg, &env, &r, buf, sizeof(buf));
	EXPECT_STREQ(key, "pmd-won");
	EXPECT_TRUE(strstr(buf, "PMD collapse allowed and won: max_ptes_none 511 >= the 256 empty "
				"PTEs per PMD") == buf);
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
	/* the mass moved, the RSS did not grow: no RSS creep */
	EXPECT_EQ(r.rss_growth_steps, 0);
	free(r.timeline);
}

/* RSS growth at two samples is creep only when a khugepaged pass ended
 * between them: a pass in progress at a sample shows as two growths (the
 * old verdict: mthp-creep from the samples alone). */
TEST(summary_rss_creep_needs_passes_apart)
{
	struct collapse_config cfg = { .mode = COLLAPSE_KHUGEPAGED, .orders = 1UL << 4,
				       .max_ptes_none = 15, .fill = 0.5 };
	struct collapse_run r = { 0 };
	struct collapse_env env;
	char buf[512];

	env_x86(&env);
	add(&r, 0, 512, 0, 0, 0, 0);
	add(&r, 100, 256, 4, 320, 4, 0);  /* the pass in progress (0 ended) */
	add(&r, 200, 192, 4, 448, 4, 0);  /* the same pass, or the next */
	add(&r, 300, 192, 4, 448, 4, 0);
	r.timeline[3].full_scans = 2;
	collapse_summarize(&r, 9);
	EXPECT_EQ(r.rss_growth_steps, 2);
	EXPECT_EQ(r.rss_growth_separate, 1);
	EXPECT_NEAR(r.rss_growth_per_pass, 128 * 4096, 0); /* one pass grew it */
	EXPECT_STREQ(collapse_verdict(&cfg, &env, &r, buf, sizeof(buf)), "mthp");
	EXPECT_STREQ(buf, "khugepaged collapsed to orders 4; no creep");
	/* a pass ended between the growths: two passes grew it */
	add(&r, 400, 128, 4, 576, 4, 0);
	r.timeline[4].full_scans = 3;
	collapse_summarize(&r, 9);
	EXPECT_EQ(r.rss_growth_steps, 3);
	EXPECT_EQ(r.rss_growth_separate, 2);
	EXPECT_NEAR(r.rss_growth_per_pass, 192 * 4096 / 2, 0);
	EXPECT_STREQ(collapse_verdict(&cfg, &env, &r, buf, sizeof(buf)), "mthp-creep");
	EXPECT_TRUE(strstr(buf, "; RSS crept: it grew in 2 khugepaged passes apart, at 3 samples "
				"over 3 passes") != NULL);
	free(r.timeline);
}

/* The PMD size alone as the target, on a kernel that can collapse to mTHP
 * orders: nothing competed with it, so not "won" (the old verdict). */
TEST(summary_pmd_alone_is_pmd_only)
{
	struct collapse_config cfg = { .mode = COLLAPSE_KHUGEPAGED, .orders = 1UL << 9,
				       .max_ptes_none = 511, .fill = 0.5 };
	struct collapse_run r = { 0 };
	struct collapse_env env;
	char buf[512];

	env_x86(&env);
	env.thp.mthp_collapse = true;
	add(&r, 0, 1024, 0, 0, 0, 0);
	add(&r, 100, 0, 9, 2048, 9, 0);
	r.steady = true;
	collapse_summarize(&r, 9);
	EXPECT_STREQ(collapse_verdict(&cfg, &env, &r, buf, sizeof(buf)), "pmd-only");
	EXPECT_STREQ(buf, "khugepaged collapsed to order 9 (PMD), the only size asked for; no "
			  "creep");
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

/* ---- knobs on a fixture sysfs of a patched kernel (per-size defer, mTHP
 * collapse counters): what collapse_prepare picks and collapse_set_knobs
 * writes, on any host. */

static void put(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	ASSERT_TRUE(f != NULL);
	fputs(text, f);
	fclose(f);
}

static void get(const char *dir, const char *rel, char *buf, size_t size)
{
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "r");
	ASSERT_TRUE(f != NULL);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void make_fixture(char *root)
{
	static const char *const sizes[] = { "16kB", "64kB", "2048kB" };
	static const char *const kh[] = { "defrag", "max_ptes_none", "max_ptes_swap",
					  "max_ptes_shared", "pages_to_scan",
					  "scan_sleep_millisecs", "alloc_sleep_millisecs",
					  "pages_collapsed", "full_scans" };
	char path[512];
	size_t i;

	ASSERT_TRUE(mkdtemp(root) != NULL);
	put(root, "enabled", "always [madvise] never\n");
	put(root, "defrag", "always defer defer+madvise [madvise] never\n");
	put(root, "hpage_pmd_size", "2097152\n");
	snprintf(path, sizeof(path), "%s/khugepaged", root);
	ASSERT_EQ(mkdir(path, 0755), 0);
	for (i = 0; i < sizeof(kh) / sizeof(kh[0]); i++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "khugepaged/%s", kh[i]);
		put(root, rel, "7\n");
	}
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char rel[64];

		snprintf(path, sizeof(path), "%s/hugepages-%s", root, sizes[i]);
		ASSERT_EQ(mkdir(path, 0755), 0);
		snprintf(path, sizeof(path), "%s/hugepages-%s/stats", root, sizes[i]);
		ASSERT_EQ(mkdir(path, 0755), 0);
		snprintf(rel, sizeof(rel), "hugepages-%s/enabled", sizes[i]);
		put(root, rel, "always inherit madvise defer [never]\n");
		snprintf(rel, sizeof(rel), "hugepages-%s/stats/collapse_exceed_none_pte", sizes[i]);
		put(root, rel, "0\n");
	}
}

TEST(knobs_on_patched_kernel_fixture)
{
	char root[] = "/tmp/mthpscope-collapse-fixture-XXXXXX";
	char rundir[] = "/tmp/mthpscope-collapse-run-XXXXXX";
	struct collapse_config cfg = { .mode = COLLAPSE_KHUGEPAGED,
				       .orders = (1UL << 4) | (1UL << 9), .max_ptes_none = 255,
				       .fill = 0.5, .span = 4UL << 20, .interval_ms = 10,
				       .timeout_ms = 1000, .scan_sleep_ms = 10 };
	struct collapse_env env;
	char why[256], buf[128];

	if (sysconf(_SC_PAGESIZE) != 4096)
		SKIP("the fixture describes 4K pages");
	make_fixture(root);
	ASSERT_TRUE(mkdtemp(rundir) != NULL);
	setenv("MTHPSCOPE_THP_ROOT", root, 1);
	setenv("MTHPSCOPE_RUNDIR", rundir, 1);
	ASSERT_EQ(collapse_prepare(&cfg, &env, why, sizeof(why)), 0);
	EXPECT_TRUE(env.thp.size_defer);
	EXPECT_TRUE(env.thp.mthp_collapse);
	EXPECT_EQ(env.target_word[4], THP_W_DEFER);
	EXPECT_EQ(env.target_word[9], THP_W_DEFER);
	cfg.mode = COLLAPSE_MADVISE;
	ASSERT_EQ(collapse_prepare(&cfg, &env, why, sizeof(why)), 0);
	EXPECT_EQ(env.target_word[4], THP_W_MADVISE);
	cfg.mode = COLLAPSE_KHUGEPAGED;
	ASSERT_EQ(collapse_prepare(&cfg, &env, why, sizeof(why)), 0);
	/* Order 3 has no size directory here: refused before any write. */
	cfg.orders |= 1UL << 3;
	EXPECT_EQ(collapse_prepare(&cfg, &env, why, sizeof(why)), -EOPNOTSUPP);
	EXPECT_TRUE(strstr(why, "order 3") != NULL);
	cfg.orders &= ~(1UL << 3);
	ASSERT_EQ(collapse_prepare(&cfg, &env, why, sizeof(why)), 0);

	/* Snapshot first, then blank the files: a plain file keeps old bytes
	 * past what a write puts at offset 0. */
	ASSERT_EQ(thp_journal_begin(), 0);
	put(root, "hugepages-16kB/enabled", "");
	put(root, "hugepages-64kB/enabled", "");
	put(root, "hugepages-2048kB/enabled", "");
	put(root, "khugepaged/max_ptes_none", "");
	put(root, "khugepaged/pages_to_scan", "");
	put(root, "khugepaged/scan_sleep_millisecs", "");
	put(root, "khugepaged/alloc_sleep_millisecs", "");
	ASSERT_EQ(collapse_set_knobs(&cfg, &env), 0);
	get(root, "hugepages-16kB/enabled", buf, sizeof(buf));
	EXPECT_STREQ(buf, "never");
	get(root, "hugepages-64kB/enabled", buf, sizeof(buf));
	EXPECT_STREQ(buf, "defer");
	get(root, "hugepages-2048kB/enabled", buf, sizeof(buf));
	EXPECT_STREQ(buf, "defer");
	get(root, "khugepaged/max_ptes_none", buf, sizeof(buf));
	EXPECT_STREQ(buf, "255");
	get(root, "khugepaged/pages_to_scan", buf, sizeof(buf));
	EXPECT_STREQ(buf, "4096"); /* 2 x 1024 pages, at least 4096 */
	get(root, "khugepaged/scan_sleep_millisecs", buf, sizeof(buf));
	EXPECT_STREQ(buf, "10");
	get(root, "khugepaged/alloc_sleep_millisecs", buf, sizeof(buf));
	EXPECT_STREQ(buf, "100");

	/* The journal puts the snapshot back. */
	put(root, "khugepaged/max_ptes_none", "");
	put(root, "hugepages-64kB/enabled", "");
	thp_restore();
	get(root, "khugepaged/max_ptes_none", buf, sizeof(buf));
	EXPECT_EQ(atoi(buf), 7);
	get(root, "hugepages-64kB/enabled", buf, sizeof(buf));
	EXPECT_STREQ(buf, "never");
	snprintf(buf, sizeof(buf), "rm -rf '%s' '%s'", root, rundir);
	EXPECT_EQ(system(buf), 0);
}

TEST(prepare_rejects_bad_config)
{
	struct collapse_config good = { .mode = COLLAPSE_KHUGEPAGED, .orders = 1UL << 9,
					.max_ptes_none = 511, .fill = 0.5, .span = 4UL << 20,
					.interval_ms = 10, .timeout_ms = 1000 };
	struct collapse_config c;
	struct collapse_env env;
	char why[256];

	if (access("/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled", R_OK))
		SKIP("needs a kernel with a 2M anon THP size");
	c = good;
	ASSERT_EQ(collapse_prepare(&c, &env, why, sizeof(why)), 0);
	c = good;
	c.max_ptes_none = 512;
	EXPECT_EQ(collapse_prepare(&c, &env, why, sizeof(why)), -EINVAL);
	c = good;
	c.timeout_ms = 0;
	EXPECT_EQ(collapse_prepare(&c, &env, why, sizeof(why)), -EINVAL);
	c = good;
	c.span = 3UL << 20;
	EXPECT_EQ(collapse_prepare(&c, &env, why, sizeof(why)), -EINVAL);
	c = good;
	c.span = 1ULL << 50;
	EXPECT_EQ(collapse_prepare(&c, &env, why, sizeof(why)), -ENOMEM);
	c = good;
	c.orders = 1UL << 10;
	EXPECT_EQ(collapse_prepare(&c, &env, why, sizeof(why)), -EINVAL);
	c = good;
	c.fill = 1.5;
	EXPECT_EQ(collapse_prepare(&c, &env, why, sizeof(why)), -EINVAL);
}

HARNESS_MAIN
