// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * run --precision's sequential rule (src/analysis/precision.h): the look
 * schedule, the number of looks, the level and the width, with exact
 * values; $.precision written and read back; and the simulation behind the
 * coverage figures of doc/run.md ("Precision on demand").
 *
 * The simulation: paired log ratios of one order against order 0 with the
 * structure measured in data/vm-amd-epyc-6.18/stability/after (30 files
 * each, 9 rounds a rep): round-to-round scatter sd_w with heavy tails (one
 * round in 20 at 3x), a rep effect sd_b that drifts from rep to rep (AR(1),
 * lag-one autocorrelation phi of the rep means):
 *   independent reps: quiet without the drift (phi 0), where the CI is right
 *   quiet   sd_w 0.14, sd_b 0.04, phi 0.15  (unloaded: w 0.12-0.16, b 0.00-0.06)
 *   loaded  sd_w 0.13, sd_b 0.06, phi 0.30  (stress-ng --cpu 1: w 0.11-0.21,
 *                                            b 0.03-0.12, phi up to 0.5)
 *   busy    sd_w 0.29, sd_b 0.14, phi 0.70  (stress-ng and three builds:
 *                                            the worst file, results-1)
 * Each simulated run's CI is the one the paired bootstrap approximates:
 * the mean of the rep means +/- z * sd / sqrt(n) (sd with divisor n, as a
 * bootstrap's spread is), widened as ANALYZE_CI_METHOD widens it (t on
 * n - 1 df: stats.h, issue 39). Three ways to stop, 4000 runs
 * each, a fixed seed:
 *   fixed:  the default run, 30 reps, one 95 % CI;
 *   naive:  a 95 % CI after every rep from the third, stop when within P;
 *   naive at the rule's looks: the same, looking only at 10, 15, 23, ... reps;
 *   rule:   precision.h (looks at 10, 15, 23, ... reps, K from a budget of
 *           300 s at 1.5 s a rep, level 1 - 0.05 / K), stop when within P
 *           or at the budget.
 * Coverage: the share of runs whose final CI holds the true mean log ratio.
 * MTHPSCOPE_PRECISION_SIMS=N runs N per scenario instead.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "json_read.h"
#include "precision.h"
#include "results.h"
#include "stats.h"

TEST(look_schedule_exact)
{
	static const int want[] = { 10, 15, 23, 35, 53, 80, 120, 180, 270, 405 };

	for (int j = 0; j < 10; j++)
		EXPECT_EQ(precision_look_reps(j + 1), want[j]);
}

TEST(planned_looks_exact)
{
	/* 15 s for the first 10 reps at 1.5 s: 190 more fit in 300 s, 200 in
	 * all: looks at 10 ... 180 (8) and the one at the stop */
	EXPECT_EQ(precision_plan_looks(15, 1.5, 300, 1000), 9);
	/* 10 s a rep, 100 s spent: 20 more, 30 in all: 10, 15, 23 */
	EXPECT_EQ(precision_plan_looks(100, 10, 300, 1000), 4);
	/* the budget already spent: the look at 10 and the one at the stop */
	EXPECT_EQ(precision_plan_looks(400, 10, 300, 1000), 2);
	/* the plan's most reps bound it: 10, 15, 23, 35 of 50 */
	EXPECT_EQ(precision_plan_looks(15, 0.01, 300, 50), 5);
	/* exactly on a look: 35 reps fit, the look at 35 is planned */
	EXPECT_EQ(precision_plan_looks(10, 1, 35, 1000), 5);
}

TEST(level_and_iters_exact)
{
	EXPECT_NEAR(precision_level(1), 0.95, 1e-15);
	EXPECT_NEAR(precision_level(0), 0.95, 1e-15);
	EXPECT_NEAR(precision_level(9), 1 - 0.05 / 9, 1e-15);
	EXPECT_NEAR(precision_level(5), 0.99, 1e-15);
	EXPECT_EQ(precision_iters(0.95), ANALYZE_BOOT_ITERS);
	/* 25 replicates in a tail of 0.005: 5000 */
	EXPECT_NEAR(precision_iters(0.99), 5000, 1);
	EXPECT_NEAR(precision_iters(1 - 0.05 / 9), 9000, 1);
}

static void set_gain(struct analysis *a, int k, double v, double lo, double hi)
{
	a->orders[k].gain = (struct analyze_change){ v, lo, hi };
	a->orders[k].primary.n = 10;
}

TEST(width_of_the_verdict_or_every_order)
{
	static struct analysis a;
	double half;
	int order;

	for (int k = 0; k < ANALYZE_NR_ORDERS; k++)
		a.orders[k].gain = (struct analyze_change){ NAN, NAN, NAN };
	a.orders[0].primary.n = 10;
	set_gain(&a, 2, 0.01, -0.02, 0.03);  /* half 0.03 */
	set_gain(&a, 4, 0.20, 0.15, 0.28);   /* half 0.08 (the upper side) */
	set_gain(&a, 9, 0.30, 0.20, 0.35);   /* half 0.10 (the lower side) */
	a.min_order = 4;
	a.candidate_order = -1;
	ASSERT_EQ(precision_width(&a, false, &half, &order), 0);
	EXPECT_EQ(order, 4);
	EXPECT_NEAR(half, 0.08, 1e-12);
	/* every order: the widest */
	ASSERT_EQ(precision_width(&a, true, &half, &order), 0);
	EXPECT_EQ(order, 9);
	EXPECT_NEAR(half, 0.10, 1e-12);
	/* an inconclusive verdict leaning to order 2 */
	a.min_order = -1;
	a.candidate_order = 2;
	ASSERT_EQ(precision_width(&a, false, &half, &order), 0);
	EXPECT_EQ(order, 2);
	EXPECT_NEAR(half, 0.03, 1e-12);
	/* no order named ("no gain"): every order */
	a.candidate_order = -1;
	ASSERT_EQ(precision_width(&a, false, &half, &order), 0);
	EXPECT_EQ(order, 9);
	/* the verdict's order without a CI: not reached, whatever the others */
	a.min_order = 4;
	a.orders[4].gain.lo = NAN;
	EXPECT_EQ(precision_width(&a, false, &half, &order), -ENODATA);
	EXPECT_TRUE(isnan(half));
}

TEST(precision_object_round_trip)
{
	struct results_precision p = { .target = 0.03, .all = true, .max_time_s = 300,
				       .reached = false, .stop = RESULTS_PREC_MAX_TIME,
				       .half_width = 0.0412, .level = 1 - 0.05 / 7, .order = 9,
				       .looks = 7, .planned_looks = 7, .reps = 123,
				       .rounds = 1107, .elapsed_s = 298.5 };
	struct results_precision q;
	char err[256] = "";
	struct rd rd = { NULL, err, sizeof(err), false };
	json_t *j = results_precision_json(&p);

	ASSERT_TRUE(j != NULL);
	EXPECT_STREQ(json_string_value(json_object_get(j, "stop")), "max-time");
	EXPECT_STREQ(json_string_value(json_object_get(j, "rule")), "bonferroni-over-looks");
	EXPECT_NEAR(json_real_value(json_object_get(j, "half_width_points")), 4.12, 1e-12);
	ASSERT_EQ(results_precision_read(&rd, j, "$.precision", &q), 0);
	EXPECT_NEAR(q.target, 0.03, 1e-15);
	EXPECT_TRUE(q.all);
	EXPECT_TRUE(!q.reached);
	EXPECT_EQ(q.stop, RESULTS_PREC_MAX_TIME);
	EXPECT_NEAR(q.half_width, 0.0412, 1e-15);
	EXPECT_NEAR(q.level, p.level, 1e-15);
	EXPECT_EQ(q.order, 9);
	EXPECT_EQ(q.looks, 7);
	EXPECT_EQ(q.planned_looks, 7);
	EXPECT_EQ(q.reps, 123);
	EXPECT_EQ(q.rounds, 1107);
	EXPECT_NEAR(q.elapsed_s, 298.5, 1e-12);
	/* no CI at all: null, read back as NaN */
	p.half_width = NAN;
	json_decref(j);
	j = results_precision_json(&p);
	EXPECT_TRUE(json_is_null(json_object_get(j, "half_width_points")));
	ASSERT_EQ(results_precision_read(&rd, j, "$.precision", &q), 0);
	EXPECT_TRUE(isnan(q.half_width));
	/* a stop word it does not know, and a target of 0: refused by path */
	json_object_set_new(j, "stop", json_string("bored"));
	EXPECT_EQ(results_precision_read(&rd, j, "$.precision", &q), -EBADMSG);
	EXPECT_TRUE(strstr(err, "$.precision.stop: 'bored'") != NULL);
	json_object_set_new(j, "stop", json_string("reached"));
	json_object_set_new(j, "target_points", json_real(0));
	EXPECT_EQ(results_precision_read(&rd, j, "$.precision", &q), -EBADMSG);
	EXPECT_TRUE(strstr(err, "target_points") != NULL);
	json_decref(j);
}

/* ---- the simulation ------------------------------------------------------ */

#define SIM_ROUNDS 9
#define SIM_MAX_REPS 200 /* 300 s at 1.5 s a rep */

struct scenario {
	const char *name;
	double sd_w, sd_b, phi, target; /* target: half-width in log-ratio units */
};

static double gauss(struct stats_rng *r)
{
	double u = stats_rng_uniform(r), v = stats_rng_uniform(r);

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* z with P(|N| <= z) = level, by bisection on erfc */
static double z_of(double level)
{
	double lo = 0, hi = 10;

	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (erfc(mid / sqrt(2)) > 1 - level)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* One simulated run's rep means (heavy-tailed rounds, drifting rep effect). */
static void sim_reps(const struct scenario *s, struct stats_rng *r, double *m)
{
	/* the mixture's sd is sd_w: 0.95 + 0.05 * 9 = 1.4 */
	double a = s->sd_b * gauss(r), k = s->sd_w / sqrt(1.4);

	for (int i = 0; i < SIM_MAX_REPS; i++) {
		double sum = 0;

		a = s->phi * a + sqrt(1 - s->phi * s->phi) * s->sd_b * gauss(r);
		for (int j = 0; j < SIM_ROUNDS; j++)
			sum += k * gauss(r) * (stats_rng_uniform(r) < 0.05 ? 3 : 1);
		m[i] = a + sum / SIM_ROUNDS;
	}
}

/* The CI of the first n rep means at level: *covers, and its half-width.
 * The percentile interval of the placements (sd with divisor n), widened
 * as analyze widens it (ANALYZE_CI_METHOD: to t on n - 1 df). */
static double sim_half(const double *m, int n, double level, bool *covers)
{
	double s = 0, ss = 0, mean, sd, h;

	for (int i = 0; i < n; i++)
		s += m[i];
	mean = s / n;
	for (int i = 0; i < n; i++)
		ss += (m[i] - mean) * (m[i] - mean);
	sd = sqrt(ss / n);
	h = z_of(level) * sd / sqrt(n) * stats_cluster_ci_scale(ANALYZE_CI_METHOD, (size_t)n, level);
	*covers = fabs(mean) <= h;
	return h;
}

struct tally {
	long covered, runs, reps, reached;
};

static void tally(struct tally *t, bool covers, int n, bool reached)
{
	t->covered += covers;
	t->runs++;
	t->reps += n;
	t->reached += reached;
}

static void sim_rule(const double *m, double target, struct tally *t,
		     struct tally *t95)
{
	int k = precision_plan_looks(15, 1.5, 300, 1000), looks = 0, n = PRECISION_MIN_REPS;
	double level = precision_level(k), half;
	bool covers, c95;

	for (int j = 1;; j++) {
		n = precision_look_reps(j);
		if (n > SIM_MAX_REPS || looks >= k - 1) {
			n = SIM_MAX_REPS; /* the look at the stop */
			break;
		}
		looks++;
		if (sim_half(m, n, level, &covers) <= target)
			break;
	}
	half = sim_half(m, n, level, &covers);
	sim_half(m, n, 0.95, &c95);
	tally(t, covers, n, half <= target);
	tally(t95, c95, n, half <= target);
}

/* the rule's looks, each at 95 % */
static void sim_naive_looks(const double *m, double target, struct tally *t)
{
	bool covers = false;
	double half = INFINITY;
	int n = SIM_MAX_REPS;

	for (int j = 1; precision_look_reps(j) <= SIM_MAX_REPS; j++)
		if ((half = sim_half(m, n = precision_look_reps(j), 0.95, &covers)) <= target)
			break;
	if (!(half <= target))
		half = sim_half(m, n = SIM_MAX_REPS, 0.95, &covers);
	tally(t, covers, n, half <= target);
}

static void sim_naive(const double *m, double target, struct tally *t)
{
	bool covers = false;
	double half = INFINITY;
	int n;

	for (n = 3; n <= SIM_MAX_REPS; n++)
		if ((half = sim_half(m, n, 0.95, &covers)) <= target)
			break;
	if (n > SIM_MAX_REPS)
		n = SIM_MAX_REPS;
	tally(t, covers, n, half <= target);
}

static void print_tally(const char *what, const struct tally *t)
{
	printf("  %-34s coverage %5.1f %%  mean reps %5.1f  reached %5.1f %%\n", what,
	       100.0 * t->covered / t->runs, (double)t->reps / t->runs,
	       100.0 * t->reached / t->runs);
}

TEST(simulated_coverage)
{
	static const struct scenario sc[] = {
		{ "independent reps, target +/-3 points", 0.14, 0.04, 0.0, 0.03 },
		{ "quiet, target +/-3 points", 0.14, 0.04, 0.15, 0.03 },
		{ "loaded, target +/-3 points", 0.13, 0.06, 0.30, 0.03 },
		{ "busy, target +/-6 points", 0.29, 0.14, 0.70, 0.06 },
	};
	const char *e = getenv("MTHPSCOPE_PRECISION_SIMS");
	long sims = e && atol(e) > 0 ? atol(e) : 4000;
	static double m[SIM_MAX_REPS];
	struct stats_rng rng;

	stats_rng_seed(&rng, 20261203);
	printf("  %ld simulated runs per scenario; nominal 95 %%\n", sims);
	for (size_t s = 0; s < sizeof(sc) / sizeof(sc[0]); s++) {
		struct tally fixed = { 0 }, naive = { 0 }, looks = { 0 }, rule = { 0 };
		struct tally rule95 = { 0 };
		bool covers;

		for (long i = 0; i < sims; i++) {
			sim_reps(&sc[s], &rng, m);
			sim_half(m, 30, 0.95, &covers);
			tally(&fixed, covers, 30, false);
			sim_naive(m, sc[s].target, &naive);
			sim_naive_looks(m, sc[s].target, &looks);
			sim_rule(m, sc[s].target, &rule, &rule95);
		}
		printf(" %s (sd_w %.2f, sd_b %.2f, phi %.2f)\n", sc[s].name, sc[s].sd_w,
		       sc[s].sd_b, sc[s].phi);
		print_tally("fixed 30 reps, 95 % CI", &fixed);
		print_tally("naive: 95 % CI after every rep", &naive);
		print_tally("naive: 95 % CI at the rule's looks", &looks);
		print_tally("rule: Bonferroni over looks", &rule);
		print_tally("rule's stop, the 95 % CI (analyze)", &rule95);
		/* the rule keeps the nominal coverage where the CI itself does
		 * (reps nearly independent); the naive rule loses it */
		if (sc[s].phi < 0.5) {
			EXPECT_TRUE(rule.covered >= 0.94 * rule.runs);
			EXPECT_TRUE(naive.covered < fixed.covered);
		}
		EXPECT_TRUE(rule.covered > naive.covered);
	}
}

HARNESS_MAIN
