/* Corruption and truncation through the public API (DESIGN.md, `cfile verify`):
 *
 *  - every single-bit flip anywhere in a small checksummed file, of each
 *    encoding, codec, nullable and array layout, is detected: cf_reader_open or
 *    cf_reader_verify fails; a flipped file is never read back as data (100%);
 *  - the same for small checksummed files written by Kudu (shared/golden);
 *  - in files without checksums no flip makes open, verify, a full scan or a
 *    seek crash, hang or touch memory outside the file (run under ASan/UBSan);
 *  - a file cut at any byte offset gives a clean error (status and message).
 *
 * Each flipped or truncated file is an exact-size heap copy, so a read past
 * its end is an ASan report.
 */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/cfile.h>

#include "support_mem.h"
#include "support_opts.h"

typedef struct cfg {
    const char *name;
    col_opts col; /* written with 512-byte blocks */
    size_t rows;
} cfg;

/* Small files, 1 to 3 blocks each (512-byte blocks), covering every encoding
 * and codec, NULLs, arrays and both B-trees. Values repeat so the codecs
 * actually compress (a block stored raw would not test the codec framing). */
static const cfg cfgs[] = {
    {"int32-plain-none", {.type = CF_TYPE_INT32, .enc = CF_ENC_PLAIN, .comp = CF_COMP_NONE}, 160},
    {"int32-bitshuffle-none",
     {.type = CF_TYPE_INT32, .enc = CF_ENC_BIT_SHUFFLE, .comp = CF_COMP_NONE},
     200},
    {"int32-rle-none", {.type = CF_TYPE_INT32, .enc = CF_ENC_RLE, .comp = CF_COMP_NONE}, 200},
    {"int64-plain-validx",
     {.type = CF_TYPE_INT64, .enc = CF_ENC_PLAIN, .comp = CF_COMP_NONE, .validx = true},
     100},
    {"bool-plain-none", {.type = CF_TYPE_BOOL, .enc = CF_ENC_PLAIN, .comp = CF_COMP_NONE}, 300},
    {"bool-rle-none", {.type = CF_TYPE_BOOL, .enc = CF_ENC_RLE, .comp = CF_COMP_NONE}, 300},
    {"double-bitshuffle-none",
     {.type = CF_TYPE_DOUBLE, .enc = CF_ENC_BIT_SHUFFLE, .comp = CF_COMP_NONE},
     80},
    {"decimal128-plain-none",
     {.type = CF_TYPE_DECIMAL128, .enc = CF_ENC_PLAIN, .comp = CF_COMP_NONE},
     40},
    {"string-plain-none", {.type = CF_TYPE_STRING, .enc = CF_ENC_PLAIN, .comp = CF_COMP_NONE}, 60},
    {"string-prefix-validx",
     {.type = CF_TYPE_STRING, .enc = CF_ENC_PREFIX, .comp = CF_COMP_NONE, .validx = true},
     80},
    {"string-dict-none", {.type = CF_TYPE_STRING, .enc = CF_ENC_DICT, .comp = CF_COMP_NONE}, 120},
    {"int32-plain-snappy",
     {.type = CF_TYPE_INT32, .enc = CF_ENC_PLAIN, .comp = CF_COMP_SNAPPY},
     200},
    {"int32-plain-lz4", {.type = CF_TYPE_INT32, .enc = CF_ENC_PLAIN, .comp = CF_COMP_LZ4}, 200},
    {"int32-plain-zlib", {.type = CF_TYPE_INT32, .enc = CF_ENC_PLAIN, .comp = CF_COMP_ZLIB}, 200},
    {"string-prefix-lz4", {.type = CF_TYPE_STRING, .enc = CF_ENC_PREFIX, .comp = CF_COMP_LZ4}, 80},
    {"string-dict-zlib", {.type = CF_TYPE_STRING, .enc = CF_ENC_DICT, .comp = CF_COMP_ZLIB}, 120},
    {"int16-plain-snappy",
     {.type = CF_TYPE_INT16, .enc = CF_ENC_PLAIN, .comp = CF_COMP_SNAPPY},
     300},
    {"int32-bitshuffle-nullable",
     {.type = CF_TYPE_INT32, .enc = CF_ENC_BIT_SHUFFLE, .comp = CF_COMP_NONE, .nullable = true},
     150},
    {"string-dict-nullable-lz4",
     {.type = CF_TYPE_STRING, .enc = CF_ENC_DICT, .comp = CF_COMP_LZ4, .nullable = true},
     120},
    {"int8-rle-nullable",
     {.type = CF_TYPE_INT8, .enc = CF_ENC_RLE, .comp = CF_COMP_NONE, .nullable = true},
     200},
    {"array-int32-plain-nullable",
     {.type = CF_TYPE_INT32,
      .enc = CF_ENC_PLAIN,
      .comp = CF_COMP_NONE,
      .nullable = true,
      .is_array = true},
     50},
    {"array-string-prefix",
     {.type = CF_TYPE_STRING, .enc = CF_ENC_PREFIX, .comp = CF_COMP_NONE, .is_array = true},
     40},
    {"array-int64-rle-snappy",
     {.type = CF_TYPE_INT64,
      .enc = CF_ENC_RLE,
      .comp = CF_COMP_SNAPPY,
      .nullable = true,
      .is_array = true},
     60},
    {"empty-int32", {.type = CF_TYPE_INT32, .enc = CF_ENC_BIT_SHUFFLE, .comp = CF_COMP_NONE}, 0},
};
#define NCFG (sizeof cfgs / sizeof cfgs[0])

/* Kudu-written checksummed files (shared/golden), small enough to flip every bit. */
static const char *const golden_cases[] = {
    "int32-auto-nocomp-notnull",
    "bool-rle-nocomp-nullable-multiblock",
    "string-dict-nocomp-notnull-one",
    "string-dict-lz4-nullable",
    "array-int64-rle-lz4-nullable",
    "array-float-bitshuffle-snappy-nullable",
    "string-dict-zlib-nullable",
    "uint32-groupvarint-nocomp-notnull-fallback",
    "int32-bitshuffle-nocomp-notnull-empty-validx",
};

/* ---- writing the files -------------------------------------------------------------------- */

static char strs[512][16];

static void fill_value(const cfg *c, size_t i, uint8_t *dst)
{
    size_t es = cf_type_size(c->col.type);
    uint64_t v = c->col.validx ? i * 2 : (i * 7) % 23;
    memset(dst, 0, es);
    switch (cf_type_physical(c->col.type)) {
    case CF_TYPE_BINARY: {
        int n = snprintf(strs[i % 512], sizeof strs[0], c->col.validx ? "k%05llu" : "val-%llu",
                         (unsigned long long)v);
        cf_slice s = {(const uint8_t *)strs[i % 512], (size_t)n};
        memcpy(dst, &s, sizeof s);
        break;
    }
    case CF_TYPE_BOOL: *dst = (uint8_t)((i / 3) & 1); break;
    case CF_TYPE_DOUBLE: {
        double d = (double)v * 0.5;
        memcpy(dst, &d, 8);
        break;
    }
    case CF_TYPE_FLOAT: {
        float f = (float)v * 0.5f;
        memcpy(dst, &f, 4);
        break;
    }
    default: memcpy(dst, &v, es < 8 ? es : 8); break;
    }
}

static uint8_t *write_cfg(const cfg *c, bool checksums, size_t *len)
{
    col_opts co = c->col;
    co.no_checksums = !checksums;
    co.block_size = 512;
    cf_writer_options o = col_options(co);
    cf_error err;
    cf_io *io;
    cf_writer *w;
    CF_ASSERT_OK(mem_writer_create(&w, &io, &o, &err), &err);
    size_t es = cf_type_size(c->col.type);
    size_t n = c->col.is_array ? c->rows * 3 : c->rows; /* values (elements for arrays) */
    assert_true(n <= 512);
    uint8_t *vals = calloc(n ? n : 1, es);
    uint8_t nn[64];
    memset(nn, 0, sizeof nn);
    for (size_t i = 0; i < n; i++) {
        fill_value(c, i, vals + i * es);
        if (!c->col.nullable || i % 5 != 3)
            nn[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    if (c->col.is_array) {
        uint32_t counts[512];
        uint8_t cell_nn[64];
        memset(cell_nn, 0, sizeof cell_nn);
        size_t used = 0;
        for (size_t i = 0; i < c->rows; i++) {
            bool null_cell = c->col.nullable && i % 6 == 5;
            counts[i] = null_cell ? 0 : (uint32_t)(i % 4);
            if (!null_cell)
                cell_nn[i / 8] |= (uint8_t)(1u << (i % 8));
            used += counts[i];
        }
        assert_true(used <= n);
        CF_ASSERT_OK(cf_writer_append_arrays(w, vals, nn, counts, c->col.nullable ? cell_nn : NULL,
                                             c->rows, &err),
                     &err);
    } else if (n > 0) {
        /* two append calls, so PLAIN/RLE block boundaries fall inside the file */
        size_t half = n / 2;
        CF_ASSERT_OK(cf_writer_append(w, vals, c->col.nullable ? nn : NULL, half, &err), &err);
        uint8_t nn2[64] = {0};
        for (size_t i = half; i < n; i++)
            if (nn[i / 8] >> (i % 8) & 1)
                nn2[(i - half) / 8] |= (uint8_t)(1u << ((i - half) % 8));
        CF_ASSERT_OK(
            cf_writer_append(w, vals + half * es, c->col.nullable ? nn2 : NULL, n - half, &err),
            &err);
    }
    mem_file f;
    CF_ASSERT_OK(mem_file_finish(w, io, CF_OK, &f, &err), &err);
    *len = f.len;
    free(vals);
    return f.data;
}

static uint8_t *read_golden(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/golden/%s/%s.cfile", cf_test_shared_dir(), name, name);
    return cf_test_read_file(path, len);
}

/* ---- reading a (damaged) file ------------------------------------------------------------- */

static void require_clean(cf_status st, const cf_error *err)
{
    assert_int_not_equal(st, CF_OK);
    if (err->code != st || err->msg[0] == '\0')
        fail_msg("status %s without a matching error message (code %s, msg '%s')",
                 cf_status_str(st), cf_status_str(err->code), err->msg);
}

/* Open with checksum verification and verify every block: CF_OK = intact. */
static cf_status open_and_verify(const uint8_t *data, size_t len, cf_error *err)
{
    cf_io *io;
    CF_ASSERT_OK(cf_io_open_mem(&io, data, len, err), err);
    cf_reader *r;
    cf_status st = cf_reader_open(&r, io, NULL, err);
    if (st == CF_OK) {
        size_t damaged = 0;
        st = cf_reader_verify(r, NULL, NULL, &damaged, err);
        if (st == CF_OK)
            assert_int_equal(damaged, 0);
        else
            assert_true(damaged > 0 || err->msg[0] != '\0');
        cf_reader_free(r);
    }
    cf_io_free(io);
    if (st != CF_OK)
        require_clean(st, err);
    return st;
}

/* Everything a reader of a damaged file might do; only safety is checked. */
static void exercise(const uint8_t *data, size_t len, bool verify_checksums)
{
    cf_error err;
    cf_io *io;
    CF_ASSERT_OK(cf_io_open_mem(&io, data, len, &err), &err);
    cf_reader_options o;
    cf_reader_options_init(&o);
    o.verify_checksums = verify_checksums;
    cf_reader *r;
    cf_status st = cf_reader_open(&r, io, &o, &err);
    if (st != CF_OK) {
        require_clean(st, &err);
        cf_io_free(io);
        return;
    }
    const cf_file_info *fi = cf_reader_info(r);
    st = cf_reader_verify(r, NULL, NULL, NULL, &err);
    if (st != CF_OK)
        require_clean(st, &err);
    cf_iter *it;
    st = cf_iter_create(&it, r, &err);
    if (st == CF_OK) {
        uint64_t rows = 0;
        st = cf_iter_seek_to_first(it, &err);
        while (st == CF_OK) {
            cf_batch b;
            st = cf_iter_next_batch(it, 97, &b, &err);
            if (st != CF_OK || b.count == 0)
                break;
            assert_true(b.count <= 97);
            rows += b.count;
            assert_true(rows <= fi->num_values);
        }
        if (st != CF_OK)
            require_clean(st, &err);
        uint64_t ords[3] = {0, fi->num_values / 2, fi->num_values ? fi->num_values - 1 : 0};
        for (int k = 0; k < 3; k++) {
            cf_batch b;
            if (cf_iter_seek_to_ordinal(it, ords[k], &err) == CF_OK &&
                cf_iter_next_batch(it, 3, &b, &err) == CF_OK && b.count > 0)
                assert_int_equal(b.first_ord, ords[k]);
        }
        cf_iter_free(it);
    } else {
        require_clean(st, &err);
    }
    cf_reader_free(r);
    cf_io_free(io);
}

/* ---- the checks ---------------------------------------------------------------------------- */

/* Flip every bit of `f` in turn; every flip must be detected. Also reads each
 * flipped file with checksums ignored, which must stay safe. */
static void flips_detected(const char *name, const uint8_t *f, size_t len, bool exercise_too)
{
    cf_error err;
    CF_ASSERT_OK(open_and_verify(f, len, &err), &err); /* the intact file is intact */
    uint8_t *buf = malloc(len);
    memcpy(buf, f, len);
    size_t missed = 0, total = 0;
    char first[512] = "";
    for (size_t off = 0; off < len; off++) {
        for (unsigned bit = 0; bit < 8; bit++) {
            buf[off] ^= (uint8_t)(1u << bit);
            total++;
            if (open_and_verify(buf, len, &err) == CF_OK) {
                if (missed++ < 8) {
                    size_t l = strlen(first);
                    snprintf(first + l, sizeof first - l, " %zu.%u", off, bit);
                }
            }
            if (exercise_too)
                exercise(buf, len, false);
            buf[off] ^= (uint8_t)(1u << bit);
        }
    }
    free(buf);
    if (missed)
        fail_msg("%s (%zu bytes): %zu of %zu single-bit flips were not detected; first at "
                 "byte.bit:%s",
                 name, len, missed, total, first);
}

static void test_corruption__flips_detected(void **state)
{
    const cfg *c = *state;
    size_t len;
    uint8_t *f = write_cfg(c, true, &len);
    if (c->col.comp != CF_COMP_NONE) {
        /* the codec must really be in use, or the test would not cover its framing */
        cfg plain = *c;
        plain.col.comp = CF_COMP_NONE;
        size_t plain_len;
        free(write_cfg(&plain, true, &plain_len));
        if (getenv("CF_TEST_VERBOSE"))
            printf("%s: %zu bytes, %zu uncompressed\n", c->name, len, plain_len);
        assert_true(len < plain_len);
    }
    flips_detected(c->name, f, len, true);
    free(f);
}

static void test_corruption__golden_flips_detected(void **state)
{
    size_t checked = 0;
    for (size_t i = 0; i < sizeof golden_cases / sizeof golden_cases[0]; i++) {
        size_t len;
        uint8_t *f = read_golden(golden_cases[i], &len);
        if (f == NULL)
            continue; /* shared/ not present in this checkout */
        flips_detected(golden_cases[i], f, len, false);
        free(f);
        checked++;
    }
    if (checked == 0)
        skip();
}

static void test_corruption__flips_without_checksums_are_safe(void **state)
{
    const cfg *c = *state;
    size_t len;
    uint8_t *f = write_cfg(c, false, &len);
    exercise(f, len, true);
    uint8_t *buf = malloc(len);
    memcpy(buf, f, len);
    for (size_t off = 0; off < len; off++) {
        for (unsigned bit = 0; bit < 8; bit++) {
            buf[off] ^= (uint8_t)(1u << bit);
            exercise(buf, len, true);
            buf[off] ^= (uint8_t)(1u << bit);
        }
    }
    free(buf);
    free(f);
}

/* Every proper prefix of the file fails to open or to verify, with a message. */
static void truncations_fail(const char *name, const uint8_t *f, size_t len)
{
    for (size_t k = 0; k < len; k++) {
        uint8_t *cut = malloc(k ? k : 1);
        memcpy(cut, f, k);
        cf_error err;
        cf_status st = open_and_verify(cut, k, &err);
        if (st == CF_OK)
            fail_msg("%s: the first %zu of %zu bytes open and verify as intact", name, k, len);
        if (st != CF_ECORRUPT)
            fail_msg("%s cut to %zu bytes: %s (%s), expected corruption", name, k,
                     cf_status_str(st), err.msg);
        exercise(cut, k, false);
        free(cut);
    }
}

static void test_corruption__truncation(void **state)
{
    const cfg *c = *state;
    for (int sums = 0; sums < 2; sums++) {
        size_t len;
        uint8_t *f = write_cfg(c, sums != 0, &len);
        truncations_fail(c->name, f, len);
        free(f);
    }
}

static void test_corruption__golden_truncation(void **state)
{
    size_t checked = 0;
    for (size_t i = 0; i < sizeof golden_cases / sizeof golden_cases[0]; i++) {
        size_t len;
        uint8_t *f = read_golden(golden_cases[i], &len);
        if (f == NULL)
            continue;
        truncations_fail(golden_cases[i], f, len);
        free(f);
        checked++;
    }
    if (checked == 0)
        skip();
}

/* Flips in whole bytes of the footer tail, where one flip can change several
 * things at once (length, magic, feature bits): still detected. */
static void test_corruption__byte_values_in_tail(void **state)
{
    const cfg *c = &cfgs[0];
    size_t len;
    uint8_t *f = write_cfg(c, true, &len);
    uint8_t *buf = malloc(len);
    memcpy(buf, f, len);
    size_t tail = len < 64 ? len : 64;
    for (size_t off = len - tail; off < len; off++) {
        for (unsigned v = 0; v < 256; v++) {
            if (v == f[off])
                continue;
            buf[off] = (uint8_t)v;
            cf_error err;
            if (open_and_verify(buf, len, &err) == CF_OK)
                fail_msg("byte %zu set to 0x%02x was not detected", off, v);
        }
        buf[off] = f[off];
    }
    free(buf);
    free(f);
}

int main(int argc, char **argv)
{
    /* One named test per configuration and check, so a failure names its file. */
    static struct CMUnitTest tests[3 * NCFG + 3];
    static char names[3 * NCFG][96];
    size_t n = 0;
    static const struct {
        const char *what;
        CMUnitTestFunction fn;
    } kinds[] = {
        {"flips_detected", test_corruption__flips_detected},
        {"flips_without_checksums_are_safe", test_corruption__flips_without_checksums_are_safe},
        {"truncation", test_corruption__truncation}};
    for (size_t k = 0; k < 3; k++) {
        for (size_t i = 0; i < NCFG; i++, n++) {
            snprintf(names[n], sizeof names[n], "test_corruption__%s/%s", kinds[k].what,
                     cfgs[i].name);
            tests[n] = (struct CMUnitTest){names[n], kinds[k].fn, NULL, NULL, (void *)&cfgs[i]};
        }
    }
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_corruption__golden_flips_detected);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_corruption__golden_truncation);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_corruption__byte_values_in_tail);
    return cf_test_run(argc, argv, "corruption", tests, n);
}
