/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * khugepaged / MADV_COLLAPSE experiment: fault a PMD-aligned span sparsely at
 * order 0, let the kernel collapse it, and sample which folio orders back the
 * span over time (the timeline), with the RSS it costs (bloat) and the
 * kernel's own counters.
 *
 * Return convention: 0 or negative errno; nothing here prints or exits. THP
 * knobs are written only through thp.h, whose journal restores them.
 */
#ifndef COLLAPSE_H
#define COLLAPSE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "collapse_doc.h"
#include "collapse_pattern.h"
#include "folio.h"
#include "thp.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* linux/mman.h since 6.1; older libc headers lack it */
#endif

enum collapse_mode {
	COLLAPSE_KHUGEPAGED,
	COLLAPSE_MADVISE,
};

/* The modes' words, by value, NULL-terminated. */
extern const char *const collapse_mode_words[];
const char *collapse_mode_name(enum collapse_mode m);
/* Returns the mode, or -EINVAL. */
int collapse_mode_parse(const char *s);
/* Does this kernel know MADV_COLLAPSE (6.1+)? Probed once on a hole: an
 * EINVAL from a real call can also mean "this range cannot be collapsed". */
bool collapse_have_madv_collapse(void);

struct collapse_run;

struct collapse_config {
	enum collapse_mode mode;
	unsigned long orders;     /* bitmask of target orders (enabled for collapse) */
	int max_ptes_none;
	double fill;              /* share of pages present, 0..1 */
	size_t span;              /* bytes, a multiple of the PMD size */
	unsigned interval_ms;     /* sampling period */
	unsigned timeout_ms;      /* give up waiting for a steady histogram */
	uint64_t seed;
	long scan_sleep_ms;       /* khugepaged/scan_sleep_millisecs while running */
	long pages_to_scan;       /* khugepaged/pages_to_scan; 0 = derived from the span */
	/* Called after every sample of collapse_run (a progress line); may be NULL. */
	void (*on_sample)(const struct collapse_run *run, void *ctx);
	void *on_sample_ctx;
	/* Set by a signal handler: collapse_run ends its timeline at the next
	 * sample and returns -EINTR (a cut timeline has no verdict); may be NULL. */
	volatile sig_atomic_t *interrupt;
};

struct collapse_sample {
	long t_ms;                /* since the collapse was started */
	unsigned long long pages[FOLIO_MAX_ORDER + 1]; /* folio_hist.pages */
	unsigned long long partial;
	unsigned long long rss_bytes; /* resident bytes of the span (zero page excluded) */
	long full_scans;          /* khugepaged full scans since the start, -1 unknown */
};

/* A per-size counter whose name starts with "collapse" (patched kernels). */
struct collapse_counter {
	int order;
	char name[40];
	long long delta;
};

#define COLLAPSE_MAX_COUNTERS 64

struct collapse_run {
	int max_ptes_none;
	struct collapse_sample *timeline;
	size_t nr_samples, cap_samples;
	bool steady;               /* the histogram stopped changing before the timeout */
	long elapsed_ms;
	unsigned long long span_pages;
	unsigned long long filled_pages; /* pages faulted by us */
	unsigned long long rss_before, rss_after;
	/* khugepaged counters are system-wide: other processes' collapses count too */
	long pages_collapsed, full_scans;
	int nr_counters;
	struct collapse_counter counters[COLLAPSE_MAX_COUNTERS];
	/* MADV_COLLAPSE: 0, or the errno it returned; its duration */
	int madvise_errno;
	long madvise_ns;
	/* derived by collapse_summarize() */
	unsigned long orders_reached;   /* orders >= 1 holding pages at any sample */
	unsigned long orders_final;     /* orders >= 1 holding pages at the end */
	bool creep;                     /* mass left a sub-PMD order for a higher one */
	int creep_from, creep_to;
	long creep_t_ms;
	long first_collapse_ms;         /* first sample with pages above order 0, or -1 */
	/* RSS creep: samples at which the span's RSS grew, the khugepaged passes
	 * (full scans) from the one before the first growth to the last growth;
	 * of the growths, those certainly in passes of their own (the pass in
	 * progress at the previous growth had ended before it): 2 or more is
	 * creep, 1 may be one pass seen by two samples; the growth per such
	 * pass */
	int rss_growth_steps;
	long rss_growth_passes;
	double rss_growth_per_pass;      /* bytes */
	int rss_growth_separate;
	/* max_ptes_none as mTHP collapse applied it (derived by
	 * collapse_summarize from the kernel log facts below, else from the
	 * behaviour): -1 = not known or not applicable */
	int mpn_mthp;
	const char *mpn_mthp_source;     /* "kernel-log", "behaviour", "as-set", NULL */
	/* The kernel log (read after the run): readable, the rewrite message
	 * present, and the value it keeps besides 0 (HPAGE_PMD_NR - 1). */
	bool klog_readable, klog_found;
	int klog_kept;
	long page_size;
	/* The last sample per PMD range of the span (range k: its k-th PMD-sized
	 * part), from the same scan as the sample's hist, which they add up to */
	struct collapse_doc_range *ranges;
	size_t nr_ranges;
};

/* What a run needs to know from outside: the settings read at start. */
struct collapse_env {
	struct thp_settings thp;
	long page_size;
	int pmd_order;
	unsigned long long mem_available; /* bytes, from /proc/meminfo */
	/* The word written to each target size's "enabled" ("madvise", or "defer"
	 * where a patched kernel offers it per size). */
	enum thp_word target_word[FOLIO_MAX_ORDER + 1];
};

/*
 * Read the settings and check 'cfg' against them: -EINVAL for a span that is
 * not a non-zero multiple of the PMD size, a max_ptes_none beyond the PMD's
 * pages, a fill outside 0..1, timeout 0; -EOPNOTSUPP for a target order without
 * anon mTHP support; -ENOMEM when the span does not fit in MemAvailable.
 * 'why' says which, in words.
 */
int collapse_prepare(const struct collapse_config *cfg, struct collapse_env *env, char *why,
		     size_t why_size);

/* The hole pattern: collapse_pattern() (collapse_pattern.h, src/analysis/),
 * shared with the replay model. */

/* A span mapped for one run: PMD-aligned, faulted at order 0 per pattern. */
struct collapse_span {
	void *base;
	size_t len;
	void *map;        /* the whole mapping, with alignment slack */
	size_t map_len;
	unsigned long long filled_pages;
};

/*
 * Map and fault the span at order 0 (MADV_NOHUGEPAGE while faulting, so no
 * setting can give a large folio). The span is not yet registered for
 * collapse; collapse_run() does that.
 */
int collapse_span_map(const struct collapse_config *cfg, const struct collapse_env *env,
		      struct collapse_span *sp);
void collapse_span_unmap(struct collapse_span *sp);

/* Write the knobs for this run: target sizes enabled, every other anon size
 * 'never', max_ptes_none, and (khugepaged mode) a fast scan. */
int collapse_set_knobs(const struct collapse_config *cfg, const struct collapse_env *env);

/*
 * Register the span (MADV_HUGEPAGE), start the collapse (khugepaged: wait;
 * madvise: MADV_COLLAPSE) and sample the span every interval until the
 * histogram is steady or the timeout passes. Fills 'run' (free with
 * collapse_run_free). Steady means: in khugepaged mode, the histogram did
 * not change while khugepaged completed two full scans; in madvise mode,
 * two equal samples after the call.
 */
int collapse_run(const struct collapse_config *cfg, const struct collapse_env *env,
		 struct collapse_span *sp, struct collapse_run *run);
void collapse_run_free(struct collapse_run *run);

/* Orders reached, creep (orders and RSS), first collapse: from the timeline;
 * the max_ptes_none mTHP collapse applied: from the kernel log facts in 'run'
 * or, where the log was unreadable, from the RSS that mTHP collapse added
 * (every PMD of the span has the same number of empty PTEs). 'mthp_collapse':
 * the kernel has per-size collapse counters; 'max_ptes_none' as set. */
void collapse_summarize(struct collapse_run *run, int pmd_order);
void collapse_summarize_mpn(struct collapse_run *run, int pmd_order, bool mthp_collapse,
			    bool mthp_targets);

/*
 * What the kernel did, in one sentence. Three cases on a kernel's ability:
 * it cannot collapse to mTHP orders (no per-size collapse counters: key
 * "pmd-only" or "none"); it can, but PMD collapse was allowed (max_ptes_none
 * at or above the empty PTEs per PMD) and won ("pmd-won"); it can, and
 * collapsed to orders X..Y ("mthp", "mthp-creep"). MADV_COLLAPSE runs that
 * reached only the PMD size: "pmd-only".
 */
const char *collapse_verdict(const struct collapse_config *cfg, const struct collapse_env *env,
			     const struct collapse_run *run, char *buf, size_t size);

/* Translation cost of a span: chase-tlb (kernels-micro) timed by the trial
 * engine (bench_burst: the thread's CPU time per access, as run's ns_per_access). */
struct collapse_measure {
	double ns_per_access;      /* median of the reps */
	double ns_min, ns_max;
	unsigned long long accesses; /* per rep */
	unsigned reps;
	struct folio_hist hist;    /* what backed the span while it was chased */
};

/*
 * Chase every page of the span. chase-tlb writes a pointer into every page,
 * so the span's holes are faulted first; MADV_NOHUGEPAGE is set on the span
 * so they fault at order 0 and khugepaged leaves it alone from here on. The
 * span is therefore measured after its timeline, never before.
 */
int collapse_measure(struct collapse_span *sp, long page_size, uint64_t seed, unsigned reps,
		     struct collapse_measure *m);

/* ---- into the collapse document (collapse_doc.h), collapse_record.c ---- */

/* The head of a new document: tool, host (the PMU probed here), thp as
 * read at start (env), no config and no runs yet. */
void collapse_doc_init(struct collapse_doc *d, const struct collapse_env *env);
/* d->config from the command's settings (targets and words from env). */
void collapse_doc_set_config(struct collapse_doc *d, const struct collapse_config *cfg,
			     const struct collapse_env *env, const int *mpn, size_t nr_mpn,
			     bool measure);
/* Append one run: its timeline, counters and summary, the verdict key and
 * statement, and before/after (both NULL without --measure). 0 or -ENOMEM. */
int collapse_doc_add_run(struct collapse_doc *d, const struct collapse_run *r,
			 const char *verdict, const char *statement,
			 const struct collapse_measure *before, const struct collapse_measure *after);

#endif
