// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the collapse-document reader (collapse_doc_read):
 * whatever model it fills, plot_collapse's walk over that model must
 * take (its data file goes to a scratch directory; gnuplot is never run:
 * the template directory is pointed at nothing). And the writer: what the
 * reader accepts, collapse_doc_json writes, the reader takes back, and
 * writing that again gives the same document (one model, both directions).
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "collapse.h"
#include "plot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_writer(const struct collapse_doc *cd)
{
	json_t *out = NULL, *again = NULL;
	struct collapse_doc back;
	char err[512];

	if (collapse_doc_json(cd, &out))
		abort(); /* only -ENOMEM, which libFuzzer reports itself */
	if (collapse_doc_read(out, &back, err, sizeof(err))) {
		fprintf(stderr, "the writer's document does not read back: %s\n", err);
		abort();
	}
	if (collapse_doc_json(&back, &again) || !json_equal(out, again)) {
		fprintf(stderr, "write(read(write(d))) differs from write(d)\n");
		abort();
	}
	collapse_doc_free(&back);
	json_decref(again);
	json_decref(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64];
	json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	char err[512];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "collapse-plot.%d", (int)getpid()); /* in the working directory */
		setenv("MTHPSCOPE_GNUPLOT_DIR", "/nonexistent", 1);
	}
	if (doc) {
		struct collapse_doc cd;

		if (!collapse_doc_read(doc, &cd, err, sizeof(err))) {
			struct plot_files files = { 0 };

			plot_collapse(&cd, dir, PLOT_PNG, &files, err, sizeof(err));
			plot_files_free(&files);
			check_writer(&cd);
		}
		collapse_doc_free(&cd);
	}
	json_decref(doc);
	return 0;
}
