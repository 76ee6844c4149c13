// SPDX-License-Identifier: GPL-2.0-or-later
/* The one JSON field-reader kit of every document (json_read.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

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

/* Which JSON types a getter takes, as a mask of json_type bits. */
#define TYPES(t) (1u << (t))
#define NUMBER (TYPES(JSON_INTEGER) | TYPES(JSON_REAL))

/* o.key of one of 'types' into *v (NULL when absent and optional); another
 * type is "expected NOUN, found ...". */
static int get_typed(struct rd *rd, const json_t *o, const char *path, const char *key,
		     bool required, unsigned types, const char *noun, json_t **v)
{
	int err = rd_get(rd, o, path, key, required, v);

	if (err || !*v)
		return err;
	if (!(types & TYPES(json_typeof(*v))))
		return rd_fail(rd, -EBADMSG, "%s.%s: expected %s, found %s", path, key, noun,
			       type_of(rd, *v));
	return 0;
}

int rd_object(struct rd *rd, const json_t *o, const char *path, const char *key,
	      bool required, json_t **v)
{
	return get_typed(rd, o, path, key, required, TYPES(JSON_OBJECT), "an object", v);
}

int rd_array(struct rd *rd, const json_t *o, const char *path, const char *key, bool required,
	     size_t max, json_t **a)
{
	int err = get_typed(rd, o, path, key, required, TYPES(JSON_ARRAY), "an array", a);

	if (err || !*a)
		return err;
	if (json_array_size(*a) > max)
		return rd_fail(rd, -EBADMSG, "%s.%s: more than %zu elements", path, key, max);
	return 0;
}

/* A string into dst; 'strict' makes one that does not fit an error (names
 * used as keys), otherwise it is cut (descriptive text). */
int rd_string(struct rd *rd, const json_t *o, const char *path, const char *key,
	      bool required, bool strict, char *dst, size_t size)
{
	json_t *v;
	int err = get_typed(rd, o, path, key, required, TYPES(JSON_STRING), "a string", &v);

	if (err || !v)
		return err;
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
	int err = get_typed(rd, o, path, key, required, TYPES(JSON_INTEGER), "an integer", &v);

	if (err || !v)
		return err;
	if (rd->terse && min == 0 && json_integer_value(v) < 0)
		return rd_fail(rd, -EBADMSG, "%s.%s: %lld is negative", path, key,
			       (long long)json_integer_value(v));
	if (json_integer_value(v) < min || json_integer_value(v) > max)
		return rd_fail(rd, -EBADMSG, "%s.%s: %lld is out of range [%lld, %lld]", path, key,
			       (long long)json_integer_value(v), (long long)min, (long long)max);
	*out = json_integer_value(v);
	return 0;
}

#define RD_INT_TO_DEF(name, type)                                                         \
	RD_INT_TO_DECL(name, type)                                                        \
	{                                                                                 \
		json_int_t x = dflt;                                                      \
		int err = rd_int(rd, o, path, key, required, min, max, &x);               \
                                                                                          \
		if (!err)                                                                 \
			*dst = (type)x;                                                   \
		return err;                                                               \
	}
RD_INT_TO_DEF(rd_int_to_int, int)
RD_INT_TO_DEF(rd_int_to_long, long)
RD_INT_TO_DEF(rd_int_to_ulong, unsigned long)
RD_INT_TO_DEF(rd_int_to_ullong, unsigned long long)

int rd_number(struct rd *rd, const json_t *o, const char *path, const char *key,
	      bool required, double min, double max, double *out)
{
	json_t *v;
	double d;
	int err = get_typed(rd, o, path, key, required, NUMBER, "a number", &v);

	if (err || !v)
		return err;
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
	int err = get_typed(rd, o, path, key, required, TYPES(JSON_TRUE) | TYPES(JSON_FALSE),
			    "true or false", &v);

	if (err || !v)
		return err;
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
	int err = get_typed(rd, o, path, key, required,
			    type == JSON_REAL ? NUMBER : TYPES(type), names[type], &v);

	if (err || !v)
		return err;
	if (type == JSON_INTEGER && json_integer_value(v) < 0)
		return rd_fail(rd, -EBADMSG, "%s.%s: %lld is negative", path, key,
			       (long long)json_integer_value(v));
	return 0;
}

/* ---- the terse wording into an error buffer ------------------------------ */

#define TERSE(err, errsize) (struct rd){ .err = (err), .errsize = (errsize), .terse = true }

int rd_not_object(struct rd *rd, const json_t *v, const char *path)
{
	return rd_fail(rd, -EBADMSG, "%s: expected an object, found %s", path, type_of(rd, v));
}

int rd_want_not_object(const json_t *v, const char *path, char *err, size_t errsize)
{
	return rd_not_object(&TERSE(err, errsize), v, path);
}

const char *rd_terse_type(const json_t *v)
{
	return json_is_real(v) ? "a number" : rd_type_name(v);
}

int rd_want(json_t *o, const char *path, const char *key, json_type type, bool required,
	    char *err, size_t errsize)
{
	return rd_typed(&TERSE(err, errsize), o, path, key, type, required);
}

#define RD_WANT_INT_DEF(name, type)                                                       \
	RD_WANT_INT_DECL(name, type)                                                      \
	{                                                                                 \
		json_int_t x = 0;                                                         \
		int rc = rd_int(&TERSE(err, errsize), o, path, key, required, min, max, &x); \
                                                                                          \
		if (!rc && json_object_get(o, key))                                       \
			*out = (type)x;                                                   \
		return rc;                                                                \
	}
RD_WANT_INT_DEF(rd_want_int_ll, long long)
RD_WANT_INT_DEF(rd_want_int_int, int)
RD_WANT_INT_DEF(rd_want_int_ull, unsigned long long)

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

int rd_want_schema(json_t *doc, const char *schema, const char *prefix, const char *noun,
		   char *err, size_t errsize)
{
	const char *v;

	if (!json_is_object(doc))
		return ms_fail(err, errsize, -EBADMSG, "$: expected an object (a %s document), "
			       "found %s", noun, rd_terse_type(doc));
	v = json_string_value(json_object_get(doc, "schema"));
	if (!v)
		return ms_fail(err, errsize, -EBADMSG, "$.schema: missing or not a string");
	if (!strcmp(v, schema))
		return 0;
	if (!strncmp(v, prefix, strlen(prefix)))
		return ms_fail(err, errsize, -EPROTO, "$.schema: version '%s' is not supported "
			       "(this mthpscope reads %s)", v, schema);
	return ms_fail(err, errsize, -EPROTO, "$.schema: '%s' is not a %s document (expected "
		       "%s, from 'mthpscope %s')", v, noun, schema, noun);
}

/* jansson rejects NaN and Infinity as invalid tokens; say what they are.
 * The token is the one jansson names ("near 'NaN'"), or after a sign
 * ("near '-'") the word where it stopped. */
static bool nonfinite_token(const char *buf, size_t len, const json_error_t *je)
{
	static const char *const words[] = { "nan", "inf", "infinity" };
	const char *near = strstr(je->text, "near '");
	size_t n, w, pos = (size_t)je->position;
	char tok[16];

	if (!near)
		return false;
	near += 6;
	n = strcspn(near, "'");
	if (n == 1 && (*near == '-' || *near == '+')) {
		for (n = 0; pos + n < len && n < sizeof(tok) - 1 &&
			    isalpha((unsigned char)buf[pos + n]); n++)
			tok[n] = buf[pos + n];
	} else if (n < sizeof(tok)) {
		memcpy(tok, near, n);
	} else {
		return false;
	}
	tok[n] = '\0';
	for (w = 0; w < MS_ARRAY_SIZE(words); w++)
		if (!strcasecmp(tok, words[w]))
			return true;
	return false;
}

int rd_parse(const char *buf, size_t len, json_t **doc, char *err, size_t errsize)
{
	json_error_t je;
	size_t i;

	for (i = 0; i < len && isspace((unsigned char)buf[i]); i++)
		;
	*doc = NULL;
	if (i == len)
		return ms_fail(err, errsize, -EBADMSG, "the file is empty");
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		return ms_fail(err, errsize, -EBADMSG, "malformed JSON: the file starts with a "
			       "UTF-8 byte order mark, which JSON does not have (save it without)");
	if ((*doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je)))
		return 0;
	if (je.column < 1) /* a byte that is not UTF-8 is told at column 0 */
		je.column = 1;
	if (json_error_code(&je) == json_error_premature_end_of_input)
		return ms_fail(err, errsize, -EBADMSG, "truncated JSON: the document ends at line "
			       "%d, column %d before it is complete", je.line, je.column);
	if (nonfinite_token(buf, len, &je))
		return ms_fail(err, errsize, -EBADMSG, "NaN or infinity at line %d, column %d: JSON "
			       "has no such numbers (a metric that was not measured must be left "
			       "out)", je.line, je.column);
	return ms_fail(err, errsize, -EBADMSG, "malformed JSON at line %d, column %d: %s", je.line,
		       je.column, je.text);
}
