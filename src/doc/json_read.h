/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one JSON field-reader kit of every document (results, collapse,
 * record): each
 * reader fetches a field with its type and range checked, and a failure
 * names the field by its JSON path ("$.trials[3].metrics.walks.value").
 * Return convention: 0, or a negative errno (-EBADMSG) with the message in
 * rd->err, prefixed with rd->name (the file) when set.
 *
 * Two wordings of the same checks, so that every message stays what its
 * document has always said: the results reader's, and the collapse
 * document's 'terse' one ("missing" for "missing (a required field)", "a
 * number" for "a real number", "is negative" for an integer below 0 where 0
 * is the minimum).
 */
#ifndef JSON_READ_H
#define JSON_READ_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "mthpscope.h"

struct rd {
	const char *name; /* file name for messages, or NULL */
	char *err;
	size_t errsize;
	bool terse;       /* the collapse document's wording */
};

MS_PRINTF(3, 4) int rd_fail(struct rd *rd, int code, const char *fmt, ...);
/* A document's bytes parsed, duplicate keys refused: 0 with *doc, or
 * -EBADMSG with the same words for every document in err (empty,
 * truncated, NaN or infinity, malformed: at which line and column). */
int rd_parse(const char *buf, size_t len, json_t **doc, char *err, size_t errsize);
/* "an object", "an integer", "a real number", ... */
const char *rd_type_name(const json_t *v);
/* The failure for v at path (an element, or a reader's argument) that is
 * not an object: 'if (!json_is_object(v)) return rd_not_object(rd, v, path);' */
int rd_not_object(struct rd *rd, const json_t *v, const char *path);
/* o.key into *v: NULL when absent and optional, an error when required. */
int rd_get(struct rd *rd, const json_t *o, const char *path, const char *key, bool required,
	   json_t **v);
int rd_object(struct rd *rd, const json_t *o, const char *path, const char *key, bool required,
	      json_t **v);
/* An array of at most max elements (SIZE_MAX: any number). */
int rd_array(struct rd *rd, const json_t *o, const char *path, const char *key, bool required,
	     size_t max, json_t **a);
/* A string into dst; 'strict' makes one that does not fit an error (names
 * used as keys), otherwise it is cut (descriptive text). */
int rd_string(struct rd *rd, const json_t *o, const char *path, const char *key, bool required,
	      bool strict, char *dst, size_t size);
/* An integer in [min, max]; *out untouched when absent. */
int rd_int(struct rd *rd, const json_t *o, const char *path, const char *key, bool required,
	   json_int_t min, json_int_t max, json_int_t *out);
/* rd_int into an integer field of the model: *dst is the value, or dflt
 * where the key is absent and optional; on a failure *dst is untouched.
 * [min, max] must fit the field's type (int, long, unsigned long or
 * unsigned long long, chosen by the type of *dst). */
#define rd_int_to(rd, o, path, key, required, min, max, dflt, dst)                       \
	_Generic(*(dst), int: rd_int_to_int, long: rd_int_to_long,                       \
		 unsigned long: rd_int_to_ulong,                                         \
		 unsigned long long: rd_int_to_ullong)(rd, o, path, key, required, min, max, \
							 dflt, dst)
#define RD_INT_TO_DECL(name, type)                                                        \
	int name(struct rd *rd, const json_t *o, const char *path, const char *key,       \
		 bool required, json_int_t min, json_int_t max, json_int_t dflt, type *dst)
RD_INT_TO_DECL(rd_int_to_int, int);
RD_INT_TO_DECL(rd_int_to_long, long);
RD_INT_TO_DECL(rd_int_to_ulong, unsigned long);
RD_INT_TO_DECL(rd_int_to_ullong, unsigned long long);
/* A finite number in [min, max]. */
int rd_number(struct rd *rd, const json_t *o, const char *path, const char *key, bool required,
	      double min, double max, double *out);
int rd_bool(struct rd *rd, const json_t *o, const char *path, const char *key, bool required,
	    bool *out);
/* A field of one JSON type, present or (optional) absent; JSON_REAL accepts
 * any number, JSON_INTEGER only one >= 0. */
int rd_typed(struct rd *rd, const json_t *o, const char *path, const char *key, json_type type,
	     bool required);

/*
 * The same checks in the terse wording, the message into err without a file
 * name: the collapse and record documents' readers. Each returns 0 (also
 * for an optional field that is absent; *out then untouched) or -EBADMSG
 * with "path.key: what is wrong" in err.
 */
/* "an object", "an integer", "a number", ... */
const char *rd_terse_type(const json_t *v);
int rd_want(json_t *o, const char *path, const char *key, json_type type, bool required,
	    char *err, size_t errsize);
/* An integer in [min, max] into a field of the model (long long, int or
 * unsigned long long, chosen by the type of *out); *out untouched when
 * absent. */
#define rd_want_int(o, path, key, required, min, max, out, err, errsize)                 \
	_Generic(*(out), long long: rd_want_int_ll, int: rd_want_int_int,                \
		 unsigned long long: rd_want_int_ull)(o, path, key, required, min, max, out, \
						      err, errsize)
#define RD_WANT_INT_DECL(name, type)                                                      \
	int name(json_t *o, const char *path, const char *key, bool required, long long min, \
		 long long max, type *out, char *err, size_t errsize)
RD_WANT_INT_DECL(rd_want_int_ll, long long);
RD_WANT_INT_DECL(rd_want_int_int, int);
RD_WANT_INT_DECL(rd_want_int_ull, unsigned long long);
int rd_want_num(json_t *o, const char *path, const char *key, bool required, double *out,
		char *err, size_t errsize);
int rd_want_bool(json_t *o, const char *path, const char *key, bool required, bool *out,
		 char *err, size_t errsize);
/* A string that fits dst (the writer would write a longer one back cut). */
int rd_want_str(json_t *o, const char *path, const char *key, bool required, char *dst,
		size_t size, char *err, size_t errsize);
/* rd_not_object in the terse wording. */
int rd_want_not_object(const json_t *v, const char *path, char *err, size_t errsize);
/* A fixed word of the document (e.g. "source": "timing"), when present. */
int rd_want_word(json_t *o, const char *path, const char *key, const char *word, char *err,
		 size_t errsize);
/* doc is an object whose "schema" is 'schema' (-EPROTO for another version,
 * one starting with 'prefix', or another document): the collapse and record
 * documents, named by noun, the command that writes them. */
int rd_want_schema(json_t *doc, const char *schema, const char *prefix, const char *noun,
		   char *err, size_t errsize);

#endif
