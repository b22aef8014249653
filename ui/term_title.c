#include "ui/term_title.h"

#include <curses.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>

#include "base/err.h"
#include "base/utf8.h"

#define TITLE_MAX 200

char *term_title_clean(const char *text, char *out, size_t size)
{
	if (!size)
		return out;
	size_t len = text ? strlen(text) : 0, o = 0, limit = size - 1 < TITLE_MAX ? size - 1 : TITLE_MAX;
	bool space = false;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_decode(text + i, len - i, &cp);
		i += n;
		if (cp == UTF8_REPLACEMENT && n == 1)
			continue; /* an invalid byte: dropped */
		if (utf8_is_control(cp)) {
			space = o > 0; /* a tab or newline between words still separates them */
			continue;
		}
		char enc[4];
		size_t m = utf8_encode(cp, enc);
		if (o + (space ? 1 : 0) + m > limit)
			break;
		if (space)
			out[o++] = ' ';
		space = false;
		memcpy(out + o, enc, m);
		o += m;
	}
	out[o] = '\0';
	return out;
}

static bool xterm_like(const char *term)
{
	static const char *const names[] = {"xterm", "tmux", "screen", "rxvt", "alacritty",
					    "foot", "kitty", "wezterm", "st-", "gnome", "konsole",
					    "vte", "iterm"};
	if (!term)
		return false;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strncmp(term, names[i], strlen(names[i])) == 0)
			return true;
	return false;
}

/* A terminfo string capability, or NULL (absent or cancelled). */
static const char *cap(const char *name)
{
	char *s = tigetstr(name);
	return s && s != (char *)-1 ? s : NULL;
}

void term_title_init(struct term_title *t, bool enabled, const char *term)
{
	memset(t, 0, sizeof *t);
	if (!enabled || !isatty(STDOUT_FILENO))
		return;
	const char *tsl = cap("tsl"), *fsl = cap("fsl");
	bool xt = xterm_like(term);
	/* tsl taking a column (a real status line) is no title: only a
	 * parameterless one is used as it is. */
	if (tsl && fsl && !strchr(tsl, '%') && strlen(tsl) < sizeof t->set &&
	    strlen(fsl) < sizeof t->end) {
		snprintf(t->set, sizeof t->set, "%s", tsl);
		snprintf(t->end, sizeof t->end, "%s", fsl);
	} else if (xt) {
		snprintf(t->set, sizeof t->set, "\033]2;");
		snprintf(t->end, sizeof t->end, "\007");
	} else {
		return;
	}
	t->on = true;
	t->stack = xt;
	if (t->stack) /* save the title (and icon name) on xterm's title stack */
		fputs("\033[22;0t", stdout);
	fflush(stdout);
}

static void write_title(struct term_title *t, const char *text)
{
	fputs(t->set, stdout);
	fputs(text, stdout);
	fputs(t->end, stdout);
	fflush(stdout);
}

void term_title_set(struct term_title *t, const char *text)
{
	if (!t->on)
		return;
	char clean[TITLE_MAX + 1];
	term_title_clean(text, clean, sizeof clean);
	if (t->last && strcmp(t->last, clean) == 0)
		return;
	free(t->last);
	t->last = xstrdup(clean);
	write_title(t, clean);
}

void term_title_end(struct term_title *t)
{
	if (t->on && t->last) {
		/* Cleared where the stack is unknown (tmux keeps "" and shows its
		 * own default again); an xterm pops back what it had. */
		write_title(t, "");
		if (t->stack)
			fputs("\033[23;0t", stdout);
		fflush(stdout);
	}
	free(t->last);
	t->last = NULL;
	t->on = false;
}
