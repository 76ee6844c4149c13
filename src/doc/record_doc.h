/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The record document (mthpscope.record/1): the typed model of what
 * 'mthpscope record' saw, the one shape its writer (record) and its readers
 * (record's presenter, plot) use, with JSON only at the edges:
 * record_doc_json writes the model, record_doc_read fills it back. The
 * schema is spelled here only.
 *
 * Counts are of samples; "memory" is base pages at the process's last
 * scan (its exit stop, or the end of --duration). A sample's page is
 * looked up in pagemap + kpageflags when its ring is drained (every
 * interval), not at exit: faulted memory may be freed, migrated or
 * collapsed by then.
 *
 * Return convention: 0 or negative errno; nothing here prints or exits.
 */
#ifndef RECORD_DOC_H
#define RECORD_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "layout.h"
#include "results.h"

#define RECORD_SCHEMA_PREFIX "mthpscope.record/"
#define RECORD_SCHEMA RECORD_SCHEMA_PREFIX "1"
#define RECORD_MAX_ORDER 20   /* the folio scanner's FOLIO_MAX_ORDER */
#define RECORD_MAX_PSIZES 8   /* distinct data page sizes kept per row */
#define RECORD_NAME_MAX 256

struct record_psize {
	unsigned long long bytes;   /* PERF_SAMPLE_DATA_PAGE_SIZE; 0: not mapped then */
	unsigned long long samples;
};

/* Samples of one row (a VMA, a window, the whole), by what backed the page. */
struct record_counts {
	unsigned long long samples;                       /* all of this row */
	unsigned long long order[RECORD_MAX_ORDER + 1];   /* on a complete folio of order o */
	unsigned long long partial;   /* on a folio mapped only in part here */
	unsigned long long other;     /* zero page, hugetlb, no struct page */
	unsigned long long unmapped;  /* page not present when looked up (never guessed) */
	unsigned long long pmd_mapped;/* of the folio samples, on PMD mappings */
	unsigned long long tlb_miss;  /* the hardware said the TLBs missed (PEBS/IBS/SPE) */
	size_t nr_psizes;             /* data page sizes seen (none: not given) */
	struct record_psize psize[RECORD_MAX_PSIZES];
};

/* Memory of one row at its last scan, in base pages. */
struct record_memory {
	bool scanned;
	unsigned long long pages[RECORD_MAX_ORDER + 1]; /* complete folios of order o */
	unsigned long long partial, other, present;
};

struct record_vma {
	int pid;
	unsigned long long start, end;
	char name[RECORD_NAME_MAX];   /* "[heap]", a path, or "" for anonymous */
	char kind[12];                /* anon heap stack file shmem special */
	struct record_counts s;
	struct record_memory mem;
};

/* The TLB model's figures for one window (every one labelled "model"):
 * the entries that map its present memory now, and what they would be
 * were that memory in whole, aligned, physically contiguous folios of
 * each order the model cares about (analysis/record_tlb.h says how). */
#define RECORD_TLB_MAX_ORDERS 4
struct record_window_tlb {
	unsigned long long entries_now;
	int nr_at;
	int order[RECORD_TLB_MAX_ORDERS];                 /* ascending */
	unsigned long long entries_at[RECORD_TLB_MAX_ORDERS];
};

/* A 2 MiB-aligned window (the PMD size; window_bytes says) of one process. */
struct record_window {
	int pid;
	unsigned long long start;
	char vma[RECORD_NAME_MAX];    /* the VMA with most of its samples */
	int nr_vmas;                  /* "vmas": the VMAs its samples fell in (0: not said) */
	struct record_counts s;
	struct record_memory mem;
	bool has_layout;              /* the contiguity of its memory at the last scan */
	struct layout_hist layout;
	bool has_tlb;                 /* the model's figures (record_doc.tlb_model names it) */
	struct record_window_tlb tlb;
};

struct record_config {
	char event[128];              /* as given ("page-faults", libpfm4, raw) */
	char source[8];               /* sw | pmu | ibs | spe */
	unsigned long long period;    /* -c; 0 when -F */
	unsigned long long freq;      /* -F; 0 when -c */
	unsigned data_pages;
	unsigned interval_ms;         /* ring drained and samples looked up this often */
	bool data_page_size, phys_addr;
	char **argv;                  /* the command (NULL-terminated; NULL with --pid) */
	int pid;                      /* --pid; 0 for a command */
	double duration_s;            /* --duration; 0 for a command */
	unsigned window_bytes;
	unsigned top_windows;
};

struct record_outcome {
	bool has_exit;
	int exit_code;                /* -1 when killed by a signal */
	int exit_signal;
	bool interrupted;             /* SIGINT / SIGTERM stopped the recording */
	bool target_gone;             /* --pid: the process ended first */
	double wall_s;
	double exit_scan_s;           /* the processes stood stopped at exit this long (scans) */
	unsigned long long lost;      /* samples the kernel dropped (ring full; PEBS
				       * records lost: PERF_RECORD_LOST_SAMPLES) */
	unsigned long long no_vma;    /* samples outside every VMA at lookup and every row */
	unsigned long long process_gone; /* drained after their process ended */
	unsigned long long before_exec; /* of an image their process exec'd from */
	unsigned long long not_looked_up; /* a drain's time for lookups ran out first */
	/* the samples the kernel took, from a counter beside the rings (sw and
	 * pmu events with -c): total.samples + lost == taken when it is known
	 * (has_taken), the accounting a reader can check */
	bool has_taken;
	unsigned long long taken;
	int nr_processes;
};

struct record_doc {
	char tool_version[64];
	struct results_host host;
	bool has_thp;
	struct thp_settings thp;
	struct record_config config;
	struct record_outcome outcome;
	struct record_counts total;   /* every sample (VMAs + no_vma + process_gone
				       * + before_exec + not_looked_up) */
	struct record_vma *vmas;
	size_t nr_vmas;
	struct record_window *windows; /* the hottest, most samples first */
	size_t nr_windows;
	/* the TLB model of windows[].tlb: its geometry's name and figures'
	 * source ("table", "cpuid", "user"); "" when no window has figures */
	char tlb_model[64];
	char tlb_source[8];
};

/* Add one sample to a row: 'order' >= 0 a complete folio, else one of
 * RECORD_AT_*; psize_given with its bytes when the sample carried it. */
enum { RECORD_AT_PARTIAL = -1, RECORD_AT_OTHER = -2, RECORD_AT_UNMAPPED = -3,
       RECORD_AT_NONE = -4 /* counted in samples only (no VMA, process gone) */ };
void record_counts_add(struct record_counts *c, int order, bool pmd, bool tlb_miss,
		       bool psize_given, unsigned long long psize);
/* The share of a row's memory at 'order' (0..1; NaN when not scanned or empty). */
double record_memory_share(const struct record_memory *m, int order);

int record_config_set_argv(struct record_config *c, char *const argv[]);

/* The writer: the document of 'd' into *out (new reference). 0 or -ENOMEM. */
int record_doc_json(const struct record_doc *d, json_t **out);
/*
 * The reader: every field typed and in range, into 'd' (free with
 * record_doc_free; zeroed on failure). 0, or -EPROTO (another schema; err
 * names it and the command that reads it), -EBADMSG (err names the JSON
 * path), -ENOMEM.
 */
int record_doc_read(json_t *doc, struct record_doc *d, char *err, size_t errsize);
/* Load a file ("-" = stdin) and read it. -errno of the open as well; err
 * names the file where the JSON or a field is bad. */
int record_doc_load(const char *path, struct record_doc *d, char *err, size_t errsize);
void record_doc_free(struct record_doc *d);

#endif
