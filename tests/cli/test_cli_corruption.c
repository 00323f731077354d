/* `cfile verify` on damaged files, end to end (the hardening issue's CLI check):
 *
 *  - small checksummed files written by `cfile write`, one per encoding (PLAIN,
 *    BIT_SHUFFLE, RLE, PREFIX, DICT), codec (snappy, lz4, zlib), nullable,
 *    arrays, with the positional and the value index: every single-bit flip
 *    anywhere in each file makes `cfile verify` exit non-zero (100% asserted);
 *  - the same files without checksums: no flip makes `cfile verify` or
 *    `cfile dump` crash or hang; they exit 0, 1 or 3, never 2 or a signal.
 *
 * Every flip runs the command in-process (cf_cli_main on the flipped file on
 * disk: the real argument parsing, open and output paths), which keeps the
 * hundreds of thousands of runs fast also under ASan; a sample of the flips
 * also runs the real `cfile` binary in a child process under alarm(), so a
 * signal or a hang of the executable itself is caught too. The test prints
 * how many flips it checked.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "test_common.h"

/* One file: what `cfile write` gets. */
typedef struct spec {
    const char *name;
    const char *type;
    const char *encoding;
    const char *compression;
    bool nullable;
    bool array;
    bool validx; /* sorted values and a value index */
    int rows;
} spec;

/* Small (1 to 3 blocks of 512 bytes), every layout the issue lists. Values
 * repeat so the codecs compress; validx files are sorted. */
static const spec specs[] = {
    {"int32-plain", "INT32", "PLAIN", "NONE", false, false, false, 150},
    {"int32-bitshuffle", "INT32", "BIT_SHUFFLE", "NONE", false, false, false, 200},
    {"int32-rle", "INT32", "RLE", "NONE", false, false, false, 200},
    {"bool-rle-nullable", "BOOL", "RLE", "NONE", true, false, false, 300},
    {"int64-plain-validx", "INT64", "PLAIN", "NONE", false, false, true, 90},
    {"string-prefix-validx", "STRING", "PREFIX", "NONE", false, false, true, 70},
    {"string-dict", "STRING", "DICT", "NONE", false, false, false, 120},
    {"int32-plain-snappy", "INT32", "PLAIN", "SNAPPY", false, false, false, 200},
    {"int32-plain-lz4", "INT32", "PLAIN", "LZ4", false, false, false, 200},
    {"int32-plain-zlib", "INT32", "PLAIN", "ZLIB", false, false, false, 200},
    {"string-prefix-lz4", "STRING", "PREFIX", "LZ4", false, false, false, 80},
    {"string-dict-zlib-nullable", "STRING", "DICT", "ZLIB", true, false, false, 120},
    {"double-bitshuffle-snappy-nullable", "DOUBLE", "BIT_SHUFFLE", "SNAPPY", true, false, false,
     100},
    {"array-int32-plain-nullable", "INT32", "PLAIN", "NONE", true, true, false, 50},
    {"array-string-prefix", "STRING", "PREFIX", "NONE", false, true, false, 40},
    {"array-int64-rle-snappy-nullable", "INT64", "RLE", "SNAPPY", true, true, false, 60},
};
#define NSPECS (sizeof specs / sizeof specs[0])

/* One in SAMPLE flips also runs the real binary: ~16 per test. A fork+exec
 * costs milliseconds, above 100 ms for an ASan binary on a loaded machine, so
 * the in-process runs carry the 100% claim and the sample checks the binary. */
enum { SAMPLE = 2999, ALARM_SECONDS = 30 };

static char dir[64];
static FILE *devnull;

static void put_value(FILE *f, const spec *s, int i)
{
    int v = s->validx ? i * 2 : (i * 7) % 23;
    if (strcmp(s->type, "STRING") == 0)
        fprintf(f, s->validx ? "\"k%05d\"" : "\"val-%d\"", v);
    else if (strcmp(s->type, "BOOL") == 0)
        fputs((i / 3) & 1 ? "true" : "false", f);
    else if (strcmp(s->type, "DOUBLE") == 0)
        fprintf(f, "%d.5", v);
    else
        fprintf(f, "%d", v);
}

/* The JSON lines input of a spec: NULLs every 5th value when nullable; arrays
 * of 0..3 elements, every 6th cell NULL when nullable. */
static void write_input(const spec *s, const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    int elem = 0;
    for (int i = 0; i < s->rows; i++) {
        if (s->array) {
            if (s->nullable && i % 6 == 5) {
                fputs("null\n", f);
                continue;
            }
            fputc('[', f);
            for (int k = 0; k < i % 4; k++, elem++) {
                if (k)
                    fputc(',', f);
                if (s->nullable && elem % 5 == 3)
                    fputs("null", f);
                else
                    put_value(f, s, elem);
            }
            fputs("]\n", f);
        } else {
            if (s->nullable && i % 5 == 3)
                fputs("null", f);
            else
                put_value(f, s, i);
            fputc('\n', f);
        }
    }
    assert_int_equal(fclose(f), 0);
}

/* Run `cfile args...` in-process, output discarded (diagnostics to `err`);
 * returns its exit code. */
static int cli_argv_err(int argc, char **argv, FILE *err)
{
    char *full[24];
    assert_true(argc + 2 <= 24);
    full[0] = "cfile";
    for (int i = 0; i < argc; i++)
        full[i + 1] = argv[i];
    full[argc + 1] = NULL;
    return cf_cli_main(argc + 1, full, devnull, err);
}

static int cli_argv(int argc, char **argv)
{
    return cli_argv_err(argc, argv, devnull);
}

/* Write the file of spec s (checksums or not) with `cfile write`; returns its path. */
static const char *write_file(const spec *s, bool checksums)
{
    static char path[256];
    char in[256];
    snprintf(in, sizeof in, "%s/%s.jsonl", dir, s->name);
    snprintf(path, sizeof path, "%s/%s%s.cfile", dir, s->name, checksums ? "" : "-nocrc");
    write_input(s, in);
    char *argv[16] = {"write",         "--quiet",
                      "--type",        (char *)s->type,
                      "--encoding",    (char *)s->encoding,
                      "--compression", (char *)s->compression,
                      "--block-size",  "512"};
    int argc = 10;
    if (s->nullable)
        argv[argc++] = "--nullable";
    if (s->array)
        argv[argc++] = "--array";
    if (s->validx)
        argv[argc++] = "--validx";
    if (!checksums)
        argv[argc++] = "--no-checksums";
    argv[argc++] = in;
    argv[argc++] = path;
    int rc = cli_argv_err(argc, argv, stderr);
    if (rc != 0)
        fail_msg("%s: cfile write exited %d", s->name, rc);
    /* the intact file verifies */
    char *vargv[] = {"verify", path};
    assert_int_equal(cli_argv(2, vargv), 0);
    return path;
}

/* Run the real binary on `path`; how it ended, as waitpid says. */
static int exec_cli(const char *cmd, const char *path)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        alarm(ALARM_SECONDS); /* survives exec: a hang ends in SIGALRM */
        execl(CF_CLI_BIN, "cfile", cmd, path, (char *)NULL);
        _exit(127);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void flip(int fd, off_t off, uint8_t orig, unsigned bit)
{
    uint8_t b = (uint8_t)(orig ^ (1u << bit));
    assert_int_equal(pwrite(fd, &b, 1, off), 1);
}

static void restore(int fd, off_t off, uint8_t orig)
{
    assert_int_equal(pwrite(fd, &orig, 1, off), 1);
}

static uint8_t *slurp(const char *path, size_t *len)
{
    uint8_t *p = cf_test_read_file(path, len);
    assert_non_null(p);
    assert_true(*len > 0);
    return p;
}

/* What a test checks after each flip of a byte's bit in the file at path: the
 * in-process run every time, the real binary too when sample. */
typedef void (*flip_check)(void *ctx, const spec *s, const char *path, size_t off, unsigned bit,
                           bool sample);

/* Write spec s's file (checksums or not), then flip each bit of it in turn,
 * calling check after each flip and restoring the byte after. *flips counts
 * the flips across calls (one in SAMPLE is a sample). Returns the file's size. */
static size_t flip_every_bit(const spec *s, bool checksums, flip_check check, void *ctx,
                             size_t *flips)
{
    const char *path = write_file(s, checksums);
    size_t len;
    uint8_t *orig = slurp(path, &len);
    int fd = open(path, O_WRONLY);
    assert_true(fd >= 0);
    alarm(ALARM_SECONDS * 4); /* an in-process hang fails the test too */
    for (size_t off = 0; off < len; off++) {
        for (unsigned bit = 0; bit < 8; bit++) {
            flip(fd, (off_t)off, orig[off], bit);
            check(ctx, s, path, off, bit, ++*flips % SAMPLE == 0);
            restore(fd, (off_t)off, orig[off]);
        }
    }
    alarm(0);
    close(fd);
    free(orig);
    return len;
}

typedef struct verify_seen {
    size_t missed; /* flips of the current file that verify passed */
    char first[64];
    size_t execs;
} verify_seen;

/* `cfile verify` on a checksummed file exits non-zero, and never 2, after any flip. */
static void verify_fails(void *ctx, const spec *s, const char *path, size_t off, unsigned bit,
                         bool sample)
{
    verify_seen *v = ctx;
    char *argv[] = {"verify", (char *)path};
    int rc = cli_argv(2, argv);
    if (rc == 0 && v->missed++ == 0)
        snprintf(v->first, sizeof v->first, "byte %zu bit %u", off, bit);
    if (rc == 2)
        fail_msg("%s: flip at byte %zu bit %u: verify says usage error", s->name, off, bit);
    if (sample) {
        int st = exec_cli("verify", path);
        if (!WIFEXITED(st) || WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 2)
            fail_msg("%s: flip at byte %zu bit %u: the cfile binary %s %d", s->name, off, bit,
                     WIFEXITED(st) ? "exited" : "died of signal",
                     WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        v->execs++;
    }
}

static void test_cli_corruption__every_flip_fails_verify(void **state)
{
    (void)state;
    size_t flips = 0;
    verify_seen v = {0};
    for (size_t i = 0; i < NSPECS; i++) {
        const spec *s = &specs[i];
        v.missed = 0;
        v.first[0] = '\0';
        size_t len = flip_every_bit(s, true, verify_fails, &v, &flips);
        if (v.missed)
            fail_msg("%s (%zu bytes): %zu of %zu single-bit flips pass `cfile verify`; first: %s",
                     s->name, len, v.missed, len * 8, v.first);
    }
    printf("cfile verify: %zu single-bit flips in %zu checksummed files, 100%% detected "
           "(%zu also through the binary)\n",
           flips, NSPECS, v.execs);
}

/* `cfile verify` and `cfile dump` on a file without checksums exit 0, 1 or 3
 * after any flip: never 2, a signal or a hang. ctx counts the binary's runs. */
static void verify_and_dump_end_well(void *ctx, const spec *s, const char *path, size_t off,
                                     unsigned bit, bool sample)
{
    size_t *execs = ctx;
    static const char *const cmds[] = {"verify", "dump"};
    for (size_t c = 0; c < 2; c++) {
        char *argv[] = {(char *)cmds[c], (char *)path};
        int rc = cli_argv(2, argv);
        if (rc != 0 && rc != 1 && rc != 3)
            fail_msg("%s: flip at byte %zu bit %u: `cfile %s` exited %d", s->name, off, bit,
                     cmds[c], rc);
    }
    for (size_t c = 0; sample && c < 2; c++) {
        int st = exec_cli(cmds[c], path);
        int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        if (rc != 0 && rc != 1 && rc != 3)
            fail_msg("%s: flip at byte %zu bit %u: the cfile binary (%s) %s %d", s->name, off, bit,
                     cmds[c], WIFEXITED(st) ? "exited" : "died of signal",
                     WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        (*execs)++;
    }
}

static void test_cli_corruption__flips_without_checksums_are_safe(void **state)
{
    (void)state;
    size_t flips = 0, execs = 0;
    for (size_t i = 0; i < NSPECS; i++)
        flip_every_bit(&specs[i], false, verify_and_dump_end_well, &execs, &flips);
    printf("cfile verify/dump: %zu single-bit flips in %zu files without checksums, none "
           "crashed or hung (%zu runs of the binary)\n",
           flips, NSPECS, execs);
}

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/cf_cli_corrupt_XXXXXX");
    if (mkdtemp(dir) == NULL)
        return -1;
    devnull = fopen("/dev/null", "w");
    return devnull == NULL ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    fclose(devnull);
    return cf_test_rm_rf(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cli_corruption__every_flip_fails_verify, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_cli_corruption__flips_without_checksums_are_safe,
                                        setup, teardown),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
