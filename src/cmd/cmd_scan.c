// SPDX-License-Identifier: GPL-2.0-or-later
/* mthpscope scan: which folio orders back processes' memory (thpmaps view). */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "cli.h"
#include "commands.h"
#include "folio.h"
#include "presence.h"
#include "report.h"
#include "results.h"
#include "scan.h"
#include "scan_doc.h"
#include "scan_tlb.h"
#include "tlb_host.h"
#include "tlb_model.h"
#include "thp.h"
#include "tlb_opt.h"
#include "topo.h"

#define SCAN_MAX_MODELS 2 /* this CPU's, and one what-if */

struct scan_cmd_opts {
	int *pids;
	size_t nr_pids, cap_pids;
	const char *cgroup;
	bool rollup, json, inc_empty, inc_smaps, pids_given; /* json: --format json */
	enum report_format format;
	long interval_ms, count;
	bool count_given;
	struct scan_opts o;
	bool tlb_host;         /* --tlb: this CPU's model first */
	struct tlb_opt tlb;    /* --tlb-model / --tlb-geometry: a what-if */
	const struct tlb_geometry *models[SCAN_MAX_MODELS];
	int nr_models;
	const char *presence;  /* --presence FILE */
};

static int add_pid(struct scan_cmd_opts *c, int pid)
{
	size_t i;

	for (i = 0; i < c->nr_pids; i++)
		if (c->pids[i] == pid)
			return 0;
	if (c->nr_pids == c->cap_pids) {
		size_t ncap = c->cap_pids ? 2 * c->cap_pids : 64;
		int *np = realloc(c->pids, ncap * sizeof(*np));
		if (!np)
			return -ENOMEM;
		c->pids = np;
		c->cap_pids = ncap;
	}
	c->pids[c->nr_pids++] = pid;
	return 0;
}

static int pid_opt(const struct cli_cmd *cmd, const char *arg, void *field)
{
	struct scan_cmd_opts *c = field;
	long v;

	(void)cmd;
	if (cli_parse_long("pid", arg, 1, INT_MAX, &v))
		return -1;
	c->pids_given = true;
	return add_pid(c, (int)v) ? -1 : 0;
}

/* --cont SIZE: the field is the struct scan_opts. */
static int cont_opt(const struct cli_cmd *cmd, const char *arg, void *field)
{
	struct scan_opts *o = field;
	unsigned long long bytes;
	int err;

	(void)cmd;
	if (cli_parse_size("cont", arg, &bytes))
		return -1;
	err = scan_opts_add_cont(o, bytes);
	if (err == -E2BIG) {
		ms_err("at most %d --cont sizes", SCAN_MAX_CONT);
		return -1;
	}
	if (err) {
		ms_err("invalid --cont value '%s': the size must be a power-of-two number "
		       "of pages, at least 2 pages (%lu bytes) and at most the PMD size "
		       "(%llu bytes)", arg, 2UL << o->page_shift,
		       1ULL << (o->pmd_order + (int)o->page_shift));
		return -1;
	}
#if defined(__aarch64__)
	{
		/* the block the hardware may map with one TLB entry depends on
		 * the base page size: 64K with 4K pages, 2M with 16K or 64K */
		long ps = 1L << o->page_shift;
		int co = arch_arm64_contpte_order(ps);

		if (co >= 0 && o->cont_order[o->nr_cont - 1] != co)
			ms_note("--cont %s: with this kernel's %ldK pages the contpte block "
				"is %ldK (order %d); blocks of %s are counted, but the "
				"hardware does not map them with one contiguous entry", arg,
				ps >> 10, (ps << co) >> 10, co, arg);
	}
#endif
	return 0;
}

#define SC(m) CLI_AT(struct scan_cmd_opts, m)

static const struct cli_cmd scan_cli = {
	.name = "scan",
	.summary = "Show which folio orders back processes' memory, per VMA or rolled up, with "
		   "the labels of the kernel's tools/mm/thpmaps.",
	.details =
		"With no --pid or --cgroup, every process is scanned. Labels (kB, and percent of\n"
		"the VMA's anonymous or file-backed resident memory):\n"
		"  anon-thp-pmd-aligned-2048kB    PMD-mapped (from smaps AnonHugePages)\n"
		"  anon-thp-pte-aligned-<N>kB     complete folios of N kB, PTE-mapped, address\n"
		"                                 a multiple of N\n"
		"  anon-thp-pte-unaligned-<N>kB   the same at an address that is not\n"
		"  anon-thp-pte-partial           pages of large folios mapped only in part\n"
		"  anon-cont-pte-aligned-<N>kB    (--cont N) N-aligned blocks within one folio\n"
		"  file-...                       the same for file and shmem memory\n"
		"  zero-page, anon-ksm, hugetlb   classified apart, not counted as folios\n"
		"With --tlb, per VMA and in total, the TLB entries each level needs under the\n"
		"model's merge rules (AMD 8- or 4-PTE coalescing of any contiguous pages, arm64\n"
		"contpte inside one folio, PMD entries), its capacity and the miss ratio\n"
		"predicted for uniform random access (source model; JSON: \"layout\", the\n"
		"contiguity histogram, and \"tlb\", one footprint per model, with coverage).\n"
		"Exit 3 for --tlb on a CPU without a geometry (table or CPUID). --tlb-model NAME\n"
		"or --tlb-geometry FILE adds another CPU's footprint (a what-if; alone, only it).\n"
		"Needs root (CAP_SYS_ADMIN) for PFNs and /proc/kpageflags.",
	.exit_status =
		"0 scanned; 1 when a named process does not exist or exits; 2 for bad\n"
		"options (--cont SIZE must be a power-of-two number of pages, at most the\n"
		"PMD size); 3 without the privilege or kernel support to see folios.",
	.opts = (const struct cli_opt[]){
		{ "pid", 'p', "PID", "scan this process (repeatable)",
		  CLI_ROW_CB_ALL(struct scan_cmd_opts, pid_opt) },
		{ "cgroup", 'g', "PATH", "scan every process of this cgroup and its children",
		  .type = CLI_PATH, SC(cgroup) },
		{ "rollup", 'r', NULL, "print one sum over all VMAs of all processes",
		  .type = CLI_FLAG, SC(rollup) },
		{ "cont", 'c', "SIZE", "also count aligned contiguous blocks of SIZE (e.g. 64K; "
				       "repeatable)", CLI_ROW_CB(struct scan_cmd_opts, o, cont_opt) },
		{ "interval", 'i', "MS", "take a sample every MS milliseconds (a timeline)",
		  .type = CLI_INT, SC(interval_ms), .imin = 1, .imax = 86400000L },
		{ "count", 'n', "N", "number of samples (default 1; with --interval and no "
				     "--count, text output runs until interrupted)",
		  .type = CLI_INT, SC(count), .imin = 1, .imax = 100000000L,
		  CLI_GIVEN(struct scan_cmd_opts, count_given) },
		CLI_FORMAT_ROWS(struct scan_cmd_opts, format, 'f', cli_formats_text_json,
				cli_formats_text_json_vals,
				"text (default) or json (schema mthpscope.scan/1)"),
		{ "inc-empty", 0, NULL, "text: print labels whose value is 0 too",
		  .type = CLI_FLAG, SC(inc_empty) },
		{ "inc-smaps", 0, NULL, "text: each VMA's additive smaps fields first, as thpmaps "
					"--inc-smaps (implies --smaps)", CLI_ROW_FLAG(struct scan_cmd_opts, inc_smaps) },
		{ "smaps", 0, NULL, "take PMD-mapped amounts and percent bases from smaps, as "
				    "thpmaps does (slower; the default where PAGEMAP_SCAN "
				    "shows PMD mappings)", .type = CLI_FLAG, SC(o.use_smaps) },
		{ "threads", 0, "N", "workers per process (default: 2 on 2 or more CPUs)",
		  .type = CLI_INT, SC(o.nr_threads), .imin = 1, .imax = SCAN_MAX_THREADS },
		{ "tlb", 0, NULL, "also the TLB entries the memory needs on this CPU (model: "
				  "from the physical layout and the CPU's TLB geometry)",
		  .type = CLI_FLAG, SC(tlb_host) },
		TLB_OPT_ROWS(struct scan_cmd_opts, tlb),
		{ "presence", 0, "FILE",
		  "write the presence map of one --pid instead (mthpscope.presence/1, atomically; "
		  "'-': stdout): per PMD range of its anonymous memory the present pages, their "
		  "folio orders and PFNs, for 'collapse --replay'", .type = CLI_OUTPUT_FILE,
		  SC(presence) },
		CLI_END,
	},
};

/* ---- targets ---------------------------------------------------------- */

static struct scan_cmd_opts *walk_cmd; /* nftw has no context pointer */
static int walk_err;

static int on_cgroup_dir(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	char procs[PATH_MAX];
	FILE *f;
	int pid;

	(void)sb;
	(void)ftw;
	if (type != FTW_D)
		return 0;
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
	f = fopen(procs, "re");
	if (!f)
		return 0;
	while (fscanf(f, "%d", &pid) == 1)
		if (add_pid(walk_cmd, pid)) {
			walk_err = -ENOMEM;
			break;
		}
	fclose(f);
	return walk_err;
}

static int cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* A cgroup that is not there is a target that does not exist, as for --pid:
 * exit 1 (cgroups come and go as processes do). Returns an exit status. */
static int check_cgroup(const struct scan_cmd_opts *c)
{
	char procs[PATH_MAX];
	struct stat st;

	if (stat(c->cgroup, &st)) {
		ms_err("scan: no cgroup at '%s': %s (give a cgroup directory under "
		       "/sys/fs/cgroup)", c->cgroup, strerror(errno));
		return MS_EXIT_FAIL;
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", c->cgroup);
	if (!S_ISDIR(st.st_mode) || access(procs, F_OK)) {
		ms_err("scan: '%s' is not a cgroup directory (%s)", c->cgroup,
		       S_ISDIR(st.st_mode) ? "it has no cgroup.procs" : "not a directory");
		return MS_EXIT_FAIL;
	}
	if (access(procs, R_OK)) {
		ms_err("scan: cannot read %s: %s", procs, strerror(errno));
		return ms_exit_for_errno(-errno);
	}
	return MS_EXIT_OK;
}

static void pid_reason(int pid, int err, char *msg, size_t size)
{
	if (err == -EACCES)
		snprintf(msg, size, "permission denied reading its /proc/%d/smaps or pagemap", pid);
	else
		folio_strerror(err, msg, size);
}

/* A named process that cannot be scanned. Returns an exit status. */
static int pid_error(int pid, int err)
{
	char msg[256];

	pid_reason(pid, err, msg, sizeof(msg));
	ms_err("pid %d: %s", pid, msg);
	return err == -ESRCH ? MS_EXIT_FAIL : ms_exit_for_errno(err);
}

/* Targets that are not there fail before anything reaches stdout (no table
 * header, no "# sample" line). Returns an exit status. */
static int check_targets(const struct scan_cmd_opts *c)
{
	size_t i;
	int err;

	if (c->cgroup)
		return check_cgroup(c);
	for (i = 0; i < c->nr_pids; i++) {
		err = scan_process_exists(c->pids[i]);
		if (err)
			return pid_error(c->pids[i], err);
	}
	return MS_EXIT_OK;
}

/* The processes of this sample: named ones stay; the others are re-read. */
static int collect_pids(struct scan_cmd_opts *c)
{
	struct dirent *d;
	DIR *dir;
	int rc;

	if (c->pids_given)
		goto out;
	c->nr_pids = 0;
	if (c->cgroup) {
		rc = check_cgroup(c); /* again: it may have gone since the last sample */
		if (rc)
			return rc;
		walk_cmd = c;
		walk_err = 0;
		if (nftw(c->cgroup, on_cgroup_dir, 16, FTW_PHYS) || walk_err) {
			ms_err("reading cgroup '%s' failed", c->cgroup);
			return MS_EXIT_FAIL;
		}
		goto out;
	}
	dir = opendir("/proc");
	if (!dir) {
		ms_err("cannot list /proc: %s", strerror(errno));
		return MS_EXIT_FAIL;
	}
	while ((d = readdir(dir))) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		if (add_pid(c, (int)pid)) {
			closedir(dir);
			return MS_EXIT_FAIL;
		}
	}
	closedir(dir);
out:
	qsort(c->pids, c->nr_pids, sizeof(*c->pids), cmp_int);
	return MS_EXIT_OK;
}

/* ---- output ----------------------------------------------------------- */

struct sample {
	struct scan_cmd_opts *c;
	int pid;
	struct scan_stats rollup;
	/* --inc-smaps --rollup: each smaps field's sum, in the order first seen */
	unsigned long long smaps_kb[SCAN_NR_SMAPS];
	unsigned char smaps_field[SCAN_NR_SMAPS];
	int nr_smaps;
	struct layout_hist layout; /* --tlb: the sum over every VMA scanned */
	json_t *procs, *vmas, *skipped;
};

/* ---- the TLB model (--tlb) -------------------------------------------- */

/* The models and choices scan's TLB writers (scan_tlb.h) need. */
static struct scan_tlb_view tlb_view(const struct scan_cmd_opts *c)
{
	return (struct scan_tlb_view){ .models = c->models, .nr_models = c->nr_models,
				       .this_cpu = c->tlb_host, .inc_empty = c->inc_empty };
}

/* A label tools/mm/thpmaps prints too (scan_labels: all but the last three). */
static bool thpmaps_label(const char *name)
{
	return strcmp(name, "zero-page") && strcmp(name, "anon-ksm") && strcmp(name, "hugetlb");
}

/* One line as thpmaps prints it: the label padded to 32 columns, kB. */
static void print_kb(const char *label, unsigned long long kb)
{
	int pad = 32 - (int)strlen(label) - 1;

	printf("%s:%*s%8llu kB", label, pad > 0 ? pad : 0, "", kb);
}

/* --inc-smaps: the smaps fields (no percent: thpmaps' type None). */
static void print_smaps(const struct scan_cmd_opts *c, const unsigned long long *kb,
			const unsigned char *field, int nr)
{
	int k;

	for (k = 0; k < nr; k++) {
		if (!kb[field[k]] && !c->inc_empty)
			continue;
		print_kb(scan_smaps_names[field[k]], kb[field[k]]);
		putchar('\n');
	}
}

/* A VMA's smaps fields into the --rollup sums, new ones in the order seen. */
static void add_smaps(struct sample *s, const struct scan_vma *v)
{
	int k, j;

	for (k = 0; k < v->nr_smaps; k++) {
		int f = v->smaps_field[k];

		for (j = 0; j < s->nr_smaps && s->smaps_field[j] != f; j++)
			;
		if (j == s->nr_smaps)
			s->smaps_field[s->nr_smaps++] = (unsigned char)f;
		s->smaps_kb[f] += v->smaps_kb[f];
	}
}

static void print_labels(const struct scan_cmd_opts *c, const struct scan_stats *st)
{
	struct scan_label l[SCAN_MAX_LABELS];
	unsigned long long tot[2] = { scan_total_kb(st, &c->o, SCAN_ANON),
				      scan_total_kb(st, &c->o, SCAN_FILE) };
	int n = scan_labels(st, &c->o, l, SCAN_MAX_LABELS), i;

	for (i = 0; i < n; i++) {
		/* --inc-empty prints thpmaps' labels, as thpmaps --inc-empty does, byte
		 * for byte; ours (zero-page, anon-ksm, hugetlb) only when they hold memory */
		if (!l[i].kb && (!c->inc_empty || !thpmaps_label(l[i].name)))
			continue;
		print_kb(l[i].name, l[i].kb);
		if (l[i].type >= 0 && tot[l[i].type])
			/* the share first, then x100: thpmaps' rounding, to the digit */
			printf(" (%2.0f%%)", (double)l[i].kb / (double)tot[l[i].type] * 100.0);
		putchar('\n');
	}
}

static int on_vma(const struct scan_vma *v, void *arg)
{
	struct sample *s = arg;
	struct scan_cmd_opts *c = s->c;

	scan_stats_add(&s->rollup, &v->st);
	if (c->inc_smaps)
		add_smaps(s, v);
	if (c->o.layout && v->scanned && layout_hist_add(&s->layout, &v->layout))
		return -EINVAL;
	if (c->rollup)
		return 0;
	if (c->json) {
		json_t *j = scan_doc_vma(v, &c->o);

		if (c->o.layout && v->scanned)
			scan_tlb_json(tlb_view(c), &v->layout, j);
		json_array_append_new(s->vmas, j);
		return 0;
	}
	printf("%010d: %016lx-%016lx %s %08llx %02x:%02x %08llu %s\n", s->pid, v->start, v->end,
	       v->perms, v->pgoff, v->major, v->minor, v->inode, v->name);
	if (c->inc_smaps)
		print_smaps(c, v->smaps_kb, v->smaps_field, v->nr_smaps);
	if (v->scanned)
		print_labels(c, &v->st);
	if (v->scanned && c->o.layout)
		scan_tlb_write(tlb_view(c), &v->layout, stdout);
	return 0;
}

static void comm_of(int pid, char *buf, size_t size)
{
	char path[64];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* One pass over the targets. Returns an exit status. */
static int take_sample(struct scan_cmd_opts *c, json_t *samples, double t)
{
	struct sample s = { .c = c };
	char msg[256];
	size_t i;
	int rc;

	rc = collect_pids(c);
	if (rc)
		return rc;
	layout_hist_init(&s.layout, c->o.page_shift, c->o.pmd_order);
	if (c->json) {
		s.procs = json_array();
		s.skipped = json_array();
	} else if (!c->rollup) {
		printf("       PID             START              END PROT   OFFSET   DEV    INODE "
		       "OBJECT\n");
	}
	for (i = 0; i < c->nr_pids; i++) {
		int err;

		s.pid = c->pids[i];
		s.vmas = c->json && !c->rollup ? json_array() : NULL;
		err = scan_process(s.pid, &c->o, on_vma, &s);
		if (err) {
			json_decref(s.vmas);
			if (c->pids_given) {
				rc = pid_error(s.pid, err);
				goto out;
			}
			pid_reason(s.pid, err, msg, sizeof(msg));
			/* many processes: one that exits or hides is left out */
			if (!c->json && !c->rollup)
				fflush(stdout);
			ms_note("pid %d skipped: %s", s.pid, msg);
			if (c->json)
				json_array_append_new(s.skipped, scan_doc_skipped(s.pid, msg));
			continue;
		}
		if (s.vmas) {
			char comm[64];

			comm_of(s.pid, comm, sizeof(comm));
			json_array_append_new(s.procs, scan_doc_process(s.pid, comm, s.vmas));
		}
	}
	if (c->json) {
		json_t *j;

		if (c->rollup) {
			json_decref(s.procs);
			s.procs = NULL;
		}
		j = scan_doc_sample(t, s.procs, &s.rollup, &c->o, s.skipped);
		s.procs = s.skipped = NULL;
		if (c->o.layout)
			scan_tlb_json(tlb_view(c), &s.layout, json_object_get(j, "rollup"));
		json_array_append_new(samples, j);
	} else if (c->rollup) {
		if (c->inc_smaps)
			print_smaps(c, s.smaps_kb, s.smaps_field, s.nr_smaps);
		print_labels(c, &s.rollup);
	}
	if (!c->json && c->o.layout)
		scan_tlb_write_total(tlb_view(c), &s.layout, !c->rollup, stdout);
	rc = MS_EXIT_OK;
out:
	json_decref(s.procs);
	json_decref(s.skipped);
	return rc;
}


/* Options that exclude or need each other: an exit status or 0. */
static int check_opts(struct scan_cmd_opts *c)
{
	if (c->pids_given && c->cgroup) {
		ms_err("scan: --pid and --cgroup exclude each other");
		return MS_EXIT_USAGE;
	}
	if (c->presence && (c->nr_pids != 1 || c->cgroup || c->interval_ms || c->rollup ||
			    c->json || c->o.layout || c->count_given)) {
		ms_err("scan: --presence maps one --pid PID (no --cgroup, --interval, --count, "
		       "--rollup, --format json or --tlb)");
		return MS_EXIT_USAGE;
	}
	if (c->count_given && c->count > 1 && !c->interval_ms) {
		ms_err("scan: --count needs --interval");
		return MS_EXIT_USAGE;
	}
	if (c->interval_ms && !c->count_given) {
		if (c->json) {
			ms_err("scan: --format json with --interval needs --count (one document at "
			       "the end)");
			return MS_EXIT_USAGE;
		}
		c->count = 0; /* until interrupted */
	}
	return 0;
}

/* The models of --tlb (this CPU's, first) and of --tlb-model / --tlb-geometry.
 * Returns an exit status. */
static int pick_models(struct scan_cmd_opts *c, struct tlb_host *host)
{
	const struct tlb_geometry *g;

	if (!c->o.layout)
		return MS_EXIT_OK;
	tlb_host_describe(host);
	if (c->tlb_host) {
		g = tlb_host_geometry(host);
		if (!g) {
			ms_err("scan --tlb: no TLB geometry for this CPU (%s, family %d, model %d) "
			       "and CPUID gives none: name one with --tlb-model NAME "
			       "(--tlb-model list)", host->vendor, host->family, host->model);
			return MS_EXIT_ENV;
		}
		c->models[c->nr_models++] = g;
	}
	if (tlb_opt_given(&c->tlb)) {
		g = tlb_opt_pick(&c->tlb, "scan", host, NULL);
		if (!g)
			return MS_EXIT_ENV;
		if (!c->nr_models || g != c->models[0])
			c->models[c->nr_models++] = g;
	}
	return MS_EXIT_OK;
}

/* One sample, or a timeline of count (0: no end) every interval_ms. A
 * timeline ends at SIGINT or SIGTERM after the sample in progress, and the
 * document keeps the samples taken. 0 or an exit status. */
static int take_samples(struct scan_cmd_opts *c, json_t *samples)
{
	double t0 = cli_now_s();
	long k;
	int rc = 0;

	if (c->interval_ms)
		cli_catch_stops(true);
	for (k = 0; (!c->count || k < c->count) && !cli_stops; k++) {
		if (k) {
			cli_sleep_until(t0 + (double)k * (double)c->interval_ms / 1000.0);
			if (cli_stops)
				break;
			if (!c->json)
				putchar('\n');
		}
		if (!c->json && c->interval_ms)
			printf("# sample %ld, t=%.3f s\n", k, cli_now_s() - t0);
		rc = take_sample(c, samples, cli_now_s() - t0);
		if (rc)
			break;
		/* a reader that went away (| head) or a full disk ends the loop;
		 * main says why */
		if (!c->json && cli_stdout_error()) {
			rc = MS_EXIT_FAIL;
			break;
		}
	}
	if (!rc && cli_stops && k < c->count)
		ms_note("scan: interrupted: %ld of %ld samples taken", k, c->count);
	if (c->interval_ms)
		cli_catch_stops(false);
	return rc;
}

/* scan --presence FILE: the one process's map, written: an exit status. */
static int write_presence(const struct scan_cmd_opts *c)
{
	struct presence_doc d;
	char msg[256];
	int err, rc;

	if ((err = presence_doc_init(&d, (unsigned)sysconf(_SC_PAGESIZE)))) {
		ms_err("scan: --presence: pages of %ld bytes have no presence map",
		       sysconf(_SC_PAGESIZE));
		return MS_EXIT_ENV;
	}
	cli_presence_host(&d);
	if ((err = presence_capture(c->pids[0], &d))) {
		folio_strerror(err, msg, sizeof(msg));
		if (err == -ENODATA) /* was "no such process" of a live kernel thread */
			snprintf(msg, sizeof(msg), "no memory map (a kernel thread, or a process "
				 "that has exited and not been reaped)");
		ms_err("scan: --presence: pid %d: %s", c->pids[0], msg);
		rc = err == -ESRCH ? MS_EXIT_FAIL : ms_exit_for_errno(err);
	} else {
		rc = cli_write_presence("scan", c->presence, &d, "");
	}
	presence_doc_free(&d);
	return rc;
}

static int scan_cmd(int argc, char **argv)
{
	struct scan_cmd_opts c = { .count = 1, .format = REPORT_TEXT };
	struct tlb_host host;
	struct folio_probe p;
	json_t *doc = NULL, *samples = NULL;
	char msg[256];
	int rc;

	scan_opts_init(&c.o);
	rc = cli_parse(&scan_cli, argc, argv, &c);
	if (rc == CLI_DONE)
		goto out;
	if (rc < 0) {
		rc = MS_EXIT_USAGE;
		goto out;
	}
	if (rc < argc) {
		ms_err("scan: unexpected argument '%s'", argv[rc]);
		rc = MS_EXIT_USAGE;
		goto out;
	}
	c.json = c.format == REPORT_JSON;
	c.o.use_smaps |= c.inc_smaps; /* the fields come from smaps */
	c.o.layout = c.tlb_host || c.tlb.model || c.tlb.have_user;
	rc = tlb_opt_done(&c.tlb, c.json) ? CLI_DONE : pick_models(&c, &host);
	if (rc)
		goto out;
	if ((rc = check_opts(&c)))
		goto out;
	if (folio_probe(&p) || !p.pfns_visible || !p.kpageflags_readable) {
		ms_err("scan: %s", p.reason[0] ? p.reason : "pagemap cannot be read");
		folio_strerror(-EPERM, msg, sizeof(msg));
		if (p.pagemap_readable && !p.pfns_visible)
			ms_note("%s", msg);
		rc = MS_EXIT_ENV;
		goto out;
	}
	rc = check_targets(&c);
	if (rc)
		goto out;
	if (c.presence) {
		if (!(rc = cli_check_outputs(&scan_cli, &c)))
			rc = write_presence(&c);
		goto out;
	}
	if (c.json)
		doc = scan_doc_new(&c.o, c.interval_ms, &samples);
	if ((rc = take_samples(&c, samples)))
		goto out;
	if (c.json) {
		if (json_dumpf(doc, stdout, JSON_INDENT(2)) || putchar('\n') == EOF) {
			cli_stdout_error(); /* now, while errno says why */
			rc = MS_EXIT_FAIL;
			goto out;
		}
	}
	rc = MS_EXIT_OK;
out:
	json_decref(samples);
	json_decref(doc);
	free(c.pids);
	tlb_opt_release(&c.tlb);
	return rc == CLI_DONE ? MS_EXIT_OK : rc;
}

MS_COMMAND(scan, "which folio orders back processes' memory (thpmaps labels)");
