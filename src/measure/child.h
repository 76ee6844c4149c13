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
 * Job control: the child's group is in the background of the launcher's
 * terminal, so a process of it that reads the terminal (or writes to it
 * under `stty tostop`) is sent SIGTTIN/SIGTTOU. That signal is never passed
 * on into a stop-resume loop: the tree is killed at once and the result
 * says needs_tty. With child_opts.foreground the child's group is given the
 * terminal instead (tcsetpgrp, as a shell does) and it is taken back after.
 * A stop (kill -STOP, ^Z) keeps a traced process stopped until SIGCONT, as
 * untraced (PTRACE_LISTEN); ^Z of a command that has the terminal stops
 * the launcher as well, so that the shell sees its job stopped, and when
 * the shell continues it, the command goes on (with the terminal after fg).
 *
 * Its peak memory is the exec'd image's own: VmHWM of /proc/PID/status at
 * each exit stop (a fork copies the launcher's resident memory into the
 * child, and exec carries that copy's high-water mark into ru_maxrss).
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
	bool trace_exec;          /* with trace: a stop at each exec, for at_exec */
	/* opened read-only as stdin, each child its own offset ("/proc/self/
	 * fd/N" reopens an unlinked file); NULL: the launcher's stdin, or
	 * /dev/null when that is a terminal */
	const char *stdin_path;
	/* give the child's group the controlling terminal while it runs (when
	 * the launcher is in the foreground of one) */
	bool foreground;
	/* with foreground: a terminal stdin stays the child's (record, as
	 * perf record), not /dev/null */
	bool tty_stdin;
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
	/* the terminal given to the child (child_opts.foreground) */
	bool has_tty;
	int tty_fd;
};

/* An unlinked read-write file in $TMPDIR (else /tmp) by O_TMPFILE, or a
 * memfd where the filesystem has no O_TMPFILE: nothing of it is left after
 * any end of the launcher, SIGKILL included. 0 with *fd (O_CLOEXEC) or
 * -errno. A child reaches it as "/proc/self/fd/N". */
int child_tmpfile(int *fd);

/* Copy all of 'in' (a pipe, a socket) into a child_tmpfile(): the same
 * input for every child. At most max_bytes (-EFBIG beyond); 'waiting' (may
 * be NULL) is called once when nothing has come for 2 s, so the caller can
 * say what it waits for. 0 with *fd, or -errno. */
int child_stdin_snapshot(int in, unsigned long long max_bytes, void (*waiting)(void *ctx),
			 void *ctx, int *fd);

/* Every child's stdin, the same for each (as hyperfine's --input): 'file'
 * (NULL: the launcher's stdin). A regular file or a device is reopened by
 * each child from its start ('path' names it); a pipe, FIFO or socket is
 * read once into a child_tmpfile() (*fd, else -1; the caller closes it),
 * 'path' then "/proc/self/fd/N"; a terminal or a closed stdin gives "" (the
 * child_opts default). At most CHILD_INPUT_MAX bytes (-EFBIG); 'waiting' as
 * in child_stdin_snapshot. 0 or -errno (of 'file's open). */
#define CHILD_INPUT_MAX (1ULL << 30)
int child_input(const char *file, void (*waiting)(void *ctx), void *ctx, char *path, size_t size,
		int *fd);

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
	long max_rss_kb;        /* the largest process of the tree (VmHWM of its
				 * exec'd image when traced, else ru_maxrss) */
	bool rss_from_hwm;      /* max_rss_kb came from VmHWM */
	int nr_processes;       /* processes seen (with tracing) */
	bool needs_tty;         /* killed: it read (or wrote under tostop) the
				 * terminal from the background (SIGTTIN/SIGTTOU) */
	int nr_outlived;        /* processes alive when the command ended (killed,
				 * or waited for with wait_descendants) */
	int max_live;           /* the most processes alive at once (traced) */
	long long watch_cpu_ns; /* CPU time of the tick and at_exit calls */
	int ticks_skipped;      /* ticks put off to keep within cpu_budget */
	int exit_scans_skipped; /* processes not passed to at_exit, for the same
				 * (the command's own process always is) */
};

/* Called every interval with the live processes of the tree (thread-group
 * ids), and for a process stopped just before it exits: its last thread
 * 'tid' stands at its exit event, its memory still mapped. Read it through
 * /proc/TID: the leader's /proc/PID is empty once the leader itself has
 * gone on to exit (an exit_group stops the leader first). */
typedef void (*child_tick_fn)(void *ctx, const pid_t *pids, int n);
typedef void (*child_exit_fn)(void *ctx, pid_t pid, pid_t tid);

struct child_watch {
	unsigned interval_ms;   /* 0: no periodic calls */
	long long timeout_ns;   /* 0: none */
	child_tick_fn tick;
	child_exit_fn at_exit;
	/* a process stopped just after an exec (child_opts.trace_exec): its new
	 * image in place, nothing of it run; tid the thread that exec'd, now
	 * the leader. Within the budget, as a tick. */
	child_exit_fn at_exec;
	void *ctx;
	/* the share of the wall time the tick and at_exit calls may take in
	 * CPU time; while they are over it a tick is put off and an exit stop
	 * of a process other than the command is not passed on. 0: 0.02. */
	double cpu_budget;
	/* when the command ends, wait for the rest of its tree (to the
	 * timeout) instead of killing it; wall_ns then runs to the last */
	bool wait_descendants;
};

#define CHILD_CPU_BUDGET 0.02

/* Follow the tree until the command and every process left of its tree
 * have ended; when the command itself ends, the rest of its tree is
 * killed (no process outlives its trial) and counted in nr_outlived. When
 * the child had the terminal and died of the terminal's SIGINT or SIGQUIT,
 * the launcher raises that signal on itself once the terminal is back (the
 * user's ^C meant the whole run). Fills 'res'. */
int child_wait(struct child *c, const struct child_watch *w, struct child_result *res);

#endif
