/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Files other tools read are written whole or not at all: a temporary file
 * beside the target, fsync, rename, fsync of the directory. */
#ifndef ATOMIC_H
#define ATOMIC_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* Write 'doc' to 'path' ("-" = stdout). 0 or negative errno. The temporary
 * file is removed on every failure and on signals. */
int atomic_write_json(const char *path, json_t *doc, size_t json_flags);

/* Where writing a document that took a measurement failed (a full disk, a
 * closed pipe), save it anew rather than lose it: a new file
 * mthpscope-TAG-XXXXXX.json in $TMPDIR, /var/tmp or /tmp, the first that
 * takes it whole; its name in 'saved'. 0 or the last negative errno. */
int atomic_rescue_json(const char *tag, json_t *doc, size_t json_flags, char *saved, size_t size);

/* Generic form: 'emit' writes the content to f and returns 0 or -errno. */
int atomic_write(const char *path, int (*emit)(FILE *f, void *ctx), void *ctx);

/* The one check every output option makes before anything is measured.
 * A file output (want_dir false): "-", a regular file or a new name in a
 * writable directory (replaced atomically), or a character device, FIFO or
 * socket (written in place); a directory is -EISDIR. A directory output
 * (want_dir true: plot -o, --plot): an existing writable directory, or a
 * name mkdir -p can create; anything else is -ENOTDIR. 0 or -errno. */
int atomic_check_output(const char *path, bool want_dir);

/* The descriptor an output path leads to, written through as it is: "-"
 * and /dev/stdout (1), /dev/stdin, /dev/stderr, /dev/fd/N, /proc/self/fd/N,
 * or a symbolic link to one; -1 for any other path (a symbolic link
 * elsewhere is followed, and its target replaced atomically). */
int atomic_output_fd(const char *path);

/* Whether path leads to our stdout: fd 1, or the file or pipe it is open
 * on (-o so.txt > so.txt, -o /dev/fd/3 3>&1). */
bool atomic_output_is_stdout(const char *path);

/* Whether two outputs lead to one document: the same descriptor, both our
 * stdout, or one regular file (or one new name in one directory), so that
 * the second write would replace the first. A device written twice in
 * place (/dev/null) is not one document. */
bool atomic_same_output(const char *a, const char *b);

/* Whether a failed write to path can have left a part of the document
 * there: a descriptor, a device, a FIFO or a socket, written in place. */
bool atomic_in_place(const char *path);

/* Remove PATH.tmp.PID files left by writers that died (SIGKILL during the
 * final write). Returns how many were removed, or -errno when PATH's
 * directory cannot be read (-ENOENT: it does not exist). */
int atomic_remove_stale(const char *path);

#endif
