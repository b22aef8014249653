/* `crate analyze`: listen to the library (loudness, tempo, timbre). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_analysis.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "medialib/media_analysis.h"

struct analyze_ui {
	int tty;
	double last;
	size_t failed_shown;
};

static void analyze_progress(void *ud, const struct app_analysis_progress *p)
{
	struct analyze_ui *ui = ud;
	/* Each failure is worth a line: the user learns which file and why. */
	if (p->failed > ui->failed_shown) {
		ui->failed_shown = p->failed;
		if (ui->tty)
			fputs("\r\033[K", stderr);
		fputs("crate: not analysed: ", stderr);
		cli_put_safe(stderr, p->msg, strlen(p->msg));
		fputc('\n', stderr);
	}
	if (!ui->tty && !p->finished && p->elapsed_s - ui->last < 2.0)
		return;
	ui->last = p->elapsed_s;
	if (ui->tty)
		fputs("\r\033[K", stderr);
	fprintf(stderr, "%s %zu of %zu files, %zu not analysed (%.0f s of audio, %.0fx real time)",
		p->finished ? "analysed" : "analysing,", p->done, p->total, p->failed, p->audio_s,
		p->elapsed_s > 0 ? p->audio_s / p->elapsed_s : 0.0);
	if (!ui->tty || p->finished)
		fputc('\n', stderr);
	fflush(stderr);
}

/* analyze --import FILE ("-": stdin): results from info --json. */
static int import_file(struct cli_ctx *ctx, const char *path)
{
	size_t len;
	struct crate_err err = {0};
	char *text = cli_read_file(path, &len, &err);
	if (!text)
		return cli_fail_safe(err.msg);
	struct app *app = cli_app(ctx);
	size_t imported = 0, skipped = 0;
	int rc = app ? app_analysis_import(app, text, len, &imported, &skipped, &err) : -1;
	free(text);
	if (!app)
		return CLI_FAIL;
	if (rc != 0)
		return cli_fail_safe(err.msg);
	fprintf(stderr, "imported %zu analyses, skipped %zu (not in the library or another version)\n",
		imported, skipped);
	return skipped ? CLI_PARTIAL : CLI_OK;
}

static int cmd_analyze(struct cli_ctx *ctx, int argc, char **argv)
{
	bool quiet = false, all = false;
	int i = 1;
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (strcmp(argv[i], "--import") == 0 && i + 1 < argc && i + 2 == argc)
			return import_file(ctx, argv[i + 1]);
		if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0)
			quiet = true;
		else if (strcmp(argv[i], "--again") == 0)
			all = true;
		else if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else
			return cli_usage(cli_find("analyze"));
	}
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	char *query = i < argc ? cli_join_args(argv + i, argc - i) : NULL;
	struct analyze_ui ui = {isatty(2), 0, 0};
	struct app_analysis_progress p;
	struct crate_err err = {0};
	int rc = app_analyze(app, query, all, quiet ? NULL : analyze_progress, &ui, &p, &err);
	if (rc != 0 && query && (err.code == CRATE_ERR_PARSE || err.code == CRATE_ERR_INCOMPLETE)) {
		cli_fail_query(query, &err);
		free(query);
		return CLI_FAIL;
	}
	free(query);
	if (rc != 0)
		return cli_fail_safe(err.msg);
	return p.failed ? CLI_PARTIAL : CLI_OK;
}

const struct cli_command cli_analysis_commands[] = {
	{"analyze", "analyze [--again] [--quiet] [QUERY] | analyze --import FILE",
	 "measure loudness, tempo and timbre of files not analysed yet (QUERY: only those)",
	 cmd_analyze},
	{NULL, NULL, NULL, NULL},
};
