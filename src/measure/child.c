// SPDX-License-Identifier: GPL-2.0-or-later
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "mthpscope.h"

/* The group the signal hook kills: one child at a time. */
static volatile sig_atomic_t current_pgid;

/* Async-signal-safe: runs before the THP restore hook (registered later,
 * run first), so no process of the trial still runs at the old settings. */
static void kill_current(void)
{
	pid_t g = (pid_t)current_pgid;
	struct timespec tick = { 0, 10000000 };
	int i, saved = errno;

	if (g <= 0)
		return;
	/* reap what dies (orphans come here: we are their subreaper), for at
	 * most a second, so that no process of the trial is left when the
	 * knobs go back and the launcher exits */
	for (i = 0; i < 100 && kill(-g, 0) == 0; i++) {
		pid_t r;
		int st;

		kill(-g, SIGKILL);
		r = waitpid(-1, &st, __WALL | WNOHANG);
		if (r < 0 && errno == ECHILD)
			break; /* a zombie left is its new parent's to reap */
		/* even a killed tracee stops at PTRACE_EVENT_EXIT: let it go */
		if (r > 0 && WIFSTOPPED(st))
			ptrace(PTRACE_CONT, r, NULL, NULL);
		if (r == 0)
			nanosleep(&tick, NULL);
	}
	errno = saved;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int child_resolve(const char *cmd, char *path, size_t size)
{
	const char *p, *env = getenv("PATH");
	struct stat st;
	int err = -ENOENT;

	if (!cmd || !*cmd)
		return -ENOENT;
	if (strchr(cmd, '/')) {
		if (stat(cmd, &st))
			return -errno;
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (access(cmd, X_OK))
			return -EACCES;
		snprintf(path, size, "%s", cmd);
		return 0;
	}
	for (p = env && *env ? env : "/usr/local/bin:/usr/bin:/bin"; p; p = strchr(p, ':')) {
		const char *end;
		char cand[4096];
		size_t len;

		if (*p == ':')
			p++;
		end = strchr(p, ':');
		len = end ? (size_t)(end - p) : strlen(p);
		if (snprintf(cand, sizeof(cand), "%.*s%s%s", (int)len, p, len ? "/" : "./", cmd) >=
		    (int)sizeof(cand))
			continue;
		if (stat(cand, &st) || S_ISDIR(st.st_mode))
			continue;
		if (access(cand, X_OK)) {
			err = -EACCES;
			continue;
		}
		snprintf(path, size, "%s", cand);
		return 0;
	}
	return err;
}

int child_tmpfile(int *fd)
{
	const char *dir = getenv("TMPDIR");
	int f = -1;

	if (dir && *dir)
		f = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (f < 0)
		f = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (f < 0)
		f = memfd_create("mthpscope-cmd", MFD_CLOEXEC);
	if (f < 0)
		return -errno;
	*fd = f;
	return 0;
}

int child_stdin_snapshot(int in, unsigned long long max_bytes, void (*waiting)(void *ctx),
			 void *ctx, int *fd)
{
	unsigned long long total = 0;
	struct pollfd pfd = { .fd = in, .events = POLLIN };
	bool said = false;
	char *buf = malloc(65536);
	int f = -1, err;

	if (!buf)
		return -ENOMEM;
	if ((err = child_tmpfile(&f)))
		goto out;
	for (;;) {
		ssize_t n;
		int r = poll(&pfd, 1, said || !waiting ? -1 : 2000);

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			waiting(ctx);
			said = true;
			continue;
		}
		n = read(in, buf, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			goto out;
		}
		if (n == 0)
			break;
		total += (unsigned long long)n;
		if (total > max_bytes) {
			err = -EFBIG;
			goto out;
		}
		if ((err = ms_write_all(f, buf, (size_t)n)))
			goto out;
	}
	*fd = f;
	f = -1;
out:
	if (f >= 0)
		close(f);
	free(buf);
	return err;
}

int child_input(const char *file, void (*waiting)(void *ctx), void *ctx, char *path, size_t size,
		int *fd)
{
	struct stat st;
	int in = file ? open(file, O_RDONLY | O_CLOEXEC) : STDIN_FILENO, err = 0;

	*fd = -1;
	path[0] = '\0';
	if (in < 0)
		return -errno;
	if ((!file && isatty(in)) || fstat(in, &st))
		goto out; /* the default: /dev/null for a terminal */
	if (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
		snprintf(path, size, "%s", file ? file : "/proc/self/fd/0");
		goto out;
	}
	if ((err = child_stdin_snapshot(in, CHILD_INPUT_MAX, waiting, ctx, fd)))
		goto out;
	snprintf(path, size, "/proc/self/fd/%d", *fd);
out:
	if (file)
		close(in);
	return err;
}

static int redirect(const char *path, int fd)
{
	int f;

	if (!path)
		return 0;
	f = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (f < 0)
		return -1;
	if (dup2(f, fd) < 0)
		return -1;
	close(f);
	return 0;
}

/* In the child: never returns. */
static void child_main(int go, int errw, char *const argv[], const struct child_opts *o)
{
	char c;
	int e = 0;

	setpgid(0, 0);
	/* the launcher's handlers and mask are not the command's */
	for (int s = 1; s < NSIG; s++)
		signal(s, SIG_DFL);
	{
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
	}
	if (o->stdin_path || (isatty(STDIN_FILENO) && !(o->foreground && o->tty_stdin))) {
		int n = open(o->stdin_path ? o->stdin_path : "/dev/null", O_RDONLY);

		if (n < 0)
			e = errno;
		if (n >= 0 && n != STDIN_FILENO) {
			dup2(n, STDIN_FILENO);
			close(n);
		}
	}
	if (!e && (redirect(o->stdout_path, STDOUT_FILENO) ||
		   redirect(o->stderr_path, STDERR_FILENO)))
		e = errno;
	/* wait for child_start(): EOF without a byte means cancel */
	while (!e && read(go, &c, 1) < 0 && errno == EINTR)
		;
	if (!e && c == 'g') {
		execvp(argv[0], argv);
		e = errno;
	} else if (!e) {
		_exit(127);
	}
	while (write(errw, &e, sizeof(e)) < 0 && errno == EINTR)
		;
	_exit(127);
}

/* The launcher's own writes to the terminal must not stop it while the
 * child's group has it (SIGTTOU under tostop): ignored meanwhile. */
static struct sigaction ttou_saved;

static void give_tty(struct child *c)
{
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (tcgetpgrp(fd) != getpgrp() || tcsetpgrp(fd, c->pid)) {
		close(fd);
		return;
	}
	sigaction(SIGTTOU, &(struct sigaction){ .sa_handler = SIG_IGN }, &ttou_saved);
	c->has_tty = true;
	c->tty_fd = fd;
}

static void take_tty_back(struct child *c)
{
	if (!c->has_tty)
		return;
	/* SIGTTOU ignored: a background group may set the foreground one */
	tcsetpgrp(c->tty_fd, getpgrp());
	sigaction(SIGTTOU, &ttou_saved, NULL);
	close(c->tty_fd);
	c->has_tty = false;
	c->tty_fd = -1;
}

int child_prepare(struct child *c, char *const argv[], const struct child_opts *o)
{
	int go[2] = { -1, -1 }, ex[2] = { -1, -1 }, err = 0;
	pid_t pid;

	memset(c, 0, sizeof(*c));
	c->go_fd = c->err_fd = -1;
	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC)) {
		err = -errno;
		goto out;
	}
	if ((err = cleanup_add(kill_current)))
		goto out;
	/* orphans of the tree come back here: their usage counts, and
	 * nothing of the trial outlives it unseen */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto out;
	}
	if (pid == 0) {
		close(go[1]);
		close(ex[0]);
		child_main(go[0], ex[1], argv, o);
	}
	/* both sides set the group: whichever runs first, it exists before
	 * anything is sent to it */
	setpgid(pid, pid);
	c->pid = pid;
	current_pgid = pid;
	if (o->foreground)
		give_tty(c);
	c->go_fd = go[1];
	c->err_fd = ex[0];
	go[1] = ex[0] = -1;
	if (o->trace) {
		long opts = PTRACE_O_TRACEEXIT | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
			    PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL |
			    (o->trace_exec ? PTRACE_O_TRACEEXEC : 0);

		if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)opts) == 0)
			c->traced = true;
		else
			c->trace_err = errno;
	}
out:
	if (go[0] >= 0)
		close(go[0]);
	if (go[1] >= 0)
		close(go[1]);
	if (ex[0] >= 0)
		close(ex[0]);
	if (ex[1] >= 0)
		close(ex[1]);
	return err;
}

/* ^Z stopped the command, which has the terminal: the terminal back and
 * the launcher stopped too, as a shell's job stops as a whole; once the
 * shell continues it (fg, bg), the command goes on, with the terminal if
 * the launcher has it again (fg). Where SIGTSTP does not stop the launcher
 * (ignored, or its group orphaned), the command goes on at once; one that
 * does not have the terminal waits for whoever stopped it. */
static void suspend(struct child *c)
{
	if (!c->has_tty)
		return;
	tcsetpgrp(c->tty_fd, getpgrp()); /* SIGTTOU ignored (give_tty) */
	raise(SIGTSTP);
	if (tcgetpgrp(c->tty_fd) == getpgrp())
		tcsetpgrp(c->tty_fd, c->pid);
	kill(-c->pid, SIGCONT);
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* A stop of the traced child before its exec, answered as child_wait
 * would (it has the terminal already, and ^Z or ^C may come first): else
 * it waits for its tracer, blocked on the pipe. Its exec's own stop is
 * left to child_wait (the pipe has told the exec by then). */
static void answer_early_stop(struct child *c)
{
	siginfo_t si = { 0 };
	int st, ev, sig;

	if (waitid(P_PID, (id_t)c->pid, &si, WSTOPPED | WNOHANG | WNOWAIT | __WALL) ||
	    si.si_pid != c->pid || si.si_status == (SIGTRAP | PTRACE_EVENT_EXEC << 8))
		return;
	if (waitpid(c->pid, &st, __WALL | WNOHANG) != c->pid || !WIFSTOPPED(st))
		return;
	ev = st >> 16;
	sig = WSTOPSIG(st);
	if (ev == PTRACE_EVENT_STOP && is_stop_signal(sig)) {
		ptrace(PTRACE_LISTEN, c->pid, NULL, NULL);
		if (sig == SIGTSTP)
			suspend(c);
		return;
	}
	ptrace(PTRACE_CONT, c->pid, NULL, (void *)(long)(ev ? 0 : sig));
}

int child_start(struct child *c)
{
	char g = 'g';
	int e = 0;
	ssize_t n;

	if (c->pid <= 0 || c->go_fd < 0)
		return -EINVAL;
	getrusage(RUSAGE_CHILDREN, &c->ru0);
	c->t0_ns = now_ns();
	while ((n = write(c->go_fd, &g, 1)) < 0 && errno == EINTR)
		;
	close(c->go_fd);
	c->go_fd = -1;
	if (n != 1)
		return -EPIPE;
	/* EOF: exec closed the pipe (O_CLOEXEC); an int: exec's errno */
	for (;;) {
		struct pollfd pfd = { .fd = c->err_fd, .events = POLLIN };
		int r = poll(&pfd, 1, 20);

		if (r > 0 || (r < 0 && errno != EINTR))
			break;
		if (c->traced)
			answer_early_stop(c);
	}
	while ((n = read(c->err_fd, &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(c->err_fd);
	c->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		child_cancel(c);
		return -(e ? e : ENOEXEC);
	}
	return 0;
}

/* ---- following the tree --------------------------------------------------- */

struct proc {
	pid_t tid, tgid;
	bool alive;
	bool exiting;           /* stopped at its exit event (not yet reaped) */
};

struct tree {
	struct proc *p;
	int n;
	size_t cap;
	int nr_processes, nr_live; /* thread groups seen, alive */
	bool needs_tty;            /* a SIGTTIN/SIGTTOU was seen */
	bool suspended;            /* a group stop by SIGTSTP (^Z) was seen */
	long hwm_kb;               /* the largest VmHWM at an exit stop */
	long long watch_cpu_ns;
	long long t0_ns;           /* the command's start */
	double budget;             /* watch CPU / wall time */
	int exit_skipped;          /* at_exit calls left out for the budget */
};

static bool over_budget(const struct tree *t, long long now)
{
	return (double)t->watch_cpu_ns > t->budget * (double)(now - t->t0_ns);
}

/* The CPU time of the launcher (the watch's calls run in it, their scan
 * workers too). */
static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* "Tgid:" or "VmHWM:" (kB) of /proc/TID/status; 'def' when absent. */
static long read_status(pid_t tid, const char *key, long def)
{
	char path[64], line[128];
	size_t kl = strlen(key);
	FILE *f;
	long v = def;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return def;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && sscanf(line + kl, "%ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

static struct proc *tree_find(struct tree *t, pid_t tid)
{
	for (int i = t->n - 1; i >= 0; i--)
		if (t->p[i].tid == tid)
			return &t->p[i];
	return NULL;
}

static struct proc *tree_add(struct tree *t, pid_t tid, pid_t tgid)
{
	struct proc *p = tree_find(t, tid);

	if (p)
		return p;
	if (MS_GROW(t->p, t->n, t->cap, 64))
		return NULL;
	p = &t->p[t->n++];
	*p = (struct proc){ .tid = tid, .tgid = tgid ? tgid : (pid_t)read_status(tid, "Tgid:", tid),
			    .alive = true };
	t->nr_processes += p->tgid == tid;
	t->nr_live += p->tgid == tid;
	return p;
}

/* The live thread-group ids, each once (a thread group's leader entry
 * stands for it), into a buffer grown as needed. */
static int tree_tgids(const struct tree *t, pid_t **out, size_t *cap)
{
	int n = 0;

	for (int i = 0; i < t->n; i++) {
		if (!t->p[i].alive || t->p[i].tid != t->p[i].tgid)
			continue;
		if (MS_GROW(*out, n, *cap, 256))
			return -ENOMEM;
		(*out)[n++] = t->p[i].tgid;
	}
	return n;
}

static void tree_kill(const struct tree *t, pid_t pgid)
{
	kill(-pgid, SIGKILL);
	for (int i = 0; i < t->n; i++)
		if (t->p[i].alive)
			kill(t->p[i].tid, SIGKILL);
}

/* Whether another thread of p's process still runs: one known to the
 * tree, neither reaped nor at its exit event, and still in /proc (a
 * thread that exec'd from outside the leader took the leader's tid, and
 * its own is never reported again). */
static bool other_thread_runs(const struct tree *t, const struct proc *p)
{
	char path[64];

	for (int i = 0; i < t->n; i++) {
		const struct proc *q = &t->p[i];

		if (q == p || q->tgid != p->tgid || !q->alive || q->exiting)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)q->tgid, (int)q->tid);
		if (!access(path, F_OK))
			return true;
	}
	return false;
}

/* An exit stop calls at_exit when the process ends: at the exit event of
 * its last thread (an exit_group stops every thread there, the last to
 * stop still holds the memory). A thread that ends before the others is
 * not the process ending: its memory stays theirs. */
static void on_exit_event(struct tree *t, struct proc *p, pid_t pid, const struct child_watch *w)
{
	long long now = now_ns(), c0;
	long hwm = read_status(pid, "VmHWM:", 0);

	/* the mm is still there: its high-water mark since exec */
	if (hwm > t->hwm_kb)
		t->hwm_kb = hwm;
	p->exiting = true;
	if (!w->at_exit || other_thread_runs(t, p))
		return;
	/* within the budget, except the command itself */
	if (p->tgid != t->p[0].tgid && over_budget(t, now)) {
		t->exit_skipped++;
		return;
	}
	c0 = cpu_ns();
	w->at_exit(w->ctx, p->tgid, pid);
	t->watch_cpu_ns += cpu_ns() - c0;
}

static void on_stop(struct tree *t, pid_t pid, int st, const struct child_watch *w)
{
	int ev = st >> 16, sig = WSTOPSIG(st);
	unsigned long msg = 0;
	struct proc *p = tree_add(t, pid, 0);

	/* a stop other than at its exit: the thread runs (the leader whose
	 * tid a non-leader took over at exec was stopped at its exit) */
	if (p && ev != PTRACE_EVENT_EXIT)
		p->exiting = false;
	if (ev == PTRACE_EVENT_EXIT) {
		if (p)
			on_exit_event(t, p, pid, w);
		sig = 0;
	} else if (ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK ||
		   ev == PTRACE_EVENT_CLONE) {
		if (!ptrace(PTRACE_GETEVENTMSG, pid, NULL, &msg) && msg)
			tree_add(t, (pid_t)msg, ev == PTRACE_EVENT_CLONE ? 0 : (pid_t)msg);
		sig = 0;
	} else if (ev == PTRACE_EVENT_EXEC) {
		if (p && w->at_exec && !over_budget(t, now_ns())) {
			long long c0 = cpu_ns();

			w->at_exec(w->ctx, p->tgid, pid);
			t->watch_cpu_ns += cpu_ns() - c0;
		}
		sig = 0;
	} else if (ev == PTRACE_EVENT_STOP && is_stop_signal(sig)) {
		/* a group stop (kill -STOP, ^Z): the process stays stopped,
		 * as it would untraced, until SIGCONT (PTRACE_LISTEN: it does
		 * not run, and its tracer still hears of what comes next) */
		t->suspended |= sig == SIGTSTP;
		ptrace(PTRACE_LISTEN, pid, NULL, NULL);
		return;
	} else if (ev == PTRACE_EVENT_STOP) {
		/* the first stop of an auto-attached child, or the end of a
		 * group stop (SIGCONT) told to a listening tracer */
		sig = 0;
	} else if (sig == SIGTTIN || sig == SIGTTOU) {
		/* the terminal from the background: passed on, it stops the
		 * group, which the line above would resume into the same read
		 * (a spin on both CPUs); the tree is killed instead */
		t->needs_tty = true;
		sig = 0;
	}
	ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
}

static struct timeval tv_sub(struct timeval b, struct timeval a)
{
	long long us = ((long long)b.tv_sec - a.tv_sec) * 1000000LL + (b.tv_usec - a.tv_usec);

	return (struct timeval){ .tv_sec = (time_t)(us / 1000000), .tv_usec = us % 1000000 };
}

static void rusage_delta(const struct rusage *a, const struct rusage *b, struct rusage *d)
{
	memset(d, 0, sizeof(*d));
	d->ru_utime = tv_sub(b->ru_utime, a->ru_utime);
	d->ru_stime = tv_sub(b->ru_stime, a->ru_stime);
	d->ru_minflt = b->ru_minflt - a->ru_minflt;
	d->ru_majflt = b->ru_majflt - a->ru_majflt;
	d->ru_nvcsw = b->ru_nvcsw - a->ru_nvcsw;
	d->ru_nivcsw = b->ru_nivcsw - a->ru_nivcsw;
	d->ru_inblock = b->ru_inblock - a->ru_inblock;
	d->ru_oublock = b->ru_oublock - a->ru_oublock;
}

/* Reap what is ready; returns -ECHILD when nothing is left, else 0. */
static int reap_ready(struct child *c, struct tree *t, const struct child_watch *w,
		      struct child_result *res, bool *main_done)
{
	struct rusage ru;
	pid_t pid;
	int st;

	while ((pid = wait4(-1, &st, __WALL | WNOHANG | WUNTRACED, &ru)) > 0) {
		struct proc *p;

		if (WIFSTOPPED(st) && c->traced) {
			on_stop(t, pid, st, w);
			if (t->nr_live > res->max_live)
				res->max_live = t->nr_live;
			continue;
		}
		if (WIFSTOPPED(st)) {
			/* untraced: only a terminal stop is ours to end */
			if (WSTOPSIG(st) == SIGTTIN || WSTOPSIG(st) == SIGTTOU)
				t->needs_tty = true;
			continue;
		}
		p = tree_find(t, pid);
		if (p && p->alive && p->tgid == pid)
			t->nr_live--;
		if (p)
			p->alive = false;
		if (!p || p->tgid == pid)
			res->max_rss_kb = ru.ru_maxrss > res->max_rss_kb ? ru.ru_maxrss
									  : res->max_rss_kb;
		if (pid == c->pid) {
			res->status = st;
			res->wall_ns = now_ns() - c->t0_ns;
			res->nr_outlived = -1; /* counted once the batch is reaped */
			*main_done = true;
		}
	}
	return pid < 0 && errno == ECHILD ? -ECHILD : 0;
}

/* A periodic call, unless the watch is over its CPU budget: then it is put
 * off to the next interval. */
static int tick(struct child *c, struct tree *t, const struct child_watch *w,
		struct child_result *res, pid_t **pids, size_t *cap)
{
	long long c0;
	int n;

	(void)c;
	if (over_budget(t, now_ns())) {
		res->ticks_skipped++;
		return 0;
	}
	n = tree_tgids(t, pids, cap);
	if (n < 0)
		return n;
	c0 = cpu_ns();
	if (w->tick && n)
		w->tick(w->ctx, *pids, n);
	t->watch_cpu_ns += cpu_ns() - c0;
	return 0;
}

/* ^Z reaches every process of the group at once, each stopping in turn:
 * their stops are taken until none comes for 20 ms (at most 0.5 s), so
 * that none is left to stop the group again after the shell continues
 * it. */
static void settle(struct child *c, struct tree *t, const struct child_watch *w,
		   struct child_result *res, bool *main_done)
{
	struct timespec quiet = { 0, 20000000 };
	sigset_t chld;
	int i;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (i = 0; i < 25 && sigtimedwait(&chld, NULL, &quiet) == SIGCHLD; i++)
		reap_ready(c, t, w, res, main_done);
}

/* How long to sleep: to the next tick or the deadline, at most 1 s. */
static long long wait_until(long long now, long long next_tick, long long deadline,
			    bool main_done, bool killed)
{
	long long until = now + 1000000000LL;

	if (!main_done && next_tick >= 0 && next_tick < until)
		until = next_tick;
	if (deadline >= 0 && !killed && deadline < until)
		until = deadline;
	return until < now ? now : until;
}

/* The end of the wait: usage, the terminal back, the command's ^C. */
static void wait_done(struct child *c, struct tree *t, struct child_result *res)
{
	struct rusage ru1;
	bool ctrl_c;

	getrusage(RUSAGE_CHILDREN, &ru1);
	rusage_delta(&c->ru0, &ru1, &res->ru);
	res->nr_processes = t->nr_processes;
	res->needs_tty = t->needs_tty;
	res->watch_cpu_ns = t->watch_cpu_ns;
	res->exit_scans_skipped = t->exit_skipped;
	if (res->nr_outlived < 0)
		res->nr_outlived = 0;
	if (c->traced && t->hwm_kb > 0) {
		res->max_rss_kb = t->hwm_kb;
		res->rss_from_hwm = true;
	}
	ctrl_c = c->has_tty && WIFSIGNALED(res->status) &&
		 (WTERMSIG(res->status) == SIGINT || WTERMSIG(res->status) == SIGQUIT);
	take_tty_back(c);
	c->pid = 0;
	current_pgid = 0;
	if (ctrl_c)
		raise(WTERMSIG(res->status));
}

int child_wait(struct child *c, const struct child_watch *w, struct child_result *res)
{
	struct tree t = { 0 };
	sigset_t chld, old;
	long long next_tick, deadline, interval = (long long)w->interval_ms * 1000000LL;
	bool main_done = false, killed = false;
	pid_t *pids = NULL;
	int err = 0;
	size_t cap = 0;

	memset(res, 0, sizeof(*res));
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	/* blocked before the first reap: a change after it stays pending and
	 * wakes sigtimedwait */
	sigprocmask(SIG_BLOCK, &chld, &old);
	t.t0_ns = c->t0_ns;
	t.budget = w->cpu_budget > 0 ? w->cpu_budget : CHILD_CPU_BUDGET;
	if (!tree_add(&t, c->pid, c->pid)) {
		err = -ENOMEM;
		goto out;
	}
	next_tick = interval ? c->t0_ns + interval : -1;
	deadline = w->timeout_ns > 0 ? c->t0_ns + w->timeout_ns : -1;
	for (;;) {
		struct timespec ts;
		long long now, until;

		if (reap_ready(c, &t, w, res, &main_done) == -ECHILD)
			break;
		if (t.suspended) {
			settle(c, &t, w, res, &main_done);
			t.suspended = false;
			suspend(c);
		}
		if (res->nr_outlived < 0)
			res->nr_outlived = t.nr_live;
		if (!killed && (t.needs_tty || (main_done && !w->wait_descendants))) {
			/* what is left of the tree ends with its command */
			tree_kill(&t, c->pid);
			killed = true;
			continue;
		}
		now = now_ns();
		if (deadline >= 0 && now >= deadline && !killed) {
			res->timed_out = !main_done;
			tree_kill(&t, c->pid);
			killed = true;
			continue;
		}
		if (!main_done && next_tick >= 0 && now >= next_tick) {
			if ((err = tick(c, &t, w, res, &pids, &cap)))
				goto out;
			now = now_ns();
			next_tick += interval;
			if (next_tick <= now)
				next_tick = now + interval;
		}
		until = wait_until(now, next_tick, deadline, main_done, killed);
		ts.tv_sec = (until - now) / 1000000000LL;
		ts.tv_nsec = (until - now) % 1000000000LL;
		sigtimedwait(&chld, NULL, &ts);
	}
	if (w->wait_descendants && main_done)
		res->wall_ns = now_ns() - c->t0_ns;
	wait_done(c, &t, res);
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(pids);
	free(t.p);
	if (err)
		child_cancel(c);
	return err;
}

void child_cancel(struct child *c)
{
	int st;

	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->go_fd = c->err_fd = -1;
	if (c->pid > 0) {
		kill(-c->pid, SIGKILL);
		kill(c->pid, SIGKILL);
		/* traced processes of the tree die with their tracer's kill
		 * (PTRACE_O_EXITKILL) or the group's; reap every one */
		for (;;) {
			pid_t r = waitpid(-1, &st, __WALL);

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				break;
			/* a killed tracee still stops at its exit event */
			if (WIFSTOPPED(st))
				ptrace(PTRACE_CONT, r, NULL, NULL);
		}
	}
	take_tty_back(c);
	c->pid = 0;
	current_pgid = 0;
}
