/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The collapse document (mthpscope.collapse/1): its typed model, the one
 * shape both its writer ('mthpscope collapse') and its readers ('plot',
 * 'collapse --plot') use, with JSON only at the edges: collapse_doc_json
 * writes the model, collapse_doc_read fills it back. The measurement fills
 * it through collapse_doc_init, _set_config and _add_run (collapse.h). The
 * schema is spelled here only.
 *
 * Return convention: 0 or negative errno; nothing here prints or exits.
 */
#ifndef COLLAPSE_DOC_H
#define COLLAPSE_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "folio_types.h"
#include "results.h"
#include "thp_settings.h"

#define COLLAPSE_SCHEMA_PREFIX "mthpscope.collapse/"
#define COLLAPSE_SCHEMA COLLAPSE_SCHEMA_PREFIX "1"
#define COLLAPSE_DOC_MAX_MPN 32 /* max_ptes_none values in one sweep */

/* One sample of a run's timeline: $.runs[i].timeline[j]. */
struct collapse_doc_sample {
	long long t_ms;
	unsigned long long pages[FOLIO_MAX_ORDER + 1]; /* hist; absent orders 0 */
	unsigned long long partial;   /* 0 when absent */
	unsigned long long rss_bytes; /* 0 when absent */
	long long full_scans;         /* khugepaged full scans since the start; -1 absent */
};

/* $.runs[i].collapse_counters[k]: a per-size "collapse*" counter's delta. */
struct collapse_doc_counter {
	int order;
	char name[40];
	long long delta;
};

/* $.runs[i].measure.before / .after: chase-tlb over a span (source timing). */
struct collapse_doc_measure {
	double ns_per_access, ns_min, ns_max;
	long long accesses;
	int reps;
	unsigned long long pages[FOLIO_MAX_ORDER + 1]; /* hist while it was chased */
};

/* $.runs[i].final_ranges[k]: the span's k-th PMD range (its k-th PMD-sized,
 * PMD-aligned part) at the run's last sample; the ranges add up to that
 * sample's hist and partial. */
struct collapse_doc_range {
	unsigned long long pages[FOLIO_MAX_ORDER + 1]; /* hist; absent orders 0 */
	unsigned long long partial;   /* 0 when absent */
};

/* One max_ptes_none run: $.runs[i]. Fields after the timeline are absent in
 * hand-made documents; the reader leaves them 0 then. */
struct collapse_doc_run {
	long long max_ptes_none;
	struct collapse_doc_sample *samples;
	size_t nr_samples;
	bool steady;
	long long elapsed_ms, span_pages, filled_pages;
	long long rss_before, rss_after, rss_growth_bytes;
	double bloat;                   /* rss_after / rss_before */
	long long first_collapse_ms;    /* -1: null (nothing collapsed) */
	long long pages_collapsed, full_scans; /* khugepaged: system-wide, kernel */
	struct collapse_doc_counter *counters;
	size_t nr_counters;
	bool has_madvise;               /* "madvise" (mode madvise) */
	char madvise_error[128];        /* "" = null */
	long long madvise_ns;
	struct folio_orders orders_reached, orders_final;
	bool creep;
	int creep_from, creep_to;
	long long creep_t_ms;
	/* $.runs[i].rss_creep: RSS growth steps, the passes they spread over,
	 * and the growths in passes certainly apart (-1: not in the document) */
	bool has_rss_creep, has_mpn_mthp;
	int rss_growth_steps;
	long long rss_growth_passes;
	double rss_growth_per_pass;
	int rss_growth_separate;
	/* $.runs[i].mthp_max_ptes_none: as mTHP collapse applied it (-1: null) */
	long long mpn_mthp;
	char mpn_mthp_source[16];       /* "" = null */
	/* $.runs[i].kernel_log */
	bool has_klog, klog_readable, klog_found;
	long long klog_kept;            /* -1: null */
	char verdict[16];
	char statement[512];
	bool has_measure;               /* "measure" (--measure) */
	struct collapse_doc_measure before, after;
	double speedup;
	/* $.runs[i].final_ranges: none (NULL, 0) in documents before it */
	struct collapse_doc_range *ranges;
	size_t nr_ranges;
};

/* $.config */
struct collapse_doc_config {
	char mode[16];                  /* "" when absent */
	long long span;                 /* bytes, 0 when absent */
	double fill;                    /* share 0..1, 0 when absent */
	struct folio_orders orders; /* target orders */
	/* enabled_as: the word each target size (order >= 1) was set to */
	size_t nr_enabled_as;
	struct { int order; enum thp_word word; } enabled_as[FOLIO_MAX_ORDER + 1];
	size_t nr_max_ptes_none;
	int max_ptes_none[COLLAPSE_DOC_MAX_MPN];
	long long interval_ms, timeout_ms;
	unsigned long long seed;
	bool measure;
	bool has_khugepaged;            /* config.khugepaged (mode khugepaged) */
	long long scan_sleep_millisecs, pages_to_scan, alloc_sleep_millisecs;
};

struct collapse_doc {
	bool has_tool;
	char tool_version[64];          /* $.tool.version */
	struct results_host host;       /* $.host */
	bool has_thp, thp_stats;
	struct thp_settings thp;        /* $.thp */
	bool has_support;               /* $.kernel_support: thp.mthp_collapse, size_defer */
	struct collapse_doc_config config;
	/* $.interrupted: SIGINT or SIGTERM ended the sweep; the runs are those
	 * whose timelines were whole (absent, false, in a whole sweep) */
	bool interrupted;
	/* $.runs (the last one's fields are also written at the top level) */
	struct collapse_doc_run *runs;
	size_t nr_runs;
	unsigned long hist_orders;      /* orders with a hist key in any sample */
};

/* The writer: the document of 'd' into *out (new reference). 0 or -ENOMEM. */
int collapse_doc_json(const struct collapse_doc *d, json_t **out);

/*
 * The reader: every field of the model, typed and in range, checked as
 * strictly as results_load checks a results file, into 'd' (free with
 * collapse_doc_free; zeroed on failure). Fields of older or hand-made
 * documents may be absent except schema, host.page_size, config and the
 * runs' max_ptes_none and timeline. 0, or -EPROTO (another schema; err
 * names it and the command that reads it), -EBADMSG (err names the JSON
 * path), -ENODATA (no runs), -ENOMEM.
 */
int collapse_doc_read(json_t *doc, struct collapse_doc *d, char *err, size_t errsize);
void collapse_doc_free(struct collapse_doc *d);

/* Do a file's bytes (results_read_file() reads them, once: a pipe cannot
 * be read twice) hold a collapse document, its schema starting with
 * COLLAPSE_SCHEMA_PREFIX? False for anything else. */
bool collapse_doc_buffer_is(const char *buf, size_t len);
/* Those bytes' JSON (duplicate keys rejected) through collapse_doc_read;
 * err names the line for bad JSON. -EBADMSG for bad JSON, else as
 * collapse_doc_read. */
int collapse_doc_load_buffer(const char *buf, size_t len, struct collapse_doc *d, char *err,
			     size_t errsize);

#endif
