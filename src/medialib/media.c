/* Media rows: schema, writes from the scanner, play statistics. */
#include "medialib/media.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "medialib/index.h"
#include "medialib/tags.h"

/* Schema of the media library.
 *
 * Shape chosen for the start-up index load (1,000,000 tracks in < 1.5 s):
 * one wide `media` row per file holds the stream properties, statistics
 * and the FIRST value of each common tag, so loading the index is one
 * sequential scan of `media` with no join (the repetitive tags are ids in
 * `media_string` since step 6, read once before it), while `media_tag` holds only
 * what does not fit a column: second and later values of multi-valued
 * tags and free-form tags (ReplayGain, MusicBrainz ids, ...). That table is
 * small for typical libraries and is read in (media_id, key, seq) order in
 * one more scan. An entity-attribute-value table for everything would
 * make the load ~15 rows per track and an order of magnitude slower.
 *
 * url is the absolute path as raw bytes (a BLOB: file names need not be
 * UTF-8; display sanitises). Missing tags are NULL, never "". Rows are not
 * deleted when files vanish: missing=1 keeps the id (and statistics,
 * playlists referring to it) for when the file comes back. */
static const char *const media_steps[] = {
	/* 0 -> 1 */
	"CREATE TABLE media("
	"  id INTEGER PRIMARY KEY,"
	"  url BLOB NOT NULL UNIQUE,"
	"  missing INTEGER NOT NULL DEFAULT 0,"
	"  filesize INTEGER, mtime INTEGER, added INTEGER,"
	"  duration INTEGER, bitrate INTEGER, samplerate INTEGER, channels INTEGER, format TEXT,"
	"  lastplayed INTEGER, timesplayed INTEGER, rating INTEGER,"
	"  artist TEXT, album TEXT, albumartist TEXT, title TEXT,"
	"  tracknr INTEGER, tracktotal INTEGER, discnr INTEGER, disctotal INTEGER,"
	"  date TEXT, year INTEGER, genre TEXT, composer TEXT, comment TEXT);"
	"CREATE TABLE media_tag("
	"  media_id INTEGER NOT NULL REFERENCES media(id) ON DELETE CASCADE,"
	"  key TEXT NOT NULL, seq INTEGER NOT NULL, value TEXT NOT NULL,"
	"  PRIMARY KEY(media_id, key, seq)) WITHOUT ROWID;",
	/* 1 -> 2: a change counter for the index snapshot (index_load.c).
	 * Triggers rather than the writer's code so every writer counts,
	 * other processes and older code paths included. dbid tells a
	 * re-created database at the same path from the old one. */
	"CREATE TABLE media_generation("
	"  id INTEGER PRIMARY KEY CHECK(id = 0), dbid INTEGER NOT NULL, n INTEGER NOT NULL);"
	"INSERT INTO media_generation VALUES(0, random(), 0);"
	"CREATE TRIGGER media_gen_ins AFTER INSERT ON media"
	"  BEGIN UPDATE media_generation SET n = n + 1; END;"
	"CREATE TRIGGER media_gen_upd AFTER UPDATE ON media"
	"  BEGIN UPDATE media_generation SET n = n + 1; END;"
	"CREATE TRIGGER media_gen_del AFTER DELETE ON media"
	"  BEGIN UPDATE media_generation SET n = n + 1; END;"
	"CREATE TRIGGER media_tag_gen_ins AFTER INSERT ON media_tag"
	"  BEGIN UPDATE media_generation SET n = n + 1; END;"
	"CREATE TRIGGER media_tag_gen_upd AFTER UPDATE ON media_tag"
	"  BEGIN UPDATE media_generation SET n = n + 1; END;"
	"CREATE TRIGGER media_tag_gen_del AFTER DELETE ON media_tag"
	"  BEGIN UPDATE media_generation SET n = n + 1; END;",
	/* 2 -> 3: play statistics (timesplayed, lastplayed, rating) no longer
	 * make the snapshot stale: they bump their own counter `stats` and
	 * name the row in media_stats_dirty with the counter's value, and the
	 * snapshot loader applies those rows. stats_kept: dirty rows up to it
	 * were deleted, so a snapshot read at an older counter is unusable.
	 * A column added to media later must join media_gen_upd's list. */
	"ALTER TABLE media_generation ADD COLUMN stats INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE media_generation ADD COLUMN stats_kept INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE media_stats_dirty(id INTEGER PRIMARY KEY, seq INTEGER NOT NULL);"
	"DROP TRIGGER media_gen_upd;"
	"CREATE TRIGGER media_gen_upd AFTER UPDATE OF"
	"  id, url, missing, filesize, mtime, added, duration, bitrate, samplerate, channels,"
	"  format, artist, album, albumartist, title, tracknr, tracktotal, discnr, disctotal,"
	"  date, year, genre, composer, comment ON media"
	"  BEGIN UPDATE media_generation SET n = n + 1; END;"
	"CREATE TRIGGER media_stats_upd AFTER UPDATE OF timesplayed, lastplayed, rating ON media"
	"  BEGIN UPDATE media_generation SET stats = stats + 1;"
	"  INSERT OR REPLACE INTO media_stats_dirty(id, seq)"
	"    VALUES(new.id, (SELECT stats FROM media_generation WHERE id = 0)); END;",
	/* 3 -> 4: timesskipped (a play the user cut short) is a statistic too. */
	"ALTER TABLE media ADD COLUMN timesskipped INTEGER;"
	"DROP TRIGGER media_stats_upd;"
	"CREATE TRIGGER media_stats_upd AFTER UPDATE OF timesplayed, lastplayed, rating,"
	"  timesskipped ON media"
	"  BEGIN UPDATE media_generation SET stats = stats + 1;"
	"  INSERT OR REPLACE INTO media_stats_dirty(id, seq)"
	"    VALUES(new.id, (SELECT stats FROM media_generation WHERE id = 0)); END;",
	/* 4 -> 5: cue sheet tracks (cue.h). A track of a cue sheet is a row of
	 * its own, url "FILE#N" (N its TRACK number), playing the samples
	 * [cue_start, cue_end) of FILE at the file's rate; cue_end is NULL for
	 * the last track (to the end of the file). Both NULL: a whole file. */
	"ALTER TABLE media ADD COLUMN cue_start INTEGER;"
	"ALTER TABLE media ADD COLUMN cue_end INTEGER;"
	"DROP TRIGGER media_gen_upd;"
	"CREATE TRIGGER media_gen_upd AFTER UPDATE OF"
	"  id, url, missing, filesize, mtime, added, duration, bitrate, samplerate, channels,"
	"  format, artist, album, albumartist, title, tracknr, tracktotal, discnr, disctotal,"
	"  date, year, genre, composer, comment, cue_start, cue_end ON media"
	"  BEGIN UPDATE media_generation SET n = n + 1; END;",
	/* 5 -> 6: each distinct text of the repetitive tags is stored once.
	 *
	 * media_string holds one row per distinct value (format, genre,
	 * date, albumartist, composer, artist, album: at 1M tracks ~75k
	 * strings instead of ~6M copies, 37 B/track less); media refers to
	 * it by integer in the *_sid columns (NULL: the tag is absent).
	 * value has no type affinity, so each value keeps its storage class
	 * and bytes (TEXT as tagged, BLOB where an older writer stored one);
	 * equal values share a row, ids are never reused while referenced.
	 * Titles, comments and urls are mostly unique and stay inline.
	 * Strings no row refers to any more are deleted by
	 * mlib_media_gc_strings (after forget/prune, and after a scan that
	 * updated rows), not by triggers: that would need an index on every
	 * *_sid column. Orphans in between cost only their bytes (the index
	 * load interns only strings a row refers to).
	 *
	 * The table is rebuilt (create, copy, drop, rename) rather than
	 * altered column by column: DROP COLUMN rewrites the whole table once
	 * per column. media_migrate runs this with foreign keys off, so
	 * dropping the old table does not cascade to media_tag or
	 * media_analysis; their REFERENCES media(id) bind to the new table by
	 * name. Triggers on media go with the old table and are made again.
	 * The view media_text shows the rows as they were (texts joined in),
	 * for scripts and sqlite3 sessions. Changing or deleting a string
	 * changes the rows that refer to it: both count as changes of the
	 * library (a new string changes nothing until a row refers to it). */
	"CREATE TABLE media_string(id INTEGER PRIMARY KEY, value NOT NULL UNIQUE);"
	"CREATE TRIGGER media_string_gen_upd AFTER UPDATE ON media_string"
	"  BEGIN UPDATE media_generation SET n = n + 1; END;"
	"CREATE TRIGGER media_string_gen_del AFTER DELETE ON media_string"
	"  BEGIN UPDATE media_generation SET n = n + 1; END;"
	/* The few genres, formats and dates first: ids below 128 take one byte. */
	"INSERT OR IGNORE INTO media_string(value)"
	"  SELECT v FROM (SELECT format AS v FROM media UNION ALL SELECT genre FROM media"
	"  UNION ALL SELECT date FROM media UNION ALL SELECT albumartist FROM media"
	"  UNION ALL SELECT composer FROM media UNION ALL SELECT artist FROM media"
	"  UNION ALL SELECT album FROM media) WHERE v IS NOT NULL;"
	"CREATE TABLE media_new("
	"  id INTEGER PRIMARY KEY,"
	"  url BLOB NOT NULL UNIQUE,"
	"  missing INTEGER NOT NULL DEFAULT 0,"
	"  filesize INTEGER, mtime INTEGER, added INTEGER,"
	"  duration INTEGER, bitrate INTEGER, samplerate INTEGER, channels INTEGER,"
	"  format_sid INTEGER,"
	"  lastplayed INTEGER, timesplayed INTEGER, rating INTEGER,"
	"  artist_sid INTEGER, album_sid INTEGER, albumartist_sid INTEGER, title TEXT,"
	"  tracknr INTEGER, tracktotal INTEGER, discnr INTEGER, disctotal INTEGER,"
	"  date_sid INTEGER, year INTEGER, genre_sid INTEGER, composer_sid INTEGER, comment TEXT,"
	"  timesskipped INTEGER, cue_start INTEGER, cue_end INTEGER);"
	/* +m.x: no affinity on either side, so the UNIQUE index finds the
	 * value and a TEXT never matches a BLOB of the same bytes. */
	"INSERT INTO media_new SELECT id, url, missing, filesize, mtime, added, duration, bitrate,"
	"  samplerate, channels, (SELECT id FROM media_string WHERE value = +m.format),"
	"  lastplayed, timesplayed, rating,"
	"  (SELECT id FROM media_string WHERE value = +m.artist),"
	"  (SELECT id FROM media_string WHERE value = +m.album),"
	"  (SELECT id FROM media_string WHERE value = +m.albumartist),"
	"  title, tracknr, tracktotal, discnr, disctotal,"
	"  (SELECT id FROM media_string WHERE value = +m.date), year,"
	"  (SELECT id FROM media_string WHERE value = +m.genre),"
	"  (SELECT id FROM media_string WHERE value = +m.composer),"
	"  comment, timesskipped, cue_start, cue_end FROM media m ORDER BY id;"
	"DROP TABLE media;"
	"ALTER TABLE media_new RENAME TO media;"
	"CREATE TRIGGER media_gen_ins AFTER INSERT ON media"
	"  BEGIN UPDATE media_generation SET n = n + 1; END;"
	"CREATE TRIGGER media_gen_del AFTER DELETE ON media"
	"  BEGIN UPDATE media_generation SET n = n + 1; END;"
	"CREATE TRIGGER media_gen_upd AFTER UPDATE OF"
	"  id, url, missing, filesize, mtime, added, duration, bitrate, samplerate, channels,"
	"  format_sid, artist_sid, album_sid, albumartist_sid, title, tracknr, tracktotal, discnr,"
	"  disctotal, date_sid, year, genre_sid, composer_sid, comment, cue_start, cue_end ON media"
	"  BEGIN UPDATE media_generation SET n = n + 1; END;"
	"CREATE TRIGGER media_stats_upd AFTER UPDATE OF timesplayed, lastplayed, rating,"
	"  timesskipped ON media"
	"  BEGIN UPDATE media_generation SET stats = stats + 1;"
	"  INSERT OR REPLACE INTO media_stats_dirty(id, seq)"
	"    VALUES(new.id, (SELECT stats FROM media_generation WHERE id = 0)); END;"
	"CREATE VIEW media_text AS SELECT m.id, m.url, m.missing, m.filesize, m.mtime, m.added,"
	"  m.duration, m.bitrate, m.samplerate, m.channels, fo.value AS format, m.lastplayed,"
	"  m.timesplayed, m.rating, ar.value AS artist, al.value AS album,"
	"  aa.value AS albumartist, m.title, m.tracknr, m.tracktotal, m.discnr, m.disctotal,"
	"  da.value AS date, m.year, ge.value AS genre, co.value AS composer, m.comment,"
	"  m.timesskipped, m.cue_start, m.cue_end FROM media m"
	"  LEFT JOIN media_string fo ON fo.id = m.format_sid"
	"  LEFT JOIN media_string ar ON ar.id = m.artist_sid"
	"  LEFT JOIN media_string al ON al.id = m.album_sid"
	"  LEFT JOIN media_string aa ON aa.id = m.albumartist_sid"
	"  LEFT JOIN media_string da ON da.id = m.date_sid"
	"  LEFT JOIN media_string ge ON ge.id = m.genre_sid"
	"  LEFT JOIN media_string co ON co.id = m.composer_sid;",
	/* 6 -> 7: the nanoseconds of the file's mtime (0..999999999; NULL for
	 * rows written before, and for streams). mtime stays in whole seconds
	 * (it is a queryable property); the scanner compares both, so a file
	 * or cue sheet changed within the second of its last scan is seen as
	 * changed. Not in the index, so not in media_gen_upd's list: a scan
	 * that changes it writes the whole row. */
	"ALTER TABLE media ADD COLUMN mtime_nsec INTEGER;",
	/* 7 -> 8: where a cue track's sheet is: 1 beside the file (X.cue, ...),
	 * 0 in its CUESHEET tag; NULL for whole files and for tracks stored
	 * before. The scanner reads a split file again when its sheet is no
	 * longer where it was (a deleted X.cue, even one older than the
	 * audio). Not in the index. */
	"ALTER TABLE media ADD COLUMN cue_beside INTEGER;",
};

#define MEDIA_VERSION ((int)(sizeof media_steps / sizeof media_steps[0]))
#define MEDIA_STRINGS_VERSION 6 /* the step that rebuilt media (5 -> 6) */

/* Foreign keys are off while the steps run (step 6 drops the old media
 * table, which must not cascade; the pragma cannot change inside their
 * transactions) and on again after, as mlib_db_open wants them.
 * Step 6 copies the table before dropping the old one, so the file ends
 * up holding both (332 MB instead of 183 at 1M tracks, half of it free
 * pages): an existing library is compacted once after it (VACUUM, ~3 s at
 * 1M; outside any transaction; on failure, e.g. a full disk, the free
 * pages are only left for reuse). */
static int media_migrate(struct mlib_db *db, struct crate_err *err)
{
	int v = mlib_db_version(db, mlib_media_component.name, err);
	if (v < 0)
		return -1;
	if (v >= MEDIA_VERSION || mlib_db_readonly(db)) /* nothing to do, or a refusal */
		return mlib_db_migrate(db, mlib_media_component.name, media_steps, MEDIA_VERSION, err);
	if (mlib_db_exec(db, "PRAGMA foreign_keys=OFF", err) != 0)
		return -1;
	int rc = mlib_db_migrate(db, mlib_media_component.name, media_steps, MEDIA_VERSION, err);
	if (mlib_db_exec(db, "PRAGMA foreign_keys=ON", rc == 0 ? err : NULL) != 0)
		rc = -1;
	if (rc == 0 && v >= 1 && v < MEDIA_STRINGS_VERSION)
		sqlite3_exec(mlib_db_sqlite(db), "VACUUM", NULL, NULL, NULL);
	return rc;
}

const struct mlib_db_component mlib_media_component = {"medialib", MEDIA_VERSION, media_migrate,
						       false};

/* Text tags stored in a column of `media` (their first value), in the
 * order of the put statement's parameters ?10..?17; shared: the column
 * holds an id in media_string (<key>_sid), else the text itself. */
static const struct {
	const char *key;
	bool shared;
} text_cols[] = {
	{"artist", true}, {"album", true},   {"albumartist", true}, {"title", false},
	{"date", true},	  {"genre", true},   {"composer", true},    {"comment", false},
};
#define NTEXT (sizeof text_cols / sizeof text_cols[0])

struct mlib_media_writer {
	struct mlib_db *db;
	sqlite3_stmt *put, *del_tags, *add_tag, *missing, *rating, *str_find, *str_add, *beside;
	sqlite3_stmt *stored;
};

static sqlite3_stmt *prep(struct mlib_db *db, const char *sql, struct crate_err *err)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v3(mlib_db_sqlite(db), sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) !=
	    SQLITE_OK) {
		mlib_db_error(db, "cannot prepare a statement", err);
		return NULL;
	}
	return st;
}

struct mlib_media_writer *mlib_media_writer_new(struct mlib_db *db, struct crate_err *err)
{
	struct mlib_media_writer *w = xcalloc(1, sizeof *w);
	w->db = db;
	w->put = prep(db,
		      "INSERT INTO media(url, missing, filesize, mtime, added, duration, bitrate,"
		      " samplerate, channels, format_sid, artist_sid, album_sid, albumartist_sid,"
		      " title, date_sid, genre_sid, composer_sid, comment, tracknr, tracktotal,"
		      " discnr, disctotal, year, cue_start, cue_end, mtime_nsec)"
		      " VALUES(?1, 0, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,"
		      " ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)"
		      " ON CONFLICT(url) DO UPDATE SET missing=0, filesize=?2, mtime=?3,"
		      " mtime_nsec=?25,"
		      " duration=?5, bitrate=?6, samplerate=?7, channels=?8, format_sid=?9,"
		      " artist_sid=?10, album_sid=?11, albumartist_sid=?12, title=?13, date_sid=?14,"
		      " genre_sid=?15, composer_sid=?16, comment=?17, tracknr=?18, tracktotal=?19,"
		      " discnr=?20, disctotal=?21, year=?22,"
		      " cue_start=?23, cue_end=?24"
		      " RETURNING id",
		      err);
	if (w->put)
		w->del_tags = prep(db, "DELETE FROM media_tag WHERE media_id=?", err);
	if (w->del_tags)
		w->add_tag = prep(db, "INSERT OR REPLACE INTO media_tag(media_id, key, seq, value)"
				      " VALUES(?, ?, ?, ?)", err);
	if (w->add_tag)
		w->missing = prep(db, "UPDATE media SET missing=? WHERE id=?", err);
	/* The file's rating fills an empty one: a rating set in crate wins.
	 * Apart from the upsert, whose conflict clause would override the
	 * statistics trigger's INSERT OR REPLACE. */
	if (w->missing)
		w->rating = prep(db, "UPDATE media SET rating=?1 WHERE id=?2 AND rating IS NULL", err);
	if (w->rating)
		w->str_find = prep(db, "SELECT id FROM media_string WHERE value=?1", err);
	if (w->str_find)
		w->str_add = prep(db, "INSERT INTO media_string(value) VALUES(?1)", err);
	if (w->str_add)
		w->beside = prep(db, "UPDATE media SET cue_beside=?2 WHERE id=?1", err);
	/* The file's own row, or its cue tracks' ("FILE#N": between "FILE#"
	 * and "FILE$" byte-wise). */
	if (w->beside)
		w->stored = prep(db, "SELECT missing = 0 AND filesize IS ?4 AND mtime IS ?5"
				     " AND (mtime_nsec IS NULL OR mtime_nsec IS ?6) FROM media"
				     " WHERE url = ?1 OR (url > ?2 AND url < ?3) LIMIT 1", err);
	if (!w->stored) {
		mlib_media_writer_free(w);
		return NULL;
	}
	return w;
}

void mlib_media_writer_free(struct mlib_media_writer *w)
{
	if (!w)
		return;
	sqlite3_finalize(w->put);
	sqlite3_finalize(w->del_tags);
	sqlite3_finalize(w->add_tag);
	sqlite3_finalize(w->missing);
	sqlite3_finalize(w->beside);
	sqlite3_finalize(w->stored);
	sqlite3_finalize(w->rating);
	sqlite3_finalize(w->str_find);
	sqlite3_finalize(w->str_add);
	free(w);
}

int mlib_media_parse_number_pair(const char *s, int64_t *num, int64_t *total)
{
	*num = *total = 0;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return 0;
	int64_t n = 0;
	for (; isdigit((unsigned char)*s); s++)
		if (n < 1000000000)
			n = n * 10 + (*s - '0');
	*num = n;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '/') {
		s++;
		while (isspace((unsigned char)*s))
			s++;
		int64_t t = 0;
		for (; isdigit((unsigned char)*s); s++)
			if (t < 1000000000)
				t = t * 10 + (*s - '0');
		*total = t;
	}
	return 1;
}

int64_t mlib_media_year_of(const char *date)
{
	for (const char *p = date; *p; p++) {
		if (!isdigit((unsigned char)*p) || (p > date && isdigit((unsigned char)p[-1])))
			continue;
		int len = 0;
		while (isdigit((unsigned char)p[len]))
			len++;
		if (len == 4)
			return (p[0] - '0') * 1000 + (p[1] - '0') * 100 + (p[2] - '0') * 10 + (p[3] - '0');
	}
	return 0;
}

static void bind_int_or_null(sqlite3_stmt *st, int col, int64_t v)
{
	if (v > 0)
		sqlite3_bind_int64(st, col, v);
	else
		sqlite3_bind_null(st, col);
}

static int text_col_index(const char *key)
{
	for (size_t i = 0; i < NTEXT; i++)
		if (strcmp(key, text_cols[i].key) == 0)
			return (int)i;
	return -1;
}

/* Step a write statement to completion and reset it; the error (taken
 * before the reset clears it) names what failed. */
static int step_done(struct mlib_db *db, sqlite3_stmt *st, const char *what,
		     struct crate_err *err)
{
	int rc = sqlite3_step(st);
	int ret = rc == SQLITE_DONE ? 0 : mlib_db_error(db, what, err);
	sqlite3_reset(st);
	return ret;
}

static int put_tag(struct mlib_media_writer *w, uint32_t id, const char *key, int seq,
		   const char *value, struct crate_err *err)
{
	sqlite3_stmt *st = w->add_tag;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, seq);
	sqlite3_bind_text(st, 4, value, -1, SQLITE_STATIC);
	return step_done(w->db, st, "cannot write a tag", err);
}

/* Sequence number of the next value of key (counting values already
 * written for this file): seq 0 of a column tag is the column itself. */
static int next_seq(const struct mlib_tags *t, size_t upto, const char *key)
{
	int n = 0;
	for (size_t i = 0; i < upto; i++)
		if (strcmp(t->v[i].key, key) == 0)
			n++;
	return n;
}

/* The id of text v in media_string, added when new. */
static int string_id(struct mlib_media_writer *w, const char *v, int64_t *sid,
		     struct crate_err *err)
{
	sqlite3_stmt *st = w->str_find;
	sqlite3_bind_text(st, 1, v, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*sid = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_DONE)
		mlib_db_error(w->db, "cannot look up a tag's text", err);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return rc == SQLITE_ROW ? 0 : -1;
	sqlite3_bind_text(w->str_add, 1, v, -1, SQLITE_STATIC);
	if (step_done(w->db, w->str_add, "cannot store a tag's text", err) != 0)
		return -1;
	*sid = sqlite3_last_insert_rowid(mlib_db_sqlite(w->db));
	return 0;
}

/* Bind v (NULL: absent) to parameter col of the put statement, as text or
 * (shared) as its id in media_string. */
static int bind_tag(struct mlib_media_writer *w, int col, const char *v, bool shared,
		    struct crate_err *err)
{
	sqlite3_stmt *st = w->put;
	int64_t sid;
	if (!v)
		sqlite3_bind_null(st, col);
	else if (!shared)
		sqlite3_bind_text(st, col, v, -1, SQLITE_STATIC);
	else if (string_id(w, v, &sid, err) != 0)
		return -1;
	else
		sqlite3_bind_int64(st, col, sid);
	return 0;
}

int mlib_media_put(struct mlib_media_writer *w, const char *url, size_t urllen, int64_t size,
		   int64_t mtime, int64_t now, const struct mlib_tags *t, uint32_t *id,
		   struct crate_err *err)
{
	return mlib_media_put_cue(w, url, urllen, size, mtime, -1, now, t, -1, 0, id, err);
}

static int put_row(struct mlib_media_writer *w, const char *url, size_t urllen, int64_t size,
		   int64_t mtime, long mtime_nsec, int64_t now, const struct mlib_tags *t, int64_t cue_start,
		   int64_t cue_end, uint32_t *id, struct crate_err *err);

/* Always inside a transaction: the ids string_id finds must still be
 * there when the row refers to them (mlib_media_gc_strings in another
 * process deletes unused strings in a transaction of its own), and the row
 * and its media_tag values land together. The scanner brings its own. */
int mlib_media_put_cue(struct mlib_media_writer *w, const char *url, size_t urllen, int64_t size,
		       int64_t mtime, long mtime_nsec, int64_t now, const struct mlib_tags *t, int64_t cue_start,
		       int64_t cue_end, uint32_t *id, struct crate_err *err)
{
	bool own = sqlite3_get_autocommit(mlib_db_sqlite(w->db)) != 0;
	if (own && mlib_db_begin(w->db, err) != 0)
		return -1;
	int rc = put_row(w, url, urllen, size, mtime, mtime_nsec, now, t, cue_start, cue_end, id, err);
	if (own && rc == 0 && mlib_db_commit(w->db, err) != 0)
		rc = -1;
	if (own && rc != 0)
		mlib_db_rollback(w->db, NULL);
	return rc;
}

static int put_row(struct mlib_media_writer *w, const char *url, size_t urllen, int64_t size,
		   int64_t mtime, long mtime_nsec, int64_t now, const struct mlib_tags *t, int64_t cue_start,
		   int64_t cue_end, uint32_t *id, struct crate_err *err)
{
	sqlite3_stmt *st = w->put;
	if (cue_start >= 0) /* 0 is a start, not an absence */
		sqlite3_bind_int64(st, 23, cue_start);
	else
		sqlite3_bind_null(st, 23);
	bind_int_or_null(st, 24, cue_start >= 0 ? cue_end : 0);
	sqlite3_bind_blob(st, 1, url, (int)urllen, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, size);
	sqlite3_bind_int64(st, 3, mtime);
	if (mtime_nsec >= 0)
		sqlite3_bind_int64(st, 25, mtime_nsec);
	else
		sqlite3_bind_null(st, 25);
	sqlite3_bind_int64(st, 4, now);
	bind_int_or_null(st, 5, t->duration_ms);
	bind_int_or_null(st, 6, t->bitrate);
	bind_int_or_null(st, 7, t->samplerate);
	bind_int_or_null(st, 8, t->channels);
	int bad = bind_tag(w, 9, t->format, true, err);
	for (size_t i = 0; i < NTEXT && !bad; i++)
		bad = bind_tag(w, 10 + (int)i, mlib_tags_get(t, text_cols[i].key), text_cols[i].shared,
			       err);
	if (bad) {
		sqlite3_clear_bindings(st);
		return -1;
	}
	int64_t tn = 0, tt = 0, dn = 0, dt = 0, x;
	const char *v;
	if ((v = mlib_tags_get(t, "tracknr")))
		mlib_media_parse_number_pair(v, &tn, &tt);
	if ((v = mlib_tags_get(t, "discnr")))
		mlib_media_parse_number_pair(v, &dn, &dt);
	if (!tt && (v = mlib_tags_get(t, "tracktotal")))
		mlib_media_parse_number_pair(v, &tt, &x);
	if (!dt && (v = mlib_tags_get(t, "disctotal")))
		mlib_media_parse_number_pair(v, &dt, &x);
	bind_int_or_null(st, 18, tn);
	bind_int_or_null(st, 19, tt);
	bind_int_or_null(st, 20, dn);
	bind_int_or_null(st, 21, dt);
	v = mlib_tags_get(t, "date");
	bind_int_or_null(st, 22, v ? mlib_media_year_of(v) : 0);

	/* The error text must be taken before sqlite3_reset, which clears it. */
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = (uint32_t)sqlite3_column_int64(st, 0);
		rc = sqlite3_step(st); /* runs the statement to its end */
	}
	if (rc != SQLITE_DONE) {
		mlib_db_error(w->db, "cannot write a media row", err);
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		return -1;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (t->rating >= 1 && t->rating <= 5) {
		sqlite3_bind_int64(w->rating, 1, t->rating);
		sqlite3_bind_int64(w->rating, 2, *id);
		if (step_done(w->db, w->rating, "cannot store the file's rating", err) != 0)
			return -1;
	}

	sqlite3_bind_int64(w->del_tags, 1, *id);
	if (step_done(w->db, w->del_tags, "cannot clear old tags", err) != 0)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		const char *key = t->v[i].key;
		if (strcmp(key, "tracknr") == 0 || strcmp(key, "discnr") == 0 ||
		    strcmp(key, "tracktotal") == 0 || strcmp(key, "disctotal") == 0)
			continue; /* integer columns; later values carry nothing new */
		int seq = next_seq(t, i, key);
		if (text_col_index(key) >= 0 && seq == 0)
			continue; /* in its column */
		if (put_tag(w, *id, key, seq, t->v[i].value, err) != 0)
			return -1;
	}
	return 0;
}

int mlib_media_set_missing(struct mlib_media_writer *w, uint32_t id, int missing,
			   struct crate_err *err)
{
	sqlite3_bind_int(w->missing, 1, missing);
	sqlite3_bind_int64(w->missing, 2, id);
	return step_done(w->db, w->missing, "cannot mark a file missing", err);
}

int mlib_media_set_cue_beside(struct mlib_media_writer *w, uint32_t id, bool beside,
			       struct crate_err *err)
{
	sqlite3_bind_int64(w->beside, 1, id);
	sqlite3_bind_int(w->beside, 2, beside);
	return step_done(w->db, w->beside, "cannot record where a cue sheet is", err);
}

int mlib_media_stored(struct mlib_media_writer *w, const char *url, size_t urllen, int64_t size,
		      int64_t mtime, long mtime_nsec, int *state, struct crate_err *err)
{
	sqlite3_stmt *st = w->stored;
	char *lo = xmalloc(urllen + 1), *hi = xmalloc(urllen + 1);
	memcpy(lo, url, urllen);
	memcpy(hi, url, urllen);
	lo[urllen] = '#';
	hi[urllen] = '#' + 1;
	sqlite3_bind_blob(st, 1, url, (int)urllen, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, lo, (int)urllen + 1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, hi, (int)urllen + 1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, size);
	sqlite3_bind_int64(st, 5, mtime);
	sqlite3_bind_int64(st, 6, mtime_nsec);
	int rc = sqlite3_step(st);
	*state = rc == SQLITE_ROW ? 1 + (sqlite3_column_int(st, 0) != 0) : 0;
	int ret = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0
						       : mlib_db_error(w->db, "cannot read the library", err);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	free(lo);
	free(hi);
	return ret;
}

int mlib_media_set_url(struct mlib_db *db, uint32_t id, const char *url, size_t urllen,
		       struct crate_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db), "UPDATE media SET url=? WHERE id=?", -1, &st,
			       NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot record a moved file", err);
	sqlite3_bind_blob(st, 1, url, (int)urllen, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, id);
	return mlib_db_finish(db, st, sqlite3_step(st), "cannot record a moved file", err);
}

/* The *_sid columns of media, each an id in media_string or NULL. */
#define SID_COLS                                                                       \
	"format_sid, artist_sid, album_sid, albumartist_sid, date_sid, genre_sid, composer_sid"
#define NSID_COLS 7
/* Above this many ids (or with ids below 1, which crate never makes) the
 * strings in use are found by SQLite instead of a bitmap: slower (a scan of
 * media per column) but without a large allocation. */
#define GC_BITMAP_MAX_ID (INT64_C(1) << 28)

static int gc_by_sql(struct mlib_db *db, size_t *n, struct crate_err *err)
{
	if (mlib_db_exec(db,
			 /* NOT IN a list holding a NULL (an absent tag) is
			  * never true: the NULLs are left out. */
			 "DELETE FROM media_string WHERE id NOT IN (SELECT x FROM ("
			 "SELECT format_sid AS x FROM media"
			 " UNION ALL SELECT artist_sid FROM media UNION ALL SELECT album_sid FROM media"
			 " UNION ALL SELECT albumartist_sid FROM media UNION ALL SELECT date_sid FROM media"
			 " UNION ALL SELECT genre_sid FROM media"
			 " UNION ALL SELECT composer_sid FROM media) WHERE x IS NOT NULL)",
			 err) != 0)
		return -1;
	*n = (size_t)sqlite3_changes(mlib_db_sqlite(db));
	return 0;
}

int mlib_media_gc_strings(struct mlib_db *db, size_t *n, struct crate_err *err)
{
	size_t dummy;
	if (!n)
		n = &dummy;
	*n = 0;
	sqlite3 *s = mlib_db_sqlite(db);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s, "SELECT min(id), max(id) FROM media_string", -1, &st, NULL) !=
	    SQLITE_OK)
		return mlib_db_error(db, "cannot read the tag strings", err);
	int rc = sqlite3_step(st);
	int64_t lo = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	int64_t hi = rc == SQLITE_ROW ? sqlite3_column_int64(st, 1) : 0;
	bool empty = rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_NULL;
	if (mlib_db_finish(db, st, rc == SQLITE_ROW ? SQLITE_DONE : rc,
			   "cannot read the tag strings", err) != 0)
		return -1;
	if (empty)
		return 0;
	if (lo < 1 || hi > GC_BITMAP_MAX_ID)
		return gc_by_sql(db, n, err);

	/* One scan of media marks the ids in use; then the others go. */
	uint64_t *used = xcalloc((size_t)hi / 64 + 1, sizeof *used);
	if (sqlite3_prepare_v2(s, "SELECT " SID_COLS " FROM media", -1, &st, NULL) != SQLITE_OK) {
		free(used);
		return mlib_db_error(db, "cannot read the library", err);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		for (int c = 0; c < NSID_COLS; c++) {
			if (sqlite3_column_type(st, c) != SQLITE_INTEGER)
				continue;
			int64_t id = sqlite3_column_int64(st, c);
			if (id >= 1 && id <= hi)
				used[id / 64] |= UINT64_C(1) << (id % 64);
		}
	if (mlib_db_finish(db, st, rc, "cannot read the library", err) != 0) {
		free(used);
		return -1;
	}
	int64_t *gone = NULL;
	size_t ngone = 0, cap = 0;
	if (sqlite3_prepare_v2(s, "SELECT id FROM media_string", -1, &st, NULL) != SQLITE_OK) {
		free(used);
		return mlib_db_error(db, "cannot read the tag strings", err);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if (id >= 1 && id <= hi && (used[id / 64] >> (id % 64)) & 1)
			continue;
		if (ngone == cap) {
			cap = cap ? cap * 2 : 64;
			gone = xreallocarray(gone, cap, sizeof *gone);
		}
		gone[ngone++] = id;
	}
	free(used);
	if (mlib_db_finish(db, st, rc, "cannot read the tag strings", err) != 0) {
		free(gone);
		return -1;
	}
	rc = SQLITE_DONE;
	if (ngone && sqlite3_prepare_v2(s, "DELETE FROM media_string WHERE id=?", -1, &st, NULL) !=
			     SQLITE_OK) {
		free(gone);
		return mlib_db_error(db, "cannot delete unused tag strings", err);
	}
	for (size_t i = 0; i < ngone && rc == SQLITE_DONE; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, gone[i]);
		rc = sqlite3_step(st);
	}
	free(gone);
	if (ngone && mlib_db_finish(db, st, rc, "cannot delete unused tag strings", err) != 0)
		return -1;
	*n = ngone;
	return 0;
}

int mlib_media_forget(struct mlib_db *db, const uint32_t *ids, size_t nids, size_t *n,
		      struct crate_err *err)
{
	*n = 0;
	if (mlib_db_begin(db, err) != 0)
		return -1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db), "DELETE FROM media WHERE id=?", -1, &st,
			       NULL) != SQLITE_OK) {
		mlib_db_error(db, "cannot forget items", err);
		mlib_db_rollback(db, NULL);
		return -1;
	}
	int rc = SQLITE_DONE;
	for (size_t i = 0; i < nids && rc == SQLITE_DONE; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, ids[i]);
		rc = sqlite3_step(st);
		if (rc == SQLITE_DONE)
			*n += (size_t)sqlite3_changes(mlib_db_sqlite(db));
	}
	if (mlib_db_finish(db, st, rc, "cannot forget items", err) != 0 ||
	    (*n && mlib_media_gc_strings(db, NULL, err) != 0) || mlib_db_commit(db, err) != 0) {
		mlib_db_rollback(db, NULL);
		*n = 0;
		return -1;
	}
	return 0;
}

static bool url_under(const void *url, size_t len, const char *dir)
{
	size_t dl = strlen(dir);
	return dl == 1 && dir[0] == '/' ? true
					: len > dl && memcmp(url, dir, dl) == 0 && ((const char *)url)[dl] == '/';
}

static int prune_rows(struct mlib_db *db, const char *const *keep, size_t nkeep, size_t *n,
		      size_t *kept, struct crate_err *err)
{
	const char *what = "cannot forget missing items";
	sqlite3_stmt *sel, *del;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db), "SELECT id, url FROM media WHERE missing=1", -1,
			       &sel, NULL) != SQLITE_OK)
		return mlib_db_error(db, what, err);
	if (sqlite3_prepare_v2(mlib_db_sqlite(db), "DELETE FROM media WHERE id=?", -1, &del,
			       NULL) != SQLITE_OK) {
		sqlite3_finalize(sel);
		return mlib_db_error(db, what, err);
	}
	int rc;
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		const void *url = sqlite3_column_blob(sel, 1);
		size_t len = (size_t)sqlite3_column_bytes(sel, 1);
		bool under = false;
		for (size_t i = 0; i < nkeep && !under; i++)
			under = url && url_under(url, len, keep[i]);
		if (under) {
			(*kept)++;
			continue;
		}
		sqlite3_bind_int64(del, 1, sqlite3_column_int64(sel, 0));
		int drc = sqlite3_step(del);
		sqlite3_reset(del);
		if (drc != SQLITE_DONE) {
			rc = drc;
			break;
		}
		(*n)++;
	}
	sqlite3_finalize(del);
	return mlib_db_finish(db, sel, rc, what, err);
}

int mlib_media_prune_missing(struct mlib_db *db, const char *const *keep, size_t nkeep, size_t *n,
			     size_t *kept, struct crate_err *err)
{
	size_t dummy;
	if (!kept)
		kept = &dummy;
	*n = *kept = 0;
	if (mlib_db_begin(db, err) != 0)
		return -1;
	if (prune_rows(db, keep, nkeep, n, kept, err) != 0 ||
	    (*n && mlib_media_gc_strings(db, NULL, err) != 0) || mlib_db_commit(db, err) != 0) {
		mlib_db_rollback(db, NULL);
		*n = *kept = 0;
		return -1;
	}
	return 0;
}

int mlib_media_counters(struct mlib_db *db, uint64_t *generation, uint64_t *stats,
			struct crate_err *err)
{
	*generation = *stats = 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db),
			       "SELECT n, stats FROM media_generation WHERE id = 0", -1, &st,
			       NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot read the library's change counter", err);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*generation = (uint64_t)sqlite3_column_int64(st, 0);
		*stats = (uint64_t)sqlite3_column_int64(st, 1);
		rc = SQLITE_DONE;
	}
	return mlib_db_finish(db, st, rc, "cannot read the library's change counter", err);
}

int mlib_media_find_url(struct mlib_db *db, const char *url, size_t urllen, uint32_t *id,
			struct crate_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db), "SELECT id FROM media WHERE url=?", -1, &st,
			       NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot look up a file", err);
	sqlite3_bind_blob(st, 1, url, (int)urllen, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = (uint32_t)sqlite3_column_int64(st, 0);
	int ret = rc == SQLITE_ROW ? 0
		  : rc == SQLITE_DONE ? crate_err_set(err, CRATE_ERR_NOTFOUND,
						      "%.*s: not in the library", (int)urllen, url)
				      : mlib_db_error(db, "cannot look up a file", err);
	sqlite3_finalize(st);
	return ret;
}

int mlib_media_find_urls(struct mlib_db *db, const char *const *urls, size_t n, uint32_t *ids,
			 struct crate_err *err)
{
	if (n)
		memset(ids, 0, n * sizeof *ids);
	sqlite3 *sql = mlib_db_sqlite(db);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(sql, "SELECT id FROM media WHERE url=?", -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot look up files", err);
	/* One snapshot for the whole batch instead of a lock per lookup. */
	bool own = sqlite3_get_autocommit(sql) &&
		   sqlite3_exec(sql, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
	int rc = SQLITE_DONE;
	for (size_t i = 0; i < n && rc == SQLITE_DONE; i++) {
		if (!urls[i])
			continue;
		sqlite3_bind_blob(st, 1, urls[i], (int)strlen(urls[i]), SQLITE_STATIC);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			ids[i] = (uint32_t)sqlite3_column_int64(st, 0);
			rc = SQLITE_DONE;
		}
		if (rc == SQLITE_DONE)
			sqlite3_reset(st);
	}
	int ret = rc == SQLITE_DONE ? 0 : mlib_db_error(db, "cannot look up files", err);
	sqlite3_finalize(st);
	if (own)
		sqlite3_exec(sql, "COMMIT", NULL, NULL, NULL); /* read only: cannot lose a change */
	return ret;
}

int mlib_media_cue_tracks(struct mlib_db *db, const char *url, size_t len, uint32_t **ids,
			  size_t *n, struct crate_err *err)
{
	*ids = NULL;
	*n = 0;
	/* "FILE#" <= url < "FILE$": the unique index on url finds them. */
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db),
			       "SELECT id FROM media WHERE url >= ?1 AND url < ?2 AND missing=0"
			       " AND cue_start IS NOT NULL ORDER BY cue_start",
			       -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot look up a file's cue tracks", err);
	char *lo = xmalloc(len + 1), *hi = xmalloc(len + 1);
	memcpy(lo, url, len);
	memcpy(hi, url, len);
	lo[len] = '#';
	hi[len] = '#' + 1;
	sqlite3_bind_blob(st, 1, lo, (int)len + 1, free);
	sqlite3_bind_blob(st, 2, hi, (int)len + 1, free);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*ids = xreallocarray(*ids, *n + 1, sizeof **ids);
		(*ids)[(*n)++] = (uint32_t)sqlite3_column_int64(st, 0);
	}
	if (mlib_db_finish(db, st, rc, "cannot look up a file's cue tracks", err) != 0) {
		free(*ids);
		*ids = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

int mlib_media_exists(struct mlib_db *db, uint32_t id, struct crate_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db), "SELECT 1 FROM media WHERE id=? AND missing=0",
			       -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot look up a media id", err);
	sqlite3_bind_int64(st, 1, id);
	int rc = sqlite3_step(st);
	int ret = rc == SQLITE_ROW ? 1
		  : rc == SQLITE_DONE ? 0 : mlib_db_error(db, "cannot look up a media id", err);
	sqlite3_finalize(st);
	return ret;
}

/* media_text's text columns: their first value is there, the others (seq
 * 1, 2, ...) in media_tag like any other tag's. */
static const char *const stored_columns[] = {"url",	    "format", "artist", "album",
					     "albumartist", "title",  "date",	"genre",
					     "composer",    "comment"};

int mlib_media_stored_text(struct mlib_db *db, uint32_t id, const char *prop, const char *sep,
			   struct strbuf *out, struct crate_err *err)
{
	const char *what = "cannot read a stored value";
	int found = 0;
	for (size_t i = 0; i < sizeof stored_columns / sizeof *stored_columns; i++) {
		if (strcmp(prop, stored_columns[i]) != 0)
			continue;
		char sql[80]; /* a column name from the table above, never user text */
		snprintf(sql, sizeof sql, "SELECT %s FROM media_text WHERE id=?", stored_columns[i]);
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(mlib_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
			return mlib_db_error(db, what, err);
		sqlite3_bind_int64(st, 1, id);
		int rc = sqlite3_step(st);
		if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			strbuf_add(out, (const char *)sqlite3_column_blob(st, 0),
				   (size_t)sqlite3_column_bytes(st, 0));
			found = 1;
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return mlib_db_error(db, what, err);
		break;
	}
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db),
			       "SELECT value FROM media_tag WHERE media_id=? AND key=? ORDER BY seq", -1,
			       &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, what, err);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, prop, -1, SQLITE_STATIC);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (found++)
			strbuf_adds(out, sep);
		strbuf_add(out, (const char *)sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return mlib_db_error(db, what, err);
	return found > 0;
}

/* Run an UPDATE on one row; CRATE_ERR_NOTFOUND when the id does not exist. */
static int update_row(struct mlib_db *db, const char *sql, uint32_t id, int64_t a, int nargs,
		      const char *what, struct crate_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, what, err);
	int p = 1;
	if (nargs > 0)
		sqlite3_bind_int64(st, p++, a);
	sqlite3_bind_int64(st, p, id);
	if (mlib_db_finish(db, st, sqlite3_step(st), what, err) != 0)
		return -1;
	if (sqlite3_changes(mlib_db_sqlite(db)) == 0)
		return crate_err_set(err, CRATE_ERR_NOTFOUND, "media #%u does not exist", id);
	return 0;
}

/* A counter was incremented in SQLite (another process may have too):
 * read it back (sql selects it by id) into the index as prop. */
static void index_counter(struct mlib_db *db, struct mlib_index *idx, uint32_t id,
			  const char *sql, const char *prop)
{
	sqlite3_stmt *st;
	int64_t n = 1;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db), sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	mlib_index_update_int(idx, id, prop, n);
}

int mlib_media_record_play(struct mlib_db *db, struct mlib_index *idx, uint32_t id, int64_t when,
			   struct crate_err *err)
{
	if (update_row(db,
		       "UPDATE media SET timesplayed=coalesce(timesplayed, 0)+1, lastplayed=?"
		       " WHERE id=?",
		       id, when, 1, "cannot record a play", err) != 0)
		return -1;
	if (idx) {
		index_counter(db, idx, id, "SELECT timesplayed FROM media WHERE id=?", "timesplayed");
		mlib_index_update_int(idx, id, "lastplayed", when);
	}
	return 0;
}

int mlib_media_set_duration(struct mlib_db *db, struct mlib_index *idx, uint32_t id,
			    int64_t ms, struct crate_err *err)
{
	if (ms <= 0)
		return crate_err_set(err, CRATE_ERR_INVALID, "duration %lld: must be positive",
				     (long long)ms);
	if (update_row(db, "UPDATE media SET duration=? WHERE id=?", id, ms, 1,
		       "cannot correct the duration", err) != 0)
		return -1;
	if (idx)
		mlib_index_update_int(idx, id, "duration", ms);
	return 0;
}

int mlib_media_record_skip(struct mlib_db *db, struct mlib_index *idx, uint32_t id,
			   struct crate_err *err)
{
	if (update_row(db, "UPDATE media SET timesskipped=coalesce(timesskipped, 0)+1 WHERE id=?",
		       id, 0, 0, "cannot record a skip", err) != 0)
		return -1;
	if (idx)
		index_counter(db, idx, id, "SELECT timesskipped FROM media WHERE id=?", "timesskipped");
	return 0;
}

int mlib_media_set_rating(struct mlib_db *db, struct mlib_index *idx, uint32_t id, int rating,
			  struct crate_err *err)
{
	if (rating < 0 || rating > 5)
		return crate_err_set(err, CRATE_ERR_INVALID, "rating %d: must be 0 to 5", rating);
	int rc = rating ? update_row(db, "UPDATE media SET rating=? WHERE id=?", id, rating, 1,
				     "cannot set the rating", err)
			: update_row(db, "UPDATE media SET rating=NULL WHERE id=?", id, 0, 0,
				     "cannot set the rating", err);
	if (rc != 0)
		return -1;
	if (idx && rating)
		mlib_index_update_int(idx, id, "rating", rating);
	else if (idx) /* absent, as a reload shows it */
		mlib_index_clear_int(idx, id, "rating");
	return 0;
}

int mlib_media_set_ratings(struct mlib_db *db, struct mlib_index *idx, const uint32_t *ids,
			   size_t n, int rating, struct crate_err *err)
{
	if (rating < 0 || rating > 5)
		return crate_err_set(err, CRATE_ERR_INVALID, "rating %d: must be 0 to 5", rating);
	if (mlib_db_begin(db, err) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int rc = rating ? update_row(db, "UPDATE media SET rating=? WHERE id=?", ids[i],
					     rating, 1, "cannot set the rating", err)
				: update_row(db, "UPDATE media SET rating=NULL WHERE id=?", ids[i], 0,
					     0, "cannot set the rating", err);
		if (rc != 0) {
			mlib_db_rollback(db, NULL);
			return -1;
		}
	}
	if (mlib_db_commit(db, err) != 0) {
		mlib_db_rollback(db, NULL);
		return -1;
	}
	/* The index follows only what was committed. */
	for (size_t i = 0; idx && i < n; i++) {
		if (rating)
			mlib_index_update_int(idx, ids[i], "rating", rating);
		else
			mlib_index_clear_int(idx, ids[i], "rating");
	}
	return 0;
}
