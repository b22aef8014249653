/* Running the user's hook program (cmus's status_display_program, ncmpcpp's
 * execute_on_song_change) without ever blocking the caller: each event
 * becomes one process, started and watched by a thread of this module.
 * The program gets the event as `key value` argument pairs and as
 * CRATE_<KEY> environment variables; it is executed directly (no shell),
 * so tag text in the values cannot become a command. Its output goes to a
 * log file (cut after max_output bytes per run); a run past timeout_ms is
 * killed (with its process group). The first failure of each kind (cannot
 * start, exit status, killed, output cut, events dropped) is reported
 * once through hooks_take_report; every failure is logged. */
#ifndef CRATE_APP_HOOKS_H
#define CRATE_APP_HOOKS_H

#include <stdbool.h>
#include <stddef.h>

struct hooks;

struct hooks_opts {
	const char *program;  /* path, or a name looked up in PATH */
	const char *log_path; /* where output and failures go (appended) */
	int timeout_ms;       /* a run longer than this is killed */
	size_t max_output;    /* bytes of a run's output kept in the log */
	int max_running;      /* runs at once; later events wait (a few) or are dropped */
};

/* Copies opts. The thread starts with the first event. */
struct hooks *hooks_new(const struct hooks_opts *opts);
/* Stop watching: runs still going are left to finish on their own (quitting
 * never waits for a hook), and a detached process kills any still going
 * at its timeout. NULL is fine. */
void hooks_free(struct hooks *h);
/* Queue one run with these key/value pairs (2*npairs strings, copied; keys
 * lower-case ASCII like "artist"). Never blocks. */
void hooks_run(struct hooks *h, const char *const *kv, size_t npairs);
/* A failure not reported yet, into buf: true once per failure kind. */
bool hooks_take_report(struct hooks *h, char *buf, size_t size);
/* Wait until every queued and running run is over or ms passed (tests and
 * one-shot commands); true when idle. */
bool hooks_wait_idle(struct hooks *h, int ms);

#endif
