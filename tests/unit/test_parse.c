/* coll/parse and coll/print: the table of queries in tests/data/queries.tsv
 * (every row of spec/query-syntax.md), round trips, random trees, errors,
 * hostile input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "base/str.h"
#include "base/utf8.h"
#include "coll/parse.h"
#include "harness.h"
#include "tests/unit/test_parse_sexpr.h"

/* Saved collections the table may reference. */
static bool table_exists(void *ud, const char *ns, const char *name)
{
	(void)ud;
	static const char *const known[][2] = {
		{"Collections", "Rock 90s"}, {"Collections", "Foo"}, {"Collections", "Foo/Bar"},
		{"Collections", "Jazz"},     {"Playlists", "Default"}, {"Playlists", "Road Trip"},
		{"Playlists", "Foo"},
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(known[i][0], ns) == 0 && strcmp(known[i][1], name) == 0)
			return true;
	return false;
}

/* %XX escapes in the table (tabs, newlines, invalid bytes, '%'). */
static size_t unescape(const char *s, char *out)
{
	size_t n = 0;
	for (; *s; s++) {
		unsigned x;
		if (*s == '%' && sscanf(s + 1, "%2x", &x) == 1 && s[1] && s[2]) {
			out[n++] = (char)x;
			s += 2;
		} else {
			out[n++] = *s;
		}
	}
	out[n] = '\0';
	return n;
}

static bool spans_ok(const struct coll_node *n, size_t len)
{
	if (n->span_start < 0 || n->span_end < n->span_start || (size_t)n->span_end > len)
		return false;
	for (size_t i = 0; i < n->noperands; i++)
		if (!spans_ok(n->operands[i], len))
			return false;
	return true;
}

struct row {
	int line;
	char query[1024];
	size_t qlen;
	bool list;
	char expect[2048];
	char print[1024]; /* "" = not checked */
};

static size_t load_rows(struct row **out)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/data/queries.tsv", harness_srcdir());
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	struct row *rows = NULL;
	size_t n = 0;
	char line[4096];
	int lineno = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || strncmp(line, "--- ", 4) == 0)
			continue;
		char *tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab = '\0';
		char *expect = tab + 1, *print = strchr(expect, '\t');
		if (print)
			*print++ = '\0';
		rows = realloc(rows, (n + 1) * sizeof *rows);
		struct row *r = &rows[n++];
		memset(r, 0, sizeof *r);
		r->line = lineno;
		const char *q = line;
		if (strncmp(q, "@list ", 6) == 0) {
			r->list = true;
			q += 6;
		}
		r->qlen = unescape(q, r->query);
		snprintf(r->expect, sizeof r->expect, "%s", expect);
		if (print)
			unescape(print, r->print);
	}
	fclose(f);
	*out = rows;
	return n;
}

TEST(table_of_queries)
{
	struct row *rows = NULL;
	size_t n = load_rows(&rows);
	REQUIRE(n >= 300);
	size_t checked = 0, round_trips = 0;
	for (size_t i = 0; i < n; i++) {
		struct row *r = &rows[i];
		struct coll_parse_opts opts = {.list_context = r->list, .exists = table_exists};
		struct crate_err err;
		struct coll_node *c = coll_parse(r->query, r->qlen, &opts, &err);
		int col;
		char want[2048];
		bool is_err = sscanf(r->expect, "ERR %d", &col) == 1;
		bool is_inc = !is_err && sscanf(r->expect, "INC %d", &col) == 1;
		if (is_err || is_inc) {
			const char *sub = strchr(r->expect + 4, ' ');
			CHECK_MSG(!c, "line %d: '%s' parsed but should fail", r->line, r->query);
			CHECK_MSG(err.code == (is_err ? CRATE_ERR_PARSE : CRATE_ERR_INCOMPLETE),
				  "line %d: '%s': code %d, want %s (%s)", r->line, r->query, err.code,
				  is_err ? "PARSE" : "INCOMPLETE", err.msg);
			CHECK_MSG(err.pos == col, "line %d: '%s': col %d, want %d (%s)", r->line,
				  r->query, err.pos, col, err.msg);
			snprintf(want, sizeof want, "col %d: ", col);
			CHECK_MSG(strncmp(err.msg, want, strlen(want)) == 0,
				  "line %d: message '%s'", r->line, err.msg);
			CHECK_MSG(!sub || strstr(err.msg, sub + 1), "line %d: '%s' lacks '%s'",
				  r->line, err.msg, sub ? sub + 1 : "");
			coll_node_unref(c);
			checked++;
			continue;
		}
		if (!CHECK_MSG(c != NULL, "line %d: '%s' failed: %s", r->line, r->query, err.msg))
			continue;
		char *got = test_sexpr(c);
		CHECK_MSG(strcmp(got, r->expect) == 0, "line %d: '%s'\n    got  %s\n    want %s",
			  r->line, r->query, got, r->expect);
		free(got);
		CHECK_MSG(spans_ok(c, r->qlen), "line %d: bad spans", r->line);
		/* Round trip: parse(print(parse(q))) == parse(q). */
		struct crate_err perr;
		char *text = coll_print(c, &perr);
		if (strcmp(r->print, "!") == 0) {
			CHECK_MSG(!text && perr.code == CRATE_ERR_INVALID &&
					  strstr(perr.msg, "not expressible as text"),
				  "line %d: '%s' should not print (got '%s')", r->line, r->query,
				  text ? text : "");
			free(text);
		} else if (CHECK_MSG(text != NULL, "line %d: '%s' does not print: %s", r->line,
				     r->query, perr.msg)) {
			if (r->print[0])
				CHECK_MSG(strcmp(text, r->print) == 0,
					  "line %d: print\n    got  %s\n    want %s", r->line, text,
					  r->print);
			struct coll_node *again = coll_parse(text, strlen(text), &opts, &err);
			CHECK_MSG(again && coll_node_equal(c, again),
				  "line %d: '%s' printed as '%s' does not parse back equal (%s)",
				  r->line, r->query, text, again ? "differs" : err.msg);
			round_trips += again != NULL;
			coll_node_unref(again);
			free(text);
		}
		coll_node_unref(c);
		checked++;
	}
	CHECK_INT(checked, n);
	CHECK(round_trips >= 200);
	free(rows);
}

TEST(word_is_token_union_over_universe_in_field_order)
{
	struct crate_err err;
	struct coll_node *c = coll_parse("Vibrasphere", 11, NULL, &err);
	REQUIRE(c);
	CHECK_INT(c->type, COLL_UNION);
	REQUIRE(c->noperands == 3);
	const char *fields[] = {"artist", "album", "title"};
	for (int i = 0; i < 3; i++) {
		const struct coll_node *t = c->operands[i];
		CHECK_INT(t->type, COLL_TOKEN);
		CHECK_STR(coll_attr_get(t, "field"), fields[i]);
		CHECK_STR(coll_attr_get(t, "value"), "Vibrasphere");
		REQUIRE(t->noperands == 1);
		CHECK_INT(t->operands[0]->type, COLL_UNIVERSE);
	}
	CHECK_INT(c->span_start, 0);
	CHECK_INT(c->span_end, 11);
	coll_node_unref(c);
}

TEST(spans_point_at_the_text)
{
	const char *q = "a:x OR  t~\"long value\" NOT +genre";
	struct crate_err err;
	struct coll_node *c = coll_parse(q, strlen(q), NULL, &err);
	REQUIRE(c);
	REQUIRE(c->type == COLL_INTERSECTION && c->noperands == 2);
	const struct coll_node *u = c->operands[0], *n = c->operands[1];
	CHECK_INT(u->span_start, 0);
	CHECK_INT(u->span_end, 22);
	CHECK_INT(u->operands[1]->span_start, 8);
	CHECK_INT(n->span_start, 23);
	CHECK_INT(n->operands[0]->span_start, 27);
	CHECK_INT(n->span_end, (int)strlen(q));
	coll_node_unref(c);
}

TEST(error_columns_count_characters_not_bytes)
{
	/* "Björk" has 5 characters in 6 bytes. */
	const char *q = "Björk a:";
	struct crate_err err;
	CHECK(!coll_parse(q, strlen(q), NULL, &err));
	CHECK_INT(err.code, CRATE_ERR_INCOMPLETE);
	CHECK_INT(err.pos, 9);
	CHECK_STR(err.msg, "col 9: expected a value after 'a:'");
}

TEST(deep_nesting_is_an_error_not_a_crash)
{
	size_t n = 10000;
	char *q = malloc(2 * n + 2);
	memset(q, '(', n);
	q[n] = 'x';
	memset(q + n + 1, ')', n);
	struct crate_err err;
	CHECK(!coll_parse(q, 2 * n + 1, NULL, &err));
	CHECK_INT(err.code, CRATE_ERR_PARSE);
	CHECK_INT(err.pos, 257);
	CHECK(strstr(err.msg, "256") != NULL);
	/* 10,000 NOTs, too. */
	char *nots = malloc(4 * n + 2);
	for (size_t i = 0; i < n; i++)
		memcpy(nots + 4 * i, "NOT ", 4);
	nots[4 * n] = 'x';
	CHECK(!coll_parse(nots, 4 * n + 1, NULL, &err));
	CHECK_INT(err.pos, 4 * 256 + 1);
	/* Exactly 256 levels are fine. */
	memset(q, '(', 256);
	q[256] = 'x';
	memset(q + 257, ')', 256);
	struct coll_node *c = coll_parse(q, 513, NULL, &err);
	CHECK(c != NULL);
	coll_node_unref(c);
	free(q);
	free(nots);
}

TEST(random_bytes_never_crash)
{
	/* Every result is either a tree with sane spans or an error with a column. */
	uint32_t seed = 12345;
	static const char alphabet[] = "aA:~!<>=()\"'\\*?#+-,. \t\nORNDTBYLIMFSE0123456789\xc3\xa4\xff\x80/";
	char q[64];
	for (int iter = 0; iter < 20000; iter++) {
		seed = seed * 1103515245u + 12345u;
		size_t len = (seed >> 16) % sizeof q;
		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			q[i] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
		}
		struct crate_err err;
		struct coll_parse_opts opts = {.list_context = iter % 2};
		struct coll_node *c = coll_parse(q, len, &opts, &err);
		if (c) {
			CHECK(spans_ok(c, len));
			/* Whatever parses prints, and prints back to itself. */
			struct crate_err perr;
			char *text = coll_print(c, &perr);
			if (text) {
				struct coll_node *again = coll_parse(text, strlen(text), &opts, &err);
				CHECK_MSG(again && coll_node_equal(c, again), "'%.*s' -> '%s' (%s)",
					  (int)len, q, text, again ? "differs" : err.msg);
				coll_node_unref(again);
				free(text);
			} else {
				CHECK_MSG(false, "'%.*s' does not print: %s", (int)len, q, perr.msg);
			}
			coll_node_unref(c);
		} else {
			CHECK_MSG(err.code == CRATE_ERR_PARSE || err.code == CRATE_ERR_INCOMPLETE,
				  "code %d", err.code);
			CHECK(err.pos >= 1 && (size_t)err.pos <= len + 1);
		}
	}
}

TEST(nul_bytes_are_errors)
{
	struct crate_err err;
	CHECK(!coll_parse("a:x\0y", 5, NULL, &err));
	CHECK_INT(err.code, CRATE_ERR_PARSE);
	CHECK_INT(err.pos, 4);
	CHECK(!coll_parse("\\\0", 2, NULL, &err));
	CHECK(coll_parse(NULL, 0, NULL, &err) == NULL);
	CHECK_STR(err.msg, "col 1: empty query");
	CHECK_INT(err.pos, 1);
}

TEST(exists_callback_names_the_missing_collection)
{
	struct coll_parse_opts opts = {.exists = table_exists};
	struct crate_err err;
	const char *q = "g:Rock in:Playlists/Nope";
	CHECK(!coll_parse(q, strlen(q), &opts, &err));
	CHECK_STR(err.msg, "col 11: no collection 'Nope' in Playlists");
	/* Without the callback references are not checked. */
	struct coll_node *c = coll_parse(q, strlen(q), NULL, &err);
	CHECK(c != NULL);
	coll_node_unref(c);
}

static bool table_exists_prefix(void *ud, const char *ns, const char *prefix)
{
	(void)ud;
	return strcmp(ns, "Collections") == 0 && strncmp("Rock 90s", prefix, strlen(prefix)) == 0;
}

/* A name being typed at the end of the search bar's query is incomplete
 * ("keep typing"), not an error, while a saved name starts with it. */
TEST(a_collection_name_being_typed_is_incomplete)
{
	struct coll_parse_opts opts = {.exists = table_exists, .exists_prefix = table_exists_prefix};
	static const struct {
		const char *q;
		int code;
	} cases[] = {
		{"g:Rock in:Ro", CRATE_ERR_INCOMPLETE},     {"in:\"Rock 9", CRATE_ERR_INCOMPLETE},
		{"in:Play", CRATE_ERR_INCOMPLETE},          {"in:Coll", CRATE_ERR_INCOMPLETE},
		{"in:Ro g:Rock", CRATE_ERR_PARSE},          {"in:\"Rock\"", CRATE_ERR_PARSE},
		{"in:Zed", CRATE_ERR_PARSE},                {"in:Playlists/Ro", CRATE_ERR_PARSE},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct crate_err err = {0};
		struct coll_node *n = coll_parse(cases[i].q, strlen(cases[i].q), &opts, &err);
		CHECK_MSG(!n && err.code == cases[i].code, "'%s': code %d (%s), want %d", cases[i].q,
			  err.code, err.msg, cases[i].code);
		coll_node_unref(n);
	}
}
