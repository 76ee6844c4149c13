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
 * measurement. Where they disagree, a second term is fitted (issue 38):
 * the first level's misses (a PMD entry fits the L1, smaller ones may not),
 * or in a VM whose trials record their guest-physical 2 MiB regions
 * (results placement.regions_pmd) the walks whose region misses the host's
 * side of the nested walk. It carries a share s of the PMD gain, order k
 * gaining G ((1 - s) S_walk(k) + s S_term(k)) with S a driver's normalised
 * saving; s is fitted by weighted least squares, bounded so the term's cost
 * per event is no more than a walk's, and kept only where chi2 falls by its
 * 5 % point. Where orders still disagree, hypotheses of what the CPU merges
 * (4, 8, 4 and 8, 16, ... pages) and of the last level's effective capacity
 * (each with its best term) are fitted by chi2, and the cause named:
 * scatter; a merge size other than the table's, only where that rule is
 * plausible (a probe's geometry file, another file or the vendor's table
 * says the CPU merges, no size above theirs: never on Intel without such a
 * file); another capacity; the host's backing of a VM; physical locality
 * (the host term) or the first level's reach; else not explained. Every
 * number here is source model.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mthpscope.h"
#include "stats.h"
#include "tlb_predict.h"

static bool probe_file(const struct tlb_geometry *g);

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
		[TLB_CAUSE_LOCALITY] = "host locality", [TLB_CAUSE_FIRST] = "first level",
		[TLB_CAUSE_UNEXPLAINED] = "not explained",
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

/* A level's miss ratio of layout h under merge sizes 'mask' and a capacity
 * 'scale' times the table's: entries counted largest block first (an
 * aligned block of a smaller size inside a larger one is taken with it),
 * one size's miss ratio max(0, 1 - capacity / entries). */
static double level_miss(const struct tlb_geometry *g, const struct layout_hist *h,
			 unsigned mask, double scale, int lv)
{
	const struct tlb_level_geometry *l = &g->level[lv];
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

/* The median; NaN when n is 0 or any value is NaN. */
static double median_of(double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (isnan(v[i]))
			return NAN;
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The PMD-size guest-physical regions trial i's buffer falls in, as run
 * measured them (placement.regions_pmd); NaN in a file from before them.
 * Not assumed from the folio histogram: "each folio in a region of its
 * own" is a step at an order of the fit's choosing, which any merge rule's
 * or capacity's step would hide behind. */
static double trial_regions(const struct analysis *a, size_t i)
{
	const struct results_trial *t = &a->res->trials[i];

	return t->has_placement && t->placement.has_regions ? (double)t->placement.regions_pmd
							     : NAN;
}

/* Host-side capacities tried: 2^(3 + c) PMD-size regions, 8 to 16384. */
#define NR_CAPS 12
static double cap_regions(int c)
{
	return ldexp(1.0, 3 + c);
}

/* A hypothesis' drivers at one span, the median over each order's trials:
 * the last level's miss ratio, the first level's, and for each host-side
 * capacity the walks whose region misses it (u x max(0, 1 - cap / R)). */
struct drivers {
	double u[ANALYZE_NR_ORDERS], l1[ANALYZE_NR_ORDERS];
	double regions[ANALYZE_NR_ORDERS]; /* NaN: some trial has none */
	double host[NR_CAPS][ANALYZE_NR_ORDERS];
};

/* tmp: room for 4 values per trial of the file */
static void cell_drivers(const struct analysis *a, const struct tlb_prediction *p,
			 uint64_t span, int k, unsigned mask, double scale, struct drivers *d,
			 double *tmp)
{
	size_t nt = a->res->nr_trials, i, n = 0;
	double *u = tmp, *l1 = tmp + nt, *r = tmp + 2 * nt;
	const struct layout_hist *h;
	struct layout_hist buf;
	int c;

	for (i = 0; i < nt; i++) {
		const struct results_trial *t = &a->res->trials[i];

		if (t->span != span || t->order != k || !(h = tlb_predict_layout(a, p, i, &buf)) ||
		    !layout_hist_pages(h) || h->page_shift != 12)
			continue;
		u[n] = level_miss(p->g, h, mask, scale, p->g->nr_levels - 1);
		l1[n] = p->g->nr_levels > 1 ? level_miss(p->g, h, mask, 1.0, 0) : NAN;
		r[n++] = trial_regions(a, i);
	}
	for (c = 0; c < NR_CAPS; c++) {
		double *x = tmp + 3 * nt;

		/* a trial without regions leaves the host side unknown (NaN) */
		for (i = 0; i < n; i++)
			x[i] = isnan(r[i]) ? NAN : u[i] * (r[i] > cap_regions(c) ?
							  1.0 - cap_regions(c) / r[i] : 0.0);
		d->host[c][k] = median_of(x, n);
	}
	d->u[k] = median_of(u, n);
	d->l1[k] = median_of(l1, n);
	d->regions[k] = median_of(r, n);
}

/* The measured gain's standard error from its interval (a floor keeps a
 * degenerate interval from weighing without bound). */
static double se_of(const struct analysis *a, const struct analyze_change *m)
{
	/* the interval is about 2 z standard errors wide (z of the analysis' level) */
	double z = 2.0 * stats_t_quantile(a->level, 1e9);

	return fmax((m->hi - m->lo) / (isfinite(z) && z > 0 ? z : 3.92), 0.002);
}

static bool judged_order(const struct analyze_change *mk)
{
	return isfinite(mk->value) && isfinite(mk->lo) && isfinite(mk->hi);
}

/* Normalised savings of a driver x: (x_0 - x_k) / (x_0 - x_pmd); returns
 * x_0 - x_pmd, NaN when it saves nothing at PMD (no calibration) or an
 * order lacks it. A driver that is 0 at order 0 saves nothing: all 0. */
static double savings(const double *x, int pmd, double *out)
{
	double d = x[0] - x[pmd];
	int k;

	if (isnan(d) || (d <= 0 && x[0] > 0))
		return NAN;
	for (k = 0; k <= pmd && k < ANALYZE_NR_ORDERS; k++)
		out[k] = x[0] > 0 ? (x[0] - x[k]) / d : 0.0;
	return d;
}

/*
 * The share s in [0, smax] of the PMD gain G that driver B carries beside A
 * (predicted gain G ((1 - s) A_k + s B_k)), by weighted least squares over
 * the orders below PMD, and the chi2 it leaves. B NULL: s = 0.
 */
static double fit_share(const struct analysis *a, int si, const double *A, const double *B,
			double smax, double *share, int *n)
{
	const struct analyze_span *as = &a->spans[si];
	double G = as->gains[a->pmd_order].value, num = 0, den = 0, chi2 = 0, s = 0;
	int k, pmd = a->pmd_order;

	for (k = 1; B && k < pmd && k < ANALYZE_NR_ORDERS; k++) {
		const struct analyze_change *mk = &as->gains[k];
		double w, dk;

		if (isnan(A[k]) || isnan(B[k]) || !judged_order(mk))
			continue;
		w = pow(se_of(a, mk), -2.0);
		dk = G * (B[k] - A[k]);
		num += w * (mk->value - G * A[k]) * dk;
		den += w * dk * dk;
	}
	if (den > 0)
		s = fmin(smax, fmax(0.0, num / den));
	*n = 0;
	for (k = 1; k < pmd && k < ANALYZE_NR_ORDERS; k++) {
		const struct analyze_change *mk = &as->gains[k];
		double f;

		if (isnan(A[k]) || (B && isnan(B[k])) || !judged_order(mk))
			continue;
		f = B ? (1 - s) * A[k] + s * B[k] : A[k];
		chi2 += pow((mk->value - G * f) / se_of(a, mk), 2.0);
		(*n)++;
	}
	*share = s;
	return *n ? chi2 : NAN;
}

/* A term is kept when it lowers chi2 by more than this per parameter it
 * fits (the 5 % point of chi2 with 1 and 2 degrees of freedom). */
#define TERM_MARGIN_FIRST 3.84
#define TERM_MARGIN_HOST 5.99

/*
 * Try driver x as the second term of hy; better by its margin: taken. Its
 * cost per event (a first-level miss that hits the last level, a host-side
 * miss) is bounded by a walk's: s / X <= (1 - s) / U with X and U the
 * savings of x and of the walks at PMD, so s <= X / (X + U). Without that
 * bound s = 1 says walks cost nothing, and any shape below PMD fits.
 */
static void try_term(const struct analysis *a, int si, const double *A, double U,
		     const double *x, enum tlb_term_kind kind, double regions,
		     struct tlb_hypothesis *hy, double *Bbest)
{
	double B[ANALYZE_NR_ORDERS], s, chi2, margin, X;
	int n, k;

	X = savings(x, a->pmd_order, B);
	if (isnan(X) || X <= 0)
		return;
	chi2 = fit_share(a, si, A, B, U > 0 ? X / (X + U) : 1.0, &s, &n);
	margin = kind == TLB_TERM_HOST ? TERM_MARGIN_HOST : TERM_MARGIN_FIRST;
	if (!isfinite(chi2) || s <= 0 || chi2 + margin >= hy->chi2_plain ||
	    (hy->term != TLB_TERM_NONE && chi2 >= hy->chi2))
		return;
	hy->term = kind;
	hy->share = s;
	hy->regions = regions;
	hy->chi2 = chi2;
	hy->n = n;
	for (k = 0; Bbest && k <= a->pmd_order && k < ANALYZE_NR_ORDERS; k++)
		Bbest[k] = B[k];
}

/* Every order's regions known at a span (the host term can be fitted)? */
static bool regions_known(const struct drivers *d, int pmd)
{
	int k;

	for (k = 0; k <= pmd && k < ANALYZE_NR_ORDERS; k++)
		if (isnan(d->regions[k]) && !isnan(d->u[k]))
			return false;
	return true;
}

/* One hypothesis' chi2 at span si, with its best second term (the first
 * level's; in a VM whose file has the regions, also the host side's at
 * each capacity). B non-NULL: the chosen term's normalised savings. tmp: 4
 * values per trial. */
static void hyp_fit(const struct analysis *a, struct tlb_prediction *p, int si,
		    struct tlb_hypothesis *hy, double *tmp, double *B)
{
	const struct analyze_span *as = &a->spans[si];
	struct drivers d;
	double A[ANALYZE_NR_ORDERS], U;
	bool host;
	int k, c, pmd = a->pmd_order;

	hy->chi2 = hy->chi2_plain = NAN;
	hy->n = 0;
	hy->term = TLB_TERM_NONE;
	hy->share = 0;
	hy->regions = NAN;
	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		d.u[k] = d.l1[k] = d.regions[k] = NAN;
	for (k = 0; k <= pmd && k < ANALYZE_NR_ORDERS; k++)
		cell_drivers(a, p, as->span, k, hy->mask, hy->scale, &d, tmp);
	U = savings(d.u, pmd, A);
	if (!isfinite(as->gains[pmd].value) || isnan(U))
		return;
	hy->chi2 = hy->chi2_plain = fit_share(a, si, A, NULL, 0.0, &hy->share, &hy->n);
	if (!isfinite(hy->chi2))
		return;
	try_term(a, si, A, U, d.l1, TLB_TERM_FIRST, NAN, hy, B);
	host = a->res->virtualized && regions_known(&d, pmd);
	p->regions_missing |= a->res->virtualized && !host;
	p->regions_measured |= host;
	for (c = 0; host && c < NR_CAPS; c++)
		try_term(a, si, A, U, d.host[c], TLB_TERM_HOST, cap_regions(c), hy, B);
}

static bool better(const struct tlb_hypothesis *x, const struct tlb_hypothesis *y)
{
	return isfinite(x->chi2) && (!isfinite(y->chi2) || x->chi2 < y->chi2);
}

/* The index of the table's rule among rules[], -1 when it is none of them. */
static int table_rule(const struct tlb_predict_span *s)
{
	int r;

	for (r = 0; r < TLB_NR_RULES; r++)
		if (rules[r] == s->table_fit.mask)
			return r;
	return -1;
}

/* The best fit under the table's own rule (at any capacity). */
static const struct tlb_hypothesis *table_rule_fit(const struct tlb_predict_span *s)
{
	int tr = table_rule(s);

	return tr >= 0 && better(&s->rule_fit[tr], &s->table_fit) ? &s->rule_fit[tr]
								  : &s->table_fit;
}

/* Is rule 'mask' plausible here: merging at all, no size above the largest
 * the geometry file or the vendor's table names (AMD folds 4 or 8, so a 16
 * is no reading of its data; 4 where a probe saw 8 is)? */
static bool rule_plausible(const struct tlb_prediction *p, unsigned mask)
{
	return p->merge_plausible && (!mask || (1u << (31 - __builtin_clz(mask))) <= p->merge_max);
}

/* The best plausible rule other than the table's (NULL: none). */
static const struct tlb_hypothesis *merge_candidate(const struct tlb_prediction *p,
						    const struct tlb_predict_span *s)
{
	const struct tlb_hypothesis *m = NULL;
	int r;

	for (r = 0; r < TLB_NR_RULES; r++)
		if (s->rule_fit[r].mask != s->table_fit.mask &&
		    rule_plausible(p, s->rule_fit[r].mask) &&
		    (!m || better(&s->rule_fit[r], m)))
			m = &s->rule_fit[r];
	return m;
}

/*
 * The span's cause, from the fits: another merge rule only where a
 * plausible one fits clearly better than the table's rule at its best
 * capacity; else another capacity where it fits clearly better; else the
 * second term that fits (the host's side of the nested walk, the first
 * level's reach); else not explained.
 */
static enum tlb_time_cause span_cause(const struct analysis *a, const struct tlb_prediction *p,
				      struct tlb_predict_span *s)
{
	const struct tlb_hypothesis *tf = table_rule_fit(s), *m = merge_candidate(p, s);

	if (m && better(m, tf) && m->chi2 + CHI2_MARGIN < tf->chi2) {
		s->merge_mask = m->mask;
		/* no merging at all where the table merges, in a VM: the host's
		 * small pages under the guest's are the likelier reason */
		return a->res->virtualized && !m->mask && s->table_fit.mask ? TLB_CAUSE_HOST
									     : TLB_CAUSE_MERGE;
	}
	if (tf != &s->table_fit && tf->chi2 + CHI2_MARGIN < s->table_fit.chi2)
		return TLB_CAUSE_CAPACITY;
	if (s->table_fit.term == TLB_TERM_HOST)
		return TLB_CAUSE_LOCALITY;
	if (s->table_fit.term == TLB_TERM_FIRST)
		return TLB_CAUSE_FIRST;
	return TLB_CAUSE_UNEXPLAINED;
}

const char *tlb_time_term_name(enum tlb_term_kind k)
{
	return k == TLB_TERM_FIRST ? "first level" : k == TLB_TERM_HOST ? "host side" : "none";
}

void tlb_time_term_words(const struct tlb_prediction *p, const struct tlb_hypothesis *h,
			 char *buf, size_t size)
{
	const struct tlb_level_geometry *l1 = &p->g->level[0];

	buf[0] = '\0';
	if (h->term == TLB_TERM_FIRST)
		snprintf(buf, size, "misses of the first level (%s, %u entries) carry %.0f %% of "
			 "the PMD gain", l1->name ? l1->name : "L1", l1->entries, 100.0 * h->share);
	else if (h->term == TLB_TERM_HOST)
		snprintf(buf, size, "walks whose guest-physical 2 MiB region misses the host's side "
			 "of the nested walk (capacity %.0f regions) carry %.0f %% of the PMD gain",
			 h->regions, 100.0 * h->share);
}

/* The capacity cause: the table's rule at its best capacity, and a
 * plausible merge rule that fits about as well (the timings then cannot
 * tell the two apart). */
static void capacity_words(const struct tlb_prediction *p, const struct tlb_predict_span *s,
			   char *buf, size_t size)
{
	const struct tlb_hypothesis *tf = table_rule_fit(s), *m = merge_candidate(p, s);
	const struct tlb_level_geometry *l = &p->g->level[p->g->nr_levels - 1];
	char rw[48];

	tlb_time_rule_words(tf->mask, rw, sizeof(rw));
	snprintf(buf, size, "an effective capacity other than the %s's: its rule (%s) fits with "
		 "%.0f %s entries (model), chi2 %.1f against %.1f at %u",
		 p->g->level[0].source == TLB_SRC_USER ? "geometry" : "table", rw,
		 tf->scale * l->entries, l->name ? l->name : "last-level", tf->chi2,
		 s->table_fit.chi2, l->entries);
	if (m && isfinite(m->chi2) && m->chi2 < tf->chi2 + CHI2_MARGIN) {
		tlb_time_rule_words(m->mask, rw, sizeof(rw));
		ms_appendf(buf, size, "; merging %s fits about as well (chi2 %.1f): these timings "
			   "do not tell that merge size from that capacity", rw, m->chi2);
	}
}

/* The cause's lead words (the span's fit begins with them). */
static void cause_lead(const struct analysis *a, const struct tlb_prediction *p,
		       const struct tlb_predict_span *s, enum tlb_time_cause c, char *buf,
		       size_t size)
{
	char best[48], tw[192];

	tlb_time_rule_words(s->best_fit.mask, best, sizeof(best));
	tlb_time_term_words(p, &s->table_fit, tw, sizeof(tw));
	if (c == TLB_CAUSE_HOST)
		snprintf(buf, size, "host backing in a VM: the data fit no merging at all, as when "
			 "the host maps the guest's memory with 4K pages");
	else if (c == TLB_CAUSE_MERGE)
		snprintf(buf, size, "merge size differs from the %s: the data fit %s%s%s",
			 p->g->level[0].source == TLB_SRC_USER ? "geometry file" : "table",
			 s->merge_mask ? "merging " : "no merging", s->merge_mask ? best : "",
			 s->merge_mask ? " pages" : "");
	else if (c == TLB_CAUSE_CAPACITY)
		capacity_words(p, s, buf, size);
	else if (c == TLB_CAUSE_LOCALITY)
		snprintf(buf, size, "physical locality (host side of the nested walk): larger folios "
			 "put the buffer in fewer guest-physical regions; %s (model)", tw);
	else if (c == TLB_CAUSE_FIRST)
		snprintf(buf, size, "the first level's reach: PMD entries fit in it, smaller ones do "
			 "not; %s (model)", tw);
	else if (a->res->virtualized)
		snprintf(buf, size, "not explained by the model (a VM: the host's side of the "
			 "nested walk, which no term here fits, may be part of it)");
	else
		snprintf(buf, size, "not explained by the model");
}

/* The hypotheses in words: the cause, the best against the table's, each
 * rule's best; a merge rule that fits better where nothing makes merging
 * plausible is said to be set aside. */
static void fit_words(const struct analysis *a, const struct tlb_prediction *p,
		      struct tlb_predict_span *s)
{
	const struct tlb_level_geometry *l = &p->g->level[p->g->nr_levels - 1];
	const char *src = p->g->level[0].source == TLB_SRC_USER ? "geometry" : "table";
	char best[48], table[48], rw[48];
	int r;

	cause_lead(a, p, s, s->cause_kind, s->fit, sizeof(s->fit));
	tlb_time_rule_words(s->best_fit.mask, best, sizeof(best));
	tlb_time_rule_words(s->table_fit.mask, table, sizeof(table));
	if (s->cause_kind != TLB_CAUSE_MERGE && s->best_fit.mask != s->table_fit.mask &&
	    !rule_plausible(p, s->best_fit.mask) &&
	    s->best_fit.chi2 + CHI2_MARGIN < table_rule_fit(s)->chi2)
		ms_appendf(s->fit, sizeof(s->fit), "; merging %s fits better, but nothing makes "
			   "merging plausible here (%s)", best, p->merge_plausible ? "a size larger "
			   "than any the geometry or this CPU's vendor names" : probe_file(p->g) ?
			   "mthpscope probe's geometry file saw no merging" : "the table documents no "
			   "merging for this CPU and no probe geometry file (--tlb-geometry) says "
			   "otherwise");
	ms_appendf(s->fit, sizeof(s->fit), "; best fit: merging %s with %.0f %s entries%s%s "
		   "(model; the %s has %u), chi2 %.1f over %d orders, against %.1f for the "
		   "%s's rule (%s)", best, s->best_fit.scale * l->entries,
		   l->name ? l->name : "last-level", s->best_fit.term ? " and the " : "",
		   s->best_fit.term ? tlb_time_term_name(s->best_fit.term) : "", src, l->entries,
		   s->best_fit.chi2, s->best_fit.n, s->table_fit.chi2, src, table);
	ms_appendf(s->fit, sizeof(s->fit), "; each rule at its best capacity:");
	for (r = 0; r < TLB_NR_RULES; r++) {
		if (!isfinite(s->rule_fit[r].chi2))
			continue;
		tlb_time_rule_words(s->rule_fit[r].mask, rw, sizeof(rw));
		ms_appendf(s->fit, sizeof(s->fit), "%s %s %.1f", r ? "," : "", rw,
			   s->rule_fit[r].chi2);
	}
}

/* Fit every hypothesis at span si (each with its best second term): the
 * table's, each rule's best, the best; then the span's cause. */
static void hypotheses(const struct analysis *a, struct tlb_prediction *p, int si)
{
	struct tlb_predict_span *s = &p->spans[si];
	double *tmp = malloc((4 * a->res->nr_trials + 1) * sizeof(*tmp));
	struct tlb_hypothesis best;
	int r, i;

	s->fit[0] = '\0';
	if (!tmp)
		return;
	s->table_fit = s->model_fit;
	/* not fitted for the prediction (no calibration: order 0 fits) */
	if (!isfinite(s->table_fit.chi2))
		hyp_fit(a, p, si, &s->table_fit, tmp, NULL);
	best = s->table_fit;
	for (r = 0; r < TLB_NR_RULES; r++) {
		s->rule_fit[r] = (struct tlb_hypothesis){ rules[r], 1.0, NAN, 0 };
		for (i = SCALE_LO; i <= SCALE_HI; i++) {
			struct tlb_hypothesis h = { rules[r], pow(2.0, i / 2.0), NAN, 0 };

			hyp_fit(a, p, si, &h, tmp, NULL);
			if (better(&h, &s->rule_fit[r]))
				s->rule_fit[r] = h;
		}
		if (better(&s->rule_fit[r], &best))
			best = s->rule_fit[r];
	}
	free(tmp);
	s->best_fit = best;
	if (!isfinite(s->table_fit.chi2))
		return;
	s->cause_kind = span_cause(a, p, s);
	fit_words(a, p, s);
}

/* The merge sizes the table documents for the host's CPU vendor: every
 * Zen entry of arch/tlb_geometry.c folds 4 and 8, arm64's contpte maps 16
 * 4K pages (the kernel sets the bit), Intel documents none. */
static unsigned vendor_set(const struct results *r)
{
	const struct tlb_geometry *zen = tlb_geometry_find("zen4");

	if (!strcmp(r->cpu_vendor, "AuthenticAMD"))
		return zen ? tlb_merge_set(zen) : 0;
	if (!strcmp(r->arch, "aarch64") && r->page_size == 4096)
		return 1u << 4;
	return 0;
}

static bool probe_file(const struct tlb_geometry *g)
{
	return g->level[0].source == TLB_SRC_USER && g->merge_cite &&
	       strstr(g->merge_cite, "mthpscope probe");
}

void tlb_time_plausible(const struct analysis *a, struct tlb_prediction *p)
{
	const struct tlb_geometry *g = p->g;
	unsigned set = 0;

	/* a probe's file outranks the table: what it measured is the evidence,
	 * merging or none; another geometry file merging is the user's word,
	 * beside what the table documents for this vendor; the table's rule of
	 * another vendor (zen4's asked of an Intel file) is a what-if, none */
	if (g && probe_file(g))
		set = tlb_merge_set(g);
	else if (g && g->level[0].source == TLB_SRC_USER)
		set = tlb_merge_set(g) | vendor_set(a->res);
	else if (g)
		set = vendor_set(a->res);
	p->merge_plausible = set != 0;
	p->merge_max = 1u << (31 - __builtin_clz(set | 1u));
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

static enum tlb_time_cause cause_of(const struct tlb_predict_span *s,
				    const struct tlb_predict_cell *c)
{
	if (c->scatter)
		return TLB_CAUSE_SCATTER;
	return s->fit[0] ? s->cause_kind : TLB_CAUSE_UNEXPLAINED;
}

/* Predicted time gains from the calibrated walk cost and the model's
 * second term (B: its normalised savings); the knee. */
static void predict(const struct analysis *a, struct tlb_prediction *p, int si, double m0,
		    double mp, const double *B)
{
	struct tlb_predict_span *s = &p->spans[si];
	const struct analyze_change *G = &a->spans[si].gains[a->pmd_order];
	double sh = s->model_fit.term ? s->model_fit.share : 0.0;
	int last = p->g->nr_levels - 1, k;

	/* a PMD order that gains nothing (a VM's host backing can make it
	 * lose) calibrates no walk cost: unknown, not "no order gains" */
	s->calibrated = m0 > 0 && m0 - mp > 0 && isfinite(G->value) && G->value > 0;
	if (s->calibrated)
		s->walk_cost = (1 - sh) * G->value * a->spans[si].by_order[0].median / (m0 - mp);
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
		if (sh > 0 && !isnan(B[k]))
			f = (1 - sh) * f + sh * B[k];
		lo = G->lo * f;
		hi = G->hi * f;
		c->time_gain = (struct analyze_change){ G->value * f, fmin(lo, hi), fmax(lo, hi) };
		if (s->knee < 0 && c->time_gain.value >= a->threshold)
			s->knee = k;
	}
}

/* The prediction's own fit: the geometry's rule at its capacity, with the
 * second term that fits by its margin; B its normalised savings. */
static void model_term(const struct analysis *a, struct tlb_prediction *p, int si, double *B)
{
	struct tlb_predict_span *s = &p->spans[si];
	double *tmp = malloc((4 * a->res->nr_trials + 1) * sizeof(*tmp));
	int k;

	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		B[k] = NAN;
	s->model_fit = (struct tlb_hypothesis){ table_mask(p->g), 1.0, NAN, 0 };
	s->model_fit.chi2_plain = s->model_fit.regions = NAN;
	if (!tmp)
		return;
	if (a->pmd_order < ANALYZE_NR_ORDERS && s->by_order[a->pmd_order].n)
		hyp_fit(a, p, si, &s->model_fit, tmp, B);
	free(tmp);
}

static void span_reset(const struct analysis *a, struct tlb_prediction *p, int si)
{
	struct tlb_predict_span *s = &p->spans[si];
	int k;

	s->knee = -1;
	s->calibrated = false;
	s->walk_cost = NAN;
	s->nr_judged = s->nr_order_disagree = 0;
	s->fit[0] = '\0';
	s->cause_kind = TLB_CAUSE_NONE;
	s->merge_mask = 0;
	s->table_fit = s->best_fit = s->model_fit =
		(struct tlb_hypothesis){ table_mask(p->g), 1.0, NAN, 0 };
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
}

/* Set every order below PMD against the measurement: the counts. */
static void judge_orders(const struct analysis *a, struct tlb_predict_span *s)
{
	int k;

	s->nr_judged = s->nr_order_disagree = 0;
	for (k = 1; k < a->pmd_order && k < ANALYZE_NR_ORDERS; k++) {
		struct tlb_predict_cell *c = &s->by_order[k];

		if ((c->agree = judge(c)) < 0)
			continue;
		s->nr_judged++;
		if (!c->agree)
			s->nr_order_disagree++;
	}
}

void tlb_time_span(const struct analysis *a, struct tlb_prediction *p, int si)
{
	struct tlb_predict_span *s = &p->spans[si];
	int last = p->g->nr_levels - 1, k, pmd = a->pmd_order;
	double m0 = s->by_order[0].miss[last], mp = NAN, B[ANALYZE_NR_ORDERS];

	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		B[k] = NAN;
	span_reset(a, p, si);
	if (!s->by_order[0].n || isnan(m0))
		return;
	if (pmd < ANALYZE_NR_ORDERS && s->by_order[pmd].n)
		mp = s->by_order[pmd].miss[last];
	predict(a, p, si, m0, mp, B);
	judge_orders(a, s);
	/* the second term only where the table's figures alone disagree:
	 * where they agree the prediction is what it was */
	if (s->nr_order_disagree && s->calibrated) {
		model_term(a, p, si, B);
		if (s->model_fit.term) {
			s->knee = -1;
			predict(a, p, si, m0, mp, B);
			judge_orders(a, s);
		}
	}
	if (s->nr_order_disagree && isfinite(a->spans[si].gains[pmd].value))
		hypotheses(a, p, si);
	for (k = 1; k < pmd && k < ANALYZE_NR_ORDERS; k++)
		if (s->by_order[k].agree == 0)
			s->by_order[k].cause = cause_of(s, &s->by_order[k]);
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
	return json_pack("{s:s, s:f, s:f, s:o, s:i, s:s, s:o, s:o, s:o, s:s}", "merge_pages", w,
			 "capacity_scale", h->scale, "capacity",
			 h->scale * p->g->level[p->g->nr_levels - 1].entries, "chi2", num(h->chi2),
			 "orders", h->n, "term", tlb_time_term_name(h->term), "term_share",
			 h->term ? num(h->share) : json_null(), "host_regions",
			 h->term == TLB_TERM_HOST ? num(h->regions) : json_null(), "chi2_without_term",
			 num(h->chi2_plain), "computed_by", "model");
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
	if (isfinite(s->model_fit.chi2))
		json_object_set_new(o, "model_fit", hyp_json(p, &s->model_fit));
	json_object_set_new(o, "cause", s->fit[0] ? json_string(tlb_time_cause_name(s->cause_kind))
						 : json_null());
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
