// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the presence-document reader (presence_doc_read):
 * what it accepts becomes a replay map and takes a pass of every policy
 * (collapse --replay), and the writer writes it back to a document that
 * reads back the same.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "presence_doc.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_writer(const struct presence_doc *d)
{
	json_t *out = NULL, *again = NULL;
	struct presence_doc back;
	char err[512];

	if (presence_doc_json(d, &out))
		abort();
	if (presence_doc_read(out, &back, err, sizeof(err))) {
		fprintf(stderr, "the writer's document does not read back: %s\n", err);
		abort();
	}
	if (presence_doc_json(&back, &again) || !json_equal(out, again)) {
		fprintf(stderr, "write(read(write(d))) differs from write(d)\n");
		abort();
	}
	presence_doc_free(&back);
	json_decref(again);
	json_decref(out);
}

static void replay_every_policy(const struct presence_doc *d)
{
	struct replay_map m;
	struct replay_state st[3];
	char err[256];
	bool rw;
	int p;

	if (!d->nr_ranges || d->nr_ranges > 64)
		return; /* the map's size is the document's: keep a run short */
	if (replay_map_from_presence(d, &m)) {
		fprintf(stderr, "a document the reader took makes no map\n");
		abort();
	}
	for (p = 0; p < 2 * REPLAY_NR_POLICIES; p++) {
		struct replay_params rp = { .policy = (enum replay_policy)(p % REPLAY_NR_POLICIES),
					    .defer = p >= REPLAY_NR_POLICIES, .orders = ~0UL << 2,
					    .max_ptes_none = p % 2 ? (int)m.pmd_pages - 1 : 3,
					    .min_order = 2 + p % 3 };

		if (replay_run(&m, &rp, 2, st, &rw, err, sizeof(err)))
			abort();
	}
	replay_map_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	char err[512];

	if (doc) {
		struct presence_doc d;

		if (!presence_doc_read(doc, &d, err, sizeof(err))) {
			replay_every_policy(&d);
			check_writer(&d);
			presence_doc_free(&d);
		}
	}
	json_decref(doc);
	return 0;
}
