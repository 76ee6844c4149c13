/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A child command, launched in the manner of perf's prepare/start/cancel
 * workload: child_prepare() forks a child that waits on a pipe in its own
 * process group (so it can be stopped as a whole), the caller attaches what
 * it watches the child with (counters with enable_on_exec, ptrace), then
 * child_start() lets it exec; child_wait() follows the whole tree to its
 * end; child_cancel() kills what is left.
 *
 * The tree is followed with ptrace (PTRACE_SEIZE with the fork, vfork, clone
 * and exit events), so every process of it stops once just before it exits,
 * while its memory is still mapped: a program shorter than any sampling
 * interval is still seen. mthpscope is a child subreaper meanwhile, so
 * orphans of the tree come back to it and their resource usage counts.
 *
 * Return convention: 0 or negative errno; nothing here prints.
 */
#ifndef CHILD_H
#define CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

/* Find 'cmd' as execvp would (a name with a '/' is taken as a path): 0 with
 * the path in 'path', -ENOENT when it is nowhere, -EACCES when found but not
 * executable, -EISDIR for a directory. */
int child_resolve(const char *cmd, char *path, size_t size);

struct child_opts {
	const char *stdout_path;  /* NULL: the launcher's stdout */
	const char *stderr_path;  /* NULL: the launcher's stderr */
	bool trace;               /* follow the tree with ptrace */
};

struct child {
	pid_t pid;        /* also its process group id; 0 when none */
	int go_fd;        /* write end of the start pipe */
	int err_fd;       /* read end: exec's errno, or EOF once exec succeeded */
	bool traced;      /* PTRACE_SEIZE succeeded */
	int trace_err;    /* its errno when it did not (then no exit stops) */
	/* set by child_start(): */
	struct rusage ru0;
	long long t0_ns;
};

/* Fork the child: its own process group, stdin from /dev/null when the
 * launcher's stdin is a terminal (a background group must not read it),
 * stdout/stderr to the files, then it waits for child_start(). While a
 * child exists, a SIGINT/SIGTERM to the launcher kills its group first
 * (cleanup.h hook). */
int child_prepare(struct child *c, char *const argv[], const struct child_opts *o);
/* Let the child exec. -errno of a failed exec (the child is then reaped),
 * else 0. */
int child_start(struct child *c);
/* SIGKILL the group and every traced process, reap them; safe on a child
 * that never started and more than once. */
void child_cancel(struct child *c);

/* What the tree did, from child_start() to the end of the last process. */
struct child_result {
	int status;             /* the command's wait status */
	bool timed_out;         /* killed by the timeout */
	long long wall_ns;      /* start to the command's exit */
	struct rusage ru;       /* the whole tree: RUSAGE_CHILDREN over the wait */
	long max_rss_kb;        /* the largest process of the tree */
	int nr_processes;       /* processes seen (with tracing) */
};

/* Called every interval with the live processes of the tree (thread-group
 * ids), and for a process stopped just before it exits. */
typedef void (*child_tick_fn)(void *ctx, const pid_t *pids, int n);
typedef void (*child_exit_fn)(void *ctx, pid_t pid);

struct child_watch {
	unsigned interval_ms;   /* 0: no periodic calls */
	long long timeout_ns;   /* 0: none */
	child_tick_fn tick;
	child_exit_fn at_exit;
	void *ctx;
};

/* Follow the tree until the command and every process left of its tree
 * have ended; when the command itself ends, the rest of its tree is
 * killed (no process outlives its trial). Fills 'res'. */
int child_wait(struct child *c, const struct child_watch *w, struct child_result *res);

#endif
