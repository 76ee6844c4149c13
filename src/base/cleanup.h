/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Exit paths: one owner for the signal handlers. On normal exit, on SIGINT,
 * SIGTERM, SIGHUP and on fatal signals (SIGSEGV, SIGBUS, SIGABRT, SIGFPE,
 * SIGILL) it runs the registered hooks (async-signal-safe ones only) in
 * reverse order of registration, then re-raises the signal. A SIGHUP
 * ignored at the start (nohup) stays ignored.
 *
 * Hooks run only in the process that registered them: a forked child that
 * exits does not restore the parent's knobs or remove its files.
 */
#ifndef CLEANUP_H
#define CLEANUP_H

typedef void (*cleanup_fn)(void);

int cleanup_add(cleanup_fn fn);
/* Unlink 'path' at exit and on signals (temporary output files). The string
 * is copied. Returns a slot id for cleanup_forget_path(). */
int cleanup_unlink_path(const char *path);
void cleanup_forget_path(int id);

#endif
