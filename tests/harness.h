/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small test harness in the spirit of kselftest_harness.h: each TEST runs
 * in a forked child so a crash stays inside its test; SKIP is distinct from
 * FAIL. The program exits 0 when every test passed or skipped (77 when all
 * skipped), 1 when one failed. ctest maps 77 to "Skipped".
 *
 *   TEST(parse_choice) { EXPECT_EQ(1, 1); }
 *   int main(void) { return harness_main(); }   -- or HARNESS_MAIN
 *
 * Tests that write THP knobs put the word MTHPSCOPE_TEST_WRITES_THP in their
 * file: tests/CMakeLists.txt then never runs two of them at once.
 */
#ifndef HARNESS_H
#define HARNESS_H

#include <errno.h>
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define HARNESS_SKIP_STATUS 77
#define HARNESS_MAX_TESTS 256

struct harness_test {
	const char *name;
	void (*fn)(void);
};

static struct harness_test harness_tests[HARNESS_MAX_TESTS];
static int harness_nr_tests;
static int harness_failed_here;

/* HARNESS_NOFORK=1 runs each test in the harness's own process and leaves a
 * test by longjmp instead of _exit: for qemu-user 7.2, whose dynamically
 * linked guests hang in the child of fork() on this project's CI kernel
 * (the arm64 step of scripts/test.sh). A crash then ends the whole run. */
static int harness_nofork;
static jmp_buf harness_jmp;
static volatile int harness_exit_status;

static inline void harness_exit(int status)
{
	fflush(stdout);
	if (harness_nofork) {
		harness_exit_status = status;
		longjmp(harness_jmp, 1);
	}
	_exit(status);
}

#define TEST(name)                                                              \
	static void test_##name(void);                                          \
	__attribute__((constructor)) static void register_##name(void)          \
	{                                                                       \
		if (harness_nr_tests < HARNESS_MAX_TESTS)                       \
			harness_tests[harness_nr_tests++] =                     \
				(struct harness_test){ #name, test_##name };    \
	}                                                                       \
	static void test_##name(void)

#define SKIP(...)                                                               \
	do {                                                                    \
		printf("  SKIP: ");                                             \
		printf(__VA_ARGS__);                                            \
		printf("\n");                                                   \
		fflush(stdout);                                                 \
		harness_exit(HARNESS_SKIP_STATUS);                              \
	} while (0)

/* A line of the test's log: which of the kernel's behaviours it asserts. */
#define TEST_NOTE(...)                                                          \
	do {                                                                    \
		printf("  NOTE: ");                                             \
		printf(__VA_ARGS__);                                            \
		printf("\n");                                                   \
	} while (0)

#define FAIL_AT(...)                                                            \
	do {                                                                    \
		printf("  FAIL %s:%d: ", __FILE__, __LINE__);                   \
		printf(__VA_ARGS__);                                            \
		printf("\n");                                                   \
		fflush(stdout);                                                 \
		harness_failed_here = 1;                                        \
	} while (0)

/* EXPECT_* record a failure and go on; ASSERT_* stop the test. */
#define EXPECT_TRUE(c)                                                          \
	do {                                                                    \
		if (!(c))                                                       \
			FAIL_AT("expected %s", #c);                             \
	} while (0)
#define ASSERT_TRUE(c)                                                          \
	do {                                                                    \
		if (!(c)) {                                                     \
			FAIL_AT("expected %s", #c);                             \
			harness_exit(1);                                        \
		}                                                               \
	} while (0)
#define EXPECT_EQ(a, b)                                                         \
	do {                                                                    \
		long long _a = (long long)(a), _b = (long long)(b);             \
		if (_a != _b)                                                   \
			FAIL_AT("%s == %s: %lld != %lld", #a, #b, _a, _b);      \
	} while (0)
#define ASSERT_EQ(a, b)                                                         \
	do {                                                                    \
		long long _a = (long long)(a), _b = (long long)(b);             \
		if (_a != _b) {                                                 \
			FAIL_AT("%s == %s: %lld != %lld", #a, #b, _a, _b);      \
			harness_exit(1);                                        \
		}                                                               \
	} while (0)
#define EXPECT_STREQ(a, b)                                                      \
	do {                                                                    \
		const char *_a = (a), *_b = (b);                                \
		if (!_a || !_b || strcmp(_a, _b))                               \
			FAIL_AT("%s == %s: \"%s\" != \"%s\"", #a, #b,           \
				_a ? _a : "(null)", _b ? _b : "(null)");        \
	} while (0)
#define EXPECT_NEAR(a, b, tol)                                                  \
	do {                                                                    \
		double _a = (a), _b = (b);                                      \
		if (!(fabs(_a - _b) <= (tol)))                                  \
			FAIL_AT("%s ~= %s: %g vs %g (tol %g)", #a, #b, _a, _b,  \
				(double)(tol));                                 \
	} while (0)

/* The run's own directory in /tmp, made before the first test and removed
 * after the last however its tests ended (HARNESS_KEEP_TMP=1 keeps it). */
static char harness_tmp_root[64];

/* A new directory for a test, under the run's: 'buf' holds its path. */
static inline void harness_tmpdir(char *buf, size_t size, const char *tag)
{
	ASSERT_TRUE(harness_tmp_root[0] &&
		    snprintf(buf, size, "%s/%s-XXXXXX", harness_tmp_root, tag) < (int)size &&
		    mkdtemp(buf) != NULL);
}

static inline int harness_rm_one(const char *path, const struct stat *st, int flag,
				 struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static inline void harness_tmp(bool make)
{
	const char *keep = getenv("HARNESS_KEEP_TMP");

	if (make) {
		snprintf(harness_tmp_root, sizeof(harness_tmp_root), "/tmp/mthpscope-tests-XXXXXX");
		/* 0755: a test that becomes nobody makes its directory here */
		if (!mkdtemp(harness_tmp_root) || chmod(harness_tmp_root, 0755))
			harness_tmp_root[0] = '\0';
	} else if (harness_tmp_root[0] && !(keep && !strcmp(keep, "1"))) {
		/* FTW_MOUNT: a file system a failed test left mounted stays */
		nftw(harness_tmp_root, harness_rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	}
}

static inline int harness_main(void)
{
	/* volatile: live across the longjmp of HARNESS_NOFORK */
	volatile int i, passed = 0, failed = 0, skipped = 0;
	const char *only = getenv("HARNESS_ONLY");

	harness_nofork = getenv("HARNESS_NOFORK") && !strcmp(getenv("HARNESS_NOFORK"), "1");
	harness_tmp(true);

	for (i = 0; i < harness_nr_tests; i++) {
		int status;
		pid_t pid;

		if (only && strcmp(only, harness_tests[i].name))
			continue;
		printf("[ RUN  ] %s\n", harness_tests[i].name);
		fflush(stdout);
		if (harness_nofork) {
			harness_failed_here = 0;
			if (setjmp(harness_jmp) == 0) {
				harness_tests[i].fn();
				status = harness_failed_here ? 1 : 0;
			} else {
				status = harness_exit_status;
			}
			status = (status & 0xff) << 8; /* as waitpid's: WIFEXITED */
			goto result;
		}
		pid = fork();
		if (pid == 0) {
			harness_tests[i].fn();
			fflush(stdout);
			_exit(harness_failed_here ? 1 : 0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) < 0) {
			printf("[ FAIL ] %s: fork/wait: %s\n", harness_tests[i].name, strerror(errno));
			failed++;
			continue;
		}
result:
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			printf("[  OK  ] %s\n", harness_tests[i].name);
			passed++;
		} else if (WIFEXITED(status) && WEXITSTATUS(status) == HARNESS_SKIP_STATUS) {
			printf("[ SKIP ] %s\n", harness_tests[i].name);
			skipped++;
		} else {
			if (WIFSIGNALED(status))
				printf("[ FAIL ] %s: killed by signal %d\n", harness_tests[i].name,
				       WTERMSIG(status));
			else
				printf("[ FAIL ] %s\n", harness_tests[i].name);
			failed++;
		}
	}
	harness_tmp(false);
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	if (failed)
		return 1;
	if (skipped && !passed)
		return HARNESS_SKIP_STATUS;
	return 0;
}

#define HARNESS_MAIN                                                            \
	int main(void) { return harness_main(); }

#define REQUIRE_ROOT()                                                          \
	do {                                                                    \
		if (geteuid() != 0)                                             \
			SKIP("needs root");                                     \
	} while (0)

#endif
