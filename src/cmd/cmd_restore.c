// SPDX-License-Identifier: GPL-2.0-or-later
/* mthpscope restore: apply a settings journal left by a process that died. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "atomic.h"
#include "cli.h"
#include "commands.h"
#include "thp.h"

struct restore_cmd_opts {
	int wait_s;
	bool have_wait;
};

static const struct cli_cmd restore_cli = {
	.name = "restore",
	.summary = "Put back THP settings that a killed mthpscope left changed.",
	.details = "Before its first write, mthpscope saves every THP knob it may touch to a\n"
		   "journal under /run (or $MTHPSCOPE_RUNDIR) and restores it on every exit path.\n"
		   "Only SIGKILL or a power loss can leave it behind; this command (or the next\n"
		   "mthpscope start as root) applies it and says what it changed. A corrupt or\n"
		   "truncated journal is refused and kept, for a person to read.\n"
		   "Every knob is written and read back; while one cannot be put back the\n"
		   "journal is kept and the exit status is 1.\n"
		   "Each FILE (a document's -o path) loses the FILE.tmp.PID files that writers\n"
		   "killed during their final write left, those of processes no longer running\n"
		   "(the next write of FILE removes them too).",
	.exit_status =
		   "0 restored or nothing to do, 1 corrupt journal or a knob not\n"
		   "restored, 2 usage error, 3 not root, its writer is still running, or\n"
		   "a FILE's directory cannot be read.",
	.args = "[FILE...]", /* documents whose killed writers' FILE.tmp.PID go */
	.opts = (const struct cli_opt[]){
		{ "wait", 'w', "SECONDS", "wait this long for a running mthpscope to finish (default: "
		  "$MTHPSCOPE_LOCK_WAIT, else 0)", CLI_ROW_INT(struct restore_cmd_opts, wait_s, 0, 3600),
		  CLI_GIVEN(struct restore_cmd_opts, have_wait) },
		CLI_END,
	},
};

static int restore_cmd(int argc, char **argv)
{
	struct restore_cmd_opts o = { 0 };
	struct thp_recovery r;
	char msg[512], path[4096];
	int i, err;

	i = cli_parse(&restore_cli, argc, argv, &o);
	if (i == CLI_DONE)
		return MS_EXIT_OK;
	if (i < 0)
		return MS_EXIT_USAGE;
	for (; i < argc; i++) {
		int n = *argv[i] ? atomic_remove_stale(argv[i]) : -EINVAL;

		if (n == -EINVAL) { /* '' names nothing: not "removed 0" */
			ms_err("restore: invalid FILE '' (a document's name)");
			return MS_EXIT_USAGE;
		}
		if (n < 0) { /* a typo in the directory: not "removed 0", exit 0 */
			ms_err("restore: %s: cannot read its directory: %s", argv[i], strerror(-n));
			return MS_EXIT_ENV;
		}
		printf("%s: removed %d temporary file%s of writers no longer running\n", argv[i],
		       n, n == 1 ? "" : "s");
	}
	if (o.have_wait)
		thp_set_lock_wait(o.wait_s);
	thp_journal_path(path, sizeof(path));
	err = thp_recover(&r);
	if (err == -EBUSY && r.pid) {
		ms_err("restore: the journal belongs to pid %d, which is still running and will "
		       "restore the settings itself", r.pid);
		return MS_EXIT_ENV;
	}
	if (err == -EBADMSG) {
		ms_err("restore: %s is corrupt or truncated; it was not applied and is kept for "
		       "inspection. Check the THP settings by hand, then delete it.", path);
		return MS_EXIT_FAIL;
	}
	if (err == -EIO) {
		printf("restored part of the THP settings saved by pid %d\n", r.pid);
		for (i = 0; i < r.nr_changed; i++)
			printf("  %s\n", r.changed[i]);
		for (i = 0; i < r.nr_failed; i++)
			ms_err("restore: not restored: %s", r.failed[i]);
		ms_err("restore: %s was kept (it still holds the settings that could not be "
		       "put back); fix the cause and run 'mthpscope restore' again", path);
		return MS_EXIT_FAIL;
	}
	if (err) {
		thp_strerror(err, msg, sizeof(msg));
		ms_err("restore: %s", msg);
		return ms_exit_for_errno(err);
	}
	if (!r.applied) {
		printf("nothing to restore: no journal at %s\n", path);
		return MS_EXIT_OK;
	}
	printf("restored the THP settings saved by pid %d (%d knob%s changed back)\n", r.pid,
	       r.nr_changed, r.nr_changed == 1 ? "" : "s");
	for (i = 0; i < r.nr_changed; i++)
		printf("  %s\n", r.changed[i]);
	return MS_EXIT_OK;
}

MS_COMMAND(restore, "put back THP settings left changed by a killed run");
