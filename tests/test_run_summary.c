// SPDX-License-Identifier: GPL-2.0-or-later
/* run's end-of-run summary analyses the results model it built in memory
 * (src/measure/session.c), not the file read back: results_summarize_head
 * must fill the flat summary exactly as the loader fills it from the file,
 * and the summary's numbers must come out of a loaded model the same way.
 * Fixtures: the two recorded heads of test_results_head.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_util.h"
#include "harness.h"
#include "results.h"
#include "run_summary.h"
#include "summary.h"

static const char *const fixtures[] = {
	"results-head-micro.json",
	"results-head-command.json",
};

TEST(summarize_head_matches_loader)
{
	for (size_t f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
		struct results *r = fixture_load(fixtures[f]);
		struct results *m = calloc(1, sizeof(*m));

		ASSERT_TRUE(r && m);
		m->head = r->head; /* shallow: only the flat fields are compared */
		results_summarize_head(m);
		EXPECT_STREQ(m->tool_version, r->tool_version);
		EXPECT_STREQ(m->kernel, r->kernel);
		EXPECT_STREQ(m->arch, r->arch);
		EXPECT_STREQ(m->cpu_vendor, r->cpu_vendor);
		EXPECT_STREQ(m->cpu_model, r->cpu_model);
		EXPECT_EQ(m->virtualized, r->virtualized);
		EXPECT_EQ(m->emulated, r->emulated);
		EXPECT_STREQ(m->emulation, r->emulation);
		EXPECT_EQ(m->page_size, r->page_size);
		EXPECT_EQ(m->pmd_order, r->pmd_order);
		EXPECT_EQ(m->pmu_available, r->pmu_available);
		EXPECT_STREQ(m->pmu_reason, r->pmu_reason);
		EXPECT_STREQ(m->thp_enabled, r->thp_enabled);
		EXPECT_STREQ(m->thp_defrag, r->thp_defrag);
		ASSERT_EQ(m->nr_sizes, r->nr_sizes);
		for (int i = 0; i < r->nr_sizes; i++) {
			EXPECT_EQ(m->sizes[i].order, r->sizes[i].order);
			EXPECT_STREQ(m->sizes[i].enabled, r->sizes[i].enabled);
		}
		EXPECT_EQ(m->max_ptes_none, r->max_ptes_none);
		EXPECT_STREQ(m->config_pattern, r->config_pattern);
		EXPECT_EQ(m->config_schedule, r->config_schedule);
		EXPECT_EQ(m->config_reps, r->config_reps);
		EXPECT_EQ(m->config_seed, r->config_seed);
		free(m);
		results_free(r);
	}
}

/* The micro fixture: run --quick --reps 1 --orders 0,2 --pattern
 * chase-tlb,stream --sweep 2M:4M --sparse 8: one table per (pattern, span),
 * each with both orders, and the sparse RSS of every pattern's cell. */
TEST(summary_tables_from_model)
{
	struct results *r = fixture_load("results-head-micro.json");
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ASSERT_TRUE(r && f);
	run_summary_print(f, r);
	fclose(f);
	EXPECT_TRUE(strstr(text, "chase-tlb, span 2.0 MiB") != NULL);
	EXPECT_TRUE(strstr(text, "stream, span 4.0 MiB") != NULL);
	EXPECT_TRUE(strstr(text, "one page in every 8 is touched") != NULL);
	EXPECT_EQ(summary_all_failed_order(r), -1);
	free(text);
	/* --sparse 0: no sparse trials, and the legend says so (it said "one
	 * page in every 0 is touched") */
	r->head.config.sparse_k = 0;
	text = NULL;
	f = open_memstream(&text, &len);
	ASSERT_TRUE(f != NULL);
	run_summary_print(f, r);
	fclose(f);
	EXPECT_TRUE(strstr(text, "every 0") == NULL);
	EXPECT_TRUE(strstr(text, "sparse RSS: not measured (--sparse 0)") != NULL);
	free(text);
	results_free(r);
}

TEST(summary_stats)
{
	double v[] = { 3, 1, 2 };
	struct summary_ci ci;

	EXPECT_TRUE(isnan(summary_median(v, 0)));
	EXPECT_NEAR(summary_median(v, 3), 2, 0);
	EXPECT_NEAR(summary_min(v, 3), 1, 0);
	summary_median_ci(v, 1, 1, &ci);
	EXPECT_TRUE(isnan(ci.half));
	summary_median_ci(v, 3, 1, &ci);
	EXPECT_TRUE(ci.lo <= 2 && ci.hi >= 2 && isfinite(ci.half));
}

HARNESS_MAIN
