/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_event counters: open, enable, read, scale; libpfm4 event names.
 * Return convention: 0 (or an fd) on success, negative errno on failure;
 * counters_strerror() turns an errno from perf_event_open into advice.
 */
#ifndef COUNTERS_H
#define COUNTERS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

int counters_pfm_init(void);

/* The raw syscall; returns an fd or -errno. */
int counters_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		  unsigned long flags);

/* What to do about an error from perf_event_open (perf's
 * evsel__open_strerror habit). 'hw' says whether the event was a hardware one. */
int counters_strerror(int err, bool hw, char *buf, size_t size);

struct counters_pmu_model {
	char name[64];  /* libpfm4 PMU name, e.g. "icl", "amd64_fam19h_zen4" */
	char desc[128];
	int nr_events;
};
/* Core PMU models libpfm4 finds active on this host (not "perf"/"perf_raw"). */
int counters_detect_pmus(struct counters_pmu_model *out, int max);

/* Try to open a user-only hardware cycles counter on this thread:
 * 0 when it opens, else -errno (ENOENT / EOPNOTSUPP in a VM without a vPMU). */
int counters_probe_hw(void);

struct counters_sw_event {
	const char *name;   /* perf's name: "page-faults" */
	unsigned long long config;
};
extern const struct counters_sw_event counters_sw_events[];
extern const size_t counters_nr_sw_events;
/* 0 when the software event opens on this thread, else -errno. */
int counters_probe_sw(const struct counters_sw_event *ev);

/*
 * Event groups (implemented with the counters issue). One group per PMU:
 * PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING, bound to the
 * calling thread or a target process (struct counters_options), user-only unless include_kernel, enabled and disabled
 * around the measured loop only, one read() per sample, scaled for
 * multiplexing with the scale recorded.
 */
struct counters_spec {
	const char *metric; /* semantic name: "walks", "page_faults", ... */
	const char *event;  /* libpfm4 string ("icl::DTLB_LOAD_MISSES:WALK_COMPLETED"),
			     * raw "rNNNN", or a perf generic name ("page-faults") */
};

struct counters_value {
	const char *metric;
	const char *event;
	const char *source;  /* "pmu" (hardware, raw, libpfm4 core events) or "sw" */
	double value;        /* scaled count; NAN when the counter never ran */
	double scale;        /* time_enabled / time_running; 1.0 when not multiplexed */
	bool multiplexed;    /* time_running < time_enabled: the count is an estimate */
	unsigned long long raw;                        /* the count as read */
	/* ns, of the event's group, since the last counters_set_enable */
	unsigned long long time_enabled, time_running;
};

struct counters_set; /* opaque: the groups of one measurement */

/*
 * The target: by default the calling thread. With pid > 0 the counters
 * watch that process; 'inherit' extends them over the threads and children
 * it creates after the open (their counts are added in when they exit);
 * 'enable_on_exec' leaves the set disabled until the target calls exec (a
 * child prepared by child_prepare(): only the command is counted, not the
 * launcher's fork and wait).
 */
struct counters_options {
	bool include_kernel;
	pid_t pid;           /* 0: the calling thread */
	bool inherit;
	bool enable_on_exec;
};

/* Open every spec (all or nothing). On failure *bad names the index of the
 * spec that failed (for counters_strerror); -ENOMSG when the event string is not
 * one libpfm4, the raw syntax or the generic table knows (counters_strerror says so),
 * else the errno of perf_event_open. At most COUNTERS_MAX_EVENTS specs. */
#define COUNTERS_MAX_EVENTS 32
int counters_set_open(struct counters_set **set, const struct counters_spec *specs, int n,
		 const struct counters_options *opts, int *bad);
int counters_set_enable(struct counters_set *set);  /* reset + enable, every group */
int counters_set_disable(struct counters_set *set);
/* One read() per group; fill out[0..n-1] in spec order. */
int counters_set_read(struct counters_set *set, struct counters_value *out, int n);
void counters_set_close(struct counters_set *set);
/* Number of perf_event groups (one per PMU) the set holds. */
int counters_set_nr_groups(const struct counters_set *set);

/*
 * Building blocks of the set, exposed for table tests and for 'events'.
 *
 * counters_encode: an event string to a perf_event_attr (not opened): a perf
 * generic name ("page-faults", "cycles", "dTLB-load-misses"), raw "rNNNN"
 * (hex, PERF_TYPE_RAW), or any libpfm4 string through
 * pfm_get_os_event_encoding(PFM_OS_PERF_EVENT_EXT). User-only unless
 * include_kernel. 0, -ENOMSG (unknown here), -EIO (libpfm4 failed to start).
 */
int counters_encode(const char *event, bool include_kernel, struct perf_event_attr *attr);
/* libpfm4's message for the last -ENOMSG of counters_encode on this thread. */
const char *counters_encode_detail(void);
/* "sw" for software events, "pmu" for everything counted by a PMU. */
const char *counters_attr_source(const struct perf_event_attr *attr);
/* Which PMU counts the event: the perf type it must share a group with.
 * Generic hardware, cache and raw events count on the core PMU (hybrid:
 * the PMU type in config bits 32-63 when set). */
unsigned counters_group_key(const struct perf_event_attr *attr);

/* Multiplexing: value = raw * enabled / running. Returns 0; -ENODATA (value
 * NAN, multiplexed) when the counter was enabled but never ran. A group never
 * enabled (enabled == 0) counts raw with scale 1. */
int counters_scale(unsigned long long raw, unsigned long long enabled, unsigned long long running,
	      double *value, double *scale, bool *multiplexed);

/* perf_event_paranoid, or -99 when unreadable. */
int counters_paranoid(void);

#endif
