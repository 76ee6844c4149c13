// SPDX-License-Identifier: GPL-2.0-or-later
/* mthpscope probe's measuring half (src/measure/probe.h). */
#include "probe.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "stats.h"

/* The trial's time: the median of its undisturbed rounds (a round with too
 * much steal is written as 0 by the engine), else its whole time. */
static double trial_ns(const struct results_trial *t)
{
	const struct results_metric *m = results_trial_metric(t, "ns_per_access");
	double *v = t->nr_rounds ? malloc(t->nr_rounds * sizeof(double)) : NULL, med = NAN;
	size_t i, n = 0;

	for (i = 0; v && i < t->nr_rounds; i++)
		if (t->rounds[i] > 0)
			v[n++] = t->rounds[i];
	if (!n || stats_median_inplace(v, n, &med))
		med = m ? m->value : NAN;
	free(v);
	return med;
}

/* One rep of one span: the six variants interleaved. */
static int probe_rep(struct bench *b, struct probe_plan *p, struct probe_input *in, int sp,
		     int rep, const struct bench_micro *w)
{
	struct results_trial trials[PROBE_NR_VARIANTS];
	int orders[PROBE_NR_VARIANTS], v, err;

	for (v = 0; v < PROBE_NR_VARIANTS; v++)
		orders[v] = probe_variant_order((enum probe_variant)v, b->thp->pmd_order);
	memset(trials, 0, sizeof(trials));
	err = bench_micro_interleaved(b, w, orders, PROBE_NR_VARIANTS, rep, p->accesses[sp],
				      p->rounds[sp], trials, NULL);
	for (v = 0; v < PROBE_NR_VARIANTS && !err; v++) {
		in->ns[sp][v][rep] = trial_ns(&trials[v]);
		if (trials[v].flags & RESULTS_F_LOW_COVERAGE)
			p->low_coverage++;
		if (trials[v].has_layout && (!rep || !p->verified)) {
			in->layout[sp][v] = trials[v].layout;
			p->verified = true;
		}
	}
	for (v = 0; v < PROBE_NR_VARIANTS; v++)
		results_trial_clear(&trials[v]);
	return err;
}

int probe_measure(struct bench *b, struct probe_plan *p, struct probe_input *in,
		  volatile sig_atomic_t *stop)
{
	const struct kernel_desc *k = kernel_find("chase-tlb");
	struct bench_micro w = { .kern = k, .pte_split = 1u << PROBE_C0 };
	int sp, rep, err = 0, done = p->reps;

	if (!k || p->nr_spans < 1 || p->nr_spans > PROBE_MAX_SPANS || p->reps < 1 ||
	    p->reps > PROBE_MAX_REPS || b->thp->pmd_order <= 4)
		return -EINVAL;
	in->nr_spans = p->nr_spans;
	for (sp = 0; sp < p->nr_spans && !err; sp++) {
		in->span[sp] = w.span = p->span[sp];
		for (rep = 0; rep < p->reps; rep++)
			for (int v = 0; v < PROBE_NR_VARIANTS; v++)
				in->ns[sp][v][rep] = NAN;
		err = bench_micro_calibrate(b, &w, 0, p->trial_ns, &p->accesses[sp]);
		if (err)
			break;
		p->rounds[sp] = bench_rounds_for(p->accesses[sp], p->trial_ns, PROBE_NR_VARIANTS);
	}
	/* reps outside, spans inside: a disturbance of the machine for a
	 * while falls on every span alike, not on one span's reps */
	for (rep = 0; rep < p->reps && !err; rep++) {
		if (stop && *stop) {
			done = rep;
			break;
		}
		for (sp = 0; sp < p->nr_spans && !err; sp++) {
			struct bench_event ev = { .kind = BENCH_EV_TRIAL, .done = rep * p->nr_spans + sp,
						  .total = p->reps * p->nr_spans, .span = p->span[sp] };

			if (b->report)
				b->report(&ev, b->report_ctx);
			w.span = p->span[sp];
			err = probe_rep(b, p, in, sp, rep, &w);
		}
	}
	in->nr_reps = done;
	return err;
}
