/* Collection rules on a real SQLite database, the real collection store,
 * parser and evaluator, over an in-memory index built for the test. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/rules.h"
#include "base/config.h"
#include "coll/parse.h"
#include "coll/store.h"
#include "harness.h"
#include "medialib/db.h"
#include "medialib/index.h"
#include "play/gain.h"

struct fixture {
	char *path;
	struct mlib_db *db;
	struct coll_store *store;
	struct rules *rs;
	struct mlib_index *idx;
};

/* Tracks 1..6: genre and year. 1,2 Jazz (1958, 1975), 3 Classical 1950,
 * 4 Classical 1990, 5 Rock 1958, 6 Rock 2001. */
static struct mlib_index *index_make(void)
{
	static const struct { const char *genre; int year; } t[] = {
		{"Jazz", 1958}, {"Jazz", 1975}, {"Classical", 1950},
		{"Classical", 1990}, {"Rock", 1958}, {"Rock", 2001},
	};
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t i = 0; i < 6; i++) {
		uint32_t id = i + 1;
		mlib_index_add_media(idx, id);
		mlib_index_add_str(idx, id, "genre", t[i].genre, strlen(t[i].genre));
		mlib_index_set_int(idx, id, "year", t[i].year);
		char title[32];
		snprintf(title, sizeof title, "Track %u", id);
		mlib_index_add_str(idx, id, "title", title, strlen(title));
	}
	mlib_index_finish(idx);
	return idx;
}

static void fx_open(struct fixture *f)
{
	struct crate_err err = {0};
	if (!f->path)
		f->path = xasprintf("%s/library.db", harness_tmpdir());
	REQUIRE(mlib_db_open(f->path, 0, &f->db, &err) == 0);
	CHECK_MSG(coll_store_open(f->db, &f->store, &err) == 0, "%s", err.msg);
	REQUIRE(f->store);
	CHECK_MSG(rules_open(f->db, &f->rs, &err) == 0, "%s", err.msg);
	REQUIRE(f->rs);
	if (!f->idx)
		f->idx = index_make();
}

static void fx_close(struct fixture *f, bool all)
{
	rules_free(f->rs);
	coll_store_free(f->store);
	mlib_db_close(f->db);
	f->rs = NULL;
	f->store = NULL;
	f->db = NULL;
	if (all) {
		mlib_index_free(f->idx);
		free(f->path);
		memset(f, 0, sizeof *f);
	}
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

/* Add a rule for target (saved collection or query) with preset eq. */
static void add_rule(struct fixture *f, const char *target, const char *eq, double vol)
{
	struct rule r;
	struct crate_err err = {0};
	REQUIRE(rule_from_target(f->store, target, &r, &err) == 0);
	r.eq = eq ? xstrdup(eq) : NULL;
	r.volume_db = vol;
	CHECK_MSG(rules_add(f->rs, SIZE_MAX, &r, &err) == 0, "%s", err.msg);
	rule_clear(&r);
}

static int match(struct fixture *f, uint32_t id)
{
	return rules_match(f->rs, f->idx, f->store, id);
}

TEST(first_matching_rule_wins)
{
	struct fixture f = {0};
	fx_open(&f);
	save_query(&f, "Jazz Vinyl rips", "genre:Jazz");
	add_rule(&f, "Jazz Vinyl rips", "vinyl", 0);
	add_rule(&f, "year<1960", "classical", -3); /* overlaps: track 1 is in both */
	CHECK(rules_get(f.rs, 0)->name != NULL);   /* a saved collection, by name */
	CHECK(rules_get(f.rs, 1)->query != NULL);  /* a query */
	CHECK_INT(match(&f, 1), 0);
	CHECK_INT(match(&f, 2), 0);
	CHECK_INT(match(&f, 3), 1);
	CHECK_INT(match(&f, 5), 1);
	CHECK_INT(match(&f, 4), -1);
	CHECK_INT(match(&f, 6), -1);

	struct crate_err err = {0};
	CHECK(rules_move(f.rs, 1, 0, &err) == 0);
	CHECK_INT(match(&f, 1), 0); /* now the year rule comes first */
	CHECK_STR(rules_target(f.rs, 0), "year<1960");
	CHECK_INT(match(&f, 2), 1);

	struct rule_settings s;
	rules_settings_compute(f.rs, f.idx, f.store, NULL, 1, &s);
	CHECK_INT(s.rule, 0);
	CHECK_STR(s.eq_name, "classical");
	CHECK(s.volume_db == -3);
	CHECK(!eq_settings_flat(&s.eq));
	rules_settings_compute(f.rs, f.idx, f.store, NULL, 6, &s);
	CHECK_INT(s.rule, -1);
	CHECK(eq_settings_flat(&s.eq) && s.volume_db == 0 && s.replaygain == RULE_RG_DEFAULT);
	fx_close(&f, true);
}

TEST(persisted_across_reopen)
{
	struct fixture f = {0};
	fx_open(&f);
	save_query(&f, "Jazz", "genre:Jazz");
	add_rule(&f, "Jazz", "jazz", 2.5);
	add_rule(&f, "genre:Rock", NULL, -6);
	struct rule r;
	struct crate_err err = {0};
	REQUIRE(rule_from_target(f.store, "year>=1990", &r, &err) == 0);
	r.replaygain = PLAY_RG_ALBUM;
	r.pshuffle = false;
	CHECK(rules_add(f.rs, 0, &r, &err) == 0); /* --at 1 */
	rule_clear(&r);
	CHECK(rules_add(f.rs, 7, &r, &err) != 0);
	CHECK(rules_remove(f.rs, 9, &err) != 0);
	CHECK_MSG(strstr(err.msg, "no rule 10"), "%s", err.msg);
	fx_close(&f, false);

	fx_open(&f);
	REQUIRE(rules_count(f.rs) == 3);
	CHECK_STR(rules_target(f.rs, 0), "year>=1990");
	CHECK_INT(rules_get(f.rs, 0)->replaygain, PLAY_RG_ALBUM);
	CHECK(!rules_get(f.rs, 0)->pshuffle);
	CHECK_STR(rules_target(f.rs, 1), "Collections/Jazz");
	CHECK_STR(rules_get(f.rs, 1)->eq, "jazz");
	CHECK(rules_get(f.rs, 1)->volume_db == 2.5);
	CHECK(rules_get(f.rs, 1)->pshuffle);
	CHECK_INT(rules_get(f.rs, 1)->replaygain, RULE_RG_DEFAULT);
	CHECK_STR(rules_target(f.rs, 2), "genre:Rock");
	CHECK(rules_get(f.rs, 2)->eq == NULL);
	CHECK(rules_remove(f.rs, 0, &err) == 0);
	CHECK(rules_move(f.rs, 0, 1, &err) == 0);
	fx_close(&f, false);

	fx_open(&f);
	REQUIRE(rules_count(f.rs) == 2);
	CHECK_STR(rules_target(f.rs, 0), "genre:Rock");
	CHECK_STR(rules_target(f.rs, 1), "Collections/Jazz");
	fx_close(&f, true);
}

TEST(removed_collection)
{
	struct fixture f = {0};
	fx_open(&f);
	save_query(&f, "Vinyl", "genre:Jazz");
	save_query(&f, "Old", "year<1960");
	add_rule(&f, "Vinyl", "vinyl", 0);
	add_rule(&f, "in:Old genre:Rock", "rock", 0);
	add_rule(&f, "*", NULL, 1);
	struct crate_err err = {0};
	/* The CLI asks first: refused, naming the rule. */
	CHECK(rules_on_remove(f.rs, COLL_NS_COLLECTIONS, "Vinyl", false, &err) != 0);
	CHECK_INT(err.code, CRATE_ERR_REFUSED);
	CHECK_MSG(strstr(err.msg, "rule 1") && strstr(err.msg, "Collections/Vinyl") &&
		  strstr(err.msg, "--force"), "%s", err.msg);
	CHECK(rules_on_remove(f.rs, COLL_NS_COLLECTIONS, "Old", false, &err) != 0);
	CHECK_MSG(strstr(err.msg, "rule 2"), "%s", err.msg);
	CHECK_INT(rules_count(f.rs), 3);

	/* Removed behind the rules' back (another program): inactive, skipped. */
	REQUIRE(coll_store_remove(f.store, COLL_NS_COLLECTIONS, "Vinyl", false, &err) == 0);
	char why[256];
	CHECK(!rules_is_active(f.rs, 0, f.store, why, sizeof why));
	CHECK_MSG(strstr(why, "Collections/Vinyl") && strstr(why, "removed"), "%s", why);
	CHECK(rules_is_active(f.rs, 1, f.store, why, sizeof why));
	CHECK_INT(match(&f, 1), 2); /* the Jazz track falls through to "*" */
	CHECK_INT(match(&f, 5), 1);

	/* --force drops the rules using it. */
	CHECK(rules_on_remove(f.rs, COLL_NS_COLLECTIONS, "Old", true, &err) == 0);
	REQUIRE(coll_store_remove(f.store, COLL_NS_COLLECTIONS, "Old", false, &err) == 0);
	CHECK_INT(rules_count(f.rs), 2);
	CHECK_STR(rules_target(f.rs, 1), "*");
	fx_close(&f, false);
	fx_open(&f);
	CHECK_INT(rules_count(f.rs), 2);
	CHECK(!rules_is_active(f.rs, 0, f.store, why, sizeof why));
	fx_close(&f, true);
}

TEST(renamed_collection_keeps_rules)
{
	struct fixture f = {0};
	fx_open(&f);
	save_query(&f, "Jazz", "genre:Jazz");
	add_rule(&f, "Jazz", "jazz", 0);
	add_rule(&f, "in:Jazz year<1960", "vinyl", 0);
	struct crate_err err = {0};
	REQUIRE(coll_store_rename(f.store, COLL_NS_COLLECTIONS, "Jazz", "Jazz Vinyl rips", &err) == 0);
	CHECK_MSG(rules_on_rename(f.rs, COLL_NS_COLLECTIONS, "Jazz", "Jazz Vinyl rips", &err) == 0,
		  "%s", err.msg);
	CHECK_STR(rules_target(f.rs, 0), "Collections/Jazz Vinyl rips");
	CHECK_MSG(strstr(rules_target(f.rs, 1), "Jazz Vinyl rips") != NULL, "%s",
		  rules_target(f.rs, 1));
	char why[256];
	CHECK(rules_is_active(f.rs, 0, f.store, why, sizeof why));
	CHECK_MSG(rules_is_active(f.rs, 1, f.store, why, sizeof why), "%s", why);
	CHECK_INT(match(&f, 1), 0);
	CHECK(rules_move(f.rs, 1, 0, &err) == 0);
	CHECK_INT(match(&f, 1), 0);
	CHECK_INT(match(&f, 2), 1);
	fx_close(&f, false);
	fx_open(&f);
	CHECK_STR(rules_target(f.rs, 1), "Collections/Jazz Vinyl rips");
	fx_close(&f, true);
}

TEST(missing_preset_falls_back)
{
	struct fixture f = {0};
	fx_open(&f);
	add_rule(&f, "genre:Jazz", "nosuch", -2);
	struct config *cfg = config_new_empty();
	struct rule_settings s;
	rules_settings_compute(f.rs, f.idx, f.store, cfg, 1, &s);
	CHECK_INT(s.rule, 0);
	CHECK(eq_settings_flat(&s.eq));
	CHECK_STR(s.eq_name, "");
	CHECK(s.volume_db == -2); /* the rest of the rule applies */
	CHECK_MSG(strstr(s.msg, "'nosuch'") && strstr(s.msg, "not defined"), "%s", s.msg);
	/* Defined later in the config: used. */
	config_set(cfg, "eq.preset.nosuch.bands", "1,2,3,4,5,6,7,8,9,10");
	rules_settings_compute(f.rs, f.idx, f.store, cfg, 1, &s);
	CHECK_STR(s.msg, "");
	CHECK(s.eq.band_db[9] == 10);
	config_free(cfg);
	fx_close(&f, true);
}

TEST(bad_targets_and_values)
{
	struct fixture f = {0};
	fx_open(&f);
	struct rule r;
	struct crate_err err = {0};
	CHECK(rule_from_target(f.store, "genre:Jazz AND (", &r, &err) != 0);
	CHECK_MSG(strstr(err.msg, "col") != NULL, "%s", err.msg);
	CHECK(rule_from_target(f.store, "in:Nowhere", &r, &err) != 0);
	REQUIRE(rule_from_target(f.store, "genre:Jazz", &r, &err) == 0);
	r.volume_db = 30;
	CHECK(rules_add(f.rs, SIZE_MAX, &r, &err) != 0);
	CHECK_MSG(strstr(err.msg, "-24..24"), "%s", err.msg);
	rule_clear(&r);
	CHECK_INT(rules_count(f.rs), 0);
	CHECK_INT(rule_rg_parse("album"), PLAY_RG_ALBUM);
	CHECK_INT(rule_rg_parse("default"), RULE_RG_DEFAULT);
	CHECK_INT(rule_rg_parse("loud"), -2);
	fx_close(&f, true);
}

/* A mistyped collection name was taken as a word search over every field. */
TEST(bare_words_naming_no_collection_are_refused)
{
	struct fixture f = {0};
	fx_open(&f);
	save_query(&f, "Jazz", "genre:Jazz");
	struct rule r;
	struct crate_err err = {0};
	CHECK(rule_from_target(f.store, "Jaz", &r, &err) != 0);
	CHECK_STR(err.msg, "'Jaz' names no collection; use --query to mean a search");
	CHECK(rule_from_target(f.store, "Jazz Vinyl", &r, &err) != 0);
	REQUIRE(rule_from_target(f.store, "Jazz", &r, &err) == 0);
	CHECK_STR(r.name, "Jazz");
	rule_clear(&r);
	REQUIRE(rule_from_query(f.store, "Jaz", &r, &err) == 0);
	CHECK_STR(r.query, "Jaz");
	CHECK(r.name == NULL);
	rule_clear(&r);
	/* --query means a query even where a collection has the name */
	REQUIRE(rule_from_query(f.store, "Jazz", &r, &err) == 0);
	CHECK_STR(r.query, "Jazz");
	rule_clear(&r);
	CHECK(rule_from_query(f.store, "a:(", &r, &err) != 0);
	CHECK_MSG(strstr(err.msg, "col") != NULL, "%s", err.msg);
	fx_close(&f, true);
}

TEST(membership_costs_microseconds)
{
	struct fixture f = {0};
	fx_open(&f);
	save_query(&f, "Jazz", "genre:Jazz");
	add_rule(&f, "genre:Rock year>2000", NULL, 0);
	add_rule(&f, "Jazz", "jazz", 0);
	add_rule(&f, "year<1960", "vinyl", 0);
	enum { N = 20000 };
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	int hits = 0;
	for (int i = 0; i < N; i++)
		hits += match(&f, (uint32_t)(i % 6 + 1)) >= 0;
	clock_gettime(CLOCK_MONOTONIC, &b);
	double us = ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3) / N;
	fprintf(stderr, "    rules_match over 3 rules: %.2f us per track\n", us);
	CHECK_INT(hits, N - (N + 2) / 6); /* every track but 4 (Classical 1990) */
	CHECK_MSG(us < 200, "%.1f us per match", us);
	fx_close(&f, true);
}
