// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The child launcher (child.h) and counters on a target: CMD resolution as
 * execvp would, prepare/start/wait with exit status and timeout, a failed
 * exec reported by start, exit stops of every process of a tree (ptrace),
 * and software counters inherited over a child's tree from its exec on.
 * No THP knob is touched.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "counters.h"
#include "harness.h"

TEST(resolve_like_execvp)
{
	char path[4096];

	ASSERT_EQ(child_resolve("sh", path, sizeof(path)), 0);
	EXPECT_TRUE(strstr(path, "/sh") != NULL);
	EXPECT_EQ(child_resolve("no-such-command-mthpscope", path, sizeof(path)), -ENOENT);
	EXPECT_EQ(child_resolve("/nonexistent/x", path, sizeof(path)), -ENOENT);
	EXPECT_EQ(child_resolve("/tmp", path, sizeof(path)), -EISDIR);
	EXPECT_EQ(child_resolve("", path, sizeof(path)), -ENOENT);
	if (geteuid() != 0) /* root may execute anything with an x bit only */
		EXPECT_EQ(child_resolve("/etc/passwd", path, sizeof(path)), -EACCES);
}

static int exits, ticks;

static void on_exit_stop(void *ctx, pid_t pid)
{
	(void)ctx;
	(void)pid;
	exits++;
}

static void on_tick(void *ctx, const pid_t *pids, int n)
{
	(void)ctx;
	(void)pids;
	ticks += n > 0;
}

static int run(char *const argv[], bool trace, long long timeout_ns, unsigned interval_ms,
	       struct child_result *res)
{
	struct child_opts o = { .stdout_path = "/tmp/mthpscope-child-test.out", .trace = trace };
	struct child_watch w = { .interval_ms = interval_ms, .timeout_ns = timeout_ns,
				 .tick = on_tick, .at_exit = on_exit_stop };
	struct child c;
	int err;

	exits = ticks = 0;
	if ((err = child_prepare(&c, argv, &o)))
		return err;
	if ((err = child_start(&c)))
		return err;
	err = child_wait(&c, &w, res);
	unlink(o.stdout_path);
	return err;
}

TEST(status_and_exit_stops)
{
	char *const argv[] = { "sh", "-c", "true | cat; (exit 0); exit 3", NULL };
	struct child_result res;

	ASSERT_EQ(run(argv, true, 0, 0, &res), 0);
	EXPECT_TRUE(WIFEXITED(res.status));
	EXPECT_EQ(WEXITSTATUS(res.status), 3);
	EXPECT_TRUE(!res.timed_out);
	EXPECT_TRUE(res.wall_ns > 0);
	/* sh, true, cat and the subshell each stop once before they exit */
	EXPECT_TRUE(exits >= 3);
	EXPECT_TRUE(res.nr_processes >= 3);
	EXPECT_TRUE(res.max_rss_kb > 0);
}

TEST(timeout_kills_the_group)
{
	char *const argv[] = { "sh", "-c", "sleep 30 & sleep 30; wait", NULL };
	struct child_result res;

	ASSERT_EQ(run(argv, true, 200000000LL, 50, &res), 0);
	EXPECT_TRUE(res.timed_out);
	EXPECT_TRUE(WIFSIGNALED(res.status) && WTERMSIG(res.status) == SIGKILL);
	EXPECT_TRUE(res.wall_ns < 5000000000LL);
	EXPECT_TRUE(ticks >= 1);
	/* nothing of the tree is left: every child reaped */
	EXPECT_TRUE(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
}

TEST(failed_exec_is_reported_by_start)
{
	char *const argv[] = { "/nonexistent/mthpscope-cmd", NULL };
	struct child_opts o = { .trace = true };
	struct child c;

	ASSERT_EQ(child_prepare(&c, argv, &o), 0);
	EXPECT_EQ(child_start(&c), -ENOENT);
	EXPECT_EQ(c.pid, 0);
	EXPECT_TRUE(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
}

/* page-faults on the child, inherited: its children's faults count, and
 * nothing before its exec does. */
TEST(counters_follow_the_tree)
{
	static const struct ctr_spec spec[] = { { "page_faults", "page-faults" } };
	char *const argv[] = { "sh", "-c", "sh -c true; sh -c true", NULL };
	struct child_opts o = { .stdout_path = NULL };
	struct child_watch w = { 0 };
	struct ctr_options co = { .include_kernel = true, .inherit = true,
				  .enable_on_exec = true };
	struct child_result res;
	struct ctr_value v;
	struct ctr_set *set;
	struct child c;
	int bad, err;

	ASSERT_EQ(child_prepare(&c, argv, &o), 0);
	co.pid = c.pid;
	err = ctr_set_open(&set, spec, 1, &co, &bad);
	if (err) {
		child_cancel(&c);
		SKIP("software counters do not open on a child (%s)", strerror(-err));
	}
	ASSERT_EQ(ctr_set_read(set, &v, 1), 0);
	EXPECT_NEAR(v.value, 0, 0); /* not enabled before exec */
	ASSERT_EQ(child_start(&c), 0);
	ASSERT_EQ(child_wait(&c, &w, &res), 0);
	ASSERT_EQ(ctr_set_read(set, &v, 1), 0);
	ctr_set_close(set);
	/* three shells' faults: more than one exec'd sh alone takes (~100) */
	EXPECT_TRUE(v.value > 150);
	EXPECT_TRUE(res.ru.ru_minflt > 150);
}

HARNESS_MAIN
