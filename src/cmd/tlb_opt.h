/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --tlb-model NAME and --tlb-geometry FILE: one parser and one list for
 * every command that runs the TLB model (info, analyze, scan, record). A command
 * puts TLB_OPT_ROWS(struct, member) in its option table, calls
 * tlb_opt_done() after parsing (true: the list was printed, exit 0) and
 * tlb_opt_pick() for the geometry. Messages go to stderr; a bad value makes
 * the exit status 2.
 */
#ifndef TLB_OPT_H
#define TLB_OPT_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "tlb_host.h"
#include "tlb_model.h"

#define TLB_OPT_MODEL_HELP                                                                 \
	"the CPU whose TLB the model uses: a name of '--tlb-model list', 'cpuid' (this host's " \
	"CPUID figures), or 'list' to print every model with its sources (analyze: 'all', " \
	"every model's knee and plateau from the file's layouts)"
#define TLB_OPT_GEOMETRY_HELP                                                              \
	"a TLB geometry of your own: 'key = value' lines (doc/tlb-model.md)"
/* The two rows, bound to the struct tlb_opt member m of struct T. */
#define TLB_OPT_ROWS(T, m)                                                                 \
	{ "tlb-model", 0, "NAME", TLB_OPT_MODEL_HELP, CLI_ROW_CB(T, m, tlb_opt_model_cb) },  \
	{ "tlb-geometry", 0, "FILE", TLB_OPT_GEOMETRY_HELP,                                 \
	  CLI_ROW_CB(T, m, tlb_opt_geometry_cb) }

struct tlb_opt {
	const char *model;         /* --tlb-model as given (NULL: not given) */
	bool list;                 /* --tlb-model list */
	bool all;                  /* --tlb-model all (analyze: the fleet view) */
	bool cpuid;                /* --tlb-model cpuid */
	const struct tlb_geometry *table; /* --tlb-model NAME of the table */
	bool have_user;            /* --tlb-geometry FILE read */
	struct tlb_geometry user;
};

/* The rows' callbacks (field: the struct tlb_opt): 0, or -1 after a
 * message ("mthpscope: CMD: ..."). */
cli_cb tlb_opt_model_cb;
cli_cb tlb_opt_geometry_cb;
/* After parsing: --tlb-model list prints every model (text, or JSON with
 * json) to stdout and returns true; false otherwise. */
bool tlb_opt_done(const struct tlb_opt *o, bool json);
/* Was a geometry asked for (model or file)? */
bool tlb_opt_given(const struct tlb_opt *o);
/*
 * The geometry: the user's file, the named model, CPUID's figures for
 * 'cpuid' (host must be described), else 'fallback'. NULL for 'cpuid' on a
 * host whose CPUID says nothing (a message is printed: exit 3) and when no
 * fallback is given.
 */
const struct tlb_geometry *tlb_opt_pick(const struct tlb_opt *o, const char *cmd,
					const struct tlb_host *host,
					const struct tlb_geometry *fallback);
/* Free what --tlb-geometry read (every exit path of the command, after
 * parsing, whatever its outcome). */
void tlb_opt_release(struct tlb_opt *o);
/* Every table model (text): name, description, merge rule, each level's
 * figures with their source and citation. */
void tlb_opt_print_list(FILE *f);
/* One geometry, indented, in the same form; host non-NULL: CPUID's figure
 * beside each level, and a disagreement flagged. */
void tlb_opt_print_geometry(FILE *f, const struct tlb_geometry *g, const struct tlb_host *host);

#endif
