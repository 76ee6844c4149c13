// SPDX-License-Identifier: GPL-2.0-or-later
/* Figures of an analysis through gnuplot (plot.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "datadir.h"
#include "mthpscope.h"
#include "collapse_doc.h"
#include "folio_types.h"
#include "plot.h"
#include "record_report.h"
#include "report.h"


const char *const plot_format_words[] = { "png", "svg", NULL };

static const char *template_dir(void)
{
	return datadir_gnuplot();
}

/* The length of the UTF-8 character at s (1 for ASCII), 0 where s holds
 * none: a stray byte, or a character a cut (%.20s, a short buffer) left
 * unfinished, which makes an SVG not well-formed. */
static size_t utf8_char(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = u[0] < 0x80 ? 1 : u[0] >= 0xc2 && u[0] <= 0xdf ? 2
		 : u[0] >= 0xe0 && u[0] <= 0xef ? 3 : u[0] >= 0xf0 && u[0] <= 0xf4 ? 4 : 0;
	size_t i;

	for (i = 1; i < n; i++)
		if ((u[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Write the UTF-8 character at s, or '?' for a byte that starts none;
 * returns what follows it. */
static const char *utf8_put(FILE *f, const char *s)
{
	size_t n = utf8_char(s);

	if (!n) {
		fputc('?', f);
		return s + 1;
	}
	fwrite(s, 1, n, f);
	return s + n;
}

/* A gnuplot single-quoted string: ' and a newline are concatenated in
 * double quotes ("'", "\n": gnuplot 5.4 reads a doubled '' at the start
 * of a string as an empty string, and the rest as a token); other control
 * characters, which would end the command, become spaces. */
static void gp_string(FILE *f, const char *s)
{
	fputc('\'', f);
	while (*s) {
		if ((unsigned char)*s >= 0x20 && *s != '\'') {
			s = utf8_put(f, s);
			continue;
		}
		if (*s == '\'')
			fputs("' . \"'\" . '", f);
		else if (*s == '\n')
			fputs("' . \"\\n\" . '", f); /* a line break in gnuplot's own syntax */
		else
			fputc(' ', f);
		s++;
	}
	fputc('\'', f);
}

/* Text inside a '#' comment line of NAME.dat or NAME.gp: a control
 * character (a newline would end the comment and start a data row or a
 * command) becomes a space. */
static void comment_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
}

/* A quoted data-file label: gnuplot's "..." with no quote or control inside. */
static void dat_label(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
		if (*s == '"' || (unsigned char)*s < 0x20) {
			fputc('\'', f);
			s++;
		} else {
			s = utf8_put(f, s);
		}
	}
	fputc('"', f);
}

/* The longest name of a figure: a file name component (NAME_MAX) less its
 * longest extension (".png", ".svg", ".dat", ".log"). */
#define FIG_NAME_MAX (NAME_MAX - 4)
/* fig_run's word for gnuplot's "all points y value undefined" */
#define FIG_UNDRAWABLE 1

/* One figure being written: paths of its files, and the picture's state
 * before this run (fig_wrote_out). */
struct fig {
	const char *dir;
	char name[FIG_NAME_MAX + 1];
	char dat[PATH_MAX], gp[PATH_MAX], out[PATH_MAX], log[PATH_MAX];
	enum plot_format fmt;
	bool had_out;
	struct stat out_st;
};

/*
 * The one way a figure's name is made from the strings it comes from (a
 * metric's name, a compared file's label, a pattern): '/', space and
 * control characters become '_', so the name is one file name component
 * (no subdirectory) that NAME.gp, gnuplot and a shell read as written. A
 * name longer than FIG_NAME_MAX keeps its start and ends in '-' and eight
 * hex digits of a hash (FNV-1a) of all of it, so two long names stay apart.
 */
static void fig_name(char *dst, const char *src)
{
	size_t i, n = strlen(src), keep = n;
	uint32_t h = 2166136261u;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)src[i]) * 16777619u;
	if (n > FIG_NAME_MAX) /* not inside a UTF-8 character */
		for (keep = FIG_NAME_MAX - 9; keep && (src[keep] & 0xc0) == 0x80; keep--)
			;
	for (i = 0; i < keep; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = c == '/' || c == ' ' || c < 0x20 || c == 0x7f ? '_' : (char)c;
	}
	if (keep < n)
		i += (size_t)snprintf(dst + i, 10, "-%08x", (unsigned int)h);
	dst[i] = '\0';
}

/* Is the picture file name pic in the list? */
static bool files_has(const struct plot_files *out, const char *pic)
{
	size_t i;

	for (i = 0; i < out->nr; i++)
		if (!strcmp(out->name[i], pic))
			return true;
	return false;
}

/* name (of FIG_NAME_MAX at most) made unlike every picture in out: "-2",
 * "-3", ... appended, the name cut to make room, until none has it. */
static void fig_unique(char *name, const struct plot_files *out, const char *ext)
{
	char base[FIG_NAME_MAX + 1], pic[NAME_MAX + 1], suffix[16];
	unsigned int n = 1;
	size_t keep;

	snprintf(base, sizeof(base), "%s", name);
	for (;;) {
		snprintf(pic, sizeof(pic), "%s.%s", name, ext);
		if (!files_has(out, pic))
			return;
		snprintf(suffix, sizeof(suffix), "-%u", ++n);
		keep = strlen(base);
		if (keep > FIG_NAME_MAX - strlen(suffix))
			keep = FIG_NAME_MAX - strlen(suffix);
		snprintf(name, FIG_NAME_MAX + 1, "%.*s%s", (int)keep, base, suffix);
	}
}

/* dir/NAME.ext into path (PATH_MAX), or -ENAMETOOLONG: a cut path would
 * name another file ("gain.d" for "gain.dat"). */
static int fig_path(const struct fig *g, char *path, const char *ext, char *err,
		    size_t errsize)
{
	int n = snprintf(path, PATH_MAX, "%s/%s.%s", g->dir, g->name, ext);

	if (n < 0 || n >= PATH_MAX)
		return ms_fail(err, errsize, -ENAMETOOLONG, "cannot write %s.%s into a directory "
			       "whose path has %zu bytes: its path would pass PATH_MAX (%d)",
			       g->name, ext, strlen(g->dir), PATH_MAX);
	return 0;
}

/* The figure's name (fig_name; unlike the pictures already in out, when out
 * is set) and paths; the picture's state before this run. */
static int no_gnuplot(char *err, size_t errsize)
{
	return ms_fail(err, errsize, -ENOPKG, "gnuplot is not installed (Debian: apt-get install "
		       "gnuplot-nox)");
}

/* Whether execlp() finds gnuplot: in a directory of PATH (execlp's default
 * when PATH is not set). */
static bool gnuplot_in_path(void)
{
	const char *path = getenv("PATH");
	char dir[PATH_MAX], exe[PATH_MAX + 16];
	size_t n;

	for (path = path ? path : "/bin:/usr/bin"; *path; path += n + (path[n] == ':')) {
		n = strcspn(path, ":");
		if (!n || n >= sizeof(dir))
			continue;
		memcpy(dir, path, n);
		dir[n] = '\0';
		snprintf(exe, sizeof(exe), "%s/gnuplot", dir);
		if (!access(exe, X_OK))
			return true;
	}
	return false;
}

/* Without gnuplot nothing is written: not even this figure's data and
 * script, which would replace an earlier run's. */
static int fig_init(struct fig *g, const char *dir, const char *name, enum plot_format fmt,
		    const struct plot_files *out, char *err, size_t errsize)
{
	const char *ext = fmt == PLOT_SVG ? "svg" : "png";
	int rc;

	if (!gnuplot_in_path())
		return no_gnuplot(err, errsize);
	g->dir = dir;
	g->fmt = fmt;
	fig_name(g->name, name);
	if (out)
		fig_unique(g->name, out, ext);
	if ((rc = fig_path(g, g->dat, "dat", err, errsize)) ||
	    (rc = fig_path(g, g->gp, "gp", err, errsize)) ||
	    (rc = fig_path(g, g->log, "log", err, errsize)) ||
	    (rc = fig_path(g, g->out, ext, err, errsize)))
		return rc;
	g->had_out = stat(g->out, &g->out_st) == 0;
	return 0;
}

/* Did this run write the picture: it was not there before, or gnuplot
 * changed it? A picture this run did not touch (an earlier run's) is not
 * ours to delete when the figure fails. */
static bool fig_wrote_out(const struct fig *g)
{
	struct stat st;

	if (stat(g->out, &st) || !S_ISREG(st.st_mode))
		return false;
	if (!g->had_out)
		return true;
	return st.st_dev != g->out_st.st_dev || st.st_ino != g->out_st.st_ino ||
	       st.st_size != g->out_st.st_size || st.st_mtim.tv_sec != g->out_st.st_mtim.tv_sec ||
	       st.st_mtim.tv_nsec != g->out_st.st_mtim.tv_nsec;
}

/* The picture when this run wrote it and it is empty (or, all, any size). */
static void fig_unlink_out(const struct fig *g, bool all)
{
	struct stat st;

	if (fig_wrote_out(g) && (all || (stat(g->out, &st) == 0 && st.st_size == 0)))
		unlink(g->out);
}

/* 0, or the -errno of the write that failed (ENOSPC on a full disk). */
static int close_checked(FILE *f)
{
	int err = 0;

	errno = 0;
	if (fflush(f) == EOF || ferror(f))
		err = errno ? -errno : -EIO;
	if (fclose(f) && !err)
		err = errno ? -errno : -EIO;
	return err;
}

/* A figure that failed leaves no empty or half-written file behind. */
static void fig_discard(const struct fig *g)
{
	struct stat st;

	unlink(g->dat);
	unlink(g->gp);
	fig_unlink_out(g, false);
	if (stat(g->log, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
		unlink(g->log);
}

static int fig_write_failed(const struct fig *g, const char *path, int rc, char *err,
			    size_t errsize)
{
	fig_discard(g);
	return ms_fail(err, errsize, rc, "cannot write %s: %s", path, strerror(-rc));
}

/* The data file dat written: close it, then start NAME.gp (*script) with
 * the common variables; the caller adds its own, then the template is
 * copied in. Paths are relative to the figure's directory, where gnuplot
 * runs, so a figure directory can be moved and redrawn as it is. 0, or the
 * error after the figure's files are removed. */
static int fig_script(const struct fig *g, FILE *dat, const char *title, const char *subtitle,
		      const char *ylabel, FILE **script, char *err, size_t errsize)
{
	int rc = close_checked(dat);
	FILE *f;

	if (rc)
		return fig_write_failed(g, g->dat, rc, err, errsize);
	f = fopen(g->gp, "w");
	if (!f)
		return fig_write_failed(g, g->gp, -errno, err, errsize);
	fputs("# written by mthpscope; redraw with: gnuplot ", f);
	comment_text(f, g->name);
	fputs(".gp (in this directory)\n", f);
	fprintf(f, "term_type = '%s'\noutfile = ", g->fmt == PLOT_SVG ? "svg" : "png");
	gp_string(f, strrchr(g->out, '/') + 1);
	fprintf(f, "\ndatafile = ");
	gp_string(f, strrchr(g->dat, '/') + 1);
	fprintf(f, "\nplot_title = ");
	gp_string(f, title);
	fprintf(f, "\nplot_subtitle = ");
	gp_string(f, subtitle);
	fprintf(f, "\nylabel_text = ");
	gp_string(f, ylabel);
	fputc('\n', f);
	*script = f;
	return 0;
}

/* A figure without a row is not drawn: its data file is closed and removed. */
static int fig_drop(const struct fig *g, FILE *dat, char *err, size_t errsize)
{
	int rc = close_checked(dat);

	if (rc)
		return fig_write_failed(g, g->dat, rc, err, errsize);
	unlink(g->dat);
	return 0;
}

/* Copy a template into the script; its "load gp_dir . '/common.gp'" line
 * becomes the text of common.gp, so NAME.gp stands on its own. */
static int copy_template(FILE *script, const char *template, int depth, char *err,
			 size_t errsize)
{
	char path[PATH_MAX], line[1024];
	FILE *t;
	int rc = 0;

	if (snprintf(path, sizeof(path), "%s/%s", template_dir(), template) >= (int)sizeof(path))
		return ms_fail(err, errsize, -ENAMETOOLONG, "the gnuplot template directory's path "
			       "is too long: %s", template_dir());
	t = fopen(path, "r");
	if (!t)
		return ms_fail(err, errsize, -ENOPKG, "gnuplot template %s not found (set "
			    "MTHPSCOPE_GNUPLOT_DIR to the scripts/gnuplot directory)", path);
	fprintf(script, "\n# ---- %s\n", template);
	while (!rc && fgets(line, sizeof(line), t)) {
		if (depth == 0 && !strncmp(line, "load gp_dir . '/common.gp'", 26))
			rc = copy_template(script, "common.gp", depth + 1, err, errsize);
		else
			fputs(line, script);
	}
	fclose(t);
	return rc;
}

/* gnuplot exits 0 with a truncated figure when its writes fail (a full
 * disk): a PNG must end with its IEND chunk, an SVG with </svg>. */
static bool output_complete(const struct fig *g)
{
	static const unsigned char iend[8] = { 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82 };
	unsigned char tail[16];
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(g->out, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(tail)) {
		close(fd);
		return false;
	}
	n = pread(fd, tail, sizeof(tail), st.st_size - (off_t)sizeof(tail));
	close(fd);
	if (n != (ssize_t)sizeof(tail))
		return false;
	if (g->fmt == PLOT_PNG)
		return !memcmp(tail + 8, iend, 8);
	return memmem(tail, sizeof(tail), "</svg>", 6) != NULL;
}

/* Run gnuplot on NAME.gp in the figure's directory; its output goes to
 * NAME.log, kept on failure. */
static int fig_run(const struct fig *g, char *err, size_t errsize)
{
	char line[256] = "", script[FIG_NAME_MAX + 4];
	FILE *lf;
	pid_t pid;
	int status, fd;

	snprintf(script, sizeof(script), "%s.gp", g->name);
	fd = open(g->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return fig_write_failed(g, g->log, -errno, err, errsize);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fd);
		return ms_fail(err, errsize, -errno, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (chdir(g->dir))
			_exit(126);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	close(fd);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return ms_fail(err, errsize, -errno, "waitpid: %s", strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		/* nothing of this figure stays: its data, script and log */
		unlink(g->log);
		fig_discard(g);
		return no_gnuplot(err, errsize);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !output_complete(g)) {
		/* gnuplot says nothing when its output file cannot be written */
		struct statvfs vfs;
		bool full = statvfs(g->dir, &vfs) == 0 && vfs.f_bavail == 0;

		fig_unlink_out(g, true);
		fig_discard(g);
		return ms_fail(err, errsize, full ? -ENOSPC : -EIO, "gnuplot exited with status 0 but "
			    "wrote no complete %s%s", strrchr(g->out, '/') + 1,
			    full ? ": No space left on device" : " (is the filesystem full?)");
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		lf = fopen(g->log, "r");
		/* the first line that says what went wrong */
		while (lf && fgets(line, sizeof(line), lf))
			if (strstr(line, "rror") || strstr(line, "line "))
				break;
		if (lf)
			fclose(lf);
		line[strcspn(line, "\n")] = '\0';
		if (strstr(line, "all points") && strstr(line, "undefined"))
			return FIG_UNDRAWABLE; /* nothing to draw: the caller skips it */
		/* NAME.dat, NAME.gp and NAME.log stay for a person to read; an
		 * empty figure goes */
		fig_unlink_out(g, false);
		return ms_fail(err, errsize, -EIO, "gnuplot failed on %s (%s %d): %s; its output is "
			    "in %s", g->gp, WIFEXITED(status) ? "exit status" : "signal",
			    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			    line[0] ? line : "no message", g->log);
	}
	unlink(g->log);
	return 0;
}

/* One more figure not drawn: its files go, its name to the list. */
static int fig_skip(const struct fig *g, struct plot_files *out, char *err, size_t errsize)
{
	char *copy;

	unlink(g->log);
	fig_unlink_out(g, true);
	fig_discard(g);
	if (!out)
		return 0;
	if (MS_GROW(out->skipped, out->nr_skipped, out->alloc_skipped, 4) ||
	    !(copy = strdup(g->name)))
		return ms_fail(err, errsize, -ENOMEM, "out of memory");
	out->skipped[out->nr_skipped++] = copy;
	return 0;
}

/* A figure with rows of which none can be drawn: closed, gone, listed. */
static int fig_drop_skip(const struct fig *g, FILE *dat, struct plot_files *out, char *err,
			 size_t errsize)
{
	int rc = fig_drop(g, dat, err, errsize);

	return rc ? rc : fig_skip(g, out, err, errsize);
}

/* One more picture in the list: every one written is listed, however many. */
static int files_add(struct plot_files *out, const char *name, char *err, size_t errsize)
{
	char *copy;

	if (MS_GROW(out->name, out->nr, out->alloc, 16) || !(copy = strdup(name)))
		return ms_fail(err, errsize, -ENOMEM, "out of memory");
	out->name[out->nr++] = copy;
	return 0;
}

void plot_files_free(struct plot_files *f)
{
	ms_strings_free(f->name, f->nr);
	ms_strings_free(f->skipped, f->nr_skipped);
	memset(f, 0, sizeof(*f));
}

static int fig_finish(struct fig *g, FILE *script, const char *template, struct plot_files *out,
		      char *err, size_t errsize)
{
	int rc = copy_template(script, template, 0, err, errsize);

	int werr = close_checked(script);

	if (werr && !rc)
		return fig_write_failed(g, g->gp, werr, err, errsize);
	if (rc) {
		fig_discard(g);
		return rc;
	}
	rc = fig_run(g, err, errsize);
	if (rc == FIG_UNDRAWABLE)
		return fig_skip(g, out, err, errsize);
	if (!rc && out)
		rc = files_add(out, strrchr(g->out, '/') + 1, err, errsize);
	return rc;
}

/* One value of a row; NaN (a gap) where gnuplot cannot draw it. Returns
 * whether it can. */
static bool num(FILE *f, double v)
{
	if (isfinite(v) && fabs(v) <= PLOT_MAX_VALUE) {
		fprintf(f, " %.9g", v);
		return true;
	}
	fputs(" NaN", f);
	return false;
}

static void subtitle_of(const struct analysis *a, char *buf, size_t size)
{
	const struct results *r = a->res;
	char rec[64];

	if (a->min_order >= 0) {
		char sz[16];

		analyze_order_size(a, a->min_order, sz, sizeof(sz));
		snprintf(rec, sizeof(rec), "%s, min order %d (%s)",
			 analyze_verdict_name(a->verdict), a->min_order, sz);
	} else {
		snprintf(rec, sizeof(rec), "%s", analyze_verdict_name(a->verdict));
	}
	/* two lines: the host, then what was measured and the verdict */
	char what[64];

	/* a command (run -- CMD) has no span */
	if (!strcmp(a->pattern, "command"))
		snprintf(what, sizeof(what), "a command");
	else
		snprintf(what, sizeof(what), "pattern %s, span %llu MiB", a->pattern,
			 (unsigned long long)(a->span >> 20));
	snprintf(buf, size, "%s, Linux %s%s, PMU %s\n%s; verdict: %s",
		 r->cpu_model[0] ? r->cpu_model : r->arch, r->kernel,
		 r->virtualized ? " (VM)" : "", r->pmu_available ? "available" : "none", what, rec);
}

static const char *rec_title(const struct analysis *a, char *buf, size_t size)
{
	if (a->min_order < 0)
		return "";
	snprintf(buf, size, "recommended minimum order (%s)", analyze_verdict_name(a->verdict));
	return buf;
}

/* fig_init, then NAME.dat opened for writing into *f. */
static int fig_open(struct fig *g, const char *dir, const char *name, enum plot_format fmt,
		    const struct plot_files *out, FILE **f, char *err, size_t errsize)
{
	int rc = fig_init(g, dir, name, fmt, out, err, errsize);

	if (rc)
		return rc;
	*f = fopen(g->dat, "w");
	if (!*f)
		return fig_write_failed(g, g->dat, -errno, err, errsize);
	return 0;
}

static double max_median(const struct analyze_metric *m)
{
	double mx = 0.0;
	int k;

	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		if (m->by_order[k].n && m->by_order[k].median > mx)
			mx = m->by_order[k].median;
	return mx;
}

/* Per-order bars of one metric. */
static int plot_metric(const struct analysis *a, const struct analyze_metric *m,
		       const char *dir, enum plot_format fmt, struct plot_files *out, char *err,
		       size_t errsize)
{
	char name[64], title[160], sub[512], ylabel[96], rt[96], sz[16], unit[48];
	struct fig g;
	FILE *d, *s;
	double scale;
	int k, rc, x = 0, drawn = 0;

	snprintf(name, sizeof(name), "metric_%s%s", m->sparse ? "sparse_" : "", m->name);
	if ((rc = fig_open(&g, dir, name, fmt, out, &d, err, errsize)))
		return rc;
	/* bytes read best in MiB, tens of millions of ns best in ms */
	scale = 1.0;
	snprintf(unit, sizeof(unit), "%s", m->unit);
	if (!strcmp(m->name, "rss_bytes")) {
		scale = 1.0 / (1024.0 * 1024.0);
		snprintf(unit, sizeof(unit), "RSS (MiB)");
	} else if (!strncmp(m->unit, "ns", 2) && max_median(m) > 1e6) {
		scale = 1e-6;
		snprintf(unit, sizeof(unit), "ms%s", m->unit + 2);
	}
	fprintf(d, "# x label median ci_lo ci_hi recommended\n");
	for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
		const struct analyze_stat *st = &m->by_order[k];

		if (!st->n)
			continue;
		analyze_order_size(a, k, sz, sizeof(sz));
		fprintf(d, "%d \"%d (%s)\"", x++, k, sz);
		drawn += num(d, st->median * scale);
		num(d, st->lo * scale);
		num(d, st->hi * scale);
		fprintf(d, " %d\n", k == a->min_order);
	}
	if (!drawn)
		return fig_drop_skip(&g, d, out, err, errsize);
	if (m->sparse)
		snprintf(title, sizeof(title), "%s per folio order, sparse trials (span %llu MiB; "
			 "source: %s)", m->name, (unsigned long long)(a->sparse_span >> 20),
			 m->source);
	else
		snprintf(title, sizeof(title), "%s per folio order (source: %s)", m->name,
			 m->source);
	subtitle_of(a, sub, sizeof(sub));
	snprintf(ylabel, sizeof(ylabel), "%s (median of trials)", unit);
	if ((rc = fig_script(&g, d, title, sub, ylabel, &s, err, errsize)))
		return rc;
	fprintf(s, "rec_title = ");
	gp_string(s, rec_title(a, rt, sizeof(rt)));
	fputc('\n', s);
	return fig_finish(&g, s, "bars.gp", out, err, errsize);
}

/* The verdict rests on the isotonic fit, and it differs from the raw gains
 * somewhere (the raw gains break monotonicity): then the figure draws it. */
static bool fit_differs(const struct analysis *a)
{
	int k;

	if (!a->monotone)
		return false;
	for (k = 1; k < ANALYZE_NR_ORDERS; k++) {
		const struct analyze_order *o = &a->orders[k];

		if (o->primary.n && isfinite(o->fitted.value) && isfinite(o->gain.value) &&
		    fabs(o->fitted.value - o->gain.value) > 1e-9)
			return true;
	}
	return false;
}

/* The two gain figures of the primary metric, one writer: against the
 * folio order (gain.*: every order above 0, the materiality threshold
 * drawn) or against sparse RSS bloat (gain_bloat.*: the orders with a
 * bloat value; without one there is no figure). Columns: x, label, gain
 * and its CI in percent, whether the order is the recommended minimum. */
static int plot_gain(const struct analysis *a, bool vs_bloat, const char *dir,
		     enum plot_format fmt, struct plot_files *out, char *err, size_t errsize)
{
	char title[160], sub[512], ylabel[96], rt[96], sz[16];
	struct fig g;
	FILE *d, *s;
	int k, rc, n = 0, drawn = 0;

	if ((rc = fig_open(&g, dir, vs_bloat ? "gain_bloat" : "gain", fmt, out, &d, err, errsize)))
		return rc;
	fprintf(d, "# %s label gain_pct lo_pct hi_pct recommended fit_pct\n",
		vs_bloat ? "rss_multiple" : "x");
	for (k = 1; k < ANALYZE_NR_ORDERS; k++) {
		const struct analyze_order *o = &a->orders[k];

		if (!o->primary.n)
			continue;
		if (vs_bloat && (!isfinite(o->bloat.value) || 1.0 + o->bloat.value <= 0.0))
			continue;
		analyze_order_size(a, k, sz, sizeof(sz));
		if (vs_bloat)
			fprintf(d, "%.9g \"%s\"", 1.0 + o->bloat.value, sz);
		else
			fprintf(d, "%d \"%d (%s)\"", n, k, sz);
		drawn += num(d, 100.0 * o->gain.value);
		num(d, 100.0 * o->gain.lo);
		num(d, 100.0 * o->gain.hi);
		fprintf(d, " %d", k == a->min_order);
		num(d, 100.0 * o->fitted.value); /* NaN where no fit was made */
		fputc('\n', d);
		n++;
	}
	if (vs_bloat && !n)
		return fig_drop(&g, d, err, errsize);
	if (!drawn) /* e.g. order 0 took no time: no gain is defined */
		return fig_drop_skip(&g, d, out, err, errsize);
	if (vs_bloat)
		snprintf(title, sizeof(title), "Gain in %s against memory bloat, per folio size",
			 a->metric);
	else
		snprintf(title, sizeof(title), "Gain against order 0 in %s (%s)", a->metric,
			 a->metric_source);
	subtitle_of(a, sub, sizeof(sub));
	/* analyze's words (report.c): a saving, or a rise where higher is better */
	snprintf(ylabel, sizeof(ylabel), "%s%s", a->metric_unit,
		 a->higher_better ? ", rise over order 0 (%)" : " saved vs order 0 (%)");
	if ((rc = fig_script(&g, d, title, sub, ylabel, &s, err, errsize)))
		return rc;
	fprintf(s, "rec_title = ");
	gp_string(s, rec_title(a, rt, sizeof(rt)));
	if (!vs_bloat)
		fprintf(s, "\nthreshold = %g", 100.0 * a->threshold);
	if (!vs_bloat && a->method == AN_PAIRED)
		fprintf(s, "\ngain_title = 'gain (paired by round, trimmed mean)'");
	if (!vs_bloat && fit_differs(a))
		fprintf(s, "\nfit_title = 'isotonic fit (the verdict rests on it)'");
	fputc('\n', s);
	return fig_finish(&g, s, vs_bloat ? "gain_bloat.gp" : "gain.gp", out, err, errsize);
}

/* The recommendation at each span above its x position, and the knee per
 * working-set size in words at the foot of the plot. */
static void staircase_verdicts(const struct analysis *a, FILE *s)
{
	char text[64];
	int i;

	for (i = 0; i < a->nr_spans; i++) {
		const struct analyze_span *sp = &a->spans[i];

		if (!sp->analysed)
			continue;
		if (sp->min_order >= 0 && sp->verdict == AN_MTHP)
			snprintf(text, sizeof(text), "from order %d", sp->min_order);
		else if (sp->verdict == AN_PMD_ONLY)
			snprintf(text, sizeof(text), "PMD only");
		else
			snprintf(text, sizeof(text), "%s", analyze_verdict_name(sp->verdict));
		fprintf(s, "set label %d ", i + 1);
		gp_string(s, text);
		fprintf(s, " at %.9g, graph 1.02 center font ',9' tc rgb '#d95f02'\n",
			(double)sp->span / (1024.0 * 1024.0));
	}
	if (a->span_summary[0]) {
		fprintf(s, "set label %d ", a->nr_spans + 1);
		gp_string(s, a->span_summary);
		fprintf(s, " at graph 0.01, graph 0.04 left font ',9'\n");
	}
}

/* The span staircase: primary metric against span, a line per order. */
static int plot_staircase(const struct analysis *a, const char *dir, enum plot_format fmt,
			  struct plot_files *out, char *err, size_t errsize)
{
	char title[160], sub[512], ylabel[96], sz[16];
	struct fig g;
	FILE *d, *s;
	int k, i, rc, blocks = 0;

	if ((rc = fig_open(&g, dir, "staircase", fmt, out, &d, err, errsize)))
		return rc;
	for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
		bool any = false;

		for (i = 0; i < a->nr_spans; i++)
			any |= a->spans[i].by_order[k].n > 0;
		if (!any)
			continue;
		analyze_order_size(a, k, sz, sizeof(sz));
		fprintf(d, "%s\"order %d (%s)%s\"\n", blocks ? "\n\n" : "", k, sz,
			k == a->min_order ? ", recommended" : "");
		for (i = 0; i < a->nr_spans; i++) {
			const struct analyze_stat *st = &a->spans[i].by_order[k];

			if (!st->n)
				continue;
			fprintf(d, "%.9g", (double)a->spans[i].span / (1024.0 * 1024.0));
			num(d, st->median);
			num(d, st->lo);
			num(d, st->hi);
			fputc('\n', d);
		}
		blocks++;
	}
	snprintf(title, sizeof(title), "Span staircase: %s against the span, per folio order",
		 a->metric);
	subtitle_of(a, sub, sizeof(sub));
	snprintf(ylabel, sizeof(ylabel), "%s (median, 95 %% CI)", a->metric_unit);
	if ((rc = fig_script(&g, d, title, sub, ylabel, &s, err, errsize)))
		return rc;
	fprintf(s, "nblocks = %d\n", blocks);
	staircase_verdicts(a, s);
	return fig_finish(&g, s, "staircase.gp", out, err, errsize);
}

/* Page faults per order, labelled with the saving. */
static int plot_faults(const struct analysis *a, const char *dir, enum plot_format fmt,
		       struct plot_files *out, char *err, size_t errsize)
{
	char title[160], sub[512], sz[16];
	struct fig g;
	FILE *d, *s;
	int k, rc, x = 0, drawn = 0;

	if ((rc = fig_open(&g, dir, "faults", fmt, out, &d, err, errsize)))
		return rc;
	fprintf(d, "# x label median lo hi saving\n");
	for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
		const struct analyze_order *o = &a->orders[k];

		if (!o->faults.n || !(o->faults.median > 0))
			continue;
		analyze_order_size(a, k, sz, sizeof(sz));
		fprintf(d, "%d \"%d (%s)\"", x++, k, sz);
		drawn += num(d, o->faults.median);
		num(d, o->faults.lo > 0 ? o->faults.lo : o->faults.median);
		num(d, o->faults.hi);
		/* analyze's sign (report.c): faults saved are positive, an
		 * order that faults more than order 0 is negative */
		if (k && isfinite(o->fault_saving.value))
			fprintf(d, " \"%+.1f%%\"\n", 100.0 * o->fault_saving.value);
		else
			fprintf(d, " \"%s\"\n", k ? "" : "baseline");
	}
	if (!x)
		return fig_drop(&g, d, err, errsize);
	if (!drawn)
		return fig_drop_skip(&g, d, out, err, errsize);
	snprintf(title, sizeof(title), "Fault side: page faults to populate the span, per "
		 "folio order (labels: faults saved vs order 0)");
	subtitle_of(a, sub, sizeof(sub));
	if ((rc = fig_script(&g, d, title, sub, "page faults per trial (log scale)", &s, err,
			     errsize)))
		return rc;
	return fig_finish(&g, s, "faults.gp", out, err, errsize);
}

/* Take away the directories make_dir() created (made: its *made, the
 * length of the first one's path), deepest first and only while empty: a
 * plot that fails leaves no directory of its own behind, and one that wrote
 * a figure keeps it. */
static void unmake_dir(const char *dir, size_t made)
{
	char path[PATH_MAX];
	char *p;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return;
	for (;;) {
		for (p = path + strlen(path); p > path + 1 && p[-1] == '/'; p--)
			p[-1] = '\0';
		if (strlen(path) < made || rmdir(path))
			return;
		p = strrchr(path, '/');
		if (!p)
			return;
		*p = '\0';
	}
}

/* mkdir -p; *made is the length of the first directory it created (SIZE_MAX
 * when every one was there), for unmake_dir(). */
static int make_dir(const char *dir, size_t *made, char *err, size_t errsize)
{
	char path[PATH_MAX];
	struct stat st;
	char *p;

	*made = SIZE_MAX;
	if (!*dir)
		return ms_fail(err, errsize, -ENOENT, "no directory named for the figures");
	if (strlen(dir) >= sizeof(path))
		return ms_fail(err, errsize, -ENAMETOOLONG, "the directory's path has %zu bytes, "
			       "more than PATH_MAX (%zu)", strlen(dir), sizeof(path));
	snprintf(path, sizeof(path), "%s", dir);
	for (p = path + 1;; p++) {
		bool last = !*p;

		if (!last && *p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) == 0) {
			if (*made == SIZE_MAX)
				*made = (size_t)(p - path);
		} else if (errno != EEXIST) {
			return ms_fail(err, errsize, -errno, "cannot create %s: %s", path,
				    strerror(errno));
		}
		if (last)
			break;
		*p = '/';
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return ms_fail(err, errsize, -ENOTDIR, "%s is not a directory", dir);
	return 0;
}

static bool all_zero(const struct analyze_metric *m)
{
	int k;

	for (k = 0; k < ANALYZE_NR_ORDERS; k++)
		if (m->by_order[k].n && m->by_order[k].median != 0.0)
			return false;
	return true;
}

static int analysis_figures(const struct analysis *a, const char *dir, enum plot_format fmt,
			    struct plot_files *out, char *err, size_t errsize)
{
	int i, rc;

	if ((rc = plot_gain(a, false, dir, fmt, out, err, errsize)))
		return rc;
	for (i = 0; i < a->nr_metrics; i++) {
		/* page faults have their own log-scale figure */
		if (!strcmp(a->metrics[i].name, "page_faults") && !a->metrics[i].sparse)
			continue;
		if (all_zero(&a->metrics[i]))
			continue; /* e.g. no fault fallbacks: an empty chart says nothing */
		if ((rc = plot_metric(a, &a->metrics[i], dir, fmt, out, err, errsize)))
			return rc;
	}
	if (a->nr_spans > 1 && (rc = plot_staircase(a, dir, fmt, out, err, errsize)))
		return rc;
	if ((rc = plot_gain(a, true, dir, fmt, out, err, errsize)))
		return rc;
	return plot_faults(a, dir, fmt, out, err, errsize);
}

int plot_analysis(const struct analysis *a, const char *dir, enum plot_format fmt,
		  struct plot_files *out, char *err, size_t errsize)
{
	size_t made;
	int rc;

	if ((rc = make_dir(dir, &made, err, errsize)))
		return rc;
	if ((rc = analysis_figures(a, dir, fmt, out, err, errsize)))
		unmake_dir(dir, made);
	return rc;
}

/* ---- the TLB model (src/analysis/tlb_predict.h) ------------------------- */

/* Entries needed per order at the verdict span, each level's capacity. */
static int plot_tlb_entries(const struct analysis *a, const struct tlb_prediction *p,
			    const char *dir, enum plot_format fmt, struct plot_files *out,
			    char *err, size_t errsize)
{
	const struct tlb_predict_span *sp = &p->spans[p->verdict_span];
	char title[160], sub[512], sz[16], spn[32];
	struct fig g;
	FILE *d, *s;
	int k, lv, rc, x = 0, same = 1;

	if ((rc = fig_open(&g, dir, "tlb-entries", fmt, out, &d, err, errsize)))
		return rc;
	for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
		if (!sp->by_order[k].n)
			continue;
		analyze_order_size(a, k, sz, sizeof(sz));
		fprintf(d, "%d \"%d (%s)\"", x++, k, sz);
		for (lv = 0; lv < p->g->nr_levels; lv++) {
			fprintf(d, " %llu", sp->by_order[k].entries[lv] ? sp->by_order[k].entries[lv] : 1);
			same &= sp->by_order[k].entries[lv] == sp->by_order[k].entries[0];
		}
		fputc('\n', d);
	}
	if (report_span_name(a, sp->span, false, spn, sizeof(spn)))
		snprintf(title, sizeof(title), "TLB model (%s): entries needed per folio order "
			 "(a command)", p->g->name);
	else
		snprintf(title, sizeof(title), "TLB model (%s): entries needed per folio order at "
			 "%s", p->g->name, spn);
	subtitle_of(a, sub, sizeof(sub));
	if ((rc = fig_script(&g, d, title, sub, "TLB entries needed (model, log scale)", &s, err,
			     errsize)))
		return rc;
	fprintf(s, "nlevels = %d\nsame = %d\n", p->g->nr_levels, same);
	for (lv = 0; lv < TLB_MAX_LEVELS; lv++) {
		fprintf(s, "lvname%d = ", lv + 1);
		gp_string(s, lv < p->g->nr_levels ? p->g->level[lv].name : "");
		fprintf(s, "\ncap%d = %llu\n", lv + 1, lv < p->g->nr_levels ? p->capacity[lv] : 0ull);
	}
	return fig_finish(&g, s, "tlb_entries.gp", out, err, errsize);
}

/* The measured staircase with the model's last-level miss ratio over it. */
static int plot_tlb_staircase(const struct analysis *a, const struct tlb_prediction *p,
			      const char *dir, enum plot_format fmt, struct plot_files *out,
			      char *err, size_t errsize)
{
	char title[160], sub[512], ylabel[96], y2[96], sz[16];
	int k, i, pass, rc, blocks = 0, last = p->g->nr_levels - 1;
	struct fig g;
	FILE *d, *s;

	if ((rc = fig_open(&g, dir, "tlb-staircase", fmt, out, &d, err, errsize)))
		return rc;
	for (pass = 0; pass < 2; pass++) {
		for (k = 0; k < ANALYZE_NR_ORDERS; k++) {
			bool any = false;

			for (i = 0; i < a->nr_spans; i++)
				any |= a->spans[i].by_order[k].n > 0 && p->spans[i].by_order[k].n > 0;
			if (!any)
				continue;
			analyze_order_size(a, k, sz, sizeof(sz));
			fprintf(d, "%s\"order %d (%s)%s\"\n", pass || blocks ? "\n\n" : "", k, sz,
				pass ? ", model" : "");
			for (i = 0; i < a->nr_spans; i++) {
				const struct analyze_stat *st = &a->spans[i].by_order[k];

				if (!st->n || !p->spans[i].by_order[k].n)
					continue;
				fprintf(d, "%.9g", (double)a->spans[i].span / (1024.0 * 1024.0));
				if (pass) {
					num(d, p->spans[i].by_order[k].miss[last]);
				} else {
					num(d, st->median);
					num(d, st->lo);
					num(d, st->hi);
				}
				fputc('\n', d);
			}
			blocks += !pass;
		}
	}
	snprintf(title, sizeof(title), "Measured staircase and the TLB model (%s)", p->g->name);
	subtitle_of(a, sub, sizeof(sub));
	snprintf(ylabel, sizeof(ylabel), "%s (median, 95 %% CI), solid", a->metric_unit);
	snprintf(y2, sizeof(y2), "%s miss ratio (model), dashed", p->g->level[last].name);
	if ((rc = fig_script(&g, d, title, sub, ylabel, &s, err, errsize)))
		return rc;
	fprintf(s, "nblocks = %d\ny2label_text = ", blocks);
	gp_string(s, y2);
	fputc('\n', s);
	return fig_finish(&g, s, "tlb_staircase.gp", out, err, errsize);
}

int plot_tlb(const struct analysis *a, const struct tlb_prediction *p, const char *dir,
	     enum plot_format fmt, struct plot_files *out, char *err, size_t errsize)
{
	size_t made;
	int rc;

	if (!p->available)
		return 0;
	if ((rc = make_dir(dir, &made, err, errsize)))
		return rc;
	rc = plot_tlb_entries(a, p, dir, fmt, out, err, errsize);
	if (!rc && a->nr_spans > 1)
		rc = plot_tlb_staircase(a, p, dir, fmt, out, err, errsize);
	if (rc)
		unmake_dir(dir, made);
	return rc;
}

/* The texts of an A/B figure. */
struct ab_text {
	const char *title, *subtitle, *ylabel, *label_a, *label_b;
};

/* One A/B figure into dir (which exists); listed in out when out is set. */
static int ab_figure(const char *dir, const char *name, enum plot_format fmt,
		     const struct ab_text *t, const struct plot_ab_row *rows, size_t n,
		     struct plot_files *out, char *err, size_t errsize)
{
	struct fig g;
	FILE *d, *s;
	size_t i;
	int rc;

	if ((rc = fig_open(&g, dir, name, fmt, out, &d, err, errsize)))
		return rc;
	fprintf(d, "# x label a a_lo a_hi b b_lo b_hi\n");
	for (i = 0; i < n; i++) {
		char label[40];

		snprintf(label, sizeof(label), "%d (%s)", rows[i].order, rows[i].label);
		fprintf(d, "%zu ", i);
		dat_label(d, label); /* the caller's string: no quote or line break */
		num(d, rows[i].a.median);
		num(d, rows[i].a.lo);
		num(d, rows[i].a.hi);
		num(d, rows[i].b.median);
		num(d, rows[i].b.lo);
		num(d, rows[i].b.hi);
		fputc('\n', d);
	}
	if ((rc = fig_script(&g, d, t->title, t->subtitle, t->ylabel, &s, err, errsize)))
		return rc;
	fprintf(s, "label_a = ");
	gp_string(s, t->label_a);
	fprintf(s, "\nlabel_b = ");
	gp_string(s, t->label_b);
	fputc('\n', s);
	return fig_finish(&g, s, "ab.gp", out, err, errsize);
}

int plot_ab(const char *dir, const char *name, enum plot_format fmt, const char *title,
	    const char *subtitle, const char *ylabel, const char *label_a, const char *label_b,
	    const struct plot_ab_row *rows, size_t n, char *err, size_t errsize)
{
	const struct ab_text t = { title, subtitle, ylabel, label_a, label_b };
	size_t made;
	int rc;

	if (!n)
		return ms_fail(err, errsize, -ENODATA, "no rows to plot");
	if ((rc = make_dir(dir, &made, err, errsize)))
		return rc;
	if ((rc = ab_figure(dir, name, fmt, &t, rows, n, NULL, err, errsize)))
		unmake_dir(dir, made);
	return rc;
}

/* ---- mthpscope collapse ----------------------------------------------------- */

/* One block per run into d: t_s, then the cumulative MiB up to each
 * order of cols; *ymax the largest total, *xmax the latest t_s. */
static void collapse_blocks(const struct collapse_doc *doc, unsigned long cols, FILE *d,
			    double *ymax, double *xmax)
{
	size_t r, i;
	int o;

	for (r = 0; r < doc->nr_runs; r++) {
		const struct collapse_doc_run *run = &doc->runs[r];

		if (r)
			fputs("\n\n", d);
		fprintf(d, "# max_ptes_none %lld\n", run->max_ptes_none);
		for (i = 0; i < run->nr_samples; i++) {
			const struct collapse_doc_sample *smp = &run->samples[i];
			double cum = 0;

			fprintf(d, "%.3f", (double)smp->t_ms / 1e3);
			*xmax = fmax(*xmax, (double)smp->t_ms / 1e3);
			for (o = 0; o <= FOLIO_MAX_ORDER; o++) {
				if (!(cols & (1UL << o)))
					continue;
				cum += (double)smp->pages[o] * (double)doc->host.topo.page_size / (1 << 20);
				num(d, cum);
			}
			*ymax = fmax(*ymax, cum);
			fputc('\n', d);
		}
	}
}

/* The collapse figure into dir (which exists): the columns cols, the
 * orders' names "0 4 9" in orders, ncols of them. */
static int collapse_figure(const struct collapse_doc *doc, const char *dir,
			   enum plot_format fmt, unsigned long cols, const char *orders, int ncols,
			   struct plot_files *out, char *err, size_t errsize)
{
	char title[128], sub[256], en[96] = "";
	double ymax, xmax = 0;
	struct fig g;
	FILE *d, *s;
	size_t r, i;
	int rc;

	for (i = 0; i < doc->config.orders.nr; i++)
		snprintf(en + strlen(en), sizeof(en) - strlen(en), "%s%d", i ? "," : "",
			 doc->config.orders.order[i]);
	if ((rc = fig_open(&g, dir, "collapse", fmt, out, &d, err, errsize)))
		return rc;
	fprintf(d, "# t_s, then cumulative MiB up to order: %s\n", orders);
	ymax = (double)doc->config.span / (1 << 20);
	collapse_blocks(doc, cols, d, &ymax, &xmax);
	snprintf(title, sizeof(title), "mthpscope collapse (%s): folio orders of the span over time",
		 doc->config.mode[0] ? doc->config.mode : "?");
	snprintf(sub, sizeof(sub), "kernel %s, %lld MiB span, fill %.0f%%, orders enabled %s",
		 doc->host.topo.kernel[0] ? doc->host.topo.kernel : "?", doc->config.span >> 20,
		 doc->config.fill * 100,
		 en[0] ? en : "none");
	if ((rc = fig_script(&g, d, title, sub, "span memory (MiB)", &s, err, errsize)))
		return rc;
	fprintf(s, "nruns = %zu\nncols = %d\norders = ", doc->nr_runs, ncols);
	gp_string(s, orders);
	/* every panel on one scale: y to the span (or the most any sample
	 * holds), x to the end of the longest timeline */
	fprintf(s, "\nymax = %.9g\nxmax = %.9g", ymax, xmax);
	/* as many values as there are runs: no buffer to cut them short (a
	 * fixed one ended the panel titles of a long sweep) */
	fprintf(s, "\ntitles = '");
	for (r = 0; r < doc->nr_runs; r++)
		fprintf(s, "%s%lld", r ? " " : "", doc->runs[r].max_ptes_none);
	fputs("'\n", s);
	return fig_finish(&g, s, "collapse.gp", out, err, errsize);
}

int plot_collapse(const struct collapse_doc *doc, const char *dir, enum plot_format fmt,
		  struct plot_files *out, char *err, size_t errsize)
{
	unsigned long cols = doc->hist_orders;
	char orders[128] = "";
	int ncols = 0, o, rc;
	size_t made;

	for (o = 0; o <= FOLIO_MAX_ORDER; o++)
		if (cols & (1UL << o))
			snprintf(orders + strlen(orders), sizeof(orders) - strlen(orders), "%s%d",
				 ncols++ ? " " : "", o);
	if (!ncols)
		return ms_fail(err, errsize, -ENODATA, "the timelines are empty");
	if ((rc = make_dir(dir, &made, err, errsize)))
		return rc;
	rc = collapse_figure(doc, dir, fmt, cols, orders, ncols, out, err, errsize);
	if (rc)
		unmake_dir(dir, made);
	return rc;
}

/* ---- compare: A/B figures -------------------------------------------------- */

/* Rows [first, last) share other, pattern, metric and span (rows are
 * sorted that way): one figure. */
static int plot_compare_group(const struct compare_report *r, size_t first, size_t last,
			      const char *dir, enum plot_format fmt, struct plot_files *out,
			      char *err, size_t errsize)
{
	const struct compare_row *w0 = &r->rows[first];
	const struct compare_input *a = &r->inputs[0], *b = &r->inputs[w0->other];
	char title[256], subtitle[256], ylabel[128], sp[32], la[160], lb[160];
	struct ab_text t = { title, subtitle, ylabel, la, lb };
	struct plot_ab_row *pr;
	char *name = NULL;
	size_t i;
	int rc;

	pr = calloc(last - first, sizeof(*pr));
	if (!pr)
		return -ENOMEM;
	for (i = first; i < last; i++) {
		const struct compare_row *w = &r->rows[i];
		struct plot_ab_row *p = &pr[i - first];

		p->order = w->order;
		ms_format_size((unsigned long long)(a->page_size ? a->page_size : 4096)
					<< w->order, p->label, sizeof(p->label));
		p->a = (struct plot_ci){ w->a, w->a_lo, w->a_hi };
		p->b = (struct plot_ci){ w->b, w->b_lo, w->b_hi };
	}
	ms_format_size(w0->span, sp, sizeof(sp));
	/* File names from the metric and what tells figures apart, whole:
	 * fig_init makes them safe, short enough and unlike each other (a
	 * 64-byte buffer cut them, and the figures of files whose labels
	 * differed only past it overwrote each other). */
	if (asprintf(&name, "ab-%s%s%s%s%s%s%s", w0->metric, r->nr_inputs > 2 ? "-" : "",
		     r->nr_inputs > 2 ? b->label : "", r->single_pattern ? "" : "-",
		     r->single_pattern ? "" : w0->pattern, r->single_span ? "" : "-",
		     r->single_span ? "" : sp) < 0) {
		free(pr);
		return -ENOMEM;
	}
	snprintf(title, sizeof(title), "%s: %s against %s", w0->metric, b->label, a->label);
	snprintf(subtitle, sizeof(subtitle),
		 "pattern %s, span %s; medians of %zu and %zu repetitions, %.0f %% bootstrap CI; "
		 "%s is better", w0->pattern, sp, w0->na, w0->nb, r->ci_level * 100,
		 w0->dir == COMPARE_DIR_LOWER ? "lower" : w0->dir == COMPARE_DIR_HIGHER ? "higher"
										   : "neither");
	snprintf(ylabel, sizeof(ylabel), "%s (median)", w0->metric);
	snprintf(la, sizeof(la), "A: %s (%s)", a->label, compare_kernel_name(a));
	snprintf(lb, sizeof(lb), "B: %s (%s)", b->label, compare_kernel_name(b));
	rc = ab_figure(dir, name, fmt, &t, pr, last - first, out, err, errsize);
	free(name);
	free(pr);
	return rc;
}

int plot_compare(const struct compare_report *r, const char *dir, enum plot_format fmt,
		 size_t *nr_written,
		 char *err, size_t errsize)
{
	struct plot_files files = { 0 };
	size_t i, made, first = 0;
	int rc;

	*nr_written = 0;
	if (!r->nr_rows)
		return 0;
	if ((rc = make_dir(dir, &made, err, errsize)))
		return rc;
	for (i = 1; i <= r->nr_rows && !rc; i++) {
		const struct compare_row *p = &r->rows[first], *w = &r->rows[i];

		if (i < r->nr_rows && w->other == p->other && w->span == p->span &&
		    !strcmp(w->metric, p->metric) && !strcmp(w->pattern, p->pattern))
			continue;
		rc = plot_compare_group(r, first, i, dir, fmt, &files, err, errsize);
		if (rc == -ENOMEM)
			snprintf(err, errsize, "out of memory");
		first = i;
	}
	*nr_written = files.nr; /* pictures, each its own file */
	plot_files_free(&files);
	if (rc)
		unmake_dir(dir, made);
	return rc;
}

/* ---- record: samples against memory, hot windows ------------------------------- */

#define PLOT_RECORD_VMAS 10

/* The orders of a column mask in words, "0 4 9"; *n their number. */
static unsigned long order_names(unsigned long cols, char *names, size_t size, int *n)
{
	names[0] = '\0';
	*n = 0;
	for (int o = 0; o <= RECORD_MAX_ORDER; o++)
		if (cols & (1UL << o))
			snprintf(names + strlen(names), size - strlen(names), "%s%d", (*n)++ ? " " : "",
				 o);
	return cols;
}

/* The orders any row shows, as the columns of both figures: "0 4 9". */
static unsigned long record_columns(const struct record_doc *d, char *names, size_t size, int *n)
{
	unsigned long cols = 0;
	size_t i;
	int o;

	for (i = 0; i < d->nr_vmas; i++)
		for (o = 0; o <= RECORD_MAX_ORDER; o++)
			if (d->vmas[i].s.order[o] || (d->vmas[i].mem.scanned && d->vmas[i].mem.pages[o]))
				cols |= 1UL << o;
	return order_names(cols, names, size, n);
}

/* A window's row label: its address and the file name of its VMA. */
static void window_label(FILE *f, const struct record_window *w)
{
	const char *slash = strrchr(w->vma, '/');
	char label[96];

	snprintf(label, sizeof(label), "%llx\\n%.20s", w->start,
		 slash ? slash + 1 : w->vma[0] ? w->vma : "anon");
	dat_label(f, label);
}

static void record_row(FILE *f, const char *label, const unsigned long long *by_order,
		       unsigned long cols, unsigned long long partial, unsigned long long other,
		       unsigned long long unmapped)
{
	unsigned long long all = partial + other + unmapped;
	int o;

	for (o = 0; o <= RECORD_MAX_ORDER; o++)
		all += (cols & (1UL << o)) ? by_order[o] : 0;
	dat_label(f, label);
	for (o = 0; o <= RECORD_MAX_ORDER; o++)
		if (cols & (1UL << o))
			num(f, all ? 100.0 * (double)by_order[o] / (double)all : 0);
	num(f, all ? 100.0 * (double)partial / (double)all : 0);
	num(f, all ? 100.0 * (double)other / (double)all : 0);
	num(f, all ? 100.0 * (double)unmapped / (double)all : 0);
	fputc('\n', f);
}

static int by_vma_samples(const void *a, const void *b)
{
	const struct record_vma *x = *(const struct record_vma *const *)a;
	const struct record_vma *y = *(const struct record_vma *const *)b;

	return x->s.samples != y->s.samples ? (x->s.samples < y->s.samples ? 1 : -1) : 0;
}

static void record_subtitle(const struct record_doc *d, char *buf, size_t size)
{
	snprintf(buf, size, "%s (%s), %llu samples, kernel %s", d->config.event, d->config.source,
		 d->total.samples, d->host.topo.kernel[0] ? d->host.topo.kernel : "?");
}

/* A record figure once its data file f is written: f closed, then the
 * script: title, ylabel, nbars bar groups of ncols columns (the orders
 * names), its template NAME.gp. */
static int record_fig_end(struct fig *g, FILE *f, const struct record_doc *d, const char *title,
			  const char *ylabel, const char *names, int ncols, size_t nbars,
			  struct plot_files *out, char *err, size_t errsize)
{
	char sub[256], template[80];
	FILE *s;
	int rc;

	record_subtitle(d, sub, sizeof(sub));
	if ((rc = fig_script(g, f, title, sub, ylabel, &s, err, errsize)))
		return rc;
	fprintf(s, "ncols = %d\norders = ", ncols);
	gp_string(s, names);
	fprintf(s, "\nnbars = %zu\n", nbars);
	snprintf(template, sizeof(template), "%s.gp", g->name);
	return fig_finish(g, s, template, out, err, errsize);
}

/* Per VMA (most samples first), two stacked bars: its samples by the order
 * of the page they hit, its memory by order at the last scan. */
static int plot_record_orders(const struct record_doc *d, const char *dir, enum plot_format fmt,
			      struct plot_files *out, char *err, size_t errsize)
{
	const struct record_vma *v[PLOT_RECORD_VMAS], **all;
	char names[128], label[96], name[64];
	unsigned long cols;
	size_t i, n;
	int ncols, rc;
	struct fig g;
	FILE *f;

	cols = record_columns(d, names, sizeof(names), &ncols);
	all = calloc(d->nr_vmas + 1, sizeof(*all));
	if (!all)
		return ms_fail(err, errsize, -ENOMEM, "out of memory");
	for (i = 0; i < d->nr_vmas; i++)
		all[i] = &d->vmas[i];
	qsort(all, d->nr_vmas, sizeof(*all), by_vma_samples);
	for (n = 0; n < d->nr_vmas && n < PLOT_RECORD_VMAS; n++)
		v[n] = all[n];
	free(all);
	if ((rc = fig_open(&g, dir, "record_orders", fmt, out, &f, err, errsize)))
		return rc;
	fprintf(f, "# label, then %% by order (%s), partial, zero/other, unmapped\n", names);
	for (i = 0; i < n; i++) {
		const struct record_memory *m = &v[i]->mem;

		record_vma_label(v[i], name, sizeof(name));
		snprintf(label, sizeof(label), "%s\\n%llu samples", name, v[i]->s.samples);
		record_row(f, label, v[i]->s.order, cols, v[i]->s.partial, v[i]->s.other,
			   v[i]->s.unmapped);
		snprintf(label, sizeof(label), "%s\\nmemory", name);
		if (m->scanned)
			record_row(f, label, m->pages, cols, m->partial, m->other, 0);
		else
			record_row(f, label, (unsigned long long[RECORD_MAX_ORDER + 1]){ 0 }, cols,
				   0, 0, 0);
		/* a gap between VMAs: an empty bar */
		record_row(f, "", (unsigned long long[RECORD_MAX_ORDER + 1]){ 0 }, cols, 0, 0, 0);
	}
	return record_fig_end(&g, f, d,
			      "mthpscope record: where the samples land, and what backs the memory",
			      "% of the VMA's samples / of its memory", names, ncols, 3 * n, out,
			      err, errsize);
}

/* The window's entries at order o under the model (NaN: not computed). */
static double window_entries_at(const struct record_window_tlb *t, int o)
{
	for (int k = 0; k < t->nr_at; k++)
		if (t->order[k] == o)
			return (double)t->entries_at[k];
	return NAN;
}

/* The order columns of the windows figure: the orders its samples landed
 * at, or (tlb) the orders the model was asked about. */
static unsigned long window_cols(const struct record_doc *d, bool tlb)
{
	unsigned long cols = 0;
	size_t i;
	int o;

	for (i = 0; i < d->nr_windows; i++) {
		const struct record_window *w = &d->windows[i];

		if (tlb)
			for (int k = 0; w->has_tlb && k < w->tlb.nr_at; k++)
				cols |= 1UL << w->tlb.order[k];
		else
			for (o = 0; o <= RECORD_MAX_ORDER; o++)
				if (w->s.order[o])
					cols |= 1UL << o;
	}
	return cols;
}

/* A window's line: its samples by order, partial, zero/other, unmapped; or
 * (tlb) the model's entries as mapped now, then at each order. */
static void window_row(FILE *f, const struct record_window *w, unsigned long cols, bool tlb)
{
	int o;

	window_label(f, w);
	if (tlb)
		num(f, (double)w->tlb.entries_now);
	for (o = 0; o <= RECORD_MAX_ORDER; o++)
		if (cols & (1UL << o))
			num(f, tlb ? window_entries_at(&w->tlb, o) : (double)w->s.order[o]);
	if (!tlb) {
		num(f, (double)w->s.partial);
		num(f, (double)w->s.other);
		num(f, (double)w->s.unmapped);
	}
	fputc('\n', f);
}

/* The hottest windows, most samples first: their samples by order, or (tlb)
 * their TLB footprint (source model): the entries their memory needs as
 * mapped now, and at each order the model was asked about. */
static int plot_record_windows(const struct record_doc *d, bool tlb, const char *dir,
			       enum plot_format fmt, struct plot_files *out, char *err,
			       size_t errsize)
{
	unsigned long cols = window_cols(d, tlb);
	char names[128], title[160], ws[16];
	int ncols = 0, rc;
	struct fig g;
	size_t i;
	FILE *f;

	order_names(cols, names, sizeof(names), &ncols);
	rc = fig_open(&g, dir, tlb ? "record_tlb" : "record_windows", fmt, out, &f, err, errsize);
	if (rc)
		return rc;
	if (tlb) {
		fprintf(f, "# window, then the model's TLB entries: as mapped now, at order %s "
			"(source model, ", names);
		comment_text(f, d->tlb_model); /* the document's string */
		fputs(")\n", f);
	} else {
		fprintf(f, "# window, then samples by order (%s), partial, zero/other, "
			"unmapped\n", names);
	}
	for (i = 0; i < d->nr_windows; i++)
		if (!tlb || d->windows[i].has_tlb)
			window_row(f, &d->windows[i], cols, tlb);
	ms_format_size(d->config.window_bytes, ws, sizeof(ws));
	if (tlb)
		snprintf(title, sizeof(title), "mthpscope record: the hottest windows' TLB entries "
			 "(model %s), as mapped and at each order", d->tlb_model);
	else
		snprintf(title, sizeof(title), "mthpscope record: the hottest %s windows, samples "
			 "by folio order", ws);
	return record_fig_end(&g, f, d, title, tlb ? "TLB entries (model)" : "samples", names,
			      ncols, d->nr_windows, out, err, errsize);
}

static bool any_window_tlb(const struct record_doc *d)
{
	for (size_t i = 0; i < d->nr_windows; i++)
		if (d->windows[i].has_tlb)
			return true;
	return false;
}

int plot_record(const struct record_doc *d, const char *dir, enum plot_format fmt,
		struct plot_files *out, char *err, size_t errsize)
{
	size_t made;
	int rc;

	if (!d->nr_vmas)
		return ms_fail(err, errsize, -ENODATA, "no sample fell in a VMA: nothing to plot");
	if ((rc = make_dir(dir, &made, err, errsize)))
		return rc;
	rc = plot_record_orders(d, dir, fmt, out, err, errsize);
	if (!rc && d->nr_windows)
		rc = plot_record_windows(d, false, dir, fmt, out, err, errsize);
	if (!rc && d->nr_windows && any_window_tlb(d))
		rc = plot_record_windows(d, true, dir, fmt, out, err, errsize);
	if (rc)
		unmake_dir(dir, made);
	return rc;
}
