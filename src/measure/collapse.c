// SPDX-License-Identifier: GPL-2.0-or-later
#include "collapse.h"
#include "bench.h"
#include "kconfig.h"
#include "kernel.h"
#include "mthpscope.h"
#include "topo.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

const char *const collapse_mode_words[] = {
	[COLLAPSE_KHUGEPAGED] = "khugepaged",
	[COLLAPSE_MADVISE] = "madvise",
	NULL,
};

const char *collapse_mode_name(enum collapse_mode m)
{
	return (unsigned)m < MS_ARRAY_SIZE(collapse_mode_words) - 1 ? collapse_mode_words[m] : "?";
}

bool collapse_have_madv_collapse(void)
{
	static int known = -1;
	long ps = sysconf(_SC_PAGESIZE);
	void *p;

	if (known >= 0)
		return known;
	/* On a hole, a kernel that knows the advice says ENOMEM (nothing
	 * mapped); one that does not says EINVAL before looking at the range. */
	p = mmap(NULL, (size_t)ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return true; /* cannot tell: do not call the kernel old */
	munmap(p, (size_t)ps);
	known = madvise(p, (size_t)ps, MADV_COLLAPSE) == 0 || errno != EINVAL;
	return known;
}

int collapse_mode_parse(const char *s)
{
	unsigned i;

	for (i = 0; collapse_mode_words[i]; i++)
		if (!strcmp(s, collapse_mode_words[i]))
			return (int)i;
	return -EINVAL;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* khugepaged counters are read on their own, once per sample: cheaper than a
 * whole thp_read() and good enough to tell that khugepaged made a pass. */
static long read_khugepaged_counter(const char *name)
{
	char path[512], buf[64];
	FILE *f;
	long v = -1;

	snprintf(path, sizeof(path), "%s/khugepaged/%s", thp_root(), name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 10);
	fclose(f);
	return v;
}

/* Every target order collapsible here, and the word each is set to. */
static int check_targets(const struct collapse_config *cfg, struct collapse_env *env, char *why,
			 size_t why_size)
{
	unsigned long anon;
	int o;

	anon = thp_anon_orders(&env->thp);
	for (o = 0; o <= FOLIO_MAX_ORDER; o++) {
		const struct thp_size *z;

		if (!(cfg->orders & (1UL << o)))
			continue;
		if (o == 0 || o > env->pmd_order) {
			snprintf(why, why_size, "order %d is not a collapse target: targets are 1-%d",
				 o, env->pmd_order);
			return -EINVAL;
		}
		if (!(anon & (1UL << o))) {
			snprintf(why, why_size,
				 "order %d (%ld KiB) has no anon mTHP support on this kernel "
				 "(no hugepages-%ldkB/enabled)",
				 o, (env->page_size << o) / 1024, (env->page_size << o) / 1024);
			return -EOPNOTSUPP;
		}
		z = thp_size_by_order(&env->thp, o);
		/* A kernel that can defer a size's allocation to khugepaged is
		 * asked to: faults stay at order 0 and only collapse builds the
		 * size, which is the experiment. */
		env->target_word[o] = cfg->mode == COLLAPSE_KHUGEPAGED && z &&
					      (z->enabled_offered & (1u << THP_W_DEFER))
					      ? THP_W_DEFER
					      : THP_W_MADVISE;
	}
	return 0;
}

int collapse_prepare(const struct collapse_config *cfg, struct collapse_env *env, char *why,
		     size_t why_size)
{
	unsigned long pmd_size;
	int err;

	memset(env, 0, sizeof(*env));
	why[0] = '\0';
	err = thp_read(&env->thp);
	if (err) {
		thp_strerror(err, why, why_size);
		return err;
	}
	env->page_size = env->thp.page_size;
	env->pmd_order = env->thp.pmd_order;
	pmd_size = env->thp.pmd_size;
	if (env->pmd_order <= 0 || env->pmd_order > FOLIO_MAX_ORDER || !pmd_size) {
		snprintf(why, why_size, "the PMD size is unknown (no hpage_pmd_size)");
		return -EOPNOTSUPP;
	}
	if (cfg->span == 0 || cfg->span % pmd_size) {
		snprintf(why, why_size, "--span must be a non-zero multiple of the PMD size (%lu KiB)",
			 pmd_size / 1024);
		return -EINVAL;
	}
	if (cfg->max_ptes_none < 0 || cfg->max_ptes_none >= (1 << env->pmd_order)) {
		snprintf(why, why_size, "max_ptes_none %d is outside 0-%d (a PMD maps %d pages)",
			 cfg->max_ptes_none, (1 << env->pmd_order) - 1, 1 << env->pmd_order);
		return -EINVAL;
	}
	if (!(cfg->fill >= 0.0 && cfg->fill <= 1.0)) {
		snprintf(why, why_size, "fill must be 0-100 percent");
		return -EINVAL;
	}
	if (cfg->timeout_ms == 0 || cfg->interval_ms == 0) {
		snprintf(why, why_size, "the timeout and the interval must be above 0");
		return -EINVAL;
	}
	if (!cfg->orders) {
		snprintf(why, why_size, "no target order");
		return -EINVAL;
	}
	if ((err = check_targets(cfg, env, why, why_size)))
		return err;
	err = topo_mem_available(&env->mem_available);
	if (err) {
		snprintf(why, why_size, "/proc/meminfo has no MemAvailable");
		return err;
	}
	/* After a full collapse every page of the span is resident. */
	if (cfg->span > env->mem_available) {
		snprintf(why, why_size,
			 "a span of %zu MiB does not fit: a full collapse makes all of it "
			 "resident and only %llu MiB are available",
			 cfg->span >> 20, env->mem_available >> 20);
		return -ENOMEM;
	}
	return 0;
}

int collapse_span_map(const struct collapse_config *cfg, const struct collapse_env *env,
		      struct collapse_span *sp)
{
	size_t ps = (size_t)env->page_size, pmd = env->thp.pmd_size, pages, i;
	unsigned char *present = NULL;
	uintptr_t aligned;
	int err;

	memset(sp, 0, sizeof(*sp));
	pages = cfg->span / ps;
	sp->map_len = cfg->span + pmd;
	sp->map = mmap(NULL, sp->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		       MAP_NORESERVE, -1, 0);
	if (sp->map == MAP_FAILED) {
		err = -errno;
		sp->map = NULL;
		return err;
	}
	aligned = ((uintptr_t)sp->map + pmd - 1) & ~(uintptr_t)(pmd - 1);
	sp->base = (void *)aligned;
	sp->len = cfg->span;
	/* No setting may give the faults a large folio: the span starts at
	 * order 0 whatever the sizes are set to. */
	if (madvise(sp->base, sp->len, MADV_NOHUGEPAGE)) {
		err = -errno;
		goto fail;
	}
	present = malloc(pages);
	if (!present) {
		err = -ENOMEM;
		goto fail;
	}
	collapse_pattern(cfg->seed, cfg->fill, pages, (unsigned)(pmd / ps), present);
	for (i = 0; i < pages; i++) {
		if (!present[i])
			continue;
		/* Non-zero data, so no page of ours looks like an empty one to
		 * the underused-THP shrinker. */
		((volatile unsigned char *)sp->base)[i * ps] = (unsigned char)(1 + (i & 0x7f));
		sp->filled_pages++;
	}
	free(present);
	return 0;
fail:
	free(present);
	collapse_span_unmap(sp);
	return err;
}

void collapse_span_unmap(struct collapse_span *sp)
{
	if (sp->map)
		munmap(sp->map, sp->map_len);
	memset(sp, 0, sizeof(*sp));
}

int collapse_set_knobs(const struct collapse_config *cfg, const struct collapse_env *env)
{
	const struct thp_settings *s = &env->thp;
	long to_scan;
	int i, err;

	/* 'never' first, then the targets: the set is never larger than asked. */
	for (i = 0; i < s->nr_sizes; i++) {
		const struct thp_size *z = &s->sizes[i];

		if (!z->anon || (cfg->orders & (1UL << z->order)))
			continue;
		if ((err = thp_set_size_enabled(z->order, THP_W_NEVER)))
			return err;
	}
	for (i = 0; i < s->nr_sizes; i++) {
		const struct thp_size *z = &s->sizes[i];

		if (!z->anon || !(cfg->orders & (1UL << z->order)))
			continue;
		if ((err = thp_set_size_enabled(z->order, env->target_word[z->order])))
			return err;
	}
	if ((err = thp_set_khugepaged("max_ptes_none", cfg->max_ptes_none)))
		return err;
	if (cfg->mode != COLLAPSE_KHUGEPAGED)
		return 0;
	/* One wake-up should cover the whole span (and whatever else is
	 * registered), so the timeline measures collapse, not the scan rate. */
	to_scan = cfg->pages_to_scan;
	if (to_scan <= 0) {
		to_scan = (long)(cfg->span / (size_t)env->page_size) * 2;
		if (to_scan < 4096)
			to_scan = 4096;
	}
	if ((err = thp_set_khugepaged("pages_to_scan", to_scan)))
		return err;
	/* A failed huge allocation would otherwise park khugepaged for a minute. */
	if ((err = thp_set_khugepaged("alloc_sleep_millisecs", 100)))
		return err;
	return thp_set_khugepaged("scan_sleep_millisecs", cfg->scan_sleep_ms);
}

static void hist_add(struct folio_hist *h, const struct folio_hist *o)
{
	int k;

	for (k = 0; k <= FOLIO_MAX_ORDER; k++)
		h->pages[k] += o->pages[k];
	h->present += o->present;
	h->not_present += o->not_present;
	h->swapped += o->swapped;
	h->partial += o->partial;
	h->unaligned += o->unaligned;
	h->pmd_mapped += o->pmd_mapped;
	h->anon += o->anon;
	h->file += o->file;
	h->zero_page += o->zero_page;
	h->ksm += o->ksm;
	h->hugetlb += o->hugetlb;
	h->other += o->other;
}

/* The span scanned PMD range by PMD range into run->ranges (the last
 * sample's), the ranges added up into *h: one scan gives both. Folios of
 * the span never cross a range (large ones are naturally aligned, none is
 * larger than the PMD), so the sum is the whole span's scan. */
static int scan_ranges(const struct collapse_span *sp, const struct collapse_env *env,
		       struct collapse_run *run, struct folio_hist *h)
{
	size_t pmd = env->thp.pmd_size, k, nr = pmd ? sp->len / pmd : 0;
	struct folio_scanner *s;
	struct folio_hist rh;
	int err;

	memset(h, 0, sizeof(*h));
	if (!run->ranges && nr) {
		if (!(run->ranges = calloc(nr, sizeof(*run->ranges))))
			return -ENOMEM;
		run->nr_ranges = nr;
	}
	if ((err = folio_scanner_open(&s, 0)))
		return err;
	for (k = 0; k < nr && !err; k++) {
		unsigned long lo = (unsigned long)sp->base + k * pmd;

		memset(&rh, 0, sizeof(rh));
		if ((err = folio_scanner_range(s, lo, lo + pmd, &rh, NULL, NULL)))
			break;
		memcpy(run->ranges[k].pages, rh.pages, sizeof(rh.pages));
		run->ranges[k].partial = rh.partial;
		hist_add(h, &rh);
	}
	folio_scanner_close(s);
	return err;
}

static int sample(const struct collapse_span *sp, const struct collapse_env *env, long t_ms,
		  long scans, struct collapse_run *run)
{
	struct collapse_sample *smp;
	struct folio_hist h;
	int err;

	if (MS_GROW(run->timeline, run->nr_samples, run->cap_samples, 64))
		return -ENOMEM;
	if ((err = scan_ranges(sp, env, run, &h)))
		return err;
	smp = &run->timeline[run->nr_samples++];
	memset(smp, 0, sizeof(*smp));
	smp->t_ms = t_ms;
	smp->full_scans = scans;
	memcpy(smp->pages, h.pages, sizeof(smp->pages));
	smp->partial = h.partial;
	/* The shared zero page is mapped, not resident memory of ours. */
	smp->rss_bytes = (h.present - (h.zero_page < h.present ? h.zero_page : h.present)) *
			 (unsigned long long)env->page_size;
	return 0;
}

static bool same_hist(const struct collapse_sample *a, const struct collapse_sample *b)
{
	return !memcmp(a->pages, b->pages, sizeof(a->pages)) && a->partial == b->partial &&
	       a->rss_bytes == b->rss_bytes;
}

static void counter_deltas(const struct thp_settings *before, const struct thp_settings *after,
			   struct collapse_run *run)
{
	int i, j;

	for (i = 0; i < after->nr_sizes; i++) {
		const struct thp_size *za = &after->sizes[i];
		const struct thp_size *zb = thp_size_by_order(before, za->order);

		for (j = 0; j < za->nr_stats; j++) {
			struct collapse_counter *c;
			bool found = false;
			unsigned long long b;

			if (strncmp(za->stats[j].name, "collapse", 8))
				continue;
			if (run->nr_counters >= COLLAPSE_MAX_COUNTERS)
				return;
			b = zb ? thp_size_stat(zb, za->stats[j].name, &found) : 0;
			c = &run->counters[run->nr_counters++];
			c->order = za->order;
			snprintf(c->name, sizeof(c->name), "%s", za->stats[j].name);
			c->delta = (long long)za->stats[j].value - (long long)(found ? b : 0);
		}
	}
}

static bool interrupted(const struct collapse_config *cfg)
{
	return cfg->interrupt && *cfg->interrupt;
}

/* A signal's handler ends the sleep when it asks to stop (cfg->interrupt). */
static void sleep_ms(const struct collapse_config *cfg, long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR && !interrupted(cfg))
		;
}

/* MADV_COLLAPSE on the span, timed; its errno is the run's finding, not an
 * error, unless the kernel has no MADV_COLLAPSE (-EOPNOTSUPP). */
static int madvise_collapse(const struct collapse_span *sp, struct collapse_run *run)
{
	long long c0 = now_ns();

	if (madvise(sp->base, sp->len, MADV_COLLAPSE))
		run->madvise_errno = errno;
	run->madvise_ns = (long)(now_ns() - c0);
	/* EINVAL is also what a kernel that has MADV_COLLAPSE says of a
	 * range it will not collapse: only the probe tells an old kernel */
	if (run->madvise_errno == EINVAL && !collapse_have_madv_collapse())
		return -EOPNOTSUPP; /* a kernel before 6.1 */
	return 0;
}

/* A whole timeline's summary: the counters against their values before
 * ('before', collapsed0, scans0; -1 unknown), the kernel log, the verdict's
 * figures. */
static void run_finish(const struct collapse_config *cfg, const struct collapse_env *env,
		       const struct thp_settings *before, long collapsed0, long scans0,
		       struct collapse_run *run)
{
	struct thp_settings after;

	run->rss_after = run->timeline[run->nr_samples - 1].rss_bytes;
	if (collapsed0 >= 0)
		run->pages_collapsed = read_khugepaged_counter("pages_collapsed") - collapsed0;
	if (scans0 >= 0)
		run->full_scans = read_khugepaged_counter("full_scans") - scans0;
	if (!thp_read(&after))
		counter_deltas(before, &after, run);
	/* after the run: khugepaged warns once per boot, at its first mTHP
	 * collapse with a value it rewrites */
	run->klog_readable = !klog_find_mpn_message(&run->klog_found, &run->klog_kept);
	collapse_summarize(run, env->pmd_order);
	collapse_summarize_mpn(run, env->pmd_order, env->thp.mthp_collapse,
			       cfg->mode == COLLAPSE_KHUGEPAGED &&
				       (cfg->orders & ((1UL << env->pmd_order) - 1) & ~1UL));
}

int collapse_run(const struct collapse_config *cfg, const struct collapse_env *env,
		 struct collapse_span *sp, struct collapse_run *run)
{
	struct thp_settings before;
	long collapsed0, scans0, scans_at_change;
	long long t0;
	bool collapsing = false;
	int err;

	memset(run, 0, sizeof(*run));
	run->max_ptes_none = cfg->max_ptes_none;
	run->span_pages = sp->len / (size_t)env->page_size;
	run->filled_pages = sp->filled_pages;
	run->first_collapse_ms = -1;
	if ((err = thp_read(&before)))
		return err;
	collapsed0 = read_khugepaged_counter("pages_collapsed");
	scans0 = scans_at_change = read_khugepaged_counter("full_scans");
	run->page_size = env->page_size;
	t0 = now_ns();
	if ((err = sample(sp, env, 0, scans0 >= 0 ? 0 : -1, run)))
		goto out;
	run->rss_before = run->timeline[0].rss_bytes;
	/* Registers the mm with khugepaged (it must happen after the sizes are
	 * enabled: the kernel checks them at this call). */
	if (madvise(sp->base, sp->len, MADV_HUGEPAGE)) {
		err = -errno;
		goto out;
	}
	if (cfg->mode == COLLAPSE_MADVISE && (err = madvise_collapse(sp, run)))
		goto out;
	collapsing = true;
	for (;;) {
		long t_ms;
		const struct collapse_sample *prev, *cur;
		long scans;

		if (cfg->mode == COLLAPSE_KHUGEPAGED || run->nr_samples > 1)
			sleep_ms(cfg, cfg->interval_ms);
		if (interrupted(cfg)) {
			err = -EINTR;
			goto out;
		}
		t_ms = (long)((now_ns() - t0) / 1000000);
		scans = read_khugepaged_counter("full_scans");
		if ((err = sample(sp, env, t_ms, scans >= 0 && scans0 >= 0 ? scans - scans0 : -1,
				  run)))
			goto out;
		if (cfg->on_sample)
			cfg->on_sample(run, cfg->on_sample_ctx);
		prev = &run->timeline[run->nr_samples - 2];
		cur = &run->timeline[run->nr_samples - 1];
		if (!same_hist(prev, cur)) {
			scans_at_change = scans;
		} else if (cfg->mode == COLLAPSE_MADVISE && run->nr_samples > 2) {
			run->steady = true;
			break;
		} else if (cfg->mode == COLLAPSE_KHUGEPAGED && scans >= 0 &&
			   scans >= scans_at_change + 2) {
			/* khugepaged walked every registered mm since the last
			 * change and left ours as it was. */
			run->steady = true;
			break;
		}
		if (t_ms >= (long)cfg->timeout_ms)
			break;
	}
	err = 0;
out:
	run->elapsed_ms = (long)((now_ns() - t0) / 1000000);
	if (collapsing && !err)
		run_finish(cfg, env, &before, collapsed0, scans0, run);
	return err;
}

void collapse_run_free(struct collapse_run *run)
{
	free(run->timeline);
	run->timeline = NULL;
	run->nr_samples = run->cap_samples = 0;
	free(run->ranges);
	run->ranges = NULL;
	run->nr_ranges = 0;
}

/* Creep of the orders: pages leave a sub-PMD order while a higher order
 * gains, i.e. collapsed mTHPs are collapsed again, larger. */
static void order_creep(struct collapse_run *run, size_t i, int pmd_order)
{
	const struct collapse_sample *s = &run->timeline[i], *p = &run->timeline[i - 1];
	int o, hi;

	for (o = 1; o < pmd_order && !run->creep; o++) {
		if (s->pages[o] >= p->pages[o])
			continue;
		for (hi = FOLIO_MAX_ORDER; hi > o; hi--)
			if (s->pages[hi] > p->pages[hi]) {
				run->creep = true;
				run->creep_from = o;
				run->creep_to = hi;
				run->creep_t_ms = s->t_ms;
				break;
			}
	}
}

/* Creep of the RSS: the samples at which it grew, the khugepaged passes
 * that growth spread over (from the pass count of the sample before the
 * first growth to that of the last growth), and the growths that were
 * certainly passes of their own: a growth between samples i-1 and i came
 * from a pass that ended after sample i-1, so it is apart from the last
 * growth (at sample j) only when a pass ended between j and i-1. A pass
 * cut by a sample shows as two growths with no pass ended between. The
 * growth per pass is over those passes apart. */
static void rss_creep(struct collapse_run *run)
{
	long first = -1, last = -1;
	size_t i;

	run->rss_growth_steps = run->rss_growth_separate = 0;
	run->rss_growth_passes = 0;
	run->rss_growth_per_pass = 0;
	for (i = 1; i < run->nr_samples; i++) {
		const struct collapse_sample *prev = &run->timeline[i - 1], *s = &run->timeline[i];

		if (s->rss_bytes <= prev->rss_bytes)
			continue;
		if (!run->rss_growth_steps++ || (last >= 0 && prev->full_scans > last))
			run->rss_growth_separate++;
		if (first < 0)
			first = prev->full_scans;
		last = s->full_scans;
	}
	if (!run->rss_growth_steps || first < 0 || last < 0)
		return;
	/* all growth between two samples is at least one pass */
	run->rss_growth_passes = last - first > 0 ? last - first : 1;
	/* per pass that grew it: system-wide scans that passed the span by
	 * do not divide one pass's growth */
	run->rss_growth_per_pass =
		((double)run->timeline[run->nr_samples - 1].rss_bytes -
		 (double)run->timeline[0].rss_bytes) / (double)run->rss_growth_separate;
}

void collapse_summarize(struct collapse_run *run, int pmd_order)
{
	size_t i;
	int o;

	run->orders_reached = run->orders_final = 0;
	run->creep = false;
	run->creep_from = run->creep_to = -1;
	run->creep_t_ms = -1;
	run->first_collapse_ms = -1;
	for (i = 0; i < run->nr_samples; i++) {
		const struct collapse_sample *s = &run->timeline[i];

		for (o = 1; o <= FOLIO_MAX_ORDER; o++)
			if (s->pages[o]) {
				run->orders_reached |= 1UL << o;
				if (run->first_collapse_ms < 0)
					run->first_collapse_ms = s->t_ms;
			}
		if (i && !run->creep)
			order_creep(run, i, pmd_order);
	}
	if (run->nr_samples)
		for (o = 1; o <= FOLIO_MAX_ORDER; o++)
			if (run->timeline[run->nr_samples - 1].pages[o])
				run->orders_final |= 1UL << o;
	rss_creep(run);
}

void collapse_summarize_mpn(struct collapse_run *run, int pmd_order, bool mthp_collapse,
			    bool mthp_targets)
{
	long long pmd_pages = 1LL << pmd_order, nr_pmds, empty, growth, mthp = 0, pmd_folios;
	const struct collapse_sample *last;
	int mpn = run->max_ptes_none, o;

	run->mpn_mthp = -1;
	run->mpn_mthp_source = NULL;
	if (!mthp_collapse || !mthp_targets || !run->nr_samples)
		return;
	if (mpn == 0 || mpn == pmd_pages - 1) {
		run->mpn_mthp = mpn;
		run->mpn_mthp_source = "as-set";
		return;
	}
	last = &run->timeline[run->nr_samples - 1];
	for (o = 1; o < pmd_order; o++)
		mthp += (long long)last->pages[o];
	/* The message is printed once a boot: one not found may have been
	 * printed before the log wrapped or was cleared, so only behaviour
	 * tells then. */
	if (run->klog_readable && run->klog_found) {
		/* the message names the one value kept besides 0 */
		run->mpn_mthp = mpn != run->klog_kept ? 0 : mpn;
		run->mpn_mthp_source = "kernel-log";
		return;
	}
	nr_pmds = (long long)run->span_pages / pmd_pages;
	if (!mthp || !nr_pmds || run->page_size <= 0)
		return;
	/* every PMD of the span has the same number of empty PTEs: what PMD
	 * folios added is known, the rest of the growth is mTHP collapse's */
	empty = pmd_pages - (long long)run->filled_pages / nr_pmds;
	pmd_folios = (long long)last->pages[pmd_order] / pmd_pages;
	growth = ((long long)run->rss_after - (long long)run->rss_before) / run->page_size;
	run->mpn_mthp = growth - pmd_folios * empty > 0 ? mpn : 0;
	run->mpn_mthp_source = "behaviour";
}

static void creep_words(const struct collapse_run *run, char *buf, size_t size)
{
	if (run->creep)
		ms_appendf(buf, size, "; orders crept up (order %d -> %d at %ld ms)",
			   run->creep_from, run->creep_to, run->creep_t_ms);
	if (run->rss_growth_separate > 1)
		ms_appendf(buf, size, "; RSS crept: it grew in %d khugepaged passes apart, at %d "
			   "samples over %ld passes (%+.0f KiB per pass)", run->rss_growth_separate,
			   run->rss_growth_steps, run->rss_growth_passes,
			   run->rss_growth_per_pass / 1024);
	if (!run->creep && run->rss_growth_separate <= 1)
		ms_appendf(buf, size, "; no creep");
}

static void mpn_words(const struct collapse_run *run, int pmd_order, char *buf, size_t size)
{
	if (!run->mpn_mthp_source || !strcmp(run->mpn_mthp_source, "as-set"))
		return;
	if (run->mpn_mthp == run->max_ptes_none && !strcmp(run->mpn_mthp_source, "kernel-log"))
		ms_appendf(buf, size, "; mTHP collapse applied max_ptes_none %d as set (the kernel "
			   "log's rewrite message keeps it)", run->max_ptes_none);
	else if (run->mpn_mthp == run->max_ptes_none)
		ms_appendf(buf, size, "; mTHP collapse applied max_ptes_none %d as set (by "
			   "behaviour: it filled empty PTEs)", run->max_ptes_none);
	else if (!strcmp(run->mpn_mthp_source, "kernel-log"))
		ms_appendf(buf, size, "; the kernel rewrote max_ptes_none %d to 0 for mTHP orders "
			   "(kernel log: \"%s%d, defaulting to 0\")", run->max_ptes_none,
			   KLOG_MPN_MESSAGE, run->klog_kept);
	else
		ms_appendf(buf, size, "; mTHP collapse behaved as max_ptes_none 0, not %d (it filled "
			   "no empty PTE; the kernel log %s): values other than 0 or %d are "
			   "rewritten to 0", run->max_ptes_none,
			   run->klog_readable ? "has no rewrite message" : "was unreadable",
			   (1 << pmd_order) - 1);
}

/* Only the PMD size in the end (after whatever crept up to it). */
static const char *verdict_pmd(const struct collapse_config *cfg, const struct collapse_env *env,
			       const struct collapse_run *run, unsigned empty, char *buf,
			       size_t size)
{
	unsigned long sub_pmd = ((1UL << env->pmd_order) - 1) & ~1UL;
	char list[96];

	if (!env->thp.mthp_collapse) {
		ms_appendf(buf, size, "this kernel cannot collapse to mTHP orders (no per-size "
			   "collapse counters below the PMD size): %s collapsed to order %d (PMD)",
			   cfg->mode == COLLAPSE_KHUGEPAGED ? "khugepaged" : "MADV_COLLAPSE",
			   env->pmd_order);
		return "pmd-only";
	}
	if (!(cfg->orders & sub_pmd)) {
		ms_appendf(buf, size, "%s collapsed to order %d (PMD), the only size asked for",
			   cfg->mode == COLLAPSE_KHUGEPAGED ? "khugepaged" : "MADV_COLLAPSE",
			   env->pmd_order);
		return "pmd-only";
	}
	if (cfg->mode != COLLAPSE_KHUGEPAGED || cfg->max_ptes_none < (int)empty) {
		ms_appendf(buf, size, "%s collapsed only to order %d (PMD), although this "
			   "kernel's khugepaged can collapse to mTHP orders",
			   cfg->mode == COLLAPSE_KHUGEPAGED ? "khugepaged" : "MADV_COLLAPSE",
			   env->pmd_order);
		return "pmd-only";
	}
	ms_appendf(buf, size, "PMD collapse allowed and won: max_ptes_none %d >= the %u empty "
		   "PTEs per PMD, so khugepaged collapsed whole PMDs (order %d); this kernel can "
		   "collapse to mTHP orders (below max_ptes_none %u PMD collapse is refused)",
		   cfg->max_ptes_none, empty, env->pmd_order, empty);
	if (run->orders_reached & sub_pmd) {
		ms_format_orders(run->orders_reached & sub_pmd, list, sizeof(list));
		ms_appendf(buf, size, "; orders %s came first and were collapsed again into the PMD",
			   list);
	}
	return "pmd-won";
}

static void verdict_none(const struct collapse_config *cfg, const struct collapse_env *env,
			 const struct collapse_run *run, unsigned empty, char *buf, size_t size)
{
	unsigned long pmd_bit = 1UL << env->pmd_order;

	if (!env->thp.mthp_collapse && (cfg->orders & (pmd_bit - 1) & ~1UL))
		ms_appendf(buf, size, "this kernel cannot collapse to mTHP orders (no per-size "
			   "collapse counters below the PMD size); ");
	ms_appendf(buf, size, "nothing collapsed in %ld ms", run->elapsed_ms);
	if (run->madvise_errno)
		ms_appendf(buf, size, " (MADV_COLLAPSE failed: %s)", strerror(run->madvise_errno));
	else if (cfg->mode == COLLAPSE_KHUGEPAGED && !(cfg->orders & pmd_bit) &&
		 !env->thp.mthp_collapse)
		ms_appendf(buf, size, " (khugepaged here runs only while the PMD size is enabled)");
	else if (cfg->mode == COLLAPSE_KHUGEPAGED && empty > (unsigned)cfg->max_ptes_none)
		ms_appendf(buf, size, " (each PMD has %u empty PTEs, more than max_ptes_none %d)",
			   empty, cfg->max_ptes_none);
	else if (!run->steady)
		ms_appendf(buf, size, " (timed out before khugepaged got to it)");
}

const char *collapse_verdict(const struct collapse_config *cfg, const struct collapse_env *env,
			     const struct collapse_run *run, char *buf, size_t size)
{
	unsigned long pmd_bit = 1UL << env->pmd_order;
	unsigned long sub_pmd = (pmd_bit - 1) & ~1UL;
	unsigned pmd_pages = 1u << env->pmd_order;
	unsigned empty = pmd_pages - (unsigned)lround(cfg->fill * pmd_pages);
	const char *who = cfg->mode == COLLAPSE_KHUGEPAGED ? "khugepaged" : "MADV_COLLAPSE";
	const char *key;
	char list[96];

	buf[0] = '\0';
	if (run->orders_final & sub_pmd) {
		key = run->creep || run->rss_growth_separate > 1 ? "mthp-creep" : "mthp";
		ms_format_orders(run->orders_final, list, sizeof(list));
		ms_appendf(buf, size, "%s collapsed to orders %s", who, list);
		creep_words(run, buf, size);
	} else if (run->orders_final) {
		key = verdict_pmd(cfg, env, run, empty, buf, size);
		if (strcmp(key, "pmd-won"))
			creep_words(run, buf, size);
	} else {
		key = "none";
		verdict_none(cfg, env, run, empty, buf, size);
	}
	if (run->madvise_errno && run->orders_final)
		ms_appendf(buf, size, "; MADV_COLLAPSE returned %s: %llu pages left at order 0",
			   strerror(run->madvise_errno),
			   run->nr_samples ? run->timeline[run->nr_samples - 1].pages[0] : 0ULL);
	mpn_words(run, env->pmd_order, buf, size);
	return key;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int collapse_measure(struct collapse_span *sp, long page_size, uint64_t seed, unsigned reps,
		     struct collapse_measure *m)
{
	struct kernel_state ks = { 0 };
	struct bench_time bt;
	double *ns = NULL;
	unsigned r;
	int err;

	memset(m, 0, sizeof(*m));
	if (!reps)
		return -EINVAL;
	if (madvise(sp->base, sp->len, MADV_NOHUGEPAGE))
		return -errno;
	ks.base = sp->base;
	ks.span = sp->len;
	ks.page_size = (size_t)page_size;
	ks.seed = seed;
	if ((err = kernel_chase_tlb.setup(&ks)))
		return err;
	ns = calloc(reps, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	m->reps = reps;
	m->accesses = ks.cycle * 8 < (1ULL << 22) ? (1ULL << 22) : ks.cycle * 8;
	/* warm the caches and the TLB */
	bench_burst(&kernel_chase_tlb, &ks, ks.cycle, &bt);
	/* the engine's clock: ns_per_access means the same as in run */
	for (r = 0; r < reps; r++) {
		bench_burst(&kernel_chase_tlb, &ks, m->accesses, &bt);
		ns[r] = bench_ns_per_access(&bt, m->accesses);
	}
	qsort(ns, reps, sizeof(*ns), cmp_double);
	m->ns_min = ns[0];
	m->ns_max = ns[reps - 1];
	m->ns_per_access = reps % 2 ? ns[reps / 2] : (ns[reps / 2 - 1] + ns[reps / 2]) / 2;
	free(ns);
	return folio_scan_range(0, (unsigned long)sp->base, (unsigned long)sp->base + sp->len,
				&m->hist);
}
