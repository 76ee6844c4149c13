/*
 * The collapse document (mthpscope.collapse/1): its head written by
 * 'mthpscope collapse', and its reader, which fills the typed model
 * (struct collapse_doc) that 'plot' and 'collapse --plot' draw from. The
 * schema is spelled in collapse_doc.h only.
 */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collapse.h"
#include "collapse_doc.h"
#include "mthpscope.h"
#include "results.h"
#include "topo.h"

json_t *collapse_doc_new(const struct collapse_env *env)
{
	struct topo_info t;
	json_t *doc;

	topo_describe(&t);
	doc = json_pack("{s:s, s:o}", "schema", COLLAPSE_SCHEMA, "tool", results_tool_json());
	json_object_set_new(doc, "host", results_host_json(&t, &env->thp));
	json_object_set_new(doc, "thp", results_thp_json(&env->thp, false));
	return doc;
}

static const char *jtype(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* One typed field: present with the type, or absent when optional. */
static int want(json_t *o, const char *path, const char *key, json_type type, bool required,
		char *err, size_t errsize)
{
	json_t *v = json_object_get(o, key);
	static const char *const names[] = {
		[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
		[JSON_STRING] = "a string", [JSON_INTEGER] = "an integer",
		[JSON_REAL] = "a number",
	};

	if (!v) {
		if (!required)
			return 0;
		return ms_fail(err, errsize, -EBADMSG, "%s.%s: missing", path, key);
	}
	if (type == JSON_REAL ? json_is_number(v) : json_typeof(v) == type) {
		if (type == JSON_INTEGER && json_integer_value(v) < 0)
			return ms_fail(err, errsize, -EBADMSG, "%s.%s: %lld is negative", path, key,
				    (long long)json_integer_value(v));
		return 0;
	}
	return ms_fail(err, errsize, -EBADMSG, "%s.%s: expected %s, found %s", path, key,
		    names[type], jtype(v));
}

void collapse_doc_free(struct collapse_doc *d)
{
	size_t r;

	if (!d)
		return;
	for (r = 0; r < d->nr_runs; r++)
		free(d->runs[r].samples);
	free(d->runs);
	free(d->orders);
	free(d->kernel);
	free(d->mode);
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
				    "count (an integer >= 0), found %s", hp, k, jtype(v));
		pages[o] = (unsigned long long)json_integer_value(v);
		*seen |= 1UL << o;
	}
	return 0;
}

static int read_run(json_t *run, const char *path, struct collapse_doc_run *dr,
		    unsigned long *seen, char *err, size_t errsize)
{
	json_t *tl, *smp;
	char hp[128];
	size_t i;
	int rc;

	if (!json_is_object(run))
		return ms_fail(err, errsize, -EBADMSG, "%s: expected an object, found %s", path,
			    jtype(run));
	if ((rc = want(run, path, "max_ptes_none", JSON_INTEGER, true, err, errsize)) ||
	    (rc = want(run, path, "timeline", JSON_ARRAY, true, err, errsize)))
		return rc;
	dr->max_ptes_none = json_integer_value(json_object_get(run, "max_ptes_none"));
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
			return ms_fail(err, errsize, -EBADMSG, "%s: expected an object, found %s",
				    hp, jtype(smp));
		if ((rc = want(smp, hp, "t_ms", JSON_INTEGER, true, err, errsize)) ||
		    (rc = want(smp, hp, "hist", JSON_OBJECT, true, err, errsize)))
			return rc;
		s->t_ms = json_integer_value(json_object_get(smp, "t_ms"));
		if ((rc = read_hist(json_object_get(smp, "hist"), hp, s->pages, seen, err,
				    errsize)))
			return rc;
		dr->nr_samples = i + 1;
	}
	return 0;
}

static int read_doc(json_t *doc, struct collapse_doc *d, char *err, size_t errsize)
{
	json_t *runs, *cfg, *host, *run, *v;
	const char *schema;
	char path[96];
	size_t r, i;
	int rc;

	if (!json_is_object(doc))
		return ms_fail(err, errsize, -EBADMSG, "$: expected an object (a collapse document), "
			    "found %s", jtype(doc));
	schema = json_string_value(json_object_get(doc, "schema"));
	if (!schema)
		return ms_fail(err, errsize, -EBADMSG, "$.schema: missing or not a string");
	if (strcmp(schema, COLLAPSE_SCHEMA)) {
		if (!strncmp(schema, COLLAPSE_SCHEMA_PREFIX, strlen(COLLAPSE_SCHEMA_PREFIX)))
			return ms_fail(err, errsize, -EPROTO, "$.schema: version '%s' is not supported "
				    "(this mthpscope reads %s)", schema, COLLAPSE_SCHEMA);
		return ms_fail(err, errsize, -EPROTO, "$.schema: '%s' is not a collapse document "
			    "(expected %s, from 'mthpscope collapse')", schema, COLLAPSE_SCHEMA);
	}
	if ((rc = want(doc, "$", "host", JSON_OBJECT, true, err, errsize)) ||
	    (rc = want(doc, "$", "config", JSON_OBJECT, true, err, errsize)) ||
	    (rc = want(doc, "$", "runs", JSON_ARRAY, true, err, errsize)))
		return rc;
	host = json_object_get(doc, "host");
	cfg = json_object_get(doc, "config");
	runs = json_object_get(doc, "runs");
	if ((rc = want(host, "$.host", "page_size", JSON_INTEGER, true, err, errsize)) ||
	    (rc = want(host, "$.host", "kernel", JSON_STRING, false, err, errsize)) ||
	    (rc = want(cfg, "$.config", "mode", JSON_STRING, false, err, errsize)) ||
	    (rc = want(cfg, "$.config", "span", JSON_INTEGER, false, err, errsize)) ||
	    (rc = want(cfg, "$.config", "fill", JSON_REAL, false, err, errsize)) ||
	    (rc = want(cfg, "$.config", "orders", JSON_ARRAY, false, err, errsize)))
		return rc;
	d->page_size = json_integer_value(json_object_get(host, "page_size"));
	if (d->page_size <= 0 || d->page_size > (1 << 30))
		return ms_fail(err, errsize, -EBADMSG, "$.host.page_size: %lld is not a page size",
			    d->page_size);
	json_array_foreach(json_object_get(cfg, "orders"), i, v)
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > FOLIO_MAX_ORDER)
			return ms_fail(err, errsize, -EBADMSG, "$.config.orders[%zu]: expected an order "
				    "0-%d, found %s", i, FOLIO_MAX_ORDER, jtype(v));
	if (!json_array_size(runs))
		return ms_fail(err, errsize, -ENODATA, "$.runs: no runs to plot");
	if ((v = json_object_get(host, "kernel")) && !(d->kernel = strdup(json_string_value(v))))
		return ms_fail(err, errsize, -ENOMEM, "$.host.kernel: out of memory");
	if ((v = json_object_get(cfg, "mode")) && !(d->mode = strdup(json_string_value(v))))
		return ms_fail(err, errsize, -ENOMEM, "$.config.mode: out of memory");
	d->span = json_integer_value(json_object_get(cfg, "span"));
	d->fill = json_number_value(json_object_get(cfg, "fill"));
	v = json_object_get(cfg, "orders");
	if (json_array_size(v)) {
		d->orders = calloc(json_array_size(v), sizeof(*d->orders));
		if (!d->orders)
			return ms_fail(err, errsize, -ENOMEM, "$.config.orders: out of memory");
		d->nr_orders = json_array_size(v);
		for (i = 0; i < d->nr_orders; i++)
			d->orders[i] = (int)json_integer_value(json_array_get(v, i));
	}
	d->runs = calloc(json_array_size(runs), sizeof(*d->runs));
	if (!d->runs)
		return ms_fail(err, errsize, -ENOMEM, "$.runs: out of memory");
	json_array_foreach(runs, r, run) {
		snprintf(path, sizeof(path), "$.runs[%zu]", r);
		d->nr_runs = r + 1; /* freed with the document from here on */
		if ((rc = read_run(run, path, &d->runs[r], &d->hist_orders, err, errsize)))
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
