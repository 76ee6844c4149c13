// SPDX-License-Identifier: GPL-2.0-or-later
/* Why THP is missing or limited on this kernel (kconfig.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kconfig.h"
#include "thp_kernel.h"
#include "mthpscope.h"

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

const char *thp_root(void)
{
	return env_or("MTHPSCOPE_THP_ROOT", THP_SYSFS_ROOT);
}

/* One config line; a config that never names the option (its
 * dependencies unmet, as PREEMPT_RT's) means not configured. */
static int config_line(const char *line, void *ctx)
{
	struct thp_kernel *k = ctx;

	if (kconfig_line(line, "TRANSPARENT_HUGEPAGE") >= 0)
		k->configured = kconfig_line(line, "TRANSPARENT_HUGEPAGE");
	if (kconfig_line(line, "PREEMPT_RT") == 1)
		k->preempt_rt = true;
	return 0;
}

static void probe_config(struct thp_kernel *k)
{
	char path[300];

	k->configured = 0;
	if (!kconfig_find(path, sizeof(path)) && !kconfig_read(path, config_line, k)) {
		snprintf(k->config_path, sizeof(k->config_path), "%s", path);
		return;
	}
	k->configured = -1;
	k->preempt_rt = false;
}

static void probe_cmdline(struct thp_kernel *k)
{
	char path[300], line[4096], *tok, *save = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cmdline", env_or("MTHPSCOPE_PROC_ROOT", "/proc"));
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f))
		for (tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
			if (!strcmp(tok, "--"))
				break; /* the rest is init's */
			if (!strcmp(tok, "transparent_hugepage=never"))
				k->cmdline_never = true;
		}
	fclose(f);
}

static void probe_sysfs(struct thp_kernel *k)
{
	DIR *d = opendir(thp_root());
	struct dirent *de;

	if (!d)
		return;
	k->sysfs = true;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "hugepages-", 10))
			k->per_size = true;
	closedir(d);
}

void thp_kernel_probe(struct thp_kernel *k)
{
	memset(k, 0, sizeof(*k));
	kconfig_release(k->release, sizeof(k->release));
	if (sscanf(k->release, "%d.%d", &k->major, &k->minor) != 2)
		k->major = k->minor = 0;
	probe_config(k);
	probe_cmdline(k);
	probe_sysfs(k);
}

static int why_no_sysfs(const struct thp_kernel *k, char *buf, size_t size)
{
	if (k->configured == 0)
		return snprintf(buf, size,
				"this kernel (%s) is built without CONFIG_TRANSPARENT_HUGEPAGE "
				"(%s)%s: it has no transparent huge pages at all; boot a kernel "
				"built with them", k->release, k->config_path,
				k->preempt_rt ? ", as its PREEMPT_RT configuration requires" : "");
	if (k->configured == 1)
		return snprintf(buf, size,
				"%s is missing although this kernel (%s) has "
				"CONFIG_TRANSPARENT_HUGEPAGE=y (%s): is sysfs mounted?", thp_root(),
				k->release, k->config_path);
	return snprintf(buf, size,
			"%s: not found: this kernel (%s) has no transparent huge pages "
			"(probably built without CONFIG_TRANSPARENT_HUGEPAGE; neither "
			"%s/config-%s nor %s/config.gz is there to tell)", thp_root(), k->release,
			env_or("MTHPSCOPE_BOOT_DIR", "/boot"), k->release,
			env_or("MTHPSCOPE_PROC_ROOT", "/proc"));
}

int thp_kernel_why(const struct thp_kernel *k, char *buf, size_t size)
{
	if (!k->sysfs)
		return why_no_sysfs(k, buf, size);
	if (k->per_size) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	if (k->major && (k->major < 6 || (k->major == 6 && k->minor < 8)))
		return snprintf(buf, size,
				"this kernel (%s) has THP for the PMD size only: per-size mTHP "
				"(hugepages-<N>kB/) needs Linux 6.8 or newer", k->release);
	return snprintf(buf, size,
			"%s has no hugepages-<N>kB/ although this kernel (%s) is not older than "
			"6.8: per-size mTHP is not offered here (THP for the PMD size only)",
			thp_root(), k->release);
}

int thp_kernel_boot_note(const struct thp_kernel *k, char *buf, size_t size)
{
	if (!k->cmdline_never) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	return snprintf(buf, size,
			"THP was turned off at boot (transparent_hugepage=never in %s/cmdline): "
			"the knobs say never until written (run and collapse write the ones "
			"they need, for their duration)", env_or("MTHPSCOPE_PROC_ROOT", "/proc"));
}
