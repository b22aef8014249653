/* Steps more than one benchmark measures, so that their figures time the
 * same work. Header-only (static inline): each .c file under bench/ is a
 * program of its own (the Makefile builds each alone), and each program
 * takes what it uses. */
#ifndef CRATE_BENCH_COMMON_H
#define CRATE_BENCH_COMMON_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "coll/eval.h"
#include "coll/node.h"
#include "coll/parse.h"
#include "coll/search.h"
#include "medialib/index.h"

/* One search of the search bar, as bench_search_top_screen leaves it:
 * owned by the caller until bench_search_free. */
struct bench_search {
	struct coll_node *query;
	struct coll_search search;
	struct coll_result result;
	size_t bytes; /* formatted for the first screen (so it is not optimised away) */
};

/* The search bar's step from text to screen: text parsed, prepared with
 * flags (coll_search_prepare's: 0 ranks, COLL_SEARCH_NO_RANK keeps library
 * order), evaluated with ctx (and its cache), and the first screen
 * formatted as the screen does it: 40 rows of artist, album and title.
 * A query the benchmark cannot run is its own mistake: the message goes to
 * stderr and the program exits. */
static inline void bench_search_top_screen(const struct coll_eval_ctx *ctx, const char *text,
					   unsigned flags, struct bench_search *b)
{
	struct crate_err err = {0};
	memset(b, 0, sizeof *b);
	b->query = coll_parse(text, strlen(text), NULL, &err);
	if (!b->query) {
		fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, text, err.msg);
		exit(1);
	}
	coll_search_prepare(ctx, b->query, text, flags, &b->search);
	if (coll_search_eval(ctx, &b->search, &b->result, &err) != 0) {
		fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, text, err.msg);
		exit(1);
	}
	static const char *const cols[] = {"artist", "album", "title"};
	const struct u32vec *ids = &b->result.ids;
	for (size_t i = 0; i < ids->n && i < 40; i++)
		for (int c = 0; c < 3; c++) {
			char buf[64], line[256];
			const char *t = mlib_index_get_text(ctx->index, ids->v[i], cols[c], buf,
							    sizeof buf);
			b->bytes += (size_t)snprintf(line, sizeof line, "%.80s", t ? t : "");
		}
}

/* The value in kB of the line key ("VmRSS:", "VmHWM:") of
 * /proc/self/status, or -1. */
static inline long bench_status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	char line[256];
	long kb = -1;
	size_t n = strlen(key);
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, n) == 0) {
			kb = strtol(line + n, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}

static inline void bench_search_free(struct bench_search *b)
{
	coll_result_free(&b->result);
	coll_search_free(&b->search);
	coll_node_unref(b->query);
}

#endif
