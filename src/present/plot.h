/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Plots through gnuplot: for each figure we write NAME.dat (the numbers)
 * and NAME.gp (the variables, then a copy of a template from
 * scripts/gnuplot/ with common.gp inlined), run gnuplot on NAME.gp as a
 * child process in the figure's directory and check its exit status.
 * NAME.dat and NAME.gp stay next to the picture and name each other by
 * relative paths, so a figure directory can be moved, restyled by hand and
 * redrawn with 'gnuplot NAME.gp' inside it.
 *
 * A NAME made from a document's strings (a metric, a compared file's label)
 * is one file name in the directory: '/', space and control characters as
 * '_', at most NAME_MAX with its extension (a longer one cut and ended by
 * a hash of the whole), and unlike every other figure of the same call
 * ("-2", "-3", ...). A figure that fails leaves none of its files, nor a
 * directory the call made, nor deletes a picture it did not write.
 *
 * Templates are looked up by datadir_gnuplot(): $MTHPSCOPE_GNUPLOT_DIR, else
 * the installed <prefix>/share/mthpscope/gnuplot, else the source tree's.
 */
#ifndef PLOT_H
#define PLOT_H

#include <jansson.h>
#include <stddef.h>

#include "analyze.h"
#include "collapse_doc.h"
#include "compare.h"
#include "tlb_predict.h"
#include "record_doc.h"

enum plot_format {
	PLOT_PNG,
	PLOT_SVG,
};

/* The pictures written, by file name inside the output directory, as many
 * as there are (an analysis of ANALYZE_MAX_METRICS metrics has more than
 * 32). The plot_* functions below append to it: start it zeroed, and free
 * it with plot_files_free(). */
struct plot_files {
	char **name;
	size_t nr, alloc;
	/* the figures not drawn, by name ("gain"): none of their values is one
	 * gnuplot can draw (none finite, or all beyond +-PLOT_MAX_VALUE; an
	 * order-0 time of 0 leaves every gain undefined); no file of theirs stays */
	char **skipped;
	size_t nr_skipped, alloc_skipped;
};

/* The largest magnitude drawn: gnuplot's autoscale widens a range past its
 * extremes (to the next power of ten on a log scale), and 1e308 overflows it
 * ("all points y value undefined"). Beyond it a value is written as NaN. */
#define PLOT_MAX_VALUE 1e300

void plot_files_free(struct plot_files *f);

/* The formats' words, by value ("png", "svg"), NULL-terminated. */
extern const char *const plot_format_words[];

/*
 * Every figure of an analysis into dir (created if missing): per-order
 * bars of each metric with CI whiskers (the recommended order marked), the
 * gain against order 0 with the materiality line, the span staircase when
 * the file holds several spans, gain against sparse RSS bloat, fault-side
 * bars. 0, or a negative errno with a message in err: -ENOPKG when gnuplot
 * or a template is missing, -EIO when gnuplot fails (its first error line
 * quoted; its full output kept in NAME.log).
 */
int plot_analysis(const struct analysis *a, const char *dir, enum plot_format f,
		  struct plot_files *out, char *err, size_t errsize);

/*
 * The TLB model's figures (nothing when p is not available): entries
 * needed per order against each level's capacity ("tlb-entries"), and with
 * several spans the measured staircase with the model's last-level miss
 * ratio over it ("tlb-staircase"). Errors as plot_analysis.
 */
int plot_tlb(const struct analysis *a, const struct tlb_prediction *p, const char *dir,
	     enum plot_format f, struct plot_files *out, char *err, size_t errsize);

/* One order of an A/B figure: medians with their CIs (NaN = absent). */
/* A median and the ends of its CI (NaN where not known). */
struct plot_ci {
	double median, lo, hi;
};

struct plot_ab_row {
	int order;
	char label[16];        /* "16K" */
	struct plot_ci a, b;
};

/* An A/B figure (for compare): per order, A and B side by side with CIs.
 * Writes dir/name.{dat,gp,png|svg}. */
int plot_ab(const char *dir, const char *name, enum plot_format f, const char *title,
	    const char *subtitle, const char *ylabel, const char *label_a, const char *label_b,
	    const struct plot_ab_row *rows, size_t n, char *err, size_t errsize);

/* compare's A/B figures into dir, as plot_ab() draws them: one per compared
 * file, pattern, span and metric, per order A and B side by side with the
 * CIs of their medians; names "ab-METRIC[-FILE][-PATTERN][-SPAN]" (FILE the
 * label, whole). 0, or a negative errno with the message in err (-ENOPKG:
 * gnuplot or its template is missing). *nr_written counts the pictures
 * written, each its own file. */
int plot_compare(const struct compare_report *report, const char *dir, enum plot_format f,
		 size_t *nr_written, char *err, size_t errsize);

/*
 * A collapse document, as read by collapse_doc_read() (collapse_doc.h):
 * order mass over time as stacked areas, one panel per max_ptes_none run.
 * Writes dir/collapse.{dat,gp,png|svg}. -ENODATA for empty timelines, else
 * as plot_analysis.
 */
int plot_collapse(const struct collapse_doc *doc, const char *dir, enum plot_format f,
		  struct plot_files *out, char *err, size_t errsize);

/*
 * The figures of a record document into dir: record_orders (per VMA, most
 * samples first, the share of its samples and of its memory at each folio
 * order, stacked) and record_windows (the hottest windows, samples by
 * order). 0 or -errno as plot_analysis; -ENODATA when no sample is in a VMA.
 */
int plot_record(const struct record_doc *d, const char *dir, enum plot_format f,
		struct plot_files *out, char *err, size_t errsize);

#endif
