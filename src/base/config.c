#include "base/config.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/hashtab.h"
#include "base/str.h"
#include "base/utf8.h"

struct config_entry {
	char *key;
	char *value;
	int line; /* in the file; 0 when set by the program */
};

/* Entries in file order, and a hash table over them so that loading n
 * keys costs O(n), not O(n^2). */
struct config {
	struct config_entry *e;
	size_t n, cap;
	struct hashtab by_key; /* into e */
	char *path; /* the file read, for messages; NULL when none */
};

static uint32_t key_hash(const char *key)
{
	return hash_bytes(key, strlen(key));
}

static struct config_entry *entry_find(const struct config *cfg, const char *key)
{
	if (!cfg)
		return NULL;
	struct hashtab_probe p = hashtab_probe(&cfg->by_key, key_hash(key));
	for (uint32_t i; (i = hashtab_next(&p)) != HASHTAB_NONE;)
		if (strcmp(cfg->e[i].key, key) == 0)
			return &cfg->e[i];
	return NULL;
}

struct config *config_new_empty(void)
{
	return xcalloc(1, sizeof(struct config));
}

void config_free(struct config *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < cfg->n; i++) {
		free(cfg->e[i].key);
		free(cfg->e[i].value);
	}
	free(cfg->e);
	hashtab_free(&cfg->by_key);
	free(cfg->path);
	free(cfg);
}

static void config_set_line(struct config *cfg, const char *key, const char *value, int line)
{
	struct config_entry *e = entry_find(cfg, key);
	if (e) {
		char *v = xstrdup(value);
		free(e->value);
		e->value = v;
		e->line = line;
		return;
	}
	if (cfg->n == cfg->cap) {
		cfg->cap = cfg->cap ? cfg->cap * 2 : 32;
		cfg->e = xreallocarray(cfg->e, cfg->cap, sizeof *cfg->e);
	}
	cfg->e[cfg->n].key = xstrdup(key);
	cfg->e[cfg->n].value = xstrdup(value);
	cfg->e[cfg->n].line = line;
	hashtab_insert(&cfg->by_key, key_hash(key), (uint32_t)cfg->n);
	cfg->n++;
}

void config_set(struct config *cfg, const char *key, const char *value)
{
	config_set_line(cfg, key, value, 0);
}

const char *config_get(const struct config *cfg, const char *key, const char *def)
{
	const struct config_entry *e = entry_find(cfg, key);
	return e ? e->value : def;
}

int config_line(const struct config *cfg, const char *key)
{
	const struct config_entry *e = entry_find(cfg, key);
	return e ? e->line : 0;
}

const char *config_path(const struct config *cfg)
{
	return cfg && cfg->path ? cfg->path : "config";
}

long config_get_int(const struct config *cfg, const char *key, long def)
{
	const char *v = config_get(cfg, key, NULL);
	if (!v)
		return def;
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	return errno || end == v || *end ? def : n;
}

static bool bool_word(const char *v, bool *out)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "on"))
		return *out = true, true;
	if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0") || !strcasecmp(v, "off"))
		return *out = false, true;
	return false;
}

bool config_get_bool(const struct config *cfg, const char *key, bool def)
{
	const char *v = config_get(cfg, key, NULL);
	if (!v)
		return def;
	bool b;
	return bool_word(v, &b) ? b : def;
}

void config_each(const struct config *cfg, const char *prefix,
		 void (*fn)(void *ud, const char *key, const char *value), void *ud)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < cfg->n; i++)
		if (str_has_prefix(cfg->e[i].key, prefix))
			fn(ud, cfg->e[i].key, cfg->e[i].value);
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static char *default_config_path(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	if (xdg && *xdg)
		return xasprintf("%s/crate/config", xdg);
	const char *home = getenv("HOME");
	return xasprintf("%s/.config/crate/config", home && *home ? home : ".");
}

/* Problems found while loading or checking, each "line N: ..." */
void config_problems_init(struct config_problems *pr, const char *path)
{
	memset(pr, 0, sizeof *pr);
	pr->path = path ? path : "config";
	strbuf_init(&pr->text, 256);
}

void config_problem(struct config_problems *pr, int line, const char *fmt, ...)
{
	char msg[160]; /* a 100 KB value is cut, not quoted whole */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* The message goes to a terminal: a control character (or a
	 * character cut by the limit) shows as U+FFFD, as in every error. */
	char *clean = utf8_sanitize(msg, strlen(msg));
	if (pr->count++)
		strbuf_adds(&pr->text, "; ");
	if (pr->count == 1) { /* alone, it reads "PATH:LINE: msg" */
		pr->first_line = line;
		snprintf(pr->first, sizeof pr->first, "%s", clean);
	}
	if (line > 0)
		strbuf_addf(&pr->text, "line %d: %s", line, clean);
	else
		strbuf_adds(&pr->text, clean);
	free(clean);
}

int config_problems_finish(struct config_problems *pr, struct crate_err *err)
{
	int rc = 0;
	if (pr->count == 1 && pr->first_line > 0) {
		rc = crate_err_set(err, CRATE_ERR_PARSE, "%s:%d: %s", pr->path, pr->first_line,
				   pr->first);
	} else if (pr->count == 1) {
		rc = crate_err_set(err, CRATE_ERR_PARSE, "%s: %s", pr->path, pr->first);
	} else if (pr->count) {
		/* Every problem, as many as the message holds. */
		rc = crate_err_set(err, CRATE_ERR_PARSE, "%s: %zu problems: %s", pr->path, pr->count,
				   pr->text.buf);
		if (err && strlen(err->msg) == sizeof err->msg - 1)
			memcpy(err->msg + sizeof err->msg - 5, "...", 4);
	}
	strbuf_free(&pr->text);
	return rc;
}

int config_load(const char *path, struct config **out, struct crate_err *err)
{
	char *owned = path ? NULL : default_config_path();
	const char *p = path ? path : owned;
	struct config *cfg = config_new_empty();
	cfg->path = xstrdup(p);
	FILE *f = fopen(p, "r");
	if (!f) {
		if (errno == ENOENT) {
			free(owned);
			*out = cfg;
			return 0;
		}
		crate_err_set(err, CRATE_ERR_IO, "config %s: %s", p, strerror(errno));
		free(owned);
		config_free(cfg);
		return -1;
	}
	/* Whole lines of any length (a 4 KB buffer split long lines and then
	 * blamed the wrong one); every malformed line is reported. */
	struct config_problems pr;
	config_problems_init(&pr, cfg->path);
	char *line = NULL, section[128] = "";
	size_t cap = 0;
	int lineno = 0;
	ssize_t got;
	while ((got = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (memchr(line, '\0', (size_t)got)) {
			config_problem(&pr, lineno, "a NUL byte");
			continue;
		}
		char *s = trim(line);
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			char *end = strchr(s, ']');
			if (!end || end[1] != '\0' || end - s - 1 >= (long)sizeof section) {
				config_problem(&pr, lineno, "malformed section header");
				section[0] = '\0';
				continue;
			}
			*end = '\0';
			snprintf(section, sizeof section, "%s", trim(s + 1));
			continue;
		}
		char *eq = strchr(s, '=');
		if (!eq) {
			config_problem(&pr, lineno, "expected 'key = value'");
			continue;
		}
		*eq = '\0';
		char *key = trim(s), *value = trim(eq + 1);
		if (!*key) {
			config_problem(&pr, lineno, "empty key");
			continue;
		}
		/* Optional quotes keep leading/trailing spaces. */
		size_t vl = strlen(value);
		if (vl >= 2 && value[0] == '"' && value[vl - 1] == '"') {
			value[vl - 1] = '\0';
			value++;
		}
		char *full = *section ? xasprintf("%s.%s", section, key) : xstrdup(key);
		config_set_line(cfg, full, value, lineno);
		free(full);
	}
	free(line);
	fclose(f);
	free(owned);
	if (config_problems_finish(&pr, err) != 0) {
		config_free(cfg);
		return -1;
	}
	*out = cfg;
	return 0;
}

/* ---- checking values ---- */

static bool parse_long(const char *v, long *out)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (errno || end == v || *end)
		return false;
	*out = n;
	return true;
}

bool config_value_ok(const struct config_option *o, const char *value, char *why, size_t whysize)
{
	long n;
	char *end;
	double d;
	bool b;
	switch (o->kind) {
	case CONFIG_INT:
		if (parse_long(value, &n) && n >= (long)o->min && n <= (long)o->max)
			return true;
		snprintf(why, whysize, "must be a whole number in %g..%g", o->min, o->max);
		return false;
	case CONFIG_NUMBER:
		errno = 0;
		d = strtod(value, &end);
		if (!errno && end != value && !*end && isfinite(d) && d >= o->min && d <= o->max)
			return true;
		snprintf(why, whysize, "must be a number in %g..%g", o->min, o->max);
		return false;
	case CONFIG_BOOL:
		if (bool_word(value, &b))
			return true;
		snprintf(why, whysize, "must be yes or no");
		return false;
	case CONFIG_CHOICE: {
		size_t l = strlen(value);
		for (const char *c = o->choices; *c;) {
			size_t cl = strcspn(c, "|");
			if (cl == l && strncmp(c, value, l) == 0)
				return true;
			c += cl + (c[cl] == '|');
		}
		snprintf(why, whysize, "must be one of %s", o->choices);
		return false;
	}
	case CONFIG_STRING:
		break;
	}
	return true;
}

int config_check(const struct config *cfg, const struct config_option *opts, size_t nopts,
		 struct crate_err *err)
{
	struct config_problems pr;
	config_problems_init(&pr, config_path(cfg));
	for (size_t i = 0; cfg && i < cfg->n; i++) {
		const struct config_entry *e = &cfg->e[i];
		const struct config_option *o = NULL;
		for (size_t k = 0; k < nopts && !o; k++)
			if (strcmp(opts[k].key, e->key) == 0)
				o = &opts[k];
		if (!o)
			continue; /* sections and keys other modules check (keys., eq.) */
		char why[120];
		if (!config_value_ok(o, e->value, why, sizeof why))
			config_problem(&pr, e->line, "%s = %s: %s", e->key, e->value, why);
	}
	return config_problems_finish(&pr, err);
}

int config_mkdirs(const char *path, struct crate_err *err)
{
	char *tmp = xstrdup(path);
	for (char *p = tmp + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;
			*p = '\0';
			if (mkdir(tmp, 0700) != 0 && errno != EEXIST) {
				crate_err_set(err, CRATE_ERR_IO, "cannot create %s: %s", tmp, strerror(errno));
				free(tmp);
				return -1;
			}
			*p = c;
			if (!c)
				break;
		}
	}
	free(tmp);
	return 0;
}

char *config_data_dir(struct crate_err *err)
{
	const char *xdg = getenv("XDG_DATA_HOME");
	const char *home = getenv("HOME");
	char *dir = xdg && *xdg ? xasprintf("%s/crate", xdg)
				: xasprintf("%s/.local/share/crate", home && *home ? home : ".");
	if (config_mkdirs(dir, err) != 0) {
		free(dir);
		return NULL;
	}
	return dir;
}
