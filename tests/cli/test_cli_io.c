/* The CLI never lies about I/O (issue 14, item 9):
 *  - every command that prints exits 1 with a message naming standard output
 *    when that output cannot be written (`> /dev/full`), text and --json;
 *  - a reader that closes the pipe early ends cfile by SIGPIPE, quietly; with
 *    SIGPIPE ignored, cfile exits 1, quietly;
 *  - a file-size limit (RLIMIT_FSIZE, `ulimit -f`) is "File too large", exit 1,
 *    no temporary left and the old file intact, not death by SIGXFSZ; the same
 *    for a full filesystem (a small tmpfs, when this process may mount one);
 *  - a rewritten file keeps its permission bits (and owner, as root), for
 *    `cfile write` and for the table's own files; a symlink at the output path
 *    is replaced and its target left alone;
 *  - '-' is standard input for input files and standard output for `write`.
 * Signals, rlimits and stdin need a process: those cases run the real binary.
 * The table and HFile cases run in builds with those modules (CF_HAVE_*). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cfile/config.h> /* CF_HAVE_TABLES, CF_HAVE_HFILE */

#include "cli.h"
#include "support_cli.h"
#include "test_common.h"

static char g_mnt[128]; /* a tmpfs mounted by the disk-full test, or "" */

/* The disk-full test's fixture: cli_dir's, and the tmpfs unmounted even when
 * the test fails before it unmounts it itself. */
static int mnt_setup(void **state)
{
    g_mnt[0] = '\0';
    return cli_dir_setup(state);
}

static int mnt_teardown(void **state)
{
    if (g_mnt[0] != '\0')
        umount2(g_mnt, MNT_DETACH);
    return cli_dir_teardown(state);
}

static char *shared(const char *rel)
{
    static char buf[8][512];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, 512, "%s/%s", cf_test_shared_dir(), rel);
    return p;
}

/* Files named like our temporaries ("*.tmp.*") anywhere under dir. */
static int count_tmp(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            n += count_tmp(p);
        else if (strstr(e->d_name, ".tmp.") != NULL)
            n++;
    }
    closedir(d);
    return n;
}

/* ---- the real binary in a child --------------------------------------------------------- */

typedef struct child_opts {
    const char *stdin_path; /* NULL: /dev/null */
    int stdout_fd;          /* -1: /dev/null */
    rlim_t fsize;           /* RLIMIT_FSIZE in bytes; 0: unchanged */
    bool ignore_sigpipe;
} child_opts;

typedef struct child {
    int status; /* waitpid's */
    char *err;  /* stderr, NUL-terminated */
} child;

static void spawn(child *ch, const child_opts *o, char **args)
{
    /* stderr through a pipe: a file would fall under the child's size limit
     * too. The messages are far below the pipe's capacity, so reading after
     * the child ends cannot deadlock. */
    int ep[2];
    assert_int_equal(pipe(ep), 0);
    char *argv[32] = {CF_CLI_BIN};
    int n = 1;
    while (*args != NULL && n < 31)
        argv[n++] = *args++;
    argv[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int in = open(o->stdin_path ? o->stdin_path : "/dev/null", O_RDONLY);
        int out = o->stdout_fd >= 0 ? o->stdout_fd : open("/dev/null", O_WRONLY);
        close(ep[0]);
        if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(ep[1], 2) < 0)
            _exit(120);
        if (o->fsize != 0) {
            struct rlimit rl = {o->fsize, o->fsize};
            if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
                _exit(121);
        }
        signal(SIGPIPE, o->ignore_sigpipe ? SIG_IGN : SIG_DFL);
        signal(SIGXFSZ, SIG_DFL); /* what a shell gives: cfile must cope itself */
        alarm(60);
        execv(argv[0], argv);
        _exit(122);
    }
    close(ep[1]);
    assert_int_equal(waitpid(pid, &ch->status, 0), pid);
    size_t cap = 65536, len = 0;
    ch->err = malloc(cap + 1);
    assert_non_null(ch->err);
    ssize_t got;
    while (len < cap && (got = read(ep[0], ch->err + len, cap - len)) > 0)
        len += (size_t)got;
    close(ep[0]);
    ch->err[len] = '\0';
}

#define SPAWN(ch, o, ...)                                                                          \
    do {                                                                                           \
        char *args_[] = {__VA_ARGS__, NULL};                                                       \
        spawn((ch), (o), args_);                                                                   \
    } while (0)

static void expect_exit(const child *ch, int code)
{
    if (!WIFEXITED(ch->status) || WEXITSTATUS(ch->status) != code)
        fail_msg("child: status 0x%x (%s %d), want exit %d; stderr: %.400s", ch->status,
                 WIFSIGNALED(ch->status) ? "signal" : "exit",
                 WIFSIGNALED(ch->status) ? WTERMSIG(ch->status) : WEXITSTATUS(ch->status), code,
                 ch->err);
}

/* stderr holds want; frees it. */
static void expect_err(child *ch, const char *want)
{
    if (strstr(ch->err, want) == NULL) {
        fprintf(stderr, "child stderr: %s\n", ch->err);
        fail_msg("child stderr lacks '%s'", want);
    }
    free(ch->err);
}

/* ---- fixtures ----------------------------------------------------------------------------- */

static void write_ints(const char *path, int n)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%d\n", i * 7);
    fclose(f);
}

static char *make_column(const char *name, int rows)
{
    char *in = cli_dir_path("ints.jsonl");
    write_ints(in, rows);
    char *out = cli_dir_path(name);
    run r;
    CLI(&r, "write", "--type", "INT32", "--encoding", "PLAIN", "--quiet", in, out);
    cli_rc(&r, 0);
    return out;
}

static void same_bytes(const char *a, const char *b)
{
    size_t al, bl;
    uint8_t *x = cf_test_read_file(a, &al), *y = cf_test_read_file(b, &bl);
    assert_non_null(x);
    assert_non_null(y);
    CF_ASSERT_BYTES(x, al, y, bl);
    free(x);
    free(y);
}

#if CF_HAVE_TABLES
/* A table at t holding the one row (-1, "before"); returns the path of a CSV
 * import of 20,000 rows (about 300 KB) into it. */
static char *table_before(const char *t)
{
    cli_table_create(t, "id INT64 KEY, s STRING");
    run r;
    CLI(&r, "table", "insert", (char *)t, "--row", "id=-1,s=before");
    cli_rc(&r, 0);
    char *csv = cli_dir_path("big.csv");
    FILE *f = fopen(csv, "w");
    assert_non_null(f);
    fputs("id,s\n", f);
    for (int i = 0; i < 20000; i++)
        fprintf(f, "%d,value-%d\n", i, i);
    fclose(f);
    return csv;
}

/* After failed writes: no temporary under root and t reads as table_before left it. */
static void table_unchanged(const char *t, const char *root)
{
    assert_int_equal(count_tmp(root), 0);
    cli_prints("{\"id\":-1,\"s\":\"before\"}\n", "table", "scan", t, "--json", NULL);
}
#endif

/* ---- standard output ---------------------------------------------------------------------- */

static void test_cli_io__stdout_write_errors(void **state)
{
    (void)state;
    char *col = make_column("col.cfile", 3000); /* dump output spans many buffers */
    run r;
#if CF_HAVE_TABLES
    char *t = cli_dir_path("t");
    cli_table_create(t, "id INT64 KEY, s STRING");
    CLI(&r, "table", "insert", t, "--row", "id=1,s=one");
    cli_rc(&r, 0);
#endif
    char *bloom = shared("golden/bloom-100keys-4096b/bloom-100keys-4096b.cfile");
    char *delta = shared("golden-delta/redo-basic/redo-basic.cfile");
    char *dspec = shared("golden-delta/redo-basic/spec.json");
#if CF_HAVE_HFILE
    char *hfile = shared("hfile/riverbed_simple.hfile");
#endif
    char *ints = cli_dir_path("ints.jsonl");
    char *cmds[][12] = {
        {"info", col},
        {"info", "--json", col},
        {"info", "--blocks", col},
        {"info", bloom},
        {"dump", col},
        {"dump", "--json", col},
        {"dump", "--format", "jsonl", col},
        {"dump", "--format", "csv", col},
        {"dump", "--format", "table", col},
        {"dump", bloom},
        {"seek", col, "--ordinal", "5"},
        {"seek", "--json", col, "--ordinal", "5"},
        {"verify", col},
        {"verify", "--json", col},
#if CF_HAVE_TABLES
        {"table", "scan", t},
        {"table", "scan", t, "--json"},
        {"table", "get", t, "1"},
        {"table", "get", t, "--json", "1"},
        {"table", "info", t},
        {"table", "info", t, "--json"},
#endif
        {"bloom", "probe", bloom, "k"},
        {"bloom", "probe", "--json", bloom, "k"},
        {"delta", "dump", delta, "--schema", dspec, "--type", "REDO"},
        {"delta", "dump", "--json", delta, "--schema", dspec, "--type", "REDO"},
#if CF_HAVE_HFILE
        {"hfile", "info", hfile},
        {"hfile", "dump", "--json", hfile},
        {"hfile", "verify", hfile},
        {"hfile", "meta", hfile},
        {"hfile", "meta", "--json", hfile},
        {"hfile", "blocks", hfile},
        {"hfile", "stats", "--json", hfile},
        {"hfile", "check", hfile},
        {"hfile", "bloom", hfile, "row-01"},
        {"info", hfile},
#endif
        {"write", "--type", "INT32", ints, "-"},
        {"--help"},
        {"--version"},
        {"help", "dump"},
        {"dump", "--help"},
        {"completion", "bash"},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        FILE *full = fopen("/dev/full", "w");
        assert_non_null(full);
        run_argv(&r, full, cmds[i]);
        fclose(full);
        if (r.rc != CF_EXIT_FAIL ||
            strstr(r.err, "cfile: error writing to standard output: No space left on device\n") ==
                NULL)
            fail_msg("cfile %s %s: exit %d, stderr: %.300s", cmds[i][0],
                     cmds[i][1] ? cmds[i][1] : "", r.rc, r.err);
        done(&r);
    }
    /* The same commands into a working stream still succeed. */
    CLI(&r, "dump", "--count", "2", "--format", "csv", col);
    cli_out_is(&r, 0, "row,value\n0,0\n1,7\n");
}

static void test_cli_io__closed_pipe(void **state)
{
    (void)state;
    char *col = make_column("col.cfile", 3000);
    for (int ignore = 0; ignore < 2; ignore++) {
        int p[2];
        assert_int_equal(pipe(p), 0);
        close(p[0]); /* the reader is gone before the first write */
        child_opts o = {NULL, p[1], 0, ignore == 1};
        child ch;
        SPAWN(&ch, &o, "dump", col);
        close(p[1]);
        if (ignore == 0) {
            /* Like cat: killed by SIGPIPE, nothing said. */
            assert_true(WIFSIGNALED(ch.status));
            assert_int_equal(WTERMSIG(ch.status), SIGPIPE);
        } else {
            /* Output incomplete, so not success; but quiet. */
            expect_exit(&ch, CF_EXIT_FAIL);
        }
        assert_string_equal(ch.err, "");
        free(ch.err);
    }
}

/* ---- file-size limit and full disk -------------------------------------------------------- */

static void test_cli_io__file_size_limit(void **state)
{
    (void)state;
    char *big = cli_dir_path("big.jsonl");
    write_ints(big, 20000); /* 80 KB of PLAIN INT32 */
    char *old = make_column("old.cfile", 10);
    char *keep = cli_dir_path("keep.cfile");
    copy_file(old, keep);
    run r;
    child_opts o = {NULL, -1, 16384, false};
    child ch;
    /* A new file: nothing at the path, no temporary. */
    SPAWN(&ch, &o, "write", "--type", "INT32", "--encoding", "PLAIN", big,
          cli_dir_path("new.cfile"));
    expect_exit(&ch, CF_EXIT_FAIL);
    expect_err(&ch, "File too large");
    assert_int_equal(access(cli_dir_path("new.cfile"), F_OK), -1);
    /* Rewriting an existing file: the old one stays, whole. */
    SPAWN(&ch, &o, "write", "--type", "INT32", "--encoding", "PLAIN", big, old);
    expect_exit(&ch, CF_EXIT_FAIL);
    expect_err(&ch, "File too large");
    same_bytes(keep, old);
    CLI(&r, "dump", "--count", "1", "--format", "csv", old);
    cli_out_is(&r, 0, "row,value\n0,0\n");
    assert_int_equal(count_tmp(cli_dir), 0);
#if CF_HAVE_TABLES
    /* A table: import over the limit fails the same way; the table still
     * reads as before; so does an insert under a limit smaller than any file. */
    char *t = cli_dir_path("t");
    char *csv = table_before(t);
    SPAWN(&ch, &o, "table", "import", t, csv);
    expect_exit(&ch, CF_EXIT_FAIL);
    expect_err(&ch, "File too large");
    child_opts tiny = {NULL, -1, 64, false};
    SPAWN(&ch, &tiny, "table", "insert", t, "--row", "id=5,s=x");
    expect_exit(&ch, CF_EXIT_FAIL);
    expect_err(&ch, "File too large");
    table_unchanged(t, cli_dir);
#endif
}

static void test_cli_io__disk_full(void **state)
{
    (void)state;
    snprintf(g_mnt, sizeof g_mnt, "%s/small", cli_dir);
    assert_int_equal(mkdir(g_mnt, 0755), 0);
    if (mount("tmpfs", g_mnt, "tmpfs", 0, "size=96k") != 0) {
        int e = errno;
        g_mnt[0] = '\0';
        /* Not root, or no CAP_SYS_ADMIN (CI containers): the rlimit test covers
         * the same write paths with EFBIG. */
        printf("skipped: cannot mount a small tmpfs: %s\n", strerror(e));
        skip();
    }
    char big[300], old[300];
    snprintf(big, sizeof big, "%s/big.jsonl", cli_dir); /* the inputs live outside */
    write_ints(big, 50000);                             /* 200 KB of PLAIN INT32 */
    write_ints(cli_dir_path("ints.jsonl"), 10);
    snprintf(old, sizeof old, "%s/old.cfile", g_mnt);
    run r;
    CLI(&r, "write", "--type", "INT32", "--quiet", cli_dir_path("ints.jsonl"), old);
    cli_rc(&r, 0);
    char *copy = cli_dir_path("old-copy.cfile");
    copy_file(old, copy);
    CLI(&r, "write", "--type", "INT32", "--encoding", "PLAIN", big, old);
    cli_err(&r, CF_EXIT_FAIL, "No space left on device");
    same_bytes(copy, old);
    assert_int_equal(count_tmp(g_mnt), 0);
#if CF_HAVE_TABLES
    char t[300];
    snprintf(t, sizeof t, "%s/t", g_mnt);
    char *csv = table_before(t);
    CLI(&r, "table", "import", t, csv);
    cli_err(&r, CF_EXIT_FAIL, "No space left on device");
    table_unchanged(t, g_mnt);
#endif
    assert_int_equal(umount2(g_mnt, 0), 0);
    g_mnt[0] = '\0';
}

/* ---- permissions and symlinks ------------------------------------------------------------- */

static mode_t mode_of(const char *p)
{
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    return st.st_mode;
}

#if CF_HAVE_TABLES
static void chmod_all(const char *dir, mode_t m)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        assert_int_equal(lstat(p, &st), 0);
        if (S_ISDIR(st.st_mode))
            chmod_all(p, m);
        else if (S_ISREG(st.st_mode))
            assert_int_equal(chmod(p, m), 0);
    }
    closedir(d);
}
#endif

static void test_cli_io__rewrite_keeps_mode(void **state)
{
    (void)state;
    char *in = cli_dir_path("ints.jsonl");
    write_ints(in, 5);
    char *f = cli_dir_path("f.cfile");
    run r;
    CLI(&r, "write", "--type", "INT32", "--quiet", in, f);
    cli_rc(&r, 0);
    static const mode_t modes[] = {0600, 0640, 0751, 0444};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        assert_int_equal(chmod(f, modes[i]), 0);
        CLI(&r, "write", "--type", "INT64", "--quiet", in, f);
        cli_rc(&r, 0);
        assert_int_equal(mode_of(f) & 07777, modes[i]);
        CLI(&r, "info", "--json", f);
        cli_out(&r, 0, "\"INT64\"");
    }
    if (geteuid() == 0) {
        /* Root rewriting someone's file leaves it theirs. */
        assert_int_equal(chown(f, 1234, 5678), 0);
        assert_int_equal(chmod(f, 0600), 0);
        CLI(&r, "write", "--type", "INT32", "--quiet", in, f);
        cli_rc(&r, 0);
        struct stat st;
        assert_int_equal(stat(f, &st), 0);
        assert_int_equal(st.st_uid, 1234);
        assert_int_equal(st.st_gid, 5678);
        assert_int_equal(st.st_mode & 07777, 0600);
    }

#if CF_HAVE_TABLES
    /* A table's own files: every rewrite keeps what the user set. */
    char *t = cli_dir_path("t");
    cli_table_create(t, "id INT64 KEY, s STRING");
    CLI(&r, "table", "insert", t, "--row", "id=1,s=a");
    cli_rc(&r, 0);
    CLI(&r, "table", "flush", t); /* a TABLET to keep the mode of (inserts go to the log) */
    cli_rc(&r, 0);
    chmod_all(t, 0600);
    CLI(&r, "table", "insert", t, "--row", "id=2,s=b");
    cli_rc(&r, 0);
    CLI(&r, "table", "update", t, "--key", "1", "--set", "s=c");
    cli_rc(&r, 0);
    char *tablet = cli_dir_path("t/TABLET");
    char *manifest = cli_dir_path("t/MANIFEST");
    if (access(tablet, F_OK) == 0)
        assert_int_equal(mode_of(tablet) & 07777, 0600);
    assert_int_equal(mode_of(manifest) & 07777, 0600);
    CLI(&r, "table", "compact", t);
    cli_rc(&r, 0);
    if (access(tablet, F_OK) == 0)
        assert_int_equal(mode_of(tablet) & 07777, 0600);
    cli_prints("{\"id\":1,\"s\":\"c\"}\n{\"id\":2,\"s\":\"b\"}\n", "table", "scan", t, "--json",
               NULL);
#endif
}

#if CF_HAVE_TABLES
/* Files a table adds later take the mode of its metadata, its new directories
 * that of the table's directory: the first TABLET (written by the first op,
 * which records the log segment; by a flush it used to get 0644), the log
 * directory and segments, a flushed or merged rowset's directory and
 * files, and new log segments. A table made private stays private. */
static void check_modes(const char *dir, mode_t file, mode_t d)
{
    DIR *dd = opendir(dir);
    assert_non_null(dd);
    struct dirent *e;
    while ((e = readdir(dd)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "LOCK") == 0)
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        assert_int_equal(lstat(p, &st), 0);
        if ((st.st_mode & 07777) != (S_ISDIR(st.st_mode) ? d : file))
            fail_msg("%s: mode %o", p, (unsigned)(st.st_mode & 07777));
        if (S_ISDIR(st.st_mode))
            check_modes(p, file, d);
    }
    closedir(dd);
}

static void test_cli_io__new_table_files_keep_mode(void **state)
{
    (void)state;
    char *t = cli_dir_path("t");
    run r;
    cli_table_create(t, "id INT64 KEY, s STRING");
    chmod_all(t, 0600);
    assert_int_equal(chmod(t, 0710), 0);
    assert_int_not_equal(access(cli_dir_path("t/TABLET"), F_OK), 0);
    /* the first op writes the first TABLET (it records the log segment), the
     * log directory and its first segment */
    CLI(&r, "table", "insert", t, "--row", "id=1,s=a");
    cli_rc(&r, 0);
    check_modes(t, 0600, 0710);
    assert_int_equal(access(cli_dir_path("t/TABLET"), F_OK), 0);
    for (int i = 2; i < 8; i++) { /* flushes, a merge after the fourth rowset */
        char row[64];
        snprintf(row, sizeof row, "id=%d,s=x", i);
        CLI(&r, "table", "insert", t, "--row", row);
        cli_rc(&r, 0);
        CLI(&r, "table", "flush", t);
        cli_rc(&r, 0);
        check_modes(t, 0600, 0710);
    }
    assert_int_equal(mode_of(cli_dir_path("t/TABLET")) & 07777, 0600);
    /* an update of a flushed row, then a flush: a REDO DeltaFile added to an
     * existing rowset (it used to get 0644) */
    CLI(&r, "table", "update", t, "--key", "3", "--set", "s=y");
    cli_rc(&r, 0);
    CLI(&r, "table", "flush", t);
    cli_rc(&r, 0);
    check_modes(t, 0600, 0710);
    CLI(&r, "table", "compact", t);
    cli_rc(&r, 0);
    check_modes(t, 0600, 0710);
    /* a new table's log directory takes the table directory's mode */
    char *u = cli_dir_path("u");
    assert_int_equal(mkdir(u, 0750), 0);
    assert_int_equal(chmod(u, 0750), 0);
    cli_table_create(u, "id INT64 KEY");
    chmod_all(u, 0640);
    CLI(&r, "table", "insert", u, "--row", "id=1");
    cli_rc(&r, 0);
    CLI(&r, "table", "flush", u);
    cli_rc(&r, 0);
    check_modes(u, 0640, 0750);
    cli_prints("id,s\n1,a\n2,x\n3,y\n4,x\n5,x\n6,x\n7,x\n", "table", "scan", t, "--format", "csv",
               NULL);
}
#endif

static void test_cli_io__symlinked_output_is_replaced(void **state)
{
    (void)state;
    char *in = cli_dir_path("ints.jsonl");
    write_ints(in, 5);
    char *target = cli_dir_path("target.cfile");
    char *link = cli_dir_path("link.cfile");
    run r;
    CLI(&r, "write", "--type", "INT32", "--quiet", in, target);
    cli_rc(&r, 0);
    char *copy = cli_dir_path("target-copy.cfile");
    copy_file(target, copy);
    assert_int_equal(chmod(target, 0600), 0);
    assert_int_equal(symlink("target.cfile", link), 0);
    CLI(&r, "write", "--type", "INT64", "--quiet", in, link);
    cli_rc(&r, 0);
    /* The link became a file of its own; the target is untouched. */
    assert_true(S_ISREG(mode_of(link)));
    same_bytes(copy, target);
    assert_int_equal(mode_of(target) & 07777, 0600);
    CLI(&r, "dump", "--json", link);
    cli_out(&r, 0, "\"type\":\"INT64\"");
    assert_int_equal(count_tmp(cli_dir), 0);
}

/* `cfile CMD... IN OUT` (in-process) and `cfile CMD... - OUT2` (the real binary,
 * IN on standard input) both exit 0 and write the same bytes. cmd is
 * NULL-terminated, at most 8 words. */
static void same_from_stdin(const char *in, char **cmd)
{
    static int k;
    char name[32];
    snprintf(name, sizeof name, "by-path-%d", k);
    char *by_path = cli_dir_path(name);
    snprintf(name, sizeof name, "by-stdin-%d", k++);
    char *by_stdin = cli_dir_path(name);
    char *args[12];
    size_t n = 0;
    while (cmd[n] != NULL && n < 8) {
        args[n] = cmd[n];
        n++;
    }
    args[n] = (char *)in;
    args[n + 1] = by_path;
    args[n + 2] = NULL;
    run r;
    run_argv(&r, NULL, args);
    cli_rc(&r, 0);
    args[n] = "-";
    args[n + 1] = by_stdin;
    child_opts co = {in, -1, 0, false};
    child ch;
    spawn(&ch, &co, args);
    expect_exit(&ch, 0);
    free(ch.err);
    same_bytes(by_path, by_stdin);
}

/* ---- '-' ---------------------------------------------------------------------------------- */

static void test_cli_io__dash_is_stdin_and_stdout(void **state)
{
    (void)state;
    char *in = cli_dir_path("ints.jsonl");
    write_ints(in, 100);
    char *by_path = cli_dir_path("by-path.cfile");
    run r;
    CLI(&r, "write", "--type", "INT32", "--quiet", in, by_path);
    cli_rc(&r, 0);

    /* OUT '-': the same bytes on stdout; the summary on stderr. */
    char *to_stdout = cli_dir_path("stdout.cfile");
    FILE *o = fopen(to_stdout, "wb");
    assert_non_null(o);
    char *args[] = {"write", "--type", "INT32", in, "-", NULL};
    run_argv(&r, o, args);
    fclose(o);
    cli_err(&r, 0, "wrote standard output: 100 rows");
    same_bytes(by_path, to_stdout);
    assert_int_equal(access(cli_dir_path("-"), F_OK), -1);
    assert_int_equal(access("-", F_OK), -1);

    /* INPUT '-' (the real binary, stdin from a file), for write, bloom write
     * KEYS '-' and write --spec '-'. */
    char *keys = cli_dir_path("keys.txt");
    write_str(keys, "a\nb\nc\n");
    char *spec = cli_dir_path("spec.json");
    write_str(spec, "{\"type\": \"INT32\", \"values\": [1, 2, 3]}");
    char *write_int32[] = {"write", "--type", "INT32", "--quiet", NULL};
    char *bloom_write[] = {"bloom", "write", NULL};
    char *write_spec[] = {"write", "--spec", NULL};
    same_from_stdin(in, write_int32);
    same_from_stdin(keys, bloom_write);
    same_from_stdin(spec, write_spec);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        CLI_DIR_TEST(test_cli_io__stdout_write_errors),
        CLI_DIR_TEST(test_cli_io__closed_pipe),
        CLI_DIR_TEST(test_cli_io__file_size_limit),
        cmocka_unit_test_setup_teardown(test_cli_io__disk_full, mnt_setup, mnt_teardown),
        CLI_DIR_TEST(test_cli_io__rewrite_keeps_mode),
#if CF_HAVE_TABLES
        CLI_DIR_TEST(test_cli_io__new_table_files_keep_mode),
#endif
        CLI_DIR_TEST(test_cli_io__symlinked_output_is_replaced),
        CLI_DIR_TEST(test_cli_io__dash_is_stdin_and_stdout),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
