/* Memory during a write is bounded by a few block sizes, whatever the row count.
 *
 * The library's allocations (cf_malloc and friends, counted by util/alloc.h's
 * hook) are measured from writer creation to free while writing the same kind
 * of data twice, once with ROWS_SMALL rows and once with 8 times as many, to a
 * file io. Both peaks must stay under a bound stated in blocks, and the larger
 * file may not need noticeably more than the smaller one: what the writer keeps
 * per block written (index entries) is tiny next to a block.
 *
 * Not counted: the codecs' own allocations (zlib's deflate state, about 256 KiB,
 * is allocated by zlib itself; LZ4 and snappy use the caller's buffers) and the
 * test's own value arrays. `cfile bench write` reports RSS growth instead, which
 * also includes first-touched code pages and the C library's arenas. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cfile/cfile.h>

#include "util/alloc.h"

#include "support_opts.h"

#define KIB ((size_t)1024)
#define BLOCK (256 * KIB)
#define ROWS_SMALL 100000u
#define CHUNK 4096u

typedef enum shape { SEQ_INT, RANDOM_INT, FEW_STRINGS, UNIQUE_STRINGS } shape;

typedef struct wcase {
    const char *name;
    cf_type type;
    cf_encoding enc;
    cf_compression comp;
    shape data;
    bool nullable;
    bool validx;
} wcase;

/* One chunk of rows [first, first + n) of the data shape, in memory form. */
static void fill(const wcase *c, uint64_t first, size_t n, void *vals, char (*strs)[24])
{
    cf_rng rng;
    cf_rng_init(&rng, first * 2654435761u + 1);
    for (size_t i = 0; i < n; i++) {
        uint64_t row = first + i;
        switch (c->data) {
        case SEQ_INT:
            if (c->type == CF_TYPE_INT64)
                ((int64_t *)vals)[i] = (int64_t)row * 3;
            else
                ((int32_t *)vals)[i] = (int32_t)row;
            break;
        case RANDOM_INT: ((int32_t *)vals)[i] = (int32_t)cf_rng_next(&rng); break;
        case FEW_STRINGS:
        case UNIQUE_STRINGS: {
            uint64_t k = c->data == FEW_STRINGS ? cf_rng_below(&rng, 300) : row;
            int len = snprintf(strs[i], sizeof strs[i], "user%010llu", (unsigned long long)k);
            ((cf_slice *)vals)[i] = (cf_slice){(const uint8_t *)strs[i], (size_t)len};
            break;
        }
        }
    }
}

/* Peak live bytes of the library while writing `rows` rows of case c. */
static size_t write_peak(const wcase *c, const char *path, uint64_t rows)
{
    size_t es = cf_type_size(c->type);
    void *vals = malloc(CHUNK * es);
    char(*strs)[24] = malloc(CHUNK * sizeof *strs);
    uint8_t nonnull[CHUNK / 8];
    assert_non_null(vals);
    assert_non_null(strs);
    for (size_t i = 0; i < sizeof nonnull; i++)
        nonnull[i] = 0xB7; /* 3 rows in 8 NULL */

    cf_writer_options o = col_options((col_opts){.type = c->type,
                                                 .enc = c->enc,
                                                 .comp = c->comp,
                                                 .nullable = c->nullable,
                                                 .validx = c->validx});
    cf_error err;
    cf_alloc_stats st;
    cf_alloc_stats_start();
    cf_writer *w = NULL;
    CF_ASSERT_OK(cf_writer_create_file(&w, path, &o, &err), &err);
    for (uint64_t at = 0; at < rows; at += CHUNK) {
        size_t n = rows - at < CHUNK ? (size_t)(rows - at) : CHUNK;
        fill(c, at, n, vals, strs);
        CF_ASSERT_OK(cf_writer_append(w, vals, c->nullable ? nonnull : NULL, n, &err), &err);
    }
    CF_ASSERT_OK(cf_writer_finish(w, &err), &err);
    cf_writer_free(w);
    cf_alloc_stats_stop(&st);
    free(vals);
    free(strs);
    assert_int_equal(unlink(path), 0);
    return st.peak_live;
}

static const wcase CASES[] = {
    {"int64 PLAIN, value index", CF_TYPE_INT64, CF_ENC_PLAIN, CF_COMP_NONE, SEQ_INT, false, true},
    {"int32 BIT_SHUFFLE lz4", CF_TYPE_INT32, CF_ENC_BIT_SHUFFLE, CF_COMP_LZ4, RANDOM_INT, false,
     false},
    {"int32 RLE nullable", CF_TYPE_INT32, CF_ENC_RLE, CF_COMP_NONE, SEQ_INT, true, false},
    {"int32 PLAIN zlib", CF_TYPE_INT32, CF_ENC_PLAIN, CF_COMP_ZLIB, RANDOM_INT, false, false},
    {"string DICT, few values", CF_TYPE_STRING, CF_ENC_DICT, CF_COMP_NONE, FEW_STRINGS, false,
     false},
    {"string DICT, unique (fallback)", CF_TYPE_STRING, CF_ENC_DICT, CF_COMP_SNAPPY, UNIQUE_STRINGS,
     false, true},
    {"string PREFIX, value index", CF_TYPE_STRING, CF_ENC_PREFIX, CF_COMP_NONE, UNIQUE_STRINGS,
     false, true},
    {"string PLAIN nullable", CF_TYPE_STRING, CF_ENC_PLAIN, CF_COMP_NONE, UNIQUE_STRINGS, true,
     false},
};

static void test_writer_memory__bounded_and_flat(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/cf_wmem_%ld.cfile", (long)getpid());
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const wcase *c = &CASES[i];
        size_t small = write_peak(c, path, ROWS_SMALL);
        size_t large = write_peak(c, path, 8 * (uint64_t)ROWS_SMALL);
        print_message("%-32s peak %6zu KiB at %u rows, %6zu KiB at %u rows\n", c->name, small / KIB,
                      ROWS_SMALL, large / KIB, 8 * ROWS_SMALL);
        /* The file io's 1 MiB write buffer plus the writer's own state: the
         * block being built, its framed (compressed, checksummed) copy, index
         * blocks of at most 32 KiB per level, and for DICT the dictionary, its
         * hash table and the plain-mode fallback block. Measured here: 1.0 to
         * 1.6 MiB of writer state, 3.7 MiB for DICT over unique strings. */
        if (large > 1024 * KIB + 16 * BLOCK)
            fail_msg("%s: %zu KiB live during the write (bound %zu KiB)", c->name, large / KIB,
                     (1024 * KIB + 16 * BLOCK) / KIB);
        /* Eight times the rows may only add index entries. */
        if (large > small + 64 * KIB)
            fail_msg("%s: %zu KiB at %u rows but %zu KiB at %u rows: grows with the file", c->name,
                     small / KIB, ROWS_SMALL, large / KIB, 8 * ROWS_SMALL);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_memory__bounded_and_flat),
    };
    return cf_test_run(argc, argv, "cfile/test_writer_memory", tests,
                       sizeof tests / sizeof tests[0]);
}
