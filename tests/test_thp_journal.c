// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The THP knobs are the user's data: real writes, real restores, on this
 * machine's sysfs. MTHPSCOPE_TEST_WRITES_THP (ctest runs these one at a time).
 */
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "harness.h"
#include "thp.h"

#define MAXK 64

struct knobs {
	int n;
	char path[MAXK][160];
	char val[MAXK][256];
};

static void read_file(const char *p, char *buf, size_t size)
{
	int fd = open(p, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/* Other mthpscope processes may be changing knobs while this test runs
 * (they hold the lock while their settings are in effect): read under the
 * thp module's own lock, taken and released as any writer does, so the
 * snapshot is the settled state, never a passing one. */
static void snap_unlocked(struct knobs *k);

static void snap(struct knobs *k)
{
	int err = thp_journal_begin();

	snap_unlocked(k);
	if (!err)
		thp_restore();
}

/* Every knob mthpscope may touch, as raw text. */
static void snap_unlocked(struct knobs *k)
{
	static const char *const pats[] = {
		THP_SYSFS_ROOT "/enabled", THP_SYSFS_ROOT "/defrag", THP_SYSFS_ROOT "/shmem_enabled",
		THP_SYSFS_ROOT "/hugepages-*kB/enabled", THP_SYSFS_ROOT "/hugepages-*kB/shmem_enabled",
		THP_SYSFS_ROOT "/khugepaged/max_ptes_*", THP_SYSFS_ROOT "/khugepaged/*_millisecs",
		THP_SYSFS_ROOT "/khugepaged/pages_to_scan", THP_SYSFS_ROOT "/khugepaged/defrag",
	};
	size_t i, j;

	k->n = 0;
	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		glob_t g;
		if (glob(pats[i], 0, NULL, &g))
			continue;
		for (j = 0; j < g.gl_pathc && k->n < MAXK; j++, k->n++) {
			snprintf(k->path[k->n], sizeof(k->path[0]), "%s", g.gl_pathv[j]);
			read_file(g.gl_pathv[j], k->val[k->n], sizeof(k->val[0]));
		}
		globfree(&g);
	}
}

static int diff(const struct knobs *a, const struct knobs *b)
{
	int i, d = 0;

	if (a->n != b->n)
		return -1;
	for (i = 0; i < a->n; i++) {
		if (strcmp(a->val[i], b->val[i])) {
			printf("  changed: %s: '%s' -> '%s'\n", a->path[i], a->val[i], b->val[i]);
			d++;
		}
	}
	return d;
}

static void need_mthp(struct thp_settings *s)
{
	REQUIRE_ROOT();
	if (thp_read(s) || !thp_size_by_order(s, 4) || !thp_size_by_order(s, 4)->anon)
		SKIP("no anon mTHP size of order 4 (kernel before 6.8?)");
}

/* The command waits for the global lock as every writer here does (ctest
 * sets MTHPSCOPE_LOCK_WAIT=120): other mthpscope processes may hold it.
 * A live writer's journal is still refused at once, before the lock. */
static int run_bin(const char *args)
{
	char cmd[512];
	int st;

	snprintf(cmd, sizeof(cmd), "MTHPSCOPE_LOCK_WAIT=${MTHPSCOPE_LOCK_WAIT:-120} %s %s "
		 ">/dev/null 2>&1", getenv("MTHPSCOPE_BIN"), args);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Another instance holding the global lock for some seconds, as a
 * concurrent run would: a child flocks the lock file (blocking, like a
 * waiting writer) and says so on the returned pipe before it starts them. */
static pid_t hold_lock_for(unsigned seconds)
{
	char p[4096], c = 'x';
	int pp[2], fd;
	pid_t pid;

	snprintf(p, sizeof(p), "%s/mthpscope.lock", thp_rundir());
	if (pipe(pp))
		return -1;
	pid = fork();
	if (pid == 0) {
		fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0 || flock(fd, LOCK_EX) || write(pp[1], &c, 1) != 1)
			_exit(1);
		sleep(seconds);
		_exit(0); /* the lock file stays; its next holder unlinks it */
	}
	close(pp[1]);
	if (pid < 0 || read(pp[0], &c, 1) != 1)
		pid = -1;
	close(pp[0]);
	return pid;
}

/* A real change, seen in sysfs, then a restore to exactly the snapshot. */
TEST(change_then_restore)
{
	struct thp_settings s, t;
	struct knobs before, after;

	need_mthp(&s);
	snap(&before);
	ASSERT_EQ(thp_set_size_enabled(4, THP_W_ALWAYS), 0);
	ASSERT_EQ(thp_set_khugepaged("max_ptes_none", 17), 0);
	ASSERT_EQ(thp_set_top("defrag", THP_W_NEVER), 0);
	ASSERT_TRUE(thp_journal_active());
	ASSERT_TRUE(thp_journal_exists());
	ASSERT_EQ(thp_read(&t), 0);
	EXPECT_EQ(thp_size_by_order(&t, 4)->enabled, THP_W_ALWAYS);
	EXPECT_EQ(t.khugepaged.max_ptes_none, 17);
	EXPECT_EQ(t.defrag, THP_W_NEVER);
	thp_restore();
	EXPECT_TRUE(!thp_journal_exists());
	snap(&after);
	EXPECT_EQ(diff(&before, &after), 0);
}

TEST(only_order)
{
	struct thp_settings s, t;
	struct knobs before, after;
	int i;

	need_mthp(&s);
	snap(&before);
	ASSERT_EQ(thp_set_only_order(&s, 5), 0);
	ASSERT_EQ(thp_read(&t), 0);
	for (i = 0; i < t.nr_sizes; i++)
		if (t.sizes[i].anon)
			EXPECT_EQ(t.sizes[i].enabled,
				  t.sizes[i].order == 5 ? THP_W_ALWAYS : THP_W_NEVER);
	EXPECT_EQ(thp_set_only_order(&s, 1), -EINVAL); /* 8kB: no anon support */
	EXPECT_EQ(thp_set_size_enabled(4, THP_W_DENY), -EINVAL); /* kernel rejects it */
	thp_restore();
	snap(&after);
	EXPECT_EQ(diff(&before, &after), 0);
}

/* Exit paths: normal exit, SIGTERM, SIGINT, SIGSEGV (restore, re-raise). */
static void child_changes_and(int how)
{
	if (thp_set_size_enabled(3, THP_W_ALWAYS) || thp_set_khugepaged("scan_sleep_millisecs", 7))
		_exit(99);
	switch (how) {
	case 0:
		exit(0);
	case SIGSEGV: {
		/* a real fault (a null store would be caught by UBSan first) */
		volatile int *guard = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		*guard = 1;
		break;
	}
	default:
		raise(how);
	}
	_exit(98);
}

TEST(exit_paths_restore)
{
	static const int hows[] = { 0, SIGTERM, SIGINT, SIGHUP, SIGSEGV, SIGABRT };
	struct thp_settings s;
	struct knobs before, after;
	size_t i;

	need_mthp(&s);
	snap(&before);
	for (i = 0; i < sizeof(hows) / sizeof(hows[0]); i++) {
		int st;
		pid_t pid = fork();

		if (pid == 0)
			child_changes_and(hows[i]);
		waitpid(pid, &st, 0);
		if (hows[i])
			EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == hows[i]);
		else
			EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		snap(&after);
		printf("  exit path %d\n", hows[i]);
		EXPECT_EQ(diff(&before, &after), 0);
		EXPECT_TRUE(!thp_journal_exists());
	}
}

/* SIGKILL leaves the journal; `mthpscope restore` brings every knob back. */
TEST(sigkill_then_restore_command)
{
	struct thp_settings s;
	struct knobs before, mid, after;
	int p[2], st;
	char c;
	pid_t pid;

	need_mthp(&s);
	snap(&before);
	ASSERT_EQ(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		if (thp_set_only_order(&s, 6) || thp_set_khugepaged("max_ptes_none", 0) ||
		    thp_set_top("enabled", THP_W_ALWAYS))
			_exit(99);
		if (write(p[1], "x", 1) != 1)
			_exit(98);
		pause();
		_exit(0);
	}
	ASSERT_EQ(read(p[0], &c, 1), 1);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	snap_unlocked(&mid); /* the killed child's leftovers, before any recovery */
	EXPECT_TRUE(diff(&before, &mid) >= 3);
	EXPECT_TRUE(thp_journal_exists());
	/* another mthpscope holds the lock meanwhile: restore waits for it */
	pid = hold_lock_for(1);
	ASSERT_TRUE(pid > 0);
	EXPECT_EQ(run_bin("restore"), 0);
	waitpid(pid, &st, 0);
	EXPECT_TRUE(!thp_journal_exists());
	snap(&after);
	EXPECT_EQ(diff(&before, &after), 0);
	EXPECT_EQ(run_bin("restore"), 0); /* nothing left: still fine */
}

/* As run_bin, with the command's stderr in err (the notes of its start). */
static int run_bin_stderr(const char *env, const char *args, char *err, size_t size)
{
	char path[] = "/tmp/mthpscope-stderr-XXXXXX", cmd[1024];
	int fd = mkstemp(path), st;

	err[0] = '\0';
	if (fd < 0)
		return 128;
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s MTHPSCOPE_LOCK_WAIT=${MTHPSCOPE_LOCK_WAIT:-120} %s %s "
		 ">/dev/null 2>%s", env, getenv("MTHPSCOPE_BIN"), args, path);
	st = system(cmd);
	read_file(path, err, size);
	unlink(path);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Does another process hold the global lock right now? (Taken and let go
 * at once when free, as a waiting writer's try does.) */
static bool lock_is_held(void)
{
	char p[4096];
	bool held;
	int fd;

	snprintf(p, sizeof(p), "%s/mthpscope.lock", thp_rundir());
	fd = open(p, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return false; /* its last holder removed it */
	held = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

/* A child that changes a knob and waits to be SIGKILLed with its journal. */
static pid_t child_changes_and_waits(int order, enum thp_word w)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		if ((order >= 0 ? thp_set_size_enabled(order, w) : thp_set_top("enabled", w)) ||
		    write(p[1], "x", 1) != 1)
			_exit(99);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1) {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		pid = -1;
	}
	close(p[0]);
	return pid;
}

/*
 * The next start of any command (info) applies a dead process's journal
 * itself: its note names the dead pid and the knob it put back, and the
 * journal is gone when it returns, before this test takes the lock (snap()
 * would recover it too, proving nothing). info never waits for the lock, so
 * when another mthpscope takes it the moment the child dies, that one
 * applies the journal instead: the attempt proves nothing and is repeated
 * (a journal left with the lock free fails). First, a neighbour holding the
 * lock: info returns at once and leaves the journal. The fixture variant
 * below has no neighbour at all.
 */
TEST(sigkill_then_next_start)
{
	struct thp_settings s;
	struct knobs before, after;
	const struct thp_size *sz;
	enum thp_word was = THP_W_NEVER, w; /* set below; clang cannot see ASSERT end the test */
	char err[4096], want[256];
	bool proven = false;
	unsigned offered;
	int attempt, st, i;
	pid_t pid, holder;

	need_mthp(&s);
	sz = thp_size_by_order(&s, 2);
	if (!sz || !sz->anon)
		SKIP("no anon mTHP size of order 2");
	snap(&before);
	/* its value settled (read under the lock), not one a neighbour set for a while */
	snprintf(want, sizeof(want), THP_SYSFS_ROOT "/hugepages-%lukB/enabled", sz->kb);
	for (i = 0; i < before.n && strcmp(before.path[i], want); i++)
		;
	ASSERT_TRUE(i < before.n && !thp_parse_choice(before.val[i], &was, &offered));
	w = was == THP_W_MADVISE ? THP_W_ALWAYS : THP_W_MADVISE;

	/* A neighbour holds the lock when the writer has died: info neither
	 * waits for it nor applies the journal (the next writer does). */
	pid = child_changes_and_waits(2, w);
	ASSERT_TRUE(pid > 0);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	holder = hold_lock_for(3);
	ASSERT_TRUE(holder > 0);
	if (thp_journal_exists()) {
		EXPECT_EQ(run_bin_stderr("", "info", err, sizeof(err)), 0);
		EXPECT_TRUE(lock_is_held()); /* it returned while the lock was held */
		EXPECT_TRUE(thp_journal_exists());
		EXPECT_TRUE(strstr(err, "restored THP settings") == NULL);
	} else {
		printf("  another mthpscope applied the journal before the lock was held\n");
	}
	waitpid(holder, &st, 0);

	for (attempt = 1; attempt <= 5 && !proven; attempt++) {
		pid = child_changes_and_waits(2, w);
		ASSERT_TRUE(pid > 0);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		if (!thp_journal_exists()) {
			printf("  attempt %d: another mthpscope applied the journal first\n", attempt);
			continue;
		}
		EXPECT_EQ(run_bin_stderr("", "info", err, sizeof(err)), 0);
		snprintf(want, sizeof(want), "restored THP settings left changed by pid %d:",
			 (int)pid);
		if (!strstr(err, want)) {
			/* a neighbour that took the lock applies the journal
			 * itself; one still there with the lock free is info's fault */
			if (thp_journal_exists() && !lock_is_held()) {
				FAIL_AT("info left the dead pid %d's journal with the lock "
					"free: %s", (int)pid, err);
				break;
			}
			printf("  attempt %d: info did not apply it (another mthpscope had the "
			       "lock): %s\n", attempt, err);
			continue;
		}
		proven = true;
		/* right after info returned, before this test takes the lock */
		EXPECT_TRUE(!thp_journal_exists());
		snprintf(want, sizeof(want), "hugepages-%lukB/enabled: %s -> %s", sz->kb,
			 thp_word_name(w), thp_word_name(was));
		if (!strstr(err, want))
			FAIL_AT("info's note lacks '%s': %s", want, err);
	}
	snap(&after);
	EXPECT_EQ(diff(&before, &after), 0);
	EXPECT_TRUE(!thp_journal_exists());
	if (!proven && !harness_failed_here)
		SKIP("other mthpscope processes applied the journal first in 5 attempts");
}

/* The same on a fixture THP root with a run directory of its own: no other
 * mthpscope shares its lock, so info must apply the journal every time. */
TEST(sigkill_then_next_start_fixture)
{
	char dir[] = "/tmp/mthpscope-next-XXXXXX", root[160], run[160], p[256], env[512];
	char err[4096], want[256], knob[256];
	int st, jpid = 0;
	json_t *doc;
	pid_t pid;
	FILE *f;

	REQUIRE_ROOT();
	ASSERT_TRUE(mkdtemp(dir) != NULL);
	snprintf(root, sizeof(root), "%s/thp", dir);
	snprintf(run, sizeof(run), "%s/run", dir);
	ASSERT_EQ(mkdir(root, 0755), 0);
	ASSERT_EQ(mkdir(run, 0755), 0);
	snprintf(p, sizeof(p), "%s/enabled", root);
	f = fopen(p, "w");
	ASSERT_TRUE(f != NULL);
	fputs("always [madvise] never\n", f);
	fclose(f);
	pid = fork();
	if (pid == 0) {
		setenv("MTHPSCOPE_THP_ROOT", root, 1);
		setenv("MTHPSCOPE_RUNDIR", run, 1);
		pid = child_changes_and_waits(-1, THP_W_ALWAYS);
		if (pid < 0)
			_exit(1);
		/* what sysfs shows after that write (a knob write does not
		 * truncate, so the fixture file alone would not show it) */
		f = fopen(p, "w");
		if (!f || fputs("[always] madvise never\n", f) < 0 || fclose(f))
			_exit(2);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* left by the killed writer, with its pid */
	snprintf(p, sizeof(p), "%s/mthpscope.journal", run);
	doc = json_load_file(p, 0, NULL);
	jpid = (int)json_integer_value(json_object_get(doc, "pid"));
	json_decref(doc);
	ASSERT_TRUE(jpid > 0);
	snprintf(p, sizeof(p), "%s/enabled", root);
	read_file(p, knob, sizeof(knob));
	EXPECT_TRUE(!strncmp(knob, "[always]", 8));
	snprintf(env, sizeof(env), "MTHPSCOPE_THP_ROOT=%s MTHPSCOPE_RUNDIR=%s", root, run);
	/* info then reads the bare word the restore wrote, not a sysfs choice
	 * list, and says the file is malformed: exit 1 after the recovery */
	EXPECT_EQ(run_bin_stderr(env, "info", err, sizeof(err)), 1);
	/* right after info returned: the journal is gone, the knob is back */
	snprintf(p, sizeof(p), "%s/mthpscope.journal", run);
	EXPECT_TRUE(access(p, F_OK) < 0);
	snprintf(p, sizeof(p), "%s/enabled", root);
	read_file(p, knob, sizeof(knob));
	EXPECT_TRUE(!strncmp(knob, "madvise", 7));
	snprintf(want, sizeof(want), "restored THP settings left changed by pid %d:", jpid);
	EXPECT_TRUE(strstr(err, want) != NULL);
	EXPECT_TRUE(strstr(err, "enabled: always -> madvise") != NULL);
	printf("  info said: %s%s", err, err[0] && err[strlen(err) - 1] == '\n' ? "" : "\n");
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	EXPECT_EQ(system(p), 0);
}

/* Two writers never at once; the refused one changes nothing. */
TEST(second_writer_refused)
{
	struct thp_settings s;
	struct knobs before, after;
	int p[2], q[2], st;
	char c;
	pid_t pid;

	need_mthp(&s);
	snap(&before);
	ASSERT_EQ(pipe(p), 0);
	ASSERT_EQ(pipe(q), 0);
	pid = fork();
	if (pid == 0) {
		if (thp_set_size_enabled(7, THP_W_ALWAYS) || write(p[1], "x", 1) != 1)
			_exit(99);
		if (read(q[0], &c, 1) != 1)
			_exit(98);
		exit(0); /* normal exit: restores */
	}
	ASSERT_EQ(read(p[0], &c, 1), 1);
	thp_set_lock_wait(0);
	EXPECT_EQ(thp_set_size_enabled(8, THP_W_ALWAYS), -EBUSY);
	EXPECT_EQ(thp_lock_holder(), pid);
	/* read-only use keeps working while the lock is held */
	EXPECT_EQ(thp_read(&s), 0);
	EXPECT_EQ(run_bin("info --json"), 0);
	/* restore refuses a live writer's journal */
	EXPECT_EQ(run_bin("restore"), 3);
	ASSERT_EQ(write(q[1], "x", 1), 1);
	waitpid(pid, &st, 0);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snap(&after);
	EXPECT_EQ(diff(&before, &after), 0);
}

/* A corrupt or truncated journal is refused and kept; nothing is written. */
TEST(corrupt_journal_refused)
{
	static const char *const bad[] = {
		"{\"schema\": \"mthpscope.journal/1\", \"pid\": 1, \"sta", /* truncated */
		"garbage",
		"{\"schema\": \"mthpscope.journal/9\", \"pid\": 999999, \"starttime\": 0, "
		"\"root\": \"/x\", \"knobs\": [{\"path\": \"/sys/x\", \"value\": \"never\"}]}",
		"{\"schema\": \"mthpscope.journal/1\", \"pid\": 999999, \"starttime\": 0, "
		"\"root\": \"/x\", \"knobs\": [{\"path\": \"/etc/passwd\", \"value\": \"x\"}]}",
		"",
	};
	char dir[] = "/tmp/mthpscope-test-XXXXXX", path[256], cmd[512];
	struct knobs before, after;
	size_t i;

	REQUIRE_ROOT();
	ASSERT_TRUE(mkdtemp(dir) != NULL);
	snap(&before);
	snprintf(path, sizeof(path), "%s/mthpscope.journal", dir);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *f = fopen(path, "w");
		int st;
		fputs(bad[i], f);
		fclose(f);
		snprintf(cmd, sizeof(cmd), "MTHPSCOPE_RUNDIR=%s %s restore >/dev/null 2>&1", dir,
			 getenv("MTHPSCOPE_BIN"));
		st = system(cmd);
		EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 1);
		EXPECT_TRUE(access(path, F_OK) == 0); /* kept */
		/* the lock taken to inspect it is gone again */
		snprintf(cmd, sizeof(cmd), "%s/mthpscope.lock", dir);
		EXPECT_TRUE(access(cmd, F_OK) != 0);
	}
	snap(&after);
	EXPECT_EQ(diff(&before, &after), 0);
	unlink(path);
	rmdir(dir);
}

/* An unwritable run directory: no knob is touched, the error says why. */
TEST(unwritable_rundir)
{
	char dir[] = "/tmp/mthpscope-ro-XXXXXX";
	struct thp_settings s;
	struct knobs before, after;
	char msg[512];
	int err;

	need_mthp(&s);
	ASSERT_TRUE(mkdtemp(dir) != NULL);
	if (mount("none", dir, "tmpfs", MS_RDONLY, NULL)) {
		rmdir(dir);
		SKIP("cannot mount a read-only tmpfs: %s", strerror(errno));
	}
	snap(&before);
	setenv("MTHPSCOPE_RUNDIR", dir, 1);
	err = thp_set_size_enabled(4, THP_W_ALWAYS);
	EXPECT_EQ(err, -EROFS);
	thp_strerror(err, msg, sizeof(msg));
	printf("  message: %s\n", msg);
	EXPECT_TRUE(strstr(msg, dir) != NULL);
	snap(&after);
	EXPECT_EQ(diff(&before, &after), 0);
	umount(dir);
	rmdir(dir);
}

/* Without root: reads work, writes are refused before anything happens. */
TEST(non_root)
{
	struct thp_settings s;
	char msg[512];
	int err;

	char dir[128];

	need_mthp(&s);
	/* a run directory of our own: another process's journal in /run would
	 * rightly make 'restore' ask for root */
	harness_tmpdir(dir, sizeof(dir), "nobody");
	chmod(dir, 0755);
	setenv("MTHPSCOPE_RUNDIR", dir, 1);
	ASSERT_EQ(setgid(65534), 0);
	ASSERT_EQ(setuid(65534), 0); /* nobody */
	ASSERT_EQ(thp_read(&s), 0);
	err = thp_set_size_enabled(4, THP_W_ALWAYS);
	EXPECT_EQ(err, -EPERM);
	thp_strerror(err, msg, sizeof(msg));
	EXPECT_TRUE(strstr(msg, "root") != NULL);
	EXPECT_EQ(run_bin("info"), 0);
	EXPECT_EQ(run_bin("restore"), 0); /* no journal: nothing to do */
}

HARNESS_MAIN
