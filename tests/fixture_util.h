/*
 * Test helper: load a hand-made results fixture from tests/data/ (the source
 * tree is found through $MTHPSCOPE_SRC, which ctest sets).
 */
#ifndef MTHPSCOPE_TESTS_FIXTURE_UTIL_H
#define MTHPSCOPE_TESTS_FIXTURE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "results.h"

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

#endif
