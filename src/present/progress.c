// SPDX-License-Identifier: GPL-2.0-or-later
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_BAR 20
#define PROGRESS_WIDTH 79 /* never wrap an 80-column terminal */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_init(struct progress *p)
{
	const char *d = getenv("MTHPSCOPE_PROGRESS_DELAY"); /* seconds; the tests use 0 */

	*p = (struct progress){ .on = isatty(STDERR_FILENO) == 1, .delay = PROGRESS_DELAY_S };
	if (d && d[0])
		p->delay = atof(d);
	p->t0 = now_s();
}

void progress_show(struct progress *p, double frac, const char *fmt, ...)
{
	char line[PROGRESS_WIDTH + 1], shown[PROGRESS_WIDTH + 1];
	double t;
	va_list ap;
	int n = 0, i, fill;

	if (!p->on)
		return;
	t = now_s();
	if (t - p->t0 < p->delay || (p->shown && t - p->last < 0.1))
		return;
	p->last = t;
	if (frac >= 0) {
		fill = (int)((frac > 1 ? 1 : frac) * PROGRESS_BAR + 0.5);
		line[n++] = '[';
		for (i = 0; i < PROGRESS_BAR; i++)
			line[n++] = i < fill ? '#' : '.';
		line[n++] = ']';
		line[n++] = ' ';
	}
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	/* the raw stream for \r: the line's text (a pattern's name) escaped */
	ms_escape_cut(line, PROGRESS_WIDTH, shown, sizeof(shown));
	for (n = 0; shown[n]; n++)
		;
	fprintf(ms_term_raw_stderr(), "\r%s%*s", shown, p->len > n ? p->len - n : 0, "");
	fflush(ms_term_raw_stderr());
	p->len = n;
	p->shown = true;
}

void progress_clear(struct progress *p)
{
	if (!p->shown)
		return;
	fflush(stderr); /* what was printed before, through the filter */
	fprintf(ms_term_raw_stderr(), "\r%*s\r", p->len, "");
	fflush(ms_term_raw_stderr());
	p->shown = false;
	p->len = 0;
}
