/* The rule editing helpers shared by `crate rule` and the rules pane
 * (rules_set, rule_volume_parse, rule_eq_set, rules_state), on a real
 * SQLite database and the real collection store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/rules.h"
#include "base/config.h"
#include "coll/parse.h"
#include "coll/store.h"
#include "harness.h"
#include "medialib/db.h"

struct fixture {
	char *path;
	struct mlib_db *db;
	struct coll_store *store;
	struct rules *rs;
};

static void fx_open(struct fixture *f)
{
	struct crate_err err = {0};
	if (!f->path)
		f->path = xasprintf("%s/library.db", harness_tmpdir());
	REQUIRE(mlib_db_open(f->path, 0, &f->db, &err) == 0);
	REQUIRE(coll_store_open(f->db, &f->store, &err) == 0);
	CHECK_MSG(rules_open(f->db, &f->rs, &err) == 0, "%s", err.msg);
	REQUIRE(f->rs);
}

static void fx_close(struct fixture *f)
{
	rules_free(f->rs);
	coll_store_free(f->store);
	mlib_db_close(f->db);
	f->rs = NULL;
	f->store = NULL;
	f->db = NULL;
}

static void save_query(struct fixture *f, const char *name, const char *q)
{
	struct crate_err err = {0};
	struct coll_node *n = coll_parse(q, strlen(q), &(struct coll_parse_opts){0}, &err);
	REQUIRE(n);
	CHECK_MSG(coll_store_save(f->store, COLL_NS_COLLECTIONS, name, n, &err) == 0, "%s",
		  err.msg);
	coll_node_unref(n);
}

static void add_rule(struct fixture *f, const char *target, const char *eq)
{
	struct rule r;
	struct crate_err err = {0};
	REQUIRE(rule_from_target(f->store, target, &r, &err) == 0);
	REQUIRE(rule_eq_set(&r, NULL, eq, &err) == 0);
	CHECK_MSG(rules_add(f->rs, SIZE_MAX, &r, &err) == 0, "%s", err.msg);
	rule_clear(&r);
}

TEST(volume_parse_accepts_what_the_cli_does)
{
	static const struct { const char *in; double v; } good[] = {
		{"3", 3}, {"+3", 3}, {"-2.5dB", -2.5}, {"+1.5 dB", 1.5}, {" 4 ", 4},
		{"24", 24}, {"-24db", -24}, {"0", 0},
	};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		double v = 99;
		CHECK_MSG(rule_volume_parse(good[i].in, &v), "'%s' refused", good[i].in);
		CHECK_MSG(v == good[i].v, "'%s' gave %g", good[i].in, v);
	}
	static const char *const bad[] = {"25", "-24.5", "abc", "", "dB", "3dBx", "nan", "inf",
					  "++3", "3 4"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		double v = 7;
		CHECK_MSG(!rule_volume_parse(bad[i], &v), "'%s' accepted", bad[i]);
		CHECK(v == 7); /* untouched on failure */
	}
}

TEST(eq_set_checks_the_preset)
{
	struct rule r = {0};
	struct crate_err err = {0};
	CHECK_INT(rule_eq_set(&r, NULL, "rock", &err), 0);
	CHECK_STR(r.eq, "rock");
	CHECK_INT(rule_eq_set(&r, NULL, "Bass Boost", &err), 0); /* same as bass-boost */
	CHECK_STR(r.eq, "Bass Boost");
	CHECK_INT(rule_eq_set(&r, NULL, "nosuch", &err), -1);
	CHECK(strstr(err.msg, "'nosuch' is not defined") != NULL);
	CHECK(strstr(err.msg, "vinyl") != NULL); /* lists the known ones */
	CHECK_STR(r.eq, "Bass Boost");           /* unchanged on failure */
	CHECK_INT(rule_eq_set(&r, NULL, "none", &err), 0);
	CHECK(r.eq == NULL);
	CHECK_INT(rule_eq_set(&r, NULL, "jazz", &err), 0);
	CHECK_INT(rule_eq_set(&r, NULL, "", &err), 0);
	CHECK(r.eq == NULL);

	struct config *cfg = config_new_empty();
	config_set(cfg, "eq.preset.mine.bands", "1,1,1,1,1,1,1,1,1,1");
	CHECK_INT(rule_eq_set(&r, cfg, "mine", &err), 0);
	CHECK_STR(r.eq, "mine");
	CHECK_INT(rule_eq_set(&r, NULL, "mine", &err), -1); /* not without the config */
	config_free(cfg);
	rule_clear(&r);
}

TEST(set_replaces_in_place_and_persists)
{
	struct fixture f = {0};
	struct crate_err err = {0};
	fx_open(&f);
	save_query(&f, "Jazz", "genre:Jazz");
	add_rule(&f, "Jazz", "vinyl");
	add_rule(&f, "year<1960", NULL);
	REQUIRE(rules_count(f.rs) == 2);

	/* Edit through the list's own rule (the pane copies; this must work too). */
	struct rule r = *rules_get(f.rs, 0);
	r.eq = "jazz";
	r.volume_db = -2.5;
	CHECK_MSG(rules_set(f.rs, 0, &r, &err) == 0, "%s", err.msg);
	CHECK_STR(rules_get(f.rs, 0)->eq, "jazz");
	CHECK_STR(rules_target(f.rs, 0), "Collections/Jazz");

	/* Refused edits change nothing. */
	r = *rules_get(f.rs, 1);
	r.volume_db = 30;
	CHECK_INT(rules_set(f.rs, 1, &r, &err), -1);
	CHECK(strstr(err.msg, "-24..24") != NULL);
	CHECK(rules_get(f.rs, 1)->volume_db == 0);
	CHECK_INT(rules_set(f.rs, 5, &r, &err), -1);
	CHECK_INT(err.code, CRATE_ERR_NOTFOUND);
	CHECK(strstr(err.msg, "no rule 6") != NULL);

	fx_close(&f);
	fx_open(&f);
	REQUIRE(rules_count(f.rs) == 2);
	CHECK_STR(rules_target(f.rs, 0), "Collections/Jazz");
	CHECK_STR(rules_get(f.rs, 0)->eq, "jazz");
	CHECK(rules_get(f.rs, 0)->volume_db == -2.5);
	CHECK_STR(rules_target(f.rs, 1), "year<1960");
	CHECK(rules_get(f.rs, 1)->eq == NULL);
	fx_close(&f);
	free(f.path);
}

TEST(state_gives_the_reason)
{
	struct fixture f = {0};
	struct crate_err err = {0};
	fx_open(&f);
	save_query(&f, "Old", "year<1960");
	add_rule(&f, "Old", "rock");
	add_rule(&f, "genre:Rock", NULL);
	char why[256];
	CHECK_INT(rules_state(f.rs, 0, f.store, NULL, why, sizeof why), RULE_ACTIVE);
	CHECK_STR(why, "");
	CHECK_INT(rules_state(f.rs, 0, NULL, NULL, why, sizeof why), RULE_INACTIVE);
	CHECK_STR(why, "no collection store");
	CHECK_INT(rules_state(f.rs, 9, f.store, NULL, why, sizeof why), RULE_INACTIVE);

	/* A user preset that the config no longer defines. */
	struct config *cfg = config_new_empty();
	config_set(cfg, "eq.preset.mine.bands", "1,1,1,1,1,1,1,1,1,1");
	struct rule r = *rules_get(f.rs, 1);
	r.eq = "mine";
	REQUIRE(rules_set(f.rs, 1, &r, &err) == 0);
	CHECK_INT(rules_state(f.rs, 1, f.store, cfg, why, sizeof why), RULE_ACTIVE);
	CHECK_INT(rules_state(f.rs, 1, f.store, NULL, why, sizeof why), RULE_NO_EQ);
	CHECK(strstr(why, "'mine' is not defined") != NULL);
	config_free(cfg);

	/* The collection removed behind the rules' back. */
	REQUIRE(coll_store_remove(f.store, COLL_NS_COLLECTIONS, "Old", false, &err) == 0);
	CHECK_INT(rules_state(f.rs, 0, f.store, NULL, why, sizeof why), RULE_INACTIVE);
	CHECK_STR(why, "collection 'Collections/Old' was removed");
	fx_close(&f);
	free(f.path);
}
