/* The hook runner (see hooks.h). One thread, started by the first event,
 * owns every run: it spawns (posix_spawn, own process group, stdin from
 * /dev/null, stdout+stderr into a pipe), reads the pipes into the log,
 * kills runs past their deadline and reaps them. The caller only appends
 * to a short queue under the mutex. */
#include "app/hooks.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/str.h"

extern char **environ;

#define QUEUE_MAX 16 /* events waiting for a free run slot; older ones are dropped */
#define RUNS_MAX 8

enum report_kind { R_START, R_STATUS, R_KILLED, R_CUT, R_DROPPED, R_KINDS };

struct job {
	char **argv, **envp; /* owned, NULL-terminated */
};

struct run {
	pid_t pid;
	int fd;          /* read end of its output; -1 after EOF */
	int64_t deadline;
	size_t logged;
	bool cut;
};

struct hooks {
	struct hooks_opts o; /* strings owned */
	pthread_mutex_t mu;
	pthread_cond_t idle_cv;
	struct job queue[QUEUE_MAX];
	size_t qhead, qn;
	int nrunning; /* under mu: runs not yet reaped */
	bool started, stop;
	pthread_t thread;
	int wake[2]; /* written to wake the thread's poll */
	bool reported[R_KINDS];
	char report[512];
	bool report_pending;
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void job_free(struct job *j)
{
	for (char **p = j->argv; p && *p; p++)
		free(*p);
	for (char **p = j->envp; p && *p; p++)
		free(*p);
	free(j->argv);
	free(j->envp);
	memset(j, 0, sizeof *j);
}

/* Append one line to the log (opened per line: a run is rare, and the file
 * may be rotated or removed meanwhile). */
static void log_write(const struct hooks *h, const char *data, size_t len)
{
	int fd = open(h->o.log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	while (len) {
		ssize_t w = write(fd, data, len);
		if (w <= 0)
			break;
		data += w;
		len -= (size_t)w;
	}
	close(fd);
}

__attribute__((format(printf, 2, 3))) static void log_line(const struct hooks *h, const char *fmt,
							    ...)
{
	char line[1024], stamp[32];
	time_t t = time(NULL);
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
	int n = snprintf(line, sizeof line, "%s hook: ", stamp);
	va_list ap;
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	log_write(h, line, (size_t)n);
}

/* Log a failure; the first of its kind is also kept for the front end. */
__attribute__((format(printf, 3, 4))) static void fail(struct hooks *h, enum report_kind kind,
						      const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	log_line(h, "%s", msg);
	pthread_mutex_lock(&h->mu);
	if (!h->reported[kind]) {
		h->reported[kind] = true;
		snprintf(h->report, sizeof h->report, "%s (see %s)", msg, h->o.log_path);
		h->report_pending = true;
	}
	pthread_mutex_unlock(&h->mu);
}

static bool spawn(struct hooks *h, struct job *j, struct run *r)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0) {
		fail(h, R_START, "%s: cannot start: %s", h->o.program, strerror(errno));
		return false;
	}
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	posix_spawnattr_init(&at);
	sigset_t none, def;
	sigemptyset(&none);
	sigfillset(&def);
	sigdelset(&def, SIGKILL);
	sigdelset(&def, SIGSTOP);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
					      POSIX_SPAWN_SETSIGDEF);
	pid_t pid;
	int rc = posix_spawnp(&pid, h->o.program, &fa, &at, j->argv, j->envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(p[1]);
	if (rc != 0) {
		close(p[0]);
		fail(h, R_START, "%s: cannot start: %s", h->o.program, strerror(rc));
		return false;
	}
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	*r = (struct run){pid, p[0], now_ms() + h->o.timeout_ms, 0, false};
	return true;
}

/* Read what the run wrote; its output beyond max_output is read and dropped. */
static void drain(struct hooks *h, struct run *r)
{
	char buf[4096];
	for (;;) {
		ssize_t n = read(r->fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close(r->fd);
			r->fd = -1;
			return;
		}
		size_t keep = r->logged < h->o.max_output ? h->o.max_output - r->logged : 0;
		if ((size_t)n < keep)
			keep = (size_t)n;
		if (keep)
			log_write(h, buf, keep);
		r->logged += keep;
		if (keep < (size_t)n && !r->cut) {
			r->cut = true;
			fail(h, R_CUT, "%s: output cut after %zu bytes", h->o.program, h->o.max_output);
		}
	}
}

/* True when the run is over (reaped). */
static bool check_run(struct hooks *h, struct run *r, int64_t now)
{
	int st;
	if (now >= r->deadline) {
		kill(-r->pid, SIGKILL);
		kill(r->pid, SIGKILL);
		waitpid(r->pid, &st, 0);
		fail(h, R_KILLED, "%s: still running after %d ms: killed", h->o.program,
		     h->o.timeout_ms);
	} else {
		if (r->fd >= 0)
			return false; /* reaped once its output is closed */
		pid_t w = waitpid(r->pid, &st, WNOHANG);
		if (w == 0)
			return false;
		if (w == r->pid && WIFEXITED(st) && WEXITSTATUS(st) != 0)
			fail(h, R_STATUS, "%s: exit status %d", h->o.program, WEXITSTATUS(st));
		else if (w == r->pid && WIFSIGNALED(st))
			fail(h, R_STATUS, "%s: killed by signal %d", h->o.program, WTERMSIG(st));
	}
	if (r->fd >= 0)
		close(r->fd);
	return true;
}

/* Runs still going when crate quits are left to finish (quitting never
 * waits for a hook), but their timeout still holds: a detached warden
 * process kills each one's process group at its deadline, then ends. It
 * is forked from a threaded process, so it calls only async-signal-safe
 * functions; it closes every descriptor first (a listening socket or the
 * database kept open past crate's end would outlive it) and leaves the
 * terminal's session (a hang-up must not spare the hooks). */
static void warden_start(struct run *runs, int n)
{
	if (n <= 0)
		return;
	long open_max = sysconf(_SC_OPEN_MAX);
	int maxfd = open_max > 0 && open_max < 65536 ? (int)open_max : 65536;
	pid_t child = fork();
	if (child != 0) {
		if (child > 0)
			waitpid(child, NULL, 0); /* it forks the warden and ends at once */
		return;
	}
	if (fork() != 0) /* the warden is init's to reap, not crate's */
		_exit(0);
	if (close_range(0, ~0U, 0) != 0) /* a kernel without it */
		for (int fd = 0; fd < maxfd; fd++)
			close(fd);
	setsid();
	for (;;) {
		int next = -1;
		for (int i = 0; i < n; i++)
			if (runs[i].pid > 0 && (next < 0 || runs[i].deadline < runs[next].deadline))
				next = i;
		if (next < 0)
			_exit(0);
		int64_t d = runs[next].deadline;
		struct timespec at = {(time_t)(d / 1000), (long)(d % 1000) * 1000000};
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) != 0) {
		}
		kill(-runs[next].pid, SIGKILL);
		runs[next].pid = 0; /* the warden's own copy */
	}
}

static void *hooks_thread(void *arg)
{
	struct hooks *h = arg;
	struct run runs[RUNS_MAX];
	int nruns = 0;
	for (;;) {
		pthread_mutex_lock(&h->mu);
		if (h->stop) {
			/* Quitting: queued events still start (`crate scan` ends right
			 * after its on_scan_done), but nobody watches them any more. */
			struct job left[QUEUE_MAX];
			size_t nleft = 0;
			for (; h->qn; h->qn--, h->qhead = (h->qhead + 1) % QUEUE_MAX)
				left[nleft++] = h->queue[h->qhead];
			pthread_mutex_unlock(&h->mu);
			for (size_t i = 0; i < nleft && nruns < RUNS_MAX; i++)
				if (spawn(h, &left[i], &runs[nruns]))
					nruns++;
			for (size_t i = 0; i < nleft; i++)
				job_free(&left[i]);
			break;
		}
		while (nruns < h->o.max_running && h->qn) {
			struct job j = h->queue[h->qhead];
			h->qhead = (h->qhead + 1) % QUEUE_MAX;
			h->qn--;
			pthread_mutex_unlock(&h->mu);
			bool ok = spawn(h, &j, &runs[nruns]);
			job_free(&j);
			pthread_mutex_lock(&h->mu);
			if (ok)
				nruns++;
			else
				h->nrunning--;
		}
		if (h->nrunning == 0)
			pthread_cond_broadcast(&h->idle_cv);
		pthread_mutex_unlock(&h->mu);

		struct pollfd fds[RUNS_MAX + 1];
		int nf = 0, timeout = 1000;
		int64_t now = now_ms();
		fds[nf++] = (struct pollfd){.fd = h->wake[0], .events = POLLIN};
		for (int i = 0; i < nruns; i++) {
			int64_t left = runs[i].deadline - now;
			if (runs[i].fd >= 0)
				fds[nf++] = (struct pollfd){.fd = runs[i].fd, .events = POLLIN};
			else
				left = left < 20 ? left : 20; /* output closed: poll for its exit */
			if (left < timeout)
				timeout = left < 0 ? 0 : (int)left;
		}
		if (poll(fds, (nfds_t)nf, nruns ? timeout : -1) > 0 && (fds[0].revents & POLLIN)) {
			char c[64];
			while (read(h->wake[0], c, sizeof c) > 0) {
			}
		}
		now = now_ms();
		for (int i = 0; i < nruns;) {
			if (runs[i].fd >= 0)
				drain(h, &runs[i]);
			if (check_run(h, &runs[i], now)) {
				runs[i] = runs[--nruns];
				pthread_mutex_lock(&h->mu);
				h->nrunning--;
				pthread_mutex_unlock(&h->mu);
			} else {
				i++;
			}
		}
	}
	/* Runs still going finish on their own (init reaps them), or the
	 * warden kills them at their deadline. */
	for (int i = 0; i < nruns; i++)
		if (runs[i].fd >= 0)
			close(runs[i].fd);
	warden_start(runs, nruns);
	return NULL;
}

struct hooks *hooks_new(const struct hooks_opts *opts)
{
	struct hooks *h = xcalloc(1, sizeof *h);
	h->o = *opts;
	h->o.program = xstrdup(opts->program);
	h->o.log_path = xstrdup(opts->log_path);
	if (h->o.max_running < 1 || h->o.max_running > RUNS_MAX)
		h->o.max_running = 2;
	if (h->o.timeout_ms <= 0)
		h->o.timeout_ms = 10000;
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->idle_cv, NULL);
	h->wake[0] = h->wake[1] = -1;
	return h;
}

void hooks_free(struct hooks *h)
{
	if (!h)
		return;
	if (h->started) {
		pthread_mutex_lock(&h->mu);
		h->stop = true;
		pthread_mutex_unlock(&h->mu);
		ssize_t w = write(h->wake[1], "x", 1);
		(void)w;
		pthread_join(h->thread, NULL);
		close(h->wake[0]);
		close(h->wake[1]);
	}
	for (size_t i = 0; i < h->qn; i++)
		job_free(&h->queue[(h->qhead + i) % QUEUE_MAX]);
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->idle_cv);
	free((char *)h->o.program);
	free((char *)h->o.log_path);
	free(h);
}

static bool start_thread(struct hooks *h)
{
	if (h->started)
		return true;
	if (pipe2(h->wake, O_CLOEXEC | O_NONBLOCK) != 0)
		return false;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* signals stay with the main thread */
	int rc = pthread_create(&h->thread, NULL, hooks_thread, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		close(h->wake[0]);
		close(h->wake[1]);
		return false;
	}
	h->started = true;
	return true;
}

void hooks_run(struct hooks *h, const char *const *kv, size_t npairs)
{
	if (!h || !start_thread(h))
		return;
	struct job j;
	j.argv = xcalloc(2 * npairs + 2, sizeof *j.argv);
	j.argv[0] = xstrdup(h->o.program);
	size_t nenv = 0;
	while (environ && environ[nenv])
		nenv++;
	j.envp = xcalloc(nenv + npairs + 1, sizeof *j.envp);
	size_t e = 0;
	for (size_t i = 0; i < nenv; i++)
		if (strncmp(environ[i], "CRATE_", 6) != 0) /* ours replace inherited ones */
			j.envp[e++] = xstrdup(environ[i]);
	for (size_t i = 0; i < npairs; i++) {
		j.argv[1 + 2 * i] = xstrdup(kv[2 * i]);
		j.argv[2 + 2 * i] = xstrdup(kv[2 * i + 1]);
		char *var = xasprintf("CRATE_%s=%s", kv[2 * i], kv[2 * i + 1]);
		for (char *p = var + 6; *p && *p != '='; p++)
			*p = (char)toupper((unsigned char)*p);
		j.envp[e++] = var;
	}
	pthread_mutex_lock(&h->mu);
	bool dropped = false;
	if (h->qn == QUEUE_MAX) { /* the hook cannot keep up: the oldest event goes */
		job_free(&h->queue[h->qhead]);
		h->qhead = (h->qhead + 1) % QUEUE_MAX;
		h->qn--;
		h->nrunning--;
		dropped = true;
	}
	h->queue[(h->qhead + h->qn) % QUEUE_MAX] = j;
	h->qn++;
	h->nrunning++;
	pthread_mutex_unlock(&h->mu);
	if (dropped)
		fail(h, R_DROPPED, "%s: too slow, events dropped", h->o.program);
	ssize_t w = write(h->wake[1], "x", 1);
	(void)w;
}

bool hooks_take_report(struct hooks *h, char *buf, size_t size)
{
	if (!h)
		return false;
	pthread_mutex_lock(&h->mu);
	bool have = h->report_pending;
	if (have)
		snprintf(buf, size, "%s", h->report);
	h->report_pending = false;
	pthread_mutex_unlock(&h->mu);
	return have;
}

bool hooks_wait_idle(struct hooks *h, int ms)
{
	if (!h)
		return true;
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&h->mu);
	while (h->nrunning > 0)
		if (pthread_cond_timedwait(&h->idle_cv, &h->mu, &until) != 0)
			break;
	bool idle = h->nrunning == 0;
	pthread_mutex_unlock(&h->mu);
	return idle;
}
