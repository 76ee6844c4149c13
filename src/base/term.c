// SPDX-License-Identifier: GPL-2.0-or-later
/* What reaches a terminal: names from /proc (a memfd's, a VMA's, a comm), from a
 * document and from a command line are another user's text. A control byte in
 * one would move the cursor, set the window title or change colours on the
 * screen of the root user who scans that process (the hostile pass of issue
 * 40: a memfd named "\x1b[31mEVIL\x1b[0m\x1b]0;PWNED\x07"). Both ends are
 * closed: ms_term_guard() puts a filter under stdout and stderr, so that no
 * presenter can forget one, and ms_escape_cut() escapes a table's cell before
 * it is cut to its column, so that a cut never splits an escape. */
#include "mthpscope.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

struct guard {
	int fd;
	bool c2; /* a 0xc2 byte held back: the first half of a C1 control? */
};

static FILE *raw_stderr;
static struct guard guards[2]; /* stdout's and stderr's, for the process's life */

static bool passes(unsigned char c)
{
	return c == '\n' || c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* ms_write_all, as a cookie wants it: -1 with errno */
static int put_all(int fd, const char *b, size_t n)
{
	int err = ms_write_all(fd, b, n);

	if (err)
		errno = -err;
	return err ? -1 : 0;
}

/* One byte as the text that shows it: itself, or \xNN; a C1 control (U+0080
 * to U+009F, 0xc2 0x80-0x9f in UTF-8: 0x9b is a CSI to some terminals) as
 * its two bytes' escapes. Returns the length written into o (at most 8). */
static size_t show_byte(struct guard *g, unsigned char c, char *o)
{
	size_t n = 0;

	if (g->c2) {
		g->c2 = false;
		if (c >= 0x80 && c <= 0x9f)
			return (size_t)sprintf(o, "\\xc2\\x%02x", c);
		o[n++] = (char)0xc2;
	}
	if (c == 0xc2) {
		g->c2 = true;
		return n;
	}
	if (passes(c)) {
		o[n++] = (char)c;
		return n;
	}
	return n + (size_t)sprintf(o + n, "\\x%02x", c);
}

static ssize_t guard_write(void *cookie, const char *buf, size_t size)
{
	struct guard *g = cookie;
	char out[4096];
	size_t i, n = 0;

	for (i = 0; i < size; i++) {
		if (n > sizeof(out) - 16) {
			if (put_all(g->fd, out, n))
				return -1;
			n = 0;
		}
		n += show_byte(g, (unsigned char)buf[i], out + n);
	}
	if (n && put_all(g->fd, out, n))
		return -1;
	return (ssize_t)size;
}

static int guard_close(void *cookie)
{
	struct guard *g = cookie;

	return g->c2 ? put_all(g->fd, "\xc2", 1) : 0;
}

static FILE *guarded(int fd, int mode)
{
	struct guard *g = &guards[fd == STDOUT_FILENO ? 0 : 1];
	FILE *f;

	*g = (struct guard){ .fd = fd };
	f = fopencookie(g, "w", (cookie_io_functions_t){ .write = guard_write,
							 .close = guard_close });
	if (f)
		setvbuf(f, NULL, mode, 0);
	return f;
}

int ms_term_guard(void)
{
	FILE *out, *err;

	if (raw_stderr)
		return 0;
	fflush(stdout);
	fflush(stderr);
	out = guarded(STDOUT_FILENO, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF);
	err = guarded(STDERR_FILENO, _IONBF);
	if (!out || !err) {
		if (out)
			fclose(out);
		if (err)
			fclose(err);
		return -ENOMEM;
	}
	raw_stderr = stderr;
	stdout = out; /* glibc's stdout and stderr are variables, to be set */
	stderr = err;
	return 0;
}

FILE *ms_term_raw_stderr(void)
{
	return raw_stderr ? raw_stderr : stderr;
}

/* The length of the token at s as ms_escape writes it: 2 for \\ \n \t,
 * 4 for \xNN (ESC is \x1b), 1 for any other byte. */
static size_t escaped_len(unsigned char c)
{
	if (c == '\\' || c == '\n' || c == '\t')
		return 2;
	return c < 0x20 || c == 0x7f ? 4 : 1;
}

/* Bytes of the UTF-8 character that starts with c (1 for a stray byte). */
static size_t utf8_len(unsigned char c)
{
	return c >= 0xf0 && c < 0xf8 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

void ms_escape_cut(const char *s, size_t width, char *buf, size_t size)
{
	size_t used = 0, n = 0, i, len, k;
	char one[8];

	if (!size)
		return;
	for (i = 0; s[i]; i += len) {
		unsigned char c = (unsigned char)s[i];

		len = c < 0x80 ? 1 : utf8_len(c);
		for (k = 1; k < len; k++)
			if (((unsigned char)s[i + k] & 0xc0) != 0x80)
				break;
		len = k;
		if (c < 0x80 || len == 1 || (c == 0xc2 && (unsigned char)s[i + 1] <= 0x9f)) {
			len = 1;
			if (c < 0x80 && escaped_len(c) == 1)
				snprintf(one, sizeof(one), "%c", c);
			else if (c < 0x80 && escaped_len(c) == 2)
				snprintf(one, sizeof(one), "\\%c", c == '\\' ? '\\' : c == '\n' ? 'n' : 't');
			else
				snprintf(one, sizeof(one), "\\x%02x", c);
			k = strlen(one);
		} else {
			memcpy(one, s + i, len); /* a whole UTF-8 character, one column */
			k = len;
		}
		if (used + (len > 1 ? 1 : k) > width || n + k >= size)
			break;
		memcpy(buf + n, one, k);
		n += k;
		used += len > 1 ? 1 : k;
	}
	buf[n] = '\0';
}
