// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "docs.h"
#include "thp.h"

static void usage(FILE *f)
{
	const struct ms_command *const *c;

	fprintf(f, "Usage: mthpscope COMMAND [OPTIONS]\n\n"
		   "Measure what each multi-size THP (mTHP) folio order buys in address\n"
		   "translation on this CPU and kernel.\n\nCommands:\n");
	for (c = ms_commands; *c; c++)
		fprintf(f, "  %-10s %s\n", (*c)->name, (*c)->summary);
	fprintf(f, "\n'mthpscope COMMAND --help' describes a command.\n"
		   "'mthpscope help COMMAND' shows its manual page.\n"
		   "Options: -h, --help   this text;  -V, --version   the version\n"
		   "Exit status: 0 success, 1 runtime failure, 2 usage error,\n"
		   "3 the environment cannot do what was asked (no root, no PMU, no mTHP).\n");
}

/* A journal left by a process that died: put the user's settings back
 * before anything else happens. */
static void recover_stale_journal(const char *cmd)
{
	struct thp_recovery r;
	char msg[512];
	int err, i;

	if (!strcmp(cmd, "restore") || !thp_journal_exists())
		return;
	/* Never wait here: a live writer's lock means its journal is not stale. */
	thp_set_lock_wait(0);
	err = thp_recover(&r);
	thp_set_lock_wait(-1);
	if (err == -EPERM) {
		ms_warn("THP settings changed by a process that died are still in effect; "
			"run 'mthpscope restore' as root to put them back");
		return;
	}
	if (err == -EBUSY)
		return; /* its writer is alive and will restore */
	if (err == -EIO) {
		for (i = 0; i < r.nr_failed; i++)
			ms_warn("THP setting left by pid %d not restored: %s", r.pid, r.failed[i]);
	}
	if (err) {
		thp_strerror(err, msg, sizeof(msg));
		ms_warn("a settings journal was left behind but could not be applied: %s; "
			"see 'mthpscope restore --help'", msg);
		return;
	}
	if (r.applied) {
		ms_note("restored THP settings left changed by pid %d:", r.pid);
		for (i = 0; i < r.nr_changed; i++)
			fprintf(stderr, "  %s\n", r.changed[i]);
	}
}

/* The normal exit path: every knob this process changed is written back
 * and read back; one that is not keeps the journal and fails the command. */
static int report_restore(int rc)
{
	const struct thp_recovery *r;
	char msg[512];
	int i;

	if (!thp_restore())
		return rc;
	r = thp_restore_result();
	for (i = 0; i < r->nr_failed; i++)
		ms_err("THP setting not restored: %s", r->failed[i]);
	thp_strerror(-EIO, msg, sizeof(msg));
	ms_err("%s", msg);
	return rc == MS_EXIT_OK ? MS_EXIT_FAIL : rc;
}

int main(int argc, char **argv)
{
	const struct ms_command *const *c;
	int rc, wait_s;

	/* A closed pipe (mthpscope ... | head) must not kill us with the THP
	 * knobs changed: writes fail with EPIPE instead and we exit 1. */
	signal(SIGPIPE, SIG_IGN);
	/* nothing a process, a document or an argument names reaches the
	 * terminal as a control byte (src/base/term.c) */
	if (ms_term_guard())
		return MS_EXIT_FAIL;
	if (thp_lock_wait_env(&wait_s)) {
		ms_err("MTHPSCOPE_LOCK_WAIT='%s': seconds to wait for the THP lock, a whole "
		       "number from 0 to %d", getenv("MTHPSCOPE_LOCK_WAIT"), THP_LOCK_WAIT_MAX);
		return MS_EXIT_USAGE;
	}
	if (argc < 2) {
		usage(stderr);
		return MS_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") && argc > 3) {
		ms_err("help: unexpected argument '%s' (usage: mthpscope help COMMAND)", argv[3]);
		return MS_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") && argc > 2)
		return docs_help(ms_commands, argv[2]);
	if (!strcmp(argv[1], "--man-page") || !strcmp(argv[1], "--bash-completion"))
		return docs_generate(ms_commands, argc - 1, argv + 1);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return cli_stdout_finish(MS_EXIT_OK);
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("mthpscope %s\n", ms_version);
		return cli_stdout_finish(MS_EXIT_OK);
	}
	for (c = ms_commands; *c; c++) {
		if (strcmp(argv[1], (*c)->name))
			continue;
		recover_stale_journal((*c)->name);
		rc = (*c)->run(argc - 1, argv + 1);
		rc = report_restore(rc);
		return cli_stdout_finish(rc);
	}
	ms_err("unknown command '%s'", argv[1]);
	fputc('\n', stderr);
	usage(stderr);
	return MS_EXIT_USAGE;
}
