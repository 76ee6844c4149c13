// SPDX-License-Identifier: GPL-2.0-or-later
#include "auxring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Copy len bytes from stream offset pos of the ring (which may wrap). */
static void aux_copy(const unsigned char *aux, uint64_t size, uint64_t pos, unsigned char *dst,
		     size_t len)
{
	uint64_t off = pos & (size - 1);
	size_t first = (size_t)(size - off) < len ? (size_t)(size - off) : len;

	memcpy(dst, aux + off, first);
	memcpy(dst + first, aux, len - first);
}

int auxring_parse_spe(const unsigned char *aux, uint64_t size, uint64_t head, uint64_t *tail,
		      bool final, struct auxring_stats *st, auxring_fn fn, void *ctx)
{
	uint64_t avail = head - *tail;
	unsigned char *buf;
	size_t off = 0;
	int ret = 0;

	if (!size || (size & (size - 1)) || head < *tail || avail > size)
		return -EBADMSG;
	if (!avail)
		return 0;
	/* one linear copy: a record may straddle the end of the area */
	if (!(buf = malloc((size_t)avail)))
		return -ENOMEM;
	aux_copy(aux, size, *tail, buf, (size_t)avail);
	while (off < avail && !ret) {
		struct hws_access a;
		size_t start, end;
		int rc;

		/* the driver pads the rest of a buffer it cannot fill (up to a
		 * page): padding with nothing after it is consumed, not held
		 * back as the start of a record */
		start = off = hws_spe_skip_padding(buf, (size_t)avail, *tail, off);
		if (off == avail)
			break;
		/* a record is looked for within the longest a record can be:
		 * garbage skipped byte by byte costs that much a byte, not the
		 * rest of the area */
		end = avail - off > AUXRING_MAX_RECORD ? off + AUXRING_MAX_RECORD : (size_t)avail;
		rc = hws_spe_record_at(buf, end, *tail, &off, &a);
		if (rc < 0) {
			/* the record cut short and the bad byte; off is one past it */
			st->bad_bytes += off - start;
		} else if (rc > 0) {
			st->records++;
			if (((*tail + start) & (size - 1)) + (off - start) > size)
				st->wrapped++;
			if (fn)
				ret = fn(&a, ctx);
		} else if (end < avail) {
			st->bad_bytes++; /* longer than any record: garbage */
			off++;
		} else if (final) {
			st->dropped += avail - off;
			off = (size_t)avail;
		} else {
			break; /* the rest of the record comes with the next data */
		}
	}
	free(buf);
	st->bytes += off;
	*tail += off;
	return ret;
}

int auxring_drain(struct perf_event_mmap_page *pg, const unsigned char *aux, bool final,
		  struct auxring_stats *st, auxring_fn fn, void *ctx)
{
	/* pairs with the kernel's store of aux_head after the data is written */
	uint64_t head = __atomic_load_n(&pg->aux_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->aux_tail; /* only we write it */
	int ret = auxring_parse_spe(aux, pg->aux_size, head, &tail, final, st, fn, ctx);

	/* every read of the area is done before the kernel may reuse it */
	__atomic_store_n(&pg->aux_tail, tail, __ATOMIC_RELEASE);
	return ret;
}

bool auxring_restart(struct perf_event_mmap_page *pg, struct auxring_stats *st)
{
	uint64_t head = __atomic_load_n(&pg->aux_head, __ATOMIC_ACQUIRE);

	/* the kernel's handle->size, CIRC_SPACE(aux_head, aux_tail, aux_size),
	 * is 0 from aux_size - 1 bytes held on */
	if (!st->stopped || head - pg->aux_tail >= pg->aux_size - 1)
		return false;
	st->stopped = false;
	st->restarts++;
	return true;
}

int auxring_map(int fd, struct perf_event_mmap_page *pg, uint64_t data_end, unsigned pages,
		unsigned char **aux, size_t *len)
{
	long page = sysconf(_SC_PAGESIZE);
	void *m;

	*aux = NULL;
	*len = 0;
	if (!pages || (pages & (pages - 1)))
		return -EINVAL;
	pg->aux_offset = data_end;
	pg->aux_size = (uint64_t)pages * (uint64_t)page;
	/* PROT_WRITE: not the overwriting (snapshot) mode; the kernel stops
	 * at aux_tail and says TRUNCATED when it had to drop data */
	m = mmap(NULL, (size_t)pg->aux_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)pg->aux_offset);
	if (m == MAP_FAILED)
		return -errno;
	*aux = m;
	*len = (size_t)pg->aux_size;
	return 0;
}
