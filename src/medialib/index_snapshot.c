/* Snapshot file: header, aligned sections, table of contents, mapped to
 * be read in place. See index_snapshot.h. */
#include "medialib/index_snapshot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/tmpfiles.h"

#define SNAP_MAGIC "CRATEIDX"
#define SNAP_VERSION 5u
#define SNAP_ENDIAN 0x01020304u
#define SNAP_ALIGN 64u /* section starts: a cache line, enough for any array */
#define SNAP_MAX_SECTIONS (1u << 20) /* far above 3 + 13 per property */
#define SNAP_BLOCK ((uint64_t)64 << 10) /* bytes per checksum */

struct snap_header {
	char magic[8];
	uint32_t version, endian, size_t_size, double_size;
	uint64_t dbid, generation, loader, stats;
	uint64_t count;
	uint64_t toc_off, nsections, nblocks, toc_hash;
	uint64_t header_hash; /* of every byte above */
};

/* One entry of the table of contents: the section's bytes and its first
 * block's checksum in the block table (which follows the table of
 * contents: a checksum per SNAP_BLOCK bytes of each section in turn). */
struct snap_section {
	uint64_t off, len, block;
};

static uint64_t blocks_of(uint64_t len)
{
	return (len + SNAP_BLOCK - 1) / SNAP_BLOCK;
}

/* The checksum of block b of section i (data: its bytes, n of them),
 * seeded with both: two sections or blocks swapped fail too. */
static uint64_t block_hash(const void *data, size_t n, size_t i, uint64_t b)
{
	return snap_hash(data, n, (uint64_t)i << 32 ^ b);
}

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

/* ---- writing ---- */

struct snap_writer {
	int fd;
	int guard; /* tmpfiles handle: a signal removes the file */
	char *path, *tmp;
	uint64_t len; /* bytes written so far */
	struct snap_section *toc;
	size_t nsec, toc_cap;
	uint64_t *blocks; /* the block table */
	size_t nblocks, blocks_cap;
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
	w->len = sizeof h;
	return w;
}

/* Zeros up to the next multiple of SNAP_ALIGN. */
static void writer_pad(struct snap_writer *w)
{
	static const char zeros[SNAP_ALIGN];
	size_t pad = (size_t)(-w->len % SNAP_ALIGN);
	if (!w->err && pad && write_all(w->fd, zeros, pad) != 0)
		w->err = errno ? errno : EIO;
	w->len += pad;
}

void snap_put(struct snap_writer *w, const void *data, size_t n)
{
	if (w->err)
		return;
	writer_pad(w);
	if (n && write_all(w->fd, data, n) != 0) {
		w->err = errno ? errno : EIO;
		return;
	}
	if (w->nsec == w->toc_cap) {
		w->toc_cap = w->toc_cap ? w->toc_cap * 2 : 64;
		w->toc = xreallocarray(w->toc, w->toc_cap, sizeof *w->toc);
	}
	w->toc[w->nsec] = (struct snap_section){w->len, n, w->nblocks};
	for (uint64_t b = 0; b < blocks_of(n); b++) {
		if (w->nblocks == w->blocks_cap) {
			w->blocks_cap = w->blocks_cap ? w->blocks_cap * 2 : 256;
			w->blocks = xreallocarray(w->blocks, w->blocks_cap, sizeof *w->blocks);
		}
		uint64_t at = b * SNAP_BLOCK, len = n - at < SNAP_BLOCK ? n - at : SNAP_BLOCK;
		w->blocks[w->nblocks++] = block_hash((const char *)data + at, (size_t)len, w->nsec, b);
	}
	w->nsec++;
	w->len += n;
}

static void writer_free(struct snap_writer *w)
{
	tmpfiles_forget(w->guard);
	free(w->toc);
	free(w->blocks);
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
	writer_pad(w);
	h.toc_off = w->len;
	h.nsections = w->nsec;
	h.nblocks = w->nblocks;
	h.toc_hash = snap_hash(w->toc, w->nsec * sizeof *w->toc, 0) ^
		     snap_hash(w->blocks, w->nblocks * sizeof *w->blocks, 1);
	if (!w->err && w->nsec && write_all(w->fd, w->toc, w->nsec * sizeof *w->toc) != 0)
		w->err = errno ? errno : EIO;
	if (!w->err && w->nblocks &&
	    write_all(w->fd, w->blocks, w->nblocks * sizeof *w->blocks) != 0)
		w->err = errno ? errno : EIO;
	h.header_hash = snap_hash(&h, offsetof(struct snap_header, header_hash), 0);
	if (!w->err && (lseek(w->fd, 0, SEEK_SET) != 0 || write_all(w->fd, &h, sizeof h) != 0))
		w->err = errno ? errno : EIO;
	/* No fsync: a file torn by a crash fails a checksum and is rebuilt,
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

struct snap_map {
	const unsigned char *base; /* the whole file, PROT_READ */
	size_t size;
	const struct snap_section *toc; /* inside base */
	size_t nsec;
	const uint64_t *blocks; /* the block table, inside base */
	size_t nblocks;
	/* A bit per block: its checksum matched (a cache: set once, by any
	 * thread; a block that fails is checked again, and fails again). */
	_Atomic uint64_t *good;
	uint64_t toc_off;
	uint64_t count;
	char *path;
};

/* Why the header h of a file of size bytes cannot be used with key; NULL
 * when it can. */
static const char *header_problem(const struct snap_header *h, size_t size,
				  const struct snap_key *key)
{
	if (memcmp(h->magic, SNAP_MAGIC, 8) != 0)
		return "not an index snapshot";
	if (h->header_hash != snap_hash(h, offsetof(struct snap_header, header_hash), 0))
		return "damaged header";
	if (h->version != SNAP_VERSION || h->endian != SNAP_ENDIAN ||
	    h->size_t_size != sizeof(size_t) || h->double_size != sizeof(double))
		return "written by another version or machine";
	if (key && (h->dbid != key->dbid || h->loader != key->loader))
		return "made for another database";
	if (key && h->generation != key->generation)
		return "stale (the database changed since)";
	if (key && h->stats < key->stats)
		return "stale (older than the play statistics kept)";
	if (h->nsections > SNAP_MAX_SECTIONS || h->toc_off < sizeof *h || h->toc_off % SNAP_ALIGN ||
	    h->toc_off > size || h->nblocks > size / sizeof(uint64_t) ||
	    size - h->toc_off != h->nsections * sizeof(struct snap_section) + h->nblocks * 8)
		return "truncated or extended";
	return NULL;
}

/* Why the table of contents cannot be used; NULL when every section lies
 * aligned between the header and the table. */
static uint64_t align_up(uint64_t x)
{
	return (x + SNAP_ALIGN - 1) / SNAP_ALIGN * SNAP_ALIGN;
}

/* Whether bytes [from, to) of the mapping are all zero (padding). */
static bool zeros(const unsigned char *base, uint64_t from, uint64_t to)
{
	for (uint64_t i = from; i < to; i++)
		if (base[i])
			return false;
	return true;
}

/* Why the table of contents cannot be used; NULL when the sections lie
 * one after the other, each where the writer puts it (the next 64-byte
 * boundary), and the table right after the last: every byte of the file
 * is then the header, a section, padding or the table, and padding is
 * checked with the section before it. */
static const char *toc_problem(const struct snap_map *m, uint64_t want_hash)
{
	if ((snap_hash(m->toc, m->nsec * sizeof *m->toc, 0) ^
	     snap_hash(m->blocks, m->nblocks * sizeof *m->blocks, 1)) != want_hash)
		return "damaged table of contents";
	uint64_t end = sizeof(struct snap_header), block = 0;
	for (size_t i = 0; i < m->nsec; i++) {
		const struct snap_section *s = &m->toc[i];
		if (s->off != align_up(end) || s->off > m->toc_off || s->len > m->toc_off - s->off ||
		    s->block != block)
			return "a section does not fit";
		end = s->off + s->len;
		block += blocks_of(s->len);
	}
	if (block != m->nblocks || align_up(end) != m->toc_off ||
	    !zeros(m->base, sizeof(struct snap_header), m->nsec ? m->toc[0].off : m->toc_off))
		return "a section does not fit";
	return NULL;
}

/* The file at path mapped whole; NULL with *why. */
static const unsigned char *map_file(const char *path, size_t *size, const char **why,
				     struct crate_err *err)
{
	/* O_NONBLOCK: a FIFO (or device) in the snapshot's place must not
	 * block the start; only a regular file is mapped. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		crate_err_set(err, CRATE_ERR_NOTFOUND, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	void *p = MAP_FAILED;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		*why = "not a regular file";
	else if ((uint64_t)st.st_size < sizeof(struct snap_header) || (uint64_t)st.st_size > SIZE_MAX)
		*why = "too short";
	else if ((p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED)
		*why = "cannot be mapped";
	close(fd); /* the mapping keeps the file */
	if (p == MAP_FAILED) {
		crate_err_set(err, CRATE_ERR_INVALID, "%s: %s", path, *why);
		return NULL;
	}
	*size = (size_t)st.st_size;
	return p;
}

/* Map path; key NULL skips the key checks (snap_blob_stream). */
static struct snap_map *map_open(const char *path, const struct snap_key *key,
				 struct crate_err *err)
{
	const char *why = NULL;
	size_t size;
	const unsigned char *base = map_file(path, &size, &why, err);
	if (!base)
		return NULL;
	struct snap_header h;
	memcpy(&h, base, sizeof h);
	why = header_problem(&h, size, key);
	struct snap_map *m = xcalloc(1, sizeof *m);
	m->base = base;
	m->size = size;
	if (!why) {
		m->toc = (const struct snap_section *)(const void *)(base + h.toc_off);
		m->nsec = (size_t)h.nsections;
		m->blocks = (const uint64_t *)(const void *)(m->toc + m->nsec);
		m->nblocks = (size_t)h.nblocks;
		m->toc_off = h.toc_off;
		m->count = h.count;
		why = toc_problem(m, h.toc_hash);
	}
	if (why) {
		crate_err_set(err, CRATE_ERR_INVALID, "%s: %s", path, why);
		munmap((void *)base, size);
		free(m);
		return NULL;
	}
	m->path = xstrdup(path);
	m->good = xcalloc(m->nblocks / 64 + 1, sizeof *m->good);
	return m;
}

struct snap_map *snap_map_open(const char *path, const struct snap_key *key,
			       struct crate_err *err)
{
	return map_open(path, key, err);
}

void snap_map_free(struct snap_map *m)
{
	if (!m)
		return;
	munmap((void *)m->base, m->size);
	free((void *)m->good);
	free(m->path);
	free(m);
}

uint64_t snap_map_count(const struct snap_map *m)
{
	return m->count;
}

size_t snap_map_sections(const struct snap_map *m)
{
	return m->nsec;
}

const char *snap_map_path(const struct snap_map *m)
{
	return m->path;
}

bool snap_map_contains(const struct snap_map *m, const void *p)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)m->base;
	return p && a >= b && a - b < m->size;
}

/* Whether blocks [b0, b1) of section i match their checksums. */
static bool blocks_good(const struct snap_map *m, size_t i, uint64_t b0, uint64_t b1)
{
	const struct snap_section *s = &m->toc[i];
	for (uint64_t b = b0; b < b1; b++) {
		uint64_t k = s->block + b, bit = (uint64_t)1 << (k % 64);
		if (m->good[k / 64] & bit)
			continue;
		uint64_t at = b * SNAP_BLOCK, len = s->len - at < SNAP_BLOCK ? s->len - at : SNAP_BLOCK;
		if (block_hash(m->base + s->off + at, (size_t)len, i, b) != m->blocks[k])
			return false;
		m->good[k / 64] |= bit;
	}
	return true;
}

/* Whether the padding after section i is zeros. */
static bool padding_good(const struct snap_map *m, size_t i)
{
	const struct snap_section *s = &m->toc[i];
	return zeros(m->base, s->off + s->len, i + 1 < m->nsec ? m->toc[i + 1].off : m->toc_off);
}

bool snap_map_check(const struct snap_map *m, size_t first, size_t n)
{
	if (first > m->nsec || n > m->nsec - first)
		return false;
	for (size_t i = first; i < first + n; i++)
		if (!blocks_good(m, i, 0, blocks_of(m->toc[i].len)) || !padding_good(m, i))
			return false;
	return true;
}

bool snap_map_check_range(const struct snap_map *m, size_t i, size_t off, size_t len)
{
	if (i >= m->nsec || off > m->toc[i].len || len > m->toc[i].len - off)
		return false;
	if (!len)
		return true;
	uint64_t last = (off + len - 1) / SNAP_BLOCK;
	/* The padding goes with the section's last block. */
	return blocks_good(m, i, off / SNAP_BLOCK, last + 1) &&
	       (last + 1 < blocks_of(m->toc[i].len) || padding_good(m, i));
}

void snap_fail(struct snap_cursor *c, const char *why)
{
	if (!c->failed)
		c->failed = why;
}

/* The next section, checked to hold whole elements; NULL when the cursor
 * failed or no section is left. */
static const struct snap_section *cursor_next(struct snap_cursor *c, size_t elem)
{
	if (c->failed)
		return NULL;
	if (c->next >= c->m->nsec) {
		snap_fail(c, "truncated");
		return NULL;
	}
	const struct snap_section *s = &c->m->toc[c->next++];
	if (s->len % elem != 0) {
		snap_fail(c, "a section does not fit");
		return NULL;
	}
	return s;
}

const void *snap_view(struct snap_cursor *c, size_t elem, size_t *count)
{
	*count = 0;
	const struct snap_section *s = cursor_next(c, elem);
	if (!s || s->len == 0)
		return NULL;
	*count = (size_t)(s->len / elem);
	return c->m->base + s->off;
}

bool snap_get_fixed(struct snap_cursor *c, void *dst, size_t n)
{
	const struct snap_section *s = cursor_next(c, 1);
	if (!s)
		return false;
	if (s->len != n) {
		snap_fail(c, "a section has the wrong size");
		return false;
	}
	if (!snap_map_check(c->m, c->next - 1, 1)) {
		snap_fail(c, "checksum mismatch");
		return false;
	}
	memcpy(dst, c->m->base + s->off, n);
	return true;
}

size_t snap_header_size(void)
{
	return sizeof(struct snap_header);
}

unsigned char *snap_blob_stream(const char *path, size_t *len)
{
	struct crate_err err = {0};
	struct snap_map *m = map_open(path, NULL, &err);
	if (!m)
		return NULL;
	size_t total = 0;
	for (size_t i = 0; i < m->nsec; i++)
		total += 8 + (size_t)m->toc[i].len;
	unsigned char *out = xmalloc(total + 1), *o = out;
	for (size_t i = 0; i < m->nsec; i++) {
		uint64_t l = m->toc[i].len;
		memcpy(o, &l, 8);
		memcpy(o + 8, m->base + m->toc[i].off, (size_t)l);
		o += 8 + l;
	}
	snap_map_free(m);
	*len = total;
	return out;
}
