/* Saved collections on a real SQLite file: persistence across reopen,
 * replace/rename/remove semantics, cycle refusal, playlists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/err.h"
#include "coll/node.h"
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
