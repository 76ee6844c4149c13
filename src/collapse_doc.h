/*
 * The collapse document (mthpscope.collapse/1): its typed model, as the
 * readers of the document ('plot', 'collapse --plot') see it, and the reader
 * that fills it from JSON. The schema is spelled here only.
 *
 * Return convention: 0 or negative errno; nothing here prints or exits.
 */
#ifndef COLLAPSE_DOC_H
#define COLLAPSE_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "folio.h"

#define COLLAPSE_SCHEMA_PREFIX "mthpscope.collapse/"
#define COLLAPSE_SCHEMA COLLAPSE_SCHEMA_PREFIX "1"

/* One sample of a run's timeline: $.runs[i].timeline[j]. */
struct collapse_doc_sample {
	long long t_ms;
	unsigned long long pages[FOLIO_MAX_ORDER + 1]; /* hist; absent orders 0 */
};

/* One max_ptes_none run: $.runs[i]. */
struct collapse_doc_run {
	long long max_ptes_none;
	struct collapse_doc_sample *samples;
	size_t nr_samples;
};

struct collapse_doc {
	/* $.host */
	long long page_size;
	char *kernel;             /* NULL when absent */
	/* $.config */
	char *mode;               /* NULL when absent */
	long long span;           /* bytes, 0 when absent */
	double fill;              /* share 0..1, 0 when absent */
	int *orders;              /* target orders, in the document's order */
	size_t nr_orders;
	/* $.runs */
	struct collapse_doc_run *runs;
	size_t nr_runs;
	unsigned long hist_orders; /* orders with a hist key in any sample */
};

struct collapse_env;

/* The document's head: schema, tool, host (with the PMU probe), thp. */
json_t *collapse_doc_new(const struct collapse_env *env);

/*
 * The reader: every field the model holds, typed and in range, checked as
 * strictly as results_load checks a results file, into 'd' (free with
 * collapse_doc_free; zeroed on failure). 0, or -EPROTO (another schema; err
 * names it and the command that reads it), -EBADMSG (err names the JSON
 * path), -ENODATA (no runs), -ENOMEM.
 */
int collapse_doc_read(json_t *doc, struct collapse_doc *d, char *err, size_t errsize);
void collapse_doc_free(struct collapse_doc *d);

#endif
