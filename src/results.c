#include "results.h"

json_t *results_tool_json(void)
{
	return json_pack("{s:s, s:s}", "name", "mthpscope", "version", MTHPSCOPE_VERSION);
}

json_t *results_host_json(const struct topo_info *t, const struct thp_settings *s,
			  bool pmu_available, json_t *pmu_models, const char *pmu_reason)
{
	json_t *pmu = json_pack("{s:b, s:o}", "available", pmu_available, "models",
				pmu_models ? pmu_models : json_array());

	if (pmu_reason)
		json_object_set_new(pmu, "reason", json_string(pmu_reason));
	return json_pack("{s:s, s:s, s:s, s:s, s:b, s:s, s:I, s:i, s:I, s:o, s:{s:i, s:i, s:i, s:i, "
			 "s:{s:I, s:I, s:I}}}",
			 "kernel", t->kernel, "arch", t->arch, "cpu_vendor", t->cpu_vendor,
			 "cpu_model", t->cpu_model, "virtualized", t->virtualized,
			 "virtualization", t->virt_reason, "page_size", (json_int_t)t->page_size,
			 "pmd_order", s->pmd_order, "pmd_size", (json_int_t)s->pmd_size,
			 "pmu", pmu, "topology", "packages", t->packages, "cores", t->cores,
			 "pus", t->pus, "numa_nodes", t->numa_nodes, "caches",
			 "l1d", (json_int_t)t->l1d_bytes, "l2", (json_int_t)t->l2_bytes,
			 "l3", (json_int_t)t->l3_bytes);
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
	return o;
}

/* ---- results writer (run) ------------------------------------------------ */

#include <errno.h>
#include <math.h>
#include <stdio.h>

json_t *results_doc_new(json_t *host, json_t *thp, json_t *config)
{
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:[]}", "schema", RESULTS_SCHEMA, "tool",
			 results_tool_json(), "host", host, "thp", thp, "config", config,
			 "trials");
}

json_t *results_trial_new(int order, const char *pattern, unsigned long long span, int rep,
			  unsigned long long accesses, const struct folio_hist *hist,
			  double coverage)
{
	json_t *t = json_pack("{s:i, s:s, s:I, s:i, s:I}", "order", order, "pattern", pattern,
			      "span", (json_int_t)span, "rep", rep, "accesses",
			      (json_int_t)accesses);
	json_t *h;
	char key[8];
	int o;

	if (!t)
		return NULL;
	if (hist) {
		h = json_object();
		/* Orders with pages only: the histogram says what is there. */
		for (o = 0; o <= FOLIO_MAX_ORDER; o++) {
			if (!hist->pages[o])
				continue;
			snprintf(key, sizeof(key), "%d", o);
			json_object_set_new(h, key, json_integer((json_int_t)hist->pages[o]));
		}
		json_object_set_new(t, "folios",
				    json_pack("{s:o, s:f, s:I, s:I}", "hist", h, "coverage",
					      coverage, "partial", (json_int_t)hist->partial,
					      "not_present", (json_int_t)hist->not_present));
	}
	json_object_set_new(t, "metrics", json_object());
	return t;
}

int results_metric_set(json_t *trial, const char *name, double value, const char *source,
		       const char *event, double scale)
{
	json_t *m, *metrics = json_object_get(trial, "metrics");

	if (!metrics || !isfinite(value))
		return -EINVAL;
	m = json_pack("{s:f, s:s}", "value", value, "source", source);
	if (!m)
		return -ENOMEM;
	if (event)
		json_object_set_new(m, "event", json_string(event));
	if (scale >= 0)
		json_object_set_new(m, "scale", json_real(scale));
	return json_object_set_new(metrics, name, m) ? -ENOMEM : 0;
}

int results_trial_append(json_t *doc, json_t *trial)
{
	json_t *trials = json_object_get(doc, "trials");

	if (!trials || !trial) {
		json_decref(trial);
		return -EINVAL;
	}
	return json_array_append_new(trials, trial) ? -ENOMEM : 0;
}
