// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the record-document reader (record_doc_read): what
 * it accepts, the presenter writes as text and markdown and plot_record
 * walks (gnuplot never runs: the template directory is pointed at nothing),
 * and the writer writes back to a document that reads back the same.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "plot.h"
#include "record_doc.h"
#include "record_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_writer(const struct record_doc *d)
{
	json_t *out = NULL, *again = NULL;
	struct record_doc back;
	char err[512];

	if (record_doc_json(d, &out))
		abort();
	if (record_doc_read(out, &back, err, sizeof(err))) {
		fprintf(stderr, "the writer's document does not read back: %s\n", err);
		abort();
	}
	if (record_doc_json(&back, &again) || !json_equal(out, again)) {
		fprintf(stderr, "write(read(write(d))) differs from write(d)\n");
		abort();
	}
	record_doc_free(&back);
	json_decref(again);
	json_decref(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64];
	static FILE *sink;
	json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	char err[512];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "record-plot.%d", (int)getpid());
		setenv("MTHPSCOPE_GNUPLOT_DIR", "/nonexistent", 1);
		sink = fopen("/dev/null", "w");
	}
	if (doc) {
		struct record_doc d;

		if (!record_doc_read(doc, &d, err, sizeof(err))) {
			struct plot_files files = { 0 };

			record_report_write(&d, REPORT_TEXT, sink);
			record_report_write(&d, REPORT_MARKDOWN, sink);
			plot_record(&d, dir, PLOT_PNG, &files, err, sizeof(err));
			plot_files_free(&files);
			check_writer(&d);
			record_doc_free(&d);
		}
	}
	json_decref(doc);
	return 0;
}
