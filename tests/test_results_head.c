// SPDX-License-Identifier: GPL-2.0-or-later
/* The results document's head (schema, tool, host, thp, config) has one
 * typed model: the loader fills struct results_head, results_head_json writes
 * it back, equal to what run wrote, key for key in order. The fixtures were
 * recorded from real runs on the project's VM (kernel 6.18, no PMU), their
 * trials cut to the first few:
 *   results-head-micro.json:   run --quick --reps 1 --orders 0,2
 *     --pattern chase-tlb,stream --sweep 2M:4M --sparse 8 --defrag madvise
 *     --cpu 0 --seed 7 (interleaved)
 *   results-head-command.json: run --orders 0,9 --reps 1 --timeout 10
 *     --scan-interval 100 --defrag madvise --metric 'ops=ops ([0-9]+)'
 *     --better higher --metric 'lat=lat ([0-9]+)' -- /bin/echo "ops 5 lat 3"
 * A config field of the wrong type or out of range is refused with its JSON
 * path; older files without the newer keys still load. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_util.h"
#include "harness.h"
#include "results.h"

static const char *const fixtures[] = {
	"results-head-micro.json",
	"results-head-command.json",
};

/* The document through the loader (its text, as a file would be read). */
static int load_doc(const json_t *doc, struct results **r, char *err, size_t size)
{
	char *text = json_dumps(doc, JSON_INDENT(2));
	int rc;

	if (!text)
		return -ENOMEM;
	rc = results_load_buffer(text, strlen(text), "t.json", r, err, size);
	free(text);
	return rc;
}

TEST(roundtrip_fixtures)
{
	size_t f;

	for (f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
		json_t *in = fixture_json(fixtures[f]), *out = NULL;
		struct results *r = NULL;
		char err[512] = "";
		int rc;

		rc = load_doc(in, &r, err, sizeof(err));
		if (rc)
			FAIL_AT("%s: %s", fixtures[f], err);
		ASSERT_EQ(rc, 0);
		ASSERT_EQ(results_head_json(&r->head, &out), 0);
		/* the head only: the trials have their own writer */
		json_object_set_new(in, "trials", json_array());
		fixture_expect_same_json(in, out, fixtures[f]);
		results_free(r);
		json_decref(out);
		json_decref(in);
	}
}

TEST(model_holds_every_field)
{
	json_t *in = fixture_json("results-head-micro.json");
	const struct results_config *c;
	struct results *r = NULL;
	char err[512] = "";

	ASSERT_EQ(load_doc(in, &r, err, sizeof(err)), 0);
	c = &r->head.config;
	EXPECT_TRUE(r->head.has_tool && r->head.has_thp && !r->head.thp_stats);
	EXPECT_EQ(r->head.host.pmd_order, 9);
	EXPECT_EQ(r->head.host.topo.page_size, 4096);
	EXPECT_TRUE(r->head.thp.nr_sizes > 0);
	EXPECT_EQ(c->workload, RESULTS_WL_MICRO);
	EXPECT_STREQ(c->command, "run");
	EXPECT_STREQ(c->pattern, "chase-tlb");
	ASSERT_EQ(c->nr_patterns, 2);
	EXPECT_STREQ(c->patterns[1], "stream");
	ASSERT_EQ((int)c->orders.nr, 2);
	EXPECT_EQ(c->orders.order[1], 2);
	ASSERT_EQ(c->nr_spans, 2);
	EXPECT_EQ(c->spans[0], 2 << 20);
	EXPECT_EQ(c->spans[1], 4 << 20);
	EXPECT_EQ(c->reps, 1);
	EXPECT_EQ(c->seed, 7);
	EXPECT_EQ(c->cpu, 0);
	EXPECT_TRUE(c->quick);
	EXPECT_STREQ(c->backend, "timing");
	EXPECT_NEAR(c->target_trial_seconds, 0.1, 0);
	EXPECT_TRUE(c->tlb_reach_bytes > 0 && c->tlb_reach_source[0]);
	EXPECT_EQ(c->sparse_k, 8);
	EXPECT_STREQ(c->sparse_metric, "rss_bytes");
	EXPECT_NEAR(c->coverage_min, 0.95, 0);
	EXPECT_STREQ(c->clock, "CLOCK_THREAD_CPUTIME_ID");
	EXPECT_EQ(c->schedule, RESULTS_SCHED_INTERLEAVED);
	EXPECT_TRUE(c->placement_per_rep);
	EXPECT_EQ(c->defrag, THP_W_MADVISE);
	EXPECT_TRUE(c->argv == NULL);
	/* the flat fields analysis uses come from the same model */
	EXPECT_STREQ(r->config_pattern, "chase-tlb");
	EXPECT_EQ(r->config_schedule, RESULTS_SCHED_INTERLEAVED);
	EXPECT_EQ(r->config_reps, 1);
	EXPECT_EQ(r->config_seed, 7);
	results_free(r);
	json_decref(in);

	in = fixture_json("results-head-command.json");
	ASSERT_EQ(load_doc(in, &r, err, sizeof(err)), 0);
	c = &r->head.config;
	EXPECT_EQ(c->workload, RESULTS_WL_COMMAND);
	EXPECT_STREQ(c->pattern, "command");
	ASSERT_EQ(c->argc, 2);
	EXPECT_STREQ(c->argv[0], "/bin/echo");
	EXPECT_STREQ(c->argv[1], "ops 5 lat 3");
	EXPECT_TRUE(c->argv[2] == NULL);
	EXPECT_EQ(c->scan_interval_ms, 100);
	EXPECT_NEAR(c->timeout_s, 10, 0);
	ASSERT_EQ(c->nr_metrics, 2);
	EXPECT_STREQ(c->metrics[0].name, "ops");
	EXPECT_STREQ(c->metrics[0].regex, "ops ([0-9]+)");
	EXPECT_TRUE(c->metrics[0].higher_better);
	EXPECT_TRUE(!c->metrics[1].higher_better);
	EXPECT_STREQ(c->top_enabled, "always");
	EXPECT_EQ(c->defrag, THP_W_MADVISE);
	EXPECT_EQ(c->nr_spans, 0);
	results_free(r);
	json_decref(in);
}

/* doc at a dotted path ("config.metrics.0.better") set to v (stolen). */
static void edit(json_t *doc, const char *path, json_t *v)
{
	char buf[128], *save = NULL, *k, *next;
	json_t *o = doc;

	snprintf(buf, sizeof(buf), "%s", path);
	k = strtok_r(buf, ".", &save);
	while ((next = strtok_r(NULL, ".", &save))) {
		o = json_is_array(o) ? json_array_get(o, strtoul(k, NULL, 10))
				     : json_object_get(o, k);
		k = next;
	}
	if (json_is_array(o))
		json_array_set_new(o, strtoul(k, NULL, 10), v);
	else
		json_object_set_new(o, k, v);
}

TEST(rejects_bad_config)
{
	static const struct {
		const char *fixture, *path, *value, *msg;
	} cases[] = {
		{ "micro", "config.reps", "\"3\"", "$.config.reps: expected an integer, found a string" },
		{ "micro", "config.orders.1", "\"2\"", "$.config.orders[1]: expected an order 0-" },
		{ "micro", "config.orders.1", "99", "$.config.orders[1]: expected an order 0-" },
		{ "micro", "config.spans", "{}", "$.config.spans: expected an array, found an object" },
		{ "micro", "config.patterns.0", "7", "$.config.patterns[0]: expected a pattern name" },
		{ "micro", "config.quick", "1", "$.config.quick: expected true or false" },
		{ "micro", "config.target_trial_seconds", "\"0.1\"",
		  "$.config.target_trial_seconds: expected a number" },
		{ "micro", "config.tlb_reach.bytes", "-1", "$.config.tlb_reach.bytes: -1 is out of range" },
		{ "micro", "config.sparse.k", "true", "$.config.sparse.k: expected an integer" },
		{ "micro", "config.coverage_min", "1.5", "$.config.coverage_min: 1.5 is out of range" },
		{ "micro", "config.schedule", "1", "$.config.schedule: expected a string" },
		{ "micro", "config.placement", "\"fixed\"",
		  "$.config.placement: expected \"per-rep\", found fixed" },
		{ "micro", "config.defrag", "\"sometimes\"",
		  "$.config.defrag: 'sometimes' is not a THP word" },
		{ "micro", "config.cpu", "-2", "$.config.cpu: -2 is out of range" },
		{ "micro", "tool.version", "1", "$.tool.version: expected a string" },
		{ "micro", "thp.sizes.0.enabled", "\"bogus\"",
		  "$.thp.sizes[0].enabled: 'bogus' is not a THP word" },
		{ "micro", "host.topology.cores", "\"2\"",
		  "$.host.topology.cores: expected an integer, found a string" },
		{ "command", "config.workload.argv", "[]",
		  "$.config.workload.argv: expected a non-empty array of strings" },
		{ "command", "config.workload.argv.1", "5",
		  "$.config.workload.argv[1]: expected a string, found an integer" },
		{ "command", "config.workload.kind", "\"script\"",
		  "$.config.workload.kind: 'script' is not micro or command" },
		{ "command", "config.metrics.1.better", "\"up\"",
		  "$.config.metrics[1].better: 'up' is not higher or lower" },
		{ "command", "config.metrics.0.name", "null",
		  "$.config.metrics[0].name: expected a string, found null" },
		{ "command", "config.metrics.0", "\"ops\"",
		  "$.config.metrics[0]: expected an object, found a string" },
		{ "command", "config.timeout_s", "\"10\"", "$.config.timeout_s: expected a number" },
		{ "command", "config.scan_interval_ms", "1.5",
		  "$.config.scan_interval_ms: expected an integer, found a real number" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[64], err[512] = "";
		struct results *r = NULL;
		json_t *doc;
		int rc;

		snprintf(name, sizeof(name), "results-head-%s.json", cases[i].fixture);
		doc = fixture_json(name);
		edit(doc, cases[i].path, json_loads(cases[i].value, JSON_DECODE_ANY, NULL));
		rc = load_doc(doc, &r, err, sizeof(err));
		if (rc != -EBADMSG)
			FAIL_AT("%s = %s: rc %d, want -EBADMSG (%s)", cases[i].path, cases[i].value,
				rc, err);
		if (!strstr(err, cases[i].msg))
			FAIL_AT("%s = %s: message '%s' lacks '%s'", cases[i].path, cases[i].value,
				err, cases[i].msg);
		EXPECT_TRUE(r == NULL);
		json_decref(doc);
	}
}

/* A file of an older run: a config with few keys, a thp summary without
 * per_size_mthp. It loads; the model holds what is there and the defaults. */
TEST(older_document_loads)
{
	static const char doc[] =
		"{\"schema\": \"mthpscope.results/1\", \"host\": {\"kernel\": \"6.8\", \"arch\": "
		"\"x86_64\", \"pmd_order\": 9, \"pmu\": {\"available\": false}}, \"thp\": "
		"{\"enabled\": \"madvise\", \"sizes\": [{\"order\": 2, \"kb\": 16}], "
		"\"khugepaged\": {}}, \"config\": {\"command\": \"run\", \"pattern\": \"chase-tlb\", "
		"\"orders\": [0, 2], \"spans\": [4194304], \"seed\": 3}, \"trials\": [{\"order\": 0, "
		"\"pattern\": \"chase-tlb\", \"span\": 4194304, \"rep\": 0, \"metrics\": "
		"{\"ns_per_access\": {\"value\": 5, \"source\": \"timing\"}}}]}";
	struct results *r = NULL;
	char err[512] = "";

	ASSERT_EQ(results_load_buffer(doc, strlen(doc), "old.json", &r, err, sizeof(err)), 0);
	EXPECT_TRUE(!r->head.has_tool && !r->head.has_thp);
	EXPECT_EQ(r->head.host.pmd_order, 9);
	EXPECT_EQ((int)r->head.config.orders.nr, 2);
	EXPECT_EQ(r->head.config.seed, 3);
	EXPECT_EQ(r->head.config.reps, -1);
	EXPECT_EQ(r->head.config.cpu, -1);
	EXPECT_EQ(r->head.config.defrag, THP_W_NONE);
	EXPECT_EQ(r->head.config.schedule, RESULTS_SCHED_SEQUENTIAL);
	EXPECT_TRUE(!r->head.config.placement_per_rep);
	EXPECT_EQ(r->config_reps, -1);
	EXPECT_STREQ(r->thp_enabled, "madvise");
	results_free(r);
}

/* $.interrupted (a fixed plan a signal cut) is read, written back by the
 * head's writer, absent from a whole run's head, and a boolean or an error. */
TEST(interrupted_run)
{
	json_t *in = fixture_json("results-head-micro.json"), *out = NULL;
	struct results *r = NULL;
	char err[512] = "";

	ASSERT_EQ(load_doc(in, &r, err, sizeof(err)), 0);
	EXPECT_TRUE(!r->head.interrupted);
	ASSERT_EQ(results_head_json(&r->head, &out), 0);
	EXPECT_TRUE(!json_object_get(out, "interrupted"));
	json_decref(out);
	results_free(r);
	json_object_set_new(in, "interrupted", json_true());
	ASSERT_EQ(load_doc(in, &r, err, sizeof(err)), 0);
	EXPECT_TRUE(r->head.interrupted);
	ASSERT_EQ(results_head_json(&r->head, &out), 0);
	EXPECT_TRUE(json_is_true(json_object_get(out, "interrupted")));
	json_decref(out);
	results_free(r);
	json_object_set_new(in, "interrupted", json_string("yes"));
	EXPECT_EQ(load_doc(in, &r, err, sizeof(err)), -EBADMSG);
	EXPECT_TRUE(strstr(err, "interrupted") != NULL);
	json_decref(in);
}

/* The writer refuses a model it cannot write faithfully. */
TEST(writer_rejects_bad_model)
{
	json_t *in = fixture_json("results-head-micro.json"), *out = (json_t *)1;
	struct results *r = NULL;
	char err[512] = "";
	char *const argv[] = { "true", NULL }, *const none[] = { NULL };

	ASSERT_EQ(load_doc(in, &r, err, sizeof(err)), 0);
	r->head.config.orders.nr = FOLIO_MAX_ORDER + 2;
	EXPECT_EQ(results_head_json(&r->head, &out), -EINVAL);
	EXPECT_TRUE(out == NULL);
	r->head.config.orders.nr = 2;
	r->head.config.defrag = 42;
	EXPECT_EQ(results_head_json(&r->head, &out), -EINVAL);
	r->head.config.defrag = THP_W_NONE;
	r->head.config.schedule = (enum results_schedule)7;
	EXPECT_EQ(results_head_json(&r->head, &out), -EINVAL);
	r->head.config.schedule = RESULTS_SCHED_SEQUENTIAL;
	r->head.config.workload = RESULTS_WL_COMMAND; /* without argv */
	EXPECT_EQ(results_head_json(&r->head, &out), -EINVAL);
	EXPECT_EQ(results_config_set_argv(&r->head.config, none), -EINVAL);
	ASSERT_EQ(results_config_set_argv(&r->head.config, argv), 0);
	ASSERT_EQ(results_head_json(&r->head, &out), 0);
	EXPECT_STREQ(json_string_value(json_array_get(json_object_get(json_object_get(
		json_object_get(out, "config"), "workload"), "argv"), 0)), "true");
	EXPECT_TRUE(json_object_get(json_object_get(out, "config"), "defrag") == NULL);
	json_decref(out);
	results_free(r);
	json_decref(in);
}

/* argv is copied, string by string, and a second one replaces the first
 * (the old copy freed: ASan's leak check runs on this); the trial's too. */
TEST(argv_is_copied_and_replaced)
{
	char a0[] = "sh", a1[] = "-c", a2[] = "true";
	char *two[] = { a0, a1, NULL }, *one[] = { a2, NULL };
	struct results_config c;
	struct results_trial t;

	results_config_init(&c);
	ASSERT_EQ(results_config_set_argv(&c, two), 0);
	a0[0] = 'x';
	EXPECT_EQ(c.argc, 2);
	EXPECT_STREQ(c.argv[0], "sh");
	EXPECT_STREQ(c.argv[1], "-c");
	EXPECT_TRUE(c.argv[2] == NULL);
	ASSERT_EQ(results_config_set_argv(&c, one), 0);
	EXPECT_EQ(c.argc, 1);
	EXPECT_STREQ(c.argv[0], "true");
	EXPECT_TRUE(c.argv[1] == NULL);
	results_config_clear(&c);
	EXPECT_TRUE(c.argv == NULL);

	results_trial_init(&t, 2, "random", 1 << 20, 0);
	ASSERT_EQ(results_trial_set_argv(&t, two), 0);
	EXPECT_EQ(t.argc, 2);
	EXPECT_STREQ(t.argv[0], "xh");
	results_trial_clear(&t);
	EXPECT_TRUE(t.argv == NULL);
}

HARNESS_MAIN
