/* Similarity space: standardise, weight, quantise; nearest by a full
 * distance pass and a radix sort (a million items in a few ms). */
#include "medialib/similarity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "medialib/index.h"
#include "medialib/media_analysis.h"

#define TIMBRE_DIMS (MLIB_SPACE_DIMS - 3)
/* Weights after standardising: tempo counts like ~6 timbre dimensions
 * (two tracks at 90 and 170 BPM are not alike, whatever their sound),
 * loudness and onset strength like ~2 each. */
#define W_TIMBRE 1.0
#define W_TEMPO 2.5
#define W_LOUDNESS 1.5
#define W_ONSET 1.5
#define MIN_TEMPO_CONFIDENCE 0.3
/* Quantisation: one standard deviation is 16 steps; +-127 clips at ~8. */
#define STEPS_PER_SD 16.0

/* Vectors are padded to 32 bytes: one fixed-length loop the compiler
 * turns into a few SIMD instructions. */
#define STRIDE 32

struct mlib_space {
	size_t n;
	uint32_t *ids;    /* ascending */
	int8_t *vec;      /* n * STRIDE, the padding zero */
	float *tempo;     /* n: log2(BPM), NAN unknown */
	uint32_t *slot;   /* by id: index into ids, UINT32_MAX none */
	uint32_t bound;
};

struct raw {
	size_t n, cap;
	uint32_t *ids;
	float *v; /* n * MLIB_SPACE_DIMS, NAN = absent */
};

static void raw_add(void *ud, uint32_t id, const float *t, size_t dims, const double *num)
{
	double bpm = num[0], conf = num[1], loudness = num[2], onset = num[3];
	struct raw *r = ud;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->ids = xreallocarray(r->ids, r->cap, sizeof *r->ids);
		r->v = xreallocarray(r->v, r->cap * MLIB_SPACE_DIMS, sizeof *r->v);
	}
	float *v = r->v + r->n * MLIB_SPACE_DIMS;
	for (size_t d = 0; d < TIMBRE_DIMS; d++)
		v[d] = d < dims ? t[d] : NAN;
	/* An unsure tempo (a drone, noise) would only scatter its family. */
	v[TIMBRE_DIMS] = bpm > 0 && conf >= MIN_TEMPO_CONFIDENCE ? (float)log2(bpm) : NAN;
	v[TIMBRE_DIMS + 1] = (float)loudness;
	v[TIMBRE_DIMS + 2] = (float)onset;
	r->ids[r->n++] = id;
}

static double weight(size_t d)
{
	return d < TIMBRE_DIMS ? W_TIMBRE : d == TIMBRE_DIMS ? W_TEMPO
					  : d == TIMBRE_DIMS + 1 ? W_LOUDNESS : W_ONSET;
}

/* ids ascending (as the loader returns them, or sorted by the caller). */
static struct mlib_space *build(const uint32_t *ids, const float *raw, size_t n)
{
	struct mlib_space *s = xcalloc(1, sizeof *s);
	s->n = n;
	s->ids = xmalloc((n ? n : 1) * sizeof *s->ids);
	if (n) /* ids is NULL when nothing is analysed */
		memcpy(s->ids, ids, n * sizeof *ids);
	s->vec = xcalloc(n ? n : 1, STRIDE);
	s->tempo = xmalloc((n ? n : 1) * sizeof *s->tempo);
	for (size_t i = 0; i < n; i++)
		s->tempo[i] = raw[i * MLIB_SPACE_DIMS + TIMBRE_DIMS];
	for (size_t d = 0; d < MLIB_SPACE_DIMS; d++) {
		double sum = 0, sq = 0, cnt = 0;
		for (size_t i = 0; i < n; i++) {
			double x = raw[i * MLIB_SPACE_DIMS + d];
			if (isfinite(x)) {
				sum += x;
				sq += x * x;
				cnt++;
			}
		}
		double mean = cnt ? sum / cnt : 0, var = cnt ? sq / cnt - mean * mean : 0;
		double sd = var > 1e-12 ? sqrt(var) : 1;
		double k = weight(d) * STEPS_PER_SD / sd;
		for (size_t i = 0; i < n; i++) {
			double x = raw[i * MLIB_SPACE_DIMS + d];
			double q = isfinite(x) ? round((x - mean) * k) : 0; /* absent: the mean */
			s->vec[i * STRIDE + d] = (int8_t)(q > 127 ? 127 : q < -127 ? -127 : q);
		}
	}
	s->bound = n ? ids[n - 1] + 1 : 0;
	s->slot = xmalloc((s->bound ? s->bound : 1) * sizeof *s->slot);
	for (uint32_t i = 0; i < s->bound; i++)
		s->slot[i] = UINT32_MAX;
	for (size_t i = 0; i < n; i++)
		s->slot[ids[i]] = (uint32_t)i;
	return s;
}

/* A BPM tag (set by the user or a DJ tool) wins over the measured tempo,
 * as `crate info` shows it: *tempo becomes its log2 when it reads as a
 * plausible tempo. The index's bpm is the tag's when the item has no
 * bpm_confidence: the analysis shows ours with its confidence, and
 * neither when a tag wins (mlib_analysis_load_index). */
static void tagged_tempo(const struct mlib_index *idx, uint32_t id, float *tempo)
{
	char buf[64], cbuf[64], *end;
	const char *t = mlib_index_get_text(idx, id, "bpm", buf, sizeof buf);
	if (!t || mlib_index_get_text(idx, id, "bpm_confidence", cbuf, sizeof cbuf))
		return;
	double bpm = strtod(t, &end);
	while (*end == ' ')
		end++;
	if (end != t && !*end && bpm >= 20 && bpm <= 400)
		*tempo = (float)log2(bpm);
}

int mlib_space_load(struct mlib_db *db, const struct mlib_index *idx, struct mlib_space **out,
		    struct crate_err *err)
{
	struct raw r = {0};
	*out = NULL;
	if (mlib_analysis_each_timbre(db, raw_add, &r, err) != 0) {
		free(r.ids);
		free(r.v);
		return -1;
	}
	/* Only the items of this index (rows of missing files are not in it). */
	size_t k = 0;
	for (size_t i = 0; i < r.n; i++) {
		if (!mlib_index_has_media(idx, r.ids[i]))
			continue;
		tagged_tempo(idx, r.ids[i], r.v + i * MLIB_SPACE_DIMS + TIMBRE_DIMS);
		r.ids[k] = r.ids[i];
		memmove(r.v + k * MLIB_SPACE_DIMS, r.v + i * MLIB_SPACE_DIMS,
			MLIB_SPACE_DIMS * sizeof *r.v);
		k++;
	}
	*out = build(r.ids, r.v, k);
	free(r.ids);
	free(r.v);
	return 0;
}

static int cmp_pair(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

struct mlib_space *mlib_space_from_raw(const uint32_t *ids, const float *raw, size_t n,
				       size_t dims)
{
	/* Sort by id, padding or cutting each vector to the space's layout:
	 * dims <= MLIB_SPACE_DIMS raw values, the rest absent. */
	uint32_t *order = xmalloc((n ? n : 1) * 2 * sizeof *order);
	for (size_t i = 0; i < n; i++) {
		order[2 * i] = ids[i];
		order[2 * i + 1] = (uint32_t)i;
	}
	qsort(order, n, 2 * sizeof *order, cmp_pair);
	uint32_t *sid = xmalloc((n ? n : 1) * sizeof *sid);
	float *v = xmalloc((n ? n : 1) * MLIB_SPACE_DIMS * sizeof *v);
	for (size_t i = 0; i < n; i++) {
		sid[i] = order[2 * i];
		const float *src = raw + (size_t)order[2 * i + 1] * dims;
		for (size_t d = 0; d < MLIB_SPACE_DIMS; d++)
			v[i * MLIB_SPACE_DIMS + d] = d < dims ? src[d] : NAN;
	}
	struct mlib_space *s = build(sid, v, n);
	free(order);
	free(sid);
	free(v);
	return s;
}

void mlib_space_free(struct mlib_space *s)
{
	if (!s)
		return;
	free(s->ids);
	free(s->vec);
	free(s->tempo);
	free(s->slot);
	free(s);
}

size_t mlib_space_count(const struct mlib_space *s)
{
	return s ? s->n : 0;
}

static const int8_t *vec_of(const struct mlib_space *s, uint32_t id)
{
	if (!s || id >= s->bound || s->slot[id] == UINT32_MAX)
		return NULL;
	return s->vec + (size_t)s->slot[id] * STRIDE;
}

bool mlib_space_has(const struct mlib_space *s, uint32_t id)
{
	return vec_of(s, id) != NULL;
}

/* c: a centroid padded to STRIDE with zeros. */
static uint32_t dist_c(const int8_t *v, const int16_t *c)
{
	int32_t d = 0;
	for (size_t k = 0; k < STRIDE; k++) {
		int32_t x = (int32_t)v[k] - c[k];
		d += x * x;
	}
	return (uint32_t)d;
}

double mlib_space_tempo(const struct mlib_space *s, uint32_t id)
{
	if (!vec_of(s, id))
		return NAN;
	return s->tempo[s->slot[id]];
}

bool mlib_space_vector(const struct mlib_space *s, uint32_t id, int16_t *v)
{
	const int8_t *q = vec_of(s, id);
	if (!q)
		return false;
	for (size_t k = 0; k < MLIB_SPACE_DIMS; k++)
		v[k] = q[k];
	return true;
}

uint32_t mlib_space_distance(const struct mlib_space *s, uint32_t a, uint32_t b)
{
	const int8_t *va = vec_of(s, a), *vb = vec_of(s, b);
	if (!va || !vb)
		return UINT32_MAX;
	int16_t c[STRIDE];
	for (size_t k = 0; k < STRIDE; k++)
		c[k] = vb[k];
	return dist_c(va, c);
}

bool mlib_space_centroid(const struct mlib_space *s, const uint32_t *seed, size_t n, int16_t *c)
{
	int64_t sum[MLIB_SPACE_DIMS] = {0};
	size_t cnt = 0;
	for (size_t i = 0; i < n; i++) {
		const int8_t *v = vec_of(s, seed[i]);
		if (!v)
			continue;
		for (size_t k = 0; k < MLIB_SPACE_DIMS; k++)
			sum[k] += v[k];
		cnt++;
	}
	if (!cnt)
		return false;
	for (size_t k = 0; k < MLIB_SPACE_DIMS; k++)
		c[k] = (int16_t)llround((double)sum[k] / (double)cnt);
	return true;
}

static int cmp_dist_id(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Sort (distance << 32 | id) keys gathered in id order: few with qsort,
 * many with two stable 12-bit radix passes over the distance (< 2^24),
 * which keep the id order of ties. */
static void sort_by_dist(uint64_t *k, size_t m)
{
	if (m < 4096) {
		qsort(k, m, sizeof *k, cmp_dist_id);
		return;
	}
	uint64_t *tmp = xmalloc(m * sizeof *tmp), *src = k, *dst = tmp;
	for (int pass = 0; pass < 2; pass++) {
		int shift = 32 + 12 * pass;
		size_t count[4097] = {0};
		for (size_t i = 0; i < m; i++)
			count[((src[i] >> shift) & 4095) + 1]++;
		for (size_t b = 1; b <= 4096; b++)
			count[b] += count[b - 1];
		for (size_t i = 0; i < m; i++)
			dst[count[(src[i] >> shift) & 4095]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	/* Two passes: the result is back in k. */
	free(tmp);
}

void mlib_space_nearest(const struct mlib_space *s, const int16_t *centroid,
			const struct bitset *skip, size_t keep, struct u32vec *out)
{
	if (!s || !s->n || keep == 0)
		return;
	int16_t c[STRIDE] = {0};
	memcpy(c, centroid, MLIB_SPACE_DIMS * sizeof *c);
	uint32_t *d = xmalloc(s->n * sizeof *d);
	for (size_t i = 0; i < s->n; i++) {
		uint32_t id = s->ids[i];
		bool skipped = skip && id < skip->nbits && bitset_test(skip, id);
		d[i] = skipped ? UINT32_MAX : dist_c(s->vec + i * STRIDE, c);
	}
	/* The bound: the smallest top-12-bit bucket (distances < 2^24) that
	 * holds `keep` items; only those at or below it are sorted. */
	size_t count[4097] = {0}, taken = 0;
	for (size_t i = 0; i < s->n; i++)
		if (d[i] != UINT32_MAX)
			count[d[i] >> 12]++;
	size_t bound = 4096;
	for (size_t b = 0; b < 4096; b++) {
		taken += count[b];
		if (taken >= keep) {
			bound = b;
			break;
		}
	}
	uint64_t *pick = xmalloc((taken ? taken : 1) * sizeof *pick);
	size_t m = 0;
	for (size_t i = 0; i < s->n; i++)
		if (d[i] != UINT32_MAX && (d[i] >> 12) <= bound)
			pick[m++] = (uint64_t)d[i] << 32 | s->ids[i]; /* ties by id */
	sort_by_dist(pick, m);
	if (m > keep)
		m = keep;
	u32vec_reserve(out, out->n + m);
	for (size_t i = 0; i < m; i++)
		out->v[out->n++] = (uint32_t)pick[i];
	free(pick);
	free(d);
}
