// SPDX-License-Identifier: GPL-2.0-or-later
/* collapse's text from the collapse document's model. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collapse_report.h"
#include "mthpscope.h"

void collapse_report_header(const struct collapse_doc *d, FILE *out)
{
	const struct collapse_doc_config *c = &d->config;
	unsigned pmd_pages = 1u << d->thp.pmd_order;
	unsigned present = (unsigned)lround(c->fill * pmd_pages);
	size_t i;

	fprintf(out,
		"collapse: %s, span %lld MiB (%lld PMDs), fill %.0f%% (%u of %u PTEs empty per "
		"PMD), seed %llu\n",
		c->mode, c->span >> 20, c->span / (long long)d->thp.pmd_size, c->fill * 100,
		pmd_pages - present, pmd_pages, c->seed);
	fprintf(out, "targets:");
	for (i = 0; i < c->nr_enabled_as; i++)
		fprintf(out, " %d(%s)", c->enabled_as[i].order,
			thp_word_name(c->enabled_as[i].word));
	if (c->has_khugepaged)
		fprintf(out, "; khugepaged scan_sleep %lld ms, pages_to_scan %lld",
			c->scan_sleep_millisecs, c->pages_to_scan);
	fprintf(out, "\n");
}

/* A counter's column head: without "collapse_" and "_pte". */
static void counter_head(const char *name, char *buf, size_t size)
{
	size_t n;

	snprintf(buf, size, "%s", strncmp(name, "collapse_", 9) ? name : name + 9);
	n = strlen(buf);
	if (n > 4 && !strcmp(buf + n - 4, "_pte"))
		buf[n - 4] = '\0';
}

/* The counter 'name' at order o, 0 when the kernel did not report it. */
static long long counter_at(const struct collapse_doc_run *r, int o, const char *name)
{
	size_t i;

	for (i = 0; i < r->nr_counters; i++)
		if (r->counters[i].order == o && !strcmp(r->counters[i].name, name))
			return r->counters[i].delta;
	return 0;
}

/* The per-size collapse counters as a table: one row per order with a
 * non-zero counter, one column per counter the kernel has (collapse_alloc,
 * collapse_alloc_failed, collapse_exceed_{none,swap,shared}_pte), zeros shown. */
static void print_counters(const struct collapse_doc_run *r, FILE *out)
{
	const char *names[8];
	unsigned long rows = 0;
	int nr_names = 0, j, o;
	char head[40];
	size_t i;

	for (i = 0; i < r->nr_counters; i++) {
		if (r->counters[i].delta)
			rows |= 1UL << r->counters[i].order;
		for (j = 0; j < nr_names && strcmp(names[j], r->counters[i].name); j++)
			;
		if (j == nr_names && nr_names < (int)MS_ARRAY_SIZE(names))
			names[nr_names++] = r->counters[i].name;
	}
	if (!rows)
		return;
	fprintf(out, "  per-size collapse counters (kernel, system-wide):\n  %5s", "order");
	for (j = 0; j < nr_names; j++) {
		counter_head(names[j], head, sizeof(head));
		fprintf(out, " %13s", head);
	}
	fprintf(out, "\n");
	for (o = 0; o <= FOLIO_MAX_ORDER; o++) {
		if (!(rows & (1UL << o)))
			continue;
		fprintf(out, "  %5d", o);
		for (j = 0; j < nr_names; j++)
			fprintf(out, " %13lld", counter_at(r, o, names[j]));
		fprintf(out, "\n");
	}
}

/* The timeline: only the samples where something changed (and the last):
 * a quiet minute of khugepaged is one line, not six hundred. */
static void print_timeline(const struct collapse_doc_run *r, FILE *out)
{
	unsigned long cols = 1; /* order 0 always */
	size_t i;
	int o;

	for (i = 0; i < r->nr_samples; i++)
		for (o = 1; o <= FOLIO_MAX_ORDER; o++)
			if (r->samples[i].pages[o])
				cols |= 1UL << o;
	fprintf(out, "\nmax_ptes_none %lld\n  %8s %9s", r->max_ptes_none, "t_ms", "rss_MiB");
	for (o = 0; o <= FOLIO_MAX_ORDER; o++)
		if (cols & (1UL << o))
			fprintf(out, " %8s%-2d", "order", o);
	fprintf(out, " %8s\n", "partial");
	for (i = 0; i < r->nr_samples; i++) {
		const struct collapse_doc_sample *s = &r->samples[i];

		if (i && i + 1 < r->nr_samples &&
		    !memcmp(s->pages, r->samples[i - 1].pages, sizeof(s->pages)) &&
		    s->rss_bytes == r->samples[i - 1].rss_bytes)
			continue;
		fprintf(out, "  %8lld %9.1f", s->t_ms, (double)s->rss_bytes / (1 << 20));
		for (o = 0; o <= FOLIO_MAX_ORDER; o++)
			if (cols & (1UL << o))
				fprintf(out, " %10llu", s->pages[o]);
		fprintf(out, " %8llu\n", s->partial);
	}
}

void collapse_report_run(const struct collapse_doc_run *r, FILE *out)
{
	print_timeline(r, out);
	fprintf(out,
		"  RSS %.1f -> %.1f MiB (%+.1f MiB, x%.2f); khugepaged (system-wide) "
		"pages_collapsed %+lld, full_scans %+lld\n",
		(double)r->rss_before / (1 << 20), (double)r->rss_after / (1 << 20),
		((double)r->rss_after - (double)r->rss_before) / (1 << 20), r->bloat,
		r->pages_collapsed, r->full_scans);
	print_counters(r, out);
	if (r->rss_growth_steps && r->madvise_ns) {
		fprintf(out, "  RSS grew at %d sample(s): MADV_COLLAPSE, then khugepaged's passes "
			"if any\n", r->rss_growth_steps);
	} else if (r->rss_growth_steps) {
		if (r->rss_growth_separate >= 0)
			fprintf(out, "  RSS grew at %d sample(s) in %d khugepaged pass(es) certainly "
				"apart (%lld full scans from the first growth to the last): %+.1f "
				"KiB per pass\n", r->rss_growth_steps, r->rss_growth_separate,
				r->rss_growth_passes, r->rss_growth_per_pass / 1024);
		else
			fprintf(out, "  RSS grew at %d sample(s) over %lld khugepaged pass(es): "
				"%+.1f KiB per pass\n", r->rss_growth_steps,
				r->rss_growth_passes, r->rss_growth_per_pass / 1024);
	}
	if (r->mpn_mthp_source[0])
		fprintf(out, "  max_ptes_none for mTHP orders: %lld (%s)\n", r->mpn_mthp,
			r->mpn_mthp_source);
	fprintf(out, "  %s after %lld ms\n", r->steady ? "steady" : "not steady (timeout)",
		r->elapsed_ms);
	if (r->madvise_ns)
		fprintf(out, "  MADV_COLLAPSE took %.1f ms%s%s\n", r->madvise_ns / 1e6,
			r->madvise_error[0] ? ", error: " : "", r->madvise_error);
	if (r->has_measure)
		fprintf(out, "  chase-tlb: %.2f ns/access at order 0, %.2f after collapse (x%.2f; "
			"timing, noisy VM)\n",
			r->before.ns_per_access, r->after.ns_per_access, r->speedup);
	fprintf(out, "  => %s\n", r->statement);
}
