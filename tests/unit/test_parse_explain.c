/* coll/explain: the lines it writes for a real index and a parsed query. */
#include <stdlib.h>
#include <string.h>

#include "coll/eval.h"
#include "coll/explain.h"
#include "coll/parse.h"
#include "harness.h"
#include "medialib/index.h"

static struct mlib_index *small_index(void)
{
	struct mlib_index *idx = mlib_index_new();
	mlib_index_add_media(idx, 1);
	mlib_index_add_str(idx, 1, "artist", "Björk", strlen("Björk"));
	mlib_index_add_str(idx, 1, "title", "Jóga", strlen("Jóga"));
	mlib_index_set_int(idx, 1, "year", 1997);
	mlib_index_add_media(idx, 2);
	mlib_index_add_str(idx, 2, "artist", "Kraftwerk", 9);
	mlib_index_add_str(idx, 2, "genre", "Electronic", 10);
	/* A tag value that tries to drive the terminal. */
	mlib_index_add_str(idx, 2, "title", "evil\x1b[2Jtitle", 14);
	mlib_index_set_int(idx, 2, "year", 1974);
	mlib_index_finish(idx);
	return idx;
}

static char *explain(const struct mlib_index *idx, const char *q, uint32_t id)
{
	struct crate_err err;
	struct coll_node *c = coll_parse(q, strlen(q), NULL, &err);
	if (!CHECK_MSG(c != NULL, "'%s': %s", q, err.msg))
		return NULL;
	struct coll_eval_ctx ctx = {.index = idx};
	char *text = coll_explain(&ctx, c, id, &err);
	CHECK_MSG(text != NULL, "explain '%s': %s", q, err.msg);
	coll_node_unref(c);
	return text;
}

#define CHECK_HAS(text, line) \
	CHECK_MSG((text) && strstr((text), (line)), "missing '%s' in:\n%s", (line), (text) ? (text) : "")

TEST(filters_say_why)
{
	struct mlib_index *idx = small_index();
	char *t = explain(idx, "a:bjork y<1990 NOT +genre", 1);
	CHECK_HAS(t, "no   intersection\n");
	CHECK_HAS(t, "  yes  artist:bjork  -- artist 'Björk' equals 'bjork' (folded)\n");
	CHECK_HAS(t, "  no   year<1990  -- year 1997 is not < 1990\n");
	CHECK_HAS(t, "  yes  complement\n");
	CHECK_HAS(t, "    no   +genre  -- has no 'genre'\n");
	free(t);

	t = explain(idx, "kraftwerk OR t~jo", 2);
	CHECK_HAS(t, "yes  union\n");
	CHECK_HAS(t, "yes  kraftwerk\n");
	CHECK_HAS(t, "yes  token field='artist' value='kraftwerk'  -- artist 'Kraftwerk' has the "
		     "word 'kraftwerk'");
	CHECK_HAS(t, "no   title~jo  -- title 'evil\xEF\xBF\xBD[2Jtitle' does not match '*jo*'");
	CHECK(!strchr(t, '\x1b'));
	free(t);

	t = explain(idx, "a:x OR a:kraftwerk", 2);
	CHECK_HAS(t, "yes  artist:x OR artist:kraftwerk\n");
	free(t);

	t = explain(idx, "#2 g!=Rock a:Kraftwerk", 2);
	CHECK_HAS(t, "yes  #2  -- media id 2 is = 2\n");
	CHECK_HAS(t, "yes  genre!=Rock  -- genre 'Electronic' differs from 'Rock'\n");
	CHECK_HAS(t, "yes  artist:Kraftwerk  -- artist 'Kraftwerk' equals 'Kraftwerk'\n");
	free(t);
	mlib_index_free(idx);
}

TEST(unknown_item_and_missing_reference_are_errors)
{
	struct mlib_index *idx = small_index();
	struct crate_err err;
	struct coll_eval_ctx ctx = {.index = idx};
	struct coll_node *c = coll_parse("x", 1, NULL, &err);
	CHECK(coll_explain(&ctx, c, 99, &err) == NULL);
	CHECK_INT(err.code, CRATE_ERR_NOTFOUND);
	coll_node_unref(c);
	c = coll_parse("in:Nope", 7, NULL, &err);
	REQUIRE(c);
	CHECK(coll_explain(&ctx, c, 1, &err) == NULL);
	CHECK(strstr(err.msg, "Nope") != NULL);
	coll_node_unref(c);
	mlib_index_free(idx);
}
