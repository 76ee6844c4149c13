#include "scan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void scan_opts_init(struct scan_opts *o)
{
	long ps = sysconf(_SC_PAGESIZE);
	unsigned long long pmd = 0;
	FILE *f;

	memset(o, 0, sizeof(*o));
	o->page_shift = (unsigned)__builtin_ctzl((unsigned long)ps);
	o->pmd_order = (int)o->page_shift - 3; /* a page table page of 8-byte entries */
	f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "re");
	if (f) {
		if (fscanf(f, "%llu", &pmd) == 1 && pmd > (unsigned long long)ps && !(pmd & (pmd - 1)))
			o->pmd_order = __builtin_ctzll(pmd) - (int)o->page_shift;
		fclose(f);
	}
}

int scan_opts_add_cont(struct scan_opts *o, unsigned long long bytes)
{
	unsigned long long pages = bytes >> o->page_shift;
	int order;

	if (!bytes || bytes & ((1ULL << o->page_shift) - 1) || pages < 2 || (pages & (pages - 1)))
		return -EINVAL;
	order = __builtin_ctzll(pages);
	if (order > o->pmd_order)
		return -EINVAL;
	if (o->nr_cont == SCAN_MAX_CONT)
		return -E2BIG;
	o->cont_order[o->nr_cont++] = order;
	return 0;
}

void scan_stats_add(struct scan_stats *dst, const struct scan_stats *src)
{
	const unsigned long long *s = (const unsigned long long *)src;
	unsigned long long *d = (unsigned long long *)dst;
	size_t i;

	/* every field is a counter */
	for (i = 0; i < sizeof(*src) / sizeof(*s); i++)
		d[i] += s[i];
}

/* ---- smaps ------------------------------------------------------------ */

struct vma_list {
	struct scan_vma *v;
	size_t nr, cap;
};

static int parse_header(const char *line, struct scan_vma *v)
{
	unsigned long start, end;
	unsigned long long pgoff, inode;
	unsigned major, minor;
	char perms[8];
	int n = 0;

	if (sscanf(line, "%lx-%lx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff, &major,
		   &minor, &inode, &n) < 7)
		return -EBADMSG;
	memset(v, 0, sizeof(*v));
	v->start = start;
	v->end = end;
	snprintf(v->perms, sizeof(v->perms), "%s", perms);
	v->pgoff = pgoff;
	v->major = major;
	v->minor = minor;
	v->inode = inode;
	snprintf(v->name, sizeof(v->name), "%s", line + n);
	v->name[strcspn(v->name, "\n")] = '\0';
	return 0;
}

static void parse_field(const char *line, struct scan_vma *v)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "Rss:", offsetof(struct scan_vma, rss_kb) },
		{ "Anonymous:", offsetof(struct scan_vma, anon_kb) },
		{ "AnonHugePages:", offsetof(struct scan_vma, anon_huge_kb) },
		{ "ShmemPmdMapped:", offsetof(struct scan_vma, shmem_pmd_kb) },
		{ "FilePmdMapped:", offsetof(struct scan_vma, file_pmd_kb) },
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t len = strlen(keys[i].key);
		if (!strncmp(line, keys[i].key, len)) {
			*(unsigned long long *)((char *)v + keys[i].off) =
				strtoull(line + len, NULL, 10);
			return;
		}
	}
}

static int read_smaps(int pid, struct vma_list *l)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int err = 0;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/smaps", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/smaps");
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	errno = 0;
	while (getline(&line, &cap, f) > 0) {
		const char *colon = strchr(line, ':');
		const char *space = strchr(line, ' ');

		/* a header starts "start-end ", a field "Key:" */
		if (space && (!colon || space < colon)) {
			if (l->nr == l->cap) {
				size_t ncap = l->cap ? 2 * l->cap : 64;
				struct scan_vma *nv = realloc(l->v, ncap * sizeof(*nv));
				if (!nv) {
					err = -ENOMEM;
					goto out;
				}
				l->v = nv;
				l->cap = ncap;
			}
			if (parse_header(line, &l->v[l->nr]))
				continue;
			l->nr++;
		} else if (l->nr) {
			parse_field(line, &l->v[l->nr - 1]);
		}
	}
	if (ferror(f))
		err = errno == ESRCH || !errno ? -ESRCH : -errno;
out:
	free(line);
	fclose(f);
	return err;
}

/* ---- per-VMA statistics ----------------------------------------------- */

struct vma_ctx {
	const struct scan_opts *o;
	struct scan_stats *st;
};

static void add_cont(const struct scan_opts *o, struct scan_stats *st, int t,
		     const struct folio_extent *e)
{
	unsigned long long v = e->start >> o->page_shift, end = v + e->pages;
	int i;

	for (i = 0; i < o->nr_cont; i++) {
		unsigned long long nr = 1ULL << o->cont_order[i], first, last;

		/* virtual and physical addresses must agree modulo the block */
		if ((v ^ e->pfn) & (nr - 1))
			continue;
		first = (v + nr - 1) & ~(nr - 1);
		last = end & ~(nr - 1);
		if (last > first)
			st->cont[t][i] += last - first;
	}
}

static int on_extent(const struct folio_extent *e, void *arg)
{
	struct vma_ctx *c = arg;
	struct scan_stats *st = c->st;
	int t = e->anon ? SCAN_ANON : SCAN_FILE;

	switch (e->kind) {
	case FOLIO_THP:
		if (e->partial)
			st->partial[t] += e->pages;
		else if (e->aligned)
			st->aligned[t][e->order] += e->pages;
		else
			st->unaligned[t][e->order] += e->pages;
		add_cont(c->o, st, t, e);
		break;
	case FOLIO_SMALL:
		st->small[t] += e->pages;
		break;
	case FOLIO_KSM:
		st->ksm += e->pages;
		break;
	case FOLIO_ZERO:
		st->zero += e->pages;
		break;
	case FOLIO_HUGETLB:
		st->hugetlb += e->pages;
		break;
	case FOLIO_OTHER:
		st->other += e->pages;
		break;
	}
	return 0;
}

static unsigned long long sub_clamp(unsigned long long a, unsigned long long b)
{
	return a > b ? a - b : 0;
}

/*
 * As thpmaps: PMD-mapped memory is what smaps says; it is taken out of the
 * PMD-order aligned count and of every --cont count (a PMD-mapped folio is
 * aligned in both address spaces, so all its blocks were counted).
 */
static void finish_vma(const struct scan_opts *o, struct scan_vma *v)
{
	struct scan_stats *st = &v->st;
	unsigned sh = o->page_shift - 10;
	int t, i;

	st->pmd[SCAN_ANON] = v->anon_huge_kb >> sh;
	st->pmd[SCAN_FILE] = (v->shmem_pmd_kb + v->file_pmd_kb) >> sh;
	for (t = 0; t < 2; t++) {
		st->aligned[t][o->pmd_order] = sub_clamp(st->aligned[t][o->pmd_order], st->pmd[t]);
		for (i = 0; i < o->nr_cont; i++)
			st->cont[t][i] = sub_clamp(st->cont[t][i], st->pmd[t]);
	}
	st->total[SCAN_ANON] = v->anon_kb >> sh;
	st->total[SCAN_FILE] = sub_clamp(v->rss_kb, v->anon_kb) >> sh;
}

static int scan_one_vma(struct folio_scanner *s, const struct scan_opts *o, struct scan_vma *v)
{
	struct folio_hist h;
	struct vma_ctx c = { .o = o, .st = &v->st };
	int err;

	memset(&h, 0, sizeof(h));
	err = folio_scanner_range(s, v->start, v->end, &h, on_extent, &c);
	if (err)
		return err;
	v->st.swapped += h.swapped;
	return 0;
}

int scan_process(int pid, const struct scan_opts *o, scan_vma_fn fn, void *ctx)
{
	struct folio_scanner *s = NULL;
	struct vma_list l = { 0 };
	size_t i;
	int err;

	err = read_smaps(pid, &l);
	if (err || !l.nr)
		goto out; /* a kernel thread has no VMAs and no pagemap */
	err = folio_scanner_open(&s, pid);
	if (err)
		goto out;
	for (i = 0; i < l.nr; i++) {
		struct scan_vma *v = &l.v[i];

		/* as thpmaps: only accessible VMAs with resident pages */
		v->scanned = strncmp(v->perms, "---", 3) && v->rss_kb > 0;
		if (v->scanned) {
			err = scan_one_vma(s, o, v);
			if (err)
				goto out;
			finish_vma(o, v);
		}
		err = fn ? fn(v, ctx) : 0;
		if (err)
			goto out;
	}
out:
	folio_scanner_close(s);
	free(l.v);
	return err;
}

/* ---- labels ----------------------------------------------------------- */

static void label(struct scan_label *out, int max, int *n, int type, unsigned long long kb,
		  const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void label(struct scan_label *out, int max, int *n, int type, unsigned long long kb,
		  const char *fmt, ...)
{
	va_list ap;

	if (*n >= max)
		return;
	va_start(ap, fmt);
	vsnprintf(out[*n].name, sizeof(out[*n].name), fmt, ap);
	va_end(ap);
	out[*n].type = type;
	out[*n].kb = kb;
	(*n)++;
}

unsigned long long scan_total_kb(const struct scan_stats *st, const struct scan_opts *o, int type)
{
	return st->total[type] << (o->page_shift - 10);
}

int scan_labels(const struct scan_stats *st, const struct scan_opts *o, struct scan_label *out,
		int max)
{
	static const char *const tname[2] = { "anon", "file" };
	unsigned sh = o->page_shift - 10;
	unsigned long long pmd_kb = 1ULL << (o->pmd_order + (int)o->page_shift - 10);
	int n = 0, t, od, i;

	for (t = 0; t < 2; t++)
		label(out, max, &n, t, st->pmd[t] << sh, "%s-thp-pmd-aligned-%llukB", tname[t],
		      pmd_kb);
	for (t = 0; t < 2; t++) {
		/* thpmaps starts at order 2; order-1 (file) folios show when present */
		for (od = 1; od <= o->pmd_order; od++)
			if (od > 1 || st->aligned[t][1])
				label(out, max, &n, t, st->aligned[t][od] << sh,
				      "%s-thp-pte-aligned-%llukB", tname[t], 1ULL << (od + sh));
		for (od = 1; od <= o->pmd_order; od++)
			if (od > 1 || st->unaligned[t][1])
				label(out, max, &n, t, st->unaligned[t][od] << sh,
				      "%s-thp-pte-unaligned-%llukB", tname[t], 1ULL << (od + sh));
		label(out, max, &n, t, st->partial[t] << sh, "%s-thp-pte-partial", tname[t]);
	}
	for (i = 0; i < o->nr_cont; i++) {
		unsigned long long kb = 1ULL << (o->cont_order[i] + sh);

		for (t = 0; t < 2; t++)
			label(out, max, &n, t, st->pmd[t] << sh, "%s-cont-pmd-aligned-%llukB",
			      tname[t], kb);
		for (t = 0; t < 2; t++)
			label(out, max, &n, t, st->cont[t][i] << sh, "%s-cont-pte-aligned-%llukB",
			      tname[t], kb);
	}
	/* classified apart from folios (thpmaps has no such labels) */
	label(out, max, &n, -1, st->zero << sh, "zero-page");
	label(out, max, &n, SCAN_ANON, st->ksm << sh, "anon-ksm");
	label(out, max, &n, -1, st->hugetlb << sh, "hugetlb");
	return n;
}
