// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * compare's drift-proof rows (compare.h, struct compare_gain_row): in each
 * file, every order against the same file's order 0, pair by pair (the same
 * round of an interleaved rep: "round"; else the same rep: "rep"), as log
 * ratios. Load that drifts between the two runs moves order 0 and order k
 * of a file alike and cancels; only the difference of the two gains is
 * compared.
 *
 * The independent unit is the rep: each rep places the buffers anew
 * (bench.c populates per rep), so the rounds of one rep share its placement
 * and are not independent of each other. Per rep, u = the 10 % trimmed mean
 * of its log ratios (the one ratio when paired by rep); per file, m = the
 * mean of u over the reps, the gain 1 - exp(m) (lower is better) or
 * exp(m) - 1 (higher is better). The difference of the two gains gets a
 * Welch interval and t test (delta method from the log scale, Student's t
 * with Welch-Satterthwaite degrees of freedom) whose variance has a
 * run-to-run part the reps of one file cannot show.
 *
 * A side of one run assumes that part (compare.h, gain_run_sd), unless its
 * trials carry placement ids (issue 39): then each rep was populated in a
 * placement of its own, moved by a ballast and checked by pagemap
 * (src/measure/bench.c), and the spread of its reps is taken as the
 * run-to-run part, nothing assumed. A side of
 * several runs (repeated runs of one kernel or setting) estimates it: its
 * gain is that of the mean of its runs' m (each run's m as above: the runs'
 * geometric mean of ratios), and the variance of that mean is the spread of
 * the runs' m over their number, with runs - 1 degrees of freedom (none when
 * the runs agree exactly: copies of one run). That spread holds the reps'
 * part and the run-to-run part together, whatever the machine, so nothing
 * is assumed; with few runs the t quantile is large, and the CI honest
 * about it. It cannot show a change of the machine between the sides when
 * each side's runs were run together: alternate them (doc/compare.md).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "results.h"
#include "stats.h"

#define GAIN_TRIM 0.10

/* The paired log ratios of one order in one file, grouped by rep. */
struct gsample {
	double *v;       /* grouped: rep g holds v[start[g] .. start[g] + size[g]) */
	size_t *start, *size;
	size_t n, ngroups;
	double *u;       /* per rep: the trimmed mean of its log ratios */
	unsigned *run;   /* per rep: its run (file) in a side of several */
	bool rounds;     /* paired by round (else by rep) */
};

static void gsample_free(struct gsample *g)
{
	free(g->v);
	free(g->start);
	free(g->size);
	free(g->u);
	free(g->run);
	memset(g, 0, sizeof(*g));
}

static const struct compare_series *series_at(const struct compare_input *in,
					      const struct compare_series *key, int order)
{
	size_t i;

	for (i = 0; i < in->nr_series; i++) {
		const struct compare_series *s = &in->series[i];

		if (s->order == order && s->span == key->span && !strcmp(s->metric, key->metric) &&
		    !strcmp(s->pattern, key->pattern))
			return s;
	}
	return NULL;
}

static unsigned run_of(const struct compare_series *s, size_t i)
{
	return s->runs ? s->runs[i] : 0;
}

static const struct results_trial *trial_of_rep(const struct compare_series *s, unsigned run,
						int rep, double *value)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->trials[i]->rep == rep && run_of(s, i) == run) {
			*value = s->values[i];
			return s->trials[i];
		}
	return NULL;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The GAIN_TRIM trimmed mean of x[0..n), sorting x in place. */
static double trimmed_mean(double *x, size_t n)
{
	double lo, hi, cum = 0, sum = 0, wsum = 0;
	size_t i;

	qsort(x, n, sizeof(*x), cmp_double);
	lo = GAIN_TRIM * (double)n;
	hi = (double)n - lo;
	for (i = 0; i < n && cum < hi; i++) {
		double a = fmin(cum + 1.0, hi) - fmax(cum, lo);

		if (a > 0) {
			sum += a * x[i];
			wsum += a;
		}
		cum += 1.0;
	}
	return wsum > 0 ? sum / wsum : NAN;
}

/* Append the pairs of trial tk (value vk) against t0 (v0) as one group. */
static void add_group(struct gsample *g, const struct results_trial *tk, double vk,
		      const struct results_trial *t0, double v0, bool by_round, unsigned run)
{
	size_t r, n = g->n;

	if (by_round && tk->nr_rounds && t0->nr_rounds) {
		size_t m = tk->nr_rounds < t0->nr_rounds ? tk->nr_rounds : t0->nr_rounds;

		for (r = 0; r < m; r++)
			if (tk->rounds[r] > 0.0 && t0->rounds[r] > 0.0)
				g->v[g->n++] = log(tk->rounds[r] / t0->rounds[r]);
		g->rounds |= g->n > n;
	} else if (vk > 0.0 && v0 > 0.0 && isfinite(vk) && isfinite(v0)) {
		g->v[g->n++] = log(vk / v0);
	}
	if (g->n > n) {
		g->start[g->ngroups] = n;
		g->size[g->ngroups] = g->n - n;
		g->u[g->ngroups] = trimmed_mean(g->v + n, g->n - n);
		g->run[g->ngroups] = run;
		g->ngroups++;
	}
}

/* The pairs of order sk->order against order 0 in one file; -ENOMEM, or
 * 0 with g->ngroups == 0 when nothing pairs. */
static int gsample_build(const struct compare_input *in, const struct compare_series *sk,
			 struct gsample *g)
{
	const struct compare_series *s0 = series_at(in, sk, 0);
	bool by_round = in->interleaved && !strcmp(sk->metric, "ns_per_access");
	size_t i, cap = 0;

	memset(g, 0, sizeof(*g));
	if (!s0 || !sk->trials || !s0->trials)
		return 0;
	for (i = 0; i < sk->n; i++)
		cap += (by_round ? sk->trials[i]->nr_rounds : 0) + 1;
	g->v = malloc(cap * sizeof(*g->v));
	g->start = malloc(sk->n * sizeof(*g->start));
	g->size = malloc(sk->n * sizeof(*g->size));
	g->u = malloc(sk->n * sizeof(*g->u));
	g->run = malloc(sk->n * sizeof(*g->run));
	if (!g->v || !g->start || !g->size || !g->u || !g->run) {
		gsample_free(g);
		return -ENOMEM;
	}
	for (i = 0; i < sk->n; i++) {
		double v0;
		unsigned run = run_of(sk, i);
		const struct results_trial *t0 = trial_of_rep(s0, run, sk->trials[i]->rep, &v0);

		if (t0)
			add_group(g, sk->trials[i], sk->values[i], t0, v0, by_round, run);
	}
	return 0;
}

/* The mean of x[0..n) and its squared standard error (NAN for n < 2). */
static void mean_se2(const double *x, size_t n, double *m, double *se2)
{
	double s = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += x[i];
	*m = s / (double)n;
	for (i = 0; i < n; i++)
		ss += (x[i] - *m) * (x[i] - *m);
	*se2 = n >= 2 ? ss / (double)(n - 1) / (double)n : NAN;
}

/* One side of a gain row, on the log scale: m, the variance of m, and
 * its degrees of freedom; runs: the runs with pairs. */
struct gside {
	double m, var, df;
	size_t runs;
	bool placed; /* one run with placement ids: no assumed run-to-run part */
};

/* The runs' mean u (m of each run) into mr[]; the number of runs with reps. */
static size_t run_means(const struct gsample *g, double *mr, size_t nr_runs)
{
	size_t i, r, k = 0;

	for (r = 0; r < nr_runs; r++) {
		double s = 0;
		size_t n = 0;

		for (i = 0; i < g->ngroups; i++)
			if (g->run[i] == r) {
				s += g->u[i];
				n++;
			}
		if (n)
			mr[k++] = s / (double)n;
	}
	return k;
}

/* A side: from its runs' spread when it has two runs or more with pairs,
 * else from its reps (var NAN with fewer than two); -ENOMEM. */
static int gain_side(const struct gsample *g, size_t nr_runs, struct gside *s)
{
	double *mr = NULL;
	size_t k = 0;

	if (nr_runs >= 2) {
		if (!(mr = malloc(nr_runs * sizeof(*mr))))
			return -ENOMEM;
		k = run_means(g, mr, nr_runs);
	}
	if (k >= 2) {
		mean_se2(mr, k, &s->m, &s->var);
		/* runs that agree to the last bit are copies of one run, not a
		 * spread of zero: nothing to estimate from (no CI) */
		if (!(s->var > 0))
			s->var = NAN;
		s->runs = k;
		s->df = (double)k - 1;
	} else { /* one run, or one run of several has this order: its reps */
		mean_se2(g->u, g->ngroups, &s->m, &s->var);
		s->runs = 1;
		s->df = (double)g->ngroups - 1;
	}
	free(mr);
	return 0;
}

static double gain_pct(double m, enum compare_dir dir)
{
	return 100.0 * (dir == COMPARE_DIR_HIGHER ? exp(m) - 1.0 : 1.0 - exp(m));
}

/* Gain rows are for the translation metrics: a time or cycle count per
 * access, the same work at every order. Not for populate or per-fault
 * times: their gains move with the machine's memory state between runs
 * (free-page reporting, compaction: one A/A pair under load had order 9's
 * populate gain at 81 % and 44 %), which pairing within a file cannot
 * cancel. */
static bool gain_metric(const char *metric, const char *source)
{
	return compare_metric_drift_prone(metric, source) &&
	       (strstr(metric, "per_access") || strstr(metric, "cycles"));
}

/*
 * diff, its Welch CI and p (each side's var finite). The variance of each
 * side's gain, by the delta method from the log scale (d gain / d m = -+100
 * exp(m)): a side of one run adds the assumed run-to-run part squared,
 * taken as known; degrees of freedom by Welch-Satterthwaite.
 */
static void gain_ci(struct compare_gain_row *w, const struct gside *a, const struct gside *b,
		    const struct compare_opts *o)
{
	double da = 1e4 * exp(2 * a->m) * a->var, db = 1e4 * exp(2 * b->m) * b->var;
	double fl = o->gain_run_sd > 0 ? o->gain_run_sd * o->gain_run_sd : 0;
	double v = da + db + (a->runs < 2 && !a->placed ? fl : 0) +
		   (b->runs < 2 && !b->placed ? fl : 0);
	double se = sqrt(v), df, t;

	if (!(se > 0)) {
		w->ci_lo = w->ci_hi = w->diff; /* exact counts: no spread */
		w->p_value = w->diff == 0 ? 1.0 : 0.0;
		return;
	}
	df = v * v / (da * da / a->df + db * db / b->df);
	if (!isfinite(df) || df > 1e6)
		df = 1e6;
	t = stats_t_quantile(o->ci_level, df);
	w->ci_lo = w->diff - t * se;
	w->ci_hi = w->diff + t * se;
	w->p_value = stats_t_two_sided_p(w->diff / se, df);
}

/* A warning where a side of several runs has fewer with pairs of this row. */
static int runs_missing(struct compare_report *r, int side, const struct compare_series *s,
			size_t runs)
{
	const struct compare_input *in = &r->inputs[side];

	if (in->nr_runs < 2 || runs >= in->nr_runs)
		return 0;
	return compare_add_warning(r, "%s order %d %s: %zu of the %zu runs of %s have it (with "
				   "order 0)%s", s->pattern, s->order, s->metric, runs, in->nr_runs,
				   in->label, runs < 2 ? ": that side's run-to-run part is assumed" :
				   "");
}

static int add_gain(struct compare_report *r, const struct compare_gain_row *w, size_t *cap)
{
	if (r->nr_gains == *cap) {
		size_t c = *cap ? *cap * 2 : 32;
		struct compare_gain_row *p = realloc(r->gains, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->gains = p;
		*cap = c;
	}
	r->gains[r->nr_gains++] = *w;
	return 0;
}

static bool selected(const struct compare_opts *o, const char *metric)
{
	size_t i;

	for (i = 0; i < o->nr_metrics; i++)
		if (!strcmp(o->metrics[i], metric))
			return true;
	return !o->nr_metrics;
}

/* The gain row of series sa (order > 0) of A against B's; 0 when none. */
static int gain_row(struct compare_report *r, const struct compare_opts *o, int other,
		    const struct compare_series *sa, size_t *cap)
{
	const struct compare_series *sb = series_at(&r->inputs[other], sa, sa->order);
	struct compare_gain_row w = { .other = other, .pattern = sa->pattern, .order = sa->order,
				      .span = sa->span, .metric = sa->metric };
	struct gsample ga, gb;
	struct gside sda, sdb;
	int err;

	w.dir = compare_series_dir(sa);
	if (!sb || w.dir == COMPARE_DIR_NONE)
		return 0;
	if ((err = gsample_build(&r->inputs[0], sa, &ga)))
		return err;
	if ((err = gsample_build(&r->inputs[other], sb, &gb)) || !ga.ngroups || !gb.ngroups)
		goto out;
	w.paired_by = ga.rounds && gb.rounds ? "round" : "rep";
	w.na = ga.n;
	w.nb = gb.n;
	w.ci_lo = w.ci_hi = w.p_value = w.p_holm = NAN;
	if ((err = gain_side(&ga, r->inputs[0].nr_runs, &sda)) ||
	    (err = gain_side(&gb, r->inputs[other].nr_runs, &sdb)))
		goto out;
	w.runs_a = sda.runs;
	w.runs_b = sdb.runs;
	if ((err = runs_missing(r, 0, sa, sda.runs)) || (err = runs_missing(r, other, sa, sdb.runs)))
		goto out;
	w.run_sd_estimated_a = sda.runs >= 2;
	w.run_sd_estimated_b = sdb.runs >= 2;
	/* issue 39: a run's reps are placements that moved; their spread is
	 * the run-to-run part a rerun would show */
	sda.placed = w.run_sd_placements_a = sda.runs < 2 && r->inputs[0].placements;
	sdb.placed = w.run_sd_placements_b = sdb.runs < 2 && r->inputs[other].placements;
	w.gain_a = gain_pct(sda.m, w.dir);
	w.gain_b = gain_pct(sdb.m, w.dir);
	w.diff = w.gain_b - w.gain_a;
	if (isfinite(sda.var) && isfinite(sdb.var) && sda.df > 0 && sdb.df > 0)
		gain_ci(&w, &sda, &sdb, o);
	err = add_gain(r, &w, cap);
out:
	gsample_free(&ga);
	gsample_free(&gb);
	return err;
}

/* Holm over the gain rows [first, nr_gains); verdicts. */
static int gains_holm(struct compare_report *r, size_t first, double alpha)
{
	size_t i, m = 0, n = r->nr_gains - first;
	double *p = calloc(n + 1, sizeof(*p)), *adj = calloc(n + 1, sizeof(*adj));
	int err = 0;

	if (!p || !adj) {
		err = -ENOMEM;
		goto out;
	}
	for (i = first; i < r->nr_gains; i++)
		if (!isnan(r->gains[i].p_value))
			p[m++] = r->gains[i].p_value;
	if (m && (err = stats_holm_adjust(p, m, adj)))
		goto out;
	for (i = first, m = 0; i < r->nr_gains; i++) {
		struct compare_gain_row *w = &r->gains[i];

		if (!isnan(w->p_value))
			w->p_holm = adj[m++];
		w->significant = !isnan(w->p_holm) && w->p_holm < alpha;
		w->verdict = !w->significant ? COMPARE_SAME :
			     w->diff > 0 ? COMPARE_BETTER : COMPARE_WORSE;
	}
out:
	free(p);
	free(adj);
	return err;
}

int compare_gains_pair(struct compare_report *r, const struct compare_opts *o, int other)
{
	const struct compare_input *a = &r->inputs[0];
	size_t i, first = r->nr_gains, cap = r->nr_gains;
	int err = 0;

	for (i = 0; !err && i < a->nr_series; i++) {
		const struct compare_series *sa = &a->series[i];

		if (sa->order > 0 && sa->n && selected(o, sa->metric) &&
		    gain_metric(sa->metric, sa->source))
			err = gain_row(r, o, other, sa, &cap);
	}
	return err ? err : gains_holm(r, first, o->alpha);
}
