// SPDX-License-Identifier: GPL-2.0-or-later
/* The program table: text, lkml, markdown and JSON (program_report.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mthpscope.h"
#include "program_report.h"

#define CELL 16
/* the legend's words for an emulated CPU's table (program.h) */
#define TIMING_LEFT_OUT "Emulated CPU (QEMU TCG): real, user\n" \
	"and sys time measure the emulator, not hardware, and are left out"

static void size_name(const struct analysis *a, int order, bool base, char *buf, size_t size)
{
	char sz[16];

	analyze_order_size(a, order, sz, sizeof(sz));
	snprintf(buf, size, "%s%s", sz, base ? " (base)" : "");
}

/* order 0's median in the column's unit */
static void base_cell(const struct program_metric *m, char *buf, size_t size)
{
	double v = m->by_order[0].median * m->scale;

	if (!isfinite(v))
		snprintf(buf, size, "-");
	else if (!strcmp(m->unit, "s"))
		snprintf(buf, size, "%.3f s", v);
	else if (m->unit[0])
		snprintf(buf, size, "%.1f %s", v, m->unit);
	else
		snprintf(buf, size, fabs(v) >= 1000 ? "%.0f" : "%.6g", v);
}

/* "-25.3%", "*" after it when the CI excludes 0 */
static void change_cell(const struct analyze_change *c, char *buf, size_t size)
{
	bool sure = isfinite(c->lo) && isfinite(c->hi) && (c->lo > 0 || c->hi < 0);

	if (!isfinite(c->value))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%+.1f%%%s", 100.0 * c->value, sure ? "*" : "");
}

static void ci_cell(const struct analyze_change *c, char *buf, size_t size)
{
	if (!isfinite(c->lo) || !isfinite(c->hi))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "[%+.1f, %+.1f]", 100.0 * c->lo, 100.0 * c->hi);
}

static void coverage_cell(const struct program_table *pt, int k, char *buf, size_t size)
{
	if (!isfinite(pt->coverage[k]))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.0f%%", 100.0 * pt->coverage[k]);
}

/* One block of plain columns: the changes (ci false) or their CIs. */
static void plain_block(const struct analysis *a, const struct program_table *pt, FILE *f,
			bool ci)
{
	char cell[48];
	int i, j;

	fprintf(f, "%-12s", ci ? "95% CI" : "size");
	for (j = 0; j < pt->nr_metrics; j++)
		fprintf(f, " %*s", CELL, pt->m[j].label);
	fprintf(f, ci ? "\n" : " %9s\n", "coverage");
	for (i = ci ? 1 : 0; i < pt->nr_orders; i++) {
		int k = pt->orders[i];

		size_name(a, k, !k, cell, sizeof(cell));
		fprintf(f, "%-12s", cell);
		for (j = 0; j < pt->nr_metrics; j++) {
			if (!k)
				base_cell(&pt->m[j], cell, sizeof(cell));
			else if (ci)
				ci_cell(&pt->m[j].change[k], cell, sizeof(cell));
			else
				change_cell(&pt->m[j].change[k], cell, sizeof(cell));
			fprintf(f, " %*s", CELL, cell);
		}
		coverage_cell(pt, k, cell, sizeof(cell));
		if (!ci)
			fprintf(f, " %9s", k ? cell : "-");
		fputc('\n', f);
	}
}

void program_report_largest(const struct analysis *a, const struct program_table *pt,
			    char *buf, size_t size)
{
	const struct program_metric *m;
	char sz[16];

	if (pt->largest_metric < 0 && pt->timing_left_out) {
		snprintf(buf, size, "none named: an emulated CPU's times are not results");
		return;
	}
	if (pt->largest_metric < 0) {
		snprintf(buf, size, "no time falls by %.0f %% or more with a CI that excludes 0",
			 100.0 * a->threshold);
		return;
	}
	m = &pt->m[pt->largest_metric];
	analyze_order_size(a, pt->largest_order, sz, sizeof(sz));
	snprintf(buf, size, "%s %+.1f %% at %s (%s)", m->label,
		 100.0 * m->change[pt->largest_order].value, sz, m->name);
}

static void seen_words(const struct program_table *pt, char *buf, size_t size)
{
	double lo = NAN;

	for (int i = 0; i < pt->nr_orders; i++) {
		double s = pt->seen[pt->orders[i]];

		if (isfinite(s) && !(s >= lo))
			lo = s;
	}
	if (isfinite(lo))
		snprintf(buf, size, "the scans saw at least %.0f %% of the tree's processes "
			 "(median per size)", 100.0 * lo);
	else
		snprintf(buf, size, "how much of the tree the scans saw is not in the file");
}

/* The sizes the run measured whose every trial was left out (failed, timed
 * out, the order not in effect): not rows of the table, so named under it
 * with the first trial's reason, "" when none. */
static void dropped_words(const struct analysis *a, const struct program_table *pt, char *buf,
			  size_t size)
{
	size_t len = 0;
	bool done[ANALYZE_NR_ORDERS] = { false };

	buf[0] = '\0';
	for (size_t i = 0; i < a->nr_excluded && len < size; i++) {
		const struct analyze_excluded *x = &a->excluded[i];
		char name[48];

		if (x->order < 0 || x->order >= ANALYZE_NR_ORDERS || pt->n[x->order] ||
		    done[x->order])
			continue;
		done[x->order] = true;
		size_name(a, x->order, false, name, sizeof(name));
		len += (size_t)snprintf(buf + len, size - len, "%s%s (%s)", len ? "; " : "",
					name, x->reason);
	}
}

static void plain_legend(const struct analysis *a, const struct program_table *pt, FILE *f)
{
	char largest[160], seen[128], dropped[512];

	program_report_largest(a, pt, largest, sizeof(largest));
	seen_words(pt, seen, sizeof(seen));
	fprintf(f, "Base row: order-0 medians. Other rows: change of the median against it,\n"
		"* where the %.0f %% bootstrap CI excludes 0. ", 100.0 * a->level);
	if (pt->timing_left_out)
		fprintf(f, "%s. faults:\n"
			"page faults of the tree; peak memory: the largest process's maximum RSS.\n"
			"coverage: share of the anonymous memory scanned over the program's life in\n"
			"folios of the size or larger (pagemap);\n", TIMING_LEFT_OUT);
	else
		fprintf(f, "real: wall time; user, sys: CPU\n"
			"time of the whole tree (rusage); faults: page faults of the tree; peak memory:\n"
			"the largest process's maximum RSS. coverage: share of the anonymous memory\n"
			"scanned over the program's life in folios of the size or larger (pagemap);\n");
	fprintf(f, "%s.\nLargest material gain: %s.\n", seen, largest);
	dropped_words(a, pt, dropped, sizeof(dropped));
	if (dropped[0])
		fprintf(f, "Not in the table, every trial left out: %s.\n", dropped);
}

static void md_table(const struct analysis *a, const struct program_table *pt, FILE *f)
{
	char cell[48], ci[48];
	int i, j;

	fprintf(f, "| size |");
	for (j = 0; j < pt->nr_metrics; j++)
		fprintf(f, " %s |", pt->m[j].label);
	fprintf(f, " coverage |\n|---|");
	for (j = 0; j <= pt->nr_metrics; j++)
		fprintf(f, "---:|");
	fputc('\n', f);
	for (i = 0; i < pt->nr_orders; i++) {
		int k = pt->orders[i];

		size_name(a, k, !k, cell, sizeof(cell));
		fprintf(f, "| %s |", cell);
		for (j = 0; j < pt->nr_metrics; j++) {
			if (!k) {
				base_cell(&pt->m[j], cell, sizeof(cell));
				fprintf(f, " %s |", cell);
				continue;
			}
			change_cell(&pt->m[j].change[k], cell, sizeof(cell));
			ci_cell(&pt->m[j].change[k], ci, sizeof(ci));
			fprintf(f, " %s %s |", cell, ci);
		}
		coverage_cell(pt, k, cell, sizeof(cell));
		fprintf(f, " %s |\n", k ? cell : "-");
	}
	fputc('\n', f);
}

static void command_line(const struct analysis *a, FILE *f, const char *lead)
{
	const struct results_config *c = &a->res->head.config;

	fprintf(f, "%s", lead);
	for (int i = 0; i < c->argc; i++) {
		char *e = ms_escape(c->argv[i]);

		fprintf(f, i ? " %s" : "%s", e ? e : "?");
		free(e);
	}
	fputc('\n', f);
}

static void host_line(const struct analysis *a, FILE *f)
{
	const struct results *r = a->res;

	fprintf(f, "Host: Linux %s, %s, %s%s; THP %s; %ld run%s per size\n", r->kernel, r->arch,
		r->cpu_model[0] ? r->cpu_model : "unknown CPU",
		r->emulated ? " (emulated CPU, QEMU TCG)" : r->virtualized ? " (virtual machine)" : "",
		r->thp_enabled, r->config_reps, r->config_reps == 1 ? "" : "s");
}

int program_report_write(const struct analysis *a, const struct program_table *pt,
			 enum report_format fmt, FILE *f)
{
	char largest[160], seen[128], dropped[512];

	if (!pt->available)
		return 0;
	if (fmt == REPORT_MARKDOWN) {
		program_report_largest(a, pt, largest, sizeof(largest));
		seen_words(pt, seen, sizeof(seen));
		dropped_words(a, pt, dropped, sizeof(dropped));
		fprintf(f, "### The program, per metric\n\n");
		md_table(a, pt, f);
		fprintf(f, "Base row: order-0 medians; other rows: change of the median with its "
			"%.0f %% bootstrap CI (* = the CI excludes 0). Coverage: share of the "
			"anonymous memory scanned over the program's life in folios of the size or "
			"larger; %s. Largest material gain: %s.%s\n\n", 100.0 * a->level, seen,
			largest, pt->timing_left_out ? " " TIMING_LEFT_OUT "." : "");
		if (dropped[0])
			fprintf(f, "Not in the table, every trial left out: %s.\n\n", dropped);
		return ferror(f) ? -EIO : 0;
	}
	if (fmt == REPORT_LKML) {
		command_line(a, f, "Workload: ");
		host_line(a, f);
		fputc('\n', f);
	} else {
		fprintf(f, "The program, per metric:\n");
	}
	plain_block(a, pt, f, false);
	fputc('\n', f);
	plain_block(a, pt, f, true);
	fputc('\n', f);
	plain_legend(a, pt, f);
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}

/* ---- compare: the sides and their difference ------------------------------ */

/* "-8.1 pt", "*" after it when the CI excludes 0 */
static void diff_cell(const struct analyze_change *c, bool ci, char *buf, size_t size)
{
	bool sure = isfinite(c->lo) && isfinite(c->hi) && (c->lo > 0 || c->hi < 0);

	if (ci)
		ci_cell(c, buf, size);
	else if (!isfinite(c->value))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%+.1f pt%s", 100.0 * c->value, sure ? "*" : "");
}

static void diff_plain(const struct analysis *a, const struct program_table *pa,
		       const struct program_diff *d, bool ci, FILE *f)
{
	char cell[48];

	fprintf(f, "%-12s", ci ? "95% CI" : "size");
	for (int j = 0; j < d->nr_metrics; j++)
		fprintf(f, " %*s", CELL, pa->m[d->metric_a[j]].label);
	fputc('\n', f);
	for (int i = 0; i < d->nr_orders; i++) {
		size_name(a, d->orders[i], false, cell, sizeof(cell));
		fprintf(f, "%-12s", cell);
		for (int j = 0; j < d->nr_metrics; j++) {
			diff_cell(&d->diff[j][d->orders[i]], ci, cell, sizeof(cell));
			fprintf(f, " %*s", CELL, cell);
		}
		fputc('\n', f);
	}
}

static void diff_markdown(const struct analysis *a, const struct program_table *pa,
			  const struct program_diff *d, FILE *f)
{
	char cell[48], ci[48];

	fprintf(f, "| size |");
	for (int j = 0; j < d->nr_metrics; j++)
		fprintf(f, " %s |", pa->m[d->metric_a[j]].label);
	fprintf(f, "\n|---|");
	for (int j = 0; j < d->nr_metrics; j++)
		fprintf(f, "---:|");
	fputc('\n', f);
	for (int i = 0; i < d->nr_orders; i++) {
		size_name(a, d->orders[i], false, cell, sizeof(cell));
		fprintf(f, "| %s |", cell);
		for (int j = 0; j < d->nr_metrics; j++) {
			diff_cell(&d->diff[j][d->orders[i]], false, cell, sizeof(cell));
			diff_cell(&d->diff[j][d->orders[i]], true, ci, sizeof(ci));
			fprintf(f, " %s %s |", cell, ci);
		}
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void diff_write(const struct program_side *base, const struct program_side *other,
		       enum report_format fmt, FILE *f)
{
	struct program_diff d;
	bool md = fmt == REPORT_MARKDOWN;

	program_diff_build(base->pt, other->pt, base->a->level, &d);
	fprintf(f, md ? "### Difference: %s - %s\n\n" : "Difference: %s - %s\n", other->label,
		base->label);
	if (!d.nr_orders || !d.nr_metrics) {
		fprintf(f, "no size above 4K and metric in both\n\n");
		return;
	}
	if (md) {
		diff_markdown(base->a, base->pt, &d, f);
	} else {
		diff_plain(base->a, base->pt, &d, false, f);
		fputc('\n', f);
		diff_plain(base->a, base->pt, &d, true, f);
		fputc('\n', f);
	}
	fprintf(f, "Each cell: %s's change against its own 4K minus %s's, in points (pt);\n"
		"* where the CI excludes 0. CI: each side's %.0f %% bootstrap CI read as a\n"
		"normal interval, the two variances added (an approximation).\n\n",
		other->label, base->label, 100.0 * base->a->level);
}

int program_report_sides(const struct program_side *s, size_t n, enum report_format fmt,
			 FILE *f)
{
	bool md = fmt == REPORT_MARKDOWN;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		fprintf(f, md ? "## %s: the program, per metric\n\n" : "== %s: the program, "
			"per metric ==\n", s[i].label);
		if (md) {
			command_line(s[i].a, f, "Workload: ");
			fputc('\n', f);
			host_line(s[i].a, f);
			fputc('\n', f);
		}
		rc = program_report_write(s[i].a, s[i].pt, md ? REPORT_MARKDOWN : REPORT_LKML, f);
	}
	for (size_t i = 1; i < n && !rc; i++)
		diff_write(&s[0], &s[i], fmt, f);
	return rc || ferror(f) ? -EIO : 0;
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *pair(double lo, double hi)
{
	return isfinite(lo) && isfinite(hi) ? json_pack("[f, f]", lo, hi) : json_null();
}

static json_t *order_json(const struct analysis *a, const struct program_table *pt, int k)
{
	json_t *o = json_object(), *ms = json_object();

	json_object_set_new(o, "order", json_integer(k));
	json_object_set_new(o, "size_kb",
			    json_integer((json_int_t)((a->res->page_size << k) >> 10)));
	json_object_set_new(o, "n", json_integer((json_int_t)pt->n[k]));
	json_object_set_new(o, "coverage", num(pt->coverage[k]));
	json_object_set_new(o, "processes_scanned_share", num(pt->seen[k]));
	for (int j = 0; j < pt->nr_metrics; j++) {
		const struct program_metric *m = &pt->m[j];

		json_object_set_new(ms, m->name, json_pack(
			"{s:o, s:o, s:o, s:o, s:o}", "median", num(m->by_order[k].median),
			"median_ci", pair(m->by_order[k].lo, m->by_order[k].hi), "change",
			num(m->change[k].value), "ci", pair(m->change[k].lo, m->change[k].hi),
			"p_value", num(m->p[k])));
	}
	json_object_set_new(o, "metrics", ms);
	return o;
}

json_t *program_report_json(const struct analysis *a, const struct program_table *pt)
{
	json_t *j = json_object(), *orders = json_array(), *cols = json_array();
	const struct program_metric *m;

	for (int i = 0; i < pt->nr_metrics; i++)
		json_array_append_new(cols, json_pack("{s:s, s:s}", "metric", pt->m[i].name,
						      "label", pt->m[i].label));
	for (int i = 0; i < pt->nr_orders; i++)
		json_array_append_new(orders, order_json(a, pt, pt->orders[i]));
	json_object_set_new(j, "coverage_scope", json_string("lifetime"));
	json_object_set_new(j, "columns", cols);
	if (pt->timing_left_out)
		json_object_set_new(j, "timing", json_string("left out: emulated CPU"));
	json_object_set_new(j, "orders", orders);
	if (pt->largest_metric < 0) {
		json_object_set_new(j, "largest_gain", json_null());
		return j;
	}
	m = &pt->m[pt->largest_metric];
	json_object_set_new(j, "largest_gain",
			    json_pack("{s:s, s:i, s:o}", "metric", m->name, "order",
				      pt->largest_order, "change",
				      num(m->change[pt->largest_order].value)));
	return j;
}
