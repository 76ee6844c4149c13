// SPDX-License-Identifier: GPL-2.0-or-later
#include "docs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "completion.h"
#include "datadir.h"
#include "manpage.h"

/* man's output into our stdout; a failed write stops the copy (man then
 * gets EPIPE or SIGPIPE) and stays in stdout's error state for
 * cli_stdout_error(). */
static void copy_to_stdout(int fd)
{
	char buf[8192];
	ssize_t n;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		if (fwrite(buf, 1, n, stdout) != (size_t)n || cli_stdout_error())
			return;
	}
}

/* Run man with these arguments; its exit status, 127 when it cannot run.
 * quiet: its stderr goes away (a "No manual entry" before our fallback).
 * On a terminal man pages through its pager itself; otherwise its page
 * comes through a pipe and we write it, because man ignores a failed
 * write (help run > /dev/full exited 0). */
static int run_man(const char *a1, const char *a2, int quiet)
{
	int status, fd, pfd[2] = { -1, -1 }, rc = 127;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	if (!isatty(STDOUT_FILENO) && pipe2(pfd, O_CLOEXEC))
		return 127;
	pid = fork();
	if (pid < 0)
		goto out;
	if (pid == 0) {
		if (quiet && (fd = open("/dev/null", O_WRONLY)) >= 0)
			dup2(fd, STDERR_FILENO);
		if (pfd[1] >= 0)
			dup2(pfd[1], STDOUT_FILENO);
		signal(SIGPIPE, SIG_DFL); /* main() ignores it; man need not */
		if (a2)
			execlp("man", "man", a1, a2, (char *)NULL);
		else
			execlp("man", "man", a1, (char *)NULL);
		_exit(127);
	}
	if (pfd[1] >= 0) {
		close(pfd[1]);
		pfd[1] = -1;
		copy_to_stdout(pfd[0]);
		close(pfd[0]); /* a man still writing gets SIGPIPE */
		pfd[0] = -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			goto out;
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 127;
out:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	return rc;
}

/* What main() does after a command: a failed write to stdout is a failure. */
static int flushed(int rc)
{
	return cli_stdout_finish(rc); /* the one helper: errno said, EPIPE quiet */
}

int docs_help(const struct ms_command *const *cmds, const char *cmd)
{
	const struct ms_command *const *c;
	char path[PATH_MAX], page[128];

	for (c = cmds; *c && strcmp((*c)->name, cmd); c++)
		;
	if (!*c) {
		ms_err("help: unknown command '%s'", cmd);
		return MS_EXIT_USAGE;
	}
	/* A write error ends here too: no fallback page after a failed one. */
	if (!datadir_man_page(cmd, path, sizeof(path)) &&
	    (!run_man("-l", path, 0) || cli_stdout_error()))
		return flushed(MS_EXIT_OK);
	snprintf(page, sizeof(page), "mthpscope-%s", cmd);
	if (!run_man(page, NULL, 1) || cli_stdout_error())
		return flushed(MS_EXIT_OK);
	if ((*c)->cli)
		cli_usage((*c)->cli, stdout);
	return flushed(MS_EXIT_OK);
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap + 65536);
			if (!nb) {
				free(buf);
				buf = NULL;
				goto out;
			}
			buf = nb;
			cap += 65536;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n);
	if (ferror(f)) {
		free(buf);
		buf = NULL;
		goto out;
	}
	buf[len] = '\0';
out:
	fclose(f);
	return buf;
}

int docs_generate(const struct ms_command *const *cmds, int argc, char **argv)
{
	char *desc;
	int err;

	if (!strcmp(argv[0], "--bash-completion") && argc == 1)
		return flushed(completion_write_bash(cmds, stdout) ? MS_EXIT_FAIL : MS_EXIT_OK);
	if (strcmp(argv[0], "--man-page") || argc != 3) {
		ms_err("usage: mthpscope --man-page CMD|mthpscope DESC.txt | --bash-completion");
		return MS_EXIT_USAGE;
	}
	errno = 0;
	if (!(desc = read_text(argv[2]))) {
		ms_err("%s: %s", argv[2], strerror(errno ? errno : ENOMEM));
		return MS_EXIT_FAIL;
	}
	err = manpage_write(cmds, argv[1], desc, stdout);
	free(desc);
	if (err == -ENOENT) {
		ms_err("--man-page: unknown command '%s'", argv[1]);
		return MS_EXIT_USAGE;
	}
	return flushed(err ? MS_EXIT_FAIL : MS_EXIT_OK);
}
