// SPDX-License-Identifier: GPL-2.0-or-later
/* The helpers of mthpscope.h that library modules use too (the messages
 * and exit statuses are the command layer's, in cmd/cli.c). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mthpscope.h"

void ms_appendf(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

void ms_squeeze_spaces(char *s)
{
	char *w = s;
	const char *r;

	for (r = s; *r; r++) {
		if (*r == ' ' || *r == '\t') {
			if (w > s && w[-1] != ' ')
				*w++ = ' ';
			continue;
		}
		*w++ = *r;
	}
	if (w > s && w[-1] == ' ')
		w--;
	*w = '\0';
}

int ms_format_size(unsigned long long bytes, char *buf, size_t size)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (bytes >= 1024 && bytes % 1024 == 0 && u < 3) {
		bytes /= 1024;
		u++;
	}
	if (u < 0)
		return snprintf(buf, size, "%llu", bytes);
	return snprintf(buf, size, "%llu%c", bytes, units[u]);
}

void ms_format_bytes(double b, char *buf, size_t size)
{
	if (!isfinite(b))
		snprintf(buf, size, "-");
	else if (b >= 1 << 30)
		snprintf(buf, size, "%.1f GiB", b / (1 << 30));
	else if (b >= 1 << 20)
		snprintf(buf, size, "%.1f MiB", b / (1 << 20));
	else
		snprintf(buf, size, "%.0f KiB", b / 1024);
}

void ms_format_share(double share, char *buf, size_t size)
{
	if (!isfinite(share)) {
		snprintf(buf, size, "-");
		return;
	}
	snprintf(buf, size, "%.1f%%", 100.0 * share);
	/* %.1f rounds 0.9996 up to "100.0" */
	if (share < 1.0 && !strncmp(buf, "100.0", 5))
		snprintf(buf, size, ">99.9%%");
}

int ms_fail(char *err, size_t size, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return code;
}

int ms_grow(void *arrayp, size_t n, size_t *cap, size_t elem, size_t first)
{
	size_t c = *cap ? 2 * *cap : first;
	void *a;

	if (n < *cap)
		return 0;
	memcpy(&a, arrayp, sizeof(a));
	a = reallocarray(a, c, elem);
	if (!a)
		return -ENOMEM;
	memcpy(arrayp, &a, sizeof(a));
	*cap = c;
	return 0;
}

char **ms_argv_dup(char *const argv[], int *argc)
{
	char **copy;
	size_t n = 0, i;

	while (argv[n])
		n++;
	copy = calloc(n + 1, sizeof(*copy));
	if (!copy)
		return NULL;
	for (i = 0; i < n; i++)
		if (!(copy[i] = strdup(argv[i]))) {
			ms_argv_free(copy);
			return NULL;
		}
	if (argc)
		*argc = (int)n;
	return copy;
}

void ms_argv_free(char **argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

void ms_strings_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

int ms_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

char *ms_escape(const char *s)
{
	char *out = malloc(4 * strlen(s) + 1), *o = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\' || c == '\n' || c == '\t') {
			*o++ = '\\';
			*o++ = c == '\n' ? 'n' : c == '\t' ? 't' : '\\';
		} else if (c < 0x20 || c == 0x7f) {
			o += sprintf(o, "\\x%02x", c);
		} else {
			*o++ = (char)c;
		}
	}
	*o = '\0';
	return out;
}

void ms_format_orders(unsigned long mask, char *buf, size_t size)
{
	int o, end, bits = (int)(sizeof(mask) * 8);

	buf[0] = '\0';
	for (o = 0; o < bits; o++) {
		if (!(mask & (1UL << o)))
			continue;
		for (end = o; end + 1 < bits && (mask & (1UL << (end + 1))); end++)
			;
		if (end >= o + 2)
			ms_appendf(buf, size, "%s%d-%d", buf[0] ? "," : "", o, end);
		else
			for (; o <= end; o++)
				ms_appendf(buf, size, "%s%d", buf[0] ? "," : "", o);
		o = end;
	}
	if (!buf[0])
		snprintf(buf, size, "none");
}
