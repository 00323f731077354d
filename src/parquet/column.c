/* Reading one column chunk: pages (pages.c) decompressed (codec.c), their
 * levels and values decoded (levels.c, values.c, dict.c) into the value forms
 * of include/cfile/parquet.h (parquet-format README "Data Pages"):
 *
 *   DATA_PAGE     body = compress( [rep levels] [def levels] values );
 *                 RLE levels carry a 4-byte length prefix, BIT_PACKED none
 *   DATA_PAGE_V2  body = rep levels | def levels | compress?(values);
 *                 both level sections RLE without prefix, never compressed
 *   DICTIONARY    body = compress( PLAIN values ), once, before the data pages
 *
 * A page's levels are decoded when the page is loaded (the hybrid has no
 * resumable decoder), so pages claiming more than CF_PQ_MAX_PAGE_VALUES
 * entries are refused rather than sized blindly. */
#include "internal.h"

#include <string.h>

#include "encoding.h"
#include "util/alloc.h"
#include "util/error.h"

/* 16 Mi level entries and 256 MiB decompressed per page: writers cut pages at
 * about 1 MiB or 20,000 rows, so these only stop headers that lie. */
#define CF_PQ_MAX_PAGE_VALUES ((size_t)1 << 24)
#define CF_PQ_MAX_PAGE_BYTES ((size_t)256 << 20)

struct cf_parquet_column_reader {
    const cf_parquet *pq;
    const cf_parquet_column *col;
    uint32_t row_group, column;
    int32_t codec;
    int64_t chunk_raw_size; /* the chunk's total_uncompressed_size (0: not given) */
    size_t vsize;           /* bytes of one value form */
    cf_parquet_pages *pages;
    uint32_t page_no;
    uint64_t data_pages; /* data pages loaded */
    uint64_t page_off;
    /* Dictionary: values in their forms (slices into dict_page). */
    bool has_dict;
    uint8_t *dict_page; /* decompressed dictionary page (owned) */
    uint8_t *dict_values;
    uint32_t dict_count;
    /* The current data page. */
    uint8_t *page; /* decompressed bytes (owned; values may point here) */
    size_t page_cap;
    uint16_t *def, *rep; /* its levels */
    size_t level_cap;
    size_t n, pos; /* level entries, next entry */
    size_t vpos;   /* values (non-null entries) returned from the page */
    bool dict_encoded;
    uint32_t *idx; /* the page's dictionary indices */
    size_t idx_cap;
    bool dec_live;
    cf_pq_decoder dec;
    bool done;
};

#define WHERE "row group %" PRIu32 " column %" PRIu32 " page %" PRIu32 " at offset %" PRIu64
#define WHERE_ARGS r->row_group, r->column, r->page_no, r->page_off

static cf_status reserve(void **p, size_t *cap, size_t n, size_t elem, cf_error *err)
{
    size_t bytes;
    CF_CHECK(cf_mul_ok(n, elem, &bytes), err, CF_ENOMEM, "parquet column: size overflow");
    if (bytes <= *cap)
        return CF_OK;
    void *q = cf_realloc(*p, bytes);
    CF_CHECK(q, err, CF_ENOMEM, "parquet column: out of memory for %zu bytes", bytes);
    *p = q;
    *cap = bytes;
    return CF_OK;
}

cf_status cf_parquet_column_open(cf_parquet_column_reader **out, const cf_parquet *pq,
                                 uint32_t row_group, uint32_t column, cf_error *err)
{
    *out = NULL;
    const cf_parquet_column_chunk *cc;
    CF_TRY(cf_pq_chunk_at(pq, row_group, column, "parquet column", &cc, err));
    cf_parquet_column_reader *r = cf_calloc(1, sizeof(*r));
    CF_CHECK(r, err, CF_ENOMEM, "parquet column: out of memory");
    r->pq = pq;
    r->col = cf_parquet_column_at(pq, column);
    r->row_group = row_group;
    r->column = column;
    r->codec = cc->meta.codec;
    r->chunk_raw_size = cc->meta.total_uncompressed_size;
    r->vsize = cf_pq_value_size((unsigned)r->col->type, r->col->type_length);
    cf_status st = cf_parquet_pages_open(&r->pages, pq, row_group, column, NULL, err);
    if (st == CF_OK && !cf_pq_codec_supported((unsigned)r->codec)) {
        const char *name = cf_parquet_codec_name(r->codec);
        /* A codec parquet.thrift names is a feature this build lacks;
         * a number it does not name is damage. */
        st = cf_error_set(err, name ? CF_ENOTSUP : CF_ECORRUPT, __FILE__, __LINE__,
                          "row group %" PRIu32 " column %" PRIu32 ": codec %s (%" PRId32
                          ") is not supported",
                          row_group, column, name ? name : "unknown", r->codec);
    }
    if (st != CF_OK) {
        cf_parquet_column_free(r);
        return st;
    }
    *out = r;
    return CF_OK;
}

size_t cf_parquet_column_value_size(const cf_parquet_column_reader *r)
{
    return r->vsize;
}

void cf_parquet_column_free(cf_parquet_column_reader *r)
{
    if (!r)
        return;
    if (r->dec_live)
        cf_pq_decoder_dispose(&r->dec);
    cf_parquet_pages_free(r->pages);
    cf_free(r->dict_page);
    cf_free(r->dict_values);
    cf_free(r->page);
    cf_free(r->def);
    cf_free(r->rep);
    cf_free(r->idx);
    cf_free(r);
}

/* Entries among def[0..n) that hold a value (def == max_def). A column
 * without definition levels has them all; the loop has no branch, so it
 * vectorises. */
static size_t count_present(const uint16_t *def, size_t n, uint16_t max_def)
{
    if (max_def == 0)
        return n;
    size_t present = 0;
    for (size_t i = 0; i < n; i++)
        present += def[i] == max_def;
    return present;
}

/* out[i] = dict[idx[i]] for values of vsize bytes; the indices were checked
 * against the dictionary when the page loaded (cf_pq_dict_indices_decode).
 * The common sizes get a loop whose copy has a constant size (an inline
 * load and store, not a call per value). */
static void gather(void *out, const uint8_t *dict, const uint32_t *idx, size_t n, size_t vsize)
{
    uint8_t *o = out;
    switch (vsize) {
    case 4:
        for (size_t i = 0; i < n; i++)
            memcpy(o + 4 * i, dict + 4 * (size_t)idx[i], 4);
        break;
    case 8:
        for (size_t i = 0; i < n; i++)
            memcpy(o + 8 * i, dict + 8 * (size_t)idx[i], 8);
        break;
    case 16: /* cf_slice (BYTE_ARRAY), FIXED_LEN_BYTE_ARRAY(16) */
        for (size_t i = 0; i < n; i++)
            memcpy(o + 16 * i, dict + 16 * (size_t)idx[i], 16);
        break;
    default:
        for (size_t i = 0; i < n; i++)
            memcpy(o + i * vsize, dict + (size_t)idx[i] * vsize, vsize);
        break;
    }
}

/* The page's bytes after its (uncompressed) prefix, decompressed when the
 * codec says so, into *out (owned buffer `*buf` or the body itself). */
static cf_status inflate(cf_parquet_column_reader *r, const uint8_t *src, size_t len,
                         size_t raw_len, bool compressed, uint8_t **buf, size_t *cap,
                         const uint8_t **out, size_t *out_len, cf_error *err)
{
    /* Nothing stored for nothing: an empty page, or a v2 page whose values are
     * all null, may carry no codec framing at all (Arrow and DuckDB read it
     * as empty). A 0-byte payload for bytes is left to the codec: damage. */
    if (!compressed || r->codec == CF_PARQUET_UNCOMPRESSED || (len == 0 && raw_len == 0)) {
        *out = src;
        *out_len = len;
        return CF_OK;
    }
    /* Past our limit, a page larger than its whole chunk is a lie (damage);
     * one inside a chunk that size is real but not taken. Below the limit the
     * chunk total is not trusted: some writers get it wrong, and the codec
     * checks the size anyway. */
    if (raw_len > CF_PQ_MAX_PAGE_BYTES) {
        CF_CHECK(r->chunk_raw_size <= 0 || raw_len <= (uint64_t)r->chunk_raw_size, err, CF_ECORRUPT,
                 WHERE ": a page of %zu bytes decompressed in a chunk of %" PRId64 " bytes",
                 WHERE_ARGS, raw_len, r->chunk_raw_size);
        CF_FAIL(err, CF_ENOTSUP,
                WHERE ": a page of %zu bytes decompressed, more than this reader takes", WHERE_ARGS,
                raw_len);
    }
    CF_TRY(reserve((void **)buf, cap, raw_len ? raw_len : 1, 1, err));
    cf_status st = cf_pq_decompress((unsigned)r->codec, src, len, *buf, raw_len, err);
    if (st != CF_OK)
        return cf_error_prefix(err, st, WHERE ": ", WHERE_ARGS);
    *out = *buf;
    *out_len = raw_len;
    return CF_OK;
}

static cf_status load_dictionary(cf_parquet_column_reader *r, const cf_parquet_page *p,
                                 cf_error *err)
{
    CF_CHECK(!r->has_dict, err, CF_ECORRUPT, WHERE ": a second dictionary page", WHERE_ARGS);
    CF_CHECK(p->encoding == CF_PARQUET_PLAIN || p->encoding == CF_PARQUET_PLAIN_DICTIONARY, err,
             CF_ECORRUPT, WHERE ": dictionary page encoding %" PRId32 " (PLAIN expected)",
             WHERE_ARGS, p->encoding);
    CF_CHECK(p->num_values >= 0, err, CF_ECORRUPT, WHERE ": dictionary of %" PRId32 " values",
             WHERE_ARGS, p->num_values);
    /* PLAIN values take at least a bit (BOOLEAN), 4 bytes (a BYTE_ARRAY's
     * length) or their width each: a count beyond that is a lie. Checked
     * before our own limit, so that a lie is reported as damage. */
    size_t min_bits = r->col->type == CF_PARQUET_BOOLEAN      ? 1
                      : r->col->type == CF_PARQUET_BYTE_ARRAY ? 32
                                                              : r->vsize * 8;
    CF_CHECK((uint64_t)p->num_values * min_bits <= (uint64_t)p->uncompressed_size * 8, err,
             CF_ECORRUPT, WHERE ": dictionary of %" PRId32 " values in %" PRId32 " bytes",
             WHERE_ARGS, p->num_values, p->uncompressed_size);
    CF_CHECK((size_t)p->num_values <= CF_PQ_MAX_PAGE_VALUES || r->chunk_raw_size <= 0 ||
                 p->uncompressed_size <= r->chunk_raw_size,
             err, CF_ECORRUPT,
             WHERE ": a dictionary page of %" PRId32 " bytes in a chunk of %" PRId64 " bytes",
             WHERE_ARGS, p->uncompressed_size, r->chunk_raw_size);
    CF_CHECK((size_t)p->num_values <= CF_PQ_MAX_PAGE_VALUES, err, CF_ENOTSUP,
             WHERE ": dictionary of %" PRId32 " values, more than this reader takes", WHERE_ARGS,
             p->num_values);
    size_t cap = 0;
    const uint8_t *data = NULL; /* set by inflate: initialised for -O3's flow analysis */
    size_t len = 0;
    CF_TRY(inflate(r, p->body.data, p->body.len, (size_t)p->uncompressed_size, true, &r->dict_page,
                   &cap, &data, &len, err));
    if (data == p->body.data) {
        /* Uncompressed: the body lives only until the next page; keep a copy. */
        CF_TRY(reserve((void **)&r->dict_page, &cap, len ? len : 1, 1, err));
        memcpy(r->dict_page, data, len);
        data = r->dict_page;
    }
    size_t vcap = 0;
    CF_TRY(reserve((void **)&r->dict_values, &vcap,
                   (size_t)p->num_values ? (size_t)p->num_values : 1, r->vsize, err));
    cf_pq_decoder d;
    cf_status st = cf_pq_decoder_init(&d, CF_PQE_PLAIN, (unsigned)r->col->type, r->col->type_length,
                                      data, len, (size_t)p->num_values, err);
    if (st == CF_OK && p->num_values > 0)
        st = cf_pq_decoder_get(&d, r->dict_values, (size_t)p->num_values, err);
    cf_pq_decoder_dispose(&d);
    if (st != CF_OK)
        return cf_error_prefix(err, st, WHERE ": dictionary: ", WHERE_ARGS);
    r->dict_count = (uint32_t)p->num_values;
    r->has_dict = true;
    return CF_OK;
}

/* Levels, then the value decoder, of one data page. */
static cf_status load_data_page(cf_parquet_column_reader *r, const cf_parquet_page *p,
                                cf_error *err)
{
    size_t n = (size_t)p->num_values;
    CF_CHECK(n <= CF_PQ_MAX_PAGE_VALUES, err, CF_ENOTSUP,
             WHERE ": %zu values in one page, more than this reader takes", WHERE_ARGS, n);
    size_t dcap = r->level_cap, rcap = r->level_cap;
    CF_TRY(reserve((void **)&r->def, &dcap, n ? n : 1, sizeof(uint16_t), err));
    CF_TRY(reserve((void **)&r->rep, &rcap, n ? n : 1, sizeof(uint16_t), err));
    r->level_cap = dcap < rcap ? dcap : rcap;
    const uint8_t *data;
    size_t len, used;
    cf_status st;
    if (p->type == CF_PARQUET_DATA_PAGE) {
        CF_TRY(inflate(r, p->body.data, p->body.len, (size_t)p->uncompressed_size, true, &r->page,
                       &r->page_cap, &data, &len, err));
        const uint8_t *q = data;
        size_t left = len;
        st = cf_pq_levels_decode(r->rep, n, (unsigned)p->rep_encoding, r->col->max_rep, true, q,
                                 left, &used, err);
        if (st == CF_OK) {
            q += used;
            left -= used;
            st = cf_pq_levels_decode(r->def, n, (unsigned)p->def_encoding, r->col->max_def, true, q,
                                     left, &used, err);
        }
        if (st != CF_OK)
            return cf_error_prefix(err, st, WHERE ": levels: ", WHERE_ARGS);
        data = q + used;
        len = left - used;
    } else {
        size_t rl = (size_t)p->rep_levels_len, dl = (size_t)p->def_levels_len;
        const uint8_t *q = p->body.data;
        st = cf_pq_levels_decode(r->rep, n, CF_PQE_RLE, r->col->max_rep, false, q, rl, NULL, err);
        if (st == CF_OK)
            st = cf_pq_levels_decode(r->def, n, CF_PQE_RLE, r->col->max_def, false, q + rl, dl,
                                     NULL, err);
        if (st != CF_OK)
            return cf_error_prefix(err, st, WHERE ": levels: ", WHERE_ARGS);
        CF_CHECK((size_t)p->uncompressed_size >= rl + dl, err, CF_ECORRUPT,
                 WHERE ": uncompressed size %" PRId32 " smaller than its levels", WHERE_ARGS,
                 p->uncompressed_size);
        CF_TRY(inflate(r, q + rl + dl, p->body.len - rl - dl,
                       (size_t)p->uncompressed_size - rl - dl, p->is_compressed, &r->page,
                       &r->page_cap, &data, &len, err));
    }
    size_t present = count_present(r->def, n, r->col->max_def);
    if (p->num_nulls >= 0)
        CF_CHECK(present == n - (size_t)p->num_nulls, err, CF_ECORRUPT,
                 WHERE ": %zu values present by the levels, the header says %zu", WHERE_ARGS,
                 present, n - (size_t)p->num_nulls);
    r->dict_encoded =
        p->encoding == CF_PARQUET_RLE_DICTIONARY || p->encoding == CF_PARQUET_PLAIN_DICTIONARY;
    r->vpos = 0;
    if (r->dict_encoded) {
        CF_CHECK(r->has_dict, err, CF_ECORRUPT,
                 WHERE ": dictionary-encoded page without a "
                       "dictionary page",
                 WHERE_ARGS);
        /* All indices at once: the hybrid stream has no resumable decoder. */
        size_t icap = r->idx_cap;
        CF_TRY(reserve((void **)&r->idx, &icap, present ? present : 1, sizeof(uint32_t), err));
        r->idx_cap = icap;
        if (present) {
            st = cf_pq_dict_indices_decode(r->idx, present, r->dict_count, data, len, err);
            if (st != CF_OK)
                return cf_error_prefix(err, st, WHERE ": dictionary indices: ", WHERE_ARGS);
        }
    } else {
        st = cf_pq_decoder_init(&r->dec, (unsigned)p->encoding, (unsigned)r->col->type,
                                r->col->type_length, data, len, present, err);
        r->dec_live = true;
        if (st != CF_OK)
            return cf_error_prefix(err, st, WHERE ": values: ", WHERE_ARGS);
    }
    r->n = n;
    r->pos = 0;
    return CF_OK;
}

/* Move to the next data page (loading the dictionary on the way); *end at the
 * chunk's end. */
static cf_status next_page(cf_parquet_column_reader *r, bool *end, cf_error *err)
{
    if (r->dec_live) {
        cf_pq_decoder_dispose(&r->dec);
        r->dec_live = false;
    }
    memset(&r->dec, 0, sizeof(r->dec));
    for (;;) {
        cf_parquet_page p;
        bool has;
        CF_TRY(cf_parquet_pages_next(r->pages, &p, &has, err));
        if (!has) {
            *end = true;
            return CF_OK;
        }
        r->page_off = p.offset;
        if (p.type == CF_PARQUET_DICTIONARY_PAGE) {
            CF_TRY(load_dictionary(r, &p, err));
        } else if (p.type == CF_PARQUET_DATA_PAGE || p.type == CF_PARQUET_DATA_PAGE_V2) {
            CF_TRY(load_data_page(r, &p, err));
            r->data_pages++;
            r->page_no++;
            *end = false;
            return CF_OK;
        }
        r->page_no++;
    }
}

cf_status cf_parquet_column_read(cf_parquet_column_reader *r, size_t max, uint16_t *def,
                                 uint16_t *rep, void *values, size_t *n_levels, size_t *n_values,
                                 cf_error *err)
{
    *n_levels = *n_values = 0;
    while (!r->done && r->pos == r->n) {
        bool end;
        CF_TRY(next_page(r, &end, err));
        r->done = end;
    }
    if (r->done || max == 0)
        return CF_OK;
    size_t k = r->n - r->pos < max ? r->n - r->pos : max;
    size_t present = count_present(r->def + r->pos, k, r->col->max_def);
    if (def)
        memcpy(def, r->def + r->pos, k * sizeof(uint16_t));
    if (rep)
        memcpy(rep, r->rep + r->pos, k * sizeof(uint16_t));
    if (present) {
        if (r->dict_encoded) {
            gather(values, r->dict_values, r->idx + r->vpos, present, r->vsize);
        } else {
            cf_status st = cf_pq_decoder_get(&r->dec, values, present, err);
            if (st != CF_OK)
                return cf_error_prefix(err, st, WHERE ": values: ", WHERE_ARGS);
        }
    }
    r->pos += k;
    r->vpos += present;
    *n_levels = k;
    *n_values = present;
    return CF_OK;
}

uint64_t cf_parquet_column_pages_read(const cf_parquet_column_reader *r)
{
    return r->data_pages;
}

cf_status cf_parquet_column_seek(cf_parquet_column_reader *r, uint64_t offset, cf_error *err)
{
    CF_CHECK(r->page_no == 0 && r->n == 0, err, CF_EINVAL,
             "parquet column: seek after reading started");
    const cf_parquet_column_meta *cm =
        &cf_parquet_meta(r->pq)->row_groups[r->row_group].columns[r->column].meta;
    if (cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0) {
        /* The first page: the dictionary (or, from writers that record a
         * dictionary offset without one, a data page the seek passes over). */
        cf_parquet_page p;
        bool has;
        CF_TRY(cf_parquet_pages_next(r->pages, &p, &has, err));
        if (has && p.type == CF_PARQUET_DICTIONARY_PAGE) {
            r->page_off = p.offset;
            CF_TRY(load_dictionary(r, &p, err));
        }
        r->page_no++;
    }
    return cf_parquet_pages_seek(r->pages, offset, err);
}
