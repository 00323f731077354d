/* Shared by the CLI tests: running `cfile` in-process (cf_cli_main) with its
 * output captured, and writing small input files. */
#ifndef CF_TEST_SUPPORT_CLI_H
#define CF_TEST_SUPPORT_CLI_H

#include <stddef.h>
#include <stdio.h>

/* One run of the tool: exit code and captured stdout/stderr (NUL-terminated). */
typedef struct run {
    int rc;
    char *out; /* NULL when stdout went to a caller's stream */
    size_t out_len;
    char *err;
    size_t err_len;
} run;

/* Run `cfile args...` (args NULL-terminated, at most 30). stdout goes to out_to
 * when it is not NULL, else it is captured in r->out. */
void run_argv(run *r, FILE *out_to, char **args);
/* Run `cfile a1 a2 ... NULL`, capturing both streams. */
void cli(run *r, ...);
#define CLI(r, ...)                                                                                \
    do {                                                                                           \
        char *args_[] = {__VA_ARGS__, NULL};                                                       \
        run_argv((r), NULL, args_);                                                                \
    } while (0)
/* Free what a run captured. */
void done(run *r);

/* The checks most runs end with, then done(r): the exit code is rc (cli_rc), and
 * also stdout (cli_out) or stderr (cli_err) contains needle. */
void cli_rc(run *r, int rc);
void cli_out(run *r, int rc, const char *needle);
void cli_err(run *r, int rc, const char *needle);
/* text holds each of the needles that follow (NULL-terminated). */
void cli_has(const char *text, ...);
/* The exit code is rc and stdout holds each of the needles that follow
 * (NULL-terminated); then done(r). */
void cli_out_has(run *r, int rc, ...);
/* The exit code is rc and stdout is exactly want; then done(r). */
void cli_out_is(run *r, int rc, const char *want);
/* `cfile ARGS...` (NULL-terminated, at most 30) exits 0 printing exactly want. */
void cli_prints(const char *want, ...);

#define EXPECT_RC(r, want)                                                                         \
    do {                                                                                           \
        if ((r).rc != (want))                                                                      \
            fail_msg("exit %d, want %d; stdout: %.300s; stderr: %.300s", (r).rc, (want),           \
                     (r).out ? (r).out : "", (r).err);                                             \
    } while (0)

/* `cfile table create DIR --schema SCHEMA`, which must succeed (support_table.c:
 * builds with tables only). */
void cli_table_create(const char *dir, const char *schema);
/* A new table at cli_dir_path(name) with schema, loaded by `cfile table import`
 * from NAME.csv holding csv (its header first); the import must succeed, with
 * stdout holding want_out when that is not NULL. Returns the table's path
 * (support_table.c, as above). */
char *cli_table_import(const char *name, const char *schema, const char *csv, const char *want_out);

/* The scratch directory of one test: cli_dir_setup (a cmocka per-test setup)
 * makes a fresh /tmp/cf_cli_XXXXXX in cli_dir; cli_dir_teardown removes it with
 * all it holds. cli_dir_path(name) is "cli_dir/name" in one of 16 rotating
 * buffers, so one call may take several. */
extern char cli_dir[64];
int cli_dir_setup(void **state);
int cli_dir_teardown(void **state);
char *cli_dir_path(const char *name);
/* A test that runs in its own fresh cli_dir. */
#define CLI_DIR_TEST(f) cmocka_unit_test_setup_teardown(f, cli_dir_setup, cli_dir_teardown)

/* dir's entries other than . and .., sorted and joined with spaces, are want
 * ("" for none, "-" for no directory at dir); at most 16 of them. */
void cli_dir_holds(const char *dir, const char *want);

/* Write len bytes (or a string) to path, failing the test on error. */
void write_text(const char *path, const char *text, size_t len);
void write_str(const char *path, const char *text);
/* A copy of the file at from (which must exist), at to. */
void copy_file(const char *from, const char *to);

#endif
