/* Fuzz target: the collection store reading rows back from a database
 * (coll_store_open in src/coll/store.h), the path every start takes.
 *
 * Input: NUL-separated fields. The first is the stored active playlist's
 * name; then pairs (name, JSON): a name starting with '@' is a playlist
 * (Playlists/, without the '@'), any other a collection. The rows go into
 * coll_saved of a real database file as another version or a hand could
 * have written them: damaged JSON, deep trees, bad names, references to
 * missing collections, cycles.
 *
 * Oracle: the store opens (an unreadable row is skipped and reported with
 * a message, never fatal); every collection it holds prints or fails with a
 * message, exports to JSON that imports equal, and evaluates against a small
 * index or fails with a message (missing reference, cycle); listing,
 * renaming and a forced remove keep the store usable. No crash, leak or
 * hang.
 *
 * Built with -DCRATE_FUZZ_MAIN as a libFuzzer binary (tests/fuzz/fuzz.mk);
 * tests/unit/test_fuzz_regress.c includes this file to replay saved inputs. */
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "base/err.h"
#include "coll/eval.h"
#include "coll/json.h"
#include "coll/node.h"
#include "coll/parse.h"
#include "coll/store.h"
#include "medialib/db.h"
#include "medialib/index.h"

/* One database and one index for every input (opening a database per
 * input would make the fuzzer measure the schema's creation). They stay
 * reachable, so no leak. dir: where the file goes (NULL: $TMPDIR, /tmp). */
static struct mlib_db *fuzz_store_db(const char *dir, const struct mlib_index **index)
{
	static struct mlib_db *db;
	static struct mlib_index *idx;
	static char opened_in[4096];
	if (!dir)
		dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	if (db && strcmp(opened_in, dir) != 0) { /* the unit test's directory changed */
		mlib_db_close(db);
		db = NULL;
	}
	if (!db) {
		char path[4096];
		snprintf(path, sizeof path, "%s/crate-fuzz-store-%ld.db", dir, (long)getpid());
		unlink(path);
		struct crate_err err = {0};
		if (mlib_db_open(path, 0, &db, &err) != 0) {
			fprintf(stderr, "fuzz_store: %s\n", err.msg);
			abort();
		}
		snprintf(opened_in, sizeof opened_in, "%s", dir);
		sqlite3_exec(mlib_db_sqlite(db), "PRAGMA synchronous = OFF", NULL, NULL, NULL);
		/* the store creates its tables on first open */
		struct coll_store *st;
		if (coll_store_open(db, &st, &err) != 0) {
			fprintf(stderr, "fuzz_store: %s\n", err.msg);
			abort();
		}
		coll_store_free(st);
	}
	if (!idx) {
		idx = mlib_index_new();
		static const char *const artists[] = { "x", "Ärger", "beat", "10" };
		for (uint32_t id = 1; id <= 12; id++) {
			mlib_index_add_media(idx, id);
			const char *a = artists[id % 4];
			mlib_index_add_str(idx, id, "artist", a, strlen(a));
			mlib_index_set_int(idx, id, "year", 1985 + id);
			mlib_index_add_str(idx, id, "title", "love song", 9);
		}
		mlib_index_finish(idx);
	}
	*index = idx;
	return db;
}

/* Replace the rows by the input's. */
static void fuzz_store_write_rows(sqlite3 *s, const uint8_t *data, size_t size)
{
	sqlite3_exec(s, "BEGIN; DELETE FROM coll_saved; DELETE FROM coll_setting;", NULL, NULL,
		     NULL);
	sqlite3_stmt *row = NULL, *set = NULL;
	sqlite3_prepare_v2(s, "INSERT OR REPLACE INTO coll_saved(ns, name, json) VALUES (?1, ?2, ?3)",
			   -1, &row, NULL);
	sqlite3_prepare_v2(s, "INSERT INTO coll_setting VALUES ('active_playlist', ?1)", -1, &set,
			   NULL);
	const char *f[3];
	size_t flen[3], nf = 0, start = 0, field = 0;
	for (size_t i = 0; i <= size; i++) {
		if (i < size && data[i] != 0)
			continue;
		const char *p = (const char *)data + start;
		size_t len = i - start;
		start = i + 1;
		if (field++ == 0) {
			sqlite3_bind_text(set, 1, p, (int)len, SQLITE_TRANSIENT);
			sqlite3_step(set);
			continue;
		}
		f[nf] = p;
		flen[nf++] = len;
		if (nf < 2)
			continue;
		bool pl = flen[0] && f[0][0] == '@';
		sqlite3_bind_text(row, 1, pl ? COLL_NS_PLAYLISTS : COLL_NS_COLLECTIONS, -1,
				  SQLITE_STATIC);
		sqlite3_bind_text(row, 2, f[0] + pl, (int)(flen[0] - pl), SQLITE_TRANSIENT);
		sqlite3_bind_text(row, 3, f[1], (int)flen[1], SQLITE_TRANSIENT);
		sqlite3_step(row);
		sqlite3_reset(row);
		nf = 0;
	}
	sqlite3_finalize(row);
	sqlite3_finalize(set);
	sqlite3_exec(s, "COMMIT", NULL, NULL, NULL);
}

/* Print, export + import, evaluate one saved collection. */
static const char *fuzz_store_check_one(struct coll_store *st, const struct mlib_index *idx,
					const char *ns, const char *name)
{
	const struct coll_node *n = coll_store_get(st, ns, name);
	if (!n)
		return fuzz_fail("%s/%s listed but not there", ns, name);
	struct crate_err err = {0};
	char *printed = coll_print(n, &err);
	if (!printed && !err.msg[0])
		return fuzz_fail("%s/%s does not print, without a message", ns, name);
	free(printed);
	char *json = coll_to_json(n, false);
	crate_err_clear(&err);
	struct coll_node *back = coll_from_json(json, strlen(json), &err);
	free(json);
	if (!back)
		return fuzz_fail("%s/%s: its JSON does not import: %s", ns, name, err.msg);
	coll_node_unref(back);
	struct coll_eval_ctx ctx = {.index = idx, .resolve = coll_store_resolve, .resolve_ud = st};
	struct coll_result r = {0};
	crate_err_clear(&err);
	if (coll_eval(&ctx, n, &r, &err) == 0) {
		for (size_t i = 0; i < r.ids.n; i++)
			if (!r.ordered && !mlib_index_has_media(idx, r.ids.v[i]))
				return fuzz_fail("%s/%s: a set holds id %u, not in the library",
						       ns, name, r.ids.v[i]);
		coll_result_free(&r);
	} else if (!err.msg[0]) {
		return fuzz_fail("%s/%s: evaluation failed without a message", ns, name);
	}
	return NULL;
}

/* dir: where the database file goes (NULL: $TMPDIR or /tmp). */
static const char *fuzz_store_check(const uint8_t *data, size_t size, const char *dir)
{
	const struct mlib_index *idx;
	struct mlib_db *db = fuzz_store_db(dir, &idx);
	fuzz_store_write_rows(mlib_db_sqlite(db), data, size);
	struct coll_store *st = NULL;
	struct crate_err err = {0};
	if (coll_store_open(db, &st, &err) != 0)
		return fuzz_fail("the store does not open: %s", err.msg);
	const char *why = NULL;
	const char *bad_why;
	for (size_t i = 0; i < coll_store_unreadable(st, i, NULL, NULL, &bad_why); i++)
		if (!bad_why || !bad_why[0])
			why = fuzz_fail("an unreadable row without a message");
	const char *active = coll_store_active_playlist(st);
	if (!why && (!active || !coll_store_get(st, COLL_NS_PLAYLISTS, active)))
		why = fuzz_fail("the active playlist '%s' does not exist", active ? active : "");
	static const char *const nss[] = { COLL_NS_COLLECTIONS, COLL_NS_PLAYLISTS };
	char *first = NULL;
	for (int k = 0; k < 2 && !why; k++) {
		char **names;
		size_t n = coll_store_list(st, nss[k], &names);
		for (size_t i = 0; i < n; i++) {
			if (!why)
				why = fuzz_store_check_one(st, idx, nss[k], names[i]);
			if (k == 0 && !first)
				first = names[i];
			else
				free(names[i]);
		}
		free(names);
	}
	/* Changing a store opened from such rows keeps it usable. */
	if (!why && first) {
		crate_err_clear(&err);
		if (coll_store_rename(st, COLL_NS_COLLECTIONS, first, "Fuzz renamed", &err) == 0)
			coll_store_remove(st, COLL_NS_COLLECTIONS, "Fuzz renamed", true, &err);
		struct coll_node *q = coll_parse("a:x OR y>1990", 13, NULL, &err);
		if (q && coll_store_save(st, COLL_NS_COLLECTIONS, "Fuzz saved", q, &err) != 0 &&
		    !err.msg[0])
			why = fuzz_fail("a save failed without a message");
		coll_node_unref(q);
	}
	free(first);
	coll_store_free(st);
	return why;
}

#ifdef CRATE_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = fuzz_store_check(data, size, NULL);
	if (why) {
		fprintf(stderr, "fuzz_store oracle: %s\n", why);
		abort();
	}
	return 0;
}
#endif
