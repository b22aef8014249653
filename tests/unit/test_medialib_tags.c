/* Every value of every tag (issue 18 part 6, issue 14 item 14): values of
 * multi-valued tags in each encoding arrive as separate values, and a ';'
 * inside one value never splits it. Files from ../shared/corpus whose
 * layout is known (see MANIFEST.tsv's mutagen_* columns), and FLAC files
 * made here with the ffmpeg CLI. */
#include <stdio.h>

#include "base/str.h"
#include "medialib/tags.h"
#include "test_medialib_util.h"

/* The values of key in t joined with '|' (for one readable comparison). */
static char *values_of(const struct mlib_tags *t, const char *key)
{
	struct strbuf b;
	strbuf_init(&b, 64);
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->v[i].key, key) == 0) {
			if (b.len)
				strbuf_adds(&b, "|");
			strbuf_adds(&b, t->v[i].value);
		}
	return strbuf_steal(&b);
}

static void read_corpus(const char *name, struct mlib_tags *t)
{
	const char *corpus = harness_corpus_dir();
	if (!corpus)
		harness_skip("../shared/corpus not found");
	char *path = xasprintf("%s/%s", corpus, name);
	struct crate_err err = {0};
	mlib_tags_init(t);
	CHECK_MSG(mlib_tags_read(path, 5000, t, &err) == 0, "%s", err.msg);
	free(path);
}

#define CHECK_VALUES(t, key, want)                                                               \
	do {                                                                                     \
		char *got_ = values_of(t, key);                                                  \
		CHECK_MSG(strcmp(got_, want) == 0, "%s: got '%s', want '%s'", key, got_, want); \
		free(got_);                                                                      \
	} while (0)

TEST(tags_id3v24_null_separated_lists_every_value)
{
	struct mlib_tags t;
	read_corpus("musicmetadata-id3v2.4-with-multiple-album-artists-null-separated.mp3", &t);
	CHECK_VALUES(&t, "artist", "ArtistOne|ArtistTwo");
	CHECK_VALUES(&t, "albumartist", "ArtistOne|ArtistTwo");
	CHECK_VALUES(&t, "genre", "Soundtrack|OST");
	CHECK_VALUES(&t, "title", "Home");
	mlib_tags_free(&t);
	read_corpus("musicmetadata-id3v2.4.mp3", &t);
	CHECK_VALUES(&t, "artist", "Explo|ions|nodejsftws");
	mlib_tags_free(&t);
}

TEST(tags_id3v23_null_separated_and_ape_lists)
{
	struct mlib_tags t;
	read_corpus("mutagen-silence-44-s.mp3", &t); /* ID3v2.3 with a NUL-separated TPE1 */
	CHECK_VALUES(&t, "artist", "piman|jzig");
	mlib_tags_free(&t);
	read_corpus("mutagen-silence-44-s.wv", &t); /* APEv2 list */
	CHECK_VALUES(&t, "artist", "piman|jzig");
	mlib_tags_free(&t);
}

TEST(tags_repeated_vorbis_comments_are_separate_values)
{
	struct mlib_tags t;
	read_corpus("taglib-silence-44-s.flac", &t);
	CHECK_VALUES(&t, "artist", "piman|jzig");
	mlib_tags_free(&t);
	read_corpus("musicmetadata-flac-multiple-album-artists-tags.flac", &t);
	CHECK_VALUES(&t, "artist", "Artist One|Artist Two");
	CHECK_VALUES(&t, "albumartist", "Album Artist One|Album Artist Two");
	mlib_tags_free(&t);
}

/* Comments repeated in one block (the corpus has each written 1000
 * times): one value each, not FFmpeg's join of the copies ("None;None;..."
 * as the artist, 256 of them shown by crate info and the browser). */
TEST(tags_a_comment_repeated_in_one_block_is_one_value)
{
	struct mlib_tags t;
	read_corpus("flactestbench-subset_54_-_1000x_repeating_VORBISCOMMENT.flac", &t);
	CHECK_VALUES(&t, "artist", "None");
	CHECK_VALUES(&t, "album", "FLAC subset decoder testbench");
	CHECK_VALUES(&t, "title", "54 - 1000x repeating VORBISCOMMENT");
	CHECK_VALUES(&t, "date", "2021-10-30T14:43:49+02:00");
	CHECK_VALUES(&t, "tracknr", "54");
	mlib_tags_free(&t);
}

/* A basic tag FFmpeg does not read while it reads others (a frame it
 * skips, the ID3v1 album of an ID3v2.4 file without one) comes from
 * TagLib: the artist and album were left out, the file listed without. */
TEST(tags_a_basic_tag_only_taglib_reads_is_kept)
{
	struct mlib_tags t;
	read_corpus("mutagen-bad-TYER-frame.mp3", &t);
	CHECK_VALUES(&t, "artist", "From 1.01 To 1.02");
	CHECK_VALUES(&t, "album", "Splitted by Mp3Splt v. 2.1");
	CHECK_VALUES(&t, "title",
		     "This track has an invalid TYER frame, that used to be able to break Mutagen");
	/* its TYER frame is broken: no date (TagLib reads it as the text "þÿ") */
	CHECK_VALUES(&t, "date", "");
	mlib_tags_free(&t);
	read_corpus("mutagen-id3v1v2-combined.mp3", &t);
	CHECK_VALUES(&t, "album", "Hymns for the Exiled");
	CHECK_VALUES(&t, "artist", "Anais Mitchell");
	CHECK_VALUES(&t, "encoder", ""); /* free-form: not filled (FFmpeg names it otherwise) */
	mlib_tags_free(&t);
}

/* DATE and YEAR of the same year are one date (they were two, shown as
 * "2004-05-03; 2004"); a YEAR alone is the date, and a DATE of another
 * year beside it stays. */
TEST(tags_a_year_beside_its_date_is_no_second_date)
{
	char *f1 = tm_path("both.flac"), *f2 = tm_path("year.ogg"), *f3 = tm_path("other.flac");
	const char *m1[] = {"date=2004-05-03", "year=2004", "title=a", NULL};
	const char *m2[] = {"year=1999", "title=b", NULL};
	const char *m3[] = {"date=2004-05-03", "year=2010", "title=c", NULL};
	tm_make_audio(f1, 0.2, m1);
	tm_make_audio(f2, 0.2, m2);
	tm_make_audio(f3, 0.2, m3);
	const char *files[] = {f1, f2, f3}, *want[] = {"2004-05-03", "1999", "2004-05-03|2010"};
	for (size_t i = 0; i < 3; i++) {
		struct mlib_tags t;
		struct crate_err err = {0};
		mlib_tags_init(&t);
		CHECK_MSG(mlib_tags_read(files[i], 5000, &t, &err) == 0, "%s", err.msg);
		CHECK_VALUES(&t, "date", want[i]);
		mlib_tags_free(&t);
	}
	free(f1);
	free(f2);
	free(f3);
}

/* Issue 14 item 14: one Vorbis comment holding ';' is one value. */
TEST(tags_semicolon_inside_a_vorbis_value_does_not_split)
{
	char *flac = tm_path("semi.flac"), *ogg = tm_path("semi.ogg");
	const char *meta[] = {"artist=a;c;d", "title=Symphony No. 5; I. Allegro", NULL};
	tm_make_audio(flac, 0.2, meta);
	tm_make_audio(ogg, 0.2, meta);
	const char *files[] = {flac, ogg};
	for (size_t i = 0; i < 2; i++) {
		struct mlib_tags t;
		struct crate_err err = {0};
		mlib_tags_init(&t);
		CHECK_MSG(mlib_tags_read(files[i], 5000, &t, &err) == 0, "%s", err.msg);
		CHECK_VALUES(&t, "artist", "a;c;d");
		CHECK_VALUES(&t, "title", "Symphony No. 5; I. Allegro");
		mlib_tags_free(&t);
	}
	free(flac);
	free(ogg);
}

/* A value written twice under one key, and surrounding blanks, stay one
 * clean value; TagLib's TLEN ("LENGTH") is not a tag. */
TEST(tags_taglib_values_are_normalised)
{
	struct mlib_tags t;
	read_corpus("mutagen-silence-44-s.mp3", &t);
	CHECK(mlib_tags_get(&t, "length") == NULL);
	CHECK_VALUES(&t, "tracknr", "02/10");
	mlib_tags_free(&t);
}
