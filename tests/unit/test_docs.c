/* The docs against the tables they describe: crate(1)'s KEYS section is
 * generated from the key table (ui/keymap.c, the same one the `?` help
 * lists), and config.example, crate(1) and the README must name every
 * checked option (app/app.c), every command (cli/cli_table.c) and every
 * key action. A failure says what is missing where.
 *
 * After changing a key: CRATE_REGEN_DOCS=1 build/tests/test_docs rewrites
 * the KEYS section of doc/crate.1 (then review the diff). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_config.h"
#include "base/config.h"
#include "base/err.h"
#include "base/str.h"
#include "cli/cli.h"
#include "harness.h"
#include "ui/keymap.h"

#define KEYS_BEGIN ".\\\" BEGIN KEYS"
#define KEYS_END ".\\\" END KEYS"

static char *slurp(const char *rel)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", harness_srcdir(), rel);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct strbuf b;
	strbuf_init(&b, 1 << 16);
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		strbuf_add(&b, buf, n);
	fclose(f);
	return b.buf;
}

/* Text for roff: backslashes and hyphens escaped, a leading dot guarded. */
static void roff_add(struct strbuf *b, const char *s)
{
	if (*s == '.' || *s == '\'')
		strbuf_adds(b, "\\&");
	for (; *s; s++) {
		if (*s == '\\')
			strbuf_adds(b, "\\e");
		else if (*s == '-')
			strbuf_adds(b, "\\-");
		else
			strbuf_add(b, s, 1);
	}
}

/* The KEYS section as the key table says (begin and end markers included). */
static char *keys_section(void)
{
	struct keymap km;
	keymap_init_default(&km);
	struct strbuf b;
	strbuf_init(&b, 4096);
	strbuf_adds(&b, KEYS_BEGIN " (generated from ui/keymap.c: "
			"CRATE_REGEN_DOCS=1 build/tests/test_docs)\n"
			".SH KEYS\n"
			"The default bindings, the same list \\fB?\\fR shows in the interface.\n"
			"Each is changed in the \\fB[keys]\\fR section of the configuration by the\n"
			"action's name (in parentheses): \\fIaction\\fR = \\fIKEY\\fR...\n");
	for (int a = 1; a < UA_COUNT; a++) {
		char desc[128];
		keymap_describe(&km, (enum ui_action)a, desc, sizeof desc);
		strbuf_adds(&b, ".TP\n.B ");
		roff_add(&b, desc[0] ? desc : "(none)");
		strbuf_adds(&b, "\n");
		roff_add(&b, keymap_action_help((enum ui_action)a));
		strbuf_adds(&b, " (\\fB");
		roff_add(&b, keymap_action_name((enum ui_action)a));
		strbuf_adds(&b, "\\fR)\n");
	}
	strbuf_adds(&b, KEYS_END "\n");
	return b.buf;
}

TEST(man_keys_section_is_the_key_table)
{
	char *man = slurp("doc/crate.1");
	REQUIRE(man != NULL);
	char *want = keys_section();
	char *begin = strstr(man, KEYS_BEGIN), *end = begin ? strstr(begin, KEYS_END) : NULL;
	CHECK_MSG(begin && end, "doc/crate.1 has no generated KEYS section (" KEYS_BEGIN ")");
	if (begin && end) {
		end += strlen(KEYS_END "\n");
		size_t have = (size_t)(end - begin);
		bool same = have == strlen(want) && memcmp(begin, want, have) == 0;
		const char *regen = getenv("CRATE_REGEN_DOCS");
		if (!same && regen && *regen == '1') {
			char path[1024];
			snprintf(path, sizeof path, "%s/doc/crate.1", harness_srcdir());
			FILE *f = fopen(path, "wb");
			REQUIRE(f != NULL);
			fwrite(man, 1, (size_t)(begin - man), f);
			fputs(want, f);
			fputs(end, f);
			fclose(f);
			printf("rewrote the KEYS section of %s\n", path);
		} else {
			CHECK_MSG(same, "doc/crate.1's KEYS section differs from the key table: "
					"run CRATE_REGEN_DOCS=1 build/tests/test_docs; want:\n%s", want);
		}
	}
	free(want);
	free(man);
}

/* Whether [section] of config.example has `name =` (commented or not). */
static bool example_has(const char *ex, const char *option)
{
	const char *dot = strchr(option, '.');
	char head[128];
	snprintf(head, sizeof head, "\n[%.*s]\n", (int)(dot - option), option);
	const char *sec = strstr(ex, head);
	if (!sec)
		return false;
	sec += strlen(head);
	const char *next = strstr(sec, "\n[");
	for (const char *l = sec; l && (!next || l < next); l = strchr(l, '\n')) {
		if (*l == '\n')
			l++;
		if (*l == '#')
			l++;
		size_t n = strlen(dot + 1);
		if (strncmp(l, dot + 1, n) == 0 && (l[n] == ' ' || l[n] == '='))
			return true;
	}
	return false;
}

/* The man page as plain text: font changes and escaped hyphens dropped. */
static char *man_plain(const char *man)
{
	struct strbuf b;
	strbuf_init(&b, strlen(man));
	for (const char *s = man; *s; s++) {
		if (s[0] == '\\' && (s[1] == 'f') && s[2]) {
			s += 2;
			continue;
		}
		if (s[0] == '\\' && (s[1] == '-' || s[1] == '&')) {
			if (s[1] == '-')
				strbuf_adds(&b, "-");
			s++;
			continue;
		}
		strbuf_add(&b, s, 1);
	}
	return b.buf;
}

TEST(every_option_is_documented)
{
	char *ex = slurp("data/config.example"), *man = slurp("doc/crate.1"), *readme = slurp("README");
	REQUIRE(ex && man && readme);
	char *plain = man_plain(man);
	size_t n;
	const struct config_option *o = app_config_options(&n);
	for (size_t i = 0; i < n; i++) {
		CHECK_MSG(example_has(ex, o[i].key), "data/config.example lacks %s", o[i].key);
		CHECK_MSG(strstr(plain, o[i].key) != NULL, "doc/crate.1 lacks %s", o[i].key);
		CHECK_MSG(strstr(readme, o[i].key) != NULL, "README lacks %s", o[i].key);
	}
	free(plain);
	free(ex);
	free(man);
	free(readme);
}

/* The words a command's usage offers ("remote play|...|vol [+-]N": play
 * ... vol) are on its line of the man page. */
static void check_usage_words(const char *plain, const struct cli_command *c)
{
	char head[160];
	snprintf(head, sizeof head, "\n.B %s ", c->name);
	const char *h = strstr(plain, head);
	if (!h || strncmp(c->usage, c->name, strlen(c->name)) != 0)
		return;
	const char *eol = strchr(h + 1, '\n');
	size_t linelen = eol ? (size_t)(eol - h) : strlen(h);
	char *line = xstrndup(h, linelen);
	char *u = xstrdup(c->usage + strlen(c->name));
	for (char *save = NULL, *t = strtok_r(u, " |", &save); t; t = strtok_r(NULL, " |", &save)) {
		bool word = *t != '\0';
		for (const char *q = t; *q; q++)
			word = word && *q >= 'a' && *q <= 'z';
		if (!word)
			continue;
		char w[80];
		snprintf(w, sizeof w, "%s", t);
		bool found = false;
		for (const char *at = strstr(line, w); at && !found; at = strstr(at + 1, w)) {
			char b = at[-1], e = at[strlen(w)];
			found = (b == ' ' || b == '|') && (e == ' ' || e == '|' || e == '\0');
		}
		CHECK_MSG(found, "doc/crate.1: '%s' lacks '%s' (usage: %s)", c->name, w, c->usage);
	}
	free(u);
	free(line);
}

TEST(every_command_is_documented)
{
	char *man = slurp("doc/crate.1"), *readme = slurp("README");
	REQUIRE(man && readme);
	char *plain = man_plain(man);
	size_t count = 0;
	for (const struct cli_group *const *g = cli_groups; *g; g++) {
		for (const struct cli_command *c = (*g)->commands; c->name; c++) {
			count++;
			char want[160];
			/* As the man page lists it: ".B coll save" (then arguments). */
			snprintf(want, sizeof want, "\n.B %s", c->name);
			const char *at = strstr(plain, want);
			size_t l = strlen(want);
			while (at && at[l] != ' ' && at[l] != '\n' && at[l] != '|')
				at = strstr(at + 1, want);
			bool in_man = at != NULL;
			if (!in_man) { /* or within a list of words: ".B remote play|pause|..." */
				snprintf(want, sizeof want, "%s", c->name);
				char *sp = strchr(want, ' ');
				if (sp) {
					*sp = '\0';
					char line[160];
					snprintf(line, sizeof line, "\n.B %s %s", want, sp + 1);
					in_man = strstr(plain, line) != NULL;
					snprintf(line, sizeof line, "|%s", sp + 1);
					char head[160];
					snprintf(head, sizeof head, "\n.B %s ", want);
					const char *h = strstr(plain, head);
					if (!in_man && h) {
						const char *eol = strchr(h + 1, '\n');
						const char *hit = strstr(h, line);
						in_man = hit && (!eol || hit < eol);
					}
				}
			}
			CHECK_MSG(in_man, "doc/crate.1 lacks the command '%s'", c->name);
			check_usage_words(plain, c);
			char rd[160];
			snprintf(rd, sizeof rd, "crate %s", c->name);
			bool in_readme = strstr(readme, rd) != NULL;
			if (!in_readme) { /* "crate remote status | play | pause" */
				char first[80];
				snprintf(first, sizeof first, "%s", c->name);
				char *sp = strchr(first, ' ');
				if (sp) {
					*sp = '\0';
					char head[120], alt[120];
					snprintf(head, sizeof head, "crate %s ", first);
					snprintf(alt, sizeof alt, "| %s", sp + 1);
					for (const char *h = strstr(readme, head); h && !in_readme;
					     h = strstr(h + 1, head)) {
						const char *eol = strchr(h, '\n');
						const char *hit = strstr(h, alt);
						in_readme = hit && (!eol || hit < eol);
					}
				}
			}
			CHECK_MSG(in_readme, "README lacks the command 'crate %s'", c->name);
		}
	}
	CHECK(count > 20);
	free(plain);
	free(man);
	free(readme);
}

/* Whether the README's "Key bindings" section shows one of these keys
 * (arrows may be drawn as arrows). */
static bool readme_shows_key(const char *sec, size_t len, const char *keys)
{
	char tmp[128];
	snprintf(tmp, sizeof tmp, "%s", keys);
	for (char *save = NULL, *k = strtok_r(tmp, " ", &save); k; k = strtok_r(NULL, " ", &save)) {
		const char *alias = !strcmp(k, "Up") ? "\xe2\x86\x91" : !strcmp(k, "Down") ? "\xe2\x86\x93"
				  : !strcmp(k, "Left") ? "\xe2\x86\x90" : !strcmp(k, "Right") ? "\xe2\x86\x92" : k;
		size_t kl = strlen(alias);
		for (size_t i = 0; i + kl <= len; i++) {
			if (memcmp(sec + i, alias, kl) != 0)
				continue;
			bool before = i == 0 || sec[i - 1] == ' ' || sec[i - 1] == '\n';
			bool after = i + kl == len || sec[i + kl] == ' ' || sec[i + kl] == '\n';
			if (before && after)
				return true;
		}
	}
	return false;
}

TEST(every_key_is_documented)
{
	char *ex = slurp("data/config.example"), *readme = slurp("README");
	REQUIRE(ex && readme);
	const char *sec = strstr(readme, "\nKey bindings\n");
	REQUIRE(sec != NULL);
	const char *end = strstr(sec + strlen("\nKey bindings\n"), "\n---");
	end = end ? end : sec + strlen(sec);
	struct keymap km;
	keymap_init_default(&km);
	for (int a = 1; a < UA_COUNT; a++) {
		char desc[128], line[200];
		keymap_describe(&km, (enum ui_action)a, desc, sizeof desc);
		/* config.example lists each action with its default keys. */
		snprintf(line, sizeof line, "\n#%s = %s\n", keymap_action_name((enum ui_action)a), desc);
		CHECK_MSG(strstr(ex, line) != NULL, "data/config.example lacks '%s'", line + 1);
		CHECK_MSG(readme_shows_key(sec, (size_t)(end - sec), desc),
			  "README's key bindings lack %s (%s)", keymap_action_name((enum ui_action)a), desc);
	}
	free(ex);
	free(readme);
}

/* Where the docs name the key that plays ("Play (c, `crate remote
 * play`)"), it is the key bound to play when stopped, pause (c): they
 * said x, which is bound to nothing (cmus's key, not crate's). */
TEST(the_play_key_named_in_the_docs_is_bound)
{
	struct keymap km;
	keymap_init_default(&km);
	char desc[128];
	keymap_describe(&km, UA_PAUSE, desc, sizeof desc);
	static const char *const files[][2] = {{"README", "`crate remote play`)"},
					       {"doc/crate.1", "\\fBcrate remote play\\fR)"}};
	for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
		char *text = slurp(files[f][0]);
		REQUIRE(text);
		size_t n = 0;
		for (const char *p = strstr(text, files[f][1]); p; p = strstr(p + 1, files[f][1])) {
			/* the key is the word after "(" before ", " */
			const char *comma = p - 2, *open = comma;
			while (open > text && open[-1] != '(')
				open--;
			char key[32];
			snprintf(key, sizeof key, "%.*s", (int)(comma - open), open);
			const char *plain = key;
			if (strncmp(key, "\\fB", 3) == 0) /* roff bold: \fBc\fR */
				plain = key + 3;
			char word[32];
			snprintf(word, sizeof word, "%.*s", (int)strcspn(plain, "\\`"), plain);
			CHECK_MSG(strstr(desc, word) != NULL, "%s names '%s' as the play key; pause is %s",
				  files[f][0], word, desc);
			n++;
		}
		CHECK_MSG(n > 0, "%s names no play key", files[f][0]);
		free(text);
	}
}

/* Every option line of config.example, uncommented, passes the checks at
 * start; and the values its comments offer (shuffle = albums was refused
 * as "must be yes or no"). */
TEST(config_example_values_are_accepted)
{
	char *ex = slurp("data/config.example");
	REQUIRE(ex != NULL);
	struct strbuf b;
	strbuf_init(&b, strlen(ex));
	for (char *save = NULL, *l = strtok_r(ex, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		/* "#key = value" (not prose, not a commented section) */
		if (l[0] == '#' && l[1] >= 'a' && l[1] <= 'z' && strstr(l, " = ")) {
			char key[64];
			if (sscanf(l + 1, "%63[a-z_] =", key) == 1 && strchr(l + 1, ' ') == l + 1 + strlen(key))
				l++;
		}
		strbuf_adds(&b, l);
		strbuf_adds(&b, "\n");
	}
	strbuf_adds(&b, "[playback]\nshuffle = albums\n");
	char path[1024];
	snprintf(path, sizeof path, "%s/config", harness_tmpdir());
	FILE *f = fopen(path, "w");
	REQUIRE(f != NULL);
	fputs(b.buf, f);
	fclose(f);
	struct config *cfg = NULL;
	struct crate_err err = {0};
	REQUIRE(config_load(path, &cfg, &err) == 0);
	size_t n;
	const struct config_option *o = app_config_options(&n);
	CHECK_MSG(config_check(cfg, o, n, &err) == 0, "config.example uncommented: %s", err.msg);
	/* and what only the app's table checks (formats, glyphs): the values
	 * shown are the defaults, so they must be what the table says */
	for (size_t i = 0; i < n; i++) {
		const char *v = config_get(cfg, o[i].key, NULL);
		char why[200];
		if (!v)
			continue;
		CHECK_MSG(app_config_value_ok(&o[i], v, why, sizeof why), "config.example %s = %s: %s",
			  o[i].key, v, why);
		if (strncmp(o[i].key, "format.", 7) == 0 || strncmp(o[i].key, "display.glyph_", 14) == 0)
			CHECK_MSG(o[i].def && strcmp(v, o[i].def) == 0,
				  "config.example %s = '%s', the default is '%s'", o[i].key, v, o[i].def);
	}
	config_free(cfg);
	strbuf_free(&b);
	free(ex);
}
