#include "folio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int folio_probe(struct folio_probe *p)
{
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t ent = 0, flags = 0;
	volatile char *page;
	int fd;

	memset(p, 0, sizeof(*p));
	page = mmap(NULL, (size_t)ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return -errno;
	page[0] = 1;
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		p->pagemap_readable =
			pread(fd, &ent, sizeof(ent), (off_t)((uintptr_t)page / (uintptr_t)ps) * 8) ==
			sizeof(ent);
		close(fd);
	}
	p->pfns_visible = p->pagemap_readable && (ent & PM_PRESENT) && (ent & PM_PFN_MASK);
	fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		p->kpageflags_readable = !p->pfns_visible ||
					 pread(fd, &flags, sizeof(flags),
					       (off_t)(ent & PM_PFN_MASK) * 8) == sizeof(flags);
		close(fd);
	}
	munmap((void *)page, (size_t)ps);
	if (!p->pagemap_readable)
		snprintf(p->reason, sizeof(p->reason), "/proc/self/pagemap cannot be read");
	else if (!p->pfns_visible)
		snprintf(p->reason, sizeof(p->reason),
			 "pagemap hides PFNs without CAP_SYS_ADMIN: folio orders need root");
	else if (!p->kpageflags_readable)
		snprintf(p->reason, sizeof(p->reason),
			 "/proc/kpageflags cannot be read (needs root; kernels without "
			 "CONFIG_PROC_PAGE_MONITOR lack it)");
	return 0;
}
