// SPDX-License-Identifier: GPL-2.0-or-later
/* The THP settings' words and values (thp_settings.h): no sysfs here. */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "thp_settings.h"

/* One table for every word in the THP sysfs files (selftests/mm habit). */
static const char *const word_names[THP_W_COUNT] = {
	[THP_W_ALWAYS] = "always",
	[THP_W_INHERIT] = "inherit",
	[THP_W_MADVISE] = "madvise",
	[THP_W_NEVER] = "never",
	[THP_W_DEFER] = "defer",
	[THP_W_DEFER_MADVISE] = "defer+madvise",
	[THP_W_WITHIN_SIZE] = "within_size",
	[THP_W_ADVISE] = "advise",
	[THP_W_DENY] = "deny",
	[THP_W_FORCE] = "force",
};

const char *thp_word_name(enum thp_word w)
{
	if (w < 0 || w >= THP_W_COUNT)
		return "?";
	return word_names[w];
}

int thp_word_parse(const char *s)
{
	int i;

	for (i = 0; i < THP_W_COUNT; i++)
		if (!strcmp(s, word_names[i]))
			return i;
	return -EINVAL;
}

int thp_parse_choice(const char *text, enum thp_word *selected, unsigned *offered)
{
	char tok[48];
	const char *p = text;
	int nsel = 0, sel = THP_W_NONE;
	unsigned mask = 0;

	for (;;) {
		size_t n = 0;
		bool br = false;
		int w;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		while (*p && !isspace((unsigned char)*p) && n < sizeof(tok) - 1)
			tok[n++] = *p++;
		if (*p && !isspace((unsigned char)*p))
			return -EBADMSG; /* token too long */
		tok[n] = '\0';
		if (n >= 2 && tok[0] == '[' && tok[n - 1] == ']') {
			br = true;
			tok[n - 1] = '\0';
		}
		w = thp_word_parse(br ? tok + 1 : tok);
		if (w < 0)
			return -EBADMSG;
		mask |= 1u << w;
		if (br) {
			sel = w;
			nsel++;
		}
	}
	if (nsel != 1)
		return -EBADMSG;
	if (selected)
		*selected = sel;
	if (offered)
		*offered = mask;
	return 0;
}

const struct thp_size *thp_size_by_order(const struct thp_settings *s, int order)
{
	int i;

	for (i = 0; i < s->nr_sizes; i++)
		if (s->sizes[i].order == order)
			return &s->sizes[i];
	return NULL;
}

unsigned long thp_anon_orders(const struct thp_settings *s)
{
	unsigned long mask = 0;
	int i;

	for (i = 0; i < s->nr_sizes; i++)
		if (s->sizes[i].anon && s->sizes[i].order < (int)(sizeof(long) * 8))
			mask |= 1ul << s->sizes[i].order;
	return mask;
}

unsigned long long thp_size_stat(const struct thp_size *z, const char *name, bool *found)
{
	int i;

	for (i = 0; i < z->nr_stats; i++) {
		if (!strcmp(z->stats[i].name, name)) {
			if (found)
				*found = true;
			return z->stats[i].value;
		}
	}
	if (found)
		*found = false;
	return 0;
}
