/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Library helpers shared by every layer: array size, printf checks, the
 * version string, formatting of orders, sizes and bytes, module errors.
 * The command contract (exit statuses, ms_command, ms_err) is src/cmd/commands.h. */
#ifndef MTHPSCOPE_H
#define MTHPSCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define MS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MS_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* "0.1.0+git.<describe>" (src/base/version.c): --version and tool.version. */
extern const char ms_version[];

/* Append printf-style text to the string in buf (size bytes), cut to fit. */
void ms_appendf(char *buf, size_t size, const char *fmt, ...) MS_PRINTF(3, 4);

/* A module's error: the message into err (size bytes), returns code (a
 * negative errno), so that 'return ms_fail(err, size, -EINVAL, ...)' is one line. */
int ms_fail(char *err, size_t size, int code, const char *fmt, ...) MS_PRINTF(4, 5);

/* Folio orders of a bitmask as ranges: "2-7", "4,6", "2-4,9", or "none". */
void ms_format_orders(unsigned long mask, char *buf, size_t size);
/* Leading and trailing blanks dropped, runs of blanks made one space, in
 * place: CPUID brand strings come padded ("AMD EPYC 7B13 64-Core Processor
 * " and "       Intel(R) Xeon(R) CPU           E5-2680"). */
void ms_squeeze_spaces(char *s);

/* A size as "4096", "64K", "2M" (binary units, only when exact); returns
 * snprintf's count. */
int ms_format_size(unsigned long long bytes, char *buf, size_t size);

/* 's' fit for one line of a terminal: control bytes as \n, \t or \xNN (ESC
 * is \x1b), a backslash doubled. malloc'd (free()), NULL without memory. */
char *ms_escape(const char *s);
/* 's' escaped as ms_escape() does, into buf (size bytes), at most width
 * columns: cut between whole escapes and whole UTF-8 characters, never in
 * one, so that a name cut to a table's column is still harmless text.
 * (src/base/term.c) */
void ms_escape_cut(const char *s, size_t width, char *buf, size_t size);
/* Puts a filter under stdout and stderr (fopencookie): every control byte
 * but \n and \t, and the C1 controls of UTF-8, reach the descriptor as
 * \xNN text, whatever a presenter prints. main() calls it first; 0 or
 * -ENOMEM (the streams untouched). */
int ms_term_guard(void);
/* stderr as it was before ms_term_guard(): for the progress line's \r,
 * whose text is escaped by the caller. */
FILE *ms_term_raw_stderr(void);

/* Bytes for people: "1.5 GiB", "12.0 MiB", "64 KiB"; "-" when not finite
 * (nothing measured). */
void ms_format_bytes(double b, char *buf, size_t size);

/* A share (1 = all) as a percentage with one decimal: "98.8%"; a share
 * below 1 that would round to "100.0%" is ">99.9%", so that 100.0% means
 * all. "-" when not finite. */
void ms_format_share(double share, char *buf, size_t size);

/* Room for one more element in an array of n used of *cap allocated (each
 * elem bytes) at *(void **)arrayp: when full, the allocation doubles, or
 * starts at first elements. 0, or -ENOMEM with the array as it was. */
int ms_grow(void *arrayp, size_t n, size_t *cap, size_t elem, size_t first);
/* The same for an array a, its count n and its capacity cap (a size_t), as
 * git's ALLOC_GROW: 'if (MS_GROW(l->v, l->n, l->cap, 64)) return -ENOMEM;'. */
#define MS_GROW(a, n, cap, first) ms_grow(&(a), (n), &(cap), sizeof(*(a)), (first))

/* A copy of the NULL-terminated argv, its strings too, with *argc (when not
 * NULL) set to their number; NULL without memory. ms_argv_free() frees it. */
char **ms_argv_dup(char *const argv[], int *argc);
/* All n bytes of buf to fd, through short writes and EINTR: 0 or -errno. */
int ms_write_all(int fd, const void *buf, size_t n);
/* Frees a NULL-terminated array of strings and each string; NULL is fine. */
void ms_argv_free(char **argv);
/* Frees the n strings of v, then v. */
void ms_strings_free(char **v, size_t n);

#endif
