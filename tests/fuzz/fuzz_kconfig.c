// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target for the kernel config reader (kconfig_get) and the kernel
 * log's mTHP max_ptes_none message (klog_find_mpn_message), on any bytes. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;
	char val[128];
	bool found;
	int kept, i;

	/* a file in memory: nothing is left behind when the fuzzer ends */
	if (fd < 0) {
		if ((fd = memfd_create("fuzz_kconfig", 0)) < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		setenv("MTHPSCOPE_KLOG", path, 1);
	}
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	for (i = 0; kconfig_thp_options[i]; i++)
		if (!kconfig_get(path, kconfig_thp_options[i], val, sizeof(val)) &&
		    strlen(val) >= sizeof(val))
			abort();
	if (!klog_find_mpn_message(&found, &kept) && !found && kept != -1)
		abort();
	return 0;
}
