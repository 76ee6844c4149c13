// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `mthpscope record` end to end with the built binary ($MTHPSCOPE_BIN) and
 * tests/helper_record: per-VMA folio orders of sampled page faults (64 MiB
 * at order 0, 64 MiB at order 4), --pid on a live process, bad input
 * (events, pids, a failing command, SIGINT, a full disk).
 * Writes THP knobs: MTHPSCOPE_TEST_WRITES_THP.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>

#include "harness.h"
#include "record_doc.h"
#include "thp.h"

static const char *bin(void)
{
	const char *b = getenv("MTHPSCOPE_BIN");

	if (!b || access(b, X_OK))
		SKIP("MTHPSCOPE_BIN is not set to the built binary");
	return b;
}

static const char *helper(void)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%.4000s", bin());
	*strrchr(path, '/') = '\0';
	strcat(path, "/tests/helper_record");
	if (access(path, X_OK))
		SKIP("no %s", path);
	return path;
}

static char tmpdir[64];

static void make_tmpdir(void)
{
	harness_tmpdir(tmpdir, sizeof(tmpdir), "record");
}

static void need_root(void)
{
	if (geteuid())
		SKIP("record reads PFNs: needs root");
}

/* Start the binary with argv (argv[0] ignored): stdout to 'out', stderr to
 * 'err' (NULL: /dev/null). */
static pid_t start(char *const argv[], const char *out, const char *err, uid_t uid)
{
	pid_t pid = fork();

	if (pid == 0) {
		int o = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0666);
		int e = open(err ? err : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0666);

		dup2(o, 1);
		dup2(e, 2);
		if (uid && (setgid(uid) || setuid(uid)))
			_exit(126);
		execv(bin(), argv);
		_exit(127);
	}
	return pid;
}

static int wait_status(pid_t pid)
{
	int st;

	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int run(char *const argv[], const char *out, const char *err)
{
	return wait_status(start(argv, out, err, 0));
}

static bool file_contains(const char *path, const char *needle)
{
	char buf[16384];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return strstr(buf, needle) != NULL;
}

static void load(const char *path, struct record_doc *d)
{
	char err[512];
	int rc = record_doc_load(path, d, err, sizeof(err));

	if (rc)
		printf("  %s\n", err);
	ASSERT_EQ(rc, 0);
}

/* The row of the VMA holding addr. */
static const struct record_vma *vma_at(const struct record_doc *d, unsigned long long addr)
{
	size_t i;

	for (i = 0; i < d->nr_vmas; i++)
		if (addr >= d->vmas[i].start && addr < d->vmas[i].end)
			return &d->vmas[i];
	return NULL;
}

static void path_in(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

/* The acceptance: record -e page-faults -c 1 of 64 MiB faulted at
 * order 0 and 64 MiB at order 4 gives >= 16384 order-0 samples on the
 * first VMA and 1024 (+-2 %) order-4 samples on the second. */
TEST(orders_per_vma)
{
	char out[128], doc[128], err[128], line[256];
	char *argv[] = { "mthpscope", "record", "-e", "page-faults", "-c", "1", "-o", doc, "--",
			 (char *)helper(), NULL };
	unsigned long long small = 0, large = 0;
	const struct record_vma *a, *b;
	struct thp_settings s;
	struct record_doc d;
	char msg[256];
	FILE *f;
	int rc;

	need_root();
	make_tmpdir();
	path_in(out, sizeof(out), "out");
	path_in(doc, sizeof(doc), "r.json");
	path_in(err, sizeof(err), "err");
	if ((rc = thp_journal_begin())) {
		thp_strerror(rc, msg, sizeof(msg));
		SKIP("cannot take the THP lock: %s", msg);
	}
	if (thp_read(&s) || !thp_size_by_order(&s, 4)) {
		thp_restore();
		SKIP("no anon mTHP size of order 4");
	}
	rc = thp_set_only_order(&s, 4);
	if (!rc)
		rc = run(argv, out, err);
	ASSERT_EQ(thp_restore(), 0);
	ASSERT_EQ(rc, 0);
	/* the command's stdout is its own: the addresses, no report */
	f = fopen(out, "r");
	ASSERT_TRUE(f && fgets(line, sizeof(line), f));
	fclose(f);
	ASSERT_EQ(sscanf(line, "small %llx large %llx", &small, &large), 2);
	EXPECT_TRUE(!file_contains(out, "record:"));
	EXPECT_TRUE(file_contains(err, "samples"));
	load(doc, &d);
	a = vma_at(&d, small);
	b = vma_at(&d, large);
	ASSERT_TRUE(a && b);
	printf("  order-0 VMA: %llu samples, %llu at order 0; order-4 VMA: %llu samples, %llu at "
	       "order 4\n", a->s.samples, a->s.order[0], b->s.samples, b->s.order[4]);
	EXPECT_TRUE(a->s.order[0] >= 16384);
	EXPECT_TRUE(b->s.order[4] >= 1004 && b->s.order[4] <= 1044);
	EXPECT_EQ(b->s.order[0], 0);
	EXPECT_TRUE(a->mem.scanned && a->mem.pages[0] == 16384);
	EXPECT_TRUE(b->mem.scanned && b->mem.pages[4] == 16384);
	EXPECT_TRUE(d.outcome.has_exit && d.outcome.exit_code == 0);
	EXPECT_TRUE(d.nr_windows > 0);
	record_doc_free(&d);
}

/* helper_record ARGS (at most 4) pidfile=..., its stdout to HOUT, started
 * and waited for until its pidfile says it is ready; its pid. */
static pid_t pid_helper(const char *hout, const char *const args[])
{
	char pidfile[128], pf[160];
	char *argv[8] = { "helper_record" };
	int pid = 0, i, n = 1;
	pid_t h;
	FILE *f;

	path_in(pidfile, sizeof(pidfile), "pid");
	snprintf(pf, sizeof(pf), "pidfile=%s", pidfile);
	while (*args && n < 5)
		argv[n++] = (char *)*args++;
	argv[n++] = pf;
	argv[n] = NULL;
	h = fork();
	if (h == 0) {
		int o = open(hout, O_WRONLY | O_CREAT | O_TRUNC, 0666);

		dup2(o, 1);
		execv(helper(), argv);
		_exit(127);
	}
	for (i = 0; i < 500 && !pid; i++) {
		usleep(10000);
		if ((f = fopen(pidfile, "r"))) {
			if (fscanf(f, "%d", &pid) != 1)
				pid = 0;
			fclose(f);
		}
	}
	if (pid != h) {
		kill(h, SIGKILL);
		waitpid(h, NULL, 0);
		return -1;
	}
	return h;
}

/* In a new tmpdir: helper_record ARGS (pidfile=... added), its stdout in
 * tmpdir/hout, recorded with -c 1 --pid for SECONDS (NULL: to its end)
 * into tmpdir/p.json (record's stderr to tmpdir/herr), with the record
 * options OPTS (NULL: none, at most 6) and ENV ("NAME=VALUE", NULL: none)
 * in record's environment: record's exit status; *pid the helper's, still
 * to be waited for. */
static int record_pid(const char *const args[], const char *seconds, const char *const opts[],
		      const char *env, pid_t *pid)
{
	char doc[128], hout[128], herr[128], pidarg[16], name[64] = "";
	char *argv[18] = { "mthpscope", "record", "-c", "1", "--pid", pidarg, "-o", doc };
	int n = 8, rc;

	if (seconds) {
		argv[n++] = "--duration";
		argv[n++] = (char *)seconds;
	}
	while (opts && *opts && n < 16)
		argv[n++] = (char *)*opts++;
	make_tmpdir();
	path_in(doc, sizeof(doc), "p.json");
	path_in(hout, sizeof(hout), "hout");
	path_in(herr, sizeof(herr), "herr");
	if ((*pid = pid_helper(hout, args)) <= 0)
		return -1;
	snprintf(pidarg, sizeof(pidarg), "%d", (int)*pid);
	if (env) {
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(env, "="), env);
		setenv(name, env + strlen(name) + 1, 1);
	}
	rc = run(argv, NULL, herr);
	if (env)
		unsetenv(name);
	return rc;
}

/* --pid: a running process sampled for a second, left running unharmed. */
TEST(pid_duration)
{
	const char *args[] = { "mib=8", "spin=3000", "churn=1", NULL };
	char doc[128], hout[128];
	struct record_doc d;
	pid_t h;
	int st;

	need_root();
	EXPECT_EQ(record_pid(args, "1", NULL, NULL, &h), 0);
	ASSERT_TRUE(h > 0);
	path_in(doc, sizeof(doc), "p.json");
	path_in(hout, sizeof(hout), "hout");
	EXPECT_EQ(kill(h, 0), 0); /* still running after the recording */
	ASSERT_EQ(waitpid(h, &st, 0), h);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	EXPECT_TRUE(file_contains(hout, "spun "));
	load(doc, &d);
	printf("  %llu samples in 1 s of --pid, %llu after the process ended\n", d.total.samples,
	       d.outcome.process_gone);
	EXPECT_TRUE(d.total.samples > 100);
	EXPECT_EQ(d.config.pid, h);
	EXPECT_TRUE(!d.outcome.target_gone);
	/* the rings stop before the last scan: nothing after it (the old
	 * code scanned first: 5 to 254 samples "after the process ended") */
	EXPECT_EQ(d.outcome.process_gone, 0);
	/* The accounting, on any host: every sample the kernel took (the
	 * counter beside the rings, -c 1) is read or counted lost. The counters
	 * stop with the rings, so none is "lost" while the target ran on
	 * through the last drains (139-317 when they counted on): read + lost
	 * is the count exactly when some were lost, and at least the count (a
	 * sample taken between the two stops is read, not counted) when none
	 * were. A fast host loses some at -c 1 (59017 of 313519 on a Zen 4
	 * VM): never silently, stderr gives the count and a -c. */
	ASSERT_TRUE(d.outcome.has_taken);
	printf("  taken %llu, read %llu, lost %llu\n", d.outcome.taken, d.total.samples,
	       d.outcome.lost);
	if (d.outcome.lost) {
		char herr[128], said[96];

		EXPECT_EQ(d.total.samples + d.outcome.lost, d.outcome.taken);
		path_in(herr, sizeof(herr), "herr");
		snprintf(said, sizeof(said), "%llu of the %llu samples the kernel took were lost",
			 d.outcome.lost, d.outcome.taken);
		EXPECT_TRUE(file_contains(herr, said));
		EXPECT_TRUE(file_contains(herr, " would leave it half free"));
	} else {
		EXPECT_TRUE(d.total.samples >= d.outcome.taken);
		EXPECT_TRUE(d.total.samples <= d.outcome.taken + 64);
	}
	record_doc_free(&d);
}

static const char *helper_line(const char *out, const char *key);

/* --pid with a one-page ring: 800 threads write 6400 pages in a burst, and
 * each sample is either read or counted lost, exactly (a counter over the
 * threads; the kernel's LOST records count every record that had no
 * room, forks and exits too: samples + lost were 7332-7423 where perf stat
 * -p counted 6409-6411; and the ring's last overflow has no LOST record). */
TEST(pid_lost_is_exact)
{
	const char *args[] = { "mib=1", "nothp=1", "burst=400", NULL };
	char doc[128], hout[128];
	const struct record_vma *v;
	unsigned long long x, sum;
	struct record_doc d;
	pid_t pid;
	int st;

	need_root();
	EXPECT_EQ(record_pid(args, NULL, (const char *[]){ "-m", "1", NULL }, NULL, &pid), 0);
	ASSERT_TRUE(pid > 0);
	path_in(doc, sizeof(doc), "p.json");
	path_in(hout, sizeof(hout), "hout");
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	ASSERT_EQ(sscanf(helper_line(hout, "burst"), "burst %llx", &x), 1);
	load(doc, &d);
	v = vma_at(&d, x);
	sum = d.total.samples + d.outcome.lost;
	printf("  %llu samples + %llu lost = %llu; %llu in the burst's VMA\n", d.total.samples,
	       d.outcome.lost, sum, v ? v->s.samples : 0);
	/* the burst's samples are in its row, or after the process ended */
	EXPECT_TRUE((v ? v->s.samples : 0) + d.outcome.process_gone + d.outcome.lost >= 6400);
	EXPECT_TRUE(sum >= 6400 && sum < 6400 + 200);
	record_doc_free(&d);
}

/* --pid of a process whose leader has ended (pthread_exit) while a thread
 * runs on: recorded through that thread (it was "no process N"). */
TEST(pid_whose_leader_has_ended)
{
	const char *args[] = { "mib=4", "nothp=1", "thread=3", "spin=2000", NULL };
	char doc[128];
	struct record_doc d;
	pid_t pid;
	int st;

	need_root();
	EXPECT_EQ(record_pid(args, "1", NULL, NULL, &pid), 0);
	ASSERT_TRUE(pid > 0);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	path_in(doc, sizeof(doc), "p.json");
	load(doc, &d);
	printf("  %llu samples\n", d.total.samples);
	EXPECT_TRUE(d.total.samples > 100);
	EXPECT_TRUE(!d.outcome.target_gone);
	EXPECT_EQ(d.outcome.process_gone, 0);
	record_doc_free(&d);
}

/* --pid without --duration, to the process's end: the report gives the
 * time recorded (it gave --duration's default, "for 31536000.0 s"). */
TEST(pid_to_its_end_says_how_long)
{
	const char *args[] = { "mib=4", "spin=300", NULL };
	char herr[128], line[64];
	pid_t pid;
	int st;

	need_root();
	EXPECT_EQ(record_pid(args, NULL, NULL, NULL, &pid), 0);
	ASSERT_TRUE(pid > 0);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	path_in(herr, sizeof(herr), "herr");
	snprintf(line, sizeof(line), "; pid %d for 0.", (int)pid);
	EXPECT_TRUE(file_contains(herr, line));
	EXPECT_TRUE(!file_contains(herr, "31536000"));
	EXPECT_TRUE(file_contains(herr, "ended during the recording"));
}

/* --pid: threads started while recording, 200 in a row, each living a few
 * microseconds and starting one of its own, are followed from their first
 * fault (their events inherited, as perf record -p does): each of the
 * 3200 pages they write is one sample. The old code looked for new
 * threads every 100 ms and sampled none of them (0 of 3200). */
TEST(pid_threads_started_while_recording)
{
	const char *args[] = { "mib=4", "nothp=1", "burst=200", "spin=2500", NULL };
	char doc[128], hout[128];
	const struct record_vma *v;
	unsigned long long x;
	struct record_doc d;
	pid_t pid;
	int st;

	need_root();
	EXPECT_EQ(record_pid(args, "2", NULL, NULL, &pid), 0);
	ASSERT_TRUE(pid > 0);
	path_in(doc, sizeof(doc), "p.json");
	path_in(hout, sizeof(hout), "hout");
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ASSERT_EQ(sscanf(helper_line(hout, "burst"), "burst %llx", &x), 1);
	load(doc, &d);
	v = vma_at(&d, x);
	printf("  %llu of 3200 samples in the threads' VMA, %llu in all\n", v ? v->s.samples : 0,
	       d.total.samples);
	ASSERT_TRUE(v != NULL);
	EXPECT_EQ(v->s.samples, 3200);
	EXPECT_EQ(d.outcome.nr_processes, 1);
	record_doc_free(&d);
}

/* --pid whose lookups run out of time (a target whose threads map and
 * unmap hold its memory map: each lookup waited 0.3-6 s, and -d 1 lasted
 * as long as the target): every sample left is counted not looked up, the
 * memory is not scanned and the report says both. MTHPSCOPE_LOOKUP_BUDGET_MS
 * 0 stands for such a target here. */
TEST(pid_lookups_out_of_time)
{
	const char *args[] = { "mib=8", "spin=2000", "churn=1", NULL };
	char doc[128], herr[128];
	struct record_doc d;
	size_t k;
	pid_t pid;
	int st;

	need_root();
	EXPECT_EQ(record_pid(args, "1", NULL, "MTHPSCOPE_LOOKUP_BUDGET_MS=0", &pid), 0);
	ASSERT_TRUE(pid > 0);
	path_in(doc, sizeof(doc), "p.json");
	path_in(herr, sizeof(herr), "herr");
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_TRUE(file_contains(herr, "not looked up (a drain's second for slow lookups ran out"));
	EXPECT_TRUE(file_contains(herr, "was not scanned: the time for lookups ran out"));
	load(doc, &d);
	printf("  %llu samples, %llu not looked up\n", d.total.samples, d.outcome.not_looked_up);
	EXPECT_TRUE(d.total.samples > 100);
	EXPECT_EQ(d.outcome.not_looked_up, d.total.samples);
	for (k = 0; k < d.nr_vmas; k++) {
		EXPECT_EQ(d.vmas[k].s.samples, 0);
		EXPECT_TRUE(!d.vmas[k].mem.scanned);
	}
	record_doc_free(&d);
}

/* --pid where the kernel cannot follow a process's threads alone (before
 * 5.13; MTHPSCOPE_NO_INHERIT_THREAD here): each thread its own event, new
 * ones looked for at ticks, and the report says their first samples are
 * missed. */
TEST(pid_threads_before_inherit_thread)
{
	const char *args[] = { "mib=4", "nothp=1", "thread=2", "spin=1500", NULL };
	char doc[128], herr[128];
	struct record_doc d;
	pid_t pid;
	int st;

	need_root();
	EXPECT_EQ(record_pid(args, "1", NULL, "MTHPSCOPE_NO_INHERIT_THREAD=1", &pid), 0);
	ASSERT_TRUE(pid > 0);
	path_in(doc, sizeof(doc), "p.json");
	path_in(herr, sizeof(herr), "herr");
	kill(pid, SIGKILL);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_TRUE(file_contains(herr, "threads started while recording are looked for every"));
	load(doc, &d);
	printf("  %llu samples\n", d.total.samples);
	EXPECT_TRUE(d.total.samples > 100);
	EXPECT_EQ(d.outcome.nr_processes, 1);
	record_doc_free(&d);
}

/* record -c 1 -o DOC -- helper_record ARGS... (at most 6), its stdout to
 * OUT; the document loaded into d. */
static void record_helper(struct record_doc *d, const char *out, const char *const args[])
{
	char doc[128];
	char *argv[16] = { "mthpscope", "record", "-c", "1", "-o", doc, "--", (char *)helper() };
	int n = 8;

	path_in(doc, sizeof(doc), "h.json");
	while (*args && n < 14)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	ASSERT_EQ(run(argv, out, NULL), 0);
	load(doc, d);
}

/* The first line of the helper's output that starts with 'key', or "". */
static const char *helper_line(const char *out, const char *key)
{
	static char line[256];
	FILE *f = fopen(out, "r");

	line[0] = '\0';
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			break;
		else
			line[0] = '\0';
	if (f)
		fclose(f);
	return line;
}

/* A thread that ends is not its process ending: 4 MiB touched after a
 * thread was joined (or while one sleeps to the end, so that the leader
 * stops at its exit first; or by a thread after the leader has ended,
 * whose /proc/PID is then empty) are 1024 samples on their VMA, none
 * "after the process ended", and the exit scan finds them (the old code
 * took the thread's exit for the process's: 1024 samples after it, no
 * scan; and the leader's for all of it: 2068 of 2124 after it). */
TEST(thread_exit_is_not_process_exit)
{
	const char *one[] = { "mib=4", "nothp=1", "thread=1", NULL };
	const char *two[] = { "mib=4", "nothp=1", "thread=2", NULL };
	const char *three[] = { "mib=4", "nothp=1", "thread=3", NULL };
	const char *const *args[] = { one, two, three };
	unsigned long long small, large;
	const struct record_vma *a, *b;
	struct record_doc d;
	char out[128];

	need_root();
	make_tmpdir();
	path_in(out, sizeof(out), "out");
	for (int k = 0; k < 3; k++) {
		record_helper(&d, out, args[k]);
		ASSERT_EQ(sscanf(helper_line(out, "small"), "small %llx large %llx", &small,
				 &large), 2);
		a = vma_at(&d, small);
		b = vma_at(&d, large);
		ASSERT_TRUE(a && b);
		printf("  thread=%d: %llu and %llu samples, %llu after the process ended, memory "
		       "%llu and %llu pages\n", k + 1, a->s.samples, b->s.samples,
		       d.outcome.process_gone, a->mem.pages[0], b->mem.pages[0]);
		EXPECT_EQ(d.outcome.process_gone, 0);
		EXPECT_EQ(a->s.samples, 1024);
		EXPECT_EQ(b->s.samples, 1024);
		EXPECT_TRUE(a->mem.scanned && b->mem.scanned);
		EXPECT_EQ(a->mem.pages[0], 1024);
		EXPECT_EQ(b->mem.pages[0], 1024);
		record_doc_free(&d);
	}
}

/* The rows of kind 'kind' in d, the last in *last; their samples and
 * memory summed. */
static int rows_of(const struct record_doc *d, const char *kind, const struct record_vma **last,
		   unsigned long long *samples, unsigned long long *present)
{
	int n = 0;

	*samples = *present = 0;
	for (size_t i = 0; i < d->nr_vmas; i++) {
		if (strcmp(d->vmas[i].kind, kind))
			continue;
		*last = &d->vmas[i];
		*samples += d->vmas[i].s.samples;
		*present += d->vmas[i].mem.present;
		n++;
	}
	return n;
}

/* A heap grown by four sbrk steps of 1 MiB and a stack 2 MiB deep, each
 * page touched once without THP, are one row each as they are at the end,
 * their memory scanned once: the heap's present pages are its samples, no
 * window holds more than it can (the old code: five [heap] rows, memory
 * 258 + 514 + 770 + 1026 pages against 1026, a window of 1620 pages). */
TEST(growing_vmas_one_row)
{
	const char *args[] = { "mib=0", "nothp=1", "heap=4", "stack=2048", NULL };
	unsigned long long start, end, samples, present, page;
	const struct record_vma *v = NULL;
	struct record_doc d;
	char out[128];
	int n;

	need_root();
	make_tmpdir();
	path_in(out, sizeof(out), "out");
	record_helper(&d, out, args);
	page = (unsigned long long)d.host.topo.page_size;
	ASSERT_EQ(sscanf(helper_line(out, "heap"), "heap %llx %llx", &start, &end), 2);
	n = rows_of(&d, "heap", &v, &samples, &present);
	printf("  [heap]: %d rows, %llu samples, memory %llu pages\n", n, samples, present);
	EXPECT_EQ(n, 1);
	ASSERT_TRUE(v != NULL);
	EXPECT_TRUE(v->start <= start && v->end >= end && v->end - end < page);
	EXPECT_TRUE(samples >= (4ULL << 20) / page);
	EXPECT_EQ(present, samples);
	n = rows_of(&d, "stack", &v, &samples, &present);
	printf("  [stack]: %d rows, %llu samples, memory %llu pages\n", n, samples, present);
	EXPECT_EQ(n, 1);
	/* the pages exec wrote (arguments, environment) are present unsampled */
	EXPECT_TRUE(samples >= (2ULL << 20) / page * 15 / 16);
	EXPECT_TRUE(present >= samples && present <= samples + 8);
	for (size_t i = 0; i < d.nr_windows; i++)
		EXPECT_TRUE(d.windows[i].mem.present <= d.config.window_bytes / page);
	record_doc_free(&d);
}

/* The row of process d's VMA [start, end), or NULL. */
static const struct record_vma *row_of(const struct record_doc *d, unsigned long long start,
				       unsigned long long end)
{
	for (size_t i = 0; i < d->nr_vmas; i++)
		if (d->vmas[i].start == start && d->vmas[i].end == end)
			return &d->vmas[i];
	return NULL;
}

/* 4 MiB mapped at X and touched, unmapped, 8 MiB mapped at X and touched:
 * the samples of each go to its own VMA, read again once changed (the old
 * code kept the maps it had read while every address fell in one of them:
 * 2048 samples in the 4 MiB VMA, 1024 in the 8 MiB one). The exit scan
 * reads X once, for the VMA there now. */
TEST(remapped_vma)
{
	const char *args[] = { "mib=0", "nothp=1", "remap=1", NULL };
	const struct record_vma *four, *eight;
	unsigned long long x;
	struct record_doc d;
	char out[128];

	need_root();
	make_tmpdir();
	path_in(out, sizeof(out), "out");
	record_helper(&d, out, args);
	ASSERT_EQ(sscanf(helper_line(out, "remap"), "remap %llx", &x), 1);
	four = row_of(&d, x, x + (4ULL << 20));
	eight = row_of(&d, x, x + (8ULL << 20));
	ASSERT_TRUE(four && eight);
	printf("  4 MiB VMA: %llu samples; 8 MiB VMA: %llu samples, memory %llu pages\n",
	       four->s.samples, eight->s.samples, eight->mem.pages[0]);
	EXPECT_EQ(four->s.samples, 1024);
	EXPECT_EQ(eight->s.samples, 2048);
	EXPECT_TRUE(!four->mem.scanned);
	EXPECT_TRUE(eight->mem.scanned && eight->mem.pages[0] == 2048);
	EXPECT_EQ(d.outcome.process_gone, 0);
	record_doc_free(&d);
}

/* 8 MiB at X: half touched, a drain, the rest touched and the whole
 * unmapped at once. Every sample is the VMA's, as perf puts it by its
 * address: the second half's, looked up after the unmap, count as unmapped
 * in the row an earlier drain made (the old code counted them outside any
 * VMA: 1685 and 1262 samples in the row in two runs, the rest no_vma). */
TEST(vma_unmapped_before_its_drain)
{
	const char *args[] = { "mib=0", "nothp=1", "vanish=1", NULL };
	const struct record_vma *v;
	unsigned long long x;
	struct record_doc d;
	char out[128];

	need_root();
	make_tmpdir();
	path_in(out, sizeof(out), "out");
	record_helper(&d, out, args);
	ASSERT_EQ(sscanf(helper_line(out, "vanish"), "vanish %llx", &x), 1);
	v = row_of(&d, x, x + (8ULL << 20));
	ASSERT_TRUE(v != NULL);
	printf("  %llu samples: %llu at order 0, %llu unmapped; %llu outside any VMA\n",
	       v->s.samples, v->s.order[0], v->s.unmapped, d.outcome.no_vma);
	EXPECT_EQ(v->s.samples, 2048);
	EXPECT_EQ(v->s.order[0] + v->s.unmapped, 2048);
	EXPECT_TRUE(v->s.order[0] >= 1024);
	record_doc_free(&d);
}

/* A command that execs after the first drains: what the new image does is
 * sampled and scanned as its own (the old code kept reading the pagemap of
 * the image before the exec: 2107 of 2244 samples "after their process
 * ended", no memory scanned). */
TEST(exec_after_first_drain)
{
	char doc[128], out[128], script[4200];
	char *argv[] = { "mthpscope", "record", "-c", "1", "-o", doc, "--", "/bin/sh", "-c",
			 script, NULL };
	unsigned long long small, large;
	const struct record_vma *a, *b;
	struct record_doc d;

	need_root();
	make_tmpdir();
	path_in(out, sizeof(out), "out");
	path_in(doc, sizeof(doc), "x.json");
	snprintf(script, sizeof(script), "sleep 0.2; exec %s mib=4 nothp=1", helper());
	ASSERT_EQ(run(argv, out, NULL), 0);
	load(doc, &d);
	ASSERT_EQ(sscanf(helper_line(out, "small"), "small %llx large %llx", &small, &large), 2);
	a = vma_at(&d, small);
	b = vma_at(&d, large);
	ASSERT_TRUE(a && b);
	printf("  %llu and %llu samples, %llu after the process ended, memory %llu and %llu "
	       "pages\n", a->s.samples, b->s.samples, d.outcome.process_gone, a->mem.pages[0],
	       b->mem.pages[0]);
	EXPECT_EQ(d.outcome.process_gone, 0);
	EXPECT_EQ(a->s.samples, 1024);
	EXPECT_EQ(b->s.samples, 1024);
	EXPECT_TRUE(a->mem.scanned && a->mem.pages[0] == 1024);
	EXPECT_TRUE(b->mem.scanned && b->mem.pages[0] == 1024);
	record_doc_free(&d);
}

/* A chain of execs faster than the drains (as pyenv's shims make: sh execs
 * sh ... execs the program): the process is followed through each image to
 * the last, whose samples and memory are its own, and the samples of the
 * images it exec'd from are counted as such. The old code took a second
 * exec within one drain for the process's end: every later sample "after
 * the process ended", the helper's VMAs missing, nothing scanned; and
 * before exec records and stops, 500-1400 of the shells' 12000 samples
 * were "outside any VMA" (looked up in a later image), now 20-130. */
TEST(exec_chain_within_a_drain)
{
	char doc[128], out[128], chain[128];
	char *argv[] = { "mthpscope", "record", "-c", "1", "-o", doc, "--", "/bin/sh", chain,
			 NULL };
	unsigned long long small, large;
	const struct record_vma *a, *b;
	struct record_doc d;
	FILE *f;

	need_root();
	make_tmpdir();
	path_in(out, sizeof(out), "out");
	path_in(doc, sizeof(doc), "x.json");
	path_in(chain, sizeof(chain), "chain.sh");
	f = fopen(chain, "w");
	ASSERT_TRUE(f != NULL);
	fprintf(f, "n=${1:-0}\n"
		   "[ \"$n\" -lt 200 ] && exec /bin/sh \"$0\" $((n + 1))\n"
		   "exec %s mib=4 nothp=1\n", helper());
	ASSERT_EQ(fclose(f), 0);
	ASSERT_EQ(run(argv, out, NULL), 0);
	load(doc, &d);
	ASSERT_EQ(sscanf(helper_line(out, "small"), "small %llx large %llx", &small, &large), 2);
	a = vma_at(&d, small);
	b = vma_at(&d, large);
	printf("  %llu samples after the process ended, %llu outside any VMA, %llu of an image "
	       "exec'd from, of %llu; the helper's VMAs %s\n", d.outcome.process_gone,
	       d.outcome.no_vma, d.outcome.before_exec, d.total.samples,
	       a && b ? "found" : "missing");
	ASSERT_TRUE(a && b);
	printf("  %llu and %llu samples, memory %llu and %llu pages\n", a->s.samples,
	       b->s.samples, a->mem.pages[0], b->mem.pages[0]);
	EXPECT_EQ(d.outcome.process_gone, 0);
	/* 200 shells fault about 60 pages each, most of them drained after
	 * the next exec */
	EXPECT_TRUE(d.outcome.before_exec >= 2000);
	EXPECT_TRUE(d.outcome.no_vma * 20 < d.total.samples);
	EXPECT_EQ(a->s.samples, 1024);
	EXPECT_EQ(b->s.samples, 1024);
	EXPECT_TRUE(a->mem.scanned && a->mem.pages[0] == 1024);
	EXPECT_TRUE(b->mem.scanned && b->mem.pages[0] == 1024);
	record_doc_free(&d);
}

/* Faults on [vsyscall] (above the user address space, where pagemap reads
 * nothing): zero/other, in no row (no JSON integer holds its address). The
 * old code took the empty read for the process's end or an exec: 3466 of
 * 8267 samples "after their process ended", the mappings after it in rows
 * of a gone image, not scanned. */
TEST(vsyscall_fault)
{
	const char *args[] = { "mib=4", "nothp=1", "vsyscall=1", NULL };
	unsigned long long small, large;
	const struct record_vma *a, *b;
	struct record_doc d;
	char out[128];
	size_t i;

	need_root();
#ifndef __x86_64__
	SKIP("the legacy vsyscall page is x86-64's");
#endif
	if (!file_contains("/proc/self/maps", "[vsyscall]"))
		SKIP("no [vsyscall] page here (vsyscall=none)");
	make_tmpdir();
	path_in(out, sizeof(out), "out");
	record_helper(&d, out, args);
	ASSERT_EQ(sscanf(helper_line(out, "small"), "small %llx large %llx", &small, &large), 2);
	a = vma_at(&d, small);
	b = vma_at(&d, large);
	ASSERT_TRUE(a && b);
	printf("  %llu zero/other, %llu after the process ended, %llu and %llu samples\n",
	       d.total.other, d.outcome.process_gone, a->s.samples, b->s.samples);
	EXPECT_TRUE(d.total.other >= 20);
	EXPECT_EQ(d.outcome.process_gone, 0);
	EXPECT_EQ(d.outcome.before_exec, 0);
	EXPECT_EQ(a->s.samples, 1024);
	EXPECT_EQ(b->s.samples, 1024);
	EXPECT_TRUE(b->mem.scanned && b->mem.pages[0] == 1024);
	for (i = 0; i < d.nr_vmas; i++)
		EXPECT_TRUE(d.vmas[i].start < (1ULL << 63));
	record_doc_free(&d);
}

/* A ring too small for the run, never drained before the end (-m 1,
 * --interval 1000): the samples dropped are counted lost, those after the
 * last PERF_RECORD_LOST too, so that read and lost add up to the samples
 * a ring that holds them all reads (the old code: 85 read, 0 lost). */
TEST(lost_samples_counted)
{
	const char *whole[] = { "mib=4", "nothp=1", NULL };
	char doc[128], out[128];
	char *small[] = { "mthpscope", "record", "-c", "1", "-m", "1", "--interval", "1000", "-o",
			  doc, "--", (char *)helper(), "mib=4", "nothp=1", NULL };
	unsigned long long all;
	struct record_doc d;

	need_root();
	make_tmpdir();
	path_in(out, sizeof(out), "out");
	record_helper(&d, out, whole);
	all = d.total.samples;
	EXPECT_EQ(d.outcome.lost, 0);
	record_doc_free(&d);
	path_in(doc, sizeof(doc), "lost.json");
	ASSERT_EQ(run(small, out, NULL), 0);
	load(doc, &d);
	printf("  %llu samples with a ring that holds them; %llu read and %llu lost with one "
	       "page\n", all, d.total.samples, d.outcome.lost);
	/* the program faults the same pages each run, give or take the
	 * loader's */
	EXPECT_TRUE(d.total.samples < all / 2);
	EXPECT_TRUE(d.total.samples + d.outcome.lost + 8 >= all);
	EXPECT_TRUE(d.total.samples + d.outcome.lost <= all + 8);
	record_doc_free(&d);
}

/* A window of two VMAs, 16 pages of the first sampled first, 496 of the
 * second after them: named after the second, with most of its samples,
 * and said to span two (the old code named it after the first sampled). */
TEST(window_named_by_most_samples)
{
	const char *args[] = { "mib=0", "nothp=1", "split=1", NULL };
	const struct record_window *w = NULL;
	unsigned long long x;
	struct record_doc d;
	char out[128];

	need_root();
	make_tmpdir();
	path_in(out, sizeof(out), "out");
	record_helper(&d, out, args);
	ASSERT_EQ(sscanf(helper_line(out, "split"), "split %llx", &x), 1);
	for (size_t i = 0; i < d.nr_windows; i++)
		if (d.windows[i].start == x)
			w = &d.windows[i];
	ASSERT_TRUE(w != NULL);
	printf("  window 0x%llx: %llu samples, named '%s', %d VMAs\n", x, w->s.samples, w->vma,
	       w->nr_vmas);
	EXPECT_EQ(w->s.samples, 512);
	EXPECT_TRUE(!strncmp(w->vma, "/memfd:hot", 10));
	EXPECT_EQ(w->nr_vmas, 2);
	record_doc_free(&d);
}

/* Events and targets this machine cannot sample: advice and exit 3. */
TEST(bad_event_and_pid)
{
	char err[128], pidarg[16];
	char *nosuch[] = { "mthpscope", "record", "-e", "no_such_event_xyz", "--", "/bin/true", NULL };
	char *gone[] = { "mthpscope", "record", "--pid", pidarg, "--duration", "1", NULL };
	char *init[] = { "mthpscope", "record", "--pid", "1", "--duration", "1", NULL };
	char *kthread[] = { "mthpscope", "record", "--pid", "2", "--duration", "1", NULL };
	char *usage[] = { "mthpscope", "record", "-c", "1", "-F", "10", "--", "/bin/true", NULL };
	pid_t p;

	make_tmpdir();
	path_in(err, sizeof(err), "err");
	if (!geteuid()) {
		EXPECT_EQ(run(nosuch, NULL, err), 3);
		EXPECT_TRUE(file_contains(err, "cannot be encoded"));
	}
	p = fork();
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	snprintf(pidarg, sizeof(pidarg), "%d", p);
	EXPECT_EQ(run(gone, NULL, err), 3);
	EXPECT_TRUE(file_contains(err, "has exited, or never was"));
	/* kthreadd (pid 2, where pid namespaces leave it): said so, not "no process" */
	if (!geteuid() && file_contains("/proc/2/stat", "(kthreadd)")) {
		EXPECT_EQ(run(kthread, NULL, err), 3);
		EXPECT_TRUE(file_contains(err, "process 2 is a kernel thread"));
	}
	/* not ours: as nobody */
	EXPECT_EQ(wait_status(start(init, NULL, err, 65534)), 3);
	EXPECT_EQ(run(usage, NULL, NULL), 2);
}

/* --tlb-model: an unknown name is a usage error naming record; 'list' prints
 * the models and records nothing. */
TEST(tlb_model_option)
{
	char err[128], out[128];
	char *nosuch[] = { "mthpscope", "record", "--tlb-model", "nosuch", "--", "/bin/true", NULL };
	char *list[] = { "mthpscope", "record", "--tlb-model", "list", NULL };

	make_tmpdir();
	path_in(err, sizeof(err), "err");
	path_in(out, sizeof(out), "out");
	EXPECT_EQ(run(nosuch, NULL, err), 2);
	EXPECT_TRUE(file_contains(err, "record: unknown --tlb-model 'nosuch'"));
	EXPECT_EQ(run(list, out, NULL), 0);
	EXPECT_TRUE(file_contains(out, "zen5"));
}

/* A hardware event on a machine without a PMU: perf's advice, exit 3. */
TEST(hardware_event_without_pmu)
{
	char err[128];
	char *argv[] = { "mthpscope", "record", "-e", "cycles", "--", "/bin/true", NULL };
	int rc;

	need_root();
	make_tmpdir();
	path_in(err, sizeof(err), "err");
	rc = run(argv, NULL, err);
	if (rc == 0)
		SKIP("this machine samples cycles: a PMU is there");
	EXPECT_EQ(rc, 3);
	EXPECT_TRUE(file_contains(err, "PMU") || file_contains(err, "sampling"));
}

/* A drain of a large ring looks every sample up, however long that takes:
 * only slow lookups (a busy memory map) are cut at a drain's second. Here
 * one drain of 262144 samples at the exit stop: a flat second (the first
 * version of the cut) left 44084 of them not looked up. */
TEST(large_drain_all_looked_up)
{
	char doc[128], err[128];
	char *argv[] = { "mthpscope", "record", "-c", "1", "-m", "16384", "--interval", "60000",
			 "-o", doc, "--", (char *)helper(), "mib=512", "nothp=1", NULL };
	struct record_doc d;

	need_root();
	make_tmpdir();
	path_in(doc, sizeof(doc), "l.json");
	path_in(err, sizeof(err), "err");
	EXPECT_EQ(run(argv, NULL, err), 0);
	load(doc, &d);
	printf("  %llu samples, %llu not looked up, %llu lost\n", d.total.samples,
	       d.outcome.not_looked_up, d.outcome.lost);
	EXPECT_TRUE(d.total.samples >= 2 * 131072);
	EXPECT_EQ(d.outcome.not_looked_up, 0);
	EXPECT_EQ(d.outcome.lost, 0);
	record_doc_free(&d);
}

/* The same for --pid: its last drains, which may run past the time after
 * the recording that ends slow lookups (50 ms here: the last drains start
 * past it), look every fast one up (a drain that started past it had cut
 * at its first sample: 17588-20539 not looked up). */
TEST(pid_large_drain_all_looked_up)
{
	const char *args[] = { "mib=64", "nothp=1", "spin=4000", "churn=1", NULL };
	const char *opts[] = { "-m", "16384", "--interval", "60000", NULL };
	char doc[128];
	struct record_doc d;
	pid_t pid;
	int st;

	need_root();
	EXPECT_EQ(record_pid(args, "2", opts, "MTHPSCOPE_LOOKUP_BUDGET_MS=50", &pid), 0);
	ASSERT_TRUE(pid > 0);
	path_in(doc, sizeof(doc), "p.json");
	kill(pid, SIGKILL);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	load(doc, &d);
	printf("  %llu samples, %llu not looked up, %llu unmapped, %.1f s\n", d.total.samples,
	       d.outcome.not_looked_up, d.total.unmapped, d.outcome.wall_s);
	EXPECT_TRUE(d.total.samples > 10000);
	EXPECT_EQ(d.outcome.not_looked_up, 0);
	record_doc_free(&d);
}

/* A failing command: its exit status is reported, its samples kept. */
TEST(failing_command)
{
	char doc[128], err[128];
	char *argv[] = { "mthpscope", "record", "-c", "1", "-o", doc, "--", (char *)helper(),
			 "mib=4", "exit=7", NULL };
	struct record_doc d;

	need_root();
	make_tmpdir();
	path_in(doc, sizeof(doc), "f.json");
	path_in(err, sizeof(err), "err");
	EXPECT_EQ(run(argv, NULL, err), 1);
	EXPECT_TRUE(file_contains(err, "exited with status 7"));
	load(doc, &d);
	EXPECT_EQ(d.outcome.exit_code, 7);
	EXPECT_TRUE(d.total.samples >= 1024); /* the order-0 VMA alone */
	record_doc_free(&d);
}

/* SIGINT stops the recording; the document is still written. */
TEST(sigint_writes_document)
{
	char doc[128];
	char *argv[] = { "mthpscope", "record", "-c", "1", "-o", doc, "--", (char *)helper(),
			 "mib=4", "spin=20000", NULL };
	struct record_doc d;
	struct timespec t0, t1;
	pid_t p;

	need_root();
	make_tmpdir();
	path_in(doc, sizeof(doc), "i.json");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	p = start(argv, NULL, NULL, 0);
	usleep(800000);
	kill(p, SIGINT);
	EXPECT_EQ(wait_status(p), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	EXPECT_TRUE(t1.tv_sec - t0.tv_sec < 10);
	load(doc, &d);
	EXPECT_TRUE(d.outcome.interrupted);
	EXPECT_TRUE(d.total.samples > 100); /* kept: up to the signal */
	record_doc_free(&d);
}

/* The documents saved in tmpdir when -o failed (mthpscope-record-*.json),
 * each loaded and removed: how many held samples. */
static int rescued(void)
{
	char path[512];
	struct record_doc d;
	struct dirent *e;
	DIR *dd = opendir(tmpdir);
	int n = 0;

	while (dd && (e = readdir(dd))) {
		if (strncmp(e->d_name, "mthpscope-record-", 17))
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmpdir, e->d_name);
		load(path, &d);
		n += d.total.samples > 0;
		record_doc_free(&d);
		unlink(path);
	}
	if (dd)
		closedir(dd);
	return n;
}

/* A full disk leaves no half-written file, and the document is saved in
 * $TMPDIR instead of lost; /dev/null stays a device. */
TEST(full_disk)
{
	char doc[160], dir[128];
	char *full[] = { "mthpscope", "record", "-o", "/dev/full", "--", (char *)helper(), "mib=4",
			 NULL };
	char *null[] = { "mthpscope", "record", "-o", "/dev/null", "--", "/bin/true", NULL };
	char *tiny[] = { "mthpscope", "record", "-c", "1", "-o", doc, "--", (char *)helper(), "mib=4",
			 NULL };
	struct stat st;
	DIR *dd;
	struct dirent *e;
	int left = 0;

	need_root();
	make_tmpdir();
	setenv("TMPDIR", tmpdir, 1);
	EXPECT_EQ(run(full, NULL, NULL), 1);
	EXPECT_EQ(rescued(), 1);
	EXPECT_EQ(run(null, NULL, NULL), 0);
	EXPECT_EQ(rescued(), 0);
	EXPECT_TRUE(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
	path_in(dir, sizeof(dir), "tiny");
	ASSERT_EQ(mkdir(dir, 0755), 0);
	if (mount("tmpfs", dir, "tmpfs", 0, "size=4k"))
		SKIP("cannot mount a tmpfs: %s", strerror(errno));
	snprintf(doc, sizeof(doc), "%s/doc.json", dir);
	EXPECT_EQ(run(tiny, NULL, NULL), 1);
	EXPECT_EQ(rescued(), 1);
	dd = opendir(dir);
	while (dd && (e = readdir(dd)))
		left += e->d_name[0] != '.';
	if (dd)
		closedir(dd);
	umount(dir);
	EXPECT_EQ(left, 0);
}

HARNESS_MAIN
