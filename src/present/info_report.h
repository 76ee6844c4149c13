/* SPDX-License-Identifier: GPL-2.0-or-later */
/* info's text: what the mthpscope.info/1 document says, on stdout, for
 * people; --json prints the document itself. */
#ifndef INFO_REPORT_H
#define INFO_REPORT_H

#include <jansson.h>

void info_print_text(json_t *doc);

#endif
