/* SPDX-License-Identifier: GPL-2.0-or-later */
/* info's document (schema mthpscope.info/1), built from this machine's probes. */
#ifndef INFO_DOC_H
#define INFO_DOC_H

#include <jansson.h>

#include "tlb_host.h"

#define INFO_SCHEMA "mthpscope.info/1"

/*
 * The document (new reference; NULL on no memory) with the TLB geometry g
 * (NULL: none) picked for host th, picked_by saying how. *env_err: 0, or
 * thp_read's error (the document then says why THP is not available).
 */
json_t *info_doc_build(const struct tlb_host *th, const struct tlb_geometry *g,
		       const char *picked_by, int *env_err);

#endif
