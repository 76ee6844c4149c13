// SPDX-License-Identifier: GPL-2.0-or-later
/* scan's document, mthpscope.scan/1 (scan_doc.h). */
#include "scan_doc.h"

#include <stdio.h>

#include "results.h"

json_t *scan_doc_new(const struct scan_opts *o, long interval_ms, json_t **samples)
{
	json_t *cont = json_array();
	int i;

	for (i = 0; i < o->nr_cont; i++)
		json_array_append_new(cont, json_integer(1LL << (o->cont_order[i] +
								 (int)o->page_shift - 10)));
	*samples = json_array();
	return json_pack("{s:s, s:o, s:i, s:I, s:o, s:I, s:o}", "schema", SCAN_SCHEMA, "tool",
			 results_tool_json(), "page_size", 1 << o->page_shift, "pmd_kb",
			 (json_int_t)(1LL << (o->pmd_order + (int)o->page_shift - 10)),
			 "cont_kb", cont, "interval_ms", (json_int_t)interval_ms, "samples",
			 json_incref(*samples));
}

json_t *scan_doc_labels(const struct scan_stats *st, const struct scan_opts *o, bool all)
{
	struct scan_label l[SCAN_MAX_LABELS];
	int n = scan_labels(st, o, l, SCAN_MAX_LABELS), i;
	json_t *j = json_object();

	for (i = 0; i < n; i++)
		if (all || l[i].kb)
			json_object_set_new(j, l[i].name, json_integer((json_int_t)l[i].kb));
	return j;
}

json_t *scan_doc_vma(const struct scan_vma *v, const struct scan_opts *o)
{
	json_t *j = json_object();
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%lx", v->start);
	json_object_set_new(j, "start", json_string(buf));
	snprintf(buf, sizeof(buf), "0x%lx", v->end);
	json_object_set_new(j, "end", json_string(buf));
	json_object_set_new(j, "prot", json_string(v->perms));
	json_object_set_new(j, "offset", json_integer((json_int_t)v->pgoff));
	snprintf(buf, sizeof(buf), "%02x:%02x", v->major, v->minor);
	json_object_set_new(j, "dev", json_string(buf));
	json_object_set_new(j, "inode", json_integer((json_int_t)v->inode));
	json_object_set_new(j, "object", json_string(v->name));
	json_object_set_new(j, "anon_kb", json_integer((json_int_t)v->anon_kb));
	json_object_set_new(j, "file_kb",
			    json_integer((json_int_t)(v->rss_kb > v->anon_kb ?
						      v->rss_kb - v->anon_kb : 0)));
	json_object_set_new(j, "stats", scan_doc_labels(&v->st, o, false));
	return j;
}

json_t *scan_doc_process(int pid, const char *comm, json_t *vmas)
{
	return json_pack("{s:i, s:s, s:o}", "pid", pid, "comm", comm, "vmas", vmas);
}

json_t *scan_doc_skipped(int pid, const char *reason)
{
	return json_pack("{s:i, s:s}", "pid", pid, "reason", reason);
}

json_t *scan_doc_sample(double t, json_t *procs, const struct scan_stats *st,
			const struct scan_opts *o, json_t *skipped)
{
	json_t *j = json_object(), *r = json_object();

	/* milliseconds: a timeline's t is read by people and plots */
	json_object_set_new(j, "t", json_real((double)(long long)(t * 1000.0 + 0.5) / 1000.0));
	if (procs)
		json_object_set_new(j, "processes", procs);
	json_object_set_new(r, "anon_kb",
			    json_integer((json_int_t)scan_total_kb(st, o, SCAN_ANON)));
	json_object_set_new(r, "file_kb",
			    json_integer((json_int_t)scan_total_kb(st, o, SCAN_FILE)));
	json_object_set_new(r, "stats", scan_doc_labels(st, o, true));
	json_object_set_new(j, "rollup", r);
	json_object_set_new(j, "skipped", skipped);
	return j;
}
