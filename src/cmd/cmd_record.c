// SPDX-License-Identifier: GPL-2.0-or-later
/* mthpscope record: which folio orders a program's sampled faults and misses
 * land in (options -> measure/record.c -> present/record_report.c). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "child.h"
#include "cli.h"
#include "commands.h"
#include "record.h"
#include "record_doc.h"
#include "record_report.h"
#include "record_tlb.h"
#include "tlb_host.h"
#include "tlb_opt.h"

enum {
	OPT_EVENT = 'e',
	OPT_COUNT = 'c',
	OPT_FREQ = 'F',
	OPT_PID = 'p',
	OPT_DURATION = 'd',
	OPT_OUTPUT = 'o',
	OPT_MMAP = 'm',
	OPT_FORMAT = 'f',
	OPT_INTERVAL = 256,
	OPT_WINDOWS,
	OPT_NO_PAGE_SIZE,
	OPT_PHYS,
	OPT_PRECISE,
	OPT_TLB_MODEL,
	OPT_TLB_GEOMETRY,
	OPT_INPUT = 'i',
};

static const struct cli_opt record_options[] = {
	{ "event", OPT_EVENT, "NAME", "the event to sample: page-faults (default, everywhere), "
	  "a libpfm4 name with data addresses (icl::MEM_INST_RETIRED:STLB_MISS_LOADS), or "
	  "ibs_op/rHEX/ (AMD IBS op, raw registers decoded)" },
	{ "count", OPT_COUNT, "N", "sample every N events, as perf -c (1: every page fault)" },
	{ "freq", OPT_FREQ, "HZ", "about HZ samples a second, as perf -F (default 4000)" },
	{ "pid", OPT_PID, "PID", "record a running process (all its threads) instead of a "
	  "command; it is never stopped" },
	{ "duration", OPT_DURATION, "S", "with --pid: stop after S seconds (default: at SIGINT "
	  "or when the process ends)" },
	{ "output", OPT_OUTPUT, "FILE", "write the document (JSON, " RECORD_SCHEMA ") to FILE, "
	  "atomically" },
	{ "format", OPT_FORMAT, "FMT", "the report on stderr: text (default), markdown or json" },
	{ "mmap-pages", OPT_MMAP, "N", "pages of each sample ring, a power of two (default 256)" },
	{ "interval", OPT_INTERVAL, "MS", "drain the ring and look samples up every MS ms "
	  "(default 10)" },
	{ "windows", OPT_WINDOWS, "N", "how many of the hottest 2 MiB windows to keep (default 20)" },
	{ "no-page-size", OPT_NO_PAGE_SIZE, NULL, "do not ask for PERF_SAMPLE_DATA_PAGE_SIZE" },
	{ "phys-addr", OPT_PHYS, NULL, "also ask for PERF_SAMPLE_PHYS_ADDR (root; PEBS, IBS)" },
	{ "precise", OPT_PRECISE, "LEVEL", "attr.precise_ip 0-3 (PEBS needs 1 or more; default 0)" },
	{ "input", OPT_INPUT, "FILE", "record nothing: print the report of a record document "
	  "(-o FILE of an earlier record) on stdout, in --format (with --tlb-model: the hot "
	  "windows' TLB figures again, under that model)" },
	TLB_OPT_ROWS(OPT_TLB_MODEL, OPT_TLB_GEOMETRY),
	{ NULL },
};

static const struct cli_cmd record_cli = {
	.name = "record",
	.args = "-- CMD [ARGS] | --pid PID",
	.summary = "Sample a program's page faults (or TLB misses) with their data addresses and "
		   "join each with its VMA and the folio order of its page.",
	.details =
		"The command's stdin, stdout and stderr are its own, as under perf record (at\n"
		"a terminal it is given the terminal: it reads what is typed, Ctrl-C reaches\n"
		"it); the report goes to stderr and the document to -o FILE, never into its\n"
		"stdout.\n"
		"Each sample is looked up when the ring is drained (every --interval ms): its\n"
		"VMA in /proc/PID/maps, its folio in pagemap + kpageflags (root). A page not\n"
		"present yet is looked up once more at the next drain, then counted unmapped.\n"
		"Each process's sampled VMAs are scanned at its exit stop (ptrace) for the\n"
		"share of memory at each order.\n"
		"SIGINT or SIGTERM stops the recording (the command gets SIGINT, a second one\n"
		"kills it) and the document is still written.\n"
		"Exit status: 0; 1 when the command failed (the document is written) or on a\n"
		"runtime failure; 2 on a usage error; 3 when the event cannot be sampled here,\n"
		"the process is gone or not ours, or without root.",
	.opts = record_options,
};

struct record_cmd_opts {
	struct rec_options ro;
	const char *output, *input;
	enum report_format format;
	bool have_count, have_freq, have_duration;
	struct tlb_opt tlb;           /* the hot windows' TLB model (default: this CPU's) */
};

static int on_opt(int key, const char *arg, void *ctx)
{
	struct record_cmd_opts *o = ctx;
	double d;
	long v;

	if (key == OPT_TLB_MODEL || key == OPT_TLB_GEOMETRY)
		return key == OPT_TLB_MODEL ? tlb_opt_model(&o->tlb, "record", arg)
					    : tlb_opt_geometry(&o->tlb, "record", arg);
	switch (key) {
	case OPT_EVENT:
		if (!*arg) {
			ms_err("invalid --event '': name an event");
			return -1;
		}
		o->ro.event = arg;
		return 0;
	case OPT_COUNT:
		if (cli_parse_long("count", arg, 1, LONG_MAX, &v))
			return -1;
		o->ro.period = (unsigned long long)v;
		o->have_count = true;
		return 0;
	case OPT_FREQ:
		if (cli_parse_long("freq", arg, 1, 1000000, &v))
			return -1;
		o->ro.freq = (unsigned long long)v;
		o->have_freq = true;
		return 0;
	case OPT_PID:
		if (cli_parse_long("pid", arg, 1, INT_MAX, &v))
			return -1;
		o->ro.pid = (int)v;
		return 0;
	case OPT_DURATION:
		if (cli_parse_double("duration", arg, 0.001, 86400 * 365, &d))
			return -1;
		o->ro.duration_s = d;
		o->have_duration = true;
		return 0;
	case OPT_OUTPUT:
		return cli_parse_path("output", arg, &o->output);
	case OPT_INPUT:
		return cli_parse_path("input", arg, &o->input);
	case OPT_FORMAT:
		if (report_parse_format(arg, &o->format)) {
			ms_err("invalid --format '%s' (text, markdown or json)", arg);
			return -1;
		}
		return 0;
	case OPT_MMAP:
		if (cli_parse_long("mmap-pages", arg, 1, 1 << 20, &v))
			return -1;
		if (v & (v - 1)) {
			ms_err("invalid --mmap-pages '%s': a power of two", arg);
			return -1;
		}
		o->ro.data_pages = (unsigned)v;
		return 0;
	case OPT_INTERVAL:
		if (cli_parse_long("interval", arg, 1, 60000, &v))
			return -1;
		o->ro.interval_ms = (unsigned)v;
		return 0;
	case OPT_WINDOWS:
		if (cli_parse_long("windows", arg, 0, 100000, &v))
			return -1;
		o->ro.top_windows = (unsigned)v;
		return 0;
	case OPT_NO_PAGE_SIZE:
		o->ro.data_page_size = false;
		return 0;
	case OPT_PHYS:
		o->ro.phys_addr = true;
		return 0;
	case OPT_PRECISE:
		if (cli_parse_long("precise", arg, 0, 3, &v))
			return -1;
		o->ro.precise = (int)v;
		return 0;
	}
	return 0;
}

/* Everything that needs no privilege; an exit status, or -1 to go on. */
static int check(struct record_cmd_opts *o, int argc, char **argv, int i)
{
	char path[4096];
	int err;

	if (i < argc && !strcmp(argv[i - 1], "--")) {
		o->ro.argv = argv + i;
	} else if (i < argc) {
		ms_err("record: unexpected argument '%s' (a command to record goes after --)",
		       argv[i]);
		return MS_EXIT_USAGE;
	}
	if (!o->ro.argv == !o->ro.pid) {
		ms_err("record: give a command after -- or --pid PID (one of them)");
		return MS_EXIT_USAGE;
	}
	if (o->have_count && o->have_freq) {
		ms_err("record: -c/--count and -F/--freq exclude each other");
		return MS_EXIT_USAGE;
	}
	if (o->have_duration && !o->ro.pid) {
		ms_err("record: --duration applies to --pid (a command runs to its end)");
		return MS_EXIT_USAGE;
	}
	if (o->output && o->ro.argv && !strcmp(o->output, "-")) {
		ms_err("record: -o - would mix the document into the command's stdout: name a file");
		return MS_EXIT_USAGE;
	}
	if (o->ro.argv && (err = child_resolve(o->ro.argv[0], path, sizeof(path)))) {
		if (err == -EACCES || err == -EISDIR)
			ms_err("record: '%s' is not executable%s", o->ro.argv[0],
			       err == -EISDIR ? " (a directory)" : "");
		else
			ms_err("record: command '%s' not found%s", o->ro.argv[0],
			       strchr(o->ro.argv[0], '/') ? "" : " in PATH");
		return MS_EXIT_USAGE;
	}
	if (o->output && (err = atomic_check_output(o->output, false))) {
		ms_err("record: cannot write '%s': %s", o->output, strerror(-err));
		return MS_EXIT_ENV;
	}
	return -1;
}

/*
 * The model of the hot windows' TLB figures: --tlb-model / --tlb-geometry,
 * else this CPU's (*g NULL when none is known: said once). An exit status,
 * or -1 to go on.
 */
static int pick_tlb(const struct record_cmd_opts *o, const struct tlb_geometry **g)
{
	/* static: 'cpuid' gives a geometry inside it, used after this returns */
	static struct tlb_host host;

	tlb_host_describe(&host);
	if (tlb_opt_given(&o->tlb))
		return (*g = tlb_opt_pick(&o->tlb, "record", &host, NULL)) ? -1 : MS_EXIT_ENV;
	if (!(*g = tlb_host_geometry(&host)))
		ms_note("record: no TLB model for this CPU (%s, family %d, model %d): the hot "
			"windows get no TLB figures (name one with --tlb-model NAME)", host.vendor,
			host.family, host.model);
	return -1;
}

/* The model's figures into d's windows; a misfit is said, not fatal. */
static void window_tlb(struct record_doc *d, const struct tlb_geometry *g)
{
	int err;

	if (g && (err = record_tlb_doc(d, g)))
		ms_warn("record: the TLB model %s does not fit this document (%s): no TLB figures",
			g->name ? g->name : "?", strerror(-err));
}

/* --input: the report of a document written before. */
static int show(const struct record_cmd_opts *o, int argc, int i)
{
	struct record_doc d;
	char err[1024];
	int rc;

	if (i < argc) {
		ms_err("record: --input reads a document; it records no command");
		return MS_EXIT_USAGE;
	}
	rc = record_doc_load(o->input, &d, err, sizeof(err));
	if (rc) {
		ms_err("record: %s", err);
		return MS_EXIT_FAIL;
	}
	if (tlb_opt_given(&o->tlb)) {
		const struct tlb_geometry *g;

		if ((rc = pick_tlb(o, &g)) >= 0) {
			record_doc_free(&d);
			return rc;
		}
		window_tlb(&d, g);
	}
	rc = record_report_write(&d, o->format, stdout) ? MS_EXIT_FAIL : MS_EXIT_OK;
	record_doc_free(&d);
	return rc;
}

/* What the outcome says on stderr, and the exit status it gives. */
static int outcome(const struct record_doc *d)
{
	const struct record_outcome *o = &d->outcome;
	const char *w = rec_warnings();

	while (*w) {
		const char *nl = strchr(w, '\n');
		int n = nl ? (int)(nl - w) : (int)strlen(w);

		ms_warn("record: %.*s", n, w);
		w += n + (nl != NULL);
	}
	if (o->lost)
		ms_warn("record: the kernel dropped %llu samples (ring full): use a larger "
			"--mmap-pages, a shorter --interval or a larger -c", o->lost);
	if (o->interrupted)
		return MS_EXIT_OK;
	if (o->has_exit && o->exit_signal) {
		ms_err("record: %s died of signal %d (%s); its samples are kept", d->config.argv[0],
		       o->exit_signal, strsignal(o->exit_signal));
		return MS_EXIT_FAIL;
	}
	if (o->has_exit && o->exit_code) {
		ms_err("record: %s exited with status %d; its samples are kept", d->config.argv[0],
		       o->exit_code);
		return MS_EXIT_FAIL;
	}
	return MS_EXIT_OK;
}

/* Record a command or a process: an exit status. */
static int record_go(struct record_cmd_opts *o, int argc, char **argv, int i)
{
	const struct tlb_geometry *g = NULL;
	struct record_doc d;
	json_t *doc = NULL;
	char msg[512];
	int rc, err;

	if ((rc = check(o, argc, argv, i)) >= 0 || (rc = pick_tlb(o, &g)) >= 0)
		return rc;
	if (!o->have_duration)
		o->ro.duration_s = 86400.0 * 365; /* until SIGINT or the process ends */
	err = rec_run(&o->ro, &d);
	if (err) {
		rec_strerror(err, &o->ro, msg, sizeof(msg));
		ms_err("record: %s", msg);
		/* an event, a target or a privilege this machine does not give */
		return err == -ENOMEM || err == -EIO ? MS_EXIT_FAIL : MS_EXIT_ENV;
	}
	rc = outcome(&d);
	window_tlb(&d, g);
	if (o->output) {
		err = record_doc_json(&d, &doc);
		if (!err)
			err = atomic_write_json(o->output, doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		json_decref(doc);
		if (err) {
			ms_err("record: writing %s: %s (nothing was left there)", o->output,
			       strerror(-err));
			rc = MS_EXIT_FAIL;
		}
	}
	if (record_report_write(&d, o->format, stderr))
		rc = MS_EXIT_FAIL;
	record_doc_free(&d);
	return rc;
}

static int record_cmd(int argc, char **argv)
{
	struct record_cmd_opts o = { .format = REPORT_TEXT };
	int i, rc;

	rec_options_init(&o.ro);
	i = cli_parse(&record_cli, argc, argv, on_opt, &o);
	if (i == CLI_DONE || (i >= 0 && tlb_opt_done(&o.tlb, o.format == REPORT_JSON)))
		rc = MS_EXIT_OK;
	else if (i < 0)
		rc = MS_EXIT_USAGE;
	else if (o.input)
		rc = show(&o, argc, i);
	else
		rc = record_go(&o, argc, argv, i);
	tlb_opt_release(&o.tlb);
	return rc;
}

const struct ms_command cmd_record = {
	.name = "record",
	.summary = "sample a program's faults or TLB misses and the folio orders they land in",
	.run = record_cmd,
	.cli = &record_cli,
};
