// SPDX-License-Identifier: GPL-2.0-or-later
/* Why THP is missing or limited on this kernel (kconfig.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "thp_kernel.h"
#include "mthpscope.h"
#include "thp.h"

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

int kconfig_line(const char *line, const char *name)
{
	size_t n = strlen(name);

	if (!strncmp(line, "CONFIG_", 7) && !strncmp(line + 7, name, n) && line[7 + n] == '=')
		return line[8 + n] == 'y' || line[8 + n] == 'm';
	if (!strncmp(line, "# CONFIG_", 9) && !strncmp(line + 9, name, n) &&
	    !strncmp(line + 9 + n, " is not set", 11))
		return 0;
	return -1;
}

/* Scan one config stream; a config that never names the option (its
 * dependencies unmet, as PREEMPT_RT's) means not configured. */
static void scan_config(FILE *f, struct thp_kernel *k)
{
	char line[512];

	k->configured = 0;
	while (fgets(line, sizeof(line), f)) {
		if (kconfig_line(line, "TRANSPARENT_HUGEPAGE") >= 0)
			k->configured = kconfig_line(line, "TRANSPARENT_HUGEPAGE");
		if (kconfig_line(line, "PREEMPT_RT") == 1)
			k->preempt_rt = true;
	}
}

/* /proc/config.gz through gzip -dc (gzip is essential on Debian); 0 or -errno. */
static int scan_config_gz(const char *path, struct thp_kernel *k)
{
	int fds[2], st, err = 0;
	FILE *f;
	pid_t pid;

	if (access(path, R_OK))
		return -errno;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(fds[1], STDOUT_FILENO);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		execlp("gzip", "gzip", "-dc", path, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f) {
		err = -errno;
		close(fds[0]);
	} else {
		scan_config(f, k);
		fclose(f);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		err = err ? err : -EIO;
	return err;
}

static void probe_config(struct thp_kernel *k)
{
	char path[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/config-%s", env_or("MTHPSCOPE_BOOT_DIR", "/boot"),
		 k->release);
	f = fopen(path, "r");
	if (f) {
		scan_config(f, k);
		fclose(f);
		snprintf(k->config_path, sizeof(k->config_path), "%s", path);
		return;
	}
	snprintf(path, sizeof(path), "%s/config.gz", env_or("MTHPSCOPE_PROC_ROOT", "/proc"));
	if (!scan_config_gz(path, k)) {
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
	const char *rel = getenv("MTHPSCOPE_KERNEL_RELEASE");
	struct utsname u;

	memset(k, 0, sizeof(*k));
	if (rel && *rel)
		snprintf(k->release, sizeof(k->release), "%s", rel);
	else if (!uname(&u))
		snprintf(k->release, sizeof(k->release), "%s", u.release);
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
