// SPDX-License-Identifier: GPL-2.0-or-later
/* The presence document (src/doc/presence_doc.c): the writer's document
 * reads back the same, and the reader refuses every bad field by its path. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "presence_doc.h"

static void sample(struct presence_doc *d)
{
	ASSERT_EQ(presence_doc_init(d, 4096), 0);
	d->pid = 42;
	strcpy(d->command, "sort");
	ASSERT_EQ(presence_doc_add_range(d, 2ULL << 20, 0, 512), 0);
	ASSERT_EQ(presence_doc_add_folio(d, 0, 1, 0, 100), 0);
	ASSERT_EQ(presence_doc_add_folio(d, 1, 1, 0, 101), 0); /* merged into one row */
	ASSERT_EQ(presence_doc_add_folio(d, 8, 8, 3, 2048), 0);
	ASSERT_EQ(presence_doc_add_folio(d, 20, 3, -1, 7), 0);
	ASSERT_EQ(presence_doc_add_range(d, 4ULL << 20, 0, 512), 0);
	ASSERT_EQ(presence_doc_set_pmd(d, 512 * 3), 0);
	ASSERT_EQ(presence_doc_add_range(d, 8ULL << 20, 100, 300), 0);
	ASSERT_EQ(presence_doc_add_folio(d, 100, 1, 0, 5), 0);
	d->ranges[2].split = true;
}

TEST(round_trip)
{
	struct presence_doc d, back;
	json_t *doc, *again;
	char err[256];

	sample(&d);
	EXPECT_EQ(d.ranges[0].nr_folios, 3);
	ASSERT_EQ(presence_doc_json(&d, &doc), 0);
	EXPECT_STREQ(json_string_value(json_object_get(json_array_get(json_object_get(doc, "ranges"), 0), "present")),
		     "30ff0700000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000");
	ASSERT_EQ(presence_doc_read(doc, &back, err, sizeof(err)), 0);
	EXPECT_EQ(back.nr_ranges, 3);
	EXPECT_EQ(back.pid, 42);
	EXPECT_STREQ(back.command, "sort");
	EXPECT_TRUE(back.ranges[1].pmd_mapped);
	EXPECT_EQ(back.ranges[1].pmd_pfn, 1536);
	EXPECT_EQ(back.ranges[2].lo, 100);
	EXPECT_TRUE(back.ranges[2].split);
	EXPECT_TRUE(!back.ranges[0].split);
	ASSERT_EQ(presence_doc_json(&back, &again), 0);
	EXPECT_TRUE(json_equal(doc, again));
	json_decref(again);
	json_decref(doc);
	presence_doc_free(&back);
	presence_doc_free(&d);
}

/* One change to the sample's JSON, refused with this in the message. */
static void refused(const char *what, void (*edit)(json_t *doc), int want, const char *words)
{
	struct presence_doc d, back;
	json_t *doc;
	char err[256] = "";

	sample(&d);
	ASSERT_EQ(presence_doc_json(&d, &doc), 0);
	edit(doc);
	EXPECT_EQ(presence_doc_read(doc, &back, err, sizeof(err)), want);
	if (!strstr(err, words)) {
		TEST_NOTE("%s: '%s' lacks '%s'", what, err, words);
		EXPECT_TRUE(false);
	}
	json_decref(doc);
	presence_doc_free(&d);
}

static json_t *range(json_t *doc, size_t i)
{
	return json_array_get(json_object_get(doc, "ranges"), i);
}

static json_t *row(json_t *doc, size_t i)
{
	return json_array_get(json_object_get(range(doc, 0), "folios"), i);
}

static void e_schema(json_t *d) { json_object_set_new(d, "schema", json_string("mthpscope.presence/2")); }
static void e_other(json_t *d) { json_object_set_new(d, "schema", json_string("mthpscope.record/1")); }
static void e_page(json_t *d) { json_object_set_new(d, "pmd_order", json_integer(11)); }
static void e_no_ranges(json_t *d) { json_object_del(d, "ranges"); }
static void e_addr(json_t *d) { json_object_set_new(range(d, 0), "addr", json_integer(4096)); }
static void e_order(json_t *d) { json_object_set_new(range(d, 2), "addr", json_integer(0)); }
static void e_hex_len(json_t *d) { json_object_set_new(range(d, 0), "present", json_string("30")); }
static void e_hex_bits(json_t *d)
{
	char s[129];

	memset(s, '0', 128);
	s[128] = 0;
	json_object_set_new(range(d, 0), "present", json_string(s));
}
static void e_hex_char(json_t *d)
{
	char s[129];

	memset(s, 'g', 128);
	s[128] = 0;
	json_object_set_new(range(d, 0), "present", json_string(s));
}
static void e_overlap(json_t *d) { json_array_set_new(row(d, 1), 0, json_integer(1)); }
static void e_big(json_t *d) { json_array_set_new(row(d, 1), 1, json_integer(9)); }
static void e_row_short(json_t *d) { json_array_remove(row(d, 0), 3); }
static void e_outside(json_t *d) { json_object_set_new(range(d, 2), "lo", json_integer(101)); }
static void e_lo_hi(json_t *d) { json_object_set_new(range(d, 2), "hi", json_integer(100)); }
static void e_pmd_pfn(json_t *d) { json_object_set_new(range(d, 1), "pmd_pfn", json_integer(7)); }
static void e_pmd_rows(json_t *d) { json_object_set_new(range(d, 1), "folios", json_array()); }
static void e_pfn(json_t *d) { json_array_set_new(row(d, 0), 3, json_integer(1LL << 56)); }
static void e_split(json_t *d) { json_object_set_new(range(d, 2), "split", json_integer(1)); }
static void e_tool(json_t *d) { json_object_del(d, "tool"); }
static void e_pid(json_t *d) { json_object_set_new(json_object_get(d, "source"), "pid", json_string("1")); }

TEST(reader_refuses)
{
	refused("another version", e_schema, -EPROTO, "mthpscope.presence/2");
	refused("another document", e_other, -EPROTO, "record");
	refused("page size and PMD order", e_page, -EBADMSG, "$.page_size, $.pmd_order");
	refused("no ranges", e_no_ranges, -EBADMSG, "ranges");
	refused("unaligned range", e_addr, -EBADMSG, "$.ranges[0].addr");
	refused("ranges out of order", e_order, -EBADMSG, "$.ranges[2].addr");
	refused("bitmap length", e_hex_len, -EBADMSG, "$.ranges[0].present");
	refused("bitmap against rows", e_hex_bits, -EBADMSG, "the folios");
	refused("not hex", e_hex_char, -EBADMSG, "hex digit");
	refused("rows overlap", e_overlap, -EBADMSG, "$.ranges[0].folios[1]");
	refused("folio too large", e_big, -EBADMSG, "one folio of order 3");
	refused("short row", e_row_short, -EBADMSG, "[offset, pages, order, pfn]");
	refused("row outside the VMA", e_outside, -EBADMSG, "$.ranges[2].folios[0]");
	refused("hi not above lo", e_lo_hi, -EBADMSG, "$.ranges[2].hi");
	refused("unaligned PMD frame", e_pmd_pfn, -EBADMSG, "$.ranges[1]");
	refused("PMD range with rows", e_pmd_rows, -EBADMSG, "no folios");
	refused("frame beyond pagemap's", e_pfn, -EBADMSG, "pfn");
	refused("no tool", e_tool, -EBADMSG, "tool");
	refused("split not a boolean", e_split, -EBADMSG, "$.ranges[2].split");
	refused("pid a string", e_pid, -EBADMSG, "$.source.pid");
}

TEST(model_refuses)
{
	struct presence_doc d;

	EXPECT_EQ(presence_doc_init(&d, 8192), -EINVAL);
	ASSERT_EQ(presence_doc_init(&d, 16384), 0);
	EXPECT_EQ(d.pmd_order, 11);
	EXPECT_EQ(presence_doc_add_folio(&d, 0, 1, 0, 1), -EINVAL); /* no range */
	EXPECT_EQ(presence_doc_add_range(&d, 4096, 0, 2048), -EINVAL);
	ASSERT_EQ(presence_doc_add_range(&d, 32ULL << 20, 0, 2048), 0);
	EXPECT_EQ(presence_doc_add_range(&d, 32ULL << 20, 0, 2048), -EINVAL);
	EXPECT_EQ(presence_doc_add_folio(&d, 2047, 2, 0, 1), -EINVAL);
	EXPECT_EQ(presence_doc_add_folio(&d, 0, 1, 12, 1), -EINVAL);
	presence_doc_free(&d);
}

HARNESS_MAIN
