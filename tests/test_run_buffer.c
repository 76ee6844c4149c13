// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The buffer module on the real kernel: every supported order really gets
 * folios of that order, the faults are one per folio, and the sparse variant
 * costs one folio per touched page.
 * Writes THP knobs: MTHPSCOPE_TEST_WRITES_THP.
 */
#include <math.h>

#include "buffer.h"
#include "counters.h"
#include "folio.h"
#include "harness.h"
#include "thp.h"

#define SPAN (64UL << 20)
#define SPARSE_K 512UL

struct order_result {
	int order;
	int err;
	double coverage, faults;
	unsigned long long fallback, alloc, rss;
	bool have_stats;
};

static void require_env(struct thp_settings *s)
{
	struct folio_probe p;

	if (geteuid() != 0)
		SKIP("needs root (THP knobs, PFNs)");
	if (thp_read(s))
		SKIP("no THP sysfs");
	if (folio_probe(&p) || !p.pfns_visible || !p.kpageflags_readable)
		SKIP("%s", p.reason);
}

/* Whether the kernel keeps per-size fault stats for 'order' (6.9 and newer). */
static bool size_has_stats(int order)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/hugepages-%ldkB/stats/anon_fault_alloc", thp_root(),
		 sysconf(_SC_PAGESIZE) / 1024 << order);
	return access(path, R_OK) == 0;
}

/* Everything measured first, knobs restored, then asserted: a failing
 * assertion never leaves the machine's knobs changed. */
static int measure_all(const struct thp_settings *s, struct order_result *res)
{
	static const struct counters_spec spec = { "page_faults", "page-faults" };
	struct counters_options copts = { .include_kernel = true };
	struct counters_set *set = NULL;
	int n = 0, i, bad;

	if (counters_set_open(&set, &spec, 1, &copts, &bad))
		set = NULL;
	for (i = -1; i < s->nr_sizes; i++) {
		int order = i < 0 ? 0 : s->sizes[i].order;
		struct order_result *r = &res[n++];
		struct counters_value v = { .value = NAN };
		struct folio_hist h;
		struct buf b;

		if (i >= 0 && !s->sizes[i].anon) {
			n--;
			continue;
		}
		memset(r, 0, sizeof(*r));
		r->order = order;
		r->faults = NAN;
		if ((r->err = buffer_set_order(s, order)) || (r->err = buffer_map(&b, s, order, SPAN)))
			continue;
		r->err = buffer_populate(&b, set);
		if (set && !r->err && !counters_set_read(set, &v, 1))
			r->faults = v.value;
		r->have_stats = b.have_size_stats;
		r->alloc = b.fault_alloc;
		r->fallback = b.fault_fallback;
		if (!r->err)
			r->err = buffer_verify(&b, &h, NULL, &r->coverage);
		buffer_unmap(&b);
		if (!r->err && !(r->err = buffer_map(&b, s, order, SPAN))) {
			r->err = buffer_populate_sparse(&b, SPARSE_K, &r->rss);
			buffer_unmap(&b);
		}
	}
	counters_set_close(set);
	thp_restore();
	return n;
}

TEST(every_order_gets_its_folios_faults_and_bloat)
{
	struct thp_settings s;
	struct order_result res[THP_MAX_SIZES + 1];
	int n, i;

	require_env(&s);
	n = measure_all(&s, res);
	ASSERT_TRUE(n >= 1);
	for (i = 0; i < n; i++) {
		struct order_result *r = &res[i];
		unsigned long long folio = 4096ULL << r->order, want = SPAN / folio;
		unsigned long long touched = (SPAN / 4096 + SPARSE_K - 1) / SPARSE_K;
		unsigned long long per_touch = folio > 4096 * SPARSE_K ? 4096 * SPARSE_K : folio;

		printf("  order %d: coverage %.4f, faults %.0f (want %llu), alloc %llu, "
		       "fallback %llu, sparse rss %llu\n", r->order, r->coverage, r->faults, want,
		       r->alloc, r->fallback, r->rss);
		if (r->err) {
			FAIL_AT("order %d: %s", r->order, strerror(-r->err));
			continue;
		}
		if (r->fallback) {
			/* the kernel could not allocate: not what this test checks */
			printf("  order %d: %llu fault fallbacks (memory fragmented); "
			       "coverage not asserted\n", r->order, r->fallback);
			continue;
		}
		EXPECT_NEAR(r->coverage, 1.0, 0.0);
		/* one fault per folio, plus at most a few for page tables and the
		 * test's own stack */
		if (!isnan(r->faults)) {
			EXPECT_TRUE(r->faults >= (double)want);
			EXPECT_TRUE(r->faults <= (double)want + 8);
		}
		if (r->order) {
			/* per-size stats/ came after per-size mTHP: older kernels
			 * have none, and then none is claimed */
			EXPECT_EQ(r->have_stats, size_has_stats(r->order));
			/* global counter: other processes can only add */
			if (r->have_stats)
				EXPECT_TRUE(r->alloc >= want);
		}
		EXPECT_EQ(r->rss, touched * per_touch);
	}
}

TEST(map_refuses_bad_spans_and_orders)
{
	struct thp_settings s;
	struct buf b;

	if (thp_read(&s))
		SKIP("no THP sysfs");
	EXPECT_EQ(buffer_map(&b, &s, 0, s.pmd_size + 4096), -EINVAL);
	EXPECT_EQ(buffer_map(&b, &s, 0, 0), -EINVAL);
	EXPECT_EQ(buffer_map(&b, &s, 1, s.pmd_size), -EINVAL); /* order 1: no anon on x86 */
	ASSERT_EQ(buffer_map(&b, &s, 0, s.pmd_size), 0);
	EXPECT_EQ((uintptr_t)b.base % s.pmd_size, 0);
	buffer_unmap(&b);
}

HARNESS_MAIN
