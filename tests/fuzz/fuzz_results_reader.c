// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the results reader alone (results_load_buffer: the
 * streaming trial reader and the whole-document fallback). Faster than
 * fuzz_results, which also runs the analyzer on what the reader accepts,
 * so it reaches a million executions in minutes. And the head's writer:
 * what the reader accepts, results_head_json writes; with the first trial
 * written back beside it, the reader takes it again, and writing that head
 * gives the same JSON (one model, both directions).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_head_writer(const struct results *r)
{
	json_t *out = NULL, *again = NULL;
	struct results *back = NULL;
	char err[512] = "", *text = NULL;
	int rc = results_head_json(&r->head, &out);

	if (rc == -ENOMEM)
		return;
	if (rc) {
		fprintf(stderr, "the reader's head does not write: %s\n", strerror(-rc));
		abort();
	}
	if (results_doc_add_trial(out, &r->trials[0]) || !(text = json_dumps(out, 0)))
		goto out; /* no memory */
	if (results_load_buffer(text, strlen(text), "again", &back, err, sizeof(err))) {
		fprintf(stderr, "the written head does not read back: %s\n", err);
		abort();
	}
	if (results_head_json(&back->head, &again))
		goto out;
	json_object_set_new(out, "trials", json_array());
	if (!json_equal(out, again)) {
		fprintf(stderr, "write(read(write(head))) differs from write(head)\n");
		abort();
	}
out:
	results_free(back);
	free(text);
	json_decref(again);
	json_decref(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct results *r;
	char err[512];

	if (!results_load_buffer((const char *)data, size, "fuzz", &r, err, sizeof(err))) {
		check_head_writer(r);
		results_free(r);
	}
	return 0;
}
