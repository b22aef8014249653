/* Saved collections on a real SQLite file: persistence across reopen,
 * replace/rename/remove semantics, cycle refusal, playlists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/err.h"
#include "base/str.h"
#include "base/utf8.h"
#include "coll/node.h"
#include "coll/parse.h"
#include "coll/store.h"
#include "harness.h"
#include "medialib/db.h"

struct fixture {
	char *path;
	struct mlib_db *db;
	struct coll_store *st;
};

static void fx_open(struct fixture *f)
{
	struct crate_err err = {0};
	if (!f->path)
		f->path = xasprintf("%s/library.db", harness_tmpdir());
	int rc = mlib_db_open(f->path, 0, &f->db, &err);
	CHECK_MSG(rc == 0, "mlib_db_open: %s", err.msg);
	REQUIRE(rc == 0);
	rc = coll_store_open(f->db, &f->st, &err);
	CHECK_MSG(rc == 0, "coll_store_open: %s", err.msg);
	REQUIRE(rc == 0);
}

static void fx_close(struct fixture *f)
{
	coll_store_free(f->st);
	mlib_db_close(f->db);
	f->st = NULL;
	f->db = NULL;
}

static void fx_reopen(struct fixture *f)
{
	fx_close(f);
	fx_open(f);
}

static void fx_done(struct fixture *f)
{
	fx_close(f);
	free(f->path);
}

static struct coll_node *ref_new(const char *ns, const char *name)
{
	struct coll_node *r = coll_node_new(COLL_REFERENCE);
	coll_attr_set(r, "namespace", ns);
	coll_attr_set(r, "reference", name);
	return r;
}

/* Save and drop the caller's reference; returns the store's verdict. */
static int save(struct fixture *f, const char *ns, const char *name, struct coll_node *n,
		struct crate_err *err)
{
	int rc = coll_store_save(f->st, ns, name, n, err);
	coll_node_unref(n);
	return rc;
}

static void save_ok(struct fixture *f, const char *ns, const char *name, struct coll_node *n)
{
	struct crate_err err = {0};
	int rc = save(f, ns, name, n, &err);
	CHECK_MSG(rc == 0, "save %s/%s: %s", ns, name, err.msg);
}

static struct coll_node *list_of(const uint32_t *ids, size_t n)
{
	struct coll_node *l = coll_node_new(COLL_IDLIST);
	for (size_t i = 0; i < n; i++)
		u32vec_push(&l->idlist, ids[i]);
	return l;
}

static bool ids_are(const struct coll_node *n, const uint32_t *ids, size_t k)
{
	if (!n || n->idlist.n != k)
		return false;
	return k == 0 || memcmp(n->idlist.v, ids, k * sizeof *ids) == 0;
}

TEST(store_first_start_has_active_default_playlist)
{
	struct fixture f = {0};
	fx_open(&f);
	const struct coll_node *d = coll_store_get(f.st, COLL_NS_PLAYLISTS, "Default");
	REQUIRE(d != NULL);
	CHECK(coll_type_is_list(d));
	CHECK_INT(d->idlist.n, 0);
	CHECK_STR(coll_store_active_playlist(f.st), "Default");
	char **names;
	CHECK_INT(coll_store_list(f.st, COLL_NS_COLLECTIONS, &names), 0);
	free(names);
	size_t n = coll_store_list(f.st, COLL_NS_PLAYLISTS, &names);
	REQUIRE(n == 1);
	CHECK_STR(names[0], "Default");
	free(names[0]);
	free(names);
	/* All Media is built in: resolvable, never stored. */
	const struct coll_node *u = coll_store_resolve(f.st, COLL_NS_COLLECTIONS, "All Media");
	REQUIRE(u != NULL);
	CHECK_INT(u->type, COLL_UNIVERSE);
	CHECK(coll_store_exists(f.st, COLL_NS_COLLECTIONS, "All Media"));
	CHECK(!coll_store_exists(f.st, COLL_NS_COLLECTIONS, "Nope"));
	CHECK(coll_store_get(f.st, COLL_NS_COLLECTIONS, "All Media") == NULL);
	fx_reopen(&f);
	CHECK_STR(coll_store_active_playlist(f.st), "Default");
	n = coll_store_list(f.st, COLL_NS_PLAYLISTS, &names);
	CHECK_INT(n, 1);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	fx_done(&f);
}

TEST(store_saves_survive_reopen)
{
	struct fixture f = {0};
	fx_open(&f);
	struct coll_node *q = coll_filter_new(COLL_EQUALS, "artist", "Björk", NULL);
	struct coll_node *keep = coll_node_copy(q);
	save_ok(&f, COLL_NS_COLLECTIONS, "Rock 90s", q);
	uint32_t ids[] = {5, 3, 5, 9};
	struct coll_node *l = list_of(ids, 4);
	coll_attr_set(l, "position", "1");
	save_ok(&f, COLL_NS_PLAYLISTS, "Road Trip", l);
	save_ok(&f, COLL_NS_COLLECTIONS, "ünïcode ☃", coll_node_new(COLL_UNIVERSE));
	fx_reopen(&f);
	const struct coll_node *back = coll_store_get(f.st, COLL_NS_COLLECTIONS, "Rock 90s");
	REQUIRE(back != NULL);
	CHECK(coll_node_equal(back, keep));
	const struct coll_node *road = coll_store_get(f.st, COLL_NS_PLAYLISTS, "Road Trip");
	CHECK(ids_are(road, ids, 4));
	CHECK_STR(coll_attr_get(road, "position"), "1");
	CHECK(coll_store_get(f.st, COLL_NS_COLLECTIONS, "ünïcode ☃") != NULL);
	char **names;
	size_t n = coll_store_list(f.st, COLL_NS_COLLECTIONS, &names);
	REQUIRE(n == 2);
	CHECK_STR(names[0], "Rock 90s");
	CHECK_STR(names[1], "ünïcode ☃");
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	coll_node_unref(keep);
	fx_done(&f);
}

TEST(store_save_replaces_and_references_see_it)
{
	struct fixture f = {0};
	fx_open(&f);
	save_ok(&f, COLL_NS_COLLECTIONS, "A", coll_filter_new(COLL_EQUALS, "genre", "Rock", NULL));
	save_ok(&f, COLL_NS_COLLECTIONS, "B", ref_new(COLL_NS_COLLECTIONS, "A"));
	save_ok(&f, COLL_NS_COLLECTIONS, "A", coll_filter_new(COLL_EQUALS, "genre", "Jazz", NULL));
	fx_reopen(&f);
	const struct coll_node *b = coll_store_get(f.st, COLL_NS_COLLECTIONS, "B");
	REQUIRE(b && b->type == COLL_REFERENCE);
	const struct coll_node *a =
		coll_store_resolve(f.st, coll_attr_get(b, "namespace"), coll_attr_get(b, "reference"));
	REQUIRE(a != NULL);
	CHECK_STR(coll_attr_get(a, "value"), "Jazz");
	char **names;
	size_t n = coll_store_list(f.st, COLL_NS_COLLECTIONS, &names);
	CHECK_INT(n, 2); /* replaced, not duplicated */
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	fx_done(&f);
}

/* Does the tree hold a reference to name? */
static bool refers(const struct coll_node *n, const char *name)
{
	if (n->type == COLL_REFERENCE)
		return strcmp(coll_attr_get(n, "reference"), name) == 0;
	for (size_t i = 0; i < n->noperands; i++)
		if (refers(n->operands[i], name))
			return true;
	return false;
}

TEST(store_rename_rewrites_every_reference)
{
	struct fixture f = {0};
	fx_open(&f);
	struct crate_err err = {0};
	save_ok(&f, COLL_NS_COLLECTIONS, "A", coll_filter_new(COLL_HAS, "rating", NULL, NULL));
	save_ok(&f, COLL_NS_COLLECTIONS, "B", ref_new(COLL_NS_COLLECTIONS, "A"));
	struct coll_node *u = coll_node_new(COLL_UNION);
	struct coll_node *r1 = ref_new(COLL_NS_COLLECTIONS, "A");
	struct coll_node *r2 = ref_new(COLL_NS_COLLECTIONS, "B");
	struct coll_node *flt = coll_filter_new(COLL_EQUALS, "year", "1999", r1);
	coll_node_add_operand(u, flt);
	coll_node_add_operand(u, r2);
	coll_node_unref(r1);
	coll_node_unref(r2);
	coll_node_unref(flt);
	save_ok(&f, COLL_NS_COLLECTIONS, "C", u);
	struct coll_node *ps = coll_node_new(COLL_IDLIST);
	coll_attr_set(ps, "type", "pshuffle");
	struct coll_node *r3 = ref_new(COLL_NS_COLLECTIONS, "A");
	coll_node_add_operand(ps, r3);
	coll_node_unref(r3);
	save_ok(&f, COLL_NS_PLAYLISTS, "Party", ps);

	CHECK_INT(coll_store_rename(f.st, COLL_NS_COLLECTIONS, "A", "B", &err), -1);
	CHECK_INT(err.code, CRATE_ERR_EXISTS);
	CHECK_INT(coll_store_rename(f.st, COLL_NS_COLLECTIONS, "Nope", "X", &err), -1);
	CHECK_INT(err.code, CRATE_ERR_NOTFOUND);
	int rc = coll_store_rename(f.st, COLL_NS_COLLECTIONS, "A", "Z z", &err);
	CHECK_MSG(rc == 0, "rename: %s", err.msg);
	for (int pass = 0; pass < 2; pass++) {
		CHECK(coll_store_get(f.st, COLL_NS_COLLECTIONS, "A") == NULL);
		const struct coll_node *z = coll_store_get(f.st, COLL_NS_COLLECTIONS, "Z z");
		REQUIRE(z != NULL);
		CHECK_INT(z->type, COLL_HAS);
		const char *users[][2] = {{COLL_NS_COLLECTIONS, "B"}, {COLL_NS_COLLECTIONS, "C"},
					  {COLL_NS_PLAYLISTS, "Party"}};
		for (int i = 0; i < 3; i++) {
			const struct coll_node *n = coll_store_get(f.st, users[i][0], users[i][1]);
			REQUIRE(n != NULL);
			CHECK_MSG(refers(n, "Z z") && !refers(n, "A"), "%s not rewritten",
				  users[i][1]);
		}
		/* C's reference to B is untouched. */
		CHECK(refers(coll_store_get(f.st, COLL_NS_COLLECTIONS, "C"), "B"));
		fx_reopen(&f);
	}
	/* Renaming the active playlist keeps it active. */
	rc = coll_store_rename(f.st, COLL_NS_PLAYLISTS, "Default", "Main", &err);
	CHECK_MSG(rc == 0, "%s", err.msg);
	CHECK_STR(coll_store_active_playlist(f.st), "Main");
	fx_reopen(&f);
	CHECK_STR(coll_store_active_playlist(f.st), "Main");
	CHECK(coll_store_get(f.st, COLL_NS_PLAYLISTS, "Main") != NULL);
	CHECK(coll_store_get(f.st, COLL_NS_PLAYLISTS, "Default") == NULL);
	fx_done(&f);
}

TEST(store_remove_refuses_referrers_and_force_inlines_copies)
{
	struct fixture f = {0};
	fx_open(&f);
	struct crate_err err = {0};
	struct coll_node *def = coll_filter_new(COLL_MATCH, "title", "*love*", NULL);
	struct coll_node *def_copy = coll_node_copy(def);
	save_ok(&f, COLL_NS_COLLECTIONS, "Love", def);
	save_ok(&f, COLL_NS_COLLECTIONS, "Alias", ref_new(COLL_NS_COLLECTIONS, "Love"));
	struct coll_node *r = ref_new(COLL_NS_COLLECTIONS, "Love");
	save_ok(&f, COLL_NS_COLLECTIONS, "Old love",
		coll_filter_new(COLL_SMALLER, "year", "1980", r));
	coll_node_unref(r);
	save_ok(&f, COLL_NS_COLLECTIONS, "Unrelated", coll_node_new(COLL_UNIVERSE));

	CHECK_INT(coll_store_remove(f.st, COLL_NS_COLLECTIONS, "Love", false, &err), -1);
	CHECK_INT(err.code, CRATE_ERR_REFUSED);
	CHECK_MSG(strstr(err.msg, "Collections/Alias") && strstr(err.msg, "Collections/Old love") &&
			  !strstr(err.msg, "Unrelated"),
		  "referrers not listed: %s", err.msg);
	CHECK(coll_store_get(f.st, COLL_NS_COLLECTIONS, "Love") != NULL);

	int rc = coll_store_remove(f.st, COLL_NS_COLLECTIONS, "Love", true, &err);
	CHECK_MSG(rc == 0, "force remove: %s", err.msg);
	for (int pass = 0; pass < 2; pass++) {
		CHECK(coll_store_get(f.st, COLL_NS_COLLECTIONS, "Love") == NULL);
		const struct coll_node *alias = coll_store_get(f.st, COLL_NS_COLLECTIONS, "Alias");
		REQUIRE(alias != NULL);
		CHECK(coll_node_equal(alias, def_copy));
		const struct coll_node *old = coll_store_get(f.st, COLL_NS_COLLECTIONS, "Old love");
		REQUIRE(old != NULL && old->noperands == 1);
		CHECK_INT(old->type, COLL_SMALLER);
		CHECK(coll_node_equal(old->operands[0], def_copy));
		fx_reopen(&f);
	}
	CHECK_INT(coll_store_remove(f.st, COLL_NS_COLLECTIONS, "Love", false, &err), -1);
	CHECK_INT(err.code, CRATE_ERR_NOTFOUND);
	CHECK_INT(coll_store_remove(f.st, COLL_NS_COLLECTIONS, "Unrelated", false, &err), 0);
	coll_node_unref(def_copy);
	fx_done(&f);
}

TEST(store_refuses_cycles_and_missing_references)
{
	struct fixture f = {0};
	fx_open(&f);
	struct crate_err err = {0};
	/* Direct: a collection naming itself. */
	CHECK_INT(save(&f, COLL_NS_COLLECTIONS, "Self", ref_new(COLL_NS_COLLECTIONS, "Self"), &err),
		  -1);
	CHECK_INT(err.code, CRATE_ERR_REFUSED);
	/* Missing target. */
	CHECK_INT(save(&f, COLL_NS_COLLECTIONS, "X", ref_new(COLL_NS_COLLECTIONS, "Ghost"), &err),
		  -1);
	CHECK_INT(err.code, CRATE_ERR_NOTFOUND);
	CHECK_MSG(strstr(err.msg, "Collections/Ghost") != NULL, "%s", err.msg);
	/* Indirect: A <- B <- C, then A := in:C. */
	save_ok(&f, COLL_NS_COLLECTIONS, "A", coll_node_new(COLL_UNIVERSE));
	save_ok(&f, COLL_NS_COLLECTIONS, "B", ref_new(COLL_NS_COLLECTIONS, "A"));
	struct coll_node *i = coll_node_new(COLL_INTERSECTION);
	struct coll_node *rb = ref_new(COLL_NS_COLLECTIONS, "B");
	struct coll_node *has = coll_filter_new(COLL_HAS, "title", NULL, NULL);
	coll_node_add_operand(i, has);
	coll_node_add_operand(i, rb);
	coll_node_unref(rb);
	coll_node_unref(has);
	save_ok(&f, COLL_NS_COLLECTIONS, "C", i);
	struct coll_node *rc_ = ref_new(COLL_NS_COLLECTIONS, "C");
	struct coll_node *cyc = coll_filter_new(COLL_EQUALS, "artist", "x", rc_);
	coll_node_unref(rc_);
	CHECK_INT(save(&f, COLL_NS_COLLECTIONS, "A", cyc, &err), -1);
	CHECK_INT(err.code, CRATE_ERR_REFUSED);
	CHECK_MSG(strstr(err.msg, "cycle") != NULL, "%s", err.msg);
	CHECK_INT(save(&f, COLL_NS_COLLECTIONS, "B", ref_new(COLL_NS_COLLECTIONS, "C"), &err), -1);
	/* A is unchanged, in memory and on disk. */
	fx_reopen(&f);
	CHECK_INT(coll_store_get(f.st, COLL_NS_COLLECTIONS, "A")->type, COLL_UNIVERSE);
	/* Referring to All Media and across namespaces is fine. */
	save_ok(&f, COLL_NS_COLLECTIONS, "Everything", ref_new(COLL_NS_COLLECTIONS, "All Media"));
	save_ok(&f, COLL_NS_COLLECTIONS, "From default", ref_new(COLL_NS_PLAYLISTS, "Default"));
	/* A playlist cannot feed a pshuffle that it is itself. */
	struct coll_node *ps = coll_node_new(COLL_IDLIST);
	coll_attr_set(ps, "type", "pshuffle");
	struct coll_node *self = ref_new(COLL_NS_PLAYLISTS, "P");
	coll_node_add_operand(ps, self);
	coll_node_unref(self);
	CHECK_INT(save(&f, COLL_NS_PLAYLISTS, "P", ps, &err), -1);
	fx_done(&f);
}

TEST(store_builtins_and_namespaces)
{
	struct fixture f = {0};
	fx_open(&f);
	struct crate_err err = {0};
	CHECK_INT(save(&f, COLL_NS_COLLECTIONS, "All Media", coll_node_new(COLL_UNIVERSE), &err),
		  -1);
	CHECK_INT(err.code, CRATE_ERR_REFUSED);
	CHECK_INT(coll_store_rename(f.st, COLL_NS_COLLECTIONS, "All Media", "X", &err), -1);
	CHECK_INT(err.code, CRATE_ERR_REFUSED);
	/* Renaming to it is not renaming it: said so. */
	CHECK_INT(save(&f, COLL_NS_COLLECTIONS, "Jz", coll_node_new(COLL_UNIVERSE), &err), 0);
	CHECK_INT(coll_store_rename(f.st, COLL_NS_COLLECTIONS, "Jz", "All Media", &err), -1);
	CHECK_INT(err.code, CRATE_ERR_REFUSED);
	CHECK_STR(err.msg, "'All Media' is built in: Collections/Jz cannot take its name");
	CHECK_INT(coll_store_remove(f.st, COLL_NS_COLLECTIONS, "All Media", true, &err), -1);
	CHECK_INT(err.code, CRATE_ERR_REFUSED);
	/* Playlists only take lists. */
	CHECK_INT(save(&f, COLL_NS_PLAYLISTS, "Q", coll_filter_new(COLL_HAS, "title", NULL, NULL),
		       &err),
		  -1);
	CHECK_INT(err.code, CRATE_ERR_INVALID);
	CHECK_MSG(strstr(err.msg, "Playlists/Q") != NULL, "%s", err.msg);
	CHECK_INT(save(&f, "Elsewhere", "Q", coll_node_new(COLL_UNIVERSE), &err), -1);
	CHECK_INT(save(&f, COLL_NS_COLLECTIONS, "", coll_node_new(COLL_UNIVERSE), &err), -1);
	CHECK_INT(save(&f, COLL_NS_COLLECTIONS, "bad\x1b[2J", coll_node_new(COLL_UNIVERSE), &err),
		  -1);
	CHECK_INT(save(&f, COLL_NS_COLLECTIONS, "bad\xff", coll_node_new(COLL_UNIVERSE), &err), -1);
	/* The active playlist cannot be removed; another one can. */
	CHECK_INT(coll_store_remove(f.st, COLL_NS_PLAYLISTS, "Default", true, &err), -1);
	CHECK_INT(err.code, CRATE_ERR_REFUSED);
	save_ok(&f, COLL_NS_PLAYLISTS, "Other", coll_node_new(COLL_IDLIST));
	CHECK_INT(coll_store_set_active_playlist(f.st, "Missing", &err), -1);
	CHECK_INT(coll_store_set_active_playlist(f.st, "Other", &err), 0);
	fx_reopen(&f);
	CHECK_STR(coll_store_active_playlist(f.st), "Other");
	CHECK_INT(coll_store_remove(f.st, COLL_NS_PLAYLISTS, "Default", false, &err), 0);
	CHECK_INT(coll_store_remove(f.st, COLL_NS_PLAYLISTS, "Other", false, &err), -1);
	fx_reopen(&f);
	CHECK(coll_store_get(f.st, COLL_NS_PLAYLISTS, "Default") == NULL); /* not resurrected */
	fx_done(&f);
}

TEST(store_name_split)
{
	struct crate_err err = {0};
	char *ns, *name;
	REQUIRE(coll_name_split("Rock 90s", &ns, &name, &err) == 0);
	CHECK_STR(ns, "Collections");
	CHECK_STR(name, "Rock 90s");
	free(ns);
	free(name);
	REQUIRE(coll_name_split("Playlists/Road/Trip", &ns, &name, &err) == 0);
	CHECK_STR(ns, "Playlists");
	CHECK_STR(name, "Road/Trip");
	free(ns);
	free(name);
	CHECK_INT(coll_name_split("Nope/x", &ns, &name, &err), -1);
	CHECK_MSG(strstr(err.msg, "unknown namespace 'Nope'") != NULL, "%s", err.msg);
	CHECK(ns == NULL && name == NULL);
	CHECK_INT(coll_name_split("Playlists/", &ns, &name, &err), -1);
	CHECK_INT(coll_name_split("", &ns, &name, &err), -1);
}

TEST(store_playlist_edits_persist_and_track_position)
{
	struct fixture f = {0};
	fx_open(&f);
	struct crate_err err = {0};
	uint32_t a[] = {10, 20, 30};
	REQUIRE(coll_store_playlist_insert(f.st, "Default", 0, a, 3, &err) == 0);
	uint32_t b[] = {15};
	REQUIRE(coll_store_playlist_insert(f.st, "Default", 1, b, 1, &err) == 0);
	uint32_t e1[] = {10, 15, 20, 30};
	CHECK(ids_are(coll_store_get(f.st, COLL_NS_PLAYLISTS, "Default"), e1, 4));
	REQUIRE(coll_store_playlist_move(f.st, "Default", 3, 0, &err) == 0);
	uint32_t e2[] = {30, 10, 15, 20};
	CHECK(ids_are(coll_store_get(f.st, COLL_NS_PLAYLISTS, "Default"), e2, 4));
	REQUIRE(coll_store_playlist_remove(f.st, "Default", 1, 2, &err) == 0);
	uint32_t e3[] = {30, 20};
	fx_reopen(&f);
	CHECK(ids_are(coll_store_get(f.st, COLL_NS_PLAYLISTS, "Default"), e3, 2));
	/* Out of range: refused, list unchanged. */
	CHECK_INT(coll_store_playlist_insert(f.st, "Default", 3, b, 1, &err), -1);
	CHECK_INT(err.code, CRATE_ERR_INVALID);
	CHECK_INT(coll_store_playlist_remove(f.st, "Default", 1, 2, &err), -1);
	CHECK_INT(coll_store_playlist_move(f.st, "Default", 0, 2, &err), -1);
	CHECK_INT(coll_store_playlist_insert(f.st, "Nope", 0, b, 1, &err), -1);
	CHECK_INT(err.code, CRATE_ERR_NOTFOUND);
	CHECK(ids_are(coll_store_get(f.st, COLL_NS_PLAYLISTS, "Default"), e3, 2));

	/* position follows the current entry. */
	uint32_t ids[] = {1, 2, 3, 4, 5, 6};
	struct coll_node *l = list_of(ids, 6);
	coll_attr_set(l, "position", "2"); /* entry 3 */
	save_ok(&f, COLL_NS_PLAYLISTS, "P", l);
#define POS() coll_attr_get(coll_store_get(f.st, COLL_NS_PLAYLISTS, "P"), "position")
	REQUIRE(coll_store_playlist_insert(f.st, "P", 0, b, 1, &err) == 0); /* 15,1,2,[3] */
	CHECK_STR(POS(), "3");
	REQUIRE(coll_store_playlist_insert(f.st, "P", 6, b, 1, &err) == 0); /* after: same */
	CHECK_STR(POS(), "3");
	REQUIRE(coll_store_playlist_move(f.st, "P", 3, 0, &err) == 0); /* [3],15,1,2 */
	CHECK_STR(POS(), "0");
	REQUIRE(coll_store_playlist_move(f.st, "P", 2, 1, &err) == 0); /* [3],1,15,2 */
	CHECK_STR(POS(), "0");
	REQUIRE(coll_store_playlist_move(f.st, "P", 1, 0, &err) == 0); /* 1,[3],15 */
	CHECK_STR(POS(), "1");
	REQUIRE(coll_store_playlist_remove(f.st, "P", 0, 1, &err) == 0); /* [3],15,2,... */
	CHECK_STR(POS(), "0");
	REQUIRE(coll_store_playlist_remove(f.st, "P", 0, 2, &err) == 0); /* current gone */
	CHECK_STR(POS(), "0");
	fx_reopen(&f);
	CHECK_STR(POS(), "0");
	uint32_t e4[] = {2, 4, 5, 15, 6};
	CHECK(ids_are(coll_store_get(f.st, COLL_NS_PLAYLISTS, "P"), e4, 5));
#undef POS
	fx_done(&f);
}

TEST(store_references_seen_by_other_connections)
{
	/* Two stores on one file (as the UI and a CLI command would be): a
	 * save by one is there when the other reopens; the file is sound. */
	struct fixture f = {0}, g = {0};
	fx_open(&f);
	g.path = xstrdup(f.path);
	fx_open(&g);
	save_ok(&g, COLL_NS_COLLECTIONS, "From g", coll_node_new(COLL_UNIVERSE));
	save_ok(&f, COLL_NS_COLLECTIONS, "From f", coll_node_new(COLL_UNIVERSE));
	fx_reopen(&f);
	CHECK(coll_store_get(f.st, COLL_NS_COLLECTIONS, "From g") != NULL);
	CHECK(coll_store_get(f.st, COLL_NS_COLLECTIONS, "From f") != NULL);
	struct crate_err err = {0};
	CHECK_INT(mlib_db_check(f.db, &err), 0);
	fx_done(&g);
	fx_done(&f);
}

TEST(store_writes_catch_up_with_other_processes)
{
	/* f holds a stale view while g (another process, as far as SQLite
	 * is concerned) changes things: f's writes must build on g's. */
	struct fixture f = {0}, g = {0};
	fx_open(&f);
	g.path = xstrdup(f.path);
	fx_open(&g);
	struct crate_err err = {0};
	save_ok(&f, COLL_NS_COLLECTIONS, "Stable", coll_node_new(COLL_UNIVERSE));
	bool changed = false;
	REQUIRE(coll_store_refresh(g.st, &changed, &err) == 0);
	CHECK(changed);
	const struct coll_node *stable = coll_store_get(f.st, COLL_NS_COLLECTIONS, "Stable");

	uint32_t a[] = {1, 2, 3}, nine = 9, four = 4;
	REQUIRE(coll_store_playlist_insert(g.st, "Default", 0, a, 3, &err) == 0);
	REQUIRE(coll_store_playlist_insert(f.st, "Default", SIZE_MAX, &nine, 1, &err) == 0);
	uint32_t e1[] = {1, 2, 3, 9};
	CHECK(ids_are(coll_store_get(f.st, COLL_NS_PLAYLISTS, "Default"), e1, 4));
	/* The player's position update must not undo g's next insert. */
	REQUIRE(coll_store_playlist_set_attr(f.st, "Default", "position", "1", &err) == 0);
	REQUIRE(coll_store_playlist_insert(g.st, "Default", 0, &four, 1, &err) == 0);
	REQUIRE(coll_store_playlist_set_attr(f.st, "Default", "position", "3", &err) == 0);
	const struct coll_node *d = coll_store_get(f.st, COLL_NS_PLAYLISTS, "Default");
	uint32_t e2[] = {4, 1, 2, 3, 9};
	CHECK(ids_are(d, e2, 5));
	CHECK_STR(coll_attr_get(d, "position"), "3");
	CHECK_INT(coll_store_playlist_set_attr(f.st, "Default", "type", "queue", &err), -1);

	/* A reference to what only g saved is accepted by f. */
	save_ok(&g, COLL_NS_COLLECTIONS, "From g", coll_filter_new(COLL_HAS, "title", NULL, NULL));
	save_ok(&f, COLL_NS_COLLECTIONS, "Uses g", ref_new(COLL_NS_COLLECTIONS, "From g"));
	/* g sees f's reference: a cycle through it is refused. */
	CHECK_INT(save(&g, COLL_NS_COLLECTIONS, "From g", ref_new(COLL_NS_COLLECTIONS, "Uses g"),
		       &err),
		  -1);
	CHECK_MSG(strstr(err.msg, "cycle") != NULL, "%s", err.msg);
	save_ok(&g, COLL_NS_COLLECTIONS, "From g", coll_filter_new(COLL_HAS, "album", NULL, NULL));
	const char *field = coll_attr_get(coll_store_get(f.st, COLL_NS_COLLECTIONS, "From g"),
					  "field");
	CHECK_STR(field, "title"); /* f has not looked yet */
	REQUIRE(coll_store_refresh(f.st, &changed, &err) == 0);
	CHECK(changed);
	field = coll_attr_get(coll_store_get(f.st, COLL_NS_COLLECTIONS, "From g"), "field");
	CHECK_STR(field, "album");
	/* Unchanged collections keep their root across a reload. */
	CHECK(coll_store_get(f.st, COLL_NS_COLLECTIONS, "Stable") == stable);
	REQUIRE(coll_store_refresh(f.st, &changed, &err) == 0);
	CHECK(!changed);
	/* Active playlist and removal seen through the reload. */
	save_ok(&g, COLL_NS_PLAYLISTS, "Other", coll_node_new(COLL_IDLIST));
	REQUIRE(coll_store_set_active_playlist(g.st, "Other", &err) == 0);
	CHECK_INT(coll_store_remove(f.st, COLL_NS_PLAYLISTS, "Other", false, &err), -1);
	CHECK_INT(err.code, CRATE_ERR_REFUSED);
	CHECK_STR(coll_store_active_playlist(f.st), "Other");
	fx_done(&g);
	fx_done(&f);
}

/* Issue 14 item 1: pointers the store hands out, used across a write that
 * first reloads what another connection committed (a scan's commit in the
 * UI, another `crate` process). The active name stays valid and equal; a
 * name, an id array or a root borrowed from the store may be passed to a
 * write (each is copied before the store changes). Under ASan the old
 * code failed with heap-use-after-free in entry_find. */
TEST(store_borrowed_pointers_survive_another_process_commit)
{
	struct fixture f = {0}, g = {0};
	fx_open(&f);
	g.path = xstrdup(f.path);
	fx_open(&g);
	struct crate_err err = {0};
	uint32_t ids[] = {5, 6, 7};
	save_ok(&f, COLL_NS_PLAYLISTS, "Source", list_of(ids, 3));
	bool changed;
	REQUIRE(coll_store_refresh(g.st, &changed, &err) == 0);

	/* The active name across another connection's commit. */
	const char *active = coll_store_active_playlist(f.st);
	REQUIRE(active != NULL);
	save_ok(&g, COLL_NS_COLLECTIONS, "Noise 1", coll_node_new(COLL_UNIVERSE));
	uint32_t one = 1;
	CHECK_MSG(coll_store_playlist_insert(f.st, active, 0, &one, 1, &err) == 0, "insert: %s",
		  err.msg);
	CHECK_MSG(coll_store_active_playlist(f.st) == active,
		  "the active name moved although the active playlist did not change");
	CHECK_STR(active, "Default");

	/* It stays valid even when another process switches playlists. */
	save_ok(&g, COLL_NS_PLAYLISTS, "Road", coll_node_new(COLL_IDLIST));
	REQUIRE(coll_store_set_active_playlist(g.st, "Road", &err) == 0);
	REQUIRE(coll_store_refresh(f.st, &changed, &err) == 0);
	CHECK_STR(coll_store_active_playlist(f.st), "Road");
	CHECK_STR(active, "Default");
	REQUIRE(coll_store_set_active_playlist(f.st, active, &err) == 0);
	CHECK(coll_store_active_playlist(f.st) == active); /* the kept copy again */

	/* Ids inside a borrowed root that another process then changes. */
	const struct coll_node *src = coll_store_get(f.st, COLL_NS_PLAYLISTS, "Source");
	REQUIRE(src != NULL && src->idlist.n == 3);
	uint32_t other[] = {8};
	REQUIRE(coll_store_playlist_insert(g.st, "Source", 0, other, 1, &err) == 0);
	CHECK_MSG(coll_store_playlist_insert(f.st, "Default", SIZE_MAX, src->idlist.v,
					     src->idlist.n, &err) == 0,
		  "insert: %s", err.msg);
	uint32_t want[] = {1, 5, 6, 7};
	CHECK(ids_are(coll_store_get(f.st, COLL_NS_PLAYLISTS, "Default"), want, 4));

	/* A borrowed root saved under another name, and a name inside a
	 * borrowed root used as an argument, across others' commits. */
	src = coll_store_get(f.st, COLL_NS_PLAYLISTS, "Source");
	REQUIRE(coll_store_playlist_insert(g.st, "Source", 0, other, 1, &err) == 0);
	CHECK_MSG(coll_store_save(f.st, COLL_NS_PLAYLISTS, "Copy", (struct coll_node *)src, &err) == 0,
		  "save: %s", err.msg);
	REQUIRE(coll_store_playlist_set_attr(f.st, "Source", "jumplist", "Road", &err) == 0);
	const char *jump = coll_attr_get(coll_store_get(f.st, COLL_NS_PLAYLISTS, "Source"),
					 "jumplist");
	REQUIRE(coll_store_playlist_insert(g.st, "Source", 0, other, 1, &err) == 0);
	CHECK_MSG(coll_store_playlist_set_attr(f.st, jump, "jumplist", "Default", &err) == 0,
		  "set_attr: %s", err.msg);
	fx_done(&g);
	fx_done(&f);
}

/* A chain of n complement nodes over a universe: n + 1 levels. */
static struct coll_node *chain(int n)
{
	struct coll_node *t = coll_node_new(COLL_UNIVERSE);
	for (int i = 0; i < n; i++) {
		struct coll_node *c = coll_node_new(COLL_COMPLEMENT);
		coll_node_add_operand(c, t);
		coll_node_unref(t);
		t = c;
	}
	return t;
}

/* Issue 14 item 2: one depth rule for parser, store and loader; a save
 * that could not be read back is refused; an unreadable row is reported
 * and skipped (the rest opens) and can be removed. */
TEST(store_depth_rule_and_unreadable_rows)
{
	/* The parser refuses the tree the old code saved and could not read. */
	struct strbuf q;
	strbuf_init(&q, 2048);
	for (int i = 0; i < 255; i++)
		strbuf_adds(&q, "NOT ");
	strbuf_adds(&q, "a:x");
	struct crate_err err = {0};
	struct coll_node *parsed = coll_parse(q.buf, q.len, NULL, &err);
	CHECK_MSG(parsed == NULL, "255 NOTs over a filter (257 levels) parsed");
	CHECK_MSG(strstr(err.msg, "deeper than 256") != NULL, "%s", err.msg);
	coll_node_unref(parsed);
	strbuf_free(&q);

	struct fixture f = {0};
	fx_open(&f);
	/* Exactly the limit saves and reads back; one more is refused. */
	save_ok(&f, COLL_NS_COLLECTIONS, "Deepest", chain(COLL_MAX_DEPTH - 1));
	crate_err_clear(&err);
	CHECK_INT(save(&f, COLL_NS_COLLECTIONS, "Too deep", chain(COLL_MAX_DEPTH), &err), -1);
	CHECK_MSG(strstr(err.msg, "read back") != NULL, "%s", err.msg);
	/* remove --force would inline Deepest under a referrer: too deep. */
	struct coll_node *u = coll_node_new(COLL_UNION);
	struct coll_node *r = ref_new(COLL_NS_COLLECTIONS, "Deepest");
	coll_node_add_operand(u, r);
	coll_node_unref(r);
	save_ok(&f, COLL_NS_COLLECTIONS, "Uses deepest", u);
	crate_err_clear(&err);
	CHECK_INT(coll_store_remove(f.st, COLL_NS_COLLECTIONS, "Deepest", true, &err), -1);
	CHECK_MSG(strstr(err.msg, "deeper") != NULL, "%s", err.msg);
	CHECK(coll_store_get(f.st, COLL_NS_COLLECTIONS, "Deepest") != NULL);
	fx_reopen(&f);
	CHECK(coll_store_get(f.st, COLL_NS_COLLECTIONS, "Deepest") != NULL);
	CHECK_INT(coll_store_unreadable(f.st, 0, NULL, NULL, NULL), 0);

	/* Rows another version (or a hand) wrote: too deep, not JSON, a bad
	 * name. Everything else still opens. */
	sqlite3 *db = mlib_db_sqlite(f.db);
	struct strbuf deep;
	strbuf_init(&deep, 1 << 14);
	for (int i = 0; i < 300; i++)
		strbuf_adds(&deep, "{\"type\":\"complement\",\"operands\":[");
	strbuf_adds(&deep, "{\"type\":\"universe\"}");
	for (int i = 0; i < 300; i++)
		strbuf_adds(&deep, "]}");
	sqlite3_stmt *s;
	REQUIRE(sqlite3_prepare_v2(db, "INSERT INTO coll_saved VALUES ('Collections', ?1, ?2)", -1,
				   &s, NULL) == SQLITE_OK);
	const char *rows[][2] = { { "Deep row", deep.buf }, { "Not json", "{\"type\": " },
				  { "Bad\x01name", "{\"type\":\"universe\"}" } };
	for (size_t i = 0; i < 3; i++) {
		sqlite3_bind_text(s, 1, rows[i][0], -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 2, rows[i][1], -1, SQLITE_STATIC);
		REQUIRE(sqlite3_step(s) == SQLITE_DONE);
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	strbuf_free(&deep);
	fx_close(&f);
	struct crate_err oerr = {0};
	REQUIRE(mlib_db_open(f.path, 0, &f.db, &oerr) == 0);
	int rc = coll_store_open(f.db, &f.st, &oerr);
	CHECK_MSG(rc == 0, "one unreadable row keeps the store closed: %s", oerr.msg);
	REQUIRE(rc == 0);
	CHECK(coll_store_get(f.st, COLL_NS_COLLECTIONS, "Deepest") != NULL);
	CHECK(coll_store_get(f.st, COLL_NS_PLAYLISTS, "Default") != NULL);
	CHECK_INT(coll_store_unreadable(f.st, 0, NULL, NULL, NULL), 3);
	for (size_t i = 0; i < 3; i++) {
		const char *ns, *name, *why;
		coll_store_unreadable(f.st, i, &ns, &name, &why);
		CHECK_MSG(strstr(why, "cannot be read") != NULL && strstr(why, "library.db") != NULL,
			  "%s", why);
		CHECK_MSG(strchr(why, '\x01') == NULL, "control character in the message: %s", why);
	}
	/* ... and coll remove deletes them, for good. */
	CHECK(coll_store_remove(f.st, COLL_NS_COLLECTIONS, "Deep row", false, &err) == 0);
	CHECK(coll_store_remove(f.st, COLL_NS_COLLECTIONS, "Not json", false, &err) == 0);
	CHECK_INT(coll_store_unreadable(f.st, 0, NULL, NULL, NULL), 1);
	fx_reopen(&f);
	CHECK_INT(coll_store_unreadable(f.st, 0, NULL, NULL, NULL), 1);
	fx_done(&f);
}

/* %XX escapes of tests/data/queries.tsv. Owned. */
static char *unescape_query(const char *s, size_t *len)
{
	char *out = xmalloc(strlen(s) + 1);
	size_t n = 0;
	for (size_t i = 0; s[i]; i++) {
		unsigned v;
		if (s[i] == '%' && sscanf(s + i + 1, "%2x", &v) == 1) {
			out[n++] = (char)v;
			i += 2;
		} else {
			out[n++] = s[i];
		}
	}
	out[n] = '\0';
	*len = n;
	return out;
}

/* Random queries near the depth rule: NOT chains, nested parentheses,
 * AND/OR chains, ORDER BY and LIMIT around them. Owned. */
static char *random_query(uint64_t *seed)
{
	static const char *const terms[] = { "a:x", "y>1990", "beat*", "t~love", "g:rock",
					     "#3", "in:Base", "duration<60000", "~\"a b\"" };
	struct strbuf b;
	strbuf_init(&b, 512);
	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
	unsigned r = (unsigned)(*seed >> 33);
	int nots = (int)(r % 4 == 0 ? 240 + r % 30 : r % 8), parens = (int)(r >> 4) % 6;
	for (int i = 0; i < nots; i++)
		strbuf_adds(&b, "NOT ");
	for (int i = 0; i < parens; i++)
		strbuf_addc(&b, '(');
	int nterms = 1 + (int)(r >> 8) % 4;
	for (int i = 0; i < nterms; i++) {
		if (i)
			strbuf_adds(&b, (r >> (12 + i)) & 1 ? " OR " : " AND ");
		strbuf_adds(&b, terms[(r >> (16 + 2 * i)) % (sizeof terms / sizeof terms[0])]);
	}
	for (int i = 0; i < parens; i++)
		strbuf_addc(&b, ')');
	if ((r >> 28) & 1)
		strbuf_adds(&b, " ORDER BY artist, -year");
	return strbuf_steal(&b);
}

/* Save one parsed tree, then check it reads back equal from the database
 * (a fresh store) and prints; returns false (with a check failure). */
static bool parsed_tree_round_trips(struct fixture *f, const char *q, size_t qlen,
				    const struct coll_parse_opts *opts)
{
	struct crate_err err = {0};
	struct coll_node *n = coll_parse(q, qlen, opts, &err);
	if (!n)
		return true; /* refused: nothing to save */
	bool ok = CHECK_MSG(coll_store_save(f->st, COLL_NS_COLLECTIONS, "Prop", n, &err) == 0,
			    "[%s] parses but does not save: %s", q, err.msg);
	if (ok) {
		struct coll_store *fresh = NULL;
		REQUIRE(coll_store_open(f->db, &fresh, &err) == 0);
		const struct coll_node *back = coll_store_get(fresh, COLL_NS_COLLECTIONS, "Prop");
		/* Invalid UTF-8 is saved as U+FFFD (the JSON export's rule), so
		 * only valid text must come back unchanged. */
		ok = CHECK_MSG(back && (!utf8_valid(q, qlen) || coll_node_equal(back, n)),
			       "[%s] reads back different", q);
		ok = CHECK_MSG(coll_store_unreadable(fresh, 0, NULL, NULL, NULL) == 0,
			       "[%s] left an unreadable row", q) && ok;
		char *printed = back ? coll_print(back, &err) : NULL;
		ok = CHECK_MSG(printed != NULL, "[%s] read back does not print: %s", q, err.msg) && ok;
		free(printed);
		coll_store_free(fresh);
	}
	coll_node_unref(n);
	return ok;
}

/* The property of issue 14 ("Also"): every tree the parser accepts can be
 * saved, reloaded and printed: the whole query table, and random queries
 * around the depth limit. */
TEST(store_every_parsed_tree_saves_reloads_and_prints)
{
	struct fixture f = {0};
	fx_open(&f);
	save_ok(&f, COLL_NS_COLLECTIONS, "Base", coll_node_new(COLL_UNIVERSE));
	struct coll_parse_opts opts = {.exists = coll_store_exists, .exists_ud = f.st};
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/data/queries.tsv", harness_srcdir());
	FILE *t = fopen(path, "r");
	REQUIRE(t != NULL);
	char line[8192];
	int tried = 0, failed = 0;
	while (fgets(line, sizeof line, t) && failed < 5) {
		if (strncmp(line, "--- ", 4) == 0)
			continue;
		char *tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab = '\0';
		bool list = strncmp(line, "@list ", 6) == 0;
		size_t len;
		char *q = unescape_query(list ? line + 6 : line, &len);
		struct coll_parse_opts o = opts;
		o.list_context = list;
		failed += !parsed_tree_round_trips(&f, q, len, &o);
		tried++;
		free(q);
	}
	fclose(t);
	CHECK_MSG(tried > 300, "only %d queries in %s", tried, path);
	uint64_t seed = 14;
	for (int i = 0; i < 300 && failed < 5; i++) {
		char *q = random_query(&seed);
		failed += !parsed_tree_round_trips(&f, q, strlen(q), &opts);
		free(q);
	}
	fx_done(&f);
}
