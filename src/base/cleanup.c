// SPDX-License-Identifier: GPL-2.0-or-later
#include "cleanup.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CLEANUP_MAX_HOOKS 8
#define CLEANUP_MAX_PATHS 8

static cleanup_fn hooks[CLEANUP_MAX_HOOKS];
static int nr_hooks;
/* Fixed-size storage: the signal handler must not touch malloc. */
static char paths[CLEANUP_MAX_PATHS][4096];
static volatile sig_atomic_t path_used[CLEANUP_MAX_PATHS];
static pid_t owner;
static volatile sig_atomic_t running;

/* Every signal whose default action ends the process restores first. */
static const int exit_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1,
				    SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF };
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };

static void run_hooks(void)
{
	int i;

	if (getpid() != owner || running)
		return;
	running = 1;
	for (i = 0; i < CLEANUP_MAX_PATHS; i++) {
		if (path_used[i]) {
			unlink(paths[i]);
			path_used[i] = 0;
		}
	}
	for (i = nr_hooks - 1; i >= 0; i--)
		hooks[i]();
	running = 0;
}

static void on_signal(int sig)
{
	int saved = errno;

	run_hooks();
	/* Die of the same signal so the parent sees what happened (128+sig). */
	signal(sig, SIG_DFL);
	errno = saved;
	raise(sig);
}

static void install(void)
{
	struct sigaction sa;
	size_t i;

	if (owner == getpid())
		return;
	owner = getpid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask); /* no second signal inside the restore */
	for (i = 0; i < sizeof(exit_signals) / sizeof(exit_signals[0]); i++) {
		struct sigaction old;

		/* nohup's SIGHUP stays ignored: a hangup did end a nohup'd run */
		if (exit_signals[i] == SIGHUP && sigaction(SIGHUP, NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(exit_signals[i], &sa, NULL);
	}
	sa.sa_flags = SA_RESETHAND;
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaction(fatal_signals[i], &sa, NULL);
	atexit(run_hooks);
}

int cleanup_add(cleanup_fn fn)
{
	int i;

	install();
	for (i = 0; i < nr_hooks; i++)
		if (hooks[i] == fn)
			return 0;
	if (nr_hooks >= CLEANUP_MAX_HOOKS)
		return -ENOSPC;
	hooks[nr_hooks++] = fn;
	return 0;
}

int cleanup_unlink_path(const char *path)
{
	int i;

	install();
	if (strlen(path) >= sizeof(paths[0]))
		return -ENAMETOOLONG;
	for (i = 0; i < CLEANUP_MAX_PATHS; i++) {
		if (!path_used[i]) {
			strcpy(paths[i], path);
			path_used[i] = 1;
			return i;
		}
	}
	return -ENOSPC;
}

void cleanup_forget_path(int id)
{
	if (id >= 0 && id < CLEANUP_MAX_PATHS)
		path_used[id] = 0;
}
