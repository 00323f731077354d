/* The 20 golden DeltaFiles written by Kudu (../shared/golden-delta): our
 * `cfile delta write` reproduces every file byte for byte, `delta dump --json`
 * matches expected.json (deltas, statistics, errors) and `delta apply --json`
 * matches every apply.json entry. JSON objects are compared in member order
 * (a change list's "set" keeps the RowChangeList order). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_common.h"

#include "cli.h"
#include "json.h"

static const char *const cases[] = {
    "redo-all-types",
    "redo-all-types-nulls",
    "redo-basic",
    "redo-compression-nocompression",
    "redo-compression-snappy",
    "redo-compression-zlib",
    "redo-delete-reinsert",
    "redo-dropped-column",
    "redo-edge-keys-wide-ids",
    "redo-large-multilevel",
    "redo-many-per-row",
    "redo-no-stats",
    "redo-raw-rcl-errors",
    "redo-wide-schema-40cols",
    "undo-all-types",
    "undo-basic",
    "undo-delete-reinsert",
    "undo-equal-keys",
    "undo-large-multilevel",
    "undo-many-per-row",
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static char *run(int argc, char **argv, int *rc)
{
    char *out = NULL, *err = NULL;
    size_t ol = 0, el = 0;
    FILE *fo = open_memstream(&out, &ol), *fe = open_memstream(&err, &el);
    *rc = cf_cli_main(argc, argv, fo, fe);
    fclose(fo);
    fclose(fe);
    if (*rc != 0)
        print_message("cfile %s %s: %s", argv[1], argv[2], err);
    free(err);
    return out;
}

static bool json_same(const cf_json *a, const cf_json *b, char *where, size_t cap)
{
    if (a->kind != b->kind) {
        snprintf(where, cap, "kind %s vs %s", cf_json_kind_name(a->kind),
                 cf_json_kind_name(b->kind));
        return false;
    }
    switch (a->kind) {
    case CF_JSON_NUMBER:
        if (strcmp(a->str, b->str) == 0 || strtod(a->str, NULL) == strtod(b->str, NULL))
            return true;
        snprintf(where, cap, "number %s vs %s", a->str, b->str);
        return false;
    case CF_JSON_STRING:
        if (a->len == b->len && memcmp(a->str, b->str, a->len) == 0)
            return true;
        snprintf(where, cap, "string \"%.60s\" vs \"%.60s\"", a->str, b->str);
        return false;
    case CF_JSON_ARRAY:
        if (a->n != b->n) {
            snprintf(where, cap, "array of %zu vs %zu", a->n, b->n);
            return false;
        }
        for (size_t i = 0; i < a->n; i++) {
            if (!json_same(&a->items[i], &b->items[i], where, cap)) {
                size_t l = strlen(where);
                snprintf(where + l, cap - l, " at [%zu]", i);
                return false;
            }
        }
        return true;
    case CF_JSON_OBJECT:
        if (a->n != b->n) {
            snprintf(where, cap, "object of %zu vs %zu members", a->n, b->n);
            return false;
        }
        for (size_t i = 0; i < a->n; i++) {
            if (strcmp(a->members[i].key, b->members[i].key) != 0) {
                snprintf(where, cap, "member %zu: \"%s\" vs \"%s\"", i, a->members[i].key,
                         b->members[i].key);
                return false;
            }
            if (!json_same(&a->members[i].value, &b->members[i].value, where, cap)) {
                size_t l = strlen(where);
                snprintf(where + l, cap - l, " at .%s", a->members[i].key);
                return false;
            }
        }
        return true;
    default: return true;
    }
}

static void path_of(char *dst, size_t cap, const char *name, const char *file)
{
    snprintf(dst, cap, "%s/golden-delta/%s/%s", cf_test_shared_dir(), name, file);
}

static void one_case(const char *name)
{
    char spec[512], golden[512], expected[512], schema[512], out[256], base[512], applyp[512];
    char where[512], msg[256];
    int rc;
    path_of(spec, sizeof(spec), name, "spec.json");
    char gfile[128];
    snprintf(gfile, sizeof(gfile), "%s.cfile", name);
    path_of(golden, sizeof(golden), name, gfile);
    path_of(expected, sizeof(expected), name, "expected.json");
    path_of(schema, sizeof(schema), name, "read_schema.json");
    if (access(schema, R_OK) != 0)
        snprintf(schema, sizeof(schema), "%s", spec);
    snprintf(out, sizeof(out), "/tmp/cf_delta_golden_%d_%s.cfile", (int)getpid(), name);

    /* 1. write: identical bytes */
    char *wargv[] = {"cfile", "delta", "write", spec, out};
    free(run(5, wargv, &rc));
    assert_int_equal(rc, 0);
    size_t wl, gl;
    uint8_t *w = cf_test_read_file(out, &wl), *g = cf_test_read_file(golden, &gl);
    assert_non_null(w);
    assert_non_null(g);
    CF_ASSERT_BYTES(g, gl, w, wl);
    free(w);
    free(g);
    unlink(out);

    /* 2. dump: the fields of expected.json we produce */
    cf_json_doc exp;
    assert_int_equal(cf_json_parse_file(&exp, expected, msg, sizeof(msg)), 0);
    const cf_json *type = cf_json_get(&exp.root, "delta_type");
    char tbuf[8];
    snprintf(tbuf, sizeof(tbuf), "%s", type->str);
    char *dargv[] = {"cfile",    "delta", "dump",   "--json", golden,
                     "--schema", schema,  "--type", tbuf};
    char *text = run(9, dargv, &rc);
    assert_int_equal(rc, 0);
    cf_json_doc got;
    assert_int_equal(cf_json_parse(&got, text, strlen(text), msg, sizeof(msg)), 0);
    static const char *const fields[] = {"num_deltas", "delta_stats", "delta_file_reader_error",
                                         "delta_stats_pb", "deltas"};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        const cf_json *a = cf_json_get(&exp.root, fields[i]),
                      *b = cf_json_get(&got.root, fields[i]);
        if (a == NULL && b == NULL)
            continue;
        if (a == NULL || b == NULL)
            fail_msg("%s: %s present on one side only", name, fields[i]);
        if (!json_same(a, b, where, sizeof(where)))
            fail_msg("%s: dump %s differs: %s", name, fields[i], where);
    }
    cf_json_doc_dispose(&got);
    free(text);
    cf_json_doc_dispose(&exp);

    /* 3. apply: every snapshot of apply.json */
    path_of(applyp, sizeof(applyp), name, "apply.json");
    path_of(base, sizeof(base), name, "base.json");
    if (access(applyp, R_OK) != 0)
        return;
    cf_json_doc ap;
    assert_int_equal(cf_json_parse_file(&ap, applyp, msg, sizeof(msg)), 0);
    for (size_t i = 0; i < ap.root.n; i++) {
        const cf_json *e = &ap.root.items[i];
        char snap[32], rows[32], start[32], batch[32];
        snprintf(snap, sizeof(snap), "%s", cf_json_get(e, "snapshot")->str);
        snprintf(rows, sizeof(rows), "%s", cf_json_get(e, "rows")->str);
        snprintf(start, sizeof(start), "%s", cf_json_get(e, "start")->str);
        snprintf(batch, sizeof(batch), "%s", cf_json_get(e, "batch")->str);
        snprintf(tbuf, sizeof(tbuf), "%s", cf_json_get(e, "delta_type")->str);
        char *aargv[] = {"cfile",    "delta",  "apply",  "--json",  golden,
                         "--schema", schema,   "--type", tbuf,      "--snapshot",
                         snap,       "--rows", rows,     "--start", start,
                         "--batch",  batch,    "--base", base};
        text = run(19, aargv, &rc);
        assert_int_equal(rc, 0);
        assert_int_equal(cf_json_parse(&got, text, strlen(text), msg, sizeof(msg)), 0);
        if (!json_same(e, &got.root, where, sizeof(where)))
            fail_msg("%s: apply at snapshot %s differs: %s", name, snap, where);
        cf_json_doc_dispose(&got);
        free(text);
    }
    cf_json_doc_dispose(&ap);
}

static void test_delta_golden__all_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < NCASES; i++) {
        one_case(cases[i]);
        print_message("[ golden  ] %s: bytes, dump and apply identical\n", cases[i]);
    }
}

static void test_delta_golden__info_kind(void **state)
{
    (void)state;
    char golden[512];
    int rc;
    path_of(golden, sizeof(golden), "redo-basic", "redo-basic.cfile");
    char *argv[] = {"cfile", "info", "--json", golden};
    char *text = run(4, argv, &rc);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(text, "\"kind\":\"DeltaFile\""));
    free(text);
}

static void test_delta_golden__cli_errors(void **state)
{
    (void)state;
    int rc;
    char spec[512];
    path_of(spec, sizeof(spec), "redo-basic", "spec.json");
    /* An out-of-order spec is refused with a clear error. */
    char bad[256];
    snprintf(bad, sizeof(bad), "/tmp/cf_delta_bad_%d.json", (int)getpid());
    FILE *f = fopen(bad, "w");
    assert_non_null(f);
    fputs("{\"type\":\"REDO\",\"schema\":[{\"id\":10,\"name\":\"a\",\"type\":\"INT32\"}],"
          "\"deltas\":[{\"row\":5,\"ts\":9,\"op\":\"DELETE\"},{\"row\":4,\"ts\":9,\"op\":"
          "\"DELETE\"}]}",
          f);
    fclose(f);
    char out[256];
    snprintf(out, sizeof(out), "/tmp/cf_delta_bad_%d.cfile", (int)getpid());
    char *wargv[] = {"cfile", "delta", "write", bad, out};
    free(run(5, wargv, &rc));
    assert_int_equal(rc, CF_EXIT_FAIL);
    assert_int_not_equal(access(out, F_OK), 0); /* nothing left behind */
    unlink(bad);
    char *uargv[] = {"cfile", "delta", "dump", spec};
    free(run(4, uargv, &rc));
    assert_int_equal(rc, CF_EXIT_USAGE);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_delta_golden__all_cases),
        cmocka_unit_test(test_delta_golden__info_kind),
        cmocka_unit_test(test_delta_golden__cli_errors),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
