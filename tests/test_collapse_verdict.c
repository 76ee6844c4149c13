// SPDX-License-Identifier: GPL-2.0-or-later
/* collapse's conclusions on recorded documents of real kernels: each run's
 * timeline, counters and kernel-log facts go back through
 * collapse_summarize/collapse_summarize_mpn/collapse_verdict, which must give
 * the verdict and sentence the guest wrote, one of the three cases:
 *   tests/data/collapse-guest-7.3.4-amd64.json (recorded from guest 7.3.4+deb13-amd64
 *     under qemu TCG by tests/test_guest_collapse.sh's command, fill 50%):
 *     max_ptes_none 0 and 64 -> "collapsed to orders 2-7", 64 rewritten to 0
 *     (kernel log); 511 -> "PMD collapse allowed and won";
 *   tests/data/collapse-guest-6.12.118-amd64.json (recorded from guest
 *     6.12.118+deb12-amd64 under qemu TCG, scripts/collapse-matrix.sh's cell
 *     khugepaged, orders 2-9, fill 50%): "this kernel cannot collapse to mTHP
 *     orders" at 511, nothing at the others.
 * And the behaviour fallback: the 64 run with the kernel log unreadable, or
 * readable without the message; and a recorded verdict that was wrong (one
 * khugepaged pass seen at two samples called creep), recomputed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collapse.h"
#include "fixture_util.h"
#include "harness.h"

/* The measurement's own types from a document's run (what the command had). */
static void from_doc(const struct collapse_doc *d, const struct collapse_doc_run *dr,
		     struct collapse_config *cfg, struct collapse_env *env,
		     struct collapse_run *r)
{
	size_t i;

	memset(cfg, 0, sizeof(*cfg));
	memset(env, 0, sizeof(*env));
	memset(r, 0, sizeof(*r));
	cfg->mode = collapse_mode_parse(d->config.mode) == COLLAPSE_MADVISE ? COLLAPSE_MADVISE
									  : COLLAPSE_KHUGEPAGED;
	for (i = 0; i < d->config.orders.nr; i++)
		cfg->orders |= 1UL << d->config.orders.order[i];
	cfg->fill = d->config.fill;
	cfg->max_ptes_none = (int)dr->max_ptes_none;
	env->thp = d->thp;
	env->page_size = d->host.topo.page_size;
	env->pmd_order = d->host.pmd_order;
	r->max_ptes_none = (int)dr->max_ptes_none;
	r->timeline = calloc(dr->nr_samples, sizeof(*r->timeline));
	for (i = 0; r->timeline && i < dr->nr_samples; i++) {
		r->timeline[i].t_ms = dr->samples[i].t_ms;
		memcpy(r->timeline[i].pages, dr->samples[i].pages, sizeof(r->timeline[i].pages));
		r->timeline[i].partial = dr->samples[i].partial;
		r->timeline[i].rss_bytes = dr->samples[i].rss_bytes;
		r->timeline[i].full_scans = dr->samples[i].full_scans;
	}
	r->nr_samples = r->cap_samples = dr->nr_samples;
	r->steady = dr->steady;
	r->elapsed_ms = dr->elapsed_ms;
	r->span_pages = (unsigned long long)dr->span_pages;
	r->filled_pages = (unsigned long long)dr->filled_pages;
	r->rss_before = (unsigned long long)dr->rss_before;
	r->rss_after = (unsigned long long)dr->rss_after;
	r->klog_readable = dr->klog_readable;
	r->klog_found = dr->klog_found;
	r->klog_kept = (int)dr->klog_kept;
	r->page_size = env->page_size;
}

static const char *conclude(const struct collapse_config *cfg, const struct collapse_env *env,
			    struct collapse_run *r, char *buf, size_t size)
{
	unsigned long sub_pmd = ((1UL << env->pmd_order) - 1) & ~1UL;

	collapse_summarize(r, env->pmd_order);
	collapse_summarize_mpn(r, env->pmd_order, env->thp.mthp_collapse,
			       cfg->mode == COLLAPSE_KHUGEPAGED && (cfg->orders & sub_pmd));
	return collapse_verdict(cfg, env, r, buf, size);
}

static int load(const char *name, struct collapse_doc *d)
{
	json_t *j = fixture_json(name);
	char err[512] = "";
	int rc = collapse_doc_read(j, d, err, sizeof(err));

	if (rc)
		FAIL_AT("%s: %s", name, err);
	json_decref(j);
	return rc;
}

/* Every run: the verdict and sentence recomputed are the recorded ones. */
static void same_as_recorded(const char *name, const struct collapse_doc *d)
{
	size_t i;

	for (i = 0; i < d->nr_runs; i++) {
		struct collapse_config cfg;
		struct collapse_env env;
		struct collapse_run r;
		char buf[512];
		const char *key;

		from_doc(d, &d->runs[i], &cfg, &env, &r);
		key = conclude(&cfg, &env, &r, buf, sizeof(buf));
		if (strcmp(key, d->runs[i].verdict) || strcmp(buf, d->runs[i].statement))
			FAIL_AT("%s run %zu: %s \"%s\", recorded %s \"%s\"", name, i, key, buf,
				d->runs[i].verdict, d->runs[i].statement);
		free(r.timeline);
	}
}

static const struct collapse_doc_run *run_at(const struct collapse_doc *d, long long mpn)
{
	size_t i;

	for (i = 0; i < d->nr_runs; i++)
		if (d->runs[i].max_ptes_none == mpn)
			return &d->runs[i];
	return NULL;
}

TEST(guest_7_3_4_can_collapse_to_mthp)
{
	const char *name = "collapse-guest-7.3.4-amd64.json";
	const struct collapse_doc_run *r0, *r64, *r511;
	struct collapse_doc d;

	if (load(name, &d))
		return;
	ASSERT_TRUE(d.thp.mthp_collapse);
	same_as_recorded(name, &d);
	r0 = run_at(&d, 0);
	r64 = run_at(&d, 64);
	r511 = run_at(&d, 511);
	ASSERT_TRUE(r0 && r64 && r511);
	EXPECT_STREQ(r0->verdict, "mthp");
	EXPECT_TRUE(strstr(r0->statement, "khugepaged collapsed to orders 2-7; no creep") ==
		    r0->statement);
	EXPECT_EQ(r0->rss_after, r0->rss_before);
	EXPECT_STREQ(r64->verdict, "mthp");
	EXPECT_EQ(r64->mpn_mthp, 0);
	EXPECT_STREQ(r64->mpn_mthp_source, "kernel-log");
	EXPECT_TRUE(strstr(r64->statement, "; the kernel rewrote max_ptes_none 64 to 0 for mTHP "
					   "orders (kernel log: \"mTHP collapse does not support "
					   "max_ptes_none values other than 0 or 511, defaulting "
					   "to 0\")") != NULL);
	EXPECT_STREQ(r511->verdict, "pmd-won");
	EXPECT_TRUE(strstr(r511->statement, "PMD collapse allowed and won: max_ptes_none 511 >= "
					    "the 256 empty PTEs per PMD, so khugepaged collapsed "
					    "whole PMDs (order 9)") == r511->statement);
	EXPECT_TRUE(strstr(r511->statement, "cannot") == NULL);
	collapse_doc_free(&d);
}

/* The 64 run with the kernel log unreadable (dmesg_restrict without
 * CAP_SYSLOG), and readable without the rewrite message (printed once a
 * boot: the log may have wrapped or been cleared since, so it is no
 * evidence; the old statement: "applied max_ptes_none 64 as set"): the
 * behaviour decides, and it filled no empty PTE. */
TEST(guest_7_3_4_rewrite_from_behaviour)
{
	static const char *const why[] = { "was unreadable", "has no rewrite message" };
	const char *name = "collapse-guest-7.3.4-amd64.json";
	struct collapse_config cfg;
	struct collapse_env env;
	struct collapse_run r;
	struct collapse_doc d;
	char buf[512], want[256];

	if (load(name, &d))
		return;
	for (int readable = 0; readable < 2; readable++) {
		from_doc(&d, run_at(&d, 64), &cfg, &env, &r);
		r.klog_readable = readable;
		r.klog_found = false;
		EXPECT_STREQ(conclude(&cfg, &env, &r, buf, sizeof(buf)), "mthp");
		EXPECT_EQ(r.mpn_mthp, 0);
		EXPECT_STREQ(r.mpn_mthp_source, "behaviour");
		snprintf(want, sizeof(want), "; mTHP collapse behaved as max_ptes_none 0, not 64 (it "
			 "filled no empty PTE; the kernel log %s)", why[readable]);
		EXPECT_TRUE(strstr(buf, want) != NULL);
		free(r.timeline);
	}
	collapse_doc_free(&d);
}

/* tests/data/collapse-guest-7.3.4-amd64-o4-f90.json (data/guest-collapse-
 * 7.3.4-amd64/khugepaged-o4-f90.json, orders 4 only, fill 90%): at 511 the
 * RSS grew at two samples with no khugepaged pass ended between them, one
 * pass cut by a sample. The recorded verdict, mthp-creep ("RSS crept: it
 * grew at 2 samples over 1 khugepaged passes"), came from the samples
 * alone; it is mthp, no creep. The other runs are as recorded. */
TEST(guest_7_3_4_one_pass_seen_twice_is_no_creep)
{
	const char *name = "collapse-guest-7.3.4-amd64-o4-f90.json";
	struct collapse_config cfg;
	struct collapse_env env;
	struct collapse_run r;
	struct collapse_doc d;
	char buf[512];
	size_t i;

	if (load(name, &d))
		return;
	for (i = 0; i < d.nr_runs; i++) {
		from_doc(&d, &d.runs[i], &cfg, &env, &r);
		EXPECT_STREQ(conclude(&cfg, &env, &r, buf, sizeof(buf)), "mthp");
		if (d.runs[i].max_ptes_none == 511) {
			EXPECT_STREQ(d.runs[i].verdict, "mthp-creep");
			EXPECT_EQ(r.rss_growth_steps, 2);
			EXPECT_EQ(r.rss_growth_separate, 1);
			EXPECT_STREQ(buf, "khugepaged collapsed to orders 4; no creep");
		} else {
			EXPECT_STREQ(buf, d.runs[i].statement);
		}
		free(r.timeline);
	}
	collapse_doc_free(&d);
}

TEST(guest_6_12_cannot_collapse_to_mthp)
{
	const char *name = "collapse-guest-6.12.118-amd64.json";
	const struct collapse_doc_run *r511;
	struct collapse_doc d;
	size_t i;

	if (load(name, &d))
		return;
	ASSERT_TRUE(!d.thp.mthp_collapse);
	same_as_recorded(name, &d);
	r511 = run_at(&d, 511);
	ASSERT_TRUE(r511 != NULL);
	EXPECT_STREQ(r511->verdict, "pmd-only");
	EXPECT_TRUE(strstr(r511->statement, "this kernel cannot collapse to mTHP orders (no "
					    "per-size collapse counters below the PMD size): "
					    "khugepaged collapsed to order 9 (PMD)") ==
		    r511->statement);
	for (i = 0; i < d.nr_runs; i++)
		if (d.runs[i].max_ptes_none < 256)
			EXPECT_STREQ(d.runs[i].verdict, "none");
	collapse_doc_free(&d);
}

HARNESS_MAIN
