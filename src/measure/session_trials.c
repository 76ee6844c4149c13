// SPDX-License-Identifier: GPL-2.0-or-later
/* The loops over the run's plan: calibration, then fixed reps (sequential
 * or interleaved), a command's trials, or run --precision's reps until the
 * verdict's gain CI is narrow enough, under the sequential rule of
 * src/analysis/precision.h. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "analyze.h"
#include "mthpscope.h"
#include "precision.h"
#include "session.h"

/* One rep of the interleaved schedule: every (pattern, span), every order at
 * once, in rounds; *n counts the trials of the plan so far. */
int session_interleaved_rep(struct session *s, int rep, int *n)
{
	int p, sp, i, rounds, err, nr = (int)s->orders.nr;

	for (p = 0; p < s->nr_pats; p++) {
		for (sp = 0; sp < s->nr_spans; sp++) {
			struct bench_micro w = { .kern = s->pats[p], .pattern_index = p,
						 .span = s->spans[sp], .sparse_k = s->o.sparse_k };
			struct results_trial *t = &s->slots[2 * *n];
			struct bench_cell c = { .order = -1, .rep = rep, .pattern = p, .span = sp };

			session_progress(s, *n, &c);
			rounds = bench_rounds_for(s->accesses[p][sp], s->target_ns, nr);
			err = bench_micro_interleaved(&s->b, &w, s->orders.order, nr, rep,
						      s->accesses[p][sp], rounds, t, t + nr);
			if (err)
				return err;
			/* trial and sparse trial of each order side by side */
			for (i = 0; i < nr; i++) {
				t[i].seq = t[nr + i].seq = *n + i;
				if ((err = session_keep(s, &t[i])) ||
				    (err = session_keep(s, &t[nr + i])))
					return err;
			}
			*n += nr;
			s->nr_done = *n;
		}
	}
	return 0;
}

int session_calibrate(struct session *s)
{
	int p, sp, err;

	for (p = 0; p < s->nr_pats; p++) {
		for (sp = 0; sp < s->nr_spans; sp++) {
			struct bench_micro w = { .kern = s->pats[p], .pattern_index = p,
						 .span = s->spans[sp] };

			if ((err = bench_micro_calibrate(&s->b, &w, s->o.accesses, s->target_ns,
							 &s->accesses[p][sp])))
				return err;
		}
	}
	return 0;
}

/* A stop asked (SIGINT, SIGTERM) before the next piece of the plan. */
static bool stop_asked(struct session *s)
{
	if (s->o.interrupt && *s->o.interrupt)
		s->interrupted = true;
	return s->interrupted;
}

static int micro_trials(struct session *s)
{
	int i, err, n = 0;

	if ((err = session_calibrate(s)))
		return err;
	if (s->schedule == RESULTS_SCHED_INTERLEAVED) {
		for (i = 0; i < s->o.reps && !stop_asked(s); i++)
			if ((err = session_interleaved_rep(s, i, &n)))
				return err;
		return 0;
	}
	for (i = 0; i < s->nr_cells && !stop_asked(s); i++) {
		const struct bench_cell *c = &s->cells[i];
		struct bench_micro w = { .kern = s->pats[c->pattern], .pattern_index = c->pattern,
					 .span = s->spans[c->span], .sparse_k = s->o.sparse_k };
		struct results_trial *t = &s->slots[2 * i];

		session_progress(s, i, c);
		err = bench_micro_trial(&s->b, &w, c->order, c->rep,
					s->accesses[c->pattern][c->span], t, t + 1);
		if (err)
			return err;
		t[0].seq = t[1].seq = i;
		if ((err = session_keep(s, t)) || (err = session_keep(s, t + 1)))
			return err;
		s->nr_done = i + 1;
	}
	return 0;
}

static int command_trials(struct session *s)
{
	struct bench_command w = { .argv = s->cmd,
				   .scan_interval_ms = (unsigned)s->o.scan_interval_ms,
				   .timeout_s = s->o.timeout_s, .log_dir = s->o.log_dir,
				   .show_output = s->o.show_output, .metrics = s->o.metrics,
				   .nr_metrics = s->o.nr_metrics,
				   .stdin_path = s->o.stdin_path,
				   .wait_descendants = s->o.wait_descendants,
				   .presence = s->o.presence };
	int i, err;

	for (i = 0; i < s->nr_cells; i++) {
		const struct bench_cell *c = &s->cells[i];
		struct results_trial *t = &s->slots[2 * i];

		session_progress(s, i, c);
		if ((err = bench_command_trial(&s->b, &w, c->order, c->rep, i, t)) ||
		    (err = session_keep(s, t)))
			return err;
	}
	return 0;
}

/* ---- run --precision ------------------------------------------------------ */

/* A precision run keeps at most this many trials of the plan (its slots and
 * the model's trials are allocated up front), and at most 1000 reps. */
#define SESSION_PRECISION_MAX_CELLS 20000L
#define SESSION_PRECISION_MAX_REPS 1000L

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

long session_precision_max_reps(const struct session *s)
{
	long per_rep = (long)s->orders.nr * s->nr_pats * s->nr_spans;
	long n = per_rep > 0 ? SESSION_PRECISION_MAX_CELLS / per_rep : 0;

	if (n > SESSION_PRECISION_MAX_REPS)
		n = SESSION_PRECISION_MAX_REPS;
	return n < PRECISION_MIN_REPS ? PRECISION_MIN_REPS : n;
}

/* One look: the analysis at the level the rule gives, and its width. A
 * look that can make no CI (nothing pairs yet) leaves the width NaN. */
static int look(struct session *s)
{
	struct results_precision *p = &s->prec;
	struct analyze_opts o = { .seed = s->o.seed };
	struct analysis *a = NULL;
	char err[256];
	int rc;

	if (p->planned_looks < 1)
		p->planned_looks = 1;
	o.level = precision_level(p->planned_looks);
	o.iters = precision_iters(o.level);
	p->looks++;
	p->level = o.level;
	p->half_width = NAN;
	p->order = -1;
	p->rounds = 0;
	rc = analyze_run(s->res, &o, &a, err, sizeof(err));
	if (!rc && !precision_width(a, p->all, &p->half_width, &p->order))
		p->rounds = (long)a->orders[p->order].n_pairs;
	analyze_free(a);
	if (rc == -ENOMEM)
		return rc;
	p->reached = isfinite(p->half_width) && p->half_width <= p->target;
	p->elapsed_s = now_s() - s->prec_t0;
	return 0;
}

/* Before rep 'rep' (0-based): why to stop now, or -1 to go on. rep_s is the
 * time one rep took so far (0 before the first). */
static int stop_before(const struct session *s, long rep, long max_reps, double rep_s)
{
	if (s->o.interrupt && *s->o.interrupt)
		return RESULTS_PREC_INTERRUPTED;
	if (rep >= max_reps)
		return RESULTS_PREC_MAX_REPS;
	/* a rep that would end past the budget is not begun */
	if (rep > 0 && now_s() - s->prec_t0 + rep_s > s->o.max_time_s)
		return RESULTS_PREC_MAX_TIME;
	return -1;
}

/* config.reps and $.precision of the document and the model: what was done. */
static int record_outcome(struct session *s, long reps)
{
	json_t *config = json_object_get(s->doc, "config");

	s->prec.reps = reps;
	s->res->head.config.reps = reps;
	s->res->config_reps = reps;
	s->res->head.has_precision = true;
	s->res->head.precision = s->prec;
	if ((config && json_object_set_new(config, "reps", json_integer(reps))) ||
	    json_object_set_new(s->doc, "precision", results_precision_json(&s->prec)))
		return -ENOMEM;
	return 0;
}

int session_precision_trials(struct session *s)
{
	long rep, done = 0, max_reps = s->o.reps;
	double t1 = 0, rep_s = 0;
	int err, n = 0, why = -1;

	s->prec = (struct results_precision){ .target = s->o.precision,
					      .all = s->o.precision_all,
					      .max_time_s = s->o.max_time_s, .half_width = NAN,
					      .level = ANALYZE_LEVEL, .order = -1 };
	s->prec_next_look = 1;
	s->prec_t0 = now_s();
	if ((err = session_calibrate(s)))
		return err;
	for (rep = 0; (why = stop_before(s, rep, max_reps, rep_s)) < 0; rep++) {
		if (!rep)
			t1 = now_s();
		s->prec.reps = rep;
		s->prec.elapsed_s = now_s() - s->prec_t0;
		if ((err = session_interleaved_rep(s, (int)rep, &n)))
			return err;
		done = rep + 1;
		rep_s = (now_s() - t1) / (double)done;
		/* K is fixed before the first CI is seen: from the time alone */
		if (done == PRECISION_MIN_REPS)
			s->prec.planned_looks = precision_plan_looks(now_s() - s->prec_t0, rep_s,
								     s->o.max_time_s, max_reps);
		/* the scheduled looks; the last of the K is kept for the stop */
		if (done != precision_look_reps(s->prec_next_look) ||
		    s->prec.looks >= s->prec.planned_looks - 1)
			continue;
		s->prec_next_look++;
		if ((err = look(s)))
			return err;
		if (s->prec.reached) {
			why = RESULTS_PREC_REACHED;
			break;
		}
	}
	s->prec.stop = (enum results_precision_stop)why;
	s->prec.reps = done;
	if (why != RESULTS_PREC_REACHED && done > 0 && (err = look(s)))
		return err;
	return record_outcome(s, done);
}

/* ---- the schedule's choice ---------------------------------------------- */

int session_trials(struct session *s)
{
	int err = s->cmd ? command_trials(s) : s->o.precision > 0 ? session_precision_trials(s)
								  : micro_trials(s);

	session_progress(s, s->nr_cells, NULL);
	if (!err && s->b.placements_same)
		bench_say(&s->b, BENCH_EV_NOTE, "%d of %ld placements reused more than half of the "
			  "physical frames of the placement before them (pagemap): those did not "
			  "move, and the spread between placements may be understated",
			  s->b.placements_same, s->b.placement_next);
	if (!err && s->interrupted) {
		s->res->head.interrupted = true;
		if (json_object_set_new(s->doc, "interrupted", json_true()))
			err = -ENOMEM;
	}
	return err;
}
