#include "docs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "completion.h"
#include "datadir.h"
#include "manpage.h"

/* Run man with these arguments; its exit status, 127 when it cannot run.
 * quiet: its stderr goes away (a "No manual entry" before our fallback). */
static int run_man(const char *a1, const char *a2, int quiet)
{
	int status, fd;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return 127;
	if (pid == 0) {
		if (quiet && (fd = open("/dev/null", O_WRONLY)) >= 0)
			dup2(fd, STDERR_FILENO);
		if (a2)
			execlp("man", "man", a1, a2, (char *)NULL);
		else
			execlp("man", "man", a1, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 127;
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
	if (!datadir_man_page(cmd, path, sizeof(path)) && !run_man("-l", path, 0))
		return MS_EXIT_OK;
	snprintf(page, sizeof(page), "mthpscope-%s", cmd);
	if (!run_man(page, NULL, 1))
		return MS_EXIT_OK;
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
