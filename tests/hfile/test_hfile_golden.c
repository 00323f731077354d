/* Every real HFile in shared/hfile/ (but the known gaps below) reads completely: all
 * checksums verified, every cell equal to <name>.expected.json (or its
 * .cells.jsonl), trailer fields as stored, every seek case of .seeks.json,
 * Bloom membership of every row, mid-key metadata. Also drives
 * `cfile hfile dump|seek --json` in-process for one file. */
#include "test_common.h"

#include <dirent.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/hfile.h>

#include "cli.h"
#include "support_hfile.h"

static char dir[1024];

static size_t unhex(const char *s, uint8_t **out)
{
    size_t n = strlen(s) / 2;
    uint8_t *b = malloc(n + 1);
    assert_non_null(b);
    assert_int_equal(cf_test_unhex(s, b, n + 1), n);
    *out = b;
    return n;
}

/* Does a README byte string (string or {"hex"}) equal these bytes? */
static bool bytes_eq(const cf_json *j, cf_slice s)
{
    if (j->kind == CF_JSON_STRING)
        return j->len == s.len && (s.len == 0 || memcmp(j->str, s.data, s.len) == 0);
    const cf_json *h = cf_json_get(j, "hex");
    if (!h)
        return false;
    uint8_t *b;
    size_t n = unhex(h->str, &b);
    bool eq = n == s.len && (n == 0 || memcmp(b, s.data, n) == 0);
    free(b);
    return eq;
}

static const cf_json *field(const cf_json *cell, const cf_json *defaults, const char *k)
{
    const cf_json *v = cf_json_get(cell, k);
    if (!v && defaults)
        v = cf_json_get(defaults, k);
    return v;
}

static void check_cell(const cf_json *e, const cf_json *defaults, const cf_hfile_cell *c, bool raw,
                       bool mvcc, const char *name, uint64_t i)
{
    bool ok;
    char ts[32];
    if (raw) {
        ok = bytes_eq(field(e, defaults, "key"), c->key) &&
             bytes_eq(field(e, defaults, "value"), c->value);
    } else {
        snprintf(ts, sizeof(ts), "%lld", (long long)c->timestamp);
        const cf_json *t = field(e, defaults, "timestamp");
        const cf_json *ty = field(e, defaults, "type");
        ok = bytes_eq(field(e, defaults, "row"), c->row) &&
             bytes_eq(field(e, defaults, "family"), c->family) &&
             bytes_eq(field(e, defaults, "qualifier"), c->qualifier) &&
             bytes_eq(field(e, defaults, "value"), c->value) && t && strcmp(t->str, ts) == 0 &&
             ty && strcmp(ty->str, cf_hfile_type_name(c->type)) == 0;
        const cf_json *m = field(e, defaults, "mvcc");
        if (mvcc) {
            snprintf(ts, sizeof(ts), "%llu", (unsigned long long)c->mvcc);
            ok = ok && m && strcmp(m->str, ts) == 0;
        } else {
            ok = ok && m == NULL;
        }
    }
    if (!ok)
        fail_msg("%s: cell %llu differs from the expectation", name, (unsigned long long)i);
}

static uint64_t json_u64(const cf_json *j)
{
    return strtoull(j->str, NULL, 10);
}

static void check_file(const char *name)
{
    char path[2048], p2[2100];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    snprintf(p2, sizeof(p2), "%s.expected.json", path);
    cf_json_doc doc;
    char msg[256];
    assert_int_equal(cf_json_parse_file(&doc, p2, msg, sizeof(msg)), 0);
    const cf_json *exp = &doc.root;

    cf_error err = {0};
    cf_hfile *h = NULL;
    CF_ASSERT_OK(cf_hfile_open_file(&h, path, NULL, &err), &err);
    const cf_hfile_trailer *t = cf_hfile_get_trailer(h);
    const cf_hfile_info *in = cf_hfile_get_info(h);
    const cf_json *ver = cf_json_get(exp, "hfile_version");
    assert_int_equal(t->major, json_u64(cf_json_get(ver, "major")));
    assert_int_equal(t->minor, json_u64(cf_json_get(ver, "minor")));
    assert_string_equal(cf_hfile_codec_name(t->compression_codec),
                        cf_json_get(exp, "compression")->str);
    assert_string_equal(t->comparator, cf_json_get(exp, "comparator")->str);
    bool raw = strcmp(cf_json_get(exp, "cell_format")->str, "raw_key_value") == 0;
    assert_int_equal(in->raw_keys, raw);

    /* Every trailer field as stored. */
    const cf_json *tj = cf_json_get(exp, "trailer");
    struct {
        const char *k;
        uint64_t v;
    } tf[] = {
        {"file_info_offset", t->file_info_offset},
        {"load_on_open_data_offset", t->load_on_open_data_offset},
        {"uncompressed_data_index_size", t->uncompressed_data_index_size},
        {"total_uncompressed_bytes", t->total_uncompressed_bytes},
        {"data_index_count", t->data_index_count},
        {"meta_index_count", t->meta_index_count},
        {"entry_count", t->entry_count},
        {"num_data_index_levels", t->num_data_index_levels},
        {"first_data_block_offset", t->first_data_block_offset},
        {"last_data_block_offset", t->last_data_block_offset},
        {"compression_codec", t->compression_codec},
        {"data_index_offset", t->data_index_offset},
        {"meta_index_offset", t->meta_index_offset},
    };
    for (size_t i = 0; i < sizeof(tf) / sizeof(tf[0]); i++) {
        const cf_json *v = cf_json_get(tj, tf[i].k);
        if (v && json_u64(v) != tf[i].v)
            fail_msg("%s: trailer %s = %llu, expected %s", name, tf[i].k,
                     (unsigned long long)tf[i].v, v->str);
    }
    const cf_json *ix = cf_json_get(exp, "index");
    assert_int_equal(in->num_data_blocks, json_u64(cf_json_get(ix, "data_blocks")));
    assert_int_equal(in->index_levels, json_u64(cf_json_get(ix, "levels")));
    const cf_json *v;
    if ((v = cf_json_get(ix, "leaf_index_blocks")))
        assert_int_equal(in->leaf_index_blocks, json_u64(v));
    if ((v = cf_json_get(ix, "intermediate_index_blocks")))
        assert_int_equal(in->intermediate_index_blocks, json_u64(v));
    const cf_json *mk = cf_json_get(ix, "midkey");
    if (mk && mk->kind == CF_JSON_OBJECT) {
        assert_true(in->has_midkey_metadata);
        assert_int_equal(in->mid_leaf_offset, json_u64(cf_json_get(mk, "mid_leaf_block_offset")));
        assert_int_equal(in->mid_key_entry, json_u64(cf_json_get(mk, "mid_key_entry")));
        cf_slice mid;
        CF_ASSERT_OK(cf_hfile_midkey(h, &mid, &err), &err);
        assert_true(mid.len > 0);
    }

    /* FileInfo in file order. */
    const cf_json *fi = cf_json_get(exp, "file_info");
    assert_int_equal(in->file_info_count, fi->n);
    for (size_t i = 0; i < fi->n; i++) {
        cf_slice k, val;
        assert_true(cf_hfile_file_info_at(h, i, &k, &val));
        assert_true(bytes_eq(cf_json_get(&fi->items[i], "key"), k));
        assert_true(bytes_eq(cf_json_get(&fi->items[i], "value"), val));
    }
    /* The index getters check i (false and zeroes past the end). */
    {
        cf_slice k = {(const uint8_t *)"x", 1}, val = k;
        assert_false(cf_hfile_file_info_at(h, fi->n, &k, &val));
        assert_true(k.data == NULL && k.len == 0 && val.data == NULL && val.len == 0);
        cf_slice nm = k;
        uint64_t off = 1;
        uint32_t sz = 1;
        assert_false(cf_hfile_meta_at(h, in->meta_count, &nm, &off, &sz));
        assert_true(nm.len == 0 && off == 0 && sz == 0);
        cf_hfile_block_ref ref = {1, 1, {NULL, 1}};
        assert_false(cf_hfile_data_block_at(h, in->num_data_blocks, &ref));
        assert_true(ref.offset == 0 && ref.on_disk_size == 0 && ref.key.len == 0);
        if (in->num_data_blocks > 0)
            assert_true(cf_hfile_data_block_at(h, in->num_data_blocks - 1, &ref));
        for (int which = 0; which < 3; which++) {
            const cf_hfile_bloom_info *bi = cf_hfile_bloom(h, which);
            uint32_t chunks = bi ? bi->num_chunks : 0;
            if (chunks > 0)
                assert_true(cf_hfile_bloom_chunk_at(h, which, chunks - 1, &off, &sz, &nm));
            assert_false(cf_hfile_bloom_chunk_at(h, which, chunks, &off, &sz, &nm));
            assert_true(off == 0 && sz == 0 && nm.len == 0);
        }
    }
    const cf_json *mb = cf_json_get(exp, "meta_blocks");
    if (mb && mb->kind == CF_JSON_ARRAY) {
        assert_int_equal(in->meta_count, mb->n);
        for (size_t i = 0; i < mb->n; i++) {
            cf_slice nm;
            uint64_t off;
            uint32_t sz;
            assert_true(cf_hfile_meta_at(h, i, &nm, &off, &sz));
            assert_true(bytes_eq(cf_json_get(&mb->items[i], "name"), nm));
            uint8_t *data;
            size_t len;
            CF_ASSERT_OK(cf_hfile_meta_read(h, i, &data, &len, &err), &err);
            assert_int_equal(len, json_u64(cf_json_get(&mb->items[i], "size")));
            cf_hfile_bytes_free(data);
        }
    }

    /* All cells, in order. */
    const cf_json *cells = cf_json_get(exp, "cells");
    const cf_json *defaults = NULL;
    char *jl = NULL;
    size_t jl_len = 0, jl_pos = 0;
    cf_json_doc line;
    bool have_line = false;
    const cf_json *cf = cf_json_get(exp, "cells_file");
    if (cf) {
        defaults = cf_json_get(cf, "defaults");
        snprintf(p2, sizeof(p2), "%s/%s", dir, cf_json_get(cf, "name")->str);
        jl = (char *)cf_test_read_file(p2, &jl_len);
        assert_non_null(jl);
    }
    uint64_t num = json_u64(cf_json_get(exp, "num_cells"));
    cf_hfile_iter *it;
    CF_ASSERT_OK(cf_hfile_iter_create(&it, h, &err), &err);
    uint64_t n = 0;
    char **rows = calloc(num + 1, sizeof(char *));
    size_t *row_lens = calloc(num + 1, sizeof(size_t));
    for (;;) {
        cf_hfile_cell c;
        if (!hfile_next(it, &c))
            break;
        assert_true(n < num);
        const cf_json *e;
        if (cells) {
            e = &cells->items[n];
        } else {
            char *nl = memchr(jl + jl_pos, '\n', jl_len - jl_pos);
            size_t ll = nl ? (size_t)(nl - (jl + jl_pos)) : jl_len - jl_pos;
            if (have_line)
                cf_json_doc_dispose(&line);
            assert_int_equal(cf_json_parse(&line, jl + jl_pos, ll, msg, sizeof(msg)), 0);
            have_line = true;
            jl_pos += ll + 1;
            e = &line.root;
        }
        check_cell(e, defaults, &c, raw, in->includes_mvcc, name, n);
        cf_slice r = raw ? c.key : c.row;
        rows[n] = malloc(r.len + 1);
        memcpy(rows[n], r.data, r.len);
        row_lens[n] = r.len;
        n++;
    }
    assert_int_equal(n, num);
    if (have_line)
        cf_json_doc_dispose(&line);
    free(jl);

    /* Bloom: every row may be present. */
    if (cf_hfile_bloom(h, CF_HFILE_BLOOM_GENERAL)) {
        for (uint64_t i = 0; i < n; i++) {
            bool maybe;
            CF_ASSERT_OK(cf_hfile_bloom_may_contain(h, CF_HFILE_BLOOM_GENERAL, rows[i], row_lens[i],
                                                    &maybe, &err),
                         &err);
            assert_true(maybe);
        }
        /* A row before the first chunk key is certainly absent. */
        bool maybe = true;
        CF_ASSERT_OK(cf_hfile_bloom_may_contain(h, CF_HFILE_BLOOM_GENERAL, "", 0, &maybe, &err),
                     &err);
        assert_false(maybe);
    }

    /* Seeks. */
    snprintf(p2, sizeof(p2), "%s.seeks.json", path);
    cf_json_doc sd;
    assert_int_equal(cf_json_parse_file(&sd, p2, msg, sizeof(msg)), 0);
    const cf_json *cases = cf_json_get(&sd.root, "cases");
    size_t nseek = 0;
    for (size_t i = 0; i < cases->n; i++) {
        const cf_json *cs = &cases->items[i];
        const cf_json *key = cf_json_get(cs, raw ? "key" : "row");
        const cf_json *sk = cf_json_get(cs, "search_key");
        const cf_json *lb = cf_json_get(cs, "lower_bound");
        uint8_t *kb = NULL;
        size_t kl = 0;
        cf_hfile_cell probe;
        memset(&probe, 0, sizeof(probe));
        if (key) {
            if (key->kind == CF_JSON_STRING) {
                kb = malloc(key->len + 1);
                memcpy(kb, key->str, key->len);
                kl = key->len;
            } else {
                kl = unhex(cf_json_get(key, "hex")->str, &kb);
            }
            CF_ASSERT_OK(cf_hfile_iter_seek_row(it, kb, kl, &err), &err);
        } else if (sk) {
            const cf_json *r = cf_json_get(sk, "row"), *f = cf_json_get(sk, "family"),
                          *q = cf_json_get(sk, "qualifier"), *ts = cf_json_get(sk, "timestamp"),
                          *ty = cf_json_get(sk, "type");
            probe.row = (cf_slice){(const uint8_t *)r->str, r->len};
            if (f)
                probe.family = (cf_slice){(const uint8_t *)f->str, f->len};
            if (q)
                probe.qualifier = (cf_slice){(const uint8_t *)q->str, q->len};
            probe.timestamp = ts ? strtoll(ts->str, NULL, 10) : INT64_MAX;
            probe.type = CF_HFILE_MAXIMUM;
            if (ty)
                probe.type = strcmp(ty->str, "Put") == 0 ? CF_HFILE_PUT : CF_HFILE_MAXIMUM;
            CF_ASSERT_OK(cf_hfile_iter_seek_key(it, &probe, &err), &err);
        } else {
            continue;
        }
        cf_hfile_cell c;
        bool has;
        CF_ASSERT_OK(cf_hfile_iter_next(it, &c, &has, &err), &err);
        if (lb->kind == CF_JSON_NULL) {
            if (has)
                fail_msg("%s: seek '%s' found a cell, expected end of file", name,
                         cf_json_get(cs, "name")->str);
        } else {
            assert_true(has);
            uint64_t want = json_u64(cf_json_get(lb, "cell_index"));
            cf_slice r = raw ? c.key : c.row;
            if (r.len != row_lens[want] || memcmp(r.data, rows[want], r.len) != 0)
                fail_msg("%s: seek '%s' landed on the wrong row", name,
                         cf_json_get(cs, "name")->str);
            const cf_json *val = cf_json_get(lb, "value");
            if (val)
                assert_true(bytes_eq(val, c.value));
        }
        const cf_json *ex = cf_json_get(cs, "exact");
        if (ex && key) {
            bool exact = has && (raw ? c.key : c.row).len == kl &&
                         memcmp((raw ? c.key : c.row).data, kb, kl) == 0;
            assert_int_equal(exact, ex->kind == CF_JSON_TRUE);
        }
        free(kb);
        nseek++;
    }
    assert_true(nseek > 0);
    cf_json_doc_dispose(&sd);
    for (uint64_t i = 0; i < n; i++)
        free(rows[i]);
    free(rows);
    free(row_lens);
    cf_hfile_iter_free(it);

    cf_hfile_free(h);
    cf_json_doc_dispose(&doc);
}

static bool walk_ok(void *ctx, const cf_hfile_block_header *hdr)
{
    (void)hdr;
    (*(int *)ctx)++;
    return true;
}

/* Files of shared/hfile/ that issue 16 (data block encodings, LZO/SNAPPY framing,
 * CRC32 checksums, v2.0 Writable trailers) has not taught us to read yet. Each is
 * still checked, in a child process, on every run: it is printed and counted as a
 * known gap while it fails, and the test fails once it passes, so this list can
 * only shrink. Every other file must pass. */
static const char *const known_gaps[] = {
    NULL, /* none left: every file of shared/hfile/ reads */
};

static bool is_known_gap(const char *name)
{
    for (size_t i = 0; known_gaps[i] != NULL; i++)
        if (strcmp(known_gaps[i], name) == 0)
            return true;
    return false;
}

/* check_file in a child (cmocka's failures end the child, not this test). */
static bool check_file_isolated(const char *name)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* CF_GOLDEN_VERBOSE=1 shows why a known gap fails. */
        if (getenv("CF_GOLDEN_VERBOSE") == NULL) {
            FILE *devnull = freopen("/dev/null", "w", stderr);
            (void)devnull;
        }
        check_file(name);
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void test_hfile__golden_all(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "%s/hfile", cf_test_shared_dir());
    DIR *d = opendir(dir);
    if (!d) {
        print_message("no %s: skipped\n", dir);
        skip();
    }
    struct dirent *e;
    int files = 0, gaps = 0, now_pass = 0;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 7 || strcmp(e->d_name + l - 6, ".hfile") != 0)
            continue;
        files++;
        if (is_known_gap(e->d_name)) {
            if (check_file_isolated(e->d_name)) {
                print_message("  %s: reads correctly now: remove it from known_gaps\n", e->d_name);
                now_pass++;
            } else {
                print_message("  %s: KNOWN GAP (issue 16), still failing\n", e->d_name);
                gaps++;
            }
            continue;
        }
        print_message("  %s\n", e->d_name);
        check_file(e->d_name);
    }
    closedir(d);
    print_message("hfile golden: %d files, %d passed, %d known gaps (issue 16)\n", files,
                  files - gaps - now_pass, gaps);
    assert_int_equal(now_pass, 0);
    assert_true(files - gaps >= 19);
}

static void test_hfile__walk_verifies_every_block(void **state)
{
    (void)state;
    char path[2048];
    snprintf(path, sizeof(path),
             "%s/hfile/hudi_1_0_hbase_2_4_13_1KB_GZ_10000_large_keys_deep_index.hfile",
             cf_test_shared_dir());
    cf_error err = {0};
    cf_hfile *h;
    CF_ASSERT_OK(cf_hfile_open_file(&h, path, NULL, &err), &err);
    int n = 0;
    CF_ASSERT_OK(cf_hfile_walk_blocks(h, true, walk_ok, &n, &err), &err);
    assert_int_equal(n, 1543);
    cf_hfile_free(h);
}

static void test_hfile__cli_dump_and_seek(void **state)
{
    (void)state;
    char path[2048];
    snprintf(path, sizeof(path), "%s/hfile/riverbed_simple.hfile", cf_test_shared_dir());
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    FILE *errf = fopen("/dev/null", "w");
    char *argv1[] = {"cfile", "hfile", "seek", "--json", path, "row-035", NULL};
    argv1[5] = "row-05";
    assert_int_equal(cf_cli_main(6, argv1, out, errf), 0);
    fflush(out);
    assert_string_equal(buf, "{\"exact\":true,\"lower_bound\":{\"cell_index\":5,\"row\":\"row-05\","
                             "\"value\":\"val-05\"}}\n");
    fclose(out);
    free(buf);
    buf = NULL;
    out = open_memstream(&buf, &len);
    char *argv2[] = {"cfile", "hfile", "seek", "--json", path, "--hex", "7a", NULL};
    assert_int_equal(cf_cli_main(7, argv2, out, errf), 1);
    fflush(out);
    assert_string_equal(buf, "{\"exact\":false,\"lower_bound\":null}\n");
    fclose(out);
    free(buf);
    buf = NULL;
    out = open_memstream(&buf, &len);
    char *argv3[] = {"cfile", "hfile", "dump", "--json", path, NULL};
    assert_int_equal(cf_cli_main(5, argv3, out, errf), 0);
    fflush(out);
    cf_json_doc doc;
    char msg[256];
    assert_int_equal(cf_json_parse(&doc, buf, len, msg, sizeof(msg)), 0);
    assert_int_equal(cf_json_get(&doc.root, "cells")->n, 10);
    assert_string_equal(cf_json_get(&doc.root, "compression")->str, "NONE");
    cf_json_doc_dispose(&doc);
    fclose(out);
    free(buf);
    fclose(errf);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hfile__golden_all),
        cmocka_unit_test(test_hfile__walk_verifies_every_block),
        cmocka_unit_test(test_hfile__cli_dump_and_seek),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
