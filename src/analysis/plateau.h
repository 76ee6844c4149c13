/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plateau of an analysis (struct analyze_plateau, analyze.h): the
 * smallest order below the PMD order whose gain is statistically
 * indistinguishable from the best gain below PMD, or reaches
 * ANALYZE_PLATEAU_SHARE of it. analyze.c calls it once its verdict stands,
 * with the joint bootstrap replicates of every order's gain, so that the
 * difference and the shares get paired intervals.
 */
#ifndef PLATEAU_H
#define PLATEAU_H

#include "analyze.h"

/* boot: iters rows of ANALYZE_NR_ORDERS gains (NaN where an order has
 * none). 0, or -ENOMEM. Without a material gain below PMD (verdict other
 * than mthp) the plateau is null with the reason. */
int analyze_plateau(struct analysis *a, const double *boot, unsigned iters);

#endif
