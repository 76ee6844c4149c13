// SPDX-License-Identifier: GPL-2.0-or-later
/* Command trials in the results model: the reader takes a run -- CMD
 * document (workload, exit, flags, a workload metric with its direction),
 * refuses malformed ones, and the writer's JSON of a typed trial reads back
 * to the same trial (one shape: results_trial). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_util.h"
#include "harness.h"
#include "results.h"

#define HEAD                                                                        \
	"{\"schema\": \"mthpscope.results/1\", \"host\": {\"kernel\": \"6.18.0\", "    \
	"\"arch\": \"x86_64\", \"page_size\": 4096, \"pmd_order\": 9, \"pmu\": "        \
	"{\"available\": false}}, \"config\": {\"command\": \"run\", \"pattern\": "     \
	"\"command\", \"reps\": 1, \"seed\": 1}, "

#define CMD_TRIAL(order, flags, exit)                                               \
	"{\"order\": " #order ", \"pattern\": \"command\", \"rep\": 0, \"workload\": "  \
	"{\"kind\": \"command\", \"argv\": [\"xz\", \"-T1\", \"-k\"]}, \"exit\": " exit \
	", \"folios\": {\"hist\": {\"0\": 10, \"2\": 990}, \"coverage\": 0.99, "        \
	"\"partial\": 3, \"not_present\": 0, \"anon_bytes\": 4096000, \"file_bytes\": " \
	"8192}, \"metrics\": {\"wall_ns\": {\"value\": 1.5e9, \"source\": \"timing\"}, " \
	"\"mb_s\": {\"value\": 42.5, \"source\": \"workload\", \"better\": \"higher\"}}" \
	flags ", \"seq\": 3}"

static int load(const char *doc, struct results **r, char *err, size_t size)
{
	return results_load_buffer(doc, strlen(doc), "t.json", r, err, size);
}

TEST(reads_command_trials)
{
	const char *doc = HEAD "\"trials\": [" CMD_TRIAL(0, "", "{\"code\": 0}") ", "
		CMD_TRIAL(2, ", \"flags\": [\"failed\", \"timeout\"]", "{\"signal\": 9}") "]}";
	const struct results_metric *m;
	struct results *r;
	char err[512] = "";

	ASSERT_EQ(load(doc, &r, err, sizeof(err)), 0);
	ASSERT_EQ(r->nr_trials, 2);
	EXPECT_STREQ(r->config_pattern, "command");
	EXPECT_EQ(r->trials[0].workload, RESULTS_WL_COMMAND);
	EXPECT_STREQ(r->trials[0].pattern, "command");
	EXPECT_EQ(r->trials[0].span, 0);
	EXPECT_EQ(r->trials[0].argc, 3);
	EXPECT_STREQ(r->trials[0].argv[0], "xz");
	EXPECT_STREQ(r->trials[0].argv[2], "-k");
	EXPECT_TRUE(r->trials[0].argv[3] == NULL);
	EXPECT_EQ(r->trials[0].exit_code, 0);
	EXPECT_EQ(r->trials[0].flags, 0);
	EXPECT_EQ(r->trials[0].seq, 3);
	EXPECT_EQ(r->trials[0].hist[2], 990);
	EXPECT_EQ(r->trials[0].partial, 3);
	EXPECT_EQ(r->trials[0].anon_bytes, 4096000);
	EXPECT_NEAR(r->trials[0].coverage, 0.99, 1e-12);
	m = results_trial_metric(&r->trials[0], "mb_s");
	ASSERT_TRUE(m);
	EXPECT_STREQ(m->source, "workload");
	EXPECT_EQ(m->higher_better, 1);
	EXPECT_EQ(results_trial_metric(&r->trials[0], "wall_ns")->higher_better, 0);
	EXPECT_EQ(r->trials[1].flags, RESULTS_F_FAILED | RESULTS_F_TIMEOUT);
	EXPECT_EQ(r->trials[1].exit_signal, 9);
	results_free(r);
}

TEST(refuses_bad_command_trials)
{
	static const struct {
		const char *doc;
		const char *words;
	} rows[] = {
		{ HEAD "\"trials\": [{\"order\": 0, \"rep\": 0, \"workload\": {\"kind\": \"vm\"}, "
		  "\"metrics\": {\"wall_ns\": {\"value\": 1, \"source\": \"timing\"}}}]}",
		  "'vm' is not micro or command" },
		{ HEAD "\"trials\": [{\"order\": 0, \"rep\": 0, \"workload\": {\"kind\": "
		  "\"command\", \"argv\": []}, \"metrics\": {\"wall_ns\": {\"value\": 1, "
		  "\"source\": \"timing\"}}}]}", "argv: expected a non-empty array" },
		{ HEAD "\"trials\": [{\"order\": 0, \"rep\": 0, \"workload\": {\"kind\": "
		  "\"command\", \"argv\": [1]}, \"metrics\": {\"wall_ns\": {\"value\": 1, "
		  "\"source\": \"timing\"}}}]}", "argv[0]: expected a string" },
		{ HEAD "\"trials\": [{\"order\": 0, \"rep\": 0, \"workload\": {\"kind\": "
		  "\"command\", \"argv\": [\"a\"]}, \"flags\": \"failed\", \"metrics\": "
		  "{\"wall_ns\": {\"value\": 1, \"source\": \"timing\"}}}]}",
		  "flags: expected an array" },
		{ HEAD "\"trials\": [{\"order\": 0, \"rep\": 0, \"workload\": {\"kind\": "
		  "\"command\", \"argv\": [\"a\"]}, \"metrics\": {\"x\": {\"value\": 1, "
		  "\"source\": \"workload\", \"better\": \"more\"}}}]}",
		  "'more' is not higher or lower" },
		/* a micro trial still needs its span */
		{ HEAD "\"trials\": [{\"order\": 0, \"pattern\": \"chase-tlb\", \"rep\": 0, "
		  "\"metrics\": {\"ns_per_access\": {\"value\": 1, \"source\": \"timing\"}}}]}",
		  "span: missing" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct results *r = (struct results *)1;
		char err[512] = "";
		int rc = load(rows[i].doc, &r, err, sizeof(err));

		if (rc != -EBADMSG || !strstr(err, rows[i].words) || r != NULL)
			FAIL_AT("row %zu: rc %d, message '%s' (want '%s')", i, rc, err,
				rows[i].words);
	}
}

/* The writer's JSON of a typed trial, read back, is the same trial. */
TEST(writer_round_trip)
{
	char *const argv[] = { "sort", "-n", "in.txt", NULL };
	struct results_trial t, sp;
	struct folio_hist h;
	struct results_metric *m;
	struct results *r;
	json_t *doc;
	char *text, err[512] = "";

	results_trial_init(&t, 4, "command", 0, 1);
	t.workload = RESULTS_WL_COMMAND;
	t.seq = 7;
	t.exit_code = 2;
	t.flags = RESULTS_F_FAILED;
	ASSERT_EQ(results_trial_set_argv(&t, argv), 0);
	memset(&h, 0, sizeof(h));
	h.pages[0] = 100;
	h.pages[4] = 1600;
	h.partial = 12;
	results_trial_set_hist(&t, &h, 0.93);
	t.anon_bytes = 1712 * 4096;
	ASSERT_TRUE(results_trial_set_metric(&t, "wall_ns", 2.5e9, "timing", NULL, -1));
	ASSERT_TRUE(results_trial_set_metric(&t, "page_faults", 1800, "sw", "page-faults", 1.0));
	m = results_trial_set_metric(&t, "ops", 1234.5, "workload", NULL, -1);
	ASSERT_TRUE(m);
	m->higher_better = true;
	/* a metric not measured is absent, never NaN */
	EXPECT_TRUE(results_trial_set_metric(&t, "walks", NAN, "pmu", NULL, -1) == NULL);
	/* the same name replaces */
	ASSERT_TRUE(results_trial_set_metric(&t, "wall_ns", 2.0e9, "timing", NULL, -1));
	EXPECT_EQ(t.nr_metrics, 3);

	results_trial_init(&sp, 2, "sparse", 4 << 20, 0);
	sp.sparse_k = 512;
	sp.touched_pages = 2;
	results_trial_set_hist(&sp, &h, NAN);
	ASSERT_TRUE(results_trial_set_metric(&sp, "rss_bytes", 65536, "kernel", NULL, -1));

	doc = fixture_results_doc(json_pack("{s:s, s:s, s:i, s:{s:b}}", "kernel", "k", "arch", "a",
					"pmd_order", 9, "pmu", "available", 0),
			      json_object(), json_object());
	ASSERT_TRUE(doc);
	ASSERT_EQ(results_doc_add_trial(doc, &t), 0);
	ASSERT_EQ(results_doc_add_trial(doc, &sp), 0);
	text = json_dumps(doc, 0);
	ASSERT_TRUE(text);
	ASSERT_EQ(load(text, &r, err, sizeof(err)), 0);
	ASSERT_EQ(r->nr_trials, 2);
	EXPECT_EQ(r->trials[0].order, 4);
	EXPECT_EQ(r->trials[0].rep, 1);
	EXPECT_EQ(r->trials[0].seq, 7);
	EXPECT_EQ(r->trials[0].workload, RESULTS_WL_COMMAND);
	EXPECT_STREQ(r->trials[0].argv[1], "-n");
	EXPECT_EQ(r->trials[0].exit_code, 2);
	EXPECT_EQ(r->trials[0].flags, RESULTS_F_FAILED);
	EXPECT_EQ(r->trials[0].hist[4], 1600);
	EXPECT_EQ(r->trials[0].partial, 12);
	EXPECT_EQ(r->trials[0].anon_bytes, 1712 * 4096);
	EXPECT_NEAR(r->trials[0].coverage, 0.93, 1e-12);
	EXPECT_NEAR(results_trial_metric(&r->trials[0], "wall_ns")->value, 2.0e9, 0);
	EXPECT_STREQ(results_trial_metric(&r->trials[0], "page_faults")->event, "page-faults");
	EXPECT_EQ(results_trial_metric(&r->trials[0], "ops")->higher_better, 1);
	EXPECT_EQ(r->trials[1].sparse, 1);
	EXPECT_EQ(r->trials[1].sparse_k, 512);
	EXPECT_EQ(r->trials[1].touched_pages, 2);
	EXPECT_EQ(r->trials[1].span, 4 << 20);
	EXPECT_EQ(r->trials[1].has_folios, 0);
	EXPECT_EQ(r->trials[1].has_hist, 1);
	results_free(r);
	free(text);
	json_decref(doc);
	results_trial_clear(&t);
	results_trial_clear(&sp);
}

HARNESS_MAIN
