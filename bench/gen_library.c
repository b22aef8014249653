/* Benchmark library generator: deterministic (seeded) music metadata with
 * realistic shape, written either as
 *
 *   gen_library files DIR COUNT TEMPLATE_DIR [SEED]
 *       real small audio files: each album copies one of the encoded
 *       templates in TEMPLATE_DIR (t.mp3 t.flac t.ogg t.m4a, and va.* with
 *       an album-artist "Various Artists" tag for compilations, since the
 *       TagLib 1.x C API cannot set one) and rewrites its tags with TagLib;
 *   gen_library db DBPATH COUNT [SEED]
 *       metadata rows straight into a crate database (no audio files);
 *   gen_library tsv COUNT [SEED]
 *       the metadata as tab-separated text on stdout (to eyeball the model).
 *
 * The shape: artists drawn with Zipf-like popularity (s = 0.8), albums of
 * 8-15 tracks (some with two discs), years 1950-2026 leaning recent, a
 * primary genre per artist, 4 % "Various Artists" compilations, a few
 * missing tags, and names in English, accented Latin, CJK and Cyrillic.
 * The same seed and count always give the same library. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <taglib/tag_c.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/str.h"
#include "medialib/db.h"
#include "medialib/media.h"
#include "medialib/tags.h"

/* ---- deterministic randomness ---- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	/* splitmix64: tiny, fast, and the same on every platform */
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double rng_unit(void) /* [0, 1) */
{
	return (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0);
}

static unsigned rng_below(unsigned n)
{
	return (unsigned)(rng_unit() * n);
}

static bool rng_chance(double p)
{
	return rng_unit() < p;
}

/* ---- word lists ---- */

static const char *const words_en[] = {
	"Love", "Night", "Day", "Heart", "Fire", "Rain", "Summer", "Blue", "Dream", "Light",
	"Dance", "Time", "World", "Song", "Road", "River", "Moon", "Sun", "Star", "Girl",
	"Boy", "Home", "City", "Midnight", "Morning", "Ocean", "Wild", "Golden", "Silver",
	"Electric", "Broken", "Secret", "Lonely", "Sweet", "Crazy", "Little", "Big", "Last",
	"First", "Forever", "Shadow", "Thunder", "Storm", "Angel", "Devil", "Paradise",
	"Highway", "Velvet", "Echo", "Mirror", "Glass", "Stone", "Water", "Wind", "Winter",
	"Spring", "Autumn", "Rose", "Garden", "Machine", "Radio", "Television", "Satellite",
	"Rocket", "Train", "Station", "Street", "Avenue", "Boulevard", "Kingdom", "Empire",
	"Revolution", "Freedom", "Memory", "Ghost", "Spirit", "Soul", "Blood", "Bones",
	"Tears", "Smile", "Kiss", "Goodbye", "Hello", "Tonight", "Tomorrow", "Yesterday",
	"Always", "Never", "Again", "Alone", "Together", "Beautiful", "Strange", "Dark",
	"Bright", "Cold", "Warm", "Slow", "Fast", "High", "Low", "Deep", "Falling", "Rising",
	"Running", "Waiting", "Dreaming", "Burning", "Shining", "Calling", "Talking", "Walking",
	"Flying", "Crying", "Lies", "Truth", "Hope", "Faith", "Gravity", "Horizon", "Island",
	"Desert", "Mountain", "Valley", "Forest", "Jungle", "Tiger", "Wolf", "Horse", "Bird",
	"Butterfly", "Diamond", "Pearl", "Gold", "Honey", "Sugar", "Candy", "Cherry", "Lemon",
	"Orange", "Velocity", "Signal", "Static", "Neon", "Chrome", "Atlas", "Orbit", "Pulse",
	"Wave", "Tide", "Harbor", "Lantern", "Candle", "Window", "Door", "Bridge", "Tower",
	"Castle", "Crown", "Queen", "King", "Prince", "Jester", "Saint", "Sinner", "Hero",
	"Stranger", "Lover", "Friend", "Mother", "Father", "Sister", "Brother", "Baby",
};
static const char *const words_acc[] = {
	"Café", "Señor", "Über", "Déjà", "Noël", "Ærø", "Straße", "Björk", "Søren", "Mañana",
	"Corazón", "Été", "Rêve", "Fête", "Cœur", "Château", "Lumière", "Garçon", "Ça", "Müde",
	"Größe", "Nuit", "Élan", "Ça Va", "Jalapeño", "São", "Ação", "Tūtū", "Łódź", "Đorđe",
	"Þórr", "Ísland", "Åsa", "Väinö", "Öl", "Mädchen", "Niño", "Pájaro", "Canción", "Olé",
};
static const char *const words_cjk[] = {
	"東京", "夜", "桜", "音楽", "夢", "雨", "空", "海", "星", "愛", "花火", "月光", "未来",
	"사랑", "우리", "하늘", "노래", "별", "北京", "上海", "春天", "秋", "風", "光", "心",
};
static const char *const words_cyr[] = {
	"Москва", "Ночь", "Звезда", "Любовь", "Весна", "Зима", "Река", "Город", "Солнце",
	"Ветер", "Память", "Дорога", "Небо", "Песня", "Мечта", "Огонь", "Снег", "Берег",
};
static const char *const first_names[] = {
	"John", "Mary", "David", "Anna", "Michael", "Laura", "James", "Sofia", "Peter", "Nina",
	"Marco", "Chloé", "José", "Zoë", "Håkon", "Ingrid", "Yuki", "Dmitri", "Olga", "Amélie",
};
static const char *const last_names[] = {
	"Smith", "Jones", "Brown", "Miller", "Davis", "García", "Müller", "Dubois", "Rossi",
	"Nakamura", "Petrov", "Ivanova", "Johansson", "Nowak", "O'Brien", "Kowalski", "Silva",
};
static const char *const genres[] = {
	"Rock", "Pop", "Jazz", "Classical", "Electronic", "Hip-Hop", "Blues", "Country",
	"Folk", "Metal", "Punk", "Reggae", "Soul", "R&B", "Funk", "Ambient", "Techno",
	"House", "Indie", "Alternative", "Soundtrack", "World", "Latin", "Chanson", "K-Pop",
};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

enum lang { LANG_EN, LANG_ACC, LANG_CJK, LANG_CYR };

static const char *word_in(enum lang l)
{
	switch (l) {
	case LANG_ACC:
		return rng_chance(0.5) ? words_acc[rng_below(NELEM(words_acc))]
				       : words_en[rng_below(NELEM(words_en))];
	case LANG_CJK:
		return words_cjk[rng_below(NELEM(words_cjk))];
	case LANG_CYR:
		return words_cyr[rng_below(NELEM(words_cyr))];
	default:
		return words_en[rng_below(NELEM(words_en))];
	}
}

/* A phrase of 1..maxw words; CJK words join without spaces. */
static void phrase(char *out, size_t cap, enum lang l, unsigned maxw)
{
	unsigned n = 1 + rng_below(maxw);
	size_t len = 0;
	out[0] = '\0';
	for (unsigned i = 0; i < n && len + 1 < cap; i++) {
		int w = snprintf(out + len, cap - len, "%s%s", i && l != LANG_CJK ? " " : "",
				 word_in(l));
		if (w < 0 || (size_t)w >= cap - len)
			break;
		len += (size_t)w;
	}
}

/* ---- the metadata model ---- */

struct gen_artist {
	char name[96];
	enum lang lang;
	unsigned genre;
};

struct gen_track {
	const char *artist;      /* NULL = tag missing */
	const char *albumartist; /* NULL unless a compilation */
	const char *album;
	const char *title;
	const char *genre;
	unsigned year;           /* 0 = missing */
	unsigned tracknr, discnr;
	unsigned format;         /* index into formats[] */
	unsigned album_serial;
	int64_t duration_ms;
};

struct gen {
	struct gen_artist *artists;
	unsigned nartists;
	double *cum;             /* Zipf cumulative weights */
	/* current album */
	unsigned album_serial, album_tracks, album_pos, album_discs;
	unsigned album_artist, album_year, album_format;
	bool album_va, album_no_year;
	char album[160];
	char title[200];
};

static const char *const formats[] = {"mp3", "flac", "ogg", "m4a"};

static void gen_init(struct gen *g, uint64_t seed, unsigned ntracks)
{
	memset(g, 0, sizeof *g);
	rng_state = seed;
	/* about one artist per 30 tracks: a few giants and a long tail */
	g->nartists = ntracks / 30 + 8;
	g->artists = xcalloc(g->nartists, sizeof *g->artists);
	g->cum = xcalloc(g->nartists, sizeof *g->cum);
	double sum = 0;
	for (unsigned i = 0; i < g->nartists; i++) {
		struct gen_artist *a = &g->artists[i];
		double u = rng_unit();
		a->lang = u < 0.80 ? LANG_EN : u < 0.90 ? LANG_ACC : u < 0.95 ? LANG_CJK : LANG_CYR;
		a->genre = rng_below(NELEM(genres));
		unsigned shape = rng_below(4);
		char p[80];
		if (a->lang == LANG_EN && shape == 0) {
			snprintf(a->name, sizeof a->name, "%s %s", first_names[rng_below(NELEM(first_names))],
				 last_names[rng_below(NELEM(last_names))]);
		} else if (a->lang == LANG_EN && shape == 1) {
			phrase(p, sizeof p, LANG_EN, 2);
			snprintf(a->name, sizeof a->name, "The %s", p);
		} else {
			phrase(p, sizeof p, a->lang, 3);
			snprintf(a->name, sizeof a->name, "%s", p);
		}
		/* distinct names: a suffix for the rare clash is cheaper than a set */
		if (i % 7 == 3)
			snprintf(a->name + strlen(a->name), sizeof a->name - strlen(a->name), " %u", i);
		sum += pow((double)(i + 1), -0.8);
		g->cum[i] = sum;
	}
	for (unsigned i = 0; i < g->nartists; i++)
		g->cum[i] /= sum;
}

static void gen_free(struct gen *g)
{
	free(g->artists);
	free(g->cum);
}

static unsigned gen_pick_artist(const struct gen *g)
{
	double u = rng_unit();
	unsigned lo = 0, hi = g->nartists - 1;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		if (g->cum[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void gen_new_album(struct gen *g)
{
	g->album_serial++;
	g->album_tracks = 8 + rng_below(8);
	g->album_discs = rng_chance(0.08) ? 2 : 1;
	g->album_pos = 0;
	g->album_va = rng_chance(0.04);
	g->album_artist = gen_pick_artist(g);
	/* years lean recent: more records from later decades */
	g->album_year = 1950 + (unsigned)(77 * sqrt(rng_unit()));
	g->album_no_year = rng_chance(0.02);
	double f = rng_unit();
	g->album_format = f < 0.40 ? 0 : f < 0.65 ? 1 : f < 0.85 ? 2 : 3;
	const struct gen_artist *a = &g->artists[g->album_artist];
	char p[120];
	phrase(p, sizeof p, g->album_va ? LANG_EN : a->lang, 4);
	if (g->album_va)
		snprintf(g->album, sizeof g->album, "The Best of %s %u", p, g->album_year);
	else if (rng_chance(0.03))
		snprintf(g->album, sizeof g->album, "Greatest Hits");
	else if (rng_chance(0.04))
		snprintf(g->album, sizeof g->album, "%s (Live)", p);
	else
		snprintf(g->album, sizeof g->album, "%s", p);
}

static void gen_next(struct gen *g, struct gen_track *t)
{
	if (g->album_pos == g->album_tracks || g->album_serial == 0)
		gen_new_album(g);
	unsigned pos = g->album_pos++;
	memset(t, 0, sizeof *t);
	const struct gen_artist *a =
		&g->artists[g->album_va ? gen_pick_artist(g) : g->album_artist];
	unsigned per_disc = (g->album_tracks + g->album_discs - 1) / g->album_discs;
	t->discnr = g->album_discs > 1 ? pos / per_disc + 1 : 0;
	t->tracknr = pos % per_disc + 1;
	t->album_serial = g->album_serial;
	t->format = g->album_format;
	t->artist = rng_chance(0.002) ? NULL : a->name;
	t->albumartist = g->album_va ? "Various Artists" : NULL;
	t->album = rng_chance(0.005) ? NULL : g->album;
	t->year = g->album_no_year ? 0 : g->album_year;
	t->genre = rng_chance(0.03) ? NULL
		   : rng_chance(0.1) ? genres[rng_below(NELEM(genres))] : genres[a->genre];
	t->duration_ms = 90000 + (int64_t)rng_below(330000);
	char p[150];
	phrase(p, sizeof p, a->lang, 5);
	double u = rng_unit();
	if (u < 0.03)
		snprintf(g->title, sizeof g->title, "%s (Remastered %u)", p, 2000 + rng_below(25));
	else if (u < 0.05)
		snprintf(g->title, sizeof g->title, "%s, Part %s", p, rng_chance(0.5) ? "II" : "1");
	else if (u < 0.07)
		snprintf(g->title, sizeof g->title, "%s (feat. %s)", p,
			 g->artists[gen_pick_artist(g)].name);
	else
		snprintf(g->title, sizeof g->title, "%s", p);
	t->title = rng_chance(0.005) ? NULL : g->title;
}

/* ---- mode: tsv ---- */

static int run_tsv(unsigned count, uint64_t seed)
{
	struct gen g;
	struct gen_track t;
	gen_init(&g, seed, count);
	for (unsigned i = 0; i < count; i++) {
		gen_next(&g, &t);
		printf("%u\t%s\t%s\t%s\t%s\t%u\t%u\t%u\t%s\t%s\n", i + 1, t.artist ? t.artist : "-",
		       t.albumartist ? t.albumartist : "-", t.album ? t.album : "-",
		       t.title ? t.title : "-", t.year, t.discnr, t.tracknr, t.genre ? t.genre : "-",
		       formats[t.format]);
	}
	gen_free(&g);
	return 0;
}

/* ---- mode: files ---- */

struct blob {
	char *data;
	size_t len;
};

static int read_whole(const char *path, struct blob *b)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	struct strbuf sb;
	strbuf_init(&sb, 65536);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	b->len = sb.len;
	b->data = strbuf_steal(&sb);
	return 0;
}

/* A directory or file name from tag text: no '/', no leading dot, short. */
static void name_from(char *out, size_t cap, const char *s)
{
	size_t o = 0;
	for (; *s && o + 1 < cap; s++) {
		bool bad = *s == '/' || (o == 0 && *s == '.');
		out[o] = bad ? '_' : *s;
		o++;
	}
	/* cut short: drop the last (maybe partial) UTF-8 sequence */
	if (*s) {
		while (o > 0 && ((unsigned char)out[o - 1] & 0xC0) == 0x80)
			o--;
		if (o > 0 && (unsigned char)out[o - 1] >= 0xC0)
			o--;
	}
	out[o] = '\0';
	if (o == 0)
		snprintf(out, cap, "_");
}

static int write_file(const char *path, const struct blob *b)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	size_t off = 0;
	while (off < b->len) {
		ssize_t w = write(fd, b->data + off, b->len - off);
		if (w < 0) {
			close(fd);
			return -1;
		}
		off += (size_t)w;
	}
	return close(fd);
}

static int run_files(const char *dir, unsigned count, const char *tpl_dir, uint64_t seed)
{
	struct blob tpl[2][NELEM(formats)];
	for (unsigned va = 0; va < 2; va++)
		for (unsigned f = 0; f < NELEM(formats); f++) {
			char *p = xasprintf("%s/%s.%s", tpl_dir, va ? "va" : "t", formats[f]);
			if (read_whole(p, &tpl[va][f]) != 0) {
				fprintf(stderr, "gen_library: %s: %s\n", p, strerror(errno));
				free(p);
				return 1;
			}
			free(p);
		}
	taglib_set_strings_unicode(1);
	taglib_id3v2_set_default_text_encoding(TagLib_ID3v2_UTF8);
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "gen_library: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	struct gen g;
	struct gen_track t;
	gen_init(&g, seed, count);
	char adir[4096], ldir[4096], path[4096], name[128];
	unsigned last_album = 0;
	int rc = 0;
	for (unsigned i = 0; i < count && rc == 0; i++) {
		gen_next(&g, &t);
		if (t.album_serial != last_album) {
			last_album = t.album_serial;
			name_from(name, 64, t.albumartist ? t.albumartist
					    : t.artist	  ? t.artist
							  : "Unknown Artist");
			snprintf(adir, sizeof adir, "%s/%s", dir, name);
			mkdir(adir, 0755);
			name_from(name, 64, g.album);
			snprintf(ldir, sizeof ldir, "%s/%s [%u]", adir, name, t.album_serial);
			if (mkdir(ldir, 0755) != 0 && errno != EEXIST) {
				fprintf(stderr, "gen_library: %s: %s\n", ldir, strerror(errno));
				rc = 1;
				break;
			}
		}
		name_from(name, 72, t.title ? t.title : "untitled");
		snprintf(path, sizeof path, "%s/%u-%02u %s.%s", ldir, t.discnr ? t.discnr : 1,
			 t.tracknr, name, formats[t.format]);
		if (write_file(path, &tpl[t.albumartist != NULL][t.format]) != 0) {
			fprintf(stderr, "gen_library: %s: %s\n", path, strerror(errno));
			rc = 1;
			break;
		}
		TagLib_File *tf = taglib_file_new(path);
		if (!tf || !taglib_file_is_valid(tf)) {
			fprintf(stderr, "gen_library: %s: TagLib cannot open the template copy\n", path);
			if (tf)
				taglib_file_free(tf);
			rc = 1;
			break;
		}
		TagLib_Tag *tag = taglib_file_tag(tf);
		taglib_tag_set_artist(tag, t.artist ? t.artist : "");
		taglib_tag_set_album(tag, t.album ? t.album : "");
		taglib_tag_set_title(tag, t.title ? t.title : "");
		taglib_tag_set_genre(tag, t.genre ? t.genre : "");
		taglib_tag_set_year(tag, t.year);
		taglib_tag_set_track(tag, t.tracknr);
		if (!taglib_file_save(tf)) {
			fprintf(stderr, "gen_library: %s: TagLib could not save the tags\n", path);
			rc = 1;
		}
		taglib_file_free(tf);
	}
	gen_free(&g);
	for (unsigned va = 0; va < 2; va++)
		for (unsigned f = 0; f < NELEM(formats); f++)
			free(tpl[va][f].data);
	return rc;
}

/* ---- mode: db ---- */

struct gen_db_row {
	const char *url, *artist, *albumartist, *album, *title, *genre, *format;
	unsigned year, tracknr, discnr;
	int64_t duration_ms, added;
};

/* Rows go through the media library's own writer (src/medialib/media.h),
 * so the database is exactly what a scan would have written, in
 * transactions of GEN_DB_BATCH rows. */
#define GEN_DB_BATCH 50000

struct gen_db {
	struct mlib_db *db;
	struct mlib_media_writer *w;
	unsigned pending;
	struct mlib_tags tags;
};

static struct gen_db *gen_db_open(const char *path, struct crate_err *err)
{
	struct gen_db *g = xcalloc(1, sizeof *g);
	mlib_tags_init(&g->tags);
	if (mlib_db_open(path, 0, &g->db, err) != 0) {
		free(g);
		return NULL;
	}
	/* a throw-away benchmark file: durability is not the point here */
	mlib_db_exec(g->db, "PRAGMA synchronous=OFF", NULL);
	g->w = mlib_media_writer_new(g->db, err);
	if (!g->w || mlib_db_begin(g->db, err) != 0) {
		mlib_media_writer_free(g->w);
		mlib_db_close(g->db);
		free(g);
		return NULL;
	}
	return g;
}

static int gen_db_add(struct gen_db *g, const struct gen_db_row *r, struct crate_err *err)
{
	char num[32];
	struct mlib_tags *t = &g->tags;
	mlib_tags_free(t);
	mlib_tags_init(t);
	t->duration_ms = r->duration_ms;
	t->bitrate = 256000;
	t->samplerate = 44100;
	t->channels = 2;
	t->format = xstrdup(r->format);
	if (r->artist)
		mlib_tags_add(t, "artist", r->artist);
	if (r->albumartist)
		mlib_tags_add(t, "albumartist", r->albumartist);
	if (r->album)
		mlib_tags_add(t, "album", r->album);
	if (r->title)
		mlib_tags_add(t, "title", r->title);
	if (r->genre)
		mlib_tags_add(t, "genre", r->genre);
	if (r->year) {
		snprintf(num, sizeof num, "%u", r->year);
		mlib_tags_add(t, "date", num);
	}
	snprintf(num, sizeof num, "%u", r->tracknr);
	mlib_tags_add(t, "tracknr", num);
	if (r->discnr) {
		snprintf(num, sizeof num, "%u", r->discnr);
		mlib_tags_add(t, "discnr", num);
	}
	uint32_t id;
	if (mlib_media_put(g->w, r->url, strlen(r->url), 4000000, r->added, r->added, t, &id, err) != 0)
		return -1;
	if (++g->pending == GEN_DB_BATCH) {
		g->pending = 0;
		if (mlib_db_commit(g->db, err) != 0 || mlib_db_begin(g->db, err) != 0)
			return -1;
	}
	return 0;
}

static int gen_db_finish(struct gen_db *g, struct crate_err *err)
{
	return mlib_db_commit(g->db, err);
}

static void gen_db_close(struct gen_db *g)
{
	if (!g)
		return;
	mlib_media_writer_free(g->w);
	mlib_tags_free(&g->tags);
	mlib_db_close(g->db);
	free(g);
}

static double now_s(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

static int run_db(const char *path, unsigned count, uint64_t seed)
{
	struct crate_err err = {0};
	struct gen_db *w = gen_db_open(path, &err);
	if (!w) {
		fprintf(stderr, "gen_library: %s\n", err.msg);
		return 1;
	}
	struct gen g;
	struct gen_track t;
	gen_init(&g, seed, count);
	double t0 = now_s();
	int rc = 0;
	char url[4096];
	for (unsigned i = 0; i < count && rc == 0; i++) {
		gen_next(&g, &t);
		snprintf(url, sizeof url, "/music/%u/%u-%02u.%s", t.album_serial,
			 t.discnr ? t.discnr : 1, t.tracknr, formats[t.format]);
		struct gen_db_row r = {
			.url = url, .artist = t.artist, .albumartist = t.albumartist,
			.album = t.album, .title = t.title, .genre = t.genre,
			.year = t.year, .tracknr = t.tracknr, .discnr = t.discnr,
			.duration_ms = t.duration_ms, .format = formats[t.format],
			.added = 1700000000 + (int64_t)i * 60,
		};
		rc = gen_db_add(w, &r, &err);
	}
	if (rc == 0)
		rc = gen_db_finish(w, &err);
	gen_db_close(w);
	gen_free(&g);
	if (rc != 0) {
		fprintf(stderr, "gen_library: %s\n", err.msg);
		return 1;
	}
	fprintf(stderr, "gen_library: %u tracks written to %s in %.2f s\n", count, path,
		now_s() - t0);
	return 0;
}

static uint64_t parse_seed(int argc, char **argv, int i)
{
	return i < argc ? strtoull(argv[i], NULL, 0) : 20240501;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "tsv") == 0)
		return run_tsv((unsigned)strtoul(argv[2], NULL, 10), parse_seed(argc, argv, 3));
	if (argc >= 4 && strcmp(argv[1], "db") == 0)
		return run_db(argv[2], (unsigned)strtoul(argv[3], NULL, 10), parse_seed(argc, argv, 4));
	if (argc >= 5 && strcmp(argv[1], "files") == 0)
		return run_files(argv[2], (unsigned)strtoul(argv[3], NULL, 10), argv[4],
				 parse_seed(argc, argv, 5));
	fprintf(stderr, "usage: gen_library files DIR COUNT TEMPLATE_DIR [SEED]\n"
			"       gen_library db DBPATH COUNT [SEED]\n"
			"       gen_library tsv COUNT [SEED]\n");
	return 1;
}
