// SPDX-License-Identifier: GPL-2.0-or-later
/* The one JSON field-reader kit of every document (json_read.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "json_read.h"

/* The type of v in words; the collapse document's terse wording says "a
 * number" where the results reader says "a real number". */
static const char *type_of(const struct rd *rd, const json_t *v)
{
	return rd->terse && json_is_real(v) ? "a number" : rd_type_name(v);
}

int rd_fail(struct rd *rd, int code, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (rd->err && rd->errsize && rd->name)
		snprintf(rd->err, rd->errsize, "%s: %s", rd->name, msg);
	else if (rd->err && rd->errsize)
		snprintf(rd->err, rd->errsize, "%s", msg);
	return code;
}

const char *rd_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* Fetch key from o; missing is an error when required, else *v = NULL. */
int rd_get(struct rd *rd, const json_t *o, const char *path, const char *key,
	   bool required, json_t **v)
{
	*v = json_object_get(o, key);
	if (!*v && required)
		return rd_fail(rd, -EBADMSG, rd->terse ? "%s.%s: missing"
						       : "%s.%s: missing (a required field)", path, key);
	return 0;
}

int rd_object(struct rd *rd, const json_t *o, const char *path, const char *key,
	      bool required, json_t **v)
{
	int err = rd_get(rd, o, path, key, required, v);

	if (err || !*v)
		return err;
	if (!json_is_object(*v))
		return rd_fail(rd, -EBADMSG, "%s.%s: expected an object, found %s", path, key,
			       type_of(rd, *v));
	return 0;
}

/* A string into dst; 'strict' makes one that does not fit an error (names
 * used as keys), otherwise it is cut (descriptive text). */
int rd_string(struct rd *rd, const json_t *o, const char *path, const char *key,
	      bool required, bool strict, char *dst, size_t size)
{
	json_t *v;
	int err = rd_get(rd, o, path, key, required, &v);

	if (err || !v)
		return err;
	if (!json_is_string(v))
		return rd_fail(rd, -EBADMSG, "%s.%s: expected a string, found %s", path, key,
			       type_of(rd, v));
	if (strict && json_string_length(v) >= size)
		return rd_fail(rd, -EBADMSG, "%s.%s: longer than %zu characters", path, key,
			       size - 1);
	snprintf(dst, size, "%s", json_string_value(v));
	return 0;
}

int rd_int(struct rd *rd, const json_t *o, const char *path, const char *key,
	   bool required, json_int_t min, json_int_t max, json_int_t *out)
{
	json_t *v;
	int err = rd_get(rd, o, path, key, required, &v);

	if (err || !v)
		return err;
	if (!json_is_integer(v))
		return rd_fail(rd, -EBADMSG, "%s.%s: expected an integer, found %s", path, key,
			       type_of(rd, v));
	if (rd->terse && min == 0 && json_integer_value(v) < 0)
		return rd_fail(rd, -EBADMSG, "%s.%s: %lld is negative", path, key,
			       (long long)json_integer_value(v));
	if (json_integer_value(v) < min || json_integer_value(v) > max)
		return rd_fail(rd, -EBADMSG, "%s.%s: %lld is out of range [%lld, %lld]", path, key,
			       (long long)json_integer_value(v), (long long)min, (long long)max);
	*out = json_integer_value(v);
	return 0;
}

int rd_number(struct rd *rd, const json_t *o, const char *path, const char *key,
	      bool required, double min, double max, double *out)
{
	json_t *v;
	double d;
	int err = rd_get(rd, o, path, key, required, &v);

	if (err || !v)
		return err;
	if (!json_is_number(v))
		return rd_fail(rd, -EBADMSG, "%s.%s: expected a number, found %s", path, key,
			       type_of(rd, v));
	d = json_number_value(v);
	if (!isfinite(d))
		return rd_fail(rd, -EBADMSG, "%s.%s: not a finite number", path, key);
	if (d < min || d > max)
		return rd_fail(rd, -EBADMSG, "%s.%s: %g is out of range [%g, %g]", path, key, d, min,
			       max);
	*out = d;
	return 0;
}

int rd_bool(struct rd *rd, const json_t *o, const char *path, const char *key,
	    bool required, bool *out)
{
	json_t *v;
	int err = rd_get(rd, o, path, key, required, &v);

	if (err || !v)
		return err;
	if (!json_is_boolean(v))
		return rd_fail(rd, -EBADMSG, "%s.%s: expected true or false, found %s", path, key,
			       type_of(rd, v));
	*out = json_is_true(v);
	return 0;
}

int rd_typed(struct rd *rd, const json_t *o, const char *path, const char *key, json_type type,
	     bool required)
{
	static const char *const names[] = {
		[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
		[JSON_STRING] = "a string", [JSON_INTEGER] = "an integer",
		[JSON_REAL] = "a number",
	};
	json_t *v;
	int err = rd_get(rd, o, path, key, required, &v);

	if (err || !v)
		return err;
	if (type == JSON_REAL ? json_is_number(v) : json_typeof(v) == type) {
		if (type == JSON_INTEGER && json_integer_value(v) < 0)
			return rd_fail(rd, -EBADMSG, "%s.%s: %lld is negative", path, key,
				       (long long)json_integer_value(v));
		return 0;
	}
	return rd_fail(rd, -EBADMSG, "%s.%s: expected %s, found %s", path, key, names[type],
		       type_of(rd, v));
}

/* ---- the terse wording into an error buffer ------------------------------ */

#define TERSE(err, errsize) (struct rd){ .err = (err), .errsize = (errsize), .terse = true }

const char *rd_terse_type(const json_t *v)
{
	return json_is_real(v) ? "a number" : rd_type_name(v);
}

int rd_want(json_t *o, const char *path, const char *key, json_type type, bool required,
	    char *err, size_t errsize)
{
	return rd_typed(&TERSE(err, errsize), o, path, key, type, required);
}

int rd_want_int(json_t *o, const char *path, const char *key, bool required, long long min,
		long long max, long long *out, char *err, size_t errsize)
{
	json_int_t x = 0;
	int rc = rd_int(&TERSE(err, errsize), o, path, key, required, min, max, &x);

	if (!rc && json_object_get(o, key))
		*out = x;
	return rc;
}

int rd_want_num(json_t *o, const char *path, const char *key, bool required, double *out,
		char *err, size_t errsize)
{
	int rc = rd_want(o, path, key, JSON_REAL, required, err, errsize);

	if (!rc && json_object_get(o, key))
		*out = json_number_value(json_object_get(o, key));
	return rc;
}

int rd_want_bool(json_t *o, const char *path, const char *key, bool required, bool *out,
		 char *err, size_t errsize)
{
	return rd_bool(&TERSE(err, errsize), o, path, key, required, out);
}

int rd_want_str(json_t *o, const char *path, const char *key, bool required, char *dst,
		size_t size, char *err, size_t errsize)
{
	return rd_string(&TERSE(err, errsize), o, path, key, required, true, dst, size);
}

int rd_want_word(json_t *o, const char *path, const char *key, const char *word, char *err,
		 size_t errsize)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		return 0;
	if (!json_is_string(v) || strcmp(json_string_value(v), word))
		return ms_fail(err, errsize, -EBADMSG, "%s.%s: expected \"%s\", found %s", path,
			       key, word, json_is_string(v) ? json_string_value(v) : rd_terse_type(v));
	return 0;
}
