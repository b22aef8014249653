/* cli/complete.c: candidates for a line and a cursor, from the real
 * command table and a fixed set of names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/str.h"
#include "cli/complete.h"
#include "harness.h"

static void fake_names(void *ud, enum cli_names kind, const char *arg,
		       void (*add)(void *acc, const char *name), void *acc)
{
	(void)ud;
	static const char *const colls[] = {"Rock 90s", "Rock Classics", "Jazz", NULL};
	static const char *const pls[] = {"Road Trip", "Default", NULL};
	static const char *const fields[] = {"artist", "album", "albumartist", "title", NULL};
	static const char *const presets[] = {"flat", "rock", "vinyl", NULL};
	static const char *const opts[] = {"playback.volume", "playback.repeat", "layout.sidebar",
					   NULL};
	static const char *const roots[] = {"/music/My Music", "/data/ext", NULL};
	const char *const *list = kind == CLI_NAMES_COLLECTION ? colls
				  : kind == CLI_NAMES_PLAYLIST  ? pls
				  : kind == CLI_NAMES_FIELD     ? fields
				  : kind == CLI_NAMES_PRESET    ? presets
				  : kind == CLI_NAMES_OPTION    ? opts
				  : kind == CLI_NAMES_ROOT      ? roots
								: NULL;
	if (kind == CLI_NAMES_OPTION_VALUE && arg && strcmp(arg, "playback.repeat") == 0) {
		static const char *const rep[] = {"off", "all", "one", NULL};
		list = rep;
	}
	for (size_t i = 0; list && list[i]; i++)
		add(acc, list[i]);
}

static const struct cli_names_src src = {fake_names, NULL};

/* The UI's own commands, declared as the table declares commands. */
static const struct cli_command ui_cmds[] = {
	{"set", NULL, "set [OPTION [VALUE]]", "change an option", NULL, 0, 2, 0, NULL, NULL},
	{"seek", NULL, "seek POSITION", "seek", NULL, 1, 1, 0, NULL, NULL},
	{"save", NULL, "save NAME", "save the search", NULL, 1, 1, 0, NULL, NULL},
	{0},
};
static const struct cli_group ui_group = {"ui", "the interface", ui_cmds};

static const struct cli_group *const *groups(void)
{
	static const struct cli_group *g[32];
	size_t n = 0;
	for (; cli_groups[n]; n++)
		g[n] = cli_groups[n];
	g[n++] = &ui_group;
	g[n] = NULL;
	return g;
}

/* Complete line at its end; the candidates joined by '|'. */
static char *complete(const char *line, struct cli_completion *c)
{
	cli_complete(groups(), &src, line, strlen(line), c);
	struct strbuf b;
	strbuf_init(&b, 64);
	for (size_t i = 0; i < c->n; i++) {
		if (i)
			strbuf_addc(&b, '|');
		strbuf_adds(&b, c->cand[i]);
	}
	return strbuf_steal(&b);
}

static void check(const char *line, const char *want)
{
	struct cli_completion c;
	char *got = complete(line, &c);
	CHECK_MSG(strcmp(got ? got : "", want) == 0, "'%s': got '%s', want '%s'", line,
		  got ? got : "", want);
	free(got);
	cli_completion_free(&c);
}

/* What Tab leaves on the line when the candidate is unique. */
static void check_applied(const char *line, const char *want)
{
	struct cli_completion c;
	char *got = complete(line, &c);
	free(got);
	CHECK_MSG(c.n == 1, "'%s': %zu candidates", line, c.n);
	if (c.n == 1) {
		size_t cur = strlen(line);
		char *out = cli_completion_apply(&c, line, &cur, c.cand[0], true);
		CHECK_MSG(strcmp(out, want) == 0, "'%s' -> '%s', want '%s'", line, out, want);
		CHECK_INT(cur, strlen(want));
		free(out);
	}
	cli_completion_free(&c);
}

/* The prefix line's candidates share (Tab with several), and what it
 * leaves on the line. */
static void check_common(const char *line, const char *common, const char *want)
{
	struct cli_completion c;
	free(complete(line, &c));
	CHECK_STR(c.common, common);
	size_t cur = strlen(line);
	char *out = cli_completion_apply(&c, line, &cur, c.common, false);
	CHECK_STR(out, want);
	free(out);
	cli_completion_free(&c);
}

TEST(commands_and_subcommands_come_from_the_table)
{
	check("sc", "scan");
	check("se", "search|seek|set");
	check("coll s", "save|show");
	check("playlist ex", "export");
	check("rule p", "presets");
	check("analy", "analyse|analyze"); /* an alias is a name too */
	check_applied("coll sa", "coll save ");
	check("nosuch ", "");
}

TEST(options_and_their_values)
{
	check("search --j", "--json");
	check("coll remove --", "--force|--help");
	check("playlist export --format ", "m3u|pls|xspf");
	check("rule add --eq v", "vinyl");
	check("rule add Jazz --eq ", "flat|rock|vinyl");
	/* An option the usage spells out ("play --no-ui QUERY...") is no
	 * argument: Tab after it inserted it again, and again. */
	struct cli_completion c;
	char *got = complete("play --no-ui ", &c);
	CHECK_MSG(!strstr(got, "--no-ui"), "'play --no-ui ': got '%s'", got);
	free(got);
	cli_completion_free(&c);
	check("play --no", "--no-ui");
}

TEST(collection_and_playlist_names_are_quoted_with_spaces)
{
	check("coll show R", "Rock 90s|Rock Classics");
	check("coll show r", "Rock 90s|Rock Classics"); /* case forgiven */
	check_applied("coll show \"Rock 9", "coll show \"Rock 90s\" ");
	check_applied("coll show \"Rock C", "coll show \"Rock Classics\" ");
	check_applied("playlist use Ro", "playlist use \"Road Trip\" ");
	check_applied("rule add J", "rule add Jazz ");
	/* the common prefix of two names with a space opens a quote */
	check_common("coll show Ro", "Rock ", "coll show \"Rock ");
}

/* Every coll command takes Playlists/NAME (coll remove Playlists/Road):
 * Tab after "Playlists/" found nothing, and "coll show P" nothing either.
 * pshuffle NAME is a playlist's name: Tab offered the collections. */
TEST(coll_names_complete_in_either_namespace)
{
	check_applied("coll remove Playlists/Ro", "coll remove \"Playlists/Road Trip\" ");
	check_applied("coll rename Collections/J", "coll rename Collections/Jazz ");
	check_applied("coll show P", "coll show Playlists/");
	check("coll export ", "Collections/|Jazz|Playlists/|Rock 90s|Rock Classics");
	check_applied("rule add Playlists/D", "rule add Playlists/Default ");
	check_applied("pshuffle Ro", "pshuffle \"Road Trip\" ");
}

/* playlist jump NAME TARGET: Tab offered nothing for the playlist that
 * follows, only --none. */
TEST(playlist_jump_completes_its_target)
{
	check("playlist jump Default ", "--none|Default|Road Trip");
	check_applied("playlist jump Default Ro", "playlist jump Default \"Road Trip\" ");
}

/* ":help co" and ":coll list " said "nothing to complete": help takes a
 * command's name, coll list a namespace. */
TEST(help_and_coll_list_complete_their_words)
{
	check("help co", "coll");
	check("help coll s", "save|show");
	check("coll list ", "Collections|Playlists");
	check_applied("coll list P", "coll list Playlists ");
}

/* roots remove DIR offered the files of the current folder: the roots,
 * as crate roots lists them, are what it takes; a path otherwise. */
TEST(roots_remove_completes_the_roots)
{
	check("roots remove ", "/data/ext|/music/My Music");
	check_applied("roots remove --yes /m", "roots remove --yes \"/music/My Music\" ");
	struct cli_completion c;
	char *got = complete("roots remove /tm", &c); /* no root: the folders */
	CHECK(c.paths);
	free(got);
	cli_completion_free(&c);
}

TEST(fields_options_and_query_words)
{
	check("playlist sort Default al", "album|albumartist");
	check_applied("search tit", "search title:");
	check_applied("search in:J", "search in:Jazz ");
	/* every word of a query, not the first alone ("nothing to complete") */
	check_applied("search a:x tit", "search a:x title:");
	check_applied("search a:x OR in:J", "search a:x OR in:Jazz ");
	check("coll levels \"Rock 90s\" alb", "album|albumartist");
	check("set play", "playback.repeat|playback.volume");
	check("set playback.repeat ", "all|off|one");
	check("seek ", "");
}

/* What the query language puts before a name stays: a group's '(', '+'
 * (has: no ':' after it), and after ORDER BY a sort key's '-' and the
 * keys before it (no ':' either: "ORDER BY year:" does not parse). */
TEST(query_words_after_a_parenthesis_plus_and_order_by)
{
	check_applied("search (tit", "search (title:");
	check_applied("search a:x OR (in:J", "search a:x OR (in:Jazz ");
	check_applied("search ((in:\"Rock 9", "search ((in:\"Rock 90s\" ");
	check_applied("search NOT +tit", "search NOT +title ");
	check("search +al", "+album|+albumartist");
	check_applied("search a:x ORDER BY tit", "search a:x ORDER BY title ");
	check_applied("search a:x ORDER BY -tit", "search a:x ORDER BY -title ");
	check_applied("search a:x ORDER BY -title, artis", "search a:x ORDER BY -title, artist ");
	check_applied("search a:x ORDER BY title,-artis", "search a:x ORDER BY title,-artist ");
	check("search --j", "--json"); /* an option still */
	check("search (", "");
}

/* in:"Rock 90s" is what the query parser reads; "in:Rock 90s" is in:Rock
 * and the word 90s. */
TEST(a_collection_after_in_quotes_only_its_name)
{
	check_applied("search in:\"Rock 9", "search in:\"Rock 90s\" ");
	check_applied("search \"in:Rock 9", "search in:\"Rock 90s\" ");
	check_applied("coll save X in:Rock\\ 9", "coll save X in:\"Rock 90s\" ");
	check_common("search in:Ro", "in:Rock ", "search in:\"Rock ");
}

/* in: takes a namespace too (in:Playlists/Road Trip), and All Media. */
TEST(a_reference_completes_namespaces_and_playlists)
{
	check("search in:", "in:All Media|in:Collections/|in:Jazz|in:Playlists/|in:Rock 90s|"
			    "in:Rock Classics");
	check_applied("search in:Pl", "search in:Playlists/");
	check_applied("search in:Playlists/Ro", "search in:\"Playlists/Road Trip\" ");
	check_applied("search in:\"Playlists/Ro", "search in:\"Playlists/Road Trip\" ");
	check_applied("search a:x (in:Playlists/D", "search a:x (in:Playlists/Default ");
	check_applied("search in:Collections/J", "search in:Collections/Jazz ");
	check_applied("search in:\"All", "search in:\"All Media\" ");
	check("search in:Playlists/J", "");
}

TEST(a_cursor_inside_the_line_completes_the_word_before_it)
{
	struct cli_completion c;
	const char *line = "coll sh Jazz";
	cli_complete(groups(), &src, line, 7, &c);
	REQUIRE(c.n == 1);
	size_t cur = 7;
	char *out = cli_completion_apply(&c, line, &cur, c.cand[0], true);
	CHECK_STR(out, "coll show Jazz");
	CHECK_INT(cur, 10);
	free(out);
	cli_completion_free(&c);
}

TEST(paths_expand_the_tilde_and_keep_it)
{
	const char *home = harness_tmpdir();
	char p[4096];
	snprintf(p, sizeof p, "%s/My Music", home);
	REQUIRE(mkdir(p, 0700) == 0);
	snprintf(p, sizeof p, "%s/music", home);
	REQUIRE(mkdir(p, 0700) == 0);
	snprintf(p, sizeof p, "%s/music/a.flac", home);
	FILE *f = fopen(p, "w");
	REQUIRE(f);
	fclose(f);
	snprintf(p, sizeof p, "%s/My Music/a b.flac", home);
	REQUIRE((f = fopen(p, "w")));
	fclose(f);
	setenv("HOME", home, 1);
	check("scan ~", "~/");
	check("scan ~/", "~/My Music/|~/music/");
	check("scan ~/m", "~/music/");
	check_applied("scan ~/m", "scan ~/music/"); /* a folder stays open */
	check_applied("scan ~/music/", "scan ~/music/a.flac ");
	/* escaped, not quoted: a quote opened for a folder was left open and
	 * the line did not run (unterminated quote) */
	check_applied("scan ~/M", "scan ~/My\\ Music/");
	check_applied("scan ~/My\\ Music/", "scan ~/My\\ Music/a\\ b.flac ");
	check_applied("scan \"~/My", "scan \"~/My Music/"); /* the user's quote stays */
	check_applied("scan --quiet ~/mu", "scan --quiet ~/music/");
}

/* CPU time: a machine shared with other builds must not fail the test. */
static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void many_names(void *ud, enum cli_names kind, const char *arg,
		       void (*add)(void *acc, const char *name), void *acc)
{
	(void)ud;
	(void)arg;
	char name[64];
	for (int i = 0; kind == CLI_NAMES_COLLECTION && i < 20000; i++) {
		snprintf(name, sizeof name, "Mix %05d of the year", i);
		add(acc, name);
	}
}

/* Only names are completed, so the library's size does not matter; what
 * could: a store of 20,000 saved collections and a folder of 20,000 files.
 * Their candidates are right; the time is printed (5.5-8 ms and 10-15 ms of
 * CPU in a release build). */
TEST(completion_of_many_names_and_files)
{
	const struct cli_names_src many = {many_names, NULL};
	struct cli_completion c;
	double t0 = now_ms();
	cli_complete(groups(), &many, "coll show \"Mix 1", strlen("coll show \"Mix 1"), &c);
	double names_ms = now_ms() - t0;
	CHECK_INT(c.n, 10000);
	cli_completion_free(&c);
	cli_complete(groups(), &many, "coll show M", strlen("coll show M"), &c);
	CHECK_INT(c.n, 20000);
	CHECK_STR(c.common, "Mix ");
	cli_completion_free(&c);
	const char *dir = harness_tmpdir();
	char p[4200];
	for (int i = 0; i < 20000; i++) {
		snprintf(p, sizeof p, "%s/f%05d.flac", dir, i);
		FILE *f = fopen(p, "w");
		REQUIRE(f);
		fclose(f);
	}
	snprintf(p, sizeof p, "scan %s/f1", dir);
	t0 = now_ms();
	cli_complete(groups(), &src, p, strlen(p), &c);
	double files_ms = now_ms() - t0;
	CHECK_INT(c.n, 10000);
	cli_completion_free(&c);
	/* A figure, not a check: timings belong to benchmarks (under ASan on a
	 * loaded machine names took 32 ms). */
	printf("    20,000 names: %.2f ms; a folder of 20,000 files: %.2f ms\n", names_ms,
	       files_ms);
}
