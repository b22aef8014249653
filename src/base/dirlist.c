/* One folder's entries, read once and sorted once (dirlist.h). */
#include "base/dirlist.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/str.h"
#include "base/utf8.h"

static bool is_dir(DIR *d, const struct dirent *de)
{
	if (de->d_type == DT_DIR)
		return true;
	if (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
		return false;
	/* A link counts as what it points to; a dangling one as a file. */
	struct stat st;
	return fstatat(dirfd(d), de->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode);
}

int dirlist_entry_cmp(const struct dirlist_entry *a, const struct dirlist_entry *b)
{
	if (a->dir != b->dir)
		return a->dir ? -1 : 1;
	int c = str_natcmp(a->key, b->key);
	return c ? c : strcmp(a->name, b->name);
}

static int entry_qcmp(const void *pa, const void *pb)
{
	return dirlist_entry_cmp(pa, pb);
}

static char *trim_path(const char *path)
{
	size_t len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	char *p = xmalloc(len + 1);
	memcpy(p, path, len);
	p[len] = '\0';
	return p;
}

int dirlist_read(const char *path, struct dirlist *out, struct crate_err *err)
{
	DIR *d = opendir(path);
	if (!d)
		return crate_err_set(err, CRATE_ERR_IO, "%s: %s", path, strerror(errno));
	struct dirlist dl = {.path = trim_path(path)};
	size_t cap = 0;
	struct dirent *de;
	errno = 0;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		if (nm[0] == '.' && (nm[1] == '\0' || (nm[1] == '.' && nm[2] == '\0')))
			continue;
		if (dl.n == cap) {
			cap = cap ? cap * 2 : 64;
			dl.v = xreallocarray(dl.v, cap, sizeof *dl.v);
		}
		size_t len = strlen(nm);
		dl.v[dl.n++] = (struct dirlist_entry){.name = xstrdup(nm),
						      .key = utf8_fold(nm, len, NULL),
						      .dir = is_dir(d, de),
						      .hidden = nm[0] == '.'};
		errno = 0;
	}
	int rd_errno = errno;
	closedir(d);
	if (rd_errno) {
		dirlist_free(&dl);
		return crate_err_set(err, CRATE_ERR_IO, "%s: %s", path, strerror(rd_errno));
	}
	if (dl.n > 1)
		qsort(dl.v, dl.n, sizeof *dl.v, entry_qcmp);
	*out = dl;
	return 0;
}

void dirlist_free(struct dirlist *dl)
{
	for (size_t i = 0; i < dl->n; i++) {
		free(dl->v[i].name);
		free(dl->v[i].key);
	}
	free(dl->v);
	free(dl->path);
	*dl = (struct dirlist){0};
}

size_t dirlist_visible(const struct dirlist *dl, bool show_hidden, const char *find, size_t *out)
{
	char *f = find && *find ? utf8_fold(find, strlen(find), NULL) : NULL;
	size_t n = 0;
	for (size_t i = 0; i < dl->n; i++) {
		if (dl->v[i].hidden && !show_hidden)
			continue;
		if (f && !strstr(dl->v[i].key, f))
			continue;
		out[n++] = i;
	}
	free(f);
	return n;
}

char *dirlist_join(const char *dir, const char *name)
{
	size_t dl = strlen(dir);
	bool slash = dl && dir[dl - 1] == '/';
	return xasprintf("%s%s%s", dir, slash ? "" : "/", name);
}

char *dirlist_parent(const char *path)
{
	char *p = trim_path(path);
	char *s = strrchr(p, '/');
	if (!s) {
		free(p);
		return xstrdup(".");
	}
	if (s == p)
		s[1] = '\0'; /* "/a" and "/" -> "/" */
	else
		*s = '\0';
	return p;
}

/* One component: [s, end) where end is the next '/' or the NUL. */
static int comp_cmp(const char *a, size_t la, const char *b, size_t lb)
{
	char ca[512], cb[512]; /* a component is at most NAME_MAX bytes */
	size_t na = la < sizeof ca - 1 ? la : sizeof ca - 1;
	size_t nb = lb < sizeof cb - 1 ? lb : sizeof cb - 1;
	memcpy(ca, a, na);
	ca[na] = '\0';
	memcpy(cb, b, nb);
	cb[nb] = '\0';
	return str_natcmp(ca, cb);
}

int dirlist_path_cmp(const char *a, const char *b)
{
	for (;;) {
		const char *ea = strchrnul(a, '/'), *eb = strchrnul(b, '/');
		bool da = *ea == '/', db = *eb == '/';
		if (da != db)
			return da ? -1 : 1; /* a folder before a file */
		int c = comp_cmp(a, (size_t)(ea - a), b, (size_t)(eb - b));
		if (c)
			return c;
		size_t la = (size_t)(ea - a), lb = (size_t)(eb - b);
		c = memcmp(a, b, la < lb ? la : lb);
		if (c || la != lb)
			return c ? c : la < lb ? -1 : 1;
		if (!da)
			return 0;
		a = ea + 1;
		b = eb + 1;
	}
}
