// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ring-buffer reader: synthetic rings (record straddling the end, LOST
 * records, corrupt headers) on any host; an SPE context's thread mapped to
 * its process with this test's own threads; then the kernel's own ring with
 * software page-fault sampling (period 1, PERF_SAMPLE_ADDR): every address
 * lies in the touched buffer and the count matches, a one-page ring drained
 * as it goes wraps without loss, and an undrained one reports what it lost.
 */
#include <linux/perf_event.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "counters.h"
#include "harness.h"
#include "mthpscope.h"
#include "sampling.h"

#define EXTRA_FAULTS 4 /* as in test_counters.c: stack/text pages in the window */

/* ---- synthetic rings ------------------------------------------------------ */

static void put(unsigned char *ring, uint64_t size, uint64_t pos, const void *src, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		ring[(pos + i) & (size - 1)] = ((const unsigned char *)src)[i];
}

static uint64_t put_sample(unsigned char *ring, uint64_t size, uint64_t pos, uint32_t tid,
			   uint64_t addr)
{
	uint64_t rec[5] = { 0, (uint64_t)tid << 32 | 7, 1000 + addr, addr, 0x1234 };
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = sizeof(rec) };

	memcpy(&rec[0], &h, sizeof(h));
	put(ring, size, pos, rec, sizeof(rec));
	return pos + sizeof(rec);
}

static uint64_t put_lost(unsigned char *ring, uint64_t size, uint64_t pos, uint64_t lost)
{
	uint64_t rec[3] = { 0, 42, lost };
	struct perf_event_header h = { .type = PERF_RECORD_LOST, .size = sizeof(rec) };

	memcpy(&rec[0], &h, sizeof(h));
	put(ring, size, pos, rec, sizeof(rec));
	return pos + sizeof(rec);
}

struct collect {
	uint64_t addr[4096];
	int n, stop_after;
	uint64_t lo, hi;   /* kernel tests: the touched range */
	int outside;
	uint32_t tid;
	int wrong_tid;
	uint64_t last_time;
	int time_backwards;
};

static int collect(const struct sampling_sample *s, void *ctx)
{
	struct collect *c = ctx;

	if (c->hi && (s->addr < c->lo || s->addr >= c->hi)) {
		c->outside++;
		return 0;
	}
	if (c->n < (int)MS_ARRAY_SIZE(c->addr))
		c->addr[c->n] = s->addr;
	c->n++;
	if (c->tid && s->tid != c->tid)
		c->wrong_tid++;
	if (s->time < c->last_time)
		c->time_backwards++;
	c->last_time = s->time;
	return c->stop_after && c->n == c->stop_after ? 1 : 0;
}

TEST(parse_straddling_and_lost)
{
	static unsigned char ring[256];
	struct sampling_stats st = { 0 };
	static struct collect c;
	uint64_t pos, tail, head;
	int i;

	/* start 16 bytes before the end: the first 40-byte sample straddles */
	tail = pos = 1024 + 240;
	pos = put_sample(ring, sizeof(ring), pos, 99, 0x1000);
	pos = put_lost(ring, sizeof(ring), pos, 17);
	for (i = 1; i < 4; i++)
		pos = put_sample(ring, sizeof(ring), pos, 99, 0x1000 + 0x1000 * (uint64_t)i);
	head = pos;
	c.tid = 99;
	EXPECT_EQ(sampling_parse(ring, sizeof(ring), head, &tail, &st, collect, &c), 0);
	EXPECT_EQ(tail, head);
	EXPECT_EQ(st.samples, 4);
	EXPECT_EQ(st.lost_records, 1);
	EXPECT_EQ(st.lost_samples, 17);
	EXPECT_EQ(st.wrapped, 1);
	EXPECT_EQ(st.bytes, 4 * 40 + 24);
	ASSERT_EQ(c.n, 4);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(c.addr[i], 0x1000 + 0x1000 * (uint64_t)i);
	EXPECT_EQ(c.wrong_tid, 0);
}

/* PERF_RECORD_LOST_SAMPLES ({ header; u64 lost; }), as Intel PEBS reports
 * the records it dropped (arch/x86/events/intel/ds.c): lost, not other. */
TEST(parse_lost_samples_record)
{
	static unsigned char ring[256];
	struct perf_event_header h = { .type = PERF_RECORD_LOST_SAMPLES, .size = 16 };
	struct sampling_stats st = { 0 };
	uint64_t pos = 0, tail = 0, lost = 5;

	pos = put_sample(ring, sizeof(ring), pos, 3, 0x1000);
	put(ring, sizeof(ring), pos, &h, sizeof(h));
	put(ring, sizeof(ring), pos + sizeof(h), &lost, sizeof(lost));
	pos += 16;
	pos = put_lost(ring, sizeof(ring), pos, 17);
	pos = put_sample(ring, sizeof(ring), pos, 3, 0x2000);
	EXPECT_EQ(sampling_parse(ring, sizeof(ring), pos, &tail, &st, NULL, NULL), 0);
	EXPECT_EQ(tail, pos);
	EXPECT_EQ(st.samples, 2);
	EXPECT_EQ(st.lost_records, 2);
	EXPECT_EQ(st.lost_samples, 22);
	EXPECT_EQ(st.other_records, 0);
	/* shorter than its count: refused */
	h.size = 8;
	put(ring, sizeof(ring), 0, &h, sizeof(h));
	tail = 0;
	EXPECT_EQ(sampling_parse(ring, sizeof(ring), 8, &tail, &st, NULL, NULL), -EBADMSG);
	EXPECT_EQ(tail, 0);
}

TEST(parse_stops_early_and_resumes)
{
	static unsigned char ring[512];
	struct sampling_stats st = { 0 };
	static struct collect c;
	uint64_t pos = 0, tail = 0;
	int i;

	for (i = 0; i < 6; i++)
		pos = put_sample(ring, sizeof(ring), pos, 1, (uint64_t)i);
	c.stop_after = 2;
	EXPECT_EQ(sampling_parse(ring, sizeof(ring), pos, &tail, &st, collect, &c), 1);
	EXPECT_EQ(tail, 80);
	c.stop_after = 0;
	EXPECT_EQ(sampling_parse(ring, sizeof(ring), pos, &tail, &st, collect, &c), 0);
	EXPECT_EQ(c.n, 6);
	EXPECT_EQ(st.samples, 6);
	EXPECT_EQ(c.addr[5], 5);
}

/* A PERF_RECORD_COMM of an exec, with sample_id (TID, TIME): delivered as an
 * exec with its time; a thread's rename (no COMM_EXEC) is another record;
 * one without its tail has time 0, one without a NUL is refused. */
static uint64_t put_comm(unsigned char *ring, uint64_t size, uint64_t pos, uint16_t misc,
			 const char *comm, bool tail, uint64_t time)
{
	uint64_t rec[8] = { 0 };
	struct perf_event_header h = { .type = PERF_RECORD_COMM, .misc = misc };
	size_t name = (strlen(comm) + 8) & ~(size_t)7, n = 16 + name;

	rec[1] = (uint64_t)78 << 32 | 77;
	memcpy(&rec[2], comm, strlen(comm));
	if (tail) {
		rec[n / 8] = (uint64_t)78 << 32 | 77;
		rec[n / 8 + 1] = time;
		n += 16;
	}
	h.size = (uint16_t)n;
	memcpy(&rec[0], &h, sizeof(h));
	put(ring, size, pos, rec, n);
	return pos + n;
}

static int collect_execs(const struct sampling_sample *s, void *ctx)
{
	struct sampling_sample *v = ctx;
	int i = 0;

	while (v[i].pid)
		i++;
	v[i] = *s;
	return 0;
}

TEST(parse_exec_records)
{
	static unsigned char ring[512];
	struct sampling_sample v[8] = { { 0 } };
	struct sampling_stats st = { 0 };
	uint64_t pos = 0, tail = 0;

	pos = put_sample(ring, sizeof(ring), pos, 77, 0x1000);
	pos = put_comm(ring, sizeof(ring), pos, PERF_RECORD_MISC_COMM_EXEC, "python3.11", true,
		       5555);
	pos = put_comm(ring, sizeof(ring), pos, 0, "worker", true, 6666);
	pos = put_comm(ring, sizeof(ring), pos, PERF_RECORD_MISC_COMM_EXEC, "sh", false, 0);
	EXPECT_EQ(sampling_parse(ring, sizeof(ring), pos, &tail, &st, collect_execs, v), 0);
	EXPECT_EQ(tail, pos);
	EXPECT_EQ(st.samples, 1);
	EXPECT_EQ(st.execs, 2);
	EXPECT_EQ(st.other_records, 1);
	EXPECT_TRUE(!v[0].exec && v[0].addr == 0x1000);
	EXPECT_TRUE(v[1].exec && v[1].pid == 77 && v[1].tid == 78 && v[1].time == 5555);
	EXPECT_EQ(v[1].addr, 0);
	EXPECT_TRUE(v[2].exec && v[2].pid == 77 && v[2].time == 0);
	EXPECT_EQ(v[3].pid, 0);
	/* no NUL in the name: refused */
	memset(ring, 'x', sizeof(ring));
	pos = tail = 0;
	{
		struct perf_event_header h = { .type = PERF_RECORD_COMM,
					       .misc = PERF_RECORD_MISC_COMM_EXEC, .size = 24 };

		put(ring, sizeof(ring), 0, &h, sizeof(h));
	}
	EXPECT_EQ(sampling_parse(ring, sizeof(ring), 24, &tail, &st, NULL, NULL), -EBADMSG);
}

/* A PERF_RECORD_FORK (a thread started): delivered as a fork with the new
 * thread's pid, tid and time; one too short for its fields is refused. */
TEST(parse_fork_records)
{
	static unsigned char ring[256];
	struct sampling_sample v[8] = { { 0 } };
	struct sampling_stats st = { 0 };
	struct perf_event_header h = { .type = PERF_RECORD_FORK, .size = 48 };
	uint64_t rec[6] = { 0 }, pos, tail = 0;

	/* { pid 77, ppid 77; tid 79, ptid 78; time; sample_id: tid, time } */
	rec[1] = (uint64_t)77 << 32 | 77;
	rec[2] = (uint64_t)78 << 32 | 79;
	rec[3] = 4444;
	rec[4] = (uint64_t)78 << 32 | 77;
	rec[5] = 4444;
	memcpy(&rec[0], &h, sizeof(h));
	put(ring, sizeof(ring), 0, rec, sizeof(rec));
	pos = put_sample(ring, sizeof(ring), sizeof(rec), 77, 0x2000);
	EXPECT_EQ(sampling_parse(ring, sizeof(ring), pos, &tail, &st, collect_execs, v), 0);
	EXPECT_EQ(st.forks, 1);
	EXPECT_EQ(st.samples, 1);
	EXPECT_EQ(st.other_records, 0);
	EXPECT_TRUE(v[0].fork && !v[0].exec && v[0].pid == 77 && v[0].tid == 79);
	EXPECT_EQ(v[0].time, 4444);
	EXPECT_EQ(v[0].addr, 0);
	EXPECT_TRUE(!v[1].fork && v[1].addr == 0x2000);
	h.size = 24; /* { pid, ppid; tid, ptid } and no time */
	memcpy(&rec[0], &h, sizeof(h));
	put(ring, sizeof(ring), 0, rec, 24);
	tail = 0;
	EXPECT_EQ(sampling_parse(ring, sizeof(ring), 24, &tail, &st, NULL, NULL), -EBADMSG);
}

TEST(parse_rejects_corrupt)
{
	static unsigned char ring[256];
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 0 };
	struct sampling_stats st = { 0 };
	uint64_t tail = 0;

	put(ring, sizeof(ring), 0, &h, sizeof(h));
	EXPECT_EQ(sampling_parse(ring, sizeof(ring), 64, &tail, &st, NULL, NULL), -EBADMSG);
	h.size = 80; /* longer than what head says is there */
	put(ring, sizeof(ring), 0, &h, sizeof(h));
	EXPECT_EQ(sampling_parse(ring, sizeof(ring), 64, &tail, &st, NULL, NULL), -EBADMSG);
	h.size = 12; /* not 8-aligned */
	put(ring, sizeof(ring), 0, &h, sizeof(h));
	EXPECT_EQ(sampling_parse(ring, sizeof(ring), 64, &tail, &st, NULL, NULL), -EBADMSG);
	h.type = PERF_RECORD_SAMPLE; /* a sample too short for our fields */
	h.size = 16;
	put(ring, sizeof(ring), 0, &h, sizeof(h));
	EXPECT_EQ(sampling_parse(ring, sizeof(ring), 64, &tail, &st, NULL, NULL), -EBADMSG);
	/* unknown record types are skipped, not misread */
	h.type = 9999;
	h.size = 64;
	put(ring, sizeof(ring), 0, &h, sizeof(h));
	tail = 0;
	EXPECT_EQ(sampling_parse(ring, sizeof(ring), 64, &tail, &st, NULL, NULL), 0);
	EXPECT_EQ(st.other_records, 1);
}

static uint64_t tlb_src(unsigned tlb)
{
	union perf_mem_data_src d = { .val = 0 };

	d.mem_dtlb = tlb;
	return d.val;
}

TEST(decode_tlb_bits)
{
	static const struct {
		unsigned tlb;
		const char *text;
		bool known, hit, miss, walker;
	} t[] = {
		{ PERF_MEM_TLB_NA, "n/a", false, false, false, false },
		{ 0, "n/a", false, false, false, false },
		{ PERF_MEM_TLB_HIT | PERF_MEM_TLB_L1, "L1 hit", true, true, false, false },
		{ PERF_MEM_TLB_HIT | PERF_MEM_TLB_L2, "L2 hit", true, true, false, false },
		{ PERF_MEM_TLB_MISS | PERF_MEM_TLB_L1 | PERF_MEM_TLB_L2 | PERF_MEM_TLB_WK,
		  "L1+L2 miss, walk", true, false, true, true },
		{ PERF_MEM_TLB_MISS | PERF_MEM_TLB_OS, "TLB miss, OS fault", true, false, true, false },
	};
	size_t i;

	for (i = 0; i < MS_ARRAY_SIZE(t); i++) {
		struct sampling_tlb d;
		char buf[64];

		sampling_decode_tlb(tlb_src(t[i].tlb), &d);
		sampling_tlb_str(tlb_src(t[i].tlb), buf, sizeof(buf));
		printf("  0x%02x -> %s\n", t[i].tlb, buf);
		EXPECT_STREQ(buf, t[i].text);
		EXPECT_EQ(d.known, t[i].known);
		EXPECT_EQ(d.hit, t[i].hit);
		EXPECT_EQ(d.miss, t[i].miss);
		EXPECT_EQ(d.walker, t[i].walker);
	}
}

TEST(open_rejects)
{
	struct sampling_options o = { .event = "page-faults", .period = 1, .data_pages = 3 };
	struct sampling_ring *r;

	EXPECT_EQ(sampling_open(&r, &o), -EINVAL);
	o.data_pages = 1;
	o.period = 0;
	EXPECT_EQ(sampling_open(&r, &o), -EINVAL);
	o.period = 1;
	o.event = "NO_SUCH_EVENT";
	EXPECT_EQ(sampling_open(&r, &o), -ENOMSG);
}

/* ---- an SPE record's thread, filed under its process ------------------------ */

struct thread {
	int tid;
	sem_t ready, done;
};

static void *thread_main(void *arg)
{
	struct thread *t = arg;

	t->tid = (int)syscall(SYS_gettid);
	sem_post(&t->ready);
	sem_wait(&t->done);
	return NULL;
}

static int pid_max(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	int n = 0;

	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(fscanf(f, "%d", &n), 1);
	fclose(f);
	return n;
}

/* CONTEXTIDR holds a thread's id: each thread maps to its process, this
 * one's second thread to getpid(), once looked up even after it ended; a
 * thread id that names no thread (pid_max: ids are below it) is -ESRCH,
 * and keeps itself through the cache. */
TEST(tgid_of_threads)
{
	static struct sampling_tgid_cache c;
	struct thread t = { 0 };
	pthread_t th;
	int gone = pid_max();

	/* scripts/test.sh's arm64 step runs under qemu-user 7.2, where a second
	 * thread hangs on this kernel as a fork child does (it sets
	 * HARNESS_NOFORK for that): the x86 suite runs this test */
	if (getenv("HARNESS_NOFORK"))
		SKIP("a thread hangs under qemu-user (HARNESS_NOFORK: the arm64 step)");
	ASSERT_EQ(sem_init(&t.ready, 0, 0), 0);
	ASSERT_EQ(sem_init(&t.done, 0, 0), 0);
	ASSERT_EQ(pthread_create(&th, NULL, thread_main, &t), 0);
	sem_wait(&t.ready);
	EXPECT_TRUE(t.tid > 0 && t.tid != getpid());
	EXPECT_EQ(sampling_tgid(t.tid), getpid());
	EXPECT_EQ(sampling_tgid((int)syscall(SYS_gettid)), getpid());
	EXPECT_EQ(sampling_tgid(getpid()), getpid());
	EXPECT_EQ(sampling_tgid_cached(&c, t.tid), getpid());
	sem_post(&t.done);
	pthread_join(th, NULL);
	EXPECT_EQ(sampling_tgid_cached(&c, t.tid), getpid()); /* from the cache */
	EXPECT_EQ(sampling_tgid(gone), -ESRCH);
	EXPECT_EQ(sampling_tgid(0), -EINVAL);
	EXPECT_EQ(sampling_tgid_cached(&c, gone), gone);
	EXPECT_EQ(sampling_tgid_cached(&c, 0), 0);
}

/* ---- the kernel's ring ----------------------------------------------------- */

__attribute__((no_sanitize_address, noinline)) static void touch(char *p, size_t from,
								  size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		((volatile char *)p)[i * 4096 + 8] = 1;
}

static struct sampling_ring *open_faults(unsigned pages)
{
	struct sampling_options o = { .event = "page-faults", .period = 1, .data_pages = pages };
	struct sampling_ring *r;
	int err = sampling_open(&r, &o);

	if (err == -ENOSYS)
		SKIP("perf_event_open is not implemented here (qemu-user?)");
	if (err == -EACCES || err == -EPERM)
		SKIP("perf_event_open not permitted (perf_event_paranoid %d)", counters_paranoid());
	ASSERT_EQ(err, 0);
	return r;
}

static char *fresh(size_t pages)
{
	char *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	ASSERT_TRUE(p != MAP_FAILED);
	madvise(p, pages * 4096, MADV_NOHUGEPAGE); /* one fault per page */
	return p;
}

TEST(kernel_every_fault_address)
{
	enum { N = 512 };
	static struct collect c;
	struct sampling_ring *r = open_faults(32); /* 128 KiB: ~3000 records, no wrap */
	const struct sampling_stats *st;
	char *p = fresh(N + 1);
	int i;

	touch(p, N, N + 1); /* warm the loop */
	c.lo = (uintptr_t)p;
	c.hi = (uintptr_t)p + N * 4096;
	c.tid = (uint32_t)syscall(SYS_gettid);
	ASSERT_EQ(sampling_enable(r), 0);
	touch(p, 0, N);
	ASSERT_EQ(sampling_disable(r), 0);
	ASSERT_EQ(sampling_drain(r, collect, &c), 0);
	st = sampling_stats(r);
	printf("  %d in-buffer samples, %d elsewhere, lost %llu\n", c.n, c.outside,
	       (unsigned long long)st->lost_samples);
	EXPECT_EQ(c.n, N);
	EXPECT_TRUE(c.outside <= EXTRA_FAULTS);
	EXPECT_EQ(st->lost_records, 0);
	EXPECT_EQ(c.wrong_tid, 0);
	EXPECT_EQ(c.time_backwards, 0);
	/* the faulting address itself, in touch order */
	for (i = 0; i < N && i < c.n; i++)
		if (c.addr[i] != (uintptr_t)p + (uint64_t)i * 4096 + 8) {
			FAIL_AT("sample %d: address %#llx", i, (unsigned long long)c.addr[i]);
			break;
		}
	sampling_close(r);
	munmap(p, (N + 1) * 4096);
}

/* Events of two threads on every CPU (inherited by their threads alone),
 * the second's into the first's ring of each CPU: a thread the first
 * starts, its 256 faults and its fork record, and the second's own 128
 * are in the first's rings; a child process the first forks is not
 * followed; the second's events hold no ring. */
struct started {
	char *p;
	size_t from, to;
	uint32_t tid;
	sem_t go;
	bool wait;
};

static void *started_main(void *arg)
{
	struct started *s = arg;

	s->tid = (uint32_t)syscall(SYS_gettid);
	if (s->wait)
		sem_wait(&s->go);
	touch(s->p, s->from, s->to);
	return NULL;
}

struct fork_seen {
	uint32_t tid, tid2;
	int forks, samples, samples2, other;
	uintptr_t lo, hi;
};

static int count_started(const struct sampling_sample *s, void *ctx)
{
	struct fork_seen *f = ctx;

	if (s->fork) {
		f->forks += s->tid == f->tid;
	} else if (!s->exec && s->addr >= f->lo && s->addr < f->hi) {
		f->samples += s->tid == f->tid;
		f->samples2 += s->tid == f->tid2;
		f->other += s->tid != f->tid && s->tid != f->tid2;
	}
	return 0;
}

/* Events on every CPU for thread tid (0: this one), into out[] where given. */
static int open_per_cpu(struct sampling_ring **r, int tid, struct sampling_ring **out, int *n)
{
	struct sampling_options o = { .event = "page-faults", .period = 1, .data_pages = 64,
				      .inherit = true, .inherit_thread = true, .on_cpu = true,
				      .execs = true, .pid = tid };
	int cpu, err, ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);

	for (*n = 0, cpu = 0; cpu < ncpu && cpu < 256; cpu++) {
		o.cpu = cpu;
		o.output = out ? out[*n] : NULL;
		err = sampling_open(&r[*n], &o);
		if (err == -ENODEV || err == -ENXIO)
			continue;
		if (err)
			return err;
		(*n)++;
	}
	return 0;
}

TEST(kernel_threads_share_a_ring)
{
	struct sampling_ring *r[256] = { NULL }, *r2[256] = { NULL };
	char *p = fresh(640);
	struct started s = { p, 0, 256 }, s2 = { p, 512, 640, .wait = true };
	struct fork_seen f = { 0 };
	int cpu, n, n2, err, st;
	pthread_t t, t2;
	pid_t child;

	/* whether the events open, before the second thread: a skip leaves
	 * no thread behind (under qemu-user the tests share one process), and
	 * that thread must exist before this one's events (it would inherit
	 * them) */
	err = open_per_cpu(r, 0, NULL, &n);
	for (cpu = 0; cpu < n; cpu++)
		sampling_close(r[cpu]);
	if (err == -EINVAL)
		SKIP("no attr.inherit_thread here (before 5.13)");
	if (err == -ENOSYS || err == -EACCES || err == -EPERM)
		SKIP("perf_event_open not available or not permitted");
	ASSERT_EQ(err, 0);
	sem_init(&s2.go, 0, 0);
	ASSERT_EQ(pthread_create(&t2, NULL, started_main, &s2), 0);
	while (!__atomic_load_n(&s2.tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	ASSERT_EQ(open_per_cpu(r, 0, NULL, &n), 0);
	ASSERT_EQ(open_per_cpu(r2, (int)s2.tid, r, &n2), 0);
	ASSERT_EQ(n2, n);
	for (cpu = 0; cpu < n; cpu++) {
		ASSERT_EQ(sampling_enable(r[cpu]), 0);
		ASSERT_EQ(sampling_enable(r2[cpu]), 0);
	}
	ASSERT_EQ(pthread_create(&t, NULL, started_main, &s), 0);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	if ((child = fork()) == 0) {
		touch(p, 256, 512);
		_exit(0);
	}
	ASSERT_EQ(waitpid(child, &st, 0), child);
	sem_post(&s2.go);
	ASSERT_EQ(pthread_join(t2, NULL), 0);
	for (cpu = 0; cpu < n; cpu++) {
		ASSERT_EQ(sampling_disable(r[cpu]), 0);
		ASSERT_EQ(sampling_disable(r2[cpu]), 0);
	}
	f.tid = s.tid;
	f.tid2 = s2.tid;
	f.lo = (uintptr_t)p;
	f.hi = (uintptr_t)p + 640 * 4096;
	for (cpu = 0; cpu < n; cpu++) {
		ASSERT_EQ(sampling_drain(r[cpu], count_started, &f), 0);
		ASSERT_EQ(sampling_drain(r2[cpu], count_started, &f), 0);
		EXPECT_EQ(sampling_stats(r[cpu])->lost_records, 0);
		EXPECT_EQ(sampling_stats(r2[cpu])->samples, 0);
	}
	printf("  %d CPUs: %d samples of the started thread, %d of the second, %d of "
	       "others, %d fork records of it\n", n, f.samples, f.samples2, f.other, f.forks);
	EXPECT_EQ(f.samples, 256);
	EXPECT_EQ(f.samples2, 128);
	EXPECT_EQ(f.other, 0);
	EXPECT_EQ(f.forks, 1);
	for (cpu = 0; cpu < n; cpu++) {
		sampling_close(r2[cpu]);
		sampling_close(r[cpu]);
	}
	sem_destroy(&s2.go);
	munmap(p, 640 * 4096);
}

TEST(kernel_small_ring_wraps)
{
	enum { N = 1000, BATCH = 32 };
	static struct collect c;
	struct sampling_ring *r = open_faults(1); /* one page: ~100 records */
	const struct sampling_stats *st;
	char *p = fresh(N + 1);
	size_t i;

	touch(p, N, N + 1);
	c.lo = (uintptr_t)p;
	c.hi = (uintptr_t)p + N * 4096;
	ASSERT_EQ(sampling_enable(r), 0);
	for (i = 0; i < N; i += BATCH) {
		touch(p, i, i + BATCH < N ? i + BATCH : N);
		ASSERT_EQ(sampling_drain(r, collect, &c), 0);
	}
	ASSERT_EQ(sampling_disable(r), 0);
	ASSERT_EQ(sampling_drain(r, collect, &c), 0);
	st = sampling_stats(r);
	printf("  %d samples, %llu records straddled the end, %llu bytes through a 4 KiB ring\n",
	       c.n, (unsigned long long)st->wrapped, (unsigned long long)st->bytes);
	EXPECT_EQ(c.n, N);
	EXPECT_EQ(st->lost_records, 0);
	EXPECT_TRUE(st->wrapped > 0);
	EXPECT_TRUE(st->bytes > 4096 * 5);
	sampling_close(r);
	munmap(p, (N + 1) * 4096);
}

TEST(kernel_full_ring_counts_lost)
{
	enum { N = 1000 };
	static struct collect c;
	struct sampling_ring *r = open_faults(1);
	const struct sampling_stats *st;
	char *p = fresh(N + 2);

	touch(p, N + 1, N + 2);
	c.lo = (uintptr_t)p;
	c.hi = (uintptr_t)p + (N + 1) * 4096;
	ASSERT_EQ(sampling_enable(r), 0);
	touch(p, 0, N); /* never drained: the ring fills */
	ASSERT_EQ(sampling_drain(r, collect, &c), 0);
	/* the kernel writes PERF_RECORD_LOST with the next record that fits */
	touch(p, N, N + 1);
	ASSERT_EQ(sampling_disable(r), 0);
	ASSERT_EQ(sampling_drain(r, collect, &c), 0);
	st = sampling_stats(r);
	printf("  %d samples kept, %llu lost in %llu LOST record(s)\n", c.n,
	       (unsigned long long)st->lost_samples, (unsigned long long)st->lost_records);
	EXPECT_TRUE(c.n < N);
	EXPECT_TRUE(st->lost_records >= 1);
	/* kept + lost covers every fault (lost ones may include the extras) */
	EXPECT_TRUE(c.n + c.outside + st->lost_samples >= N + 1);
	EXPECT_TRUE(c.n + c.outside + st->lost_samples <= N + 1 + EXTRA_FAULTS);
	sampling_close(r);
	munmap(p, (N + 2) * 4096);
}

HARNESS_MAIN

/* A process that execs, sampled with execs: one exec delivered, its pid
 * the child's and its time between the samples of the image before (the
 * faults after its read of the pipe) and those of /bin/true's. */
struct exec_split {
	uint32_t pid;
	int execs;
	uint64_t exec_time;
	int before, after, unordered;
};

static int split_at_exec(const struct sampling_sample *s, void *ctx)
{
	struct exec_split *x = ctx;

	if (s->pid != x->pid)
		return 0;
	if (s->exec) {
		x->execs++;
		x->exec_time = s->time;
	} else if (!x->execs) {
		x->before++;
	} else if (s->time > x->exec_time) {
		x->after++;
	} else {
		x->unordered++;
	}
	return 0;
}

TEST(kernel_exec_record)
{
	struct sampling_options o = { .event = "page-faults", .period = 1, .data_pages = 64,
				      .execs = true };
	static struct exec_split x;
	struct sampling_ring *r;
	int go[2], st, err;
	pid_t pid;

	ASSERT_EQ(pipe(go), 0);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		char c;
		static volatile char buf[8 * 4096];

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		for (size_t i = 0; i < sizeof(buf); i += 4096)
			buf[i] = 1; /* faults of the image before */
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	o.pid = pid;
	err = sampling_open(&r, &o);
	if (err) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (err == -ENOSYS)
		SKIP("perf_event_open is not implemented here (qemu-user?)");
	if (err == -EACCES || err == -EPERM)
		SKIP("perf_event_open not permitted (perf_event_paranoid %d)", counters_paranoid());
	ASSERT_EQ(err, 0);
	ASSERT_EQ(sampling_enable(r), 0);
	ASSERT_EQ(write(go[1], "g", 1), 1);
	close(go[1]);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	x.pid = (uint32_t)pid;
	ASSERT_EQ(sampling_drain(r, split_at_exec, &x), 0);
	printf("  %d exec, %d samples before it, %d after, %d out of order\n", x.execs, x.before,
	       x.after, x.unordered);
	EXPECT_EQ(x.execs, 1);
	EXPECT_EQ(sampling_stats(r)->execs, 1);
	EXPECT_TRUE(x.exec_time > 0);
	EXPECT_TRUE(x.before >= 8); /* and the COW faults of its stack */
	EXPECT_TRUE(x.after > 0);
	EXPECT_EQ(x.unordered, 0);
	sampling_close(r);
}
