// SPDX-License-Identifier: GPL-2.0-or-later
#include "record_doc.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"
#include "json_write.h"
#include "mthpscope.h"
#include "results.h"

#define W_TOOL "mthpscope"

void record_counts_add(struct record_counts *c, int order, bool pmd, bool tlb_miss,
		       bool psize_given, unsigned long long psize)
{
	size_t i;

	c->samples++;
	if (order >= 0 && order <= RECORD_MAX_ORDER) {
		c->order[order]++;
		c->pmd_mapped += pmd;
	} else if (order == RECORD_AT_PARTIAL) {
		c->partial++;
	} else if (order == RECORD_AT_OTHER) {
		c->other++;
	} else if (order == RECORD_AT_UNMAPPED) {
		c->unmapped++;
	}
	c->tlb_miss += tlb_miss;
	if (!psize_given)
		return;
	for (i = 0; i < c->nr_psizes; i++)
		if (c->psize[i].bytes == psize)
			break;
	if (i == c->nr_psizes) {
		if (i == RECORD_MAX_PSIZES)
			return; /* more sizes than any MMU has: the rest are not kept */
		c->psize[c->nr_psizes++].bytes = psize;
	}
	c->psize[i].samples++;
}

double record_memory_share(const struct record_memory *m, int order)
{
	unsigned long long all = m->partial + m->other;
	int o;

	for (o = 0; o <= RECORD_MAX_ORDER; o++)
		all += m->pages[o];
	if (!m->scanned || !all || order < 0 || order > RECORD_MAX_ORDER)
		return NAN;
	return (double)m->pages[order] / (double)all;
}

int record_config_set_argv(struct record_config *c, char *const argv[])
{
	c->argv = ms_argv_dup(argv, NULL);
	return c->argv ? 0 : -ENOMEM;
}

/* ---- the writer ----------------------------------------------------------- */

static json_t *counts_json(const struct record_counts *c)
{
	json_t *j, *ps = json_object();
	char k[24];
	size_t i;

	for (i = 0; ps && i < c->nr_psizes; i++) {
		snprintf(k, sizeof(k), "%llu", c->psize[i].bytes);
		json_object_set_new(ps, k, json_integer((json_int_t)c->psize[i].samples));
	}
	j = json_pack("{s:I, s:o, s:I, s:I, s:I, s:I, s:I}", "total", (json_int_t)c->samples,
		      "by_order", wr_order_counts(c->order, RECORD_MAX_ORDER), "partial",
		      (json_int_t)c->partial, "other", (json_int_t)c->other, "unmapped",
		      (json_int_t)c->unmapped, "pmd_mapped", (json_int_t)c->pmd_mapped, "tlb_miss",
		      (json_int_t)c->tlb_miss);
	if (j && c->nr_psizes)
		json_object_set_new(j, "by_page_size", ps);
	else
		json_decref(ps);
	return j;
}

static json_t *memory_json(const struct record_memory *m)
{
	if (!m->scanned)
		return json_null();
	return json_pack("{s:o, s:I, s:I, s:I}", "pages",
			 wr_order_counts(m->pages, RECORD_MAX_ORDER), "partial",
			 (json_int_t)m->partial, "other", (json_int_t)m->other, "present",
			 (json_int_t)m->present);
}

static json_t *config_json(const struct record_config *c)
{
	json_t *j = json_pack("{s:s, s:s, s:I, s:I, s:i, s:i, s:b, s:b, s:i, s:i}", "event",
			      c->event, "source", c->source, "period", (json_int_t)c->period,
			      "freq", (json_int_t)c->freq, "data_pages", (int)c->data_pages,
			      "interval_ms", (int)c->interval_ms, "data_page_size",
			      c->data_page_size, "phys_addr", c->phys_addr, "window_bytes",
			      (int)c->window_bytes, "top_windows", (int)c->top_windows);
	size_t i;

	if (!j)
		return NULL;
	if (c->argv) {
		json_t *a = json_array();

		for (i = 0; a && c->argv[i]; i++)
			json_array_append_new(a, json_string(c->argv[i]));
		json_object_set_new(j, "command", a);
	} else {
		json_object_set_new(j, "pid", json_integer(c->pid));
		json_object_set_new(j, "duration_s", json_real(c->duration_s));
	}
	return j;
}

static json_t *outcome_json(const struct record_outcome *o)
{
	json_t *j = json_pack("{s:b, s:b, s:f, s:f, s:I, s:I, s:I, s:I, s:i}", "interrupted",
			      o->interrupted, "target_gone", o->target_gone, "wall_s", o->wall_s,
			      "exit_scan_s", o->exit_scan_s, "lost",
			      (json_int_t)o->lost, "no_vma", (json_int_t)o->no_vma, "process_gone",
			      (json_int_t)o->process_gone, "before_exec",
			      (json_int_t)o->before_exec, "processes", o->nr_processes);

	if (j && o->not_looked_up)
		json_object_set_new(j, "not_looked_up", json_integer((json_int_t)o->not_looked_up));
	if (j && o->has_taken)
		json_object_set_new(j, "taken", json_integer((json_int_t)o->taken));
	if (j && o->has_exit) {
		json_object_set_new(j, "exit_code", json_integer(o->exit_code));
		json_object_set_new(j, "exit_signal", json_integer(o->exit_signal));
	}
	return j;
}

static json_t *vma_json(const struct record_vma *v)
{
	return json_pack("{s:i, s:I, s:I, s:s, s:s, s:o, s:o}", "pid", v->pid, "start",
			 (json_int_t)v->start, "end", (json_int_t)v->end, "name", v->name, "kind",
			 v->kind, "samples", counts_json(&v->s), "memory", memory_json(&v->mem));
}

static json_t *window_tlb_json(const struct record_window_tlb *t)
{
	json_t *at = json_array();
	int i;

	for (i = 0; at && i < t->nr_at; i++)
		if (json_array_append_new(at, json_pack("{s:i, s:I}", "order", t->order[i],
							"entries", (json_int_t)t->entries_at[i]))) {
			json_decref(at);
			return NULL;
		}
	if (!at)
		return NULL;
	return json_pack("{s:s, s:I, s:o}", "computed_by", "model", "entries_now",
			 (json_int_t)t->entries_now, "at_order", at);
}

static json_t *window_json(const struct record_window *w)
{
	json_t *o = json_pack("{s:i, s:I, s:s, s:o, s:o}", "pid", w->pid, "start",
			      (json_int_t)w->start, "vma", w->vma, "samples", counts_json(&w->s),
			      "memory", memory_json(&w->mem));
	json_t *x;

	if (o && w->nr_vmas && json_object_set_new(o, "vmas", json_integer(w->nr_vmas)))
		goto fail;
	if (o && w->has_layout &&
	    (!(x = layout_hist_json(&w->layout)) || json_object_set_new(o, "layout", x)))
		goto fail;
	if (o && w->has_tlb && (!(x = window_tlb_json(&w->tlb)) || json_object_set_new(o, "tlb", x)))
		goto fail;
	return o;
fail:
	json_decref(o);
	return NULL;
}

int record_doc_json(const struct record_doc *d, json_t **out)
{
	json_t *doc, *vmas = json_array(), *wins = json_array();
	size_t i;
	int err = 0;

	for (i = 0; vmas && i < d->nr_vmas; i++)
		if (json_array_append_new(vmas, vma_json(&d->vmas[i])))
			err = -ENOMEM;
	for (i = 0; wins && i < d->nr_windows; i++)
		if (json_array_append_new(wins, window_json(&d->windows[i])))
			err = -ENOMEM;
	doc = json_pack("{s:s, s:{s:s, s:s}, s:o, s:o, s:o, s:o, s:o, s:o}", "schema",
			RECORD_SCHEMA, "tool", "name", W_TOOL, "version", d->tool_version, "host",
			results_host_to_json(&d->host), "config", config_json(&d->config),
			"outcome", outcome_json(&d->outcome), "total", counts_json(&d->total),
			"vmas", vmas, "windows", wins);
	if (doc && d->has_thp)
		json_object_set_new(doc, "thp", results_thp_json(&d->thp, false));
	if (doc && d->tlb_model[0] &&
	    json_object_set_new(doc, "tlb_model", json_pack("{s:s, s:s, s:s}", "model", d->tlb_model,
							     "source", d->tlb_source,
							     "computed_by", "model")))
		err = -ENOMEM;
	if (!doc || err) {
		json_decref(doc);
		return -ENOMEM;
	}
	*out = doc;
	return 0;
}

/* ---- the reader ----------------------------------------------------------- */

static int want_ull(json_t *o, const char *path, const char *key, bool required,
		    unsigned long long *out, char *err, size_t errsize)
{
	return rd_want_int(o, path, key, required, 0, LLONG_MAX, out, err, errsize);
}

/* The required counts of an object, each a key and its place in the model.
 * COUNT_FIELD will not compile unless the member is an unsigned long long,
 * the type want_counts() writes through. */
struct count_field {
	const char *key;
	size_t off;
};

#define COUNT_FIELD(type, key, m)                                                     \
	{ key, offsetof(type, m) +                                                     \
		       0 * sizeof(char[_Generic(((type *)0)->m, unsigned long long: 1)]) }

static const struct count_field counts_fields[] = {
	COUNT_FIELD(struct record_counts, "total", samples),
	COUNT_FIELD(struct record_counts, "partial", partial),
	COUNT_FIELD(struct record_counts, "other", other),
	COUNT_FIELD(struct record_counts, "unmapped", unmapped),
	COUNT_FIELD(struct record_counts, "pmd_mapped", pmd_mapped),
	COUNT_FIELD(struct record_counts, "tlb_miss", tlb_miss),
};

static const struct count_field memory_fields[] = {
	COUNT_FIELD(struct record_memory, "partial", partial),
	COUNT_FIELD(struct record_memory, "other", other),
	COUNT_FIELD(struct record_memory, "present", present),
};

static int want_counts(json_t *o, const char *path, void *model, const struct count_field *f,
		       size_t n, char *err, size_t errsize)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++)
		if ((rc = want_ull(o, path, f[i].key, true,
				   (unsigned long long *)((char *)model + f[i].off), err, errsize)))
			return rc;
	return 0;
}

/* Where the count of key k goes, or NULL with the message in err (a bad key). */
typedef unsigned long long *count_slot_fn(const char *k, void *ctx, const char *path, char *err,
					  size_t errsize);

/* A map of counts, {"KEY": n, ...}: each key through slot, each value a count. */
static int read_count_map(json_t *m, const char *path, count_slot_fn *slot, void *ctx,
			  char *err, size_t errsize)
{
	unsigned long long *dst;
	const char *k;
	json_t *x;

	if (!json_is_object(m))
		return rd_want_not_object(m, path, err, errsize);
	json_object_foreach(m, k, x) {
		if (!(dst = slot(k, ctx, path, err, errsize)))
			return -EBADMSG;
		if (!json_is_integer(x) || json_integer_value(x) < 0)
			return ms_fail(err, errsize, -EBADMSG, "%s.%s: expected a count, found %s",
				       path, k, rd_terse_type(x));
		*dst = (unsigned long long)json_integer_value(x);
	}
	return 0;
}

/* {"0": n, "4": n}: keys are orders (ctx: the counts by order). */
static unsigned long long *order_slot(const char *k, void *ctx, const char *path, char *err,
				      size_t errsize)
{
	unsigned long long *v = ctx;
	char *end;
	long o = strtol(k, &end, 10);

	if (!*k || *end || o < 0 || o > RECORD_MAX_ORDER || (k[0] == '0' && k[1])) {
		ms_fail(err, errsize, -EBADMSG, "%s: '%s' is not a folio order (0-%d)", path, k,
			RECORD_MAX_ORDER);
		return NULL;
	}
	return &v[o];
}

/* {"4096": n, "2097152": n}: keys are page sizes (ctx: the record_counts). */
static unsigned long long *psize_slot(const char *k, void *ctx, const char *path, char *err,
				      size_t errsize)
{
	struct record_counts *c = ctx;
	char *end;
	unsigned long long b = strtoull(k, &end, 10);

	if (!*k || *end || k[0] == '-' || (b & (b - 1)) || c->nr_psizes == RECORD_MAX_PSIZES) {
		ms_fail(err, errsize, -EBADMSG, "%s: '%s' is not a page size (a power of two in "
			"bytes, or 0; at most %d)", path, k, RECORD_MAX_PSIZES);
		return NULL;
	}
	c->psize[c->nr_psizes].bytes = b;
	return &c->psize[c->nr_psizes++].samples;
}

static int read_counts(json_t *o, const char *path, struct record_counts *c, char *err,
		       size_t errsize)
{
	char p[160];
	int rc;

	if (!json_is_object(o))
		return rd_want_not_object(o, path, err, errsize);
	if ((rc = want_counts(o, path, c, counts_fields, MS_ARRAY_SIZE(counts_fields), err,
			      errsize)) ||
	    (rc = rd_want(o, path, "by_order", JSON_OBJECT, true, err, errsize)))
		return rc;
	snprintf(p, sizeof(p), "%s.by_order", path);
	if ((rc = read_count_map(json_object_get(o, "by_order"), p, order_slot, c->order, err,
				  errsize)))
		return rc;
	snprintf(p, sizeof(p), "%s.by_page_size", path);
	if (json_object_get(o, "by_page_size") &&
	    (rc = read_count_map(json_object_get(o, "by_page_size"), p, psize_slot, c, err,
				   errsize)))
		return rc;
	return 0;
}

static int read_memory(json_t *o, const char *path, struct record_memory *m, char *err,
		       size_t errsize)
{
	char p[160];
	int rc;

	if (!o || json_is_null(o))
		return 0;
	if (!json_is_object(o))
		return ms_fail(err, errsize, -EBADMSG, "%s: expected an object or null, found %s",
			       path, rd_terse_type(o));
	m->scanned = true;
	if ((rc = want_counts(o, path, m, memory_fields, MS_ARRAY_SIZE(memory_fields), err,
			      errsize)) ||
	    (rc = rd_want(o, path, "pages", JSON_OBJECT, true, err, errsize)))
		return rc;
	snprintf(p, sizeof(p), "%s.pages", path);
	return read_count_map(json_object_get(o, "pages"), p, order_slot, m->pages, err, errsize);
}

static int read_argv(json_t *a, struct record_config *c, char *err, size_t errsize)
{
	size_t i;
	json_t *x;

	if (!json_is_array(a) || !json_array_size(a))
		return ms_fail(err, errsize, -EBADMSG, "$.config.command: expected a non-empty "
			       "array of strings");
	c->argv = calloc(json_array_size(a) + 1, sizeof(*c->argv));
	if (!c->argv)
		return -ENOMEM;
	json_array_foreach(a, i, x) {
		if (!json_is_string(x))
			return ms_fail(err, errsize, -EBADMSG, "$.config.command[%zu]: expected a "
				       "string, found %s", i, rd_terse_type(x));
		if (!(c->argv[i] = strdup(json_string_value(x))))
			return -ENOMEM;
	}
	return 0;
}

static int read_config(json_t *o, struct record_config *c, char *err, size_t errsize)
{
	const char *p = "$.config";
	long long v[4] = { 0 };
	int rc;

	if ((rc = rd_want_str(o, p, "event", true, c->event, sizeof(c->event), err, errsize)) ||
	    (rc = rd_want_str(o, p, "source", true, c->source, sizeof(c->source), err, errsize)) ||
	    (rc = want_ull(o, p, "period", true, &c->period, err, errsize)) ||
	    (rc = want_ull(o, p, "freq", true, &c->freq, err, errsize)) ||
	    (rc = rd_want_int(o, p, "data_pages", true, 1, 1 << 20, &v[0], err, errsize)) ||
	    (rc = rd_want_int(o, p, "interval_ms", true, 1, 3600000, &v[1], err, errsize)) ||
	    (rc = rd_want_bool(o, p, "data_page_size", true, &c->data_page_size, err, errsize)) ||
	    (rc = rd_want_bool(o, p, "phys_addr", true, &c->phys_addr, err, errsize)) ||
	    (rc = rd_want_int(o, p, "window_bytes", true, 4096, 1 << 30, &v[2], err, errsize)) ||
	    (rc = rd_want_int(o, p, "top_windows", true, 0, 100000, &v[3], err, errsize)))
		return rc;
	if (strcmp(c->source, "sw") && strcmp(c->source, "pmu") && strcmp(c->source, "ibs") &&
	    strcmp(c->source, "spe"))
		return ms_fail(err, errsize, -EBADMSG, "$.config.source: '%s' is none of sw, pmu, "
			       "ibs, spe", c->source);
	if (!c->period == !c->freq)
		return ms_fail(err, errsize, -EBADMSG, "$.config: exactly one of period and freq "
			       "is not 0");
	if ((unsigned long long)v[2] & ((unsigned long long)v[2] - 1))
		return ms_fail(err, errsize, -EBADMSG, "$.config.window_bytes: %lld is not a power "
			       "of two", v[2]);
	c->data_pages = (unsigned)v[0];
	c->interval_ms = (unsigned)v[1];
	c->window_bytes = (unsigned)v[2];
	c->top_windows = (unsigned)v[3];
	if (json_object_get(o, "command"))
		return read_argv(json_object_get(o, "command"), c, err, errsize);
	if ((rc = rd_want_int(o, p, "pid", true, 1, INT_MAX, &c->pid, err, errsize)) ||
	    (rc = rd_want_num(o, p, "duration_s", true, &c->duration_s, err, errsize)))
		return rc;
	if (!(c->duration_s >= 0))
		return ms_fail(err, errsize, -EBADMSG, "$.config.duration_s: negative");
	return 0;
}

static int read_outcome(json_t *o, struct record_outcome *r, char *err, size_t errsize)
{
	const char *p = "$.outcome";
	int rc;

	if ((rc = rd_want_bool(o, p, "interrupted", true, &r->interrupted, err, errsize)) ||
	    (rc = rd_want_bool(o, p, "target_gone", true, &r->target_gone, err, errsize)) ||
	    (rc = rd_want_num(o, p, "wall_s", true, &r->wall_s, err, errsize)) ||
	    (rc = rd_want_num(o, p, "exit_scan_s", false, &r->exit_scan_s, err, errsize)) ||
	    (rc = want_ull(o, p, "lost", true, &r->lost, err, errsize)) ||
	    (rc = want_ull(o, p, "no_vma", true, &r->no_vma, err, errsize)) ||
	    (rc = want_ull(o, p, "process_gone", true, &r->process_gone, err, errsize)) ||
	    (rc = want_ull(o, p, "before_exec", false, &r->before_exec, err, errsize)) ||
	    (rc = want_ull(o, p, "not_looked_up", false, &r->not_looked_up, err, errsize)) ||
	    (rc = want_ull(o, p, "taken", false, &r->taken, err, errsize)) ||
	    (rc = rd_want_int(o, p, "processes", true, 0, INT_MAX, &r->nr_processes, err,
			       errsize)) ||
	    (rc = rd_want_int(o, p, "exit_code", false, -1, 255, &r->exit_code, err, errsize)) ||
	    (rc = rd_want_int(o, p, "exit_signal", false, 0, 128, &r->exit_signal, err, errsize)))
		return rc;
	if (!(r->wall_s >= 0) || !(r->exit_scan_s >= 0))
		return ms_fail(err, errsize, -EBADMSG, "$.outcome: a negative time");
	r->has_taken = json_object_get(o, "taken") != NULL;
	r->has_exit = json_object_get(o, "exit_code") != NULL;
	return 0;
}

/* The fields a VMA row and a window row share. */
static int read_row(json_t *o, const char *path, int *pid, unsigned long long *start,
		    struct record_counts *c, struct record_memory *m, char *err, size_t errsize)
{
	char p[160];
	int rc;

	if (!json_is_object(o))
		return rd_want_not_object(o, path, err, errsize);
	if ((rc = rd_want_int(o, path, "pid", true, 0, INT_MAX, pid, err, errsize)) ||
	    (rc = want_ull(o, path, "start", true, start, err, errsize)) ||
	    (rc = rd_want(o, path, "samples", JSON_OBJECT, true, err, errsize)))
		return rc;
	snprintf(p, sizeof(p), "%s.samples", path);
	if ((rc = read_counts(json_object_get(o, "samples"), p, c, err, errsize)))
		return rc;
	snprintf(p, sizeof(p), "%s.memory", path);
	return read_memory(json_object_get(o, "memory"), p, m, err, errsize);
}

static int read_vma(json_t *o, const char *path, struct record_vma *v, char *err, size_t errsize)
{
	int rc = read_row(o, path, &v->pid, &v->start, &v->s, &v->mem, err, errsize);

	if (rc || (rc = want_ull(o, path, "end", true, &v->end, err, errsize)) ||
	    (rc = rd_want_str(o, path, "name", true, v->name, sizeof(v->name), err, errsize)) ||
	    (rc = rd_want_str(o, path, "kind", true, v->kind, sizeof(v->kind), err, errsize)))
		return rc;
	if (v->end <= v->start)
		return ms_fail(err, errsize, -EBADMSG, "%s: end 0x%llx is not above start 0x%llx",
			       path, v->end, v->start);
	return 0;
}

/* A window's "tlb": {"computed_by": "model", "entries_now": n, "at_order":
 * [{"order": o, "entries": n}, ...]} (orders ascending, at most
 * RECORD_TLB_MAX_ORDERS). */
static int read_window_tlb(json_t *o, const char *path, struct record_window_tlb *t, char *err,
			   size_t errsize)
{
	json_t *at, *x;
	char p[200];
	long long v;
	size_t i;
	int rc;

	if ((rc = rd_want_word(o, path, "computed_by", "model", err, errsize)) ||
	    (rc = want_ull(o, path, "entries_now", true, &t->entries_now, err, errsize)) ||
	    (rc = rd_want(o, path, "at_order", JSON_ARRAY, true, err, errsize)))
		return rc;
	at = json_object_get(o, "at_order");
	if (json_array_size(at) > RECORD_TLB_MAX_ORDERS)
		return ms_fail(err, errsize, -EBADMSG, "%s.at_order: %zu orders, at most %d", path,
			       json_array_size(at), RECORD_TLB_MAX_ORDERS);
	json_array_foreach(at, i, x) {
		snprintf(p, sizeof(p), "%s.at_order[%zu]", path, i);
		if (!json_is_object(x))
			return rd_want_not_object(x, p, err, errsize);
		if ((rc = rd_want_int(x, p, "order", true, 0, RECORD_MAX_ORDER, &v, err, errsize)) ||
		    (rc = want_ull(x, p, "entries", true, &t->entries_at[i], err, errsize)))
			return rc;
		if (i && v <= t->order[i - 1])
			return ms_fail(err, errsize, -EBADMSG, "%s.order: %lld does not follow %d "
				       "(ascending)", p, v, t->order[i - 1]);
		t->order[i] = (int)v;
		t->nr_at = (int)i + 1;
	}
	return 0;
}

static int read_window(json_t *o, const char *path, struct record_window *w, char *err,
		       size_t errsize)
{
	int rc = read_row(o, path, &w->pid, &w->start, &w->s, &w->mem, err, errsize);
	char p[200];
	json_t *x;

	if (rc || (rc = rd_want_str(o, path, "vma", true, w->vma, sizeof(w->vma), err, errsize)) ||
	    (rc = rd_want_int(o, path, "vmas", false, 0, INT_MAX, &w->nr_vmas, err, errsize)) ||
	    (rc = rd_want(o, path, "layout", JSON_OBJECT, false, err, errsize)) ||
	    (rc = rd_want(o, path, "tlb", JSON_OBJECT, false, err, errsize)))
		return rc;
	if ((x = json_object_get(o, "layout"))) {
		if (layout_hist_from_json(x, &w->layout, p, sizeof(p)))
			return ms_fail(err, errsize, -EBADMSG, "%s.layout: %s", path, p);
		w->has_layout = true;
	}
	if ((x = json_object_get(o, "tlb"))) {
		snprintf(p, sizeof(p), "%s.tlb", path);
		if ((rc = read_window_tlb(x, p, &w->tlb, err, errsize)))
			return rc;
		w->has_tlb = true;
	}
	return 0;
}

/* "tlb_model": {"model": NAME, "source": "table"|"cpuid"|"user",
 * "computed_by": "model"}, when the windows carry the model's figures. */
static int read_tlb_model(json_t *doc, struct record_doc *d, char *err, size_t errsize)
{
	json_t *o = json_object_get(doc, "tlb_model");
	int rc;

	if ((rc = rd_want(doc, "$", "tlb_model", JSON_OBJECT, false, err, errsize)) || !o)
		return rc;
	if ((rc = rd_want_word(o, "$.tlb_model", "computed_by", "model", err, errsize)) ||
	    (rc = rd_want_str(o, "$.tlb_model", "model", true, d->tlb_model, sizeof(d->tlb_model),
			      err, errsize)) ||
	    (rc = rd_want_str(o, "$.tlb_model", "source", true, d->tlb_source,
			      sizeof(d->tlb_source), err, errsize)))
		return rc;
	if (!d->tlb_model[0])
		return ms_fail(err, errsize, -EBADMSG, "$.tlb_model.model: empty");
	if (strcmp(d->tlb_source, "table") && strcmp(d->tlb_source, "cpuid") &&
	    strcmp(d->tlb_source, "user"))
		return ms_fail(err, errsize, -EBADMSG, "$.tlb_model.source: '%s' is not table, "
			       "cpuid or user", d->tlb_source);
	return 0;
}

static int read_rows(json_t *doc, const char *key, void **rows, size_t *nr, size_t size,
		     char *err, size_t errsize)
{
	json_t *a = json_object_get(doc, key), *x;
	char path[64];
	size_t i;
	int rc;

	if ((rc = rd_want(doc, "$", key, JSON_ARRAY, true, err, errsize)))
		return rc;
	if (!json_array_size(a))
		return 0;
	*rows = calloc(json_array_size(a), size);
	if (!*rows)
		return -ENOMEM;
	json_array_foreach(a, i, x) {
		snprintf(path, sizeof(path), "$.%s[%zu]", key, i);
		*nr = i + 1;
		if (!strcmp(key, "vmas"))
			rc = read_vma(x, path, (struct record_vma *)*rows + i, err, errsize);
		else
			rc = read_window(x, path, (struct record_window *)*rows + i, err, errsize);
		if (rc)
			return rc;
	}
	return 0;
}

/* The samples in no row are of the total: no_vma, process_gone,
 * before_exec and not_looked_up sum to total.samples at most (a sum that
 * wrapped hid them all from the report). */
static int rowless_fit(const struct record_doc *d, char *err, size_t errsize)
{
	const struct record_outcome *o = &d->outcome;
	const unsigned long long part[] = { o->no_vma, o->process_gone, o->before_exec,
					    o->not_looked_up };
	unsigned long long left = d->total.samples;
	size_t i;

	if (o->has_taken && o->lost > o->taken)
		return ms_fail(err, errsize, -EBADMSG, "$.outcome: lost (%llu) is more than "
			       "taken (%llu), the samples the kernel took", o->lost, o->taken);

	for (i = 0; i < MS_ARRAY_SIZE(part); i++) {
		if (part[i] > left)
			return ms_fail(err, errsize, -EBADMSG, "$.outcome: the samples in no "
				       "VMA row are more than $.total.total (%llu)",
				       d->total.samples);
		left -= part[i];
	}
	return 0;
}

static int read_doc(json_t *doc, struct record_doc *d, char *err, size_t errsize)
{
	json_t *v;
	int rc;

	if ((rc = rd_want_schema(doc, RECORD_SCHEMA, RECORD_SCHEMA_PREFIX, "record", err,
				  errsize)) ||
	    (rc = rd_want(doc, "$", "tool", JSON_OBJECT, true, err, errsize)) ||
	    (rc = rd_want(doc, "$", "host", JSON_OBJECT, true, err, errsize)) ||
	    (rc = rd_want(doc, "$", "thp", JSON_OBJECT, false, err, errsize)) ||
	    (rc = rd_want(doc, "$", "config", JSON_OBJECT, true, err, errsize)) ||
	    (rc = rd_want(doc, "$", "outcome", JSON_OBJECT, true, err, errsize)) ||
	    (rc = rd_want(doc, "$", "total", JSON_OBJECT, true, err, errsize)))
		return rc;
	v = json_object_get(doc, "tool");
	if ((rc = rd_want_word(v, "$.tool", "name", W_TOOL, err, errsize)) ||
	    (rc = rd_want_str(v, "$.tool", "version", true, d->tool_version,
			      sizeof(d->tool_version), err, errsize)) ||
	    (rc = results_host_read(json_object_get(doc, "host"), "$.host", &d->host, err,
				    errsize)))
		return rc;
	if ((v = json_object_get(doc, "thp"))) {
		d->has_thp = true;
		if ((rc = results_thp_read(v, "$.thp", &d->thp, NULL, err, errsize)))
			return rc;
	}
	if ((rc = read_config(json_object_get(doc, "config"), &d->config, err, errsize)) ||
	    (rc = read_outcome(json_object_get(doc, "outcome"), &d->outcome, err, errsize)) ||
	    (rc = read_counts(json_object_get(doc, "total"), "$.total", &d->total, err, errsize)) ||
	    (rc = rowless_fit(d, err, errsize)))
		return rc;
	if ((rc = read_rows(doc, "vmas", (void **)&d->vmas, &d->nr_vmas, sizeof(*d->vmas), err,
			    errsize)))
		return rc;
	if ((rc = read_rows(doc, "windows", (void **)&d->windows, &d->nr_windows,
			    sizeof(*d->windows), err, errsize)))
		return rc;
	return read_tlb_model(doc, d, err, errsize);
}

int record_doc_read(json_t *doc, struct record_doc *d, char *err, size_t errsize)
{
	int rc;

	memset(d, 0, sizeof(*d));
	rc = read_doc(doc, d, err, errsize);
	if (rc == -ENOMEM)
		snprintf(err, errsize, "out of memory");
	if (rc)
		record_doc_free(d);
	return rc;
}

static int read_record(json_t *doc, void *d, char *err, size_t errsize)
{
	return record_doc_read(doc, d, err, errsize);
}

int record_doc_load(const char *path, struct record_doc *d, char *err, size_t errsize)
{
	memset(d, 0, sizeof(*d));
	return results_load_doc(path, read_record, d, err, errsize);
}

void record_doc_free(struct record_doc *d)
{
	ms_argv_free(d->config.argv);
	free(d->vmas);
	free(d->windows);
	memset(d, 0, sizeof(*d));
}
