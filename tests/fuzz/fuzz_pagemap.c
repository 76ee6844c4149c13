// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the pagemap / kpageflags record decoder: the input
 * is split into 64-bit pagemap entries (one per page of a range starting at
 * address 0) and 64-bit kpageflags words (indexed by PFN), served from two
 * memfds. Whatever the records say, the histogram must add up and no
 * extent may leave the range.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "folio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct bounds {
	unsigned long end;
};

static int check_extent(const struct folio_extent *e, void *ctx)
{
	const struct bounds *b = ctx;

	if (e->start >= b->end || !e->pages)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static long ps;
	struct folio_scanner *s;
	struct folio_hist h;
	struct bounds b;
	size_t npm, nkf;
	int pm, kf;

	if (!ps) {
		ps = sysconf(_SC_PAGESIZE);
		setenv("MTHPSCOPE_NO_PAGEMAP_SCAN", "1", 1);
	}
	if (size < 10)
		return 0;
	/* the first byte says how many pagemap entries (up to 1024 pages) */
	npm = ((size_t)data[0] * 4 + 1) % 1025;
	data++, size--;
	if (npm * 8 > size)
		npm = size / 8;
	nkf = (size - npm * 8) / 8;
	if (!npm)
		return 0;
	pm = memfd_create("pagemap", MFD_CLOEXEC);
	kf = memfd_create("kpageflags", MFD_CLOEXEC);
	if (pm < 0 || kf < 0 || write(pm, data, npm * 8) != (ssize_t)(npm * 8) ||
	    (nkf && write(kf, data + npm * 8, nkf * 8) != (ssize_t)(nkf * 8))) {
		if (pm >= 0)
			close(pm);
		if (kf >= 0)
			close(kf);
		return 0;
	}
	if (folio_scanner_open_fds(&s, pm, kf))
		return 0;
	memset(&h, 0, sizeof(h));
	b.end = npm * (unsigned long)ps;
	if (!folio_scanner_range(s, 0, b.end, &h, check_extent, &b)) {
		if (h.present + h.not_present > npm)
			abort();
	}
	folio_scanner_close(s);
	return 0;
}
