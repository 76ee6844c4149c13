// SPDX-License-Identifier: GPL-2.0-or-later
/* The collapse document's one model: collapse_doc_read then collapse_doc_json
 * gives back the document collapse wrote (tests/data/collapse-*.json, real
 * documents of 'mthpscope collapse', one with counters, creep and a
 * MADV_COLLAPSE error added), equal as JSON and key for key in order; the
 * reader rejects each kind of bad field with its JSON path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collapse_doc.h"
#include "fixture_util.h"
#include "harness.h"

static const char *const fixtures[] = {
	"collapse-madvise-measure.json", /* madvise, --measure */
	"collapse-sweep.json",           /* khugepaged, max_ptes_none 511,0 */
	"collapse-orders.json",          /* khugepaged, orders 2-9 */
	"collapse-creep.json",           /* counters, creep, madvise error */
	"collapse-guest-7.3.4-amd64.json",   /* guest 7.3.4: kernel_support, rss_creep, kernel_log */
	"collapse-guest-6.12.118-amd64.json", /* guest 6.12.118: a sweep of 6 */
};

TEST(roundtrip_fixtures)
{
	size_t f;

	for (f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
		json_t *in = fixture_json(fixtures[f]), *out = NULL;
		struct collapse_doc d;
		char err[512] = "";
		int rc;

		rc = collapse_doc_read(in, &d, err, sizeof(err));
		if (rc)
			FAIL_AT("%s: %s", fixtures[f], err);
		ASSERT_EQ(rc, 0);
		ASSERT_EQ(collapse_doc_json(&d, &out), 0);
		fixture_expect_same_json(in, out, fixtures[f]);
		collapse_doc_free(&d);
		json_decref(out);
		json_decref(in);
	}
}

TEST(model_holds_every_field)
{
	json_t *in = fixture_json("collapse-creep.json");
	struct collapse_doc d;
	const struct collapse_doc_run *r;
	char err[512] = "";

	ASSERT_EQ(collapse_doc_read(in, &d, err, sizeof(err)), 0);
	EXPECT_STREQ(d.config.mode, "madvise");
	EXPECT_EQ(d.config.orders.nr, 1);
	EXPECT_EQ(d.config.orders.order[0], 9);
	EXPECT_EQ(d.config.nr_enabled_as, 1);
	EXPECT_EQ(d.config.enabled_as[0].word, THP_W_MADVISE);
	EXPECT_EQ(d.config.nr_max_ptes_none, 1);
	EXPECT_EQ(d.config.max_ptes_none[0], 511);
	EXPECT_TRUE(d.config.measure);
	EXPECT_TRUE(!d.config.has_khugepaged);
	EXPECT_EQ(d.host.topo.page_size, 4096);
	EXPECT_EQ(d.host.pmd_order, 9);
	EXPECT_TRUE(d.has_thp);
	EXPECT_TRUE(d.thp.nr_sizes > 0);
	ASSERT_EQ(d.nr_runs, 1);
	r = &d.runs[0];
	EXPECT_EQ(r->nr_counters, 2);
	EXPECT_STREQ(r->counters[1].name, "collapse_alloc_failed");
	EXPECT_EQ(r->counters[1].delta, -1);
	EXPECT_TRUE(r->creep);
	EXPECT_EQ(r->creep_from, 4);
	EXPECT_EQ(r->creep_to, 9);
	EXPECT_STREQ(r->madvise_error, "Invalid argument");
	EXPECT_TRUE(r->has_measure);
	EXPECT_EQ(r->before.pages[0] + r->before.pages[9] > 0, 1);
	EXPECT_STREQ(r->verdict, "pmd-only");
	collapse_doc_free(&d);
	json_decref(in);
}

/* A document of an older or hand-made kind (the fuzz corpus's minimal one):
 * still read, the fields it lacks 0 / absent. */
TEST(minimal_document_reads)
{
	const char *text = "{\"schema\":\"mthpscope.collapse/1\",\"host\":{\"page_size\":4096},"
			   "\"config\":{},\"runs\":[{\"max_ptes_none\":511,\"timeline\":["
			   "{\"t_ms\":0,\"hist\":{\"0\":512}},{\"t_ms\":100,\"hist\":{\"9\":512}}]}]}";
	json_t *in = json_loads(text, 0, NULL);
	struct collapse_doc d;
	char err[512] = "";

	ASSERT_TRUE(in);
	ASSERT_EQ(collapse_doc_read(in, &d, err, sizeof(err)), 0);
	EXPECT_TRUE(!d.has_tool && !d.has_thp);
	EXPECT_EQ(d.nr_runs, 1);
	EXPECT_EQ(d.runs[0].nr_samples, 2);
	EXPECT_EQ(d.runs[0].first_collapse_ms, -1);
	EXPECT_TRUE(!d.runs[0].has_measure && !d.runs[0].has_madvise);
	EXPECT_EQ(d.hist_orders, (1UL << 0) | (1UL << 9));
	collapse_doc_free(&d);
	json_decref(in);
}

/* $.runs[i].final_ranges: the last sample range by range, read and written
 * back as it was; documents without it read with none. */
TEST(final_ranges_roundtrip)
{
	const char *text = "{\"schema\":\"mthpscope.collapse/1\",\"host\":{\"page_size\":4096},"
			   "\"config\":{},\"runs\":[{\"max_ptes_none\":0,\"timeline\":["
			   "{\"t_ms\":0,\"hist\":{\"0\":600}}],\"final_ranges\":["
			   "{\"range\":0,\"hist\":{\"0\":88,\"4\":256},\"partial\":0},"
			   "{\"range\":1,\"hist\":{\"0\":256},\"partial\":0}]}]}";
	json_t *in = json_loads(text, 0, NULL), *out = NULL;
	struct collapse_doc d;
	char err[512] = "";

	ASSERT_TRUE(in);
	ASSERT_EQ(collapse_doc_read(in, &d, err, sizeof(err)), 0);
	ASSERT_EQ(d.runs[0].nr_ranges, 2);
	EXPECT_EQ(d.runs[0].ranges[0].pages[0], 88);
	EXPECT_EQ(d.runs[0].ranges[0].pages[4], 256);
	EXPECT_EQ(d.runs[0].ranges[1].pages[0], 256);
	ASSERT_EQ(collapse_doc_json(&d, &out), 0);
	EXPECT_TRUE(json_equal(json_object_get(json_array_get(json_object_get(in, "runs"), 0),
					       "final_ranges"),
			       json_object_get(out, "final_ranges")));
	json_decref(out);
	collapse_doc_free(&d);
	json_decref(in);
}

/* $.interrupted: a sweep ended by SIGINT/SIGTERM says so, and the writer
 * gives it back; a whole sweep has no such key; it is a boolean or an error. */
#define INTERRUPTED_DOC(v)                                                                  \
	"{\"schema\":\"mthpscope.collapse/1\",\"host\":{\"page_size\":4096},"                   \
	"\"config\":{\"max_ptes_none\":[0,511]},\"interrupted\":" v ",\"runs\":["                \
	"{\"max_ptes_none\":0,\"timeline\":[{\"t_ms\":0,\"hist\":{\"0\":512}}]}]}"

TEST(interrupted_sweep)
{
	json_t *in = json_loads(INTERRUPTED_DOC("true"), 0, NULL), *out = NULL;
	struct collapse_doc d;
	char err[512] = "";

	ASSERT_TRUE(in);
	ASSERT_EQ(collapse_doc_read(in, &d, err, sizeof(err)), 0);
	EXPECT_TRUE(d.interrupted);
	EXPECT_EQ(d.nr_runs, 1);
	ASSERT_EQ(collapse_doc_json(&d, &out), 0);
	EXPECT_TRUE(json_is_true(json_object_get(out, "interrupted")));
	json_decref(out);
	d.interrupted = false;
	ASSERT_EQ(collapse_doc_json(&d, &out), 0);
	EXPECT_TRUE(!json_object_get(out, "interrupted"));
	json_decref(out);
	collapse_doc_free(&d);
	json_decref(in);

	in = json_loads(INTERRUPTED_DOC("\"yes\""), 0, NULL);
	ASSERT_TRUE(in);
	EXPECT_EQ(collapse_doc_read(in, &d, err, sizeof(err)), -EBADMSG);
	EXPECT_TRUE(strstr(err, "interrupted") != NULL);
	json_decref(in);
}

/* max_ptes_none is 0 to the pages of a PMD less one, of the document's own
 * host: 16K and 64K pages (arm64) allow more than 511; a host without a PMD
 * size gets the bound of the largest PMD order. */
TEST(max_ptes_none_bound_of_the_host)
{
	static const struct {
		const char *host;  /* $.host's fields after page_size */
		long long ok, bad; /* the largest value read, the smallest refused */
		const char *msg;
	} cases[] = {
		{ "\"page_size\":4096,\"pmd_order\":9,\"pmd_size\":2097152", 511, 512,
		  "[0, 511] (a 2097152-byte PMD holds 512 pages of 4096 bytes)" },
		{ "\"page_size\":4096,\"pmd_order\":9", 511, 512,
		  "[0, 511] (a PMD of order 9 holds 512 pages)" },
		{ "\"page_size\":16384,\"pmd_order\":11,\"pmd_size\":33554432", 2047, 2048,
		  "[0, 2047] (a 33554432-byte PMD holds 2048 pages of 16384 bytes)" },
		{ "\"page_size\":65536,\"pmd_size\":536870912", 8191, 8192,
		  "[0, 8191] (a 536870912-byte PMD holds 8192 pages of 65536 bytes)" },
		{ "\"page_size\":4096", 1048575, 1048576,
		  "[0, 1048575] ($.host gives no PMD size; no PMD holds more than 1048576 pages)" },
	};
	size_t i;
	int where;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (where = 0; where < 2; where++) { /* $.config, then $.runs[0] */
			long long v[2] = { cases[i].ok, cases[i].bad };
			int k;

			for (k = 0; k < 2; k++) {
				char text[512], err[512] = "", want[256];
				struct collapse_doc d;
				json_t *in;
				int rc;

				snprintf(text, sizeof(text),
					 "{\"schema\":\"mthpscope.collapse/1\",\"host\":{%s},"
					 "\"config\":{\"max_ptes_none\":[%lld]},\"runs\":[{"
					 "\"max_ptes_none\":%lld,\"timeline\":[]}]}", cases[i].host,
					 where == 0 ? v[k] : 0, where == 1 ? v[k] : 0);
				in = json_loads(text, 0, NULL);
				ASSERT_TRUE(in);
				rc = collapse_doc_read(in, &d, err, sizeof(err));
				if (k == 0) {
					if (rc)
						FAIL_AT("%s: %lld refused: %s", cases[i].host, v[k], err);
					else
						EXPECT_EQ(where ? d.runs[0].max_ptes_none :
							  d.config.max_ptes_none[0], v[k]);
				} else {
					snprintf(want, sizeof(want), "%s: %lld is out of range %s",
						 where ? "$.runs[0].max_ptes_none" :
							 "$.config.max_ptes_none[0]",
						 v[k], cases[i].msg);
					if (rc != -EBADMSG || !strstr(err, want))
						FAIL_AT("%s: %lld: rc %d '%s', want '%s'",
							cases[i].host, v[k], rc, err, want);
				}
				if (!rc)
					collapse_doc_free(&d);
				json_decref(in);
			}
		}
	}
}

/* One bad field each, set in a real document by a jansson path edit. */
struct bad_case {
	const char *what;
	void (*edit)(json_t *doc);
	int rc;
	const char *msg;
};

static json_t *run0(json_t *doc) { return json_array_get(json_object_get(doc, "runs"), 0); }

static void e_source(json_t *d)
{
	json_object_set_new(json_object_get(json_object_get(json_object_get(run0(d), "measure"),
							    "before"), "ns_per_access"),
			    "source", json_string("pmu"));
}
static void e_word(json_t *d)
{
	json_object_set_new(json_object_get(json_object_get(d, "config"), "enabled_as"), "9",
			    json_string("sometimes"));
}
static void e_thp(json_t *d)
{
	json_object_set_new(json_array_get(json_object_get(json_object_get(d, "thp"), "sizes"), 1),
			    "enabled", json_string("bogus"));
}
static void e_cores(json_t *d)
{
	json_object_set_new(json_object_get(json_object_get(d, "host"), "topology"), "cores",
			    json_string("2"));
}
static void e_reached(json_t *d)
{
	json_object_set_new(run0(d), "orders_reached", json_pack("[i, i]", 9, 9));
}
static void e_name(json_t *d)
{
	json_object_set_new(run0(d), "collapse_counters",
			    json_pack("[{s:i, s:s, s:i}]", "order", 4, "name",
				      "collapse_a_counter_name_longer_than_forty_chars", "delta", 1));
}
static void e_version(json_t *d)
{
	json_object_set_new(json_object_get(d, "tool"), "version", json_integer(1));
}
static void e_mpn(json_t *d)
{
	json_object_set_new(json_object_get(d, "config"), "max_ptes_none", json_pack("[i]", 512));
}
static void e_run_mpn(json_t *d)
{
	json_object_set_new(run0(d), "max_ptes_none", json_integer(512));
}
static void e_mpn_type(json_t *d)
{
	json_object_set_new(json_object_get(d, "config"), "max_ptes_none", json_pack("[s]", "511"));
}
static void e_pmd_size(json_t *d)
{
	json_object_set_new(json_object_get(d, "host"), "pmd_size", json_integer(3000000));
}
static void e_pmd_order(json_t *d)
{
	json_object_set_new(json_object_get(d, "host"), "pmd_order", json_integer(13));
}
static void e_creep(json_t *d)
{
	json_object_set_new(run0(d), "creep", json_pack("{s:b}", "happened", 1));
}
static void e_schema(json_t *d)
{
	json_object_set_new(d, "schema", json_string("mthpscope.collapse/2"));
}
static void e_noruns(json_t *d)
{
	json_object_set_new(d, "runs", json_array());
}
static void e_range_at(json_t *d)
{
	json_object_set_new(run0(d), "final_ranges",
			    json_pack("[{s:i, s:{}}]", "range", 1, "hist"));
}
static void e_range_hist(json_t *d)
{
	json_object_set_new(run0(d), "final_ranges", json_pack("[{s:i}]", "range", 0));
}
static void e_hist(json_t *d)
{
	json_object_set_new(json_object_get(json_array_get(json_object_get(run0(d), "timeline"), 0),
					    "hist"), "9", json_string("512"));
}

TEST(rejects_bad_fields)
{
	static const struct bad_case cases[] = {
		{ "fixed word", e_source, -EBADMSG,
		  "$.runs[0].measure.before.ns_per_access.source: expected \"timing\", found pmu" },
		{ "enabled_as word", e_word, -EBADMSG, "$.config.enabled_as.9: expected a THP word" },
		{ "thp word", e_thp, -EBADMSG, "$.thp.sizes[1].enabled: 'bogus' is not a THP word" },
		{ "host type", e_cores, -EBADMSG,
		  "$.host.topology.cores: expected an integer, found a string" },
		{ "order twice", e_reached, -EBADMSG, "$.runs[0].orders_reached[1]: order 9 twice" },
		{ "name too long", e_name, -EBADMSG,
		  "$.runs[0].collapse_counters[0].name: longer than 39 characters" },
		{ "version type", e_version, -EBADMSG, "$.tool.version: expected a string" },
		{ "max_ptes_none range", e_mpn, -EBADMSG,
		  "$.config.max_ptes_none[0]: 512 is out of range [0, 511] (a 2097152-byte PMD "
		  "holds 512 pages of 4096 bytes)" },
		{ "run max_ptes_none range", e_run_mpn, -EBADMSG,
		  "$.runs[0].max_ptes_none: 512 is out of range [0, 511]" },
		{ "max_ptes_none type", e_mpn_type, -EBADMSG,
		  "$.config.max_ptes_none[0]: expected an integer, found a string" },
		{ "pmd_size not pages", e_pmd_size, -EBADMSG,
		  "$.host.pmd_size: 3000000 is not a power-of-two number (at least 2) of "
		  "4096-byte pages" },
		{ "pmd_size and order", e_pmd_order, -EBADMSG,
		  "$.host.pmd_size: 2097152 is 512 pages of 4096 bytes, but $.host.pmd_order is 13" },
		{ "creep without orders", e_creep, -EBADMSG, "$.runs[0].creep.from: missing" },
		{ "another version", e_schema, -EPROTO, "version 'mthpscope.collapse/2' is not "
							 "supported" },
		{ "no runs", e_noruns, -ENODATA, "$.runs: no runs" },
		{ "range out of order", e_range_at, -EBADMSG,
		  "$.runs[0].final_ranges[0].range: 1, expected 0" },
		{ "range without hist", e_range_hist, -EBADMSG,
		  "$.runs[0].final_ranges[0].hist: missing" },
		{ "string count", e_hist, -EBADMSG,
		  "$.runs[0].timeline[0].hist.9: expected a page count" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *doc = fixture_json("collapse-madvise-measure.json");
		struct collapse_doc d;
		char err[512] = "";
		int rc;

		cases[i].edit(doc);
		rc = collapse_doc_read(doc, &d, err, sizeof(err));
		if (rc != cases[i].rc)
			FAIL_AT("%s: rc %d, want %d (%s)", cases[i].what, rc, cases[i].rc, err);
		if (!strstr(err, cases[i].msg))
			FAIL_AT("%s: message '%s' lacks '%s'", cases[i].what, err, cases[i].msg);
		/* zeroed on failure: nothing to free, nothing left */
		EXPECT_EQ(d.nr_runs, 0);
		EXPECT_TRUE(d.runs == NULL);
		json_decref(doc);
	}
}

HARNESS_MAIN
