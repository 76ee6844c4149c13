/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A perf event's AUX area, where Arm SPE writes its records (and Intel PT,
 * CoreSight their traces): mapped after the data ring at the offset and
 * size we write into the user page (aux_offset, aux_size: perf_event.h),
 * PROT_READ | PROT_WRITE so the kernel keeps what we have not read (we own
 * aux_tail; the area is a ring of aux_size bytes, a power of two, that
 * aux_head and aux_tail index as ever-growing stream offsets). What the
 * kernel says of each piece it added comes as PERF_RECORD_AUX in the data
 * ring (sampling.c counts its flags: truncated, collision, partial).
 * Documentation/userspace-api/perf_ring_buffer.rst ("The mechanism of AUX
 * ring buffer") and drivers/perf/arm_spe_pmu.c (records start aligned,
 * padding is 0x00 bytes, i.e. PAD packets) describe it.
 *
 * The parsing core takes plain memory, so the tests and the fuzz target
 * drive it with a fake user page and area. Return convention: 0 or
 * negative errno; nothing prints.
 */
#ifndef AUXRING_H
#define AUXRING_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwsample.h"

/* No SPE record is longer (the driver's largest record size is 2 KiB):
 * a record that does not end within this many bytes is garbage, skipped
 * byte by byte. */
#define AUXRING_MAX_RECORD 2048

struct auxring_stats {
	uint64_t records;    /* SPE records decoded */
	uint64_t bytes;      /* bytes consumed (records, padding, skipped) */
	uint64_t bad_bytes;  /* bytes given up at a bad packet: the record it cut
			      * short and its first byte (perf goes on one past it) */
	uint64_t wrapped;    /* records that straddled the end of the area */
	uint64_t dropped;    /* bytes of an unfinished record given up at the last drain */
	/* The kernel disables an AUX event when it truncates its data
	 * (kernel/events/ring_buffer.c, perf_aux_output_end): 'stopped' from
	 * a PERF_RECORD_AUX with TRUNCATED (sampling.c sets it) until
	 * auxring_restart finds room, each time counted in 'restarts'. */
	bool stopped;
	uint64_t restarts;
};

typedef int (*auxring_fn)(const struct hws_access *a, void *ctx);

/*
 * The SPE records of aux[0..size) (size a power of two) between stream
 * offsets *tail and head, in order, each to fn (whose non-zero return
 * stops after that record); *tail advances past what was consumed, padding
 * included. An unfinished record at head stays for the next call, unless
 * 'final' (the event is closed: it is dropped) or it is longer than
 * AUXRING_MAX_RECORD.
 * -EBADMSG when head is behind *tail or more than a whole area ahead.
 */
int auxring_parse_spe(const unsigned char *aux, uint64_t size, uint64_t head, uint64_t *tail,
		      bool final, struct auxring_stats *st, auxring_fn fn, void *ctx);
/* The same on a user page: aux_head read with acquire, aux_tail stored
 * with release once the records are read. */
int auxring_drain(struct perf_event_mmap_page *pg, const unsigned char *aux, bool final,
		  struct auxring_stats *st, auxring_fn fn, void *ctx);
/* Whether the event, stopped at a truncation, is to be enabled again
 * (PERF_EVENT_IOC_ENABLE, by the caller): the area has room now. Not
 * before: perf_aux_output_begin disables an event at once, without a
 * record, on an area with none. Clears st->stopped and counts a restart
 * when so. */
bool auxring_restart(struct perf_event_mmap_page *pg, struct auxring_stats *st);
/* Map fd's AUX area of 'pages' pages (a power of two) after the data ring
 * that ends at byte 'data_end' of the mapping: *aux and its length. */
int auxring_map(int fd, struct perf_event_mmap_page *pg, uint64_t data_end, unsigned pages,
		unsigned char **aux, size_t *len);

#endif
