/* The media_analysis table: schema, writes from the analyser, the
 * properties the index shows, album loudness. */
#include "medialib/media_analysis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h> /* strncasecmp */
#include <time.h>

#include "base/str.h"
#include "base/uri.h"
#include "medialib/index.h"

/* A row is valid for the file while version, mtime and size still match:
 * a rescan of an unchanged file keeps it, a changed file is analysed
 * again. Changes bump media_generation like media's own (the index
 * snapshot shows these properties). */
static const char *const analysis_steps[] = {
	/* 0 -> 1 */
	"CREATE TABLE media_analysis("
	"  media_id INTEGER PRIMARY KEY REFERENCES media(id) ON DELETE CASCADE,"
	"  version INTEGER NOT NULL, mtime INTEGER, filesize INTEGER, analysed INTEGER NOT NULL,"
	"  error TEXT,"
	"  loudness REAL, lra REAL, truepeak REAL, bpm REAL, bpm_confidence REAL, onset REAL,"
	"  timbre BLOB, hist BLOB, album_loudness REAL, album_truepeak REAL);"
	"CREATE TRIGGER media_analysis_gen_ins AFTER INSERT ON media_analysis"
	"  BEGIN UPDATE media_generation SET n = n + 1; END;"
	"CREATE TRIGGER media_analysis_gen_upd AFTER UPDATE ON media_analysis"
	"  BEGIN UPDATE media_generation SET n = n + 1; END;"
	"CREATE TRIGGER media_analysis_gen_del AFTER DELETE ON media_analysis"
	"  BEGIN UPDATE media_generation SET n = n + 1; END;",
	/* 1 -> 2: albums whose loudness is due again because an analysed
	 * track left or joined them (retagged, moved, gone, back, forgotten):
	 * the album tag and a url of its folder, as the track had (left) or
	 * has (joined). Triggers, so every writer records it; whoever holds
	 * the loudness function (the app, after scans and forgets) empties
	 * it. The rest of the album kept a value computed with the track. */
	"CREATE TABLE media_analysis_albums_due(album_sid INTEGER NOT NULL, url BLOB NOT NULL);"
	"CREATE TRIGGER media_analysis_album_moves AFTER UPDATE OF album_sid, url, missing ON media"
	"  WHEN (OLD.album_sid IS NOT NEW.album_sid OR OLD.url IS NOT NEW.url"
	"    OR OLD.missing IS NOT NEW.missing)"
	"    AND EXISTS(SELECT 1 FROM media_analysis WHERE media_id = NEW.id)"
	"  BEGIN"
	"    INSERT INTO media_analysis_albums_due SELECT OLD.album_sid, OLD.url"
	"      WHERE OLD.album_sid IS NOT NULL AND OLD.missing = 0;"
	"    INSERT INTO media_analysis_albums_due SELECT NEW.album_sid, NEW.url"
	"      WHERE NEW.album_sid IS NOT NULL AND NEW.missing = 0;"
	"  END;"
	"CREATE TRIGGER media_analysis_album_forget BEFORE DELETE ON media"
	"  WHEN OLD.album_sid IS NOT NULL AND OLD.missing = 0"
	"    AND EXISTS(SELECT 1 FROM media_analysis WHERE media_id = OLD.id)"
	"  BEGIN INSERT INTO media_analysis_albums_due VALUES(OLD.album_sid, OLD.url); END;",
};

#define ANALYSIS_SCHEMA_VERSION ((int)(sizeof analysis_steps / sizeof analysis_steps[0]))

static int analysis_migrate(struct mlib_db *db, struct crate_err *err)
{
	return mlib_db_migrate(db, mlib_analysis_component.name, analysis_steps,
			       ANALYSIS_SCHEMA_VERSION, err);
}

/* Analysis results are optional: a read-only database without the table
 * simply shows none (the readers below check). */
const struct mlib_db_component mlib_analysis_component = {"analysis", ANALYSIS_SCHEMA_VERSION,
							  analysis_migrate, true};

/* CROSS JOIN keeps media_analysis the outer loop: the planner otherwise
 * walks every row of media (a million at 1M tracks, ~0.2 s of start-up)
 * to find the few analysed ones. Rows still come by ascending id. */
#define VALID_JOIN                                                                    \
	" FROM media_analysis a CROSS JOIN media m ON m.id = a.media_id"              \
	" WHERE m.missing = 0 AND a.version = " STRINGIFY(MLIB_ANALYSIS_VERSION)        \
	" AND a.mtime IS m.mtime AND a.filesize IS m.filesize"
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

void mlib_analysis_jobs_free(struct mlib_analysis_jobs *j)
{
	for (size_t i = 0; i < j->n; i++) {
		free(j->v[i].url);
		free(j->v[i].path);
	}
	free(j->v);
	memset(j, 0, sizeof *j);
}

/* 1 when the table exists (a read-only database may predate it). */
static int have_table(struct mlib_db *db)
{
	return mlib_db_version(db, "analysis", NULL) >= 1;
}

/* A stream item (an http(s) URL, as the decoder tells them): a station
 * never ends, so its analysis would record five minutes of radio and fail
 * on the time limit; one that is off the air would be stored as a failure. */
static bool is_stream(const char *url, size_t len)
{
	return (len >= 7 && strncasecmp(url, "http://", 7) == 0) ||
	       (len >= 8 && strncasecmp(url, "https://", 8) == 0);
}

int mlib_analysis_pending(struct mlib_db *db, bool all, const struct bitset *only,
			  struct mlib_analysis_jobs *out, struct crate_err *err)
{
	memset(out, 0, sizeof *out);
	if (!have_table(db))
		return crate_err_set(err, CRATE_ERR_DB, "%s: the database has no analysis table "
				     "(open it read-write once)", mlib_db_path(db));
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db),
			       "SELECT m.id, m.url, m.mtime, m.filesize, m.duration, m.cue_start,"
			       " m.cue_end FROM media m"
			       " LEFT JOIN media_analysis a ON a.media_id = m.id WHERE m.missing = 0"
			       " AND (?1 OR a.media_id IS NULL OR a.version != ?2"
			       " OR a.mtime IS NOT m.mtime OR a.filesize IS NOT m.filesize)"
			       " ORDER BY m.id",
			       -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot list files to analyse", err);
	sqlite3_bind_int(st, 1, all);
	sqlite3_bind_int(st, 2, MLIB_ANALYSIS_VERSION);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if (id < 1 || id > UINT32_MAX - 1)
			continue;
		if (only && ((size_t)id >= only->nbits || !bitset_test(only, (size_t)id)))
			continue;
		const char *url = sqlite3_column_blob(st, 1);
		int len = sqlite3_column_bytes(st, 1);
		if (!url || len <= 0 || is_stream(url, (size_t)len))
			continue;
		if (out->n == out->cap) {
			out->cap = out->cap ? 2 * out->cap : 64;
			out->v = xreallocarray(out->v, out->cap, sizeof *out->v);
		}
		struct mlib_analysis_job *j = &out->v[out->n++];
		j->id = (uint32_t)id;
		j->url = xstrndup(url, (size_t)len);
		j->mtime = sqlite3_column_int64(st, 2);
		j->filesize = sqlite3_column_int64(st, 3);
		j->duration_ms = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1
									: sqlite3_column_int64(st, 4);
		bool cue = sqlite3_column_type(st, 5) != SQLITE_NULL;
		const char *hash = cue ? memrchr(url, '#', (size_t)len) : NULL;
		j->cue_start = hash ? sqlite3_column_int64(st, 5) : -1;
		j->cue_end = hash ? sqlite3_column_int64(st, 6) : 0;
		j->path = xstrndup(url, hash ? (size_t)(hash - url) : (size_t)len);
	}
	if (mlib_db_finish(db, st, rc, "cannot list files to analyse", err) != 0) {
		mlib_analysis_jobs_free(out);
		return -1;
	}
	return 0;
}

int mlib_analysis_count(struct mlib_db *db, int64_t *done, int64_t *failed, int64_t *total,
			struct crate_err *err)
{
	*done = *failed = *total = 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db), "SELECT count(*) FROM media WHERE missing = 0",
			       -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot count files", err);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*total = sqlite3_column_int64(st, 0);
		rc = SQLITE_DONE;
	}
	if (mlib_db_finish(db, st, rc, "cannot count files", err) != 0)
		return -1;
	if (!have_table(db))
		return 0;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db),
			       "SELECT count(*), count(a.error)" VALID_JOIN, -1, &st,
			       NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot count analysed files", err);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*done = sqlite3_column_int64(st, 0);
		*failed = sqlite3_column_int64(st, 1);
		rc = SQLITE_DONE;
	}
	return mlib_db_finish(db, st, rc, "cannot count analysed files", err);
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

int mlib_analysis_put(struct mlib_db *db, const struct mlib_analysis_job *job,
		      const struct mlib_analysis_row *row, struct crate_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db),
			       "INSERT OR REPLACE INTO media_analysis(media_id, version, mtime,"
			       " filesize, analysed, error, loudness, lra, truepeak, bpm,"
			       " bpm_confidence, onset, timbre, hist)"
			       " SELECT id, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14"
			       " FROM media WHERE id = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot store an analysis", err);
	sqlite3_bind_int64(st, 1, job->id);
	sqlite3_bind_int(st, 2, MLIB_ANALYSIS_VERSION);
	sqlite3_bind_int64(st, 3, job->mtime);
	sqlite3_bind_int64(st, 4, job->filesize);
	sqlite3_bind_int64(st, 5, (int64_t)time(NULL));
	bool ok = !row->error;
	if (ok)
		sqlite3_bind_null(st, 6);
	else
		sqlite3_bind_text(st, 6, row->error, -1, SQLITE_STATIC);
	bind_real(st, 7, ok ? row->loudness : NAN);
	bind_real(st, 8, ok ? row->lra : NAN);
	bind_real(st, 9, ok ? row->truepeak : NAN);
	bind_real(st, 10, ok ? row->bpm : NAN);
	bind_real(st, 11, ok ? row->bpm_confidence : NAN);
	bind_real(st, 12, ok ? row->onset : NAN);
	if (ok && row->timbre && row->ntimbre)
		sqlite3_bind_blob(st, 13, row->timbre, (int)(row->ntimbre * sizeof(float)),
				  SQLITE_STATIC);
	if (ok && row->hist && row->histlen)
		sqlite3_bind_blob(st, 14, row->hist, (int)row->histlen, SQLITE_STATIC);
	return mlib_db_finish(db, st, sqlite3_step(st), "cannot store an analysis", err);
}

/* ---- albums ---- */

/* The directory part of a url (up to the last '/'). */
static size_t dir_len(const char *url, size_t len)
{
	while (len > 0 && url[len - 1] != '/')
		len--;
	return len;
}

struct member {
	int64_t id;
	void *hist;
	size_t histlen;
	double peak;
	bool valid;
};

static int store_album(struct mlib_db *db, const struct member *m, size_t n,
		       mlib_album_loudness_fn fn, struct crate_err *err)
{
	double lufs = NAN, peak = NAN;
	bool complete = true;
	for (size_t i = 0; i < n; i++)
		complete = complete && m[i].valid;
	if (complete && n > 0) {
		const void **blobs = xcalloc(n, sizeof *blobs);
		size_t *lens = xcalloc(n, sizeof *lens);
		for (size_t i = 0; i < n; i++) {
			blobs[i] = m[i].hist;
			lens[i] = m[i].histlen;
			if (isfinite(m[i].peak) && !(peak >= m[i].peak))
				peak = m[i].peak;
		}
		if (!fn(blobs, lens, n, &lufs))
			lufs = NAN;
		free(blobs);
		free(lens);
	}
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db),
			       "UPDATE media_analysis SET album_loudness = ?2, album_truepeak = ?3"
			       " WHERE media_id = ?1 AND (album_loudness IS NOT ?2"
			       " OR album_truepeak IS NOT ?3)",
			       -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot store album loudness", err);
	int rc = SQLITE_DONE;
	for (size_t i = 0; i < n && rc == SQLITE_DONE; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, m[i].id);
		bind_real(st, 2, isfinite(lufs) ? lufs : NAN);
		bind_real(st, 3, isfinite(lufs) ? peak : NAN);
		rc = sqlite3_step(st);
	}
	return mlib_db_finish(db, st, rc, "cannot store album loudness", err);
}

/* The member in the columns id, url, hist, truepeak, valid of st's row,
 * added to v. */
static void member_push(struct member **v, size_t *n, size_t *cap, sqlite3_stmt *st)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*v = xreallocarray(*v, *cap, sizeof **v);
	}
	struct member *m = &(*v)[(*n)++];
	m->id = sqlite3_column_int64(st, 0);
	m->histlen = (size_t)sqlite3_column_bytes(st, 2);
	m->hist = m->histlen ? xmalloc(m->histlen) : NULL;
	if (m->histlen)
		memcpy(m->hist, sqlite3_column_blob(st, 2), m->histlen);
	m->peak = sqlite3_column_type(st, 3) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 3);
	m->valid = sqlite3_column_int(st, 4) != 0;
}

/* Members of the album of id (same album tag, same directory). */
static int album_of(struct mlib_db *db, int64_t id, struct member **out, size_t *n,
		    struct crate_err *err)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(
		    mlib_db_sqlite(db),
		    "SELECT m.id, m.url, a.hist, a.truepeak, a.error IS NULL AND a.version = ?2"
		    " AND a.mtime IS m.mtime AND a.filesize IS m.filesize,"
		    " (SELECT url FROM media WHERE id = ?1)"
		    " FROM media m LEFT JOIN media_analysis a ON a.media_id = m.id"
		    " WHERE m.missing = 0 AND m.album_sid = (SELECT album_sid FROM media WHERE id = ?1)",
		    -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot read an album", err);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, MLIB_ANALYSIS_VERSION);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *u = sqlite3_column_blob(st, 1), *me = sqlite3_column_blob(st, 5);
		size_t ul = (size_t)sqlite3_column_bytes(st, 1), ml = (size_t)sqlite3_column_bytes(st, 5);
		if (!u || !me || dir_len(u, ul) != dir_len(me, ml) || memcmp(u, me, dir_len(u, ul)))
			continue;
		member_push(out, n, &cap, st);
	}
	return mlib_db_finish(db, st, rc, "cannot read an album", err);
}

static void members_free(struct member *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(m[i].hist);
	free(m);
}

int mlib_analysis_update_albums(struct mlib_db *db, const uint32_t *ids, size_t n,
				mlib_album_loudness_fn fn, struct crate_err *err)
{
	struct bitset seen;
	uint32_t bound = 0;
	for (size_t i = 0; i < n; i++)
		if (ids[i] >= bound)
			bound = ids[i] + 1;
	bitset_init(&seen, bound);
	int rc = mlib_db_begin(db, err);
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (bitset_test(&seen, ids[i]))
			continue;
		struct member *m;
		size_t nm;
		rc = album_of(db, ids[i], &m, &nm, err);
		for (size_t k = 0; k < nm; k++)
			if (m[k].id >= 0 && (uint64_t)m[k].id < bound)
				bitset_set(&seen, (size_t)m[k].id);
		if (rc == 0 && nm > 0)
			rc = store_album(db, m, nm, fn, err);
		members_free(m, nm);
	}
	bitset_free(&seen);
	if (rc == 0)
		return mlib_db_commit(db, err);
	mlib_db_rollback(db, NULL);
	return -1;
}

/* An album due again: its tag, a url of its folder, its members. */
struct due_album {
	int64_t sid;
	char *url;
	size_t len;
	struct member *m;
	size_t nm, cap;
};

/* Order of due albums: by tag, then by folder (a url's bytes up to its
 * last '/'). */
static int due_cmp_key(int64_t sid, const char *url, size_t len, const struct due_album *d)
{
	if (sid != d->sid)
		return sid < d->sid ? -1 : 1;
	size_t a = dir_len(url, len), b = dir_len(d->url, d->len);
	int c = memcmp(url, d->url, a < b ? a : b);
	return c ? c : (a > b) - (a < b);
}

static int due_cmp(const void *x, const void *y)
{
	const struct due_album *a = x;
	return due_cmp_key(a->sid, a->url, a->len, y);
}

/* The due album of this tag and folder in due (sorted), or NULL: a
 * binary search, as a moved root makes every album of it due and every
 * row of them is looked up. */
static struct due_album *due_find(struct due_album *due, size_t n, int64_t sid, const char *url,
				  size_t len)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = due_cmp_key(sid, url, len, &due[mid]);
		if (c == 0)
			return &due[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* The albums recorded as due, each once, sorted for due_find. */
static int due_read(struct mlib_db *db, struct due_album **out, size_t *n, struct crate_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db),
			       "SELECT DISTINCT album_sid, url FROM media_analysis_albums_due", -1, &st,
			       NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot read albums", err);
	int rc;
	size_t cap = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *u = sqlite3_column_blob(st, 1);
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		if (!u)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			*out = xreallocarray(*out, cap, sizeof **out);
		}
		struct due_album *d = &(*out)[(*n)++];
		memset(d, 0, sizeof *d);
		d->sid = sqlite3_column_int64(st, 0);
		d->url = xmalloc(len ? len : 1);
		memcpy(d->url, u, len);
		d->len = len;
	}
	/* one entry per album: the rows name each of its tracks' urls */
	if (*n)
		qsort(*out, *n, sizeof **out, due_cmp);
	size_t w = 0;
	for (size_t i = 0; i < *n; i++) {
		if (w && due_cmp(&(*out)[i], &(*out)[w - 1]) == 0) {
			free((*out)[i].url);
			continue;
		}
		(*out)[w++] = (*out)[i];
	}
	*n = w;
	return mlib_db_finish(db, st, rc, "cannot read albums", err);
}

/* The members of every due album, in one pass over media (a scan per
 * album would read the whole table once per album of a moved folder). */
static int due_members(struct mlib_db *db, struct due_album *due, size_t n, struct crate_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(
		    mlib_db_sqlite(db),
		    "SELECT m.id, m.url, a.hist, a.truepeak, a.error IS NULL AND a.version = ?1"
		    " AND a.mtime IS m.mtime AND a.filesize IS m.filesize, m.album_sid"
		    " FROM media m LEFT JOIN media_analysis a ON a.media_id = m.id"
		    " WHERE m.missing = 0 AND m.album_sid IN"
		    " (SELECT album_sid FROM media_analysis_albums_due)",
		    -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot read an album", err);
	sqlite3_bind_int(st, 1, MLIB_ANALYSIS_VERSION);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *u = sqlite3_column_blob(st, 1);
		struct due_album *d =
			u ? due_find(due, n, sqlite3_column_int64(st, 5), u,
				     (size_t)sqlite3_column_bytes(st, 1))
			  : NULL;
		if (d)
			member_push(&d->m, &d->nm, &d->cap, st);
	}
	return mlib_db_finish(db, st, rc, "cannot read an album", err);
}

int mlib_analysis_update_due_albums(struct mlib_db *db, mlib_album_loudness_fn fn,
				    struct crate_err *err)
{
	if (mlib_db_readonly(db) || mlib_db_version(db, "analysis", NULL) < 2)
		return 0;
	if (mlib_db_begin(db, err) != 0)
		return -1;
	struct due_album *due = NULL;
	size_t ndue = 0;
	int rc = due_read(db, &due, &ndue, err);
	if (rc == 0 && ndue)
		rc = due_members(db, due, ndue, err);
	for (size_t i = 0; i < ndue && rc == 0; i++)
		if (due[i].nm)
			rc = store_album(db, due[i].m, due[i].nm, fn, err);
	for (size_t i = 0; i < ndue; i++) {
		members_free(due[i].m, due[i].nm);
		free(due[i].url);
	}
	free(due);
	if (rc == 0 && ndue)
		rc = mlib_db_exec(db, "DELETE FROM media_analysis_albums_due", err);
	if (rc == 0)
		return mlib_db_commit(db, err);
	mlib_db_rollback(db, NULL);
	return -1;
}

/* ---- the index ---- */

void mlib_analysis_format(double v, int decimals, char *buf, size_t size)
{
	/* Locale-proof: the UI sets LC_ALL, whose decimal comma would not
	 * read back as a number. */
	double scale = pow(10.0, decimals);
	double r = round(fabs(v) * scale);
	long long whole = (long long)(r / scale);
	long long frac = (long long)(r - (double)whole * scale);
	if (decimals > 0)
		snprintf(buf, size, "%s%lld.%0*lld", v < 0 && r > 0 ? "-" : "", whole, decimals,
			 frac);
	else
		snprintf(buf, size, "%s%lld", v < 0 && r > 0 ? "-" : "", whole);
}

static const struct {
	const char *prop;
	int decimals;
} shown[] = {
	{"loudness", 2},       {"lra", 1},    {"truepeak", 2},       {"bpm", 1},
	{"bpm_confidence", 2}, {"onset", 3},  {"album_loudness", 2}, {"album_truepeak", 2},
};
#define NSHOWN (sizeof shown / sizeof shown[0])

int mlib_analysis_load_index(struct mlib_db *db, struct mlib_index *idx, struct crate_err *err)
{
	if (!have_table(db))
		return 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db),
			       "SELECT m.id, a.loudness, a.lra, a.truepeak, a.bpm, a.bpm_confidence,"
			       " a.onset, a.album_loudness, a.album_truepeak, a.error" VALID_JOIN,
			       -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot read analyses", err);
	int handles[NSHOWN + 1];
	for (size_t i = 0; i <= NSHOWN; i++)
		handles[i] = -1;
	int bpm_tag = mlib_index_prop(idx, "bpm");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if (id < 1 || id > UINT32_MAX - 1 || !mlib_index_has_media(idx, (uint32_t)id))
			continue;
		for (size_t c = 0; c < NSHOWN; c++) {
			if (sqlite3_column_type(st, (int)c + 1) == SQLITE_NULL)
				continue;
			/* A BPM tag (set by the user or a DJ tool) wins over ours,
			 * and our confidence, which is in our tempo, goes with it. */
			const uint32_t *v;
			bool tempo = strcmp(shown[c].prop, "bpm") == 0 ||
				     strcmp(shown[c].prop, "bpm_confidence") == 0;
			if (tempo && bpm_tag >= 0 &&
			    mlib_index_str_values(idx, bpm_tag, (uint32_t)id, &v) > 0)
				continue;
			char buf[64];
			mlib_analysis_format(sqlite3_column_double(st, (int)c + 1), shown[c].decimals,
					     buf, sizeof buf);
			if (handles[c] < 0)
				handles[c] = mlib_index_prop_define(idx, shown[c].prop,
								    MLIB_PROP_STRING);
			mlib_index_add_str_p(idx, (uint32_t)id, handles[c], buf, strlen(buf));
		}
		const char *e = (const char *)sqlite3_column_text(st, (int)NSHOWN + 1);
		if (e && *e) {
			if (handles[NSHOWN] < 0)
				handles[NSHOWN] =
					mlib_index_prop_define(idx, "analysis_error", MLIB_PROP_STRING);
			mlib_index_add_str_p(idx, (uint32_t)id, handles[NSHOWN], e, strlen(e));
		}
	}
	return mlib_db_finish(db, st, rc, "cannot read analyses", err);
}

int mlib_analysis_each_timbre(struct mlib_db *db, mlib_timbre_fn fn, void *ud,
			      struct crate_err *err)
{
	if (!have_table(db))
		return 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db),
			       "SELECT m.id, a.timbre, a.bpm, a.bpm_confidence, a.loudness, a.onset"
			       VALID_JOIN
			       " AND a.timbre IS NOT NULL",
			       -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot read timbre vectors", err);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const void *b = sqlite3_column_blob(st, 1);
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		if (id < 1 || id > UINT32_MAX - 1 || !b || len % sizeof(float))
			continue;
		float v[64];
		size_t dims = len / sizeof(float);
		if (dims > 64)
			continue;
		memcpy(v, b, len); /* blobs need not be aligned */
		double num[4];
		for (int c = 0; c < 4; c++)
			num[c] = sqlite3_column_type(st, 2 + c) == SQLITE_NULL
					 ? NAN
					 : sqlite3_column_double(st, 2 + c);
		fn(ud, (uint32_t)id, v, dims, num);
	}
	return mlib_db_finish(db, st, rc, "cannot read timbre vectors", err);
}

/* ---- export / import ---- */

bool mlib_analysis_json(struct mlib_db *db, uint32_t id, struct strbuf *out,
			struct crate_err *err)
{
	if (!have_table(db))
		return false;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db),
			       "SELECT json_object('version', a.version, 'error', a.error,"
			       " 'loudness', a.loudness, 'lra', a.lra, 'truepeak', a.truepeak,"
			       " 'bpm', a.bpm, 'bpm_confidence', a.bpm_confidence, 'onset', a.onset,"
			       " 'album_loudness', a.album_loudness,"
			       " 'album_truepeak', a.album_truepeak,"
			       " 'timbre', lower(hex(a.timbre)), 'hist', lower(hex(a.hist)))"
			       VALID_JOIN " AND m.id = ?",
			       -1, &st, NULL) != SQLITE_OK) {
		mlib_db_error(db, "cannot read an analysis", err);
		return false;
	}
	sqlite3_bind_int64(st, 1, id);
	bool found = sqlite3_step(st) == SQLITE_ROW;
	if (found)
		strbuf_adds(out, (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return found;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
					: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Hex text to bytes (owned, *n); NULL for bad text. Empty gives NULL, n 0. */
static unsigned char *unhex(const char *s, size_t *n)
{
	size_t len = s ? strlen(s) : 0;
	*n = 0;
	if (len == 0 || len % 2)
		return NULL;
	unsigned char *b = xmalloc(len / 2);
	for (size_t i = 0; i < len; i += 2) {
		int hi = hexval(s[i]), lo = hexval(s[i + 1]);
		if (hi < 0 || lo < 0) {
			free(b);
			return NULL;
		}
		b[i / 2] = (unsigned char)(hi << 4 | lo);
	}
	*n = len / 2;
	return b;
}

static double col_real(sqlite3_stmt *st, int c)
{
	return sqlite3_column_type(st, c) == SQLITE_NULL ? NAN : sqlite3_column_double(st, c);
}

/* 0 when json is an array, else CRATE_ERR_INVALID saying what it is not:
 * the fault is the document's, not the database's. */
static int import_check_array(struct mlib_db *db, const char *json, size_t len,
			      struct crate_err *err)
{
	static const char sql[] = "SELECT CASE WHEN json_valid(?1) THEN json_type(?1) END";
	sqlite3_stmt *st = NULL;
	int prc = sqlite3_prepare_v2(mlib_db_sqlite(db), sql, -1, &st, NULL);
	if (prc != SQLITE_OK)
		return mlib_db_error(db, "cannot read the JSON document", err);
	sqlite3_bind_text(st, 1, json, (int)len, SQLITE_STATIC);
	bool row = sqlite3_step(st) == SQLITE_ROW;
	const char *type = row ? (const char *)sqlite3_column_text(st, 0) : NULL;
	int rc = 0;
	if (!type)
		rc = crate_err_set(err, CRATE_ERR_INVALID,
				   "not JSON (expected the output of 'crate info --json')");
	else if (strcmp(type, "array") != 0)
		rc = crate_err_set(err, CRATE_ERR_INVALID,
				   "a JSON %s, not an array of items (the output of 'crate info --json')",
				   type);
	sqlite3_finalize(st);
	return rc;
}

/* crate_uri_path(uri): the path a file:// URI names, as a BLOB of its
 * bytes (a name that is not UTF-8 survives only there: the export's
 * "url" is text); NULL for anything else. */
static void sql_uri_path(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	(void)argc;
	const char *uri = (const char *)sqlite3_value_text(argv[0]);
	char *path = uri ? uri_file_path(uri) : NULL;
	if (path)
		sqlite3_result_blob(cx, path, (int)strlen(path), free);
	else
		sqlite3_result_null(cx);
}

int mlib_analysis_import(struct mlib_db *db, const char *json, size_t len, struct u32vec *ids,
			 size_t *skipped, struct crate_err *err)
{
	*skipped = 0;
	if (import_check_array(db, json, len, err) != 0)
		return -1;
	if (sqlite3_create_function_v2(mlib_db_sqlite(db), "crate_uri_path", 1,
				       SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sql_uri_path, NULL,
				       NULL, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot read the JSON document", err);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(
		    mlib_db_sqlite(db),
		    "SELECT m.id, m.mtime, m.filesize, json_extract(j.value, '$.analysis.version'),"
		    " json_extract(j.value, '$.analysis.error'),"
		    " json_extract(j.value, '$.analysis.loudness'),"
		    " json_extract(j.value, '$.analysis.lra'),"
		    " json_extract(j.value, '$.analysis.truepeak'),"
		    " json_extract(j.value, '$.analysis.bpm'),"
		    " json_extract(j.value, '$.analysis.bpm_confidence'),"
		    " json_extract(j.value, '$.analysis.onset'),"
		    " json_extract(j.value, '$.analysis.timbre'),"
		    " json_extract(j.value, '$.analysis.hist')"
		    " FROM json_each(?1) j LEFT JOIN media m"
		    " ON m.url = coalesce(crate_uri_path(json_extract(j.value, '$.uri')),"
		    " CAST(json_extract(j.value, '$.url') AS BLOB)) AND m.missing = 0",
		    -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot read the JSON document", err);
	sqlite3_bind_text(st, 1, json, (int)len, SQLITE_STATIC);
	if (mlib_db_begin(db, err) != 0) {
		sqlite3_finalize(st);
		return -1;
	}
	int rc, prc = 0;
	while (prc == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) == SQLITE_NULL ||
		    sqlite3_column_int(st, 3) != MLIB_ANALYSIS_VERSION) {
			(*skipped)++;
			continue;
		}
		struct mlib_analysis_job job = {.id = (uint32_t)sqlite3_column_int64(st, 0),
						.mtime = sqlite3_column_int64(st, 1),
						.filesize = sqlite3_column_int64(st, 2)};
		size_t nt = 0, nh = 0;
		unsigned char *timbre = unhex((const char *)sqlite3_column_text(st, 11), &nt);
		unsigned char *hist = unhex((const char *)sqlite3_column_text(st, 12), &nh);
		struct mlib_analysis_row row = {
			.error = (const char *)sqlite3_column_text(st, 4),
			.loudness = col_real(st, 5), .lra = col_real(st, 6),
			.truepeak = col_real(st, 7), .bpm = col_real(st, 8),
			.bpm_confidence = col_real(st, 9), .onset = col_real(st, 10),
			.timbre = (const float *)(void *)timbre, .ntimbre = nt / sizeof(float),
			.hist = hist, .histlen = nh};
		if (nt % sizeof(float)) {
			row.timbre = NULL;
			row.ntimbre = 0;
		}
		prc = mlib_analysis_put(db, &job, &row, err);
		free(timbre);
		free(hist);
		if (prc == 0)
			u32vec_push(ids, job.id);
	}
	if (prc == 0 && rc != SQLITE_DONE)
		prc = mlib_db_error(db, "cannot read the JSON document", err);
	sqlite3_finalize(st);
	if (prc != 0) {
		mlib_db_rollback(db, NULL);
		return -1;
	}
	return mlib_db_commit(db, err);
}
