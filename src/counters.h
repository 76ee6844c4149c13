/*
 * perf_event counters: open, enable, read, scale; libpfm4 event names.
 * Return convention: 0 (or an fd) on success, negative errno on failure;
 * ctr_strerror() turns an errno from perf_event_open into advice.
 */
#ifndef COUNTERS_H
#define COUNTERS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

int ctr_pfm_init(void);

/* The raw syscall; returns an fd or -errno. */
int ctr_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		  unsigned long flags);

/* What to do about an error from perf_event_open (perf's
 * evsel__open_strerror habit). 'hw' says whether the event was a hardware one. */
int ctr_strerror(int err, bool hw, char *buf, size_t size);

struct ctr_pmu_model {
	char name[64];  /* libpfm4 PMU name, e.g. "icl", "amd64_fam19h_zen4" */
	char desc[128];
	int nr_events;
};
/* Core PMU models libpfm4 finds active on this host (not "perf"/"perf_raw"). */
int ctr_detect_pmus(struct ctr_pmu_model *out, int max);

/* Try to open a user-only hardware cycles counter on this thread:
 * 0 when it opens, else -errno (ENOENT / EOPNOTSUPP in a VM without a vPMU). */
int ctr_probe_hw(void);

struct ctr_sw_event {
	const char *name;   /* perf's name: "page-faults" */
	unsigned long long config;
};
extern const struct ctr_sw_event ctr_sw_events[];
extern const size_t ctr_nr_sw_events;
/* 0 when the software event opens on this thread, else -errno. */
int ctr_probe_sw(const struct ctr_sw_event *ev);

/*
 * Event groups (implemented with the counters issue). One group per PMU:
 * PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING, bound to the
 * calling thread, user-only unless include_kernel, enabled and disabled
 * around the measured loop only, one read() per sample, scaled for
 * multiplexing with the scale recorded.
 */
struct ctr_spec {
	const char *metric; /* semantic name: "walks", "page_faults", ... */
	const char *event;  /* libpfm4 string ("icl::DTLB_LOAD_MISSES:WALK_COMPLETED"),
			     * raw "rNNNN", or a perf generic name ("page-faults") */
};

struct ctr_value {
	const char *metric;
	const char *event;
	const char *source;  /* "pmu" or "sw" */
	double value;        /* scaled count */
	double scale;        /* time_enabled / time_running; 1.0 when not multiplexed */
	bool multiplexed;
};

struct ctr_set; /* opaque: the groups of one measurement */

struct ctr_options {
	bool include_kernel;
};

/* Open every spec (all or nothing). On failure *bad names the index of the
 * spec that failed (for ctr_strerror). */
int ctr_set_open(struct ctr_set **set, const struct ctr_spec *specs, int n,
		 const struct ctr_options *opts, int *bad);
int ctr_set_enable(struct ctr_set *set);  /* reset + enable */
int ctr_set_disable(struct ctr_set *set);
/* Fill out[0..n-1] in spec order. */
int ctr_set_read(struct ctr_set *set, struct ctr_value *out, int n);
void ctr_set_close(struct ctr_set *set);

/* perf_event_paranoid, or -99 when unreadable. */
int ctr_paranoid(void);

#endif
