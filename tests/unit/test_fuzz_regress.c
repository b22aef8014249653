/* Replays every input the fuzzers ever crashed on (tests/fuzz/regress/<target>/)
 * and the committed seeds (tests/fuzz/seeds/<target>/) through the same
 * oracles the libFuzzer targets use (tests/fuzz/fuzz_*.c, included here),
 * so a fixed crash stays fixed in the ordinary test run (gcc, and ASan in
 * `make check-asan`). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include "base/str.h"

#include "../fuzz/fuzz_json.c"
#include "../fuzz/fuzz_parse.c"
#include "../fuzz/fuzz_tags.c"
#include "../fuzz/fuzz_snapshot.c"
#include "../fuzz/fuzz_store.c"
#include "../fuzz/fuzz_cue.c"
#include "../fuzz/fuzz_plfile.c"
#include "../fuzz/fuzz_text.c"

/* The whole file, owned by the caller; NULL when unreadable. */
static uint8_t *read_input(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	*len = n;
	return buf;
}

enum target { T_PARSE, T_JSON, T_TAGS, T_SNAPSHOT, T_STORE, T_CUE, T_PLFILE, T_TEXT };

/* Run every file of tests/fuzz/<kind>/<name>/ through the target's oracle;
 * returns how many inputs ran. */
static int replay_dir(const char *kind, const char *name, enum target t)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/tests/fuzz/%s/%s", harness_srcdir(), kind, name);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int ran = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		size_t len = 0;
		uint8_t *data = read_input(path, &len);
		if (!CHECK_MSG(data != NULL, "cannot read %s", path))
			continue;
		const char *why = t == T_PARSE	  ? fuzz_parse_check(data, len)
				  : t == T_JSON	  ? fuzz_json_check(data, len)
				  : t == T_TAGS	  ? fuzz_tags_check(data, len, harness_tmpdir())
				  : t == T_STORE  ? fuzz_store_check(data, len, harness_tmpdir())
				  : t == T_CUE	  ? fuzz_cue_check(data, len)
				  : t == T_PLFILE ? fuzz_plfile_check(data, len)
				  : t == T_TEXT	  ? fuzz_text_check(data, len)
						  : fuzz_snapshot_check(data, len, harness_tmpdir());
		CHECK_MSG(why == NULL, "%s/%s/%s: %s", kind, name, e->d_name, why);
		free(data);
		ran++;
	}
	closedir(d);
	return ran;
}

/* A target's regressions and seeds replayed; there must be some. */
static void replay_target(const char *name, enum target t)
{
	int n = replay_dir("regress", name, t) + replay_dir("seeds", name, t);
	CHECK_MSG(n > 0, "no %s inputs found under tests/fuzz", name);
}

TEST(fuzz_regress_parse)
{
	replay_target("parse", T_PARSE);
}

TEST(fuzz_regress_parse_builtin)
{
	/* inputs that once broke the parser, kept here as well as files */
	static const char *const qs[] = {
		"a ORDER BY -Random",
		"((((((((((a))))))))))",
		"\"",
		"a:\\",
		"#1-",
		"in:\"",
		"x AND",
	};
	for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
		const char *why = fuzz_parse_check((const uint8_t *)qs[i], strlen(qs[i]));
		CHECK_MSG(why == NULL, "[%s]: %s", qs[i], why);
	}
}

TEST(fuzz_regress_parse_deep_nesting)
{
	/* 10,000 nested parentheses: an error, not a stack overflow */
	size_t depth = 10000, len = 2 * depth + 1;
	char *q = malloc(len + 1);
	REQUIRE(q != NULL);
	memset(q, '(', depth);
	q[depth] = 'a';
	memset(q + depth + 1, ')', depth);
	q[len] = '\0';
	struct crate_err err = {0};
	struct coll_parse_opts opts = {0};
	struct coll_node *n = coll_parse(q, len, &opts, &err);
	CHECK(n == NULL);
	CHECK_INT(err.code, CRATE_ERR_PARSE);
	CHECK_MSG(strstr(err.msg, "col ") != NULL, "message without a column: %s", err.msg);
	coll_node_unref(n);
	/* and unbalanced: only openings */
	q[depth] = '\0';
	crate_err_clear(&err);
	n = coll_parse(q, depth, &opts, &err);
	CHECK(n == NULL);
	CHECK(err.code == CRATE_ERR_PARSE || err.code == CRATE_ERR_INCOMPLETE);
	coll_node_unref(n);
	free(q);
}

TEST(fuzz_regress_json)
{
	replay_target("json", T_JSON);
}

TEST(fuzz_regress_json_deep_nesting)
{
	/* far deeper than COLL_JSON_MAX_DEPTH: refused with a message */
	struct strbuf b;
	strbuf_init(&b, 1 << 16);
	for (int i = 0; i < 5000; i++)
		strbuf_adds(&b, "{\"type\":\"complement\",\"operands\":[");
	strbuf_adds(&b, "{\"type\":\"universe\"}");
	for (int i = 0; i < 5000; i++)
		strbuf_adds(&b, "]}");
	struct crate_err err = {0};
	struct coll_node *n = coll_from_json(b.buf, b.len, &err);
	CHECK(n == NULL);
	CHECK(err.msg[0] != '\0');
	coll_node_unref(n);
	CHECK(fuzz_json_check((const uint8_t *)b.buf, b.len) == NULL);
	strbuf_free(&b);
}

TEST(fuzz_regress_tags)
{
	replay_dir("regress", "tags", T_TAGS);
	/* a few small corpus files, each with every extension the target knows */
	const char *corpus = harness_corpus_dir();
	if (!corpus)
		harness_skip("../shared/corpus not found");
	static const char *const files[] = {
		"mutagen-emptyfile.mp3", "taglib-zerodiv.mpc", "taglib-infloop.m4a",
		"mutagen-silence-44-s.mp3", "taglib-empty.ogg", "mutagen-ooming-header.flac",
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", corpus, files[i]);
		size_t len = 0;
		uint8_t *data = read_input(path, &len);
		if (!data)
			continue; /* the corpus may change; the fuzzer covers the rest */
		uint8_t *in = malloc(len + 1);
		REQUIRE(in != NULL);
		memcpy(in + 1, data, len);
		for (unsigned ext = 0; ext < FUZZ_TAGS_NEXTS; ext += 3) {
			in[0] = (uint8_t)ext;
			const char *why = fuzz_tags_check(in, len + 1, harness_tmpdir());
			CHECK_MSG(why == NULL, "%s as .%s: %s", files[i], fuzz_tags_exts[ext], why);
		}
		free(in);
		free(data);
	}
}

TEST(fuzz_regress_snapshot)
{
	replay_target("snapshot", T_SNAPSHOT);
}

/* The store's seeds include a cycle, damaged JSON, a bad name and a tree
 * deeper than COLL_MAX_DEPTH: each opens with the rest readable. */
TEST(fuzz_regress_store)
{
	replay_target("store", T_STORE);
}

/* Cue sheets: a message quoting a long line of Latin-1 junk was cut inside
 * a character (not UTF-8) by a fixed buffer before crate_err could shorten
 * it at a boundary. */
TEST(fuzz_regress_cue)
{
	replay_target("cue", T_CUE);
}

/* Playlist files: the seeds (tests/data/playlists) read, written and
 * read back; an empty PLS sorted a NULL array (undefined: the sanitizer
 * build stopped on it); a URL holding a control character was written to
 * M3U with a space there, so export and import changed the entry. */
TEST(fuzz_regress_plfile)
{
	replay_target("plfile", T_PLFILE);
}

/* Text for the terminal: fitted, padded, wrapped and folded as the
 * interface does, from the seeds (CJK, an escape sequence in a row). */
TEST(fuzz_regress_text)
{
	replay_target("text", T_TEXT);
}

/* The committed seeds are payloads of real indexes: they must load (else
 * the fuzzer starts from files the loader refuses at once). After a change
 * of the snapshot format, rewrite them:
 *   CRATE_WRITE_FUZZ_SEEDS=1 build/tests/test_fuzz_regress */
TEST(fuzz_snapshot_seeds_load)
{
	const char *write = getenv("CRATE_WRITE_FUZZ_SEEDS");
	for (int which = 0; which < 3; which++) {
		size_t len = 0;
		uint8_t *fresh = fuzz_snapshot_seed(which, harness_tmpdir(), &len);
		REQUIRE(fresh != NULL);
		char path[4096];
		snprintf(path, sizeof path, "%s/tests/fuzz/seeds/snapshot/index-%d", harness_srcdir(),
			 which);
		if (write && *write) {
			FILE *f = fopen(path, "wb");
			REQUIRE(f && fwrite(fresh, 1, len, f) == len);
			fclose(f);
		}
		free(fresh);
		size_t n = 0;
		uint8_t *seed = read_input(path, &n);
		REQUIRE(seed != NULL);
		char snap[4096];
		snprintf(snap, sizeof snap, "%s/seed.index", harness_tmpdir());
		struct crate_err err = {0};
		REQUIRE(fuzz_snapshot_forge(snap, seed, n, &err) == 0);
		struct mlib_index *idx = NULL;
		CHECK_MSG(mlib_index_snapshot_read(snap, &fuzz_snapshot_key, &idx, &err) == 0,
			  "%s no longer loads (%s): rewrite the seeds with "
			  "CRATE_WRITE_FUZZ_SEEDS=1 build/tests/test_fuzz_regress",
			  path, err.msg);
		if (idx) {
			struct mlib_index *want = fuzz_snapshot_seed_index(which);
			CHECK_INT(mlib_index_count(idx), mlib_index_count(want));
			CHECK_INT(mlib_index_prop_count(idx), mlib_index_prop_count(want));
			mlib_index_free(want);
		}
		mlib_index_free(idx);
		free(seed);
	}
}

/* The blobs of a payload: offsets (past the length word) and lengths. */
struct blob { size_t off, len; };
static size_t payload_blobs(const uint8_t *p, size_t n, struct blob *out, size_t max)
{
	size_t k = 0, off = 0;
	while (off + 8 <= n && k < max) {
		uint64_t len;
		memcpy(&len, p + off, 8);
		off += 8;
		out[k].off = off;
		out[k++].len = (size_t)len;
		off += (size_t)len;
	}
	return k;
}

/* Issue 14 item 4: a snapshot whose checksums are right but whose offsets
 * are forged (one dictionary offset, a library rank, a number bit, ...)
 * is refused with a message instead of crashing every start (and a mapped
 * one reads the property as empty and says so). Section layout
 * (index_serialize.c, format 5): head, present, lib_order, then per
 * property 13 blobs: name, head, column, multi, multi_ids, fold, raw,
 * fold_off, raw_off, numbits, num_vid, num_val, rank. */
TEST(forged_snapshot_offsets_are_refused)
{
	size_t n = 0;
	uint8_t *good = fuzz_snapshot_seed(1, harness_tmpdir(), &n);
	REQUIRE(good != NULL);
	struct blob b[256];
	size_t nb = payload_blobs(good, n, b, 256);
	REQUIRE(nb > 3 + 13);
	/* the "artist" property (a string column with numbers: "10", "2") */
	size_t art = 0;
	for (size_t i = 3; i + 13 <= nb; i += 13)
		if (b[i].len == 6 && memcmp(good + b[i].off, "artist", 6) == 0)
			art = i;
	REQUIRE(art != 0);
	uint32_t first_in_order; /* the library order's first id */
	memcpy(&first_in_order, good + b[2].off, 4);
	struct {
		const char *what;
		size_t blob, at; /* blob index, byte offset inside it */
		uint32_t value;
	} forgeries[] = {
		{ "a dictionary offset far past the texts", art + 7, 4, 0x7ffffff0u },
		{ "a dictionary offset just past the texts", art + 7, 4, (uint32_t)b[art + 5].len + 1 },
		{ "offsets going backwards", art + 7, 8, 1 },
		{ "a raw text offset past the raw texts", art + 8, 0, 0x7ffffff0u },
		{ "a value id past the dictionary", art + 2, 4, 1000 },
		{ "a library order id twice", 2, 4, first_in_order },
		{ "a library order id past the bound", 2, 0, 999 },
		{ "a number bit without its number", art + 9, 0, 0xffffffffu },
		{ "a rank past the dictionary", art + 12, 0, 77 },
	};
	char path[4096];
	snprintf(path, sizeof path, "%s/forged.index", harness_tmpdir());
	uint8_t *bad = malloc(n);
	REQUIRE(bad != NULL);
	for (size_t f = 0; f < sizeof forgeries / sizeof forgeries[0]; f++) {
		memcpy(bad, good, n);
		REQUIRE(forgeries[f].blob < nb && forgeries[f].at + 4 <= b[forgeries[f].blob].len);
		memcpy(bad + b[forgeries[f].blob].off + forgeries[f].at, &forgeries[f].value, 4);
		struct crate_err err = {0};
		REQUIRE(fuzz_snapshot_forge(path, bad, n, &err) == 0);
		struct mlib_index *idx = NULL;
		int rc = mlib_index_snapshot_read(path, &fuzz_snapshot_key, &idx, &err);
		CHECK_MSG(rc == -1 && idx == NULL, "%s: accepted", forgeries[f].what);
		CHECK_MSG(strstr(err.msg, "inconsistent") != NULL, "%s: %s", forgeries[f].what,
			  err.msg);
		mlib_index_free(idx);
		/* Mapped in place: refused at once (the item lists) or, once
		 * every property was read, damaged; never a crash meanwhile. */
		idx = NULL;
		crate_err_clear(&err);
		if (mlib_index_snapshot_map(path, &fuzz_snapshot_key, &idx, &err) == 0) {
			CHECK_MSG(fuzz_snapshot_exercise(idx) == NULL, "%s: mapped index unsafe",
				  forgeries[f].what);
			CHECK_MSG(mlib_index_map_damaged(idx), "%s: mapped and not found",
				  forgeries[f].what);
		} else {
			CHECK_MSG(strstr(err.msg, "inconsistent") != NULL, "%s: %s", forgeries[f].what,
				  err.msg);
		}
		mlib_index_free(idx);
	}
	/* the unforged payload loads */
	struct crate_err err = {0};
	REQUIRE(fuzz_snapshot_forge(path, good, n, &err) == 0);
	struct mlib_index *idx = NULL;
	CHECK(mlib_index_snapshot_read(path, &fuzz_snapshot_key, &idx, &err) == 0);
	mlib_index_free(idx);
	free(bad);
	free(good);
}
