// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hot windows' TLB figures (analysis/record_tlb.c): windows of known
 * layouts give exact entry counts, now and at each order the model shows,
 * under an AMD (coalescing 4 pages), an Intel (no merging) and an arm64
 * (contiguous bit, 16 pages) model; the figures and layouts go through the
 * record document and back; the reader refuses bad ones; a window whose
 * memory no scan saw is unknown, not 0.
 */
#include "harness.h"
#include "record_doc.h"
#include "record_report.h"
#include "record_tlb.h"

enum { SCATTERED, ORDER4, PMD, PARTIAL, CONTIG0, NR_WIN };

/* The window layouts: 512 order-0 pages at scattered PFNs; 32 order-4
 * folios, each aligned and contiguous, none adjacent; one PMD mapping;
 * 100 scattered order-0 pages; 512 order-0 pages at consecutive congruent
 * PFNs (contiguous, yet no folio larger than a page). */
static void layout_of(int w, struct layout_hist *h)
{
	int k;

	layout_hist_init(h, 12, 9);
	switch (w) {
	case SCATTERED:
		h->contig[0] = h->folio[0] = 512;
		break;
	case ORDER4:
		for (k = 0; k <= 4; k++)
			h->contig[k] = h->folio[k] = 512 >> k;
		break;
	case PMD:
		h->pmd_maps = 1;
		break;
	case PARTIAL:
		h->contig[0] = h->folio[0] = 100;
		break;
	case CONTIG0:
		for (k = 0; k <= 9; k++)
			h->contig[k] = 512 >> k;
		h->folio[0] = 512;
		break;
	}
}

struct expect {
	const char *model;
	int nr_at, order[2];
	unsigned long long now[NR_WIN], at[NR_WIN][2];
};

static const struct expect expects[] = {
	/* Zen merges 4 and 8 pages: the largest (order 3) is the one to reach */
	{ "zen5", 2, { 3, 9 },
	  { 512, 64, 1, 100, 64 },
	  { { 64, 1 }, { 64, 1 }, { 1, 1 }, { 13, 1 }, { 64, 1 } } },
	{ "golden-cove", 1, { 9 },
	  { 512, 512, 1, 100, 512 },
	  { { 1 }, { 1 }, { 1 }, { 1 }, { 1 } } },
	{ "cortex-a76", 2, { 4, 9 },
	  { 512, 32, 1, 100, 512 },
	  { { 32, 1 }, { 32, 1 }, { 1, 1 }, { 7, 1 }, { 32, 1 } } },
};

TEST(exact_entries_per_model)
{
	size_t m;
	int w, i;

	for (m = 0; m < sizeof(expects) / sizeof(expects[0]); m++) {
		const struct expect *e = &expects[m];
		const struct tlb_geometry *g = tlb_geometry_find(e->model);

		ASSERT_TRUE(g != NULL);
		for (w = 0; w < NR_WIN; w++) {
			struct record_window_tlb t;
			struct layout_hist h;

			layout_of(w, &h);
			ASSERT_EQ(record_tlb_window(g, &h, &t), 0);
			if (t.entries_now != e->now[w] || t.nr_at != e->nr_at)
				FAIL_AT("%s window %d: %llu now, %d orders; expected %llu, %d", e->model,
					w, t.entries_now, t.nr_at, e->now[w], e->nr_at);
			for (i = 0; i < e->nr_at && i < t.nr_at; i++)
				if (t.order[i] != e->order[i] || t.entries_at[i] != e->at[w][i])
					FAIL_AT("%s window %d: %llu at order %d; expected %llu at %d",
						e->model, w, t.entries_at[i], t.order[i], e->at[w][i],
						e->order[i]);
		}
	}
}

TEST(layout_at_order)
{
	struct layout_hist h, at;

	layout_of(PARTIAL, &h);
	h.pmd_maps = 2;
	record_tlb_layout_at(&h, 2, &at);
	/* 100 pages are 25 order-2 folios; the PMD mappings stay */
	EXPECT_EQ(at.contig[0], 100);
	EXPECT_EQ(at.contig[2], 25);
	EXPECT_EQ(at.folio[2], 25);
	EXPECT_EQ(at.contig[3], 0);
	EXPECT_EQ(at.pmd_maps, 2);
	/* at the PMD order every page: 100 + 1024 pages round up to 3 PMDs */
	record_tlb_layout_at(&h, 9, &at);
	EXPECT_EQ(at.pmd_maps, 3);
	EXPECT_EQ(at.contig[0], 0);
}

static void fill(struct record_doc *d)
{
	int w;

	memset(d, 0, sizeof(*d));
	snprintf(d->tool_version, sizeof(d->tool_version), "0.1.0-test");
	snprintf(d->host.topo.kernel, sizeof(d->host.topo.kernel), "6.18.0");
	snprintf(d->host.topo.arch, sizeof(d->host.topo.arch), "x86_64");
	d->host.topo.page_size = 4096;
	d->host.pmd_order = 9;
	d->host.pmd_size = 2 << 20;
	snprintf(d->config.event, sizeof(d->config.event), "page-faults");
	snprintf(d->config.source, sizeof(d->config.source), "sw");
	d->config.freq = 4000;
	d->config.data_pages = 256;
	d->config.interval_ms = 10;
	d->config.window_bytes = 2 << 20;
	d->config.top_windows = 20;
	d->config.pid = 7;
	d->config.duration_s = 1;
	d->nr_windows = NR_WIN + 1;
	d->windows = calloc(d->nr_windows, sizeof(*d->windows));
	ASSERT_TRUE(d->windows != NULL);
	for (w = 0; w <= NR_WIN; w++) {
		d->windows[w].pid = 7;
		d->windows[w].start = 0x7f0000000000ULL + ((unsigned long long)w << 21);
		/* the last window has no layout (not scanned): no figures */
		if (w < NR_WIN) {
			layout_of(w, &d->windows[w].layout);
			d->windows[w].has_layout = true;
		}
	}
}

TEST(document_round_trip)
{
	struct record_doc a, b;
	char err[256] = "";
	json_t *j, *j2;
	int w;

	fill(&a);
	ASSERT_EQ(record_tlb_doc(&a, tlb_geometry_find("cortex-a76")), 0);
	EXPECT_STREQ(a.tlb_model, "cortex-a76");
	EXPECT_STREQ(a.tlb_source, "table");
	EXPECT_TRUE(!a.windows[NR_WIN].has_tlb);
	ASSERT_EQ(record_doc_json(&a, &j), 0);
	EXPECT_STREQ(json_string_value(json_object_get(json_object_get(j, "tlb_model"),
						       "computed_by")), "model");
	if (record_doc_read(j, &b, err, sizeof(err)))
		FAIL_AT("read back: %s", err);
	EXPECT_STREQ(b.tlb_model, "cortex-a76");
	for (w = 0; w <= NR_WIN; w++) {
		EXPECT_EQ(b.windows[w].has_layout, a.windows[w].has_layout);
		EXPECT_EQ(b.windows[w].has_tlb, a.windows[w].has_tlb);
		EXPECT_EQ(memcmp(&b.windows[w].layout, &a.windows[w].layout,
				 sizeof(a.windows[w].layout)), 0);
		EXPECT_EQ(memcmp(&b.windows[w].tlb, &a.windows[w].tlb, sizeof(a.windows[w].tlb)), 0);
	}
	EXPECT_EQ(b.windows[PARTIAL].tlb.entries_at[0], 7);
	ASSERT_EQ(record_doc_json(&b, &j2), 0);
	EXPECT_TRUE(json_equal(j, j2));
	/* the figures again under another model: from the layouts read back */
	ASSERT_EQ(record_tlb_doc(&b, tlb_geometry_find("zen5")), 0);
	EXPECT_EQ(b.windows[CONTIG0].tlb.entries_now, 64);
	EXPECT_EQ(b.windows[CONTIG0].tlb.order[0], 3);
	json_decref(j);
	json_decref(j2);
	record_doc_free(&a);
	record_doc_free(&b);
}

/* issue 42: a window whose memory no scan saw (sort freed its buffer before
 * the exit scan) has an empty layout: the model's entries are unknown, in
 * the document (no "tlb") and in words, never "0 now". */
TEST(unscanned_memory_is_unknown)
{
	struct record_doc a;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	json_t *j;

	fill(&a);
	layout_hist_init(&a.windows[PMD].layout, 12, 9);
	ASSERT_EQ(record_tlb_doc(&a, tlb_geometry_find("golden-cove")), 0);
	EXPECT_TRUE(!a.windows[PMD].has_tlb);
	EXPECT_TRUE(a.windows[ORDER4].has_tlb);
	ASSERT_EQ(record_doc_json(&a, &j), 0);
	EXPECT_TRUE(!json_object_get(json_array_get(json_object_get(j, "windows"), PMD), "tlb"));
	json_decref(j);
	ASSERT_TRUE((f = open_memstream(&text, &len)) != NULL);
	EXPECT_EQ(record_report_write(&a, REPORT_TEXT, f), 0);
	fclose(f);
	EXPECT_TRUE(strstr(text, "TLB entries (model) unknown (memory not scanned)") != NULL);
	EXPECT_TRUE(strstr(text, "TLB entries (model) 0 now") == NULL);
	free(text);
	record_doc_free(&a);
}

/* One change to the good document's window 0 (or its tlb_model): refused,
 * with the path named. */
static void expect_refused(const char *where, const char *key, json_t *value, const char *needle)
{
	struct record_doc a, b;
	char err[256] = "";
	json_t *j, *o;

	fill(&a);
	ASSERT_EQ(record_tlb_doc(&a, tlb_geometry_find("zen5")), 0);
	ASSERT_EQ(record_doc_json(&a, &j), 0);
	if (!strcmp(where, "tlb_model"))
		o = json_object_get(j, "tlb_model");
	else if (!strcmp(where, "window"))
		o = json_array_get(json_object_get(j, "windows"), 0);
	else if (!strcmp(where, "at_order[0]"))
		o = json_array_get(json_object_get(json_object_get(json_array_get(
			json_object_get(j, "windows"), 0), "tlb"), "at_order"), 0);
	else
		o = json_object_get(json_array_get(json_object_get(j, "windows"), 0), where);
	ASSERT_TRUE(o != NULL);
	json_object_set_new(o, key, value);
	EXPECT_EQ(record_doc_read(j, &b, err, sizeof(err)), -EBADMSG);
	if (!strstr(err, needle))
		FAIL_AT("'%s' does not say '%s'", err, needle);
	json_decref(j);
	record_doc_free(&a);
}

TEST(reader_refuses)
{
	expect_refused("tlb", "computed_by", json_string("cpu"), "$.windows[0].tlb.computed_by");
	expect_refused("tlb", "entries_now", json_integer(-1), "$.windows[0].tlb.entries_now");
	expect_refused("tlb", "at_order", json_string("9"), "$.windows[0].tlb.at_order");
	expect_refused("tlb", "at_order", json_pack("[{s:i,s:i},{s:i,s:i}]", "order", 9, "entries",
						     1, "order", 2, "entries", 1),
		       "ascending");
	expect_refused("tlb", "at_order", json_pack("[{},{},{},{},{}]"), "at most");
	expect_refused("at_order[0]", "order", json_integer(21), "$.windows[0].tlb.at_order[0].order");
	expect_refused("window", "tlb", json_integer(3), "$.windows[0].tlb");
	expect_refused("layout", "page_shift", json_integer(13), "$.windows[0].layout");
	expect_refused("window", "layout", json_array(), "$.windows[0].layout");
	expect_refused("tlb_model", "source", json_string("guess"), "$.tlb_model.source");
	expect_refused("tlb_model", "model", json_string(""), "$.tlb_model.model");
	expect_refused("tlb_model", "computed_by", json_string("pmu"), "$.tlb_model.computed_by");
}

/* A model that does not fit one window (golden-cove, an x86 model, on a
 * window of 16K pages) leaves the document as it was: every window's
 * figures and the model that names them. It overwrote the windows before
 * the misfit with its own figures, dropped the misfit's, and kept the old
 * name over them all. */
TEST(misfit_leaves_the_document_as_it_was)
{
	struct record_doc a;
	struct record_window before[NR_WIN + 1];
	int w;

	fill(&a);
	ASSERT_EQ(record_tlb_doc(&a, tlb_geometry_find("zen5")), 0);
	layout_hist_init(&a.windows[PMD].layout, 14, 11);
	a.windows[PMD].layout.contig[0] = a.windows[PMD].layout.folio[0] = 128;
	memcpy(before, a.windows, sizeof(before));
	EXPECT_EQ(record_tlb_doc(&a, tlb_geometry_find("golden-cove")), -EINVAL);
	EXPECT_STREQ(a.tlb_model, "zen5");
	EXPECT_STREQ(a.tlb_source, "table");
	for (w = 0; w <= NR_WIN; w++) {
		EXPECT_EQ(a.windows[w].has_tlb, before[w].has_tlb);
		if (memcmp(&a.windows[w].tlb, &before[w].tlb, sizeof(before[w].tlb)))
			FAIL_AT("window %d: %llu now, was %llu", w, a.windows[w].tlb.entries_now,
				before[w].tlb.entries_now);
	}
	/* a model that fits them all replaces them all */
	ASSERT_EQ(record_tlb_doc(&a, tlb_geometry_find("cortex-a76")), 0);
	EXPECT_STREQ(a.tlb_model, "cortex-a76");
	EXPECT_EQ(a.windows[SCATTERED].tlb.entries_at[0], 32);
	EXPECT_EQ(a.windows[PMD].tlb.order[1], 11);
	record_doc_free(&a);
}

/* stdout of 'mthpscope ARGS' (stderr into 'err_path'); the caller frees it. */
static char *run_bin(const char *args, const char *err_path)
{
	const char *b = getenv("MTHPSCOPE_BIN");
	char cmd[2048], *buf = NULL;
	size_t len = 0, n;
	char chunk[4096];
	FILE *f, *out;

	if (!b)
		SKIP("MTHPSCOPE_BIN is not set (run under ctest)");
	snprintf(cmd, sizeof(cmd), "%s %s 2>%s", b, args, err_path);
	out = open_memstream(&buf, &len);
	f = popen(cmd, "r");
	ASSERT_TRUE(f != NULL && out != NULL);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, out);
	EXPECT_EQ(pclose(f), 0);
	fclose(out);
	return buf;
}

static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0, n;
	char chunk[4096];
	FILE *f = fopen(path, "r"), *out = open_memstream(&buf, &len);

	ASSERT_TRUE(f != NULL && out != NULL);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, out);
	fclose(f);
	fclose(out);
	return buf;
}

/* record -i with a model that misfits one window: the report is the one the
 * document gives alone (its zen5 figures, header and windows, text and
 * JSON), and the warning says which window, why and what is shown. */
static void expect_kept(const char *doc, const char *model_opt, const char *warning)
{
	static const char *const fmts[] = { "", "--json" };
	char args[1024], err_path[64] = "/tmp/test_record_tlb.XXXXXX";
	char *alone, *with, *e;
	int fd = mkstemp(err_path);
	size_t i;

	ASSERT_TRUE(fd >= 0);
	close(fd);
	for (i = 0; i < 2; i++) {
		snprintf(args, sizeof(args), "record -i %s %s", doc, fmts[i]);
		alone = run_bin(args, err_path);
		snprintf(args, sizeof(args), "record -i %s %s %s", doc, fmts[i], model_opt);
		with = run_bin(args, err_path);
		if (strcmp(alone, with))
			FAIL_AT("%s %s: the report changed:\n%s", model_opt, fmts[i], with);
		e = slurp(err_path);
		EXPECT_STREQ(e, warning);
		free(e);
		free(alone);
		free(with);
	}
	unlink(err_path);
}

TEST(record_input_with_a_misfit_model)
{
	const char *src = getenv("MTHPSCOPE_SRC");
	char doc[512], geo[64] = "/tmp/test_record_tlb_geo.XXXXXX", mixed[64], opt[128];
	struct record_doc d;
	char err[256] = "";
	json_t *j;
	FILE *f;
	int fd;

	if (!src)
		SKIP("MTHPSCOPE_SRC is not set (run under ctest)");
	snprintf(doc, sizeof(doc), "%s/tests/data/record/record-tlb.json", src);
	/* the reviewer's big.tlb: a level that holds 2M entries only */
	fd = mkstemp(geo);
	ASSERT_TRUE(fd >= 0 && (f = fdopen(fd, "w")) != NULL);
	fputs("name = big-only\nmerge = none\nlevel1.entries = 64\nlevel1.sizes = 2M\n", f);
	fclose(f);
	snprintf(opt, sizeof(opt), "--tlb-geometry %s", geo);
	expect_kept(doc, opt, "mthpscope: warning: record: the TLB model big-only does not fit "
		    "window 1 (0x7fe1a8000000): the model's level L1D does not hold 4K pages, the "
		    "base page size; the windows keep the document's figures (model zen5)\n");
	/* the reviewer's mixed.json: window 2 a layout of 16K pages */
	ASSERT_EQ(record_doc_load(doc, &d, err, sizeof(err)), 0);
	layout_hist_init(&d.windows[1].layout, 14, 11);
	d.windows[1].layout.contig[0] = d.windows[1].layout.folio[0] = 512;
	ASSERT_EQ(record_doc_json(&d, &j), 0);
	snprintf(mixed, sizeof(mixed), "%s.json", geo);
	ASSERT_EQ(json_dump_file(j, mixed, JSON_INDENT(1)), 0);
	expect_kept(mixed, "--tlb-model skylake", "mthpscope: warning: record: the TLB model "
		    "skylake does not fit window 2 (0x7fe1a7c00000): the model's rule does not fit "
		    "16K pages; the windows keep the document's figures (model zen5)\n");
	json_decref(j);
	record_doc_free(&d);
	unlink(mixed);
	unlink(geo);
}

HARNESS_MAIN
