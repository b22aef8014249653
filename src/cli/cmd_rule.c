/* Commands of the "rule" group: collection rules (app/rules.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_view.h"
#include "app/rules.h"
#include "base/str.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "coll/json.h"
#include "play/presets.h"

/* A NUL-terminated untrusted string (names, queries, messages), sanitised. */
static void put_safe(FILE *f, const char *s)
{
	cli_put_safe(f, s, strlen(s));
}

/* A 1-based rule number -> 0-based index; false when not a positive number. */
static bool parse_pos(const char *s, size_t *out)
{
	int64_t v;
	if (!str_parse_int64(s, strlen(s), &v) || v < 1)
		return false;
	*out = (size_t)(v - 1);
	return true;
}

static struct rules *open_rules(struct cli_ctx *ctx, struct app **app)
{
	*app = cli_app(ctx);
	if (!*app)
		return NULL;
	struct crate_err err = {0};
	struct rules *rs = app_rules(*app, &err);
	if (!rs)
		cli_fail_safe(ctx, err.msg);
	return rs;
}

static int cmd_add(struct cli_ctx *ctx, const struct cli_args *a)
{
	size_t at = SIZE_MAX;
	const char *eq = cli_value(a, "eq"), *v;
	double volume = 0;
	int rg = RULE_RG_DEFAULT;
	bool pshuffle = !cli_flag(a, "no-pshuffle");
	if ((v = cli_value(a, "at")) && !parse_pos(v, &at))
		return cli_error(ctx, "--at: '%s' is not a rule number (1, 2, ...)", v);
	if ((v = cli_value(a, "volume")) && !rule_volume_parse(v, &volume))
		return cli_error(ctx, "--volume: '%s' is not an offset in dB within -24..24", v);
	if ((v = cli_value(a, "replaygain")) && (rg = rule_rg_parse(v)) == -2)
		return cli_error(ctx, "--replaygain: '%s' is not off, track, album or default", v);
	/* the query may be several words: g:Jazz year<1960 */
	char *target = cli_join_args(a->argv, a->argc);
	int rc = CLI_FAIL;
	struct app *app;
	struct rules *rs = open_rules(ctx, &app);
	if (!rs)
		goto out;
	struct crate_err err = {0};
	if (!app_has_store(app)) {
		cli_error(ctx, "the collection store is not available");
		goto out;
	}
	struct rule r;
	if (app_rule_from_target(app, target, cli_flag(a, "query"), &r, &err) != 0) {
		cli_fail_safe(ctx, err.msg);
		goto out;
	}
	if (rule_eq_set(&r, app->cfg, eq, &err) != 0) {
		cli_error(ctx, "--eq: %s", err.msg);
		rule_clear(&r);
		goto out;
	}
	r.volume_db = volume;
	r.replaygain = rg;
	r.pshuffle = pshuffle;
	if (at == SIZE_MAX)
		at = rules_count(rs);
	if (rules_add(rs, at, &r, &err) != 0) {
		cli_fail_safe(ctx, err.msg);
	} else {
		fprintf(ctx->err, "rule %zu: ", at + 1);
		put_safe(ctx->err, rules_target(rs, at));
		fputc('\n', ctx->err);
		rc = CLI_OK;
	}
	rule_clear(&r);
out:
	free(target);
	return rc;
}

static void print_rule(struct cli_ctx *ctx, struct rules *rs, struct app *app, size_t i, bool json)
{
	const struct rule *r = rules_get(rs, i);
	char why[256];
	enum rule_state state = app_rule_state(app, rs, i, why, sizeof why);
	bool active = state != RULE_INACTIVE;
	if (json) {
		/* Minimal JSON: every string escaped. */
		struct strbuf b;
		strbuf_init(&b, 128);
		const char *fields[][2] = {
			{"collection", r->name ? rules_target(rs, i) : NULL},
			{"query", r->query},
			{"eq", r->eq},
			{"replaygain", rule_rg_name(r->replaygain)},
			{"inactive", active ? NULL : why},
		};
		strbuf_addf(&b, "{\"position\":%zu", i + 1);
		for (size_t k = 0; k < sizeof fields / sizeof *fields; k++) {
			if (!fields[k][1])
				continue;
			strbuf_addf(&b, ",\"%s\":", fields[k][0]);
			coll_json_add_string(&b, fields[k][1], strlen(fields[k][1]));
		}
		strbuf_addf(&b, ",\"volume_db\":%g,\"pshuffle\":%s,\"active\":%s}\n", r->volume_db,
			    r->pshuffle ? "true" : "false", active ? "true" : "false");
		fputs(b.buf, ctx->out);
		strbuf_free(&b);
		return;
	}
	fprintf(ctx->out, "%zu. %s ", i + 1, r->name ? "collection" : "query");
	put_safe(ctx->out, rules_target(rs, i));
	fprintf(ctx->out, " -> eq=");
	put_safe(ctx->out, r->eq ? r->eq : "none");
	fprintf(ctx->out, " volume=%+gdB replaygain=%s pshuffle=%s", r->volume_db,
	       rule_rg_name(r->replaygain), r->pshuffle ? "yes" : "no");
	if (!active) {
		fprintf(ctx->out, " [inactive: ");
		put_safe(ctx->out, why);
		fputc(']', ctx->out);
	} else if (state == RULE_NO_EQ) {
		fprintf(ctx->out, " [no equalizer: ");
		put_safe(ctx->out, why);
		fputc(']', ctx->out);
	}
	fputc('\n', ctx->out);
}

static int cmd_list(struct cli_ctx *ctx, const struct cli_args *a)
{
	bool json = cli_flag(a, "json");
	struct app *app;
	struct rules *rs = open_rules(ctx, &app);
	if (!rs)
		return CLI_FAIL;
	for (size_t i = 0; i < rules_count(rs); i++)
		print_rule(ctx, rs, app, i, json);
	if (!json && rules_count(rs) == 0)
		fprintf(ctx->err, "no rules (add one with: crate rule add COLLECTION --eq PRESET)\n");
	return CLI_OK;
}

static int cmd_move(struct cli_ctx *ctx, const struct cli_args *a)
{
	size_t from, to;
	if (!parse_pos(a->argv[0], &from) || !parse_pos(a->argv[1], &to))
		return cli_usage(ctx, a->cmd);
	struct app *app;
	struct rules *rs = open_rules(ctx, &app);
	if (!rs)
		return CLI_FAIL;
	struct crate_err err = {0};
	if (rules_move(rs, from, to, &err) != 0)
		return cli_fail_safe(ctx, err.msg);
	return CLI_OK;
}

static int cmd_remove(struct cli_ctx *ctx, const struct cli_args *a)
{
	size_t i;
	if (!parse_pos(a->argv[0], &i))
		return cli_usage(ctx, a->cmd);
	struct app *app;
	struct rules *rs = open_rules(ctx, &app);
	if (!rs)
		return CLI_FAIL;
	struct crate_err err = {0};
	if (rules_remove(rs, i, &err) != 0)
		return cli_fail_safe(ctx, err.msg);
	return CLI_OK;
}

static int cmd_presets(struct cli_ctx *ctx, const struct cli_args *a)
{
	(void)a;
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	char **names;
	size_t n = eq_preset_list(app->cfg, &names);
	int rc = CLI_OK;
	for (size_t i = 0; i < n; i++) {
		struct eq_settings s;
		struct crate_err err = {0};
		put_safe(ctx->out, names[i]);
		if (eq_preset_get(app->cfg, names[i], &s, &err) == 0) {
			fprintf(ctx->out, ": preamp %+g dB, bands", s.preamp_db);
			for (int b = 0; b < EQ_BANDS; b++)
				fprintf(ctx->out, "%s%+g", b ? "," : " ", s.band_db[b]);
		} else {
			fprintf(ctx->out, ": ");
			put_safe(ctx->out, err.msg);
			rc = CLI_PARTIAL;
		}
		fputc('\n', ctx->out);
		free(names[i]);
	}
	free(names);
	return rc;
}

static const struct cli_opt add_opts[] = {
	{"at", 0, CLI_OPT_VALUE, "N", "insert as rule N (default: last)"},
	{"eq", 0, CLI_OPT_VALUE, "PRESET", "the equalizer preset ('crate rule presets')"},
	{"volume", 0, CLI_OPT_VALUE, "DB", "a volume offset within -24..24 dB"},
	{"replaygain", 0, CLI_OPT_VALUE, "MODE", "off, track, album or default"},
	{"no-pshuffle", 0, CLI_OPT_FLAG, NULL, "Party Shuffle leaves these tracks out"},
	{"query", 0, CLI_OPT_FLAG, NULL, "the words are a query, even bare words"},
	{0},
};
static const struct cli_opt list_opts[] = {
	{"json", 0, CLI_OPT_FLAG, NULL, "one JSON object per rule and line"},
	{0},
};

static const struct cli_command rule_commands[] = {
	{"rule add", NULL,
	 "rule add [--at N] [--query] COLLECTION|QUERY [--eq PRESET] [--volume DB] "
	 "[--replaygain MODE] [--no-pshuffle]",
	 "play a collection's tracks with these settings",
	 "The target is a saved collection's name when one exists, else a query with a field or\n"
	 "an operator (genre:Jazz year<1960); bare words that name no collection are refused\n"
	 "(a mistyped name), --query takes them as a word search.\n"
	 "The first rule that contains a track applies to it.",
	 1, CLI_ANY, CLI_DASH_ARGS, add_opts, cmd_add},
	{"rule list", NULL, "rule list [--json]", "the rules, first match wins", NULL, 0, 0, 0,
	 list_opts, cmd_list},
	{"rule move", NULL, "rule move FROM TO", "reorder the rules", NULL, 2, 2, 0, NULL,
	 cmd_move},
	{"rule remove", NULL, "rule remove N", "remove a rule", NULL, 1, 1, 0, NULL, cmd_remove},
	{"rule presets", NULL, "rule presets", "the equalizer presets", NULL, 0, 0, 0, NULL,
	 cmd_presets},
	{0},
};

const struct cli_group cli_rule_group = {"rule", "collection rules: equalizer and volume",
					 rule_commands};
