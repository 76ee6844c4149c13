/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * 'record': sample an event with data addresses on a command (child.c's
 * launcher, sampling from its exec on, over its whole tree) or on a running
 * process for a duration (every thread, never stopped), and join each
 * sample with its VMA and the folio order of its page.
 *
 * The join happens when the ring is drained, every interval (and at each
 * process's exit stop, when its memory is still mapped): the VMA from
 * /proc/PID/maps, the folio from pagemap + kpageflags (the page alone
 * when it is a folio of its own, else folio.c's scanner over its block or
 * 2 MiB window, scanned once per drain). A page that is
 * not present is looked up once more at the next drain (a page fault's
 * sample is taken before the page is mapped), then counted unmapped, never
 * guessed. Memory shares come from a scan of each sampled VMA at the
 * process's exit stop (or at the end of --duration).
 *
 * Return convention: 0 or negative errno; nothing here prints.
 */
#ifndef RECORD_H
#define RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "record_doc.h"

struct rec_options {
	const char *event;            /* counters_encode() string; default "page-faults" */
	unsigned long long period;    /* -c */
	unsigned long long freq;      /* -F (used when period is 0) */
	unsigned data_pages;          /* ring pages (power of two) */
	unsigned interval_ms;         /* drain + join interval */
	unsigned top_windows;
	int precise;
	bool data_page_size;          /* ask for PERF_SAMPLE_DATA_PAGE_SIZE (dropped if refused) */
	bool phys_addr;
	char *const *argv;            /* a command, or NULL with pid */
	int pid;
	double duration_s;
};

void rec_options_init(struct rec_options *o);

/* Record into d (record_doc_free it). -ENOMSG / -EACCES / -ESRCH / ... for
 * an event or target that cannot be sampled (rec_strerror says what to do),
 * -errno of the launch (exec failure: -ENOENT, -EACCES). The command's
 * failure is no error: d->outcome says it. SIGINT and SIGTERM stop the
 * recording (the command gets SIGINT; a second signal kills it) and the
 * document is still filled. */
int rec_run(const struct rec_options *o, struct record_doc *d);
/* Advice for an rec_run error, perf's kind (paranoid, root, no sampling). */
int rec_strerror(int err, const struct rec_options *o, char *buf, size_t size);
/* "sw", "ibs", "spe" or "pmu": where an event's samples come from. */
const char *rec_event_source(const char *event);
/* Warnings of the last rec_run (ptrace refused, page sizes refused, ...):
 * one per line, "" when none. */
const char *rec_warnings(void);

#endif
