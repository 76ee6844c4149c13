// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * compare's inputs: the trials of one results file, or of a side of several
 * runs pooled, grouped into series by pattern, order, span and metric; and
 * whether runs meant as repeats differ.
 */
#include "compare.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mthpscope.h"
#include "program.h"
#include "results.h"

struct entry {
	const struct results_trial *t;
	const struct results_metric *m;
	unsigned run;
};

static int cmp_entry(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	int c = strcmp(a->t->pattern, b->t->pattern);

	if (!c)
		c = strcmp(a->m->name, b->m->name);
	if (!c && a->t->span != b->t->span)
		c = a->t->span < b->t->span ? -1 : 1;
	if (!c)
		c = a->t->order - b->t->order;
	if (!c && a->run != b->run)
		c = a->run < b->run ? -1 : 1;
	if (!c)
		c = a->t->rep - b->t->rep;
	return c;
}

static bool same_key(const struct entry *a, const struct entry *b)
{
	return a->t->order == b->t->order && a->t->span == b->t->span &&
	       !strcmp(a->t->pattern, b->t->pattern) && !strcmp(a->m->name, b->m->name);
}

struct owned {
	struct compare_series *series;
	struct compare_setting *settings;
	double *values;
	const struct results_trial **trials;
	unsigned *runs;
};

static void owned_free(struct owned *o)
{
	if (!o)
		return;
	free(o->series);
	free(o->values);
	free(o->settings);
	free(o->trials);
	free(o->runs);
	free(o);
}

static void input_settings(const struct results *res, struct compare_setting *set, size_t *n)
{
	int i;

	*n = 0;
	if (res->thp_enabled[0]) {
		snprintf(set[*n].name, sizeof(set[0].name), "enabled");
		snprintf(set[*n].value, sizeof(set[0].value), "%s", res->thp_enabled);
		(*n)++;
	}
	if (res->thp_defrag[0]) {
		snprintf(set[*n].name, sizeof(set[0].name), "defrag");
		snprintf(set[*n].value, sizeof(set[0].value), "%s", res->thp_defrag);
		(*n)++;
	}
	for (i = 0; i < res->nr_sizes; i++) {
		if (!res->sizes[i].enabled[0])
			continue;
		snprintf(set[*n].name, sizeof(set[0].name), "hugepages-%llukB/enabled",
			 (unsigned long long)(res->page_size ? res->page_size : 4096) / 1024
				 << res->sizes[i].order);
		snprintf(set[*n].value, sizeof(set[0].value), "%s", res->sizes[i].enabled);
		(*n)++;
	}
	if (res->max_ptes_none >= 0) {
		snprintf(set[*n].name, sizeof(set[0].name), "khugepaged/max_ptes_none");
		snprintf(set[*n].value, sizeof(set[0].value), "%ld", res->max_ptes_none);
		(*n)++;
	}
}

/* Whether trial i of res did not measure its order: a micro-benchmark's
 * folios under RESULTS_MIN_COVERAGE of its span; a program's (run -- CMD)
 * coverage is stated, not a gate, as analyze has it (program.h): left out
 * only when its order was clearly not in effect. */
static bool left_out(const struct results *res, size_t i)
{
	const struct results_trial *t = &res->trials[i];
	char why[160];

	if (t->workload == RESULTS_WL_COMMAND)
		return program_trial_out(res, i, why, sizeof(why));
	return t->has_folios && !(t->coverage >= RESULTS_MIN_COVERAGE);
}

/* The trials of res[0..nr) that measured their order, as entries; the
 * number of entries, with the trials left out counted in *failed (the
 * command failed or timed out) or else in *dropped (coverage too low): the
 * warning says which, and a failed trial may well have had its folios. */
static size_t runs_entries(const struct results *const *res, size_t nr, struct entry *e,
			   size_t *dropped, size_t *failed)
{
	size_t r, i, j, n = 0;

	for (r = 0; r < nr; r++)
		for (i = 0; i < res[r]->nr_trials; i++) {
			const struct results_trial *t = &res[r]->trials[i];

			/* A trial whose folios are not of its order measured another
			 * order; a command that failed or timed out measured nothing. */
			if (t->flags & (RESULTS_F_FAILED | RESULTS_F_TIMEOUT)) {
				(*failed)++;
				continue;
			}
			if (left_out(res[r], i)) {
				(*dropped)++;
				continue;
			}
			for (j = 0; j < t->nr_metrics; j++)
				e[n++] = (struct entry){ t, &t->metrics[j], (unsigned)r };
		}
	return n;
}

/* The series of the sorted entries e[0..n) into o; their number. */
static size_t entries_series(const struct entry *e, size_t n, struct owned *o)
{
	size_t i, ns = 0;

	for (i = 0; i < n; i++) {
		o->values[i] = e[i].m->value;
		o->trials[i] = e[i].t;
		o->runs[i] = e[i].run;
		if (i && same_key(&e[i - 1], &e[i])) {
			o->series[ns - 1].n++;
			continue;
		}
		o->series[ns++] = (struct compare_series){
			.pattern = e[i].t->pattern, .order = e[i].t->order,
			.span = e[i].t->span, .metric = e[i].m->name,
			.source = e[i].m->source, .values = &o->values[i], .n = 1,
			.declared = strcmp(e[i].m->source, "workload") ? COMPARE_DIR_NONE
				    : e[i].m->higher_better ? COMPARE_DIR_HIGHER : COMPARE_DIR_LOWER,
			.trials = &o->trials[i], .runs = &o->runs[i],
		};
	}
	return ns;
}

int compare_input_from_runs(const struct results *const *res, size_t nr, const char *label,
			    struct compare_input *in)
{
	const struct results *r0 = res[0];
	struct entry *e = NULL;
	struct owned *o = NULL;
	size_t i, n = 0, ns;
	int err = -ENOMEM;

	memset(in, 0, sizeof(*in));
	for (i = 0; i < nr; i++) {
		size_t k;

		for (k = 0; k < res[i]->nr_trials; k++)
			n += res[i]->trials[k].nr_metrics;
	}
	o = calloc(1, sizeof(*o));
	e = calloc(n + 1, sizeof(*e));
	if (!o || !e)
		goto out;
	o->series = calloc(n + 1, sizeof(*o->series));
	o->values = calloc(n + 1, sizeof(*o->values));
	o->trials = calloc(n + 1, sizeof(*o->trials));
	o->runs = calloc(n + 1, sizeof(*o->runs));
	o->settings = calloc((size_t)r0->nr_sizes + 3, sizeof(*o->settings));
	if (!o->series || !o->values || !o->settings || !o->trials || !o->runs)
		goto out;
	n = runs_entries(res, nr, e, &in->nr_dropped, &in->nr_failed);
	qsort(e, n, sizeof(*e), cmp_entry);
	ns = entries_series(e, n, o);
	input_settings(r0, o->settings, &in->nr_settings);
	in->label = label;
	in->kernel = r0->kernel;
	in->arch = r0->arch;
	in->cpu_model = r0->cpu_model;
	in->virtualized = r0->virtualized;
	in->emulated = r0->emulated;
	in->pmu_available = r0->pmu_available;
	in->page_size = (unsigned long)r0->page_size;
	in->interleaved = r0->config_schedule == RESULTS_SCHED_INTERLEAVED;
	in->placement_per_rep = r0->head.config.placement_per_rep;
	in->argv = r0->head.config.argv;
	for (i = 1; i < nr; i++)
		in->placement_per_rep &= res[i]->head.config.placement_per_rep;
	for (i = 0; i < nr; i++)
		in->interrupted |= res[i]->head.interrupted;
	in->placements = nr > 0;
	for (i = 0; i < nr; i++)
		in->placements &= results_has_placements(res[i]);
	in->nr_runs = nr;
	in->settings = o->settings;
	in->series = o->series;
	in->nr_series = ns;
	in->owned = o;
	o = NULL;
	err = 0;
out:
	owned_free(o);
	free(e);
	return err;
}

int compare_input_from_results(const struct results *res, const char *label,
			       struct compare_input *in)
{
	return compare_input_from_runs(&res, 1, label, in);
}

static const char *str_or_none(const char *s)
{
	return s && *s ? s : "(none)";
}

/* The value of setting name in set[0..n), or NULL. */
static const char *setting_of(const struct compare_setting *set, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(set[i].name, name))
			return set[i].value;
	return NULL;
}

/* The first THP setting in which b differs from a (by name), in why. */
static bool settings_differ(const struct results *a, const struct results *b, char *why,
			    size_t size)
{
	struct compare_setting sa[FOLIO_MAX_ORDER + 4], sb[FOLIO_MAX_ORDER + 4];
	size_t na = 0, nb = 0, i;
	const char *v;

	input_settings(a, sa, &na);
	input_settings(b, sb, &nb);
	for (i = 0; i < na; i++)
		if (!(v = setting_of(sb, nb, sa[i].name)) || strcmp(v, sa[i].value)) {
			snprintf(why, size, "THP setting %s = %s, not %s", sa[i].name,
				 v ? v : "(not recorded)", sa[i].value);
			return true;
		}
	for (i = 0; i < nb; i++)
		if (!setting_of(sa, na, sb[i].name)) {
			snprintf(why, size, "THP setting %s = %s, not recorded", sb[i].name,
				 sb[i].value);
			return true;
		}
	return false;
}

/* The first pattern of b's trials that a has none of, in why. */
static bool patterns_differ(const struct results *a, const struct results *b, char *why,
			    size_t size)
{
	size_t i, j;

	for (i = 0; i < b->nr_trials; i++) {
		for (j = 0; j < a->nr_trials; j++)
			if (!strcmp(a->trials[j].pattern, b->trials[i].pattern))
				break;
		if (j == a->nr_trials) {
			snprintf(why, size, "pattern %s, which the first run has not",
				 b->trials[i].pattern);
			return true;
		}
	}
	return false;
}

/* The first field in which run b differs from run a, in why; false if none. */
static bool run_differs(const struct results *a, const struct results *b, char *why,
			size_t size)
{
	static const char *const what[] = { "kernel", "architecture" };
	const char *fa[] = { a->kernel, a->arch };
	const char *fb[] = { b->kernel, b->arch };
	size_t i;

	for (i = 0; i < 2; i++)
		if (strcmp(str_or_none(fa[i]), str_or_none(fb[i]))) {
			snprintf(why, size, "%s %s, not %s", what[i], str_or_none(fb[i]),
				 str_or_none(fa[i]));
			return true;
		}
	if (a->page_size != b->page_size || a->config_schedule != b->config_schedule ||
	    a->virtualized != b->virtualized || a->emulated != b->emulated ||
	    a->pmu_available != b->pmu_available) {
		snprintf(why, size, "another page size, schedule, virtualization, emulation or "
			 "PMU");
		return true;
	}
	return settings_differ(a, b, why, size) || patterns_differ(a, b, why, size) ||
	       patterns_differ(b, a, why, size);
}

size_t compare_runs_differ(const struct results *const *res, size_t nr, char *why,
			   size_t size)
{
	size_t i;

	for (i = 1; i < nr; i++)
		if (run_differs(res[0], res[i], why, size))
			return i;
	return 0;
}

void compare_input_free(struct compare_input *in)
{
	owned_free(in->owned);
	memset(in, 0, sizeof(*in));
}

/* ---- comparability ---------------------------------------------------- */
