// SPDX-License-Identifier: GPL-2.0-or-later
#include "jread.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mthpscope.h"

const char *jr_jtype(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* o.key into *v: NULL when absent and optional, an error when required. */
int jr_field(json_t *o, const char *path, const char *key, bool required, json_t **v,
		 char *err, size_t errsize)
{
	*v = json_object_get(o, key);
	if (!*v && required)
		return ms_fail(err, errsize, -EBADMSG, "%s.%s: missing", path, key);
	return 0;
}

/* One typed field: present with the type, or absent when optional. */
int jr_want(json_t *o, const char *path, const char *key, json_type type, bool required,
		char *err, size_t errsize)
{
	json_t *v;
	int rc = jr_field(o, path, key, required, &v, err, errsize);
	static const char *const names[] = {
		[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
		[JSON_STRING] = "a string", [JSON_INTEGER] = "an integer",
		[JSON_REAL] = "a number",
	};

	if (rc || !v)
		return rc;
	if (type == JSON_REAL ? json_is_number(v) : json_typeof(v) == type) {
		if (type == JSON_INTEGER && json_integer_value(v) < 0)
			return ms_fail(err, errsize, -EBADMSG, "%s.%s: %lld is negative", path, key,
				    (long long)json_integer_value(v));
		return 0;
	}
	return ms_fail(err, errsize, -EBADMSG, "%s.%s: expected %s, found %s", path, key,
		    names[type], jr_jtype(v));
}

/* Integers of the model: jr_want() plus a range. */
int jr_want_int(json_t *o, const char *path, const char *key, bool required, long long min,
		    long long max, long long *out, char *err, size_t errsize)
{
	json_t *v;
	int rc = jr_field(o, path, key, required, &v, err, errsize);

	if (rc || !v)
		return rc;
	if (!json_is_integer(v))
		return ms_fail(err, errsize, -EBADMSG, "%s.%s: expected an integer, found %s", path,
			    key, jr_jtype(v));
	if (json_integer_value(v) < min && min == 0)
		return ms_fail(err, errsize, -EBADMSG, "%s.%s: %lld is negative", path, key,
			    (long long)json_integer_value(v));
	if (json_integer_value(v) < min || json_integer_value(v) > max)
		return ms_fail(err, errsize, -EBADMSG, "%s.%s: %lld is out of range [%lld, %lld]",
			    path, key, (long long)json_integer_value(v), min, max);
	*out = json_integer_value(v);
	return 0;
}

int jr_want_num(json_t *o, const char *path, const char *key, bool required, double *out,
		    char *err, size_t errsize)
{
	int rc = jr_want(o, path, key, JSON_REAL, required, err, errsize);

	if (!rc && json_object_get(o, key))
		*out = json_number_value(json_object_get(o, key));
	return rc;
}

int jr_want_bool(json_t *o, const char *path, const char *key, bool required, bool *out,
		     char *err, size_t errsize)
{
	json_t *v;
	int rc = jr_field(o, path, key, required, &v, err, errsize);

	if (rc || !v)
		return rc;
	if (!json_is_boolean(v))
		return ms_fail(err, errsize, -EBADMSG, "%s.%s: expected true or false, found %s",
			    path, key, jr_jtype(v));
	*out = json_is_true(v);
	return 0;
}

/* A string of the model: it must fit, the writer would write it back cut. */
int jr_want_str(json_t *o, const char *path, const char *key, bool required, char *dst,
		    size_t size, char *err, size_t errsize)
{
	int rc = jr_want(o, path, key, JSON_STRING, required, err, errsize);
	json_t *v = json_object_get(o, key);

	if (rc || !v)
		return rc;
	if (json_string_length(v) >= size)
		return ms_fail(err, errsize, -EBADMSG, "%s.%s: longer than %zu characters", path,
			    key, size - 1);
	snprintf(dst, size, "%s", json_string_value(v));
	return 0;
}

/* A fixed word of the document (e.g. "source": "timing"), when present. */
int jr_want_word(json_t *o, const char *path, const char *key, const char *word, char *err,
		     size_t errsize)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		return 0;
	if (!json_is_string(v) || strcmp(json_string_value(v), word))
		return ms_fail(err, errsize, -EBADMSG, "%s.%s: expected \"%s\", found %s", path,
			    key, word, json_is_string(v) ? json_string_value(v) : jr_jtype(v));
	return 0;
}

