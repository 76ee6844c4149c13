// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for the kernel config reader (kconfig_get) and the kernel
 * log's mTHP max_ptes_none message (klog_find_mpn_message), on any bytes. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	char val[128];
	bool found;
	int kept, i;
	FILE *f;

	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/fuzz_kconfig.%d", (int)getpid());
		setenv("MTHPSCOPE_KLOG", path, 1);
	}
	f = fopen(path, "w");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	for (i = 0; kconfig_thp_options[i]; i++)
		if (!kconfig_get(path, kconfig_thp_options[i], val, sizeof(val)) &&
		    strlen(val) >= sizeof(val))
			abort();
	if (!klog_find_mpn_message(&found, &kept) && !found && kept != -1)
		abort();
	return 0;
}
