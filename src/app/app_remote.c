/* The control socket (see app_remote.h for the protocol).
 *
 * Safety: the directory is created 0700 and must be a real directory owned
 * by us; the socket is bound under umask 0177 (so it is 0600 from the
 * start, no window where others could connect), and each client's
 * credentials (SO_PEERCRED) must be our uid. Lines are bounded (4 KiB);
 * an oversized or malformed line gets an ERR reply and changes nothing.
 * Clients are served from the front end's poll() loop, never blocking: a
 * client that does not finish its line within a few seconds is dropped. */
#include "app/app_remote.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_analysis.h"
#include "app/app_play.h"
#include "app/app_view.h"
#include "medialib/index.h"
#include "medialib/item_format.h"
#include "coll/eval.h"
#include "coll/parse.h"
#include "coll/store.h"
#include "base/str.h"
#include "base/utf8.h"

struct remote_client {
	int fd;
	char in[APP_REMOTE_MAX_LINE + 1];
	size_t inlen;
	struct strbuf out;
	size_t outoff;
	bool writing;
	time_t started;
};

struct app_remote {
	struct app *app;
	struct app_remote_hooks hooks;
	int lfd;
	char *path;
	struct remote_client c[APP_REMOTE_MAX_CLIENTS];
	size_t nc;
};

/* mkdir 0700, or check that an existing directory is ours and private. */
static int prepare_dir(const char *sock, struct crate_err *err)
{
	char *dir = xstrdup(sock);
	*strrchr(dir, '/') = '\0';
	int rc = 0;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		rc = crate_err_set(err, CRATE_ERR_IO, "%s: %s", dir, strerror(errno));
		goto out;
	}
	struct stat st;
	if (lstat(dir, &st) != 0) {
		rc = crate_err_set(err, CRATE_ERR_IO, "%s: %s", dir, strerror(errno));
	} else if (!S_ISDIR(st.st_mode) || st.st_uid != getuid()) {
		rc = crate_err_set(err, CRATE_ERR_REFUSED, "%s: not a directory owned by you", dir);
	} else if ((st.st_mode & 0077) && chmod(dir, 0700) != 0) {
		rc = crate_err_set(err, CRATE_ERR_IO, "%s: %s", dir, strerror(errno));
	}
out:
	free(dir);
	return rc;
}

int app_remote_open(struct app *app, const struct app_remote_hooks *hooks,
		    struct app_remote **out, struct crate_err *err)
{
	*out = NULL;
	char *path = app_remote_socket_path(err);
	if (!path)
		return -1;
	if (prepare_dir(path, err) != 0) {
		free(path);
		return -1;
	}
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			crate_err_set(err, CRATE_ERR_REFUSED, "%s exists and is not a socket", path);
			free(path);
			return -1;
		}
		int fd = app_remote_connect(path);
		if (fd >= 0 || errno == EAGAIN) { /* EAGAIN: it runs, and is busy */
			if (fd >= 0)
				close(fd);
			crate_err_set(err, CRATE_ERR_EXISTS, "another crate is running (socket %s)", path);
			free(path);
			return -1;
		}
		unlink(path); /* stale: its crate is gone */
	}
	int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (lfd < 0) {
		crate_err_set(err, CRATE_ERR_IO, "socket: %s", strerror(errno));
		free(path);
		return -1;
	}
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	mode_t old = umask(0177);
	int brc = bind(lfd, (struct sockaddr *)&sa, sizeof sa);
	umask(old);
	if (brc != 0 || chmod(path, 0600) != 0 || listen(lfd, 64) != 0) {
		crate_err_set(err, CRATE_ERR_IO, "%s: %s", path, strerror(errno));
		close(lfd);
		free(path);
		return -1;
	}
	struct app_remote *r = xcalloc(1, sizeof *r);
	r->app = app;
	if (hooks)
		r->hooks = *hooks;
	r->lfd = lfd;
	r->path = path;
	*out = r;
	return 0;
}

static void client_drop(struct app_remote *r, size_t i)
{
	close(r->c[i].fd);
	strbuf_free(&r->c[i].out);
	r->c[i] = r->c[--r->nc];
}

void app_remote_close(struct app_remote *r)
{
	if (!r)
		return;
	while (r->nc)
		client_drop(r, 0);
	close(r->lfd);
	unlink(r->path);
	free(r->path);
	free(r);
}

const char *app_remote_path(const struct app_remote *r)
{
	return r->path;
}

size_t app_remote_pollfds(struct app_remote *r, struct pollfd *fds, size_t max)
{
	time_t now = time(NULL);
	for (size_t i = 0; i < r->nc;) {
		if (now - r->c[i].started > APP_REMOTE_IDLE_S)
			client_drop(r, i); /* too slow: never let a client hold us */
		else
			i++;
	}
	size_t n = 0;
	/* Full: leave new clients waiting in the listen queue (they are
	 * served as slots free up) rather than closing them unanswered. */
	if (n < max)
		fds[n++] = (struct pollfd){.fd = r->lfd,
					   .events = r->nc < APP_REMOTE_MAX_CLIENTS ? POLLIN : 0};
	for (size_t i = 0; i < r->nc && n < max; i++)
		fds[n++] = (struct pollfd){.fd = r->c[i].fd, .events = r->c[i].writing ? POLLOUT : POLLIN};
	return n;
}

static void accept_all(struct app_remote *r)
{
	while (r->nc < APP_REMOTE_MAX_CLIENTS) {
		int fd = accept4(r->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		struct ucred cred;
		socklen_t len = sizeof cred;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid != getuid()) {
			close(fd);
			continue;
		}
		struct remote_client *c = &r->c[r->nc++];
		memset(c, 0, sizeof *c);
		c->fd = fd;
		c->started = time(NULL);
		strbuf_init(&c->out, 256);
	}
}

static void client_answer(struct app_remote *r, struct remote_client *c, const char *line)
{
	struct crate_err err = {0};
	strbuf_reset(&c->out);
	if (app_remote_execute(r, line, &c->out, &err) == 0) {
		strbuf_adds(&c->out, "OK\n");
	} else {
		/* One line, whatever the message holds. */
		for (char *p = err.msg; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
		strbuf_addf(&c->out, "ERR %s\n", err.msg);
	}
	c->writing = true;
	c->outoff = 0;
}

static bool client_read(struct app_remote *r, struct remote_client *c)
{
	for (;;) {
		size_t room = APP_REMOTE_MAX_LINE + 1 - c->inlen;
		ssize_t got = room ? read(c->fd, c->in + c->inlen, room) : 0;
		if (got < 0)
			return errno == EAGAIN || errno == EINTR;
		if (got == 0 && room) {
			/* EOF: a final line without newline still counts. */
			if (c->inlen == 0)
				return false;
			c->in[c->inlen] = '\0';
			client_answer(r, c, c->in);
			return true;
		}
		c->inlen += (size_t)got;
		char *nl = memchr(c->in, '\n', c->inlen);
		if (nl) {
			*nl = '\0';
			if (nl > c->in && nl[-1] == '\r')
				nl[-1] = '\0';
			client_answer(r, c, c->in);
			return true;
		}
		if (c->inlen > APP_REMOTE_MAX_LINE) {
			strbuf_reset(&c->out);
			strbuf_addf(&c->out, "ERR line too long (at most %d bytes)\n", APP_REMOTE_MAX_LINE);
			c->writing = true;
			c->outoff = 0;
			return true;
		}
	}
}

static bool client_write(struct remote_client *c)
{
	while (c->outoff < c->out.len) {
		ssize_t w = send(c->fd, c->out.buf + c->outoff, c->out.len - c->outoff, MSG_NOSIGNAL);
		if (w < 0)
			return errno == EAGAIN || errno == EINTR;
		c->outoff += (size_t)w;
	}
	return false; /* all sent: close */
}

void app_remote_handle(struct app_remote *r, const struct pollfd *fds, size_t n)
{
	if (n == 0)
		return;
	/* fds[0] is the listener; fds[1..] the clients in order, at the time of polling. */
	int cfds[APP_REMOTE_MAX_CLIENTS];
	short rev[APP_REMOTE_MAX_CLIENTS];
	size_t m = 0;
	for (size_t i = 1; i < n && m < APP_REMOTE_MAX_CLIENTS; i++, m++) {
		cfds[m] = fds[i].fd;
		rev[m] = fds[i].revents;
	}
	for (size_t k = 0; k < m; k++) {
		if (!rev[k])
			continue;
		for (size_t i = 0; i < r->nc; i++) {
			if (r->c[i].fd != cfds[k])
				continue;
			struct remote_client *c = &r->c[i];
			bool keep;
			if (c->writing)
				keep = client_write(c);
			else if (rev[k] & (POLLIN | POLLHUP))
				keep = client_read(r, c) && (!c->writing || client_write(c));
			else
				keep = false;
			if (!keep)
				client_drop(r, i);
			break;
		}
	}
	if (fds[0].revents & POLLIN)
		accept_all(r);
}

/* A track without a title is named by its file's name (a stream by the
 * last part of its URL). */
static int remote_status(struct app_remote *r, struct strbuf *reply)
{
	struct app *app = r->app;
	struct app_play_status st;
	app_play_status_shown(app, &st); /* a station connecting: playing, as asked */
	strbuf_addf(reply, "state: %s\n", engine_state_name(st.state));
	if (st.state != ENGINE_STOPPED) {
		/* Tag text is untrusted: the reply is sanitised here and again by the client. */
		char *line = app_track_line(app, &st);
		char *clean = utf8_sanitize(line, strlen(line));
		strbuf_addf(reply, "track: %s\n", clean);
		free(clean);
		free(line);
		char p1[32], p2[32];
		/* as the interface's status line and %duration% read: 1:02:03 from an hour */
		item_format_duration(st.pos_ms, p1, sizeof p1);
		item_format_duration(st.dur_ms, p2, sizeof p2);
		strbuf_addf(reply, "position: %s / %s\n", p1, p2);
	}
	if (st.playlist[0])
		strbuf_addf(reply, "playlist: %s (entry %zu)\n", st.playlist, st.position + 1);
	else if (st.has_context)
		strbuf_addf(reply, "playlist: (temporary list, entry %zu of %zu)\n", st.position + 1,
			    st.context_len);
	if (st.error[0]) { /* why it stopped or skipped (a removed playlist): untrusted */
		char *clean = utf8_sanitize(st.error, strlen(st.error));
		strbuf_addf(reply, "message: %s\n", clean);
		free(clean);
	}
	if (st.from_queue)
		strbuf_addf(reply, "from: queue\n");
	if (st.next_path[0]) { /* named as the track line names one without tags */
		char tb[512];
		const char *t = st.next_id ? app_item_text(app, st.next_id, "title",
							  MLIB_VALUE_SEPARATOR, tb, sizeof tb)
					   : NULL;
		char *name = t ? NULL : str_path_name_dup(st.next_path);
		char *clean = utf8_sanitize(t ? t : name, strlen(t ? t : name));
		strbuf_addf(reply, "next: %s\n", clean);
		free(clean);
		free(name);
	}
	strbuf_addf(reply, "volume: %d%%\nrepeat: %s\nshuffle: %s\n", st.volume,
		    app_repeat_name(st.repeat), app_shuffle_name(st.shuffle_mode));
	return 0;
}

static int remote_player(struct app_remote *r, const char *word, const char *arg,
			 struct strbuf *reply, struct crate_err *err)
{
	struct app *app = r->app;
	struct app_play_status st;
	app_play_status(app, &st);
	bool noarg = *arg == '\0';
	if (strcmp(word, "status") == 0 && noarg)
		return remote_status(r, reply);
	if (strcmp(word, "play") == 0 && noarg)
		return st.state == ENGINE_PLAYING ? 0 : app_play_toggle(app, err);
	if (strcmp(word, "pause") == 0 && noarg)
		return st.state == ENGINE_PLAYING ? app_play_toggle(app, err) : 0;
	if (strcmp(word, "toggle") == 0 && noarg)
		return app_play_toggle(app, err);
	if (strcmp(word, "next") == 0 && noarg)
		return app_play_next(app, err);
	if (strcmp(word, "prev") == 0 && noarg)
		return app_play_prev(app, err);
	if (strcmp(word, "stop") == 0 && noarg)
		return app_play_stop(app, err);
	if (strcmp(word, "seek") == 0) {
		if (noarg)
			return crate_err_set(err, CRATE_ERR_INVALID,
					     "usage: seek POSITION (90, 1:30, +10, -0:05, 50%%)");
		if (st.state == ENGINE_STOPPED)
			return crate_err_set(err, CRATE_ERR_INVALID, "seek: nothing is playing");
		return app_play_seek_arg(app, arg, err);
	}
	if (strcmp(word, "vol") == 0) {
		if (noarg)
			return crate_err_set(err, CRATE_ERR_INVALID, "usage: vol N | vol +N | vol -N (0-100)");
		if (app_play_volume_arg(app, arg, err) != 0) /* as :vol says it */
			return -1;
		app_play_status(app, &st);
		strbuf_addf(reply, "volume: %d%%\n", st.volume);
		return 0;
	}
	static const char *const known[] = {"play", "pause", "toggle", "next", "prev", "stop", "status"};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(word, known[i]) == 0)
			return crate_err_set(err, CRATE_ERR_INVALID, "%s takes no argument", word);
	return crate_err_set(err, CRATE_ERR_INVALID,
			     "unknown command '%s' (play pause toggle next prev stop status search seek vol)", word);
}

static int remote_search(struct app_remote *r, const char *q, struct strbuf *reply,
			 struct crate_err *err)
{
	struct app *app = r->app;
	if (!*q)
		return crate_err_set(err, CRATE_ERR_INVALID, "usage: search QUERY");
	struct coll_parse_opts opts = {.exists = app->store ? coll_store_exists : NULL,
				       .exists_ud = app->store};
	struct coll_node *n = coll_parse(q, strlen(q), &opts, err);
	if (!n)
		return -1;
	/* Counted as the interface's search bar counts: a search, forgiving
	 * (what it forgave said after the count, as the bar says it). */
	size_t count = 0;
	struct strbuf notes;
	strbuf_init(&notes, 0);
	if (app->index) {
		struct app_view v = {.query = n, .text = q, .search = true};
		struct coll_result res = {0};
		if (app_view_eval(app, &v, &res, &notes, err) != 0) {
			strbuf_free(&notes);
			coll_node_unref(n);
			return -1;
		}
		count = res.ids.n;
		coll_result_free(&res);
	}
	coll_node_unref(n);
	strbuf_addf(reply, "%zu track%s%s%s\n", count, count == 1 ? "" : "s",
		    notes.len ? " \xe2\x80\x94 " : "", notes.len ? notes.buf : "");
	strbuf_free(&notes);
	if (r->hooks.search)
		r->hooks.search(r->hooks.ud, q);
	return 0;
}

/* Same file: the same device and inode. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* APP_REMOTE_CLI (app_remote.h): arg is "DB\tARG0\tARG1...". */
static int remote_cli(struct app_remote *r, const char *arg, struct strbuf *reply,
		      struct crate_err *err)
{
	if (!r->hooks.command)
		return crate_err_set(err, CRATE_ERR_INVALID, "cli: not offered here");
	char *copy = xstrdup(arg);
	char *argv[APP_REMOTE_MAX_LINE / 2 + 2];
	int argc = 0;
	for (char *p = copy, *tab; argc < (int)(sizeof argv / sizeof argv[0]) - 1; p = tab + 1) {
		argv[argc++] = p;
		if (!(tab = strchr(p, '\t')))
			break;
		*tab = '\0';
	}
	argv[argc] = NULL;
	int rc;
	if (argc < 2 || strcmp(argv[1], "search") != 0)
		rc = crate_err_set(err, CRATE_ERR_INVALID, "cli: only search is answered");
	else if (!same_file(argv[0], r->app->db_path))
		rc = crate_err_set(err, CRATE_ERR_INVALID, "cli: another database is open here");
	else
		rc = r->hooks.command(r->hooks.ud, argc - 1, argv + 1, reply, err);
	free(copy);
	return rc;
}

static int remote_run(struct app_remote *r, const char *word, const char *arg,
		      struct strbuf *reply, struct crate_err *err)
{
	if (strcmp(word, APP_REMOTE_CLI) == 0)
		return remote_cli(r, arg, reply, err);
	if (strcmp(word, "search") == 0)
		return remote_search(r, arg, reply, err);
	if (strcmp(word, "ping") == 0) {
		strbuf_adds(reply, "pong\n");
		return 0;
	}
	return remote_player(r, word, arg, reply, err);
}

int app_remote_execute(struct app_remote *r, const char *line, struct strbuf *reply,
		       struct crate_err *err)
{
	size_t len = strlen(line);
	if (len > APP_REMOTE_MAX_LINE)
		return crate_err_set(err, CRATE_ERR_INVALID, "line too long (at most %d bytes)",
				     APP_REMOTE_MAX_LINE);
	if (!utf8_valid(line, len))
		return crate_err_set(err, CRATE_ERR_INVALID, "the command is not valid UTF-8");
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)line[i] < 0x20 && line[i] != '\t')
			return crate_err_set(err, CRATE_ERR_INVALID, "control character in the command");
	while (*line == ' ' || *line == '\t')
		line++;
	size_t wl = strcspn(line, " \t");
	char word[32];
	if (wl == 0)
		return crate_err_set(err, CRATE_ERR_INVALID, "empty command");
	if (wl >= sizeof word)
		return crate_err_set(err, CRATE_ERR_INVALID, "unknown command");
	memcpy(word, line, wl);
	word[wl] = '\0';
	const char *arg = line + wl;
	while (*arg == ' ' || *arg == '\t')
		arg++;
	int rc = remote_run(r, word, arg, reply, err);
	if (r->hooks.changed)
		r->hooks.changed(r->hooks.ud);
	return rc;
}
