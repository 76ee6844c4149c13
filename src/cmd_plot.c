/* placeholder, replaced below */
#include "commands.h"
static int plot_cmd(int argc, char **argv) { (void)argc; (void)argv; return 1; }
const struct ms_command cmd_plot = { .name = "plot", .summary = "plots", .run = plot_cmd };
