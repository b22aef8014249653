/* Query parser speed: the median time to parse (and to print back) a
 * 200-character query (target < 20 us, spec: the search bar re-parses on
 * every keystroke). Prints one JSON line per figure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll/parse.h"

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: steady on a loaded machine */
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median over rounds of the mean time of one call in a batch. */
static double median_us(const char *q, size_t len, bool print, int rounds, int batch)
{
	double *t = malloc(sizeof *t * (size_t)rounds);
	struct crate_err err;
	for (int r = 0; r < rounds; r++) {
		double t0 = now_us();
		for (int i = 0; i < batch; i++) {
			struct coll_node *c = coll_parse(q, len, NULL, &err);
			if (!c) {
				fprintf(stderr, "bench_parse: %s\n", err.msg);
				exit(1);
			}
			if (print)
				free(coll_print(c, &err));
			coll_node_unref(c);
		}
		t[r] = (now_us() - t0) / batch;
	}
	qsort(t, (size_t)rounds, sizeof *t, cmp_double);
	double m = t[rounds / 2];
	free(t);
	return m;
}

int main(void)
{
	/* 200 characters touching every part of the grammar. */
	const char *q = "(a:\"The Beatles\" OR a:Kraftwerk* OR l~\"Lungs for Life\") "
			"y:1965..1999 NOT g:Pop +genre added<30d "
			"t!=Intro rating>=3 beat* \"Björk\" #1-500 "
			"ORDER BY -rating, album, tracknr LIMIT 50";
	size_t len = strlen(q);
	char padded[256];
	snprintf(padded, sizeof padded, "%-200s", q);
	len = strlen(padded);
	median_us(padded, len, false, 5, 1000); /* warm up */
	printf("{\"name\":\"parse_200_chars\",\"median_us\":%.2f,\"chars\":%zu}\n",
	       median_us(padded, len, false, 51, 2000), len);
	printf("{\"name\":\"parse_print_200_chars\",\"median_us\":%.2f,\"chars\":%zu}\n",
	       median_us(padded, len, true, 51, 2000), len);
	return 0;
}
