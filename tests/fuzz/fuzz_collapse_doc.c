/*
 * libFuzzer target for the collapse-document reader (collapse_doc_read):
 * whatever model it fills, plot_collapse's walk over that model must
 * take (its data file goes to a scratch directory; gnuplot is never run:
 * the template directory is pointed at nothing).
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
			struct plot_files files;

			plot_collapse(&cd, dir, PLOT_PNG, &files, err, sizeof(err));
		}
		collapse_doc_free(&cd);
	}
	json_decref(doc);
	return 0;
}
