/* Reader resource limits: a file cannot make the reader allocate more than a
 * bounded multiple of its own size. Each case crafts a file whose sizes and
 * counts lie (PLAIN BINARY and BIT_SHUFFLE counts, nullable num_rows, array
 * counts, index entry counts, dictionary counts, block pointers, uncompressed
 * sizes, the footer's row count), runs it through open + verify + scan + seek
 * with allocation accounting on (src/util/alloc.h), and asserts that no single
 * allocation exceeded 4 x file size + 1 MiB, and that the lie was reported as
 * CF_ECORRUPT (or CF_EIO for pointers past the end) rather than believed.
 *
 * Files are crafted without checksums (a liar can always recompute CRCs) and
 * assembled here: "kuducfl2" header, the data blocks, a one-leaf positional
 * index, an optional dictionary and a footer packed with protobuf-c
 * (format §2.1-§2.3, §9.1). */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/cfile.h>

#include "cfile.pb-c.h"
#include "util/alloc.h"

#include "support_opts.h"

#define MIB (1024u * 1024u)

/* ---- little helpers ------------------------------------------------------------------ */

typedef struct bytes {
    uint8_t *p;
    size_t len, cap;
} bytes;

static void put(bytes *b, const void *src, size_t n)
{
    if (b->cap - b->len < n) {
        b->cap = (b->len + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    if (n)
        memcpy(b->p + b->len, src, n);
    b->len += n;
}

static void put_le32(bytes *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(b, x, 4);
}

static void put_varint(bytes *b, uint64_t v)
{
    uint8_t x[10];
    size_t n = 0;
    do {
        x[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
            x[n] |= 0x80;
        n++;
    } while (v);
    put(b, x, n);
}

/* Decode a varint at p; returns its length. */
static size_t get_varint(const uint8_t *p, uint64_t *v)
{
    size_t n = 0;
    *v = 0;
    do {
        *v |= (uint64_t)(p[n] & 0x7f) << (7 * n);
    } while (p[n++] & 0x80);
    return n;
}

static void store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* ---- valid files and their blocks ----------------------------------------------------- */

typedef struct blk {
    char kind[24];
    uint64_t off;
    uint32_t size;
} blk;

typedef struct blocks {
    blk b[64];
    size_t n;
} blocks;

static void on_block(void *ctx, const cf_block_report *rep)
{
    blocks *bs = ctx;
    assert_true(bs->n < 64);
    blk *b = &bs->b[bs->n++];
    snprintf(b->kind, sizeof b->kind, "%s", rep->kind);
    b->off = rep->off;
    b->size = rep->size;
}

/* Write a valid file without checksums; every option else from `o`. */
static bytes write_file(cf_writer_options *o, const void *vals, const uint32_t *counts, size_t n)
{
    cf_error err;
    cf_io *io;
    cf_writer *w;
    o->checksums = false;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    CF_ASSERT_OK(cf_writer_create(&w, io, o, &err), &err);
    if (o->is_array)
        CF_ASSERT_OK(cf_writer_append_arrays(w, vals, NULL, counts, NULL, n, &err), &err);
    else
        CF_ASSERT_OK(cf_writer_append(w, vals, NULL, n, &err), &err);
    CF_ASSERT_OK(cf_writer_finish(w, &err), &err);
    cf_slice s = cf_io_mem_contents(io);
    bytes out = {0};
    put(&out, s.data, s.len);
    cf_writer_free(w);
    cf_io_free(io);
    return out;
}

static blocks list_blocks(const bytes *f)
{
    cf_error err;
    cf_io *io;
    cf_reader *r;
    blocks bs = {0};
    CF_ASSERT_OK(cf_io_open_mem(&io, f->p, f->len, &err), &err);
    CF_ASSERT_OK(cf_reader_open(&r, io, NULL, &err), &err);
    CF_ASSERT_OK(cf_reader_verify(r, on_block, &bs, NULL, &err), &err);
    cf_reader_free(r);
    cf_io_free(io);
    return bs;
}

/* The stored bytes of the first block of `kind`. */
static bytes block_of(const bytes *f, const char *kind)
{
    blocks bs = list_blocks(f);
    for (size_t i = 0; i < bs.n; i++)
        if (strcmp(bs.b[i].kind, kind) == 0) {
            bytes out = {0};
            put(&out, f->p + bs.b[i].off, bs.b[i].size);
            return out;
        }
    fail_msg("no %s", kind);
    return (bytes){0};
}

/* ---- the assembler ------------------------------------------------------------------- */

typedef struct craft {
    cf_type type;
    cf_encoding enc;
    cf_compression comp; /* 0 = NONE */
    bool nullable, is_array;
    uint64_t num_values;
    const bytes *data;     /* one data block (stored bytes), first ordinal 0 */
    const bytes *dict;     /* DICT files */
    int32_t index_entries; /* 0 = the truth (1) */
    bool lie_ptr;          /* index entry points at (ptr_off, ptr_size) instead */
    uint64_t ptr_off;
    uint32_t ptr_size;
    uint32_t root_size; /* 0 = the truth */
    uint32_t dict_size; /* 0 = the truth */
} craft;

static bytes assemble(const craft *c)
{
    bytes f = {0};
    put(&f, "kuducfl2", 8);
    put_le32(&f, 0); /* empty header PB */
    uint64_t data_off = f.len;
    put(&f, c->data->p, c->data->len);
    /* One leaf: key = big-endian ordinal 0, then the pointer. */
    uint64_t root_off = f.len;
    put_varint(&f, 4);
    put(&f, "\0\0\0\0", 4);
    put_varint(&f, c->lie_ptr ? c->ptr_off : data_off);
    put_varint(&f, c->lie_ptr ? c->ptr_size : c->data->len);
    put_le32(&f, 0); /* entry offset */
    bytes trailer = {0};
    uint8_t tag = 0x08;
    put(&trailer, &tag, 1);
    put_varint(&trailer, (uint64_t)(uint32_t)(c->index_entries ? c->index_entries : 1));
    uint8_t leaf[2] = {0x10, 0x00};
    put(&trailer, leaf, 2);
    put(&f, trailer.p, trailer.len);
    put_le32(&f, (uint32_t)trailer.len);
    free(trailer.p);
    uint32_t root_len = (uint32_t)(f.len - root_off);
    uint64_t dict_off = f.len;
    if (c->dict)
        put(&f, c->dict->p, c->dict->len);

    Kudu__CFileFooterPB ft = KUDU__CFILE_FOOTER_PB__INIT;
    Kudu__BTreeInfoPB pos = KUDU__BTREE_INFO_PB__INIT;
    Kudu__BlockPointerPB root = KUDU__BLOCK_POINTER_PB__INIT, dictp = KUDU__BLOCK_POINTER_PB__INIT;
    ft.data_type = (Kudu__DataType)c->type;
    ft.encoding = (Kudu__EncodingType)c->enc;
    ft.num_values = (int64_t)c->num_values;
    root.offset = (int64_t)root_off;
    root.size = (int32_t)(c->root_size ? c->root_size : root_len);
    pos.root_block = &root;
    ft.posidx_info = &pos;
    ft.has_compression = 1;
    ft.compression = (Kudu__CompressionType)(c->comp ? c->comp : CF_COMP_NONE);
    ft.has_is_type_nullable = 1;
    ft.is_type_nullable = c->nullable;
    if (c->dict) {
        dictp.offset = (int64_t)dict_off;
        dictp.size = (int32_t)(c->dict_size ? c->dict_size : c->dict->len);
        ft.dict_block_ptr = &dictp;
    }
    ft.has_incompatible_features = 1;
    ft.incompatible_features = c->is_array ? CF_FEATURE_ARRAY_DATA_BLOCK : 0;
    if (c->is_array) {
        ft.has_is_type_array = 1;
        ft.is_type_array = 1;
    }
    size_t plen = kudu__cfile_footer_pb__get_packed_size(&ft);
    uint8_t *pb = malloc(plen);
    assert_non_null(pb);
    kudu__cfile_footer_pb__pack(&ft, pb);
    put(&f, pb, plen);
    free(pb);
    put(&f, "kuducfl2", 8);
    put_le32(&f, (uint32_t)plen);
    return f;
}

/* ---- running a hostile file ----------------------------------------------------------- */

typedef struct outcome {
    cf_status first; /* first error anywhere (CF_OK if none) */
    uint64_t rows;   /* rows a full scan returned */
    cf_alloc_stats stats;
} outcome;

static void note(outcome *o, cf_status st)
{
    if (o->first == CF_OK)
        o->first = st;
}

static outcome run(const bytes *f, size_t max_block_len)
{
    outcome o = {CF_OK, 0, {0}};
    cf_error err;
    cf_io *io;
    cf_reader *r = NULL;
    cf_iter *it = NULL;
    cf_reader_options ro;
    cf_reader_options_init(&ro);
    if (max_block_len)
        ro.max_block_len = max_block_len;
    CF_ASSERT_OK(cf_io_open_mem(&io, f->p, f->len, &err), &err);
    cf_alloc_stats_start();
    cf_status st = cf_reader_open(&r, io, &ro, &err);
    if (st != CF_OK) {
        note(&o, st);
        goto out;
    }
    st = cf_reader_verify(r, NULL, NULL, NULL, &err);
    if (st != CF_OK)
        note(&o, st);
    st = cf_iter_create(&it, r, &err);
    if (st != CF_OK) {
        note(&o, st);
        goto out;
    }
    for (int guard = 0; guard < 100000; guard++) {
        cf_batch b;
        st = cf_iter_next_batch(it, 1000, &b, &err);
        if (st != CF_OK) {
            note(&o, st);
            break;
        }
        if (b.count == 0)
            break;
        o.rows += b.count;
    }
    const cf_file_info *fi = cf_reader_info(r);
    uint64_t ords[3] = {0, fi->num_values / 2, fi->num_values ? fi->num_values - 1 : 0};
    for (int i = 0; i < 3; i++) {
        st = cf_iter_seek_to_ordinal(it, ords[i], &err);
        if (st == CF_OK) {
            cf_batch b;
            st = cf_iter_next_batch(it, 1000, &b, &err);
        }
        if (st != CF_OK && st != CF_ENOTFOUND)
            note(&o, st);
    }
out:
    cf_iter_free(it);
    cf_reader_free(r);
    cf_alloc_stats_stop(&o.stats);
    cf_io_free(io);
    return o;
}

/* The bound of the issue: no single allocation beyond 4 x file + 1 MiB. */
static void assert_bounded(const char *what, const bytes *f, const outcome *o)
{
    size_t bound = 4 * f->len + MIB;
    print_message("%-40s file %6zu B: %s, largest alloc %zu B, peak live %zu B\n", what, f->len,
                  cf_status_str(o->first), o->stats.largest, o->stats.peak_live);
    if (o->stats.largest > bound)
        fail_msg("%s: an allocation of %zu bytes for a %zu-byte file (bound %zu)", what,
                 o->stats.largest, f->len, bound);
}

static void expect_rejected(const char *what, const bytes *f, size_t max_block_len)
{
    outcome o = run(f, max_block_len);
    assert_bounded(what, f, &o);
    if (o.first != CF_ECORRUPT && o.first != CF_EIO)
        fail_msg("%s: the lie was not reported (first status %s, %llu rows)", what,
                 cf_status_str(o.first), (unsigned long long)o.rows);
}

static int32_t g_ints[400];
static cf_slice g_strs[400];
static char g_strbuf[400][8];

/* Assemble c and expect the reader to reject it (see expect_rejected). */
static void reject(const char *what, const craft *c, size_t max_block_len)
{
    bytes f = assemble(c);
    expect_rejected(what, &f, max_block_len);
    free(f.p);
}

/* A file of n values written by our writer with options for type, enc (AUTO:
 * the writer's default) and nullable; its data block into *data when data is
 * not NULL. */
static bytes written(cf_type type, cf_encoding enc, bool nullable, const void *vals, size_t n,
                     bytes *data)
{
    cf_writer_options o;
    cf_writer_options_init(&o, type);
    if (enc != CF_ENC_AUTO)
        o.encoding = enc;
    o.nullable = nullable;
    bytes v = write_file(&o, vals, NULL, n);
    if (data != NULL)
        *data = block_of(&v, "data block");
    return v;
}

/* An INT32 nullable array file of 100 rows of 0..4 elements (200 in all),
 * and its data block into *data. */
static bytes array_file(bytes *data)
{
    cf_writer_options o =
        col_options((col_opts){.type = CF_TYPE_INT32, .is_array = true, .nullable = true});
    uint32_t counts[100];
    for (int i = 0; i < 100; i++)
        counts[i] = (uint32_t)(i % 5);
    bytes v = write_file(&o, g_ints, counts, 100);
    *data = block_of(&v, "data block");
    return v;
}

/* ---- the cases ----------------------------------------------------------------------- */

static int setup(void **state)
{
    (void)state;
    for (int i = 0; i < 400; i++) {
        g_ints[i] = i * 7 - 100;
        int len = snprintf(g_strbuf[i], sizeof g_strbuf[i], "s%04d", i % 50);
        g_strs[i] = (cf_slice){(const uint8_t *)g_strbuf[i], (size_t)len};
    }
    return 0;
}

/* The accounting sees what it must: a large request, its bytes live, its free. */
static void test_limits__accounting_counts(void **state)
{
    (void)state;
    cf_alloc_stats st;
    cf_alloc_stats_start();
    void *p = cf_malloc(5 * MIB);
    assert_non_null(p);
    void *q = cf_calloc(3, 1000);
    q = cf_realloc(q, 7000);
    cf_free(p);
    cf_free(q);
    cf_alloc_stats_stop(&st);
    assert_int_equal(st.calls, 3);
    assert_int_equal(st.largest, 5 * MIB);
    assert_true(st.peak_live >= 5 * MIB && st.peak_live < 6 * MIB);
    /* Stopped: nothing more is counted. */
    p = cf_malloc(10 * MIB);
    cf_free(p);
    cf_alloc_stats_stop(&st);
    assert_int_equal(st.largest, 5 * MIB);
}

/* The assembler itself: truthful inputs give a file that reads back whole. */
static void test_limits__assembler_makes_valid_files(void **state)
{
    (void)state;
    bytes data;
    bytes v = written(CF_TYPE_STRING, CF_ENC_DICT, false, g_strs, 400, &data);
    bytes dict = block_of(&v, "dictionary block");
    craft c = {.type = CF_TYPE_STRING,
               .enc = CF_ENC_DICT,
               .num_values = 400,
               .data = &data,
               .dict = &dict};
    bytes f = assemble(&c);
    outcome out = run(&f, 0);
    assert_int_equal(out.first, CF_OK);
    assert_int_equal(out.rows, 400);
    assert_bounded("truthful DICT file", &f, &out);
    free(f.p);

    bytes adata;
    bytes va = array_file(&adata);
    craft ca = {.type = CF_TYPE_INT32,
                .enc = cf_type_default_encoding(CF_TYPE_INT32),
                .nullable = true,
                .is_array = true,
                .num_values = 100,
                .data = &adata};
    f = assemble(&ca);
    out = run(&f, 0);
    assert_int_equal(out.first, CF_OK);
    assert_int_equal(out.rows, 100);
    free(f.p);
    free(v.p);
    free(data.p);
    free(dict.p);
    free(va.p);
    free(adata.p);
}

static void test_limits__plain_binary_counts(void **state)
{
    (void)state;
    bytes data;
    bytes v = written(CF_TYPE_STRING, CF_ENC_PLAIN, false, g_strs, 400, &data);
    craft c = {.type = CF_TYPE_STRING, .enc = CF_ENC_PLAIN, .num_values = 400, .data = &data};
    uint32_t lies[] = {401, 100000, 0x7fffffff, 0xffffffff};
    for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
        store_le32(data.p + 4, lies[i]); /* count */
        c.num_values = lies[i];          /* the footer agrees with the lie */
        reject("PLAIN BINARY count", &c, 0);
    }
    free(data.p);
    data = block_of(&v, "data block");
    store_le32(data.p + 8, 0xfffffff0); /* offsets_pos */
    c.num_values = 400;
    reject("PLAIN BINARY offsets_pos", &c, 0);
    free(data.p);
    free(v.p);
}

static void test_limits__bitshuffle_counts(void **state)
{
    (void)state;
    bytes v = written(CF_TYPE_INT32, CF_ENC_BIT_SHUFFLE, false, g_ints, 400, NULL);
    craft c = {.type = CF_TYPE_INT32, .enc = CF_ENC_BIT_SHUFFLE, .num_values = 400};
    struct {
        uint32_t count, padded;
    } lies[] = {{0x10000000, 0x10000000},
                {0x7ffffff9, 0x80000000},
                {401, 408},
                {400, 0x7ffffff8},
                {0xffffffff, 0}};
    for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
        bytes data = block_of(&v, "data block");
        store_le32(data.p + 4, lies[i].count);
        store_le32(data.p + 12, lies[i].padded);
        c.data = &data;
        c.num_values = lies[i].count;
        reject("BIT_SHUFFLE count", &c, 0);
        free(data.p);
    }
    free(v.p);
}

/* Replace the leading varint(s) of a block: keep `skip` varints, put `lie`
 * instead of the next one, keep the rest. */
static bytes replace_varint(const bytes *b, int index, uint64_t lie)
{
    bytes out = {0};
    size_t pos = 0;
    for (int i = 0; i < index; i++) {
        uint64_t x;
        size_t n = get_varint(b->p + pos, &x);
        put(&out, b->p + pos, n);
        pos += n;
    }
    uint64_t old;
    pos += get_varint(b->p + pos, &old);
    put_varint(&out, lie);
    put(&out, b->p + pos, b->len - pos);
    return out;
}

static void test_limits__nullable_num_rows(void **state)
{
    (void)state;
    bytes data;
    bytes v = written(CF_TYPE_INT32, CF_ENC_PLAIN, true, g_ints, 400, &data);
    uint64_t lies[] = {401, 1000000, 0xffffffffu};
    for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
        bytes lying = replace_varint(&data, 0, lies[i]);
        craft c = {.type = CF_TYPE_INT32,
                   .enc = CF_ENC_PLAIN,
                   .nullable = true,
                   .num_values = 400,
                   .data = &lying};
        reject("nullable num_rows", &c, 0);
        c.num_values = lies[i]; /* the footer agrees with the lie */
        reject("nullable num_rows (footer agrees)", &c, 0);
        free(lying.p);
    }
    /* bitmap_len beyond the block. */
    bytes lying = replace_varint(&data, 1, 0x7fffffff);
    craft c = {.type = CF_TYPE_INT32,
               .enc = CF_ENC_PLAIN,
               .nullable = true,
               .num_values = 400,
               .data = &lying};
    reject("nullable bitmap_len", &c, 0);
    free(lying.p);
    free(data.p);
    free(v.p);
}

static void test_limits__array_counts(void **state)
{
    (void)state;
    bytes data;
    bytes v = array_file(&data);
    struct {
        int field;
        uint64_t lie;
        const char *what;
    } lies[] = {{0, 201, "array flat_count +1"},
                {0, 0xffffffffu, "array flat_count"},
                {1, 0xffffffffu, "array array_count"},
                {1, 101, "array array_count +1"},
                {2, 0x7fffffff, "array flat_bitmap_len"}};
    for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
        bytes lying = replace_varint(&data, lies[i].field, lies[i].lie);
        craft c = {.type = CF_TYPE_INT32,
                   .enc = cf_type_default_encoding(CF_TYPE_INT32),
                   .nullable = true,
                   .is_array = true,
                   .num_values = 100,
                   .data = &lying};
        if (lies[i].field == 1)
            c.num_values = lies[i].lie;
        reject(lies[i].what, &c, 0);
        free(lying.p);
    }
    free(data.p);
    free(v.p);
}

static void test_limits__index_entry_counts_and_pointers(void **state)
{
    (void)state;
    bytes data;
    bytes v = written(CF_TYPE_INT32, CF_ENC_PLAIN, false, g_ints, 400, &data);
    craft c = {.type = CF_TYPE_INT32, .enc = CF_ENC_PLAIN, .num_values = 400, .data = &data};
    int32_t entries[] = {2, 1000, 0x7fffffff, -1};
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        c.index_entries = entries[i];
        reject("index entry count", &c, 0);
    }
    c.index_entries = 0;
    /* Block pointers: huge size, past the end, overlapping the footer. */
    struct {
        uint64_t off;
        uint32_t size;
    } ptrs[] = {{12, 0x7fffffff}, {12, 0xffffffff}, {1u << 30, 64}, {UINT64_MAX - 8, 64}};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) {
        c.lie_ptr = true;
        c.ptr_off = ptrs[i].off;
        c.ptr_size = ptrs[i].size;
        reject("data block pointer", &c, 0);
    }
    c.lie_ptr = false;
    uint32_t roots[] = {0x7fffffff, 1u << 24, 3};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        c.root_size = roots[i];
        reject("index root size", &c, 0);
    }
    free(data.p);
    free(v.p);
}

static void test_limits__dictionary_counts(void **state)
{
    (void)state;
    bytes data;
    bytes v = written(CF_TYPE_STRING, CF_ENC_DICT, false, g_strs, 400, &data);
    uint32_t lies[] = {51, 100000, 0x7fffffff, 0xffffffff};
    for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
        bytes dict = block_of(&v, "dictionary block");
        store_le32(dict.p + 4, lies[i]);
        craft c = {.type = CF_TYPE_STRING,
                   .enc = CF_ENC_DICT,
                   .num_values = 400,
                   .data = &data,
                   .dict = &dict};
        reject("dictionary count", &c, 0);
        free(dict.p);
    }
    /* The codeword block's count (mode word, then a BIT_SHUFFLE header). */
    bytes dict = block_of(&v, "dictionary block");
    bytes lying = {0};
    put(&lying, data.p, data.len);
    store_le32(lying.p + 4 + 4, 0x7ffffff8);
    store_le32(lying.p + 4 + 12, 0x7ffffff8);
    craft c = {.type = CF_TYPE_STRING,
               .enc = CF_ENC_DICT,
               .num_values = 400,
               .data = &lying,
               .dict = &dict};
    reject("dictionary codeword count", &c, 0);
    c.data = &data;
    c.dict_size = 0x7fffffff;
    reject("dictionary block pointer size", &c, 0);
    free(lying.p);
    free(dict.p);
    free(data.p);
    free(v.p);
}

static void test_limits__uncompressed_size(void **state)
{
    (void)state;
    cf_writer_options o =
        col_options((col_opts){.type = CF_TYPE_INT32, .enc = CF_ENC_PLAIN, .comp = CF_COMP_LZ4});
    int32_t zeros[400] = {0}; /* compresses, so the block carries a real payload */
    bytes v = write_file(&o, zeros, NULL, 400);
    /* The reader's limit, then a smaller limit set by the caller. */
    struct {
        uint32_t u;
        size_t max;
    } lies[] = {{CF_DEFAULT_MAX_BLOCK_LEN + 1, 0},
                {0xffffffff, 0},
                {64 * 1024 + 1, 64 * 1024},
                {64 * 1024, 64 * 1024},
                {1601, 0}};
    for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
        bytes data = block_of(&v, "data block");
        store_le32(data.p, lies[i].u);
        craft c = {.type = CF_TYPE_INT32,
                   .enc = CF_ENC_PLAIN,
                   .comp = CF_COMP_LZ4,
                   .num_values = 400,
                   .data = &data};
        reject("uncompressed size", &c, lies[i].max);
        free(data.p);
    }
    free(v.p);
}

/* A footer claiming 2^40 rows over one block of 400. */
static void test_limits__footer_num_values(void **state)
{
    (void)state;
    int64_t v64[400] = {0};
    bytes data;
    bytes v = written(CF_TYPE_INT64, CF_ENC_PLAIN, false, v64, 400, &data);
    uint64_t lies[] = {401, UINT64_C(1) << 40, (uint64_t)INT64_MAX};
    for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
        craft c = {
            .type = CF_TYPE_INT64, .enc = CF_ENC_PLAIN, .num_values = lies[i], .data = &data};
        reject("footer num_values", &c, 0);
    }
    free(data.p);
    free(v.p);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limits__accounting_counts),
        cmocka_unit_test_setup(test_limits__assembler_makes_valid_files, setup),
        cmocka_unit_test_setup(test_limits__plain_binary_counts, setup),
        cmocka_unit_test_setup(test_limits__bitshuffle_counts, setup),
        cmocka_unit_test_setup(test_limits__nullable_num_rows, setup),
        cmocka_unit_test_setup(test_limits__array_counts, setup),
        cmocka_unit_test_setup(test_limits__index_entry_counts_and_pointers, setup),
        cmocka_unit_test_setup(test_limits__dictionary_counts, setup),
        cmocka_unit_test_setup(test_limits__uncompressed_size, setup),
        cmocka_unit_test_setup(test_limits__footer_num_values, setup),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
