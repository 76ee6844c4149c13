// SPDX-License-Identifier: GPL-2.0-or-later
/* $.precision of a results document: run --precision's target and outcome
 * (results.h), written and read back. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "json_read.h"
#include "results.h"

static const char *const stop_names[RESULTS_PREC_NR] = {
	[RESULTS_PREC_REACHED] = "reached",
	[RESULTS_PREC_MAX_TIME] = "max-time",
	[RESULTS_PREC_INTERRUPTED] = "interrupted",
	[RESULTS_PREC_MAX_REPS] = "max-reps",
};

const char *results_precision_stop_name(enum results_precision_stop s)
{
	return s >= 0 && s < RESULTS_PREC_NR ? stop_names[s] : "?";
}

/* points of order 0's time, or null when there is no CI */
static json_t *points_or_null(double v)
{
	return isfinite(v) ? json_real(100 * v) : json_null();
}

json_t *results_precision_json(const struct results_precision *p)
{
	return json_pack("{s:o, s:b, s:f, s:b, s:s, s:o, s:f, s:i, s:i, s:i, s:I, s:I, s:f, s:s}",
			 "target_points", points_or_null(p->target), "all_orders", p->all,
			 "max_time_s", p->max_time_s, "reached", p->reached, "stop",
			 results_precision_stop_name(p->stop), "half_width_points",
			 points_or_null(p->half_width), "level", p->level, "order", p->order,
			 "looks", p->looks, "planned_looks", p->planned_looks, "reps",
			 (json_int_t)p->reps, "rounds", (json_int_t)p->rounds, "elapsed_s",
			 p->elapsed_s, "rule", RESULTS_PRECISION_RULE);
}

static int rd_stop(struct rd *rd, const json_t *o, const char *path,
		   enum results_precision_stop *stop)
{
	char word[32];
	int err, i;

	if ((err = rd_string(rd, o, path, "stop", true, false, word, sizeof(word))))
		return err;
	for (i = 0; i < RESULTS_PREC_NR; i++)
		if (!strcmp(word, stop_names[i])) {
			*stop = (enum results_precision_stop)i;
			return 0;
		}
	return rd_fail(rd, -EBADMSG, "%s.stop: '%s' is not one of reached, max-time, "
		       "interrupted, max-reps", path, word);
}

/* half_width_points: a number, or null when no look made a CI */
static int rd_points(struct rd *rd, const json_t *o, const char *path, const char *key,
		     bool nullable, double *out)
{
	if (nullable && json_is_null(json_object_get(o, key))) {
		*out = NAN;
		return 0;
	}
	if (rd_number(rd, o, path, key, true, 0.0, 100.0 * 1e6, out))
		return -EBADMSG;
	*out /= 100;
	return 0;
}

int results_precision_read(struct rd *rd, const json_t *o, const char *path,
			   struct results_precision *p)
{
	json_int_t order = -1, looks = 0, planned = 0, reps = 0, rounds = 0;
	int err;

	memset(p, 0, sizeof(*p));
	if (!json_is_object(o))
		return rd_not_object(rd, o, path);
	if ((err = rd_points(rd, o, path, "target_points", false, &p->target)) ||
	    (err = rd_bool(rd, o, path, "all_orders", true, &p->all)) ||
	    (err = rd_number(rd, o, path, "max_time_s", true, 0.0, 1e9, &p->max_time_s)) ||
	    (err = rd_bool(rd, o, path, "reached", true, &p->reached)) ||
	    (err = rd_stop(rd, o, path, &p->stop)) ||
	    (err = rd_points(rd, o, path, "half_width_points", true, &p->half_width)) ||
	    (err = rd_number(rd, o, path, "level", true, 0.0, 1.0, &p->level)) ||
	    (err = rd_int(rd, o, path, "order", true, -1, FOLIO_MAX_ORDER, &order)) ||
	    (err = rd_int(rd, o, path, "looks", true, 0, INT32_MAX, &looks)) ||
	    (err = rd_int(rd, o, path, "planned_looks", true, 0, INT32_MAX, &planned)) ||
	    (err = rd_int(rd, o, path, "reps", true, 0, INT32_MAX, &reps)) ||
	    (err = rd_int(rd, o, path, "rounds", true, 0, INT32_MAX, &rounds)) ||
	    (err = rd_number(rd, o, path, "elapsed_s", true, 0.0, 1e9, &p->elapsed_s)))
		return err;
	if (p->target <= 0)
		return rd_fail(rd, -EBADMSG, "%s.target_points: must be above 0", path);
	p->order = (int)order;
	p->looks = (int)looks;
	p->planned_looks = (int)planned;
	p->reps = (long)reps;
	p->rounds = (long)rounds;
	return 0;
}
