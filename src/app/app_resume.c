#include "app/app_resume.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_play.h"
#include "base/str.h"

void app_resume_ui_free(struct app_resume_ui *ui)
{
	free(ui->browse_ns);
	free(ui->browse_name);
	free(ui->search);
	ui->browse_ns = ui->browse_name = ui->search = NULL;
}

static char *state_path(const struct app *app)
{
	return xasprintf("%s.state", app->db_path);
}

/* One line per value: '%', CR and LF as %25, %0D, %0A. */
static void put(struct strbuf *b, const char *key, const char *v)
{
	strbuf_addf(b, "%s=", key);
	for (; v && *v; v++) {
		if (*v == '%' || *v == '\n' || *v == '\r')
			strbuf_addf(b, "%%%02X", (unsigned char)*v);
		else
			strbuf_addc(b, *v);
	}
	strbuf_addc(b, '\n');
}

static char *unescape(const char *s)
{
	char *out = xmalloc(strlen(s) + 1), *o = out;
	for (; *s; s++) {
		unsigned x;
		if (*s == '%' && sscanf(s + 1, "%2x", &x) == 1 && s[1] && s[2]) {
			*o++ = (char)x;
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
	return out;
}

/* The files of the temporary list's entries that name one (path.I=PATH,
 * after ids): a file played by its path has no id to be found by. */
static void put_paths(struct strbuf *b, const struct app_play_resume *r)
{
	for (size_t i = 0; i < r->npaths; i++) {
		if (!r->paths[i])
			continue;
		char key[32];
		snprintf(key, sizeof key, "path.%zu", i);
		put(b, key, r->paths[i]);
	}
}

/* path.I=PATH (num is I): the file of entry I of the ids read before it;
 * one naming no entry is ignored. */
static void get_path(struct app_play_resume *r, const char *num, const char *v)
{
	int64_t i;
	if (!str_parse_int64(num, strlen(num), &i) || i < 0 || (uint64_t)i >= r->ids.n || !*v)
		return;
	if (!r->paths) {
		r->paths = xcalloc(r->ids.n, sizeof *r->paths);
		r->npaths = r->ids.n;
	}
	if ((size_t)i >= r->npaths)
		return;
	free(r->paths[i]);
	r->paths[i] = xstrdup(v);
}

int app_resume_save(struct app *app, const struct app_resume_ui *ui, char **last,
		    struct crate_err *err)
{
	struct app_play_resume r;
	app_play_get_resume(app, &r);
	struct strbuf f;
	strbuf_init(&f, 256);
	char num[64];
	put(&f, "version", "1");
	snprintf(num, sizeof num, "%d", r.volume);
	put(&f, "volume", num);
	put(&f, "repeat", app_repeat_name(r.repeat));
	put(&f, "shuffle", app_shuffle_name(r.shuffle));
	put(&f, "state", engine_state_name(r.state));
	if (r.has_context) {
		put(&f, "playlist", r.playlist);
		struct strbuf b;
		strbuf_init(&b, 16 * r.ids.n + 1);
		for (size_t i = 0; i < r.ids.n; i++)
			strbuf_addf(&b, "%s%u", i ? "," : "", (unsigned)r.ids.v[i]);
		put(&f, "ids", b.buf ? b.buf : "");
		strbuf_free(&b);
		put_paths(&f, &r);
		if (r.entry == APP_PLAY_NO_ENTRY)
			put(&f, "entry", "none");
		else {
			snprintf(num, sizeof num, "%zu", r.entry);
			put(&f, "entry", num);
			snprintf(num, sizeof num, "%u", (unsigned)r.entry_id);
			put(&f, "entry_id", num);
		}
	}
	/* Also with no context: a queued track played before anything else. */
	if (r.queued) {
		snprintf(num, sizeof num, "%u", (unsigned)r.queued);
		put(&f, "queued", num);
	}
	if (r.has_context || r.queued) {
		/* To the millisecond, so nothing is heard twice after a restart; a
		 * paused player's position does not move, so it still writes nothing. */
		snprintf(num, sizeof num, "%lld", (long long)r.pos_ms);
		put(&f, "position_ms", num);
	}
	if (ui && ui->view >= 0) {
		snprintf(num, sizeof num, "%d", ui->view);
		put(&f, "view", num);
		if (ui->browse_ns) {
			put(&f, "browse_ns", ui->browse_ns);
			put(&f, "browse_name", ui->browse_name);
		}
		put(&f, "search", ui->search);
	}
	app_play_resume_free(&r);
	const char *text = f.buf ? f.buf : "";
	if (last && *last && strcmp(*last, text) == 0) {
		strbuf_free(&f);
		return 0; /* nothing changed since the last write */
	}
	char *path = state_path(app), *tmp = xasprintf("%s.tmp", path);
	FILE *out = fopen(tmp, "w");
	int rc = 0;
	if (!out) {
		rc = crate_err_set(err, CRATE_ERR_IO, "%s: %s", tmp, strerror(errno));
	} else {
		bool bad = fputs(text, out) < 0;
		if (fclose(out) != 0 || bad || rename(tmp, path) != 0) {
			rc = crate_err_set(err, CRATE_ERR_IO, "%s: cannot write: %s", path,
					   strerror(errno));
			unlink(tmp);
		}
	}
	if (rc == 0 && last) {
		free(*last);
		*last = xstrdup(text);
	}
	strbuf_free(&f);
	free(path);
	free(tmp);
	return rc;
}

int app_resume_load(struct app *app, struct app_resume_ui *ui, struct crate_err *err)
{
	memset(ui, 0, sizeof *ui);
	ui->view = -1;
	const char *mode = config_get(app->cfg, "playback.resume", "pause");
	if (strcmp(mode, "off") == 0)
		return 0;
	if (strcmp(mode, "pause") != 0 && strcmp(mode, "play") != 0)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "playback.resume must be pause, play or off (not '%s')", mode);
	char *path = state_path(app);
	FILE *f = fopen(path, "r");
	if (!f) {
		int e = errno;
		free(path);
		return e == ENOENT ? 0 : crate_err_set(err, CRATE_ERR_IO, "%s.state: %s",
						       app->db_path, strerror(e));
	}
	/* No entry line: nothing of the context played (not its entry 0). */
	struct app_play_resume r = {.volume = -1, .entry = APP_PLAY_NO_ENTRY};
	/* Lines of any length: the ids of a temporary list of the whole
	 * library pass any fixed buffer. */
	char *line = NULL;
	size_t cap = 0;
	bool ok = true, version = false;
	while (getline(&line, &cap, f) >= 0) {
		line[strcspn(line, "\n")] = 0;
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = 0;
		const char *k = line;
		char *v = unescape(eq + 1);
		int64_t x = 0;
		bool num = str_parse_int64(v, strlen(v), &x);
		if (strcmp(k, "version") == 0)
			version = num && x == 1;
		else if (strcmp(k, "volume") == 0 && num)
			r.volume = (int)x;
		else if (strcmp(k, "repeat") == 0 && app_repeat_parse(v) >= 0)
			r.repeat = (enum app_repeat)app_repeat_parse(v);
		else if (strcmp(k, "shuffle") == 0 && app_shuffle_parse(v) >= 0)
			r.shuffle = (enum app_shuffle)app_shuffle_parse(v);
		else if (strcmp(k, "state") == 0)
			r.state = strcmp(v, "playing") == 0	 ? ENGINE_PLAYING
				  : strcmp(v, "paused") == 0 ? ENGINE_PAUSED
							     : ENGINE_STOPPED;
		else if (strcmp(k, "playlist") == 0) {
			r.has_context = true;
			snprintf(r.playlist, sizeof r.playlist, "%s", v);
		} else if (strcmp(k, "ids") == 0) {
			for (char *p = v; *p;) {
				char *end;
				unsigned long id = strtoul(p, &end, 10);
				/* 0: a file played by its path (path.I) */
				if (end == p || id > UINT32_MAX) {
					ok = false;
					break;
				}
				u32vec_push(&r.ids, (uint32_t)id);
				p = *end == ',' ? end + 1 : end;
			}
		} else if (strcmp(k, "entry") == 0 && num && x >= 0)
			r.entry = (size_t)x;
		else if (strcmp(k, "entry_id") == 0 && num && x > 0 && x <= UINT32_MAX)
			r.entry_id = (uint32_t)x;
		else if (strcmp(k, "queued") == 0 && num && x > 0 && x <= UINT32_MAX)
			r.queued = (uint32_t)x;
		else if (strcmp(k, "position_ms") == 0 && num && x >= 0)
			r.pos_ms = x;
		else if (str_has_prefix(k, "path."))
			get_path(&r, k + strlen("path."), v);
		else if (strcmp(k, "view") == 0 && num)
			ui->view = (int)x;
		else if (strcmp(k, "browse_ns") == 0 && !ui->browse_ns)
			ui->browse_ns = xstrdup(v);
		else if (strcmp(k, "browse_name") == 0 && !ui->browse_name)
			ui->browse_name = xstrdup(v);
		else if (strcmp(k, "search") == 0 && !ui->search)
			ui->search = xstrdup(v);
		free(v);
	}
	free(line);
	fclose(f);
	int rc = 0;
	if (!ok || !version || r.volume < 0) {
		app_resume_ui_free(ui);
		ui->view = -1;
		rc = crate_err_set(err, CRATE_ERR_INVALID, "%s: not a crate state file (ignored)",
				   path);
	} else {
		if (!ui->browse_name) {
			free(ui->browse_ns);
			ui->browse_ns = NULL;
		}
		rc = app_play_resume(app, &r, strcmp(mode, "play") == 0, err);
	}
	app_play_resume_free(&r);
	free(path);
	return rc;
}
