/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One progress line on stderr for work that takes more than a few seconds
 * (collapse, compare): shown only when stderr is a terminal and only once
 * the work has run for PROGRESS_DELAY_S ($MTHPSCOPE_PROGRESS_DELAY), redrawn at most 10 times a second,
 * erased before anything else is printed. Command layer only: modules
 * report through a callback and never print. */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <stdbool.h>

#include "mthpscope.h"

#define PROGRESS_DELAY_S 1.0

struct progress {
	bool on;        /* stderr is a terminal */
	bool shown;     /* a line is on the screen */
	double t0, last; /* CLOCK_MONOTONIC seconds: start, last redraw */
	double delay;   /* PROGRESS_DELAY_S, or $MTHPSCOPE_PROGRESS_DELAY */
	int len;        /* characters of the line on the screen */
};

void progress_init(struct progress *p);
/* frac: done share 0..1 (a bar), or negative when unknown (no bar). */
void progress_show(struct progress *p, double frac, const char *fmt, ...) MS_PRINTF(3, 4);
/* Erase the line (before a message, and at the end). */
void progress_clear(struct progress *p);

#endif
