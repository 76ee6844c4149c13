/* The subcommands; main.c lists them in one table. */
#ifndef COMMANDS_H
#define COMMANDS_H

#include "mthpscope.h"

extern const struct ms_command cmd_info;
extern const struct ms_command cmd_restore;
extern const struct ms_command cmd_run;
extern const struct ms_command cmd_collapse;
extern const struct ms_command cmd_analyze;
extern const struct ms_command cmd_plot;
extern const struct ms_command cmd_scan;
extern const struct ms_command cmd_events;
extern const struct ms_command cmd_compare;

#endif
