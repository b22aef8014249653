/* The client side of the control socket (protocol in app_remote.h): kept
 * apart from the server so that one-shot commands (`crate remote`, the
 * launcher in src/launcher.c) link nothing but libc. */
#include "app/app_remote.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

char *app_remote_socket_path(struct crate_err *err)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	char *p;
	if (rt && rt[0] == '/')
		p = xasprintf("%s/crate/socket", rt);
	else
		p = xasprintf("/tmp/crate-%u/socket", (unsigned)getuid());
	struct sockaddr_un sa;
	if (strlen(p) >= sizeof sa.sun_path) {
		crate_err_set(err, CRATE_ERR_INVALID, "socket path too long: %s", p);
		free(p);
		return NULL;
	}
	return p;
}

int app_remote_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	/* Non-blocking: a full backlog fails with EAGAIN instead of waiting
	 * without a deadline; the descriptor is made blocking again after. */
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* Milliseconds left until deadline (a CLOCK_MONOTONIC time in ms), >= 0. */
static int ms_left(int64_t deadline)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	return deadline > now ? (int)(deadline - now) : 0;
}

/* Before a client tells anything to whoever listens at path: the
 * directory must be ours, private and real (not a symlink), the socket
 * ours. Without XDG_RUNTIME_DIR the directory is /tmp/crate-<uid>, which
 * another user may have created first to receive our commands. */
static int check_socket_place(const char *path, struct crate_err *err)
{
	char *dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	struct stat st;
	int rc = 0;
	uid_t me = geteuid();
	if (lstat(dir, &st) != 0)
		rc = crate_err_set(err, CRATE_ERR_NOTFOUND, "no running crate (%s: %s)", dir,
				   strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		rc = crate_err_set(err, CRATE_ERR_REFUSED,
				   "refusing the control socket: %s is not a directory (a symlink?)", dir);
	else if (st.st_uid != me)
		rc = crate_err_set(err, CRATE_ERR_REFUSED,
				   "refusing the control socket: %s belongs to uid %u, not to you", dir,
				   (unsigned)st.st_uid);
	else if (st.st_mode & 0077)
		rc = crate_err_set(err, CRATE_ERR_REFUSED,
				   "refusing the control socket: others can use %s (mode %03o)", dir,
				   (unsigned)(st.st_mode & 0777));
	else if (lstat(path, &st) != 0)
		rc = crate_err_set(err, CRATE_ERR_NOTFOUND, "no running crate (socket %s)", path);
	else if (!S_ISSOCK(st.st_mode) || st.st_uid != me)
		rc = crate_err_set(err, CRATE_ERR_REFUSED,
				   "refusing the control socket: %s is not a socket of yours", path);
	free(dir);
	return rc;
}

int app_remote_send(const char *path, const char *line, struct strbuf *reply, int timeout_ms,
		    struct crate_err *err)
{
	return app_remote_send_max(path, line, reply, timeout_ms, 1u << 20, err);
}

int app_remote_send_max(const char *path, const char *line, struct strbuf *reply, int timeout_ms,
			size_t max_bytes, struct crate_err *err)
{
	/* One deadline for everything (connect, send, every read): a server
	 * trickling a byte every few seconds cannot hold the client. */
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int64_t deadline = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + timeout_ms;
	if (check_socket_place(path, err) != 0)
		return -1;
	int fd = app_remote_connect(path);
	if (fd < 0)
		return crate_err_set(err, errno == EAGAIN ? CRATE_ERR_IO : CRATE_ERR_NOTFOUND,
				     errno == EAGAIN ? "crate is busy (socket %s): try again"
						     : "no running crate (socket %s)", path);
	/* The peer must run as us: nothing is sent to anyone else. */
	struct ucred cred;
	socklen_t clen = sizeof cred;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0 || cred.uid != geteuid()) {
		close(fd);
		return crate_err_set(err, CRATE_ERR_REFUSED,
				     "refusing the control socket %s: it is served by uid %u, not you",
				     path, (unsigned)cred.uid);
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	struct strbuf msg;
	strbuf_init(&msg, strlen(line) + 2);
	strbuf_adds(&msg, line);
	strbuf_addc(&msg, '\n');
	size_t off = 0;
	while (off < msg.len) {
		ssize_t w = send(fd, msg.buf + off, msg.len - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd p = {.fd = fd, .events = POLLOUT};
			if (poll(&p, 1, ms_left(deadline)) > 0)
				continue;
		}
		if (w < 0)
			break; /* the server may have answered already (line too long), or time is up */
		off += (size_t)w;
	}
	strbuf_free(&msg);
	shutdown(fd, SHUT_WR);
	struct strbuf in;
	strbuf_init(&in, 256);
	int rc = 0;
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int left = ms_left(deadline);
		int pr = left > 0 ? poll(&p, 1, left) : 0;
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0) {
			rc = crate_err_set(err, CRATE_ERR_IO,
					   "no answer from crate within %d ms (socket %s; it may be busy)",
					   timeout_ms, path);
			break;
		}
		char buf[65536]; /* search answers can be megabytes */
		ssize_t got = read(fd, buf, sizeof buf);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			break;
		strbuf_add(&in, buf, (size_t)got);
		if (in.len > max_bytes) {
			rc = crate_err_set(err, CRATE_ERR_IO, "answer too long");
			break;
		}
	}
	close(fd);
	if (rc == 0) {
		/* Split off the last line: OK or ERR message. */
		const char *text = in.buf ? in.buf : "";
		size_t tl = strlen(text);
		while (tl && text[tl - 1] == '\n')
			tl--;
		size_t ls = tl;
		while (ls && text[ls - 1] != '\n')
			ls--;
		const char *last = text + ls;
		size_t lastlen = tl - ls;
		strbuf_add(reply, text, ls);
		if (lastlen == 2 && strncmp(last, "OK", 2) == 0)
			rc = 0;
		else if (lastlen >= 4 && strncmp(last, "ERR ", 4) == 0)
			rc = crate_err_set(err, CRATE_ERR_INVALID, "%.*s", (int)(lastlen - 4), last + 4);
		else if (in.len == 0)
			rc = crate_err_set(err, CRATE_ERR_IO,
					   "crate closed the connection without answering (busy?)");
		else
			rc = crate_err_set(err, CRATE_ERR_IO, "malformed answer from crate");
	}
	strbuf_free(&in);
	return rc;
}
