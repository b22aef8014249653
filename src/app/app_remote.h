/* The control socket: a running crate listens on a Unix socket that only
 * its user can reach ($XDG_RUNTIME_DIR/crate/socket, else
 * /tmp/crate-$UID/socket; directory 0700, socket 0600), and `crate remote`
 * sends it one command line. Protocol: the client writes one line (at most
 * APP_REMOTE_MAX_LINE bytes, newline-terminated); the server answers with
 * zero or more text lines, then a last line "OK" or "ERR message", and
 * closes the connection. The server never blocks: clients are read and
 * written from the front end's poll() loop. */
#ifndef CRATE_APP_APP_REMOTE_H
#define CRATE_APP_APP_REMOTE_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/str.h"

struct app;
struct app_remote;

#define APP_REMOTE_MAX_LINE 4096
#define APP_REMOTE_MAX_CLIENTS 8
/* A client that has not sent its line within this many seconds is dropped
 * (clients send at once): idle connections cannot keep others out, who
 * wait in the listen queue meanwhile. */
#define APP_REMOTE_IDLE_S 2

/* What only the front end can do, called from app_remote_handle. */
struct app_remote_hooks {
	/* Show QUERY in the interface (`crate remote search QUERY`). */
	void (*search)(void *ud, const char *query);
	/* Player state or collections changed: redraw. */
	void (*changed)(void *ud);
	void *ud;
	/* A read-only command line forwarded by the launcher (`cli` below):
	 * argv[0] is the command ("search"); its standard output goes to out.
	 * Returns 0, or -1 with *err. NULL: none is answered. */
	int (*command)(void *ud, int argc, char **argv, struct strbuf *out, struct crate_err *err);
};

/* The protocol's `cli DB<TAB>ARG0<TAB>ARG1...`: run `crate --db DB ARG0
 * ARG1...` in this crate when DB is the database it has open (the same
 * file), answering with exactly what that command prints: its stdout, and
 * each line it prints on stderr (what a search forgave) with
 * APP_REMOTE_STDERR before it, a byte no printed line holds (they are
 * sanitised). Any ERR means "run it yourself": the launcher then execs
 * crate-core, which prints the real error. Only `search` is answered. */
#define APP_REMOTE_CLI "cli"
#define APP_REMOTE_STDERR '\x1e'

/* The socket's path (not created). Owned by the caller. */
char *app_remote_socket_path(struct crate_err *err);
/* A stream socket connected to path (close-on-exec), or -1 with errno set. */
int app_remote_connect(const char *path);

/* Listen on the socket (creating its directory 0700). A live socket of
 * another crate is refused (CRATE_ERR_EXISTS); a stale one is replaced. */
int app_remote_open(struct app *app, const struct app_remote_hooks *hooks,
		    struct app_remote **out, struct crate_err *err);
/* Stop listening and remove the socket file. NULL is fine. */
void app_remote_close(struct app_remote *r);
const char *app_remote_path(const struct app_remote *r);

/* Fill fds with the listening socket and the clients (at most max);
 * returns how many. Call app_remote_handle with the polled result. */
size_t app_remote_pollfds(struct app_remote *r, struct pollfd *fds, size_t max);
void app_remote_handle(struct app_remote *r, const struct pollfd *fds, size_t n);

/* Run one command line and write the reply (without the OK/ERR line) into
 * reply. Returns 0, or -1 with *err set (the ERR line). Exposed for tests. */
int app_remote_execute(struct app_remote *r, const char *line, struct strbuf *reply,
		       struct crate_err *err);

/* Client side: connect to path, send line, collect the reply lines (not the
 * final OK/ERR) into reply. Returns 0 on OK; -1 with *err set: the server's
 * ERR message (CRATE_ERR_INVALID), or CRATE_ERR_NOTFOUND when no crate
 * listens there. Waits at most timeout_ms for the answer. */
int app_remote_send(const char *path, const char *line, struct strbuf *reply, int timeout_ms,
		    struct crate_err *err);
/* The same with another cap on the answer than app_remote_send's 1 MiB. */
int app_remote_send_max(const char *path, const char *line, struct strbuf *reply, int timeout_ms,
			size_t max_bytes, struct crate_err *err);

#endif
