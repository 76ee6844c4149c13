// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The record document: every field of the model written and read back
 * (a round trip is the identity), the reader's refusals (other schemas,
 * bad orders, page sizes, counts), and the counting helpers.
 */
#include <math.h>

#include "harness.h"
#include "record_doc.h"
#include "record_report.h"

static void fill(struct record_doc *d)
{
	static char *argv[] = { "sort", "-n", "data.txt", NULL };
	int o;

	memset(d, 0, sizeof(*d));
	snprintf(d->tool_version, sizeof(d->tool_version), "0.1.0-test");
	snprintf(d->host.topo.kernel, sizeof(d->host.topo.kernel), "6.18.0");
	snprintf(d->host.topo.arch, sizeof(d->host.topo.arch), "x86_64");
	d->host.topo.page_size = 4096;
	d->host.pmd_order = 9;
	d->host.pmd_size = 2 << 20;
	snprintf(d->config.event, sizeof(d->config.event), "page-faults");
	snprintf(d->config.source, sizeof(d->config.source), "sw");
	d->config.period = 1;
	d->config.data_pages = 256;
	d->config.interval_ms = 10;
	d->config.data_page_size = true;
	d->config.window_bytes = 2 << 20;
	d->config.top_windows = 20;
	ASSERT_EQ(record_config_set_argv(&d->config, argv), 0);
	d->outcome.has_exit = true;
	d->outcome.exit_code = 3;
	d->outcome.wall_s = 1.25;
	d->outcome.exit_scan_s = 0.125;
	d->outcome.lost = 7;
	d->outcome.no_vma = 2;
	d->outcome.process_gone = 1;
	d->outcome.nr_processes = 2;
	d->outcome.interrupted = true;
	d->nr_vmas = 2;
	d->vmas = calloc(2, sizeof(*d->vmas));
	d->vmas[0] = (struct record_vma){ .pid = 42, .start = 0x7f0000000000ULL,
					   .end = 0x7f0004000000ULL, .kind = "anon" };
	d->vmas[1] = (struct record_vma){ .pid = 42, .start = 0x555500000000ULL,
					   .end = 0x555500021000ULL, .name = "[heap]", .kind = "heap" };
	for (o = 0; o < 5; o++)
		record_counts_add(&d->vmas[0].s, o == 3 ? 4 : 0, false, o == 1, true, o ? 4096 : 0);
	record_counts_add(&d->vmas[0].s, 9, true, false, true, 2 << 20);
	record_counts_add(&d->vmas[1].s, RECORD_AT_PARTIAL, false, false, false, 0);
	record_counts_add(&d->vmas[1].s, RECORD_AT_OTHER, false, false, false, 0);
	record_counts_add(&d->vmas[1].s, RECORD_AT_UNMAPPED, false, true, false, 0);
	d->vmas[0].mem = (struct record_memory){ .scanned = true, .pages = { [0] = 100, [4] = 48 },
						 .partial = 3, .other = 1, .present = 152 };
	d->total = d->vmas[0].s;
	d->nr_windows = 1;
	d->windows = calloc(1, sizeof(*d->windows));
	d->windows[0] = (struct record_window){ .pid = 42, .start = 0x7f0000200000ULL };
	snprintf(d->windows[0].vma, sizeof(d->windows[0].vma), "[heap]");
	d->windows[0].nr_vmas = 3;
	d->windows[0].s = d->vmas[0].s;
	d->windows[0].mem = d->vmas[0].mem;
}

static void expect_same_counts(const struct record_counts *a, const struct record_counts *b)
{
	EXPECT_EQ(memcmp(a, b, sizeof(*a)), 0);
}

TEST(round_trip)
{
	struct record_doc a, b;
	char err[256];
	json_t *j, *j2;
	size_t i;

	fill(&a);
	ASSERT_EQ(record_doc_json(&a, &j), 0);
	ASSERT_EQ(record_doc_read(j, &b, err, sizeof(err)), 0);
	EXPECT_STREQ(b.tool_version, a.tool_version);
	EXPECT_STREQ(b.config.event, "page-faults");
	EXPECT_STREQ(b.config.argv[2], "data.txt");
	EXPECT_TRUE(b.config.argv[3] == NULL);
	EXPECT_EQ(b.config.period, 1);
	EXPECT_EQ(b.outcome.exit_code, 3);
	EXPECT_EQ(b.outcome.lost, 7);
	EXPECT_TRUE(b.outcome.interrupted);
	EXPECT_EQ(b.outcome.nr_processes, 2);
	EXPECT_NEAR(b.outcome.wall_s, 1.25, 1e-9);
	EXPECT_NEAR(b.outcome.exit_scan_s, 0.125, 1e-9);
	ASSERT_EQ(b.nr_vmas, 2);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(b.vmas[i].start, a.vmas[i].start);
		EXPECT_EQ(b.vmas[i].end, a.vmas[i].end);
		EXPECT_STREQ(b.vmas[i].name, a.vmas[i].name);
		EXPECT_STREQ(b.vmas[i].kind, a.vmas[i].kind);
		expect_same_counts(&b.vmas[i].s, &a.vmas[i].s);
		EXPECT_EQ(memcmp(&b.vmas[i].mem, &a.vmas[i].mem, sizeof(a.vmas[i].mem)), 0);
	}
	expect_same_counts(&b.total, &a.total);
	ASSERT_EQ(b.nr_windows, 1);
	EXPECT_STREQ(b.windows[0].vma, "[heap]");
	EXPECT_EQ(b.windows[0].nr_vmas, 3);
	EXPECT_EQ(b.windows[0].start, 0x7f0000200000ULL);
	/* written again, the same document */
	ASSERT_EQ(record_doc_json(&b, &j2), 0);
	EXPECT_TRUE(json_equal(j, j2));
	json_decref(j);
	json_decref(j2);
	record_doc_free(&a);
	record_doc_free(&b);
}

TEST(pid_target_round_trip)
{
	struct record_doc a, b;
	char err[256];
	json_t *j;

	fill(&a);
	free(a.config.argv[0]);
	free(a.config.argv[1]);
	free(a.config.argv[2]);
	free(a.config.argv);
	a.config.argv = NULL;
	a.config.pid = 1234;
	a.config.duration_s = 2.5;
	a.outcome.has_exit = false;
	a.outcome.target_gone = true;
	ASSERT_EQ(record_doc_json(&a, &j), 0);
	ASSERT_EQ(record_doc_read(j, &b, err, sizeof(err)), 0);
	EXPECT_EQ(b.config.pid, 1234);
	EXPECT_NEAR(b.config.duration_s, 2.5, 1e-9);
	EXPECT_TRUE(!b.outcome.has_exit && b.outcome.target_gone);
	json_decref(j);
	record_doc_free(&a);
	record_doc_free(&b);
}

/* One field changed in a good document: the reader refuses it and names it. */
static void expect_refused(const char *path_json, json_t *value, const char *needle, int rc)
{
	struct record_doc a, b;
	char err[256] = "";
	json_t *j, *o;
	char parent[64], *key;

	fill(&a);
	ASSERT_EQ(record_doc_json(&a, &j), 0);
	snprintf(parent, sizeof(parent), "%s", path_json);
	key = strrchr(parent, '.');
	*key++ = '\0';
	o = j;
	/* "x" names the document itself */
	for (char *tok = strtok(parent + 1, "."); tok; tok = strtok(NULL, ".")) {
		char *br = strchr(tok, '[');

		if (br) {
			*br = '\0';
			o = json_array_get(json_object_get(o, tok), (size_t)atoi(br + 1));
		} else {
			o = json_object_get(o, tok);
		}
	}
	ASSERT_TRUE(o != NULL);
	json_object_set_new(o, key, value);
	EXPECT_EQ(record_doc_read(j, &b, err, sizeof(err)), rc);
	if (!strstr(err, needle))
		FAIL_AT("'%s' does not say '%s'", err, needle);
	json_decref(j);
	record_doc_free(&a);
}

TEST(reader_refuses)
{
	expect_refused("x.schema", json_string("mthpscope.record/2"), "not supported", -EPROTO);
	expect_refused("x.schema", json_string("mthpscope.results/1"), "not a record", -EPROTO);
	expect_refused("x.total.total", json_integer(-1), "$.total.total", -EBADMSG);
	expect_refused("x.vmas[0].samples.by_order", json_pack("{s:i}", "21", 1),
		       "not a folio order", -EBADMSG);
	expect_refused("x.vmas[0].samples.by_order", json_pack("{s:i}", "01", 1),
		       "not a folio order", -EBADMSG);
	expect_refused("x.vmas[0].samples.by_page_size", json_pack("{s:i}", "3000", 1),
		       "not a page size", -EBADMSG);
	expect_refused("x.vmas[1].end", json_integer(0), "is not above", -EBADMSG);
	expect_refused("x.config.source", json_string("ebpf"), "none of", -EBADMSG);
	expect_refused("x.config.freq", json_integer(99), "exactly one", -EBADMSG);
	expect_refused("x.config.command", json_array(), "non-empty", -EBADMSG);
	expect_refused("x.outcome.exit_code", json_string("0"), "expected an integer", -EBADMSG);
	expect_refused("x.windows[0].memory", json_string("x"), "object or null", -EBADMSG);
	/* the samples in no row are of the total, and no sum of them wraps */
	expect_refused("x.outcome.not_looked_up", json_integer(INT64_MAX),
		       "samples in no VMA row are more than", -EBADMSG);
	expect_refused("x.outcome.no_vma", json_integer(INT64_MAX),
		       "samples in no VMA row are more than", -EBADMSG);
	expect_refused("x.outcome.not_looked_up", json_integer(-1), "negative", -EBADMSG);
	{
		char name[RECORD_NAME_MAX + 8];

		memset(name, 'x', sizeof(name) - 1);
		name[sizeof(name) - 1] = '\0';
		expect_refused("x.vmas[0].name", json_string(name), "longer than", -EBADMSG);
	}
}

/* The report says so when a tenth or more of the samples are in no VMA row
 * (its rows then miss part of the program), and not otherwise. */
TEST(report_notes_samples_in_no_row)
{
	struct record_doc d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	fill(&d);
	d.total.samples = 10;
	d.outcome.no_vma = 0;
	d.outcome.process_gone = 0;
	for (int i = 0; i < 2; i++) {
		f = open_memstream(&buf, &len);
		ASSERT_TRUE(f != NULL);
		EXPECT_EQ(record_report_write(&d, REPORT_TEXT, f), 0);
		fclose(f);
		EXPECT_EQ(strstr(buf, "of the samples are in no VMA row") != NULL, i == 1);
		if (i == 1 && !strstr(buf, "note: 30 % of the samples are in no VMA row"))
			FAIL_AT("%s", buf);
		free(buf);
		buf = NULL;
		d.outcome.no_vma = 2;
		d.outcome.process_gone = 1;
	}
	record_doc_free(&d);
}

TEST(counts_and_shares)
{
	struct record_counts c = { 0 };
	struct record_memory m = { .scanned = true, .pages = { [0] = 30, [4] = 64 }, .partial = 6 };
	int i;

	record_counts_add(&c, 4, true, true, true, 65536);
	record_counts_add(&c, RECORD_AT_NONE, false, false, false, 0);
	EXPECT_EQ(c.samples, 2);
	EXPECT_EQ(c.order[4], 1);
	EXPECT_EQ(c.pmd_mapped, 1);
	EXPECT_EQ(c.tlb_miss, 1);
	EXPECT_EQ(c.nr_psizes, 1);
	for (i = 0; i < 20; i++) /* more sizes than kept: the rest are dropped, not misfiled */
		record_counts_add(&c, 0, false, false, true, 4096ULL << i);
	EXPECT_EQ(c.nr_psizes, RECORD_MAX_PSIZES);
	EXPECT_NEAR(record_memory_share(&m, 4), 0.64, 1e-12);
	EXPECT_NEAR(record_memory_share(&m, 0), 0.30, 1e-12);
	m.scanned = false;
	EXPECT_TRUE(isnan(record_memory_share(&m, 0)));
}

HARNESS_MAIN
