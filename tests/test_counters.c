// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Event sets: string encoding, grouping, multiplexing arithmetic (any host),
 * and the same open/enable/read/scale path driven by software events: a
 * buffer populated at order 0 takes one page fault per page, at order 4 one
 * per 64 KiB folio. The order tests write THP knobs (MTHPSCOPE_TEST_WRITES_THP).
 */
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>

#include "counters.h"
#include "harness.h"
#include "mthpscope.h"
#include "thp.h"

/* Faults outside the touched buffer that may land inside the counted window:
 * the loop's first stack or text page and the page-table pages are allocated
 * inside the same fault, so in practice the count is exact; 4 leaves room for
 * a stack page and libc's first call without hiding a per-page error. */
#define EXTRA_FAULTS 4

static const struct {
	unsigned long long raw, enabled, running;
	int ret;
	double value, scale;
	bool multiplexed;
} scale_rows[] = {
	{ 1000, 500, 500, 0, 1000, 1.0, false },        /* ran the whole time */
	{ 1000, 1000, 250, 0, 4000, 4.0, true },        /* on the PMU a quarter of the time */
	{ 3, 3000, 1000, 0, 9, 3.0, true },
	{ 0, 0, 0, 0, 0, 1.0, false },                  /* never enabled */
	{ 7, 100, 101, 0, 7, 1.0, false },              /* running > enabled: clock rounding */
	{ 0, 1000, 0, -ENODATA, NAN, 0.0, true },       /* enabled, never scheduled */
	{ 1ull << 40, 2000000000ull, 1000000000ull, 0, 2199023255552.0, 2.0, true },
};

TEST(scale_table)
{
	size_t i;

	for (i = 0; i < MS_ARRAY_SIZE(scale_rows); i++) {
		double v = -1, sc = -1;
		bool mux = !scale_rows[i].multiplexed;
		int ret = counters_scale(scale_rows[i].raw, scale_rows[i].enabled, scale_rows[i].running,
				    &v, &sc, &mux);

		printf("  row %zu\n", i);
		EXPECT_EQ(ret, scale_rows[i].ret);
		if (isnan(scale_rows[i].value))
			EXPECT_TRUE(isnan(v));
		else
			EXPECT_NEAR(v, scale_rows[i].value, 1e-9 * (1 + fabs(v)));
		EXPECT_NEAR(sc, scale_rows[i].scale, 1e-12);
		EXPECT_EQ(mux, scale_rows[i].multiplexed);
	}
}

static const struct {
	const char *event;
	unsigned type;
	unsigned long long config;
	const char *source;
	unsigned key;
} encode_rows[] = {
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "sw", PERF_TYPE_SOFTWARE },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "sw", PERF_TYPE_SOFTWARE },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "pmu", PERF_TYPE_RAW },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "pmu", PERF_TYPE_RAW },
	/* perf_event.h: id | op << 8 | result << 16; DTLB 3, READ 0, MISS 1 */
	{ "dTLB-load-misses", PERF_TYPE_HW_CACHE, 0x10003, "pmu", PERF_TYPE_RAW },
	{ "r8128", PERF_TYPE_RAW, 0x8128, "pmu", PERF_TYPE_RAW },
	{ "r0e08", PERF_TYPE_RAW, 0xe08, "pmu", PERF_TYPE_RAW },
	{ "rFFFFFFFFFFFFFFFF", PERF_TYPE_RAW, ~0ull, "pmu", PERF_TYPE_RAW },
	/* libpfm4's generic "perf" PMU (pfmlib_perf_event_pmu.c) */
	{ "perf::PERF_COUNT_SW_PAGE_FAULTS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "sw",
	  PERF_TYPE_SOFTWARE },
};

TEST(encode_table)
{
	size_t i;

	for (i = 0; i < MS_ARRAY_SIZE(encode_rows); i++) {
		struct perf_event_attr a;
		int ret = counters_encode(encode_rows[i].event, false, &a);

		printf("  %s\n", encode_rows[i].event);
		EXPECT_EQ(ret, 0);
		EXPECT_EQ(a.type, encode_rows[i].type);
		EXPECT_EQ(a.config, encode_rows[i].config);
		EXPECT_STREQ(counters_attr_source(&a), encode_rows[i].source);
		EXPECT_EQ(counters_group_key(&a), encode_rows[i].key);
		EXPECT_EQ(a.exclude_kernel, 1);
		EXPECT_EQ(a.exclude_user, 0);
		EXPECT_EQ(a.size, sizeof(a));
	}
}

TEST(encode_kernel_option)
{
	struct perf_event_attr a;

	ASSERT_EQ(counters_encode("page-faults", true, &a), 0);
	EXPECT_EQ(a.exclude_kernel, 0);
	ASSERT_EQ(counters_encode("perf::PERF_COUNT_SW_PAGE_FAULTS", true, &a), 0);
	EXPECT_EQ(a.exclude_kernel, 0);
	ASSERT_EQ(counters_encode("perf::PERF_COUNT_SW_PAGE_FAULTS", false, &a), 0);
	EXPECT_EQ(a.exclude_kernel, 1);
}

TEST(encode_rejects)
{
	static const char *const bad[] = {
		"", "r", "rxyz", "r12345678901234567", "page-fault", "NO_SUCH_EVENT",
		"icl::NO_SUCH_EVENT", "perf::PERF_COUNT_SW_PAGE_FAULTS:NOPE",
	};
	struct perf_event_attr a;
	char msg[512];
	size_t i;

	for (i = 0; i < MS_ARRAY_SIZE(bad); i++) {
		printf("  '%s'\n", bad[i]);
		EXPECT_EQ(counters_encode(bad[i], false, &a), -ENOMSG);
		EXPECT_TRUE(strlen(counters_encode_detail()) > 0);
	}
	counters_strerror(-ENOMSG, true, msg, sizeof(msg));
	EXPECT_TRUE(strstr(msg, "libpfm4") != NULL);
}

TEST(group_key_hybrid)
{
	/* perf's extended type (PERF_PMU_TYPE_SHIFT 32): cpu_atom's type in the high bits */
	struct perf_event_attr a = { .type = PERF_TYPE_HARDWARE,
				     .config = 10ull << 32 | PERF_COUNT_HW_CPU_CYCLES };

	EXPECT_EQ(counters_group_key(&a), 10);
	a.type = 8; /* a dynamic PMU type from sysfs, e.g. cpu_atom */
	a.config = 0xe08;
	EXPECT_EQ(counters_group_key(&a), 8);
}

static int open_or_skip(struct counters_set **set, const struct counters_spec *specs, int n, int *bad)
{
	int err = counters_set_open(set, specs, n, NULL, bad);

	if (err == -ENOSYS)
		SKIP("perf_event_open is not implemented here (qemu-user?)");
	if (err == -EACCES || err == -EPERM)
		SKIP("perf_event_open not permitted (perf_event_paranoid %d)", counters_paranoid());
	return err;
}

TEST(open_errors)
{
	static const struct counters_spec specs[] = {
		{ "page_faults", "page-faults" },
		{ "walks", "NO_SUCH_EVENT" },
	};
	struct counters_set *set = (struct counters_set *)1;
	int bad = 99;

	EXPECT_EQ(counters_set_open(&set, specs, 2, NULL, &bad), -ENOMSG);
	EXPECT_EQ(bad, 1);
	EXPECT_TRUE(set == NULL);
	EXPECT_EQ(counters_set_open(&set, specs, 0, NULL, &bad), -EINVAL);
	EXPECT_EQ(counters_set_open(&set, specs, COUNTERS_MAX_EVENTS + 1, NULL, &bad), -EINVAL);
}

/* Without a PMU the hardware event fails with the probe's errno and names its
 * spec; with one, the set opens with two groups (core PMU, software). */
TEST(open_hw_reports_spec)
{
	static const struct counters_spec specs[] = {
		{ "page_faults", "page-faults" },
		{ "cycles", "cycles" },
	};
	struct counters_set *set = NULL;
	int bad = -1, probe = counters_probe_hw();
	int err = open_or_skip(&set, specs, 2, &bad);

	if (probe == 0) {
		ASSERT_EQ(err, 0);
		EXPECT_EQ(counters_set_nr_groups(set), 2);
		counters_set_close(set);
		return;
	}
	EXPECT_EQ(err, probe);
	EXPECT_EQ(bad, 1);
}

static const struct counters_spec sw_specs[] = {
	{ "page_faults", "page-faults" },
	{ "minor_faults", "minor-faults" },
	{ "task_clock", "task-clock" },
	{ "cs", "perf::PERF_COUNT_SW_CONTEXT_SWITCHES" },
};

/* Stores only: ASan's shadow reads would add their own faults. */
__attribute__((no_sanitize_address, noinline)) static void touch_pages(char *p, size_t len,
									size_t step)
{
	size_t off;

	for (off = 0; off < len; off += step)
		((volatile char *)p)[off] = 1;
}

/* Spin for 'ms' of this thread's CPU time: a task's counters are enabled
 * only while it runs, so a wall-clock spin on a loaded machine gives less
 * (CI: 40 ms of CLOCK_MONOTONIC were 19.6 ms of time_enabled). */
static void spin_ms(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

TEST(sw_group_reads_once)
{
	unsigned long long long_window;
	struct counters_value v[4];
	struct counters_set *set;
	int bad;
	char *p;
	size_t len = 64 * 4096;

	ASSERT_EQ(open_or_skip(&set, sw_specs, 4, &bad), 0);
	EXPECT_EQ(counters_set_nr_groups(set), 1);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	madvise(p, len, MADV_NOHUGEPAGE);
	touch_pages(p, 4096, 4096); /* warm the loop's own pages */
	ASSERT_EQ(counters_set_enable(set), 0);
	touch_pages(p + 4096, len - 4096, 4096);
	ASSERT_EQ(counters_set_disable(set), 0);
	ASSERT_EQ(counters_set_read(set, v, 4), 0);
	EXPECT_STREQ(v[0].metric, "page_faults");
	EXPECT_STREQ(v[0].event, "page-faults");
	EXPECT_STREQ(v[0].source, "sw");
	EXPECT_STREQ(v[3].source, "sw");
	EXPECT_TRUE(v[0].value >= 63 && v[0].value <= 63 + EXTRA_FAULTS);
	EXPECT_EQ(v[0].raw, v[1].raw); /* anonymous faults are all minor */
	EXPECT_TRUE(v[2].value > 0);   /* task-clock in ns */
	EXPECT_EQ(v[0].time_enabled, v[0].time_running);
	EXPECT_TRUE(!v[0].multiplexed);
	EXPECT_NEAR(v[0].scale, 1.0, 0);
	/* disabled: nothing more is counted; enable resets */
	touch_pages(p, len, 4096);
	ASSERT_EQ(counters_set_read(set, v, 4), 0);
	EXPECT_TRUE(v[0].value >= 63 && v[0].value <= 63 + EXTRA_FAULTS);
	ASSERT_EQ(counters_set_enable(set), 0);
	ASSERT_EQ(counters_set_disable(set), 0);
	ASSERT_EQ(counters_set_read(set, v, 4), 0);
	EXPECT_TRUE(v[0].value <= EXTRA_FAULTS);
	EXPECT_EQ(counters_set_read(set, v, 3), -EINVAL);
	/* a window's times are its own (RESET leaves the kernel's running
	 * totals): a 2 ms window after a 40 ms one is not 42 ms long */
	ASSERT_EQ(counters_set_enable(set), 0);
	spin_ms(40);
	ASSERT_EQ(counters_set_disable(set), 0);
	ASSERT_EQ(counters_set_read(set, v, 4), 0);
	long_window = v[2].time_enabled;
	ASSERT_EQ(counters_set_enable(set), 0);
	spin_ms(2);
	ASSERT_EQ(counters_set_disable(set), 0);
	ASSERT_EQ(counters_set_read(set, v, 4), 0);
	/* (perf's clock and the thread's CPU clock differ by a little: 39.93 ms
	 * seen) */
	if (!(long_window >= 30000000ull && v[2].time_enabled < 20000000ull &&
	      v[2].time_enabled == v[2].time_running))
		FAIL_AT("windows of 40 and 2 ms: time_enabled %llu then %llu", long_window,
			v[2].time_enabled);
	munmap(p, len);
	counters_set_close(set);
}

/* Populate 'pages' pages at 'order' and return the page-fault count.
 * MTHPSCOPE_TEST_WRITES_THP */
static void faults_at_order(int order, size_t pages)
{
	struct thp_settings s;
	const struct thp_size *z = NULL;
	unsigned long long fb0 = 0, fb1 = 0;
	struct counters_value v[4];
	struct counters_set *set;
	size_t pmd, len = pages * 4096, expect;
	char *map, *p, msg[256];
	int bad, err;
	bool found;

	REQUIRE_ROOT();
	if (thp_read(&s))
		SKIP("no THP sysfs");
	if (order && (!(z = thp_size_by_order(&s, order)) || !z->anon))
		SKIP("no anon mTHP at order %d", order);
	ASSERT_EQ(open_or_skip(&set, sw_specs, 4, &bad), 0);
	err = thp_set_only_order(&s, order);
	if (err) {
		thp_strerror(err, msg, sizeof(msg));
		counters_set_close(set);
		SKIP("cannot set THP order %d: %s", order, msg);
	}
	pmd = s.pmd_size ? s.pmd_size : 2ul << 20;
	map = mmap(NULL, len + pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		thp_restore();
		ASSERT_TRUE(map != MAP_FAILED);
	}
	p = (char *)(((uintptr_t)map + pmd - 1) & ~(uintptr_t)(pmd - 1));
	madvise(p, len, order ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	/* warm the loop on the last page, which lies past the aligned part */
	touch_pages(map + len + pmd - 4096, 4096, 4096);
	if (order && !thp_read(&s) && (z = thp_size_by_order(&s, order)))
		fb0 = thp_size_stat(z, "anon_fault_fallback", &found);
	counters_set_enable(set);
	touch_pages(p, len, 4096);
	counters_set_disable(set);
	if (order && !thp_read(&s) && (z = thp_size_by_order(&s, order)))
		fb1 = thp_size_stat(z, "anon_fault_fallback", &found);
	thp_restore();
	ASSERT_EQ(counters_set_read(set, v, 4), 0);
	/* A folio that falls back to order 0 costs one fault per page instead of
	 * one per folio (the counter is global: other processes' fallbacks only
	 * widen the bound). */
	expect = pages >> order;
	printf("  order %d: %zu pages, %.0f faults (expected %zu, %llu fallbacks)\n", order,
	       pages, v[0].value, expect, fb1 - fb0);
	EXPECT_TRUE(v[0].value >= (double)expect);
	EXPECT_TRUE(v[0].value <= (double)(expect + ((1ull << order) - 1) * (fb1 - fb0) +
					   EXTRA_FAULTS));
	EXPECT_STREQ(v[0].source, "sw");
	EXPECT_TRUE(!v[0].multiplexed);
	munmap(map, len + pmd);
	counters_set_close(set);
}

TEST(page_faults_order0)
{
	faults_at_order(0, 4096);
}

TEST(page_faults_order4)
{
	faults_at_order(4, 4096);
}

HARNESS_MAIN
