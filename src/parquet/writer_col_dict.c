/* The dictionary of one Parquet column chunk: the lookup of a value's entry
 * (an open-addressing table, keyed by the value itself for 4- and 8-byte
 * values), a new entry's once-per-distinct-value work (UTF-8 check, bloom
 * hash), the decision to fall back to PLAIN (the dictionary passes
 * dict_page_bytes, or holds nearly one entry per value), and the dictionary
 * page. It must not close or encode data pages (writer_col_page.c) or write
 * to the file (writer_col_chunk.c): fallback only sets c->fallback, which the
 * row's end acts on.
 */
#include "writer_col.h"

#include "codec/crc32.h"

/* A chunk's dictionary with this many entries, nearly one per value, falls
 * back to PLAIN (cf_pq_wcol_dict_index). */
#define DICT_GIVE_UP 32768

static inline bool same_fixed(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (n == 8)
        return cf_load_le64(a) == cf_load_le64(b);
    if (n == 4)
        return cf_load_le32(a) == cf_load_le32(b);
    return memcmp(a, b, n) == 0;
}

/* The dictionary index of value [p, p+n), added when new. A new value is
 * where the general path's once-per-distinct-value work is done (add_value):
 * its UTF-8 check and bloom filter hash. */
cf_status cf_pq_wcol_dict_index(cf_pq_wcol *c, const uint8_t *p, size_t n, uint64_t h,
                                uint32_t *out, cf_error *err)
{
    const bool ba = c->d.ptype == CF_PQT_BYTE_ARRAY, keyed = !ba && (n == 4 || n == 8);
    /* Keyed tables (found by append_fixed's inlined probe) stay at most a
     * quarter full up to 8 Ki entries (a 384 KiB table), so most values are in
     * their home slot and the probe's loop exit is predicted; past that, and
     * for the others, half full (a table of nearly distinct values grows to
     * DICT_GIVE_UP entries before it is abandoned: its memory is fresh pages). */
    const size_t fill = keyed && c->dict_count < 8192 ? 4 : 2;
    if (fill * (c->dict_count + 1) > c->slot_cap) {
        size_t ncap = c->slot_cap ? 2 * c->slot_cap : 1024;
        while (fill * (c->dict_count + 1) > ncap)
            ncap *= 2;
        uint32_t *ns = cf_calloc(ncap, sizeof(*ns));
        uint64_t *nk = keyed ? cf_malloc(ncap * sizeof(*nk)) : NULL;
        if (ns == NULL || (keyed && nk == NULL)) {
            cf_free(ns);
            cf_free(nk);
            CF_FAIL(err, CF_ENOMEM, "column %s: out of memory for the dictionary", c->d.name);
        }
        cf_free(c->slots);
        cf_free(c->slot_keys);
        c->slots = ns;
        c->slot_keys = nk;
        c->slot_cap = ncap;
        for (size_t i = 0; i < c->dict_count; i++) {
            const uint8_t *e = c->dict.data + c->dict_offs[i];
            size_t el = c->d.ptype == CF_PQT_BYTE_ARRAY ? cf_load_le32(e) : n;
            if (c->d.ptype == CF_PQT_BYTE_ARRAY)
                e += 4;
            size_t j = (size_t)dict_hash(e, el) & (ncap - 1);
            while (ns[j] != 0)
                j = (j + 1) & (ncap - 1);
            ns[j] = (uint32_t)i + 1;
            if (keyed)
                nk[j] = n == 8 ? cf_load_le64(e) : cf_load_le32(e);
        }
    }
    size_t mask = c->slot_cap - 1, j = (size_t)h & mask;
    uint64_t key = 0;
    if (keyed) {
        key = n == 8 ? cf_load_le64(p) : cf_load_le32(p);
        while (c->slots[j] != 0) {
            if (c->slot_keys[j] == key) {
                *out = c->slots[j] - 1;
                return CF_OK;
            }
            j = (j + 1) & mask;
        }
    }
    while (c->slots[j] != 0) {
        uint32_t e = c->slots[j] - 1;
        const uint8_t *q = c->dict.data + c->dict_offs[e];
        if (ba) {
            if (cf_load_le32(q) == n && (n == 0 || memcmp(q + 4, p, n) == 0)) {
                *out = e;
                return CF_OK;
            }
        } else if (same_fixed(q, p, n)) {
            *out = e;
            return CF_OK;
        }
        j = (j + 1) & mask;
    }
    if (c->d.utf8 && !utf8_ok(p, n)) {
        c->bad_row = c->rows_total;
        CF_FAIL(err, CF_EINVAL, UTF8_MSG, c->d.name, c->rows_total);
    }
    if (c->d.bloom)
        CF_CHECK(cf_pq_hashset_add(&c->bloom, n == 4 || n == 8 ? cf_parquet_xxh64(p, n, 0)
                                                               : h), /* h is XXH64 then */
                 err, CF_ENOMEM, "column %s: out of memory for the bloom filter", c->d.name);
    CF_CHECK(
        grow((void **)&c->dict_offs, &c->dict_offs_cap, c->dict_count + 1, sizeof(uint32_t)) &&
            grow((void **)&c->dict_seen, &c->dict_seen_cap, c->dict_count + 1, sizeof(uint32_t)),
        err, CF_ENOMEM, "column %s: out of memory for the dictionary", c->d.name);
    c->dict_offs[c->dict_count] = (uint32_t)c->dict.len;
    c->dict_seen[c->dict_count] = 0;
    if (ba)
        cf_buf_put_le32(&c->dict, (uint32_t)n);
    cf_buf_append(&c->dict, p, n);
    CF_CHECK(!c->dict.oom, err, CF_ENOMEM, "column %s: out of memory for the dictionary",
             c->d.name);
    c->slots[j] = (uint32_t)c->dict_count + 1;
    if (keyed)
        c->slot_keys[j] = key;
    *out = (uint32_t)c->dict_count++;
    if (c->dict.len > c->o.dict_page_bytes)
        c->fallback = true;
    /* A dictionary of (nearly) all distinct values only adds bytes (the
     * dictionary page plus indices nearly as wide as the values) and time:
     * give up once it holds DICT_GIVE_UP entries for fewer than 1.25 values
     * each, as DuckDB and arrow do on high-cardinality data. */
    else if (c->dict_count >= DICT_GIVE_UP &&
             (uint64_t)c->dict_count * 5 > ((uint64_t)c->num_values + c->nlev + 1) * 4)
        c->fallback = true;
    return CF_OK;
}

/* The dictionary page: its header into hdr, its body compressed into comp
 * (uncompressed: the body is dict itself). */
cf_status cf_pq_wcol_dict_page(cf_pq_wcol *c, cf_error *err)
{
    cf_buf *hdr = &c->hdr, *comp = &c->comp;
    cf_buf_clear(hdr);
    cf_buf_clear(comp);
    const uint8_t *stored = c->dict.data;
    size_t stored_len = c->dict.len;
    if (c->o.codec != CF_PQC_UNCOMPRESSED) {
        CF_TRY(cf_pq_compressor_run(c->cz, c->dict.data, c->dict.len, comp, err));
        stored = comp->data;
        stored_len = comp->len;
    }
    CF_CHECK(c->dict.len <= INT32_MAX && stored_len <= INT32_MAX, err, CF_EINVAL,
             "column %s: dictionary page of %zu bytes", c->d.name, c->dict.len);
    cf_thrift_writer tw;
    cf_thrift_writer_init(&tw, hdr);
    cf_thrift_write_struct_begin(&tw);
    cf_thrift_write_field_i32(&tw, 1, CF_PARQUET_DICTIONARY_PAGE);
    cf_thrift_write_field_i32(&tw, 2, (int32_t)c->dict.len);
    cf_thrift_write_field_i32(&tw, 3, (int32_t)stored_len);
    cf_pq_wcol_put_crc(c, &tw, NULL, 0, stored, stored_len);
    cf_thrift_write_field(&tw, 7, CF_TT_STRUCT);
    cf_thrift_write_struct_begin(&tw);
    cf_thrift_write_field_i32(&tw, 1, (int32_t)c->dict_count);
    cf_thrift_write_field_i32(&tw, 2, CF_PQE_PLAIN);
    cf_thrift_write_struct_end(&tw);
    cf_thrift_write_struct_end(&tw);
    CF_CHECK(cf_thrift_writer_status(&tw) == CF_OK, err, CF_ENOMEM, "column %s: out of memory",
             c->d.name);
    c->dict_ready = true;
    return CF_OK;
}
