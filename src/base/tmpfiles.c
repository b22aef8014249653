/* Temporary files a signal must not leave behind. See tmpfiles.h. */
#include "base/tmpfiles.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#define TMPFILES_MAX 16

enum { SLOT_FREE, SLOT_FILLING, SLOT_READY };

/* A slot is claimed (FREE -> FILLING), filled, then published (READY); the
 * handler only reads READY slots, so it never sees half a path. */
static struct {
	atomic_int state;
	char path[PATH_MAX];
} slots[TMPFILES_MAX];

static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction previous[sizeof signals / sizeof signals[0]];

int tmpfiles_remember(const char *path)
{
	size_t n = strlen(path);
	if (n >= PATH_MAX)
		return -1;
	for (int i = 0; i < TMPFILES_MAX; i++) {
		int expect = SLOT_FREE;
		if (!atomic_compare_exchange_strong(&slots[i].state, &expect, SLOT_FILLING))
			continue;
		memcpy(slots[i].path, path, n + 1);
		atomic_store(&slots[i].state, SLOT_READY);
		return i;
	}
	return -1;
}

void tmpfiles_forget(int handle)
{
	if (handle >= 0 && handle < TMPFILES_MAX)
		atomic_store(&slots[handle].state, SLOT_FREE);
}

void tmpfiles_unlink_all(void)
{
	for (int i = 0; i < TMPFILES_MAX; i++)
		if (atomic_load(&slots[i].state) == SLOT_READY)
			unlink(slots[i].path);
}

static void on_signal(int sig, siginfo_t *info, void *ctx)
{
	int saved = errno;
	tmpfiles_unlink_all();
	errno = saved;
	for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
		if (signals[i] != sig)
			continue;
		const struct sigaction *p = &previous[i];
		if (p->sa_flags & SA_SIGINFO) {
			if (p->sa_sigaction)
				p->sa_sigaction(sig, info, ctx);
			return;
		}
		if (p->sa_handler == SIG_IGN)
			return;
		if (p->sa_handler != SIG_DFL) {
			p->sa_handler(sig);
			return;
		}
		/* The default action: die of the same signal. */
		sigaction(sig, p, NULL);
		raise(sig);
		return;
	}
}

void tmpfiles_signals_install(void)
{
	for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_signal;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(signals[i], &sa, &old) != 0)
			continue;
		/* Installed again: keep chaining to what was there first. */
		if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction == on_signal)
			continue;
		/* An ignored signal stays ignored (nohup): restore it. */
		if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) {
			sigaction(signals[i], &old, NULL);
			continue;
		}
		previous[i] = old;
	}
}

void tmpfiles_signals_uninstall(void)
{
	for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
		struct sigaction cur;
		if (sigaction(signals[i], NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
		    cur.sa_sigaction == on_signal)
			sigaction(signals[i], &previous[i], NULL);
	}
}
