// SPDX-License-Identifier: GPL-2.0-or-later
/* What every arch directory shares: look-up, detection, specs, formulas. */
#include "arch.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* HawkEye (Panwar et al., ASPLOS 2019) measures MMU overhead as page-walk
 * cycles over core cycles; the per-access forms normalise by the kernel's
 * own access count so orders compare at equal work. */
static const struct arch_formula common_formulas[] = {
	{ "walks_per_kaccess", ARCH_OP_DIV, "walks", "accesses", 1000.0,
	  "completed data page walks per 1000 accesses" },
	{ "dtlb_misses_per_kaccess", ARCH_OP_DIV, "dtlb_misses", "accesses", 1000.0,
	  "first-level data TLB misses per 1000 accesses" },
	{ "walk_cycles_per_access", ARCH_OP_DIV, "walk_cycles", "accesses", 1.0,
	  "cycles with a data page walk in flight, per access" },
	{ "mmu_overhead", ARCH_OP_DIV, "walk_cycles", "cycles", 1.0,
	  "share of core cycles with a data page walk in flight (HawkEye)" },
	{ "ipc", ARCH_OP_DIV, "instructions", "cycles", 1.0, "instructions per cycle" },
	{ NULL },
};

const struct arch_formula *arch_common_formulas(void)
{
	return common_formulas;
}

const struct arch_desc *arch_find(const char *pmu_name)
{
	const struct arch_desc *const *d;
	const char *const *n;

	if (!pmu_name)
		return NULL;
	for (d = arch_descs; *d; d++) {
		if (!strcmp((*d)->name, pmu_name))
			return *d;
		for (n = (*d)->pfm_names; n && *n; n++)
			if (!strcmp(*n, pmu_name))
				return *d;
	}
	return NULL;
}

int arch_detect(const struct arch_desc **out, char *why, size_t size)
{
	struct counters_pmu_model models[8];
	const struct arch_desc *const *d;
	int n, i;

	*out = NULL;
	n = counters_detect_pmus(models, 8);
	for (i = 0; i < n; i++) {
		if ((*out = arch_find(models[i].name)))
			return 0;
	}
	for (d = arch_descs; *d; d++) {
		if ((*d)->detect && (*d)->detect()) {
			*out = *d;
			return 0;
		}
	}
	if (n > 0)
		snprintf(why, size, "libpfm4 detects '%s', for which mthpscope has no TLB event "
			 "set ('mthpscope events --pmu NAME' lists the known ones)", models[0].name);
	else
		snprintf(why, size, "neither libpfm4 nor mthpscope's CPU tables know this CPU");
	return -ENODEV;
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

int arch_event_counted(const struct arch_desc *d, const char *event)
{
	return d && d->counted ? d->counted(event) : 1;
}

int arch_pmu_specs(const struct arch_desc *d, int cpu, struct arch_specs *out, char *why,
		   size_t size)
{
	const struct arch_event *e;
	const char *first_pmu = NULL, *want = NULL;
	char adv[384];
	int err;

	memset(out, 0, sizeof(*out));
	if (!d && (err = arch_detect(&d, why, size)))
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
	for (e = d->events; e->metric; e++) {
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
		s->event = e->event;
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

static double apply(const struct arch_formula *f, double a, double b)
{
	if (isnan(a) || isnan(b))
		return NAN;
	switch (f->op) {
	case ARCH_OP_DIV:
		return b == 0 ? NAN : a / b * f->scale;
	case ARCH_OP_ADD:
		return (a + b) * f->scale;
	case ARCH_OP_SUB:
		return (a - b) * f->scale;
	}
	return NAN;
}

struct derive_ctx {
	double (*get)(const char *metric, void *ctx);
	void *ctx;
	struct arch_value *out;
	int n;
};

/* A metric measured, or derived earlier in this pass. */
static double lookup(struct derive_ctx *c, const char *name)
{
	double v = c->get(name, c->ctx);
	int i;

	if (!isnan(v))
		return v;
	for (i = 0; i < c->n; i++)
		if (!strcmp(c->out[i].name, name))
			return c->out[i].value;
	return NAN;
}

int arch_derive(const struct arch_desc *d, double (*get)(const char *metric, void *ctx),
		void *ctx, struct arch_value *out, int max)
{
	/* family formulas first: they define metrics (dtlb_misses on Intel)
	 * the common ones divide */
	const struct arch_formula *lists[2] = { d ? d->derived : NULL, common_formulas };
	struct derive_ctx c = { get, ctx, out, 0 };
	const struct arch_formula *f;
	int l;

	for (l = 0; l < 2; l++) {
		for (f = lists[l]; f && f->name; f++) {
			double v;

			if (!isnan(get(f->name, ctx)))
				continue; /* measured directly */
			v = apply(f, lookup(&c, f->a), lookup(&c, f->b));
			if (isnan(v) || c.n == max)
				continue;
			out[c.n].name = f->name;
			out[c.n++].value = v;
		}
	}
	return c.n;
}
