// SPDX-License-Identifier: GPL-2.0-or-later
/* The results reader: a good document loads into the model; each kind of
 * bad input is refused with a message naming the problem. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_util.h"
#include "harness.h"
#include "mthpscope.h"
#include "results.h"

#define HEAD                                                                        \
	"{\"schema\": \"mthpscope.results/1\", \"tool\": {\"name\": \"mthpscope\", "   \
	"\"version\": \"0.1.0\"}, \"host\": {\"kernel\": \"6.18.0\", \"arch\": "        \
	"\"x86_64\", \"cpu_vendor\": \"AuthenticAMD\", \"cpu_model\": \"AMD EPYC\", "   \
	"\"virtualized\": true, \"page_size\": 4096, \"pmd_order\": 9, \"pmu\": "       \
	"{\"available\": false, \"models\": [], \"reason\": \"VM\"}}, \"thp\": "        \
	"{\"enabled\": \"madvise\", \"sizes\": [{\"order\": 2, \"kb\": 16, \"enabled\": " \
	"\"never\"}], \"khugepaged\": {\"max_ptes_none\": 511}}, \"config\": "          \
	"{\"pattern\": \"chase-tlb\", \"reps\": 2, \"seed\": 1}, "

#define TRIAL0                                                                      \
	"{\"order\": 0, \"pattern\": \"chase-tlb\", \"span\": 1048576, \"rep\": 0, "    \
	"\"accesses\": 1000, \"folios\": {\"hist\": {\"0\": 256}, \"coverage\": 1.0}, " \
	"\"metrics\": {\"ns_per_access\": {\"value\": 10.5, \"source\": \"timing\"}, "  \
	"\"walks\": {\"value\": 900, \"source\": \"pmu\", \"event\": \"x::Y\", "        \
	"\"scale\": 1.0}}}"

static int load(const char *doc, struct results **r, char *err, size_t size)
{
	return results_load_buffer(doc, strlen(doc), "t.json", r, err, size);
}

/* CPUID's padding is gone wherever the model is shown (files written before
 * topo.c trimmed it keep it): plot titles, reports, compare. */
TEST(cpu_model_padding_trimmed)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "Oxide Virtual Turin-like Processor             ",
		  "Oxide Virtual Turin-like Processor" },
		{ "       Intel(R) Xeon(R) CPU           E5-2680 0 @ 2.70GHz",
		  "Intel(R) Xeon(R) CPU E5-2680 0 @ 2.70GHz" },
		{ "   ", "" }, { "", "" }, { "a\tb", "a b" },
	};
	const char *doc = "{\"schema\": \"mthpscope.results/1\", \"tool\": {\"name\": "
		"\"mthpscope\", \"version\": \"0.1.0\"}, \"host\": {\"kernel\": \"6.18.0\", "
		"\"arch\": \"x86_64\", \"cpu_model\": \"AMD EPYC 7B13 64-Core Processor    \", "
		"\"page_size\": 4096, \"pmd_order\": 9, \"pmu\": {\"available\": false}}, "
		"\"thp\": {}, \"config\": {}, "
		"\"trials\": [" TRIAL0 "]}";
	struct results *r;
	char err[512] = "", buf[128];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(buf, sizeof(buf), "%s", cases[i].in);
		ms_squeeze_spaces(buf);
		EXPECT_STREQ(buf, cases[i].out);
	}
	if (load(doc, &r, err, sizeof(err)))
		FAIL_AT("%s", err);
	ASSERT_TRUE(r != NULL);
	EXPECT_STREQ(r->cpu_model, "AMD EPYC 7B13 64-Core Processor");
	results_free(r);
}

TEST(good_document)
{
	const char *doc = HEAD "\"trials\": [" TRIAL0 ", "
		"{\"order\": 4, \"pattern\": \"chase-tlb\", \"span\": 1048576, \"rep\": 1, "
		"\"accesses\": 1000, \"folios\": {\"hist\": {\"0\": 16, \"4\": 240}, "
		"\"coverage\": 0.9375}, \"metrics\": {\"walks\": {\"value\": 500, \"source\": "
		"\"pmu\", \"scale\": 2.5}}}, "
		"{\"order\": 4, \"pattern\": \"sparse\", \"span\": 1048576, \"rep\": 0, "
		"\"folios\": {\"hist\": {}, \"coverage\": null}, "
		"\"metrics\": {\"rss_bytes\": {\"value\": 65536, \"source\": \"kernel\"}}}]}";
	struct results *r;
	char err[512] = "";
	const struct results_metric *m;

	ASSERT_EQ(load(doc, &r, err, sizeof(err)), 0);
	EXPECT_STREQ(r->kernel, "6.18.0");
	EXPECT_STREQ(r->cpu_vendor, "AuthenticAMD");
	EXPECT_EQ(r->pmd_order, 9);
	EXPECT_EQ(r->pmu_available, 0);
	EXPECT_EQ(r->virtualized, 1);
	EXPECT_EQ(r->max_ptes_none, 511);
	EXPECT_EQ(r->nr_sizes, 1);
	EXPECT_EQ(r->config_reps, 2);
	ASSERT_EQ(r->nr_trials, 3);
	EXPECT_EQ(r->trials[0].order, 0);
	EXPECT_EQ(r->trials[0].accesses, 1000);
	EXPECT_EQ(r->trials[0].hist[0], 256);
	EXPECT_NEAR(r->trials[0].coverage, 1.0, 0);
	EXPECT_EQ(r->trials[0].multiplexed, 0);
	m = results_trial_metric(&r->trials[0], "walks");
	ASSERT_TRUE(m);
	EXPECT_NEAR(m->value, 900, 0);
	EXPECT_STREQ(m->source, "pmu");
	EXPECT_STREQ(m->event, "x::Y");
	EXPECT_TRUE(!results_trial_metric(&r->trials[0], "cycles"));
	EXPECT_EQ(r->trials[1].hist[4], 240);
	EXPECT_EQ(r->trials[1].multiplexed, 1);
	EXPECT_EQ(r->trials[1].sparse, 0);
	EXPECT_EQ(r->trials[2].sparse, 1);
	EXPECT_EQ(r->trials[2].has_folios, 0);
	EXPECT_TRUE(isnan(r->trials[2].coverage));
	results_free(r);
}

/* Each row: a document and words its error message must contain. */
TEST(bad_documents)
{
	static const struct {
		const char *doc;
		int err;
		const char *words;
	} rows[] = {
		{ HEAD "\"trials\": [" TRIAL0, -EBADMSG, "truncated JSON" },
		{ "{\"schema\": \"mthpscope.results/1\",, }", -EBADMSG, "malformed JSON at line 1" },
		{ "", -EBADMSG, "empty" },
		/* nan or inf among the bytes before an error is not the token */
		{ "{\"info\": tru}", -EBADMSG, "malformed JSON at line 1, column 12: invalid token" },
		{ "{\"banana\": 1,,}", -EBADMSG, "malformed JSON at line 1, column 14" },
		{ "[1, -inf]", -EBADMSG, "NaN or infinity at line 1" },
		{ "[info]", -EBADMSG, "malformed JSON at line 1, column 5" },
		{ "\xef\xbb\xbf{}", -EBADMSG, "starts with a UTF-8 byte order mark" },
		{ "\xff{}", -EBADMSG, "malformed JSON at line 1, column 1: unable to decode byte 0xff" },
		{ "[1, 2]", -EBADMSG, "$: expected an object" },
		{ "{\"schema\": \"mthpscope.results/2\"}", -EPROTO, "version 'mthpscope.results/2' is not supported" },
		{ "{\"schema\": \"mthpscope.info/1\"}", -EPROTO, "not a results file" },
		{ "{\"trials\": []}", -EBADMSG, "$.schema: missing" },
		{ HEAD "\"trials\": []}", -ENODATA, "no trials" },
		{ HEAD "\"trials\": {}}", -EBADMSG, "$.trials: expected an array" },
		{ "{\"schema\": \"mthpscope.results/1\", \"trials\": []}", -EBADMSG, "$.host: missing" },
		{ HEAD "\"trials\": [{\"order\": 0, \"pattern\": \"x\", \"span\": 4096, \"rep\": 0, "
		  "\"metrics\": {\"ns_per_access\": {\"value\": NaN, \"source\": \"timing\"}}}]}",
		  -EBADMSG, "NaN or infinity" },
		{ HEAD "\"trials\": [{\"order\": 0, \"pattern\": \"x\", \"span\": 4096, \"rep\": 0, "
		  "\"metrics\": {\"ns_per_access\": {\"value\": -Infinity, \"source\": \"timing\"}}}]}",
		  -EBADMSG, "NaN or infinity" },
		{ HEAD "\"trials\": [{\"order\": 0, \"pattern\": \"x\", \"span\": 4096, \"rep\": 0, "
		  "\"metrics\": {\"ns_per_access\": {\"value\": 1e999, \"source\": \"timing\"}}}]}",
		  -EBADMSG, "malformed JSON" },
		{ HEAD "\"trials\": [{\"pattern\": \"x\", \"span\": 4096, \"rep\": 0, \"metrics\": {}}]}",
		  -EBADMSG, "$.trials[0].order: missing" },
		{ HEAD "\"trials\": [" TRIAL0 ", {\"order\": 0, \"pattern\": \"x\", \"span\": 4096, "
		  "\"rep\": 0, \"metrics\": {\"walks\": {\"source\": \"pmu\"}}}]}",
		  -EBADMSG, "$.trials[1].metrics.walks.value: missing" },
		{ HEAD "\"trials\": [{\"order\": 10, \"pattern\": \"x\", \"span\": 4096, \"rep\": 0, "
		  "\"metrics\": {}}]}", -EBADMSG, "$.trials[0].order: 10 is out of range [0, 9]" },
		{ HEAD "\"trials\": [{\"order\": 0, \"pattern\": \"x\", \"span\": 4096, \"rep\": 0, "
		  "\"metrics\": {}}]}", -EBADMSG, "$.trials[0].metrics: empty" },
		{ HEAD "\"trials\": [{\"order\": 0, \"pattern\": \"x\", \"span\": 4096, \"rep\": 0, "
		  "\"metrics\": {\"walks\": {\"value\": 1, \"source\": \"guess\"}}}]}",
		  -EBADMSG, "'guess' is not one of" },
		{ HEAD "\"trials\": [{\"order\": 0, \"pattern\": \"x\", \"span\": 4096, \"rep\": 0, "
		  "\"metrics\": {\"walks\": {\"value\": -1, \"source\": \"pmu\"}}}]}",
		  -EBADMSG, "$.trials[0].metrics.walks.value: -1 is out of range" },
		{ HEAD "\"trials\": [{\"order\": 0, \"pattern\": \"x\", \"span\": \"big\", \"rep\": 0, "
		  "\"metrics\": {}}]}", -EBADMSG, "$.trials[0].span: expected an integer, found a string" },
		{ HEAD "\"trials\": [{\"order\": 0, \"pattern\": \"x\", \"span\": 4096, \"rep\": 0, "
		  "\"folios\": {\"hist\": {\"x\": 1}}, \"metrics\": {}}]}", -EBADMSG,
		  "key 'x' is not a folio order" },
		{ HEAD "\"trials\": [{\"order\": 0, \"pattern\": \"x\", \"span\": 4096, \"rep\": 0, "
		  "\"folios\": {\"hist\": {}, \"coverage\": 1.5}, \"metrics\": {}}]}", -EBADMSG,
		  "$.trials[0].folios.coverage: 1.5 is out of range" },
		{ "{\"schema\": \"mthpscope.results/1\", \"schema\": \"x\"}", -EBADMSG,
		  "duplicate" },
		/* per-round times of an interleaved schedule (issue 12) */
		{ HEAD "\"trials\": [{\"order\": 0, \"pattern\": \"x\", \"span\": 4096, \"rep\": 0, "
		  "\"rounds\": 3, \"metrics\": {}}]}", -EBADMSG,
		  "$.trials[0].rounds: expected an array of numbers, found an integer" },
		{ HEAD "\"trials\": [{\"order\": 0, \"pattern\": \"x\", \"span\": 4096, \"rep\": 0, "
		  "\"rounds\": [], \"metrics\": {}}]}", -EBADMSG, "$.trials[0].rounds: 0 rounds" },
		{ HEAD "\"trials\": [{\"order\": 0, \"pattern\": \"x\", \"span\": 4096, \"rep\": 0, "
		  "\"rounds\": [1.5, \"2\"], \"metrics\": {}}]}", -EBADMSG,
		  "$.trials[0].rounds[1]: expected a number, found a string" },
		{ HEAD "\"trials\": [{\"order\": 0, \"pattern\": \"x\", \"span\": 4096, \"rep\": 0, "
		  "\"rounds\": [1.5, null], \"metrics\": {}}]}", -EBADMSG,
		  "$.trials[0].rounds[1]: expected a number, found null" },
		{ HEAD "\"trials\": [{\"order\": 0, \"pattern\": \"x\", \"span\": 4096, \"rep\": 0, "
		  "\"rounds\": [-2], \"metrics\": {}}]}", -EBADMSG,
		  "$.trials[0].rounds[0]: -2 is not a time" },
		{ "{\"schema\": \"mthpscope.results/1\", \"host\": {\"kernel\": \"k\", \"arch\": \"a\", "
		  "\"pmd_order\": 9, \"pmu\": {\"available\": false}}, \"config\": {\"schedule\": "
		  "\"random\"}, \"trials\": []}", -EBADMSG,
		  "$.config.schedule: 'random' is not \"interleaved\" or \"sequential\"" },
		{ "{\"schema\": \"mthpscope.results/1\", \"host\": {\"kernel\": \"k\", \"arch\": \"a\", "
		  "\"pmd_order\": 9, \"pmu\": {\"available\": false}}, \"config\": {\"schedule\": "
		  "1}, \"trials\": []}", -EBADMSG, "$.config.schedule: expected a string" },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct results *r = (struct results *)1;
		char err[512] = "";
		int rc = load(rows[i].doc, &r, err, sizeof(err));

		if (rc != rows[i].err || !strstr(err, rows[i].words) || r != NULL)
			FAIL_AT("row %zu: rc %d (want %d), message '%s' (want '%s')", i, rc,
				rows[i].err, err, rows[i].words);
		if (strncmp(err, "t.json: ", 8))
			FAIL_AT("row %zu: message does not name the file: '%s'", i, err);
	}
}

/* The writer's rounds and schedule come back through the reader intact;
 * a file without them reads as sequential, without rounds. */
TEST(rounds_round_trip)
{
	const double v[] = { 10.25, 11.5, 0.0, 1e-3, 123456.789 };
	const double bad[] = { 1.0, NAN };
	json_t *doc, *trial, *config = json_pack("{s:s, s:i, s:i, s:s}", "pattern", "chase-tlb",
						 "reps", 1, "seed", 1, "schedule", "interleaved");
	struct results_trial typed;
	struct results *r;
	char *text, err[512] = "";
	size_t i;

	ASSERT_TRUE(config);
	doc = fixture_results_doc(json_pack("{s:s, s:s, s:i, s:{s:b}}", "kernel", "6.18", "arch",
					"x86_64", "pmd_order", 9, "pmu", "available", 0),
			      json_object(), config);
	ASSERT_TRUE(doc);
	results_trial_init(&typed, 0, "chase-tlb", 1 << 20, 0);
	typed.accesses = 1000;
	EXPECT_EQ(results_trial_set_rounds(&typed, v, 0), -EINVAL);
	EXPECT_EQ(results_trial_set_rounds(&typed, bad, 2), -EINVAL);
	EXPECT_EQ(typed.nr_rounds, 0);
	ASSERT_EQ(results_trial_set_rounds(&typed, v, 2), 0);
	ASSERT_EQ(results_trial_set_rounds(&typed, v, 5), 0); /* replaces */
	ASSERT_TRUE(results_trial_set_metric(&typed, "ns_per_access", 11.5, "timing", NULL, -1));
	ASSERT_EQ(results_doc_add_trial(doc, &typed), 0);
	results_trial_clear(&typed);
	results_trial_init(&typed, 2, "chase-tlb", 1 << 20, 0);
	typed.accesses = 1000;
	ASSERT_TRUE(results_trial_set_metric(&typed, "ns_per_access", 9.0, "timing", NULL, -1));
	trial = results_trial_json(&typed); /* none: no key */
	ASSERT_TRUE(trial);
	EXPECT_TRUE(json_object_get(trial, "rounds") == NULL);
	json_decref(trial);
	ASSERT_EQ(results_doc_add_trial(doc, &typed), 0);
	results_trial_clear(&typed);
	text = json_dumps(doc, JSON_REAL_PRECISION(17));
	ASSERT_TRUE(text);
	ASSERT_EQ(load(text, &r, err, sizeof(err)), 0);
	EXPECT_EQ(r->config_schedule, RESULTS_SCHED_INTERLEAVED);
	ASSERT_EQ(r->trials[0].nr_rounds, 5);
	for (i = 0; i < 5; i++)
		EXPECT_NEAR(r->trials[0].rounds[i], v[i], 0);
	EXPECT_EQ(r->trials[1].nr_rounds, 0);
	EXPECT_TRUE(r->trials[1].rounds == NULL);
	results_free(r);
	free(text);
	json_decref(doc);
	/* an older file: no schedule, no rounds */
	ASSERT_EQ(load(HEAD "\"trials\": [" TRIAL0 "]}", &r, err, sizeof(err)), 0);
	EXPECT_EQ(r->config_schedule, RESULTS_SCHED_SEQUENTIAL);
	EXPECT_STREQ(results_schedule_name(r->config_schedule), "sequential");
	EXPECT_EQ(r->trials[0].nr_rounds, 0);
	results_free(r);
}

/* "layout": written and read back whole; a bad one is refused with its
 * path; a file written before it loads, the layout absent (the model is
 * then unavailable, not zero). */
TEST(layout_round_trip)
{
	static const char *bad =
		HEAD "\"trials\": [{\"order\": 0, \"pattern\": \"chase-tlb\", \"span\": "
		"1048576, \"rep\": 0, \"layout\": {\"page_shift\": 12, \"pmd_order\": 2, "
		"\"pmd_maps\": 0, \"excluded\": 0, \"contig\": [4, 2, 2], \"folio\": [4, 0, 0]}, "
		"\"metrics\": {\"ns_per_access\": {\"value\": 1, \"source\": \"timing\"}}}]}";
	json_t *config = json_pack("{s:s, s:i, s:i}", "pattern", "chase-tlb", "reps", 1, "seed", 1);
	struct results_trial typed;
	struct results *r;
	char *text, err[512] = "";
	json_t *doc;

	doc = fixture_results_doc(json_pack("{s:s, s:s, s:i, s:{s:b}}", "kernel", "6.18", "arch",
					"x86_64", "pmd_order", 9, "pmu", "available", 0),
			      json_object(), config);
	ASSERT_TRUE(doc);
	results_trial_init(&typed, 4, "chase-tlb", 1 << 20, 0);
	typed.accesses = 1000;
	layout_hist_init(&typed.layout, 12, 9);
	layout_count_run(256, 4096, 256, 9, typed.layout.contig);
	layout_count_run(256, 4096, 256, 4, typed.layout.folio); /* order-4 folios */
	typed.layout.pmd_maps = 2;
	typed.has_layout = true;
	ASSERT_TRUE(results_trial_set_metric(&typed, "tlb_entries_l2", 64, "model", NULL, -1));
	ASSERT_EQ(results_doc_add_trial(doc, &typed), 0);
	text = json_dumps(doc, 0);
	ASSERT_TRUE(text);
	if (load(text, &r, err, sizeof(err))) {
		FAIL_AT("%s", err);
		harness_exit(1);
	}
	ASSERT_EQ(r->trials[0].has_layout, 1);
	EXPECT_TRUE(!memcmp(&r->trials[0].layout, &typed.layout, sizeof(typed.layout)));
	EXPECT_STREQ(results_trial_metric(&r->trials[0], "tlb_entries_l2")->source, "model");
	results_free(r);
	free(text);
	json_decref(doc);
	results_trial_clear(&typed);
	EXPECT_EQ(load(bad, &r, err, sizeof(err)), -EBADMSG);
	EXPECT_TRUE(strstr(err, "trials[0].layout.contig[2]") != NULL);
	ASSERT_EQ(load(HEAD "\"trials\": [" TRIAL0 "]}", &r, err, sizeof(err)), 0);
	EXPECT_EQ(r->trials[0].has_layout, 0);
	EXPECT_TRUE(!results_trial_metric(&r->trials[0], "tlb_entries_l2"));
	results_free(r);
}

/* "placement": written and read back whole (the first placement without
 * "reused", nor the regions of issue 38: an older file's); a bad one
 * refused with its path; an older file without it loads, has_placement
 * false (analyze then says so: test_analyze). */
TEST(placement_round_trip)
{
	static const char *bad =
		HEAD "\"trials\": [{\"order\": 0, \"pattern\": \"chase-tlb\", \"span\": "
		"1048576, \"rep\": 0, \"placement\": {\"id\": 1, \"reused\": 1.5}, "
		"\"metrics\": {\"ns_per_access\": {\"value\": 1, \"source\": \"timing\"}}}]}";
	json_t *config = json_pack("{s:s, s:i, s:i}", "pattern", "chase-tlb", "reps", 2, "seed", 1);
	const struct results_placement want[2] = {
		{ .id = 0, .pfn_min = 4096, .pfn_median = 70000, .pfn_max = 3000000,
		  .reused = NAN, .ballast_bytes = 0 },
		{ .id = 1, .pfn_min = 2900000, .pfn_median = 2950000, .pfn_max = 2999999,
		  .reused = 0.125, .ballast_bytes = 256ULL << 20, .has_regions = true,
		  .regions_pmd = 196, .regions_pud = 1 },
	};
	struct results_trial typed;
	struct results *r;
	char *text, err[512] = "";
	json_t *doc;
	int i;

	doc = fixture_results_doc(json_pack("{s:s, s:s, s:i, s:{s:b}}", "kernel", "6.18", "arch",
					"x86_64", "pmd_order", 9, "pmu", "available", 0),
			      json_object(), config);
	ASSERT_TRUE(doc);
	for (i = 0; i < 2; i++) {
		results_trial_init(&typed, 0, "chase-tlb", 1 << 20, i);
		typed.accesses = 1000;
		typed.has_placement = true;
		typed.placement = want[i];
		ASSERT_TRUE(results_trial_set_metric(&typed, "ns_per_access", 10, "timing", NULL,
						     -1));
		ASSERT_EQ(results_doc_add_trial(doc, &typed), 0);
		results_trial_clear(&typed);
	}
	text = json_dumps(doc, JSON_REAL_PRECISION(17));
	ASSERT_TRUE(text);
	EXPECT_TRUE(strstr(text, "\"reused\": 0.125") != NULL);
	if (load(text, &r, err, sizeof(err))) {
		FAIL_AT("%s", err);
		harness_exit(1);
	}
	for (i = 0; i < 2; i++) {
		const struct results_placement *p = &r->trials[i].placement;

		EXPECT_EQ(r->trials[i].has_placement, 1);
		EXPECT_EQ(p->id, want[i].id);
		EXPECT_EQ(p->pfn_min, want[i].pfn_min);
		EXPECT_EQ(p->pfn_median, want[i].pfn_median);
		EXPECT_EQ(p->pfn_max, want[i].pfn_max);
		EXPECT_EQ(p->ballast_bytes, want[i].ballast_bytes);
		EXPECT_EQ(p->has_regions, want[i].has_regions);
		EXPECT_EQ(p->regions_pmd, want[i].regions_pmd);
		EXPECT_EQ(p->regions_pud, want[i].regions_pud);
	}
	EXPECT_TRUE(strstr(text, "\"regions_pmd\": 196") != NULL);
	EXPECT_TRUE(isnan(r->trials[0].placement.reused));
	EXPECT_NEAR(r->trials[1].placement.reused, 0.125, 0);
	results_free(r);
	free(text);
	json_decref(doc);
	EXPECT_EQ(load(bad, &r, err, sizeof(err)), -EBADMSG);
	EXPECT_TRUE(strstr(err, "trials[0].placement.reused") != NULL);
	ASSERT_EQ(load(HEAD "\"trials\": [" TRIAL0 "]}", &r, err, sizeof(err)), 0);
	EXPECT_EQ(r->trials[0].has_placement, 0);
	results_free(r);
}

TEST(file_errors)
{
	char path[] = "/tmp/mthpscope-reader-XXXXXX", err[512];
	struct results *r;
	int fd;

	EXPECT_EQ(results_load("/nonexistent/x.json", &r, err, sizeof(err)), -ENOENT);
	EXPECT_TRUE(strstr(err, "cannot open") != NULL);
	EXPECT_EQ(results_load("/tmp", &r, err, sizeof(err)), -EISDIR);
	fd = mkstemp(path);
	ASSERT_TRUE(fd >= 0);
	/* a sparse file past the limit: refused before it is read */
	ASSERT_EQ(ftruncate(fd, (off_t)RESULTS_MAX_BYTES + 1), 0);
	close(fd);
	EXPECT_EQ(results_load(path, &r, err, sizeof(err)), -EFBIG);
	EXPECT_TRUE(strstr(err, "MiB limit") != NULL);
	unlink(path);
}

HARNESS_MAIN
