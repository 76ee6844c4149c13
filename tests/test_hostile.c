// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Issue 14, module level: outputs that are devices, FIFOs or directories;
 * stale temporaries; a restore whose knob cannot be written back (fixture
 * THP root and run directory, never the real sysfs or /dev).
 */
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "atomic.h"
#include "harness.h"
#include "thp.h"

static char scratch[] = "/tmp/mthpscope-hostile-XXXXXX";

static void need_scratch(void)
{
	if (!mkdtemp(scratch))
		SKIP("mkdtemp: %s", strerror(errno));
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static json_t *small_doc(void)
{
	return json_pack("{s:s}", "hello", "world");
}

TEST(char_device_written_in_place)
{
	char dev[128];
	struct stat st;
	json_t *doc = small_doc();

	if (geteuid() != 0)
		SKIP("mknod of a character device needs root");
	need_scratch();
	snprintf(dev, sizeof(dev), "%s/null", scratch);
	ASSERT_EQ(mknod(dev, S_IFCHR | 0666, makedev(1, 3)), 0);
	EXPECT_EQ(atomic_check_output(dev, false), 0);
	EXPECT_EQ(atomic_write_json(dev, doc, 0), 0);
	ASSERT_EQ(lstat(dev, &st), 0);
	EXPECT_TRUE(S_ISCHR(st.st_mode)); /* still the device, not a regular file */
	/* a full device: the write fails with its errno, the node stays */
	unlink(dev);
	ASSERT_EQ(mknod(dev, S_IFCHR | 0666, makedev(1, 7)), 0);
	EXPECT_EQ(atomic_write_json(dev, doc, 0), -ENOSPC);
	ASSERT_EQ(lstat(dev, &st), 0);
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	unlink(dev);
	json_decref(doc);
	rmdir(scratch);
}

/* A document whose -o failed is saved anew: a file of its own (0600) in
 * $TMPDIR, else /var/tmp or /tmp, whole. */
TEST(rescue_saves_a_new_file)
{
	char saved[4096], missing[160];
	json_t *doc = small_doc(), *back;
	struct stat st;

	need_scratch();
	setenv("TMPDIR", scratch, 1);
	ASSERT_EQ(atomic_rescue_json("t", doc, 0, saved, sizeof(saved)), 0);
	EXPECT_TRUE(!strncmp(saved, scratch, strlen(scratch)) && strstr(saved, "/mthpscope-t-"));
	ASSERT_EQ(stat(saved, &st), 0);
	EXPECT_EQ(st.st_mode & 0777, 0600);
	back = json_load_file(saved, 0, NULL);
	EXPECT_TRUE(back && json_equal(back, doc));
	json_decref(back);
	unlink(saved);
	/* $TMPDIR unusable: the next directory takes it */
	snprintf(missing, sizeof(missing), "%s/missing", scratch);
	setenv("TMPDIR", missing, 1);
	ASSERT_EQ(atomic_rescue_json("t", doc, 0, saved, sizeof(saved)), 0);
	EXPECT_TRUE(!strncmp(saved, "/var/tmp/", 9) || !strncmp(saved, "/tmp/", 5));
	unlink(saved);
	unsetenv("TMPDIR");
	json_decref(doc);
	rmdir(scratch);
}

/* -o through a symbolic link writes its target (the link stays a link,
 * a dangling one's target is made); a descriptor (/dev/fd/N) is written
 * through, as opened; one open for reading only is refused up front. */
TEST(links_and_descriptors)
{
	char target[160], link[160], dangling[160], made[160], loop[160], fdp[64], buf[64] = "";
	json_t *doc = small_doc(), *back;
	struct stat st;
	int p[2], rd;
	ssize_t n;

	need_scratch();
	snprintf(target, sizeof(target), "%s/target.json", scratch);
	snprintf(link, sizeof(link), "%s/link.json", scratch);
	put(target, "old");
	ASSERT_EQ(symlink("target.json", link), 0);
	EXPECT_EQ(atomic_check_output(link, false), 0);
	EXPECT_TRUE(!atomic_in_place(link));
	EXPECT_EQ(atomic_write_json(link, doc, 0), 0);
	ASSERT_EQ(lstat(link, &st), 0);
	EXPECT_TRUE(S_ISLNK(st.st_mode));
	back = json_load_file(target, 0, NULL);
	EXPECT_TRUE(back && json_equal(back, doc));
	json_decref(back);
	/* dangling: the target is made, in the link's directory */
	snprintf(dangling, sizeof(dangling), "%s/dangling.json", scratch);
	snprintf(made, sizeof(made), "%s/made.json", scratch);
	ASSERT_EQ(symlink("made.json", dangling), 0);
	EXPECT_EQ(atomic_write_json(dangling, doc, 0), 0);
	EXPECT_TRUE(lstat(made, &st) == 0 && S_ISREG(st.st_mode));
	snprintf(loop, sizeof(loop), "%s/loop.json", scratch);
	ASSERT_EQ(symlink("loop.json", loop), 0);
	EXPECT_EQ(atomic_write_json(loop, doc, 0), -ELOOP);
	/* a pipe's write end */
	ASSERT_EQ(pipe(p), 0);
	snprintf(fdp, sizeof(fdp), "/dev/fd/%d", p[1]);
	EXPECT_EQ(atomic_output_fd(fdp), p[1]);
	EXPECT_TRUE(atomic_in_place(fdp));
	EXPECT_EQ(atomic_check_output(fdp, false), 0);
	EXPECT_EQ(atomic_write_json(fdp, doc, 0), 0);
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	EXPECT_TRUE(n > 0 && strstr(buf, "world"));
	close(p[0]);
	rd = open(target, O_RDONLY);
	snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", rd);
	EXPECT_EQ(atomic_check_output(fdp, false), -EBADF);
	close(rd);
	EXPECT_EQ(atomic_output_fd("/dev/stdout"), 1);
	EXPECT_EQ(atomic_output_fd("-"), 1);
	EXPECT_EQ(atomic_output_fd("/proc/thread-self/fd/7"), 7);
	EXPECT_EQ(atomic_output_fd("/dev/fd/x"), -1);
	EXPECT_EQ(atomic_output_fd("/tmp/x"), -1);
	EXPECT_EQ(atomic_output_fd(link), -1);
	snprintf(fdp, sizeof(fdp), "%s/out", scratch);
	ASSERT_EQ(symlink("/dev/stdout", fdp), 0);
	EXPECT_EQ(atomic_output_fd(fdp), 1); /* a link to a link to fd 1 */
	unlink(fdp);
	/* a file replaced keeps its owner and mode: a private one stays so */
	if (geteuid() == 0) {
		ASSERT_EQ(chown(target, 65534, 65534), 0);
		ASSERT_EQ(chmod(target, 0600), 0);
		EXPECT_EQ(atomic_write_json(link, doc, 0), 0);
		EXPECT_TRUE(stat(target, &st) == 0 && st.st_uid == 65534 &&
			    (st.st_mode & 0777) == 0600);
		ASSERT_EQ(chown(target, 0, 0), 0);
	}
	/* a link someone else planted in a sticky directory all may write
	 * (/tmp) is not followed, as the kernel would not (protected_symlinks) */
	if (geteuid() == 0) {
		ASSERT_EQ(chmod(scratch, 01777), 0);
		unlink(link);
		ASSERT_EQ(symlink("target.json", link), 0);
		ASSERT_EQ(lchown(link, 65534, 65534), 0);
		put(target, "old");
		EXPECT_EQ(atomic_check_output(link, false), -EACCES);
		EXPECT_EQ(atomic_write_json(link, doc, 0), -EACCES);
		back = json_load_file(target, 0, NULL);
		EXPECT_TRUE(back == NULL); /* still "old" */
		json_decref(back);
		ASSERT_EQ(lchown(link, 0, 0), 0);
		EXPECT_EQ(atomic_check_output(link, false), 0); /* ours: followed */
	}
	unlink(link);
	unlink(target);
	unlink(dangling);
	unlink(made);
	unlink(loop);
	json_decref(doc);
	rmdir(scratch);
}

TEST(fifo_written_in_place)
{
	char fifo[128], buf[64] = "";
	struct stat st;
	json_t *doc = small_doc();
	pid_t pid;
	int status;

	need_scratch();
	snprintf(fifo, sizeof(fifo), "%s/fifo", scratch);
	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	pid = fork();
	if (pid == 0) {
		int fd = open(fifo, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

		_exit(n > 0 && strstr(buf, "world") ? 0 : 1);
	}
	EXPECT_EQ(atomic_write_json(fifo, doc, 0), 0);
	waitpid(pid, &status, 0);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(lstat(fifo, &st), 0);
	EXPECT_TRUE(S_ISFIFO(st.st_mode));
	unlink(fifo);
	json_decref(doc);
	rmdir(scratch);
}

TEST(directory_refused)
{
	char sub[128], file[160];
	json_t *doc = small_doc();

	need_scratch();
	snprintf(sub, sizeof(sub), "%s/dir", scratch);
	ASSERT_EQ(mkdir(sub, 0755), 0);
	EXPECT_EQ(atomic_check_output(sub, false), -EISDIR);
	EXPECT_EQ(atomic_write_json(sub, doc, 0), -EISDIR);
	EXPECT_EQ(atomic_check_output(sub, true), 0);
	snprintf(file, sizeof(file), "%s/new/deeper", sub);
	EXPECT_EQ(atomic_check_output(file, true), 0); /* mkdir -p can make it */
	snprintf(file, sizeof(file), "%s/file", scratch);
	put(file, "x");
	EXPECT_EQ(atomic_check_output(file, true), -ENOTDIR);
	EXPECT_EQ(atomic_check_output(file, false), 0);
	snprintf(sub, sizeof(sub), "%s/file/below", scratch);
	EXPECT_EQ(atomic_check_output(sub, true), -ENOTDIR);
	unlink(file);
	snprintf(sub, sizeof(sub), "%s/dir", scratch);
	rmdir(sub);
	json_decref(doc);
	rmdir(scratch);
}

/* Where no file can be made though access() says yes to root (/proc), the
 * check says no before any work (a run found out only at its end, its
 * results lost); the probe leaves nothing behind where it can. */
TEST(uncreatable_directory_refused_up_front)
{
	DIR *d;
	struct dirent *e;

	if (access("/proc", W_OK) < 0)
		SKIP("/proc is not writable for access() here: nothing to show");
	EXPECT_EQ(atomic_check_output("/proc/mthpscope-test.json", false) < 0, true);
	EXPECT_EQ(atomic_check_output("/proc/mthpscope-plots", true) < 0, true);
	need_scratch();
	EXPECT_EQ(atomic_check_output(scratch, true), 0);
	d = opendir(scratch);
	ASSERT_TRUE(d != NULL);
	while ((e = readdir(d)))
		if (strncmp(e->d_name, ".mthpscope-probe", 16) == 0)
			FAIL_AT("the probe %s was left in %s", e->d_name, scratch);
	closedir(d);
	rmdir(scratch);
}

static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

TEST(stale_temporaries_of_dead_writers_removed)
{
	char out[128], stale[160], live[160];
	json_t *doc = small_doc();

	need_scratch();
	snprintf(out, sizeof(out), "%s/out.json", scratch);
	snprintf(stale, sizeof(stale), "%s.tmp.%d", out, (int)dead_pid());
	snprintf(live, sizeof(live), "%s.tmp.%d", out, (int)getppid());
	put(stale, "half");
	put(live, "busy");
	EXPECT_EQ(atomic_write_json(out, doc, 0), 0);
	EXPECT_TRUE(access(stale, F_OK) < 0);  /* its writer is dead */
	EXPECT_TRUE(access(live, F_OK) == 0);  /* its writer still runs */
	unlink(live);
	unlink(out);
	json_decref(doc);
	rmdir(scratch);
}

/* A fixture THP root: enabled and one size. */
static void fixture(char *root, size_t rsize, char *run, size_t runsize)
{
	char p[256];

	snprintf(root, rsize, "%s/thp", scratch);
	snprintf(run, runsize, "%s/run", scratch);
	mkdir(root, 0755);
	mkdir(run, 0755);
	snprintf(p, sizeof(p), "%s/enabled", root);
	put(p, "always [madvise] never\n");
	snprintf(p, sizeof(p), "%s/defrag", root);
	put(p, "always defer defer+madvise [madvise] never\n");
	setenv("MTHPSCOPE_THP_ROOT", root, 1);
	setenv("MTHPSCOPE_RUNDIR", run, 1);
}

TEST(restore_failure_keeps_journal)
{
	char root[160], run[160], p[256], j[256];
	const struct thp_recovery *r;

	need_scratch();
	fixture(root, sizeof(root), run, sizeof(run));
	ASSERT_EQ(thp_set_top("enabled", THP_W_ALWAYS), 0);
	thp_journal_path(j, sizeof(j));
	ASSERT_TRUE(access(j, F_OK) == 0);
	/* the knob vanishes (a directory in its place): it cannot be put back */
	snprintf(p, sizeof(p), "%s/enabled", root);
	unlink(p);
	ASSERT_EQ(mkdir(p, 0755), 0);
	EXPECT_EQ(thp_restore(), -EIO);
	r = thp_restore_result();
	EXPECT_EQ(r->nr_failed, 1);
	EXPECT_TRUE(r->nr_failed == 1 && strstr(r->failed[0], "enabled: writing 'madvise' failed"));
	EXPECT_TRUE(access(j, F_OK) == 0); /* kept: the only record of the setting */
	EXPECT_EQ(thp_restore(), -EIO);    /* and said again on a second call */
	/* once the knob is back, recovery applies the journal and removes it */
	rmdir(p);
	put(p, "[always] madvise never\n");
	{
		struct thp_recovery rec;
		EXPECT_EQ(thp_recover(&rec), 0);
		EXPECT_TRUE(rec.applied);
		EXPECT_TRUE(access(j, F_OK) < 0);
	}
	snprintf(p, sizeof(p), "rm -rf '%s'", scratch);
	EXPECT_EQ(system(p), 0);
}

TEST(recover_failure_keeps_journal)
{
	char root[160], run[160], p[512], j[256], tmp[300];
	struct thp_recovery rec;
	FILE *f;

	need_scratch();
	fixture(root, sizeof(root), run, sizeof(run));
	thp_journal_path(j, sizeof(j));
	f = fopen(j, "w");
	ASSERT_TRUE(f != NULL);
	fprintf(f, "{\"schema\": \"mthpscope.journal/1\", \"pid\": %d, \"starttime\": 1, "
		   "\"knobs\": [{\"path\": \"%s/enabled\", \"value\": \"never\"}, "
		   "{\"path\": \"%s/missing\", \"value\": \"never\"}]}\n", (int)dead_pid(), root, root);
	fclose(f);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", j, (int)dead_pid());
	put(tmp, "{\"half");
	EXPECT_EQ(thp_recover(&rec), -EIO);
	EXPECT_EQ(rec.nr_changed, 1);
	EXPECT_EQ(rec.nr_failed, 1);
	EXPECT_TRUE(rec.nr_failed == 1 && strstr(rec.failed[0], "missing"));
	EXPECT_TRUE(!rec.applied);
	EXPECT_TRUE(access(j, F_OK) == 0);
	EXPECT_TRUE(access(tmp, F_OK) < 0); /* a dead writer's half journal */
	snprintf(p, sizeof(p), "%s/enabled", root);
	{
		char buf[64] = "";
		int fd = open(p, O_RDONLY);
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		EXPECT_TRUE(n > 0 && !strncmp(buf, "never", 5));
	}
	snprintf(p, sizeof(p), "rm -rf '%s'", scratch);
	EXPECT_EQ(system(p), 0);
}

TEST(journal_reader_is_strict)
{
	static const char *const bad[] = {
		"{}",
		"{\"schema\":\"mthpscope.journal/1\",\"pid\":0,\"starttime\":1,\"knobs\":[{\"path\":\"/sys/x\",\"value\":\"1\"}]}",
		"{\"schema\":\"mthpscope.journal/1\",\"pid\":5,\"starttime\":1,\"knobs\":[]}",
		"{\"schema\":\"mthpscope.journal/1\",\"pid\":5,\"starttime\":1,\"knobs\":[{\"path\":\"/etc/passwd\",\"value\":\"1\"}]}",
		"{\"schema\":\"mthpscope.journal/1\",\"pid\":5,\"starttime\":1,\"knobs\":[{\"path\":\"/sys/../etc\",\"value\":\"1\"}]}",
		"{\"schema\":\"mthpscope.journal/1\",\"pid\":5,\"starttime\":1,\"knobs\":[{\"path\":\"/sys/x\",\"value\":\"a\\nb\"}]}",
		"{\"schema\":\"mthpscope.journal/1\",\"pid\":5,\"starttime\":-1,\"knobs\":[{\"path\":\"/sys/x\",\"value\":\"1\"}]}",
	};
	size_t i;

	unsetenv("MTHPSCOPE_THP_ROOT");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *doc = json_loads(bad[i], 0, NULL);

		EXPECT_EQ(thp_journal_check(doc, NULL, NULL), -EBADMSG);
		json_decref(doc);
	}
}

HARNESS_MAIN
