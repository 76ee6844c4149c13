// SPDX-License-Identifier: GPL-2.0-or-later
/* The helpers of mthpscope.h that library modules use too (the messages
 * and exit statuses are the command layer's, in cmd/cli.c). */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

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

int ms_fail(char *err, size_t size, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return code;
}

char *ms_escape(const char *s)
{
	char *out = malloc(4 * strlen(s) + 1), *o = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\' || c == '\n' || c == '\t' || c == 27) {
			*o++ = '\\';
			*o++ = c == '\n' ? 'n' : c == '\t' ? 't' : c == 27 ? 'e' : '\\';
		} else if (c < 0x20 || c == 0x7f) {
			o += sprintf(o, "\\x%02x", c);
		} else {
			*o++ = (char)c;
		}
	}
	*o = '\0';
	return out;
}
