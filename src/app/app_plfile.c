/* Playlist files in and out of the collection store (see app_plfile.h). */
#include "app/app_plfile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/app_coll.h"
#include "app/app_library.h"
#include "app/app_stream.h"
#include "app/app_view.h"
#include "base/vec.h"
#include "coll/store.h"
#include "medialib/index.h"
#include "medialib/media.h"
#include "medialib/scan.h"
#include "medialib/scan_cue.h"

/* A playlist file larger than this is not a playlist. */
#define MAX_PLAYLIST_BYTES (256u << 20)

void app_import_report_free(struct app_import_report *r)
{
	for (size_t i = 0; i < r->nproblems; i++)
		free(r->problems[i].what);
	free(r->problems);
	memset(r, 0, sizeof *r);
}

/* Grows by doubling: a file of 100,000 missing entries must not copy the
 * list once per entry (an allocator that cannot grow in place, as ASan's,
 * made that quadratic). what: owned, moves to r. */
static void problem(struct app_import_report *r, size_t line, char *what)
{
	if (r->nproblems == r->problems_cap) {
		r->problems_cap = r->problems_cap ? r->problems_cap * 2 : 64;
		r->problems = xreallocarray(r->problems, r->problems_cap, sizeof *r->problems);
	}
	r->problems[r->nproblems++] = (struct app_import_problem){line, what};
}

/* The whole file; opened without blocking on a FIFO and checked to be a
 * regular file first. */
static char *read_playlist(const char *path, size_t *len, struct crate_err *err)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		crate_err_set(err, CRATE_ERR_IO, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)MAX_PLAYLIST_BYTES) {
		crate_err_set(err, CRATE_ERR_INVALID, "%s: %s", path,
			      !S_ISREG(st.st_mode) ? "not a regular file" : "too large for a playlist");
		close(fd);
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	char *buf = xmalloc((size_t)st.st_size + 1);
	size_t n = 0;
	for (;;) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
		if (n == (size_t)st.st_size)
			break;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The library ids of the absolute paths locs[0..n) (NULL: skipped), each
 * as given, then as its real path: ids[i] 0 when it is not a present item.
 * real[i] gets the real path when it was computed (owned; NULL before),
 * errs[i] realpath's errno when that failed. Two batched lookups, not two
 * per entry. */
static void find_items(struct app *app, const char *const *locs, size_t n, uint32_t *ids,
		       char **real, int *errs)
{
	struct crate_err e = {0};
	uint32_t *found = xcalloc(n + 1, sizeof *found);
	const char **again = xcalloc(n + 1, sizeof *again);
	mlib_media_find_urls(app->db, locs, n, found, &e); /* an error: not found */
	for (size_t i = 0; i < n; i++) {
		ids[i] = 0;
		if (!locs[i])
			continue;
		if (found[i] && mlib_index_has_media(app->index, found[i])) {
			ids[i] = found[i];
			continue;
		}
		real[i] = realpath(locs[i], NULL);
		errs[i] = real[i] ? 0 : errno;
		if (real[i] && strcmp(real[i], locs[i]) != 0)
			again[i] = real[i];
	}
	mlib_media_find_urls(app->db, again, n, found, &e);
	for (size_t i = 0; i < n; i++)
		if (again[i] && found[i] && mlib_index_has_media(app->index, found[i]))
			ids[i] = found[i];
	free(again);
	free(found);
}

/* Entries written the Windows way whose very name no file has: a
 * relative one is read with '/' for each backslash (sub\a.ogg as
 * sub/a.ogg), an absolute one (C:\x) gets a problem saying why it
 * names nothing here. */
static void read_windows_locations(struct plfile *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		struct plfile_entry *e = &pl->v[i];
		struct stat st;
		if (!e->windows)
			continue;
		if (e->problem || lstat(e->location, &st) == 0) {
			free(e->windows);
			e->windows = NULL;
		} else if (e->slashed) {
			free(e->location);
			e->location = e->slashed;
			e->slashed = NULL;
		} else {
			free(e->location);
			e->location = e->windows;
			e->windows = NULL;
			e->problem = xstrdup("a Windows path, which names no file here (only "
					     "relative ones are read, with '/' for '\\')");
		}
	}
}

/* The tracks of the file at path (as written, else at its real path;
 * NULL: not known) when its cue sheet splits it, or of the cue sheet
 * there (app_cue_tracks). Returns their count, *out owned. */
static size_t cue_tracks_of(struct app *app, const char *path, const char *real, uint32_t **out)
{
	size_t n = path ? app_cue_tracks(app, path, out) : 0;
	return n || !real ? n : app_cue_tracks(app, real, out);
}

/* The track number of MPD's name for a track of a cue sheet,
 * "DIR/CD.cue/track0002", with *sheet (owned) the sheet's path; 0 when
 * loc is not one. */
static long mpd_cue_track_number(const char *loc, char **sheet)
{
	const char *slash = strrchr(loc, '/');
	if (!slash || slash == loc || strncmp(slash + 1, "track", 5) != 0 ||
	    !isdigit((unsigned char)slash[6]))
		return 0;
	char *end;
	long n = strtol(slash + 6, &end, 10);
	if (*end || n < 1 || n > 99)
		return 0;
	*sheet = xstrndup(loc, (size_t)(slash - loc));
	if (scan_cue_is_sheet_name(*sheet))
		return n;
	free(*sheet);
	return 0;
}

/* The library's item for MPD's CD.cue/track0002: track 2 of the audio
 * file the sheet splits (its url "CD.flac#2"); 0 when loc is no such name
 * or the track is not in the library. */
static uint32_t mpd_cue_track(struct app *app, const char *loc)
{
	char *sheet;
	long n = mpd_cue_track_number(loc, &sheet);
	if (!n)
		return 0;
	char *audio = scan_cue_audio_of(sheet);
	uint32_t id = 0;
	if (audio) {
		char *url = xasprintf("%s#%ld", audio, n);
		struct crate_err ignore = {0};
		if (mlib_media_find_url(app->db, url, strlen(url), &id, &ignore) != 0 ||
		    !mlib_index_has_media(app->index, id))
			id = 0;
		free(url);
	}
	free(audio);
	free(sheet);
	return id;
}

/* Whether path names a file: one that is there, or a track of a cue sheet
 * that is, as MPD names it (CD.cue/track0002). */
static bool names_a_file(const char *path)
{
	struct stat st;
	char *sheet;
	if (lstat(path, &st) == 0)
		return true;
	if (!mpd_cue_track_number(path, &sheet))
		return false;
	bool there = lstat(sheet, &st) == 0;
	free(sheet);
	return there;
}

/* Why the entry at loc names nothing (errno err from looking it up). */
static const char *not_found(const char *loc, int err)
{
	char *sheet;
	struct stat st;
	if (!mpd_cue_track_number(loc, &sheet))
		return strerror(err);
	bool there = lstat(sheet, &st) == 0;
	free(sheet);
	return there ? "a track of a cue sheet that the library does not have" : strerror(ENOENT);
}

/* Relative entries that name no file beside the playlist, looked up under
 * each library root, the first that has the file: MPD's saved playlists
 * name files relative to its music folder, not to the playlist's own
 * (a Windows one with '/' for each backslash). */
static void read_root_relative_locations(struct app *app, struct plfile *pl)
{
	char **roots = NULL;
	size_t nroots = 0;
	bool listed = false;
	for (size_t i = 0; i < pl->n; i++) {
		struct plfile_entry *e = &pl->v[i];
		if (e->problem || !e->relative || names_a_file(e->location))
			continue;
		struct crate_err ignore = {0};
		if (!listed && app_roots_list(app, &roots, &nroots, &ignore) != 0)
			nroots = 0;
		listed = true;
		for (size_t r = 0; r < nroots; r++) {
			char *p = xasprintf("%s/%s", roots[r], e->relative);
			for (char *c = p + strlen(roots[r]); e->windows && *c; c++)
				if (*c == '\\')
					*c = '/';
			if (names_a_file(p)) {
				free(e->location);
				e->location = p;
				free(e->windows);
				e->windows = NULL;
				break;
			}
			free(p);
		}
	}
	for (size_t r = 0; r < nroots; r++)
		free(roots[r]);
	free(roots);
}

/* "location: why" for entry e, owned; saying how a Windows location was read. */
static char *entry_problem(const struct plfile_entry *e, const char *why)
{
	if (e->windows)
		return xasprintf("%s: %s (written %s, read with '/' for '\\')", e->location, why,
				 e->windows);
	return xasprintf("%s: %s", e->location, why);
}

/* Whether a playlist can be called name (valid UTF-8, no control
 * characters, not too long): asked before the file is read, so a name
 * that will be refused scans nothing into the library. */
static int playlist_name_ok(const char *name, struct crate_err *err)
{
	char *full = xasprintf("%s/%s", COLL_NS_PLAYLISTS, name), *ns, *checked;
	int rc = coll_name_split(full, &ns, &checked, err);
	free(full);
	if (rc == 0) {
		free(ns);
		free(checked);
	}
	return rc;
}

/* The playlist file at path, read into *pl (its locations absolute,
 * Windows ones read as they can be); the error names the file. */
static int read_playlist_file(struct app *app, const char *path, struct plfile *pl,
			      struct crate_err *err)
{
	size_t len;
	char *data = read_playlist(path, &len, err);
	if (!data)
		return -1;
	char *abs = realpath(path, NULL);
	char *slash = abs ? strrchr(abs, '/') : NULL;
	char *dir = slash ? xstrndup(abs, slash == abs ? 1 : (size_t)(slash - abs)) : xstrdup("/");
	free(abs);
	int rc = plfile_parse(plfile_format_detect(path, data, len), data, len, dir, pl, err);
	free(data);
	free(dir);
	if (rc != 0) {
		plfile_free(pl);
		char why[sizeof err->msg];
		snprintf(why, sizeof why, "%s", err->msg);
		return crate_err_set(err, err->code, "%s: %s", path, why);
	}
	read_windows_locations(pl);
	read_root_relative_locations(app, pl);
	return 0;
}

/* Entry e of a playlist file played as it is: appended to l as the
 * library's item(s) for it (a file's, a cue-split file's tracks), else as
 * its path or URL; a location nothing can play is a problem of r. */
static void play_entry_of_file(struct app *app, const struct plfile_entry *e,
			       struct app_plfile_list *l, struct app_import_report *r)
{
	if (e->problem) {
		problem(r, e->line, xasprintf("%s: %s", e->location, e->problem));
		return;
	}
	uint32_t id = 0, *tracks = NULL;
	struct crate_err ignore = {0};
	char *real = e->location[0] == '/' ? realpath(e->location, NULL) : NULL;
	int why = errno;
	size_t n = 0;
	if ((mlib_media_find_url(app->db, e->location, strlen(e->location), &id, &ignore) != 0 ||
	     !mlib_index_has_media(app->index, id)) &&
	    (!real || mlib_media_find_url(app->db, real, strlen(real), &id, &ignore) != 0 ||
	     !mlib_index_has_media(app->index, id)))
		id = 0;
	if (!id && e->location[0] == '/')
		id = mpd_cue_track(app, e->location);
	if (!id && e->location[0] == '/')
		n = cue_tracks_of(app, e->location, real, &tracks);
	if (!id && !n && e->location[0] == '/' && !real) {
		problem(r, e->line, entry_problem(e, not_found(e->location, why)));
	} else if (n) {
		for (size_t i = 0; i < n; i++)
			app_plfile_list_add(l, tracks[i], NULL);
	} else {
		app_plfile_list_add(l, id, id ? NULL : e->location);
	}
	free(tracks);
	free(real);
}

void app_plfile_list_add(struct app_plfile_list *l, uint32_t id, const char *path)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->ids = xreallocarray(l->ids, l->cap, sizeof *l->ids);
		l->paths = xreallocarray(l->paths, l->cap, sizeof *l->paths);
	}
	l->ids[l->n] = id;
	l->paths[l->n++] = path ? xstrdup(path) : NULL;
}

void app_plfile_list_free(struct app_plfile_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->paths[i]);
	free(l->ids);
	free(l->paths);
	memset(l, 0, sizeof *l);
}

int app_playlist_file_entries(struct app *app, const char *path, struct app_plfile_list *l,
			      struct app_import_report *rep, struct crate_err *err)
{
	memset(rep, 0, sizeof *rep);
	struct plfile pl = {0};
	if (read_playlist_file(app, path, &pl, err) != 0)
		return -1;
	rep->entries = pl.n;
	for (size_t i = 0; i < pl.n; i++) {
		size_t before = rep->nproblems;
		play_entry_of_file(app, &pl.v[i], l, rep);
		rep->imported += rep->nproblems == before;
	}
	plfile_free(&pl);
	return 0;
}

/* The playlist's ids, entry by entry (nentries of them): ids[i], or the
 * nsplit[i] tracks split[i] holds (freed here, counted in rep); *n of
 * them, owned, *entries the entries that gave any. */
static uint32_t *entries_in_order(const uint32_t *ids, uint32_t **split, const size_t *nsplit,
				  size_t nentries, size_t *n, size_t *entries,
				  struct app_import_report *rep)
{
	size_t total = 0;
	for (size_t i = 0; i < nentries; i++)
		total += nsplit[i] ? nsplit[i] : ids[i] != 0;
	uint32_t *all = xcalloc(total + 1, sizeof *all);
	*n = *entries = 0;
	for (size_t i = 0; i < nentries; i++) {
		if (nsplit[i]) {
			memcpy(all + *n, split[i], nsplit[i] * sizeof *all);
			*n += nsplit[i];
			rep->cue_files++;
			rep->cue_tracks += nsplit[i];
		} else if (ids[i]) {
			all[(*n)++] = ids[i];
		}
		*entries += nsplit[i] || ids[i];
		free(split[i]);
	}
	return all;
}

int app_playlist_import(struct app *app, const char *name, const char *path, bool append,
			struct app_import_report *rep, struct crate_err *err)
{
	memset(rep, 0, sizeof *rep);
	if (playlist_name_ok(name, err) != 0)
		return -1;
	bool exists = coll_store_get(app->store, COLL_NS_PLAYLISTS, name) != NULL;
	if (exists && !append)
		return crate_err_set(err, CRATE_ERR_EXISTS,
				     "Playlists/%s exists (remove it first, or import with --append)",
				     name);
	struct plfile pl = {0};
	int rc;
	if (read_playlist_file(app, path, &pl, err) != 0)
		return -1;
	rep->entries = pl.n;
	/* First pass: what the library has; files on disk that it lacks are
	 * scanned in one go, then looked up again. */
	uint32_t *ids = xcalloc(pl.n + 1, sizeof *ids);
	char **scan = xcalloc(pl.n + 1, sizeof *scan);
	const char **locs = xcalloc(pl.n + 1, sizeof *locs); /* absolute paths; borrowed */
	char **real = xcalloc(pl.n + 1, sizeof *real);
	int *errs = xcalloc(pl.n + 1, sizeof *errs);
	uint32_t **split = xcalloc(pl.n + 1, sizeof *split); /* a cue-split file's tracks */
	size_t *nsplit = xcalloc(pl.n + 1, sizeof *nsplit);
	size_t nscan = 0;
	for (size_t i = 0; i < pl.n; i++)
		locs[i] = !pl.v[i].problem && pl.v[i].location[0] == '/' ? pl.v[i].location : NULL;
	find_items(app, locs, pl.n, ids, real, errs);
	for (size_t i = 0; i < pl.n; i++) {
		const char *loc = pl.v[i].location;
		if (pl.v[i].problem) { /* rtsp://, file://otherhost/: not playable here */
			problem(rep, pl.v[i].line, xasprintf("%s: %s", loc, pl.v[i].problem));
			continue;
		}
		if (!locs[i]) { /* a stream URL: an item of its own */
			struct crate_err serr = {0};
			if (app_stream_item(app, loc, pl.v[i].title, &ids[i], &serr) != 0)
				problem(rep, pl.v[i].line, xasprintf("%s", serr.msg));
			continue;
		}
		struct stat st;
		if (!ids[i] && (ids[i] = mpd_cue_track(app, loc))) {
			/* MPD's CD.cue/track0002: found */
		} else if (!ids[i] && (nsplit[i] = cue_tracks_of(app, loc, real[i], &split[i]))) {
			locs[i] = NULL; /* found: its tracks */
		} else if (!ids[i]) {
			if (real[i] && stat(real[i], &st) == 0 && S_ISREG(st.st_mode)) {
				/* a cue sheet is read with its audio file */
				char *audio = scan_cue_audio_of(real[i]);
				scan[nscan++] = audio ? audio : xstrdup(real[i]);
			} else {
				problem(rep, pl.v[i].line,
					entry_problem(&pl.v[i], real[i] ? "not a regular file"
									: not_found(loc, errs[i])));
				locs[i] = NULL; /* reported: not looked up again after the scan */
			}
		}
		free(real[i]);
		real[i] = NULL;
	}
	if (nscan) {
		struct mlib_scan_result res = {0};
		struct crate_err serr = {0};
		if (app_scan(app, (const char *const *)scan, nscan, NULL, NULL, &res, &serr) == 0)
			rep->scanned = res.totals.added + res.totals.updated;
		mlib_scan_result_free(&res);
		for (size_t i = 0; i < pl.n; i++)
			if (ids[i])
				locs[i] = NULL; /* found already: only the others again */
		uint32_t *ids2 = xcalloc(pl.n + 1, sizeof *ids2);
		find_items(app, locs, pl.n, ids2, real, errs);
		for (size_t i = 0; i < pl.n; i++) {
			if (!locs[i])
				continue;
			ids[i] = ids2[i];
			if (!ids[i]) /* scanned now: split by its cue sheet? */
				nsplit[i] = cue_tracks_of(app, locs[i], real[i], &split[i]);
			if (!ids[i] && !nsplit[i] && real[i]) /* on disk, but the scan could not read it */
				problem(rep, pl.v[i].line,
					entry_problem(&pl.v[i], scan_cue_is_sheet_name(real[i])
									? "a cue sheet whose audio file is not in its folder"
									: "not playable (see crate scan)"));
			free(real[i]);
		}
		free(ids2);
	}
	for (size_t i = 0; i < nscan; i++)
		free(scan[i]);
	free(scan);
	free(locs);
	free(real);
	free(errs);
	size_t n, entries;
	uint32_t *all = entries_in_order(ids, split, nsplit, pl.n, &n, &entries, rep);
	free(split);
	free(nsplit);
	free(ids);
	ids = all;
	plfile_free(&pl);
	rc = exists ? 0 : app_playlist_new(app, name, err);
	/* Appended to a list that was there: recorded, so u takes back an
	 * import into the wrong list. A new list is removed instead (and the
	 * many lists of scan --playlists would push every other edit out). */
	if (rc == 0 && n && exists)
		rc = coll_store_playlist_insert_undoable(app->store, name, SIZE_MAX, ids, n, err);
	else if (rc == 0 && n)
		rc = coll_store_playlist_insert(app->store, name, SIZE_MAX, ids, n, err);
	if (rc == 0)
		rep->imported = entries;
	free(ids);
	return rc;
}

struct found {
	char **v;
	size_t n, cap;
};

/* Walk path (not following symbolic links below it; at most 64 levels). */
static void find_under(const char *path, int depth, struct found *f)
{
	struct stat st;
	if (lstat(path, &st) != 0 && stat(path, &st) != 0)
		return;
	if (S_ISREG(st.st_mode)) {
		if (plfile_format_of_name(path) == PLFILE_UNKNOWN)
			return;
		if (f->n == f->cap) {
			f->cap = f->cap ? f->cap * 2 : 16;
			f->v = xreallocarray(f->v, f->cap, sizeof *f->v);
		}
		f->v[f->n++] = xstrdup(path);
		return;
	}
	if (!S_ISDIR(st.st_mode) || depth > 64)
		return;
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *sub = xasprintf("%s/%s", path, e->d_name);
		struct stat sst;
		if (lstat(sub, &sst) == 0 && !S_ISLNK(sst.st_mode))
			find_under(sub, depth + 1, f);
		free(sub);
	}
	closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t app_playlist_files_find(const char *const *paths, size_t n, char ***out)
{
	struct found f = {0};
	for (size_t i = 0; i < n; i++)
		find_under(paths[i], 0, &f);
	if (f.n)
		qsort(f.v, f.n, sizeof *f.v, cmp_str);
	*out = f.v;
	return f.n;
}

int app_playlist_export(struct app *app, const char *name, enum plfile_format fmt,
			const char *rel_dir, struct strbuf *out, size_t *left_out,
			size_t *cue_tracks, struct crate_err *err)
{
	name = app_playlist_name(app, name);
	const struct coll_node *pl = name ? coll_store_get(app->store, COLL_NS_PLAYLISTS, name) : NULL;
	if (!pl)
		return crate_err_set(err, CRATE_ERR_NOTFOUND, "Playlists/%s does not exist",
				     name ? name : "(none active)");
	size_t n = pl->idlist.n;
	struct plfile_out_entry *e = xcalloc(n + 1, sizeof *e);
	char **owned = xcalloc(n + 1, sizeof *owned);
	char (*artist)[512] = xcalloc(n + 1, sizeof *artist), (*title)[512] = xcalloc(n + 1, sizeof *title);
	size_t k = 0, cues = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t id = pl->idlist.v[i];
		char url[PATH_MAX + 16], dur[32], cue[32];
		/* A missing file's row still gives its location and names (its
		 * file may come back); only a forgotten one has none. */
		const char *u = app_item_text(app, id, "url", "", url, sizeof url);
		if (!u)
			continue; /* gone from the library */
		/* a path only a URI can carry stays absolute, to be one */
		owned[k] = rel_dir && u[0] == '/' && !plfile_path_needs_uri(u)
				   ? plfile_relative(u, rel_dir)
				   : xstrdup(u);
		if (app_item_text(app, id, "cue_start", "", cue, sizeof cue))
			cues++;
		const char *d = app_item_text(app, id, "duration", "", dur, sizeof dur);
		e[k] = (struct plfile_out_entry){
			owned[k], app_item_text(app, id, "artist", ", ", artist[k], sizeof artist[k]),
			app_item_text(app, id, "title", ", ", title[k], sizeof title[k]),
			d ? strtoll(d, NULL, 10) : -1};
		k++;
	}
	plfile_write(fmt, e, k, out);
	if (left_out)
		*left_out = n - k;
	if (cue_tracks)
		*cue_tracks = cues;
	for (size_t i = 0; i < k; i++)
		free(owned[i]);
	free(owned);
	free(e);
	free(artist);
	free(title);
	return 0;
}
