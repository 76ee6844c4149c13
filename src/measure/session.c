// SPDX-License-Identifier: GPL-2.0-or-later
/* The run session: spans, schedule, config, the document and its trials
 * kept; the loops over the plan are session_trials.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch.h"
#include "mthpscope.h"
#include "session.h"

void session_progress(struct session *s, int done, const struct bench_cell *c)
{
	struct bench_event ev = { .kind = BENCH_EV_TRIAL, .cell = c, .done = done,
				  .total = s->nr_cells };

	ev.what = s->cmd ? s->cmd[0] : c ? s->pats[c->pattern]->name : "";
	if (s->b.report)
		s->b.report(&ev, s->b.report_ctx);
}

/* ---- defaults from the machine ------------------------------------------- */

/* Bytes the last-level data TLB maps with base pages: CPUID where x86 has
 * it (arch_tlb_geometry); elsewhere 2048 entries are assumed, the size of
 * current big cores' second-level TLBs (Golden Cove, Neoverse V2), and the
 * config says so. */
static unsigned long long tlb_reach(long page_size, const char **source)
{
	struct arch_tlb t;
	int entries;

	if (!arch_tlb_geometry(&t)) {
		entries = t.l2_4k ? t.l2_4k : t.l1d_4k;
		if (entries > 0) {
			*source = t.source ? t.source : "cpuid";
			return (unsigned long long)entries * (unsigned long long)page_size;
		}
	}
	*source = "assumed: 2048 entries";
	return 2048ULL * (unsigned long long)page_size;
}

static unsigned long long round_up(unsigned long long v, unsigned long long to)
{
	return (v + to - 1) / to * to;
}

/*
 * chase-tlb: one line per page, so the chased lines take span/64 bytes; keep
 * them within half the L2 (32 x L2) while the pages are at least twice the
 * TLB reach. The other patterns want memory, not cache: four times the
 * last-level cache.
 */
static unsigned long long default_span(const struct kernel_desc *k, const struct topo_info *t,
				       unsigned long long reach, unsigned long pmd)
{
	unsigned long long v, l2 = t->l2_bytes ? t->l2_bytes : 1ULL << 20;
	unsigned long long llc = t->l3_bytes ? t->l3_bytes : l2;

	if (k == &kernel_chase_tlb) {
		v = 32 * l2;
		if (v < 2 * reach)
			v = 2 * reach;
	} else {
		v = 4 * llc;
		if (v < 64ULL << 20)
			v = 64ULL << 20;
	}
	if (v > 1ULL << 30)
		v = 1ULL << 30;
	return round_up(v, pmd);
}

/* Interleaved unless asked otherwise or the spans of every order do not fit
 * at once (then sequential, and it says so). */
static void choose_schedule(struct session *s, unsigned long long largest,
			    unsigned long long avail)
{
	unsigned long long need = bench_interleaved_bytes(largest, (int)s->orders.nr, s->s.pmd_size);

	s->schedule = s->o.schedule < 0 ? RESULTS_SCHED_INTERLEAVED
					: (enum results_schedule)s->o.schedule;
	if (s->schedule == RESULTS_SCHED_INTERLEAVED && avail &&
	    (double)need > SESSION_MEM_SHARE * (double)avail) {
		char a[32], l[32];

		ms_format_bytes((double)need, l, sizeof(l));
		ms_format_bytes((double)avail, a, sizeof(a));
		bench_say(&s->b, BENCH_EV_NOTE, "the spans of all %d orders at once (%s) exceed "
			  "half of MemAvailable (%s): the sequential schedule is used (one "
			  "order per trial)", (int)s->orders.nr, l, a);
		s->schedule = RESULTS_SCHED_SEQUENTIAL;
	}
}

/* The random part of the ballast that moves each rep's placement
 * (bench.h): up to SESSION_BALLAST_MAX, within what the memory share leaves
 * beside the buffers and the ballast's fixed part; never less than one span
 * (the engine's default). */
static void set_ballast(struct session *s, unsigned long long largest, unsigned long long avail)
{
	double room = SESSION_MEM_SHARE * (double)avail -
		      (double)bench_interleaved_bytes(largest, (int)s->orders.nr, s->s.pmd_size);

	s->b.ballast_max = SESSION_BALLAST_MAX;
	if (avail && room < (double)s->b.ballast_max)
		s->b.ballast_max = room > (double)largest ? (unsigned long long)room : largest;
}

/* The spans asked for, each checked; the largest in *largest. */
static int pick_spans(struct session *s, unsigned long long *largest, char *why, size_t size)
{
	unsigned long long u;
	int i;

	if (s->o.sweep_min) {
		for (u = s->o.sweep_min; u <= s->o.sweep_max && s->nr_spans < SESSION_MAX_SPANS;
		     u *= 2)
			s->spans[s->nr_spans++] = u;
	} else if (s->o.span) {
		s->spans[s->nr_spans++] = s->o.span;
	} else {
		s->spans[s->nr_spans++] = default_span(s->pats[0], &s->topo, s->reach,
						       s->s.pmd_size);
	}
	*largest = 0;
	for (i = 0; i < s->nr_spans; i++) {
		if (s->spans[i] % s->s.pmd_size)
			return ms_fail(why, size, -EINVAL, "span %llu is not a multiple of the PMD "
				       "size (%lu bytes): every order must be able to fill it with "
				       "aligned folios", s->spans[i], s->s.pmd_size);
		*largest = s->spans[i] > *largest ? s->spans[i] : *largest;
	}
	if (*largest / KERNEL_LINE > UINT32_MAX)
		return ms_fail(why, size, -EINVAL, "span %llu is too large (at most %llu bytes)",
			       *largest, (unsigned long long)UINT32_MAX * KERNEL_LINE);
	return 0;
}

int session_setup(struct session *s, char *why, size_t size)
{
	unsigned long long largest, avail;
	int err;

	s->reach = tlb_reach(s->topo.page_size, &s->reach_source);
	if ((err = pick_spans(s, &largest, why, size)))
		return err;
	if (s->o.span && s->topo.l2_bytes && kernel_find("chase-tlb") == s->pats[0] &&
	    s->o.span / s->topo.page_size * KERNEL_LINE > s->topo.l2_bytes / 2)
		bench_say(&s->b, BENCH_EV_NOTE, "chase-tlb at %llu MiB chases %llu KiB of lines, "
			  "more than half of the L2 (%llu KiB): cache misses add to the "
			  "translation cost", s->o.span >> 20,
			  s->o.span / (unsigned long long)s->topo.page_size * KERNEL_LINE >> 10,
			  s->topo.l2_bytes >> 10);
	if (!s->o.have_sparse)
		s->o.sparse_k = (long)(s->s.pmd_size / (unsigned long)s->topo.page_size);
	s->target_ns = s->o.quick ? 0.1e9 : 0.5e9;
	if (geteuid() != 0)
		return 0; /* the command says it needs root */
	if (topo_mem_available(&avail))
		avail = 0;
	/* the span, the sparse copy is mapped after it is gone; the chase
	 * set-up's successor table is up to span/16 */
	if (avail &&
	    (double)(largest + largest / 16 + s->s.pmd_size) > SESSION_MEM_SHARE * (double)avail) {
		char a[32], l[32];

		ms_format_bytes((double)largest, l, sizeof(l));
		ms_format_bytes((double)avail, a, sizeof(a));
		return ms_fail(why, size, -ENOSPC, "a span of %s is more than half of MemAvailable "
			       "(%s); choose a smaller --span", l, a);
	}
	choose_schedule(s, largest, avail);
	set_ballast(s, largest, avail);
	if (s->schedule == RESULTS_SCHED_INTERLEAVED && !s->o.quick) {
		s->target_ns = SESSION_INTERLEAVED_TRIAL_NS;
		if (!s->o.have_reps)
			s->o.reps = SESSION_INTERLEAVED_REPS;
	}
	return 0;
}

/* ---- the document's head -------------------------------------------------- */

/* $.config of a command run: the workload, its scans and metrics. */
static int fill_command_config(const struct session *s, struct results_config *c)
{
	int i;

	c->workload = RESULTS_WL_COMMAND;
	snprintf(c->pattern, sizeof(c->pattern), "command");
	c->scan_interval_ms = s->o.scan_interval_ms;
	c->timeout_s = s->o.timeout_s;
	for (i = 0; i < s->o.nr_metrics; i++) {
		snprintf(c->metrics[i].name, sizeof(c->metrics[i].name), "%s",
			 s->o.metrics[i].name);
		snprintf(c->metrics[i].regex, sizeof(c->metrics[i].regex), "%s",
			 s->o.metrics[i].regex);
		c->metrics[i].higher_better = s->o.metrics[i].higher_better;
	}
	c->nr_metrics = s->o.nr_metrics;
	/* each trial enables its order with the top-level knob 'always' */
	snprintf(c->top_enabled, sizeof(c->top_enabled), "always");
	return results_config_set_argv(c, s->cmd);
}

/* $.config: what run was asked and what it chose. Both shapes share
 * command, orders, reps, seed, cpu, backend, coverage_min and defrag;
 * results_head_json writes each shape's keys in its order. */
static int fill_config(const struct session *s, struct results_config *c)
{
	int i;

	results_config_init(c);
	snprintf(c->command, sizeof(c->command), "run");
	c->orders = s->orders;
	c->reps = s->o.reps;
	c->seed = s->o.seed;
	c->cpu = s->o.cpu;
	snprintf(c->backend, sizeof(c->backend), "%s", s->b.backend);
	c->coverage_min = SESSION_COVERAGE_MIN;
	c->defrag = s->o.defrag;
	/* a model the table lacks (CPUID's) goes with the results */
	if (s->b.tlb && !tlb_geometry_find(s->b.tlb->name) &&
	    tlb_geometry_format(s->b.tlb, c->tlb_geometry, sizeof(c->tlb_geometry)) < 0)
		c->tlb_geometry[0] = '\0';
	if (s->cmd)
		return fill_command_config(s, c);
	snprintf(c->pattern, sizeof(c->pattern), "%s", s->pats[0]->name);
	for (i = 0; i < s->nr_pats; i++)
		snprintf(c->patterns[i], sizeof(c->patterns[i]), "%s", s->pats[i]->name);
	c->nr_patterns = s->nr_pats;
	for (i = 0; i < s->nr_spans; i++)
		c->spans[i] = s->spans[i];
	c->nr_spans = s->nr_spans;
	c->quick = s->o.quick;
	c->target_trial_seconds = s->target_ns / 1e9;
	c->tlb_reach_bytes = s->reach;
	snprintf(c->tlb_reach_source, sizeof(c->tlb_reach_source), "%s",
		 s->reach_source ? s->reach_source : "");
	c->sparse_k = s->o.sparse_k;
	snprintf(c->sparse_metric, sizeof(c->sparse_metric), "rss_bytes");
	/* what ns_per_access is measured with (wall_ns_per_access: MONOTONIC) */
	snprintf(c->clock, sizeof(c->clock), "CLOCK_THREAD_CPUTIME_ID");
	c->schedule = s->schedule;
	c->placement_per_rep = s->schedule == RESULTS_SCHED_INTERLEAVED;
	return 0;
}

/* The results document: tool, host (with what the PMU can do), the THP
 * settings in effect and the config, as one typed head, kept in s->res. */
static int make_doc(struct session *s)
{
	struct results_head *h = &s->res->head;
	int err;

	h->has_tool = true;
	snprintf(h->tool_version, sizeof(h->tool_version), "%s", ms_version);
	results_host_describe(&h->host, &s->topo, &s->s);
	/* the settings in effect: the user's, but for --defrag (the per-size
	 * enabled values are the user's too: each trial sets its own) */
	if (thp_read(&h->thp))
		h->thp = s->s;
	h->has_thp = true;
	err = fill_config(s, &h->config);
	if (!err)
		err = results_head_json(h, &s->doc);
	if (!err)
		results_summarize_head(s->res);
	return err;
}

int session_prepare(struct session *s)
{
	size_t n;
	int err;

	err = bench_plan(s->orders.order, (int)s->orders.nr, s->cmd ? 1 : s->nr_pats,
			 s->cmd ? 1 : s->nr_spans, (int)s->o.reps, s->o.seed, &s->cells,
			 &s->nr_cells);
	if (err)
		return err;
	n = 2 * (size_t)s->nr_cells;
	s->slots = calloc(n, sizeof(*s->slots));
	s->res = calloc(1, sizeof(*s->res));
	if (s->res)
		s->res->trials = calloc(n, sizeof(*s->res->trials));
	if (!s->slots || !s->res || !s->res->trials)
		return -ENOMEM;
	return make_doc(s);
}

/* ---- the trials, kept ----------------------------------------------------- */

int session_keep(struct session *s, struct results_trial *t)
{
	int err;

	if (!t->pattern[0])
		return 0;
	if ((err = results_doc_add_trial(s->doc, t)))
		return err;
	s->res->trials[s->res->nr_trials++] = *t;
	memset(t, 0, sizeof(*t));
	return 0;
}

void session_free(struct session *s)
{
	int i;

	bench_close(&s->b);
	json_decref(s->doc);
	s->doc = NULL;
	for (i = 0; s->slots && i < 2 * s->nr_cells; i++)
		results_trial_clear(&s->slots[i]);
	free(s->slots);
	s->slots = NULL;
	free(s->cells);
	s->cells = NULL;
	results_free(s->res);
	s->res = NULL;
}
