#include "ui/theme.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
	const char *name;
	const char *colors; /* default fg,bg */
	int attrs;          /* attributes that hold with or without colour */
} roles[UR_COUNT] = {
	[UR_NORMAL] = {"normal", "default,default", 0},
	[UR_TITLE] = {"title", "black,cyan", A_REVERSE},
	[UR_TITLE_ACTIVE] = {"title_active", "white,blue", A_BOLD},
	[UR_HEADER] = {"header", "cyan,default", A_BOLD},
	[UR_SELECTED] = {"selected", "black,cyan", A_REVERSE | A_BOLD},
	[UR_SELECTED_DIM] = {"selected_inactive", "default,default", A_REVERSE},
	[UR_PLAYING] = {"playing", "yellow,default", A_BOLD},
	[UR_MATCH] = {"match", "green,default", A_UNDERLINE},
	[UR_STATUS] = {"status", "white,blue", A_REVERSE},
	[UR_PROGRESS] = {"progress", "cyan,blue", A_BOLD},
	[UR_ERROR] = {"error", "red,default", A_BOLD},
	[UR_HINT] = {"hint", "default,default", A_DIM},
	[UR_MARK] = {"mark", "magenta,default", A_BOLD},
};

static int role_attr[UR_COUNT];

const char *theme_role_name(enum ui_role r)
{
	return (unsigned)r < UR_COUNT ? roles[r].name : "";
}

static bool parse_one(const char *s, size_t n, int *out)
{
	static const char *names[] = {"black", "red", "green", "yellow",
				      "blue", "magenta", "cyan", "white"};
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 0 || (n == 7 && strncasecmp(s, "default", 7) == 0)) {
		*out = -1;
		return true;
	}
	for (int i = 0; i < 8; i++) {
		if (strlen(names[i]) == n && strncasecmp(s, names[i], n) == 0) {
			*out = i;
			return true;
		}
	}
	int v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || i >= 3)
			return false;
		v = v * 10 + (s[i] - '0');
	}
	if (v > 255)
		return false;
	*out = v;
	return true;
}

bool theme_parse_colors(const char *spec, int *fg, int *bg)
{
	const char *comma = strchr(spec, ',');
	size_t flen = comma ? (size_t)(comma - spec) : strlen(spec);
	int f, b = -1;
	if (!parse_one(spec, flen, &f))
		return false;
	if (comma && !parse_one(comma + 1, strlen(comma + 1), &b))
		return false;
	*fg = f;
	*bg = b;
	return true;
}

struct unknown_roles {
	const struct config *cfg;
	struct config_problems *pr;
};

/* A [colors] key naming no role used to be ignored without a word. */
static void check_role(void *ud, const char *key, const char *value)
{
	(void)value;
	struct unknown_roles *u = ud;
	const char *name = key + strlen("colors.");
	for (int r = 0; r < UR_COUNT; r++)
		if (strcmp(roles[r].name, name) == 0)
			return;
	config_problem(u->pr, config_line(u->cfg, key), "[colors]: unknown role '%s'", name);
}

int theme_init(const struct config *cfg, bool use_color, struct config_problems *pr)
{
	int problems = 0;
	if (cfg && pr) {
		struct unknown_roles u = {cfg, pr};
		config_each(cfg, "colors.", check_role, &u);
	}
	if (use_color && has_colors()) {
		start_color();
		use_default_colors();
	} else {
		use_color = false;
	}
	for (int r = 0; r < UR_COUNT; r++) {
		char key[64];
		snprintf(key, sizeof key, "colors.%s", roles[r].name);
		const char *spec = cfg ? config_get(cfg, key, roles[r].colors) : roles[r].colors;
		int fg, bg;
		if (!theme_parse_colors(spec, &fg, &bg)) {
			problems++;
			if (pr)
				config_problem(pr, config_line(cfg, key), "%s = %s: unknown colour name",
					       key, spec);
			theme_parse_colors(roles[r].colors, &fg, &bg);
		}
		if (!use_color) {
			role_attr[r] = roles[r].attrs;
			continue;
		}
		/* With colour, keep bold/underline/dim but let the colours carry
		 * the rest, except the selection, which stays reverse-free only
		 * when it has its own background. */
		int attrs = roles[r].attrs & (A_BOLD | A_UNDERLINE | A_DIM);
		if (fg >= COLORS)
			fg = -1;
		if (bg >= COLORS)
			bg = -1;
		if (r == UR_SELECTED_DIM || (bg == -1 && (roles[r].attrs & A_REVERSE)))
			attrs |= A_REVERSE;
		if (r + 1 < COLOR_PAIRS && (fg != -1 || bg != -1)) {
			init_pair((short)(r + 1), (short)fg, (short)bg);
			role_attr[r] = (int)COLOR_PAIR(r + 1) | attrs;
		} else {
			role_attr[r] = attrs;
		}
	}
	return problems;
}

int theme_attr(enum ui_role r)
{
	return (unsigned)r < UR_COUNT ? role_attr[r] : 0;
}
