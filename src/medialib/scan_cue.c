/* Cue sheets in the scanner: where an audio file's sheet is, whether it
 * fits the audio, and what each of its tracks becomes. */
#include "medialib/scan_cue.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define CUE_MAX_BYTES (1 << 20) /* a 99-track sheet is a few KiB */

/* Candidate i (0: X.cue, 1: X.ext.cue) for audio X.ext; owned, NULL when
 * the name has no extension for candidate 0. */
static char *candidate(const char *audio, int i)
{
	if (i == 1)
		return xasprintf("%s.cue", audio);
	const char *slash = strrchr(audio, '/');
	const char *dot = strrchr(audio, '.');
	if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : audio))
		return NULL;
	return xasprintf("%.*s.cue", (int)(dot - audio), audio);
}

static char *read_text(const char *path, size_t *len, struct crate_err *err);

/* The length of name without its extension (all of it when it has none). */
static size_t stem_len(const char *name)
{
	const char *dot = strrchr(name, '.');
	return dot && dot != name ? (size_t)(dot - name) : strlen(name);
}

/* Whether the sheet at path has a FILE line naming audio's file: its very
 * name, or its name with another extension (a sheet written for the .wav
 * of a rip, beside the .flac). */
static bool sheet_names(const char *path, const char *name)
{
	struct crate_err err = {0};
	size_t len;
	char *text = read_text(path, &len, &err);
	struct mlib_cue cue = {0};
	if (!text || mlib_cue_parse(text, len, &cue, &err) != 0) {
		free(text);
		return false;
	}
	free(text);
	const char *f = cue.file ? strrchr(cue.file, '/') : NULL;
	f = f ? f + 1 : cue.file ? cue.file : "";
	bool yes = strcmp(f, name) == 0 ||
		   (stem_len(f) == stem_len(name) && strncmp(f, name, stem_len(name)) == 0);
	mlib_cue_free(&cue);
	return yes;
}

/* Whether names[0..n) hold an audio file whose own sheet (S.cue or
 * S.ext.cue) the sheet named sheet is: then it is not another file's. */
static bool sheet_is_a_siblings(char *const *names, size_t n, const char *sheet)
{
	size_t sl = strlen(sheet) - 4; /* without ".cue" */
	for (size_t i = 0; i < n; i++) {
		const char *o = names[i];
		if (strcmp(o, sheet) == 0)
			continue;
		if (strlen(o) == sl && strncmp(o, sheet, sl) == 0)
			return true; /* S.ext.cue beside S.ext */
		if (stem_len(o) == sl && strncmp(o, sheet, sl) == 0)
			return true; /* S.cue beside S.ext */
	}
	return false;
}

bool scan_cue_is_sheet_name(const char *name)
{
	size_t n = strlen(name);
	return n > 4 && strcasecmp(name + n - 4, ".cue") == 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A sheet in audio's folder named otherwise ("Album.cue" for
 * "CDImage.flac") whose FILE line names audio and that is no other audio
 * file's own sheet; the first by name when several do. Owned, or NULL. */
static char *sheet_naming(const char *audio)
{
	const char *slash = strrchr(audio, '/');
	char *dir = slash ? xstrndup(audio, slash == audio ? 1 : (size_t)(slash - audio)) : xstrdup(".");
	const char *name = slash ? slash + 1 : audio;
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			names = xreallocarray(names, cap, sizeof *names);
		}
		names[n++] = xstrdup(e->d_name);
	}
	if (d)
		closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmp_name);
	char *found = NULL;
	for (size_t i = 0; i < n && !found; i++) {
		if (!scan_cue_is_sheet_name(names[i]) || sheet_is_a_siblings(names, n, names[i]))
			continue;
		char *p = xasprintf("%s/%s", dir, names[i]);
		if (sheet_names(p, name))
			found = p;
		else
			free(p);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(dir);
	return found;
}

bool scan_cue_sibling(const char *audio, char **path, struct timespec *mtime)
{
	for (int i = 0; i < 3; i++) {
		char *p = i < 2 ? candidate(audio, i) : sheet_naming(audio);
		struct stat st;
		if (p && stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			*path = p;
			*mtime = st.st_mtim;
			return true;
		}
		free(p);
	}
	return false;
}

/* The FILE line's name of the sheet at path without its folder (owned),
 * or NULL when it cannot be read. */
static char *sheet_file_name(const char *path)
{
	struct crate_err err = {0};
	size_t len;
	char *text = read_text(path, &len, &err);
	struct mlib_cue cue = {0};
	char *name = NULL;
	if (text && mlib_cue_parse(text, len, &cue, &err) == 0) {
		const char *slash = strrchr(cue.file, '/');
		name = xstrdup(slash ? slash + 1 : cue.file);
		mlib_cue_free(&cue);
	}
	free(text);
	return name;
}

/* Whether a file named name could be the audio of a sheet named sheet
 * (X.cue or X.ext.cue) or of one whose FILE line names file (the same
 * name, or the same with another extension). */
static bool may_be_audio_of(const char *name, const char *sheet, const char *file)
{
	size_t sl = strlen(sheet) - 4; /* without ".cue" */
	if ((strlen(name) == sl || stem_len(name) == sl) && strncmp(name, sheet, sl) == 0)
		return true;
	return file && stem_len(name) == stem_len(file) &&
	       strncmp(name, file, stem_len(file)) == 0;
}

char *scan_cue_audio_of(const char *sheet)
{
	const char *slash = strrchr(sheet, '/');
	if (!slash || !scan_cue_is_sheet_name(slash + 1))
		return NULL;
	const char *sheet_name = slash + 1;
	char *dir = xstrndup(sheet, slash == sheet ? 1 : (size_t)(slash - sheet));
	char *file = sheet_file_name(sheet);
	DIR *d = opendir(dir);
	char *found = NULL;
	for (struct dirent *e; d && !found && (e = readdir(d));) {
		if (scan_cue_is_sheet_name(e->d_name) || !may_be_audio_of(e->d_name, sheet_name, file))
			continue;
		/* the audio's sheet as the scanner finds it must be this one */
		char *audio = xasprintf("%.*s%s", (int)(sheet_name - sheet), sheet, e->d_name);
		char *its = NULL;
		struct timespec mtime;
		struct stat st;
		if (stat(audio, &st) == 0 && S_ISREG(st.st_mode) &&
		    scan_cue_sibling(audio, &its, &mtime) && strcmp(its, sheet) == 0)
			found = audio;
		else
			free(audio);
		free(its);
	}
	if (d)
		closedir(d);
	free(file);
	free(dir);
	return found;
}

/* The whole of a regular file of at most CUE_MAX_BYTES (owned). */
static char *read_text(const char *path, size_t *len, struct crate_err *err)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		crate_err_set(err, CRATE_ERR_IO, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > CUE_MAX_BYTES) {
		crate_err_set(err, CRATE_ERR_PARSE, "%s: %s", path,
			      S_ISREG(st.st_mode) ? "larger than 1 MiB: not a cue sheet"
						  : "not a regular file");
		close(fd);
		return NULL;
	}
	char *buf = xmalloc((size_t)st.st_size + 1);
	size_t got = 0;
	ssize_t n;
	while (got < (size_t)st.st_size &&
	       (n = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	*len = got;
	return buf;
}

/* Every track must start inside the audio the sheet describes. */
static int check_fit(const struct mlib_cue *cue, const struct mlib_tags *t, struct crate_err *err)
{
	if (t->samplerate <= 0)
		return crate_err_set(err, CRATE_ERR_MEDIA, "the audio's sample rate is unknown");
	if (t->duration_ms <= 0)
		return 0; /* unknown length: the decoder finds the end */
	const struct mlib_cue_track *last = &cue->tracks[cue->ntracks - 1];
	int64_t start_ms = last->start * 1000 / MLIB_CUE_FPS;
	if (start_ms >= t->duration_ms) {
		char at[32], len[32];
		return crate_err_set(err, CRATE_ERR_PARSE,
				     "line %d: track %d starts at %s, after the end of the audio (%s)",
				     last->line, last->number, mlib_cue_time(last->start, at, sizeof at),
				     mlib_cue_time(t->duration_ms * MLIB_CUE_FPS / 1000, len, sizeof len));
	}
	return 0;
}

void scan_cue_read(const char *audio, const struct mlib_tags *t, bool beside,
		   struct scan_cue *out)
{
	memset(out, 0, sizeof *out);
	struct timespec mtime;
	const char *embedded = mlib_tags_get(t, "cuesheet");
	if (!(beside && scan_cue_sibling(audio, &out->path, &mtime)) && !embedded)
		return;
	size_t len = 0;
	char *text = out->path ? read_text(out->path, &len, &out->err) : NULL;
	if (out->path && !text) {
		out->state = -1;
		return;
	}
	const char *src = text ? text : embedded;
	int rc = mlib_cue_parse(src, text ? len : strlen(embedded), &out->cue, &out->err);
	free(text);
	if (rc == 0 && check_fit(&out->cue, t, &out->err) != 0) {
		mlib_cue_free(&out->cue);
		rc = -1;
	}
	if (rc != 0) {
		out->state = -1;
		if (out->path)
			crate_err_prefix(&out->err, "%s: ", out->path);
		else
			crate_err_prefix(&out->err, "%s: its CUESHEET tag: ", audio);
		return;
	}
	out->state = 1;
}

void scan_cue_free(struct scan_cue *c)
{
	mlib_cue_free(&c->cue);
	free(c->path);
	memset(c, 0, sizeof *c);
}

/* Keys the cue decides for a track (its own value, or none). */
static bool cue_owned_key(const char *key)
{
	static const char *const keys[] = {
		"title", "tracknr", "tracktotal", "cuesheet", "isrc",
		"replaygain_track_gain", "replaygain_track_peak", "musicbrainz_trackid",
		"musicbrainz_releasetrackid", "lyrics",
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (strcmp(key, keys[i]) == 0)
			return true;
	return false;
}

void scan_cue_track(const struct mlib_cue *cue, size_t i, const struct mlib_tags *file,
		    struct mlib_tags *out, int64_t *start, int64_t *end)
{
	const struct mlib_cue_track *tr = &cue->tracks[i];
	char buf[32];
	if (tr->title) {
		mlib_tags_add(out, "title", tr->title);
	} else {
		snprintf(buf, sizeof buf, "Track %02d", tr->number);
		mlib_tags_add(out, "title", buf);
	}
	if (tr->performer || cue->performer)
		mlib_tags_add(out, "artist", tr->performer ? tr->performer : cue->performer);
	if (cue->performer)
		mlib_tags_add(out, "albumartist", cue->performer);
	if (cue->title)
		mlib_tags_add(out, "album", cue->title);
	snprintf(buf, sizeof buf, "%d/%d", tr->number, cue->tracks[cue->ntracks - 1].number);
	mlib_tags_add(out, "tracknr", buf);
	if (cue->date)
		mlib_tags_add(out, "date", cue->date);
	if (cue->genre)
		mlib_tags_add(out, "genre", cue->genre);
	if (tr->songwriter || cue->songwriter)
		mlib_tags_add(out, "composer", tr->songwriter ? tr->songwriter : cue->songwriter);
	if (tr->isrc)
		mlib_tags_add(out, "isrc", tr->isrc);
	if (cue->discnumber)
		mlib_tags_add(out, "discnr", cue->discnumber);
	if (cue->disctotal)
		mlib_tags_add(out, "disctotal", cue->disctotal);
	size_t ncue = out->n;
	for (size_t k = 0; k < file->n; k++) {
		const char *key = file->v[k].key;
		bool cue_has = false;
		for (size_t c = 0; c < ncue && !cue_has; c++)
			cue_has = strcmp(out->v[c].key, key) == 0;
		if (!cue_has && !cue_owned_key(key)) /* the cue's value wins */
			mlib_tags_add(out, key, file->v[k].value);
	}
	int rate = file->samplerate;
	*start = mlib_cue_samples(tr->start, rate);
	*end = i + 1 < cue->ntracks ? mlib_cue_samples(cue->tracks[i + 1].start, rate) : 0;
	int64_t start_ms = tr->start * 1000 / MLIB_CUE_FPS;
	out->duration_ms = *end ? (*end - *start) * 1000 / rate
			   : file->duration_ms > start_ms ? file->duration_ms - start_ms : 0;
	out->bitrate = file->bitrate;
	out->samplerate = file->samplerate;
	out->channels = file->channels;
	out->format = file->format ? xstrdup(file->format) : NULL;
	out->rating = 0; /* a rating in the file is the whole file's */
}

char *scan_cue_url(const char *url, size_t len, int n, size_t *outlen)
{
	char *u = xasprintf("%.*s#%d", (int)len, url, n);
	*outlen = strlen(u);
	return u;
}
