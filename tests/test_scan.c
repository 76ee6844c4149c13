// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mthpscope scan on real mappings of this process (and of a forked child):
 * exact thpmaps labels at orders 0, 2, 4, 9, partial, unaligned, holes,
 * shmem, --cont 64K, the JSON document, and bad input exit statuses.
 * Writes THP knobs: MTHPSCOPE_TEST_WRITES_THP.
 */
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "harness.h"
#include "folio_util.h"

#define MB (1UL << 20)

static const char *bin(void)
{
	const char *b = getenv("MTHPSCOPE_BIN");

	if (!b)
		SKIP("MTHPSCOPE_BIN is not set (run under ctest)");
	return b;
}

/* Run the binary; its stdout parsed as JSON (NULL if not JSON), *rc its exit status. */
static json_t *run_scan(const char *args, int *rc)
{
	char cmd[1024];
	json_error_t jerr;
	json_t *j;
	FILE *f;
	int st;

	snprintf(cmd, sizeof(cmd), "%s scan %s", bin(), args);
	f = popen(cmd, "r");
	ASSERT_TRUE(f != NULL);
	j = json_loadf(f, 0, &jerr);
	st = pclose(f);
	*rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	return j;
}

static json_t *scan_pids(const char *extra, int pid1, int pid2)
{
	char args[256];
	json_t *j;
	int rc;

	if (pid2)
		snprintf(args, sizeof(args), "--json --pid %d --pid %d %s", pid1, pid2, extra);
	else
		snprintf(args, sizeof(args), "--json --pid %d %s", pid1, extra);
	j = run_scan(args, &rc);
	ASSERT_EQ(rc, 0);
	ASSERT_TRUE(j != NULL);
	return j;
}

/* The VMA of 'pid' starting at 'start' in the first sample. */
static json_t *vma_obj(json_t *doc, int pid, const void *start)
{
	json_t *procs = json_object_get(json_array_get(json_object_get(doc, "samples"), 0),
					"processes");
	char want[32];
	size_t i, k;

	snprintf(want, sizeof(want), "%p", start);
	for (i = 0; i < json_array_size(procs); i++) {
		json_t *p = json_array_get(procs, i), *vmas = json_object_get(p, "vmas");

		if (json_integer_value(json_object_get(p, "pid")) != pid)
			continue;
		for (k = 0; k < json_array_size(vmas); k++) {
			json_t *v = json_array_get(vmas, k);
			if (!strcmp(json_string_value(json_object_get(v, "start")), want))
				return v;
		}
	}
	FAIL_AT("no VMA at %s for pid %d", want, pid);
	_exit(1);
}

/* The stats object of that VMA. */
static json_t *vma_stats(json_t *doc, int pid, const void *start)
{
	return json_object_get(vma_obj(doc, pid, start), "stats");
}

static long long kb(json_t *stats, const char *label)
{
	return json_integer_value(json_object_get(stats, label)); /* absent = 0 */
}

/* Sum of all labels of a VMA: nothing counted twice or elsewhere. */
static long long sum_kb(json_t *stats)
{
	const char *k;
	json_t *v;
	long long s = 0;

	json_object_foreach(stats, k, v)
		if (!strstr(k, "-cont-"))
			s += json_integer_value(v);
	return s;
}

static char *map_or_skip(int order, size_t size)
{
	unsigned long long fb;
	struct folio_hist h;
	char *p = tu_map_order(order, size, &fb);

	/* an allocation the kernel could not make is not the scanner's fault */
	if (folio_scan_range(0, (unsigned long)p, (unsigned long)p + size, &h) ||
	    h.pages[order] != size / 4096)
		SKIP("order %d faults fell back (%llu fallbacks): memory fragmented", order, fb);
	return p;
}

TEST(orders_exact_with_cont)
{
	char *p0, *p2, *p4, *p9;
	json_t *doc, *s;

	tu_require_pfns();
	p0 = map_or_skip(0, 4 * MB);
	p2 = map_or_skip(2, 4 * MB);
	p4 = map_or_skip(4, 4 * MB);
	p9 = map_or_skip(9, 4 * MB);
	doc = scan_pids("--cont 64K", getpid(), 0);

	s = vma_stats(doc, getpid(), p0);
	EXPECT_EQ(sum_kb(s), 0); /* order-0 folios have no label */
	s = vma_stats(doc, getpid(), p2);
	EXPECT_EQ(kb(s, "anon-thp-pte-aligned-16kB"), 4096);
	EXPECT_EQ(sum_kb(s), 4096);
	EXPECT_EQ(kb(s, "anon-cont-pte-aligned-64kB"), 0);
	s = vma_stats(doc, getpid(), p4);
	EXPECT_EQ(kb(s, "anon-thp-pte-aligned-64kB"), 4096);
	EXPECT_EQ(sum_kb(s), 4096);
	EXPECT_EQ(kb(s, "anon-cont-pte-aligned-64kB"), 4096);
	s = vma_stats(doc, getpid(), p9);
	EXPECT_EQ(kb(s, "anon-thp-pmd-aligned-2048kB"), 4096);
	EXPECT_EQ(kb(s, "anon-thp-pte-aligned-2048kB"), 0);
	EXPECT_EQ(sum_kb(s), 4096);
	EXPECT_EQ(kb(s, "anon-cont-pmd-aligned-64kB"), 4096);
	EXPECT_EQ(kb(s, "anon-cont-pte-aligned-64kB"), 0);

	/* smaps' PMD amounts (thpmaps' way) give the same labels as PAGEMAP_SCAN's,
	 * and one worker the same as two */
	{
		json_t *sm = scan_pids("--cont 64K --smaps", getpid(), 0);
		json_t *one = scan_pids("--cont 64K --threads 1", getpid(), 0);
		char *q[] = { p0, p2, p4, p9 };
		size_t i;

		for (i = 0; i < 4; i++) {
			EXPECT_TRUE(json_equal(vma_stats(doc, getpid(), q[i]),
					       vma_stats(sm, getpid(), q[i])));
			EXPECT_TRUE(json_equal(vma_stats(doc, getpid(), q[i]),
					       vma_stats(one, getpid(), q[i])));
		}
		json_decref(sm);
		json_decref(one);
	}
	json_decref(doc);
}

/* Unmapping the first 2 pages of an order-4 mapping leaves its first folio
 * mapped in part: 14 pages partial, the rest complete. */
TEST(partial_munmap)
{
	struct folio_hist h;
	bool split;
	json_t *doc, *s;
	char *p;

	tu_require_pfns();
	p = map_or_skip(4, 1 * MB);
	ASSERT_EQ(munmap(p, 2 * 4096), 0);
	ASSERT_EQ(folio_scan_range(0, (unsigned long)p + 8192, (unsigned long)p + MB, &h), 0);
	split = tu_was_split(&h, 14);
	EXPECT_EQ(h.partial, split ? 0 : 14);
	EXPECT_EQ(h.pages[4], 256 - 16);
	doc = scan_pids("", getpid(), 0);
	s = vma_stats(doc, getpid(), p + 8192);
	EXPECT_EQ(kb(s, "anon-thp-pte-partial"), split ? 0 : 56);
	EXPECT_EQ(kb(s, "anon-thp-pte-aligned-64kB"), 1024 - 64);
	json_decref(doc);
}

/* mremap to an address one page off: every folio unaligned; a PMD-mapped
 * folio is then PTE-mapped. */
TEST(mremap_unaligned)
{
	char *p4, *p9, *dst, *q4, *q9;
	json_t *doc, *s;

	tu_require_pfns();
	p4 = map_or_skip(4, 1 * MB);
	p9 = map_or_skip(9, 2 * MB);
	dst = tu_map_aligned(8 * MB);
	ASSERT_TRUE(dst != NULL);
	q4 = mremap(p4, MB, MB, MREMAP_MAYMOVE | MREMAP_FIXED, dst + 4096);
	q9 = mremap(p9, 2 * MB, 2 * MB, MREMAP_MAYMOVE | MREMAP_FIXED, dst + 4 * MB + 4096);
	ASSERT_TRUE(q4 != MAP_FAILED && q9 != MAP_FAILED);
	doc = scan_pids("--cont 64K", getpid(), 0);
	s = vma_stats(doc, getpid(), q4);
	EXPECT_EQ(kb(s, "anon-thp-pte-unaligned-64kB"), 1024);
	EXPECT_EQ(sum_kb(s), 1024);
	/* blocks must be aligned virtually and physically: none is */
	EXPECT_EQ(kb(s, "anon-cont-pte-aligned-64kB"), 0);
	s = vma_stats(doc, getpid(), q9);
	EXPECT_EQ(kb(s, "anon-thp-pte-unaligned-2048kB"), 2048);
	EXPECT_EQ(kb(s, "anon-thp-pmd-aligned-2048kB"), 0);
	EXPECT_EQ(sum_kb(s), 2048);
	json_decref(doc);

	/* moved back to an aligned address it stays PTE-mapped: aligned, not PMD */
	{
		char *back = tu_map_aligned(2 * MB);
		json_t *sm;

		ASSERT_TRUE(back != NULL);
		back = mremap(q9, 2 * MB, 2 * MB, MREMAP_MAYMOVE | MREMAP_FIXED, back);
		ASSERT_TRUE(back != MAP_FAILED);
		doc = scan_pids("--cont 64K", getpid(), 0);
		sm = scan_pids("--cont 64K --smaps", getpid(), 0);
		s = vma_stats(doc, getpid(), back);
		EXPECT_EQ(kb(s, "anon-thp-pte-aligned-2048kB"), 2048);
		EXPECT_EQ(kb(s, "anon-thp-pmd-aligned-2048kB"), 0);
		EXPECT_EQ(kb(s, "anon-cont-pte-aligned-64kB"), 2048);
		EXPECT_TRUE(json_equal(s, vma_stats(sm, getpid(), back)));
		json_decref(sm);
		json_decref(doc);
	}
}

/* MADV_DONTNEED of a whole folio is a hole; of half a folio, the other half
 * is partial. */
TEST(dontneed_holes)
{
	struct folio_hist h;
	bool split;
	json_t *doc, *s;
	char *p;

	tu_require_pfns();
	p = map_or_skip(4, 1 * MB);
	ASSERT_EQ(madvise(p, 64 * 1024, MADV_DONTNEED), 0);
	ASSERT_EQ(madvise(p + 128 * 1024, 32 * 1024, MADV_DONTNEED), 0);
	ASSERT_EQ(folio_scan_range(0, (unsigned long)p, (unsigned long)p + MB, &h), 0);
	split = tu_was_split(&h, 8);
	EXPECT_EQ(h.not_present, 16 + 8);
	EXPECT_EQ(h.partial, split ? 0 : 8);
	EXPECT_EQ(h.pages[4], 256 - 32);
	doc = scan_pids("", getpid(), 0);
	s = vma_stats(doc, getpid(), p);
	EXPECT_EQ(kb(s, "anon-thp-pte-partial"), split ? 0 : 32);
	EXPECT_EQ(kb(s, "anon-thp-pte-aligned-64kB"), 1024 - 128);
	json_decref(doc);
}

/* shmem (memfd) is the file side: with PMD shmem THP it is file-pmd. */
TEST(shmem_file_side)
{
	struct thp_settings ts;
	struct folio_hist h;
	json_t *doc, *s;
	char *p;
	int fd, err;
	size_t off;

	tu_require_pfns();
	ASSERT_EQ(thp_read(&ts), 0);
	fd = (int)syscall(SYS_memfd_create, "mthpscope-test", 0);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(ftruncate(fd, 4 * MB), 0);
	p = tu_map_aligned(4 * MB);
	ASSERT_TRUE(p != NULL);
	p = mmap(p, 4 * MB, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	/* the knob only while faulting, with nothing in between that can fail */
	err = thp_set_top("shmem_enabled", THP_W_ALWAYS);
	if (!err)
		for (off = 0; off < 4 * MB; off += 4096)
			p[off] = 1;
	thp_restore();
	if (err)
		SKIP("cannot set shmem_enabled");
	ASSERT_EQ(folio_scan_range(0, (unsigned long)p, (unsigned long)p + 4 * MB, &h), 0);
	EXPECT_EQ(h.file, 1024);
	EXPECT_EQ(h.anon, 0);
	if (h.pages[9] != 1024)
		SKIP("no PMD-size shmem folios were allocated (%llu pages)", h.pages[9]);
	EXPECT_EQ(h.pmd_mapped, 1024);
	doc = scan_pids("", getpid(), 0);
	s = vma_stats(doc, getpid(), p);
	EXPECT_EQ(kb(s, "file-thp-pmd-aligned-2048kB"), 4096);
	EXPECT_EQ(sum_kb(s), 4096);
	json_decref(doc);
	close(fd);
}

/* A forked child maps the same folios: both processes show them. */
TEST(forked_child_shares)
{
	json_t *doc, *s;
	int pipefd[2];
	pid_t child;
	char *p, c;

	tu_require_pfns();
	p = map_or_skip(4, 2 * MB);
	ASSERT_EQ(pipe(pipefd), 0);
	child = fork();
	if (child == 0) {
		close(pipefd[1]);
		(void)!read(pipefd[0], &c, 1); /* until the parent is done */
		_exit(0);
	}
	ASSERT_TRUE(child > 0);
	close(pipefd[0]);
	doc = scan_pids("", getpid(), child);
	s = vma_stats(doc, getpid(), p);
	EXPECT_EQ(kb(s, "anon-thp-pte-aligned-64kB"), 2048);
	s = vma_stats(doc, child, p);
	EXPECT_EQ(kb(s, "anon-thp-pte-aligned-64kB"), 2048);
	json_decref(doc);
	close(pipefd[1]);
	waitpid(child, NULL, 0);
}

/* thpmaps would call the huge zero page file-thp-pte-aligned-2048kB */
TEST(huge_zero_page_label)
{
	json_t *doc, *s;
	char *p;

	tu_require_pfns();
	p = tu_map_huge_zero(4 * MB);
	doc = scan_pids("", getpid(), 0);
	s = vma_stats(doc, getpid(), p);
	if (tu_read_kind(p, 4 * MB) != TU_PRIVATE) {
		EXPECT_EQ(kb(s, "zero-page"), 4096);
		EXPECT_EQ(sum_kb(s), 4096);
	} else {
		/* private folios instead (see tu_map_huge_zero): PMD-mapped
		 * ones labelled, order-0 ones (fallbacks) not */
		long long pmd_kb = tu_smaps_kb(p, "AnonHugePages:");

		TEST_NOTE("read faults map private folios on this kernel (%lld kB PMD-mapped)",
			  pmd_kb);
		ASSERT_TRUE(pmd_kb >= 0);
		EXPECT_EQ(kb(s, "zero-page"), 0);
		EXPECT_EQ(kb(s, "anon-thp-pmd-aligned-2048kB"), pmd_kb);
		EXPECT_EQ(sum_kb(s), pmd_kb);
	}
	json_decref(doc);
}

/* The L2 entries_needed of model 'name' in a VMA's (or rollup's) "tlb". */
static long long l2_entries(json_t *o, const char *name)
{
	json_t *tlb = json_object_get(o, "tlb"), *f, *lv;
	size_t i, k;

	json_array_foreach(tlb, i, f) {
		if (strcmp(json_string_value(json_object_get(f, "model")), name))
			continue;
		json_array_foreach(json_object_get(f, "levels"), k, lv)
			if (!strcmp(json_string_value(json_object_get(lv, "level")), "L2"))
				return json_integer_value(json_object_get(lv, "entries_needed"));
	}
	FAIL_AT("no L2 footprint of %s", name);
	return -1;
}

/*
 * The acceptance table of the TLB model (issue 19), per VMA from the real
 * layout: 64 MiB at order 4 needs 16384 L2 entries without merging, 2048
 * with AMD's coalescing (8 PTEs where the block allows: issue 38), 1024 with
 * arm64 contpte; 64 MiB PMD-mapped
 * needs 32 on each. The rollup holds both.
 */
TEST(tlb_footprint_per_vma)
{
	const char *models[] = { "skylake", "zen4", "neoverse-n2" };
	const long long want4[] = { 16384, 2048, 1024 };
	char args[256], *p4, *p9;
	json_t *doc, *v4, *v9, *rollup;
	int i, rc;

	tu_require_pfns();
	p4 = map_or_skip(4, 64 * MB);
	p9 = map_or_skip(9, 64 * MB);
	for (i = 0; i < 3; i++) {
		snprintf(args, sizeof(args), "--json --pid %d --tlb-model %s", getpid(), models[i]);
		doc = run_scan(args, &rc);
		ASSERT_EQ(rc, 0);
		ASSERT_TRUE(doc != NULL);
		v4 = vma_obj(doc, getpid(), p4);
		v9 = vma_obj(doc, getpid(), p9);
		EXPECT_EQ(json_integer_value(json_object_get(json_object_get(v4, "layout"),
							     "pmd_maps")), 0);
		EXPECT_EQ(json_integer_value(json_array_get(
				  json_object_get(json_object_get(v4, "layout"), "folio"), 4)), 1024);
		EXPECT_EQ(json_integer_value(json_object_get(json_object_get(v9, "layout"),
							     "pmd_maps")), 32);
		rollup = json_object_get(json_array_get(json_object_get(doc, "samples"), 0),
					 "rollup");
		EXPECT_EQ(l2_entries(v4, models[i]), want4[i]);
		EXPECT_EQ(l2_entries(v9, models[i]), 32);
		/* the process holds more than these two: at least their sum */
		EXPECT_TRUE(l2_entries(rollup, models[i]) >= want4[i] + 32);
		json_decref(doc);
	}
	/* an unknown model is a usage error; the list is printed */
	doc = run_scan("--tlb-model nosuch 2>/dev/null", &rc);
	EXPECT_EQ(rc, 2);
	json_decref(doc);
	doc = run_scan("--tlb-model list >/dev/null", &rc);
	EXPECT_EQ(rc, 0);
	munmap(p4, 64 * MB);
	munmap(p9, 64 * MB);
}

TEST(json_round_trip)
{
	json_t *doc, *again, *sample, *rollup;
	char *text;
	int rc;

	tu_require_pfns();
	char args[128];

	snprintf(args, sizeof(args),
		 "--json --rollup --cont 64K --cont 2M --interval 10 --count 2 --pid %d", getpid());
	doc = run_scan(args, &rc);
	ASSERT_EQ(rc, 0);
	ASSERT_TRUE(doc != NULL);
	EXPECT_STREQ(json_string_value(json_object_get(doc, "schema")), "mthpscope.scan/1");
	EXPECT_EQ(json_integer_value(json_object_get(doc, "page_size")), 4096);
	EXPECT_EQ(json_integer_value(json_object_get(doc, "pmd_kb")), 2048);
	EXPECT_EQ(json_array_size(json_object_get(doc, "cont_kb")), 2);
	EXPECT_EQ(json_array_size(json_object_get(doc, "samples")), 2);
	sample = json_array_get(json_object_get(doc, "samples"), 1);
	EXPECT_TRUE(json_object_get(sample, "processes") == NULL); /* --rollup */
	rollup = json_object_get(json_object_get(sample, "rollup"), "stats");
	/* the rollup carries every label, zero or not */
	EXPECT_TRUE(json_is_integer(json_object_get(rollup, "anon-thp-pte-aligned-16kB")));
	EXPECT_TRUE(json_is_integer(json_object_get(rollup, "file-thp-pte-partial")));
	EXPECT_TRUE(json_is_integer(json_object_get(rollup, "anon-cont-pte-aligned-64kB")));
	EXPECT_TRUE(json_is_integer(json_object_get(rollup, "file-cont-pmd-aligned-2048kB")));
	EXPECT_TRUE(json_is_integer(json_object_get(rollup, "zero-page")));
	text = json_dumps(doc, JSON_SORT_KEYS);
	again = json_loads(text, 0, NULL);
	EXPECT_TRUE(json_equal(doc, again));
	free(text);
	json_decref(again);
	json_decref(doc);
}

/*
 * A cgroup tree as --cgroup reads it: directories with cgroup.procs files.
 * A stand-in under /tmp tests the walk without touching the machine's
 * cgroups: the parent in the top one, a child in a nested one.
 */
static void fake_cgroup(char *dir, size_t size, int pid1, int pid2)
{
	char path[700];
	FILE *f;

	snprintf(dir, size, "/tmp/mthpscope-cg.XXXXXX");
	ASSERT_TRUE(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	ASSERT_TRUE(f != NULL);
	fprintf(f, "%d\n", pid1);
	fclose(f);
	snprintf(path, sizeof(path), "%s/child", dir);
	ASSERT_EQ(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/child/cgroup.procs", dir);
	f = fopen(path, "w");
	ASSERT_TRUE(f != NULL);
	fprintf(f, "%d\n", pid2);
	fclose(f);
}

static void remove_fake_cgroup(const char *dir)
{
	char path[700];

	snprintf(path, sizeof(path), "%s/child/cgroup.procs", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/child", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	unlink(path);
	rmdir(dir);
}

TEST(cgroup_and_text)
{
	char dir[600], args[700], cmd[900], line[256];
	bool found = false, label = false;
	json_t *doc, *procs;
	size_t i;
	char *p;
	FILE *f;
	int rc;

	int pipefd[2], nfound = 0, nlines = 0;
	unsigned long long first_v = 0;
	unsigned first_pct = 0;
	size_t first_len = 0;
	pid_t child;

	tu_require_pfns();
	p = map_or_skip(4, 2 * MB);
	ASSERT_EQ(pipe(pipefd), 0);
	child = fork();
	if (child == 0) {
		close(pipefd[1]);
		(void)!read(pipefd[0], line, 1);
		_exit(0);
	}
	close(pipefd[0]);
	fake_cgroup(dir, sizeof(dir), getpid(), child);
	snprintf(args, sizeof(args), "--json --cgroup '%s'", dir);
	doc = run_scan(args, &rc);
	remove_fake_cgroup(dir);
	close(pipefd[1]);
	waitpid(child, NULL, 0);
	ASSERT_EQ(rc, 0);
	procs = json_object_get(json_array_get(json_object_get(doc, "samples"), 0), "processes");
	for (i = 0; i < json_array_size(procs); i++) {
		json_int_t pid = json_integer_value(json_object_get(json_array_get(procs, i), "pid"));
		nfound += pid == getpid() || pid == child;
	}
	EXPECT_EQ(nfound, 2);
	EXPECT_EQ(json_array_size(procs), 2);
	found = nfound == 2;
	EXPECT_TRUE(found);
	json_decref(doc);

	/* text: thpmaps' line format, label padded to 32 columns */
	snprintf(cmd, sizeof(cmd), "%s scan --pid %d", bin(), getpid());
	f = popen(cmd, "r");
	ASSERT_TRUE(f != NULL);
	/*
	 * On a quiet machine the one 64K line is this mapping's, exactly.
	 * While another process has 64K folios enabled, other VMAs of this
	 * process (heap, sanitizer shadow) get 64K lines too and this mapping
	 * may merge with a neighbour: then only "one line holds it" is sure.
	 */
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;
		unsigned pct;
		char tail[8];

		if (strncmp(line, "anon-thp-pte-aligned-64kB:", 26))
			continue;
		EXPECT_EQ(sscanf(line + 26, "%llu kB (%u%%%7s", &v, &pct, tail), 3);
		nlines++;
		if (v >= 2048)
			label = true;
		if (nlines == 1) {
			first_v = v;
			first_pct = pct;
			first_len = strlen(line);
		}
	}
	if (nlines == 1) {
		EXPECT_EQ(first_len, 32 + 8 + 3 + 7 + 1); /* "   2048 kB (100%)\n" */
		EXPECT_EQ(first_v, 2048);
		EXPECT_EQ(first_pct, 100);
	}
	EXPECT_EQ(pclose(f), 0);
	EXPECT_TRUE(label);
	munmap(p, 2 * MB);
}

/* --inc-empty: a VMA with nothing resident is its header line alone, as in
 * thpmaps and scan --smaps (the default mode printed every label at 0 kB
 * under it). */
TEST(inc_empty_vma_has_no_labels)
{
	const char *const modes[] = { "", "--smaps" };
	char cmd[512], line[512], head[32];
	size_t m;
	char *p;

	tu_require_pfns();
	/* untouched and read-only: nothing resident, no neighbour to merge */
	p = mmap(NULL, 2 * MB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	snprintf(head, sizeof(head), "%016lx-", (unsigned long)p);
	for (m = 0; m < 2; m++) {
		bool seen = false, next_is_label = false;
		FILE *f;

		snprintf(cmd, sizeof(cmd), "%s scan --pid %d --inc-empty %s", bin(), getpid(),
			 modes[m]);
		f = popen(cmd, "r");
		ASSERT_TRUE(f != NULL);
		while (fgets(line, sizeof(line), f)) {
			char *v = strchr(line, ':');

			if (seen) {
				/* the next line: another VMA's header ("PID: start-end") */
				next_is_label = !v || strspn(line, "0123456789") != (size_t)(v - line);
				break;
			}
			seen = v && !strncmp(v + 2, head, strlen(head));
		}
		pclose(f);
		EXPECT_TRUE(seen);
		if (next_is_label)
			FAIL_AT("scan --inc-empty %s: labels under an empty VMA: %s", modes[m], line);
	}
	munmap(p, 2 * MB);
}

/* A named process that exits during a timeline ends it with exit 1. */
TEST(named_process_exits)
{
	char cmd[256];
	pid_t child;
	int st;

	tu_require_pfns();
	child = fork();
	if (child == 0) {
		char *p = tu_map_aligned(4 * MB);
		if (p)
			memset(p, 1, 4 * MB);
		usleep(300000);
		_exit(0);
	}
	ASSERT_TRUE(child > 0);
	/* not reaped until the scan is over: a zombie counts as gone too */
	snprintf(cmd, sizeof(cmd), "%s scan --pid %d --rollup --interval 20 --count 1000 "
		 ">/dev/null 2>&1", bin(), child);
	st = system(cmd);
	EXPECT_EQ(WIFEXITED(st) ? WEXITSTATUS(st) : 128, 1);
	waitpid(child, NULL, 0);
}

static int exit_of(const char *args)
{
	char cmd[512];
	int st;

	snprintf(cmd, sizeof(cmd), "%s scan %s >/dev/null 2>&1", bin(), args);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

TEST(bad_input_exit_status)
{
	char args[512];

	tu_require_pfns();
	EXPECT_EQ(exit_of("--pid 0"), 2);           /* not a pid */
	EXPECT_EQ(exit_of("--pid -3"), 2);
	EXPECT_EQ(exit_of("--pid 4194000"), 1);     /* no such process */
	EXPECT_EQ(exit_of("--cont 12K"), 2);        /* 3 pages */
	EXPECT_EQ(exit_of("--cont 4K"), 2);         /* 1 page */
	EXPECT_EQ(exit_of("--cont 4M"), 2);         /* beyond the PMD size */
	EXPECT_EQ(exit_of("--cont banana"), 2);
	EXPECT_EQ(exit_of("--pid 1 --cgroup /sys/fs/cgroup"), 2);
	EXPECT_EQ(exit_of("--cgroup /nonexistent"), 1);
	EXPECT_EQ(exit_of("--count 3"), 2);          /* needs --interval */
	EXPECT_EQ(exit_of("--json --interval 10"), 2);
	EXPECT_EQ(exit_of("stray"), 2);
	/* without CAP_SYS_ADMIN PFNs are hidden: the environment cannot */
	if (system("command -v setpriv >/dev/null 2>&1") == 0) {
		snprintf(args, sizeof(args),
			 "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "
			 "%s scan --pid %d >/dev/null 2>&1", bin(), getpid());
		int st = system(args);
		EXPECT_EQ(WIFEXITED(st) ? WEXITSTATUS(st) : 128, 3);
	}
}

HARNESS_MAIN
