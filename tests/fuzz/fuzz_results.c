// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the results reader, and for the analyzer and the
 * JSON report on whatever the reader accepts: a file the reader lets
 * through must never crash what comes after it.
 *   built by tests/fuzz/build.sh, run by tests/fuzz/run.sh results
 */
#include <stddef.h>
#include <stdint.h>

#include "analyze.h"
#include "report.h"
#include "results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct analyze_opts opts = { .iters = 20, .seed = 1 };
	struct results *r;
	struct analysis *a;
	char err[512];

	if (results_load_buffer((const char *)data, size, "fuzz", &r, err, sizeof(err)))
		return 0;
	if (!analyze_run(r, &opts, &a, err, sizeof(err))) {
		json_t *doc = report_analysis_json(a);

		json_decref(doc);
		analyze_free(a);
	}
	results_free(r);
	return 0;
}
