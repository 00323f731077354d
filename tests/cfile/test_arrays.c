/* Array columns end to end through the public API (format §6.3, §10.3, §14.6):
 * the exact bytes of the three worked examples of Kudu's design document, round
 * trips of every scalar element type x allowed encoding x nullability x codec
 * (NULL cells, empty cells, NULL elements, cells longer than a block), seeks,
 * where blocks end, the writer's refusals, and crafted array blocks whose
 * counts or bitmaps disagree, which must read as CF_ECORRUPT. */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include <cfile/cfile.h>

#include "codec/crc32c.h"

#include "support_mem.h"
#include "support_opts.h"

/* ---- helpers ---------------------------------------------------------------------- */

/* The cells of an array column, in test form (bools rather than bitmaps). */
typedef struct cells {
    cf_type type;
    size_t es;
    size_t n;         /* cells */
    uint32_t *counts; /* elements per cell (0 for NULL cells) */
    bool *cell_nn;    /* cell present */
    size_t *starts;   /* n + 1 flattened starts */
    size_t nelem;
    uint8_t *elems; /* nelem * es; cf_slice for binary types */
    bool *elem_nn;  /* element present */
    uint8_t *pool;  /* bytes of binary elements */
} cells;

static void cells_free(cells *c)
{
    free(c->counts);
    free(c->cell_nn);
    free(c->starts);
    free(c->elems);
    free(c->elem_nn);
    free(c->pool);
    memset(c, 0, sizeof *c);
}

static void set_bit(uint8_t *bm, size_t i, bool v)
{
    if (v)
        bm[i / 8] |= (uint8_t)(1u << (i % 8));
    else
        bm[i / 8] &= (uint8_t) ~(1u << (i % 8));
}

static bool get_bit(const uint8_t *bm, size_t i)
{
    return (bm[i / 8] >> (i % 8)) & 1;
}

static void cells_finish_starts(cells *c)
{
    c->starts = malloc((c->n + 1) * sizeof *c->starts);
    size_t s = 0;
    for (size_t i = 0; i < c->n; i++) {
        c->starts[i] = s;
        s += c->counts[i];
    }
    c->starts[c->n] = s;
    assert_int_equal(s, c->nelem);
}

/* INT32 cells from a compact description: counts[i] < 0 is a NULL cell;
 * vals holds every element, INT32_MIN marking a NULL element. */
static void cells_int32(cells *c, const int *counts, size_t n, const int32_t *vals, size_t nvals)
{
    memset(c, 0, sizeof *c);
    c->type = CF_TYPE_INT32;
    c->es = 4;
    c->n = n;
    c->counts = calloc(n + 1, sizeof *c->counts);
    c->cell_nn = calloc(n + 1, sizeof *c->cell_nn);
    for (size_t i = 0; i < n; i++) {
        c->cell_nn[i] = counts[i] >= 0;
        c->counts[i] = counts[i] >= 0 ? (uint32_t)counts[i] : 0;
    }
    c->nelem = nvals;
    c->elems = calloc(nvals + 1, 4);
    c->elem_nn = calloc(nvals + 1, sizeof *c->elem_nn);
    for (size_t i = 0; i < nvals; i++) {
        c->elem_nn[i] = vals[i] != INT32_MIN;
        int32_t v = c->elem_nn[i] ? vals[i] : 0;
        memcpy(c->elems + i * 4, &v, 4);
    }
    cells_finish_starts(c);
}

/* Append cells [from, to) in one call. */
static cf_status append_range(cf_writer *w, const cells *c, size_t from, size_t to, cf_error *err)
{
    size_t n = to - from, e0 = c->starts[from], ne = c->starts[to] - e0;
    uint8_t *cnn = calloc(n / 8 + 1, 1), *enn = calloc(ne / 8 + 1, 1);
    for (size_t i = 0; i < n; i++)
        set_bit(cnn, i, c->cell_nn[from + i]);
    for (size_t i = 0; i < ne; i++)
        set_bit(enn, i, c->elem_nn[e0 + i]);
    cf_status st =
        cf_writer_append_arrays(w, c->elems + e0 * c->es, enn, c->counts + from, cnn, n, err);
    free(cnn);
    free(enn);
    return st;
}

/* Write all cells in calls of `batch` cells (0 = random call sizes from rng). */
static cf_status write_cells(const cf_writer_options *o, const cells *c, size_t batch, cf_rng *rng,
                             mem_file *out, cf_error *err)
{
    cf_io *io;
    cf_writer *w;
    cf_status st = mem_writer_create(&w, &io, o, err);
    if (st != CF_OK)
        return st;
    for (size_t i = 0; st == CF_OK && i < c->n;) {
        size_t k = batch ? batch : 1 + (size_t)cf_rng_below(rng, 40);
        if (k > c->n - i)
            k = c->n - i;
        st = append_range(w, c, i, i + k, err);
        i += k;
    }
    return mem_file_finish(w, io, st, out, err);
}

/* Check that cell `ord` of the expectation is cell i of batch b. */
static void check_cell(const cells *c, bool nullable, const cf_batch *b, size_t i, uint64_t ord)
{
    bool binary = cf_type_is_binary(c->type);
    if (nullable) {
        assert_non_null(b->nonnull);
        if (get_bit(b->nonnull, i) != c->cell_nn[ord])
            fail_msg("cell %llu: NULL flag %d, want %d", (unsigned long long)ord,
                     !get_bit(b->nonnull, i), !c->cell_nn[ord]);
    } else {
        assert_null(b->nonnull);
    }
    size_t got_n = b->elem_offsets[i + 1] - b->elem_offsets[i];
    if (got_n != c->counts[ord])
        fail_msg("cell %llu: %zu elements, want %u", (unsigned long long)ord, got_n,
                 c->counts[ord]);
    for (size_t j = 0; j < got_n; j++) {
        size_t ge = b->elem_offsets[i] + j, we = c->starts[ord] + j;
        bool present = get_bit(b->elem_nonnull, ge);
        if (present != c->elem_nn[we])
            fail_msg("cell %llu element %zu: NULL flag %d, want %d", (unsigned long long)ord, j,
                     !present, !c->elem_nn[we]);
        const uint8_t *gv = (const uint8_t *)b->values + ge * c->es;
        const uint8_t *wv = c->elems + we * c->es;
        if (binary) {
            const cf_slice *gs = (const cf_slice *)(const void *)gv;
            const cf_slice *ws = (const cf_slice *)(const void *)wv;
            if (!present) {
                assert_int_equal(gs->len, 0);
            } else if (gs->len != ws->len || (ws->len && memcmp(gs->data, ws->data, ws->len))) {
                fail_msg("cell %llu element %zu: binary value differs (len %zu vs %zu)",
                         (unsigned long long)ord, j, gs->len, ws->len);
            }
        } else if (present) {
            if (memcmp(gv, wv, c->es) != 0)
                fail_msg("cell %llu element %zu: value differs", (unsigned long long)ord, j);
        } else {
            static const uint8_t zero[16];
            if (memcmp(gv, zero, c->es) != 0)
                fail_msg("cell %llu element %zu: a NULL element must read as zeros",
                         (unsigned long long)ord, j);
        }
    }
}

/* Scan the whole file in batches of random size and compare every cell. */
static void check_scan(const mem_file *m, const cells *c, bool nullable, cf_rng *rng)
{
    opened f;
    open_file(&f, m);
    const cf_file_info *fi = cf_reader_info(f.r);
    assert_true(fi->is_array);
    assert_true(fi->incompatible_features & CF_FEATURE_ARRAY_DATA_BLOCK);
    assert_int_equal(fi->type, c->type);
    assert_int_equal(fi->nullable, nullable);
    assert_int_equal(fi->num_values, c->n);
    cf_error err;
    uint64_t seen = 0;
    for (;;) {
        cf_batch b;
        size_t max = 1 + (size_t)cf_rng_below(rng, 97);
        CF_ASSERT_OK(cf_iter_next_batch(f.it, max, &b, &err), &err);
        if (b.count == 0)
            break;
        assert_true(b.count <= max);
        assert_int_equal(b.first_ord, seen);
        assert_int_equal(b.elem_offsets[0], 0);
        assert_int_equal(b.elem_offsets[b.count], b.elem_count);
        for (size_t i = 0; i < b.count; i++)
            check_cell(c, nullable, &b, i, seen + i);
        seen += b.count;
    }
    assert_int_equal(seen, c->n);
    /* Seeks by ordinal land on the right cell, in any block. */
    for (int k = 0; k < 40 && c->n > 0; k++) {
        uint64_t ord = cf_rng_below(rng, c->n);
        CF_ASSERT_OK(cf_iter_seek_to_ordinal(f.it, ord, &err), &err);
        assert_int_equal(cf_iter_current_ordinal(f.it), ord);
        cf_batch b;
        CF_ASSERT_OK(cf_iter_next_batch(f.it, 3, &b, &err), &err);
        assert_true(b.count >= 1);
        assert_int_equal(b.first_ord, ord);
        for (size_t i = 0; i < b.count; i++)
            check_cell(c, nullable, &b, i, ord + i);
    }
    size_t damaged = 99;
    CF_ASSERT_OK(cf_reader_verify(f.r, NULL, NULL, &damaged, &err), &err);
    assert_int_equal(damaged, 0);
    close_file(&f);
}

static size_t find_bytes(const mem_file *m, const uint8_t *pat, size_t n)
{
    for (size_t i = 0; i + n <= m->len; i++)
        if (memcmp(m->data + i, pat, n) == 0)
            return i;
    fail_msg("pattern not found in the file");
    return 0;
}

/* ---- the worked examples -------------------------------------------------------- */

/* Write c as a nullable INT32 PLAIN array file (one block, checksums on, no
 * compression) and return the data block's logical bytes (it starts right after
 * the 16-byte header; its stored size runs to the positional index root). */
static void example_block(const cells *c, bool nullable, mem_file *file, const uint8_t **logical,
                          size_t *len)
{
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_INT32,
                                                 .is_array = true,
                                                 .nullable = nullable,
                                                 .enc = CF_ENC_PLAIN,
                                                 .comp = CF_COMP_NONE,
                                                 .block_size = 1u << 20});
    cf_error err;
    CF_ASSERT_OK(write_cells(&o, c, c->n, NULL, file, &err), &err);
    opened f;
    open_file(&f, file);
    const cf_file_info *fi = cf_reader_info(f.r);
    assert_true(fi->has_posidx);
    assert_true(fi->posidx_root_off > 16 + 4);
    size_t stored = (size_t)fi->posidx_root_off - 16;
    close_file(&f);
    *logical = file->data + 16;
    *len = stored - 4;
    /* format §2.7: the CRC covers exactly the stored (here: logical) bytes. */
    uint32_t crc = (uint32_t)file->data[16 + *len] | (uint32_t)file->data[17 + *len] << 8 |
                   (uint32_t)file->data[18 + *len] << 16 | (uint32_t)file->data[19 + *len] << 24;
    assert_int_equal(crc, cf_crc32c(*logical, *len));
}

/* c written as example_block does: the logical data block is exactly
 * want[0..want_len), and the file (into *m) scans back as c (seed: the scan's
 * random batch sizes and seeks). */
static void example_check(const cells *c, bool nullable, const uint8_t *want, size_t want_len,
                          uint64_t seed, mem_file *m)
{
    const uint8_t *got;
    size_t got_len;
    example_block(c, nullable, m, &got, &got_len);
    CF_ASSERT_BYTES(got, got_len, want, want_len);
    cf_rng rng;
    cf_rng_init(&rng, seed);
    check_scan(m, c, nullable, &rng);
}

static void test_arrays__example_a_bytes(void **state)
{
    (void)state;
    /* format §14.6 (design doc Example A): [1,2] [] NULL [3,4] [5,6,7,8] [NULL] [9]. */
    static const int counts[] = {2, 0, -1, 2, 4, 1, 1};
    static const int32_t vals[] = {1, 2, 3, 4, 5, 6, 7, 8, INT32_MIN, 9};
    cells c;
    cells_int32(&c, counts, 7, vals, 10);
    uint8_t want[128];
    size_t want_len = cf_test_unhex("0a 07"
                                    "04 10 01 03 02"
                                    "0f 03 02 00 00 00 00 00 02 00 04 00 01 00 01 00"
                                    "02 03 7b"
                                    "09 00 00 00 00 00 00 00"
                                    "01 00 00 00 02 00 00 00 03 00 00 00 04 00 00 00"
                                    "05 00 00 00 06 00 00 00 07 00 00 00 08 00 00 00"
                                    "09 00 00 00",
                                    want, sizeof want);
    mem_file m;
    example_check(&c, true, want, want_len, 1, &m);
    /* The design doc's cell boundaries: starts 0,2,2,2,4,8,9, end 10. */
    static const size_t starts[] = {0, 2, 2, 2, 4, 8, 9, 10};
    opened f;
    open_file(&f, &m);
    cf_batch b;
    cf_error err;
    CF_ASSERT_OK(cf_iter_next_batch(f.it, 100, &b, &err), &err);
    assert_int_equal(b.count, 7);
    for (size_t i = 0; i <= 7; i++)
        assert_int_equal(b.elem_offsets[i], starts[i]);
    close_file(&f);
    free(m.data);
    cells_free(&c);
}

static void test_arrays__example_b_bytes(void **state)
{
    (void)state;
    /* Design doc Example B: element bitmap 011, counts 1,0,0,2, cell bitmap 1011,
     * data 4,2; i.e. cells [NULL], NULL, [], [4,2]. The bytes are ours (derived
     * with format §7.3: every stream here is one partial literal group, and a
     * literal group holds only the bits of its real values). */
    static const int counts[] = {1, -1, 0, 2};
    static const int32_t vals[] = {INT32_MIN, 4, 2};
    cells c;
    cells_int32(&c, counts, 4, vals, 3);
    uint8_t want[64];
    size_t want_len = cf_test_unhex("03 04"    /* flat_count 3, array_count 4 */
                                    "02 03 06" /* element bitmap 0,1,1 */
                                    "09 03 01 00 00 00 00 00 02 00" /* counts 1,0,0,2 */
                                    "02 03 0d"                      /* cell bitmap 1,0,1,1 */
                                    "02 00 00 00 00 00 00 00 04 00 00 00 02 00 00 00",
                                    want, sizeof want);
    mem_file m;
    example_check(&c, true, want, want_len, 2, &m);
    /* The doc's boundaries: [0,1) [1,1) [1,1) [1,3). */
    opened f;
    open_file(&f, &m);
    cf_batch b;
    cf_error err;
    CF_ASSERT_OK(cf_iter_next_batch(f.it, 100, &b, &err), &err);
    static const uint32_t starts[] = {0, 1, 1, 1, 3};
    assert_int_equal(b.count, 4);
    assert_memory_equal(b.elem_offsets, starts, sizeof starts);
    assert_false(get_bit(b.elem_nonnull, 0));
    assert_false(get_bit(b.nonnull, 1)); /* NULL cell ... */
    assert_true(get_bit(b.nonnull, 2));  /* ... is not the empty array */
    close_file(&f);
    free(m.data);
    cells_free(&c);
}

static void test_arrays__example_c_bytes(void **state)
{
    (void)state;
    /* Design doc Example C: one cell {2,3,NULL,6,8,5,3,1,NULL,0}. */
    static const int counts[] = {10};
    static const int32_t vals[] = {2, 3, INT32_MIN, 6, 8, 5, 3, 1, INT32_MIN, 0};
    cells c;
    cells_int32(&c, counts, 1, vals, 10);
    uint8_t want[80];
    size_t want_len = cf_test_unhex("0a 01"       /* flat_count 10, array_count 1 */
                                    "03 05 fb 02" /* 1101111101: two literal groups */
                                    "03 02 0a 00" /* one count: a repeated run (§7.3 tail) */
                                    "02 02 01"    /* one present cell: repeated run */
                                    "08 00 00 00 00 00 00 00"
                                    "02 00 00 00 03 00 00 00 06 00 00 00 08 00 00 00"
                                    "05 00 00 00 03 00 00 00 01 00 00 00 00 00 00 00",
                                    want, sizeof want);
    for (int nullable = 0; nullable < 2; nullable++) {
        mem_file m;
        /* The cell bitmap is written also when the column is not nullable. */
        example_check(&c, nullable, want, want_len, 3, &m);
        free(m.data);
    }
    cells_free(&c);
}

/* ---- feature bits and the round-trip matrix ------------------------------------- */

static void test_arrays__feature_bits(void **state)
{
    (void)state;
    static const int counts[] = {2, 0};
    static const int32_t vals[] = {7, 8};
    cells c;
    cells_int32(&c, counts, 2, vals, 2);
    for (int sums = 0; sums < 2; sums++) {
        cf_writer_options o =
            col_options((col_opts){.type = CF_TYPE_INT32, .is_array = true, .no_checksums = !sums});
        mem_file m;
        cf_error err;
        CF_ASSERT_OK(write_cells(&o, &c, 2, NULL, &m, &err), &err);
        opened f;
        open_file(&f, &m);
        const cf_file_info *fi = cf_reader_info(f.r);
        assert_true(fi->is_array);
        assert_int_equal(fi->incompatible_features,
                         CF_FEATURE_ARRAY_DATA_BLOCK | (sums ? CF_FEATURE_CHECKSUM : 0));
        assert_false(fi->has_validx);
        assert_int_equal(fi->encoding, CF_ENC_BIT_SHUFFLE); /* AUTO = the element type's */
        close_file(&f);
        free(m.data);
    }
    /* A scalar file does not carry the bit. */
    cf_writer_options o;
    cf_writer_options_init(&o, CF_TYPE_INT32);
    cf_io *io;
    cf_writer *w;
    cf_error err;
    CF_ASSERT_OK(mem_writer_create(&w, &io, &o, &err), &err);
    int32_t v = 5;
    CF_ASSERT_OK(cf_writer_append(w, &v, NULL, 1, &err), &err);
    CF_ASSERT_OK(cf_writer_finish(w, &err), &err);
    cf_slice s = cf_io_mem_contents(io);
    mem_file m = {(uint8_t *)s.data, s.len};
    opened f;
    open_file(&f, &m);
    assert_false(cf_reader_info(f.r)->is_array);
    assert_int_equal(cf_reader_info(f.r)->incompatible_features, CF_FEATURE_CHECKSUM);
    close_file(&f);
    cf_writer_free(w);
    cf_io_free(io);
    cells_free(&c);
}

static const cf_type all_types[] = {CF_TYPE_INT8,       CF_TYPE_INT16,     CF_TYPE_INT32,
                                    CF_TYPE_INT64,      CF_TYPE_UINT8,     CF_TYPE_UINT16,
                                    CF_TYPE_UINT32,     CF_TYPE_UINT64,    CF_TYPE_FLOAT,
                                    CF_TYPE_DOUBLE,     CF_TYPE_BOOL,      CF_TYPE_INT128,
                                    CF_TYPE_DECIMAL128, CF_TYPE_DATE,      CF_TYPE_UNIXTIME_MICROS,
                                    CF_TYPE_DECIMAL32,  CF_TYPE_DECIMAL64, CF_TYPE_STRING,
                                    CF_TYPE_BINARY,     CF_TYPE_VARCHAR};
static const cf_encoding all_encodings[] = {CF_ENC_PLAIN, CF_ENC_PREFIX, CF_ENC_RLE, CF_ENC_DICT,
                                            CF_ENC_BIT_SHUFFLE};

/* Random cells of type t: NULL cells (if nullable), empty cells, cells whose
 * elements are all NULL, short cells, and a few cells longer than any block. */
static void cells_random(cells *c, cf_type t, bool nullable, size_t n, cf_rng *rng)
{
    memset(c, 0, sizeof *c);
    c->type = t;
    c->es = cf_type_size(t);
    c->n = n;
    c->counts = calloc(n + 1, sizeof *c->counts);
    c->cell_nn = calloc(n + 1, sizeof *c->cell_nn);
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t kind = cf_rng_below(rng, 100);
        c->cell_nn[i] = !(nullable && kind < 12);
        uint32_t k;
        if (!c->cell_nn[i] || kind < 22)
            k = 0;
        else if (kind < 24)
            k = 1000 + (uint32_t)cf_rng_below(rng, 2500);
        else
            k = 1 + (uint32_t)cf_rng_below(rng, 12);
        c->counts[i] = k;
        total += k;
    }
    c->nelem = total;
    c->elems = calloc(total + 1, c->es);
    c->elem_nn = calloc(total + 1, sizeof *c->elem_nn);
    bool binary = cf_type_is_binary(t);
    size_t pool_cap = total * 24 + 1, pool_len = 0;
    if (binary)
        c->pool = malloc(pool_cap);
    cells_finish_starts(c);
    /* Per cell, one of: all present, all NULL, or mixed. */
    for (size_t i = 0; i < n; i++) {
        uint64_t mode = cf_rng_below(rng, 10);
        for (size_t e = c->starts[i]; e < c->starts[i + 1]; e++) {
            bool nn = mode == 0 ? false : mode < 4 ? cf_rng_below(rng, 4) != 0 : true;
            c->elem_nn[e] = nn;
            if (!nn)
                continue;
            uint8_t *v = c->elems + e * c->es;
            if (binary) {
                /* Repetitive words (DICT and PREFIX have something to do), some raw bytes. */
                size_t len = (size_t)cf_rng_below(rng, 20);
                uint8_t *p = c->pool + pool_len;
                if (cf_rng_below(rng, 4)) {
                    for (size_t j = 0; j < len; j++)
                        p[j] = (uint8_t)("abcdefgh"[(cf_rng_below(rng, 3) + j) % 8]);
                } else {
                    for (size_t j = 0; j < len; j++)
                        p[j] = (uint8_t)cf_rng_next(rng);
                }
                cf_slice s = {p, len};
                memcpy(v, &s, sizeof s);
                pool_len += len;
            } else if (t == CF_TYPE_BOOL) {
                *v = (uint8_t)(cf_rng_next(rng) & 1);
            } else if (cf_rng_below(rng, 5) == 0) {
                for (size_t j = 0; j < c->es; j++)
                    v[j] = (uint8_t)cf_rng_next(rng);
            } else {
                /* Small values repeat and compress; the upper bytes sign-extend. */
                int64_t x = (int64_t)cf_rng_below(rng, 40) - 20;
                for (size_t j = 0; j < c->es; j++)
                    v[j] = j < 8 ? (uint8_t)((uint64_t)x >> (8 * j)) : (x < 0 ? 0xff : 0);
            }
        }
    }
}

static void matrix(cf_compression comp, uint64_t seed_base)
{
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(seed_base));
    size_t files = 0;
    for (size_t ti = 0; ti < sizeof all_types / sizeof all_types[0]; ti++) {
        cf_type t = all_types[ti];
        for (size_t ei = 0; ei < sizeof all_encodings / sizeof all_encodings[0]; ei++) {
            cf_encoding e = all_encodings[ei];
            if (!cf_type_allows_encoding(t, e))
                continue;
            for (int nullable = 0; nullable < 2; nullable++) {
                cells c;
                cells_random(&c, t, nullable, 150 + (size_t)cf_rng_below(&rng, 150), &rng);
                cf_writer_options o = col_options((col_opts){
                    .type = t, .is_array = true, .nullable = nullable, .enc = e, .comp = comp});
                o.checksums = cf_rng_below(&rng, 4) != 0;
                o.block_size = 512 + (uint32_t)cf_rng_below(&rng, 4096);
                o.index_block_size = 64 + (uint32_t)cf_rng_below(&rng, 256);
                mem_file m;
                cf_error err;
                cf_status st = write_cells(&o, &c, 0, &rng, &m, &err);
                if (st != CF_OK)
                    fail_msg("%s %s nullable=%d %s: write failed: %s", cf_type_name(t),
                             cf_encoding_name(e), nullable, cf_compression_name(comp), err.msg);
                opened f;
                open_file(&f, &m);
                assert_int_equal(cf_reader_info(f.r)->encoding, e);
                assert_int_equal(cf_reader_info(f.r)->compression, comp);
                close_file(&f);
                check_scan(&m, &c, nullable, &rng);
                free(m.data);
                cells_free(&c);
                files++;
            }
        }
    }
    /* 20 types: 7 ints x 3 + UINT32 x 3 + 2 floats x 2 + INT128 x 2 + DEC128 x 2 +
     * DATE/UNIXTIME/DEC32/DEC64 x 3 + BOOL x 2 + 3 binary x 3, all x 2 nullabilities. */
    assert_true(files >= 100);
}

/* One codec's round trips (the cases in main: one per codec, each its own seed). */
typedef struct round_trip_case {
    cf_compression comp;
    uint64_t seed;
} round_trip_case;
static const round_trip_case rt_none = {CF_COMP_NONE, 101}, rt_snappy = {CF_COMP_SNAPPY, 102},
                             rt_lz4 = {CF_COMP_LZ4, 103}, rt_zlib = {CF_COMP_ZLIB, 104};

static void test_arrays__round_trip(void **state)
{
    const round_trip_case *k = *state;
    matrix(k->comp, k->seed);
}

/* ---- seeks, block ends, limits --------------------------------------------------- */

static void test_arrays__seek_every_ordinal(void **state)
{
    (void)state;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(7));
    cells c;
    cells_random(&c, CF_TYPE_INT64, true, 600, &rng);
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_INT64,
                                                 .is_array = true,
                                                 .nullable = true,
                                                 .block_size = 512,
                                                 .index_block_size = 64});
    mem_file m;
    cf_error err;
    CF_ASSERT_OK(write_cells(&o, &c, 0, &rng, &m, &err), &err);
    opened f;
    open_file(&f, &m);
    for (uint64_t ord = 0; ord < c.n; ord++) {
        CF_ASSERT_OK(cf_iter_seek_to_ordinal(f.it, ord, &err), &err);
        cf_batch b;
        CF_ASSERT_OK(cf_iter_next_batch(f.it, 1, &b, &err), &err);
        assert_int_equal(b.count, 1);
        assert_int_equal(b.first_ord, ord);
        check_cell(&c, true, &b, 0, ord);
    }
    CF_ASSERT_STATUS(cf_iter_seek_to_ordinal(f.it, c.n, &err), CF_ENOTFOUND, &err);
    /* Backwards too, then a scan from a seek runs to the end. */
    CF_ASSERT_OK(cf_iter_seek_to_ordinal(f.it, c.n / 2, &err), &err);
    uint64_t seen = c.n / 2;
    for (;;) {
        cf_batch b;
        CF_ASSERT_OK(cf_iter_next_batch(f.it, 1000, &b, &err), &err);
        if (b.count == 0)
            break;
        for (size_t i = 0; i < b.count; i++)
            check_cell(&c, true, &b, i, seen + i);
        seen += b.count;
    }
    assert_int_equal(seen, c.n);
    /* Value seeks make no sense on arrays. */
    int64_t key = 0;
    CF_ASSERT_STATUS(cf_iter_seek_at_or_after(f.it, &key, NULL, &err), CF_EINVAL, &err);
    /* copy_batch is for scalar columns only. */
    int64_t buf[4];
    size_t n;
    CF_ASSERT_STATUS(cf_iter_copy_batch(f.it, buf, NULL, 4, &n, &err), CF_EINVAL, &err);
    close_file(&f);
    free(m.data);
    cells_free(&c);
}

/* Rows per block, as the iterator reports them (a batch never crosses a block). */
static size_t block_rows(const mem_file *m, size_t *rows, size_t cap)
{
    opened f;
    open_file(&f, m);
    cf_error err;
    size_t n = 0;
    for (;;) {
        cf_batch b;
        CF_ASSERT_OK(cf_iter_next_batch(f.it, 1u << 30, &b, &err), &err);
        if (b.count == 0)
            break;
        assert_true(n < cap);
        rows[n++] = b.count;
    }
    close_file(&f);
    return n;
}

static void test_arrays__cells_never_split(void **state)
{
    (void)state;
    /* format §10.3: fullness is tested after each non-NULL cell; NULL cells join
     * the open block; a cell is never split, however long. INT32 PLAIN, block
     * size 512: a 200-element cell (808 bytes) fills a block by itself. */
    int counts[] = {200, -1, -1, 200, -1, 0, 3, 5000, 1};
    size_t nvals = 200 + 200 + 3 + 5000 + 1;
    int32_t *vals = malloc(nvals * sizeof *vals);
    for (size_t i = 0; i < nvals; i++)
        vals[i] = (int32_t)(i * 7);
    cells c;
    cells_int32(&c, counts, 9, vals, nvals);
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_INT32,
                                                 .is_array = true,
                                                 .nullable = true,
                                                 .enc = CF_ENC_PLAIN,
                                                 .block_size = 512});
    for (size_t batch = 1; batch <= 9; batch += 8) {
        mem_file m;
        cf_error err;
        CF_ASSERT_OK(write_cells(&o, &c, batch, NULL, &m, &err), &err);
        size_t rows[16];
        size_t nb = block_rows(&m, rows, 16);
        /* {200} {NULL NULL 200} {NULL [] [3] [5000]} {[1]}: call size does not matter. */
        static const size_t want[] = {1, 3, 4, 1};
        assert_int_equal(nb, 4);
        assert_memory_equal(rows, want, sizeof want);
        cf_rng rng;
        cf_rng_init(&rng, 9);
        check_scan(&m, &c, true, &rng);
        free(m.data);
    }
    free(vals);
    cells_free(&c);
}

static void test_arrays__max_elements(void **state)
{
    (void)state;
    /* 65535 elements (the u16 limit) round-trip whether or not the long cell is
     * the last of its block; one more is refused, naming the limit. */
    enum { MAX = 65535 };
    int32_t *vals = malloc((3 * MAX + 10) * sizeof *vals);
    for (size_t i = 0; i < 3 * MAX + 10; i++)
        vals[i] = (int32_t)(i % 1000);
    vals[5] = INT32_MIN;
    int counts[] = {MAX, MAX, 2, MAX};
    cells c;
    cells_int32(&c, counts, 4, vals, 3 * (size_t)MAX + 2);
    for (int big = 0; big < 2; big++) {
        for (int ci = 0; ci < 4; ci++) {
            static const cf_compression comps[] = {CF_COMP_NONE, CF_COMP_SNAPPY, CF_COMP_LZ4,
                                                   CF_COMP_ZLIB};
            cf_writer_options o = col_options((col_opts){
                .type = CF_TYPE_INT32, .is_array = true, .nullable = ci & 1, .comp = comps[ci]});
            o.block_size = big ? (16u << 20) : 512; /* all in one block, or one per cell */
            mem_file m;
            cf_error err;
            CF_ASSERT_OK(write_cells(&o, &c, 4, NULL, &m, &err), &err);
            cf_rng rng;
            cf_rng_init(&rng, 11);
            check_scan(&m, &c, o.nullable, &rng);
            free(m.data);
        }
    }
    cells_free(&c);

    cf_writer_options o =
        col_options((col_opts){.type = CF_TYPE_INT32, .is_array = true, .nullable = true});
    cf_io *io;
    cf_writer *w;
    cf_error err;
    CF_ASSERT_OK(mem_writer_create(&w, &io, &o, &err), &err);
    uint32_t k[2] = {3, MAX + 1};
    CF_ASSERT_STATUS(cf_writer_append_arrays(w, vals, NULL, k, NULL, 2, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "65536"));
    assert_non_null(strstr(err.msg, "65535"));
    /* Nothing of the refused call was added, and the error is sticky. */
    assert_int_equal(cf_writer_num_values(w), 0);
    CF_ASSERT_STATUS(cf_writer_finish(w, &err), CF_EINVAL, &err);
    cf_writer_free(w);
    cf_io_free(io);
    free(vals);
}

static void test_arrays__writer_refusals(void **state)
{
    (void)state;
    int32_t vals[4] = {1, 2, 3, 4};
    uint32_t counts[2] = {2, 2};
    uint8_t cnn = 0x1; /* cell 1 NULL */
    struct {
        bool is_array, nullable;
        int call; /* 0 append_arrays with a NULL cell, 1 append on an array column,
                     2 append_arrays on a scalar column, 3 NULL cell with elements,
                     4 elem_counts NULL, 5 elems NULL */
        const char *needle;
    } cases[] = {
        {true, false, 0, "not nullable"}, {true, true, 1, "append_arrays"},
        {false, true, 2, "not an array"}, {true, true, 3, "NULL but has 2 elements"},
        {true, true, 4, "elem_counts"},   {true, true, 5, "elems"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cf_writer_options o = col_options((col_opts){
            .type = CF_TYPE_INT32, .is_array = cases[i].is_array, .nullable = cases[i].nullable});
        cf_io *io;
        cf_writer *w;
        cf_error err;
        CF_ASSERT_OK(mem_writer_create(&w, &io, &o, &err), &err);
        cf_status st = CF_OK;
        uint32_t c0[2] = {2, 0};
        switch (cases[i].call) {
        case 0: st = cf_writer_append_arrays(w, vals, NULL, c0, &cnn, 2, &err); break;
        case 1: st = cf_writer_append(w, vals, NULL, 2, &err); break;
        case 2: st = cf_writer_append_arrays(w, vals, NULL, counts, NULL, 2, &err); break;
        case 3: st = cf_writer_append_arrays(w, vals, NULL, counts, &cnn, 2, &err); break;
        case 4: st = cf_writer_append_arrays(w, vals, NULL, NULL, NULL, 2, &err); break;
        case 5: st = cf_writer_append_arrays(w, NULL, NULL, counts, NULL, 2, &err); break;
        }
        CF_ASSERT_STATUS(st, CF_EINVAL, &err);
        if (strstr(err.msg, cases[i].needle) == NULL)
            fail_msg("case %zu: message \"%s\" lacks \"%s\"", i, err.msg, cases[i].needle);
        cf_writer_free(w);
        cf_io_free(io);
    }
    /* write_validx is refused for arrays. */
    cf_writer_options o =
        col_options((col_opts){.type = CF_TYPE_INT32, .is_array = true, .validx = true});
    cf_io *io;
    cf_writer *w = NULL;
    cf_error err;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    CF_ASSERT_STATUS(cf_writer_create(&w, io, &o, &err), CF_EINVAL, &err);
    assert_null(w);
    cf_io_free(io);
}

static void test_arrays__all_null_and_empty_files(void **state)
{
    (void)state;
    /* Blocks with no elements at all (every cell NULL or empty): the encoded
     * block has count 0 and the flattened bitmap is empty. */
    int counts[300];
    for (int i = 0; i < 300; i++)
        counts[i] = i % 3 == 0 ? -1 : 0;
    cells c;
    cells_int32(&c, counts, 300, NULL, 0);
    static const cf_encoding encs[] = {CF_ENC_PLAIN, CF_ENC_BIT_SHUFFLE, CF_ENC_RLE};
    for (size_t e = 0; e < 3; e++) {
        cf_writer_options o = col_options((col_opts){.type = CF_TYPE_INT32,
                                                     .is_array = true,
                                                     .nullable = true,
                                                     .enc = encs[e],
                                                     .comp = e == 1 ? CF_COMP_LZ4 : CF_COMP_NONE});
        mem_file m;
        cf_error err;
        cf_rng rng;
        cf_rng_init(&rng, 13);
        CF_ASSERT_OK(write_cells(&o, &c, 0, &rng, &m, &err), &err);
        check_scan(&m, &c, true, &rng);
        free(m.data);
    }
    cells_free(&c);
    /* A file with no cells at all. */
    cells_int32(&c, counts, 0, NULL, 0);
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_STRING, .is_array = true});
    mem_file m;
    cf_error err;
    c.type = CF_TYPE_STRING;
    CF_ASSERT_OK(write_cells(&o, &c, 1, NULL, &m, &err), &err);
    opened f;
    open_file(&f, &m);
    assert_true(cf_reader_info(f.r)->is_array);
    assert_int_equal(cf_reader_info(f.r)->num_values, 0);
    cf_batch b;
    CF_ASSERT_OK(cf_iter_next_batch(f.it, 10, &b, &err), &err);
    assert_int_equal(b.count, 0);
    close_file(&f);
    free(m.data);
    cells_free(&c);
}

/* ---- crafted array blocks ------------------------------------------------------- */

/* 13 leading cells of 10 elements fill block 0 (INT32 PLAIN, 512 bytes); the
 * 7 Example A cells then make block 1, whose logical bytes (70) are known
 * exactly and are patched below. num_values = 20. */
#define CRAFT_LEN 70
static const char *craft_block_hex = "0a 07 04 10 01 03 02"
                                     "0f 03 02 00 00 00 00 00 02 00 04 00 01 00 01 00"
                                     "02 03 7b 09 00 00 00 0d 00 00 00"
                                     "01 00 00 00 02 00 00 00 03 00 00 00 04 00 00 00"
                                     "05 00 00 00 06 00 00 00 07 00 00 00 08 00 00 00"
                                     "09 00 00 00";

static void craft_file(mem_file *m, size_t *block_off, bool checksums)
{
    int counts[20];
    int32_t vals[140];
    for (int i = 0; i < 13; i++)
        counts[i] = 10;
    for (int i = 0; i < 130; i++)
        vals[i] = 1000 + i;
    static const int ex_counts[] = {2, 0, -1, 2, 4, 1, 1};
    static const int32_t ex_vals[] = {1, 2, 3, 4, 5, 6, 7, 8, INT32_MIN, 9};
    memcpy(counts + 13, ex_counts, sizeof ex_counts);
    memcpy(vals + 130, ex_vals, sizeof ex_vals);
    cells c;
    cells_int32(&c, counts, 20, vals, 140);
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_INT32,
                                                 .is_array = true,
                                                 .nullable = true,
                                                 .enc = CF_ENC_PLAIN,
                                                 .block_size = 512,
                                                 .no_checksums = !checksums});
    cf_error err;
    CF_ASSERT_OK(write_cells(&o, &c, 1, NULL, m, &err), &err);
    uint8_t pat[CRAFT_LEN];
    assert_int_equal(cf_test_unhex(craft_block_hex, pat, sizeof pat), CRAFT_LEN);
    *block_off = find_bytes(m, pat, CRAFT_LEN);
    cf_rng rng;
    cf_rng_init(&rng, 17);
    check_scan(m, &c, true, &rng); /* intact, it reads back */
    cells_free(&c);
}

static void store_crc(mem_file *m, size_t off, size_t len)
{
    uint32_t crc = cf_crc32c(m->data + off, len);
    for (int i = 0; i < 4; i++)
        m->data[off + len + (size_t)i] = (uint8_t)(crc >> (8 * i));
}

/* Every way of reading the damaged block must give CF_ECORRUPT naming `needle`. */
static void expect_corrupt(const mem_file *m, uint64_t ord, const char *needle, const char *what)
{
    opened f;
    open_file(&f, m);
    cf_error err;
    cf_status st = CF_OK;
    for (;;) {
        cf_batch b;
        st = cf_iter_next_batch(f.it, 1000, &b, &err);
        if (st != CF_OK || b.count == 0)
            break;
    }
    if (st != CF_ECORRUPT)
        fail_msg("%s: scan gave %s (%s), want corruption", what, cf_status_str(st),
                 st ? err.msg : "");
    if (strstr(err.msg, needle) == NULL)
        fail_msg("%s: message \"%s\" lacks \"%s\"", what, err.msg, needle);
    st = cf_iter_seek_to_ordinal(f.it, ord, &err);
    if (st != CF_ECORRUPT)
        fail_msg("%s: seek gave %s, want corruption", what, cf_status_str(st));
    size_t damaged = 0;
    st = cf_reader_verify(f.r, NULL, NULL, &damaged, &err);
    if (st != CF_ECORRUPT || damaged != 1)
        fail_msg("%s: verify gave %s with %zu damaged blocks", what, cf_status_str(st), damaged);
    close_file(&f);
}

static void test_arrays__crafted_counts_and_bitmaps(void **state)
{
    (void)state;
    /* Offsets inside the 70-byte block: 0 flat_count, 1 array_count, 2 flat
     * bitmap length, 3..6 flat bitmap, 7 counts length, 8..22 counts, 23 cell
     * bitmap length, 24..25 cell bitmap, 26.. inner PLAIN block (count at 26). */
    struct {
        size_t at;
        uint8_t val;
        const char *needle;
        const char *what;
    } cases[] = {
        /* counts 2,0,0,2,4,... put cell 4 at element 4, past a flat_count of 3 */
        {0, 0x03, "past the 3 elements", "counts exceed flat_count"},
        /* flat_count 9: the bitmap's 9 flags hold 8 present elements, the data 9 */
        {0, 0x09, "8 present elements but the block holds 9", "flat_count below the counts"},
        /* flat_count 17: the bitmap stream decodes to 16 flags at most */
        {0, 0x11, "element bitmap holds fewer than its 17", "element bitmap too short"},
        /* a cell with 65535 elements: starts run past flat_count */
        {10, 0xff, "past the 10 elements", "huge element count"},
        /* array_count 8: the 8-flag cell bitmap is fine, the counts hold 7 values */
        {1, 0x08, "element counts hold fewer than its 8", "counts too short"},
        /* array_count 9: the cell bitmap stream holds 8 flags */
        {1, 0x09, "cell bitmap holds fewer than its 9", "cell bitmap too short"},
        /* array_count beyond the file's 20 rows */
        {1, 0x7f, "claims 127 cells", "array_count beyond num_values"},
        /* the element bitmap marks the NULL element present: 10 flags vs 9 values */
        {6, 0x03, "10 present elements but the block holds 9", "bitmap vs encoded count"},
        /* the inner block claims 10 values in 36 bytes of data */
        {26, 0x0a, "plain block", "inner count too large"},
        /* the inner block claims 8 values in 36 bytes of data */
        {26, 0x08, "plain block", "inner count too small"},
        /* section lengths that run past the block */
        {2, 0x7f, "truncated", "flat bitmap length"},
        {7, 0x7f, "truncated", "counts length"},
        {23, 0x7f, "truncated", "cell bitmap length"},
        /* flat_count becomes a two-byte varint (1023): every later field shifts */
        {0, 0xff, "", "flat_count varint"},
    };
    for (int sums = 0; sums < 2; sums++) {
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            mem_file m;
            size_t off;
            craft_file(&m, &off, sums);
            m.data[off + cases[i].at] = cases[i].val;
            if (sums)
                store_crc(&m, off, CRAFT_LEN);
            expect_corrupt(&m, 15, cases[i].needle, cases[i].what);
            free(m.data);
        }
    }
    /* Unfixed CRC: the checksum catches it first. */
    mem_file m;
    size_t off;
    craft_file(&m, &off, true);
    m.data[off] = 0x03;
    expect_corrupt(&m, 15, "checksum", "checksum");
    free(m.data);
}

static void test_arrays__crafted_last_cell_extends(void **state)
{
    (void)state;
    /* format §6.3: the last cell ends at flat_count, as Kudu's reader has it
     * (Kudu itself writes such blocks for a cell of more than 65535 elements).
     * Counts 2,0,0,2,4,1,0 (sum 9) with flat_count 10: the last cell is read as
     * elements [9, 10), i.e. {9}, exactly what was written. */
    mem_file m;
    size_t off;
    craft_file(&m, &off, true);
    m.data[off + 21] = 0x00; /* the last count (u16 at block bytes 21..22): 1 -> 0 */
    assert_int_equal(m.data[off + 22], 0x00);
    store_crc(&m, off, CRAFT_LEN);
    opened f;
    open_file(&f, &m);
    cf_error err;
    CF_ASSERT_OK(cf_iter_seek_to_ordinal(f.it, 19, &err), &err);
    cf_batch b;
    CF_ASSERT_OK(cf_iter_next_batch(f.it, 10, &b, &err), &err);
    assert_int_equal(b.count, 1);
    assert_int_equal(b.elem_count, 1);
    assert_int_equal(((const int32_t *)b.values)[0], 9);
    close_file(&f);
    free(m.data);
}

/* ---- the feature bit on read ---------------------------------------------------- */

/* Replace `from` by `to` (same length) inside the footer PB and fix the footer CRC. */
static void patch_footer(mem_file *m, const char *from_hex, const char *to_hex)
{
    uint8_t from[8], to[8];
    size_t n = cf_test_unhex(from_hex, from, sizeof from);
    assert_int_equal(cf_test_unhex(to_hex, to, sizeof to), n);
    size_t flen = (size_t)m->data[m->len - 4] | (size_t)m->data[m->len - 3] << 8;
    size_t pb = m->len - 12 - flen;
    mem_file footer = {m->data + pb, flen};
    size_t at = find_bytes(&footer, from, n);
    memcpy(m->data + pb + at, to, n);
    uint32_t crc = cf_crc32c(m->data + pb, flen + 12);
    for (int i = 0; i < 4; i++)
        m->data[pb - 4 + (size_t)i] = (uint8_t)(crc >> (8 * i));
}

static void test_arrays__feature_bit_required(void **state)
{
    (void)state;
    /* format §2.6: ARRAY_DATA_BLOCK (2) goes with is_type_array; a reader that
     * met an array block without it would misread it as a nullable block. */
    static const int counts[] = {2, -1, 1};
    static const int32_t vals[] = {5, 6, 7};
    cells c;
    cells_int32(&c, counts, 3, vals, 3);
    cf_writer_options o =
        col_options((col_opts){.type = CF_TYPE_INT32, .is_array = true, .nullable = true});
    struct {
        const char *from, *to;
        cf_status want;
        const char *needle;
    } cases[] = {
        {"50 03 60 01", "50 01 60 01", CF_ECORRUPT, "ARRAY_DATA_BLOCK"}, /* bit missing */
        {"50 03 60 01", "50 03 60 00", CF_ECORRUPT, "ARRAY_DATA_BLOCK"}, /* not an array */
        {"50 03 60 01", "50 07 60 01", CF_ENOTSUP, "2"},                 /* unknown bit 2 */
        {"50 03 60 01", "50 43 60 01", CF_ENOTSUP, "6"},                 /* unknown bit 6 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mem_file m;
        cf_error err;
        CF_ASSERT_OK(write_cells(&o, &c, 3, NULL, &m, &err), &err);
        patch_footer(&m, cases[i].from, cases[i].to);
        cf_io *io;
        cf_reader *r = NULL;
        CF_ASSERT_OK(cf_io_open_mem(&io, m.data, m.len, &err), &err);
        CF_ASSERT_STATUS(cf_reader_open(&r, io, NULL, &err), cases[i].want, &err);
        if (strstr(err.msg, cases[i].needle) == NULL)
            fail_msg("case %zu: message \"%s\" lacks \"%s\"", i, err.msg, cases[i].needle);
        assert_null(r);
        cf_io_free(io);
        free(m.data);
    }
    cells_free(&c);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arrays__example_a_bytes),
        cmocka_unit_test(test_arrays__example_b_bytes),
        cmocka_unit_test(test_arrays__example_c_bytes),
        cmocka_unit_test(test_arrays__feature_bits),
        {"test_arrays__round_trip_none", test_arrays__round_trip, NULL, NULL, (void *)&rt_none},
        {"test_arrays__round_trip_snappy", test_arrays__round_trip, NULL, NULL, (void *)&rt_snappy},
        {"test_arrays__round_trip_lz4", test_arrays__round_trip, NULL, NULL, (void *)&rt_lz4},
        {"test_arrays__round_trip_zlib", test_arrays__round_trip, NULL, NULL, (void *)&rt_zlib},
        cmocka_unit_test(test_arrays__seek_every_ordinal),
        cmocka_unit_test(test_arrays__cells_never_split),
        cmocka_unit_test(test_arrays__max_elements),
        cmocka_unit_test(test_arrays__writer_refusals),
        cmocka_unit_test(test_arrays__all_null_and_empty_files),
        cmocka_unit_test(test_arrays__crafted_counts_and_bitmaps),
        cmocka_unit_test(test_arrays__crafted_last_cell_extends),
        cmocka_unit_test(test_arrays__feature_bit_required),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
