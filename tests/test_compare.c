// SPDX-License-Identifier: GPL-2.0-or-later
/* The compare module on recorded fixtures (tests/data/compare-*.json, made
 * by gen_compare_fixtures.py) and on hand-built inputs: known effects are
 * found, noise is not, bad combinations give a clear error or warning. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "report.h"
#include "harness.h"
#include "results.h"

#define MAX_FILES 4

struct loaded {
	struct results *res[MAX_FILES];
	struct compare_input in[MAX_FILES];
	char label[MAX_FILES][64]; /* as the command names them: the file name */
	size_t n;
};

static void load_fixtures(struct loaded *l, const char *const *names, size_t n)
{
	const char *src = getenv("MTHPSCOPE_SRC");
	char path[4096], err[512];
	size_t i;

	if (!src)
		src = ".";
	memset(l, 0, sizeof(*l));
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/tests/data/compare-%s.json", src, names[i]);
		if (results_load(path, &l->res[i], err, sizeof(err))) {
			FAIL_AT("%s", err);
			_exit(1);
		}
		snprintf(l->label[i], sizeof(l->label[i]), "compare-%s", names[i]);
		ASSERT_EQ(compare_input_from_results(l->res[i], l->label[i], &l->in[i]), 0);
	}
	l->n = n;
}

static void compare_fixtures(struct loaded *l, struct compare_report *r, const char *a,
			     const char *b, const struct compare_opts *o)
{
	const char *names[] = { a, b };

	load_fixtures(l, names, 2);
	ASSERT_EQ(compare_build(l->in, 2, o, r), 0);
}

static bool has_warning(const struct compare_report *r, const char *s1, const char *s2)
{
	size_t i;

	for (i = 0; i < r->nr_warnings; i++)
		if (strstr(r->warnings[i], s1) && (!s2 || strstr(r->warnings[i], s2)))
			return true;
	return false;
}

TEST(metric_directions)
{
	EXPECT_EQ(compare_metric_dir("ns_per_access"), COMPARE_DIR_LOWER);
	EXPECT_EQ(compare_metric_dir("walks"), COMPARE_DIR_LOWER);
	EXPECT_EQ(compare_metric_dir("dtlb_misses"), COMPARE_DIR_LOWER);
	EXPECT_EQ(compare_metric_dir("walk_cycles"), COMPARE_DIR_LOWER);
	EXPECT_EQ(compare_metric_dir("page_faults"), COMPARE_DIR_LOWER);
	EXPECT_EQ(compare_metric_dir("fault_ns"), COMPARE_DIR_LOWER);
	EXPECT_EQ(compare_metric_dir("rss_bytes"), COMPARE_DIR_LOWER);
	EXPECT_EQ(compare_metric_dir("instructions"), COMPARE_DIR_NONE);
	EXPECT_EQ(compare_metric_dir("coalesced_hits"), COMPARE_DIR_NONE);
	EXPECT_EQ(compare_metric_dir("no_such_metric"), COMPARE_DIR_NONE);
}

/* A 20 % slowdown at every order: every order flagged, worse, ~20 %. */
TEST(slowdown_20_found_at_every_order)
{
	struct loaded l;
	struct compare_report r;
	bool seen[10] = { false };
	size_t i;
	int o;

	compare_fixtures(&l, &r, "base", "slow20", NULL);
	EXPECT_TRUE(r.comparable);
	EXPECT_EQ(r.nr_warnings, 0);
	EXPECT_EQ(r.nr_rows, 18); /* 9 orders x 2 metrics */
	for (i = 0; i < r.nr_rows; i++) {
		const struct compare_row *w = &r.rows[i];

		EXPECT_TRUE(w->significant);
		EXPECT_EQ(w->verdict, COMPARE_WORSE);
		EXPECT_NEAR(w->delta_pct, 20.0, 3.0);
		EXPECT_NEAR(w->delta_pct, 100.0 * (w->b - w->a) / w->a, 1e-9);
		EXPECT_TRUE(w->ci_lo < w->delta_pct && w->delta_pct < w->ci_hi);
		EXPECT_TRUE(w->ci_lo > 10.0 && w->ci_hi < 30.0);
		EXPECT_TRUE(w->p_value < w->p_holm || w->p_holm == 1.0 || w->p_value == w->p_holm);
		if (!strcmp(w->metric, "ns_per_access"))
			seen[w->order] = true;
	}
	for (o = 0; o <= 9; o++)
		EXPECT_EQ(seen[o], o != 1);
	/* the gate leads with the gains: a slowdown of every order alike leaves
	 * them as they were, so the time rows (drift-prone) are not counted,
	 * the page-fault rows (exact counts) are */
	{
		size_t skipped;

		EXPECT_EQ(r.nr_gains, 8);
		EXPECT_EQ(compare_count_regressions(&r, 10.0, &skipped), 9);
		EXPECT_EQ(skipped, 9);
	}
	EXPECT_EQ(compare_count_regressions(&r, 25.0, NULL), 0);
	compare_report_free(&r);
}

/* The same change the other way round is an improvement, not a regression. */
/*
 * Hand-built interleaved files: 12 reps of 20 rounds, order 0 at 100 and
 * order 2 at 80 (a 20 % gain), 2 % noise per round, a placement offset per
 * rep. In B the machine is 30 % slower throughout (drift): every absolute
 * row is worse and drift-prone, no gain row moves, the gate counts nothing.
 * In C order 2 gains only 10 %: the gain row says 10 points worse, and the
 * gate counts it.
 */
#define GT_REPS 12
#define GT_ROUNDS 20

struct gain_file {
	struct results_trial t[2][GT_REPS];
	double rounds[2][GT_REPS][GT_ROUNDS], value[2][GT_REPS];
	const struct results_trial *tp[2][GT_REPS];
	struct compare_series s[2];
	struct compare_input in;
};

static void gain_file(struct gain_file *g, const char *label, double drift, double o2,
		      unsigned seed)
{
	int o, k, r;

	memset(g, 0, sizeof(*g));
	srand(seed);
	for (o = 0; o < 2; o++) {
		for (k = 0; k < GT_REPS; k++) {
			double place = 1.0 + 0.01 * (rand() / (double)RAND_MAX - 0.5), sum = 0;

			for (r = 0; r < GT_ROUNDS; r++) {
				double noise = 1.0 + 0.04 * (rand() / (double)RAND_MAX - 0.5);

				g->rounds[o][k][r] = (o ? o2 : 100.0) * drift * place * noise;
				sum += g->rounds[o][k][r];
			}
			g->value[o][k] = sum / GT_ROUNDS;
			g->t[o][k] = (struct results_trial){ .order = o ? 2 : 0, .rep = k,
							    .rounds = g->rounds[o][k],
							    .nr_rounds = GT_ROUNDS };
			g->tp[o][k] = &g->t[o][k];
		}
		g->s[o] = (struct compare_series){ "chase-tlb", o ? 2 : 0, 1 << 26, "ns_per_access",
						   g->value[o], GT_REPS, "timing", g->tp[o] };
	}
	g->in = (struct compare_input){ .label = label, .kernel = "6.18", .virtualized = -1,
					.pmu_available = -1, .series = g->s, .nr_series = 2,
					.interleaved = true };
}

TEST(gains_are_drift_proof)
{
	static struct gain_file a, b, c;
	struct compare_input in[2];
	struct compare_report r;
	size_t skipped, i;

	gain_file(&a, "a", 1.0, 80.0, 1);
	gain_file(&b, "b", 1.3, 80.0, 2);
	gain_file(&c, "c", 1.0, 90.0, 3);
	in[0] = a.in;
	in[1] = b.in;
	ASSERT_EQ(compare_build(in, 2, NULL, &r), 0);
	for (i = 0; i < r.nr_rows; i++) {
		EXPECT_TRUE(r.rows[i].drift_prone);
		EXPECT_EQ(r.rows[i].verdict, COMPARE_WORSE);
	}
	ASSERT_EQ(r.nr_gains, 1);
	EXPECT_STREQ(r.gains[0].paired_by, "round");
	EXPECT_EQ(r.gains[0].na, GT_REPS * GT_ROUNDS);
	EXPECT_NEAR(r.gains[0].gain_a, 20.0, 0.5);
	EXPECT_NEAR(r.gains[0].gain_b, 20.0, 0.5);
	EXPECT_TRUE(r.gains[0].ci_lo < 0 && r.gains[0].ci_hi > 0);
	EXPECT_EQ(r.gains[0].verdict, COMPARE_SAME);
	EXPECT_EQ(compare_count_regressions(&r, 5.0, &skipped), 0);
	EXPECT_EQ(skipped, 2);
	compare_report_free(&r);

	in[1] = c.in;
	ASSERT_EQ(compare_build(in, 2, NULL, &r), 0);
	ASSERT_EQ(r.nr_gains, 1);
	EXPECT_NEAR(r.gains[0].gain_b, 10.0, 0.5);
	EXPECT_NEAR(r.gains[0].diff, -10.0, 0.7);
	/* the run-to-run part (1.7 points a side) widens the CI to about +-4.8 */
	EXPECT_TRUE(r.gains[0].ci_hi < -4.0 && r.gains[0].ci_lo > -16.0);
	EXPECT_TRUE(r.gains[0].ci_hi - r.gains[0].ci_lo > 8.0);
	EXPECT_TRUE(r.gains[0].significant);
	EXPECT_EQ(r.gains[0].verdict, COMPARE_WORSE);
	EXPECT_EQ(compare_count_regressions(&r, 5.0, &skipped), 1);
	EXPECT_EQ(skipped, 1); /* order 2's time row: its gain row counts instead */
	compare_report_free(&r);
	{
		struct compare_opts o = COMPARE_OPTS_DEFAULT;

		o.gain_run_sd = 0; /* within-run variance only: the reps' CI */
		ASSERT_EQ(compare_build(in, 2, &o, &r), 0);
		EXPECT_TRUE(r.gains[0].ci_hi < -8.0 && r.gains[0].ci_lo > -12.0);
		compare_report_free(&r);
	}
	/* issue 39: files whose trials carry placement ids take their reps'
	 * (placements') spread for the run-to-run part, not the assumed 1.7
	 * points: the reps' CI, and the rows say so */
	a.in.placements = c.in.placements = true;
	in[0] = a.in;
	in[1] = c.in;
	ASSERT_EQ(compare_build(in, 2, NULL, &r), 0);
	EXPECT_TRUE(r.gains[0].run_sd_placements_a && r.gains[0].run_sd_placements_b);
	EXPECT_TRUE(!r.gains[0].run_sd_estimated_a);
	EXPECT_TRUE(r.gains[0].ci_hi < -8.0 && r.gains[0].ci_lo > -12.0);
	compare_report_free(&r);
	a.in.placements = c.in.placements = false;

	/* not interleaved: paired by rep, one ratio per rep */
	a.in.interleaved = c.in.interleaved = false;
	in[0] = a.in;
	ASSERT_EQ(compare_build(in, 2, NULL, &r), 0);
	ASSERT_EQ(r.nr_gains, 1);
	EXPECT_STREQ(r.gains[0].paired_by, "rep");
	EXPECT_EQ(r.gains[0].na, GT_REPS);
	EXPECT_NEAR(r.gains[0].diff, -10.0, 0.7);
	compare_report_free(&r);
}

/*
 * Sides of three runs each. Each run has its own placement, which moves
 * order 2's gain by -4, 0 or +4 points for the whole run; the reps of one
 * run cannot show it. One run against one, within-run variance only: a
 * difference of 8 points that is nothing but placement is flagged. The same
 * runs pooled per side: the spread of the runs' gains is the variance, and
 * nothing is flagged; a real difference of 20 points still is.
 */
#define GT_RUNS 3
#define GT_MAX_RUNS 6

struct gain_side {
	struct gain_file f[GT_MAX_RUNS];
	double value[2][GT_MAX_RUNS * GT_REPS];
	const struct results_trial *tp[2][GT_MAX_RUNS * GT_REPS];
	unsigned runs[2][GT_MAX_RUNS * GT_REPS];
	struct compare_series s[2];
	struct compare_input in;
};

static void gain_side_n(struct gain_side *g, int nruns, const char *label, double o2,
			const double *offset, unsigned seed)
{
	int o, r, k;

	memset(g, 0, sizeof(*g));
	for (r = 0; r < nruns; r++)
		gain_file(&g->f[r], label, 1.0, o2 + offset[r], seed + (unsigned)r);
	for (o = 0; o < 2; o++) {
		for (r = 0; r < nruns; r++)
			for (k = 0; k < GT_REPS; k++) {
				g->value[o][r * GT_REPS + k] = g->f[r].value[o][k];
				g->tp[o][r * GT_REPS + k] = &g->f[r].t[o][k];
				g->runs[o][r * GT_REPS + k] = (unsigned)r;
			}
		g->s[o] = g->f[0].s[o];
		g->s[o].values = g->value[o];
		g->s[o].trials = g->tp[o];
		g->s[o].runs = g->runs[o];
		g->s[o].n = (size_t)nruns * GT_REPS;
	}
	g->in = g->f[0].in;
	g->in.series = g->s;
	g->in.nr_runs = (size_t)nruns;
}

static void gain_side(struct gain_side *g, const char *label, double o2, const double *offset,
		      unsigned seed)
{
	gain_side_n(g, GT_RUNS, label, o2, offset, seed);
}

TEST(several_runs_a_side_estimate_the_run_to_run_part)
{
	static const double off_a[] = { -4, 0, 4 }, off_b[] = { 4, -4, 0 };
	static struct gain_side a, b, c;
	struct compare_opts o = COMPARE_OPTS_DEFAULT;
	struct compare_input in[2];
	struct compare_report r;

	gain_side(&a, "a", 80.0, off_a, 10);
	gain_side(&b, "b", 80.0, off_b, 20);
	gain_side(&c, "c", 60.0, off_b, 30);
	o.gain_run_sd = 0;
	in[0] = a.f[0].in; /* placement -4: a gain of 24 % */
	in[1] = b.f[0].in; /* placement +4: 16 % */
	ASSERT_EQ(compare_build(in, 2, &o, &r), 0);
	ASSERT_EQ(r.nr_gains, 1);
	EXPECT_NEAR(r.gains[0].diff, -8.0, 1.0);
	EXPECT_TRUE(r.gains[0].significant);
	EXPECT_EQ(r.gains[0].runs_a, 1);
	EXPECT_TRUE(!r.gains[0].run_sd_estimated_a);
	compare_report_free(&r);

	in[0] = a.in;
	in[1] = b.in;
	ASSERT_EQ(compare_build(in, 2, &o, &r), 0);
	ASSERT_EQ(r.nr_gains, 1);
	EXPECT_EQ(r.gains[0].na, GT_RUNS * GT_REPS * GT_ROUNDS);
	EXPECT_EQ(r.gains[0].runs_a, GT_RUNS);
	EXPECT_EQ(r.gains[0].runs_b, GT_RUNS);
	EXPECT_TRUE(r.gains[0].run_sd_estimated_a && r.gains[0].run_sd_estimated_b);
	EXPECT_NEAR(r.gains[0].gain_a, 20.0, 0.5);
	EXPECT_NEAR(r.gains[0].diff, 0.0, 0.7);
	/* the runs' gains 24, 20, 16 a side: SE 2.3 each, df about 4, t 2.78 */
	EXPECT_TRUE(r.gains[0].ci_hi - r.gains[0].ci_lo > 15.0);
	EXPECT_TRUE(r.gains[0].ci_hi - r.gains[0].ci_lo < 21.0);
	EXPECT_TRUE(!r.gains[0].significant);
	compare_report_free(&r);

	o.gain_run_sd = 50; /* assumed for one-run sides only: no effect here */
	in[1] = c.in;
	ASSERT_EQ(compare_build(in, 2, &o, &r), 0);
	ASSERT_EQ(r.nr_gains, 1);
	EXPECT_NEAR(r.gains[0].diff, 20.0, 1.0);
	EXPECT_TRUE(r.gains[0].significant);
	EXPECT_EQ(r.gains[0].verdict, COMPARE_BETTER);
	compare_report_free(&r);

	/* copies of one run agree exactly: no spread to estimate from, no CI */
	{
		static struct gain_side d;
		int k, run, ord;

		gain_side(&d, "d", 80.0, off_a, 40);
		for (ord = 0; ord < 2; ord++)
			for (run = 1; run < GT_RUNS; run++)
				for (k = 0; k < GT_REPS; k++) {
					d.value[ord][run * GT_REPS + k] = d.value[ord][k];
					d.tp[ord][run * GT_REPS + k] = d.tp[ord][k];
				}
		in[1] = d.in;
		ASSERT_EQ(compare_build(in, 2, &o, &r), 0);
		EXPECT_TRUE(isnan(r.gains[0].ci_lo) && isnan(r.gains[0].p_value));
		EXPECT_TRUE(!r.gains[0].significant);
		compare_report_free(&r);
	}

	in[1] = c.f[2].in; /* one run against three: that side assumes 50 */
	ASSERT_EQ(compare_build(in, 2, &o, &r), 0);
	EXPECT_EQ(r.gains[0].runs_b, 1);
	EXPECT_TRUE(r.gains[0].run_sd_estimated_a && !r.gains[0].run_sd_estimated_b);
	EXPECT_TRUE(!r.gains[0].significant);
	compare_report_free(&r);
}

/* A standard normal draw (Box-Muller) from rand(). */
static double normal_draw(void)
{
	double u1 = (rand() + 1.0) / (RAND_MAX + 2.0), u2 = rand() / (RAND_MAX + 1.0);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* Coverage of the gain row's 95 % CI in A/A comparisons of R runs a side,
 * each run's gain moved by a run-to-run part drawn per run: sd 4 points
 * (normal), or the same plus, in one run of ten, a jump of 20 points (as
 * order 9 jumped on a VM). The fraction of CIs that hold 0 (the truth). */
static double runs_coverage(int nruns, double jump_p, int sims)
{
	static struct gain_side a, b;
	struct compare_opts o = COMPARE_OPTS_DEFAULT;
	const char *metric = "ns_per_access";
	double off_a[GT_MAX_RUNS], off_b[GT_MAX_RUNS];
	int i, r, covered = 0;

	o.metrics = &metric;
	o.nr_metrics = 1;
	o.bootstrap_iters = 20; /* the absolute rows are not looked at */
	for (i = 0; i < sims; i++) {
		struct compare_input in[2];
		struct compare_report rep;

		srand(1000u + (unsigned)i);
		for (r = 0; r < nruns; r++) {
			off_a[r] = 4 * normal_draw() + (rand() < jump_p * RAND_MAX ? 20 : 0);
			off_b[r] = 4 * normal_draw() + (rand() < jump_p * RAND_MAX ? 20 : 0);
		}
		gain_side_n(&a, nruns, "a", 80.0, off_a, 7u * (unsigned)i + 1);
		gain_side_n(&b, nruns, "b", 80.0, off_b, 7u * (unsigned)i + 4);
		in[0] = a.in;
		in[1] = b.in;
		if (compare_build(in, 2, &o, &rep) || rep.nr_gains != 1) {
			compare_report_free(&rep);
			return NAN;
		}
		covered += rep.gains[0].ci_lo <= 0 && rep.gains[0].ci_hi >= 0;
		compare_report_free(&rep);
	}
	return (double)covered / sims;
}

/* The coverage figures for sides of several runs (doc/compare.md, "Several
 * runs a side"): normal run-to-run parts keep 95 %; jumps cost some. */
TEST(runs_a_side_coverage)
{
	double c3 = runs_coverage(3, 0, 1000), c5 = runs_coverage(5, 0, 1000);
	double j3 = runs_coverage(3, 0.1, 1000);

	printf("  runs a side 3, normal: coverage %5.1f %%\n", 100 * c3);
	printf("  runs a side 5, normal: coverage %5.1f %%\n", 100 * c5);
	printf("  runs a side 3, normal + 20-point jumps in 10 %% of runs: coverage %5.1f %%\n",
	       100 * j3);
	EXPECT_TRUE(c3 > 0.93 && c3 < 0.975);
	EXPECT_TRUE(c5 > 0.93 && c5 < 0.975);
	EXPECT_TRUE(j3 > 0.90);
}

TEST(speedup_is_better)
{
	struct loaded l;
	struct compare_report r;
	size_t i;

	compare_fixtures(&l, &r, "slow20", "base", NULL);
	for (i = 0; i < r.nr_rows; i++) {
		EXPECT_EQ(r.rows[i].verdict, COMPARE_BETTER);
		EXPECT_NEAR(r.rows[i].delta_pct, -16.7, 3.0);
	}
	/* the gains are alike (the fixture's order 3 drew a gain 1.2 points
	 * larger in slow20, within the run-to-run spread): nothing gates */
	EXPECT_EQ(compare_count_regressions(&r, 0.0, NULL), 0);
	compare_report_free(&r);
}

TEST(noise_1pct_nothing_flagged)
{
	struct loaded l;
	struct compare_report r;
	size_t i;

	compare_fixtures(&l, &r, "base", "noise", NULL);
	EXPECT_TRUE(r.comparable);
	EXPECT_EQ(r.nr_rows, 18);
	for (i = 0; i < r.nr_rows; i++) {
		EXPECT_TRUE(!r.rows[i].significant);
		EXPECT_EQ(r.rows[i].verdict, COMPARE_SAME);
		EXPECT_NEAR(r.rows[i].delta_pct, 0.0, 2.0);
	}
	EXPECT_EQ(compare_count_regressions(&r, 0.0, NULL), 0);
	compare_report_free(&r);
}

TEST(metric_option_narrows_rows)
{
	struct loaded l;
	struct compare_report r;
	const char *m[] = { "page_faults" };
	struct compare_opts o = COMPARE_OPTS_DEFAULT;
	size_t i;

	o.metrics = m;
	o.nr_metrics = 1;
	compare_fixtures(&l, &r, "base", "slow20", &o);
	EXPECT_EQ(r.nr_rows, 9);
	for (i = 0; i < r.nr_rows; i++)
		EXPECT_STREQ(r.rows[i].metric, "page_faults");
	compare_report_free(&r);
}

TEST(unknown_metric_is_an_error)
{
	struct loaded l;
	struct compare_report r;
	const char *names[] = { "base", "noise" };
	const char *m[] = { "walks" };
	struct compare_opts o = COMPARE_OPTS_DEFAULT;

	o.metrics = m;
	o.nr_metrics = 1;
	load_fixtures(&l, names, 2);
	EXPECT_EQ(compare_build(l.in, 2, &o, &r), -EINVAL);
	EXPECT_TRUE(strstr(r.error, "walks") != NULL);
	compare_report_free(&r);
}

TEST(metric_absent_from_one_side_warns)
{
	struct loaded l;
	struct compare_report r;
	size_t i;

	compare_fixtures(&l, &r, "base", "nometric", NULL);
	EXPECT_TRUE(has_warning(&r, "page_faults", "not in compare-nometric"));
	EXPECT_EQ(r.nr_rows, 9);
	for (i = 0; i < r.nr_rows; i++)
		EXPECT_STREQ(r.rows[i].metric, "ns_per_access");
	compare_report_free(&r);
}

/* A metric counted with other events on the other side (an Intel store
 * pattern's walks from DTLB_LOAD_MISSES in an old file, DTLB_STORE_MISSES
 * in a new one) is said, once, and the sides are not comparable; the same
 * events say nothing. Old files read as before: the event is per metric. */
TEST(metric_counted_with_other_events_warns)
{
	const char *names[] = { "base", "base" };
	struct compare_report r;
	struct loaded l;
	size_t i, j, warned = 0;

	load_fixtures(&l, names, 2);
	ASSERT_EQ(compare_build(l.in, 2, NULL, &r), 0);
	EXPECT_TRUE(!has_warning(&r, "different events", NULL));
	compare_report_free(&r);
	for (i = 0; i < l.res[1]->nr_trials; i++)
		for (j = 0; j < l.res[1]->trials[i].nr_metrics; j++) {
			struct results_metric *m = &l.res[1]->trials[i].metrics[j];

			if (!strcmp(m->name, "page_faults"))
				snprintf(m->event, sizeof(m->event), "minor-faults");
		}
	ASSERT_EQ(compare_build(l.in, 2, NULL, &r), 0);
	EXPECT_TRUE(has_warning(&r, "page_faults of pattern chase-tlb counts different events",
				"page-faults in compare-base, minor-faults in compare-base"));
	for (i = 0; i < r.nr_warnings; i++)
		warned += strstr(r.warnings[i], "different events") != NULL;
	EXPECT_EQ(warned, 1);
	EXPECT_TRUE(!r.comparable);
	compare_report_free(&r);
	/* --metric ns_per_access: no page_faults rows, so nothing to warn of
	 * (it warned, and the pair was not comparable) */
	{
		struct compare_opts o = COMPARE_OPTS_DEFAULT;
		const char *metric = "ns_per_access";

		o.metrics = &metric;
		o.nr_metrics = 1;
		ASSERT_EQ(compare_build(l.in, 2, &o, &r), 0);
		EXPECT_TRUE(!has_warning(&r, "different events", NULL));
		EXPECT_TRUE(r.comparable);
		compare_report_free(&r);
	}
}

TEST(no_overlapping_orders_is_an_error)
{
	struct loaded l;
	struct compare_report r;
	const char *names[] = { "lo", "hi" };

	load_fixtures(&l, names, 2);
	EXPECT_EQ(compare_build(l.in, 2, NULL, &r), -ENODATA);
	EXPECT_TRUE(strstr(r.error, "no order") != NULL);
	EXPECT_TRUE(strstr(r.error, "orders 0, 2, 3, 4") != NULL);
	EXPECT_TRUE(strstr(r.error, "orders 5, 6, 7, 8, 9") != NULL);
	compare_report_free(&r);
}

TEST(partial_overlap_warns_and_compares_the_rest)
{
	struct loaded l;
	struct compare_report r;

	compare_fixtures(&l, &r, "base", "hi", NULL);
	EXPECT_TRUE(!r.comparable);
	EXPECT_TRUE(has_warning(&r, "orders 0, 2, 3, 4 are in compare-base only", NULL));
	EXPECT_EQ(r.nr_rows, 10); /* orders 5-9, two metrics */
	compare_report_free(&r);
}

TEST(host_and_settings_differences_warn)
{
	struct loaded l;
	struct compare_report r;

	compare_fixtures(&l, &r, "base", "otherhost", NULL);
	EXPECT_TRUE(!r.comparable);
	EXPECT_TRUE(has_warning(&r, "CPU model differs", "AMD EPYC"));
	EXPECT_TRUE(has_warning(&r, "virtualization differs", "bare metal"));
	EXPECT_TRUE(has_warning(&r, "PMU differs", NULL));
	EXPECT_TRUE(has_warning(&r, "hugepages-64kB/enabled", "always"));
	EXPECT_EQ(r.nr_rows, 18);
	compare_report_free(&r);
}

TEST(fewer_than_two_inputs)
{
	struct loaded l;
	struct compare_report r;
	const char *names[] = { "base" };

	load_fixtures(&l, names, 1);
	EXPECT_EQ(compare_build(l.in, 1, NULL, &r), -EINVAL);
	EXPECT_TRUE(r.error[0] != '\0');
	compare_report_free(&r);
}

/* ---- hand-built inputs: edge cases the fixtures do not reach ---------- */

static struct compare_input input(const char *label, const struct compare_series *s, size_t n)
{
	return (struct compare_input){ .label = label, .kernel = label, .virtualized = -1,
				       .pmu_available = -1, .series = s, .nr_series = n };
}

TEST(directions_and_degenerate_samples)
{
	static const double a5[] = { 10, 11, 12, 13, 14, 10, 11, 12, 13, 14 };
	static const double b5[] = { 20, 21, 22, 23, 24, 20, 21, 22, 23, 24 };
	static const double zero[] = { 0, 0, 0, 0 }, one[] = { 5 };
	const struct compare_series sa[] = {
		{ "p", 0, 4096, "coalesced_hits", a5, 10 }, /* no direction: "changed" */
		{ "p", 0, 4096, "mystery_higher", a5, 10 },
		{ "p", 0, 4096, "walks", zero, 4 },          /* a == 0: no delta */
		{ "p", 0, 4096, "cycles", one, 1 },          /* n == 1: no p-value */
	};
	const struct compare_series sb[] = {
		{ "p", 0, 4096, "coalesced_hits", b5, 10 },
		{ "p", 0, 4096, "mystery_higher", b5, 10 },
		{ "p", 0, 4096, "walks", a5, 10 },
		{ "p", 0, 4096, "cycles", one, 1 },
	};
	struct compare_input in[2] = { input("a", sa, 4), input("b", sb, 4) };
	struct compare_report r;
	size_t i;
	FILE *f;
	char *buf = NULL;
	size_t len = 0;

	ASSERT_EQ(compare_build(in, 2, NULL, &r), 0);
	ASSERT_EQ(r.nr_rows, 4);
	for (i = 0; i < r.nr_rows; i++) {
		const struct compare_row *w = &r.rows[i];

		if (!strcmp(w->metric, "coalesced_hits")) {
			EXPECT_EQ(w->verdict, COMPARE_CHANGED);
			EXPECT_TRUE(w->significant);
		} else if (!strcmp(w->metric, "mystery_higher")) {
			EXPECT_EQ(w->dir, COMPARE_DIR_NONE);
		} else if (!strcmp(w->metric, "walks")) {
			EXPECT_TRUE(isnan(w->delta_pct));
			EXPECT_TRUE(isnan(w->ci_lo));
		} else {
			EXPECT_STREQ(w->metric, "cycles");
			EXPECT_TRUE(isnan(w->p_value));
			EXPECT_TRUE(!w->significant);
			EXPECT_NEAR(w->delta_pct, 0.0, 1e-12);
		}
	}
	EXPECT_EQ(compare_count_regressions(&r, 0.0, NULL), 0);
	/* Every format copes with the NaNs; JSON has null, never NaN. */
	for (i = 0; i < 4; i++) {
		f = open_memstream(&buf, &len);
		ASSERT_TRUE(f != NULL);
		EXPECT_EQ(report_compare_write(&r, (enum compare_format)i, f), 0);
		fclose(f);
		EXPECT_TRUE(len > 0);
		EXPECT_TRUE(strstr(buf, "nan") == NULL);
		free(buf);
		buf = NULL;
	}
	compare_report_free(&r);
}

/* Equal medians, yet the rank test sees B shift down (p 0.0100 on its own,
 * exact with the ties): the verdict follows the shift, by U, not the medians' zero delta
 * (which called every such lower-is-better row "worse"). */
TEST(tied_medians_take_the_shift_from_u)
{
	static const double a[] = { 5, 5, 5, 5, 5, 5, 9, 9, 9, 9 };
	static const double b[] = { 1, 1, 1, 1, 5, 5, 5, 5, 5, 5 };
	const struct compare_series sa[] = { { "p", 0, 4096, "page_faults", a, 10 },
					     { "p", 0, 4096, "instructions", a, 10 } };
	const struct compare_series sb[] = { { "p", 0, 4096, "page_faults", b, 10 },
					     { "p", 0, 4096, "instructions", b, 10 } };
	struct compare_input in[2] = { input("a", sa, 2), input("b", sb, 2) };
	struct compare_report r;
	size_t i;

	ASSERT_EQ(compare_build(in, 2, NULL, &r), 0);
	ASSERT_EQ(r.nr_rows, 2);
	for (i = 0; i < r.nr_rows; i++) {
		const struct compare_row *w = &r.rows[i];

		EXPECT_NEAR(w->delta_pct, 0.0, 0);
		EXPECT_TRUE(w->significant);
		EXPECT_TRUE(w->u > 50.0); /* A's values lie above B's */
		/* lower is better: B is better; no direction: changed */
		EXPECT_EQ(w->verdict, (w->dir == COMPARE_DIR_LOWER ? COMPARE_BETTER : COMPARE_CHANGED));
	}
	EXPECT_EQ(compare_count_regressions(&r, 0.0, NULL), 0);
	compare_report_free(&r);
}

/* A workload's own metric (run --metric NAME=RE --better higher): the
 * registry does not know it, so its direction is the one the file declares;
 * a registered name keeps the registry's whatever the file says. */
TEST(workload_metric_takes_its_declared_direction)
{
	static const double a[] = { 100, 101, 102, 103, 104, 100, 101, 102, 103, 104 };
	static const double b[] = { 80, 81, 82, 83, 84, 80, 81, 82, 83, 84 };
	const struct compare_series sa[] = {
		{ "command", 0, 0, "ops", a, 10, "workload", NULL, NULL, COMPARE_DIR_HIGHER },
		{ "command", 0, 0, "lat", a, 10, "workload", NULL, NULL, COMPARE_DIR_LOWER },
		{ "command", 0, 0, "instructions", a, 10, "workload", NULL, NULL, COMPARE_DIR_HIGHER },
	};
	const struct compare_series sb[] = {
		{ "command", 0, 0, "ops", b, 10, "workload", NULL, NULL, COMPARE_DIR_HIGHER },
		{ "command", 0, 0, "lat", b, 10, "workload", NULL, NULL, COMPARE_DIR_LOWER },
		{ "command", 0, 0, "instructions", b, 10, "workload", NULL, NULL, COMPARE_DIR_HIGHER },
	};
	struct compare_input in[2] = { input("a", sa, 3), input("b", sb, 3) };
	struct compare_report r;
	size_t i;

	ASSERT_EQ(compare_build(in, 2, NULL, &r), 0);
	ASSERT_EQ(r.nr_rows, 3);
	for (i = 0; i < r.nr_rows; i++) {
		const struct compare_row *w = &r.rows[i];

		if (!strcmp(w->metric, "ops"))
			EXPECT_EQ(w->verdict, COMPARE_WORSE);
		else if (!strcmp(w->metric, "lat"))
			EXPECT_EQ(w->verdict, COMPARE_BETTER);
		else
			EXPECT_EQ(w->verdict, COMPARE_CHANGED);
	}
	/* ops fell 20 %: a regression over a 10 % threshold */
	EXPECT_EQ(compare_count_regressions(&r, 10.0, NULL), 1);
	compare_report_free(&r);
}

/* The translation model's metrics (source "model") compare like any other:
 * lower is better, so a kernel whose layout needs more entries is worse. */
TEST(model_metrics_compare)
{
	static const double e1k[] = { 1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024 };
	static const double e4k[] = { 4096, 4096, 4096, 4096, 4096, 4097, 4096, 4096, 4096, 4096 };
	static const double m0[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const double m25[] = { .25, .25, .25, .25, .25, .25, .25, .25, .25, .25 };
	const struct compare_series sa[] = {
		{ "p", 4, 1 << 26, "tlb_entries_l2", e1k, 10 },
		{ "p", 4, 1 << 26, "tlb_miss_ratio_model", m25, 10 },
	};
	const struct compare_series sb[] = {
		{ "p", 4, 1 << 26, "tlb_entries_l2", e4k, 10 },
		{ "p", 4, 1 << 26, "tlb_miss_ratio_model", m0, 10 },
	};
	struct compare_input in[2] = { input("a", sa, 2), input("b", sb, 2) };
	struct compare_report r;
	size_t i;

	EXPECT_EQ(compare_metric_dir("tlb_entries_l1"), COMPARE_DIR_LOWER);
	EXPECT_EQ(compare_metric_dir("tlb_entries_l2"), COMPARE_DIR_LOWER);
	EXPECT_EQ(compare_metric_dir("tlb_miss_ratio_model"), COMPARE_DIR_LOWER);
	ASSERT_EQ(compare_build(in, 2, NULL, &r), 0);
	ASSERT_EQ(r.nr_rows, 2);
	for (i = 0; i < r.nr_rows; i++) {
		const struct compare_row *w = &r.rows[i];

		EXPECT_EQ(w->dir, COMPARE_DIR_LOWER);
		EXPECT_TRUE(w->significant);
		if (!strcmp(w->metric, "tlb_entries_l2")) {
			EXPECT_EQ(w->verdict, COMPARE_WORSE);
			EXPECT_NEAR(w->delta_pct, 300.0, 1e-9);
		} else {
			EXPECT_STREQ(w->metric, "tlb_miss_ratio_model");
			EXPECT_EQ(w->verdict, COMPARE_BETTER);
		}
	}
	compare_report_free(&r);
}

/* Five repetitions over nine orders: Holm can never reach 0.05, and the
 * report says so instead of silently calling every row "same". */
TEST(too_few_reps_warns)
{
	static const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 11, 12, 13, 14, 15 };
	struct compare_series sa[9], sb[9];
	struct compare_input in[2];
	struct compare_report r;
	int o;

	for (o = 0; o < 9; o++) {
		sa[o] = (struct compare_series){ "p", o, 4096, "ns_per_access", a, 5 };
		sb[o] = (struct compare_series){ "p", o, 4096, "ns_per_access", b, 5 };
	}
	in[0] = input("a", sa, 9);
	in[1] = input("b", sb, 9);
	ASSERT_EQ(compare_build(in, 2, NULL, &r), 0);
	EXPECT_TRUE(has_warning(&r, "smallest possible Mann-Whitney p-value", "--reps"));
	EXPECT_EQ(compare_count_regressions(&r, 0.0, NULL), 0);
	/* a +200 % change the test cannot call significant is not "same" */
	for (size_t i = 0; i < r.nr_rows; i++) {
		EXPECT_EQ(r.rows[i].verdict, COMPARE_UNCLEAR);
		EXPECT_TRUE(!strcmp(compare_verdict_name(r.rows[i].verdict),
				    "unclear (too few reps)"));
	}
	compare_report_free(&r);
}

/* Three reps each, one metric: +84 % is still "unclear", as no rank test on
 * 3 + 3 values reaches 0.05 (issue 23). */
TEST(three_reps_unclear_not_same)
{
	static const double a[] = { 100, 101, 102 }, b[] = { 184, 186, 152 };
	struct compare_series sa[1] = { { "p", 0, 4096, "ns_per_access", a, 3 } };
	struct compare_series sb[1] = { { "p", 0, 4096, "ns_per_access", b, 3 } };
	struct compare_input in[2] = { input("a", sa, 1), input("b", sb, 1) };
	struct compare_report r;

	ASSERT_EQ(compare_build(in, 2, NULL, &r), 0);
	ASSERT_EQ(r.nr_rows, 1);
	EXPECT_EQ(r.rows[0].verdict, COMPARE_UNCLEAR);
	compare_report_free(&r);
}

/*
 * Four reps a side, each side's page faults the same in every rep (t4a.json
 * against t4b.json of the review): no 4 vs 4 split has p below 2/70, so
 * after Holm over the two rows nothing is significant, as the warning says.
 * The normal approximation of ties gave both rows p = 0.0131 (Holm 0.0262),
 * "worse", next to that warning.
 */
TEST(tied_reps_agree_with_the_warning)
{
	static const double a0[] = { 65536, 65536, 65536, 65536 };
	static const double b0[] = { 65600, 65600, 65600, 65600 };
	static const double a2[] = { 16384, 16384, 16384, 16384 };
	static const double b2[] = { 16400, 16400, 16400, 16400 };
	const struct compare_series sa[] = { { "p", 0, 4096, "page_faults", a0, 4 },
					     { "p", 2, 4096, "page_faults", a2, 4 } };
	const struct compare_series sb[] = { { "p", 0, 4096, "page_faults", b0, 4 },
					     { "p", 2, 4096, "page_faults", b2, 4 } };
	struct compare_input in[2] = { input("a", sa, 2), input("b", sb, 2) };
	struct compare_report r;
	size_t i;

	ASSERT_EQ(compare_build(in, 2, NULL, &r), 0);
	ASSERT_EQ(r.nr_rows, 2);
	EXPECT_TRUE(has_warning(&r, "smallest possible Mann-Whitney p-value is 0.0286", NULL));
	for (i = 0; i < r.nr_rows; i++) {
		EXPECT_NEAR(r.rows[i].p_value, 2.0 / 70, 1e-12);
		EXPECT_TRUE(!r.rows[i].significant);
		EXPECT_EQ(r.rows[i].verdict, COMPARE_UNCLEAR);
	}
	compare_report_free(&r);
}

/*
 * Rows of different sizes in one pair: the warning's floor is the smallest
 * of the rows' own. Both rows have 10 values; the first, 2 against 8 (trials
 * left out), can reach no lower than 2/45, the second, 5 against 5, 2/252.
 * Taking the first row's floor (the first of the largest) said no change
 * could be significant while the second row was (Holm p 0.0159).
 */
TEST(warning_floor_is_the_smallest_of_the_rows)
{
	static const double a2[] = { 13.5, 16.5 }, b8[] = { 11, 12, 13, 14, 15, 16, 17, 18 };
	static const double a5[] = { 1, 2, 3, 4, 5 }, b5[] = { 11, 12, 13, 14, 15 };
	const struct compare_series sa[] = { { "p", 0, 4096, "ns_per_access", a2, 2 },
					     { "p", 2, 4096, "ns_per_access", a5, 5 } };
	const struct compare_series sb[] = { { "p", 0, 4096, "ns_per_access", b8, 8 },
					     { "p", 2, 4096, "ns_per_access", b5, 5 } };
	struct compare_input in[2] = { input("a", sa, 2), input("b", sb, 2) };
	struct compare_report r;

	ASSERT_EQ(compare_build(in, 2, NULL, &r), 0);
	ASSERT_EQ(r.nr_rows, 2);
	EXPECT_TRUE(r.rows[1].significant);
	EXPECT_EQ(r.rows[1].verdict, COMPARE_WORSE);
	EXPECT_TRUE(!has_warning(&r, "smallest possible Mann-Whitney p-value", NULL));
	EXPECT_EQ(r.rows[0].verdict, COMPARE_SAME);
	compare_report_free(&r);
}

/* Trials left out: a failed command's (trial 0 of command_higher.json,
 * coverage 1.0) is counted as failed, a low-coverage one as dropped; the
 * failed one was counted as dropped, and compare called it low coverage.
 * A command's coverage is a gate only near zero (program.h): 5 %, not the
 * 50 % a micro-benchmark's trial would be dropped at. */
TEST(failed_trials_counted_apart)
{
	const char *src = getenv("MTHPSCOPE_SRC");
	struct results *res;
	struct compare_input in;
	char path[4096], err[512];

	if (!src)
		SKIP("MTHPSCOPE_SRC is not set (run under ctest)");
	snprintf(path, sizeof(path), "%s/tests/data/command_higher.json", src);
	ASSERT_EQ(results_load(path, &res, err, sizeof(err)), 0);
	res->trials[0].flags |= RESULTS_F_FAILED;
	res->trials[1].coverage = 0.05;
	/* timed out alone (an edited file; run sets both): analyze leaves it
	 * out, and compare kept it in its statistics */
	res->trials[2].flags |= RESULTS_F_TIMEOUT;
	ASSERT_EQ(compare_input_from_results(res, "failed", &in), 0);
	EXPECT_EQ(in.nr_failed, 2);
	EXPECT_EQ(in.nr_dropped, 1);
	compare_input_free(&in);
	results_free(res);
}

TEST(json_schema)
{
	struct loaded l;
	struct compare_report r;
	json_t *doc, *row;
	size_t i;
	const char *keys[] = { "order", "metric", "a", "b", "delta_pct", "ci", "p_value",
			       "significant" };

	compare_fixtures(&l, &r, "base", "slow20", NULL);
	doc = report_compare_json(&r);
	ASSERT_TRUE(doc != NULL);
	EXPECT_STREQ(json_string_value(json_object_get(doc, "schema")), "mthpscope.compare/1");
	EXPECT_TRUE(json_is_true(json_object_get(doc, "comparable")));
	EXPECT_TRUE(json_is_array(json_object_get(doc, "warnings")));
	EXPECT_EQ(json_array_size(json_object_get(doc, "rows")), 18);
	row = json_array_get(json_object_get(doc, "rows"), 0);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		EXPECT_TRUE(json_object_get(row, keys[i]) != NULL);
	EXPECT_EQ(json_array_size(json_object_get(row, "ci")), 2);
	EXPECT_TRUE(json_is_true(json_object_get(row, "significant")));
	EXPECT_NEAR(json_real_value(json_object_get(row, "delta_pct")),
		    100.0 * (json_real_value(json_object_get(row, "b")) -
			     json_real_value(json_object_get(row, "a"))) /
			    json_real_value(json_object_get(row, "a")),
		    1e-9);
	json_decref(doc);
	compare_report_free(&r);
}

/* The lkml table is what people paste into a cover letter: both kernel
 * names in the header, and byte for byte stable (golden file). */
TEST(lkml_table_is_stable)
{
	struct loaded l;
	struct compare_report r;
	const char *src = getenv("MTHPSCOPE_SRC");
	char path[4096], *buf = NULL, golden[16384];
	size_t len = 0, glen;
	FILE *f;

	compare_fixtures(&l, &r, "base", "slow20", NULL);
	f = open_memstream(&buf, &len);
	ASSERT_TRUE(f != NULL);
	EXPECT_EQ(report_compare_write(&r, COMPARE_FMT_LKML, f), 0);
	fclose(f);
	EXPECT_TRUE(strstr(buf, "6.18.0-base") != NULL);
	EXPECT_TRUE(strstr(buf, "6.18.0-slow") != NULL);
	EXPECT_TRUE(strstr(buf, "*") != NULL);
	snprintf(path, sizeof(path), "%s/tests/data/compare-lkml.golden", src ? src : ".");
	f = fopen(path, "r");
	ASSERT_TRUE(f != NULL);
	glen = fread(golden, 1, sizeof(golden) - 1, f);
	fclose(f);
	golden[glen] = '\0';
	if (strcmp(buf, golden))
		FAIL_AT("lkml output differs from %s:\n%s", path, buf);
	free(buf);
	compare_report_free(&r);
}

HARNESS_MAIN
