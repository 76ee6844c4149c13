// SPDX-License-Identifier: GPL-2.0-or-later
/* The arch/ descriptions meet this machine's PMU (arch_pmu.h). */
#include "arch_pmu.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int arch_pmu_detect(const struct arch_desc **out, char *why, size_t size)
{
	struct counters_pmu_model models[8];
	struct arch_cpu c;
	int n, i;

	*out = NULL;
	n = counters_detect_pmus(models, 8);
	for (i = 0; i < n; i++) {
		if ((*out = arch_find(models[i].name)))
			return 0;
	}
	arch_cpu_id(&c); /* arm64 without MIDR in sysfs: PMUv3 still detects */
	if ((*out = arch_detect(&c)))
		return 0;
	if (n > 0)
		snprintf(why, size, "libpfm4 detects '%s', for which mthpscope has no TLB event "
			 "set ('mthpscope events --pmu NAME' lists the known ones)", models[0].name);
	else
		snprintf(why, size, "neither libpfm4 nor mthpscope's CPU tables know this CPU");
	return -ENODEV;
}

const struct arch_event *arch_pmu_bind(const struct arch_desc *d, enum arch_access access,
				       char *pfm, size_t size)
{
	struct counters_pmu_model models[8];
	int n = counters_detect_pmus(models, 8), i;
	struct arch_cpu c;

	pfm[0] = '\0';
	for (i = 0; i < n; i++)
		if (arch_find(models[i].name) == d) {
			snprintf(pfm, size, "%s", models[i].name);
			return arch_events_for(d, access, false);
		}
	if (d->raw_events && d->detect && !arch_cpu_id(&c) && d->detect(&c))
		return arch_events_for(d, access, true);
	return arch_events_for(d, access, false);
}

/* Is 'cpu' in a sysfs cpu list such as "0-7,16-23"? */
static bool cpulist_has(const char *list, int cpu)
{
	const char *p = list;

	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p)
			return false;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		if (cpu >= lo && cpu <= hi)
			return true;
		p = *end == ',' ? end + 1 : end;
		if (*p == '\n')
			break;
	}
	return false;
}

static bool pmu_covers_cpu(const char *pmu, int cpu)
{
	char path[128], buf[256];
	FILE *f;
	bool ok = false;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/cpus", pmu);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f))
		ok = cpulist_has(buf, cpu);
	fclose(f);
	return ok;
}

int arch_pmu_specs(const struct arch_desc *d, enum arch_access access, int cpu,
		   struct arch_specs *out, char *why, size_t size)
{
	const struct arch_event *e;
	const char *first_pmu = NULL, *want = NULL;
	char adv[384], pfm[64];
	int err;

	memset(out, 0, sizeof(*out));
	if (!d && (err = arch_pmu_detect(&d, why, size)))
		return err;
	out->desc = d;
	err = counters_probe_hw();
	if (err) {
		counters_strerror(err, true, adv, sizeof(adv));
		snprintf(why, size, "%s: a hardware counter does not open (%s): %s", d->name,
			 strerror(-err), adv);
		return err;
	}
	if (d->hybrid && cpu >= 0) {
		for (e = d->events; e->metric; e++)
			if (e->pmu && pmu_covers_cpu(e->pmu, cpu)) {
				want = e->pmu;
				break;
			}
		if (!want) {
			snprintf(why, size, "%s: no hybrid PMU lists cpu %d in its sysfs 'cpus'",
				 d->name, cpu);
			return -ENODEV;
		}
	}
	for (e = arch_pmu_bind(d, access, pfm, sizeof(pfm)); e->metric; e++) {
		struct counters_spec *s;

		if (want && e->pmu && strcmp(e->pmu, want))
			continue;
		if (arch_event_counted(d, e->event) == 0) {
			if (out->nr_missing < ARCH_MAX_SPECS)
				out->missing[out->nr_missing++] = e;
			continue;
		}
		if (out->n == ARCH_MAX_SPECS)
			return -E2BIG;
		s = &out->spec[out->n];
		s->event = arch_event_bind(d, e->event, pfm, out->events[out->n], ARCH_EVENT_MAX);
		if (!s->event)
			return -ENAMETOOLONG;
		s->metric = e->metric;
		if (!first_pmu)
			first_pmu = e->pmu;
		if (!want && e->pmu && first_pmu && strcmp(e->pmu, first_pmu)) {
			snprintf(out->names[out->n], sizeof(out->names[0]), "%s_%s", e->metric,
				 e->pmu);
			s->metric = out->names[out->n];
		}
		out->n++;
	}
	why[0] = '\0';
	return out->n;
}
