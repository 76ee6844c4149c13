// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * compare's words and its report object: a metric's direction and drift,
 * the names of directions, verdicts and formats, the report's warnings and
 * its free.
 */
#include "compare.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "mthpscope.h"

/* Directions and row order come from the metric registry (metrics.h). */
enum compare_dir compare_metric_dir(const char *metric)
{
	const struct metrics_def *m = metrics_find(metric);

	if (!m || m->better == METRICS_BETTER_NONE)
		return COMPARE_DIR_NONE;
	return m->better == METRICS_BETTER_LOWER ? COMPARE_DIR_LOWER : COMPARE_DIR_HIGHER;
}

bool compare_metric_drift_prone(const char *metric, const char *source)
{
	size_t n = strlen(metric);

	if (source && !strcmp(source, "timing"))
		return true;
	return strstr(metric, "cycles") || strstr(metric, "ns_per_") ||
	       (n > 3 && !strcmp(metric + n - 3, "_ns"));
}

const char *compare_kernel_name(const struct compare_input *in)
{
	return in->kernel && *in->kernel ? in->kernel : "unknown kernel";
}

enum compare_dir compare_series_dir(const struct compare_series *s)
{
	return metrics_find(s->metric) ? compare_metric_dir(s->metric) : s->declared;
}

const char *compare_dir_name(enum compare_dir d)
{
	return d == COMPARE_DIR_LOWER ? "lower" : d == COMPARE_DIR_HIGHER ? "higher" : "none";
}

const char *compare_verdict_name(enum compare_verdict v)
{
	static const char *const names[] = { "same", "better", "worse", "changed",
					     "unclear (too few reps)" };

	return names[v];
}

const char *const compare_format_words[] = { "text", "markdown", "json", "lkml", NULL };

MS_PRINTF(2, 3)
int compare_add_warning(struct compare_report *r, const char *fmt, ...)
{
	char **w;
	char *s;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	w = realloc(r->warnings, (r->nr_warnings + 1) * sizeof(*w));
	if (!w) {
		free(s);
		return -ENOMEM;
	}
	w[r->nr_warnings++] = s;
	r->warnings = w;
	return 0;
}

void compare_report_free(struct compare_report *r)
{
	ms_strings_free(r->warnings, r->nr_warnings);
	free(r->rows);
	free(r->gains);
	r->warnings = NULL;
	r->rows = NULL;
	r->gains = NULL;
	r->nr_warnings = r->nr_rows = r->nr_gains = 0;
}
