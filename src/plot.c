#include "plot.h"
#include "cleanup.h"

#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define PLOT_MAX_ORDER 20

int plot_script_path(const char *name, char *buf, size_t size)
{
	static const char *const rel[] = { "scripts", "../scripts", "../share/mthpscope/scripts" };
	const char *env = getenv("MTHPSCOPE_SCRIPTS");
	char exe[PATH_MAX], *slash;
	ssize_t n;
	size_t i;

	if (env && *env) {
		snprintf(buf, size, "%s/%s", env, name);
		return access(buf, R_OK) ? -ENOENT : 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -ENOENT;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(buf, size, "%s/%s/%s", exe, rel[i], name);
		if (!access(buf, R_OK))
			return 0;
	}
	return -ENOENT;
}

static const char *terminal_for(const char *out)
{
	const char *dot = strrchr(out, '.');

	if (!dot)
		return NULL;
	if (!strcmp(dot, ".png"))
		return "pngcairo";
	if (!strcmp(dot, ".svg"))
		return "svg";
	if (!strcmp(dot, ".pdf"))
		return "pdfcairo";
	return NULL;
}

/* gnuplot string literals are single-quoted here: refuse what would break them. */
static int quotable(const char *s)
{
	return !strchr(s, '\'') && !strchr(s, '\n');
}

static int run_gnuplot(const char *script, const char *vars)
{
	char *argv[] = { "gnuplot", "-e", (char *)vars, (char *)script, NULL };
	posix_spawn_file_actions_t fa;
	int status, err;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	/* gnuplot's chatter is not our output: stdout stays the data's. */
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 0, 0);
	err = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err)
		return -err;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status))
		return -EINTR;
	if (WEXITSTATUS(status) == 127)
		return -ENOENT;
	return WEXITSTATUS(status) ? -EIO : 0;
}

int plot_collapse(json_t *doc, const char *outfile)
{
	char data[] = "/tmp/mthpscope-collapse-XXXXXX";
	char script[PATH_MAX], orders[128] = "", titles[512] = "", vars[2048];
	json_t *runs = json_object_get(doc, "runs"), *run, *smp;
	json_int_t page_size = json_integer_value(json_object_get(json_object_get(doc, "host"),
								  "page_size"));
	const char *term = terminal_for(outfile);
	unsigned long cols = 0;
	size_t r, i;
	int fd, slot = -1, ncols = 0, o, err;
	FILE *f = NULL;

	if (!term || !quotable(outfile))
		return -EINVAL;
	if (!json_is_array(runs) || !json_array_size(runs) || page_size <= 0)
		return -EINVAL;
	if ((err = plot_script_path("collapse.gp", script, sizeof(script))) || !quotable(script))
		return err ? err : -EINVAL;
	json_array_foreach(runs, r, run) {
		json_array_foreach(json_object_get(run, "timeline"), i, smp) {
			const char *k;
			json_t *v;

			json_object_foreach(json_object_get(smp, "hist"), k, v) {
				o = atoi(k);
				if (o >= 0 && o <= PLOT_MAX_ORDER)
					cols |= 1UL << o;
			}
		}
		snprintf(titles + strlen(titles), sizeof(titles) - strlen(titles), "%s%lld",
			 r ? " " : "",
			 (long long)json_integer_value(json_object_get(run, "max_ptes_none")));
	}
	for (o = 0; o <= PLOT_MAX_ORDER; o++)
		if (cols & (1UL << o)) {
			snprintf(orders + strlen(orders), sizeof(orders) - strlen(orders), "%s%d",
				 ncols ? " " : "", o);
			ncols++;
		}
	if (!ncols)
		return -EINVAL;
	fd = mkstemp(data);
	if (fd < 0)
		return -errno;
	slot = cleanup_unlink_path(data);
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		goto out;
	}
	json_array_foreach(runs, r, run) {
		if (r)
			fprintf(f, "\n\n");
		json_array_foreach(json_object_get(run, "timeline"), i, smp) {
			json_t *h = json_object_get(smp, "hist");
			double cum = 0;

			fprintf(f, "%.3f", (double)json_integer_value(json_object_get(smp, "t_ms")) / 1e3);
			for (o = 0; o <= PLOT_MAX_ORDER; o++) {
				char k[8];

				if (!(cols & (1UL << o)))
					continue;
				snprintf(k, sizeof(k), "%d", o);
				cum += (double)json_integer_value(json_object_get(h, k)) *
				       (double)page_size / (1 << 20);
				fprintf(f, " %.4f", cum);
			}
			fprintf(f, "\n");
		}
	}
	if (fclose(f)) {
		f = NULL;
		err = -errno;
		goto out;
	}
	f = NULL;
	snprintf(vars, sizeof(vars),
		 "datafile='%s'; outfile='%s'; term='%s'; nruns=%zu; ncols=%d; orders='%s'; "
		 "titles='%s'; header='mthpscope collapse (%s): folio orders of the span'",
		 data, outfile, term, json_array_size(runs), ncols, orders, titles,
		 json_string_value(json_object_get(json_object_get(doc, "config"), "mode"))
			 ?: "?");
	err = run_gnuplot(script, vars);
out:
	unlink(data);
	if (slot >= 0)
		cleanup_forget_path(slot);
	return err;
}
