// SPDX-License-Identifier: GPL-2.0-or-later
#include "record_report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mthpscope.h"

#define SHOW_VMAS 20  /* text and markdown show the VMAs with most samples */

struct fmt {
	FILE *f;
	bool md;
};

void record_vma_label(const struct record_vma *v, char *buf, size_t size)
{
	const char *slash = strrchr(v->name, '/');

	if (!v->name[0])
		snprintf(buf, size, "anon@%llx", v->start);
	else if (slash && slash[1])
		snprintf(buf, size, "%s", slash + 1);
	else
		snprintf(buf, size, "%s", v->name);
}

static double pct(unsigned long long part, unsigned long long whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void size_str(unsigned long long bytes, char *buf, size_t size)
{
	ms_format_size(bytes, buf, size);
}

/* "order 4 (64K)" */
static void order_str(const struct record_doc *d, int o, char *buf, size_t size)
{
	char s[16];

	size_str((unsigned long long)d->host.topo.page_size << o, s, sizeof(s));
	snprintf(buf, size, "%d (%s)", o, s);
}

static void row(struct fmt *f, const char *c0, const char *c1, const char *c2, const char *c3,
		const char *c4, const char *c5)
{
	char vma[26 * 4 + 1]; /* 26 columns of UTF-8 */

	/* escaped before the cut: a cut never splits an escape sequence */
	ms_escape_cut(c0, 26, vma, sizeof(vma));
	if (f->md)
		fprintf(f->f, "| %s | %s | %s | %s | %s | %s |\n", c0, c1, c2, c3, c4, c5);
	else
		fprintf(f->f, "  %-26s %-8s %-10s %9s %9s %9s\n", vma, c1, c2, c3, c4, c5);
}

static void header(struct fmt *f)
{
	row(f, "VMA", "kind", "order", "samples", "% samples", "% memory");
	if (f->md)
		fprintf(f->f, "|---|---|---|--:|--:|--:|\n");
}

static void print_line(struct fmt *f, const char *vma, const char *kind, const char *what,
		       unsigned long long n, unsigned long long all, double mem)
{
	char a[24], b[16], c[16];

	snprintf(a, sizeof(a), "%llu", n);
	snprintf(b, sizeof(b), "%.1f", pct(n, all));
	if (isnan(mem))
		snprintf(c, sizeof(c), "-");
	else
		snprintf(c, sizeof(c), "%.1f", 100.0 * mem);
	row(f, vma, kind, what, a, b, c);
}

static double mem_share_other(const struct record_memory *m, unsigned long long part)
{
	unsigned long long all = m->partial + m->other;
	int o;

	for (o = 0; o <= RECORD_MAX_ORDER; o++)
		all += m->pages[o];
	return m->scanned && all ? (double)part / (double)all : NAN;
}

static void print_vma(struct fmt *f, const struct record_doc *d, const struct record_vma *v)
{
	char label[64], what[32], first[64], span[16];
	const char *name = first;
	int o;

	record_vma_label(v, label, sizeof(label));
	size_str(v->end - v->start, span, sizeof(span));
	snprintf(first, sizeof(first), "%s %s", label, span);
	for (o = 0; o <= RECORD_MAX_ORDER; o++) {
		if (!v->s.order[o] && !(v->mem.scanned && v->mem.pages[o]))
			continue;
		order_str(d, o, what, sizeof(what));
		print_line(f, name, v->kind, what, v->s.order[o], v->s.samples,
			   record_memory_share(&v->mem, o));
		name = "";
	}
	if (v->s.partial || (v->mem.scanned && v->mem.partial)) {
		print_line(f, name, v->kind, "partial", v->s.partial, v->s.samples,
			   mem_share_other(&v->mem, v->mem.partial));
		name = "";
	}
	if (v->s.other || (v->mem.scanned && v->mem.other)) {
		print_line(f, name, v->kind, "zero/other", v->s.other, v->s.samples,
			   mem_share_other(&v->mem, v->mem.other));
		name = "";
	}
	if (v->s.unmapped)
		print_line(f, name, v->kind, "unmapped", v->s.unmapped, v->s.samples, NAN);
}

static int by_samples(const void *a, const void *b)
{
	const struct record_vma *x = *(const struct record_vma *const *)a;
	const struct record_vma *y = *(const struct record_vma *const *)b;

	if (x->s.samples != y->s.samples)
		return x->s.samples < y->s.samples ? 1 : -1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The VMAs, most samples first (pointers into d). */
static const struct record_vma **sorted_vmas(const struct record_doc *d)
{
	const struct record_vma **v = calloc(d->nr_vmas + 1, sizeof(*v));
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < d->nr_vmas; i++)
		v[i] = &d->vmas[i];
	qsort(v, d->nr_vmas, sizeof(*v), by_samples);
	return v;
}

static void print_head(struct fmt *f, const struct record_doc *d)
{
	const struct record_config *c = &d->config;
	const struct record_outcome *o = &d->outcome;
	unsigned long long rowless = o->no_vma + o->process_gone + o->before_exec +
				     o->not_looked_up;
	char rate[48], target[160] = "";
	size_t i;

	if (c->period)
		snprintf(rate, sizeof(rate), "every %llu events (-c)", c->period);
	else
		snprintf(rate, sizeof(rate), "about %llu a second (-F)", c->freq);
	if (c->argv) {
		for (i = 0; c->argv[i] && strlen(target) < 100; i++)
			ms_appendf(target, sizeof(target), "%s%s", i ? " " : "", c->argv[i]);
	} else {
		/* the time recorded: without --duration its end came first */
		snprintf(target, sizeof(target), "pid %d for %.1f s", c->pid, o->wall_s);
	}
	fprintf(f->f, "%s %s (%s), sampled %s; %s\n", f->md ? "**record**:" : "record:", c->event,
		c->source, rate, target);
	if (o->has_exit && o->exit_signal)
		fprintf(f->f, "the command died of signal %d (%s) after %.2f s\n", o->exit_signal,
			strsignal(o->exit_signal), o->wall_s);
	else if (o->has_exit)
		fprintf(f->f, "the command exited with status %d after %.2f s\n", o->exit_code,
			o->wall_s);
	if (o->exit_scan_s > 0)
		fprintf(f->f, "its memory was scanned at its exit stop: %.3f s of that\n",
			o->exit_scan_s);
	if (o->interrupted)
		fprintf(f->f, "interrupted (SIGINT/SIGTERM): the samples up to then\n");
	if (o->target_gone)
		fprintf(f->f, "process %d ended during the recording\n", c->pid);
	fprintf(f->f, "%llu samples: %llu on folios, %llu partial, %llu zero/other, %llu unmapped "
		"when looked up, %llu outside any VMA, %llu after their process ended", d->total.samples,
		d->total.samples - d->total.partial - d->total.other - d->total.unmapped - rowless,
		d->total.partial, d->total.other, d->total.unmapped, o->no_vma, o->process_gone);
	if (o->before_exec)
		fprintf(f->f, ", %llu of an image their process exec'd from", o->before_exec);
	if (o->not_looked_up)
		fprintf(f->f, ", %llu not looked up (a drain's second for slow lookups ran out: "
			"each waits for the process's memory map, behind its mmap and munmap)",
			o->not_looked_up);
	fprintf(f->f, "; %llu lost (ring full)\n\n", o->lost);
	/* a tenth or more in no VMA row: the rows below do not tell the whole
	 * program (a program started through a chain of execs: the shells'
	 * samples) */
	if (d->total.samples && 10 * rowless >= d->total.samples)
		fprintf(f->f, "%s %.0f %% of the samples are in no VMA row (outside any VMA, after "
			"their process ended, of an image it exec'd from, or not looked up): the "
			"rows below miss them\n\n", f->md ? "**Note**:" : "note:",
			100.0 * (double)rowless / (double)d->total.samples);
}

/* "62 % of the samples fall on order-0 pages of [heap], which are 18 % of
 * its memory": the order with most samples of each of the top VMAs. */
static void print_statements(struct fmt *f,
			     const struct record_vma **v, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 5; i++) {
		char label[64], mem[64] = "";
		int o, best = 0;
		double share;

		if (!v[i]->s.samples)
			continue;
		for (o = 1; o <= RECORD_MAX_ORDER; o++)
			if (v[i]->s.order[o] > v[i]->s.order[best])
				best = o;
		if (!v[i]->s.order[best])
			continue;
		record_vma_label(v[i], label, sizeof(label));
		share = record_memory_share(&v[i]->mem, best);
		if (!isnan(share))
			snprintf(mem, sizeof(mem), ", which are %.0f %% of its memory", 100 * share);
		fprintf(f->f, "%s%.0f %% of the samples of %s fall on order-%d pages%s (%llu of %llu)\n",
			f->md ? "- " : "  ", pct(v[i]->s.order[best], v[i]->s.samples), label, best,
			mem, v[i]->s.order[best], v[i]->s.samples);
	}
	fprintf(f->f, "\n");
}

static void print_psizes(struct fmt *f, const struct record_vma **v, size_t n)
{
	bool any = false;
	size_t i, k;

	for (i = 0; i < n; i++)
		any |= v[i]->s.nr_psizes > 0;
	if (!any)
		return;
	fprintf(f->f, "%sData page size at sample time (PERF_SAMPLE_DATA_PAGE_SIZE; 0: not yet "
		"mapped, as for a page fault's own sample):\n", f->md ? "\n" : "");
	for (i = 0; i < n; i++) {
		char label[64], line[512] = "";

		if (!v[i]->s.nr_psizes)
			continue;
		record_vma_label(v[i], label, sizeof(label));
		for (k = 0; k < v[i]->s.nr_psizes; k++) {
			char sz[16];

			if (v[i]->s.psize[k].bytes)
				size_str(v[i]->s.psize[k].bytes, sz, sizeof(sz));
			else
				snprintf(sz, sizeof(sz), "0");
			ms_appendf(line, sizeof(line), "%s%s: %llu", k ? ", " : "", sz,
				   v[i]->s.psize[k].samples);
		}
		fprintf(f->f, "%s%s: %s\n", f->md ? "- " : "  ", label, line);
	}
	fprintf(f->f, "\n");
}

/* "0:480 4:32" */
static void orders_line(const unsigned long long *v, char *buf, size_t size)
{
	int o;

	buf[0] = '\0';
	for (o = 0; o <= RECORD_MAX_ORDER; o++)
		if (v[o])
			ms_appendf(buf, size, "%s%d:%llu", buf[0] ? " " : "", o, v[o]);
	if (!buf[0])
		snprintf(buf, size, "-");
}

/* "512 now, 128 at order 2, 1 at order 9" (the model's entries), or "-". */
static void tlb_line(const struct record_window *w, bool model, char *buf, size_t size)
{
	int i;

	if (!w->has_tlb) {
		/* the model ran, but no scan saw this window's memory */
		snprintf(buf, size, "%s", model ? "unknown (memory not scanned)" : "-");
		return;
	}
	snprintf(buf, size, "%llu now", w->tlb.entries_now);
	for (i = 0; i < w->tlb.nr_at; i++)
		ms_appendf(buf, size, ", %llu at order %d", w->tlb.entries_at[i], w->tlb.order[i]);
}

static void print_windows(struct fmt *f, const struct record_doc *d)
{
	char ws[16];
	size_t i;

	if (!d->nr_windows)
		return;
	size_str(d->config.window_bytes, ws, sizeof(ws));
	fprintf(f->f, "Hottest %s windows (samples by order; memory in pages by order at the last "
		"scan", ws);
	if (d->tlb_model[0])
		fprintf(f->f, "; TLB entries to map it, now and at each order: model %s, %s "
			"figures, not counted", d->tlb_model, d->tlb_source);
	fprintf(f->f, "):\n");
	if (f->md)
		fprintf(f->f, "\n| window | pid | VMA | samples | samples by order | memory by order "
			"| TLB entries (model) |\n|---|--:|---|--:|---|---|---|\n");
	for (i = 0; i < d->nr_windows; i++) {
		const struct record_window *w = &d->windows[i];
		char so[256], mo[256], tl[160], vm[128], more[16] = "";
		const char *slash = strrchr(w->vma, '/');
		const char *name = slash ? slash + 1 : w->vma[0] ? w->vma : "anon";

		orders_line(w->s.order, so, sizeof(so));
		if (w->mem.scanned)
			orders_line(w->mem.pages, mo, sizeof(mo));
		else
			snprintf(mo, sizeof(mo), "not scanned");
		tlb_line(w, d->tlb_model[0] != '\0', tl, sizeof(tl));
		/* the VMA with most of its samples, "+N" the others it spans */
		if (w->nr_vmas > 1)
			snprintf(more, sizeof(more), " +%d", w->nr_vmas - 1);
		ms_escape_cut(name, 20 - strlen(more), vm, sizeof(vm));
		strcat(vm, more);
		if (f->md)
			fprintf(f->f, "| 0x%llx | %d | %s%s | %llu | %s | %s | %s |\n", w->start,
				w->pid, name, more, w->s.samples, so, mo, tl);
		else
			fprintf(f->f, "  %2zu. 0x%-14llx pid %-7d %-20s %8llu  samples %s  memory %s"
				"%s%s\n", i + 1, w->start, w->pid, vm, w->s.samples, so, mo,
				d->tlb_model[0] ? "  TLB entries (model) " : "",
				d->tlb_model[0] ? tl : "");
	}
}

static int write_human(const struct record_doc *d, struct fmt *f)
{
	const struct record_vma **v = sorted_vmas(d);
	size_t i, n = d->nr_vmas < SHOW_VMAS ? d->nr_vmas : SHOW_VMAS;

	if (!v)
		return -ENOMEM;
	print_head(f, d);
	print_statements(f, v, n);
	fprintf(f->f, "Samples by VMA and folio order (%% of the VMA's samples; %% of its memory at "
		"the last scan)%s\n", f->md ? ":\n" : ":");
	header(f);
	for (i = 0; i < n; i++)
		print_vma(f, d, v[i]);
	if (d->nr_vmas > n)
		fprintf(f->f, "%s(%zu more VMAs with fewer samples in the JSON)\n", f->md ? "\n" : "  ",
			d->nr_vmas - n);
	fprintf(f->f, "\n");
	print_psizes(f, v, n);
	print_windows(f, d);
	free(v);
	return 0;
}

int record_report_write(const struct record_doc *d, enum report_format fm, FILE *out)
{
	struct fmt f = { .f = out, .md = fm == REPORT_MARKDOWN };
	json_t *doc;
	int err;

	if (fm == REPORT_JSON) {
		if ((err = record_doc_json(d, &doc)))
			return err;
		err = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ? -EIO : 0;
		json_decref(doc);
		if (!err)
			fputc('\n', out);
	} else if ((err = write_human(d, &f))) {
		return err;
	}
	return ferror(out) ? -EIO : 0;
}
