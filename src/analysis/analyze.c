// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-order gains and the recommendation (analyze.h). Lower is better for
 * every metric analysed here (time, walks, misses, faults, memory), so a gain
 * is the share of the order-0 value that an order saves.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze.h"
#include "folio_types.h"
#include "mthpscope.h"
#include "metrics.h"
#include "plateau.h"
#include "program.h"
#include "stats.h"

/* The unit of a metric (metrics.h); a metric the registry does not know is
 * its own unit, counted per trial. */
static void metric_unit(const char *name, char *unit, size_t size, bool *per_access)
{
	const struct metrics_def *m = metrics_find(name);

	snprintf(unit, size, "%s", m && m->unit ? m->unit : name);
	*per_access = m && m->per_access;
}

const char *analyze_verdict_name(enum analyze_verdict v)
{
	switch (v) {
	case AN_MTHP: return "mthp";
	case AN_PMD_ONLY: return "pmd-only";
	case AN_NO_GAIN: return "no-gain";
	default: return "inconclusive";
	}
}

const char *analyze_status_name(enum analyze_status s)
{
	switch (s) {
	case AN_ST_BASE: return "baseline";
	case AN_ST_GAIN: return "gain";
	case AN_ST_NONE: return "none";
	default: return "unclear";
	}
}

const char *analyze_method_name(enum analyze_method m)
{
	return m == AN_PAIRED ? "paired" : "unpaired";
}

const char *analyze_test_name(enum analyze_method m)
{
	return m == AN_PAIRED ? "wilcoxon-signed-rank" : "mann-whitney";
}

void analyze_order_size(const struct analysis *a, int order, char *buf, size_t size)
{
	unsigned long long kb = (a->res->page_size << order) >> 10;

	if (kb >= 1024 * 1024 && kb % (1024 * 1024) == 0)
		snprintf(buf, size, "%lluG", kb >> 20);
	else if (kb >= 1024 && kb % 1024 == 0)
		snprintf(buf, size, "%lluM", kb >> 10);
	else
		snprintf(buf, size, "%lluK", kb);
}

bool analyze_order_measured(const struct analysis *a, int order)
{
	return order >= 0 && order < ANALYZE_NR_ORDERS && a->orders[order].primary.n > 0;
}

MS_PRINTF(3, 4) static int fail(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return -ENODATA;
}

/* the one appender (ms.c), under the name this file has always used */
#define append ms_appendf

/* ---- trial selection ---------------------------------------------------- */

struct ctx {
	struct analysis *a;
	const struct results *r;
	bool *included;    /* per trial */
	double *buf;       /* nr_trials values */
	unsigned iters;
	double level;      /* of every interval */
	uint64_t seed;
	uint64_t want_span; /* 0 = the largest */
	const char *want_metric; /* analyze --metric, NULL = by strength of evidence */
	bool higher_better; /* the primary metric is a workload's "better": "higher" */
	bool force_unpaired;
	bool summary_only;  /* a per-span verdict: no CIs of medians, no PMD share */
	/* joint bootstrap replicates of every order's gain, iters rows of
	 * ANALYZE_NR_ORDERS (NaN where an order has none): the monotone fit's
	 * CIs come from fitting each row */
	double *boot;
};

static bool trial_dense_match(const struct ctx *c, const struct results_trial *t, uint64_t span)
{
	return !t->sparse && !strcmp(t->pattern, c->a->pattern) && (!span || t->span == span);
}

/* A trial's value of a metric, normalised; false when it has none. */
static bool trial_value(const struct results_trial *t, const char *metric, bool per_access,
			double *v)
{
	const struct results_metric *m = results_trial_metric(t, metric);

	if (!m)
		return false;
	if (per_access) {
		if (!t->accesses)
			return false;
		*v = m->value / (double)t->accesses;
	} else {
		*v = m->value;
	}
	return true;
}

/* The included values of a metric for one order (dense at span, or sparse). */
static size_t collect(const struct ctx *c, int order, uint64_t span, bool sparse,
		      const char *metric, bool per_access, double *out)
{
	size_t i, n = 0;

	for (i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i];

		if (!c->included[i] || t->order != order)
			continue;
		if (sparse ? (!t->sparse || t->span != span) : !trial_dense_match(c, t, span))
			continue;
		if (trial_value(t, metric, per_access, &out[n]))
			n++;
	}
	return n;
}

/* collect() into a new array of nr_trials doubles (free()): 0 or -ENOMEM. */
static int collect_new(const struct ctx *c, int order, uint64_t span, bool sparse,
		       const char *metric, bool per_access, double **out, size_t *n)
{
	*out = malloc(c->r->nr_trials * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	*n = collect(c, order, span, sparse, metric, per_access, *out);
	return 0;
}

static uint64_t seed_for(const struct ctx *c, int order, int what)
{
	return c->seed * 1000003ULL + (uint64_t)order * 101ULL + (uint64_t)what;
}

static void stat_of(const struct ctx *c, const double *x, size_t n, uint64_t seed,
		    struct analyze_stat *s)
{
	s->n = n;
	s->median = s->lo = s->hi = NAN;
	if (!n || stats_median(x, n, &s->median))
		return;
	if (n == 1) {
		s->lo = s->hi = s->median;
		return;
	}
	if (stats_bootstrap_median_ci(x, n, c->level, c->iters, seed, &s->lo, &s->hi))
		s->lo = s->hi = NAN;
}

/* Order k's values of metric at span (dense or sparse) into c->buf, and
 * their median and CI; their count. The CI's seed is the sample's own, so
 * that a sample shown twice (the verdict's table and the metrics', the
 * metrics' and the spans') has one CI, not two that differ in the third
 * digit. */
static size_t sample_stat(struct ctx *c, int k, uint64_t span, bool sparse, const char *metric,
			  bool per_access, struct analyze_stat *st)
{
	size_t n = collect(c, k, span, sparse, metric, per_access, c->buf);
	uint64_t h = 1469598103934665603ULL; /* FNV-1a over what names the sample */
	const char *p;

	for (p = metric; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	h = (h ^ span) * 1099511628211ULL;
	h = (h ^ (uint64_t)(sparse | per_access << 1)) * 1099511628211ULL;
	stat_of(c, c->buf, n, seed_for(c, k, 0) ^ h, st);
	return n;
}

/* b's relative change against a (median(b)/median(a) - 1), negated when
 * 'saving' so that a fall is a positive number. */
static void change_of(const struct ctx *c, const double *a, size_t na, const double *b,
		      size_t nb, uint64_t seed, bool saving, struct analyze_change *ch)
{
	double ma, mb, lo, hi;

	ch->value = ch->lo = ch->hi = NAN;
	if (!na || !nb || stats_median(a, na, &ma) || stats_median(b, nb, &mb) || ma == 0.0)
		return;
	ch->value = saving ? 1.0 - mb / ma : mb / ma - 1.0;
	if (na < 2 || nb < 2)
		return;
	if (stats_bootstrap_rel_change_ci(a, na, b, nb, c->level, c->iters, seed, &lo, &hi))
		return;
	ch->lo = saving ? -hi : lo;
	ch->hi = saving ? -lo : hi;
}

static void exclude(struct ctx *c, size_t i, const char *reason)
{
	const struct results_trial *t = &c->r->trials[i];
	struct analyze_excluded *e = &c->a->excluded[c->a->nr_excluded++];

	c->included[i] = false;
	e->trial = i;
	e->order = t->order;
	e->span = t->span;
	e->rep = t->rep;
	snprintf(e->reason, sizeof(e->reason), "%s", reason);
}

/* Coverage under 95 % means the kernel did not give the requested order
 * for much of the span, so the trial measured a mix; multiplexed counters
 * are estimates. Sparse trials touch a few pages per folio by design, so
 * coverage does not apply to them. */
static void select_trials(struct ctx *c)
{
	size_t i;

	for (i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i];
		char why[96];

		c->included[i] = true;
		if (t->flags & RESULTS_F_TIMEOUT) {
			exclude(c, i, "the command timed out");
		} else if (t->flags & RESULTS_F_FAILED) {
			exclude(c, i, "the command failed");
		} else if (t->multiplexed) {
			exclude(c, i, "multiplexed counters (scaled estimates)");
		} else if (t->workload == RESULTS_WL_COMMAND &&
			   program_trial_out(c->r, i, why, sizeof(why))) {
			/* a program's coverage is stated, not a gate (program.h) */
			exclude(c, i, why);
		} else if (t->workload != RESULTS_WL_COMMAND && !t->sparse && t->has_folios &&
			   t->coverage < RESULTS_MIN_COVERAGE) {
			snprintf(why, sizeof(why), "folio coverage %.1f %% < %.0f %%",
				 100.0 * t->coverage, 100.0 * RESULTS_MIN_COVERAGE);
			exclude(c, i, why);
		} else if (!t->sparse && !t->has_folios) {
			c->a->nr_unverified++;
		}
		c->a->nr_included += c->included[i];
	}
}

/* The dense pattern: the configured one if trials have it, else the most
 * frequent one. */
static int choose_pattern(struct ctx *c)
{
	size_t i, j, best = 0;

	for (i = 0; i < c->r->nr_trials; i++)
		if (!c->r->trials[i].sparse && c->r->config_pattern[0] &&
		    !strcmp(c->r->trials[i].pattern, c->r->config_pattern)) {
			snprintf(c->a->pattern, sizeof(c->a->pattern), "%s", c->r->config_pattern);
			return 0;
		}
	for (i = 0; i < c->r->nr_trials; i++) {
		size_t count = 0;

		if (c->r->trials[i].sparse)
			continue;
		for (j = 0; j < c->r->nr_trials; j++)
			count += !c->r->trials[j].sparse &&
				 !strcmp(c->r->trials[j].pattern, c->r->trials[i].pattern);
		if (count > best) {
			best = count;
			snprintf(c->a->pattern, sizeof(c->a->pattern), "%s", c->r->trials[i].pattern);
		}
	}
	return best ? 0 : -ENODATA;
}

/* The verdict rests on one pattern; the others are named so nobody thinks
 * they were weighed in (analyse them from a file of their own). */
static void note_other_patterns(struct ctx *c)
{
	char *o = c->a->other_patterns;
	size_t i, size = sizeof(c->a->other_patterns);

	for (i = 0; i < c->r->nr_trials; i++) {
		const char *p = c->r->trials[i].pattern;
		size_t len = strlen(p);
		const char *hit;
		bool seen = false;

		/* an empty name would match everywhere, up to past the end */
		if (c->r->trials[i].sparse || !*p || !strcmp(p, c->a->pattern))
			continue;
		for (hit = strstr(o, p); hit && !seen; hit = strstr(hit + 1, p))
			seen = (hit == o || hit[-1] == ' ') && (hit[len] == ',' || !hit[len]);
		if (!seen)
			append(o, size, "%s%s", o[0] ? ", " : "", p);
	}
}

/* Spans of the pattern (ascending, distinct) and the verdict's span: the
 * largest one with included order-0 trials, where translation matters most.
 * False when there is none (a command's trials have the one span 0). */
static bool collect_spans(struct ctx *c)
{
	size_t i;
	int k, j;

	for (i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i];
		bool seen = false;

		if (!trial_dense_match(c, t, 0))
			continue;
		for (k = 0; k < c->a->nr_spans; k++)
			seen |= c->a->spans[k].span == t->span;
		if (seen || c->a->nr_spans == ANALYZE_MAX_SPANS)
			continue;
		/* insertion keeps them ascending */
		for (k = c->a->nr_spans; k > 0 && c->a->spans[k - 1].span > t->span; k--)
			c->a->spans[k] = c->a->spans[k - 1];
		memset(&c->a->spans[k], 0, sizeof(c->a->spans[k]));
		c->a->spans[k].span = t->span;
		c->a->nr_spans++;
	}
	for (j = c->a->nr_spans - 1; j >= 0; j--) {
		for (i = 0; i < c->r->nr_trials; i++)
			if (c->included[i] && c->r->trials[i].order == 0 &&
			    trial_dense_match(c, &c->r->trials[i], c->a->spans[j].span))
				break;
		if (c->want_span && c->a->spans[j].span != c->want_span)
			continue;
		if (i < c->r->nr_trials) {
			c->a->span = c->a->spans[j].span;
			return true;
		}
	}
	return false;
}

/* The first metric of 'source' in the first included trial at the span. */
static const char *first_of_source(const struct ctx *c, const char *source)
{
	size_t i, j;

	for (i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i];

		if (!c->included[i] || !trial_dense_match(c, t, c->a->span))
			continue;
		for (j = 0; j < t->nr_metrics; j++)
			if (!strcmp(t->metrics[j].source, source))
				return t->metrics[j].name;
		return NULL;
	}
	return NULL;
}

const char *analyze_metric_word(const char *word)
{
	static const char *const words[][2] = {
		{ "real", "wall_ns" }, { "wall", "wall_ns" }, { "user", "user_ns" },
		{ "sys", "sys_ns" }, { "system", "sys_ns" }, { "faults", "page_faults" },
		{ "peak", "max_rss_bytes" }, { "peak memory", "max_rss_bytes" },
	};

	for (size_t i = 0; i < MS_ARRAY_SIZE(words); i++)
		if (!strcmp(word, words[i][0]))
			return words[i][1];
	return NULL;
}

/* The metric analyze --metric names: the file's own of that name (the
 * first analysed trial's; a run --metric 'faults' is the user's, not
 * page_faults), else the program table's word. */
static const char *wanted_name(const struct ctx *c)
{
	const char *word = analyze_metric_word(c->want_metric);

	for (size_t i = 0; i < c->r->nr_trials && word; i++) {
		const struct results_trial *t = &c->r->trials[i];

		if (c->included[i] && trial_dense_match(c, t, c->a->span))
			return results_trial_metric(t, c->want_metric) ? c->want_metric : word;
	}
	return word ? word : c->want_metric;
}

/* The metric a user named (analyze --metric) as the primary one: it must be
 * in every included trial at the span, and evidence (a model's prediction
 * never is). */
static int choose_wanted_metric(struct ctx *c)
{
	const char *name = wanted_name(c);
	const struct results_metric *m = NULL;
	bool all = true;

	for (size_t i = 0; i < c->r->nr_trials && all; i++) {
		const struct results_trial *t = &c->r->trials[i];

		if (!c->included[i] || !trial_dense_match(c, t, c->a->span))
			continue;
		m = results_trial_metric(t, name);
		all = m && strcmp(m->source, "model");
	}
	if (!all || !m)
		return -ENODATA;
	snprintf(c->a->metric, sizeof(c->a->metric), "%s", name);
	snprintf(c->a->metric_source, sizeof(c->a->metric_source), "%s", m->source);
	c->higher_better = c->a->higher_better = m->higher_better;
	metric_unit(name, c->a->metric_unit, sizeof(c->a->metric_unit), &c->a->per_access);
	if (c->higher_better)
		append(c->a->metric_unit, sizeof(c->a->metric_unit), " (higher is better)");
	return 0;
}

/* Why --metric NAME cannot be the primary metric, with the names the first
 * analysed trial has, and the first analysed trial without it (a command's
 * --metric it printed in most trials: "they have: ..., get_rps" alone left
 * the user to search). */
static int fail_wanted_metric(const struct ctx *c, char *err, size_t errsize)
{
	const char *name = wanted_name(c);
	char have[512] = "", where[96] = "";
	bool listed = false;

	for (size_t i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i];

		if (!c->included[i] || !trial_dense_match(c, t, c->a->span))
			continue;
		for (size_t j = 0; !listed && j < t->nr_metrics; j++)
			if (strcmp(t->metrics[j].source, "model"))
				append(have, sizeof(have), "%s%s", have[0] ? ", " : "",
				       t->metrics[j].name);
		listed = true;
		if (!results_trial_metric(t, name)) {
			snprintf(where, sizeof(where), "; trial %zu (order %d, rep %d) has none", i,
				 t->order, t->rep);
			break;
		}
	}
	if (metrics_find(name) && !strcmp(metrics_find(name)->source, "model"))
		return fail(err, errsize, "--metric %s: a model's prediction, not a measurement: "
			    "the verdict cannot rest on it", c->want_metric);
	return fail(err, errsize, "--metric %s: not in every trial of pattern '%s' (they have: %s%s)",
		    c->want_metric, c->a->pattern, have[0] ? have : "no metrics", where);
}

/* The first candidate present in every included trial at the span: the
 * registry's primary metrics in rank order (metrics.h); for a command, the
 * user's own --metric (source "workload") right after the "pmu" ones. */
static int choose_metric(struct ctx *c)
{
	bool command = !strcmp(c->a->pattern, "command");
	const struct metrics_def *cand[16];
	int k, nk = metrics_primary_candidates(command, cand, (int)MS_ARRAY_SIZE(cand));
	bool workload_tried = !command;
	const char *passed_over = NULL;
	size_t i;

	for (k = 0; k < nk; k++) {
		const char *name = cand[k]->name;
		const char *src = !strcmp(cand[k]->source, "pmu") ? "pmu" : NULL;
		bool all = true, any = false;

		if (!workload_tried && !src) {
			/* the workload's turn comes before this row */
			workload_tried = true;
			src = "workload";
			name = first_of_source(c, src);
			k--;
			if (!name)
				continue;
		}
		for (i = 0; i < c->r->nr_trials && all; i++) {
			const struct results_trial *t = &c->r->trials[i];
			const struct results_metric *m;

			if (!c->included[i] || !trial_dense_match(c, t, c->a->span))
				continue;
			m = results_trial_metric(t, name);
			all = m && (!src || !strcmp(m->source, src));
			if (all) {
				snprintf(c->a->metric_source, sizeof(c->a->metric_source), "%s",
					 m->source);
				c->higher_better = m->higher_better;
			}
			any = true;
		}
		if (all && any) {
			snprintf(c->a->metric, sizeof(c->a->metric), "%s", name);
			c->a->higher_better = c->higher_better;
			metric_unit(c->a->metric, c->a->metric_unit, sizeof(c->a->metric_unit),
				    &c->a->per_access);
			if (c->higher_better)
				append(c->a->metric_unit, sizeof(c->a->metric_unit),
				       " (higher is better)");
			if (passed_over)
				snprintf(c->a->metric_note, sizeof(c->a->metric_note),
					 "the run's --metric %s is not in every analysed trial: the "
					 "verdict rests on %s (--metric %s says where it is missing)",
					 passed_over, name, passed_over);
			return 0;
		}
		if (src && !strcmp(src, "workload"))
			passed_over = name;
	}
	return -ENODATA;
}

/* The primary metric: the one asked for, else by strength of evidence. */
static int pick_metric(struct ctx *c, char *err, size_t errsize)
{
	if (c->want_metric)
		return choose_wanted_metric(c) ? fail_wanted_metric(c, err, errsize) : 0;
	if (choose_metric(c))
		return fail(err, errsize, "no primary metric: none of walk_cycles, walks, "
			    "dtlb_misses (pmu), ns_per_access (micro) or a --metric, wall_ns "
			    "(command) is in every trial of pattern '%s'", c->a->pattern);
	return 0;
}


/* ---- paired comparison (interleaved schedule) ---------------------------
 * With an interleaved schedule, round i of every order at one (span, rep)
 * was timed in the same short stretch of time, so load that comes and goes
 * over seconds hits all orders of a round alike. Per round, the log of the
 * ratio of order k's time to order 0's cancels it; the gain is
 * 1 - exp(m), m the 10 % trimmed mean of the log ratios (as robust to a
 * disturbed burst as the median; on 40 recorded runs on this project's VM
 * its CIs were 28-31 % narrower: see
 * data/vm-amd-epyc-6.18/stability/after/PROVENANCE.md), its CI a bootstrap that draws
 * reps, then whole rounds inside them (all orders of a drawn round
 * together), and the test a Wilcoxon signed-rank test of the log ratios.
 */

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/* A (order, rep) held by two trials at the span: which pairs with which is
 * unknown. -1 when none, else the order; -ENOMEM. */
static int duplicate_order_rep(const struct ctx *c, int *rep)
{
	uint64_t *keys = malloc((c->r->nr_trials + 1) * sizeof(*keys));
	size_t i, n = 0;
	int dup = -1;

	if (!keys)
		return -ENOMEM;
	for (i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i];

		if (c->included[i] && t->nr_rounds && trial_dense_match(c, t, c->a->span))
			keys[n++] = (uint64_t)t->order << 32 | (uint32_t)t->rep;
	}
	qsort(keys, n, sizeof(*keys), cmp_u64);
	for (i = 1; i < n && dup < 0; i++)
		if (keys[i] == keys[i - 1]) {
			dup = (int)(keys[i] >> 32);
			*rep = (int)(uint32_t)keys[i];
		}
	free(keys);
	return dup;
}

/* Decide the method and say why. */
static int choose_method(struct ctx *c)
{
	struct analysis *a = c->a;
	size_t i, with = 0, without = 0, with0 = 0, rounds = 0;
	int dup = -1, dup_rep = 0;

	a->method = AN_UNPAIRED;
	for (i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i];

		if (!c->included[i] || !trial_dense_match(c, t, a->span))
			continue;
		if (t->nr_rounds) {
			with++;
			with0 += t->order == 0;
			rounds += t->nr_rounds;
		} else {
			without++;
		}
	}
	if (!with) {
		snprintf(a->method_note, sizeof(a->method_note), "unpaired: the trials carry no "
			 "per-round times (a sequential schedule, a command workload or an older "
			 "file), so each order's trials are compared with order 0's as separate "
			 "samples");
	} else if (c->force_unpaired) {
		snprintf(a->method_note, sizeof(a->method_note), "unpaired, as asked "
			 "(--unpaired): the per-round times in the file are not used");
	} else if (c->r->config_schedule != RESULTS_SCHED_INTERLEAVED) {
		snprintf(a->method_note, sizeof(a->method_note), "unpaired: the trials carry "
			 "rounds but config.schedule is not \"interleaved\", so rounds of "
			 "different orders were not timed together and do not pair");
	} else if (strcmp(a->metric, "ns_per_access")) {
		snprintf(a->method_note, sizeof(a->method_note), "unpaired: rounds time "
			 "ns_per_access, but the primary metric %s is counted per trial",
			 a->metric);
	} else if (without || !with0) {
		snprintf(a->method_note, sizeof(a->method_note), "unpaired: only %zu of %zu "
			 "trials carry per-round times%s", with, with + without,
			 with0 ? "" : " (none of order 0)");
	} else if ((dup = duplicate_order_rep(c, &dup_rep)) >= 0) {
		snprintf(a->method_note, sizeof(a->method_note), "unpaired: two trials of order "
			 "%d share rep %d at this span, so which rounds pair is unknown", dup,
			 dup_rep);
	} else if (dup == -ENOMEM) {
		return -ENOMEM;
	} else {
		a->method = AN_PAIRED;
		snprintf(a->method_note, sizeof(a->method_note), "paired by round: each order's "
			 "time in a round against order 0's in the same round (interleaved "
			 "schedule; %zu trials, %zu rounds), so load that changes between rounds "
			 "cancels out", with, rounds);
	}
	return 0;
}

struct pairs {
	size_t nreps;      /* reps of order 0 with rounds */
	size_t maxr;       /* most rounds of order 0 in one rep */
	size_t *r0;        /* rounds of order 0 per rep */
	double *d[ANALYZE_NR_ORDERS]; /* nreps x maxr log ratios, NaN = no pair */
};

static void pairs_free(struct pairs *p)
{
	int k;

	free(p->r0);
	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		free(p->d[k]);
}

static int cmp_trial_rep(const void *x, const void *y)
{
	const struct results_trial *a = *(const struct results_trial *const *)x;
	const struct results_trial *b = *(const struct results_trial *const *)y;

	return (a->rep > b->rep) - (a->rep < b->rep);
}

/* The log ratios of every order against order 0, rep by rep, round by round. */
static int pairs_build(struct ctx *c, struct pairs *p)
{
	const struct results_trial **base = NULL, **t0;
	size_t i, j, n0 = 0;
	int err = 0;

	memset(p, 0, sizeof(*p));
	base = calloc(c->r->nr_trials, sizeof(*base));
	if (!base)
		return -ENOMEM;
	for (i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i];

		if (c->included[i] && t->order == 0 && t->nr_rounds &&
		    trial_dense_match(c, t, c->a->span))
			base[n0++] = t;
	}
	qsort(base, n0, sizeof(*base), cmp_trial_rep);
	/* one trial per rep (a duplicate rep would pair twice) */
	for (i = j = 0; i < n0; i++)
		if (!j || base[j - 1]->rep != base[i]->rep)
			base[j++] = base[i];
	p->nreps = j;
	p->r0 = calloc(p->nreps ? p->nreps : 1, sizeof(*p->r0));
	if (!p->r0) {
		err = -ENOMEM;
		goto out;
	}
	for (j = 0; j < p->nreps; j++) {
		p->r0[j] = base[j]->nr_rounds;
		if (p->r0[j] > p->maxr)
			p->maxr = p->r0[j];
	}
	for (i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i], key = { .rep = t->rep };
		const struct results_trial *kp = &key;
		double *d;
		size_t r, n;

		if (!c->included[i] || t->order == 0 || !t->nr_rounds ||
		    !trial_dense_match(c, t, c->a->span))
			continue;
		t0 = bsearch(&kp, base, p->nreps, sizeof(*base), cmp_trial_rep);
		if (!t0)
			continue; /* order 0 of this rep is excluded: nothing to pair with */
		j = (size_t)(t0 - base);
		if (!p->d[t->order]) {
			p->d[t->order] = malloc(p->nreps * p->maxr * sizeof(double));
			if (!p->d[t->order]) {
				err = -ENOMEM;
				goto out;
			}
			for (r = 0; r < p->nreps * p->maxr; r++)
				p->d[t->order][r] = NAN;
		}
		d = p->d[t->order] + j * p->maxr;
		n = t->nr_rounds < p->r0[j] ? t->nr_rounds : p->r0[j];
		for (r = 0; r < n; r++)
			if (t->rounds[r] > 0.0 && (*t0)->rounds[r] > 0.0)
				d[r] = log(t->rounds[r] / (*t0)->rounds[r]);
	}
out:
	free(base);
	return err;
}

/* The 2.5 % and 97.5 % points of column k of the replicates. */
static void boot_interval(const struct ctx *c, const double *boot, size_t stride, size_t col,
			  double *tmp, double *lo, double *hi)
{
	size_t i, n = 0;

	*lo = *hi = NAN;
	for (i = 0; i < c->iters; i++)
		if (isfinite(boot[i * stride + col]))
			tmp[n++] = boot[i * stride + col];
	/* too few replicates with a value make no interval */
	if (n < (size_t)c->iters / 2 + 1 || n < 2)
		return;
	if (stats_quantile(tmp, n, (1.0 - c->level) / 2.0, lo) ||
	    stats_quantile(tmp, n, 1.0 - (1.0 - c->level) / 2.0, hi))
		*lo = *hi = NAN;
}

/* The placements (reps) that hold at least one of order k's pairs. */
static size_t placements_of(const struct pairs *p, int k)
{
	size_t j, r, n = 0;

	for (j = 0; j < p->nreps; j++)
		for (r = 0; r < p->maxr; r++)
			if (isfinite(p->d[k][j * p->maxr + r])) {
				n++;
				break;
			}
	return n;
}

/* The paired bootstrap's replicates into c->boot: reps drawn with
 * replacement, and a drawn rep brings its rounds, each with every order's
 * log ratio, so one count per block serves all orders. The reps are the
 * placements, the clusters: ANALYZE_CI_METHOD (stats.h) draws them only
 * and widens each replicate's distance from the estimate est[k] to a t
 * interval's on P - 1 degrees of freedom, the same for every use of the
 * replicates (the CIs, the monotone fit, the plateau). One rep: its rounds
 * are drawn, as before (the placement note says what that CI leaves out). */
static void paired_bootstrap(struct ctx *c, const struct pairs *p, struct stats_blk *const *sorted,
			     const size_t *nsorted, uint32_t *cnt, size_t blocks, const double *est)
{
	bool within = stats_cluster_ci_within(ANALYZE_CI_METHOD, p->nreps);
	double scale[ANALYZE_NR_ORDERS], e[ANALYZE_NR_ORDERS], med;
	struct stats_rng rng;
	size_t drawn;
	unsigned it;
	int k;

	for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
		e[k] = isfinite(est[k]) ? est[k] : 0.0;
		scale[k] = nsorted[k] && isfinite(est[k])
				   ? stats_cluster_ci_scale(ANALYZE_CI_METHOD, placements_of(p, k),
							    c->level)
				   : 1.0;
	}
	stats_rng_seed(&rng, seed_for(c, 0, 60));
	for (it = 0; it < c->iters; it++) {
		stats_cluster_draw(&rng, p->r0, p->nreps, p->maxr, within, cnt, &drawn);
		for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
			double *row = &c->boot[(size_t)it * ANALYZE_NR_ORDERS + (size_t)k];

			*row = NAN;
			if (nsorted[k] &&
			    isfinite(med = stats_counted_trimmed_mean(sorted[k], nsorted[k], cnt,
								      nsorted[k] == blocks
									      ? drawn
									      : SIZE_MAX,
								      ANALYZE_TRIM)))
				*row = 1.0 - exp(e[k] + scale[k] * (med - e[k]));
		}
	}
}

/* Order k's spread over the placements (the reps), in gain units: the
 * between-placement SD, the rounds' SE, how many placements alone gain the
 * threshold (analyze.h); after its CI, the rerun's half-width. */
static int placement_spread(struct ctx *c, const struct pairs *p, int k)
{
	struct analyze_order *o = &c->a->orders[k];
	size_t cap = p->nreps * p->maxr, i, n = 0, *cl = malloc((cap + 1) * sizeof(*cl));
	double *x = malloc((cap + 1) * sizeof(*x)), *means = malloc((cap + 1) * sizeof(*means));
	double bsd, wse, scale = 1.0 - o->gain.value; /* exp(m): d gain / d m */
	int err = 0;

	if (!cl || !x || !means) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < cap; i++)
		if (isfinite(p->d[k][i])) {
			x[n] = p->d[k][i];
			cl[n++] = i / p->maxr;
		}
	if (n < 4 || stats_cluster_spread(x, cl, n, ANALYZE_TRIM, &bsd, &wse, means,
					  &o->placements))
		goto out;
	o->placement_sd = scale * bsd;
	o->round_se = scale * wse;
	for (i = 0; i < o->placements; i++)
		o->placements_gaining += 1.0 - exp(means[i]) >= c->a->threshold;
	if (isfinite(o->gain.lo) && isfinite(o->gain.hi))
		o->rerun = sqrt(2.0) * (o->gain.hi - o->gain.lo) / 2.0;
out:
	free(cl);
	free(x);
	free(means);
	return err;
}

static int paired_gains(struct ctx *c, int *idx, double *ps, size_t *np)
{
	struct analysis *a = c->a;
	struct pairs p;
	struct stats_blk *sorted[ANALYZE_NR_ORDERS] = { 0 };
	size_t nsorted[ANALYZE_NR_ORDERS] = { 0 };
	uint32_t *cnt = NULL;
	double *tmp = NULL, med, est[ANALYZE_NR_ORDERS];
	size_t cap, i, j, n, blocks = 0;
	int k, err;

	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		est[k] = NAN;
	if ((err = pairs_build(c, &p)))
		goto out;
	cap = p.nreps * p.maxr;
	for (j = 0; j < p.nreps; j++)
		blocks += p.r0[j];
	tmp = malloc((cap > c->iters ? cap : c->iters) * sizeof(*tmp) + 1);
	cnt = malloc((cap ? cap : 1) * sizeof(*cnt));
	if (!tmp || !cnt) {
		err = -ENOMEM;
		goto out;
	}
	for (k = 1; k < ANALYZE_NR_ORDERS; k++) {
		struct analyze_order *o = &a->orders[k];

		if (!p.d[k] || !o->primary.n)
			continue;
		sorted[k] = malloc((cap ? cap : 1) * sizeof(*sorted[k]));
		if (!sorted[k]) {
			err = -ENOMEM;
			goto out;
		}
		for (i = n = 0; i < cap; i++)
			if (isfinite(p.d[k][i])) {
				sorted[k][n] = (struct stats_blk){ p.d[k][i], i };
				tmp[n++] = p.d[k][i];
			}
		stats_blk_sort(sorted[k], n);
		nsorted[k] = o->n_pairs = n;
		if (!n)
			continue;
		/* negative log ratio = faster than order 0 */
		if (!stats_wilcoxon_signed_rank(tmp, n, &o->u, &o->p, &j)) {
			idx[*np] = k;
			ps[(*np)++] = o->p;
		}
		for (i = 0; i < cap; i++)
			cnt[i] = 1;
		if (isfinite(med = stats_counted_trimmed_mean(sorted[k], n, cnt, n, ANALYZE_TRIM)))
			o->gain.value = 1.0 - exp(est[k] = med);
	}
	paired_bootstrap(c, &p, sorted, nsorted, cnt, blocks, est);
	/* one pair resamples to itself: no interval (as change_of with one trial) */
	for (k = 1; k < ANALYZE_NR_ORDERS; k++)
		if (a->orders[k].n_pairs >= 2) {
			boot_interval(c, c->boot, ANALYZE_NR_ORDERS, (size_t)k, tmp,
				      &a->orders[k].gain.lo, &a->orders[k].gain.hi);
			if ((err = placement_spread(c, &p, k)))
				goto out;
		}
out:
	pairs_free(&p);
	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		free(sorted[k]);
	free(tmp);
	free(cnt);
	return err;
}

/* Joint replicates for the unpaired method (for the monotone fit's CIs):
 * each row resamples order 0 once and every order against it, a gain in the
 * sense of change_of() (a saving, or a rise of a higher-is-better metric).
 * The gains' own CIs stay those of change_of(), one bootstrap per order. */
static int unpaired_replicates(struct ctx *c, const double *base, size_t nbase)
{
	struct analysis *a = c->a;
	struct stats_rng rng;
	double *vals[ANALYZE_NR_ORDERS] = { 0 }, *scratch = NULL, m0, mk;
	size_t n[ANALYZE_NR_ORDERS] = { 0 }, i;
	unsigned it;
	int k, err = 0;

	scratch = malloc((c->r->nr_trials + 1) * sizeof(*scratch));
	if (!scratch)
		return -ENOMEM;
	for (k = 1; k < ANALYZE_NR_ORDERS; k++) {
		if (!a->orders[k].primary.n || !isfinite(a->orders[k].gain.value))
			continue;
		err = collect_new(c, k, a->span, false, a->metric, a->per_access, &vals[k], &n[k]);
		if (err)
			goto out;
	}
	stats_rng_seed(&rng, seed_for(c, 0, 61));
	for (it = 0; it < c->iters; it++) {
		double *row = &c->boot[(size_t)it * ANALYZE_NR_ORDERS];

		for (k = 0; k < ANALYZE_NR_ORDERS; k++)
			row[k] = NAN;
		if (!nbase)
			continue;
		for (i = 0; i < nbase; i++)
			scratch[i] = base[(size_t)(stats_rng_uniform(&rng) * (double)nbase)];
		if (stats_median_inplace(scratch, nbase, &m0) || m0 == 0.0)
			continue;
		for (k = 1; k < ANALYZE_NR_ORDERS; k++) {
			if (!n[k])
				continue;
			for (i = 0; i < n[k]; i++)
				scratch[i] = vals[k][(size_t)(stats_rng_uniform(&rng) * (double)n[k])];
			if (!stats_median_inplace(scratch, n[k], &mk))
				row[k] = c->higher_better ? mk / m0 - 1.0 : 1.0 - mk / m0;
		}
	}
out:
	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		free(vals[k]);
	free(scratch);
	return err;
}

/* ---- per-order numbers --------------------------------------------------- */

static int per_order(struct ctx *c)
{
	struct analysis *a = c->a;
	double *base = NULL, *ps = NULL, *padj = NULL;
	size_t nbase, i, np = 0;
	int k, idx[ANALYZE_NR_ORDERS];
	int err = collect_new(c, 0, a->span, false, a->metric, a->per_access, &base, &nbase);

	if (err)
		return err;
	ps = malloc(ANALYZE_NR_ORDERS * sizeof(*ps));
	padj = malloc(ANALYZE_NR_ORDERS * sizeof(*padj));
	if (!ps || !padj) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i];

		if (!trial_dense_match(c, t, a->span))
			continue;
		a->orders[t->order].present = true;
		a->orders[t->order].n_excluded += !c->included[i];
	}
	for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
		struct analyze_order *o = &a->orders[k];
		size_t n;

		o->order = k;
		o->u = o->p = o->p_adj = NAN;
		o->gain.value = o->gain.lo = o->gain.hi = NAN;
		o->share = o->fault_saving = o->bloat = o->fitted = o->gain;
		o->coverage = o->placement_sd = o->round_se = o->rerun = NAN;
		o->status = k == 0 ? AN_ST_BASE : AN_ST_UNCLEAR;
		o->primary.median = o->primary.lo = o->primary.hi = NAN;
		o->faults = o->rss = o->primary;
		if (!o->present)
			continue;
		if (c->summary_only) {
			n = collect(c, k, a->span, false, a->metric, a->per_access, c->buf);
			o->primary.n = n;
			if (n)
				stats_median(c->buf, n, &o->primary.median);
		} else {
			n = sample_stat(c, k, a->span, false, a->metric, a->per_access,
					&o->primary);
		}
		if (k == 0 || !n || a->method == AN_PAIRED)
			continue;
		change_of(c, base, nbase, c->buf, n, seed_for(c, k, 2), !c->higher_better,
			  &o->gain);
		if (!stats_mann_whitney(base, nbase, c->buf, n, &o->u, &o->p)) {
			idx[np] = k;
			ps[np++] = o->p;
		}
	}
	if (a->method == AN_PAIRED && (err = paired_gains(c, idx, ps, &np)))
		goto out;
	if (a->method == AN_UNPAIRED && (err = unpaired_replicates(c, base, nbase)))
		goto out;
	if (np && !stats_holm_adjust(ps, np, padj))
		for (i = 0; i < np; i++)
			a->orders[idx[i]].p_adj = padj[i];
	/* folio coverage per order, for the report */
	for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
		size_t n = 0;

		for (i = 0; i < c->r->nr_trials; i++) {
			const struct results_trial *t = &c->r->trials[i];

			if (c->included[i] && t->order == k && t->has_folios &&
			    trial_dense_match(c, t, a->span))
				c->buf[n++] = t->coverage;
		}
		if (n)
			stats_median(c->buf, n, &a->orders[k].coverage);
	}
out:
	free(base);
	free(ps);
	free(padj);
	return err;
}

static void classify(struct analysis *a)
{
	int k;

	for (k = 1; k < ANALYZE_NR_ORDERS; k++) {
		struct analyze_order *o = &a->orders[k];

		if (!o->primary.n)
			continue;
		o->significant = o->p_adj < ANALYZE_ALPHA;
		if (o->significant && o->gain.value >= a->threshold && o->gain.lo > 0.0)
			o->status = AN_ST_GAIN;
		else if (o->gain.hi < a->threshold)
			o->status = AN_ST_NONE; /* a material gain lies outside the CI */
		else
			o->status = AN_ST_UNCLEAR;
	}
}


/* ---- monotone structure -------------------------------------------------
 * A larger folio at the same alignment never needs more TLB entries than a
 * smaller one, so below the PMD order (mapped differently: one PMD entry)
 * the true gain is non-decreasing in the order. The raw gains are fitted
 * by weighted isotonic regression (pool-adjacent-violators, weights =
 * inverse variance from each gain's CI); the fit's CI comes from fitting
 * every joint bootstrap replicate. An order's status is then read from the
 * fit: gain when the fitted gain is material with its CI above 0 and a rank
 * test has shown a significant gain at this order or a smaller one (the
 * larger one cannot gain less); none when the fit's CI rules a material
 * gain out. A raw gain whose own CI excludes the fit is a violation beyond
 * noise: placement or measurement, not a real dip.
 */
/* The warning for raw gains outside the monotone fit's reach: nv orders
 * (listed), 'worst' the farthest from its fit. */
static void monotone_warning(struct analysis *a, int nv, int worst, const char *list)
{
	const struct analyze_order *o = &a->orders[worst];
	char v[16], lo[16], hi[16], f[16];

	snprintf(v, sizeof(v), "%.1f %%", 100.0 * o->gain.value);
	snprintf(lo, sizeof(lo), "%.1f", 100.0 * o->gain.lo);
	snprintf(hi, sizeof(hi), "%.1f %%", 100.0 * o->gain.hi);
	snprintf(f, sizeof(f), "%.1f %%", 100.0 * o->fitted.value);
	snprintf(a->monotone_warning, sizeof(a->monotone_warning),
		 "The raw gains violate monotonicity beyond noise at order%s %s (e.g. order "
		 "%d %s %s [95 %% CI %s, %s] where the monotone fit gives %s). A larger "
		 "folio never needs more TLB entries than a smaller one, so this points to "
		 "a placement or measurement problem (folios of that order physically "
		 "scattered or mapped differently, a disturbed part of the run), not a real "
		 "dip; the verdict uses the fit. Re-run to check.", nv > 1 ? "s" : "", list,
		 worst, a->higher_better ? "gains" : "saves", v, lo, hi, f);
}

/* The isotonic fit of each joint bootstrap replicate of orders ks[0..m)
 * into rows (m values a row); replicates with a missing value are left out.
 * Returns the rows kept. */
static size_t fit_replicates(const struct ctx *c, const int *ks, int m, const double *w,
			     double *rows)
{
	size_t kept = 0;
	unsigned it;
	int i;

	for (it = 0; it < c->iters; it++) {
		double *row = &rows[kept * (size_t)m];
		bool ok = true;

		for (i = 0; i < m && ok; i++) {
			row[i] = c->boot[(size_t)it * ANALYZE_NR_ORDERS + (size_t)ks[i]];
			ok = isfinite(row[i]);
		}
		if (ok && !stats_isotonic_fit(row, w, (size_t)m, row))
			kept++;
	}
	return kept;
}

static int monotone_fit(struct ctx *c)
{
	struct analysis *a = c->a;
	int ks[ANALYZE_NR_ORDERS], m = 0, i, nv = 0;
	double y[ANALYZE_NR_ORDERS], w[ANALYZE_NR_ORDERS], fit[ANALYZE_NR_ORDERS];
	double *rows = NULL, *tmp = NULL;
	bool weighted = true, sig_below = false;
	size_t kept = 0;
	int k, err = 0, worst = -1;
	char list[96] = "";

	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		a->orders[k].raw_status = a->orders[k].status;
	for (k = 1; k < a->pmd_order && k < ANALYZE_NR_ORDERS; k++) {
		const struct analyze_order *o = &a->orders[k];

		if (!o->primary.n || !isfinite(o->gain.value))
			continue;
		ks[m] = k;
		y[m] = o->gain.value;
		/* a 95 % interval is about 2 x 1.96 standard errors wide */
		if (isfinite(o->gain.lo) && isfinite(o->gain.hi) && o->gain.hi > o->gain.lo)
			w[m] = 1.0 / pow((o->gain.hi - o->gain.lo) / 3.92, 2.0);
		else
			weighted = false;
		m++;
	}
	if (m < 2)
		return 0;
	if ((err = stats_isotonic_fit(y, weighted ? w : NULL, (size_t)m, fit)))
		return err == -ENOMEM ? err : 0;
	a->monotone = true;
	rows = malloc((size_t)c->iters * (size_t)m * sizeof(*rows));
	tmp = malloc((size_t)c->iters * sizeof(*tmp) + 1);
	if (!rows || !tmp) {
		err = -ENOMEM;
		goto out;
	}
	kept = fit_replicates(c, ks, m, weighted ? w : NULL, rows);
	for (i = 0; i < m; i++) {
		struct analyze_order *o = &a->orders[ks[i]];
		struct ctx cc = *c;

		o->fitted.value = fit[i];
		cc.iters = (unsigned)kept;
		if (kept)
			boot_interval(&cc, rows, (size_t)m, (size_t)i, tmp, &o->fitted.lo,
				      &o->fitted.hi);
		o->violation = isfinite(o->gain.lo) && isfinite(o->gain.hi) &&
			       (fit[i] < o->gain.lo - 1e-12 || fit[i] > o->gain.hi + 1e-12);
		if (o->violation) {
			nv++;
			if (worst < 0 || fabs(fit[i] - y[i]) >
					 fabs(a->orders[worst].fitted.value - a->orders[worst].gain.value))
				worst = ks[i];
			append(list, sizeof(list), "%s%d", list[0] ? ", " : "", ks[i]);
		}
		sig_below |= o->significant && o->gain.value > 0.0;
		if (!isfinite(o->fitted.lo) || !isfinite(o->fitted.hi))
			continue; /* no interval for the fit: the order's own status stands */
		if (sig_below && fit[i] >= a->threshold && o->fitted.lo > 0.0)
			o->status = AN_ST_GAIN;
		else if (o->fitted.hi < a->threshold)
			o->status = AN_ST_NONE;
		else
			o->status = AN_ST_UNCLEAR;
	}
	if (nv)
		monotone_warning(a, nv, worst, list);
out:
	free(rows);
	free(tmp);
	return err;
}

/* Share of the PMD gain reached by each order, when the PMD order gains. The
 * CI comes from the joint replicates the monotone fit uses (c->boot: paired
 * when the method is, order 0 drawn once per row): each row's gain of the
 * order over the same row's PMD gain, rows without a PMD gain left out. So
 * the PMD order's own share is exactly 1, and a paired run's share is paired. */
static int pmd_share(struct ctx *c)
{
	struct analysis *a = c->a;
	const struct analyze_order *pmd = &a->orders[a->pmd_order];
	double *ratio, *tmp;
	unsigned it;
	int k;

	if (!analyze_order_measured(a, a->pmd_order) || pmd->status != AN_ST_GAIN)
		return 0;
	ratio = malloc(c->iters * sizeof(*ratio));
	tmp = malloc(c->iters * sizeof(*tmp));
	if (!ratio || !tmp) {
		free(ratio);
		free(tmp);
		return -ENOMEM;
	}
	for (k = 1; k < ANALYZE_NR_ORDERS; k++) {
		struct analyze_order *o = &a->orders[k];

		if (!o->primary.n)
			continue;
		o->share.value = o->gain.value / pmd->gain.value;
		if (k == a->pmd_order) {
			o->share.lo = o->share.hi = 1.0;
			continue;
		}
		/* one trial (or pair) a side has no gain CI, so no share CI */
		if (!isfinite(o->gain.lo) || !isfinite(pmd->gain.lo))
			continue;
		for (it = 0; it < c->iters; it++) {
			const double *row = &c->boot[(size_t)it * ANALYZE_NR_ORDERS];

			ratio[it] = row[a->pmd_order] > 0.0 ? row[k] / row[a->pmd_order] : NAN;
		}
		boot_interval(c, ratio, 1, 0, tmp, &o->share.lo, &o->share.hi);
	}
	free(ratio);
	free(tmp);
	return 0;
}

/* A cost metric of order k (dense at span, or sparse): its median and CI,
 * and its change against order 0's values (base), with seed what + 1. */
static void cost_of(struct ctx *c, int k, uint64_t span, bool sparse, const char *metric,
		    const double *base, size_t nb, int what, bool saving, struct analyze_stat *st,
		    struct analyze_change *ch)
{
	size_t n = sample_stat(c, k, span, sparse, metric, false, st);

	if (k)
		change_of(c, base, nb, c->buf, n, seed_for(c, k, what + 1), saving, ch);
}

/* Page faults of the dense trials and RSS of the sparse ones. */
static int cost_side(struct ctx *c)
{
	struct analysis *a = c->a;
	double *base;
	size_t nb, i;
	int k, err = collect_new(c, 0, a->span, false, "page_faults", false, &base, &nb);

	if (err)
		return err;
	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		cost_of(c, k, a->span, false, "page_faults", base, nb, 4, true, &a->orders[k].faults,
			&a->orders[k].fault_saving);
	/* the largest sparse span with an order-0 baseline */
	for (i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i];

		if (c->included[i] && t->sparse && t->order == 0 &&
		    results_trial_metric(t, "rss_bytes") && t->span > a->sparse_span)
			a->sparse_span = t->span;
	}
	if (a->sparse_span) {
		nb = collect(c, 0, a->sparse_span, true, "rss_bytes", false, base);
		for (k = 0; k < ANALYZE_NR_ORDERS; k++)
			cost_of(c, k, a->sparse_span, true, "rss_bytes", base, nb, 6, false,
				&a->orders[k].rss, &a->orders[k].bloat);
	}
	free(base);
	return 0;
}

/* Every metric of the analysed trials, per order, and the primary metric
 * per span. */
static void series(struct ctx *c)
{
	struct analysis *a = c->a;
	size_t i, j;
	int k, s;

	for (i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i];
		bool dense = trial_dense_match(c, t, a->span);
		bool sparse = t->sparse && a->sparse_span && t->span == a->sparse_span;

		if (!c->included[i] || (!dense && !sparse))
			continue;
		for (j = 0; j < t->nr_metrics; j++) {
			const struct results_metric *m = &t->metrics[j];
			bool seen = false;

			for (k = 0; k < a->nr_metrics; k++)
				seen |= !strcmp(a->metrics[k].name, m->name) &&
					a->metrics[k].sparse == sparse;
			if (seen || a->nr_metrics == ANALYZE_MAX_METRICS)
				continue;
			struct analyze_metric *am = &a->metrics[a->nr_metrics++];

			snprintf(am->name, sizeof(am->name), "%s", m->name);
			snprintf(am->source, sizeof(am->source), "%s", m->source);
			am->sparse = sparse;
			metric_unit(m->name, am->unit, sizeof(am->unit), &am->per_access);
		}
	}
	for (k = 0; k < a->nr_metrics; k++) {
		struct analyze_metric *am = &a->metrics[k];
		uint64_t span = am->sparse ? a->sparse_span : a->span;
		int o;

		for (o = 0; o < ANALYZE_NR_ORDERS; o++)
			sample_stat(c, o, span, am->sparse, am->name, am->per_access,
				    &am->by_order[o]);
	}
	for (s = 0; s < a->nr_spans; s++)
		for (k = 0; k < ANALYZE_NR_ORDERS; k++)
			sample_stat(c, k, a->spans[s].span, false, a->metric, a->per_access,
				    &a->spans[s].by_order[k]);
}

/* ---- recommendation ------------------------------------------------------ */

static bool vendor_is(const struct results *r, const char *vendor_id, const char *word)
{
	return !strcmp(r->cpu_vendor, vendor_id) || strcasestr(r->cpu_model, word);
}

/* What the hypervisor's steal accounting says about the times (steal.h in
 * src/measure): none reported, or the rounds left out for it. */
static void steal_note(const struct analysis *a, char *n, size_t size)
{
	const struct results *r = a->res;
	double disturbed = 0, rounds = 0;
	size_t i;

	if (r->virtualized && r->steal_reported == 0) {
		append(n, size, " This VM's hypervisor reports no steal time (/proc/stat): the "
		       "thread CPU time includes the time the host gave this vCPU's CPU to other "
		       "work, so in a VM wall and CPU time are both exposed to it.");
		return;
	}
	for (i = 0; i < r->nr_trials; i++) {
		const struct results_metric *m = results_trial_metric(&r->trials[i],
								      "disturbed_rounds");

		if (m && isfinite(m->value)) {
			disturbed += m->value;
			rounds += (double)r->trials[i].nr_rounds;
		}
	}
	if (rounds > 0)
		append(n, size, " Steal time: %.0f of %.0f rounds lost more than %.0f %% of their "
		       "time to the hypervisor and were left out of the paired gains.", disturbed,
		       rounds, 10.0);
}

/* hardware_note's knee when the primary metric measured an emulator: the
 * hardware's prediction stands, but nothing here can test it. */
#define KNEE_UNTESTED (-2)

/* How the measured knee stands to the one the hardware predicts. */
static void knee_clause(char *n, size_t size, int predicted, int knee)
{
	if (knee == KNEE_UNTESTED)
		append(n, size, "; timings of an emulated CPU cannot test it.");
	else if (knee >= 0)
		append(n, size, knee == predicted ? "; the measured knee matches it." :
		       "; the measured knee is at order %d instead.", knee);
	else
		append(n, size, ".");
}

static void hardware_note(struct analysis *a, int knee)
{
	const struct results *r = a->res;
	char *n = a->hardware_note;
	size_t size = sizeof(a->hardware_note);

	n[0] = '\0';
	if (!strcmp(r->arch, "aarch64") || !strcmp(r->arch, "arm64")) {
		int co = arch_arm64_contpte_order((long)r->page_size);

		append(n, size, "arm64 maps folios of order %d and above (%lluK with %lluK pages) "
		       "with contiguous PTEs (contpte), which a TLB entry can cover as one, so the "
		       "hardware predicts a knee at order %d", co,
		       (unsigned long long)(r->page_size << (co < 0 ? 0 : co)) >> 10,
		       (unsigned long long)r->page_size >> 10, co);
		knee_clause(n, size, co, knee);
	} else if (vendor_is(r, "AuthenticAMD", "AMD")) {
		append(n, size, "AMD Zen cores coalesce aligned, contiguous runs of 4 or 8 4K "
		       "PTEs (orders 2 and 3; 8 per Solomon, Rice 2024, and the Zen 4 data "
		       "of data/vm-amd-epyc-6.18) into one TLB entry, so the hardware predicts "
		       "a knee at order 2 and the gain to stop growing at order 3");
		knee_clause(n, size, 2, knee);
	} else if (vendor_is(r, "GenuineIntel", "Intel")) {
		/* a folio's order does not move its PTEs (they sit by virtual
		 * address): what it moves is where the pages are, which a VM's
		 * host walk sees (the time model's host term, tlb_time.c) */
		append(n, size, "Intel cores are not documented to coalesce 4K PTEs in the data "
		       "TLB: below the PMD order, gains come from cheaper walks and fewer "
		       "faults, not from TLB reach%s", r->virtualized ? " (in a VM the host's "
		       "side of each nested walk is cheaper when larger folios put the buffer in "
		       "fewer guest-physical 2 MiB regions)." : ".");
	}
	/* an emulator translates in software: no hardware walk, nested or not */
	if (r->emulated)
		append(n, size, "%sThis ran under an emulator: its software TLB, not the "
		       "CPU's, translated the guest's addresses.", n[0] ? " " : "");
	else if (r->virtualized)
		append(n, size, "%sThis ran in a VM: every TLB miss costs a two-dimensional "
		       "(guest + host) walk, and the host's backing page size bounds what a "
		       "guest folio can gain.", n[0] ? " " : "");
	steal_note(a, n, size);
	if (strcmp(a->metric_source, "pmu"))
		append(n, size, " No hardware PMU counted TLB events here: the evidence is %s, "
		       "which includes cache and memory effects.",
		       strcmp(a->pattern, "command") ? "time per access"
						     : "the command's time or its own metric");
}

static void khugepaged_note(struct analysis *a)
{
	const struct results *r = a->res;

	if (a->verdict != AN_MTHP) {
		a->khugepaged_note[0] = '\0';
		return;
	}
	snprintf(a->khugepaged_note, sizeof(a->khugepaged_note),
		 "With several orders enabled (order %d up to the PMD order), keep "
		 "khugepaged/max_ptes_none at 255 or below (under half a PMD): above that a "
		 "collapse to a small order leaves the next larger range populated enough to "
		 "collapse again, and memory creeps up to PMD size.", a->min_order);
	if (r->max_ptes_none > 255)
		append(a->khugepaged_note, sizeof(a->khugepaged_note), " The measured machine "
		       "has %ld%s.", r->max_ptes_none, r->max_ptes_none == 511 ?
		       " (the default, made for PMD-only collapse)" : "");
}

static void pct(char *buf, size_t size, double v)
{
	if (isnan(v))
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, "%.1f %%", 100.0 * v);
}

static void describe_gain(struct analysis *a, char *buf, size_t size, int k)
{
	const struct analyze_order *o = &a->orders[k];
	char v[16], lo[16], hi[16];

	if (!isfinite(o->gain.value)) {
		/* paired: no round of this order met an order-0 round of the same
		 * rep, both above 0 (order 0 of its reps left out, or rounds of 0) */
		if (a->method == AN_PAIRED && !o->n_pairs)
			append(buf, size, "order %d has no gain (none of its rounds pairs with an "
			       "order-0 round: order 0 of the same rep left out, or a time of 0)",
			       k);
		else
			append(buf, size, "order %d has no gain against order 0", k);
		return;
	}
	pct(v, sizeof(v), o->gain.value);
	pct(lo, sizeof(lo), o->gain.lo);
	pct(hi, sizeof(hi), o->gain.hi);
	if (a->higher_better)
		append(buf, size, "order %d raises %s by %s", k, a->metric_unit, v);
	else
		append(buf, size, "order %d saves %s of %s", k, v, a->metric_unit);
	append(buf, size, " [%.3g %% CI %s, %s; Holm p = %.3g]", 100 * a->level, lo, hi,
	       o->p_adj);
	/* say so when the monotone fit pooled this order with a neighbour */
	if (isfinite(o->fitted.value) && fabs(o->fitted.value - o->gain.value) > 5e-4) {
		pct(v, sizeof(v), o->fitted.value);
		pct(lo, sizeof(lo), o->fitted.lo);
		pct(hi, sizeof(hi), o->fitted.hi);
		append(buf, size, " (monotone fit %s [%s, %s])", v, lo, hi);
	}
}

/* The smallest two-sided p an exact rank test can give for n vs n without
 * ties, times m for Holm's first step. */
static double best_holm_p(size_t n, int m)
{
	return stats_mann_whitney_min_p(n, n) * (double)m;
}

static void reps_advice(struct analysis *a, size_t n, int m)
{
	size_t need = 2;

	if (a->method == AN_PAIRED) {
		/* the pairs are rounds, so the trial count does not bound p */
		snprintf(a->advice, sizeof(a->advice), "Re-run with more repetitions (%zu per "
			 "order now; placement differs between them) or longer runs (more rounds), "
			 "and with less competing load.", n);
		return;
	}

	while (need < 50 && best_holm_p(need, m) >= ANALYZE_ALPHA)
		need++;
	if (n < need)
		snprintf(a->advice, sizeof(a->advice), "Re-run with more repetitions: with %zu per "
			 "order and %d orders compared against order 0, no order can reach "
			 "significance (the smallest possible Holm-adjusted p is %.3g); %zu per "
			 "order is the minimum, 10 or more make the CIs tight. Also more accesses "
			 "per trial, and an idle machine (pinned CPU, no other load).", n, m,
			 best_holm_p(n, m), need);
	else
		snprintf(a->advice, sizeof(a->advice), "Re-run with more repetitions (%zu per "
			 "order now; 10 or more make the CIs tight), more accesses per trial, and "
			 "on an idle machine (pinned CPU, no other load).", n);
}

/*
 * What makes order k (below PMD) the first to gain. Its status may come from
 * the monotone fit (monotone_fit): a fitted gain that is material with its CI
 * above 0, resting on a significant gain at k or a smaller order. Where k's
 * own test is not significant, saying "significant" of k would be false.
 */
static void first_gain_claim(struct analysis *a, int k, const char *sz, const char *thr)
{
	const struct analyze_order *o = a->orders;
	char *r = a->reason;
	size_t rs = sizeof(a->reason);
	int j;

	if (o[k].significant) {
		append(r, rs, "Order %d (%s folios) is the smallest order whose gain is "
		       "significant and material (at least %s): ", k, sz, thr);
		return;
	}
	for (j = 1; j < k && !(o[j].significant && o[j].gain.value > 0.0); j++)
		;
	append(r, rs, "Order %d (%s folios) is the smallest order whose gain is material "
	       "(at least %s) by the monotone fit, whose %.3g %% CI there lies above 0", k, sz,
	       thr, 100 * a->level);
	if (j < k)
		append(r, rs, ", with a significant gain at order %d below it", j);
	append(r, rs, "; its own test alone is not significant: ");
}

/* The verdict when order first_gain gains and nothing below it is unclear. */
static void recommend_gain(struct analysis *a, int first_gain, const char *thr)
{
	const struct analyze_order *o = a->orders;
	char *r = a->reason, sz[16];
	size_t rs = sizeof(a->reason);
	int k;

	a->min_order = first_gain;
	a->verdict = first_gain < a->pmd_order ? AN_MTHP : AN_PMD_ONLY;
	analyze_order_size(a, first_gain, sz, sizeof(sz));
	if (a->verdict == AN_MTHP)
		first_gain_claim(a, first_gain, sz, thr);
	else
		append(r, rs, "Only the PMD order (%s) gains materially (at least %s): ",
		       sz, thr);
	describe_gain(a, r, rs, first_gain);
	append(r, rs, ".");
	for (k = 1; k < first_gain && !o[k].primary.n; k++)
		;
	if (k < first_gain)
		append(r, rs, " Every measured order below it stays under %s (%s CI "
		       "rules a material gain out).", thr,
		       a->monotone ? "the monotone fit's" : "its");
	if (a->verdict == AN_MTHP && !isnan(o[first_gain].share.value))
		append(r, rs, " It reaches %.0f %% of the PMD order's gain.",
		       100.0 * o[first_gain].share.value);
	if (a->verdict == AN_MTHP)
		snprintf(a->advice, sizeof(a->advice), "Enable hugepages-%llukB and the "
			 "larger sizes (always or madvise); for khugepaged (kernels with mTHP "
			 "collapse), a minimum collapse order of %d.",
			 (unsigned long long)(a->res->page_size << first_gain) >> 10,
			 first_gain);
	else
		snprintf(a->advice, sizeof(a->advice), "Keep the mTHP sizes below PMD off "
			 "for this access pattern; PMD THP alone gives the gain.");
}

/* The verdict when every measured order's CI rules a material gain out. */
static void recommend_no_gain(struct analysis *a, const char *thr)
{
	const struct analyze_order *o = a->orders;
	char *r = a->reason;
	size_t rs = sizeof(a->reason);
	int k;

	a->verdict = AN_NO_GAIN;
	/* below PMD `none` is the fit's (monotone_fit): an order's own CI may
	 * reach past the threshold where the fit pooled it with a neighbour */
	append(r, rs, "No order gains materially: for every measured order the 95 %% CI "
	       "of the %s in %s%s stays below %s", a->higher_better ? "rise" : "saving",
	       a->metric_unit, a->monotone ? ", below the PMD order the monotone fit's," : "",
	       thr);
	for (k = ANALYZE_NR_ORDERS - 1; k > 0; k--)
		if (o[k].primary.n) {
			append(r, rs, " (the largest, ");
			describe_gain(a, r, rs, k);
			append(r, rs, ")");
			break;
		}
	append(r, rs, ".");
	snprintf(a->advice, sizeof(a->advice), "Larger folios buy nothing in translation "
		 "for this pattern and span; a larger span (beyond the TLB reach) may.");
}

static void recommend(struct analysis *a)
{
	const struct analyze_order *o = a->orders;
	char *r = a->reason, thr[16];
	size_t rs = sizeof(a->reason);
	int k, first_gain = -1, lowest_unclear = -1, nr_other = 0;
	size_t min_n = SIZE_MAX;

	pct(thr, sizeof(thr), a->threshold);
	for (k = 1; k < ANALYZE_NR_ORDERS; k++) {
		if (!o[k].primary.n)
			continue;
		nr_other++;
		if (o[k].primary.n < min_n)
			min_n = o[k].primary.n;
		if (k < a->pmd_order && o[k].status == AN_ST_GAIN && first_gain < 0)
			first_gain = k;
		if (o[k].status == AN_ST_UNCLEAR && lowest_unclear < 0)
			lowest_unclear = k;
	}
	if (o[0].primary.n < min_n)
		min_n = o[0].primary.n;
	a->min_order = a->candidate_order = -1;
	r[0] = '\0';
	if (first_gain < 0 && analyze_order_measured(a, a->pmd_order) &&
	    o[a->pmd_order].status == AN_ST_GAIN)
		first_gain = a->pmd_order;

	if (first_gain >= 0 && (lowest_unclear < 0 || lowest_unclear > first_gain)) {
		recommend_gain(a, first_gain, thr);
	} else if (first_gain < 0 && lowest_unclear < 0) {
		recommend_no_gain(a, thr);
	} else {
		a->verdict = AN_INCONCLUSIVE;
		a->candidate_order = first_gain;
		if (first_gain >= 0) {
			append(r, rs, "Order %d gains: ", first_gain);
			describe_gain(a, r, rs, first_gain);
			append(r, rs, ". But order %d below it can neither be shown to gain nor be "
			       "ruled out: ", lowest_unclear);
		} else if (o[0].primary.n && o[0].primary.median == 0.0) {
			/* a gain is a share of the order-0 value: none exists */
			append(r, rs, "No gain can be computed: the order-0 median of %s is 0, and "
			       "a gain is a share of it. The metric counted nothing at order 0 "
			       "(a counter that did not run, or a span inside the TLB reach)",
			       a->metric);
			snprintf(a->advice, sizeof(a->advice), "Check that %s counts at order 0 "
				 "(mthpscope events), or measure a span beyond the TLB reach.",
				 a->metric);
			goto noted;
		} else {
			const struct analyze_change *g = &o[lowest_unclear].gain;

			append(r, rs, "%s", !isfinite(g->value) ? "No verdict: " :
				      isnan(g->lo) ? "Too few values to tell: " : "Too noisy to tell: ");
		}
		describe_gain(a, r, rs, lowest_unclear);
		if (!isfinite(o[lowest_unclear].gain.value))
			append(r, rs, ".");
		else if (isnan(o[lowest_unclear].gain.lo))
			append(r, rs, "; too few values for an interval.");
		else
			append(r, rs, "; the interval spans the %s threshold.", thr);
		reps_advice(a, min_n == SIZE_MAX ? 0 : min_n, nr_other);
	}
noted:
	if (nr_other == 0)
		a->verdict = AN_INCONCLUSIVE;
	hardware_note(a, a->verdict == AN_MTHP || a->verdict == AN_PMD_ONLY ? a->min_order : -1);
	khugepaged_note(a);
}

/* On an emulated CPU (QEMU TCG) time per access and cycle counts are the
 * emulator's, not a TLB's: no hardware conclusion may rest on them. Faults,
 * folio coverage and bloat stay real (the kernel made them) and are still
 * reported; only the verdict drawn from the primary metric is withheld. */
static void emulated_cpu_rule(struct analysis *a)
{
	char was[sizeof(a->reason)];

	if (!a->res->emulated || (strcmp(a->metric_source, "timing") &&
				  strcmp(a->metric_source, "pmu")))
		return;
	snprintf(was, sizeof(was), "%s", a->reason);
	a->candidate_order = a->verdict == AN_MTHP || a->verdict == AN_PMD_ONLY ?
		a->min_order : a->candidate_order;
	a->verdict = AN_INCONCLUSIVE;
	a->min_order = -1;
	snprintf(a->reason, sizeof(a->reason), "emulated CPU: this ran on an emulated CPU "
		 "(%s), so %s (%s) measures the emulator, not a TLB; no hardware conclusion "
		 "is drawn. Page faults, folio coverage and bloat are the kernel's own and "
		 "stay valid. The emulated data alone would say: %s",
		 a->res->emulation[0] ? a->res->emulation : "QEMU TCG", a->metric,
		 a->metric_source, was);
	snprintf(a->advice, sizeof(a->advice), "Run on real hardware, or in a guest with "
		 "hardware virtualization (KVM), for timing and TLB conclusions.");
	a->khugepaged_note[0] = '\0';
	/* the note compared the emulator's knee with the hardware's: keep the
	 * prediction, not the claim that a measurement matched it */
	hardware_note(a, KNEE_UNTESTED);
}

/* Why there is no baseline (at 'span', 0: any): a span the file does not
 * have (-EINVAL for a command's file: it has none), no order-0 trial at all (the run left order 0 out of --orders), or
 * order-0 trials that were all excluded, with the first one's reason. */
static int fail_no_baseline(const struct ctx *c, uint64_t span, char *err, size_t errsize)
{
	const struct analysis *a = c->a;
	const char *why = "";
	size_t i, n_span = 0, n0 = 0;
	char at[64] = "", spans[160] = "";
	int k;

	if (span)
		snprintf(at, sizeof(at), " at span %llu (%llu MiB)", (unsigned long long)span,
			 (unsigned long long)(span >> 20));
	for (i = 0; i < c->r->nr_trials; i++) {
		const struct results_trial *t = &c->r->trials[i];

		if (!trial_dense_match(c, t, span))
			continue;
		n_span++;
		n0 += t->order == 0;
	}
	for (i = 0; i < a->nr_excluded && !*why; i++)
		if (a->excluded[i].order == 0 && (!span || a->excluded[i].span == span))
			why = a->excluded[i].reason;
	if (span && !n_span && !strcmp(a->pattern, "command")) {
		fail(err, errsize, "--span: a command's trials (run -- CMD) have no span; --span "
		     "chooses among the spans of the micro-benchmarks");
		return -EINVAL;
	}
	if (span && !n_span) {
		for (k = 0; k < a->nr_spans; k++)
			append(spans, sizeof(spans), "%s%llu MiB", k ? ", " : "",
			       (unsigned long long)(a->spans[k].span >> 20));
		return fail(err, errsize, "no trials of pattern '%s'%s; the file has %s", a->pattern,
			    at, *spans ? spans : "no other span");
	}
	if (!n0)
		return fail(err, errsize, "no order-0 trials of pattern '%s'%s: every gain is "
			    "relative to order 0, so run again with 0 in --orders (e.g. --orders "
			    "0,2-9)", a->pattern, at);
	return fail(err, errsize, "no usable order-0 trials of pattern '%s'%s: all %zu were "
		    "excluded (%s): order 0 is the baseline every gain is measured against",
		    a->pattern, at, n0, why);
}

/* One analysis at one span; summary_only leaves out what only the full
 * report shows (cost side, every metric's series, the per-span verdicts). */
static int analyze_core(const struct results *r, const struct analyze_opts *opts,
			bool summary_only, struct analysis **out, char *err, size_t errsize)
{
	struct analysis *a = calloc(1, sizeof(*a));
	struct ctx c = { .a = a, .r = r };
	int rc = 0, k, nr_orders = 0;

	*out = NULL;
	if (!a)
		return -ENOMEM;
	c.included = calloc(r->nr_trials, sizeof(*c.included));
	c.buf = calloc(r->nr_trials, sizeof(*c.buf));
	a->excluded = calloc(r->nr_trials, sizeof(*a->excluded));
	c.iters = opts && opts->iters ? opts->iters : ANALYZE_BOOT_ITERS;
	c.level = opts && opts->level > 0 && opts->level < 1 ? opts->level : ANALYZE_LEVEL;
	c.boot = malloc((size_t)c.iters * ANALYZE_NR_ORDERS * sizeof(*c.boot));
	if (!c.included || !c.buf || !a->excluded || !c.boot) {
		rc = -ENOMEM;
		goto out;
	}
	a->res = r;
	a->pmd_order = r->pmd_order;
	a->threshold = opts && opts->threshold > 0 ? opts->threshold : ANALYZE_MATERIAL_GAIN;
	a->level = c.level;
	c.seed = opts && opts->seed ? opts->seed : (r->config_seed ? r->config_seed : 1);
	c.want_span = opts ? opts->span : 0;
	c.want_metric = opts && opts->metric && opts->metric[0] ? opts->metric : NULL;
	c.force_unpaired = opts && opts->unpaired;
	c.summary_only = summary_only;
	select_trials(&c);
	if (choose_pattern(&c)) {
		rc = fail(err, errsize, "no dense trials (only sparse ones): nothing measures "
			  "translation");
		goto out;
	}
	note_other_patterns(&c);
	if (!collect_spans(&c) && c.want_span) {
		rc = fail_no_baseline(&c, c.want_span, err, errsize);
		goto out;
	}
	if (!a->nr_spans || (!a->span && strcmp(a->pattern, "command"))) {
		rc = fail_no_baseline(&c, 0, err, errsize);
		goto out;
	}
	if ((rc = pick_metric(&c, err, errsize)))
		goto out;
	if ((rc = choose_method(&c)) || (rc = per_order(&c)))
		goto out;
	for (k = 1; k < ANALYZE_NR_ORDERS; k++)
		nr_orders += a->orders[k].primary.n > 0;
	if (!nr_orders) {
		rc = fail(err, errsize, "only order 0 has usable trials: there is nothing to "
			  "compare it with");
		goto out;
	}
	classify(a);
	if ((rc = monotone_fit(&c)))
		goto out;
	if (!summary_only) {
		if ((rc = pmd_share(&c)) || (rc = cost_side(&c)))
			goto out;
		series(&c);
	}
	recommend(a);
	emulated_cpu_rule(a);
	analyze_placement_notes(a);
	rc = analyze_plateau(a, c.boot, c.iters);
out:
	free(c.included);
	free(c.buf);
	free(c.boot);
	if (rc) {
		if (rc == -ENOMEM)
			snprintf(err, errsize, "out of memory");
		analyze_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

/* What one span's verdict says, for the sentence of span_summary. */
static void span_words(const struct analysis *a, const struct analyze_span *s, char *buf,
		       size_t size)
{
	if (!s->analysed)
		snprintf(buf, size, "nothing can be said (no usable order-0 trials)");
	else if (s->verdict == AN_MTHP)
		snprintf(buf, size, "order %d pays", s->min_order);
	else if (s->verdict == AN_PMD_ONLY)
		snprintf(buf, size, "only PMD-size folios help");
	else if (s->verdict == AN_NO_GAIN)
		snprintf(buf, size, "no folio size pays");
	else
		snprintf(buf, size, "the data cannot tell (inconclusive)");
	(void)a;
}

static bool same_outcome(const struct analyze_span *x, const struct analyze_span *y)
{
	return x->analysed == y->analysed && (!x->analysed || (x->verdict == y->verdict &&
							      x->min_order == y->min_order));
}

static void mib(char *buf, size_t size, uint64_t bytes)
{
	if (bytes >= (1ULL << 20) && !(bytes & ((1ULL << 20) - 1)))
		snprintf(buf, size, "%llu MiB", (unsigned long long)(bytes >> 20));
	else
		snprintf(buf, size, "%.3g MiB", (double)bytes / (1024.0 * 1024.0));
}

/* "order 2 pays for working sets up to about 32 MiB on this CPU; beyond
 * that only PMD-size folios help": runs of spans with the same outcome. */
static void span_summary(struct analysis *a)
{
	char *o = a->span_summary, what[96], from[32], to[32];
	size_t size = sizeof(a->span_summary);
	int s, e, nruns = 0;

	o[0] = '\0';
	for (s = 0; s < a->nr_spans; s = e) {
		for (e = s + 1; e < a->nr_spans && same_outcome(&a->spans[s], &a->spans[e]); e++)
			;
		nruns++;
	}
	for (s = 0; s < a->nr_spans; s = e) {
		for (e = s + 1; e < a->nr_spans && same_outcome(&a->spans[s], &a->spans[e]); e++)
			;
		span_words(a, &a->spans[s], what, sizeof(what));
		mib(from, sizeof(from), a->spans[s].span);
		mib(to, sizeof(to), a->spans[e - 1].span);
		if (nruns == 1)
			append(o, size, "At every measured working set (%s to %s) %s.", from, to,
			       what);
		else if (s == 0)
			append(o, size, "%c%s for working sets up to about %s on this CPU",
			       toupper((unsigned char)what[0]), what + 1, to);
		else if (e == a->nr_spans)
			append(o, size, "; beyond that %s.", what);
		else if (e - s == 1)
			append(o, size, "; at %s %s", from, what);
		else
			append(o, size, "; from %s to %s %s", from, to, what);
	}
}

/* The plateau and every order's gain at one span, from its own analysis. */
static void span_plateau(struct analyze_span *sp, const struct analysis *sub)
{
	int k;

	sp->plateau_order = sub->plateau.order;
	sp->plateau_gain = sub->plateau.gain;
	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		sp->gains[k] = sub->orders[k].gain;
}

/* The recommendation at every span of a sweep, each from its own trials. */
static void per_span(struct analysis *a, const struct results *r, const struct analyze_opts *o)
{
	struct analyze_opts so = o ? *o : (struct analyze_opts){ 0 };
	int s;

	for (s = 0; s < a->nr_spans; s++) {
		struct analyze_span *sp = &a->spans[s];
		struct analysis *sub;
		char err[256];
		int k;

		sp->analysed = false;
		sp->min_order = sp->candidate_order = -1;
		sp->verdict = AN_INCONCLUSIVE;
		sp->gain.value = sp->gain.lo = sp->gain.hi = NAN;
		sp->plateau_order = -1;
		sp->plateau_gain = sp->gain;
		for (k = 0; k < ANALYZE_NR_ORDERS; k++)
			sp->gains[k] = sp->gain;
		so.span = sp->span;
		if (analyze_core(r, &so, true, &sub, err, sizeof(err)))
			continue;
		sp->analysed = true;
		sp->verdict = sub->verdict;
		sp->min_order = sub->min_order;
		sp->candidate_order = sub->candidate_order;
		k = sub->min_order >= 0 ? sub->min_order : sub->candidate_order;
		if (k >= 0)
			sp->gain = sub->orders[k].gain;
		span_plateau(sp, sub);
		analyze_free(sub);
	}
	span_summary(a);
}

int analyze_run(const struct results *r, const struct analyze_opts *opts,
		struct analysis **out, char *err, size_t errsize)
{
	int rc = analyze_core(r, opts, false, out, err, errsize);

	if (!rc && (*out)->nr_spans > 1) {
		per_span(*out, r, opts);
	} else if (!rc) {
		/* one span: its verdict is the verdict */
		struct analysis *a = *out;
		int k = a->min_order >= 0 ? a->min_order : a->candidate_order;

		a->spans[0].analysed = true;
		a->spans[0].verdict = a->verdict;
		a->spans[0].min_order = a->min_order;
		a->spans[0].candidate_order = a->candidate_order;
		a->spans[0].gain = k >= 0 ? a->orders[k].gain :
			(struct analyze_change){ NAN, NAN, NAN };
		span_plateau(&a->spans[0], a);
	}
	return rc;
}

void analyze_free(struct analysis *a)
{
	if (!a)
		return;
	free(a->excluded);
	free(a);
}
