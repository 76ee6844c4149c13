// SPDX-License-Identifier: GPL-2.0-or-later
/* Steal time from /proc/stat (steal.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "steal.h"

int steal_read(int cpu, unsigned long long *ns)
{
	const char *root = getenv("MTHPSCOPE_PROC_ROOT");
	char path[512], line[512], want[32];
	unsigned long long v[8];
	long hz = sysconf(_SC_CLK_TCK);
	int err = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stat", root && *root ? root : "/proc");
	if (cpu < 0)
		snprintf(want, sizeof(want), "cpu ");
	else
		snprintf(want, sizeof(want), "cpu%d ", cpu);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, want, strlen(want)))
			continue;
		/* user nice system idle iowait irq softirq steal: 8 before 2.6.11 lacked it */
		err = sscanf(line + strlen(want), "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
			     &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8 ? 0 : -ENODATA;
		if (!err)
			*ns = v[7] * (1000000000ULL / (unsigned long long)(hz > 0 ? hz : 100));
		break;
	}
	fclose(f);
	return err;
}

int steal_reported(void)
{
	unsigned long long ns;
	int err = steal_read(-1, &ns);

	return err ? err : ns > 0;
}
