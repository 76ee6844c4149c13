// SPDX-License-Identifier: GPL-2.0-or-later
/* What every arch directory shares: look-up, the raw event syntax, formulas. */
#include "arch.h"

#include <ctype.h>
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

const char *arch_event_bind(const struct arch_desc *d, const char *event, const char *pfm,
			    char *buf, size_t size)
{
	size_t len = strlen(d->name);
	int n;

	if (!pfm || !*pfm || !strcmp(pfm, d->name) || strncmp(event, d->name, len) ||
	    strncmp(event + len, "::", 2))
		return event;
	n = snprintf(buf, size, "%s%s", pfm, event + len);
	return n < 0 || (size_t)n >= size ? NULL : buf;
}

const struct arch_desc *arch_detect(const struct arch_cpu *c)
{
	const struct arch_desc *const *d;

	for (d = arch_descs; *d; d++)
		if ((*d)->detect && (*d)->detect(c))
			return *d;
	return NULL;
}

int arch_parse_raw(const char *s, char *pmu, size_t pmu_size, unsigned long long *config)
{
	const char *raw = s, *p, *slash;
	size_t len;

	if (pmu_size)
		pmu[0] = '\0';
	/* "cpu_core/r0e12/": perf's PMU-qualified raw syntax */
	slash = strchr(s, '/');
	if (slash) {
		len = (size_t)(slash - s);
		if (!len || len >= pmu_size || s[strlen(s) - 1] != '/')
			return -EINVAL;
		memcpy(pmu, s, len);
		pmu[len] = '\0';
		raw = slash + 1;
		len = strlen(raw) - 1; /* without the closing '/' */
	} else {
		len = strlen(raw);
	}
	if (raw[0] != 'r' || len < 2 || len > 17)
		return -EINVAL;
	for (p = raw + 1; p < raw + len; p++)
		if (!isxdigit((unsigned char)*p))
			return -EINVAL;
	*config = strtoull(raw + 1, NULL, 16);
	return 0;
}

const struct arch_event *arch_events_for(const struct arch_desc *d, enum arch_access access,
					 bool raw)
{
	if (access == ARCH_ACCESS_STORES && (raw ? d->store_raw_events : d->store_events))
		return raw ? d->store_raw_events : d->store_events;
	return raw ? d->raw_events : d->events;
}

int arch_event_counted(const struct arch_desc *d, const char *event)
{
	return d && d->counted ? d->counted(event) : 1;
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
