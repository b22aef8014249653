/* `crate analyze`: listen to the library (loudness, tempo, timbre). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_analysis.h"
#include "base/str.h"
#include "cli/cli.h"
#include "cli/cmd_util.h"
#include "cli/output.h"
#include "medialib/media_analysis.h"

struct analyze_ui {
	FILE *err; /* the command's ctx->err */
	int tty;
	double last;
	size_t failed_shown;
	bool again; /* --again: every file was asked for */
	bool quiet; /* --quiet: failures only */
};

static void analyze_progress(void *ud, const struct app_analysis_progress *p)
{
	struct analyze_ui *ui = ud;
	/* Each failure is worth a line: the user learns which file and why. */
	if (p->failed > ui->failed_shown) {
		ui->failed_shown = p->failed;
		if (ui->tty)
			fputs("\r\033[K", ui->err);
		fputs("crate: not analysed: ", ui->err);
		cli_put_safe(ui->err, p->msg, strlen(p->msg));
		fputc('\n', ui->err);
	}
	if (ui->quiet)
		return;
	if (!ui->tty && !p->finished && p->elapsed_s - ui->last < 2.0)
		return;
	if (p->finished && p->total == 0) { /* not "analysed 0 of 0 files" */
		if (p->failed_before) /* not "every file is analysed" */
			fprintf(ui->err,
				"nothing to analyse: %zu %s could not be analysed before ('crate search "
				"analysis_error:*' lists them) and %s tried again only when changed or "
				"with 'crate analyze --again'\n",
				p->failed_before, str_plural(p->failed_before, "file", "files"),
				p->failed_before == 1 ? "is" : "are");
		else
			fputs(ui->again ? "nothing to analyse: no files\n"
					: "nothing to analyse: every file is analysed already "
					  "('crate analyze --again' measures them anew)\n",
			      ui->err);
		return;
	}
	ui->last = p->elapsed_s;
	if (ui->tty)
		fputs("\r\033[K", ui->err);
	/* done counts the files not analysed too: the final line says how
	 * many were, not "analysed 23 of 23 files, 3 not analysed" */
	fprintf(ui->err, "%s %zu of %zu files, %zu not analysed (%.0f s of audio, %.0fx real time)",
		p->finished ? "analysed" : "analysing,", p->finished ? p->done - p->failed : p->done,
		p->total, p->failed, p->audio_s, p->elapsed_s > 0 ? p->audio_s / p->elapsed_s : 0.0);
	if (!ui->tty || p->finished)
		fputc('\n', ui->err);
	fflush(ui->err);
}

/* analyze --import FILE ("-": stdin): results from info --json. */
static int import_file(struct cli_ctx *ctx, const char *path)
{
	size_t len;
	struct crate_err err = {0};
	char *text = cli_read_file(path, &len, &err);
	if (!text)
		return cli_fail_safe(ctx, err.msg);
	struct app *app = cli_app(ctx);
	size_t imported = 0, skipped = 0;
	int rc = app ? app_analysis_import(app, text, len, &imported, &skipped, &err) : -1;
	free(text);
	if (!app)
		return CLI_FAIL;
	if (rc != 0 && err.code == CRATE_ERR_INVALID) /* the file is at fault: name it */
		crate_err_prefix(&err, "%s: ", strcmp(path, "-") == 0 ? "standard input" : path);
	if (rc != 0)
		return cli_fail_safe(ctx, err.msg);
	fprintf(ctx->err, "imported %zu %s, skipped %zu (not in the library or another version)\n",
		imported, str_plural(imported, "analysis", "analyses"), skipped);
	return skipped ? CLI_PARTIAL : CLI_OK;
}

static int cmd_analyze(struct cli_ctx *ctx, const struct cli_args *a)
{
	bool quiet = cli_flag(a, "quiet"), all = cli_flag(a, "again");
	const char *import = cli_value(a, "import");
	if (import && (a->argc || quiet || all))
		return cli_usage(ctx, a->cmd); /* --import FILE stands alone */
	if (import) {
		char *file = cli_path_arg(ctx, import);
		int status = import_file(ctx, file);
		free(file);
		return status;
	}
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	char *query = a->argc ? cli_join_args(a->argv, a->argc) : NULL;
	struct analyze_ui ui = {ctx->err, !quiet && isatty(fileno(ctx->err)), 0, 0, all, quiet};
	struct app_analysis_progress p;
	struct crate_err err = {0};
	/* --quiet still names the files that fail: the exit status alone
	 * would not say which. */
	int rc = app_analyze(app, query, all, analyze_progress, &ui, &p, &err);
	if (rc != 0 && query && (err.code == CRATE_ERR_PARSE || err.code == CRATE_ERR_INCOMPLETE)) {
		cli_fail_query(ctx, query, &err);
		free(query);
		return CLI_FAIL;
	}
	free(query);
	if (rc != 0)
		return cli_fail_safe(ctx, err.msg);
	return p.failed ? CLI_PARTIAL : CLI_OK;
}

static const struct cli_opt analyze_opts[] = {
	{"again", 0, CLI_OPT_FLAG, NULL, "analyse files that were analysed already too"},
	{"quiet", 'q', CLI_OPT_FLAG, NULL,
	 "no progress and no summary (files that fail are still named)"},
	{"import", 0, CLI_OPT_VALUE, "FILE", "read results from 'crate info --json' output (- = stdin)"},
	{0},
};

static const struct cli_command analysis_commands[] = {
	{"analyze", "analyse", "analyze [--again] [--quiet] [QUERY] | analyze --import FILE",
	 "measure loudness, tempo and timbre of files not analysed yet (QUERY: only those)",
	 "The results feed ReplayGain-style loudness, bpm: queries and like: similarity.", 0,
	 CLI_ANY, CLI_OPTS_FIRST, analyze_opts, cmd_analyze},
	{0},
};

const struct cli_group cli_analysis_group = {"analyze", "listening to the library",
					     analysis_commands};
