/* Real pages: every page listed in tests/parquet/real_pages.txt (the first
 * pages of every column chunk of the valid files in ../shared/parquet,
 * indexed by real_pages.py) is decompressed with its codec to exactly the
 * size its header gives, its levels are decoded, and its values (or
 * dictionary indices, checked against the chunk's dictionary page) are
 * decoded with src/parquet, counting per encoding. Whether the values are
 * the right ones is the reader's test against expected.json; this one proves
 * that the page decoders accept what about 15 real writers wrote. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/encoding.h"

typedef struct page {
    char rel[256];
    size_t body, csize, usize;
    unsigned codec, kind, nv, enc, denc, renc, mdef, mrep, ptype;
    int32_t tl;
    size_t dlen, rlen;
    unsigned comp, dict_n;
} page;

static void decode_page(const page *pg, const uint8_t *file, size_t flen, unsigned *per_enc)
{
    cf_error err;
    char where[400];
    snprintf(where, sizeof where, "%s page at %zu (kind %u, %s, %s)", pg->rel, pg->body, pg->kind,
             cf_pq_codec_name(pg->codec), cf_pq_encoding_name(pg->enc));
    if (pg->body > flen || pg->csize > flen - pg->body) {
        fail_msg("%s: outside the file", where);
    }
    const uint8_t *src = file + pg->body;
    uint8_t *buf = malloc(pg->usize + 1);
    size_t lv_len = pg->kind == 3 ? pg->dlen + pg->rlen : 0;
    assert_true(lv_len <= pg->csize && lv_len <= pg->usize);
    memcpy(buf, src, lv_len);
    cf_status st;
    if (pg->kind == 3 && !pg->comp) {
        assert_int_equal(pg->csize, pg->usize);
        memcpy(buf, src, pg->csize);
        st = CF_OK;
    } else {
        st = cf_pq_decompress(pg->codec, src + lv_len, pg->csize - lv_len, buf + lv_len,
                              pg->usize - lv_len, &err);
    }
    if (st != CF_OK)
        fail_msg("%s: decompress: %s", where, err.msg);
    const uint8_t *p = buf, *end = buf + pg->usize;
    size_t nn = pg->nv; /* values stored (non-null) */
    if (pg->kind == 0 || pg->kind == 3) {
        uint16_t *rep = malloc((pg->nv + 1) * 2), *def = malloc((pg->nv + 1) * 2);
        size_t used;
        if (pg->kind == 0) {
            st = cf_pq_levels_decode(rep, pg->nv, pg->renc, (uint16_t)pg->mrep, true, p,
                                     (size_t)(end - p), &used, &err);
            if (st == CF_OK) {
                p += used;
                st = cf_pq_levels_decode(def, pg->nv, pg->denc, (uint16_t)pg->mdef, true, p,
                                         (size_t)(end - p), &used, &err);
                p += used;
            }
        } else {
            st = cf_pq_levels_decode(rep, pg->nv, CF_PQE_RLE, (uint16_t)pg->mrep, false, p,
                                     pg->rlen, &used, &err);
            if (st == CF_OK)
                st = cf_pq_levels_decode(def, pg->nv, CF_PQE_RLE, (uint16_t)pg->mdef, false,
                                         p + pg->rlen, pg->dlen, &used, &err);
            p += lv_len;
        }
        if (st != CF_OK)
            fail_msg("%s: levels: %s", where, err.msg);
        nn = 0;
        for (size_t i = 0; i < pg->nv; i++)
            nn += def[i] == pg->mdef;
        free(rep);
        free(def);
    }
    size_t w = cf_pq_value_size(pg->ptype, pg->tl);
    uint8_t *vals = malloc(nn * (w > 4 ? w : 4) + 1); /* indices are 4 bytes */
    if (pg->kind != 2 && (pg->enc == CF_PQE_RLE_DICTIONARY || pg->enc == CF_PQE_PLAIN_DICTIONARY)) {
        st = cf_pq_dict_indices_decode((uint32_t *)(void *)vals, nn, pg->dict_n, p,
                                       (size_t)(end - p), &err);
        per_enc[CF_PQE_RLE_DICTIONARY]++;
    } else {
        /* a dictionary page holds PLAIN values whatever its encoding says */
        unsigned enc = pg->kind == 2 ? CF_PQE_PLAIN : pg->enc;
        cf_pq_decoder d;
        st = cf_pq_decoder_init(&d, enc, pg->ptype, pg->tl, p, (size_t)(end - p), nn, &err);
        if (st == CF_OK)
            st = cf_pq_decoder_get(&d, vals, nn, &err);
        cf_pq_decoder_dispose(&d);
        per_enc[enc < 10 ? enc : 1]++;
    }
    if (st != CF_OK)
        fail_msg("%s: %zu values: %s", where, nn, err.msg);
    free(vals);
    free(buf);
}

static void test_pq_pages__real_pages_decode(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/parquet/real_pages.txt", CF_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char cur[256] = "";
    uint8_t *file = NULL;
    size_t flen = 0, pages = 0;
    unsigned per_enc[10] = {0}, per_codec[8] = {0};
    page pg;
    while (fscanf(f, "%255s %zu %zu %zu %u %u %u %u %u %u %u %u %u %d %zu %zu %u %u", pg.rel,
                  &pg.body, &pg.csize, &pg.usize, &pg.codec, &pg.kind, &pg.nv, &pg.enc, &pg.denc,
                  &pg.renc, &pg.mdef, &pg.mrep, &pg.ptype, &pg.tl, &pg.dlen, &pg.rlen, &pg.comp,
                  &pg.dict_n) == 18) {
        if (strcmp(cur, pg.rel) != 0) {
            free(file);
            char fp[1400];
            snprintf(fp, sizeof fp, "%s/parquet/%s", cf_test_shared_dir(), pg.rel);
            file = cf_test_read_file(fp, &flen);
            if (file == NULL)
                fail_msg("cannot read %s", fp);
            snprintf(cur, sizeof cur, "%s", pg.rel);
        }
        decode_page(&pg, file, flen, per_enc);
        per_codec[pg.codec < 8 ? pg.codec : 3]++;
        pages++;
    }
    fclose(f);
    free(file);
    printf("# %zu real pages decoded; by encoding:", pages);
    for (unsigned e = 0; e < 10; e++)
        if (per_enc[e])
            printf(" %s %u", cf_pq_encoding_name(e), per_enc[e]);
    printf("; by codec:");
    for (unsigned c = 0; c < 8; c++)
        if (per_codec[c])
            printf(" %s %u", cf_pq_codec_name(c), per_codec[c]);
    printf("\n");
    assert_true(pages >= 700);
    /* every value encoding and codec of the public corpus was met */
    const unsigned encs[] = {CF_PQE_PLAIN,
                             CF_PQE_RLE,
                             CF_PQE_DELTA_BINARY_PACKED,
                             CF_PQE_DELTA_LENGTH_BYTE_ARRAY,
                             CF_PQE_DELTA_BYTE_ARRAY,
                             CF_PQE_RLE_DICTIONARY,
                             CF_PQE_BYTE_STREAM_SPLIT};
    for (size_t i = 0; i < sizeof encs / sizeof encs[0]; i++)
        assert_true(per_enc[encs[i]] > 0);
    const unsigned codecs[] = {CF_PQC_UNCOMPRESSED, CF_PQC_SNAPPY, CF_PQC_GZIP,
                               CF_PQC_BROTLI,       CF_PQC_ZSTD,   CF_PQC_LZ4_RAW};
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++)
        assert_true(per_codec[codecs[i]] > 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pq_pages__real_pages_decode),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
