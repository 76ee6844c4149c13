// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `mthpscope run` end to end, with the built binary ($MTHPSCOPE_BIN): the
 * results file round-trips through the reader, every THP knob is as before,
 * bad input gets its exit status, SIGINT leaves no results file.
 * Writes THP knobs: MTHPSCOPE_TEST_WRITES_THP.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "counters.h"
#include "harness.h"
#include "mthpscope.h"
#include "commands.h"
#include "results.h"
#include "thp.h"

static const char *bin(void)
{
	const char *b = getenv("MTHPSCOPE_BIN");

	if (!b || access(b, X_OK))
		SKIP("MTHPSCOPE_BIN is not set to the built binary");
	return b;
}

static char tmpdir[64];

static void make_tmpdir(void)
{
	harness_tmpdir(tmpdir, sizeof(tmpdir), "run");
}

/* Files left in tmpdir other than 'keep' (temporary files of an atomic write
 * would show here). */
static int stray_files(const char *keep)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || (keep && !strcmp(e->d_name, keep)))
			continue;
		printf("  stray file: %s\n", e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

/* Start the binary with argv (NULL-terminated, argv[0] ignored); stderr to
 * 'errfile' when not NULL, stdout to /dev/null. uid > 0: drop to it first. */
static pid_t start(char *const argv[], const char *errfile, uid_t uid)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		if (errfile) {
			int e = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0666);
			dup2(e, 2);
		}
		if (uid && (setgid(uid) || setuid(uid)))
			_exit(126);
		execv(bin(), argv);
		_exit(127);
	}
	return pid;
}

static int run_status(char *const argv[], const char *errfile, uid_t uid)
{
	int st;
	pid_t pid = start(argv, errfile, uid);

	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static bool file_contains(const char *path, const char *needle)
{
	char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return strstr(buf, needle) != NULL;
}

/* The knobs a run may touch, read while holding the mthpscope lock so that no
 * other instance is half-way through its own changes. */
static void knobs(struct thp_settings *s)
{
	char msg[256];
	int err = thp_journal_begin();

	if (err) {
		thp_strerror(err, msg, sizeof(msg));
		SKIP("cannot take the THP lock: %s", msg);
	}
	ASSERT_EQ(thp_read(s), 0);
	thp_restore();
}

static void expect_same_knobs(const struct thp_settings *a, const struct thp_settings *b)
{
	int i;

	EXPECT_EQ(a->enabled, b->enabled);
	EXPECT_EQ(a->defrag, b->defrag);
	EXPECT_EQ(a->shmem_enabled, b->shmem_enabled);
	ASSERT_EQ(a->nr_sizes, b->nr_sizes);
	for (i = 0; i < a->nr_sizes; i++) {
		EXPECT_EQ(a->sizes[i].order, b->sizes[i].order);
		EXPECT_EQ(a->sizes[i].enabled, b->sizes[i].enabled);
		EXPECT_EQ(a->sizes[i].shmem_enabled, b->sizes[i].shmem_enabled);
	}
	EXPECT_EQ(a->khugepaged.defrag, b->khugepaged.defrag);
	EXPECT_EQ(a->khugepaged.max_ptes_none, b->khugepaged.max_ptes_none);
	EXPECT_EQ(a->khugepaged.max_ptes_swap, b->khugepaged.max_ptes_swap);
	EXPECT_EQ(a->khugepaged.max_ptes_shared, b->khugepaged.max_ptes_shared);
	EXPECT_EQ(a->khugepaged.pages_to_scan, b->khugepaged.pages_to_scan);
	EXPECT_EQ(a->khugepaged.scan_sleep_millisecs, b->khugepaged.scan_sleep_millisecs);
	EXPECT_EQ(a->khugepaged.alloc_sleep_millisecs, b->khugepaged.alloc_sleep_millisecs);
}

static void require_root(void)
{
	if (geteuid() != 0)
		SKIP("needs root");
}

TEST(results_round_trip_and_knobs_unchanged)
{
	struct thp_settings before, after;
	struct results *res = NULL;
	char out[128], err[512], errfile[128];
	int last_order = -1, same_in_a_row = 0, o;
	size_t i, main_trials = 0, sparse_trials = 0;

	require_root();
	bin();
	make_tmpdir();
	snprintf(out, sizeof(out), "%s/r.json", tmpdir);
	snprintf(errfile, sizeof(errfile), "%s.err", tmpdir);
	knobs(&before);
	{
		char *argv[] = { "mthpscope", "run",       "--orders", "0,2,4,9", "--reps", "3",
				 "--span",    "8M",        "--accesses", "200000", "--sparse", "64",
				 "--seed",    "5",         "-o",       out,       NULL };
		int rc = run_status(argv, errfile, 0);
		if (rc != 0) {
			char cmd[256];
			snprintf(cmd, sizeof(cmd), "cat %s", errfile);
			if (system(cmd)) {
			}
		}
		ASSERT_EQ(rc, 0);
	}
	unlink(errfile);
	knobs(&after);
	expect_same_knobs(&before, &after);
	EXPECT_EQ(stray_files("r.json"), 0);

	ASSERT_EQ(results_load(out, &res, err, sizeof(err)), 0);
	EXPECT_EQ(res->config_reps, 3);
	EXPECT_EQ(res->config_seed, 5);
	EXPECT_STREQ(res->config_pattern, "chase-tlb");
	for (i = 0; i < res->nr_trials; i++) {
		const struct results_trial *t = &res->trials[i];
		const struct results_metric *m;
		unsigned long long folio = 4096ULL << t->order;

		EXPECT_EQ(t->span, 8ULL << 20);
		if (t->sparse) {
			sparse_trials++;
			m = results_trial_metric(t, "rss_bytes");
			ASSERT_TRUE(m != NULL);
			EXPECT_STREQ(m->source, "kernel");
			/* 2048 pages, one in 64 touched: 32 folios (order <= 6) */
			EXPECT_EQ(m->value, 32 * (folio < 64 * 4096 ? folio : 64 * 4096));
			continue;
		}
		main_trials++;
		EXPECT_STREQ(t->pattern, "chase-tlb");
		EXPECT_EQ(t->accesses, 200000);
		EXPECT_TRUE(t->has_folios);
		EXPECT_NEAR(t->coverage, 1.0, 0.05);
		EXPECT_TRUE(t->hist[t->order] > 0);
		m = results_trial_metric(t, "ns_per_access");
		ASSERT_TRUE(m != NULL);
		EXPECT_STREQ(m->source, "timing");
		EXPECT_TRUE(m->value > 0);
		m = results_trial_metric(t, "page_faults");
		if (m) {
			EXPECT_STREQ(m->source, "sw");
			EXPECT_TRUE(m->value >= (double)((8ULL << 20) / folio));
			EXPECT_TRUE(m->value <= (double)((8ULL << 20) / folio) + 8);
		}
		if (t->order) {
			m = results_trial_metric(t, "anon_fault_alloc");
			ASSERT_TRUE(m != NULL);
			EXPECT_STREQ(m->source, "kernel");
		}
		/* interleaved: never the same order twice in a row */
		o = t->order;
		if (o == last_order)
			same_in_a_row++;
		last_order = o;
	}
	EXPECT_EQ(main_trials, 12);
	EXPECT_EQ(sparse_trials, 12);
	EXPECT_EQ(same_in_a_row, 0);
	results_free(res);
	unlink(out);
	rmdir(tmpdir);
}

/* Every kernel runs under the runner, each trial verified at its order. */
TEST(every_pattern_runs)
{
	static const char *const pats[] = { "chase-tlb", "chase-mem", "random", "stream", "store" };
	struct results *res = NULL;
	char out[128], err[512];
	int seen[5] = { 0 };
	size_t i, j;

	require_root();
	bin();
	make_tmpdir();
	snprintf(out, sizeof(out), "%s/p.json", tmpdir);
	{
		char *argv[] = { "mthpscope", "run", "--orders", "0,4", "--reps", "1", "--span", "4M",
				 "--accesses", "20000", "--sparse", "0", "--pattern",
				 "chase-tlb,chase-mem,random,stream,store", "-o", out, NULL };
		ASSERT_EQ(run_status(argv, "/dev/null", 0), 0);
	}
	ASSERT_EQ(results_load(out, &res, err, sizeof(err)), 0);
	EXPECT_EQ(res->nr_trials, 10);
	for (i = 0; i < res->nr_trials; i++) {
		const struct results_trial *t = &res->trials[i];
		for (j = 0; j < 5; j++)
			if (!strcmp(t->pattern, pats[j]))
				seen[j]++;
		EXPECT_TRUE(t->has_folios);
		EXPECT_NEAR(t->coverage, 1.0, 0.05);
		EXPECT_EQ(t->accesses, 20000);
		EXPECT_TRUE(results_trial_metric(t, "ns_per_access") != NULL);
		EXPECT_TRUE(results_trial_metric(t, "rss_bytes") == NULL); /* --sparse 0 */
	}
	for (j = 0; j < 5; j++)
		EXPECT_EQ(seen[j], 2);
	results_free(res);
	unlink(out);
	rmdir(tmpdir);
}

static void expect_exit(int want, const char *needle, char *const argv[], uid_t uid)
{
	char errfile[] = "/tmp/mthpscope-run-err-XXXXXX";
	int fd = mkstemp(errfile), rc;

	ASSERT_TRUE(fd >= 0);
	close(fd);
	chmod(errfile, 0666);
	rc = run_status(argv, errfile, uid);
	if (rc != want || (needle && !file_contains(errfile, needle))) {
		char cmd[128];
		FAIL_AT("%s %s: exit %d (want %d), stderr should contain '%s':", argv[1],
			argv[2] ? argv[2] : "", rc, want, needle ? needle : "");
		snprintf(cmd, sizeof(cmd), "cat %s", errfile);
		if (system(cmd)) {
		}
	}
	unlink(errfile);
}

TEST(bad_input_exit_statuses)
{
	struct thp_settings s;
	char *orders1[] = { "mthpscope", "run", "--orders", "1", NULL };
	char *orders_bad[] = { "mthpscope", "run", "--orders", "x", NULL };
	char *pattern[] = { "mthpscope", "run", "--pattern", "nope", NULL };
	char *span_odd[] = { "mthpscope", "run", "--span", "3M", NULL };
	char *sweep[] = { "mthpscope", "run", "--sweep", "8M:4M", NULL };
	char *reps[] = { "mthpscope", "run", "--reps", "0", NULL };
	char *extra[] = { "mthpscope", "run", "stray", NULL };
	char *backend[] = { "mthpscope", "run", "--backend", "magic", NULL };

	bin();
	if (thp_read(&s))
		SKIP("no THP sysfs");
	/* the message lists what is supported */
	expect_exit(MS_EXIT_USAGE, "supported orders: 0 ", orders1, 0);
	expect_exit(MS_EXIT_USAGE, "--orders", orders_bad, 0);
	expect_exit(MS_EXIT_USAGE, "chase-tlb", pattern, 0);
	expect_exit(MS_EXIT_USAGE, "not a multiple of the PMD size", span_odd, 0);
	expect_exit(MS_EXIT_USAGE, "--sweep", sweep, 0);
	expect_exit(MS_EXIT_USAGE, "--reps", reps, 0);
	expect_exit(MS_EXIT_USAGE, "unexpected argument", extra, 0);
	expect_exit(MS_EXIT_USAGE, "--backend", backend, 0);
	{
		char *p0[] = { "mthpscope", "run", "--precision", "0", NULL };
		char *pword[] = { "mthpscope", "run", "--precision", "three", NULL };
		char *pquick[] = { "mthpscope", "run", "--precision", "3", "--quick", NULL };
		char *preps[] = { "mthpscope", "run", "--precision", "3", "--reps", "5", NULL };
		char *mt[] = { "mthpscope", "run", "--max-time", "60", NULL };
		char *mt0[] = { "mthpscope", "run", "--precision", "3", "--max-time", "0", NULL };
		char *pseq[] = { "mthpscope", "run", "--precision", "3", "--schedule",
				 "sequential", NULL };
		char *pcmd[] = { "mthpscope", "run", "--precision", "3", "--", "true", NULL };
		char *pone[] = { "mthpscope", "run", "--precision", "3", "--orders", "0", NULL };

		expect_exit(MS_EXIT_USAGE, "invalid --precision value '0'", p0, 0);
		expect_exit(MS_EXIT_USAGE, "invalid --precision value 'three'", pword, 0);
		expect_exit(MS_EXIT_USAGE, "it excludes --quick", pquick, 0);
		expect_exit(MS_EXIT_USAGE, "it excludes --reps", preps, 0);
		expect_exit(MS_EXIT_USAGE, "--max-time applies to --precision only", mt, 0);
		expect_exit(MS_EXIT_USAGE, "invalid --max-time value '0'", mt0, 0);
		expect_exit(MS_EXIT_USAGE, "not to --schedule sequential", pseq, 0);
		expect_exit(MS_EXIT_USAGE, "not to a command", pcmd, 0);
		expect_exit(MS_EXIT_USAGE, "needs 0 and at least one other order", pone, 0);
	}
}

TEST(environment_refusals_before_measuring)
{
	char *huge[] = { "mthpscope", "run", "--span", "128G", NULL };
	char *unwritable[] = { "mthpscope", "run", "-o", "/nonexistent-dir/r.json", NULL };
	char *plain[] = { "mthpscope", "run", "--quick", NULL };
	struct timespec t0, t1;
	struct stat st;

	require_root();
	bin();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	expect_exit(MS_EXIT_ENV, "MemAvailable", huge, 0);
	expect_exit(MS_EXIT_ENV, "cannot write", unwritable, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* refused before anything was mapped or measured */
	EXPECT_TRUE(t1.tv_sec - t0.tv_sec < 3);
	/* no PMU here (a VM): --backend pmu is refused, not faked */
	if (counters_probe_hw() != 0) {
		char *pmu[] = { "mthpscope", "run", "--backend", "pmu", "--quick", NULL };
		expect_exit(MS_EXIT_ENV, "--backend pmu", pmu, 0);
	}
	/* not root: the binary must be reachable by 'nobody' */
	if (stat(bin(), &st) == 0 && (st.st_mode & S_IXOTH))
		expect_exit(MS_EXIT_ENV, "root", plain, 65534);
	else
		printf("  (not-root case not checked: the binary is not world-executable)\n");
}

/* SIGINT mid-run: the knobs are put back, no temporary file is left, and
 * the process ends of the signal; what was measured by then is written,
 * marked interrupted (before 2026-12-05 nothing was: this test said so;
 * tests/test_run_schedule.sh waits for trials before it signals). */
TEST(sigint_writes_what_was_measured_and_restores_knobs)
{
	struct thp_settings before, after;
	struct results *res = NULL;
	char out[128], err[256];
	int st, i;
	pid_t pid;

	require_root();
	bin();
	make_tmpdir();
	snprintf(out, sizeof(out), "%s/r.json", tmpdir);
	knobs(&before);
	{
		char *argv[] = { "mthpscope", "run", "--orders", "0,9", "--reps", "50",
				 "--span", "8M", "--accesses", "2000000", "-o", out, NULL };
		pid = start(argv, "/dev/null", 0);
	}
	ASSERT_TRUE(pid > 0);
	/* wait until it holds the lock (it has changed the knobs), then a bit */
	for (i = 0; i < 600 && thp_lock_holder() != pid; i++)
		usleep(50 * 1000);
	if (thp_lock_holder() != pid) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		SKIP("the run never took the THP lock (another instance held it)");
	}
	usleep(700 * 1000);
	kill(pid, SIGINT);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT);
	EXPECT_EQ(stray_files("r.json"), 0);
	if (access(out, F_OK)) {
		printf("  no trial had ended at the signal: nothing written\n");
	} else {
		ASSERT_EQ(results_load(out, &res, err, sizeof(err)), 0);
		printf("  %zu trials written\n", res->nr_trials);
		EXPECT_TRUE(res->head.interrupted);
		EXPECT_TRUE(res->nr_trials >= 1 && res->nr_trials < 2 * 50);
		results_free(res);
		unlink(out);
	}
	knobs(&after);
	expect_same_knobs(&before, &after);
	rmdir(tmpdir);
}

/* run --precision with the given target and --max-time (NULL: default) to
 * completion; its document loaded into *res. */
static void precision_run(const char *p, const char *max_time, struct results **res)
{
	char out[160], err[512], errfile[160];
	char *argv[] = { "mthpscope", "run", "--orders", "0,9", "--span", "8M", "--accesses",
			 "200000", "--precision", (char *)p, "-o", out,
			 max_time ? "--max-time" : NULL, (char *)max_time, NULL };
	int rc;

	snprintf(out, sizeof(out), "%s/p.json", tmpdir);
	snprintf(errfile, sizeof(errfile), "%s/p.err", tmpdir);
	rc = run_status(argv, errfile, 0);
	if (rc) {
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "cat %s", errfile);
		if (system(cmd)) {
		}
	}
	ASSERT_EQ(rc, 0);
	ASSERT_EQ(results_load(out, res, err, sizeof(err)), 0);
	ASSERT_TRUE((*res)->head.has_precision);
	unlink(out);
	unlink(errfile);
}

/* The rounds analyze pairs between order 0 and `order` (analyze.c's
 * pairs_build): per rep, the dense trials' rounds where both values are
 * positive; a round disturbed on a busy host (steal) holds none. */
static long paired_rounds(const struct results *r, int order)
{
	long n = 0;

	for (size_t i = 0; i < r->nr_trials; i++) {
		const struct results_trial *t = &r->trials[i];

		if (t->order != order || t->sparse)
			continue;
		for (size_t j = 0; j < r->nr_trials; j++) {
			const struct results_trial *b = &r->trials[j];
			size_t m = t->nr_rounds < b->nr_rounds ? t->nr_rounds : b->nr_rounds;

			if (b->order || b->sparse || b->rep != t->rep)
				continue;
			for (size_t k = 0; k < m; k++)
				n += t->rounds[k] > 0.0 && b->rounds[k] > 0.0;
			break;
		}
	}
	return n;
}

/* A target any CI meets stops at the first look (10 reps); a budget that
 * allows one rep stops on time, the target not reached. */
TEST(precision_stops_at_first_look_or_on_time)
{
	struct thp_settings before, after;
	const struct results_precision *p;
	struct results *res = NULL;

	require_root();
	bin();
	make_tmpdir();
	knobs(&before);
	precision_run("100", NULL, &res);
	p = &res->head.precision;
	EXPECT_TRUE(p->reached);
	EXPECT_EQ(p->stop, RESULTS_PREC_REACHED);
	EXPECT_NEAR(p->target, 1.0, 1e-12);
	EXPECT_EQ(p->reps, 10);
	EXPECT_EQ(res->config_reps, 10);
	EXPECT_EQ(p->looks, 1);
	EXPECT_TRUE(p->planned_looks >= 2);
	EXPECT_NEAR(p->level, 1 - 0.05 / p->planned_looks, 1e-12);
	EXPECT_EQ(p->order, 9); /* the only order besides 0 */
	/* every paired round, not 10 x a trial's: a disturbed round pairs none */
	EXPECT_EQ(p->rounds, paired_rounds(res, 9));
	EXPECT_TRUE(p->rounds > 0 && p->rounds <= 10L * (long)res->trials[0].nr_rounds);
	EXPECT_TRUE(p->half_width <= 1.0);
	EXPECT_NEAR(p->max_time_s, 300, 1e-9);
	EXPECT_EQ(res->nr_trials, 2 * 2 * 10); /* 2 orders, a sparse trial each, 10 reps */
	results_free(res);
	res = NULL;

	precision_run("0.01", "0.001", &res);
	p = &res->head.precision;
	EXPECT_TRUE(!p->reached);
	EXPECT_EQ(p->stop, RESULTS_PREC_MAX_TIME);
	EXPECT_EQ(p->reps, 1);
	EXPECT_EQ(p->looks, 1);
	EXPECT_EQ(p->planned_looks, 1);
	EXPECT_NEAR(p->level, 0.95, 1e-12);
	EXPECT_TRUE(p->half_width > 0.0001);
	results_free(res);
	knobs(&after);
	expect_same_knobs(&before, &after);
	EXPECT_EQ(stray_files(NULL), 0);
	rmdir(tmpdir);
}

/* SIGINT during a precision run: the rep in progress ends, the document is
 * written with the target not reached, the knobs are put back, exit 0. */
TEST(precision_sigint_writes_the_document)
{
	struct thp_settings before, after;
	struct results *res = NULL;
	char out[128], err[512];
	int st, i;
	pid_t pid;

	require_root();
	bin();
	make_tmpdir();
	snprintf(out, sizeof(out), "%s/r.json", tmpdir);
	knobs(&before);
	{
		char *argv[] = { "mthpscope", "run", "--orders", "0,9", "--span", "8M",
				 "--accesses", "2000000", "--precision", "0.01", "-o", out, NULL };
		pid = start(argv, "/dev/null", 0);
	}
	ASSERT_TRUE(pid > 0);
	for (i = 0; i < 600 && thp_lock_holder() != pid; i++)
		usleep(50 * 1000);
	if (thp_lock_holder() != pid) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		SKIP("the run never took the THP lock (another instance held it)");
	}
	usleep(1500 * 1000);
	kill(pid, SIGINT);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ASSERT_EQ(results_load(out, &res, err, sizeof(err)), 0);
	ASSERT_TRUE(res->head.has_precision);
	EXPECT_EQ(res->head.precision.stop, RESULTS_PREC_INTERRUPTED);
	EXPECT_TRUE(!res->head.precision.reached);
	EXPECT_TRUE(res->head.precision.reps >= 1);
	EXPECT_EQ(res->config_reps, res->head.precision.reps);
	results_free(res);
	unlink(out);
	EXPECT_EQ(stray_files(NULL), 0);
	knobs(&after);
	expect_same_knobs(&before, &after);
	rmdir(tmpdir);
}

HARNESS_MAIN
