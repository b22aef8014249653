/* See safeopen.h. */
#include "base/safeopen.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int safeopen_regular(const char *path, struct stat *st, struct crate_err *err)
{
	struct stat local;
	if (!st)
		st = &local;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		crate_err_set(err, e == ENOENT ? CRATE_ERR_NOTFOUND : CRATE_ERR_IO, "%s: %s", path,
			      strerror(e));
		return -1;
	}
	if (fstat(fd, st) != 0) {
		crate_err_set(err, CRATE_ERR_IO, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		crate_err_set(err, CRATE_ERR_INVALID, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		crate_err_set(err, CRATE_ERR_IO, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- names for a descriptor ---- */

static pthread_once_t linkdir_once = PTHREAD_ONCE_INIT;
static char linkdir[PATH_MAX]; /* empty: none could be made */

static void linkdir_remove(void)
{
	rmdir(linkdir);
}

/* Empties and removes one stale directory: only our own, and only the
 * symlinks we put there (anything else keeps it). */
static void remove_stale(int basefd, const char *name)
{
	int dfd = openat(basefd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return;
	struct stat st;
	DIR *d = fstat(dfd, &st) == 0 && st.st_uid == geteuid() ? fdopendir(dfd) : NULL;
	if (!d) {
		close(dfd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)))
		if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			unlinkat(dfd, e->d_name, 0);
	closedir(d);
	unlinkat(basefd, name, AT_REMOVEDIR); /* fails, harmlessly, if not empty */
}

void safeopen_sweep_stale(const char *base)
{
	DIR *d = opendir(base);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		long pid;
		char rest[16];
		if (sscanf(e->d_name, "crate-open-%ld-%15s", &pid, rest) != 2 || pid <= 0 ||
		    pid == (long)getpid())
			continue;
		/* Alive, or not ours to ask about (EPERM): keep it. */
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		remove_stale(dirfd(d), e->d_name);
	}
	closedir(d);
}

static void linkdir_make(void)
{
	const char *base = getenv("XDG_RUNTIME_DIR");
	if (!base || base[0] != '/')
		base = getenv("TMPDIR");
	if (!base || base[0] != '/')
		base = "/tmp";
	/* A process that died without its atexit (SIGKILL, a crash) left its
	 * directory: the pid in the name tells whose it was. */
	safeopen_sweep_stale(base);
	char dir[PATH_MAX];
	if (snprintf(dir, sizeof dir, "%s/crate-open-%ld-XXXXXX", base, (long)getpid()) >=
		    (int)sizeof dir ||
	    !mkdtemp(dir))
		return;
	memcpy(linkdir, dir, sizeof linkdir);
	atexit(linkdir_remove);
}

/* ".flac" of path (letters and digits only, short), or "". */
static void extension_of(const char *path, char *out, size_t n)
{
	out[0] = '\0';
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
	if (!dot || (slash && dot < slash) || strlen(dot) >= n || strlen(dot) < 2)
		return;
	for (const char *c = dot + 1; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
			return;
	memcpy(out, dot, strlen(dot) + 1);
}

const char *safeopen_fd_path(int fd, const char *path, char *buf, size_t n)
{
	char target[64];
	snprintf(target, sizeof target, "/proc/self/fd/%d", fd);
	struct stat a, b;
	if (stat(target, &a) != 0 || fstat(fd, &b) != 0 || a.st_ino != b.st_ino ||
	    a.st_dev != b.st_dev) {
		snprintf(buf, n, "%s", path); /* no /proc: the name, as before */
		return buf;
	}
	pthread_once(&linkdir_once, linkdir_make);
	char ext[16];
	extension_of(path, ext, sizeof ext);
	if (linkdir[0] && snprintf(buf, n, "%s/%d%s", linkdir, fd, ext) < (int)n) {
		unlink(buf); /* left by a descriptor number used before */
		if (symlink(target, buf) == 0)
			return buf;
	}
	snprintf(buf, n, "%s", target);
	return buf;
}

void safeopen_fd_path_done(const char *name)
{
	size_t l = strlen(linkdir);
	if (l && strncmp(name, linkdir, l) == 0 && name[l] == '/')
		unlink(name);
}
