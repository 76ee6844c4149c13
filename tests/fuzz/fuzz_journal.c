// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for the settings-journal reader (thp_journal_check). */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "thp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	unsigned long long st;
	int pid;

	thp_journal_check(doc, &pid, &st);
	json_decref(doc);
	return 0;
}
