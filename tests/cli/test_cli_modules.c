/* The commands of the modules a build has (-DCF_WITH_HFILE/TABLES/PARQUET): each
 * built one is listed by --help, the completion and --version and runs; each left
 * out is in none of them and, when typed, fails with exit 3 naming the option.
 * Runs in every configuration and checks the side it is built for (CI builds one
 * with all three left out, .ci/run). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "support_cli.h"
#include "test_common.h"

typedef struct module {
    const char *cmd;    /* the command */
    const char *format; /* its word in --version's "formats:" */
    const char *option; /* the option that builds it */
    bool built;
} module;

static const module modules[] = {
    {"hfile", "hfile", "CF_WITH_HFILE", CF_HAVE_HFILE},
    {"table", "table", "CF_WITH_TABLES", CF_HAVE_TABLES},
    {"parquet", "parquet", "CF_WITH_PARQUET", CF_HAVE_PARQUET},
    /* Parquet <-> CFiles and tables: both modules. */
    {"convert", NULL, CF_HAVE_PARQUET ? "CF_WITH_TABLES" : "CF_WITH_PARQUET",
     CF_HAVE_PARQUET &&CF_HAVE_TABLES},
};
#define NMODULES (sizeof(modules) / sizeof(modules[0]))

/* Is word a whole word (between spaces or line ends) of text? */
static bool has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p != NULL; p = strstr(p + 1, word)) {
        bool start = p == text || p[-1] == ' ' || p[-1] == '\n' || p[-1] == '"';
        char e = p[n];
        if (start && (e == ' ' || e == '\n' || e == '\0' || e == '"'))
            return true;
    }
    return false;
}

static void not_built_msg(char *buf, size_t cap, const char *cmd, const char *option)
{
    snprintf(buf, cap, "cfile %s: not built in this configuration (%s=OFF)\n", cmd, option);
}

static void test_cli_modules__dispatch(void **state)
{
    (void)state;
    for (size_t i = 0; i < NMODULES; i++) {
        const module *m = &modules[i];
        run r;
        cli(&r, m->cmd, "--help", NULL);
        if (m->built) {
            EXPECT_RC(r, 0);
            assert_non_null(strstr(r.out, "usage: cfile "));
        } else {
            EXPECT_RC(r, CF_EXIT_NOTSUP);
            char want[160];
            not_built_msg(want, sizeof(want), m->cmd, m->option);
            assert_string_equal(r.err, want);
            assert_string_equal(r.out, "");
        }
        done(&r);
        /* `cfile help CMD` the same way. */
        cli(&r, "help", m->cmd, NULL);
        cli_rc(&r, m->built ? 0 : CF_EXIT_NOTSUP);
    }
    /* A command that never existed is still a usage error. */
    run r;
    cli(&r, "hfiles", NULL);
    cli_err(&r, CF_EXIT_USAGE, "unknown command 'hfiles'");
}

static void test_cli_modules__listed_only_when_built(void **state)
{
    (void)state;
    run help, comp, ver;
    cli(&help, "--help", NULL);
    EXPECT_RC(help, 0);
    cli(&comp, "completion", "bash", NULL);
    EXPECT_RC(comp, 0);
    cli(&ver, "--version", NULL);
    EXPECT_RC(ver, 0);
    const char *formats = strstr(ver.out, "formats:");
    assert_non_null(formats);
    /* The completion's list of commands: compgen's first word list. */
    const char *cmds = strstr(comp.out, "compgen -W \"info ");
    assert_non_null(cmds);
    char words[512];
    snprintf(words, sizeof(words), "%.*s", (int)strcspn(cmds + 12, "\""), cmds + 12);
    for (size_t i = 0; i < NMODULES; i++) {
        const module *m = &modules[i];
        char line[64];
        snprintf(line, sizeof(line), "\n  %-10s ", m->cmd);
        assert_int_equal(strstr(help.out, line) != NULL, m->built);
        assert_int_equal(has_word(words, m->cmd), m->built);
        if (m->format != NULL) {
            const char *eol = strchr(formats, '\n');
            char f[256];
            snprintf(f, sizeof(f), "%.*s", (int)(eol - formats), formats);
            assert_int_equal(has_word(f, m->format), m->built);
        }
    }
    done(&help);
    done(&comp);
    done(&ver);
}

/* Parts of commands that are always built but reach into a module. */
static void test_cli_modules__parts(void **state)
{
    (void)state;
    char want[256];
    run r;
    /* `head DIR` is a table scan. */
    char *dir = cli_dir_path("t");
    assert_int_equal(mkdir(dir, 0755), 0);
    cli(&r, "head", dir, NULL);
    if (CF_HAVE_TABLES) {
        assert_int_not_equal(r.rc, CF_EXIT_NOTSUP); /* (an empty directory: no table) */
    } else {
        EXPECT_RC(r, CF_EXIT_NOTSUP);
        snprintf(want, sizeof(want),
                 "cfile head: %s: not built in this configuration (CF_WITH_TABLES=OFF)\n", dir);
        assert_string_equal(r.err, want);
    }
    done(&r);
    /* `bench scan` scans a table. */
    cli(&r, "bench", "scan", dir, NULL);
    if (CF_HAVE_TABLES) {
        assert_int_not_equal(r.rc, CF_EXIT_NOTSUP);
    } else {
        EXPECT_RC(r, CF_EXIT_NOTSUP);
        assert_string_equal(
            r.err, "cfile bench: scan: not built in this configuration (CF_WITH_TABLES=OFF)\n");
    }
    done(&r);
    /* `parquet write` takes a table schema and the tables' row loader. */
    if (CF_HAVE_PARQUET) {
        cli(&r, "parquet", "write", "--help", NULL);
        if (CF_HAVE_TABLES) {
            EXPECT_RC(r, 0);
        } else {
            EXPECT_RC(r, CF_EXIT_NOTSUP);
            assert_string_equal(
                r.err,
                "cfile parquet: write: not built in this configuration (CF_WITH_TABLES=OFF)\n");
        }
        done(&r);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_modules__dispatch),
        cmocka_unit_test(test_cli_modules__listed_only_when_built),
        CLI_DIR_TEST(test_cli_modules__parts),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
