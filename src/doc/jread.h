/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The typed readers' field checks (collapse_doc.c, record_doc.c): each
 * takes an object, the JSON path that names it in messages and a key, and
 * returns 0 (also for an optional field that is absent) or -EBADMSG with
 * "path.key: what is wrong" in err.
 */
#ifndef JREAD_H
#define JREAD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* "an object", "an integer", ... */
const char *jr_jtype(const json_t *v);
/* o.key into *v: NULL when absent and optional, an error when required. */
int jr_field(json_t *o, const char *path, const char *key, bool required, json_t **v,
	     char *err, size_t errsize);
/* Present with the type (JSON_REAL: any number; JSON_INTEGER: not negative). */
int jr_want(json_t *o, const char *path, const char *key, json_type type, bool required,
	    char *err, size_t errsize);
int jr_want_int(json_t *o, const char *path, const char *key, bool required, long long min,
		long long max, long long *out, char *err, size_t errsize);
int jr_want_num(json_t *o, const char *path, const char *key, bool required, double *out,
		char *err, size_t errsize);
int jr_want_bool(json_t *o, const char *path, const char *key, bool required, bool *out,
		 char *err, size_t errsize);
/* A string that fits dst (the writer would write a longer one back cut). */
int jr_want_str(json_t *o, const char *path, const char *key, bool required, char *dst,
		size_t size, char *err, size_t errsize);
/* A fixed word of the document, when present. */
int jr_want_word(json_t *o, const char *path, const char *key, const char *word, char *err,
		 size_t errsize);

#endif
