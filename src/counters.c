#include "counters.h"

#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

const struct ctr_sw_event ctr_sw_events[] = {
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
};
const size_t ctr_nr_sw_events = sizeof(ctr_sw_events) / sizeof(ctr_sw_events[0]);

static int pfm_state = 1; /* 1: not tried, 0: ok, <0: failed */

int ctr_pfm_init(void)
{
	if (pfm_state == 1)
		pfm_state = pfm_initialize() == PFM_SUCCESS ? 0 : -EIO;
	return pfm_state;
}

int ctr_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		  unsigned long flags)
{
	long fd;

	attr->size = sizeof(*attr);
	fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
	return fd < 0 ? -errno : (int)fd;
}

int ctr_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = -99;

	if (!f)
		return v;
	if (fscanf(f, "%d", &v) != 1)
		v = -99;
	fclose(f);
	return v;
}

int ctr_strerror(int err, bool hw, char *buf, size_t size)
{
	int p = ctr_paranoid();

	switch (-err) {
	case EACCES:
	case EPERM:
		return snprintf(buf, size,
				"not permitted (perf_event_paranoid is %d): run as root, or set "
				"'sysctl kernel.perf_event_paranoid=1' (user-space counting needs <= 2)", p);
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (hw)
			return snprintf(buf, size,
					"no hardware PMU: the CPU's performance counters are not exposed "
					"here (typical in a VM without a virtual PMU); only software "
					"events and timing can be measured");
		return snprintf(buf, size, "the kernel does not offer this event (%s)", strerror(-err));
	case EINVAL:
		return snprintf(buf, size,
				"the kernel rejected the event attributes (EINVAL): the encoding does "
				"not fit this CPU, or an option (exclude_kernel, sampling) is not supported");
	case EMFILE:
		return snprintf(buf, size, "too many open files: raise 'ulimit -n' or use fewer events");
	case ENOSYS:
		return snprintf(buf, size,
				"perf_event_open is not implemented here (an emulator such as qemu-user, "
				"or a kernel without CONFIG_PERF_EVENTS)");
	case EBUSY:
		return snprintf(buf, size, "the counter is in use by another tool (e.g. a watchdog "
				"or another profiler)");
	default:
		return snprintf(buf, size, "%s", strerror(-err));
	}
}

int ctr_detect_pmus(struct ctr_pmu_model *out, int max)
{
	pfm_pmu_t p;
	int n = 0;

	if (ctr_pfm_init())
		return -EIO;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t info;

		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(p, &info) != PFM_SUCCESS || !info.is_present)
			continue;
		if (info.type != PFM_PMU_TYPE_CORE)
			continue;
		if (!strcmp(info.name, "perf") || !strcmp(info.name, "perf_raw"))
			continue;
		if (n < max) {
			snprintf(out[n].name, sizeof(out[n].name), "%s", info.name);
			snprintf(out[n].desc, sizeof(out[n].desc), "%s", info.desc ? info.desc : "");
			out[n].nr_events = info.nevents;
		}
		n++;
	}
	return n < max ? n : max;
}

static int probe(struct perf_event_attr *attr)
{
	int fd;

	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	fd = ctr_perf_open(attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int ctr_probe_hw(void)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	return probe(&attr);
}

int ctr_probe_sw(const struct ctr_sw_event *ev)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = ev->config;
	return probe(&attr);
}
