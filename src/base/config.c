#include "base/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/str.h"

struct config_entry {
	char *key;
	char *value;
};

struct config {
	struct config_entry *e;
	size_t n, cap;
};

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
	free(cfg);
}

void config_set(struct config *cfg, const char *key, const char *value)
{
	for (size_t i = 0; i < cfg->n; i++) {
		if (strcmp(cfg->e[i].key, key) == 0) {
			char *v = xstrdup(value);
			free(cfg->e[i].value);
			cfg->e[i].value = v;
			return;
		}
	}
	if (cfg->n == cfg->cap) {
		cfg->cap = cfg->cap ? cfg->cap * 2 : 32;
		cfg->e = xreallocarray(cfg->e, cfg->cap, sizeof *cfg->e);
	}
	cfg->e[cfg->n].key = xstrdup(key);
	cfg->e[cfg->n].value = xstrdup(value);
	cfg->n++;
}

const char *config_get(const struct config *cfg, const char *key, const char *def)
{
	if (cfg)
		for (size_t i = 0; i < cfg->n; i++)
			if (strcmp(cfg->e[i].key, key) == 0)
				return cfg->e[i].value;
	return def;
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

bool config_get_bool(const struct config *cfg, const char *key, bool def)
{
	const char *v = config_get(cfg, key, NULL);
	if (!v)
		return def;
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "on"))
		return true;
	if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0") || !strcasecmp(v, "off"))
		return false;
	return def;
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

int config_load(const char *path, struct config **out, struct crate_err *err)
{
	char *owned = path ? NULL : default_config_path();
	const char *p = path ? path : owned;
	struct config *cfg = config_new_empty();
	FILE *f = fopen(p, "r");
	if (!f) {
		if (errno == ENOENT) {
			free(owned);
			*out = cfg;
			return 0;
		}
		crate_err_set(err, CRATE_ERR_IO, "config %s: %s", p, strerror(errno));
		goto fail;
	}
	char line[4096], section[128] = "";
	int lineno = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		char *s = trim(line);
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			char *end = strchr(s, ']');
			if (!end || end[1] != '\0' || end - s - 1 >= (long)sizeof section) {
				crate_err_set(err, CRATE_ERR_PARSE, "%s:%d: malformed section header", p, lineno);
				fclose(f);
				goto fail;
			}
			*end = '\0';
			snprintf(section, sizeof section, "%s", trim(s + 1));
			continue;
		}
		char *eq = strchr(s, '=');
		if (!eq) {
			crate_err_set(err, CRATE_ERR_PARSE, "%s:%d: expected 'key = value'", p, lineno);
			fclose(f);
			goto fail;
		}
		*eq = '\0';
		char *key = trim(s), *value = trim(eq + 1);
		if (!*key) {
			crate_err_set(err, CRATE_ERR_PARSE, "%s:%d: empty key", p, lineno);
			fclose(f);
			goto fail;
		}
		/* Optional quotes keep leading/trailing spaces. */
		size_t vl = strlen(value);
		if (vl >= 2 && value[0] == '"' && value[vl - 1] == '"') {
			value[vl - 1] = '\0';
			value++;
		}
		char *full = *section ? xasprintf("%s.%s", section, key) : xstrdup(key);
		config_set(cfg, full, value);
		free(full);
	}
	fclose(f);
	free(owned);
	*out = cfg;
	return 0;
fail:
	free(owned);
	config_free(cfg);
	return -1;
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
