// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A user's TLB geometry (--tlb-geometry FILE): "key = value" lines, '#'
 * starts a comment, blank lines are ignored. Strict: an unknown key, a key
 * given twice, a value out of range or a missing required key is refused
 * with the line and the key named. The format (doc/tlb-model.md):
 *
 *   name = my-vm                 required: [a-z0-9._-], at most 31 characters
 *   desc = Zen 4 as the VM says  optional
 *   merge = coalesce             none | coalesce | contpte (required)
 *   merge_pages = 4,8            pages of a merged entry at 4K pages, one size
 *                                or several (coalesce: powers of two in 2-512,
 *                                the largest a block allows is taken; contpte:
 *                                16; none: 1); default 4 / 16 / 1
 *   cite = measured here: F      optional: where the figures come from
 *   hpa = no                     yes | no (contpte and none only)
 *   level1.name = L1D            default L1D, L2, L3
 *   level1.entries = 72          required for each level, 1..1000000
 *   level1.entries_pmd = 32      a separate pool for PMD entries (absent: shared)
 *   level1.ways = 0              0 (fully associative or not known) ..
 *   level1.sizes = 4K,2M,512M    the entry sizes the level holds, powers of two
 *                                from 4K to 1T (absent: every size); a larger
 *                                block takes entries of the largest below it
 *   level2.entries = 3072        levels run from 1 up without a gap, at most 3
 */
#include "tlb_model.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GEOM_FILE_MAX (64 * 1024)
#define GEOM_MAX_ENTRIES 1000000u

enum { K_NAME, K_DESC, K_MERGE, K_MERGE_PAGES, K_HPA, K_CITE, K_GLOBAL_MAX };
enum { KL_NAME, KL_ENTRIES, KL_ENTRIES_PMD, KL_WAYS, KL_SIZES, KL_MAX };
static const char *const global_keys[K_GLOBAL_MAX] = { "name", "desc", "merge", "merge_pages",
							"hpa", "cite" };
static const char *const level_keys[KL_MAX] = { "name", "entries", "entries_pmd", "ways",
						"sizes" };
static const char *const default_level_names[TLB_MAX_LEVELS] = { "L1D", "L2", "L3" };

struct geom_parse {
	struct tlb_geometry *g;
	const char *origin;
	int line;
	bool seen[K_GLOBAL_MAX];
	bool seen_level[TLB_MAX_LEVELS][KL_MAX];
	bool merge_pages_odd; /* a merge size not a power of two */
	char *err;
	size_t errsize;
};

__attribute__((format(printf, 2, 3))) static int perr(struct geom_parse *p, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->line)
		snprintf(p->err, p->errsize, "%s: line %d: %s", p->origin, p->line, msg);
	else
		snprintf(p->err, p->errsize, "%s: %s", p->origin, msg);
	return -EINVAL;
}

/* s without its leading and trailing white space (cut in place): a line,
 * a key, a value, an item of a list */
static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int parse_uint(struct geom_parse *p, const char *key, const char *v, unsigned min,
		      unsigned max, unsigned *out)
{
	char *end;
	unsigned long n;

	errno = 0;
	if (!isdigit((unsigned char)*v))
		return perr(p, "'%s' wants a number, not '%s'", key, v);
	n = strtoul(v, &end, 10);
	if (errno || *end || n < min || n > max)
		return perr(p, "'%s' wants a number in %u..%u, not '%s'", key, min, max, v);
	*out = (unsigned)n;
	return 0;
}

/* "4K,16K,2M": sizes with K, M, G or T, each a power of two from 4K to 1T,
 * into a mask (bit k: 2^k bytes). */
static int parse_sizes(struct geom_parse *p, const char *key, const char *v,
		       unsigned long long *out)
{
	const char *s = v;
	char *end;

	*out = 0;
	do {
		unsigned long long n;
		int shift;

		errno = 0;
		end = (char *)s;
		n = isdigit((unsigned char)*s) ? strtoull(s, &end, 10) : 0;
		shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 :
			*end == 'T' ? 40 : -1;
		if (errno || !n || shift < 0 || (end[1] && end[1] != ',') || n & (n - 1) ||
		    n > (1ULL << (40 - shift)) || (n << shift) < 4096)
			return perr(p, "'%s' wants sizes such as 4K,2M,512M (powers of two from 4K "
				    "to 1T, comma-separated), not '%s'", key, v);
		*out |= 1ULL << (__builtin_ctzll(n) + shift);
		s = end + 1 + (end[1] == ',');
	} while (s[-1] == ',');
	return 0;
}

/* "4" or "4,8": merge sizes in pages, 1..512 each, into a set (bit k: 2^k
 * pages; a size not a power of two sets no bit and is refused later by
 * check_whole with the rule's words); merge_pages is the largest. */
static int parse_merge_pages(struct geom_parse *p, const char *v, struct tlb_geometry *g)
{
	char item[16];
	const char *s = v;
	unsigned n;
	int err;

	g->merge_set = 0;
	g->merge_pages = 0;
	do {
		size_t len = strcspn(s, ",");

		if (len >= sizeof(item))
			return perr(p, "'merge_pages' wants numbers such as 4 or 4,8, not '%s'", v);
		memcpy(item, s, len);
		item[len] = '\0';
		if ((err = parse_uint(p, "merge_pages", trim(item), 1, 512, &n)))
			return err;
		if (n & (n - 1))
			p->merge_pages_odd = true;
		else
			g->merge_set |= n;
		if (n > g->merge_pages)
			g->merge_pages = n;
		s += len + (s[len] == ',');
	} while (s[-1] == ',');
	return 0;
}

static int parse_name(struct geom_parse *p, const char *key, const char *v, const char **out)
{
	const char *c;

	if (!*v || strlen(v) > TLB_NAME_MAX)
		return perr(p, "'%s' wants 1 to %d characters", key, TLB_NAME_MAX);
	for (c = v; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
			return perr(p, "'%s': character '%c' is not one of [A-Za-z0-9._-]", key, *c);
	*out = strdup(v);
	return *out ? 0 : -ENOMEM;
}

static int set_global(struct geom_parse *p, int k, const char *v)
{
	struct tlb_geometry *g = p->g;

	switch (k) {
	case K_NAME:
		return parse_name(p, "name", v, &g->name);
	case K_DESC:
		g->desc = strdup(v);
		return g->desc ? 0 : -ENOMEM;
	case K_MERGE:
		if (tlb_merge_from_name(v, &g->merge))
			return perr(p, "'merge' wants none, coalesce or contpte, not '%s'", v);
		return 0;
	case K_MERGE_PAGES:
		return parse_merge_pages(p, v, g);
	case K_CITE:
		g->merge_cite = strdup(v);
		return g->merge_cite ? 0 : -ENOMEM;
	case K_HPA:
		if (strcmp(v, "yes") && strcmp(v, "no"))
			return perr(p, "'hpa' wants yes or no, not '%s'", v);
		g->hpa = !strcmp(v, "yes");
		return 0;
	}
	return -EINVAL;
}

static int set_level(struct geom_parse *p, int lv, int k, const char *key, const char *v)
{
	struct tlb_level_geometry *l = &p->g->level[lv];

	switch (k) {
	case KL_NAME:
		return parse_name(p, key, v, &l->name);
	case KL_ENTRIES:
		return parse_uint(p, key, v, 1, GEOM_MAX_ENTRIES, &l->entries);
	case KL_ENTRIES_PMD:
		l->shared = false;
		return parse_uint(p, key, v, 1, GEOM_MAX_ENTRIES, &l->entries_pmd);
	case KL_WAYS:
		return parse_uint(p, key, v, 0, GEOM_MAX_ENTRIES, &l->ways);
	case KL_SIZES:
		return parse_sizes(p, key, v, &l->sizes);
	}
	return -EINVAL;
}

static int key_index(const char *const *keys, int n, const char *k)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(keys[i], k))
			return i;
	return -1;
}

static int parse_kv(struct geom_parse *p, const char *key, const char *v)
{
	int k, lv;
	char rest[64];

	if (!strncmp(key, "level", 5) && key[5] >= '1' && key[5] <= '0' + TLB_MAX_LEVELS &&
	    key[6] == '.') {
		lv = key[5] - '1';
		snprintf(rest, sizeof(rest), "%s", key + 7);
		if ((k = key_index(level_keys, KL_MAX, rest)) < 0)
			return perr(p, "unknown key '%s' (a level has name, entries, entries_pmd, "
				    "ways, sizes)", key);
		if (p->seen_level[lv][k])
			return perr(p, "'%s' given twice", key);
		p->seen_level[lv][k] = true;
		return set_level(p, lv, k, key, v);
	}
	if ((k = key_index(global_keys, K_GLOBAL_MAX, key)) < 0)
		return perr(p, "unknown key '%s' (keys: name, desc, merge, merge_pages, hpa, cite, "
			    "levelN.name, levelN.entries, levelN.entries_pmd, levelN.ways, "
			    "levelN.sizes)", key);
	if (p->seen[k])
		return perr(p, "'%s' given twice", key);
	p->seen[k] = true;
	return set_global(p, k, v);
}

static int parse_line(struct geom_parse *p, char *line)
{
	char *hash = strchr(line, '#'), *eq, *key, *v;

	if (hash)
		*hash = '\0';
	line = trim(line);
	if (!*line)
		return 0;
	if (!(eq = strchr(line, '=')))
		return perr(p, "not 'key = value': '%.40s'", line);
	*eq = '\0';
	key = trim(line);
	v = trim(eq + 1);
	if (!*key)
		return perr(p, "no key before '='");
	if (!*v)
		return perr(p, "'%s' has no value", key);
	return parse_kv(p, key, v);
}

/* What the lines cannot say alone: required keys, levels without a gap,
 * a merge size that fits the rule. */
static int check_whole(struct geom_parse *p)
{
	struct tlb_geometry *g = p->g;
	int lv, n = 0;

	p->line = 0;
	if (!p->seen[K_NAME])
		return perr(p, "'name' is missing");
	if (!p->seen[K_MERGE])
		return perr(p, "'merge' is missing (none, coalesce or contpte)");
	for (lv = 0; lv < TLB_MAX_LEVELS; lv++) {
		bool any = false;
		int k;

		for (k = 0; k < KL_MAX; k++)
			any |= p->seen_level[lv][k];
		if (!any)
			continue;
		if (lv != n)
			return perr(p, "level%d is given but level%d is not", lv + 1, n + 1);
		if (!p->seen_level[lv][KL_ENTRIES])
			return perr(p, "'level%d.entries' is missing", lv + 1);
		/* the model breaks blocks up within one pool (tlb_model.c) */
		if (p->seen_level[lv][KL_SIZES] && p->seen_level[lv][KL_ENTRIES_PMD])
			return perr(p, "'level%d.sizes' is for a level of one pool, not with "
				    "'level%d.entries_pmd'", lv + 1, lv + 1);
		n++;
	}
	if (!n)
		return perr(p, "no level: give at least 'level1.entries'");
	g->nr_levels = n;
	if (!p->seen[K_MERGE_PAGES])
		g->merge_pages = g->merge == TLB_MERGE_COALESCE ? 4 :
				 g->merge == TLB_MERGE_CONTPTE ? 16 : 1;
	if (g->merge != TLB_MERGE_COALESCE && p->seen[K_MERGE_PAGES] &&
	    (p->merge_pages_odd || (g->merge_set & (g->merge_set - 1))))
		return perr(p, "'merge_pages' of %s is one size", tlb_merge_name(g->merge));
	if (!p->seen[K_MERGE_PAGES] || g->merge != TLB_MERGE_COALESCE)
		g->merge_set = 0; /* one size: merge_pages says it */
	if (g->merge == TLB_MERGE_COALESCE && (p->merge_pages_odd || g->merge_pages < 2 ||
					       (g->merge_set & 1u)))
		return perr(p, "'merge_pages' of coalesce wants a power of two in 2..512, or "
			    "several (4,8)");
	if (g->merge == TLB_MERGE_CONTPTE && g->merge_pages != 16)
		return perr(p, "'merge_pages' of contpte is 16 (the kernel's 64K block of 4K pages)");
	if (g->merge == TLB_MERGE_NONE && g->merge_pages != 1)
		return perr(p, "'merge_pages' of merge = none is 1");
	if (g->hpa && g->merge == TLB_MERGE_COALESCE)
		return perr(p, "'hpa' is an arm64 feature: not with merge = coalesce");
	return 0;
}

static void fill_defaults(struct tlb_geometry *g, const char *origin)
{
	char *cite = NULL;
	int lv;

	if (g->merge_cite ? asprintf(&cite, "%s (geometry file %s)", g->merge_cite, origin) < 0
			  : asprintf(&cite, "user geometry file %s", origin) < 0)
		cite = NULL;
	for (lv = 0; lv < g->nr_levels; lv++) {
		struct tlb_level_geometry *l = &g->level[lv];

		if (!l->name)
			l->name = strdup(default_level_names[lv]);
		l->source = TLB_SRC_USER;
		l->cite = lv == 0 ? cite : strdup(cite ? cite : "");
	}
	if (!g->nr_levels)
		free(cite);
	if (!g->desc)
		g->desc = strdup("a user's geometry");
}

/* sizes as parse_sizes reads them: "4K,2M,1G" */
static void sizes_text(unsigned long long mask, char *buf, size_t size)
{
	static const char unit[] = "KMGT";
	size_t n = 0;
	int k;

	buf[0] = '\0';
	for (k = 12; k <= 40 && n < size; k++)
		if (mask & (1ULL << k))
			n += (size_t)snprintf(buf + n, size - n, "%s%llu%c", n ? "," : "",
					      1ULL << ((k - 10) % 10), unit[(k - 10) / 10]);
}

int tlb_geometry_format(const struct tlb_geometry *g, char *buf, size_t size)
{
	char sizes[96];
	size_t n = 0;
	int lv;

	for (lv = 0; lv < g->nr_levels; lv++)
		if (!g->level[lv].entries || (!g->level[lv].shared && !g->level[lv].entries_pmd))
			return -EINVAL; /* a capacity not known: no file says that */
#define PUT(...)                                                                             \
	do {                                                                                 \
		int w_ = snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__);            \
		if (w_ < 0)                                                                  \
			return -EINVAL;                                                      \
		n += (size_t)w_;                                                             \
	} while (0)
	PUT("name = %s\n", g->name ? g->name : "");
	if (g->desc)
		PUT("desc = %s\n", g->desc);
	tlb_merge_set_text(tlb_merge_set(g), sizes, sizeof(sizes));
	PUT("merge = %s\nmerge_pages = %s\n", tlb_merge_name(g->merge),
	    g->merge == TLB_MERGE_NONE ? "1" : sizes);
	if (g->merge_cite && !strpbrk(g->merge_cite, "#\n"))
		PUT("cite = %s\n", g->merge_cite);
	if (g->merge != TLB_MERGE_COALESCE)
		PUT("hpa = %s\n", g->hpa ? "yes" : "no");
	for (lv = 0; lv < g->nr_levels; lv++) {
		const struct tlb_level_geometry *l = &g->level[lv];

		PUT("level%d.name = %s\nlevel%d.entries = %u\nlevel%d.ways = %u\n", lv + 1,
		    l->name ? l->name : default_level_names[lv], lv + 1, l->entries, lv + 1,
		    l->ways);
		if (!l->shared)
			PUT("level%d.entries_pmd = %u\n", lv + 1, l->entries_pmd);
		sizes_text(l->sizes, sizes, sizeof(sizes));
		if (l->shared && l->sizes)
			PUT("level%d.sizes = %s\n", lv + 1, sizes);
	}
#undef PUT
	return n < size ? (int)n : -ENOSPC;
}

void tlb_geometry_release(struct tlb_geometry *g)
{
	int lv;

	free((char *)g->name);
	free((char *)g->desc);
	free((char *)g->merge_cite);
	for (lv = 0; lv < TLB_MAX_LEVELS; lv++) {
		free((char *)g->level[lv].name);
		free((char *)g->level[lv].cite);
	}
	memset(g, 0, sizeof(*g));
}

int tlb_geometry_parse(const char *text, size_t len, const char *origin, struct tlb_geometry *g,
		       char *err, size_t errsize)
{
	struct geom_parse p = { .g = g, .origin = origin, .err = err, .errsize = errsize };
	char *buf, *line, *save = NULL;
	size_t i;
	int rc = 0, lv;

	memset(g, 0, sizeof(*g));
	for (lv = 0; lv < TLB_MAX_LEVELS; lv++)
		g->level[lv].shared = true;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c >= 0x80 || (c < 0x20 && c != '\n' && c != '\t' && c != '\r'))
			return perr(&p, "not a text file of ASCII lines (byte %zu)", i);
	}
	if (!(buf = strndup(text, len)))
		return -ENOMEM;
	/* strtok_r would merge empty lines and lose the line count */
	for (line = buf; line && !rc; line = save) {
		char *nl = strchr(line, '\n');

		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		p.line++;
		rc = parse_line(&p, line);
	}
	free(buf);
	if (!rc)
		rc = check_whole(&p);
	if (!rc)
		fill_defaults(g, origin);
	if (rc)
		tlb_geometry_release(g);
	return rc;
}

int tlb_geometry_load(const char *path, struct tlb_geometry *g, char *err, size_t errsize)
{
	char *text = NULL;
	ssize_t n;
	size_t len = 0;
	int fd, rc;

	memset(g, 0, sizeof(*g));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		rc = -errno;
		snprintf(err, errsize, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (!(text = malloc(GEOM_FILE_MAX + 1))) {
		rc = -ENOMEM;
		goto out;
	}
	while ((n = read(fd, text + len, GEOM_FILE_MAX + 1 - len)) > 0 && len < GEOM_FILE_MAX + 1)
		len += (size_t)n;
	if (n < 0) {
		rc = -errno;
		snprintf(err, errsize, "%s: %s", path, strerror(-rc));
		goto out;
	}
	if (len > GEOM_FILE_MAX) {
		snprintf(err, errsize, "%s: larger than %d bytes: not a geometry file", path,
			 GEOM_FILE_MAX);
		rc = -EINVAL;
		goto out;
	}
	rc = tlb_geometry_parse(text, len, path, g, err, errsize);
out:
	free(text);
	close(fd);
	return rc;
}
