/* Golden files written by Apache Kudu (../shared/golden/README.md): for every case,
 * read it with `cfile dump --json` and compare with expected.json, replay seeks.json
 * with `cfile seek --json`, check it with `cfile verify` (which must find as many
 * blocks as index.json lists), and write spec.json with `cfile write --spec` and
 * compare the bytes with Kudu's file. The v1 corpus (../shared/golden-v1) is read and sought
 * only: we never write v1.
 *
 * A step the library reports as not supported (exit code 3, CF_ENOTSUP) makes the
 * case SKIP with the library's message; a skip is never a pass. Any FAIL fails the
 * test. Summary lines: `golden: N passed, M failed, K skipped`, then the skip
 * reasons grouped.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"
#include "test_common.h"

enum { R_PASS = 0, R_SKIP = 1, R_FAIL = 2 };

typedef struct outcome {
    int result;
    char why[1024];
} outcome;

static void note(outcome *o, int result, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Keep the worst result and the first reason for it. */
static void note(outcome *o, int result, const char *fmt, ...)
{
    if (result < o->result || (result == o->result && o->why[0] != '\0'))
        return;
    o->result = result;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->why, sizeof(o->why), fmt, ap);
    va_end(ap);
}

/* ---- running the CLI in-process ------------------------------------------------------- */

typedef struct run {
    int rc;
    char *out;
    size_t out_len;
    char *err;
    size_t err_len;
} run;

static void run_cli(run *r, int argc, char **argv)
{
    FILE *out = open_memstream(&r->out, &r->out_len);
    FILE *err = open_memstream(&r->err, &r->err_len);
    assert_non_null(out);
    assert_non_null(err);
    r->rc = cf_cli_main(argc, argv, out, err);
    fclose(out);
    fclose(err);
    /* One line is enough for a reason. */
    char *nl = strchr(r->err, '\n');
    if (nl != NULL)
        *nl = '\0';
}

static void run_dispose(run *r)
{
    free(r->out);
    free(r->err);
}

/* The library's message without "cfile: <path>: ". */
static const char *reason_of(const char *err)
{
    const char *p = err;
    if (strncmp(p, "cfile: ", 7) == 0)
        p += 7;
    const char *q = strstr(p, ": ");
    return q != NULL && q[2] != '\0' ? q + 2 : p;
}

/* ---- comparing JSON -------------------------------------------------------------------- */

static bool num_equal(const cf_json *a, const cf_json *b, bool float32)
{
    if (cf_json_is_integer(a) && cf_json_is_integer(b)) {
        const char *x = a->str, *y = b->str;
        if (strcmp(x, "-0") == 0)
            x = "0";
        if (strcmp(y, "-0") == 0)
            y = "0";
        return strcmp(x, y) == 0;
    }
    if (float32) {
        float fa = strtof(a->str, NULL), fb = strtof(b->str, NULL);
        return memcmp(&fa, &fb, sizeof(fa)) == 0;
    }
    double da = strtod(a->str, NULL), db = strtod(b->str, NULL);
    return memcmp(&da, &db, sizeof(da)) == 0;
}

static void show(char *buf, size_t cap, const cf_json *v)
{
    FILE *f = fmemopen(buf, cap, "w");
    if (f == NULL) {
        snprintf(buf, cap, "?");
        return;
    }
    cf_jw w;
    cf_jw_init(&w, f);
    cf_jw_value(&w, v);
    fputc('\0', f);
    fclose(f);
    buf[cap - 1] = '\0';
    if (strlen(buf) > 120)
        strcpy(buf + 117, "...");
}

/* Is `got` equal to `want`? On a difference, *where names its path. */
static bool json_equal(const cf_json *want, const cf_json *got, bool float32, char *where,
                       size_t cap)
{
    bool ok = want->kind == got->kind; /* true and false are kinds of their own */
    if (ok) {
        switch (want->kind) {
        case CF_JSON_NULL:
        case CF_JSON_TRUE:
        case CF_JSON_FALSE: break;
        case CF_JSON_NUMBER: ok = num_equal(want, got, float32); break;
        case CF_JSON_STRING:
            ok = want->len == got->len && memcmp(want->str, got->str, want->len) == 0;
            break;
        case CF_JSON_ARRAY:
            if (want->n != got->n) {
                snprintf(where, cap, "%zu elements, want %zu", got->n, want->n);
                return false;
            }
            for (size_t i = 0; i < want->n; i++) {
                if (!json_equal(&want->items[i], &got->items[i], float32, where, cap)) {
                    char tail[512];
                    snprintf(tail, sizeof(tail), "%s", where);
                    snprintf(where, cap, "[%zu]%s%s", i,
                             tail[0] == '[' || tail[0] == '.' ? "" : ": ", tail);
                    return false;
                }
            }
            return true;
        case CF_JSON_OBJECT:
            if (want->n != got->n) {
                snprintf(where, cap, "%zu members, want %zu", got->n, want->n);
                return false;
            }
            for (size_t i = 0; i < want->n; i++) {
                const cf_json *g = cf_json_get(got, want->members[i].key);
                if (g == NULL) {
                    snprintf(where, cap, ".%s missing", want->members[i].key);
                    return false;
                }
                if (!json_equal(&want->members[i].value, g, float32, where, cap)) {
                    char tail[512];
                    snprintf(tail, sizeof(tail), "%s", where);
                    snprintf(where, cap, ".%s%s%s", want->members[i].key,
                             tail[0] == '[' || tail[0] == '.' ? "" : ": ", tail);
                    return false;
                }
            }
            return true;
        }
    }
    if (!ok) {
        char a[128], b[128];
        show(a, sizeof(a), got);
        show(b, sizeof(b), want);
        snprintf(where, cap, "got %s, want %s", a, b);
    }
    return ok;
}

static const char *const compared[] = {
    "type",
    "encoding",
    "compression",
    "num_values",
    "nullable",
    "is_array",
    "has_posidx",
    "has_validx",
    "incompatible_features",
    "compatible_features",
    "has_dict_block",
    "header_metadata",
    "footer_metadata",
    "values",
};

static bool is_float_type(const cf_json *expected)
{
    const cf_json *t = cf_json_get(expected, "type");
    return t != NULL && t->kind == CF_JSON_STRING && strcmp(t->str, "FLOAT") == 0;
}

/* ---- the steps -------------------------------------------------------------------------- */

static void step_read(outcome *o, const char *file, const char *label, const cf_json *expected)
{
    char *argv[] = {"cfile", "dump", "--json", (char *)file, NULL};
    run r;
    run_cli(&r, 4, argv);
    if (r.rc == CF_EXIT_NOTSUP) {
        note(o, R_SKIP, "read %s: %s", label, reason_of(r.err));
        goto out;
    }
    if (r.rc != 0) {
        note(o, R_FAIL, "read %s: exit %d: %s", label, r.rc, r.err);
        goto out;
    }
    cf_json_doc got;
    char msg[256];
    if (cf_json_parse(&got, r.out, r.out_len, msg, sizeof(msg)) != 0) {
        note(o, R_FAIL, "read %s: output is not JSON: %s", label, msg);
        cf_json_doc_dispose(&got);
        goto out;
    }
    bool f32 = is_float_type(expected);
    for (size_t i = 0; i < sizeof(compared) / sizeof(compared[0]); i++) {
        const cf_json *want = cf_json_get(expected, compared[i]);
        const cf_json *have = cf_json_get(&got.root, compared[i]);
        char where[768] = "";
        if (want == NULL)
            continue;
        if (have == NULL) {
            note(o, R_FAIL, "read %s: no field %s", label, compared[i]);
            break;
        }
        if (!json_equal(want, have, f32 && strcmp(compared[i], "values") == 0, where,
                        sizeof(where))) {
            note(o, R_FAIL, "read %s: %s%s%s", label, compared[i],
                 where[0] == '[' || where[0] == '.' ? "" : ": ", where);
            break;
        }
    }
    cf_json_doc_dispose(&got);
out:
    run_dispose(&r);
}

static void step_seeks(outcome *o, const char *file, const char *label, const cf_json *seeks,
                       const cf_json *expected)
{
    bool f32 = is_float_type(expected);
    for (size_t s = 0; s < seeks->n; s++) {
        const cf_json *args = cf_json_get(&seeks->items[s], "args");
        const cf_json *want = cf_json_get(&seeks->items[s], "result");
        if (args == NULL || args->kind != CF_JSON_ARRAY || want == NULL || args->n > 8) {
            note(o, R_FAIL, "seeks.json[%zu]: malformed", s);
            return;
        }
        char *argv[16] = {"cfile", "seek", "--json", (char *)file};
        /* getopt permutes argv: name the seek from the JSON. */
        const char *a0 = args->n > 0 ? args->items[0].str : "",
                   *a1 = args->n > 1 ? args->items[1].str : "";
        int argc = 4;
        for (size_t i = 0; i < args->n; i++) {
            if (args->items[i].kind != CF_JSON_STRING) {
                note(o, R_FAIL, "seeks.json[%zu]: args must be strings", s);
                return;
            }
            argv[argc++] = (char *)args->items[i].str;
        }
        argv[argc] = NULL;
        run r;
        run_cli(&r, argc, argv);
        cf_json_doc got;
        char msg[256], where[768] = "";
        bool parsed = false;
        if (r.rc == CF_EXIT_NOTSUP) {
            note(o, R_SKIP, "seek %s %zu: %s", label, s, reason_of(r.err));
            goto next;
        }
        if (r.rc != 0 && r.rc != CF_EXIT_FAIL) {
            note(o, R_FAIL, "seek %s %zu: exit %d: %s", label, s, r.rc, r.err);
            goto next;
        }
        parsed = true;
        if (cf_json_parse(&got, r.out, r.out_len, msg, sizeof(msg)) != 0) {
            note(o, R_FAIL, "seek %s %zu: exit %d, output is not JSON: %s (%s)", label, s, r.rc,
                 msg, r.err);
            goto next;
        }
        const cf_json *ws = cf_json_get(want, "status");
        const cf_json *gs = cf_json_get(&got.root, "status");
        if (ws == NULL || gs == NULL || !json_equal(ws, gs, false, where, sizeof(where))) {
            note(o, R_FAIL, "seek %s %zu (%s %s): status %s", label, s, a0, a1,
                 gs ? where : "missing");
            goto next;
        }
        if ((r.rc == 0) != (strcmp(ws->str, "OK") == 0)) {
            note(o, R_FAIL, "seek %s %zu: exit %d with status %s", label, s, r.rc, ws->str);
            goto next;
        }
        static const char *const fields[] = {"ordinal", "exact", "values"};
        for (size_t f = 0; f < 3; f++) {
            const cf_json *wv = cf_json_get(want, fields[f]);
            const cf_json *gv = cf_json_get(&got.root, fields[f]);
            if (wv == NULL)
                continue;
            if (gv == NULL || !json_equal(wv, gv, f32 && f == 2, where, sizeof(where))) {
                note(o, R_FAIL, "seek %s %zu (%s %s): %s: %s", label, s, a0, a1, fields[f],
                     gv ? where : "missing");
                break;
            }
        }
    next:
        if (parsed)
            cf_json_doc_dispose(&got);
        run_dispose(&r);
    }
}

/* `cfile verify` passes, and finds as many blocks as Kudu's index has leaf entries. */
static void step_verify(outcome *o, const char *file, const char *label, const char *dir,
                        const cf_json *expected)
{
    char *argv[] = {"cfile", "verify", (char *)file, NULL};
    run r;
    run_cli(&r, 3, argv);
    if (r.rc == CF_EXIT_NOTSUP) {
        note(o, R_SKIP, "verify %s: %s", label, reason_of(r.err));
        goto out;
    }
    if (r.rc != 0) {
        note(o, R_FAIL, "verify %s: exit %d: %s", label, r.rc, r.err);
        goto out;
    }
    cf_json_doc idx;
    char path[2048], msg[256], want[128];
    snprintf(path, sizeof(path), "%s/index.json", dir);
    if (cf_json_parse_file(&idx, path, msg, sizeof(msg)) == 0) {
        const cf_json *tree = cf_json_get(&idx.root, "posidx");
        if (tree == NULL || tree->kind != CF_JSON_OBJECT)
            tree = cf_json_get(&idx.root, "validx");
        const cf_json *leaves = cf_json_get(tree, "leaf_entries");
        const cf_json *rows = cf_json_get(expected, "num_values");
        /* Every index block of both trees, as Kudu's reader walked them. */
        size_t index_blocks = 0;
        static const char *trees[] = {"posidx", "validx"};
        for (int t = 0; t < 2; t++) {
            const cf_json *levels = cf_json_get(cf_json_get(&idx.root, trees[t]), "levels");
            for (size_t l = 0; levels != NULL && levels->kind == CF_JSON_ARRAY && l < levels->n;
                 l++)
                index_blocks += levels->items[l].n;
        }
        if (leaves != NULL && leaves->kind == CF_JSON_ARRAY && rows != NULL) {
            snprintf(want, sizeof(want), ": ok (%s rows, %zu data block%s, %zu index block%s)\n",
                     rows->str, leaves->n, leaves->n == 1 ? "" : "s", index_blocks,
                     index_blocks == 1 ? "" : "s");
            if (strstr(r.out, want) == NULL) {
                char *nl = strchr(r.out, '\n');
                if (nl != NULL)
                    *nl = '\0';
                note(o, R_FAIL, "verify %s: %s, want%s", label, r.out, want);
            }
        }
    }
    cf_json_doc_dispose(&idx);
out:
    run_dispose(&r);
}

static void step_write(outcome *o, const char *dir, const char *tmpdir, const char *reference)
{
    char spec[2048], out[1024];
    snprintf(spec, sizeof(spec), "%s/spec.json", dir);
    snprintf(out, sizeof(out), "%s/out.cfile", tmpdir);
    char *argv[] = {"cfile", "write", "--quiet", "--spec", spec, out, NULL};
    run r;
    run_cli(&r, 6, argv);
    if (r.rc == CF_EXIT_NOTSUP) {
        note(o, R_SKIP, "write: %s", reason_of(r.err));
        goto out;
    }
    if (r.rc != 0) {
        note(o, R_FAIL, "write: exit %d: %s", r.rc, r.err);
        goto out;
    }
    size_t got_len = 0, want_len = 0;
    uint8_t *got = cf_test_read_file(out, &got_len);
    uint8_t *want = cf_test_read_file(reference, &want_len);
    if (got == NULL || want == NULL) {
        note(o, R_FAIL, "write: cannot read %s", got == NULL ? out : reference);
    } else if (got_len != want_len || memcmp(got, want, got_len) != 0) {
        size_t i = 0;
        while (i < got_len && i < want_len && got[i] == want[i])
            i++;
        note(o, R_FAIL, "write: bytes differ from %s at offset %zu (wrote %zu bytes, want %zu)",
             strrchr(reference, '/') + 1, i, got_len, want_len);
    }
    free(got);
    free(want);
    unlink(out);
out:
    run_dispose(&r);
}

/* ---- the suites ------------------------------------------------------------------------- */

typedef struct reason_count {
    char reason[256];
    int count;
} reason_count;

typedef struct tally {
    int pass, fail, skip;
    reason_count reasons[128];
    size_t nreasons;
} tally;

static void count_reason(tally *t, const char *why)
{
    /* Group by the library's message (after the step label). */
    const char *r = strstr(why, ": ");
    r = r ? r + 2 : why;
    for (size_t i = 0; i < t->nreasons; i++) {
        if (strcmp(t->reasons[i].reason, r) == 0) {
            t->reasons[i].count++;
            return;
        }
    }
    if (t->nreasons < sizeof(t->reasons) / sizeof(t->reasons[0])) {
        snprintf(t->reasons[t->nreasons].reason, sizeof(t->reasons[0].reason), "%s", r);
        t->reasons[t->nreasons++].count = 1;
    }
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static void run_suite(const char *suite, bool do_write)
{
    char root[1024];
    snprintf(root, sizeof(root), "%s/%s", cf_test_shared_dir(), suite);
    DIR *d = opendir(root);
    if (d == NULL) {
        /* The Kudu-written corpus is part of the test suite: without it nothing
         * was verified, which must not look like success. */
        if (getenv("CF_ALLOW_NO_GOLDEN") != NULL) {
            print_message("%s: no corpus at %s (CF_ALLOW_NO_GOLDEN set)\n", suite, root);
            skip();
        }
        fail_msg("%s: no golden corpus at %s (set CF_SHARED_DIR, or CF_ALLOW_NO_GOLDEN=1 to "
                 "skip)",
                 suite, root);
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strncmp(e->d_name, "bloom-", 6) == 0)
            continue;
        char p[2048];
        snprintf(p, sizeof(p), "%s/%s/expected.json", root, e->d_name);
        if (!exists(p))
            continue;
        names = realloc(names, (n + 1) * sizeof(*names));
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof(*names), cmp_names);

    char tmpdir[] = "/tmp/cf_golden_XXXXXX";
    assert_non_null(mkdtemp(tmpdir));
    tally *t = calloc(1, sizeof(*t));
    for (size_t i = 0; i < n; i++) {
        const char *name = names[i];
        char dir[1536], file[2048], deb[2048], path[2048], msg[256];
        outcome o = {R_PASS, ""};
        snprintf(dir, sizeof(dir), "%s/%s", root, name);
        snprintf(file, sizeof(file), "%s/%s.cfile", dir, name);
        snprintf(deb, sizeof(deb), "%s/%s.debian-libs.cfile", dir, name);
        bool has_deb = exists(deb);
        cf_json_doc expected, seeks;
        snprintf(path, sizeof(path), "%s/expected.json", dir);
        if (cf_json_parse_file(&expected, path, msg, sizeof(msg)) != 0) {
            note(&o, R_FAIL, "expected.json: %s", msg);
        } else {
            step_read(&o, file, "kudu", &expected.root);
            if (has_deb)
                step_read(&o, deb, "debian-libs", &expected.root);
            snprintf(path, sizeof(path), "%s/seeks.json", dir);
            if (exists(path)) {
                if (cf_json_parse_file(&seeks, path, msg, sizeof(msg)) != 0 ||
                    seeks.root.kind != CF_JSON_ARRAY) {
                    note(&o, R_FAIL, "seeks.json: %s", msg);
                } else {
                    step_seeks(&o, file, "kudu", &seeks.root, &expected.root);
                    if (has_deb)
                        step_seeks(&o, deb, "debian-libs", &seeks.root, &expected.root);
                }
                cf_json_doc_dispose(&seeks);
            }
            step_verify(&o, file, "kudu", dir, &expected.root);
            if (has_deb)
                step_verify(&o, deb, "debian-libs", dir, &expected.root);
            if (do_write)
                step_write(&o, dir, tmpdir, has_deb ? deb : file);
        }
        cf_json_doc_dispose(&expected);
        static const char *const label[] = {"PASS", "SKIP", "FAIL"};
        if (o.result == R_PASS)
            printf("%s %s\n", label[o.result], name);
        else
            printf("%s %s: %s\n", label[o.result], name, o.why);
        if (o.result == R_PASS)
            t->pass++;
        else if (o.result == R_FAIL)
            t->fail++;
        else {
            t->skip++;
            count_reason(t, o.why);
        }
        free(names[i]);
    }
    free(names);
    rmdir(tmpdir);
    printf("%s: %d passed, %d failed, %d skipped\n", suite, t->pass, t->fail, t->skip);
    for (size_t i = 0; i < t->nreasons; i++)
        printf("  skipped %3d x %s\n", t->reasons[i].count, t->reasons[i].reason);
    fflush(stdout);
    int failed = t->fail;
    free(t);
    assert_int_equal(failed, 0);
}

static void test_golden__v2(void **state)
{
    run_suite("golden", true);
}

static void test_golden__v1(void **state)
{
    run_suite("golden-v1", false);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden__v2),
        cmocka_unit_test(test_golden__v1),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
