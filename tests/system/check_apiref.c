/* check_apiref.c: docs/api.md has an entry for every public symbol of
 * the headers in include/pld/.
 *
 * Public symbols are what a user writes: functions and macros named pl_*,
 * pld_*, PL_* and PLD_*, the enum constants (and the PLD_E* error codes
 * that PLD_ERRNO_MAP generates), typedef names and enum tags.  Names with a
 * double underscore (pl__, pld__, PL__, PLD__) are the plumbing behind the
 * macros, and include guards are not API.
 *
 * An entry is a backquoted name in a heading, or in the first cell of a
 * table row: a name merely mentioned in passing does not count, so the page
 * cannot "cover" a call without saying something about it. */
#include "checktools.h"

#include <pld/pld_run.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct names {
    char **v;
    int n;
};

static int has(const struct names *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->v[i], name) == 0)
            return 1;
    return 0;
}

static void add(struct names *s, const char *name, size_t len)
{
    char *c = strndup(name, len);
    if (has(s, c)) {
        free(c);
        return;
    }
    s->v = realloc(s->v, sizeof *s->v * (s->n + 1));
    s->v[s->n++] = c;
}

static void names_free(struct names *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static int public_name(const char *p, size_t len)
{
    static const char *const prefixes[] = {"pl_", "pld_", "PL_", "PLD_"};
    int ok = 0;
    for (size_t k = 0; k < 4; k++)
        ok |= len > strlen(prefixes[k]) && strncmp(p, prefixes[k], strlen(prefixes[k])) == 0;
    return ok && !memmem(p, len, "__", 2);
}

/* Blanks out comments, keeping newlines so that lines still line up. */
static void strip_comments(char *s)
{
    for (char *p = s; *p; p++) {
        if (p[0] == '/' && p[1] == '*') {
            char *e = strstr(p + 2, "*/");
            char *end = e ? e + 2 : p + strlen(p);
            for (; p < end; p++)
                if (*p != '\n')
                    *p = ' ';
            p--;
        } else if (p[0] == '/' && p[1] == '/') {
            for (; *p && *p != '\n'; p++)
                *p = ' ';
            p--;
        }
    }
}

/* The public symbols declared in one header's text. */
static void header_symbols(char *text, struct names *out)
{
    strip_comments(text);
    char guard[256] = "";
    int depth = 0, in_enum = 0, expect_constant = 0, in_typedef = 0;
    char last_ident[256] = "";
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char *l = strndup(line, len);
        char *t = l + strspn(l, " \t");
        if (*t == '#') {
            /* a directive, with its continuation lines */
            char name[256];
            if (strncmp(t, "#ifdef __cplusplus", 18) == 0) {
                /* extern "C" { ... } would put the whole header one brace
                 * deep: skip to the #endif */
                char *e = strstr(line, "#endif");
                free(l);
                line = e ? strchr(e, '\n') : NULL;
                line = line ? line + 1 : NULL;
                continue;
            }
            if (sscanf(t, "#ifndef %255s", name) == 1 && !*guard)
                strcpy(guard, name);
            if (sscanf(t, "#define %255[A-Za-z0-9_]", name) == 1 && strcmp(name, guard) != 0 &&
                public_name(name, strlen(name)))
                add(out, name, strlen(name));
            char *cur = l;
            for (;;) {
                char *xx = strstr(cur, "XX(");
                if (xx) { /* an X-macro row: XX(EINVAL, -1, "...") makes PLD_EINVAL */
                    char code[64];
                    if (sscanf(xx, "XX(%63[A-Z]", code) == 1) {
                        char full[80];
                        snprintf(full, sizeof full, "PLD_%s", code);
                        add(out, full, strlen(full));
                    }
                }
                size_t ll = strlen(cur);
                if (!(ll && cur[ll - 1] == '\\') || !nl)
                    break;
                line = nl + 1;
                nl = strchr(line, '\n');
                len = nl ? (size_t)(nl - line) : strlen(line);
                if (cur != l)
                    free(cur);
                cur = strndup(line, len);
            }
            if (cur != l)
                free(cur);
            free(l);
            line = nl ? nl + 1 : NULL;
            continue;
        }
        for (char *p = t; *p; p++) {
            if (ident_char(*p) && (p == l || !ident_char(p[-1]))) {
                char *q = p;
                while (ident_char(*q))
                    q++;
                size_t n = (size_t)(q - p);
                char *after = q + strspn(q, " \t");
                if (n == 7 && strncmp(p, "typedef", 7) == 0 && depth == 0)
                    in_typedef = 1;
                if (n == 4 && strncmp(p, "enum", 4) == 0 && depth == 0) {
                    in_enum = 1;
                    char *tag = after; /* `enum pld_races {` names a tag */
                    size_t tl = 0;
                    while (ident_char(tag[tl]))
                        tl++;
                    if (tl && public_name(tag, tl))
                        add(out, tag, tl);
                }
                if (depth == 0 && *after == '(' && public_name(p, n))
                    add(out, p, n); /* a function declaration */
                if (in_enum && depth == 1 && expect_constant && public_name(p, n))
                    add(out, p, n);
                expect_constant = 0;
                if (n < sizeof last_ident) {
                    memcpy(last_ident, p, n);
                    last_ident[n] = '\0';
                }
                p = q - 1;
            } else if (*p == '{') {
                depth++;
                expect_constant = in_enum;
            } else if (*p == '}') {
                depth--;
                if (depth == 0)
                    in_enum = 0;
            } else if (*p == ',') {
                expect_constant = in_enum && depth == 1;
            } else if (*p == ';' && depth == 0) {
                if (in_typedef && public_name(last_ident, strlen(last_ident)))
                    add(out, last_ident, strlen(last_ident));
                in_typedef = 0;
            }
        }
        free(l);
        line = nl ? nl + 1 : NULL;
    }
}

/* The names that have an entry on the page (see the top comment). */
static void page_entries(const char *text, struct names *out)
{
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        size_t scope = 0;
        if (line[0] == '#') {
            scope = len;
        } else if (line[0] == '|') {
            const char *bar = memchr(line + 1, '|', len - 1);
            scope = bar ? (size_t)(bar - line) : len;
        }
        for (size_t i = 0; i < scope; i++) {
            if (line[i] != '`')
                continue;
            const char *end = memchr(line + i + 1, '`', scope - i - 1);
            if (!end)
                break;
            /* every name inside the backquotes: `PLD_WAIT_EQ`, `pl_add(a, b)` */
            for (const char *p = line + i + 1; p < end; p++)
                if (ident_char(*p) && (p == line + i + 1 || !ident_char(p[-1]))) {
                    const char *q = p;
                    while (q < end && ident_char(*q))
                        q++;
                    if (public_name(p, (size_t)(q - p)))
                        add(out, p, (size_t)(q - p));
                    p = q;
                }
            i = (size_t)(end - line);
        }
        line = nl ? nl + 1 : NULL;
    }
}

static void headers_symbols(struct names *syms)
{
    static const char *const headers[] = {"pl.h", "pld.h", "pld_run.h", "pld_embed.h",
                                          "pld_tasks.h"};
    for (size_t i = 0; i < sizeof headers / sizeof *headers; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/include/pld/%s", PLD_SRCDIR, headers[i]);
        char *text = slurp(path);
        ck_assert_msg(text != NULL, "cannot read %s", path);
        header_symbols(text, syms);
        free(text);
    }
}

START_TEST(the_extractor_finds_the_api_and_nothing_else)
{
    struct names syms = {0};
    headers_symbols(&syms);
    static const char *const must[] = {
        "pld_system_notify",
        "pld_tensor_allreduce",
        "pld_run",
        "pl_load",
        "pl_tensor_free",
        "PL_FP32",
        "PLD_WAIT_GE",
        "PLD_EINVAL",
        "PLD_ERACE",
        "PLD_RACES_WARN",
        "pld_config",
        "pld_dtensor",
        "pld_races",
        "PL_SHAPE",
        "pld_time",
        "pld_record_end",
        "pld_deferred", /* pld_tasks.h */
        "pl_max",
        "PLD_MAX_RANKS",
        "pld_strerror",
        "PL_ATOMIC_ADD",
        "pld_errno",
        "PLD_OK",
        "pld_last_run_stats",
    };
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
        ck_assert_msg(has(&syms, must[i]), "the extractor missed %s", must[i]);
    static const char *const never[] = {"pld__notify", "PLD__KW", "PLD_PL_H",    "PLD_PLD_H",
                                        "pl__load",    "PLD_E",   "pld_alloc_kw"};
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
        ck_assert_msg(!has(&syms, never[i]), "the extractor took %s for API", never[i]);
    names_free(&syms);
}
END_TEST

START_TEST(every_public_symbol_has_an_entry_in_api_md)
{
    struct names syms = {0}, entries = {0};
    headers_symbols(&syms);
    char *page = slurp(PLD_SRCDIR "/docs/api.md");
    ck_assert_msg(page != NULL, "docs/api.md is missing");
    page_entries(page, &entries);
    char missing[8192] = "";
    int n = 0;
    for (int i = 0; i < syms.n; i++)
        if (!has(&entries, syms.v[i])) {
            n++;
            if (strlen(missing) + strlen(syms.v[i]) + 2 < sizeof missing)
                strcat(strcat(missing, " "), syms.v[i]);
        }
    printf("api: %d public symbols, %d without an entry in docs/api.md\n", syms.n, n);
    ck_assert_msg(n == 0, "%d public symbols have no entry in docs/api.md:%s", n, missing);
    free(page);
    names_free(&syms);
    names_free(&entries);
}
END_TEST

/* The common options: every flag --help prints has a row in docs/api.md's
 * table, every row is a flag --help prints, and a row's variable is the
 * flag's name as PLD_NAME (both come from one table, src/options.c). */
START_TEST(the_options_table_in_api_md_is_the_one_help_prints)
{
    char *help = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&help, &len);
    ck_assert_ptr_nonnull(f);
    pld_print_common_usage(f);
    fclose(f);
    char *page = slurp(PLD_SRCDIR "/docs/api.md");
    ck_assert_msg(page != NULL, "docs/api.md is missing");
    int flags = 0, rows = 0;
    for (const char *p = strstr(help, "\n  "); p; p = strstr(p + 1, "\n  ")) {
        const char *dd = strstr(p, "--");
        char name[40] = "", row[48], var[48];
        if (!dd || dd > p + 1 + 8 /* a flag, not a help line naming one */ ||
            sscanf(dd + 2, "%39[a-z-]", name) != 1 || strcmp(name, "help") == 0 ||
            strcmp(name, "version") == 0)
            continue;
        flags++;
        snprintf(row, sizeof row, "`--%s", name);
        const char *r = strstr(page, row);
        ck_assert_msg(r, "--%s is in --help but has no row in docs/api.md's options table", name);
        const char *eol = strchr(r, '\n'), *v = strstr(r, "`PLD_");
        snprintf(var, sizeof var, "PLD_");
        for (size_t i = 0; name[i] && i + 5 < sizeof var; i++)
            var[4 + i] = name[i] == '-' ? '_' : (char)toupper((unsigned char)name[i]),
                    var[5 + i] = '\0';
        if (v && v < eol)
            ck_assert_msg(strncmp(v + 1, var, strlen(var)) == 0 && v[1 + strlen(var)] == '`',
                          "the row of --%s names a variable other than %s", name, var);
    }
    for (const char *r = strstr(page, "\n| `--"); r; r = strstr(r + 1, "\n| `--")) {
        char name[40];
        ck_assert_int_eq(sscanf(r + 6, "%39[a-z-]", name), 1);
        char flag[48];
        snprintf(flag, sizeof flag, "--%s", name);
        ck_assert_msg(strstr(help, flag), "docs/api.md has a row for %s, which --help lacks", flag);
        rows++;
    }
    for (const char *r = strstr(page, "\n| `-"); r; r = strstr(r + 1, "\n| `-"))
        if (r[5] != '-') /* "| `-p`, `--platform" */
            rows++;
    printf("api: %d common flags, %d rows in the options table\n", flags, rows);
    ck_assert_int_eq(flags, rows);
    free(page);
    free(help);
}
END_TEST

START_TEST(a_symbol_without_an_entry_is_named)
{
    char header[] = "#ifndef X_H\n#define X_H\n"
                    "/* pld_in_a_comment(int) */\n"
                    "typedef enum pld_colour { PLD_RED = 1, PLD_BLUE } pld_colour;\n"
                    "#define pld_paint(x) pld__paint(PLD__SRC, (x))\n"
                    "void pld__paint(const char *f, int l, int x);\n"
                    "double pld_brightness(pld_colour c);\n#endif\n";
    struct names syms = {0}, entries = {0};
    header_symbols(header, &syms);
    ck_assert_int_eq(syms.n, 5); /* pld_colour PLD_RED PLD_BLUE pld_paint pld_brightness */
    ck_assert(!has(&syms, "pld_in_a_comment"));
    page_entries("## `pld_paint(x)`\n\nPaints; see `pld_brightness` too.\n\n"
                 "| name | value |\n|---|---|\n| `PLD_RED`, `PLD_BLUE` | `pld_colour` |\n",
                 &entries);
    ck_assert(has(&entries, "pld_paint"));
    ck_assert(has(&entries, "PLD_BLUE"));
    ck_assert(!has(&entries, "pld_brightness")); /* mentioned, not an entry */
    ck_assert(!has(&entries, "pld_colour"));     /* not in the first cell */
    names_free(&syms);
    names_free(&entries);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("apiref");
    TCase *tc = tcase_create("apiref");
    tcase_add_test(tc, the_extractor_finds_the_api_and_nothing_else);
    tcase_add_test(tc, a_symbol_without_an_entry_is_named);
    tcase_add_test(tc, every_public_symbol_has_an_entry_in_api_md);
    tcase_add_test(tc, the_options_table_in_api_md_is_the_one_help_prints);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
