/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mTHP / khugepaged sysfs: sizes, knobs, snapshot, journal, restore, lock.
 *
 * Return convention: 0 on success, negative errno on failure; thp_strerror()
 * turns the error into advice. Nothing here prints or exits.
 *
 * The THP knobs are global system state that belongs to the user. The first
 * write through this module takes the lock, snapshots every knob it may touch
 * into a journal (fsync'd) and arms restore on exit and on signals; a journal
 * left by a dead process is applied by thp_recover().
 */
#ifndef THP_H
#define THP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "thp_kernel.h"   /* thp_root(): where the kernel's knobs are */
#include "thp_settings.h" /* the words and the settings struct */

/* Read the whole configuration. -ENOENT: no THP sysfs (kernel without THP),
 * -EBADMSG: a file holds a word not in the table (thp_last_path() names it). */
int thp_read(struct thp_settings *s);
const char *thp_last_path(void);

/* Writes: each goes through the journal. -EPERM without root, -EBUSY when
 * another process holds the lock, -EACCES/-EROFS when the run directory is
 * not writable, -EINVAL for a value the file does not offer. */
/* On a kernel without hugepages-<N>kB (legacy_pmd), the PMD order's
 * "enabled" is the top-level knob. */
int thp_set_size_enabled(int order, enum thp_word w);
int thp_set_top(const char *name, enum thp_word w);       /* "enabled", "defrag" */
int thp_set_khugepaged(const char *knob, long value);     /* "max_ptes_none", ... */
/* Only 'order' set to 'always' (order 0: none), every other size 'never'. */
int thp_set_only_order(const struct thp_settings *s, int order);

/* Take the lock and write the journal now (done implicitly by the first
 * write). */
int thp_journal_begin(void);
/* thp_journal_begin(), then the settings read into s under the lock, after
 * a dead run's journal was applied: read before it, they could be another
 * instance's trial settings. For a command that puts them back or records
 * them as the machine's. */
int thp_journal_begin_read(struct thp_settings *s);
/* Restore this process's snapshot (each knob written and read back),
 * remove the journal, release the lock. Safe to call more than once.
 * -EIO when a knob could not be put back: the journal is then kept and
 * thp_restore_result() lists the knobs. */
int thp_restore(void);
bool thp_journal_active(void);

/* Where the lock and journal live: /run, or $MTHPSCOPE_RUNDIR. */
const char *thp_rundir(void);
int thp_journal_path(char *buf, size_t size);

struct thp_recovery {
	int pid;                 /* the process that wrote the journal */
	bool applied;            /* the journal was applied and removed */
	int nr_changed;          /* knobs whose value differed and were written */
	char changed[64][160];   /* "hugepages-64kB/enabled: always -> never" */
	int nr_failed;           /* knobs that could not be put back (journal kept) */
	char failed[16][200];    /* "enabled: writing 'madvise' failed: ..." */
};

/* A journal document: schema, pid, starttime and knobs, each path under
 * /sys or the THP root without "..", each value a short word or number.
 * 0 or -EBADMSG. pid and starttime may be NULL. (The journal reader; its
 * fuzz target's entry point.) */
int thp_journal_check(json_t *doc, int *pid, unsigned long long *starttime);

/* What the last thp_restore() could not put back (nr_failed, failed[]). */
const struct thp_recovery *thp_restore_result(void);

/*
 * Apply a journal left by a process that no longer exists.
 * Returns 0 (r->applied says whether there was one), -EBUSY when its writer is
 * still alive, -EBADMSG when the journal is corrupt or truncated (the file is
 * kept and not applied), -EPERM without root (after the liveness check),
 * -EIO when a knob could not be written back (r->failed; the journal is
 * kept). Stale temporaries of the journal (dead writers) are removed.
 */
int thp_recover(struct thp_recovery *r);
/* Does a journal file exist? (No root needed.) */
bool thp_journal_exists(void);
/* The pid recorded in the lock file of the current lock holder, or 0. */
int thp_lock_holder(void);

/* Set how long to wait for the lock (default 0: refuse at once). Also read
 * from $MTHPSCOPE_LOCK_WAIT (seconds). */
void thp_set_lock_wait(int seconds);
/* $MTHPSCOPE_LOCK_WAIT in *seconds (0 when unset): 0, -EINVAL when it is not
 * a whole number of seconds, -ERANGE above THP_LOCK_WAIT_MAX (*seconds 0). */
#define THP_LOCK_WAIT_MAX 86400
int thp_lock_wait_env(int *seconds);

int thp_strerror(int err, char *buf, size_t size);

#endif
