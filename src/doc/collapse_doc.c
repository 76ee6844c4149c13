// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The collapse document (mthpscope.collapse/1): the writer of the typed
 * model and its reader, which fills the same model back for 'plot' and
 * 'collapse --plot'. The model is filled from a measurement by
 * src/measure/collapse_record.c. The schema is spelled in collapse_doc.h only.
 */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collapse_doc.h"
#include "json_read.h"
#include "json_write.h"
#include "mthpscope.h"
#include "results.h"

/* Fixed words of the document: written by the writer, checked by the reader. */
#define W_COMMAND "collapse"
#define W_TOOL "mthpscope"
#define W_PATTERN "chase-tlb"
#define W_TIMING "timing"
#define W_SCOPE "system-wide"
#define W_KERNEL "kernel"
#define W_BEFORE "identical span, every page at order 0"
#define W_AFTER "the collapsed span, remaining holes faulted at order 0"

/* ---- the writer ---------------------------------------------------------- */

static json_t *orders_json(const struct folio_orders *o)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < o->nr; i++)
		json_array_append_new(a, json_integer(o->order[i]));
	return a;
}

static json_t *measure_json(const struct collapse_doc_measure *m, const char *what)
{
	return json_pack("{s:s, s:s, s:{s:f, s:s, s:f, s:f}, s:I, s:i, s:o}", "pattern",
			 W_PATTERN, "span_state", what, "ns_per_access", "value",
			 m->ns_per_access, "source", W_TIMING, "min", m->ns_min, "max", m->ns_max,
			 "accesses", (json_int_t)m->accesses, "reps", m->reps, "hist",
			 wr_order_counts(m->pages, FOLIO_MAX_ORDER));
}

/* $.runs[i].rss_creep (separate_passes absent where the document had none) */
static json_t *rss_creep_json(const struct collapse_doc_run *r)
{
	json_t *c = json_pack("{s:i, s:I, s:f}", "steps", r->rss_growth_steps, "passes",
			      (json_int_t)r->rss_growth_passes, "per_pass_bytes",
			      r->rss_growth_per_pass);

	if (c && r->rss_growth_separate >= 0)
		json_object_set_new(c, "separate_passes", json_integer(r->rss_growth_separate));
	return c;
}

/* $.runs[i].final_ranges: [{range, hist, partial}], range k the span's k-th */
static json_t *ranges_json(const struct collapse_doc_run *r)
{
	json_t *a = json_array();
	size_t k;

	for (k = 0; a && k < r->nr_ranges; k++)
		if (json_array_append_new(a, json_pack("{s:I, s:o, s:I}", "range", (json_int_t)k,
						       "hist", wr_order_counts(r->ranges[k].pages,
									       FOLIO_MAX_ORDER),
						       "partial", (json_int_t)r->ranges[k].partial))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *run_json(const struct collapse_doc_run *r)
{
	json_t *tl = json_array(), *ctrs = json_array(), *doc;
	size_t i;

	for (i = 0; i < r->nr_samples; i++) {
		const struct collapse_doc_sample *s = &r->samples[i];

		json_t *js = json_pack("{s:I, s:o, s:I, s:I}", "t_ms", (json_int_t)s->t_ms,
				       "hist", wr_order_counts(s->pages, FOLIO_MAX_ORDER),
				       "partial", (json_int_t)s->partial, "rss_bytes",
				       (json_int_t)s->rss_bytes);

		if (js && s->full_scans >= 0)
			json_object_set_new(js, "full_scans", json_integer(s->full_scans));
		json_array_append_new(tl, js);
	}
	for (i = 0; i < r->nr_counters; i++)
		json_array_append_new(ctrs, json_pack("{s:i, s:s, s:I}", "order",
						      r->counters[i].order, "name",
						      r->counters[i].name, "delta",
						      (json_int_t)r->counters[i].delta));
	doc = json_pack("{s:I, s:o, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:f}", "max_ptes_none",
			(json_int_t)r->max_ptes_none, "timeline", tl, "steady", r->steady,
			"elapsed_ms", (json_int_t)r->elapsed_ms, "span_pages",
			(json_int_t)r->span_pages, "filled_pages", (json_int_t)r->filled_pages,
			"rss_before", (json_int_t)r->rss_before, "rss_after",
			(json_int_t)r->rss_after, "rss_growth_bytes",
			(json_int_t)r->rss_growth_bytes, "bloat", r->bloat);
	if (!doc) {
		json_decref(ctrs);
		return NULL;
	}
	json_object_set_new(doc, "first_collapse_ms",
			    r->first_collapse_ms >= 0 ? json_integer(r->first_collapse_ms)
						      : json_null());
	json_object_set_new(doc, "khugepaged",
			    json_pack("{s:I, s:I, s:s, s:s}", "pages_collapsed",
				      (json_int_t)r->pages_collapsed, "full_scans",
				      (json_int_t)r->full_scans, "scope", W_SCOPE, "source",
				      W_KERNEL));
	json_object_set_new(doc, "collapse_counters", ctrs);
	if (r->has_madvise)
		json_object_set_new(doc, "madvise",
				    json_pack("{s:o, s:I}", "error",
					      r->madvise_error[0] ? json_string(r->madvise_error)
								  : json_null(),
					      "ns", (json_int_t)r->madvise_ns));
	json_object_set_new(doc, "orders_reached", orders_json(&r->orders_reached));
	json_object_set_new(doc, "orders_final", orders_json(&r->orders_final));
	json_object_set_new(doc, "creep",
			    r->creep ? json_pack("{s:b, s:i, s:i, s:I}", "happened", 1, "from",
						 r->creep_from, "to", r->creep_to, "t_ms",
						 (json_int_t)r->creep_t_ms)
				     : json_pack("{s:b}", "happened", 0));
	if (r->has_rss_creep)
		json_object_set_new(doc, "rss_creep", rss_creep_json(r));
	if (r->has_mpn_mthp)
		json_object_set_new(doc, "mthp_max_ptes_none",
			    json_pack("{s:o, s:o}", "value",
				      r->mpn_mthp >= 0 ? json_integer(r->mpn_mthp) : json_null(),
				      "source", r->mpn_mthp_source[0]
						? json_string(r->mpn_mthp_source) : json_null()));
	if (r->has_klog)
		json_object_set_new(doc, "kernel_log",
				    json_pack("{s:b, s:b, s:o}", "readable", r->klog_readable,
					      "rewrite_message", r->klog_found, "kept",
					      r->klog_kept >= 0 ? json_integer(r->klog_kept)
								: json_null()));
	json_object_set_new(doc, "verdict", json_string(r->verdict));
	json_object_set_new(doc, "statement", json_string(r->statement));
	if (r->has_measure)
		json_object_set_new(doc, "measure",
				    json_pack("{s:o, s:o, s:f}", "before",
					      measure_json(&r->before, W_BEFORE), "after",
					      measure_json(&r->after, W_AFTER), "speedup",
					      r->speedup));
	if (r->nr_ranges)
		json_object_set_new(doc, "final_ranges", ranges_json(r));
	return doc;
}

static json_t *config_json(const struct collapse_doc_config *c)
{
	json_t *mpn = json_array(), *words = json_object(), *cfg;
	size_t i;

	for (i = 0; mpn && i < c->nr_max_ptes_none; i++)
		json_array_append_new(mpn, json_integer(c->max_ptes_none[i]));
	for (i = 0; words && i < c->nr_enabled_as; i++) {
		char k[8];

		snprintf(k, sizeof(k), "%d", c->enabled_as[i].order);
		json_object_set_new(words, k, json_string(thp_word_name(c->enabled_as[i].word)));
	}
	cfg = json_pack("{s:s, s:s, s:o, s:o, s:o, s:f, s:I, s:I, s:I, s:I, s:b}", "command",
			W_COMMAND, "mode", c->mode, "orders", orders_json(&c->orders),
			"enabled_as", words, "max_ptes_none", mpn, "fill", c->fill, "span",
			(json_int_t)c->span, "interval_ms", (json_int_t)c->interval_ms,
			"timeout_ms", (json_int_t)c->timeout_ms, "seed", (json_int_t)c->seed,
			"measure", c->measure);
	if (cfg && c->has_khugepaged)
		json_object_set_new(cfg, "khugepaged",
				    json_pack("{s:I, s:I, s:I}", "scan_sleep_millisecs",
					      (json_int_t)c->scan_sleep_millisecs, "pages_to_scan",
					      (json_int_t)c->pages_to_scan,
					      "alloc_sleep_millisecs",
					      (json_int_t)c->alloc_sleep_millisecs));
	return cfg;
}

int collapse_doc_json(const struct collapse_doc *d, json_t **out)
{
	json_t *doc, *runs = NULL, *last = NULL, *v;
	int rc = -ENOMEM;
	size_t r;

	*out = NULL;
	doc = json_pack("{s:s}", "schema", COLLAPSE_SCHEMA);
	if (!doc)
		return -ENOMEM;
	if (d->has_tool &&
	    json_object_set_new(doc, "tool", json_pack("{s:s, s:s}", "name", W_TOOL, "version",
							d->tool_version)))
		goto out;
	if (json_object_set_new(doc, "host", results_host_to_json(&d->host)))
		goto out;
	if (d->has_thp && json_object_set_new(doc, "thp", results_thp_json(&d->thp, d->thp_stats)))
		goto out;
	/* what the kernel offers for collapse, as read from its sysfs */
	if (d->has_support &&
	    json_object_set_new(doc, "kernel_support",
				json_pack("{s:b, s:b}", "mthp_collapse", d->thp.mthp_collapse,
					  "size_defer", d->thp.size_defer)))
		goto out;
	if (json_object_set_new(doc, "config", config_json(&d->config)))
		goto out;
	if (d->interrupted && json_object_set_new(doc, "interrupted", json_true()))
		goto out;
	if (!(runs = json_array()))
		goto out;
	for (r = 0; r < d->nr_runs; r++) {
		if (!(v = run_json(&d->runs[r])) || json_array_append_new(runs, v))
			goto out;
		last = v;
	}
	/* The last run's fields at the top level: a single-value run reads
	 * like a flat document. */
	if (last && json_object_update(doc, last))
		goto out;
	if (json_object_set(doc, "runs", runs))
		goto out;
	*out = doc;
	doc = NULL;
	rc = 0;
out:
	json_decref(runs);
	json_decref(doc);
	return rc;
}

/* ---- the reader ---------------------------------------------------------- */

static int read_orders(json_t *o, const char *path, const char *key,
		       struct folio_orders *out, char *err, size_t errsize)
{
	unsigned long seen = 0;
	json_t *a = json_object_get(o, key), *v;
	size_t i;
	int rc;

	if ((rc = rd_want(o, path, key, JSON_ARRAY, false, err, errsize)) || !a)
		return rc;
	json_array_foreach(a, i, v) {
		long long k;

		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > FOLIO_MAX_ORDER)
			return ms_fail(err, errsize, -EBADMSG, "%s.%s[%zu]: expected an order 0-%d, "
				    "found %s", path, key, i, FOLIO_MAX_ORDER, rd_terse_type(v));
		k = json_integer_value(v);
		if (seen & (1UL << k))
			return ms_fail(err, errsize, -EBADMSG, "%s.%s[%zu]: order %lld twice", path,
				    key, i, k);
		seen |= 1UL << k;
		out->order[out->nr++] = (int)k;
	}
	return 0;
}

void collapse_doc_free(struct collapse_doc *d)
{
	size_t r;

	if (!d)
		return;
	for (r = 0; r < d->nr_runs; r++) {
		free(d->runs[r].samples);
		free(d->runs[r].counters);
		free(d->runs[r].ranges);
	}
	free(d->runs);
	memset(d, 0, sizeof(*d));
}

/* $.runs[r].timeline[i].hist: keys are folio orders spelled as plain decimal
 * (no sign, no leading zero), values page counts. */
static int read_hist(json_t *hist, const char *hp, unsigned long long *pages,
		     unsigned long *seen, char *err, size_t errsize)
{
	const char *k;
	json_t *v;

	json_object_foreach(hist, k, v) {
		char *end, canon[8];
		long o;

		errno = 0;
		o = strtol(k, &end, 10);
		if (!*k || *end || errno || o < 0 || o > FOLIO_MAX_ORDER ||
		    !isdigit((unsigned char)*k))
			return ms_fail(err, errsize, -EBADMSG, "%s.hist: key '%s' is not a "
				    "folio order 0-%d", hp, k, FOLIO_MAX_ORDER);
		snprintf(canon, sizeof(canon), "%ld", o);
		if (strcmp(canon, k))
			return ms_fail(err, errsize, -EBADMSG, "%s.hist: key '%s' is not a "
				    "folio order as written by collapse (expected '%s')", hp, k,
				    canon);
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return ms_fail(err, errsize, -EBADMSG, "%s.hist.%s: expected a page "
				    "count (an integer >= 0), found %s", hp, k, rd_terse_type(v));
		pages[o] = (unsigned long long)json_integer_value(v);
		if (seen)
			*seen |= 1UL << o;
	}
	return 0;
}

/* hist, required when 'required'; object checked here. */
static int read_hist_at(json_t *o, const char *path, bool required, unsigned long long *pages,
			unsigned long *seen, char *err, size_t errsize)
{
	int rc = rd_want(o, path, "hist", JSON_OBJECT, required, err, errsize);

	if (rc || !json_object_get(o, "hist"))
		return rc;
	return read_hist(json_object_get(o, "hist"), path, pages, seen, err, errsize);
}

static int read_measure(json_t *m, const char *path, const char *state,
			struct collapse_doc_measure *dm, char *err, size_t errsize)
{
	json_t *npa;
	char p[160];
	int rc;

	if (!json_is_object(m))
		return rd_want_not_object(m, path, err, errsize);
	snprintf(p, sizeof(p), "%s.ns_per_access", path);
	if ((rc = rd_want_word(m, path, "pattern", W_PATTERN, err, errsize)) ||
	    (rc = rd_want_word(m, path, "span_state", state, err, errsize)) ||
	    (rc = rd_want(m, path, "ns_per_access", JSON_OBJECT, true, err, errsize)))
		return rc;
	npa = json_object_get(m, "ns_per_access");
	if ((rc = rd_want_num(npa, p, "value", true, &dm->ns_per_access, err, errsize)) ||
	    (rc = rd_want_word(npa, p, "source", W_TIMING, err, errsize)) ||
	    (rc = rd_want_num(npa, p, "min", false, &dm->ns_min, err, errsize)) ||
	    (rc = rd_want_num(npa, p, "max", false, &dm->ns_max, err, errsize)) ||
	    (rc = rd_want_int(m, path, "accesses", false, 0, LLONG_MAX, &dm->accesses, err,
			   errsize)) ||
	    (rc = rd_want_int(m, path, "reps", false, 0, 1 << 20, &dm->reps, err, errsize)) ||
	    (rc = read_hist_at(m, path, false, dm->pages, NULL, err, errsize)))
		return rc;
	return 0;
}

/* rss_creep, mthp_max_ptes_none, kernel_log: each optional. */
static int read_run_mthp(json_t *run, const char *path, struct collapse_doc_run *dr, char *err,
			 size_t errsize)
{
	json_t *v, *x;
	char p[160];
	int rc;

	dr->mpn_mthp = dr->klog_kept = -1;
	dr->rss_growth_separate = -1;
	if ((rc = rd_want(run, path, "rss_creep", JSON_OBJECT, false, err, errsize)) ||
	    (rc = rd_want(run, path, "mthp_max_ptes_none", JSON_OBJECT, false, err, errsize)) ||
	    (rc = rd_want(run, path, "kernel_log", JSON_OBJECT, false, err, errsize)))
		return rc;
	if ((v = json_object_get(run, "rss_creep"))) {
		dr->has_rss_creep = true;
		snprintf(p, sizeof(p), "%s.rss_creep", path);
		if ((rc = rd_want_int(v, p, "steps", true, 0, INT_MAX, &dr->rss_growth_steps, err,
				   errsize)) ||
		    (rc = rd_want_int(v, p, "passes", true, 0, LLONG_MAX, &dr->rss_growth_passes, err,
				   errsize)) ||
		    (rc = rd_want_num(v, p, "per_pass_bytes", true, &dr->rss_growth_per_pass, err,
				   errsize)) ||
		    (rc = rd_want_int(v, p, "separate_passes", false, 0, INT_MAX,
				      &dr->rss_growth_separate, err, errsize)))
			return rc;
	}
	if ((v = json_object_get(run, "mthp_max_ptes_none"))) {
		dr->has_mpn_mthp = true;
		snprintf(p, sizeof(p), "%s.mthp_max_ptes_none", path);
		if ((x = json_object_get(v, "value")) && !json_is_null(x) &&
		    (rc = rd_want_int(v, p, "value", false, 0, 1 << 20, &dr->mpn_mthp, err, errsize)))
			return rc;
		if ((x = json_object_get(v, "source")) && !json_is_null(x) &&
		    (rc = rd_want_str(v, p, "source", false, dr->mpn_mthp_source,
				   sizeof(dr->mpn_mthp_source), err, errsize)))
			return rc;
	}
	if ((v = json_object_get(run, "kernel_log"))) {
		dr->has_klog = true;
		snprintf(p, sizeof(p), "%s.kernel_log", path);
		if ((rc = rd_want_bool(v, p, "readable", true, &dr->klog_readable, err, errsize)) ||
		    (rc = rd_want_bool(v, p, "rewrite_message", true, &dr->klog_found, err, errsize)))
			return rc;
		if ((x = json_object_get(v, "kept")) && !json_is_null(x) &&
		    (rc = rd_want_int(v, p, "kept", false, 0, 1 << 20, &dr->klog_kept, err, errsize)))
			return rc;
	}
	return 0;
}

/* The run's summary: absent in hand-made documents, each field optional. */
/* $.runs[i].collapse_counters */
static int read_run_counters(json_t *run, const char *path, struct collapse_doc_run *dr,
			     char *err, size_t errsize)
{
	json_t *v, *c;
	char p[160];
	size_t i;
	int rc;

	if ((rc = rd_want(run, path, "collapse_counters", JSON_ARRAY, false, err, errsize)))
		return rc;
	v = json_object_get(run, "collapse_counters");
	if (json_array_size(v) &&
	    !(dr->counters = calloc(json_array_size(v), sizeof(*dr->counters))))
		return ms_fail(err, errsize, -ENOMEM, "%s.collapse_counters: out of memory", path);
	json_array_foreach(v, i, c) {
		struct collapse_doc_counter *k = &dr->counters[i];

		snprintf(p, sizeof(p), "%s.collapse_counters[%zu]", path, i);
		if (!json_is_object(c))
			return rd_want_not_object(c, p, err, errsize);
		if ((rc = rd_want_int(c, p, "order", true, 0, FOLIO_MAX_ORDER, &k->order, err,
				   errsize)) ||
		    (rc = rd_want_str(c, p, "name", true, k->name, sizeof(k->name), err, errsize)) ||
		    (rc = rd_want_int(c, p, "delta", true, LLONG_MIN, LLONG_MAX, &k->delta, err,
				   errsize)))
			return rc;
		dr->nr_counters = i + 1;
	}
	return 0;
}

/* $.runs[i].creep (v, may be NULL) */
static int read_run_creep(json_t *v, const char *path, struct collapse_doc_run *dr, char *err,
			  size_t errsize)
{
	char p[160];
	int rc;

	if (v) {
		snprintf(p, sizeof(p), "%s.creep", path);
		if ((rc = rd_want_bool(v, p, "happened", true, &dr->creep, err, errsize)))
			return rc;
		if (dr->creep) {
			if ((rc = rd_want_int(v, p, "from", true, 0, FOLIO_MAX_ORDER, &dr->creep_from,
					       err, errsize)) ||
			    (rc = rd_want_int(v, p, "to", true, 0, FOLIO_MAX_ORDER, &dr->creep_to, err,
					       errsize)) ||
			    (rc = rd_want_int(v, p, "t_ms", true, 0, LLONG_MAX, &dr->creep_t_ms, err,
					       errsize)))
				return rc;
		}
	}
	return 0;
}

/* $.runs[i].measure (v, may be NULL) */
static int read_run_measure(json_t *v, const char *path, struct collapse_doc_run *dr, char *err,
			    size_t errsize)
{
	char p[160];
	int rc;

	if (v) {
		dr->has_measure = true;
		snprintf(p, sizeof(p), "%s.measure", path);
		if ((rc = rd_want(v, p, "before", JSON_OBJECT, true, err, errsize)) ||
		    (rc = rd_want(v, p, "after", JSON_OBJECT, true, err, errsize)) ||
		    (rc = rd_want_num(v, p, "speedup", false, &dr->speedup, err, errsize)))
			return rc;
		snprintf(p, sizeof(p), "%s.measure.before", path);
		if ((rc = read_measure(json_object_get(v, "before"), p, W_BEFORE, &dr->before, err,
				       errsize)))
			return rc;
		snprintf(p, sizeof(p), "%s.measure.after", path);
		if ((rc = read_measure(json_object_get(v, "after"), p, W_AFTER, &dr->after, err,
				       errsize)))
			return rc;
	}
	return 0;
}

/* $.runs[i].final_ranges (optional): range k at position k, its hist */
static int read_run_ranges(json_t *run, const char *path, struct collapse_doc_run *dr,
			   char *err, size_t errsize)
{
	json_t *v, *c;
	long long at;
	char p[160];
	size_t i;
	int rc;

	if ((rc = rd_want(run, path, "final_ranges", JSON_ARRAY, false, err, errsize)))
		return rc;
	v = json_object_get(run, "final_ranges");
	if (json_array_size(v) && !(dr->ranges = calloc(json_array_size(v), sizeof(*dr->ranges))))
		return ms_fail(err, errsize, -ENOMEM, "%s.final_ranges: out of memory", path);
	json_array_foreach(v, i, c) {
		struct collapse_doc_range *g = &dr->ranges[i];

		snprintf(p, sizeof(p), "%s.final_ranges[%zu]", path, i);
		if (!json_is_object(c))
			return rd_want_not_object(c, p, err, errsize);
		if ((rc = rd_want_int(c, p, "range", true, 0, LLONG_MAX, &at, err, errsize)) ||
		    (rc = read_hist_at(c, p, true, g->pages, NULL, err, errsize)) ||
		    (rc = rd_want_int(c, p, "partial", false, 0, LLONG_MAX, &g->partial, err,
				      errsize)))
			return rc;
		if (at != (long long)i)
			return ms_fail(err, errsize, -EBADMSG, "%s.range: %lld, expected %zu (the "
				    "ranges in the span's order)", p, at, i);
		dr->nr_ranges = i + 1;
	}
	return 0;
}

static int read_run_summary(json_t *run, const char *path, struct collapse_doc_run *dr,
			    char *err, size_t errsize)
{
	json_t *v, *c;
	char p[160];
	int rc;

	if ((rc = rd_want_bool(run, path, "steady", false, &dr->steady, err, errsize)) ||
	    (rc = rd_want_int(run, path, "elapsed_ms", false, 0, LLONG_MAX, &dr->elapsed_ms, err,
			   errsize)) ||
	    (rc = rd_want_int(run, path, "span_pages", false, 0, LLONG_MAX, &dr->span_pages, err,
			   errsize)) ||
	    (rc = rd_want_int(run, path, "filled_pages", false, 0, LLONG_MAX, &dr->filled_pages,
			   err, errsize)) ||
	    (rc = rd_want_int(run, path, "rss_before", false, 0, LLONG_MAX, &dr->rss_before, err,
			   errsize)) ||
	    (rc = rd_want_int(run, path, "rss_after", false, 0, LLONG_MAX, &dr->rss_after, err,
			   errsize)) ||
	    (rc = rd_want_int(run, path, "rss_growth_bytes", false, LLONG_MIN, LLONG_MAX,
			   &dr->rss_growth_bytes, err, errsize)) ||
	    (rc = rd_want_num(run, path, "bloat", false, &dr->bloat, err, errsize)))
		return rc;
	dr->first_collapse_ms = -1;
	if ((v = json_object_get(run, "first_collapse_ms")) && !json_is_null(v) &&
	    (rc = rd_want_int(run, path, "first_collapse_ms", false, 0, LLONG_MAX,
			   &dr->first_collapse_ms, err, errsize)))
		return rc;
	if ((rc = rd_want(run, path, "khugepaged", JSON_OBJECT, false, err, errsize)))
		return rc;
	if ((v = json_object_get(run, "khugepaged"))) {
		snprintf(p, sizeof(p), "%s.khugepaged", path);
		if ((rc = rd_want_int(v, p, "pages_collapsed", false, LLONG_MIN, LLONG_MAX,
				   &dr->pages_collapsed, err, errsize)) ||
		    (rc = rd_want_int(v, p, "full_scans", false, LLONG_MIN, LLONG_MAX,
				   &dr->full_scans, err, errsize)) ||
		    (rc = rd_want_word(v, p, "scope", W_SCOPE, err, errsize)) ||
		    (rc = rd_want_word(v, p, "source", W_KERNEL, err, errsize)))
			return rc;
	}
	if ((rc = read_run_counters(run, path, dr, err, errsize)))
		return rc;
	if ((rc = rd_want(run, path, "madvise", JSON_OBJECT, false, err, errsize)))
		return rc;
	if ((v = json_object_get(run, "madvise"))) {
		dr->has_madvise = true;
		snprintf(p, sizeof(p), "%s.madvise", path);
		if ((c = json_object_get(v, "error")) && !json_is_null(c) &&
		    (rc = rd_want_str(v, p, "error", false, dr->madvise_error,
				   sizeof(dr->madvise_error), err, errsize)))
			return rc;
		if (c && json_is_string(c) && !dr->madvise_error[0])
			return ms_fail(err, errsize, -EBADMSG, "%s.error: empty (null when none)", p);
		if ((rc = rd_want_int(v, p, "ns", false, 0, LLONG_MAX, &dr->madvise_ns, err,
				   errsize)))
			return rc;
	}
	if ((rc = read_orders(run, path, "orders_reached", &dr->orders_reached, err, errsize)) ||
	    (rc = read_orders(run, path, "orders_final", &dr->orders_final, err, errsize)) ||
	    (rc = rd_want(run, path, "creep", JSON_OBJECT, false, err, errsize)))
		return rc;
	if ((rc = read_run_creep(json_object_get(run, "creep"), path, dr, err, errsize)))
		return rc;
	if ((rc = read_run_mthp(run, path, dr, err, errsize)))
		return rc;
	if ((rc = rd_want_str(run, path, "verdict", false, dr->verdict, sizeof(dr->verdict), err,
			   errsize)) ||
	    (rc = rd_want_str(run, path, "statement", false, dr->statement, sizeof(dr->statement),
			   err, errsize)) ||
	    (rc = rd_want(run, path, "measure", JSON_OBJECT, false, err, errsize)))
		return rc;
	if ((rc = read_run_measure(json_object_get(run, "measure"), path, dr, err, errsize)))
		return rc;
	return read_run_ranges(run, path, dr, err, errsize);
}

/* What khugepaged/max_ptes_none may be: the kernel takes 0 to HPAGE_PMD_NR - 1,
 * the base pages of a PMD less one (511 with 4K pages, 2047 with 16K, 8191
 * with 64K on arm64). From the document's host (pmd_size, else pmd_order);
 * a host that says neither gets the bound of the largest PMD order read. */
struct mpn_range {
	long long max;
	char why[128];
};

static int mpn_range_of(const struct results_host *h, struct mpn_range *m, char *err,
			size_t errsize)
{
	unsigned long ps = (unsigned long)h->topo.page_size, pages;

	if (h->pmd_size) {
		pages = h->pmd_size / ps;
		if (h->pmd_size % ps || pages < 2 || (pages & (pages - 1)))
			return ms_fail(err, errsize, -EBADMSG, "$.host.pmd_size: %lu is not a "
				    "power-of-two number (at least 2) of %lu-byte pages",
				    h->pmd_size, ps);
		if (h->pmd_order && pages != 1UL << h->pmd_order)
			return ms_fail(err, errsize, -EBADMSG, "$.host.pmd_size: %lu is %lu pages "
				    "of %lu bytes, but $.host.pmd_order is %d", h->pmd_size, pages,
				    ps, h->pmd_order);
		snprintf(m->why, sizeof(m->why), "a %lu-byte PMD holds %lu pages of %lu bytes",
			 h->pmd_size, pages, ps);
	} else if (h->pmd_order) {
		pages = 1UL << h->pmd_order;
		snprintf(m->why, sizeof(m->why), "a PMD of order %d holds %lu pages",
			 h->pmd_order, pages);
	} else {
		pages = 1UL << FOLIO_MAX_ORDER;
		snprintf(m->why, sizeof(m->why), "$.host gives no PMD size; no PMD holds more "
			 "than %lu pages", pages);
	}
	m->max = (long long)pages - 1;
	return 0;
}

static int check_mpn(const struct mpn_range *m, const char *path, long long v, char *err,
		     size_t errsize)
{
	if (v < 0 || v > m->max)
		return ms_fail(err, errsize, -EBADMSG, "%s: %lld is out of range [0, %lld] (%s)",
			    path, v, m->max, m->why);
	return 0;
}

static int read_run(json_t *run, const char *path, const struct mpn_range *mpn,
		    struct collapse_doc_run *dr, unsigned long *seen, char *err, size_t errsize)
{
	json_t *tl, *smp;
	char hp[128];
	size_t i;
	int rc;

	if (!json_is_object(run))
		return rd_want_not_object(run, path, err, errsize);
	if ((rc = rd_want(run, path, "max_ptes_none", JSON_INTEGER, true, err, errsize)) ||
	    (rc = rd_want(run, path, "timeline", JSON_ARRAY, true, err, errsize)))
		return rc;
	dr->max_ptes_none = json_integer_value(json_object_get(run, "max_ptes_none"));
	snprintf(hp, sizeof(hp), "%s.max_ptes_none", path);
	if ((rc = check_mpn(mpn, hp, dr->max_ptes_none, err, errsize)))
		return rc;
	tl = json_object_get(run, "timeline");
	if (json_array_size(tl)) {
		dr->samples = calloc(json_array_size(tl), sizeof(*dr->samples));
		if (!dr->samples)
			return ms_fail(err, errsize, -ENOMEM, "%s.timeline: out of memory", path);
	}
	json_array_foreach(tl, i, smp) {
		struct collapse_doc_sample *s = &dr->samples[i];

		snprintf(hp, sizeof(hp), "%s.timeline[%zu]", path, i);
		if (!json_is_object(smp))
			return rd_want_not_object(smp, hp, err, errsize);
		if ((rc = rd_want(smp, hp, "t_ms", JSON_INTEGER, true, err, errsize)) ||
		    (rc = rd_want(smp, hp, "hist", JSON_OBJECT, true, err, errsize)))
			return rc;
		s->t_ms = json_integer_value(json_object_get(smp, "t_ms"));
		if ((rc = read_hist(json_object_get(smp, "hist"), hp, s->pages, seen, err,
				    errsize)))
			return rc;
		/* partial and rss_bytes stay calloc's 0 when absent */
		if ((rc = rd_want_int(smp, hp, "partial", false, 0, LLONG_MAX, &s->partial, err,
				   errsize)) ||
		    (rc = rd_want_int(smp, hp, "rss_bytes", false, 0, LLONG_MAX, &s->rss_bytes, err,
				   errsize)))
			return rc;
		s->full_scans = -1;
		if ((rc = rd_want_int(smp, hp, "full_scans", false, 0, LLONG_MAX, &s->full_scans,
				   err, errsize)))
			return rc;
		dr->nr_samples = i + 1;
	}
	return read_run_summary(run, path, dr, err, errsize);
}

static int read_config(json_t *cfg, const struct mpn_range *mpn, struct collapse_doc_config *c,
		       char *err, size_t errsize)
{
	const char *p = "$.config", *k;
	char ep[64];
	json_t *v, *w;
	size_t i;
	int rc;

	if ((rc = rd_want_word(cfg, p, "command", W_COMMAND, err, errsize)) ||
	    (rc = rd_want_str(cfg, p, "mode", false, c->mode, sizeof(c->mode), err, errsize)) ||
	    (rc = rd_want_int(cfg, p, "span", false, 0, LLONG_MAX, &c->span, err, errsize)) ||
	    (rc = rd_want_num(cfg, p, "fill", false, &c->fill, err, errsize)) ||
	    (rc = read_orders(cfg, p, "orders", &c->orders, err, errsize)) ||
	    (rc = rd_want(cfg, p, "enabled_as", JSON_OBJECT, false, err, errsize)) ||
	    (rc = rd_want(cfg, p, "max_ptes_none", JSON_ARRAY, false, err, errsize)) ||
	    (rc = rd_want_int(cfg, p, "interval_ms", false, 0, LLONG_MAX, &c->interval_ms, err,
			   errsize)) ||
	    (rc = rd_want_int(cfg, p, "timeout_ms", false, 0, LLONG_MAX, &c->timeout_ms, err,
			   errsize)) ||
	    (rc = rd_want_int(cfg, p, "seed", false, 0, LLONG_MAX, (long long *)&c->seed, err,
			   errsize)) ||
	    (rc = rd_want_bool(cfg, p, "measure", false, &c->measure, err, errsize)) ||
	    (rc = rd_want(cfg, p, "khugepaged", JSON_OBJECT, false, err, errsize)))
		return rc;
	json_object_foreach(json_object_get(cfg, "enabled_as"), k, w) {
		char *end;
		long o;
		int x;

		errno = 0;
		o = strtol(k, &end, 10);
		if (!isdigit((unsigned char)*k) || *end || errno || o < 1 || o > FOLIO_MAX_ORDER ||
		    (*k == '0'))
			return ms_fail(err, errsize, -EBADMSG, "$.config.enabled_as: key '%s' is not "
				    "an order 1-%d", k, FOLIO_MAX_ORDER);
		x = json_is_string(w) ? thp_word_parse(json_string_value(w)) : -EINVAL;
		if (x < 0)
			return ms_fail(err, errsize, -EBADMSG, "$.config.enabled_as.%s: expected a "
				    "THP word, found %s", k, rd_terse_type(w));
		c->enabled_as[c->nr_enabled_as].order = (int)o;
		c->enabled_as[c->nr_enabled_as++].word = (enum thp_word)x;
	}
	v = json_object_get(cfg, "max_ptes_none");
	if (json_array_size(v) > COLLAPSE_DOC_MAX_MPN)
		return ms_fail(err, errsize, -EBADMSG, "$.config.max_ptes_none: more than %d values",
			    COLLAPSE_DOC_MAX_MPN);
	json_array_foreach(v, i, w) {
		snprintf(ep, sizeof(ep), "$.config.max_ptes_none[%zu]", i);
		if (!json_is_integer(w))
			return ms_fail(err, errsize, -EBADMSG, "%s: expected an integer, found %s",
				    ep, rd_terse_type(w));
		if ((rc = check_mpn(mpn, ep, json_integer_value(w), err, errsize)))
			return rc;
		c->max_ptes_none[c->nr_max_ptes_none++] = (int)json_integer_value(w);
	}
	if ((v = json_object_get(cfg, "khugepaged"))) {
		c->has_khugepaged = true;
		p = "$.config.khugepaged";
		if ((rc = rd_want_int(v, p, "scan_sleep_millisecs", true, 0, LLONG_MAX,
				   &c->scan_sleep_millisecs, err, errsize)) ||
		    (rc = rd_want_int(v, p, "pages_to_scan", true, 0, LLONG_MAX, &c->pages_to_scan,
				   err, errsize)) ||
		    (rc = rd_want_int(v, p, "alloc_sleep_millisecs", true, 0, LLONG_MAX,
				   &c->alloc_sleep_millisecs, err, errsize)))
			return rc;
	}
	return 0;
}

static int read_doc(json_t *doc, struct collapse_doc *d, char *err, size_t errsize)
{
	json_t *runs, *cfg, *host, *run, *v;
	struct mpn_range mpn;
	char path[96];
	size_t r;
	int rc;

	if ((rc = rd_want_schema(doc, COLLAPSE_SCHEMA, COLLAPSE_SCHEMA_PREFIX, "collapse", err,
				 errsize)) ||
	    (rc = rd_want(doc, "$", "tool", JSON_OBJECT, false, err, errsize)) ||
	    (rc = rd_want(doc, "$", "host", JSON_OBJECT, true, err, errsize)) ||
	    (rc = rd_want(doc, "$", "thp", JSON_OBJECT, false, err, errsize)) ||
	    (rc = rd_want(doc, "$", "config", JSON_OBJECT, true, err, errsize)) ||
	    (rc = rd_want(doc, "$", "runs", JSON_ARRAY, true, err, errsize)) ||
	    (rc = rd_want_bool(doc, "$", "interrupted", false, &d->interrupted, err, errsize)))
		return rc;
	if ((v = json_object_get(doc, "tool"))) {
		d->has_tool = true;
		if ((rc = rd_want_word(v, "$.tool", "name", W_TOOL, err, errsize)) ||
		    (rc = rd_want_str(v, "$.tool", "version", true, d->tool_version,
				   sizeof(d->tool_version), err, errsize)))
			return rc;
	}
	host = json_object_get(doc, "host");
	cfg = json_object_get(doc, "config");
	runs = json_object_get(doc, "runs");
	if ((rc = rd_want(host, "$.host", "page_size", JSON_INTEGER, true, err, errsize)) ||
	    (rc = results_host_read(host, "$.host", &d->host, err, errsize)))
		return rc;
	if (d->host.topo.page_size <= 0)
		return ms_fail(err, errsize, -EBADMSG, "$.host.page_size: %ld is not a page size",
			    d->host.topo.page_size);
	if ((v = json_object_get(doc, "thp"))) {
		d->has_thp = true;
		if ((rc = results_thp_read(v, "$.thp", &d->thp, &d->thp_stats, err, errsize)))
			return rc;
	}
	if ((rc = rd_want(doc, "$", "kernel_support", JSON_OBJECT, false, err, errsize)))
		return rc;
	if ((v = json_object_get(doc, "kernel_support")) && (d->has_support = true) &&
	    ((rc = rd_want_bool(v, "$.kernel_support", "mthp_collapse", true,
			     &d->thp.mthp_collapse, err, errsize)) ||
	     (rc = rd_want_bool(v, "$.kernel_support", "size_defer", true, &d->thp.size_defer, err,
			     errsize))))
		return rc;
	if ((rc = mpn_range_of(&d->host, &mpn, err, errsize)) ||
	    (rc = read_config(cfg, &mpn, &d->config, err, errsize)))
		return rc;
	if (!json_array_size(runs))
		return ms_fail(err, errsize, -ENODATA, "$.runs: no runs to plot");
	d->runs = calloc(json_array_size(runs), sizeof(*d->runs));
	if (!d->runs)
		return ms_fail(err, errsize, -ENOMEM, "$.runs: out of memory");
	json_array_foreach(runs, r, run) {
		snprintf(path, sizeof(path), "$.runs[%zu]", r);
		d->nr_runs = r + 1; /* freed with the document from here on */
		if ((rc = read_run(run, path, &mpn, &d->runs[r], &d->hist_orders, err, errsize)))
			return rc;
	}
	return 0;
}

int collapse_doc_read(json_t *doc, struct collapse_doc *d, char *err, size_t errsize)
{
	int rc;

	memset(d, 0, sizeof(*d));
	rc = read_doc(doc, d, err, errsize);
	if (rc)
		collapse_doc_free(d);
	return rc;
}

bool collapse_doc_buffer_is(const char *buf, size_t len)
{
	json_t *doc = json_loadb(buf, len, 0, NULL);
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	bool yes = schema && !strncmp(schema, COLLAPSE_SCHEMA_PREFIX, strlen(COLLAPSE_SCHEMA_PREFIX));

	json_decref(doc);
	return yes;
}

int collapse_doc_load_buffer(const char *buf, size_t len, struct collapse_doc *d, char *err,
			     size_t errsize)
{
	json_t *doc;
	int rc;

	memset(d, 0, sizeof(*d));
	if ((rc = rd_parse(buf, len, &doc, err, errsize)))
		return rc;
	rc = collapse_doc_read(doc, d, err, errsize);
	json_decref(doc); /* JSON ends here: the model is what the callers use */
	return rc;
}
