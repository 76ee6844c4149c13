// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for the THP sysfs word parsers ("always [madvise] never")
 * and the kernel config line reader (kconfig_line). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kconfig.h"
#include "thp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	enum thp_word w;
	unsigned offered;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (!thp_parse_choice(text, &w, &offered)) {
		/* what the parser accepts names a word of the table */
		if (w < 0 || w >= THP_W_COUNT || !(offered & (1u << w)))
			abort();
		if (thp_word_parse(thp_word_name(w)) != (int)w)
			abort();
	}
	thp_word_parse(text);
	{
		int c = kconfig_line(text, "TRANSPARENT_HUGEPAGE");

		if (c < -1 || c > 1)
			abort();
	}
	free(text);
	return 0;
}
