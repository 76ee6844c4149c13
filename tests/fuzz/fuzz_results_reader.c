/*
 * libFuzzer target for the results reader alone (results_load_buffer: the
 * streaming trial reader and the whole-document fallback). Faster than
 * fuzz_results, which also runs the analyzer on what the reader accepts,
 * so it reaches a million executions in minutes.
 */
#include <stddef.h>
#include <stdint.h>

#include "results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct results *r;
	char err[512];

	if (!results_load_buffer((const char *)data, size, "fuzz", &r, err, sizeof(err)))
		results_free(r);
	return 0;
}
