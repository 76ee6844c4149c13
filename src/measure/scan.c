// SPDX-License-Identifier: GPL-2.0-or-later
#include "scan.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mthpscope.h"

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
	for (int i = 0; i < o->nr_cont; i++)
		if (o->cont_order[i] == order)
			return 0; /* once, as thpmaps' labels are */
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

const char *const scan_smaps_names[SCAN_NR_SMAPS] = {
	"Size", "Rss", "Pss", "Pss_Dirty", "Shared_Clean", "Shared_Dirty", "Private_Clean",
	"Private_Dirty", "Referenced", "Anonymous", "KSM", "LazyFree", "AnonHugePages",
	"ShmemPmdMapped", "FilePmdMapped", "Shared_Hugetlb", "Private_Hugetlb", "Swap", "SwapPss",
	"Locked",
};

/* One of scan_smaps_names, kept in the order the file gives them. */
static void parse_smaps_kb(const char *line, struct scan_vma *v)
{
	size_t i, len;

	for (i = 0; i < SCAN_NR_SMAPS; i++) {
		len = strlen(scan_smaps_names[i]);
		if (strncmp(line, scan_smaps_names[i], len) || line[len] != ':')
			continue;
		v->smaps_kb[i] = strtoull(line + len + 1, NULL, 10);
		if (v->nr_smaps < SCAN_NR_SMAPS)
			v->smaps_field[v->nr_smaps++] = (unsigned char)i;
		return;
	}
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

	parse_smaps_kb(line, v);
	if (!strncmp(line, "VmFlags:", 8)) {
		/* two-letter words separated by spaces */
		v->vm_nohuge = strstr(line + 8, " nh") != NULL;
		v->vm_hugepage = strstr(line + 8, " hg") != NULL;
		return;
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t len = strlen(keys[i].key);
		if (!strncmp(line, keys[i].key, len)) {
			*(unsigned long long *)((char *)v + keys[i].off) =
				strtoull(line + len, NULL, 10);
			return;
		}
	}
}

/* The lines of an smaps (or maps) file: header lines start VMAs, "Key:"
 * lines fill the last one; a malformed header is skipped. */
static int parse_vmas(FILE *f, struct vma_list *l)
{
	char *line = NULL;
	size_t cap = 0;
	int err = 0;

	l->nr = 0;
	errno = 0;
	while (getline(&line, &cap, f) > 0) {
		const char *colon = strchr(line, ':');
		const char *space = strchr(line, ' ');

		/* a header starts "start-end ", a field "Key:" */
		if (space && (!colon || space < colon)) {
			if (MS_GROW(l->v, l->nr, l->cap, 64)) {
				err = -ENOMEM;
				goto out;
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
	return err;
}

int scan_parse_smaps(FILE *f, struct scan_vma **v, size_t *nr)
{
	struct vma_list l = { NULL, 0, 0 };
	int err = parse_vmas(f, &l);

	if (err) {
		free(l.v);
		return err;
	}
	*v = l.v;
	*nr = l.nr;
	return 0;
}

/* /proc/PID/smaps, or /proc/PID/maps (the same header lines, no fields). */
static int read_vmas(int pid, bool smaps, struct vma_list *l)
{
	char path[64];
	const char *file = smaps ? "smaps" : "maps";
	FILE *f;
	int err;

	l->nr = 0;
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	else
		snprintf(path, sizeof(path), "/proc/self/%s", file);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	err = parse_vmas(f, l);
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

	const struct folio_kind_sums sums = { .small = &st->small[t], .ksm = &st->ksm,
					      .zero = &st->zero, .hugetlb = &st->hugetlb,
					      .other = &st->other };

	if (folio_extent_is_rss(e))
		st->total[t] += e->pages;
	if (!folio_kind_add(e, &sums))
		return 0;
	if (!e->partial && e->pmd_mapped)
		st->pmd[t] += e->pages;
	if (e->partial)
		st->partial[t] += e->pages;
	else if (e->aligned)
		st->aligned[t][folio_extent_order(e)] += e->pages;
	else
		st->unaligned[t][folio_extent_order(e)] += e->pages;
	add_cont(c->o, st, t, e);
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
static void finish_vma(const struct scan_opts *o, struct scan_vma *v, bool smaps)
{
	struct scan_stats *st = &v->st;
	unsigned sh = o->page_shift - 10;
	int t, i;

	if (!smaps) {
		/* PAGEMAP_SCAN showed the PMD mappings: the same amounts smaps
		 * would give, without its walk of every page table */
		v->anon_huge_kb = st->pmd[SCAN_ANON] << sh;
		v->file_pmd_kb = st->pmd[SCAN_FILE] << sh;
		v->anon_kb = st->total[SCAN_ANON] << sh;
		v->rss_kb = (st->total[SCAN_ANON] + st->total[SCAN_FILE]) << sh;
	}
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

/*
 * The VMAs of one process are cut into chunks of SCAN_CHUNK bytes of address
 * space, or of the PMD size where that is larger (PMD-aligned, so neither a
 * PMD mapping nor a block of the contiguity histogram is cut) that the workers take
 * in turn; folio_scanner_chunk() gives a folio across a chunk edge to the
 * chunk where it begins. Each worker holds one scanner: memory is its
 * buffers, whatever the size of the process.
 */
#define SCAN_CHUNK (32UL << 20)

struct scan_job {
	struct scan_pool pool;  /* first: the pool's callbacks are given it */
	const struct scan_opts *o;
	struct scan_vma *v;
	size_t nr;
	size_t next_vma;        /* cursor: the next chunk to hand out */
	unsigned long next_addr;
	unsigned long chunk;    /* SCAN_CHUNK, or the PMD size when larger */
};

static bool take_chunk(struct scan_pool *p, struct folio_scanner *s, struct scan_chunk *c)
{
	struct scan_job *j = (struct scan_job *)p;

	while (j->next_vma < j->nr) {
		struct scan_vma *v = &j->v[j->next_vma];
		int err;

		if (!v->scanned || j->next_addr >= v->end) {
			j->next_vma++;
			j->next_addr = j->next_vma < j->nr ? j->v[j->next_vma].start : 0;
			continue;
		}
		if (j->next_addr < v->start)
			j->next_addr = v->start;
		/* Skip address space with nothing mapped (a sanitizer's shadow is
		 * terabytes of it): no folio begins there, so no chunk edge rule
		 * is broken. */
		err = folio_scanner_next_mapped(s, j->next_addr, v->end, &j->next_addr);
		if (err) {
			p->err = err;
			return false;
		}
		if (j->next_addr >= v->end)
			continue;
		c->vma = j->next_vma;
		c->start = j->next_addr;
		c->end = (j->next_addr & ~(j->chunk - 1)) + j->chunk;
		if (c->end > v->end || c->end <= c->start)
			c->end = v->end;
		j->next_addr = c->end;
		return true;
	}
	return false;
}

static int scan_one_chunk(struct scan_pool *p, struct folio_scanner *s, const struct scan_chunk *c)
{
	struct scan_job *j = (struct scan_job *)p;
	struct scan_vma *v = &j->v[c->vma];
	struct scan_stats st;
	struct folio_hist h;
	struct layout_hist lh;
	struct vma_ctx vc = { .o = j->o, .st = &st };
	int err = 0;

	memset(&st, 0, sizeof(st));
	memset(&h, 0, sizeof(h));
	layout_hist_init(&lh, j->o->page_shift, j->o->pmd_order);
	if (j->o->layout)
		err = folio_scanner_layout(s, &lh);
	if (!err)
		err = folio_scanner_chunk(s, v->start, v->end, c->start, c->end, &h, on_extent, &vc);
	st.swapped = h.swapped;
	pthread_mutex_lock(&p->lock);
	scan_stats_add(&v->st, &st);
	if (!err && j->o->layout)
		err = layout_hist_add(&v->layout, &lh);
	pthread_mutex_unlock(&p->lock);
	return err;
}

static void *pool_worker(void *arg)
{
	struct scan_pool *p = arg;
	struct folio_scanner *s = NULL;
	int err = folio_scanner_open(&s, p->pid);

	for (;;) {
		struct scan_chunk c = { 0 };

		pthread_mutex_lock(&p->lock);
		if (err && !p->err)
			p->err = err;
		if (err || p->err || !p->take(p, s, &c)) {
			pthread_mutex_unlock(&p->lock);
			break;
		}
		pthread_mutex_unlock(&p->lock);
		err = p->scan(p, s, &c);
	}
	folio_scanner_close(s);
	return NULL;
}

int scan_pool_run(struct scan_pool *p, int n)
{
	pthread_t th[SCAN_MAX_THREADS];
	int started = 0, i;

	for (i = 1; i < n && i < SCAN_MAX_THREADS; i++)
		if (!pthread_create(&th[started], NULL, pool_worker, p))
			started++;
	pool_worker(p);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	return p->err;
}

static int nr_workers(const struct scan_opts *o, const struct vma_list *l)
{
	unsigned long long span = 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int n = o->nr_threads > 0 ? o->nr_threads : (cpus > 1 ? 2 : 1);
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (l->v[i].scanned)
			span += l->v[i].end - l->v[i].start;
	/* a thread costs more than a small process takes to scan */
	return span >= 2 * SCAN_CHUNK ? n : 1;
}

static int scan_vmas(int pid, const struct scan_opts *o, struct vma_list *l)
{
	struct scan_job j = { .pool = { .pid = pid, .lock = PTHREAD_MUTEX_INITIALIZER,
					.take = take_chunk, .scan = scan_one_chunk },
			      .o = o, .v = l->v, .nr = l->nr,
			      .next_addr = l->nr ? l->v[0].start : 0,
			      .chunk = SCAN_CHUNK };
	size_t v;

	if (o->pmd_order + (int)o->page_shift > __builtin_ctzl(SCAN_CHUNK))
		j.chunk = 1UL << (o->pmd_order + (int)o->page_shift);
	for (v = 0; v < l->nr; v++)
		layout_hist_init(&l->v[v].layout, o->page_shift, o->pmd_order);
	return scan_pool_run(&j.pool, nr_workers(o, l));
}

static bool is_zombie(int pid)
{
	char path[64], buf[512], *rp;
	FILE *f;
	size_t n;

	if (!pid)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return true;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "pid (comm) S ...": comm may hold anything, the state follows the last ')' */
	rp = strrchr(buf, ')');
	return !rp || rp[1] != ' ' || rp[2] == 'Z' || rp[2] == 'X';
}

int scan_process_exists(int pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (access(path, F_OK))
		return errno == ENOENT ? -ESRCH : -errno;
	return is_zombie(pid) ? -ESRCH : 0;
}

int scan_process(int pid, const struct scan_opts *o, scan_vma_fn fn, void *ctx)
{
	struct folio_scanner *s = NULL;
	struct vma_list l = { 0 };
	bool smaps = o->use_smaps;
	size_t i;
	int err;

	err = read_vmas(pid, smaps, &l);
	if (!err && !l.nr && is_zombie(pid))
		err = -ESRCH; /* it has exited; its parent has not reaped it yet */
	if (err || !l.nr)
		goto out; /* a kernel thread has no VMAs and no pagemap */
	/* the scanner tells whether PAGEMAP_SCAN can stand in for smaps */
	err = folio_scanner_open(&s, pid);
	if (err)
		goto out;
	if (!smaps && !folio_scanner_pagemap_scan(s)) {
		smaps = true;
		err = read_vmas(pid, smaps, &l);
		if (err)
			goto out;
	}
	folio_scanner_close(s);
	s = NULL;
	for (i = 0; i < l.nr; i++) {
		struct scan_vma *v = &l.v[i];

		/* as thpmaps: only accessible VMAs with resident pages (without
		 * smaps, every accessible VMA: an empty one costs one ioctl) */
		v->scanned = strncmp(v->perms, "---", 3) && (!smaps || v->rss_kb > 0);
	}
	err = scan_vmas(pid, o, &l);
	if (err)
		goto out;
	for (i = 0; i < l.nr; i++) {
		if (l.v[i].scanned)
			finish_vma(o, &l.v[i], smaps);
		/* as thpmaps: a VMA with nothing resident has no labels */
		if (!l.v[i].rss_kb)
			l.v[i].scanned = false;
		err = fn ? fn(&l.v[i], ctx) : 0;
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
