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

enum target { T_PARSE, T_JSON, T_TAGS };

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
		const char *why = t == T_PARSE ? fuzz_parse_check(data, len)
				  : t == T_JSON ? fuzz_json_check(data, len)
						: fuzz_tags_check(data, len, harness_tmpdir());
		CHECK_MSG(why == NULL, "%s/%s/%s: %s", kind, name, e->d_name, why);
		free(data);
		ran++;
	}
	closedir(d);
	return ran;
}

TEST(fuzz_regress_parse)
{
	int n = replay_dir("regress", "parse", T_PARSE) + replay_dir("seeds", "parse", T_PARSE);
	CHECK_MSG(n > 0, "no parser inputs found under tests/fuzz");
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
	int n = replay_dir("regress", "json", T_JSON) + replay_dir("seeds", "json", T_JSON);
	CHECK_MSG(n > 0, "no JSON inputs found under tests/fuzz");
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
