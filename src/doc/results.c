// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>
#include <string.h>

#include "mthpscope.h"
#include "json_read.h"
#include "results.h"

static json_t *tool_json(const char *version)
{
	return json_pack("{s:s, s:s}", "name", "mthpscope", "version", version);
}

json_t *results_tool_json(void)
{
	return tool_json(ms_version);
}

json_t *results_host_to_json(const struct results_host *h)
{
	const struct topo_info *t = &h->topo;
	json_t *models = json_array(), *pmu, *host;
	int i;

	for (i = 0; i < h->pmu.nr_models; i++)
		json_array_append_new(models, json_string(h->pmu.models[i]));
	pmu = json_pack("{s:b, s:o}", "available", h->pmu.available, "models", models);
	if (pmu && h->pmu.reason[0])
		json_object_set_new(pmu, "reason", json_string(h->pmu.reason));
	host = json_pack("{s:s, s:s, s:s, s:s, s:b, s:s, s:I, s:i, s:I, s:o, s:{s:i, s:i, s:i, s:i, "
			 "s:{s:I, s:I, s:I}}}",
			 "kernel", t->kernel, "arch", t->arch, "cpu_vendor", t->cpu_vendor,
			 "cpu_model", t->cpu_model, "virtualized", t->virtualized,
			 "virtualization", t->virt_reason, "page_size", (json_int_t)t->page_size,
			 "pmd_order", h->pmd_order, "pmd_size", (json_int_t)h->pmd_size,
			 "pmu", pmu, "topology", "packages", t->packages, "cores", t->cores,
			 "pus", t->pus, "numa_nodes", t->numa_nodes, "caches",
			 "l1d", (json_int_t)t->l1d_bytes, "l2", (json_int_t)t->l2_bytes,
			 "l3", (json_int_t)t->l3_bytes);
	if (host) {
		json_object_set_new(host, "emulated", json_boolean(t->emulated));
		json_object_set_new(host, "emulation", json_string(t->emul_reason));
		if (t->steal_known)
			json_object_set_new(host, "steal_time_reported",
					    json_boolean(t->steal_counted));
	}
	return host;
}

static json_t *word_or_null(enum thp_word w)
{
	return w == THP_W_NONE ? json_null() : json_string(thp_word_name(w));
}

static void set_knob(json_t *o, const char *name, long v)
{
	if (v >= 0)
		json_object_set_new(o, name, json_integer(v));
}

json_t *results_thp_json(const struct thp_settings *s, bool stats)
{
	json_t *sizes = json_array(), *kh = json_object();
	json_t *o;
	int i, j;

	for (i = 0; i < s->nr_sizes; i++) {
		const struct thp_size *z = &s->sizes[i];
		json_t *zo = json_pack("{s:i, s:I, s:b, s:o}", "order", z->order, "kb",
				       (json_int_t)z->kb, "anon", z->anon, "enabled",
				       z->anon ? word_or_null(z->enabled) : json_null());
		if (z->anon) {
			json_t *off = json_array();
			for (j = 0; j < THP_W_COUNT; j++)
				if (z->enabled_offered & (1u << j))
					json_array_append_new(off, json_string(thp_word_name(j)));
			json_object_set_new(zo, "offered", off);
		}
		if (z->shmem)
			json_object_set_new(zo, "shmem_enabled", word_or_null(z->shmem_enabled));
		if (stats) {
			json_t *st = json_object();
			for (j = 0; j < z->nr_stats; j++)
				json_object_set_new(st, z->stats[j].name,
						    json_integer((json_int_t)z->stats[j].value));
			json_object_set_new(zo, "stats", st);
		}
		json_array_append_new(sizes, zo);
	}
	set_knob(kh, "defrag", s->khugepaged.defrag);
	set_knob(kh, "max_ptes_none", s->khugepaged.max_ptes_none);
	set_knob(kh, "max_ptes_swap", s->khugepaged.max_ptes_swap);
	set_knob(kh, "max_ptes_shared", s->khugepaged.max_ptes_shared);
	set_knob(kh, "pages_to_scan", s->khugepaged.pages_to_scan);
	set_knob(kh, "scan_sleep_millisecs", s->khugepaged.scan_sleep_millisecs);
	set_knob(kh, "alloc_sleep_millisecs", s->khugepaged.alloc_sleep_millisecs);
	set_knob(kh, "pages_collapsed", s->khugepaged.pages_collapsed);
	set_knob(kh, "full_scans", s->khugepaged.full_scans);
	o = json_pack("{s:o, s:o, s:o, s:o, s:o}", "enabled", word_or_null(s->enabled),
		      "defrag", word_or_null(s->defrag), "shmem_enabled",
		      word_or_null(s->shmem_enabled), "sizes", sizes, "khugepaged", kh);
	/* false before Linux 6.8: sizes[] then holds only the PMD order, which
	 * follows the top-level "enabled" */
	if (o)
		json_object_set_new(o, "per_size_mthp", json_boolean(!s->legacy_pmd));
	return o;
}

/* ---- Reader ---------------------------------------------------------------
 * One pass over a parsed document; every check fails with the JSON path of
 * the field so a person can find it in the file.
 */
#include <ctype.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the host and thp objects, as results_host_to_json and
 * results_thp_json write them (every document's head) ---- */

static int rd_pmu(struct rd *rd, const json_t *pmu, const char *path, struct results_pmu *p)
{
	json_t *a, *m;
	size_t i;
	int err;

	if (!json_is_object(pmu))
		return rd_not_object(rd, pmu, path);
	if ((err = rd_bool(rd, pmu, path, "available", false, &p->available)) ||
	    (err = rd_string(rd, pmu, path, "reason", false, true, p->reason, sizeof(p->reason))))
		return err;
	if ((err = rd_array(rd, pmu, path, "models", false, SIZE_MAX, &a)))
		return err;
	if (json_array_size(a) > RESULTS_MAX_PMU_MODELS)
		return rd_fail(rd, -EBADMSG, "%s.models: more than %d models", path,
			       RESULTS_MAX_PMU_MODELS);
	json_array_foreach(a, i, m) {
		if (!json_is_string(m) || json_string_length(m) >= sizeof(p->models[0]))
			return rd_fail(rd, -EBADMSG, "%s.models[%zu]: expected a PMU name (a string "
				       "under %zu characters), found %s", path, i,
				       sizeof(p->models[0]), rd_type_name(m));
		snprintf(p->models[p->nr_models++], sizeof(p->models[0]), "%s",
			 json_string_value(m));
	}
	return 0;
}

static int rd_host_obj(struct rd *rd, const json_t *host, const char *path, struct results_host *h)
{
	struct topo_info *t = &h->topo;
	json_t *topo, *caches, *pmu;
	char p[96];
	int err;

	if (!json_is_object(host))
		return rd_not_object(rd, host, path);
	if ((err = rd_string(rd, host, path, "kernel", false, true, t->kernel, sizeof(t->kernel))) ||
	    (err = rd_string(rd, host, path, "arch", false, true, t->arch, sizeof(t->arch))) ||
	    (err = rd_string(rd, host, path, "cpu_vendor", false, true, t->cpu_vendor,
			     sizeof(t->cpu_vendor))) ||
	    (err = rd_string(rd, host, path, "cpu_model", false, true, t->cpu_model,
			     sizeof(t->cpu_model))) ||
	    (err = rd_bool(rd, host, path, "virtualized", false, &t->virtualized)) ||
	    (err = rd_string(rd, host, path, "virtualization", false, true, t->virt_reason,
			     sizeof(t->virt_reason))) ||
	    (err = rd_bool(rd, host, path, "emulated", false, &t->emulated)) ||
	    (err = rd_string(rd, host, path, "emulation", false, true, t->emul_reason,
			     sizeof(t->emul_reason))))
		return err;
	ms_squeeze_spaces(t->cpu_model); /* files written before it was trimmed */
	t->steal_known = json_object_get(host, "steal_time_reported") != NULL;
	if ((err = rd_bool(rd, host, path, "steal_time_reported", false, &t->steal_counted)))
		return err;
	if ((err = rd_int_to(rd, host, path, "page_size", false, 0, 1 << 30, 0, &t->page_size)) ||
	    (err = rd_int_to(rd, host, path, "pmd_order", false, 0, FOLIO_MAX_ORDER, 0,
			     &h->pmd_order)) ||
	    (err = rd_int_to(rd, host, path, "pmd_size", false, 0, 1LL << 40, 0, &h->pmd_size)))
		return err;
	if ((err = rd_object(rd, host, path, "pmu", false, &pmu)))
		return err;
	snprintf(p, sizeof(p), "%s.pmu", path);
	if (pmu && (err = rd_pmu(rd, pmu, p, &h->pmu)))
		return err;
	if ((err = rd_object(rd, host, path, "topology", false, &topo)) || !topo)
		return err;
	snprintf(p, sizeof(p), "%s.topology", path);
	if ((err = rd_int_to(rd, topo, p, "packages", true, 0, INT32_MAX, 0, &t->packages)) ||
	    (err = rd_int_to(rd, topo, p, "cores", true, 0, INT32_MAX, 0, &t->cores)) ||
	    (err = rd_int_to(rd, topo, p, "pus", true, 0, INT32_MAX, 0, &t->pus)) ||
	    (err = rd_int_to(rd, topo, p, "numa_nodes", true, 0, INT32_MAX, 0, &t->numa_nodes)))
		return err;
	if ((err = rd_object(rd, topo, p, "caches", true, &caches)))
		return err;
	snprintf(p, sizeof(p), "%s.topology.caches", path);
	if ((err = rd_int_to(rd, caches, p, "l1d", true, 0, INT64_MAX, 0, &t->l1d_bytes)) ||
	    (err = rd_int_to(rd, caches, p, "l2", true, 0, INT64_MAX, 0, &t->l2_bytes)) ||
	    (err = rd_int_to(rd, caches, p, "l3", true, 0, INT64_MAX, 0, &t->l3_bytes)))
		return err;
	return 0;
}

int results_host_read(const json_t *host, const char *path, struct results_host *h, char *err,
		      size_t errsize)
{
	struct rd rd = { .name = NULL, .err = err, .errsize = errsize };

	memset(h, 0, sizeof(*h));
	h->topo.cpu_family = h->topo.cpu_model_number = -1;
	return rd_host_obj(&rd, host, path, h);
}

/* A THP word, or null (THP_W_NONE). */
static int rd_word(struct rd *rd, const json_t *o, const char *path, const char *key,
		   enum thp_word *w)
{
	json_t *v;
	int err = rd_get(rd, o, path, key, true, &v), x;

	if (err)
		return err;
	if (json_is_null(v)) {
		*w = THP_W_NONE;
		return 0;
	}
	if (!json_is_string(v))
		return rd_fail(rd, -EBADMSG, "%s.%s: expected a THP word or null, found %s", path,
			       key, rd_type_name(v));
	if ((x = thp_word_parse(json_string_value(v))) < 0)
		return rd_fail(rd, -EBADMSG, "%s.%s: '%s' is not a THP word", path, key,
			       json_string_value(v));
	*w = (enum thp_word)x;
	return 0;
}

static int rd_thp_size(struct rd *rd, const json_t *z, const char *path, struct thp_size *t,
		       bool *stats)
{
	json_t *off, *st, *w, *v;
	const char *k;
	size_t i;
	int err;

	if (!json_is_object(z))
		return rd_not_object(rd, z, path);
	if ((err = rd_int_to(rd, z, path, "order", true, 0, FOLIO_MAX_ORDER, 0, &t->order)) ||
	    (err = rd_int_to(rd, z, path, "kb", true, 0, INT64_MAX, 0, &t->kb)))
		return err;
	if ((err = rd_bool(rd, z, path, "anon", true, &t->anon)) ||
	    (err = rd_word(rd, z, path, "enabled", &t->enabled)))
		return err;
	if (!t->anon && t->enabled != THP_W_NONE)
		return rd_fail(rd, -EBADMSG, "%s.enabled: a size without anon support has null",
			       path);
	if (t->anon) {
		if ((err = rd_array(rd, z, path, "offered", true, SIZE_MAX, &off)))
			return err;
		json_array_foreach(off, i, w) {
			int x2 = json_is_string(w) ? thp_word_parse(json_string_value(w)) : -EINVAL;

			if (x2 < 0)
				return rd_fail(rd, -EBADMSG, "%s.offered[%zu]: expected a THP word, "
					       "found %s", path, i, rd_type_name(w));
			t->enabled_offered |= 1u << x2;
		}
	}
	t->shmem = json_object_get(z, "shmem_enabled") != NULL;
	if (t->shmem && (err = rd_word(rd, z, path, "shmem_enabled", &t->shmem_enabled)))
		return err;
	if ((err = rd_object(rd, z, path, "stats", false, &st)))
		return err;
	*stats = st != NULL;
	json_object_foreach(st, k, v) {
		struct thp_stat *s = &t->stats[t->nr_stats];

		if (t->nr_stats == THP_MAX_STATS)
			return rd_fail(rd, -EBADMSG, "%s.stats: more than %d counters", path,
				       THP_MAX_STATS);
		if (strlen(k) >= sizeof(s->name))
			return rd_fail(rd, -EBADMSG, "%s.stats: name '%s' is too long", path, k);
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return rd_fail(rd, -EBADMSG, "%s.stats.%s: expected a count (an integer "
				       ">= 0), found %s", path, k, rd_type_name(v));
		snprintf(s->name, sizeof(s->name), "%s", k);
		s->value = (unsigned long long)json_integer_value(v);
		t->nr_stats++;
	}
	return 0;
}

static int rd_thp_obj(struct rd *rd, const json_t *thp, const char *path, struct thp_settings *s,
		      bool *stats)
{
	struct { const char *name; long *v; } knobs[] = {
		{ "defrag", &s->khugepaged.defrag },
		{ "max_ptes_none", &s->khugepaged.max_ptes_none },
		{ "max_ptes_swap", &s->khugepaged.max_ptes_swap },
		{ "max_ptes_shared", &s->khugepaged.max_ptes_shared },
		{ "pages_to_scan", &s->khugepaged.pages_to_scan },
		{ "scan_sleep_millisecs", &s->khugepaged.scan_sleep_millisecs },
		{ "alloc_sleep_millisecs", &s->khugepaged.alloc_sleep_millisecs },
		{ "pages_collapsed", &s->khugepaged.pages_collapsed },
		{ "full_scans", &s->khugepaged.full_scans },
	};
	json_t *sizes, *kh, *z;
	char p[96];
	bool per_size, st = false;
	size_t i;
	int err;

	if (!json_is_object(thp))
		return rd_not_object(rd, thp, path);
	if ((err = rd_word(rd, thp, path, "enabled", &s->enabled)) ||
	    (err = rd_word(rd, thp, path, "defrag", &s->defrag)) ||
	    (err = rd_word(rd, thp, path, "shmem_enabled", &s->shmem_enabled)) ||
	    (err = rd_object(rd, thp, path, "khugepaged", true, &kh)) ||
	    (err = rd_bool(rd, thp, path, "per_size_mthp", true, &per_size)) ||
	    (err = rd_get(rd, thp, path, "sizes", true, &sizes)))
		return err;
	s->legacy_pmd = !per_size;
	snprintf(p, sizeof(p), "%s.khugepaged", path);
	for (i = 0; i < MS_ARRAY_SIZE(knobs); i++) {
		if ((err = rd_int_to(rd, kh, p, knobs[i].name, false, 0, LONG_MAX, -1,
				     knobs[i].v)))
			return err;
	}
	if (!json_is_array(sizes))
		return rd_fail(rd, -EBADMSG, "%s.sizes: expected an array, found %s", path,
			       rd_type_name(sizes));
	if (json_array_size(sizes) > THP_MAX_SIZES)
		return rd_fail(rd, -EBADMSG, "%s.sizes: more than %d sizes", path, THP_MAX_SIZES);
	json_array_foreach(sizes, i, z) {
		snprintf(p, sizeof(p), "%s.sizes[%zu]", path, i);
		if ((err = rd_thp_size(rd, z, p, &s->sizes[i], &st)))
			return err;
		s->nr_sizes = (int)i + 1;
		if (i && st != *stats)
			return rd_fail(rd, -EBADMSG, "%s: stats in some sizes only", p);
		*stats = st;
	}
	return 0;
}

int results_thp_read(const json_t *thp, const char *path, struct thp_settings *s, bool *stats,
		     char *err, size_t errsize)
{
	struct rd rd = { .name = NULL, .err = err, .errsize = errsize };
	bool st = false;
	int rc;

	memset(s, 0, sizeof(*s));
	rc = rd_thp_obj(&rd, thp, path, s, &st);
	if (stats)
		*stats = st;
	return rc;
}

static const char *const metric_sources[] = { "pmu", "sw", "timing", "kernel", "pagemap",
					       "model", "workload" };

static int rd_metric(struct rd *rd, const char *tpath, const char *name, const json_t *v,
		     struct results_metric *m, bool *multiplexed)
{
	char path[160], better[8] = "lower";
	bool mux = false, known = false;
	size_t i;
	int err;

	snprintf(path, sizeof(path), "%s.metrics.%s", tpath, name);
	if (strlen(name) >= sizeof(m->name) || !name[0])
		return rd_fail(rd, -EBADMSG, "%s: a metric name must be 1-%zu characters", path,
			       sizeof(m->name) - 1);
	if (!json_is_object(v))
		return rd_fail(rd, -EBADMSG, "%s: expected an object {value, source}, found %s",
			       path, rd_type_name(v));
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->scale = 1.0;
	if ((err = rd_number(rd, v, path, "value", true, 0.0, HUGE_VAL, &m->value)) ||
	    (err = rd_string(rd, v, path, "source", true, true, m->source, sizeof(m->source))) ||
	    (err = rd_string(rd, v, path, "event", false, false, m->event, sizeof(m->event))) ||
	    (err = rd_string(rd, v, path, "formula", false, false, m->formula,
			     sizeof(m->formula))) ||
	    (err = rd_string(rd, v, path, "better", false, true, better, sizeof(better))) ||
	    (err = rd_number(rd, v, path, "scale", false, 1.0, 1e9, &m->scale)) ||
	    (err = rd_bool(rd, v, path, "multiplexed", false, &mux)))
		return err;
	for (i = 0; i < MS_ARRAY_SIZE(metric_sources); i++)
		known |= !strcmp(m->source, metric_sources[i]);
	if (!known)
		return rd_fail(rd, -EBADMSG, "%s.source: '%s' is not one of pmu, sw, timing, "
			       "kernel, pagemap, model, workload", path, m->source);
	if (strcmp(better, "lower") && strcmp(better, "higher"))
		return rd_fail(rd, -EBADMSG, "%s.better: '%s' is not higher or lower", path, better);
	m->higher_better = !strcmp(better, "higher");
	/* a counter scaled up from a partial run is an estimate, not a count */
	if (mux || m->scale > 1.0 + 1e-9)
		*multiplexed = true;
	return 0;
}

static int rd_u64(struct rd *rd, const json_t *o, const char *path, const char *key,
		  uint64_t *out)
{
	return rd_int_to(rd, o, path, key, false, 0, INT64_MAX, 0, out);
}

static const char *const flag_names[] = { "low_coverage", "failed", "timeout" };

static int rd_flags(struct rd *rd, const char *tpath, const json_t *v, unsigned *flags)
{
	json_t *a, *f;
	size_t i, k;
	int err;

	if ((err = rd_array(rd, v, tpath, "flags", false, SIZE_MAX, &a)) || !a)
		return err;
	json_array_foreach(a, i, f) {
		if (!json_is_string(f))
			return rd_fail(rd, -EBADMSG, "%s.flags[%zu]: expected a string, found %s",
				       tpath, i, rd_type_name(f));
		/* unknown flags are ignored: more may be added */
		for (k = 0; k < MS_ARRAY_SIZE(flag_names); k++)
			if (!strcmp(json_string_value(f), flag_names[k]))
				*flags |= 1u << k;
	}
	return 0;
}

/* A "workload" object, {"kind": "command", "argv": [...]}, of a trial or of
 * the config of run -- CMD; kind "micro" leaves *wl as it is, without argv.
 * A partial argv stays with the caller's model, which frees it. */
static int rd_workload_obj(struct rd *rd, const json_t *w, const char *path,
			   enum results_workload *wl, char ***argv, int *argc)
{
	char kind[16] = "";
	json_t *a, *v;
	size_t i;
	int err;

	if ((err = rd_string(rd, w, path, "kind", true, true, kind, sizeof(kind))))
		return err;
	if (!strcmp(kind, "micro"))
		return 0;
	if (strcmp(kind, "command"))
		return rd_fail(rd, -EBADMSG, "%s.kind: '%s' is not micro or command", path, kind);
	*wl = RESULTS_WL_COMMAND;
	a = json_object_get(w, "argv");
	if (!json_is_array(a) || !json_array_size(a))
		return rd_fail(rd, -EBADMSG, "%s.argv: expected a non-empty array of strings", path);
	*argv = calloc(json_array_size(a) + 1, sizeof(char *));
	if (!*argv)
		return rd_fail(rd, -ENOMEM, "out of memory");
	json_array_foreach(a, i, v) {
		if (!json_is_string(v))
			return rd_fail(rd, -EBADMSG, "%s.argv[%zu]: expected a string, found %s", path,
				       i, rd_type_name(v));
		if (!((*argv)[i] = strdup(json_string_value(v))))
			return rd_fail(rd, -ENOMEM, "out of memory");
		*argc = (int)i + 1;
	}
	return 0;
}

/* A trial's "workload" and "exit"; no workload = a micro-benchmark. */
static int rd_workload(struct rd *rd, const char *tpath, const json_t *v, struct results_trial *t)
{
	char path[96];
	json_t *w, *exit;
	int err;

	snprintf(path, sizeof(path), "%s.workload", tpath);
	if ((err = rd_object(rd, v, tpath, "workload", false, &w)) || !w)
		return err;
	if ((err = rd_workload_obj(rd, w, path, &t->workload, &t->argv, &t->argc)) ||
	    t->workload != RESULTS_WL_COMMAND)
		return err;
	t->exit_code = 0;
	if ((err = rd_object(rd, v, tpath, "exit", false, &exit)) || !exit)
		return err;
	snprintf(path, sizeof(path), "%s.exit", tpath);
	if ((err = rd_int_to(rd, exit, path, "code", false, -1, 255, 0, &t->exit_code)))
		return err;
	return rd_int_to(rd, exit, path, "signal", false, 0, 128, 0, &t->exit_signal);
}

static int rd_folios(struct rd *rd, const char *tpath, const json_t *f, struct results_trial *t)
{
	char path[128];
	const char *key;
	json_t *hist, *cov, *v;
	int err;

	snprintf(path, sizeof(path), "%s.folios", tpath);
	if ((err = rd_object(rd, f, path, "hist", true, &hist)))
		return err;
	t->has_hist = true;
	if ((err = rd_u64(rd, f, path, "partial", &t->partial)) ||
	    (err = rd_u64(rd, f, path, "not_present", &t->not_present)) ||
	    (err = rd_u64(rd, f, path, "anon_bytes", &t->anon_bytes)) ||
	    (err = rd_u64(rd, f, path, "file_bytes", &t->file_bytes)) ||
	    (err = rd_u64(rd, f, path, "scans", &t->scans)) ||
	    (err = rd_u64(rd, f, path, "processes", &t->processes)) ||
	    (err = rd_u64(rd, f, path, "processes_scanned", &t->processes_scanned)))
		return err;
	json_object_foreach(hist, key, v) {
		char *end;
		long o;

		errno = 0;
		o = strtol(key, &end, 10);
		if (!isdigit((unsigned char)key[0]) || *end || errno || o < 0 ||
		    o > FOLIO_MAX_ORDER)
			return rd_fail(rd, -EBADMSG, "%s.hist: key '%s' is not a folio order 0-%d",
				       path, key, FOLIO_MAX_ORDER);
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return rd_fail(rd, -EBADMSG, "%s.hist.%s: expected a page count (an integer "
				       ">= 0), found %s", path, key, rd_type_name(v));
		t->hist[o] = (uint64_t)json_integer_value(v);
	}
	cov = json_object_get(f, "coverage");
	if (!cov || json_is_null(cov))
		return 0; /* present but not verified (no PFNs without root) */
	if ((err = rd_number(rd, f, path, "coverage", true, 0.0, 1.0, &t->coverage)))
		return err;
	t->has_folios = true;
	return 0;
}

/* "rounds": a non-empty array of finite times >= 0 (one per round). */
static int rd_rounds(struct rd *rd, const char *tpath, const json_t *v, struct results_trial *t)
{
	json_t *a = json_object_get(v, "rounds"), *x;
	size_t i;

	if (!a)
		return 0;
	if (!json_is_array(a))
		return rd_fail(rd, -EBADMSG, "%s.rounds: expected an array of numbers, found %s",
			       tpath, rd_type_name(a));
	if (json_array_size(a) == 0 || json_array_size(a) > RESULTS_MAX_ROUNDS)
		return rd_fail(rd, -EBADMSG, "%s.rounds: %zu rounds (1-%u expected)", tpath,
			       json_array_size(a), RESULTS_MAX_ROUNDS);
	t->rounds = malloc(json_array_size(a) * sizeof(*t->rounds));
	if (!t->rounds)
		return rd_fail(rd, -ENOMEM, "out of memory");
	json_array_foreach(a, i, x) {
		double d;

		if (!json_is_number(x))
			return rd_fail(rd, -EBADMSG, "%s.rounds[%zu]: expected a number, found %s",
				       tpath, i, rd_type_name(x));
		d = json_number_value(x);
		if (!isfinite(d) || d < 0.0)
			return rd_fail(rd, -EBADMSG, "%s.rounds[%zu]: %g is not a time (finite, "
				       ">= 0)", tpath, i, d);
		t->rounds[i] = d;
		t->nr_rounds = i + 1;
	}
	return 0;
}

/* "sparse": {"k", "touched_pages"} of a bloat trial (or pattern "sparse"). */
static int rd_sparse(struct rd *rd, const char *path, const json_t *v, struct results_trial *t)
{
	json_t *sparse;
	int err;

	if ((err = rd_object(rd, v, path, "sparse", false, &sparse)))
		return err;
	t->sparse = sparse || !strcmp(t->pattern, "sparse");
	if (sparse) {
		char sp[96];

		snprintf(sp, sizeof(sp), "%s.sparse", path);
		if ((err = rd_int_to(rd, sparse, sp, "k", false, 0, INT32_MAX, 0, &t->sparse_k)))
			return err;
		if ((err = rd_u64(rd, sparse, sp, "touched_pages", &t->touched_pages)))
			return err;
	}
	return 0;
}

/* "layout" (strict: src/doc/layout.c names the bad field) and the model name
 * of "tlb" (a string when present). */
static int rd_layout(struct rd *rd, const char *tpath, const json_t *v, struct results_trial *t)
{
	json_t *l = json_object_get(v, "layout"), *tlb;
	char err[256], path[80];
	int rc;

	if (l) {
		/* err names the field from the layout down: join the paths */
		if (layout_hist_from_json(l, &t->layout, err, sizeof(err)))
			return rd_fail(rd, -EBADMSG, "%s.layout%s%s", tpath,
				       json_is_object(l) ? "." : ": ", err);
		t->has_layout = true;
	}
	if ((rc = rd_object(rd, v, tpath, "tlb", false, &tlb)))
		return rc;
	snprintf(path, sizeof(path), "%s.tlb", tpath);
	return tlb ? rd_string(rd, tlb, path, "model", false, true, t->tlb_model,
			       sizeof(t->tlb_model)) : 0;
}

/* "placement": {"id", "pfn_min", "pfn_median", "pfn_max", "reused",
 * "ballast_bytes", "regions_pmd", "regions_pud"} (results.h, struct
 * results_placement); id required; the regions optional (older files). */
static int rd_trial_placement(struct rd *rd, const char *tpath, const json_t *v,
			      struct results_trial *t)
{
	struct results_placement *pl = &t->placement;
	json_t *o;
	char path[80];
	int err;

	if ((err = rd_object(rd, v, tpath, "placement", false, &o)) || !o)
		return err;
	snprintf(path, sizeof(path), "%s.placement", tpath);
	pl->reused = NAN;
	if ((err = rd_int_to(rd, o, path, "id", true, 0, INT32_MAX, 0, &pl->id)) ||
	    (err = rd_u64(rd, o, path, "pfn_min", &pl->pfn_min)) ||
	    (err = rd_u64(rd, o, path, "pfn_median", &pl->pfn_median)) ||
	    (err = rd_u64(rd, o, path, "pfn_max", &pl->pfn_max)) ||
	    (err = rd_u64(rd, o, path, "ballast_bytes", &pl->ballast_bytes)) ||
	    (err = rd_number(rd, o, path, "reused", false, 0.0, 1.0, &pl->reused)) ||
	    (err = rd_u64(rd, o, path, "regions_pmd", &pl->regions_pmd)) ||
	    (err = rd_u64(rd, o, path, "regions_pud", &pl->regions_pud)))
		return err;
	pl->has_regions = json_object_get(o, "regions_pmd") != NULL;
	/* a hand edit's min above its max was taken as it was */
	if (pl->pfn_min > pl->pfn_median || pl->pfn_median > pl->pfn_max)
		return rd_fail(rd, -EBADMSG, "%s: pfn_min %llu, pfn_median %llu, pfn_max %llu are "
			       "not in order", path, (unsigned long long)pl->pfn_min,
			       (unsigned long long)pl->pfn_median, (unsigned long long)pl->pfn_max);
	t->has_placement = true;
	return 0;
}

static int rd_trial(struct rd *rd, size_t idx, const json_t *v, int pmd_order,
		    struct results_trial *t)
{
	char path[64];
	const char *key;
	json_t *metrics, *folios, *m;
	bool mux = false;
	size_t n;
	int err;

	snprintf(path, sizeof(path), "$.trials[%zu]", idx);
	t->coverage = NAN;
	t->seq = -1;
	if (!json_is_object(v))
		return rd_not_object(rd, v, path);
	if ((err = rd_int_to(rd, v, path, "order", true, 0, pmd_order, 0, &t->order)))
		return err;
	if ((err = rd_workload(rd, path, v, t)))
		return err;
	/* a command has no span; its pattern says "command" */
	if ((err = rd_string(rd, v, path, "pattern", t->workload == RESULTS_WL_MICRO, true,
			     t->pattern, sizeof(t->pattern))) ||
	    (err = rd_int_to(rd, v, path, "span", t->workload == RESULTS_WL_MICRO, 1, INT64_MAX,
			     0, &t->span)))
		return err;
	if (!t->pattern[0])
		snprintf(t->pattern, sizeof(t->pattern), "command");
	if ((err = rd_int_to(rd, v, path, "seq", false, 0, INT64_MAX, -1, &t->seq)) ||
	    (err = rd_flags(rd, path, v, &t->flags)))
		return err;
	if ((err = rd_int_to(rd, v, path, "rep", true, 0, INT32_MAX, 0, &t->rep)) ||
	    (err = rd_int_to(rd, v, path, "accesses", false, 0, INT64_MAX, 0, &t->accesses)))
		return err;
	if ((err = rd_sparse(rd, path, v, t)))
		return err;
	t->has_multiplexed = json_object_get(v, "multiplexed") != NULL;
	if ((err = rd_bool(rd, v, path, "multiplexed", false, &mux)))
		return err;
	if ((err = rd_object(rd, v, path, "folios", false, &folios)))
		return err;
	if (folios && (err = rd_folios(rd, path, folios, t)))
		return err;
	if ((err = rd_rounds(rd, path, v, t)) || (err = rd_layout(rd, path, v, t)) ||
	    (err = rd_trial_placement(rd, path, v, t)))
		return err;
	if ((err = rd_object(rd, v, path, "metrics", true, &metrics)))
		return err;
	if (json_object_size(metrics) == 0)
		return rd_fail(rd, -EBADMSG, "%s.metrics: empty (a trial measures something)", path);
	t->metrics = calloc(json_object_size(metrics), sizeof(*t->metrics));
	if (!t->metrics)
		return rd_fail(rd, -ENOMEM, "out of memory");
	n = 0;
	json_object_foreach(metrics, key, m) {
		if ((err = rd_metric(rd, path, key, m, &t->metrics[n], &mux)))
			return err;
		n++;
		t->nr_metrics = n;
	}
	t->multiplexed = mux;
	return 0;
}

static int rd_host(struct rd *rd, const json_t *doc, struct results *r)
{
	json_t *host, *pmu;
	int err;

	if ((err = rd_object(rd, doc, "$", "host", true, &host)))
		return err;
	if ((err = rd_string(rd, host, "$.host", "kernel", true, false, r->kernel,
			     sizeof(r->kernel))) ||
	    (err = rd_string(rd, host, "$.host", "arch", true, false, r->arch, sizeof(r->arch))) ||
	    (err = rd_string(rd, host, "$.host", "cpu_vendor", false, false, r->cpu_vendor,
			     sizeof(r->cpu_vendor))) ||
	    (err = rd_string(rd, host, "$.host", "cpu_model", false, false, r->cpu_model,
			     sizeof(r->cpu_model))) ||
	    (err = rd_bool(rd, host, "$.host", "virtualized", false, &r->virtualized)) ||
	    (err = rd_bool(rd, host, "$.host", "emulated", false, &r->emulated)) ||
	    (err = rd_string(rd, host, "$.host", "emulation", false, false, r->emulation,
			     sizeof(r->emulation))))
		return err;
	ms_squeeze_spaces(r->cpu_model); /* files written before it was trimmed */
	r->steal_reported = -1;
	if (json_object_get(host, "steal_time_reported")) {
		bool b = false;

		if ((err = rd_bool(rd, host, "$.host", "steal_time_reported", false, &b)))
			return err;
		r->steal_reported = b;
	}
	if ((err = rd_int_to(rd, host, "$.host", "page_size", false, 4096, 1 << 20, 4096,
			     &r->page_size)) ||
	    (err = rd_int_to(rd, host, "$.host", "pmd_order", true, 1, FOLIO_MAX_ORDER, 0,
			     &r->pmd_order)))
		return err;
	if ((err = rd_object(rd, host, "$.host", "pmu", true, &pmu)) ||
	    (err = rd_bool(rd, pmu, "$.host.pmu", "available", true, &r->pmu_available)) ||
	    (err = rd_string(rd, pmu, "$.host.pmu", "reason", false, false, r->pmu_reason,
			     sizeof(r->pmu_reason))))
		return err;
	return 0;
}

static int rd_thp(struct rd *rd, const json_t *doc, struct results *r)
{
	json_t *thp, *sizes, *kh, *z, *en;
	json_int_t x;
	size_t i;
	int err;

	r->max_ptes_none = -1;
	if ((err = rd_object(rd, doc, "$", "thp", false, &thp)) || !thp)
		return err;
	if (json_is_string(json_object_get(thp, "enabled")))
		snprintf(r->thp_enabled, sizeof(r->thp_enabled), "%s",
			 json_string_value(json_object_get(thp, "enabled")));
	if (json_is_string(json_object_get(thp, "defrag")))
		snprintf(r->thp_defrag, sizeof(r->thp_defrag), "%s",
			 json_string_value(json_object_get(thp, "defrag")));
	if ((err = rd_object(rd, thp, "$.thp", "khugepaged", false, &kh)))
		return err;
	if (kh && (err = rd_int_to(rd, kh, "$.thp.khugepaged", "max_ptes_none", false, 0,
				   1 << 20, -1, &r->max_ptes_none)))
		return err;
	if ((err = rd_array(rd, thp, "$.thp", "sizes", false, SIZE_MAX, &sizes)) || !sizes)
		return err;
	json_array_foreach(sizes, i, z) {
		char path[48];

		snprintf(path, sizeof(path), "$.thp.sizes[%zu]", i);
		if (!json_is_object(z))
			return rd_not_object(rd, z, path);
		if ((err = rd_int(rd, z, path, "order", true, 0, FOLIO_MAX_ORDER, &x)))
			return err;
		if (r->nr_sizes > FOLIO_MAX_ORDER)
			return rd_fail(rd, -EBADMSG, "$.thp.sizes: more than %d sizes",
				       FOLIO_MAX_ORDER + 1);
		r->sizes[r->nr_sizes].order = (int)x;
		en = json_object_get(z, "enabled");
		if (json_is_string(en))
			snprintf(r->sizes[r->nr_sizes].enabled, sizeof(r->sizes[0].enabled), "%s",
				 json_string_value(en));
		r->nr_sizes++;
	}
	return 0;
}

const char *results_schedule_name(enum results_schedule s)
{
	return s == RESULTS_SCHED_INTERLEAVED ? "interleaved" : "sequential";
}

/* config.schedule: absent in files of older versions, which were sequential. */
static int rd_schedule(struct rd *rd, const json_t *config, enum results_schedule *s)
{
	json_t *v = json_object_get(config, "schedule");

	*s = RESULTS_SCHED_SEQUENTIAL;
	if (!v)
		return 0;
	if (!json_is_string(v))
		return rd_fail(rd, -EBADMSG, "$.config.schedule: expected a string, found %s",
			       rd_type_name(v));
	if (!strcmp(json_string_value(v), "interleaved"))
		*s = RESULTS_SCHED_INTERLEAVED;
	else if (strcmp(json_string_value(v), "sequential"))
		return rd_fail(rd, -EBADMSG, "$.config.schedule: '%.32s' is not \"interleaved\" "
			       "or \"sequential\"", json_string_value(v));
	return 0;
}

/* config.placement: "per-rep", or absent (files of older versions). */
static int rd_placement(struct rd *rd, const json_t *config, bool *per_rep)
{
	json_t *v = json_object_get(config, "placement");

	*per_rep = false;
	if (!v)
		return 0;
	if (!json_is_string(v) || strcmp(json_string_value(v), "per-rep"))
		return rd_fail(rd, -EBADMSG, "$.config.placement: expected \"per-rep\", found %.32s",
			       json_is_string(v) ? json_string_value(v) : rd_type_name(v));
	*per_rep = true;
	return 0;
}

/* config.workload of a command run. */
static int rd_config_workload(struct rd *rd, const json_t *cfg, struct results_config *c)
{
	json_t *w;
	int err;

	if ((err = rd_object(rd, cfg, "$.config", "workload", false, &w)) || !w)
		return err;
	return rd_workload_obj(rd, w, "$.config.workload", &c->workload, &c->argv, &c->argc);
}

/* The arrays of a micro run's config: patterns, orders, spans. */
static int rd_config_lists(struct rd *rd, const json_t *cfg, struct results_config *c)
{
	const char *p = "$.config";
	json_t *a, *v;
	size_t i;
	int err;

	if ((err = rd_array(rd, cfg, p, "patterns", false, RESULTS_MAX_PATTERNS, &a)))
		return err;
	json_array_foreach(a, i, v) {
		if (!json_is_string(v) || json_string_length(v) >= sizeof(c->patterns[0]))
			return rd_fail(rd, -EBADMSG, "%s.patterns[%zu]: expected a pattern name (a "
				       "string under %zu characters), found %s", p, i,
				       sizeof(c->patterns[0]), rd_type_name(v));
		snprintf(c->patterns[i], sizeof(c->patterns[0]), "%s", json_string_value(v));
		c->nr_patterns = (int)i + 1;
	}
	if ((err = rd_array(rd, cfg, p, "orders", false, FOLIO_MAX_ORDER + 1, &a)))
		return err;
	json_array_foreach(a, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > FOLIO_MAX_ORDER)
			return rd_fail(rd, -EBADMSG, "%s.orders[%zu]: expected an order 0-%d, found %s",
				       p, i, FOLIO_MAX_ORDER, rd_type_name(v));
		c->orders.order[i] = (int)json_integer_value(v);
		c->orders.nr = i + 1;
	}
	if ((err = rd_array(rd, cfg, p, "spans", false, RESULTS_MAX_SPANS, &a)))
		return err;
	json_array_foreach(a, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 1)
			return rd_fail(rd, -EBADMSG, "%s.spans[%zu]: expected a size in bytes (an "
				       "integer >= 1), found %s", p, i, rd_type_name(v));
		c->spans[i] = (uint64_t)json_integer_value(v);
		c->nr_spans = (int)i + 1;
	}
	return 0;
}

/* config.metrics of a command run: [{"name", "regex", "better"}]. */
static int rd_config_metrics(struct rd *rd, const json_t *cfg, struct results_config *c)
{
	json_t *a, *v;
	size_t i;
	int err;

	if ((err = rd_array(rd, cfg, "$.config", "metrics", false, RESULTS_MAX_METRICS, &a)))
		return err;
	json_array_foreach(a, i, v) {
		struct results_config_metric *m = &c->metrics[i];
		char p[48], better[8] = "lower";

		snprintf(p, sizeof(p), "$.config.metrics[%zu]", i);
		if (!json_is_object(v))
			return rd_not_object(rd, v, p);
		if ((err = rd_string(rd, v, p, "name", true, true, m->name, sizeof(m->name))) ||
		    (err = rd_string(rd, v, p, "regex", true, true, m->regex, sizeof(m->regex))) ||
		    (err = rd_string(rd, v, p, "better", false, true, better, sizeof(better))))
			return err;
		if (strcmp(better, "lower") && strcmp(better, "higher"))
			return rd_fail(rd, -EBADMSG, "%s.better: '%s' is not higher or lower", p,
				       better);
		m->higher_better = !strcmp(better, "higher");
		c->nr_metrics = (int)i + 1;
	}
	return 0;
}

/* $.config into c (results_config_init'ed): every field optional, each
 * present one of the writer's type and in range. */
static int rd_config(struct rd *rd, const json_t *cfg, struct results_config *c)
{
	const char *p = "$.config";
	char defrag[16] = "";
	json_t *reach, *sparse;
	int err, w;

	if ((err = rd_string(rd, cfg, p, "command", false, true, c->command,
			     sizeof(c->command))) ||
	    (err = rd_string(rd, cfg, p, "pattern", false, true, c->pattern,
			     sizeof(c->pattern))) ||
	    (err = rd_config_workload(rd, cfg, c)) || (err = rd_config_lists(rd, cfg, c)))
		return err;
	if ((err = rd_int_to(rd, cfg, p, "reps", false, 0, INT32_MAX, -1, &c->reps)) ||
	    (err = rd_int_to(rd, cfg, p, "seed", false, 0, INT64_MAX, 0, &c->seed)) ||
	    (err = rd_int_to(rd, cfg, p, "cpu", false, 0, INT32_MAX, -1, &c->cpu)))
		return err;
	if ((err = rd_bool(rd, cfg, p, "quick", false, &c->quick)) ||
	    (err = rd_string(rd, cfg, p, "backend", false, true, c->backend,
			     sizeof(c->backend))) ||
	    (err = rd_number(rd, cfg, p, "target_trial_seconds", false, 0.0, HUGE_VAL,
			     &c->target_trial_seconds)) ||
	    (err = rd_object(rd, cfg, p, "tlb_reach", false, &reach)) ||
	    (err = rd_object(rd, cfg, p, "sparse", false, &sparse)))
		return err;
	if ((err = rd_string(rd, cfg, p, "tlb_geometry", false, true, c->tlb_geometry,
			     sizeof(c->tlb_geometry))))
		return err;
	if (reach && ((err = rd_u64(rd, reach, "$.config.tlb_reach", "bytes",
				    &c->tlb_reach_bytes)) ||
		      (err = rd_string(rd, reach, "$.config.tlb_reach", "source", false, true,
				       c->tlb_reach_source, sizeof(c->tlb_reach_source)))))
		return err;
	/* sparse_k stays results_config_init's 0 without a "sparse" */
	if (sparse && ((err = rd_int_to(rd, sparse, "$.config.sparse", "k", false, 0, INT32_MAX,
					0, &c->sparse_k)) ||
		       (err = rd_string(rd, sparse, "$.config.sparse", "metric", false, true,
					c->sparse_metric, sizeof(c->sparse_metric)))))
		return err;
	if ((err = rd_number(rd, cfg, p, "coverage_min", false, 0.0, 1.0, &c->coverage_min)) ||
	    (err = rd_string(rd, cfg, p, "clock", false, true, c->clock, sizeof(c->clock))) ||
	    (err = rd_schedule(rd, cfg, &c->schedule)) ||
	    (err = rd_placement(rd, cfg, &c->placement_per_rep)) ||
	    (err = rd_string(rd, cfg, p, "defrag", false, true, defrag, sizeof(defrag))) ||
	    (err = rd_int_to(rd, cfg, p, "scan_interval_ms", false, 0, INT32_MAX, 0,
			     &c->scan_interval_ms)) ||
	    (err = rd_number(rd, cfg, p, "timeout_s", false, 0.0, HUGE_VAL, &c->timeout_s)) ||
	    (err = rd_config_metrics(rd, cfg, c)) ||
	    (err = rd_string(rd, cfg, p, "top_enabled", false, true, c->top_enabled,
			     sizeof(c->top_enabled))))
		return err;
	if (defrag[0]) {
		if ((w = thp_word_parse(defrag)) < 0)
			return rd_fail(rd, -EBADMSG, "%s.defrag: '%s' is not a THP word", p, defrag);
		c->defrag = w;
	}
	return 0;
}

/* The typed head: tool, host, thp (whole when the writer of this version
 * wrote it: it carries per_size_mthp; older files keep only the summary
 * rd_thp reads) and config. rd_host has checked host is an object. */
static int rd_head(struct rd *rd, const json_t *doc, struct results_head *h)
{
	json_t *tool = json_object_get(doc, "tool"), *thp = json_object_get(doc, "thp");
	json_t *config = json_object_get(doc, "config");
	int err;

	h->host.topo.cpu_family = h->host.topo.cpu_model_number = -1;
	h->has_tool = json_is_object(tool);
	if (h->has_tool && (err = rd_string(rd, tool, "$.tool", "version", false, true,
					    h->tool_version, sizeof(h->tool_version))))
		return err;
	if ((err = rd_host_obj(rd, json_object_get(doc, "host"), "$.host", &h->host)))
		return err;
	if (json_is_object(thp) && json_object_get(thp, "per_size_mthp")) {
		if ((err = rd_thp_obj(rd, thp, "$.thp", &h->thp, &h->thp_stats)))
			return err;
		h->has_thp = true;
	}
	results_config_init(&h->config);
	if (config && (err = rd_config(rd, config, &h->config)))
		return err;
	if ((err = rd_bool(rd, doc, "$", "interrupted", false, &h->interrupted)))
		return err;
	h->has_precision = json_object_get(doc, "precision") != NULL;
	return h->has_precision ? results_precision_read(rd, json_object_get(doc, "precision"),
							 "$.precision", &h->precision)
				: 0;
}

static int rd_document(struct rd *rd, const json_t *doc, struct results *r, bool stream)
{
	json_t *trials, *tool, *config, *t;
	char schema[64] = "";
	size_t i;
	int err;

	if (!json_is_object(doc))
		return rd_fail(rd, -EBADMSG, "$: expected an object (a results document), found %s",
			       rd_type_name(doc));
	if ((err = rd_string(rd, doc, "$", "schema", true, false, schema, sizeof(schema))))
		return err;
	if (strcmp(schema, RESULTS_SCHEMA)) {
		if (!strncmp(schema, "mthpscope.results/", 18))
			return rd_fail(rd, -EPROTO, "$.schema: version '%s' is not supported (this "
				       "mthpscope reads %s)", schema, RESULTS_SCHEMA);
		if (!strncmp(schema, "mthpscope.collapse/", 19))
			return rd_fail(rd, -EPROTO, "$.schema: '%s' is a collapse document (from "
				       "'mthpscope collapse'), not a results file (%s, from 'mthpscope "
				       "run'); 'mthpscope plot' draws a collapse document", schema,
				       RESULTS_SCHEMA);
		/* issue 41's documents, named as the collapse one is */
		if (!strncmp(schema, "mthpscope.presence/", 19))
			return rd_fail(rd, -EPROTO, "$.schema: '%s' is a presence map (from 'scan "
				       "--presence' or 'run --presence'), not a results file (%s); "
				       "'mthpscope collapse --replay POLICY --presence FILE' reads it",
				       schema, RESULTS_SCHEMA);
		if (!strncmp(schema, "mthpscope.replay/", 17))
			return rd_fail(rd, -EPROTO, "$.schema: '%s' is the report of 'collapse "
				       "--replay --format json', not a results file (%s)", schema,
				       RESULTS_SCHEMA);
		return rd_fail(rd, -EPROTO, "$.schema: '%s' is not a results file (expected %s)",
			       schema, RESULTS_SCHEMA);
	}
	if ((err = rd_object(rd, doc, "$", "tool", false, &tool)) ||
	    (tool && (err = rd_string(rd, tool, "$.tool", "version", false, false,
				      r->tool_version, sizeof(r->tool_version)))))
		return err;
	if ((err = rd_host(rd, doc, r)) || (err = rd_thp(rd, doc, r)) ||
	    (err = rd_object(rd, doc, "$", "config", false, &config)) ||
	    (err = rd_head(rd, doc, &r->head)))
		return err;
	/* the page size the flat reader assumes for a file without one */
	if (!r->head.host.topo.page_size)
		r->head.host.topo.page_size = (long)r->page_size;
	/* the flat summary analysis uses */
	snprintf(r->config_pattern, sizeof(r->config_pattern), "%s", r->head.config.pattern);
	r->config_schedule = r->head.config.schedule;
	r->config_reps = r->head.config.reps;
	r->config_seed = r->head.config.seed;
	if (stream)
		return 0; /* the caller reads the trials one by one */
	if ((err = rd_array(rd, doc, "$", "trials", true, SIZE_MAX, &trials)))
		return err;
	if (json_array_size(trials) == 0)
		return rd_fail(rd, -ENODATA, "$.trials: no trials (the run measured nothing)");
	r->trials = calloc(json_array_size(trials), sizeof(*r->trials));
	if (!r->trials)
		return rd_fail(rd, -ENOMEM, "out of memory");
	json_array_foreach(trials, i, t) {
		r->nr_trials = i + 1;
		if ((err = rd_trial(rd, i, t, r->pmd_order, &r->trials[i])))
			return err;
	}
	return 0;
}

static int load_dom(const char *buf, size_t len, const char *name, struct results **out,
		    char *err, size_t errsize);

static size_t skip_ws(const char *b, size_t len, size_t i)
{
	while (i < len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
		i++;
	return i;
}

/* One JSON value at b[*i]: parsed, *i moved past it. NULL when malformed. */
static json_t *value_at(const char *b, size_t len, size_t *i)
{
	json_error_t je;
	json_t *v = json_loadb(b + *i, len - *i, JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY |
			       JSON_REJECT_DUPLICATES, &je);

	if (v)
		*i += (size_t)je.position;
	return v;
}

/* The offset of the '[' of the top-level "trials" array, or 0 when the
 * document is not a well-formed object with one (the whole-document path
 * then says what is wrong). */
static size_t find_trials(const char *b, size_t len)
{
	size_t i = skip_ws(b, len, 0), k;

	if (i >= len || b[i] != '{')
		return 0;
	for (i++;;) {
		json_t *v;
		bool is_trials;

		i = skip_ws(b, len, i);
		if (i >= len || b[i] != '"')
			return 0;
		k = i;
		if (!(v = value_at(b, len, &i)))
			return 0;
		json_decref(v);
		is_trials = i - k == 8 && !memcmp(b + k, "\"trials\"", 8);
		i = skip_ws(b, len, i);
		if (i >= len || b[i++] != ':')
			return 0;
		i = skip_ws(b, len, i);
		if (is_trials)
			return i < len && b[i] == '[' ? i : 0;
		if (!(v = value_at(b, len, &i)))
			return 0;
		json_decref(v);
		i = skip_ws(b, len, i);
		if (i >= len || b[i] != ',')
			return 0;
		i++;
	}
}

/*
 * The whole document as one jansson tree costs over ten times the file
 * (a 60 MiB sweep took 780 MB): read everything but the trials as a tree,
 * then the trials one at a time, each freed once in the model. Any
 * malformed JSON returns 1: the whole-document path reports it with its
 * line and column.
 */
/* Room for one more trial in r->trials (cap of them allocated), zeroed. */
static int next_trial(struct rd *rd, struct results *r, size_t *cap)
{
	if (r->nr_trials == *cap) {
		struct results_trial *nt;

		*cap = *cap ? 2 * *cap : 1024;
		nt = realloc(r->trials, *cap * sizeof(*nt));
		if (!nt)
			return rd_fail(rd, -ENOMEM, "out of memory");
		r->trials = nt;
	}
	memset(&r->trials[r->nr_trials], 0, sizeof(r->trials[0]));
	return 0;
}

static int load_streaming(struct rd *rd, const char *buf, size_t len, struct results *r)
{
	size_t open = find_trials(buf, len), i, cap = 0, hlen;
	json_t *head = NULL, *t;
	char *htext = NULL;
	int rc = 1;

	if (!open)
		return 1;
	/* the end of the array: every element parsed (and checked) in turn */
	i = open + 1;
	for (;;) {
		i = skip_ws(buf, len, i);
		if (i < len && buf[i] == ']' && r->nr_trials == 0)
			break;
		if (!(t = value_at(buf, len, &i))) {
			rc = 1;
			goto out;
		}
		if ((rc = next_trial(rd, r, &cap))) {
			json_decref(t);
			goto out;
		}
		r->nr_trials++;
		/* checked after the head below: keep the first error for then */
		rc = rd_trial(rd, r->nr_trials - 1, t, FOLIO_MAX_ORDER, &r->trials[r->nr_trials - 1]);
		json_decref(t);
		if (rc)
			goto out_trial_err;
		i = skip_ws(buf, len, i);
		if (i < len && buf[i] == ',') {
			i++;
			continue;
		}
		if (i < len && buf[i] == ']')
			break;
		rc = 1;
		goto out;
	}
	i++;
	/* the head: the document with an empty trials array in its place */
	hlen = open + 2 + (len - i);
	htext = malloc(hlen);
	if (!htext) {
		rc = rd_fail(rd, -ENOMEM, "out of memory");
		goto out;
	}
	memcpy(htext, buf, open);
	memcpy(htext + open, "[]", 2);
	memcpy(htext + open + 2, buf + i, len - i);
	head = json_loadb(htext, hlen, JSON_REJECT_DUPLICATES, NULL);
	if (!head) {
		rc = 1;
		goto out;
	}
	if ((rc = rd_document(rd, head, r, true)))
		goto out;
	if (!r->nr_trials) {
		rc = rd_fail(rd, -ENODATA, "$.trials: no trials (the run measured nothing)");
		goto out;
	}
	/* rd_trial's order check needs the PMD order from the head */
	for (i = 0; i < r->nr_trials; i++)
		if (r->trials[i].order > r->pmd_order && r->pmd_order > 0) {
			rc = 1; /* let the whole-document path word it */
			goto out;
		}
	rc = 0;
	goto out;
out_trial_err:
	/* a bad trial: the head may be worse; the whole-document path checks
	 * both in its order and words the first error */
	rc = 1;
out:
	json_decref(head);
	free(htext);
	return rc;
}

int results_load_buffer(const char *buf, size_t len, const char *name, struct results **out,
			char *err, size_t errsize)
{
	struct rd rd = { name, err, errsize };
	struct results *r;
	int rc;

	*out = NULL;
	if (len > RESULTS_MAX_BYTES)
		return rd_fail(&rd, -EFBIG, "%zu bytes is more than the %u MiB limit for a results "
			       "file", len, RESULTS_MAX_BYTES >> 20);
	r = calloc(1, sizeof(*r));
	if (!r)
		return rd_fail(&rd, -ENOMEM, "out of memory");
	snprintf(r->path, sizeof(r->path), "%s", name);
	rc = load_streaming(&rd, buf, len, r);
	if (rc == 0) {
		*out = r;
		return 0;
	}
	results_free(r);
	if (rc < 0)
		return rc;
	return load_dom(buf, len, name, out, err, errsize);
}

static int load_dom(const char *buf, size_t len, const char *name, struct results **out,
		    char *err, size_t errsize)
{
	struct rd rd = { name, err, errsize };
	struct results *r = NULL;
	char why[512];
	json_t *doc = NULL;
	int rc;

	*out = NULL;
	if (len > RESULTS_MAX_BYTES)
		return rd_fail(&rd, -EFBIG, "%zu bytes is more than the %u MiB limit for a results "
			       "file", len, RESULTS_MAX_BYTES >> 20);
	if ((rc = rd_parse(buf, len, &doc, why, sizeof(why))))
		return rd_fail(&rd, rc, "%s", why);
	r = calloc(1, sizeof(*r));
	if (!r) {
		rc = rd_fail(&rd, -ENOMEM, "out of memory");
		goto out;
	}
	snprintf(r->path, sizeof(r->path), "%s", name);
	rc = rd_document(&rd, doc, r, false);
out:
	json_decref(doc);
	if (rc) {
		results_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

/* fd's bytes into a malloc'd *buf, read to RESULTS_MAX_BYTES + 1 so that a
 * pipe that keeps going is caught too. */
static int read_limited(struct rd *rd, int fd, size_t cap, char **buf, size_t *len)
{
	char *b = NULL;
	size_t n = 0;
	int rc = 0;

	for (;;) {
		ssize_t got;

		if (n == cap) {
			char *nb;

			if (n > RESULTS_MAX_BYTES) {
				rc = rd_fail(rd, -EFBIG, "more than the %u MiB limit for a "
					     "document", RESULTS_MAX_BYTES >> 20);
				goto out;
			}
			/* a pipe: never more than the limit and a byte */
			cap = cap > RESULTS_MAX_BYTES / 2 ? RESULTS_MAX_BYTES + 1 : 2 * cap;
			nb = realloc(b, cap);
			if (!nb) {
				rc = rd_fail(rd, -ENOMEM, "out of memory");
				goto out;
			}
			b = nb;
		}
		if (!b && !(b = malloc(cap))) {
			rc = rd_fail(rd, -ENOMEM, "out of memory");
			goto out;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = rd_fail(rd, -errno, "read failed: %s", strerror(errno));
			goto out;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
out:
	if (rc) {
		free(b);
		return rc;
	}
	*buf = b;
	*len = n;
	return 0;
}

int results_read_file(const char *path, char **buf, size_t *len, char *err, size_t errsize)
{
	struct rd rd = { path, err, errsize };
	struct stat st;
	int fd, rc;

	*buf = NULL;
	*len = 0;
	/* "-": standard input, read as a pipe would be (and left open) */
	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC)
			       : fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return rd_fail(&rd, -errno, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) < 0) {
		rc = rd_fail(&rd, -errno, "cannot stat: %s", strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = rd_fail(&rd, -EISDIR, "is a directory, not a document");
		goto out;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > RESULTS_MAX_BYTES) {
		rc = rd_fail(&rd, -EFBIG, "%llu bytes is more than the %u MiB limit for a "
			     "document", (unsigned long long)st.st_size, RESULTS_MAX_BYTES >> 20);
		goto out;
	}
	rc = read_limited(&rd, fd, S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 1 << 16, buf,
			  len);
out:
	close(fd);
	return rc;
}

int results_read_json(const char *path, json_t **doc, char *err, size_t errsize)
{
	char why[512];
	size_t len;
	char *buf;
	int rc;

	*doc = NULL;
	if ((rc = results_read_file(path, &buf, &len, err, errsize)))
		return rc;
	if ((rc = rd_parse(buf ? buf : "", len, doc, why, sizeof(why))))
		snprintf(err, errsize, "%s: %s", path, why);
	free(buf);
	return rc;
}

int results_load_doc(const char *path, results_doc_reader read, void *d, char *err,
		     size_t errsize)
{
	char why[512];
	json_t *doc;
	int rc;

	if ((rc = results_read_json(path, &doc, err, errsize)))
		return rc;
	rc = read(doc, d, why, sizeof(why));
	json_decref(doc);
	/* a field's path or the schema, as a JSON error's place, after the
	 * file's name */
	if (rc == -ENOMEM)
		snprintf(err, errsize, "%s", why);
	else if (rc)
		snprintf(err, errsize, "%s: %s", path, why);
	return rc;
}

int results_load(const char *path, struct results **out, char *err, size_t errsize)
{
	size_t len;
	char *buf;
	int rc;

	*out = NULL;
	if ((rc = results_read_file(path, &buf, &len, err, errsize)))
		return rc;
	rc = results_load_buffer(buf ? buf : "", len, path, out, err, errsize);
	free(buf);
	return rc;
}

static const char *word_or_empty(enum thp_word w)
{
	return w == THP_W_NONE ? "" : thp_word_name(w);
}

void results_summarize_head(struct results *r)
{
	const struct results_head *h = &r->head;
	const struct topo_info *t = &h->host.topo;
	int i;

	snprintf(r->tool_version, sizeof(r->tool_version), "%s", h->tool_version);
	snprintf(r->kernel, sizeof(r->kernel), "%s", t->kernel);
	snprintf(r->arch, sizeof(r->arch), "%s", t->arch);
	snprintf(r->cpu_vendor, sizeof(r->cpu_vendor), "%s", t->cpu_vendor);
	snprintf(r->cpu_model, sizeof(r->cpu_model), "%s", t->cpu_model);
	r->virtualized = t->virtualized;
	r->emulated = t->emulated;
	r->steal_reported = t->steal_known ? t->steal_counted : -1;
	snprintf(r->emulation, sizeof(r->emulation), "%s", t->emul_reason);
	r->page_size = t->page_size > 0 ? (uint64_t)t->page_size : 4096;
	r->pmd_order = h->host.pmd_order;
	r->pmu_available = h->host.pmu.available;
	snprintf(r->pmu_reason, sizeof(r->pmu_reason), "%s", h->host.pmu.reason);
	snprintf(r->thp_enabled, sizeof(r->thp_enabled), "%s", word_or_empty(h->thp.enabled));
	snprintf(r->thp_defrag, sizeof(r->thp_defrag), "%s", word_or_empty(h->thp.defrag));
	r->nr_sizes = 0;
	for (i = 0; i < h->thp.nr_sizes && r->nr_sizes <= FOLIO_MAX_ORDER; i++) {
		const struct thp_size *z = &h->thp.sizes[i];

		r->sizes[r->nr_sizes].order = z->order;
		snprintf(r->sizes[r->nr_sizes].enabled, sizeof(r->sizes[0].enabled), "%s",
			 z->anon ? word_or_empty(z->enabled) : "");
		r->nr_sizes++;
	}
	r->max_ptes_none = h->thp.khugepaged.max_ptes_none >= 0 ? h->thp.khugepaged.max_ptes_none
								 : -1;
	snprintf(r->config_pattern, sizeof(r->config_pattern), "%s", h->config.pattern);
	r->config_schedule = h->config.schedule;
	r->config_reps = h->config.reps;
	r->config_seed = h->config.seed;
}

void results_free(struct results *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_trials; i++)
		results_trial_clear(&r->trials[i]);
	free(r->trials);
	results_config_clear(&r->head.config);
	free(r);
}

const struct results_metric *results_trial_metric(const struct results_trial *t,
						  const char *name)
{
	size_t i;

	for (i = 0; i < t->nr_metrics; i++)
		if (!strcmp(t->metrics[i].name, name))
			return &t->metrics[i];
	return NULL;
}

/* ---- results writer (run) ------------------------------------------------ */

#include <errno.h>
#include <math.h>
#include <stdio.h>

void results_trial_init(struct results_trial *t, int order, const char *pattern, uint64_t span,
			int rep)
{
	memset(t, 0, sizeof(*t));
	t->order = order;
	snprintf(t->pattern, sizeof(t->pattern), "%s", pattern ? pattern : "");
	t->span = span;
	t->rep = rep;
	t->seq = -1;
	t->coverage = NAN;
	t->sparse = pattern && !strcmp(pattern, "sparse");
}

void results_trial_clear(struct results_trial *t)
{
	free(t->metrics);
	free(t->rounds);
	ms_argv_free(t->argv);
	results_trial_init(t, 0, NULL, 0, 0);
}

struct results_metric *results_trial_set_metric(struct results_trial *t, const char *name,
						double value, const char *source,
						const char *event, double scale)
{
	struct results_metric *m = NULL, *nm;
	size_t i;

	if (!isfinite(value) || strlen(name) >= sizeof(m->name) || !name[0] ||
	    strlen(source) >= sizeof(m->source))
		return NULL;
	for (i = 0; i < t->nr_metrics && !m; i++)
		if (!strcmp(t->metrics[i].name, name))
			m = &t->metrics[i];
	if (!m) {
		nm = realloc(t->metrics, (t->nr_metrics + 1) * sizeof(*nm));
		if (!nm)
			return NULL;
		t->metrics = nm;
		m = &t->metrics[t->nr_metrics++];
	}
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->source, sizeof(m->source), "%s", source);
	snprintf(m->event, sizeof(m->event), "%s", event ? event : "");
	m->value = value;
	/* scale < 0: not a counter; the reader's default is 1 */
	m->scale = scale;
	return m;
}

int results_trial_set_argv(struct results_trial *t, char *const argv[])
{
	t->argv = ms_argv_dup(argv, &t->argc);
	return t->argv ? 0 : -ENOMEM;
}

void results_trial_set_hist(struct results_trial *t, const struct folio_hist *h, double coverage)
{
	int o;

	t->has_hist = true;
	for (o = 0; o <= FOLIO_MAX_ORDER; o++)
		t->hist[o] = h->pages[o];
	t->partial = h->partial;
	t->not_present = h->not_present;
	t->coverage = coverage;
	t->has_folios = isfinite(coverage);
}

static json_t *metric_json(const struct results_metric *m)
{
	json_t *j = json_pack("{s:f, s:s}", "value", m->value, "source", m->source);

	if (!j)
		return NULL;
	if (m->event[0])
		json_object_set_new(j, "event", json_string(m->event));
	if (m->scale >= 0 && m->event[0])
		json_object_set_new(j, "scale", json_real(m->scale));
	if (m->formula[0])
		json_object_set_new(j, "formula", json_string(m->formula));
	if (m->higher_better)
		json_object_set_new(j, "better", json_string("higher"));
	return j;
}

static json_t *folios_json(const struct results_trial *t)
{
	json_t *h = json_object(), *f;
	char key[8];
	int o;

	/* orders with pages only: the histogram says what is there */
	for (o = 0; o <= FOLIO_MAX_ORDER; o++) {
		if (!t->hist[o])
			continue;
		snprintf(key, sizeof(key), "%d", o);
		json_object_set_new(h, key, json_integer((json_int_t)t->hist[o]));
	}
	f = json_pack("{s:o, s:o, s:I, s:I}", "hist", h, "coverage",
		      isfinite(t->coverage) ? json_real(t->coverage) : json_null(), "partial",
		      (json_int_t)t->partial, "not_present", (json_int_t)t->not_present);
	if (f && t->workload == RESULTS_WL_COMMAND)
		json_object_update_new(f, json_pack("{s:I, s:I}", "anon_bytes",
						    (json_int_t)t->anon_bytes, "file_bytes",
						    (json_int_t)t->file_bytes));
	if (f && t->workload == RESULTS_WL_COMMAND && t->scans)
		json_object_update_new(f, json_pack("{s:s, s:I, s:I, s:I}", "scope", "lifetime",
						    "scans", (json_int_t)t->scans, "processes",
						    (json_int_t)t->processes, "processes_scanned",
						    (json_int_t)t->processes_scanned));
	return f;
}

/* {"kind": "command", "argv": [...]}: a command trial's and run -- CMD's config. */
static json_t *workload_json(char *const *argv, int argc)
{
	json_t *a = json_array();
	int i;

	for (i = 0; a && i < argc; i++)
		json_array_append_new(a, json_string(argv[i]));
	return json_pack("{s:s, s:o}", "kind", "command", "argv", a);
}

static json_t *placement_json(const struct results_placement *p)
{
	json_t *j = json_pack("{s:I, s:I, s:I, s:I, s:I}", "id", (json_int_t)p->id, "pfn_min",
			      (json_int_t)p->pfn_min, "pfn_median", (json_int_t)p->pfn_median,
			      "pfn_max", (json_int_t)p->pfn_max, "ballast_bytes",
			      (json_int_t)p->ballast_bytes);

	/* the first placement has nothing before it: no "reused" */
	if (j && isfinite(p->reused))
		json_object_set_new(j, "reused", json_real(p->reused));
	if (j && p->has_regions) {
		json_object_set_new(j, "regions_pmd", json_integer((json_int_t)p->regions_pmd));
		json_object_set_new(j, "regions_pud", json_integer((json_int_t)p->regions_pud));
	}
	return j;
}

json_t *results_trial_json(const struct results_trial *t)
{
	json_t *j, *metrics, *flags;
	size_t i, k;

	j = json_pack("{s:i, s:s}", "order", t->order, "pattern", t->pattern);
	if (!j)
		return NULL;
	if (t->workload == RESULTS_WL_MICRO)
		json_object_set_new(j, "span", json_integer((json_int_t)t->span));
	json_object_set_new(j, "rep", json_integer(t->rep));
	if (t->workload == RESULTS_WL_MICRO)
		json_object_set_new(j, "accesses", json_integer((json_int_t)t->accesses));
	else {
		json_object_set_new(j, "workload", workload_json(t->argv, t->argc));
		json_object_set_new(j, "exit", t->exit_signal
						       ? json_pack("{s:i}", "signal", t->exit_signal)
						       : json_pack("{s:i}", "code", t->exit_code));
	}
	if (t->has_hist)
		json_object_set_new(j, "folios", folios_json(t));
	if (t->has_layout) {
		json_t *l = layout_hist_json(&t->layout);

		if (!l) {
			json_decref(j);
			return NULL;
		}
		json_object_set_new(j, "layout", l);
		if (t->tlb_model[0])
			json_object_set_new(j, "tlb", json_pack("{s:s}", "model", t->tlb_model));
	}
	metrics = json_object();
	for (i = 0; i < t->nr_metrics; i++)
		json_object_set_new(metrics, t->metrics[i].name, metric_json(&t->metrics[i]));
	json_object_set_new(j, "metrics", metrics);
	if (t->has_multiplexed)
		json_object_set_new(j, "multiplexed", json_boolean(t->multiplexed));
	if (results_trial_json_rounds(j, t)) {
		json_decref(j);
		return NULL;
	}
	if (t->flags) {
		flags = json_array();
		for (k = 0; k < MS_ARRAY_SIZE(flag_names); k++)
			if (t->flags & (1u << k))
				json_array_append_new(flags, json_string(flag_names[k]));
		json_object_set_new(j, "flags", flags);
	}
	if (t->sparse && t->sparse_k)
		json_object_set_new(j, "sparse", json_pack("{s:I, s:I}", "k", (json_int_t)t->sparse_k,
							   "touched_pages",
							   (json_int_t)t->touched_pages));
	if (t->seq >= 0)
		json_object_set_new(j, "seq", json_integer(t->seq));
	if (t->has_placement)
		json_object_set_new(j, "placement", placement_json(&t->placement));
	return j;
}

bool results_has_placements(const struct results *r)
{
	size_t i;

	for (i = 0; r && i < r->nr_trials; i++)
		if (r->trials[i].has_placement)
			return true;
	return false;
}

int results_doc_add_trial(json_t *doc, const struct results_trial *t)
{
	json_t *trials = json_object_get(doc, "trials"), *j;

	if (!trials)
		return -EINVAL;
	j = results_trial_json(t);
	if (!j)
		return -ENOMEM;
	return json_array_append_new(trials, j) ? -ENOMEM : 0;
}

int results_trial_set_rounds(struct results_trial *t, const double *v, size_t n)
{
	double *copy;
	size_t i;

	if (!t || !v || n == 0 || n > RESULTS_MAX_ROUNDS)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isfinite(v[i]) || v[i] < 0.0)
			return -EINVAL;
	copy = malloc(n * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, v, n * sizeof(*copy));
	free(t->rounds);
	t->rounds = copy;
	t->nr_rounds = n;
	return 0;
}

int results_trial_json_rounds(json_t *trial_obj, const struct results_trial *t)
{
	json_t *a;
	size_t i;

	if (!t->nr_rounds)
		return 0;
	a = json_array();
	if (!a)
		return -ENOMEM;
	for (i = 0; i < t->nr_rounds; i++)
		if (json_array_append_new(a, json_real(t->rounds[i]))) {
			json_decref(a);
			return -ENOMEM;
		}
	return json_object_set_new(trial_obj, "rounds", a) ? -ENOMEM : 0;
}

/* ---- the head: config and the document's first keys --------------------- */

void results_config_init(struct results_config *c)
{
	memset(c, 0, sizeof(*c));
	c->reps = -1;
	c->cpu = -1;
	c->defrag = THP_W_NONE;
}

void results_config_clear(struct results_config *c)
{
	ms_argv_free(c->argv);
	results_config_init(c);
}

int results_config_set_argv(struct results_config *c, char *const argv[])
{
	char **copy;
	int n;

	if (!argv || !argv[0])
		return -EINVAL;
	copy = ms_argv_dup(argv, &n);
	if (!copy)
		return -ENOMEM;
	ms_argv_free(c->argv);
	c->argv = copy;
	c->argc = n;
	return 0;
}

static json_t *int_array(const int *v, int n)
{
	json_t *a = json_array();
	int i;

	for (i = 0; a && i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

/* reps and cpu: -1 in the model is a key the file did not have. */
static json_t *int_or_absent(long v)
{
	return v >= 0 ? json_integer(v) : NULL;
}

/* A micro run's config, keys in the order run has always written them. */
static json_t *config_micro_json(const struct results_config *c)
{
	json_t *pats = json_array(), *spans = json_array();
	int i;

	for (i = 0; pats && i < c->nr_patterns; i++)
		json_array_append_new(pats, json_string(c->patterns[i]));
	for (i = 0; spans && i < c->nr_spans; i++)
		json_array_append_new(spans, json_integer((json_int_t)c->spans[i]));
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o*, s:I, s:o*, s:b, s:s, s:f, "
			 "s:{s:I, s:s}, s:{s:i, s:s}, s:f, s:s, s:s, s:s*}",
			 "command", c->command, "pattern", c->pattern, "patterns", pats, "orders",
			 int_array(c->orders.order, (int)c->orders.nr), "spans", spans, "reps",
			 int_or_absent(c->reps), "seed", (json_int_t)c->seed, "cpu",
			 int_or_absent(c->cpu), "quick", c->quick,
			 "backend", c->backend, "target_trial_seconds", c->target_trial_seconds,
			 "tlb_reach", "bytes", (json_int_t)c->tlb_reach_bytes, "source",
			 c->tlb_reach_source, "sparse", "k", (int)c->sparse_k, "metric",
			 c->sparse_metric, "coverage_min", c->coverage_min, "clock", c->clock,
			 "schedule", results_schedule_name(c->schedule), "placement",
			 c->placement_per_rep ? "per-rep" : NULL);
}

/* A command run's config (run -- CMD). */
static json_t *config_command_json(const struct results_config *c)
{
	json_t *metrics = json_array();
	int i;

	for (i = 0; metrics && i < c->nr_metrics; i++)
		json_array_append_new(metrics,
				      json_pack("{s:s, s:s, s:s}", "name", c->metrics[i].name,
						"regex", c->metrics[i].regex, "better",
						c->metrics[i].higher_better ? "higher" : "lower"));
	return json_pack("{s:s, s:s, s:o, s:o, s:o*, s:I, s:o*, s:s, s:i, s:f, s:o, s:f, s:s}",
			 "command", c->command, "pattern", c->pattern, "workload",
			 workload_json(c->argv, c->argc), "orders", int_array(c->orders.order, (int)c->orders.nr),
			 "reps", int_or_absent(c->reps), "seed", (json_int_t)c->seed, "cpu",
			 int_or_absent(c->cpu), "backend",
			 c->backend, "scan_interval_ms", (int)c->scan_interval_ms, "timeout_s",
			 c->timeout_s, "metrics", metrics, "coverage_min", c->coverage_min,
			 "top_enabled", c->top_enabled);
}

static int config_json(const struct results_config *c, json_t **out)
{
	json_t *j;

	*out = NULL;
	if (c->orders.nr > FOLIO_MAX_ORDER + 1 || c->nr_patterns < 0 ||
	    c->nr_patterns > RESULTS_MAX_PATTERNS || c->nr_spans < 0 ||
	    c->nr_spans > RESULTS_MAX_SPANS || c->nr_metrics < 0 ||
	    c->nr_metrics > RESULTS_MAX_METRICS ||
	    (c->schedule != RESULTS_SCHED_SEQUENTIAL && c->schedule != RESULTS_SCHED_INTERLEAVED) ||
	    (c->defrag != THP_W_NONE && (c->defrag < 0 || c->defrag >= THP_W_COUNT)) ||
	    (c->workload == RESULTS_WL_COMMAND && !c->argc))
		return -EINVAL;
	j = c->workload == RESULTS_WL_COMMAND ? config_command_json(c) : config_micro_json(c);
	if (!j)
		return -ENOMEM;
	if ((c->defrag != THP_W_NONE &&
	     json_object_set_new(j, "defrag", json_string(thp_word_name(c->defrag)))) ||
	    (c->tlb_geometry[0] &&
	     json_object_set_new(j, "tlb_geometry", json_string(c->tlb_geometry)))) {
		json_decref(j);
		return -ENOMEM;
	}
	*out = j;
	return 0;
}

int results_head_json(const struct results_head *h, json_t **out)
{
	json_t *doc, *config = NULL;
	int rc;

	*out = NULL;
	if ((rc = config_json(&h->config, &config)))
		return rc;
	rc = -ENOMEM;
	doc = json_pack("{s:s}", "schema", RESULTS_SCHEMA);
	if (!doc)
		goto out;
	if (h->has_tool && json_object_set_new(doc, "tool", tool_json(h->tool_version)))
		goto out;
	if (json_object_set_new(doc, "host", results_host_to_json(&h->host)))
		goto out;
	if (h->has_thp && json_object_set_new(doc, "thp", results_thp_json(&h->thp, h->thp_stats)))
		goto out;
	if (json_object_set(doc, "config", config))
		goto out;
	if (h->has_precision &&
	    json_object_set_new(doc, "precision", results_precision_json(&h->precision)))
		goto out;
	if (h->interrupted && json_object_set_new(doc, "interrupted", json_true()))
		goto out;
	if (json_object_set_new(doc, "trials", json_array()))
		goto out;
	*out = doc;
	doc = NULL;
	rc = 0;
out:
	json_decref(config);
	json_decref(doc);
	return rc;
}
