/* Equalizer presets (presets.h). */
#include "play/presets.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"

struct builtin {
	const char *name;
	struct eq_settings s;
};

/* Gains are what the response measures at each band centre (eq.h); the
 * pre-amp takes back most of the largest boost so loud tracks do not clip. */
static const struct builtin builtins[] = {
	{"flat", {0, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
	{"rock", {-4, {5, 4, 3, 1, -1, -1, 1, 3, 4, 5}}},
	{"jazz", {-3, {3, 2, 1, 2, -1, -1, 0, 1, 2, 3}}},
	{"classical", {0, {0, 0, 0, 0, 0, 0, -2, -3, -3, -4}}},
	{"vocal", {-4, {-2, -3, -3, 1, 4, 4, 3, 1, 0, -2}}},
	{"bass-boost", {-6, {6, 6, 5, 3, 1, 0, 0, 0, 0, 0}}},
	{"treble-boost", {-6, {0, 0, 0, 0, 0, 1, 2, 4, 5, 6}}},
	/* Vinyl rips: cut the rumble and the surface hiss, a little warmth. */
	{"vinyl", {0, {-6, -2, 1, 1, 0, 0, 0, -1, -2, -4}}},
};

#define NBUILTIN (sizeof builtins / sizeof builtins[0])

const char *const eq_builtin_names[] = {
	"flat", "rock", "jazz", "classical", "vocal", "bass-boost", "treble-boost", "vinyl",
};
const size_t eq_builtin_count = NBUILTIN;

static int norm_char(unsigned char c)
{
	if (c == ' ' || c == '_')
		return '-';
	return tolower(c);
}

bool eq_preset_name_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (norm_char((unsigned char)*a) != norm_char((unsigned char)*b))
			return false;
	return *a == *b;
}

int eq_preset_parse_bands(const char *text, struct eq_settings *out, struct crate_err *err)
{
	const char *p = text;
	for (int i = 0; i < EQ_BANDS; i++) {
		while (isspace((unsigned char)*p))
			p++;
		const char *start = p;
		while (*p && *p != ',' && !isspace((unsigned char)*p))
			p++;
		double v;
		if (p == start || !str_parse_number(*start == '+' ? start + 1 : start,
						    (size_t)(p - start) - (*start == '+'), &v))
			return crate_err_set(err, CRATE_ERR_PARSE,
					     "band %d: expected a number of dB, 10 separated by commas",
					     i + 1);
		if (fabs(v) > EQ_GAIN_MAX)
			return crate_err_set(err, CRATE_ERR_INVALID,
					     "band %d (%g Hz): %g dB is outside -12..12", i + 1,
					     eq_band_hz[i], v);
		out->band_db[i] = v;
		while (isspace((unsigned char)*p))
			p++;
		if (i < EQ_BANDS - 1) {
			if (*p != ',')
				return crate_err_set(err, CRATE_ERR_PARSE,
						     "expected 10 band gains, found %d", i + 1);
			p++;
		}
	}
	if (*p)
		return crate_err_set(err, CRATE_ERR_PARSE, "expected 10 band gains, found more");
	return 0;
}

/* The user's preset as a config key prefix, e.g. "eq.preset.mine." when the
 * config holds eq.preset.<x>.bands for an x matching name. Owned. */
struct find_ud {
	const char *name;
	char *prefix;
};

static char *user_name_of_key(const char *key)
{
	/* eq.preset.NAME.bands / eq.preset.NAME.preamp; NAME may hold dots. */
	const char *rest = key + strlen("eq.preset.");
	const char *dot = strrchr(rest, '.');
	if (!dot || dot == rest || (strcmp(dot, ".bands") != 0 && strcmp(dot, ".preamp") != 0))
		return NULL;
	return xstrndup(rest, (size_t)(dot - rest));
}

static void find_user(void *ud, const char *key, const char *value)
{
	(void)value;
	struct find_ud *f = ud;
	if (f->prefix)
		return;
	char *n = user_name_of_key(key);
	if (n && eq_preset_name_eq(n, f->name))
		f->prefix = xasprintf("eq.preset.%s.", n);
	free(n);
}

static int user_preset(const struct config *cfg, const char *prefix, struct eq_settings *out,
		       struct crate_err *err)
{
	memset(out, 0, sizeof *out);
	char *kb = xasprintf("%sbands", prefix), *kp = xasprintf("%spreamp", prefix);
	const char *bands = config_get(cfg, kb, NULL), *pre = config_get(cfg, kp, NULL);
	int rc = 0;
	if (!bands) {
		rc = crate_err_set(err, CRATE_ERR_PARSE, "config %s: missing (10 gains in dB)", kb);
	} else if (eq_preset_parse_bands(bands, out, err) != 0) {
		rc = crate_err_prefix(err, "config %s: ", kb);
	} else if (pre) {
		double v;
		const char *s = *pre == '+' ? pre + 1 : pre;
		if (!str_parse_number(s, strlen(s), &v) || fabs(v) > EQ_GAIN_MAX)
			rc = crate_err_set(err, CRATE_ERR_PARSE,
					   "config %s: '%s' is not a gain in dB within -12..12", kp,
					   pre);
		else
			out->preamp_db = v;
	}
	free(kb);
	free(kp);
	return rc;
}

int eq_preset_get(const struct config *cfg, const char *name, struct eq_settings *out,
		  struct crate_err *err)
{
	if (cfg) {
		struct find_ud f = {.name = name};
		config_each(cfg, "eq.preset.", find_user, &f);
		if (f.prefix) {
			int rc = user_preset(cfg, f.prefix, out, err);
			free(f.prefix);
			return rc;
		}
	}
	for (size_t i = 0; i < NBUILTIN; i++) {
		if (eq_preset_name_eq(builtins[i].name, name)) {
			*out = builtins[i].s;
			return 0;
		}
	}
	char **names;
	size_t n = eq_preset_list(cfg, &names);
	struct strbuf b;
	strbuf_init(&b, 128);
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(&b, "%s%s", i ? ", " : "", names[i]);
		free(names[i]);
	}
	free(names);
	crate_err_set(err, CRATE_ERR_NOTFOUND, "equalizer preset '%s' is not defined (known: %s)",
		      name, b.buf);
	strbuf_free(&b);
	return -1;
}

struct list_ud {
	char **v;
	size_t n;
};

static void list_user(void *ud, const char *key, const char *value)
{
	(void)value;
	struct list_ud *l = ud;
	char *n = user_name_of_key(key);
	if (!n)
		return;
	for (size_t i = 0; i < l->n; i++) {
		if (eq_preset_name_eq(l->v[i], n)) {
			free(n);
			return;
		}
	}
	l->v = xreallocarray(l->v, l->n + 1, sizeof *l->v);
	l->v[l->n++] = n;
}

size_t eq_preset_list(const struct config *cfg, char ***names)
{
	struct list_ud l = {0};
	l.v = xreallocarray(NULL, NBUILTIN, sizeof *l.v);
	for (size_t i = 0; i < NBUILTIN; i++)
		l.v[l.n++] = xstrdup(builtins[i].name);
	if (cfg)
		config_each(cfg, "eq.preset.", list_user, &l);
	*names = l.v;
	return l.n;
}
