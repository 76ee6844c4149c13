/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test helpers: load a fixture from tests/data/, as a results model or as
 * JSON (the source tree is found through $MTHPSCOPE_SRC, which ctest sets).
 */
#ifndef MTHPSCOPE_TESTS_FIXTURE_UTIL_H
#define MTHPSCOPE_TESTS_FIXTURE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "results.h"

/* A hand-made results document: schema, tool, host, thp, config (references
 * to the three objects are stolen) and an empty "trials" array. run itself
 * writes its head from typed structs (results_head_json). */
static inline json_t *fixture_results_doc(json_t *host, json_t *thp, json_t *config)
{
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:[]}", "schema", RESULTS_SCHEMA, "tool",
			 results_tool_json(), "host", host, "thp", thp, "config", config,
			 "trials");
}

static inline struct results *fixture_load(const char *name)
{
	const char *src = getenv("MTHPSCOPE_SRC");
	char path[4096], err[512];
	struct results *r;

	if (!src)
		SKIP("MTHPSCOPE_SRC is not set (run under ctest)");
	snprintf(path, sizeof(path), "%s/tests/data/%s", src, name);
	if (results_load(path, &r, err, sizeof(err))) {
		FAIL_AT("%s", err);
		_exit(1);
	}
	return r;
}

/* The JSON of tests/data/NAME (a new reference). */
static inline json_t *fixture_json(const char *name)
{
	const char *src = getenv("MTHPSCOPE_SRC");
	char path[4096];
	json_error_t je;
	json_t *doc;

	if (!src)
		SKIP("MTHPSCOPE_SRC is not set (run under ctest)");
	snprintf(path, sizeof(path), "%s/tests/data/%s", src, name);
	doc = json_load_file(path, 0, &je);
	if (!doc) {
		FAIL_AT("%s: %s", path, je.text);
		harness_exit(1);
	}
	return doc;
}

/* What a reader then its writer gave back ('out') against what was read
 * ('in'): equal as JSON and key for key in order, so the files are
 * byte-identical. A failure names 'what'. */
static inline void fixture_expect_same_json(const json_t *in, const json_t *out,
					    const char *what)
{
	char *a, *b;

	if (!json_equal(in, out)) {
		FAIL_AT("%s: read then written is not the same document", what);
		return;
	}
	a = json_dumps(in, JSON_INDENT(2));
	b = json_dumps(out, JSON_INDENT(2));
	if (!a || !b)
		FAIL_AT("%s: no memory to compare", what);
	else if (strcmp(a, b))
		FAIL_AT("%s: keys in another order", what);
	free(a);
	free(b);
}

#endif
