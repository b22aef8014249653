/* Data-driven evaluator tests in the shape of XMMS2's medialib tests:
 * every tests/data/eval/NAME.json holds
 *   {"medialib": [{"id": 1, "artist": "...", "tracknr": 3, "genre": ["a", "b"]}, ...],
 *    "collection": {collection JSON, spec/collections.md},
 *    "expected": [ids] | {"type": "set"|"list", "ids": [...]} | {"error": true},
 *    "now": optional Unix seconds}
 * Integers become integer properties, strings string properties, arrays
 * multi-valued ones. The JSON is read with SQLite's JSON1 functions and the
 * collection with coll_from_json_db (src/coll/json.c). */
#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/eval.h"
#include "coll/json.h"
#include "harness.h"
#include "medialib/index.h"

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/* Build the index from "medialib": one row per (item, key, value). */
static struct mlib_index *load_medialib(sqlite3 *db, const char *doc, const char *name)
{
	static const char *sql =
		"SELECT json_extract(item.value, '$.id'), prop.key, prop.type, prop.value, "
		"       prop.atom "
		"FROM json_each(?1, '$.medialib') AS item, json_each(item.value) AS prop "
		"ORDER BY item.id, prop.id";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, doc, -1, SQLITE_STATIC);
	struct mlib_index *idx = mlib_index_new();
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t id = (uint32_t)sqlite3_column_int64(st, 0);
		const char *key = (const char *)sqlite3_column_text(st, 1);
		const char *type = (const char *)sqlite3_column_text(st, 2);
		mlib_index_add_media(idx, id);
		if (strcmp(key, "id") == 0)
			continue;
		if (strcmp(type, "integer") == 0) {
			mlib_index_set_int(idx, id, key, sqlite3_column_int64(st, 3));
		} else if (strcmp(type, "array") == 0) {
			sqlite3_stmt *vals;
			sqlite3_prepare_v2(db, "SELECT value FROM json_each(?1)", -1, &vals, NULL);
			sqlite3_bind_text(vals, 1, (const char *)sqlite3_column_text(st, 3), -1,
					  SQLITE_TRANSIENT);
			while (sqlite3_step(vals) == SQLITE_ROW) {
				const char *v = (const char *)sqlite3_column_text(vals, 0);
				mlib_index_add_str(idx, id, key, v, strlen(v));
			}
			sqlite3_finalize(vals);
		} else {
			const char *v = (const char *)sqlite3_column_text(st, 3);
			mlib_index_add_str(idx, id, key, v, strlen(v));
		}
	}
	sqlite3_finalize(st);
	mlib_index_finish(idx);
	(void)name;
	return idx;
}

static int64_t json_int(sqlite3 *db, const char *doc, const char *path, int64_t dflt)
{
	sqlite3_stmt *st;
	int64_t v = dflt;
	sqlite3_prepare_v2(db, "SELECT json_extract(?1, ?2)", -1, &st, NULL);
	sqlite3_bind_text(st, 1, doc, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* "1 2 3 " from the expected ids; *kind receives "set", "list", "any" or "error". */
static void expected_ids(sqlite3 *db, const char *doc, char *out, size_t size, char *kind,
			 size_t ksize)
{
	sqlite3_stmt *st;
	sqlite3_prepare_v2(db,
			   "SELECT json_type(?1, '$.expected'), "
			   "       coalesce(json_extract(?1, '$.expected.type'), 'any'), "
			   "       coalesce(json_extract(?1, '$.expected.error'), 0)",
			   -1, &st, NULL);
	sqlite3_bind_text(st, 1, doc, -1, SQLITE_STATIC);
	sqlite3_step(st);
	bool is_array = strcmp((const char *)sqlite3_column_text(st, 0), "array") == 0;
	snprintf(kind, ksize, "%s",
		 sqlite3_column_int(st, 2) ? "error"
		 : is_array		   ? "any"
					   : (const char *)sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	sqlite3_prepare_v2(db, is_array ? "SELECT value FROM json_each(?1, '$.expected')"
					: "SELECT value FROM json_each(?1, '$.expected.ids')",
			   -1, &st, NULL);
	sqlite3_bind_text(st, 1, doc, -1, SQLITE_STATIC);
	out[0] = '\0';
	while (sqlite3_step(st) == SQLITE_ROW)
		snprintf(out + strlen(out), size - strlen(out), "%lld ",
			 (long long)sqlite3_column_int64(st, 0));
	sqlite3_finalize(st);
}

static int run_case(sqlite3 *db, const char *path, const char *name)
{
	size_t len;
	char *doc = read_all(path, &len);
	if (!CHECK_MSG(doc != NULL, "%s: cannot read", name))
		return 0;
	struct mlib_index *idx = load_medialib(db, doc, name);
	if (!CHECK_MSG(idx != NULL, "%s: medialib unreadable", name)) {
		free(doc);
		return 0;
	}
	sqlite3_stmt *st;
	sqlite3_prepare_v2(db, "SELECT json_extract(?1, '$.collection')", -1, &st, NULL);
	sqlite3_bind_text(st, 1, doc, -1, SQLITE_STATIC);
	sqlite3_step(st);
	const char *cj = (const char *)sqlite3_column_text(st, 0);
	struct crate_err err = { 0 };
	struct coll_node *coll = cj ? coll_from_json_db(db, cj, strlen(cj), &err) : NULL;
	sqlite3_finalize(st);
	char want[512], kind[16];
	expected_ids(db, doc, want, sizeof want, kind, sizeof kind);
	int ok = 1;
	if (!coll) {
		ok = CHECK_MSG(strcmp(kind, "error") == 0, "%s: collection unreadable: %s", name,
			       err.msg);
	} else {
		struct coll_eval_ctx ctx = { .index = idx, .now = json_int(db, doc, "$.now", 1720000000) };
		struct coll_result r;
		if (coll_eval(&ctx, coll, &r, &err) < 0) {
			ok = CHECK_MSG(strcmp(kind, "error") == 0, "%s: evaluation failed: %s", name,
				       err.msg);
		} else {
			char got[512] = "";
			for (size_t i = 0; i < r.ids.n; i++)
				snprintf(got + strlen(got), sizeof got - strlen(got), "%u ", r.ids.v[i]);
			ok = CHECK_MSG(strcmp(kind, "error") != 0, "%s: should fail, gave [%s]", name, got);
			ok = ok && CHECK_MSG(strcmp(got, want) == 0, "%s: [%s] != expected [%s]", name, got,
					     want);
			if (strcmp(kind, "set") == 0 || strcmp(kind, "list") == 0)
				ok = ok && CHECK_MSG(r.ordered == (strcmp(kind, "list") == 0),
						     "%s: result is a %s, expected a %s", name,
						     r.ordered ? "list" : "set", kind);
			coll_result_free(&r);
		}
		coll_node_unref(coll);
	}
	mlib_index_free(idx);
	free(doc);
	return ok;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

TEST(data_driven_cases)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/tests/data/eval", harness_srcdir());
	DIR *d = opendir(dir);
	REQUIRE(d != NULL);
	char *names[512];
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < 512) {
		size_t l = strlen(de->d_name);
		if (l > 5 && strcmp(de->d_name + l - 5, ".json") == 0)
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, name_cmp);
	CHECK_MSG(n >= 30, "only %zu cases in %s", n, dir);
	sqlite3 *db;
	REQUIRE(sqlite3_open(":memory:", &db) == SQLITE_OK);
	size_t passed = 0;
	for (size_t i = 0; i < n; i++) {
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		passed += (size_t)run_case(db, path, names[i]);
		free(names[i]);
	}
	CHECK_INT(passed, n);
	sqlite3_close(db);
}
