// SPDX-License-Identifier: GPL-2.0-or-later
#include "sampling.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "counters.h"

#define SAMPLING_SAMPLE_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC)

struct sampling_ring {
	int fd;
	void *base;        /* control page + data pages */
	size_t map_len;
	unsigned char *data;
	uint64_t data_size;
	uint64_t sample_type;
	struct sampling_stats st;
	bool disabled;          /* by sampling_disable: no restart after a truncation */
	int pid;                /* the target: SPE records without a context are its */
	int tgid;               /* SPE, one thread followed (not inherited): its process */
	struct sampling_tgid_cache tgids; /* SPE, inherited: each context's process */
	unsigned char *aux;     /* the AUX area (aux_pages), or NULL */
	size_t aux_len;
};

/* Copy len bytes starting at ring offset 'pos' (which may wrap). */
static void ring_copy(const unsigned char *data, uint64_t size, uint64_t pos, void *dst,
		      size_t len)
{
	uint64_t off = pos & (size - 1);
	size_t first = (size_t)(size - off) < len ? (size_t)(size - off) : len;

	memcpy(dst, data + off, first);
	if (first < len)
		memcpy((unsigned char *)dst + first, data, len - first);
}

/* The fields this reader knows, in the order perf_event.h lays out a
 * PERF_RECORD_SAMPLE (sample_type bit order, RAW as { u32 size; data }). */
#define SAMPLING_KNOWN (SAMPLING_SAMPLE_TYPE | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW | PERF_SAMPLE_PHYS_ADDR | \
		   PERF_SAMPLE_DATA_PAGE_SIZE)

/* A cursor over one record's bytes: every read is bounds-checked. */
struct cursor {
	const unsigned char *p;
	size_t len, off;
	bool bad;
};

static uint64_t take_u64(struct cursor *c)
{
	uint64_t v = 0;

	if (c->bad || c->len - c->off < 8) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->p + c->off, 8);
	c->off += 8;
	return v;
}

/* One PERF_RECORD_SAMPLE body (after the header) of 'type' into *s. */
static int decode_sample(const unsigned char *body, size_t len, uint64_t type,
			 struct sampling_sample *s)
{
	struct cursor c = { .p = body, .len = len };
	uint64_t v;

	memset(s, 0, sizeof(*s));
	if (type & PERF_SAMPLE_TID) {
		v = take_u64(&c);
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
	}
	if (type & PERF_SAMPLE_TIME)
		s->time = take_u64(&c);
	if (type & PERF_SAMPLE_ADDR)
		s->addr = take_u64(&c);
	if (type & PERF_SAMPLE_CPU)
		s->cpu = (uint32_t)take_u64(&c); /* { u32 cpu, res; } */
	if (type & PERF_SAMPLE_RAW) {
		uint32_t n = 0;

		if (c.bad || c.len - c.off < 4)
			return -EBADMSG;
		memcpy(&n, c.p + c.off, 4);
		/* the kernel pads size + data to a multiple of 8 */
		if (n > c.len - c.off - 4 || (4 + (size_t)n) % 8)
			return -EBADMSG;
		s->raw = c.p + c.off + 4;
		s->raw_size = n;
		c.off += 4 + (size_t)n;
	}
	if (type & PERF_SAMPLE_DATA_SRC)
		s->data_src = take_u64(&c);
	if (type & PERF_SAMPLE_PHYS_ADDR)
		s->phys_addr = take_u64(&c);
	if (type & PERF_SAMPLE_DATA_PAGE_SIZE)
		s->data_page_size = take_u64(&c);
	return c.bad ? -EBADMSG : 0;
}

/* A PERF_RECORD_COMM body: { u32 pid, tid; char comm[] (NUL, padded to 8);
 * sample_id }, the sample_id (sample_id_all) holding of 'type' TID, TIME
 * and CPU in that order. Into *s as an exec; its time 0 where the record
 * has no such tail. */
static int decode_exec(const unsigned char *body, size_t len, uint64_t type,
		       struct sampling_sample *s)
{
	size_t id = 8 * (!!(type & PERF_SAMPLE_TID) + !!(type & PERF_SAMPLE_TIME) +
			 !!(type & PERF_SAMPLE_CPU));
	size_t name;

	memset(s, 0, sizeof(*s));
	if (len < 8)
		return -EBADMSG;
	memcpy(&s->pid, body, 4);
	memcpy(&s->tid, body + 4, 4);
	s->exec = true;
	name = strnlen((const char *)body + 8, len - 8);
	if (name == len - 8)
		return -EBADMSG; /* no NUL */
	name = (name + 8) & ~(size_t)7;
	if ((type & PERF_SAMPLE_TIME) && 8 + name + id == len)
		memcpy(&s->time, body + 8 + name + (type & PERF_SAMPLE_TID ? 8 : 0), 8);
	return 0;
}

/* A PERF_RECORD_FORK body: { u32 pid, ppid, tid, ptid; u64 time;
 * sample_id }. Into *s as a thread started. */
static int decode_fork(const unsigned char *body, size_t len, struct sampling_sample *s)
{
	memset(s, 0, sizeof(*s));
	if (len < 24)
		return -EBADMSG;
	memcpy(&s->pid, body, 4);
	memcpy(&s->tid, body + 8, 4);
	memcpy(&s->time, body + 16, 8);
	s->fork = true;
	return 0;
}

int sampling_parse_type(const unsigned char *data, uint64_t size, uint64_t head, uint64_t *tail,
		   uint64_t sample_type, struct sampling_stats *st, sampling_sample_fn fn, void *ctx)
{
	/* one record, copied out of the ring (it may wrap) */
	uint64_t rec[SAMPLING_MAX_RECORD / 8];

	if (sample_type & ~(uint64_t)SAMPLING_KNOWN)
		return -EINVAL;
	/* the kernel never runs more than a ring ahead: anything else is a
	 * corrupt head, and a copy of it would wrap onto itself */
	if (head - *tail > size)
		return -EBADMSG;
	while (*tail < head) {
		struct perf_event_header h;
		uint64_t avail = head - *tail, off = *tail & (size - 1);
		struct sampling_sample s;
		int ret;

		if (avail < sizeof(h))
			return -EBADMSG;
		ring_copy(data, size, *tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > avail || h.size % 8)
			return -EBADMSG;
		if (off + h.size > size)
			st->wrapped++;
		if (h.type == PERF_RECORD_COMM && !(h.misc & PERF_RECORD_MISC_COMM_EXEC))
			h.type = 0; /* a thread renamed: skipped */
		if (h.type == PERF_RECORD_SAMPLE || h.type == PERF_RECORD_LOST ||
		    h.type == PERF_RECORD_LOST_SAMPLES || h.type == PERF_RECORD_AUX ||
		    h.type == PERF_RECORD_COMM || h.type == PERF_RECORD_FORK) {
			if (h.size > sizeof(rec) || (h.type == PERF_RECORD_LOST && h.size < 24) ||
			    (h.type == PERF_RECORD_LOST_SAMPLES && h.size < 16) ||
			    (h.type == PERF_RECORD_AUX && h.size < 32))
				return -EBADMSG;
			ring_copy(data, size, *tail, rec, h.size);
		}
		if (h.type == PERF_RECORD_SAMPLE || h.type == PERF_RECORD_COMM ||
		    h.type == PERF_RECORD_FORK) {
			const unsigned char *body = (unsigned char *)rec + sizeof(h);
			size_t len = h.size - sizeof(h);

			ret = h.type == PERF_RECORD_SAMPLE ? decode_sample(body, len, sample_type, &s)
			      : h.type == PERF_RECORD_COMM ? decode_exec(body, len, sample_type, &s)
							   : decode_fork(body, len, &s);
			if (ret)
				return ret;
			if (s.exec)
				st->execs++;
			else if (s.fork)
				st->forks++;
			else
				st->samples++;
			if (fn && (ret = fn(&s, ctx))) {
				*tail += h.size;
				st->bytes += h.size;
				return ret;
			}
		} else if (h.type == PERF_RECORD_LOST) {
			st->lost_records++;
			st->lost_samples += rec[2]; /* { header; u64 id; u64 lost; } */
		} else if (h.type == PERF_RECORD_LOST_SAMPLES) {
			/* { header; u64 lost; }: samples dropped before they reached
			 * the ring (Intel PEBS records lost to a collision:
			 * arch/x86/events/intel/ds.c, intel_pmu_drain_pebs_nhm) */
			st->lost_records++;
			st->lost_samples += rec[1];
		} else if (h.type == PERF_RECORD_AUX) {
			/* { header; u64 aux_offset; u64 aux_size; u64 flags; } */
			st->aux_records++;
			st->aux_truncated += !!(rec[3] & PERF_AUX_FLAG_TRUNCATED);
			if (rec[3] & PERF_AUX_FLAG_TRUNCATED)
				st->aux.stopped = true; /* the kernel disabled the event */
			st->aux_collision += !!(rec[3] & PERF_AUX_FLAG_COLLISION);
			st->aux_partial += !!(rec[3] & PERF_AUX_FLAG_PARTIAL);
		} else {
			st->other_records++;
		}
		*tail += h.size;
		st->bytes += h.size;
	}
	return 0;
}

int sampling_parse(const unsigned char *data, uint64_t size, uint64_t head, uint64_t *tail,
	      struct sampling_stats *st, sampling_sample_fn fn, void *ctx)
{
	return sampling_parse_type(data, size, head, tail, SAMPLING_SAMPLE_TYPE, st, fn, ctx);
}

uint64_t sampling_sample_type(const struct sampling_options *o)
{
	return SAMPLING_SAMPLE_TYPE | (o->sample_cpu ? PERF_SAMPLE_CPU : 0) | (o->raw ? PERF_SAMPLE_RAW : 0) |
	       (o->phys_addr ? PERF_SAMPLE_PHYS_ADDR : 0) |
	       (o->data_page_size ? PERF_SAMPLE_DATA_PAGE_SIZE : 0);
}

int sampling_open(struct sampling_ring **rp, const struct sampling_options *o)
{
	struct perf_event_attr attr;
	struct sampling_ring *r;
	long page = sysconf(_SC_PAGESIZE);
	int err;

	*rp = NULL;
	if (!o->data_pages || (o->data_pages & (o->data_pages - 1)) || (!o->period && !o->freq))
		return -EINVAL;
	err = counters_encode(o->event, o->include_kernel, &attr);
	if (err)
		return err;
	if (o->freq) {
		attr.freq = 1;
		attr.sample_freq = o->freq;
	} else {
		attr.sample_period = o->period;
	}
	attr.sample_type = sampling_sample_type(o);
	attr.precise_ip = (unsigned)o->precise & 3;
	attr.disabled = 1;
	/* a target child: its samples, and its threads' and children's (their
	 * records go to this ring) from its exec on */
	attr.inherit = o->inherit;
	attr.inherit_thread = o->inherit && o->inherit_thread;
	attr.enable_on_exec = o->enable_on_exec;
	/* data addresses are what 'record' is for: keep the sample small */
	attr.mmap = attr.task = 0;
	attr.comm = attr.comm_exec = attr.sample_id_all = o->execs;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->base = MAP_FAILED;
	r->sample_type = attr.sample_type;
	r->pid = o->pid;
	/* a thread's event without inherit, or inherited by its threads
	 * only: its records are all that thread's process's */
	if (o->aux_pages && o->pid > 0 && (!o->inherit || o->inherit_thread))
		r->tgid = sampling_tgid_cached(&r->tgids, o->pid);
	r->fd = counters_perf_open(&attr, o->pid, o->on_cpu ? o->cpu : -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (r->fd < 0) {
		err = r->fd;
		goto out;
	}
	if (o->output) {
		if (ioctl(r->fd, PERF_EVENT_IOC_SET_OUTPUT, o->output->fd) < 0)
			err = -errno;
		goto out;
	}
	r->map_len = (size_t)page * (1 + o->data_pages);
	/* PROT_WRITE: we own data_tail, so the kernel never overwrites unread
	 * records; when the ring is full it drops them and says so with
	 * PERF_RECORD_LOST. */
	r->base = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->base == MAP_FAILED) {
		err = -errno;
		goto out;
	}
	{
		struct perf_event_mmap_page *pg = r->base;

		/* data_offset/data_size exist since Linux 4.1; before, data
		 * starts one page in */
		r->data = (unsigned char *)r->base + (pg->data_offset ? pg->data_offset : (uint64_t)page);
		r->data_size = pg->data_size ? pg->data_size : (uint64_t)page * o->data_pages;
		if (o->aux_pages)
			err = auxring_map(r->fd, pg, r->map_len, o->aux_pages, &r->aux, &r->aux_len);
	}
out:
	if (err) {
		sampling_close(r);
		return err;
	}
	*rp = r;
	return 0;
}

int sampling_tgid(int tid)
{
	char path[64], line[256];
	int tgid = 0;
	FILE *f;

	if (tid <= 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid > 0 ? tgid : -EBADMSG;
}

int sampling_tgid_cached(struct sampling_tgid_cache *c, int tid)
{
	int tgid;

	if (tid <= 0)
		return tid;
	if (c->e[tid % SAMPLING_TGID_CACHE].tid == tid)
		return c->e[tid % SAMPLING_TGID_CACHE].tgid;
	tgid = sampling_tgid(tid);
	if (tgid == -ESRCH)
		tgid = tid; /* gone: its samples are a vanished process's */
	else if (tgid < 0)
		return tid; /* not known now: asked again at its next record */
	c->e[tid % SAMPLING_TGID_CACHE].tid = tid;
	c->e[tid % SAMPLING_TGID_CACHE].tgid = tgid;
	return tgid;
}

int sampling_enable(struct sampling_ring *r)
{
	if (ioctl(r->fd, PERF_EVENT_IOC_RESET, 0) < 0 || ioctl(r->fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		return -errno;
	r->disabled = false;
	return 0;
}

int sampling_disable(struct sampling_ring *r)
{
	r->disabled = true;
	return ioctl(r->fd, PERF_EVENT_IOC_DISABLE, 0) < 0 ? -errno : 0;
}

static int drain_data(struct sampling_ring *r, sampling_sample_fn fn, void *ctx);

struct aux_ctx {
	struct sampling_ring *r;
	sampling_sample_fn fn;
	void *ctx;
};

/* An SPE record as a sample: its context says whose it is, if anyone. */
static int aux_sample(const struct hws_access *a, void *ctx)
{
	struct aux_ctx *x = ctx;
	struct sampling_sample s = { .access = a };
	int tid = a->context_valid ? (int)a->context : x->r->pid;

	/* filed by process, as perf samples are (PERF_SAMPLE_TID's pid) */
	s.tid = (uint32_t)tid;
	s.pid = (uint32_t)(x->r->tgid ? x->r->tgid : sampling_tgid_cached(&x->r->tgids, tid));
	s.addr = a->vaddr_valid ? a->vaddr : 0;
	s.phys_addr = a->paddr_valid ? a->paddr : 0;
	x->r->st.samples++;
	return x->fn ? x->fn(&s, x->ctx) : 0;
}

static int drain(struct sampling_ring *r, bool last, sampling_sample_fn fn, void *ctx)
{
	struct aux_ctx x = { .r = r, .fn = fn, .ctx = ctx };
	int ret;

	if (r->base == MAP_FAILED)
		return 0; /* its records go to another event's ring */
	/* the data ring first: its PERF_RECORD_AUX say what the area holds */
	ret = drain_data(r, fn, ctx);

	if (!ret && r->aux) {
		ret = auxring_drain(r->base, r->aux, last, &r->st.aux, aux_sample, &x);
		/* a truncation disabled the event, or the inherited child that
		 * met it: enabling the parent enables its children too */
		if (!last && !r->disabled && auxring_restart(r->base, &r->st.aux) &&
		    ioctl(r->fd, PERF_EVENT_IOC_ENABLE, 0) < 0 && !ret)
			ret = -errno;
	}
	return ret;
}

int sampling_drain_last(struct sampling_ring *r, sampling_sample_fn fn, void *ctx)
{
	return drain(r, true, fn, ctx);
}

int sampling_drain(struct sampling_ring *r, sampling_sample_fn fn, void *ctx)
{
	return drain(r, false, fn, ctx);
}

/* The data ring's records. */
static int drain_data(struct sampling_ring *r, sampling_sample_fn fn, void *ctx)
{
	struct perf_event_mmap_page *pg = r->base;
	uint64_t head, tail;
	int ret;

	/* Acquire pairs with the kernel's store of data_head after writing
	 * the records (perf_event.h: "issue an smp_rmb() after reading"). */
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail; /* only we write it */
	ret = sampling_parse_type(r->data, r->data_size, head, &tail, r->sample_type, &r->st, fn, ctx);
	/* Release: every read of the records is done before the kernel may
	 * reuse their space (the smp_mb() before writing data_tail). */
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}

const struct sampling_stats *sampling_stats(const struct sampling_ring *r)
{
	return &r->st;
}

void sampling_close(struct sampling_ring *r)
{
	if (!r)
		return;
	if (r->aux)
		munmap(r->aux, r->aux_len);
	if (r->base != MAP_FAILED && r->base)
		munmap(r->base, r->map_len);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}

void sampling_decode_tlb(uint64_t data_src, struct sampling_tlb *t)
{
	union perf_mem_data_src d = { .val = data_src };
	unsigned tlb = d.mem_dtlb;

	memset(t, 0, sizeof(*t));
	if (!tlb || (tlb & PERF_MEM_TLB_NA))
		return;
	t->known = true;
	t->hit = tlb & PERF_MEM_TLB_HIT;
	t->miss = tlb & PERF_MEM_TLB_MISS;
	t->l1 = tlb & PERF_MEM_TLB_L1;
	t->l2 = tlb & PERF_MEM_TLB_L2;
	t->walker = tlb & PERF_MEM_TLB_WK;
	t->os = tlb & PERF_MEM_TLB_OS;
}

int sampling_tlb_str(uint64_t data_src, char *buf, size_t size)
{
	struct sampling_tlb t;

	sampling_decode_tlb(data_src, &t);
	if (!t.known)
		return snprintf(buf, size, "n/a");
	return snprintf(buf, size, "%s%s%s%s%s%s", t.l1 && t.l2 ? "L1+L2" : t.l1 ? "L1" : t.l2 ? "L2" : "TLB",
			t.hit ? " hit" : "", t.miss ? " miss" : "", t.walker ? ", walk" : "",
			t.os ? ", OS fault" : "", !t.hit && !t.miss ? " (no hit/miss)" : "");
}
