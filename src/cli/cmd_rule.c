/* Commands of the "rule" group: collection rules (app/rules.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
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
		cli_fail_safe(err.msg);
	return rs;
}

static int cmd_add(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct cli_command *me = cli_find("rule add");
	size_t at = SIZE_MAX;
	const char *eq = NULL;
	double volume = 0;
	int rg = RULE_RG_DEFAULT;
	bool pshuffle = true;
	struct strbuf target;
	strbuf_init(&target, 64);
	int rc = CLI_FAIL;
	bool opts_done = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has_val = i + 1 < argc;
		if (opts_done || a[0] != '-' || !a[1] || (a[1] != '-' && !has_val)) {
			/* the query may be several words: g:Jazz year<1960 */
			strbuf_addf(&target, "%s%s", target.len ? " " : "", a);
		} else if (strcmp(a, "--") == 0) {
			opts_done = true;
		} else if (strcmp(a, "--at") == 0 && has_val) {
			if (!parse_pos(argv[++i], &at)) {
				cli_error("--at: '%s' is not a rule number (1, 2, ...)", argv[i]);
				goto out;
			}
		} else if (strcmp(a, "--eq") == 0 && has_val) {
			eq = argv[++i];
		} else if (strcmp(a, "--volume") == 0 && has_val) {
			const char *v = argv[++i];
			if (!rule_volume_parse(v, &volume)) {
				cli_error("--volume: '%s' is not an offset in dB within -24..24", v);
				goto out;
			}
		} else if (strcmp(a, "--replaygain") == 0 && has_val) {
			rg = rule_rg_parse(argv[++i]);
			if (rg == -2) {
				cli_error("--replaygain: '%s' is not off, track, album or default",
					  argv[i]);
				goto out;
			}
		} else if (strcmp(a, "--no-pshuffle") == 0) {
			pshuffle = false;
		} else if (a[1] == '-') {
			rc = cli_usage(me);
			goto out;
		} else {
			/* "-g:x" style words belong to the query */
			strbuf_addf(&target, "%s%s", target.len ? " " : "", a);
		}
	}
	if (!target.len) {
		rc = cli_usage(me);
		goto out;
	}
	struct app *app;
	struct rules *rs = open_rules(ctx, &app);
	if (!rs)
		goto out;
	struct crate_err err = {0};
	if (!app->store) {
		cli_error("the collection store is not available");
		goto out;
	}
	struct rule r;
	if (rule_from_target(app->store, target.buf, &r, &err) != 0) {
		cli_fail_safe(err.msg);
		goto out;
	}
	if (rule_eq_set(&r, app->cfg, eq, &err) != 0) {
		cli_error("--eq: %s", err.msg);
		rule_clear(&r);
		goto out;
	}
	r.volume_db = volume;
	r.replaygain = rg;
	r.pshuffle = pshuffle;
	if (at == SIZE_MAX)
		at = rules_count(rs);
	if (rules_add(rs, at, &r, &err) != 0) {
		cli_fail_safe(err.msg);
	} else {
		fprintf(stderr, "rule %zu: ", at + 1);
		put_safe(stderr, rules_target(rs, at));
		fputc('\n', stderr);
		rc = CLI_OK;
	}
	rule_clear(&r);
out:
	strbuf_free(&target);
	return rc;
}

static void print_rule(struct rules *rs, struct app *app, size_t i, bool json)
{
	const struct rule *r = rules_get(rs, i);
	char why[256];
	enum rule_state state = rules_state(rs, i, app->store, app->cfg, why, sizeof why);
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
		fputs(b.buf, stdout);
		strbuf_free(&b);
		return;
	}
	printf("%zu. %s ", i + 1, r->name ? "collection" : "query");
	put_safe(stdout, rules_target(rs, i));
	printf(" -> eq=");
	put_safe(stdout, r->eq ? r->eq : "none");
	printf(" volume=%+gdB replaygain=%s pshuffle=%s", r->volume_db,
	       rule_rg_name(r->replaygain), r->pshuffle ? "yes" : "no");
	if (!active) {
		printf(" [inactive: ");
		put_safe(stdout, why);
		putchar(']');
	} else if (state == RULE_NO_EQ) {
		printf(" [no equalizer: ");
		put_safe(stdout, why);
		putchar(']');
	}
	putchar('\n');
}

static int cmd_list(struct cli_ctx *ctx, int argc, char **argv)
{
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else
			return cli_usage(cli_find("rule list"));
	}
	struct app *app;
	struct rules *rs = open_rules(ctx, &app);
	if (!rs)
		return CLI_FAIL;
	for (size_t i = 0; i < rules_count(rs); i++)
		print_rule(rs, app, i, json);
	if (!json && rules_count(rs) == 0)
		fprintf(stderr, "no rules (add one with: crate rule add COLLECTION --eq PRESET)\n");
	return CLI_OK;
}

static int cmd_move(struct cli_ctx *ctx, int argc, char **argv)
{
	size_t from, to;
	if (argc != 3 || !parse_pos(argv[1], &from) || !parse_pos(argv[2], &to))
		return cli_usage(cli_find("rule move"));
	struct app *app;
	struct rules *rs = open_rules(ctx, &app);
	if (!rs)
		return CLI_FAIL;
	struct crate_err err = {0};
	if (rules_move(rs, from, to, &err) != 0)
		return cli_fail_safe(err.msg);
	return CLI_OK;
}

static int cmd_remove(struct cli_ctx *ctx, int argc, char **argv)
{
	size_t i;
	if (argc != 2 || !parse_pos(argv[1], &i))
		return cli_usage(cli_find("rule remove"));
	struct app *app;
	struct rules *rs = open_rules(ctx, &app);
	if (!rs)
		return CLI_FAIL;
	struct crate_err err = {0};
	if (rules_remove(rs, i, &err) != 0)
		return cli_fail_safe(err.msg);
	return CLI_OK;
}

static int cmd_presets(struct cli_ctx *ctx, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return cli_usage(cli_find("rule presets"));
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	char **names;
	size_t n = eq_preset_list(app->cfg, &names);
	int rc = CLI_OK;
	for (size_t i = 0; i < n; i++) {
		struct eq_settings s;
		struct crate_err err = {0};
		put_safe(stdout, names[i]);
		if (eq_preset_get(app->cfg, names[i], &s, &err) == 0) {
			printf(": preamp %+g dB, bands", s.preamp_db);
			for (int b = 0; b < EQ_BANDS; b++)
				printf("%s%+g", b ? "," : " ", s.band_db[b]);
		} else {
			printf(": ");
			put_safe(stdout, err.msg);
			rc = CLI_PARTIAL;
		}
		putchar('\n');
		free(names[i]);
	}
	free(names);
	return rc;
}

const struct cli_command cli_rule_commands[] = {
	{"rule add",
	 "rule add [--at N] COLLECTION|QUERY [--eq PRESET] [--volume DB] [--replaygain MODE] "
	 "[--no-pshuffle]",
	 "play a collection's tracks with these settings", cmd_add},
	{"rule list", "rule list [--json]", "the rules, first match wins", cmd_list},
	{"rule move", "rule move FROM TO", "reorder the rules", cmd_move},
	{"rule remove", "rule remove N", "remove a rule", cmd_remove},
	{"rule presets", "rule presets", "the equalizer presets", cmd_presets},
	{NULL, NULL, NULL, NULL},
};
