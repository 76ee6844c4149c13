/*
 * gnuplot figures. Templates live in scripts/ (NAME.gp); the functions here write
 * the data file, pick the terminal from the output's extension and run
 * gnuplot. 0 or negative errno (-ENOENT: gnuplot or the template missing,
 * -EINVAL: an extension other than .png, .svg, .pdf).
 */
#ifndef PLOT_H
#define PLOT_H

#include <jansson.h>

/* Where the templates are: $MTHPSCOPE_SCRIPTS, else scripts/ beside or one
 * level above the directory of the executable (source tree builds). */
int plot_script_path(const char *name, char *buf, size_t size);

/* Order mass over time (stacked areas), one panel per run of an
 * mthpscope.collapse/1 document. */
int plot_collapse(json_t *doc, const char *outfile);

#endif
