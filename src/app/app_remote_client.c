/* The client side of the control socket (protocol in app_remote.h): kept
 * apart from the server so that one-shot commands (`crate remote`, the
 * launcher in src/launcher.c) link nothing but libc. */
#include "app/app_remote.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
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
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int app_remote_send(const char *path, const char *line, struct strbuf *reply, int timeout_ms,
		    struct crate_err *err)
{
	return app_remote_send_max(path, line, reply, timeout_ms, 1u << 20, err);
}

int app_remote_send_max(const char *path, const char *line, struct strbuf *reply, int timeout_ms,
			size_t max_bytes, struct crate_err *err)
{
	int fd = app_remote_connect(path);
	if (fd < 0)
		return crate_err_set(err, CRATE_ERR_NOTFOUND, "no running crate (socket %s)", path);
	struct strbuf msg;
	strbuf_init(&msg, strlen(line) + 2);
	strbuf_adds(&msg, line);
	strbuf_addc(&msg, '\n');
	size_t off = 0;
	while (off < msg.len) {
		ssize_t w = send(fd, msg.buf + off, msg.len - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			break; /* the server may have answered already (line too long) */
		off += (size_t)w;
	}
	strbuf_free(&msg);
	shutdown(fd, SHUT_WR);
	struct strbuf in;
	strbuf_init(&in, 256);
	int rc = 0;
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int pr = poll(&p, 1, timeout_ms);
		if (pr <= 0) {
			rc = crate_err_set(err, CRATE_ERR_IO, "no answer from crate (socket %s)", path);
			break;
		}
		char buf[65536]; /* search answers can be megabytes */
		ssize_t got = read(fd, buf, sizeof buf);
		if (got < 0 && errno == EINTR)
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
		else
			rc = crate_err_set(err, CRATE_ERR_IO, "malformed answer from crate");
	}
	strbuf_free(&in);
	return rc;
}
