/* Snapshot file: header, length-prefixed blobs, checksum. See
 * index_snapshot.h. */
#include "medialib/index_snapshot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/tmpfiles.h"

#define SNAP_MAGIC "CRATEIDX"
#define SNAP_VERSION 2u
#define SNAP_ENDIAN 0x01020304u

struct snap_header {
	char magic[8];
	uint32_t version, endian, size_t_size, double_size;
	uint64_t dbid, generation, loader, stats;
	uint64_t count, payload_len, payload_hash;
	uint64_t header_hash; /* of every byte above */
};

/* ---- checksum ---- */

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full

static inline uint64_t rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t mix_round(uint64_t acc, uint64_t w)
{
	return rotl64(acc + w * P2, 31) * P1;
}

uint64_t snap_hash(const void *data, size_t n, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t a = seed + P1 + P2, b = seed + P2, c = seed, d = seed - P1;
	size_t i = 0;
	/* Four independent chains: the multiplies overlap in the pipeline. */
	for (; i + 32 <= n; i += 32) {
		uint64_t w[4];
		memcpy(w, p + i, 32);
		a = mix_round(a, w[0]);
		b = mix_round(b, w[1]);
		c = mix_round(c, w[2]);
		d = mix_round(d, w[3]);
	}
	uint64_t h = rotl64(a, 1) + rotl64(b, 7) + rotl64(c, 12) + rotl64(d, 18) + (uint64_t)n;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = mix_round(h, w);
	}
	if (i < n) {
		uint64_t w = 0;
		memcpy(&w, p + i, n - i);
		h = mix_round(h, w);
	}
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	return h;
}

/* The payload checksum: each blob's length and contents, in order. */
static uint64_t chain_blob(uint64_t acc, const void *data, size_t n)
{
	acc = mix_round(acc, (uint64_t)n);
	return mix_round(acc, snap_hash(data, n, 0));
}

static int write_all(int fd, const void *data, size_t n)
{
	const char *p = data;
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int read_all(int fd, void *data, size_t n)
{
	char *p = data;
	while (n) {
		ssize_t k = read(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* ---- writing ---- */

struct snap_writer {
	int fd;
	int guard; /* tmpfiles handle: a signal removes the file */
	char *path, *tmp;
	uint64_t acc, len;
	int err; /* first errno, 0 = fine */
};

struct snap_writer *snap_writer_open(const char *path, struct crate_err *err)
{
	struct snap_writer *w = xcalloc(1, sizeof *w);
	w->path = xstrdup(path);
	/* A unique name: two threads (start-up, a scan's reload) or two
	 * processes may write at once; the last rename wins, both are whole. */
	w->tmp = xasprintf("%s.tmp.XXXXXX", path);
	w->fd = mkostemp(w->tmp, O_CLOEXEC);
	w->guard = -1;
	if (w->fd >= 0) {
		/* Held until the file is renamed or removed: snap_clean_stale
		 * removes only temporary files nobody holds (a writer killed
		 * with SIGKILL); SIGINT/SIGTERM/SIGHUP remove it at once. */
		flock(w->fd, LOCK_EX | LOCK_NB);
		w->guard = tmpfiles_remember(w->tmp);
		fchmod(w->fd, 0644); /* like the database: mkstemp makes it 0600 */
	}
	if (w->fd < 0) {
		crate_err_set(err, CRATE_ERR_IO, "%s: cannot write the index snapshot: %s", w->tmp,
			      strerror(errno));
		free(w->tmp);
		free(w->path);
		free(w);
		return NULL;
	}
	/* Room for the header, written last when the checksum is known. */
	struct snap_header h;
	memset(&h, 0, sizeof h);
	if (write_all(w->fd, &h, sizeof h) != 0)
		w->err = errno ? errno : EIO;
	return w;
}

void snap_put(struct snap_writer *w, const void *data, size_t n)
{
	if (w->err)
		return;
	uint64_t len = n;
	if (write_all(w->fd, &len, sizeof len) != 0 || (n && write_all(w->fd, data, n) != 0)) {
		w->err = errno ? errno : EIO;
		return;
	}
	w->acc = chain_blob(w->acc, data, n);
	w->len += sizeof len + n;
}

static void writer_free(struct snap_writer *w)
{
	tmpfiles_forget(w->guard);
	free(w->tmp);
	free(w->path);
	free(w);
}

void snap_writer_abort(struct snap_writer *w)
{
	if (!w)
		return;
	unlink(w->tmp);
	close(w->fd);
	writer_free(w);
}

/* True when name is "<base>.tmp.XXXXXX" (what snap_writer_open makes). */
static bool is_temp_name(const char *name, const char *base)
{
	size_t bl = strlen(base);
	if (strncmp(name, base, bl) != 0 || strncmp(name + bl, ".tmp.", 5) != 0)
		return false;
	const char *x = name + bl + 5;
	if (strlen(x) != 6)
		return false;
	for (; *x; x++)
		if (!((*x >= 'a' && *x <= 'z') || (*x >= 'A' && *x <= 'Z') || (*x >= '0' && *x <= '9')))
			return false;
	return true;
}

int snap_clean_stale(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path) + (slash == path)) : xstrdup(".");
	const char *base = slash ? slash + 1 : path;
	DIR *d = opendir(dir);
	int removed = 0;
	if (!d) {
		free(dir);
		return 0;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!is_temp_name(e->d_name, base))
			continue;
		/* No symlink followed, no FIFO opened blocking, regular files only. */
		int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (fd < 0)
			continue;
		/* A lock we can take means the writer is gone (a writer holds
		 * it until it renames or removes the file). */
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		    flock(fd, LOCK_EX | LOCK_NB) == 0 && unlinkat(dirfd(d), e->d_name, 0) == 0)
			removed++;
		close(fd);
	}
	closedir(d);
	free(dir);
	return removed;
}

int snap_writer_commit(struct snap_writer *w, const struct snap_key *key, uint64_t count,
		       struct crate_err *err)
{
	struct snap_header h;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, SNAP_MAGIC, 8);
	h.version = SNAP_VERSION;
	h.endian = SNAP_ENDIAN;
	h.size_t_size = sizeof(size_t);
	h.double_size = sizeof(double);
	h.dbid = key->dbid;
	h.generation = key->generation;
	h.loader = key->loader;
	h.stats = key->stats;
	h.count = count;
	h.payload_len = w->len;
	h.payload_hash = w->acc;
	h.header_hash = snap_hash(&h, offsetof(struct snap_header, header_hash), 0);
	if (!w->err && (lseek(w->fd, 0, SEEK_SET) != 0 || write_all(w->fd, &h, sizeof h) != 0))
		w->err = errno ? errno : EIO;
	/* No fsync: a file torn by a crash fails its checksum and is rebuilt,
	 * and syncing 100+ MB would put the disk in the start-up path. The
	 * descriptor (and its lock) is closed after the rename: until then a
	 * cleaner of stale files must see the file as taken. */
	if (!w->err && rename(w->tmp, w->path) != 0)
		w->err = errno ? errno : EIO;
	int rc = 0;
	if (w->err) {
		rc = crate_err_set(err, CRATE_ERR_IO, "%s: cannot write the index snapshot: %s",
				   w->path, strerror(w->err));
		unlink(w->tmp);
	}
	if (close(w->fd) != 0 && !rc)
		rc = crate_err_set(err, CRATE_ERR_IO, "%s: cannot write the index snapshot: %s",
				   w->path, strerror(errno));
	w->fd = -1;
	writer_free(w);
	return rc;
}

/* ---- reading ---- */

struct snap_reader {
	int fd;
	char *path;
	uint64_t acc, left, count, want_hash;
	const char *failed; /* why, NULL = fine */
};

struct snap_reader *snap_reader_open(const char *path, const struct snap_key *key,
				     struct crate_err *err)
{
	/* O_NONBLOCK: a FIFO (or device) in the snapshot's place must not
	 * block the start; only a regular file is read, in blocking mode. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		crate_err_set(err, CRATE_ERR_NOTFOUND, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct snap_header h;
	struct stat st;
	const char *why = NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 ||
		 read_all(fd, &h, sizeof h) != 0)
		why = "too short";
	else if (memcmp(h.magic, SNAP_MAGIC, 8) != 0)
		why = "not an index snapshot";
	else if (h.header_hash != snap_hash(&h, offsetof(struct snap_header, header_hash), 0))
		why = "damaged header";
	else if (h.version != SNAP_VERSION || h.endian != SNAP_ENDIAN ||
		 h.size_t_size != sizeof(size_t) || h.double_size != sizeof(double))
		why = "written by another version or machine";
	else if (h.dbid != key->dbid || h.loader != key->loader)
		why = "made for another database";
	else if (h.generation != key->generation)
		why = "stale (the database changed since)";
	else if (h.stats < key->stats)
		why = "stale (older than the play statistics kept)";
	else if ((uint64_t)st.st_size != sizeof h + h.payload_len)
		why = "truncated or extended";
	if (why) {
		close(fd);
		crate_err_set(err, CRATE_ERR_INVALID, "%s: %s", path, why);
		return NULL;
	}
	struct snap_reader *r = xcalloc(1, sizeof *r);
	r->fd = fd;
	r->path = xstrdup(path);
	r->left = h.payload_len;
	r->count = h.count;
	r->want_hash = h.payload_hash;
	return r;
}

size_t snap_header_size(void)
{
	return sizeof(struct snap_header);
}

uint64_t snap_reader_count(const struct snap_reader *r)
{
	return r->count;
}

void snap_fail(struct snap_reader *r, const char *why)
{
	if (!r->failed)
		r->failed = why;
}

/* The next blob's length, checked against what is left of the payload. */
static bool next_len(struct snap_reader *r, size_t elem, uint64_t *len)
{
	if (r->failed)
		return false;
	if (r->left < sizeof *len || read_all(r->fd, len, sizeof *len) != 0) {
		snap_fail(r, "truncated");
		return false;
	}
	r->left -= sizeof *len;
	if (*len > r->left || *len % elem != 0) {
		snap_fail(r, "a section does not fit");
		return false;
	}
	return true;
}

void *snap_get(struct snap_reader *r, size_t elem, size_t extra, size_t *count)
{
	*count = 0;
	uint64_t len;
	if (!next_len(r, elem, &len))
		return NULL;
	if (len == 0) {
		r->acc = chain_blob(r->acc, NULL, 0);
		return NULL;
	}
	char *p = xmalloc((size_t)len + extra);
	if (read_all(r->fd, p, (size_t)len) != 0) {
		free(p);
		snap_fail(r, "truncated");
		return NULL;
	}
	memset(p + len, 0, extra);
	r->left -= len;
	r->acc = chain_blob(r->acc, p, (size_t)len);
	*count = (size_t)(len / elem);
	return p;
}

bool snap_get_fixed(struct snap_reader *r, void *dst, size_t n)
{
	uint64_t len;
	if (!next_len(r, 1, &len))
		return false;
	if (len != n) {
		snap_fail(r, "a section has the wrong size");
		return false;
	}
	if (n && read_all(r->fd, dst, n) != 0) {
		snap_fail(r, "truncated");
		return false;
	}
	r->left -= len;
	r->acc = chain_blob(r->acc, dst, n);
	return true;
}

int snap_reader_close(struct snap_reader *r, struct crate_err *err)
{
	if (!r->failed && r->left != 0)
		r->failed = "trailing data";
	if (!r->failed && r->acc != r->want_hash)
		r->failed = "checksum mismatch";
	int rc = 0;
	if (r->failed)
		rc = crate_err_set(err, CRATE_ERR_INVALID, "%s: %s", r->path, r->failed);
	close(r->fd);
	free(r->path);
	free(r);
	return rc;
}
