// SPDX-License-Identifier: GPL-2.0-or-later
/* The collapse experiment into its document's model (collapse_doc.h): the
 * measurement side of the boundary, so the document knows nothing of it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collapse.h"
#include "collapse_doc.h"
#include "mthpscope.h"
#include "topo.h"

/* config.khugepaged.alloc_sleep_millisecs: the value collapse_set_knobs writes */
#define ALLOC_SLEEP_MS 100

void collapse_doc_init(struct collapse_doc *d, const struct collapse_env *env)
{
	struct topo_info t;

	memset(d, 0, sizeof(*d));
	topo_describe(&t);
	d->has_tool = true;
	snprintf(d->tool_version, sizeof(d->tool_version), "%s", ms_version);
	results_host_describe(&d->host, &t, &env->thp);
	d->has_thp = true;
	d->thp = env->thp;
	d->has_support = true;
}

void collapse_doc_set_config(struct collapse_doc *d, const struct collapse_config *cfg,
			     const struct collapse_env *env, const int *mpn, size_t nr_mpn,
			     bool measure)
{
	struct collapse_doc_config *c = &d->config;
	int k;

	memset(c, 0, sizeof(*c));
	snprintf(c->mode, sizeof(c->mode), "%s", collapse_mode_name(cfg->mode));
	folio_orders_from_mask(&c->orders, cfg->orders);
	for (k = 1; k <= FOLIO_MAX_ORDER; k++) {
		if (!(cfg->orders & (1UL << k)))
			continue;
		c->enabled_as[c->nr_enabled_as].order = k;
		c->enabled_as[c->nr_enabled_as++].word = env->target_word[k];
	}
	for (; c->nr_max_ptes_none < nr_mpn && c->nr_max_ptes_none < COLLAPSE_DOC_MAX_MPN;
	     c->nr_max_ptes_none++)
		c->max_ptes_none[c->nr_max_ptes_none] = mpn[c->nr_max_ptes_none];
	c->fill = cfg->fill;
	c->span = (long long)cfg->span;
	c->interval_ms = cfg->interval_ms;
	c->timeout_ms = cfg->timeout_ms;
	c->seed = cfg->seed;
	c->measure = measure;
	c->has_khugepaged = cfg->mode == COLLAPSE_KHUGEPAGED;
	if (c->has_khugepaged) {
		c->scan_sleep_millisecs = cfg->scan_sleep_ms;
		c->pages_to_scan = cfg->pages_to_scan;
		c->alloc_sleep_millisecs = ALLOC_SLEEP_MS;
	}
}

static void measure_from(struct collapse_doc_measure *dm, const struct collapse_measure *m)
{
	dm->ns_per_access = m->ns_per_access;
	dm->ns_min = m->ns_min;
	dm->ns_max = m->ns_max;
	dm->accesses = (long long)m->accesses;
	dm->reps = (int)m->reps;
	memcpy(dm->pages, m->hist.pages, sizeof(dm->pages));
}

/* Creep (orders climbing, RSS growth per pass) and what the kernel did with
 * max_ptes_none for mTHP (the kernel log's rewrite message). */
static void creep_from(struct collapse_doc_run *dr, const struct collapse_run *r)
{
	dr->creep = r->creep;
	if (r->creep) {
		dr->creep_from = r->creep_from;
		dr->creep_to = r->creep_to;
		dr->creep_t_ms = r->creep_t_ms;
	}
	dr->has_rss_creep = dr->has_mpn_mthp = true;
	dr->rss_growth_steps = r->rss_growth_steps;
	dr->rss_growth_passes = r->rss_growth_passes;
	dr->rss_growth_per_pass = r->rss_growth_per_pass;
	dr->rss_growth_separate = r->rss_growth_separate;
	dr->mpn_mthp = r->mpn_mthp;
	snprintf(dr->mpn_mthp_source, sizeof(dr->mpn_mthp_source), "%s",
		 r->mpn_mthp_source ? r->mpn_mthp_source : "");
	dr->has_klog = true;
	dr->klog_readable = r->klog_readable;
	dr->klog_found = r->klog_found;
	dr->klog_kept = r->klog_found ? r->klog_kept : -1;
}

/* The last sample per PMD range: 0 or -ENOMEM (dr->ranges NULL then). */
static int ranges_from(struct collapse_doc_run *dr, const struct collapse_run *r)
{
	if (!r->nr_ranges)
		return 0;
	if (!(dr->ranges = calloc(r->nr_ranges, sizeof(*dr->ranges))))
		return -ENOMEM;
	memcpy(dr->ranges, r->ranges, r->nr_ranges * sizeof(*dr->ranges));
	dr->nr_ranges = r->nr_ranges;
	return 0;
}

int collapse_doc_add_run(struct collapse_doc *d, const struct collapse_run *r,
			 const char *verdict, const char *statement,
			 const struct collapse_measure *before, const struct collapse_measure *after)
{
	struct collapse_doc_run *runs, *dr;
	size_t i;
	int k;

	runs = realloc(d->runs, (d->nr_runs + 1) * sizeof(*runs));
	if (!runs)
		return -ENOMEM;
	d->runs = runs;
	dr = &runs[d->nr_runs];
	memset(dr, 0, sizeof(*dr));
	if (r->nr_samples && !(dr->samples = calloc(r->nr_samples, sizeof(*dr->samples))))
		return -ENOMEM;
	if (r->nr_counters && !(dr->counters = calloc((size_t)r->nr_counters,
						       sizeof(*dr->counters)))) {
		free(dr->samples);
		return -ENOMEM;
	}
	d->nr_runs++;
	dr->max_ptes_none = r->max_ptes_none;
	for (i = 0; i < r->nr_samples; i++) {
		struct collapse_doc_sample *s = &dr->samples[i];

		s->t_ms = r->timeline[i].t_ms;
		memcpy(s->pages, r->timeline[i].pages, sizeof(s->pages));
		s->partial = r->timeline[i].partial;
		s->rss_bytes = r->timeline[i].rss_bytes;
		s->full_scans = r->timeline[i].full_scans;
		for (k = 0; k <= FOLIO_MAX_ORDER; k++)
			if (s->pages[k])
				d->hist_orders |= 1UL << k;
	}
	dr->nr_samples = r->nr_samples;
	dr->steady = r->steady;
	dr->elapsed_ms = r->elapsed_ms;
	dr->span_pages = (long long)r->span_pages;
	dr->filled_pages = (long long)r->filled_pages;
	dr->rss_before = (long long)r->rss_before;
	dr->rss_after = (long long)r->rss_after;
	dr->rss_growth_bytes = dr->rss_after - dr->rss_before;
	dr->bloat = r->rss_before ? (double)r->rss_after / (double)r->rss_before : 0.0;
	dr->first_collapse_ms = r->first_collapse_ms >= 0 ? r->first_collapse_ms : -1;
	dr->pages_collapsed = r->pages_collapsed;
	dr->full_scans = r->full_scans;
	for (k = 0; k < r->nr_counters; k++) {
		dr->counters[k].order = r->counters[k].order;
		snprintf(dr->counters[k].name, sizeof(dr->counters[k].name), "%s",
			 r->counters[k].name);
		dr->counters[k].delta = r->counters[k].delta;
	}
	dr->nr_counters = (size_t)r->nr_counters;
	dr->has_madvise = !strcmp(d->config.mode, collapse_mode_name(COLLAPSE_MADVISE));
	if (r->madvise_errno)
		snprintf(dr->madvise_error, sizeof(dr->madvise_error), "%s",
			 strerror(r->madvise_errno));
	dr->madvise_ns = r->madvise_ns;
	folio_orders_from_mask(&dr->orders_reached, r->orders_reached);
	folio_orders_from_mask(&dr->orders_final, r->orders_final);
	creep_from(dr, r);
	snprintf(dr->verdict, sizeof(dr->verdict), "%s", verdict);
	snprintf(dr->statement, sizeof(dr->statement), "%s", statement);
	dr->has_measure = before && after;
	if (dr->has_measure) {
		measure_from(&dr->before, before);
		measure_from(&dr->after, after);
		dr->speedup = after->ns_per_access > 0
				      ? before->ns_per_access / after->ns_per_access : 0.0;
	}
	return ranges_from(dr, r);
}

