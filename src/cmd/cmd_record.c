// SPDX-License-Identifier: GPL-2.0-or-later
/* mthpscope record: which folio orders a program's sampled faults and misses
 * land in (options -> measure/record.c -> present/record_report.c). */
#include <errno.h>
#include <limits.h>
#include <math.h>
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

struct record_cmd_opts {
	struct rec_options ro;
	const char *output, *input;
	enum report_format format;
	bool have_count, have_freq, have_duration;
	struct tlb_opt tlb;           /* the hot windows' TLB model (default: this CPU's) */
};

/* --mmap-pages N: a power of two. */
static int mmap_pages(const struct cli_cmd *cmd, const char *arg, void *field)
{
	long v;

	(void)cmd;
	if (cli_parse_long("mmap-pages", arg, 1, 1 << 20, &v))
		return -1;
	if (v & (v - 1)) {
		ms_err("invalid --mmap-pages '%s': a power of two", arg);
		return -1;
	}
	*(unsigned *)field = (unsigned)v;
	return 0;
}


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
		"Slow lookups (each waits for the process's memory map, behind its mmap and\n"
		"munmap) stop after a second a drain, or at SIGINT/SIGTERM, once the lookup\n"
		"under way ends: the samples left are counted not looked up.\n"
		"Each process's sampled VMAs are scanned at its exit stop (ptrace) for the\n"
		"share of memory at each order; --pid's at the end, not when lookups were slow\n"
		"and the second after the end has passed.\n"
		"SIGINT or SIGTERM stops the recording (the command gets SIGINT, a second one\n"
		"kills it) and the document is still written.",
	.exit_status =
		"0 recorded; 1 when the command failed (the document is written) or on a\n"
		"runtime failure; 2 on a usage error; 3 when the event cannot be sampled here,\n"
		"the process is gone or not ours, without root, or -o cannot be written\n"
		"(checked before recording; a write that fails at the end, a full disk, is 1,\n"
		"and the document is saved in $TMPDIR, /var/tmp or /tmp instead).",
	.opts = (const struct cli_opt[]){
		{ "event", 'e', "NAME", "the event to sample: page-faults (default, everywhere), "
		  "a libpfm4 name with data addresses (icl::MEM_INST_RETIRED:STLB_MISS_LOADS), or "
		  "ibs_op/rHEX/ (AMD IBS op, raw registers decoded)",
		  CLI_ROW_STRING(struct record_cmd_opts, ro.event),
		  .imin = 1 },
		{ "count", 'c', "N", "sample every N events, as perf -c (1: every page fault)",
		  CLI_ROW_INT(struct record_cmd_opts, ro.period, 1, LONG_MAX),
		  CLI_GIVEN(struct record_cmd_opts, have_count) },
		{ "freq", 'F', "HZ", "about HZ samples a second, as perf -F (default 4000)",
		  CLI_ROW_INT(struct record_cmd_opts, ro.freq, 1, 1000000),
		  CLI_GIVEN(struct record_cmd_opts, have_freq) },
		{ "pid", 'p', "PID", "record a running process (its threads, and those they "
		  "start; not its children) instead of a command; it is never stopped",
		  CLI_ROW_INT(struct record_cmd_opts, ro.pid, 1, INT_MAX) },
		{ "duration", 'd', "S", "with --pid: stop after S seconds (default: at SIGINT "
		  "or when the process ends)",
		  CLI_ROW_DOUBLE(struct record_cmd_opts, ro.duration_s, 0.001, 86400 * 365),
		  CLI_GIVEN(struct record_cmd_opts, have_duration) },
		{ "output", 'o', "FILE", "write the document (" RECORD_SCHEMA ") to FILE, atomically",
		  CLI_ROW_OUTPUT_FILE(struct record_cmd_opts, output) },
		CLI_FORMAT_ROWS(struct record_cmd_opts, format, 'f', report_format_words, NULL,
				"the report on stderr (with --input on stdout): text (default), "
				"markdown or json", .aliases = report_format_aliases),
		{ "mmap-pages", 'm', "N", "pages of each sample ring, a power of two (default 256)",
		  CLI_ROW_CB(struct record_cmd_opts, ro.data_pages, mmap_pages) },
		{ "interval", 0, "MS", "drain the ring and look samples up every MS ms (default 10)",
		  CLI_ROW_INT(struct record_cmd_opts, ro.interval_ms, 1, 60000) },
		{ "windows", 0, "N", "how many of the hottest 2 MiB windows to keep (default 20)",
		  CLI_ROW_INT(struct record_cmd_opts, ro.top_windows, 0, 100000) },
		{ "no-page-size", 0, NULL, "do not ask for PERF_SAMPLE_DATA_PAGE_SIZE",
		  CLI_ROW_CLEAR(struct record_cmd_opts, ro.data_page_size) },
		{ "phys-addr", 0, NULL, "also ask for PERF_SAMPLE_PHYS_ADDR (root; PEBS, IBS)",
		  CLI_ROW_FLAG(struct record_cmd_opts, ro.phys_addr) },
		{ "precise", 0, "LEVEL", "attr.precise_ip 0-3 (PEBS needs 1 or more; default 0)",
		  CLI_ROW_INT(struct record_cmd_opts, ro.precise, 0, 3) },
		{ "input", 'i', "FILE", "record nothing: print the report of a record document "
		  "(-o FILE of an earlier record; '-': standard input) on stdout, in --format "
		  "(with --tlb-model: the hot windows' TLB figures again, under that model)",
		  CLI_ROW_PATH(struct record_cmd_opts, input) },
		TLB_OPT_ROWS(struct record_cmd_opts, tlb),
		CLI_END,
	},
};

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
	if (o->output && o->ro.argv && atomic_output_is_stdout(o->output)) {
		ms_err("record: -o %s would mix the document into the command's stdout: name a "
		       "file", o->output);
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
	if ((err = cli_check_outputs(&record_cli, o)))
		return err;
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

/* The model's figures into d's windows; a misfit is said, not fatal, and
 * leaves the document as it was: its own figures (of the model it names),
 * or none. */
static void window_tlb(struct record_doc *d, const struct tlb_geometry *g)
{
	char why[192], kept[96];
	size_t i;
	int err;

	if (!g || !(err = record_tlb_doc(d, g)))
		return;
	if (d->tlb_model[0])
		snprintf(kept, sizeof(kept), "the windows keep the document's figures (model %s)",
			 d->tlb_model);
	else
		snprintf(kept, sizeof(kept), "the windows get no TLB figures");
	i = record_tlb_misfit(d, g, why, sizeof(why));
	if (i < d->nr_windows)
		ms_warn("record: the TLB model %s does not fit window %zu (0x%llx): %s; %s",
			g->name ? g->name : "?", i + 1, d->windows[i].start, why, kept);
	else
		ms_warn("record: the TLB model %s: %s; %s", g->name ? g->name : "?",
			strerror(-err), kept);
}

/* --input: the report of a document written before. */
static int show(const struct record_cmd_opts *o, int argc, int i)
{
	struct record_doc d;
	char err[1024];
	int rc;

	static const char *const report_opts[] = { "input", "format", "json", "tlb-model",
						   "tlb-geometry", NULL };
	const char *opt = cli_given_except(report_opts);

	if (i < argc) {
		ms_err("record: --input reads a document; it records no command");
		return MS_EXIT_USAGE;
	}
	if (opt) {
		/* it would be ignored: -o writing nothing, --pid recording nothing */
		ms_err("record: --%s is an option of recording; --input only reads a document "
		       "(it takes --format, --tlb-model and --tlb-geometry)", opt);
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

/* Samples lost, never silently: how many of those taken, why, and a -c (or
 * -F) that would have left the ring half free at the rate seen (a fast host
 * takes 300k page faults a second of a busy target: -c 1 fills a ring the
 * drains cannot keep up with while they look samples up). */
static void say_lost(const struct record_doc *d)
{
	const struct record_outcome *o = &d->outcome;
	unsigned long long read = d->total.samples, all = read + o->lost;
	double keep = read ? (double)read / (double)all : 0.0;
	char fix[96];

	if (!o->lost)
		return;
	if (d->config.period)
		snprintf(fix, sizeof(fix), "-c %llu",
			 d->config.period * (unsigned long long)ceil(2.0 / (keep > 0 ? keep : 1e-3)));
	else
		snprintf(fix, sizeof(fix), "-F %llu",
			 (unsigned long long)fmax(1.0, floor((double)d->config.freq * keep / 2)));
	ms_warn("record: %llu of the %llu samples the kernel took were lost (%.1f %%): the "
		"ring (--mmap-pages %u) was full before a drain read it; %s would leave it "
		"half free at this rate, or use a larger --mmap-pages or a shorter --interval "
		"(now %u ms)", o->lost, all, 100.0 * (double)o->lost / (double)all,
		d->config.data_pages, fix, d->config.interval_ms);
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
	say_lost(d);
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
		if (err)
			ms_err("record: %s", strerror(-err));
		else
			err = cli_write_doc("record", o->output, doc,
					    JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		json_decref(doc);
		if (err)
			rc = MS_EXIT_FAIL;
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
	i = cli_parse(&record_cli, argc, argv, &o);
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
