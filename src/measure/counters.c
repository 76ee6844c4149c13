// SPDX-License-Identifier: GPL-2.0-or-later
#include "counters.h"
#include "arch.h" /* arch_parse_raw: the tables' raw event syntax */
#include "mthpscope.h"

#include <errno.h>
#include <math.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

const struct counters_sw_event counters_sw_events[] = {
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
};
const size_t counters_nr_sw_events = sizeof(counters_sw_events) / sizeof(counters_sw_events[0]);

static int pfm_state = 1; /* 1: not tried, 0: ok, <0: failed */

int counters_pfm_init(void)
{
	if (pfm_state == 1)
		pfm_state = pfm_initialize() == PFM_SUCCESS ? 0 : -EIO;
	return pfm_state;
}

int counters_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		  unsigned long flags)
{
	long fd;

	attr->size = sizeof(*attr);
	fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
	return fd < 0 ? -errno : (int)fd;
}

int counters_paranoid(void)
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

int counters_strerror(int err, bool hw, char *buf, size_t size)
{
	int p = counters_paranoid();

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
	case ENOMSG:
		return snprintf(buf, size,
				"this event cannot be encoded here (%s): libpfm4 knows no such event, "
				"or its PMU is not this CPU's ('mthpscope events' lists this CPU's set; "
				"LIBPFM_ENCODE_INACTIVE=1 encodes another CPU's events, which then "
				"do not open)", counters_encode_detail());
	case EBUSY:
		return snprintf(buf, size, "the counter is in use by another tool (e.g. a watchdog "
				"or another profiler)");
	default:
		return snprintf(buf, size, "%s", strerror(-err));
	}
}

int counters_detect_pmus(struct counters_pmu_model *out, int max)
{
	pfm_pmu_t p;
	int n = 0;

	if (counters_pfm_init())
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
	fd = counters_perf_open(attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int counters_probe_hw(void)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	return probe(&attr);
}

int counters_probe_sw(const struct counters_sw_event *ev)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = ev->config;
	return probe(&attr);
}

/* ---- event strings ------------------------------------------------------- */

/* perf's generic names (tools/perf/util/parse-events.c, evsel.c name tables). */
static const struct {
	const char *name;
	unsigned type;
	unsigned long long config;
} generic_events[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
#define HW_CACHE(id, op, res)                                                           \
	(PERF_COUNT_HW_CACHE_##id | PERF_COUNT_HW_CACHE_OP_##op << 8 |                  \
	 PERF_COUNT_HW_CACHE_RESULT_##res << 16)
	{ "dTLB-loads", PERF_TYPE_HW_CACHE, HW_CACHE(DTLB, READ, ACCESS) },
	{ "dTLB-load-misses", PERF_TYPE_HW_CACHE, HW_CACHE(DTLB, READ, MISS) },
	{ "dTLB-stores", PERF_TYPE_HW_CACHE, HW_CACHE(DTLB, WRITE, ACCESS) },
	{ "dTLB-store-misses", PERF_TYPE_HW_CACHE, HW_CACHE(DTLB, WRITE, MISS) },
	{ "iTLB-loads", PERF_TYPE_HW_CACHE, HW_CACHE(ITLB, READ, ACCESS) },
	{ "iTLB-load-misses", PERF_TYPE_HW_CACHE, HW_CACHE(ITLB, READ, MISS) },
	{ "L1-dcache-loads", PERF_TYPE_HW_CACHE, HW_CACHE(L1D, READ, ACCESS) },
	{ "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, HW_CACHE(L1D, READ, MISS) },
#undef HW_CACHE
};

static _Thread_local char encode_detail[160];

const char *counters_encode_detail(void)
{
	return encode_detail[0] ? encode_detail : "unknown event";
}

/* The perf type of a dynamic PMU (hybrid cpu_core / cpu_atom). */
static int sysfs_pmu_type(const char *pmu, unsigned *type)
{
	char path[160];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	ok = fscanf(f, "%u", type) == 1;
	fclose(f);
	return ok ? 0 : -EIO;
}

int counters_encode(const char *event, bool include_kernel, struct perf_event_attr *attr)
{
	pfm_perf_encode_arg_t arg;
	unsigned long long raw;
	char pmu[64];
	size_t i;
	int ret;

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	encode_detail[0] = '\0';
	if (!event || !*event) {
		snprintf(encode_detail, sizeof(encode_detail), "empty event name");
		return -ENOMSG;
	}
	for (i = 0; i < counters_nr_sw_events; i++) {
		if (!strcmp(event, counters_sw_events[i].name)) {
			attr->type = PERF_TYPE_SOFTWARE;
			attr->config = counters_sw_events[i].config;
			goto generic;
		}
	}
	for (i = 0; i < MS_ARRAY_SIZE(generic_events); i++) {
		if (!strcmp(event, generic_events[i].name)) {
			attr->type = generic_events[i].type;
			attr->config = generic_events[i].config;
			goto generic;
		}
	}
	if (!arch_parse_raw(event, pmu, sizeof(pmu), &raw)) {
		attr->type = PERF_TYPE_RAW;
		attr->config = raw;
		if (pmu[0] && sysfs_pmu_type(pmu, &attr->type)) {
			snprintf(encode_detail, sizeof(encode_detail),
				 "no PMU named '%s' on this host", pmu);
			return -ENOMSG;
		}
		goto generic;
	}

	if (counters_pfm_init())
		return -EIO;
	memset(&arg, 0, sizeof(arg));
	arg.attr = attr;
	arg.size = sizeof(arg);
	/* PFM_PLM3 = user; PFM_PLM0 = kernel. libpfm4 turns the levels into
	 * exclude_user/exclude_kernel/exclude_hv. */
	ret = pfm_get_os_event_encoding(event, include_kernel ? PFM_PLM0 | PFM_PLM3 : PFM_PLM3,
					PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS) {
		snprintf(encode_detail, sizeof(encode_detail), "%s", pfm_strerror(ret));
		memset(attr, 0, sizeof(*attr));
		return -ENOMSG;
	}
	attr->size = sizeof(*attr);
	return 0;

generic:
	attr->exclude_kernel = !include_kernel;
	attr->exclude_hv = 1;
	return 0;
}

const char *counters_attr_source(const struct perf_event_attr *attr)
{
	return attr->type == PERF_TYPE_SOFTWARE ? "sw" : "pmu";
}

unsigned counters_group_key(const struct perf_event_attr *attr)
{
	switch (attr->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
		/* hybrid: perf's extended type names cpu_core or cpu_atom */
		if (attr->config >> 32)
			return (unsigned)(attr->config >> 32);
		return PERF_TYPE_RAW;
	default:
		return attr->type;
	}
}

int counters_scale(unsigned long long raw, unsigned long long enabled, unsigned long long running,
	      double *value, double *scale, bool *multiplexed)
{
	if (enabled == 0 || running >= enabled) {
		/* never enabled, or ran the whole time (running > enabled is a
		 * rounding artefact of the two clocks) */
		*value = (double)raw;
		*scale = 1.0;
		*multiplexed = false;
		return 0;
	}
	*multiplexed = true;
	if (running == 0) {
		*value = NAN;
		*scale = 0.0;
		return -ENODATA;
	}
	*scale = (double)enabled / (double)running;
	*value = (double)raw * *scale;
	return 0;
}

/* ---- event sets ---------------------------------------------------------- */

struct counters_group {
	unsigned key;
	int leader;                     /* fd of the group leader */
	int nr;
	int member[COUNTERS_MAX_EVENTS];     /* spec index of each member, in open order */
	unsigned long long id[COUNTERS_MAX_EVENTS];
	/* the group's times at the last enable: PERF_EVENT_IOC_RESET zeroes the
	 * counts but not time_enabled/time_running, so a window's scale is the
	 * ratio of the times it added, as perf stat's intervals take it */
	unsigned long long enabled0, running0;
};

struct counters_set {
	int n;
	int fd[COUNTERS_MAX_EVENTS];
	char *metric[COUNTERS_MAX_EVENTS];
	char *event[COUNTERS_MAX_EVENTS];
	const char *source[COUNTERS_MAX_EVENTS];
	int nr_groups;
	struct counters_group group[COUNTERS_MAX_EVENTS];
};

#define COUNTERS_READ_FORMAT                                                          \
	(PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |   \
	 PERF_FORMAT_TOTAL_TIME_RUNNING)

void counters_set_close(struct counters_set *set)
{
	int i;

	if (!set)
		return;
	/* siblings before leaders: a leader closed first promotes its siblings */
	for (i = set->n - 1; i >= 0; i--)
		if (set->fd[i] >= 0)
			close(set->fd[i]);
	for (i = 0; i < set->n; i++) {
		free(set->metric[i]);
		free(set->event[i]);
	}
	free(set);
}

static struct counters_group *group_for(struct counters_set *set, unsigned key)
{
	int g;

	for (g = 0; g < set->nr_groups; g++)
		if (set->group[g].key == key)
			return &set->group[g];
	set->group[set->nr_groups] = (struct counters_group){ .key = key, .leader = -1 };
	return &set->group[set->nr_groups++];
}

int counters_set_open(struct counters_set **setp, const struct counters_spec *specs, int n,
		 const struct counters_options *opts, int *bad)
{
	struct perf_event_attr attr[COUNTERS_MAX_EVENTS];
	struct counters_set *set;
	bool kernel = opts && opts->include_kernel;
	int i, err = 0, failed = -1;

	*setp = NULL;
	if (bad)
		*bad = -1;
	if (n <= 0 || n > COUNTERS_MAX_EVENTS)
		return -EINVAL;
	set = calloc(1, sizeof(*set));
	if (!set)
		return -ENOMEM;
	for (i = 0; i < COUNTERS_MAX_EVENTS; i++)
		set->fd[i] = -1;
	/* every string first: a typo is reported before any counter opens */
	for (i = 0; i < n; i++) {
		set->n = i + 1;
		set->metric[i] = strdup(specs[i].metric ? specs[i].metric : specs[i].event);
		set->event[i] = strdup(specs[i].event ? specs[i].event : "");
		if (!set->metric[i] || !set->event[i]) {
			err = -ENOMEM;
			goto out;
		}
		err = counters_encode(specs[i].event, kernel, &attr[i]);
		if (err)
			goto out;
		set->source[i] = counters_attr_source(&attr[i]);
	}
	for (i = 0; i < n; i++) {
		struct counters_group *g = group_for(set, counters_group_key(&attr[i]));
		unsigned long long id;
		int fd;

		failed = i;
		attr[i].read_format = COUNTERS_READ_FORMAT;
		/* only the leader starts disabled: enabling it starts the group */
		attr[i].disabled = g->leader < 0;
		attr[i].inherit = opts && opts->inherit;
		attr[i].enable_on_exec = g->leader < 0 && opts && opts->enable_on_exec;
		fd = counters_perf_open(&attr[i], opts ? opts->pid : 0, -1, g->leader,
				   PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			err = fd;
			goto out;
		}
		set->fd[i] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0) {
			err = -errno;
			goto out;
		}
		if (g->leader < 0)
			g->leader = fd;
		g->member[g->nr] = i;
		g->id[g->nr++] = id;
	}
out:
	if (err) {
		if (bad)
			*bad = failed >= 0 ? failed : set->n - 1;
		counters_set_close(set);
		return err;
	}
	*setp = set;
	return 0;
}

int counters_set_nr_groups(const struct counters_set *set)
{
	return set ? set->nr_groups : 0;
}

static int group_ioctl(struct counters_set *set, unsigned long req)
{
	int g;

	for (g = 0; g < set->nr_groups; g++)
		if (ioctl(set->group[g].leader, req, PERF_IOC_FLAG_GROUP) < 0)
			return -errno;
	return 0;
}

/* The times each group has run so far, as the base of the next window. */
static int group_times(struct counters_set *set)
{
	uint64_t buf[3 + 2 * COUNTERS_MAX_EVENTS];
	int g;

	for (g = 0; g < set->nr_groups; g++) {
		ssize_t len = read(set->group[g].leader, buf, sizeof(buf));

		if (len < 0)
			return -errno;
		if (len < (ssize_t)(3 * sizeof(uint64_t)))
			return -EIO;
		set->group[g].enabled0 = buf[1];
		set->group[g].running0 = buf[2];
	}
	return 0;
}

int counters_set_enable(struct counters_set *set)
{
	int err = group_ioctl(set, PERF_EVENT_IOC_RESET);

	if (!err)
		err = group_times(set);
	return err ? err : group_ioctl(set, PERF_EVENT_IOC_ENABLE);
}

int counters_set_disable(struct counters_set *set)
{
	return group_ioctl(set, PERF_EVENT_IOC_DISABLE);
}

int counters_set_read(struct counters_set *set, struct counters_value *out, int n)
{
	/* PERF_FORMAT_GROUP|ID|TOTAL_TIME_*: nr, enabled, running, {value, id}[nr] */
	uint64_t buf[3 + 2 * COUNTERS_MAX_EVENTS];
	int g, k, j;

	if (n < set->n)
		return -EINVAL;
	for (g = 0; g < set->nr_groups; g++) {
		struct counters_group *grp = &set->group[g];
		ssize_t len = read(grp->leader, buf, sizeof(buf));

		if (len < 0)
			return -errno;
		if (len < (ssize_t)(3 * sizeof(uint64_t)) || buf[0] != (uint64_t)grp->nr ||
		    (size_t)len < (3 + 2 * buf[0]) * sizeof(uint64_t))
			return -EIO;
		for (k = 0; k < grp->nr; k++) {
			uint64_t raw = 0;
			struct counters_value *v;

			/* match by id: the kernel's order is the group's list order */
			for (j = 0; j < grp->nr; j++)
				if (buf[3 + 2 * j + 1] == grp->id[k])
					break;
			if (j == grp->nr)
				return -EIO;
			raw = buf[3 + 2 * j];
			v = &out[grp->member[k]];
			v->metric = set->metric[grp->member[k]];
			v->event = set->event[grp->member[k]];
			v->source = set->source[grp->member[k]];
			v->raw = raw;
			v->time_enabled = buf[1] - grp->enabled0;
			v->time_running = buf[2] - grp->running0;
			counters_scale(raw, v->time_enabled, v->time_running, &v->value, &v->scale,
				       &v->multiplexed);
		}
	}
	return 0;
}
