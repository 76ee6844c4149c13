// SPDX-License-Identifier: GPL-2.0-or-later
/* collapse --replay (collapse_replay.h). */
#include "collapse_replay.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "presence_doc.h"
#include "replay.h"
#include "replay_report.h"
#include "tlb_model.h"

#define MAX_MODELS 32

/* --tlb-model all or a comma list of the table's names: 0 or an exit status. */
static int pick_models(const char *arg, const struct tlb_geometry **out, size_t *nr)
{
	char *copy, *tok, *save = NULL;
	size_t i;
	int rc = 0;

	*nr = 0;
	if (!strcmp(arg, "all")) {
		for (i = 0; tlb_geometries[i] && *nr < MAX_MODELS; i++)
			out[(*nr)++] = tlb_geometries[i];
		return 0;
	}
	if (!(copy = strdup(arg)))
		return MS_EXIT_FAIL;
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		const struct tlb_geometry *g = tlb_geometry_find(tok);

		if (!g) {
			ms_err("collapse: --tlb-model: no model '%s' ('mthpscope info --tlb-model "
			       "list' lists them; or all)", tok);
			rc = MS_EXIT_USAGE;
		} else if (*nr < MAX_MODELS) {
			out[(*nr)++] = g;
		}
	}
	free(copy);
	if (!rc && !*nr) {
		ms_err("collapse: --tlb-model: no model named");
		rc = MS_EXIT_USAGE;
	}
	return rc;
}

/* The map to replay: the presence file, or the pattern collapse faults. */
static int load_map(const struct collapse_replay_opts *o, struct replay_map *m,
		    struct presence_doc *pd)
{
	long ps = o->page_size ? (long)o->page_size : sysconf(_SC_PAGESIZE);
	unsigned shift = 0;
	char why[640];
	int err;

	if (o->presence) {
		if ((err = presence_doc_load(o->presence, pd, why, sizeof(why)))) {
			ms_err("collapse: %s", why);
			return err == -ENOMEM ? MS_EXIT_FAIL : MS_EXIT_USAGE;
		}
		if (!pd->nr_ranges) {
			ms_err("collapse: %s: no range with a present page", o->presence);
			return MS_EXIT_USAGE;
		}
		err = replay_map_from_presence(pd, m);
	} else {
		if (ps != 4096 && ps != 16384 && ps != 65536) {
			ms_err("collapse: --page-size is 4096, 16384 or 65536, not %ld", ps);
			return MS_EXIT_USAGE;
		}
		while ((1L << shift) < ps)
			shift++;
		if (!o->span || o->span % ((unsigned long long)ps << (shift - 3))) {
			ms_err("collapse: --span must be a multiple of the PMD size (%llu KiB)",
			       ((unsigned long long)ps << (shift - 3)) >> 10);
			return MS_EXIT_USAGE;
		}
		err = replay_map_synthetic(o->seed, o->fill, (size_t)(o->span >> shift), shift,
					   (int)shift - 3, m);
	}
	if (err) {
		ms_err("collapse: the map: %s", strerror(-err));
		return MS_EXIT_FAIL;
	}
	return 0;
}

/* --orders against the map: collapse makes orders 2 to the PMD's, and the
 * mTHP orders from --min-order up (the PMD order whatever --min-order says):
 * a list that leaves nothing to make is a usage error, not a quiet zero. */
static int check_orders(const struct collapse_replay_opts *o, unsigned long orders, int pmd_order)
{
	unsigned long can = ((1UL << (pmd_order + 1)) - 1) & ~3UL;
	unsigned long made = orders & can & ~((1UL << o->min_order) - 1);
	int bad;

	if (orders & ~can) {
		bad = __builtin_ctzl(orders & ~can);
		ms_err("collapse: --orders: order %d is not one collapse makes: 2 to %d with this "
		       "map's pages", bad, pmd_order);
		return MS_EXIT_USAGE;
	}
	if (!(made | (orders & (1UL << pmd_order)))) {
		ms_err("collapse: --orders: every order given is below --min-order %d: nothing "
		       "could be made", o->min_order);
		return MS_EXIT_USAGE;
	}
	return 0;
}

/* The map after the first run's last pass, as a presence document: 0 or an
 * exit status. */
static int write_final(const char *path, const struct replay_map *m, const struct presence_doc *pd)
{
	struct presence_doc d;
	json_t *doc = NULL;
	int rc = MS_EXIT_FAIL;

	if (presence_doc_init(&d, 1u << m->page_shift))
		return MS_EXIT_FAIL;
	d.pid = pd->pid;
	snprintf(d.command, sizeof(d.command), "%s", pd->command);
	if (!replay_map_to_presence(m, &d) && !presence_doc_json(&d, &doc))
		rc = cli_write_doc("collapse", path, doc, JSON_COMPACT) ? MS_EXIT_FAIL : 0;
	else
		ms_err("collapse: --final-map: out of memory");
	json_decref(doc);
	presence_doc_free(&d);
	return rc;
}

/* The map after the run's last pass, range by range: 0 or -ENOMEM. */
static int final_ranges(const struct replay_map *m, struct replay_report_run *run)
{
	struct replay_range_pages *rp = calloc(m->nr_ranges, sizeof(*rp));
	size_t k;

	if (!rp)
		return -ENOMEM;
	for (k = 0; k < m->nr_ranges; k++)
		replay_range_pages_of(m, k, &rp[k]);
	run->ranges = rp;
	return 0;
}

/* Every max_ptes_none run into runs[] (states and ranges allocated): 0 or an
 * exit status. */
static int run_all(const struct collapse_replay_opts *o, const struct replay_map *m,
		   const struct presence_doc *pd, struct replay_params *p,
		   struct replay_report_run *runs)
{
	struct replay_map mm;
	char why[256];
	int i, err, rc = 0;

	for (i = 0; i < o->nr_mpn && !rc; i++) {
		struct replay_state *st = calloc((size_t)o->passes + 1, sizeof(*st));

		if (!st || replay_map_copy(m, &mm)) {
			free(st);
			ms_err("collapse: out of memory");
			return MS_EXIT_FAIL;
		}
		runs[i].states = st;
		p->max_ptes_none = o->mpn_given ? o->mpn[i] : (int)m->pmd_pages - 1;
		runs[i].max_ptes_none = p->max_ptes_none;
		err = replay_run_in_place(&mm, p, o->passes, st, &runs[i].rewritten, why,
					  sizeof(why));
		if (err) {
			ms_err("collapse: --replay: %s", why);
			rc = err == -EINVAL ? MS_EXIT_USAGE : MS_EXIT_FAIL;
		} else if (final_ranges(&mm, &runs[i])) {
			ms_err("collapse: out of memory");
			rc = MS_EXIT_FAIL;
		} else if (i == 0 && o->final_map) {
			rc = write_final(o->final_map, &mm, pd);
		}
		replay_map_free(&mm);
	}
	return rc;
}

static void print(const struct replay_report *rep, bool json)
{
	json_t *doc;

	if (!json) {
		replay_report_text(rep, stdout);
		return;
	}
	if (!(doc = replay_report_json(rep))) {
		ms_err("collapse: out of memory");
		return;
	}
	json_dumpf(doc, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(doc);
}

int collapse_replay(const struct collapse_replay_opts *o)
{
	const struct tlb_geometry *models[MAX_MODELS];
	struct replay_report_run runs[32] = { 0 };
	struct replay_params p = { .min_order = o->min_order };
	struct presence_doc pd = { 0 };
	struct replay_map m = { 0 };
	struct replay_report rep;
	size_t nr_models = 0;
	int i, rc;

	if (replay_policy_parse(o->policy, &p.policy, &p.defer)) {
		ms_err("collapse: --replay: no policy '%s' (merged, pache-v1, jain, each also "
		       "with -defer)", o->policy);
		return MS_EXIT_USAGE;
	}
	if ((rc = pick_models(o->tlb_models, models, &nr_models)) || (rc = load_map(o, &m, &pd)))
		goto out;
	p.orders = o->orders.all ? ((1UL << (m.pmd_order + 1)) - 1) & ~3UL
				 : folio_orders_mask(&o->orders);
	if ((rc = check_orders(o, p.orders, m.pmd_order)) || (rc = run_all(o, &m, &pd, &p, runs)))
		goto out;
	rep = (struct replay_report){ .policy = o->policy, .orders = p.orders,
				      .min_order = o->min_order, .passes = o->passes,
				      .presence = o->presence,
				      .command = pd.command[0] ? pd.command : NULL,
				      .fill = o->fill, .span = o->span, .seed = o->seed,
				      .page_shift = m.page_shift, .pmd_order = m.pmd_order,
				      .nr_ranges = m.nr_ranges, .models = models,
				      .nr_models = nr_models, .runs = runs,
				      .nr_runs = (size_t)o->nr_mpn };
	print(&rep, o->json);
out:
	for (i = 0; i < 32; i++) {
		free((void *)runs[i].states);
		free((void *)runs[i].ranges);
	}
	replay_map_free(&m);
	presence_doc_free(&pd);
	return rc;
}
