// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The time model beside the translation model (tlb_predict.h, issue 38
 * item 3). At each span the cost of a last-level miss (a page walk) is
 * calibrated from the two ends the measurement has: order 0 and the PMD
 * order. With m_k the model's last-level miss ratio at order k and G the
 * measured PMD gain, a walk costs G * T0 / (m_0 - m_pmd) of the primary
 * metric, and order k is predicted to gain
 *
 *     G * (m_0 - m_k) / (m_0 - m_pmd)
 *
 * with the interval of G carried through. That is a time gain, in the
 * measured gains' units, so the predicted knee (the smallest order whose
 * predicted gain reaches the threshold) and every order are set against the
 * measurement. Where they disagree, hypotheses of what the CPU merges (4, 8,
 * 4 and 8, 16, ... pages) and of the last level's effective capacity are
 * fitted to the measured gains below PMD, the table's among them, by the
 * entries each needs (max(0, 1 - capacity / entries)), and the cause named:
 * scatter, a merge size other than the table's, another capacity, the
 * host's backing of a VM. Every number here is source model.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mthpscope.h"
#include "stats.h"
#include "tlb_predict.h"

/* The merge rules tried, as sets of merge sizes (bit j: 2^j pages). */
static const unsigned rules[TLB_NR_RULES] = {
	0, 1u << 2, 1u << 3, (1u << 2) | (1u << 3), 1u << 4, (1u << 2) | (1u << 3) | (1u << 4),
};
/* Last-level capacities tried: the table's times 2^(i/2), i from -8 to 2. */
#define SCALE_LO (-8)
#define SCALE_HI 2
/* The table's hypothesis stands unless another fits by more than this in
 * chi2 (about p = 0.05 for the two things chosen: rule and capacity). */
#define CHI2_MARGIN 6.0

const char *tlb_time_cause_name(enum tlb_time_cause c)
{
	static const char *const names[] = {
		[TLB_CAUSE_NONE] = "none", [TLB_CAUSE_SCATTER] = "scatter",
		[TLB_CAUSE_MERGE] = "merge size", [TLB_CAUSE_CAPACITY] = "capacity",
		[TLB_CAUSE_HOST] = "host backing", [TLB_CAUSE_OTHER] = "not translation",
	};

	return (unsigned)c < sizeof(names) / sizeof(names[0]) ? names[c] : "none";
}

void tlb_time_rule_words(unsigned mask, char *buf, size_t size)
{
	int j, n = 0, nr = __builtin_popcount(mask);

	buf[0] = '\0';
	if (!mask) {
		snprintf(buf, size, "none");
		return;
	}
	for (j = 0; j < 32; j++) {
		if (!(mask & (1u << j)))
			continue;
		n++;
		ms_appendf(buf, size, "%s%u", n == 1 ? "" : n == nr ? " and " : ", ", 1u << j);
	}
}

/* The table's rule as a set of sizes (tlb_model.h: bit k for 2^k pages). */
static unsigned table_mask(const struct tlb_geometry *g)
{
	return g->merge == TLB_MERGE_NONE ? 0 : tlb_merge_set(g);
}

/* The last level's miss ratio of layout h under merge sizes 'mask' and a
 * capacity 'scale' times the table's: entries counted largest block first
 * (an aligned block of a smaller size inside a larger one is taken with
 * it), one size's miss ratio max(0, 1 - capacity / entries). */
static double simple_miss(const struct tlb_geometry *g, const struct layout_hist *h,
			  unsigned mask, double scale)
{
	const struct tlb_level_geometry *l = &g->level[g->nr_levels - 1];
	const unsigned long long *b = g->merge == TLB_MERGE_CONTPTE ? h->folio : h->contig;
	unsigned long long cov = 0, n = 0, e;
	double cap = l->entries * scale, capp = l->entries_pmd * scale, pte, pmd, mp, mq;
	int j;

	if (!l->entries)
		return NAN;
	for (j = h->pmd_order - 1; j >= 1; j--) {
		if (j > 31 || !(mask & (1u << j)))
			continue;
		e = b[j] > (cov >> j) ? b[j] - (cov >> j) : 0;
		cov += e << j;
		n += e;
	}
	n += h->contig[0] > cov ? h->contig[0] - cov : 0;
	if (l->shared || !l->entries_pmd) {
		n += h->pmd_maps;
		return (double)n > cap ? 1.0 - cap / (double)n : 0.0;
	}
	pte = (double)h->contig[0];
	pmd = ldexp((double)h->pmd_maps, h->pmd_order);
	mp = (double)n > cap ? 1.0 - cap / (double)n : 0.0;
	mq = (double)h->pmd_maps > capp ? 1.0 - capp / (double)h->pmd_maps : 0.0;
	return pte + pmd > 0 ? (pte * mp + pmd * mq) / (pte + pmd) : 0.0;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The median over the trials at (span, order) of simple_miss; NaN: none. */
static double hyp_miss(const struct analysis *a, const struct tlb_prediction *p, uint64_t span,
		       int order, unsigned mask, double scale, double *tmp)
{
	const struct layout_hist *h;
	struct layout_hist buf;
	size_t i, n = 0;

	for (i = 0; i < a->res->nr_trials; i++) {
		const struct results_trial *t = &a->res->trials[i];

		if (t->span != span || t->order != order || !(h = tlb_predict_layout(a, p, i, &buf)) ||
		    !layout_hist_pages(h) || h->page_shift != 12)
			continue;
		tmp[n++] = simple_miss(p->g, h, mask, scale);
	}
	if (!n)
		return NAN;
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* The measured gain's standard error from its interval (a floor keeps a
 * degenerate interval from weighing without bound). */
static double se_of(const struct analysis *a, const struct analyze_change *m)
{
	/* the interval is about 2 z standard errors wide (z of the analysis' level) */
	double z = 2.0 * stats_t_quantile(a->level, 1e9);

	return fmax((m->hi - m->lo) / (isfinite(z) && z > 0 ? z : 3.92), 0.002);
}

/* One hypothesis' chi2 at span si. */
static void hyp_fit(const struct analysis *a, const struct tlb_prediction *p, int si,
		    struct tlb_hypothesis *hy, double *tmp)
{
	const struct analyze_span *as = &a->spans[si];
	const struct analyze_change *G = &as->gains[a->pmd_order];
	double m[ANALYZE_NR_ORDERS], d;
	int k, pmd = a->pmd_order;

	hy->chi2 = NAN;
	hy->n = 0;
	for (k = 0; k <= pmd && k < ANALYZE_NR_ORDERS; k++)
		m[k] = hyp_miss(a, p, as->span, k, hy->mask, hy->scale, tmp);
	d = m[0] - m[pmd];
	if (isnan(d) || (d <= 0 && m[0] > 0))
		return;
	hy->chi2 = 0;
	for (k = 1; k < pmd && k < ANALYZE_NR_ORDERS; k++) {
		const struct analyze_change *mk = &as->gains[k];
		double pred;

		if (isnan(m[k]) || !isfinite(mk->value) || !isfinite(mk->lo) || !isfinite(mk->hi))
			continue;
		pred = m[0] > 0 ? G->value * (m[0] - m[k]) / d : 0.0;
		hy->chi2 += pow((mk->value - pred) / se_of(a, mk), 2.0);
		hy->n++;
	}
	if (!hy->n)
		hy->chi2 = NAN;
}

static bool better(const struct tlb_hypothesis *x, const struct tlb_hypothesis *y)
{
	return isfinite(x->chi2) && (!isfinite(y->chi2) || x->chi2 < y->chi2);
}

/* The hypotheses in words: the best, against the table's, each rule's best. */
/* The best fit merges nothing where the table merges, in a VM: the host's
 * small pages under the guest's are the likelier reason. */
static bool host_like(const struct analysis *a, const struct tlb_predict_span *s)
{
	return a->res->virtualized && !s->best_fit.mask && s->table_fit.mask;
}

static void fit_words(const struct analysis *a, const struct tlb_prediction *p,
		      struct tlb_predict_span *s)
{
	const struct tlb_level_geometry *l = &p->g->level[p->g->nr_levels - 1];
	char best[48], table[48], rw[48];
	int r;

	tlb_time_rule_words(s->best_fit.mask, best, sizeof(best));
	tlb_time_rule_words(s->table_fit.mask, table, sizeof(table));
	if (host_like(a, s))
		snprintf(s->fit, sizeof(s->fit), "host backing in a VM: the data fit no merging "
			 "at all, as when the host maps the guest's memory with 4K pages");
	else if (s->best_fit.mask != s->table_fit.mask && !s->best_fit.mask)
		snprintf(s->fit, sizeof(s->fit), "merge size differs from the table: the data fit "
			 "no merging");
	else if (s->best_fit.mask != s->table_fit.mask)
		snprintf(s->fit, sizeof(s->fit), "merge size differs from the table: the data fit "
			 "merging %s pages", best);
	else
		snprintf(s->fit, sizeof(s->fit), "an effective capacity other than the table's");
	ms_appendf(s->fit, sizeof(s->fit), "; best fit: merging %s with %.0f %s entries (model; "
		   "the table has %u), chi2 %.1f over %d orders, against %.1f for the table's "
		   "rule (%s)", best, s->best_fit.scale *
		   l->entries, l->name ? l->name : "last-level", l->entries, s->best_fit.chi2,
		   s->best_fit.n, s->table_fit.chi2, table);
	ms_appendf(s->fit, sizeof(s->fit), "; each rule at its best capacity:");
	for (r = 0; r < TLB_NR_RULES; r++) {
		if (!isfinite(s->rule_fit[r].chi2))
			continue;
		tlb_time_rule_words(s->rule_fit[r].mask, rw, sizeof(rw));
		ms_appendf(s->fit, sizeof(s->fit), "%s %s %.1f", r ? "," : "", rw,
			   s->rule_fit[r].chi2);
	}
}

/* Fit every hypothesis at span si: the table's, each rule's best, the best. */
static void hypotheses(const struct analysis *a, struct tlb_prediction *p, int si)
{
	struct tlb_predict_span *s = &p->spans[si];
	double *tmp = malloc((a->res->nr_trials + 1) * sizeof(*tmp));
	struct tlb_hypothesis best;
	int r, i, tr = -1;

	s->fit[0] = '\0';
	s->table_fit = (struct tlb_hypothesis){ table_mask(p->g), 1.0, NAN, 0 };
	s->best_fit = s->table_fit;
	if (!tmp)
		return;
	hyp_fit(a, p, si, &s->table_fit, tmp);
	best = s->table_fit;
	for (r = 0; r < TLB_NR_RULES; r++) {
		s->rule_fit[r] = (struct tlb_hypothesis){ rules[r], 1.0, NAN, 0 };
		for (i = SCALE_LO; i <= SCALE_HI; i++) {
			struct tlb_hypothesis h = { rules[r], pow(2.0, i / 2.0), NAN, 0 };

			hyp_fit(a, p, si, &h, tmp);
			if (better(&h, &s->rule_fit[r]))
				s->rule_fit[r] = h;
		}
		if (better(&s->rule_fit[r], &best))
			best = s->rule_fit[r];
		if (rules[r] == s->table_fit.mask)
			tr = r;
	}
	free(tmp);
	/* the table stands unless the data reject it: its rule at its own
	 * capacity, else at another capacity, else another rule */
	if (s->table_fit.chi2 <= best.chi2 + CHI2_MARGIN)
		s->best_fit = s->table_fit;
	else if (tr >= 0 && s->rule_fit[tr].chi2 <= best.chi2 + CHI2_MARGIN)
		s->best_fit = s->rule_fit[tr];
	else
		s->best_fit = best;
	if (isfinite(s->table_fit.chi2) && (s->best_fit.mask != s->table_fit.mask ||
					    s->best_fit.scale != s->table_fit.scale))
		fit_words(a, p, s);
}

/* Does the predicted interval (or value) meet the measured one? -1: no interval. */
static int judge(const struct tlb_predict_cell *c)
{
	const struct analyze_change *t = &c->time_gain, *m = &c->measured;
	double lo = isfinite(t->lo) ? t->lo : t->value, hi = isfinite(t->hi) ? t->hi : t->value;

	if (!isfinite(t->value) || !isfinite(m->lo) || !isfinite(m->hi))
		return -1;
	return hi >= m->lo && lo <= m->hi;
}

static enum tlb_time_cause cause_of(const struct analysis *a, const struct tlb_predict_span *s,
				    const struct tlb_predict_cell *c)
{
	if (c->scatter)
		return TLB_CAUSE_SCATTER;
	if (s->fit[0] && host_like(a, s))
		return TLB_CAUSE_HOST;
	if (s->fit[0] && s->best_fit.mask != s->table_fit.mask)
		return TLB_CAUSE_MERGE;
	if (s->fit[0])
		return TLB_CAUSE_CAPACITY;
	return a->res->virtualized ? TLB_CAUSE_HOST : TLB_CAUSE_OTHER;
}

/* Predicted time gains from the calibrated walk cost; the knee. */
static void predict(const struct analysis *a, struct tlb_prediction *p, int si, double m0,
		    double mp)
{
	struct tlb_predict_span *s = &p->spans[si];
	const struct analyze_change *G = &a->spans[si].gains[a->pmd_order];
	int last = p->g->nr_levels - 1, k;

	/* a PMD order that gains nothing (a VM's host backing can make it
	 * lose) calibrates no walk cost: unknown, not "no order gains" */
	s->calibrated = m0 > 0 && m0 - mp > 0 && isfinite(G->value) && G->value > 0;
	if (s->calibrated)
		s->walk_cost = G->value * a->spans[si].by_order[0].median / (m0 - mp);
	for (k = 1; k <= a->pmd_order && k < ANALYZE_NR_ORDERS; k++) {
		struct tlb_predict_cell *c = &s->by_order[k];
		double f, lo, hi;

		if (!c->n || isnan(c->miss[last]) || (!s->calibrated && m0 > 0))
			continue;
		if (m0 == 0) {
			c->time_gain = (struct analyze_change){ 0, 0, 0 };
			continue;
		}
		f = (m0 - c->miss[last]) / (m0 - mp);
		lo = G->lo * f;
		hi = G->hi * f;
		c->time_gain = (struct analyze_change){ G->value * f, fmin(lo, hi), fmax(lo, hi) };
		if (s->knee < 0 && c->time_gain.value >= a->threshold)
			s->knee = k;
	}
}

void tlb_time_span(const struct analysis *a, struct tlb_prediction *p, int si)
{
	struct tlb_predict_span *s = &p->spans[si];
	int last = p->g->nr_levels - 1, k, pmd = a->pmd_order;
	double m0 = s->by_order[0].miss[last], mp = NAN;

	s->knee = -1;
	s->calibrated = false;
	s->walk_cost = NAN;
	s->nr_judged = s->nr_order_disagree = 0;
	s->fit[0] = '\0';
	s->table_fit = s->best_fit = (struct tlb_hypothesis){ table_mask(p->g), 1.0, NAN, 0 };
	for (k = 0; k < TLB_NR_RULES; k++)
		s->rule_fit[k] = (struct tlb_hypothesis){ rules[k], 1.0, NAN, 0 };
	for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
		struct tlb_predict_cell *c = &s->by_order[k];

		c->time_gain = (struct analyze_change){ NAN, NAN, NAN };
		c->measured = a->spans[si].gains[k];
		c->measured_gain = c->measured.value;
		c->agree = -1;
		c->cause = TLB_CAUSE_NONE;
	}
	if (!s->by_order[0].n || isnan(m0))
		return;
	if (pmd < ANALYZE_NR_ORDERS && s->by_order[pmd].n)
		mp = s->by_order[pmd].miss[last];
	predict(a, p, si, m0, mp);
	for (k = 1; k < pmd && k < ANALYZE_NR_ORDERS; k++) {
		struct tlb_predict_cell *c = &s->by_order[k];

		if ((c->agree = judge(c)) < 0)
			continue;
		s->nr_judged++;
		if (!c->agree)
			s->nr_order_disagree++;
	}
	if (s->nr_order_disagree && isfinite(a->spans[si].gains[pmd].value))
		hypotheses(a, p, si);
	for (k = 1; k < pmd && k < ANALYZE_NR_ORDERS; k++)
		if (s->by_order[k].agree == 0)
			s->by_order[k].cause = cause_of(a, s, &s->by_order[k]);
	p->nr_order_disagree += s->nr_order_disagree;
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *ci(const struct analyze_change *c)
{
	return isfinite(c->lo) && isfinite(c->hi) ? json_pack("[f, f]", c->lo, c->hi) : json_null();
}

json_t *tlb_time_cell_json(const struct tlb_predict_cell *c)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o}", "predicted_time_gain", num(c->time_gain.value),
			 "predicted_time_gain_ci", ci(&c->time_gain), "measured_gain_ci",
			 ci(&c->measured), "time_agree", c->agree < 0 ? json_null() :
			 json_boolean(c->agree), "cause", c->agree == 0 ?
			 json_string(tlb_time_cause_name(c->cause)) : json_null());
}

static json_t *hyp_json(const struct tlb_prediction *p, const struct tlb_hypothesis *h)
{
	char w[48];

	tlb_time_rule_words(h->mask, w, sizeof(w));
	return json_pack("{s:s, s:f, s:f, s:o, s:i}", "merge_pages", w, "capacity_scale", h->scale,
			 "capacity", h->scale * p->g->level[p->g->nr_levels - 1].entries, "chi2",
			 num(h->chi2), "orders", h->n);
}

void tlb_time_span_json(const struct tlb_prediction *p, const struct tlb_predict_span *s,
			json_t *o)
{
	json_t *rl;
	int r;

	if (!o)
		return;
	json_object_set_new(o, "calibrated", json_boolean(s->calibrated));
	json_object_set_new(o, "walk_cost", num(s->walk_cost));
	json_object_set_new(o, "orders_judged", json_integer(s->nr_judged));
	json_object_set_new(o, "orders_disagree", json_integer(s->nr_order_disagree));
	if (!s->fit[0] && !isfinite(s->table_fit.chi2))
		return;
	rl = json_array();
	for (r = 0; r < TLB_NR_RULES; r++)
		if (isfinite(s->rule_fit[r].chi2))
			json_array_append_new(rl, hyp_json(p, &s->rule_fit[r]));
	json_object_set_new(o, "hypotheses", json_pack("{s:o, s:o, s:o}", "table",
							hyp_json(p, &s->table_fit), "best",
							hyp_json(p, &s->best_fit), "rules", rl));
	json_object_set_new(o, "fit", s->fit[0] ? json_string(s->fit) : json_null());
}
