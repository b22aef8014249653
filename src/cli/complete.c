#include "cli/complete.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/str.h"

/* At most this many directory entries are read for one Tab: a folder of
 * 100,000 files must not stall the interface. */
#define MAX_DIR_ENTRIES 20000

/* ---- the words before the cursor ---- */

struct words {
	char **w;       /* unquoted words, the last being completed */
	size_t n, cap;
	size_t last_start; /* where the last word starts in the line */
	bool last_quoted;  /* it opens with a quote */
};

static void words_push(struct words *ws, char *w)
{
	if (ws->n == ws->cap) {
		ws->cap = ws->cap ? ws->cap * 2 : 8;
		ws->w = xreallocarray(ws->w, ws->cap, sizeof *ws->w);
	}
	ws->w[ws->n++] = w;
}

static void words_free(struct words *ws)
{
	for (size_t i = 0; i < ws->n; i++)
		free(ws->w[i]);
	free(ws->w);
}

/* Split line[0..end) as cmdline_split does, forgiving an open quote (the
 * word being typed); the word at end may be empty. */
static void split(const char *line, size_t end, struct words *ws)
{
	size_t i = 0;
	struct strbuf b;
	strbuf_init(&b, 64);
	for (;;) {
		while (i < end && (line[i] == ' ' || line[i] == '\t'))
			i++;
		strbuf_reset(&b);
		ws->last_start = i;
		ws->last_quoted = i < end && (line[i] == '"' || line[i] == '\'');
		while (i < end && line[i] != ' ' && line[i] != '\t') {
			char q = line[i];
			if (q == '\'' || q == '"') {
				for (i++; i < end && line[i] != q; i++) {
					if (q == '"' && line[i] == '\\' && i + 1 < end &&
					    (line[i + 1] == '"' || line[i + 1] == '\\'))
						i++;
					strbuf_addc(&b, line[i]);
				}
				if (i < end)
					i++;
			} else if (q == '\\' && i + 1 < end) {
				strbuf_addc(&b, line[i + 1]);
				i += 2;
			} else {
				strbuf_addc(&b, line[i++]);
			}
		}
		words_push(ws, xstrdup(b.buf ? b.buf : ""));
		if (i >= end)
			break;
	}
	strbuf_free(&b);
}

/* ---- candidates ---- */

struct acc {
	struct cli_completion *c;
	const char *prefix;  /* what the word holds so far, after `strip` */
	const char *add_pre; /* put before each name ("in:", a directory) */
	const char *add_post; /* put after each name (":") */
};

static void cand_push(struct cli_completion *c, char *s)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		c->cand = xreallocarray(c->cand, c->cap, sizeof *c->cand);
	}
	c->cand[c->n++] = s;
}

/* Case-insensitive prefix match (ASCII): "rock" finds "Rock 90s". */
static void add_name(void *ud, const char *name)
{
	struct acc *a = ud;
	if (strncasecmp(name, a->prefix, strlen(a->prefix)) != 0)
		return;
	cand_push(a->c, xasprintf("%s%s%s", a->add_pre ? a->add_pre : "", name,
				  a->add_post ? a->add_post : ""));
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Sort, drop duplicates; when some match the typed case exactly, only
 * those; then the common prefix. */
static void finish(struct cli_completion *c, const char *typed)
{
	size_t tl = strlen(typed), exact = 0;
	for (size_t i = 0; i < c->n; i++)
		exact += strncmp(c->cand[i], typed, tl) == 0;
	if (exact && exact < c->n) {
		size_t k = 0;
		for (size_t i = 0; i < c->n; i++) {
			if (strncmp(c->cand[i], typed, tl) == 0)
				c->cand[k++] = c->cand[i];
			else
				free(c->cand[i]);
		}
		c->n = k;
	}
	if (c->n)
		qsort(c->cand, c->n, sizeof *c->cand, cmp_str);
	size_t k = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (k && strcmp(c->cand[k - 1], c->cand[i]) == 0)
			free(c->cand[i]);
		else
			c->cand[k++] = c->cand[i];
	}
	c->n = k;
	size_t lcp = c->n ? strlen(c->cand[0]) : 0;
	for (size_t i = 1; i < c->n; i++) {
		size_t j = 0;
		while (j < lcp && c->cand[i][j] == c->cand[0][j])
			j++;
		lcp = j;
	}
	while (lcp && ((unsigned char)c->cand[0][lcp] & 0xc0) == 0x80)
		lcp--; /* never half a character */
	c->common = c->n ? xstrndup(c->cand[0], lcp) : xstrdup("");
}

static void names(const struct cli_names_src *src, enum cli_names kind, const char *arg,
		  struct acc *a)
{
	if (src && src->names)
		src->names(src->ud, kind, arg, add_name, a);
}

/* Files and folders: the typed folder part is kept as typed ("~/mu" ->
 * "~/music/"), and expanded to read the folder. */
static void paths(struct cli_completion *c, const char *typed)
{
	c->paths = true;
	if (strcmp(typed, "~") == 0) {
		cand_push(c, xstrdup("~/"));
		return;
	}
	const char *slash = strrchr(typed, '/');
	char *dir_typed = slash ? xstrndup(typed, (size_t)(slash - typed) + 1) : xstrdup("");
	const char *base = slash ? slash + 1 : typed;
	char *dir = *dir_typed ? str_expand_home(dir_typed) : xstrdup(".");
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t seen = 0, bl = strlen(base);
	while (d && seen < MAX_DIR_ENTRIES && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		seen++;
		if ((e->d_name[0] == '.' && base[0] != '.') || strncmp(e->d_name, base, bl) != 0)
			continue;
		bool isdir = e->d_type == DT_DIR;
		if (e->d_type == DT_UNKNOWN || e->d_type == DT_LNK) {
			char *full = xasprintf("%s/%s", dir, e->d_name);
			struct stat st;
			isdir = stat(full, &st) == 0 && S_ISDIR(st.st_mode);
			free(full);
		}
		cand_push(c, xasprintf("%s%s%s", dir_typed, e->d_name, isdir ? "/" : ""));
	}
	if (d)
		closedir(d);
	free(dir);
	free(dir_typed);
}

/* ---- the table ---- */

static bool in_family(const char *name, const char *word)
{
	size_t n = strlen(word);
	return strncmp(name, word, n) == 0 && name[n] == ' ';
}

static const struct cli_command *find(const struct cli_group *const *groups, const char *name)
{
	for (size_t g = 0; groups[g]; g++)
		for (const struct cli_command *c = groups[g]->commands; c->name; c++)
			if (strcmp(c->name, name) == 0 || (c->alias && strcmp(c->alias, name) == 0))
				return c;
	return NULL;
}

/* The first words of every command, and aliases. */
static void command_names(const struct cli_group *const *groups, struct acc *a)
{
	for (size_t g = 0; groups[g]; g++) {
		for (const struct cli_command *c = groups[g]->commands; c->name; c++) {
			char *first = xstrndup(c->name, strcspn(c->name, " "));
			add_name(a, first);
			free(first);
			if (c->alias)
				add_name(a, c->alias);
		}
	}
}

static bool subcommand_names(const struct cli_group *const *groups, const char *word,
			     struct acc *a)
{
	bool any = false;
	for (size_t g = 0; groups[g]; g++) {
		for (const struct cli_command *c = groups[g]->commands; c->name; c++) {
			if (in_family(c->name, word)) {
				add_name(a, c->name + strlen(word) + 1);
				any = true;
			}
		}
	}
	return any;
}

/* The positional placeholders of a usage ("coll export NAME [FILE]" ->
 * NAME, FILE), options ("[--format F]", "--no-ui") left out; *repeat when the
 * last one takes several words ("PATH..."). Owned strings. */
static size_t usage_args(const struct cli_command *cmd, char **out, size_t max, bool *repeat)
{
	const char *u = cmd->usage;
	size_t nl = strlen(cmd->name);
	u += strncmp(u, cmd->name, nl) == 0 ? nl : strcspn(u, " "); /* past the name */
	size_t n = 0;
	*repeat = false;
	bool in_opt = false;
	while (*u && n < max) {
		u += strspn(u, " ");
		size_t len = strcspn(u, " ");
		if (!len)
			break;
		const char *t = u;
		u += len;
		if (in_opt || (t[0] == '[' && t[1] == '-')) {
			in_opt = memchr(t, ']', len) == NULL;
			continue;
		}
		if (t[0] == '-')
			continue; /* an option the form needs ("play --no-ui"): not an argument */
		if (len == 1 && t[0] == '|')
			break; /* "analyze ... | analyze --import FILE": the first form */
		while (len && (t[0] == '[' || t[0] == '('))
			t++, len--;
		while (len && (t[len - 1] == ']' || t[len - 1] == ')'))
			len--;
		*repeat = len > 3 && memcmp(t + len - 3, "...", 3) == 0;
		if (*repeat)
			len -= 3;
		out[n++] = xstrndup(t, len);
	}
	return n;
}

static bool is_lower_word(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}

/* After ORDER BY a word is a sort key: a field's name alone, "-" before
 * it for descending, several joined by ",". prev: the word before. */
static bool after_order_by(const char *prev, const char *typed)
{
	size_t pl = prev ? strlen(prev) : 0;
	return (prev && strcmp(prev, "BY") == 0) || (pl && prev[pl - 1] == ',') ||
	       strchr(typed, ',');
}

/* What follows "in:" (typed): a saved collection's name, or a namespace
 * and then a name in it (in:Playlists/Road), or (all_media) All Media.
 * in_pre: the word up to the name. The NAME of a coll command is read the
 * same way (coll remove Playlists/Road), All Media aside. */
static void reference(const struct cli_names_src *src, struct cli_completion *c,
		      const char *in_pre, const char *typed, bool all_media)
{
	static const struct {
		const char *ns;
		enum cli_names kind;
	} spaces[] = {{"Collections/", CLI_NAMES_COLLECTION}, {"Playlists/", CLI_NAMES_PLAYLIST}};
	for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++) {
		size_t nl = strlen(spaces[i].ns);
		if (strncmp(typed, spaces[i].ns, nl) == 0) {
			char *ns_pre = xasprintf("%s%s", in_pre, spaces[i].ns);
			struct acc in = {c, typed + nl, ns_pre, NULL};
			names(src, spaces[i].kind, NULL, &in);
			free(ns_pre);
			return;
		}
	}
	struct acc in = {c, typed, in_pre, NULL};
	names(src, CLI_NAMES_COLLECTION, NULL, &in);
	for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++)
		add_name(&in, spaces[i].ns); /* typing goes on after the '/' */
	if (all_media)
		add_name(&in, "All Media");
}

/* A word of a query: in:NAME, a field to filter on ("tit" -> "title:"),
 * to test (+rating) or to sort by (ORDER BY -year, album). What comes
 * before the name in the word ("(", "+", "-", "year,") stays in the
 * candidates. */
static void query_word(const struct cli_names_src *src, struct cli_completion *c,
		       const char *typed, const char *prev)
{
	bool sort_key = after_order_by(prev, typed);
	const char *comma = strrchr(typed, ',');
	size_t lead = sort_key && comma ? (size_t)(comma - typed) + 1 : strspn(typed, "(");
	if (typed[lead] == '+' || (sort_key && typed[lead] == '-'))
		lead++;
	bool has = lead && typed[lead - 1] == '+';
	const char *name = typed + lead;
	char *pre = xstrndup(typed, lead);
	if (!has && !sort_key && strncmp(name, "in:", 3) == 0) {
		char *in_pre = xasprintf("%sin:", pre);
		reference(src, c, in_pre, name + 3, true);
		c->value_at = lead + 3; /* in:"Rock 90s": a quoted "in:..." is one word */
		free(in_pre);
	} else if (*name && !strchr(name, ':')) {
		struct acc field = {c, name, pre, has || sort_key ? NULL : ":"};
		names(src, CLI_NAMES_FIELD, NULL, &field);
	}
	free(pre);
}

/* Candidates for one placeholder ("NAME", "COLLECTION|QUERY", "on|off",
 * "PRESET") of cmd; prev is the argument before (for VALUE). */
static void placeholder(const struct cli_command *cmd, const char *ph, const char *prev,
			const struct cli_names_src *src, struct acc *a, const char *typed)
{
	/* pshuffle NAME is Playlists/NAME too */
	bool playlist = strncmp(cmd->name, "playlist", 8) == 0 || strcmp(cmd->name, "pshuffle") == 0;
	for (const char *p = ph; *p;) {
		size_t len = strcspn(p, "|");
		char *alt = xstrndup(p, len);
		p += len + (p[len] == '|');
		if (is_lower_word(alt, len)) {
			add_name(a, alt);
		} else if (playlist && (!strcmp(alt, "NAME") || !strcmp(alt, "OLD"))) {
			names(src, CLI_NAMES_PLAYLIST, NULL, a);
		} else if (!strcmp(alt, "NAME") || !strcmp(alt, "OLD") || !strcmp(alt, "COLLECTION")) {
			/* a name alone is Collections/NAME; a playlist is named so */
			reference(src, a->c, "", typed, false);
		} else if (!strcmp(alt, "PLAYLIST") || !strcmp(alt, "TARGET")) {
			/* TARGET: playlist jump's, the playlist that follows */
			names(src, CLI_NAMES_PLAYLIST, NULL, a);
		} else if (!strcmp(alt, "NAMESPACE")) {
			add_name(a, "Collections");
			add_name(a, "Playlists");
		} else if (!strcmp(alt, "PRESET")) {
			names(src, CLI_NAMES_PRESET, NULL, a);
		} else if (!strcmp(alt, "FIELDS") || !strcmp(alt, "FIELD") ||
			   !strcmp(alt, "PROPERTY")) {
			names(src, CLI_NAMES_FIELD, NULL, a);
		} else if (!strcmp(alt, "OPTION")) {
			names(src, CLI_NAMES_OPTION, NULL, a);
		} else if (!strcmp(alt, "VALUE") && prev) {
			names(src, CLI_NAMES_OPTION_VALUE, prev, a);
		} else if (!strcmp(alt, "DIR") && !strcmp(cmd->name, "roots remove")) {
			/* a root, as crate roots lists them; a path typed otherwise
			 * (a gone root named relatively) */
			size_t had = a->c->n;
			names(src, CLI_NAMES_ROOT, NULL, a);
			if (a->c->n == had)
				paths(a->c, typed);
		} else if (!strcmp(alt, "PATH") || !strcmp(alt, "DIR") || !strcmp(alt, "FILE")) {
			paths(a->c, typed);
		} else if (!strcmp(alt, "QUERY")) {
			query_word(src, a->c, typed, prev);
		}
		free(alt);
	}
}

static const struct cli_opt *value_opt(const struct cli_command *cmd, const char *w)
{
	for (const struct cli_opt *o = cmd->opts; o && o->name; o++) {
		if (o->kind != CLI_OPT_VALUE)
			continue;
		if ((w[1] == '-' && strcmp(w + 2, o->name) == 0) ||
		    (w[1] != '-' && !w[2] && w[1] == o->short_name))
			return o;
	}
	return NULL;
}

/* The words after the command's name: an option's value, an option, or
 * the Nth argument. */
static void arguments(const struct cli_command *cmd, char **w, size_t n,
		      const struct cli_names_src *src, struct acc *a)
{
	const char *typed = w[n - 1];
	bool opts_done = false;
	size_t pos = 0;
	const char *prev = NULL;
	const struct cli_opt *want = NULL; /* the last word was this option */
	for (size_t i = 0; i + 1 < n; i++) {
		const char *x = w[i];
		if (want) {
			want = NULL;
			continue;
		}
		if (!opts_done && (cmd->flags & CLI_OPTS_FIRST) && pos > 0)
			opts_done = true;
		if (!opts_done && strcmp(x, "--") == 0) {
			opts_done = true;
		} else if (!opts_done && x[0] == '-' && x[1] && !strchr(x, '=') &&
			   (want = value_opt(cmd, x))) {
			continue;
		} else if (opts_done || x[0] != '-' || !x[1]) {
			prev = x;
			pos++;
		}
	}
	if (!opts_done && (cmd->flags & CLI_OPTS_FIRST) && pos > 0)
		opts_done = true;
	if (want) { /* "--format m3u|pls|xspf", "--eq PRESET" */
		if (want->arg)
			placeholder(cmd, want->arg, NULL, src, a, typed);
		return;
	}
	/* ORDER BY -year: a descending sort key, not an option */
	bool sort_desc = typed[0] == '-' && typed[1] != '-' && after_order_by(prev, typed);
	if (!opts_done && typed[0] == '-' && !sort_desc) {
		for (const struct cli_opt *o = cmd->opts; o && o->name; o++) {
			char *opt = xasprintf("--%s", o->name);
			add_name(a, opt);
			free(opt);
		}
		add_name(a, "--help");
		return;
	}
	char *ph[16];
	bool repeat;
	size_t nph = usage_args(cmd, ph, 16, &repeat);
	/* a query is the rest of the line: each of its words completes */
	repeat = repeat || (nph && strstr(ph[nph - 1], "QUERY"));
	size_t k = pos < nph ? pos : repeat && nph ? nph - 1 : SIZE_MAX;
	if (k != SIZE_MAX)
		placeholder(cmd, ph[k], prev, src, a, typed);
	for (size_t i = 0; i < nph; i++)
		free(ph[i]);
}

void cli_complete(const struct cli_group *const *groups, const struct cli_names_src *src,
		  const char *line, size_t cursor, struct cli_completion *out)
{
	*out = (struct cli_completion){0};
	size_t len = strlen(line);
	struct words ws = {0};
	split(line, cursor < len ? cursor : len, &ws);
	out->start = ws.last_start;
	out->in_quote = ws.last_quoted;
	const char *typed = ws.w[ws.n - 1];
	struct acc a = {out, typed, NULL, NULL};
	bool help = ws.n >= 2 && strcmp(ws.w[0], "help") == 0;
	if (ws.n == 1 || (help && ws.n == 2)) {
		command_names(groups, &a); /* help COMMAND: the same names */
	} else if (help) {
		if (ws.n == 3) /* help coll s -> save */
			subcommand_names(groups, ws.w[1], &a);
	} else {
		const struct cli_command *cmd = NULL;
		size_t used = 1;
		if (ws.n >= 3) {
			char *two = xasprintf("%s %s", ws.w[0], ws.w[1]);
			cmd = find(groups, two);
			free(two);
			used = 2;
		}
		if (!cmd && ws.n == 2 && subcommand_names(groups, ws.w[0], &a))
			cmd = NULL; /* "coll <Tab>": the subcommands */
		else if (!cmd && (cmd = find(groups, ws.w[0])))
			used = 1;
		if (cmd)
			arguments(cmd, ws.w + used, ws.n - used, src, &a);
	}
	finish(out, typed);
	words_free(&ws);
}

void cli_complete_names(const struct cli_names_src *src, enum cli_names kind, const char *typed,
			struct cli_completion *out)
{
	*out = (struct cli_completion){.raw = true};
	struct acc a = {out, typed, NULL, NULL};
	names(src, kind, NULL, &a);
	finish(out, typed);
}

void cli_completion_free(struct cli_completion *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->cand[i]);
	free(c->cand);
	free(c->common);
	*c = (struct cli_completion){0};
}

/* What the line's splitting reads as more than a character. */
static const char special_chars[] = " \t'\"\\";

static bool needs_quotes(const char *s)
{
	return strpbrk(s, special_chars) != NULL;
}

/* A path as the line splits it back: My\ Music/. A quote opened around
 * a folder would be left open, and the line would not run. */
static void add_escaped(struct strbuf *b, const char *word)
{
	for (const char *p = word; *p; p++) {
		if (strchr(special_chars, *p))
			strbuf_addc(b, '\\');
		strbuf_addc(b, *p);
	}
}

char *cli_completion_apply(const struct cli_completion *c, const char *line, size_t *cursor,
			   const char *word, bool complete)
{
	struct strbuf b;
	strbuf_init(&b, strlen(line) + strlen(word) + 8);
	size_t start = c->start <= *cursor ? c->start : *cursor;
	strbuf_add(&b, line, start);
	size_t wl = strlen(word);
	bool open = c->raw || (wl && (word[wl - 1] == '/' || word[wl - 1] == ':'));
	size_t plain = c->value_at <= wl ? c->value_at : 0; /* "in:" stays outside */
	strbuf_add(&b, word, plain);
	word += plain;
	if (c->paths && !c->in_quote) {
		add_escaped(&b, word);
	} else if (!c->raw && (c->in_quote || needs_quotes(word))) {
		strbuf_addc(&b, '"');
		for (const char *p = word; *p; p++) {
			if (*p == '"' || *p == '\\')
				strbuf_addc(&b, '\\');
			strbuf_addc(&b, *p);
		}
		if (complete && !open)
			strbuf_addc(&b, '"');
	} else {
		strbuf_adds(&b, word);
	}
	if (complete && !open)
		strbuf_addc(&b, ' ');
	size_t at = b.len;
	/* the rest of the line after the cursor stays; a space already there
	 * is not doubled */
	const char *rest = line + *cursor;
	if (complete && !open && *rest == ' ')
		rest++;
	strbuf_adds(&b, rest);
	*cursor = at;
	return strbuf_steal(&b);
}
