// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for the /proc/PID/smaps reader (scan_parse_smaps). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scan_vma *v = NULL;
	size_t nr = 0, i;
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	if (!scan_parse_smaps(f, &v, &nr))
		for (i = 0; i < nr; i++)
			if (v[i].name[sizeof(v[i].name) - 1] || v[i].perms[sizeof(v[i].perms) - 1])
				abort(); /* strings always terminated */
	fclose(f);
	free(v);
	return 0;
}
