// SPDX-License-Identifier: GPL-2.0-or-later
/* What guests of other kernels and architectures need, on any host: the
 * emulated-CPU signs and the analyzer's refusal to draw timing conclusions
 * from them, the contpte block per page size, a pre-6.8 THP tree (PMD only). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze.h"
#include "arch.h"
#include "fixture_util.h"
#include "harness.h"
#include "results.h"
#include "thp.h"
#include "topo.h"

TEST(midr_emulated)
{
	/* QEMU TCG -cpu max, read in an arm64 6.12 guest: implementer 0x00, part 0x051 */
	EXPECT_TRUE(topo_midr_emulated(0x000f0510UL));
	EXPECT_TRUE(!topo_midr_emulated(0x413fd0c1UL)); /* Neoverse N1 r3p1 */
	EXPECT_TRUE(!topo_midr_emulated(0x410fd4f0UL)); /* Neoverse V2 */
	EXPECT_TRUE(!topo_midr_emulated(0x611f0221UL)); /* Apple */
}

TEST(contpte_per_page_size)
{
	EXPECT_EQ(arch_arm64_contpte_order(4096), 4);   /* 16 x 4K = 64K */
	EXPECT_EQ(arch_arm64_contpte_order(16384), 7);  /* 128 x 16K = 2M */
	EXPECT_EQ(arch_arm64_contpte_order(65536), 5);  /* 32 x 64K = 2M */
	EXPECT_EQ(arch_arm64_contpte_order(8192), -1);
}

/* The same data with host.emulated set: no verdict from timing or cycles,
 * the cost side (faults) still there. */
TEST(emulated_cpu_inconclusive)
{
	static const char *const files[] = { "knee4_timing.json", "knee4.json", "knee2.json" };
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct results *r = fixture_load(files[i]);
		struct analysis *a;
		char err[512];

		r->emulated = true;
		snprintf(r->emulation, sizeof(r->emulation), "CPUID hypervisor signature "
			 "TCGTCGTCGTCG (QEMU TCG)");
		if (analyze_run(r, NULL, &a, err, sizeof(err))) {
			FAIL_AT("%s: %s", files[i], err);
			results_free(r);
			continue;
		}
		EXPECT_EQ(a->verdict, AN_INCONCLUSIVE);
		EXPECT_EQ(a->min_order, -1);
		if (strncmp(a->reason, "emulated CPU", 12) || !strstr(a->reason, "TCGTCGTCGTCG"))
			FAIL_AT("%s: reason '%s'", files[i], a->reason);
		/* the emulated data's own lean is kept as the candidate */
		EXPECT_TRUE(a->candidate_order == (strstr(files[i], "knee2") ? 2 : 4));
		EXPECT_TRUE(a->orders[a->candidate_order].faults.n > 0 ||
			    a->orders[0].faults.n == 0);
		analyze_free(a);
		results_free(r);
	}
}

static void mk(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		FAIL_AT("cannot create %s", path);
		_exit(1);
	}
	fputs(text, f);
	fclose(f);
}

/* Linux 6.1: no hugepages-<N>kB; the PMD order follows the top-level knob. */
TEST(legacy_pmd_tree)
{
	char dir[] = "/tmp/mthpscope-legacy.XXXXXX", kh[600];
	struct thp_settings s;
	int err;

	if (!mkdtemp(dir))
		SKIP("mkdtemp: %s", strerror(errno));
	mk(dir, "enabled", "always [madvise] never\n");
	mk(dir, "defrag", "always defer defer+madvise [madvise] never\n");
	mk(dir, "hpage_pmd_size", "2097152\n");
	snprintf(kh, sizeof(kh), "%s/khugepaged", dir);
	mkdir(kh, 0755);
	mk(kh, "max_ptes_none", "511\n");
	setenv("MTHPSCOPE_THP_ROOT", dir, 1);
	err = thp_read(&s);
	EXPECT_EQ(err, 0);
	if (sysconf(_SC_PAGESIZE) == 4096) {
		EXPECT_TRUE(s.legacy_pmd);
		EXPECT_EQ(s.nr_sizes, 1);
		EXPECT_EQ(s.sizes[0].order, 9);
		EXPECT_EQ((long)s.sizes[0].kb, 2048L);
		EXPECT_TRUE(s.sizes[0].anon);
		EXPECT_EQ(s.sizes[0].enabled, THP_W_INHERIT);
		EXPECT_EQ((long)thp_anon_orders(&s), 1L << 9);
	}
	snprintf(kh, sizeof(kh), "rm -rf %s", dir);
	if (system(kh) != 0)
		FAIL_AT("cleanup");
}

HARNESS_MAIN
