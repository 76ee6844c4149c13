/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The table run prints at its end, from the results model it measured (no
 * file in between): per order the median with its CI, coverage, faults,
 * populate time and sparse RSS (micro), or wall and CPU time, faults, RSS and
 * the user's metrics (a command); then the precision a reader can expect. */
#ifndef RUN_SUMMARY_H
#define RUN_SUMMARY_H

#include <stdio.h>

#include "results.h"

void run_summary_print(FILE *f, const struct results *r);
/* Why a run --precision stopped short of its target, in words ("" when it
 * was reached): run's table and analyze's stop line say it alike. */
const char *run_summary_stop_words(enum results_precision_stop s);

#endif
