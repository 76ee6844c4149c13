// SPDX-License-Identifier: GPL-2.0-or-later
#include "commands.h"

/* One table, in the order of the command list: main, the generated man
 * pages and completion, and the tests read every command from here. A
 * command joins by adding its line (with its cmd_<name>.c and its extern in
 * commands.h). */
const struct ms_command *const ms_commands[] = {
	&cmd_info,
	&cmd_run,
	&cmd_analyze,
	&cmd_plot,
	&cmd_compare,
	&cmd_scan,
	&cmd_record,
	&cmd_collapse,
	&cmd_probe,
	&cmd_events,
	&cmd_restore,
	NULL,
};
