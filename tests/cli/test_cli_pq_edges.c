/* Pages at the edges, in hand-built files whose page bytes are written as
 * stored (levels included), read through every consumer:
 *
 * - an empty page whose compressed payload is 0 bytes (data page v2, v1 and a
 *   dictionary page of no values) reads as empty for every codec, as Arrow and
 *   DuckDB read it; a page with values and a 0-byte payload stays damage;
 * - a definition or repetition level above the column's maximum, in a flat,
 *   LIST, MAP and nested column, is damage naming row group, column and page
 *   in dump, head, verify, convert and the Arrow stream (a repeated run's
 *   value byte holds more than its bit width: an OPTIONAL column given 2);
 * - STRING bytes that are not UTF-8 print as {"hex":...}; DuckDB's UNION (an
 *   empty-named tag) reads as a struct; no help text shows code names. */
/* cf-needs: parquet tables */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cfile/arrow.h>
#include <cfile/parquet.h>

#include "cli.h"
#include "parquet/encoding.h"
#include "parquet/thrift.h"
#include "support_pqfile.h"
#include "util/buf.h"

/* ---- a builder of files with pages given byte by byte ----------------------------------- */

typedef pqt_el tel;

typedef struct tpage {
    int type; /* CF_PARQUET_DATA_PAGE, _DATA_PAGE_V2 or _DICTIONARY_PAGE */
    int32_t num_values, num_nulls, num_rows;
    const char *rep, *def; /* level bytes as stored (v1: with their 4-byte length) */
    size_t rep_len, def_len;
    const void *vals; /* PLAIN values */
    size_t vals_len;
    bool empty_payload; /* store 0 bytes where the compressed part goes */
} tpage;

typedef struct tcol {
    const char *path[4];
    int path_len;
    int64_t num_values;
    const tpage *pages;
    int page_count;
    int ptype; /* 0: INT32 */
} tcol;

static void put_page(cf_buf *f, int codec, const tpage *p)
{
    cf_error err;
    cf_buf raw, payload;
    cf_buf_init(&raw);
    cf_buf_init(&payload);
    bool v2 = p->type == CF_PARQUET_DATA_PAGE_V2;
    if (!v2) {
        cf_buf_append(&raw, p->rep, p->rep_len);
        cf_buf_append(&raw, p->def, p->def_len);
    }
    cf_buf_append(&raw, p->vals, p->vals_len);
    if (!p->empty_payload)
        CF_ASSERT_OK(cf_pq_compress((unsigned)codec, raw.data, raw.len, 0, &payload, &err), &err);
    size_t levels = v2 ? p->rep_len + p->def_len : 0;
    cf_thrift_writer w;
    cf_thrift_writer_init(&w, f);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_i32(&w, 1, p->type);
    cf_thrift_write_field_i32(&w, 2, (int32_t)(levels + raw.len));
    cf_thrift_write_field_i32(&w, 3, (int32_t)(levels + payload.len));
    if (p->type == CF_PARQUET_DICTIONARY_PAGE) {
        cf_thrift_write_field(&w, 7, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(&w);
        cf_thrift_write_field_i32(&w, 1, p->num_values);
        cf_thrift_write_field_i32(&w, 2, CF_PARQUET_PLAIN);
        cf_thrift_write_struct_end(&w);
    } else if (v2) {
        cf_thrift_write_field(&w, 8, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(&w);
        cf_thrift_write_field_i32(&w, 1, p->num_values);
        cf_thrift_write_field_i32(&w, 2, p->num_nulls);
        cf_thrift_write_field_i32(&w, 3, p->num_rows);
        cf_thrift_write_field_i32(&w, 4, CF_PARQUET_PLAIN);
        cf_thrift_write_field_i32(&w, 5, (int32_t)p->def_len);
        cf_thrift_write_field_i32(&w, 6, (int32_t)p->rep_len);
        cf_thrift_write_struct_end(&w);
    } else {
        cf_thrift_write_field(&w, 5, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(&w);
        cf_thrift_write_field_i32(&w, 1, p->num_values);
        cf_thrift_write_field_i32(&w, 2, CF_PARQUET_PLAIN);
        cf_thrift_write_field_i32(&w, 3, CF_PARQUET_RLE);
        cf_thrift_write_field_i32(&w, 4, CF_PARQUET_RLE);
        cf_thrift_write_struct_end(&w);
    }
    cf_thrift_write_struct_end(&w);
    if (v2) {
        cf_buf_append(f, p->rep, p->rep_len);
        cf_buf_append(f, p->def, p->def_len);
    }
    cf_buf_append(f, payload.data, payload.len);
    cf_buf_dispose(&raw);
    cf_buf_dispose(&payload);
}

/* "PAR1", the pages of each column, FileMetaData, length, "PAR1"; every leaf
 * of its ptype (INT32 unless said) with `codec`. */
static void build(cf_buf *f, const tel *els, int nel, const tcol *cols, int ncols, int codec,
                  int64_t num_rows)
{
    static const int32_t encodings[] = {CF_PARQUET_PLAIN, CF_PARQUET_RLE};
    pqt_chunk chunks[8];
    cf_buf_append(f, "PAR1", 4);
    for (int c = 0; c < ncols; c++) {
        pqt_chunk *k = &chunks[c];
        *k = (pqt_chunk){.type = cols[c].ptype ? cols[c].ptype : CF_PARQUET_INT32,
                         .encodings = encodings,
                         .encoding_count = 2,
                         .path = cols[c].path,
                         .path_len = cols[c].path_len,
                         .codec = codec,
                         .num_values = cols[c].num_values,
                         .offset = (int64_t)f->len,
                         .data_off = -1,
                         .dict_off = -1};
        for (int i = 0; i < cols[c].page_count; i++) {
            if (cols[c].pages[i].type == CF_PARQUET_DICTIONARY_PAGE)
                k->dict_off = k->offset;
            else if (k->data_off < 0)
                k->data_off = (int64_t)f->len;
            put_page(f, codec, &cols[c].pages[i]);
        }
        k->len = (int64_t)f->len - k->offset;
    }
    pqt_footer(f, els, nel, num_rows, chunks, ncols);
}

static char tmp_dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/cf_pq_edges_XXXXXX");
    assert_non_null(mkdtemp(tmp_dir));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void save(const cf_buf *f, const char *name, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", tmp_dir, name);
    FILE *o = fopen(path, "wb");
    assert_non_null(o);
    assert_int_equal(fwrite(f->data, 1, f->len, o), f->len);
    assert_int_equal(fclose(o), 0);
}

/* Run `cfile ARGS...` (NULL-terminated); exit code, stdout and stderr. */
static int cli(char **out, char **errs, const char *const *args)
{
    char *argv[16] = {"cfile"};
    int argc = 1;
    while (args[argc - 1])
        argv[argc] = (char *)args[argc - 1], argc++;
    argv[argc] = NULL;
    size_t ol, el;
    FILE *o = open_memstream(out, &ol), *e = open_memstream(errs, &el);
    int rc = cf_cli_main(argc, argv, o, e);
    fclose(o);
    fclose(e);
    return rc;
}

/* ---- empty pages with 0-byte payloads ------------------------------------------------- */

static const tel flat_required[] = {
    {"schema", -1, -1, 1, -1},
    {"x", CF_PARQUET_INT32, CF_PARQUET_REQUIRED, 0, -1},
};

/* optional int32 x (max def 1) */
static const tel flat_optional[] = {
    {"schema", -1, -1, 1, -1},
    {"x", CF_PARQUET_INT32, CF_PARQUET_OPTIONAL, 0, -1},
};

static void test_cli_pq_edges__empty_payloads(void **state)
{
    (void)state;
    const int32_t vals[] = {1, 2, 3};
    for (int codec = CF_PARQUET_UNCOMPRESSED; codec <= CF_PARQUET_LZ4_RAW; codec++) {
        /* A dictionary page of no values, a page of values, then an empty v2
         * and an empty v1 page, each with nothing stored. */
        const tpage pages[] = {
            {CF_PARQUET_DICTIONARY_PAGE, 0, 0, 0, "", "", 0, 0, "", 0, true},
            {CF_PARQUET_DATA_PAGE, 3, 0, 3, "", "", 0, 0, vals, sizeof vals, false},
            {CF_PARQUET_DATA_PAGE_V2, 0, 0, 0, "", "", 0, 0, "", 0, true},
            {CF_PARQUET_DATA_PAGE, 0, 0, 0, "", "", 0, 0, "", 0, true},
        };
        tcol col = {{"x"}, 1, 3, pages, 4, 0};
        cf_buf f;
        cf_buf_init(&f);
        build(&f, flat_required, 2, &col, 1, codec, 3);
        char path[400];
        save(&f, "empty.parquet", path, sizeof path);
        char *out, *errs;
        const char *dump[] = {"parquet", "dump", path, NULL};
        int rc = cli(&out, &errs, dump);
        if (rc != 0 || strcmp(out, "{\"x\":1}\n{\"x\":2}\n{\"x\":3}\n") != 0)
            fail_msg("codec %d: exit %d, out '%s', err '%s'", codec, rc, out, errs);
        free(out);
        free(errs);
        const char *verify[] = {"parquet", "verify", path, NULL};
        rc = cli(&out, &errs, verify);
        if (rc != 0)
            fail_msg("codec %d: verify exit %d: %s%s", codec, rc, out, errs);
        free(out);
        free(errs);

        /* The same with the v2 page claiming two values: damage. */
        cf_buf_clear(&f);
        const tpage bad[] = {
            pages[1],
            {CF_PARQUET_DATA_PAGE_V2, 2, 0, 2, "", "", 0, 0, vals, 8, true},
        };
        tcol bcol = {{"x"}, 1, 5, bad, 2, 0};
        build(&f, flat_required, 2, &bcol, 1, codec, 5);
        save(&f, "nonempty.parquet", path, sizeof path);
        rc = cli(&out, &errs, dump);
        if (rc != 1 || !strstr(errs, "row group 0 column 0 page 1"))
            fail_msg("codec %d: exit %d, err '%s'", codec, rc, errs);
        free(out);
        free(errs);

        /* An OPTIONAL column's v2 page of three nulls: levels only, 0 value
         * bytes stored (DuckDB reads it so), after a page of one value. */
        cf_buf_clear(&f);
        static const char def1[] = "\x02\x00\x00\x00\x02\x01"; /* 1 x def 1 */
        static const char def0[] = "\x06\x00";                 /* 3 x def 0 */
        const tpage nulls[] = {
            {CF_PARQUET_DATA_PAGE, 1, -1, 1, "", def1, 0, 6, vals, 4, false},
            {CF_PARQUET_DATA_PAGE_V2, 3, 3, 3, "", def0, 0, 2, "", 0, true},
        };
        tcol ncol = {{"x"}, 1, 4, nulls, 2, 0};
        build(&f, flat_optional, 2, &ncol, 1, codec, 4);
        save(&f, "nulls.parquet", path, sizeof path);
        rc = cli(&out, &errs, dump);
        if (rc != 0 || strcmp(out, "{\"x\":1}\n{\"x\":null}\n{\"x\":null}\n{\"x\":null}\n") != 0)
            fail_msg("codec %d: all-null v2 page: exit %d, out '%s', err '%s'", codec, rc, out,
                     errs);
        free(out);
        free(errs);
        cf_buf_dispose(&f);
    }
}

/* ---- levels above their maximum ------------------------------------------------------ */

/* optional group a (LIST) { repeated group list { optional int32 element } }:
 * max def 3, max rep 1 */
static const tel list3[] = {
    {"schema", -1, -1, 1, -1},
    {"a", -1, CF_PARQUET_OPTIONAL, 1, CF_PARQUET_CT_LIST},
    {"list", -1, CF_PARQUET_REPEATED, 1, -1},
    {"element", CF_PARQUET_INT32, CF_PARQUET_OPTIONAL, 0, -1},
};
/* optional group m (MAP) { repeated group key_value { required int32 key;
 * optional int32 value } }: key def 2, value def 3, both rep 1 */
static const tel map3[] = {
    {"schema", -1, -1, 1, -1},
    {"m", -1, CF_PARQUET_OPTIONAL, 1, CF_PARQUET_CT_MAP},
    {"key_value", -1, CF_PARQUET_REPEATED, 2, -1},
    {"key", CF_PARQUET_INT32, CF_PARQUET_REQUIRED, 0, -1},
    {"value", CF_PARQUET_INT32, CF_PARQUET_OPTIONAL, 0, -1},
};
/* optional group s { repeated group r { optional int32 v } }: def 3, rep 1 */
static const tel nested[] = {
    {"schema", -1, -1, 1, -1},
    {"s", -1, CF_PARQUET_OPTIONAL, 1, -1},
    {"r", -1, CF_PARQUET_REPEATED, 1, -1},
    {"v", CF_PARQUET_INT32, CF_PARQUET_OPTIONAL, 0, -1},
};

/* Each command on `path` exits 1 naming `where` and "exceeds the maximum"
 * (`convert` only for shapes a Kudu column holds). */
static void expect_refused(const char *path, const char *where, const char *what, bool convert)
{
    char cfile_out[400], dir_out[400];
    snprintf(cfile_out, sizeof cfile_out, "%s/out.cfile", tmp_dir);
    snprintf(dir_out, sizeof dir_out, "%s/out_cfiles", tmp_dir);
    const char *const cmds[][8] = {
        {"parquet", "dump", path, NULL},
        {"parquet", "dump", "--json", path, NULL},
        {"parquet", "head", path, NULL},
        {"parquet", "verify", path, NULL},
        {"convert", "--to", "cfiles", path, dir_out, NULL},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        if (!convert && strcmp(cmds[i][0], "convert") == 0)
            continue;
        char *out, *errs;
        int rc = cli(&out, &errs, cmds[i]);
        const char *msg = strstr(errs, where) ? errs : out; /* verify reports on stdout */
        if (rc != 1 || !strstr(msg, where) || !strstr(msg, "exceeds the maximum"))
            fail_msg("%s: %s %s: exit %d, out '%s', err '%s'", what, cmds[i][0], cmds[i][1], rc,
                     out, errs);
        free(out);
        free(errs);
    }
    /* The Arrow stream: the batch fails with the same message. */
    cf_error err;
    cf_io *io;
    cf_parquet *pq;
    CF_ASSERT_OK(cf_io_open_file(&io, path, &err), &err);
    CF_ASSERT_OK(cf_parquet_open(&pq, io, NULL, &err), &err);
    struct ArrowArrayStream s;
    CF_ASSERT_OK(cf_arrow_stream_parquet(&s, pq, NULL, NULL, &err), &err);
    struct ArrowArray a;
    int rc = s.get_next(&s, &a);
    const char *msg = s.get_last_error(&s);
    if (rc == 0 || !msg || !strstr(msg, where) || !strstr(msg, "exceeds the maximum"))
        fail_msg("%s: arrow stream: %d '%s'", what, rc, msg ? msg : "");
    s.release(&s);
    cf_parquet_free(pq);
    cf_io_free(io);
}

static void test_cli_pq_edges__levels_above_maximum(void **state)
{
    (void)state;
    const int32_t vals[] = {1, 2, 3, 4};
    /* RLE runs: 0x06 = a repeated run of 3; the next byte its value. v1 levels
     * carry a 4-byte length first. */
    static const char def2_v1[] = "\x02\x00\x00\x00\x06\x02"; /* 3 x level 2 */
    static const char def2_v2[] = "\x06\x02";
    static const char def4_v1[] = "\x02\x00\x00\x00\x06\x04"; /* 3 x 4 (width 2) */
    static const char rep2_v1[] = "\x02\x00\x00\x00\x06\x02"; /* 3 x rep 2 */
    static const char def3_v1[] = "\x02\x00\x00\x00\x06\x03"; /* 3 x 3: fine for max 3 */
    static const char rep0_v1[] = "\x02\x00\x00\x00\x06\x00";
    static const char def7_v1[] = "\x02\x00\x00\x00\x06\x07";  /* 3 x 7 (width 2, max 3) */
    static const char def2k_v1[] = "\x02\x00\x00\x00\x06\x02"; /* key column: max 2 */
    char path[400];
    cf_buf f;
    cf_buf_init(&f);

    /* Flat OPTIONAL, v1 and v2. */
    const tpage flat_v1[] = {{CF_PARQUET_DATA_PAGE, 3, -1, 3, "", def2_v1, 0, 6, vals, 12, false}};
    const tpage flat_v2[] = {
        {CF_PARQUET_DATA_PAGE_V2, 3, 0, 3, "", def2_v2, 0, 2, vals, 12, false}};
    tcol c = {{"x"}, 1, 3, flat_v1, 1, 0};
    build(&f, flat_optional, 2, &c, 1, CF_PARQUET_SNAPPY, 3);
    save(&f, "flat_v1.parquet", path, sizeof path);
    expect_refused(path, "row group 0 column 0 page 0", "flat v1", true);
    cf_buf_clear(&f);
    c.pages = flat_v2;
    build(&f, flat_optional, 2, &c, 1, CF_PARQUET_UNCOMPRESSED, 3);
    save(&f, "flat_v2.parquet", path, sizeof path);
    expect_refused(path, "row group 0 column 0 page 0", "flat v2", true);

    /* LIST: a definition level of 4, then a repetition level of 2. */
    const tpage list_def[] = {
        {CF_PARQUET_DATA_PAGE, 3, -1, 3, rep0_v1, def4_v1, 6, 6, vals, 12, false}};
    const tpage list_rep[] = {
        {CF_PARQUET_DATA_PAGE, 3, -1, 3, rep2_v1, def3_v1, 6, 6, vals, 12, false}};
    tcol lc = {{"a", "list", "element"}, 3, 3, list_def, 1, 0};
    cf_buf_clear(&f);
    build(&f, list3, 4, &lc, 1, CF_PARQUET_UNCOMPRESSED, 3);
    save(&f, "list_def.parquet", path, sizeof path);
    expect_refused(path, "row group 0 column 0 page 0", "list def", true);
    lc.pages = list_rep;
    cf_buf_clear(&f);
    build(&f, list3, 4, &lc, 1, CF_PARQUET_UNCOMPRESSED, 3);
    save(&f, "list_rep.parquet", path, sizeof path);
    expect_refused(path, "row group 0 column 0 page 0", "list rep", true);

    /* MAP: the value column (the second) has definition level 7. */
    const tpage key_pages[] = {
        {CF_PARQUET_DATA_PAGE, 3, -1, 3, rep0_v1, def2k_v1, 6, 6, vals, 12, false}};
    const tpage value_pages[] = {
        {CF_PARQUET_DATA_PAGE, 3, -1, 3, rep0_v1, def7_v1, 6, 6, vals, 12, false}};
    tcol mc[] = {{{"m", "key_value", "key"}, 3, 3, key_pages, 1, 0},
                 {{"m", "key_value", "value"}, 3, 3, value_pages, 1, 0}};
    cf_buf_clear(&f);
    build(&f, map3, 5, mc, 2, CF_PARQUET_UNCOMPRESSED, 3);
    save(&f, "map.parquet", path, sizeof path);
    expect_refused(path, "row group 0 column 1 page 0", "map value", false);

    /* A struct holding a repeated group: repetition level 2. */
    tcol nc = {{"s", "r", "v"}, 3, 3, list_rep, 1, 0};
    cf_buf_clear(&f);
    build(&f, nested, 4, &nc, 1, CF_PARQUET_GZIP, 3);
    save(&f, "nested.parquet", path, sizeof path);
    expect_refused(path, "row group 0 column 0 page 0", "nested rep", false);
    cf_buf_dispose(&f);
}

/* ---- STRING bytes that are not UTF-8 ------------------------------------------------- */

static void test_cli_pq_edges__string_not_utf8(void **state)
{
    (void)state;
    /* E1 61 is not UTF-8; C3 A1 61 is "\u00e1a", the string E1 61 used to be
     * printed as. Also an ENUM and a JSON column, and a list of strings. */
    static const char vals[] = "\x02\x00\x00\x00\xe1\x61"
                               "\x03\x00\x00\x00\xc3\xa1\x61"
                               "\x02\x00\x00\x00ok";
    static const char def3[] = "\x02\x00\x00\x00\x06\x03"; /* 3 x def 3 */
    static const char rep3[] = "\x02\x00\x00\x00\x06\x00"; /* 3 x rep 0 */
    static const char l3[] = "\x02\x00\x00\x00\xe1\x61"
                             "\x01\x00\x00\x00\xff"
                             "\x02\x00\x00\x00ok";
    const tel els[] = {
        {"schema", -1, -1, 4, -1},
        {"s", CF_PARQUET_BYTE_ARRAY, CF_PARQUET_REQUIRED, 0, CF_PARQUET_CT_UTF8},
        {"e", CF_PARQUET_BYTE_ARRAY, CF_PARQUET_REQUIRED, 0, CF_PARQUET_CT_ENUM},
        {"j", CF_PARQUET_BYTE_ARRAY, CF_PARQUET_REQUIRED, 0, CF_PARQUET_CT_JSON},
        {"l", -1, CF_PARQUET_OPTIONAL, 1, CF_PARQUET_CT_LIST},
        {"list", -1, CF_PARQUET_REPEATED, 1, -1},
        {"element", CF_PARQUET_BYTE_ARRAY, CF_PARQUET_OPTIONAL, 0, CF_PARQUET_CT_UTF8},
    };
    const tpage p[] = {{CF_PARQUET_DATA_PAGE, 3, -1, 3, "", "", 0, 0, vals, sizeof vals - 1, 0}};
    const tpage lp3[] = {{CF_PARQUET_DATA_PAGE, 3, -1, 3, rep3, def3, 6, 6, l3, sizeof l3 - 1, 0}};
    const tcol cols3[] = {{{"s"}, 1, 3, p, 1, CF_PARQUET_BYTE_ARRAY},
                          {{"e"}, 1, 3, p, 1, CF_PARQUET_BYTE_ARRAY},
                          {{"j"}, 1, 3, p, 1, CF_PARQUET_BYTE_ARRAY},
                          {{"l", "list", "element"}, 3, 3, lp3, 1, CF_PARQUET_BYTE_ARRAY}};
    cf_buf f;
    cf_buf_init(&f);
    build(&f, els, 7, cols3, 4, CF_PARQUET_SNAPPY, 3);
    char path[400];
    save(&f, "strings.parquet", path, sizeof path);
    char *out, *errs;
    const char *dump[] = {"parquet", "dump", path, NULL};
    assert_int_equal(cli(&out, &errs, dump), 0);
    assert_string_equal(out, "{\"s\":{\"hex\":\"e161\"},\"e\":{\"hex\":\"e161\"},"
                             "\"j\":{\"hex\":\"e161\"},\"l\":[{\"hex\":\"e161\"}]}\n"
                             "{\"s\":\"\xc3\xa1"
                             "a\",\"e\":\"\xc3\xa1"
                             "a\",\"j\":\"\xc3\xa1"
                             "a\","
                             "\"l\":[{\"hex\":\"ff\"}]}\n"
                             "{\"s\":\"ok\",\"e\":\"ok\",\"j\":\"ok\",\"l\":[\"ok\"]}\n");
    free(out);
    free(errs);
    const char *head[] = {"parquet", "head", "-n", "1", path, NULL};
    assert_int_equal(cli(&out, &errs, head), 0);
    assert_string_equal(out, "{\"s\":{\"hex\":\"e161\"},\"e\":{\"hex\":\"e161\"},"
                             "\"j\":{\"hex\":\"e161\"},\"l\":[{\"hex\":\"e161\"}]}\n");
    free(out);
    free(errs);
    const char *json[] = {"parquet", "dump", "--json", path, NULL};
    assert_int_equal(cli(&out, &errs, json), 0);
    assert_non_null(strstr(out, "\"rows\":[[{\"hex\":\"e161\"},{\"hex\":\"e161\"},"
                                "{\"hex\":\"e161\"},[{\"hex\":\"e161\"}]],"));
    assert_null(strstr(out, "\\u00e1"));
    free(out);
    free(errs);
    cf_buf_dispose(&f);
}

/* ---- DuckDB's UNION ------------------------------------------------------------------- */

/* A UNION written by DuckDB: a group whose tag child has an empty name, read
 * as DuckDB reads it, a struct with a field named "". */
static void test_cli_pq_edges__duckdb_union(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/parquet/data/duckdb_union.parquet", CF_SOURCE_DIR);
    char *out, *errs;
    const char *dump[] = {"parquet", "dump", path, NULL};
    assert_int_equal(cli(&out, &errs, dump), 0);
    assert_string_equal(out, "{\"u\":{\"\":0,\"num\":1,\"str\":null}}\n"
                             "{\"u\":{\"\":1,\"num\":null,\"str\":\"hi\"}}\n"
                             "{\"u\":null}\n");
    free(out);
    free(errs);
    const char *verify[] = {"parquet", "verify", path, NULL};
    assert_int_equal(cli(&out, &errs, verify), 0);
    free(out);
    free(errs);
}

/* ---- help texts ---------------------------------------------------------------------- */

/* No help text of `cfile parquet` shows an identifier of the code ("sort
 * cf_pq_order" was left by a rename). */
static void test_cli_pq_edges__help_in_words(void **state)
{
    (void)state;
    static const char *const subs[] = {"meta", "schema", "pages", "dump",
                                       "head", "verify", "bloom", "write"};
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        char *out, *errs;
        const char *args[] = {"parquet", subs[i], "--help", NULL};
        assert_int_equal(cli(&out, &errs, args), 0);
        if (strstr(out, "cf_") || strstr(errs, "cf_"))
            fail_msg("parquet %s --help shows a code identifier: %s%s", subs[i], out, errs);
        if (strcmp(subs[i], "verify") == 0)
            assert_non_null(strstr(out, "in the column's sort order;"));
        free(out);
        free(errs);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_pq_edges__empty_payloads),
        cmocka_unit_test(test_cli_pq_edges__levels_above_maximum),
        cmocka_unit_test(test_cli_pq_edges__string_not_utf8),
        cmocka_unit_test(test_cli_pq_edges__help_in_words),
        cmocka_unit_test(test_cli_pq_edges__duckdb_union),
    };
    if (setup(NULL) != 0)
        return 1;
    int rc = CF_RUN_TESTS(argc, argv, tests);
    return teardown(NULL) == 0 ? rc : 1;
}
