// SPDX-License-Identifier: GPL-2.0-or-later
/* run's end-of-run summary (run_summary.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mthpscope.h"
#include "program.h"
#include "run_summary.h"
#include "summary.h"

/* prec digits after the point, or significant digits with 'sig'; "-" when
 * nothing was measured */
static const char *fmt_num(double v, int prec, bool sig, char *buf, size_t size)
{
	if (!isfinite(v))
		snprintf(buf, size, "-");
	else if (sig)
		snprintf(buf, size, "%.*g", prec, v);
	else
		snprintf(buf, size, "%.*f", prec, v);
	return buf;
}

/* '!' below 'min': a micro-kernel's 95 %, a program's near zero (program.h) */
static void fmt_coverage(double cov, double min, char *buf, size_t size)
{
	if (isnan(cov))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.3f%s", cov, cov < min ? "!" : "");
}

/* "[lo, hi]" in units of 'scale', or "-" without a CI */
static void fmt_ci(const struct summary_ci *ci, double scale, char *buf, size_t size)
{
	if (isfinite(ci->half))
		snprintf(buf, size, "[%.2f, %.2f]", ci->lo / scale, ci->hi / scale);
	else
		snprintf(buf, size, "-");
}

/* The widest CI so far and order 0's median, for print_precision. */
struct widest {
	double base, widest;
};

static void widest_add(struct widest *w, int order, const struct summary_ci *ci)
{
	if (!isfinite(ci->half))
		return;
	if (order == 0)
		w->base = ci->median;
	w->widest = fmax(w->widest, ci->half);
}

static void print_precision(FILE *f, const struct widest *w, bool paired)
{
	/* The precision a reader can expect of a gain: CIs against the
	 * order-0 value they are compared to. With the interleaved schedule
	 * the gains are paired (print_paired_precision): each order's own
	 * median CI then only says how much the load moved the times. */
	if (!isfinite(w->base) || w->base <= 0)
		return;
	if (paired)
		fprintf(f, "unpaired: each order's own median CI reaches %.1f%% of order 0's "
			"median at most\n(it carries the load that pairing by round cancels)\n",
			100 * w->widest / w->base);
	else
		fprintf(f, "precision: the widest CI reaches %.1f%% of order 0's median "
			"(%.1f%% or less resolves a 5%% gain)%s\n", 100 * w->widest / w->base,
			SUMMARY_CI_TARGET * 100,
			w->widest / w->base > SUMMARY_CI_TARGET
				? "; more --reps or a quieter machine narrow it"
				: "");
}

/* Accesses per trial of a (pattern, span): every trial of it has the same. */
static unsigned long long cell_accesses(const struct results *r, const char *pat, uint64_t span)
{
	for (size_t j = 0; j < r->nr_trials; j++)
		if (!r->trials[j].sparse && r->trials[j].span == span &&
		    !strcmp(r->trials[j].pattern, pat))
			return r->trials[j].accesses;
	return 0;
}

static void print_micro_row(const struct results *r, FILE *f, const char *pat, uint64_t span,
			    int o, double *v, struct widest *w)
{
	const struct results_config *c = &r->head.config;
	char fol[16], rssb[32], ci[40], cvb[16], fb[16];
	struct summary_ci med;
	double pop;
	int n;

	n = summary_collect(r, pat, false, span, o, "ns_per_access", v);
	summary_median_ci(v, n, c->seed, &med);
	fmt_ci(&med, 1, ci, sizeof(ci));
	widest_add(w, o, &med);
	n = summary_collect(r, pat, false, span, o, "coverage", v);
	fmt_coverage(summary_min(v, n), RESULTS_MIN_COVERAGE, cvb, sizeof(cvb));
	n = summary_collect(r, pat, false, span, o, "page_faults", v);
	fmt_num(summary_median(v, n), 0, false, fb, sizeof(fb));
	n = summary_collect(r, pat, false, span, o, "populate_ns", v);
	pop = summary_median(v, n);
	n = summary_collect(r, pat, true, span, o, "rss_bytes", v);
	ms_format_bytes(summary_median(v, n), rssb, sizeof(rssb));
	snprintf(fol, sizeof(fol), "%lukB",
		 (unsigned long)(r->head.host.topo.page_size << o) / 1024);
	fprintf(f, "%5d %7s %8s %10.2f %21s %8s %8.2f ms %11s\n", o, fol, cvb, med.median, ci, fb,
		pop / 1e6, rssb);
}

static void print_micro_cell(const struct results *r, FILE *f, const char *pat, uint64_t span,
			     double *v)
{
	const struct results_config *c = &r->head.config;
	struct widest w = { NAN, 0 };
	char spb[32];

	ms_format_bytes((double)span, spb, sizeof(spb));
	fprintf(f, "%s, span %s, %llu accesses per trial, %ld reps%s, cpu %ld\n", pat, spb,
		cell_accesses(r, pat, span), c->reps,
		r->head.interrupted ? " planned (interrupted: fewer measured)" : "", c->cpu);
	fprintf(f, "%5s %7s %8s %10s %21s %8s %11s %11s\n", "order", "folio", "coverage",
		"ns/access", "95% CI", "faults", "populate", "sparse RSS");
	for (int i = 0; i < (int)c->orders.nr; i++)
		print_micro_row(r, f, pat, span, c->orders.order[i], v, &w);
	print_precision(f, &w, c->schedule == RESULTS_SCHED_INTERLEAVED);
	fprintf(f, "\n");
}

/*
 * Interleaved: the precision of what analyze's verdict rests on, the paired
 * gains, told by the analyzer itself (the table above gives each order's
 * own median, whose CI also carries the load that pairing cancels). Silent
 * when the analysis cannot be made: analyze says why.
 */
static void print_paired_precision(const struct results *r, FILE *f)
{
	struct summary_paired p;
	char sb[32];

	if (summary_paired_precision(r, &p))
		return;
	ms_format_bytes((double)p.span, sb, sizeof(sb));
	fprintf(f, "paired precision (%s, span %s: what analyze's verdict rests on): the\n"
		"widest gain CI is +/-%.1f points of order 0's time (order %d)%s\n\n", p.pattern, sb,
		100 * p.widest, p.order,
		p.widest > SUMMARY_CI_TARGET ? "; more --reps or a quieter machine narrow it" : "");
	if (p.placements[0])
		fprintf(f, "%s.\n\n", p.placements);
}

const char *run_summary_stop_words(enum results_precision_stop s)
{
	static const char *const why[RESULTS_PREC_NR] = {
		[RESULTS_PREC_REACHED] = "",
		[RESULTS_PREC_MAX_TIME] = "--max-time ran out",
		[RESULTS_PREC_INTERRUPTED] = "interrupted",
		[RESULTS_PREC_MAX_REPS] = "the most reps a run keeps were used",
	};

	return s >= 0 && s < RESULTS_PREC_NR ? why[s] : "?";
}

/* run --precision: which of the two happened, target or time, and the CI it
 * stopped on (the rule's level, not 95 %: src/analysis/precision.h). */
static void print_precision_outcome(const struct results_precision *p, FILE *f)
{
	char what[80], ord[32];

	if (p->reached && p->stop != RESULTS_PREC_REACHED)
		snprintf(what, sizeof(what), "reached at the last look");
	else if (p->stop == RESULTS_PREC_REACHED)
		snprintf(what, sizeof(what), "reached");
	else
		snprintf(what, sizeof(what), "not reached: %s", run_summary_stop_words(p->stop));
	fprintf(f, "precision: target +/-%.1f points %s, after %ld reps in %.0f s (--max-time "
		"%.0f s)\n", 100 * p->target, what, p->reps, p->elapsed_s, p->max_time_s);
	snprintf(ord, sizeof(ord), p->all ? "the widest, order %d" : "order %d", p->order);
	if (isfinite(p->half_width))
		fprintf(f, "the %s gain CI (%s) is +/-%.1f points at %.2f %% over %ld paired "
			"rounds:\nlook %d of %d planned (Bonferroni over looks keeps 95 %% "
			"coverage)\n\n", p->all ? "orders'" : "verdict's", ord, 100 * p->half_width,
			100 * p->level, p->rounds, p->looks, p->planned_looks);
	else
		fprintf(f, "no gain CI could be made from %ld reps\n\n", p->reps);
}

static void print_micro_summary(const struct results *r, FILE *f, double *v)
{
	const struct results_config *c = &r->head.config;

	for (int p = 0; p < c->nr_patterns; p++)
		for (int sp = 0; sp < c->nr_spans; sp++)
			print_micro_cell(r, f, c->patterns[p], c->spans[sp], v);
	if (c->schedule == RESULTS_SCHED_INTERLEAVED)
		print_paired_precision(r, f);
	if (r->head.has_precision)
		print_precision_outcome(&r->head.precision, f);
	fprintf(f, "ns/access: median over the reps of the thread's CPU time per access (timing),\n"
		"with a %.0f%% bootstrap CI of the median. coverage: the lowest share of the span\n"
		"at the requested order over the reps (pagemap; '!' below %.0f%%). faults: page\n"
		"faults to populate the span (sw). populate: median time to fault it in (timing).\n",
		SUMMARY_CI_LEVEL * 100, RESULTS_MIN_COVERAGE * 100);
	/* --sparse 0 runs no sparse trials: "one page in every 0" said nothing */
	if (c->sparse_k > 0)
		fprintf(f, "sparse RSS: resident bytes when one page in every %ld is touched "
			"(kernel, mincore).\n", c->sparse_k);
	else
		fprintf(f, "sparse RSS: not measured (--sparse 0).\n");
}

static void print_command_row(const struct results *r, FILE *f, int o, double *v,
			      struct widest *w)
{
	const struct results_config *c = &r->head.config;
	char fol[16], ci[48], cvb[16], rssb[32], wb[32], ub[32], sb[32], fb[32];
	struct summary_ci med;
	double user, sys;
	int k, n, ran, failed;

	n = summary_collect(r, "command", false, 0, o, "wall_ns", v);
	summary_median_ci(v, n, c->seed, &med);
	fmt_ci(&med, 1e9, ci, sizeof(ci));
	widest_add(w, o, &med);
	n = summary_collect(r, "command", false, 0, o, "coverage", v);
	fmt_coverage(summary_min(v, n), o ? PROGRAM_COVERAGE_NEAR_ZERO : 0, cvb, sizeof(cvb));
	n = summary_collect(r, "command", false, 0, o, "user_ns", v);
	user = summary_median(v, n);
	n = summary_collect(r, "command", false, 0, o, "sys_ns", v);
	sys = summary_median(v, n);
	n = summary_collect(r, "command", false, 0, o, "minor_faults", v);
	fmt_num(summary_median(v, n), 0, false, fb, sizeof(fb));
	n = summary_collect(r, "command", false, 0, o, "max_rss_bytes", v);
	ms_format_bytes(summary_median(v, n), rssb, sizeof(rssb));
	summary_count_failed(r, o, &ran, &failed);
	snprintf(fol, sizeof(fol), "%lukB",
		 (unsigned long)(r->head.host.topo.page_size << o) / 1024);
	fprintf(f, "%5d %7s %8s %9s %21s %8s %8s %10s %10s %3d/%-2d", o, fol, cvb,
		fmt_num(med.median / 1e9, 3, false, wb, sizeof(wb)), ci,
		fmt_num(user / 1e9, 3, false, ub, sizeof(ub)),
		fmt_num(sys / 1e9, 3, false, sb, sizeof(sb)), fb, rssb, failed, ran);
	for (k = 0; k < c->nr_metrics; k++) {
		n = summary_collect(r, "command", false, 0, o, c->metrics[k].name, v);
		fprintf(f, " %12s", fmt_num(summary_median(v, n), 6, true, wb, sizeof(wb)));
	}
	fprintf(f, "\n");
}

/* The scans' own CPU (watch_cpu_ns) against the wall time, where it passes
 * 1 %: the measurement's share of the machine. */
static void print_watch_share(const struct results *r, FILE *f, double *v)
{
	const struct results_config *c = &r->head.config;

	for (int i = 0; i < (int)c->orders.nr; i++) {
		int o = c->orders.order[i], n;
		double cpu, wall;

		n = summary_collect(r, "command", false, 0, o, "watch_cpu_ns", v);
		cpu = summary_median(v, n);
		n = summary_collect(r, "command", false, 0, o, "wall_ns", v);
		wall = summary_median(v, n);
		if (isfinite(cpu) && wall > 0 && cpu / wall > 0.01)
			fprintf(f, "order %d: the scans took %.1f%% of the wall time in CPU "
				"(watch_cpu_ns %.0f ms, median)\n", o, 100 * cpu / wall, cpu / 1e6);
	}
}

static void print_command_summary(const struct results *r, FILE *f, double *v)
{
	const struct results_config *c = &r->head.config;
	struct widest w = { NAN, 0 };
	int i, k;

	/* escaped: a newline or an escape code in an argument must not break
	 * (or recolour) the table */
	for (i = 0; i < c->argc; i++) {
		char *e = ms_escape(c->argv[i]);

		fprintf(f, i ? " %s" : "%s", e ? e : "?");
		free(e);
	}
	fprintf(f, "\n%ld reps, scan every %ld ms\n", c->reps, c->scan_interval_ms);
	fprintf(f, "%5s %7s %8s %9s %21s %8s %8s %10s %10s %6s", "order", "folio", "coverage",
		"wall s", "95% CI", "user s", "sys s", "faults", "max RSS", "failed");
	for (k = 0; k < c->nr_metrics; k++)
		fprintf(f, " %12s", c->metrics[k].name);
	fprintf(f, "\n");
	for (i = 0; i < (int)c->orders.nr; i++)
		print_command_row(r, f, c->orders.order[i], v, &w);
	print_precision(f, &w, false);
	print_watch_share(r, f, v);
	fprintf(f, "\nwall s: median over the reps of the command's wall time (timing), with a %.0f%%\n"
		"bootstrap CI of the median. user s, sys s: user and system time of the whole\n"
		"tree (kernel, rusage). coverage: the lowest share over the reps of the anonymous\n"
		"memory in folios of the order or larger, over every scan of the program's life\n"
		"(pagemap; stated, not a gate: '!' below %.0f%%, the order not in effect). faults:\n"
		"minor faults of the tree (kernel). failed: trials whose command failed or timed\n"
		"out (left out of every median). analyze FILE: every metric per size with CIs.\n",
		SUMMARY_CI_LEVEL * 100, PROGRAM_COVERAGE_NEAR_ZERO * 100);
	if (r->emulated)
		fprintf(f, "Emulated CPU (QEMU TCG): wall s, user s and sys s measure the emulator,\n"
			"not hardware, and are no result; faults, max RSS and coverage are the\n"
			"kernel's own (analyze leaves the times out of the program table).\n");
}

void run_summary_print(FILE *f, const struct results *r)
{
	double *v = calloc(r->nr_trials ? r->nr_trials : 1, sizeof(double));

	if (!v)
		return;
	if (r->head.config.workload == RESULTS_WL_COMMAND)
		print_command_summary(r, f, v);
	else
		print_micro_summary(r, f, v);
	free(v);
}
