/* Inspection: what HBase's `hbase hfile` (HFilePrettyPrinter) shows beyond the
 * cells -- FileInfo values typed by their keys, the data index level by level,
 * block type names, and Bloom probes keyed as the file's Bloom type says.
 *
 * FileInfo value types are HBase's (HStoreFile, HFileInfo, HFileWriterImpl and
 * the printer's printMeta): longs are 8-byte big-endian, ints 4-byte, booleans
 * one byte (Bytes.toBoolean: non-zero is true), keys serialized KeyValue keys.
 * TIMERANGE is either Writable (from, to as longs; HBase 0.9x zero-pads the
 * value to 32 bytes) or "PBUF" + TimeRangeTracker {uint64 from = 1; uint64 to = 2}
 * (HBase 2.0.0 wrote this form until HBASE-21012 went back to Writable).
 * COMPACTION_EVENT_KEY is "PBUF" + CompactionEventTracker {repeated bytes
 * compacted_store_file = 1}.
 */
#include "internal.h"

#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

/* ---- FileInfo ------------------------------------------------------------------------ */

static const struct {
    const char *key;
    cf_hfile_fi_kind kind;
} fi_keys[] = {
    {"MAX_SEQ_ID_KEY", CF_HFILE_FI_LONG},
    {"DELETE_FAMILY_COUNT", CF_HFILE_FI_LONG},
    {"EARLIEST_PUT_TS", CF_HFILE_FI_LONG},
    {"MAX_MEMSTORE_TS_KEY", CF_HFILE_FI_LONG},
    {"hfile.CREATE_TIME_TS", CF_HFILE_FI_LONG},
    {"BULKLOAD_TIMESTAMP", CF_HFILE_FI_LONG},
    {"MOB_CELLS_COUNT", CF_HFILE_FI_LONG},
    {"hfile.LEN_OF_BIGGEST_CELL", CF_HFILE_FI_LONG},
    {"hfile.AVG_KEY_LEN", CF_HFILE_FI_INT},
    {"hfile.AVG_VALUE_LEN", CF_HFILE_FI_INT},
    {"KEY_VALUE_VERSION", CF_HFILE_FI_INT},
    {"hfile.MAX_TAGS_LEN", CF_HFILE_FI_INT},
    {"MAJOR_COMPACTION_KEY", CF_HFILE_FI_BOOL},
    {"hfile.TAGS_COMPRESSED", CF_HFILE_FI_BOOL},
    {"EXCLUDE_FROM_MINOR_COMPACTION", CF_HFILE_FI_BOOL},
    {"HISTORICAL", CF_HFILE_FI_BOOL},
    {"SKIP_RESET_SEQ_ID", CF_HFILE_FI_BOOL},
    {"TIMERANGE", CF_HFILE_FI_TIMERANGE},
    {"hfile.LASTKEY", CF_HFILE_FI_KEY},
    {"hfile.KEY_OF_BIGGEST_CELL", CF_HFILE_FI_KEY},
    {"COMPACTION_EVENT_KEY", CF_HFILE_FI_COMPACTION},
    {"BLOOM_FILTER_TYPE", CF_HFILE_FI_STRING},
    {"DATA_BLOCK_ENCODING", CF_HFILE_FI_STRING},
    {"BULKLOAD_SOURCE_TASK", CF_HFILE_FI_STRING},
    {"hfile.COMPARATOR", CF_HFILE_FI_STRING},
};

/* Protobuf varint at *pos; false when it runs off the end or past 64 bits. */
static bool pb_varint(const uint8_t *p, size_t n, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*pos >= n)
            return false;
        uint8_t b = p[(*pos)++];
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
    }
    return false;
}

/* Skip one field of wire type wt; false when malformed. */
static bool pb_skip(const uint8_t *p, size_t n, size_t *pos, uint32_t wt)
{
    uint64_t v;
    switch (wt) {
    case 0: return pb_varint(p, n, pos, &v);
    case 1:
        if (n - *pos < 8)
            return false;
        *pos += 8;
        return true;
    case 2:
        if (!pb_varint(p, n, pos, &v) || v > n - *pos)
            return false;
        *pos += (size_t)v;
        return true;
    case 5:
        if (n - *pos < 4)
            return false;
        *pos += 4;
        return true;
    default: return false;
    }
}

static bool is_pbuf(cf_slice v)
{
    return v.len >= 4 && memcmp(v.data, "PBUF", 4) == 0;
}

static void decode_timerange(cf_slice v, cf_hfile_fi_value *out)
{
    if (is_pbuf(v)) {
        const uint8_t *p = v.data + 4;
        size_t n = v.len - 4, pos = 0;
        uint64_t from = 0, to = 0;
        while (pos < n) {
            uint64_t tag;
            if (!pb_varint(p, n, &pos, &tag)) {
                out->malformed = "TIMERANGE: protobuf field tag truncated";
                return;
            }
            uint32_t field = (uint32_t)(tag >> 3), wt = (uint32_t)(tag & 7);
            if ((field == 1 || field == 2) && wt == 0) {
                uint64_t x;
                if (!pb_varint(p, n, &pos, &x)) {
                    out->malformed = "TIMERANGE: protobuf varint truncated";
                    return;
                }
                if (field == 1)
                    from = x;
                else
                    to = x;
            } else if (!pb_skip(p, n, &pos, wt)) {
                out->malformed = "TIMERANGE: protobuf field truncated";
                return;
            }
        }
        out->kind = CF_HFILE_FI_TIMERANGE;
        out->tr_protobuf = true;
        out->tr_from = (int64_t)from;
        out->tr_to = (int64_t)to;
        return;
    }
    if (v.len < 16) {
        out->malformed = "TIMERANGE: fewer than 16 bytes";
        return;
    }
    out->kind = CF_HFILE_FI_TIMERANGE;
    out->tr_from = (int64_t)cf_load_be64(v.data);
    out->tr_to = (int64_t)cf_load_be64(v.data + 8);
    out->tr_extra = v.len - 16;
}

bool cf_hfile_compacted_file_at(cf_slice v, size_t i, cf_slice *name)
{
    if (!is_pbuf(v))
        return false;
    const uint8_t *p = v.data + 4;
    size_t n = v.len - 4, pos = 0, k = 0;
    while (pos < n) {
        uint64_t tag;
        if (!pb_varint(p, n, &pos, &tag))
            return false;
        if (tag == ((1u << 3) | 2)) {
            uint64_t len;
            if (!pb_varint(p, n, &pos, &len) || len > n - pos)
                return false;
            if (k++ == i) {
                *name = (cf_slice){p + pos, (size_t)len};
                return true;
            }
            pos += (size_t)len;
        } else if (!pb_skip(p, n, &pos, (uint32_t)(tag & 7))) {
            return false;
        }
    }
    return false;
}

/* Does the whole protobuf message parse (so a count of its names is honest)? */
static bool compaction_ok(cf_slice v, size_t *count)
{
    const uint8_t *p = v.data + 4;
    size_t n = v.len - 4, pos = 0;
    *count = 0;
    while (pos < n) {
        uint64_t tag;
        if (!pb_varint(p, n, &pos, &tag) || !pb_skip(p, n, &pos, (uint32_t)(tag & 7)))
            return false;
        if (tag == ((1u << 3) | 2))
            (*count)++;
    }
    return true;
}

void cf_hfile_file_info_decode(const cf_hfile *h, cf_slice key, cf_slice v, cf_hfile_fi_value *out)
{
    memset(out, 0, sizeof(*out));
    out->kind = CF_HFILE_FI_BYTES;
    cf_hfile_fi_kind want = CF_HFILE_FI_BYTES;
    for (size_t i = 0; i < sizeof(fi_keys) / sizeof(fi_keys[0]); i++) {
        size_t kl = strlen(fi_keys[i].key);
        if (key.len == kl && memcmp(key.data, fi_keys[i].key, kl) == 0) {
            want = fi_keys[i].kind;
            break;
        }
    }
    switch (want) {
    case CF_HFILE_FI_BYTES: return;
    case CF_HFILE_FI_STRING: out->kind = want; return;
    case CF_HFILE_FI_INT:
        if (v.len != 4) {
            out->malformed = "expected a 4-byte int";
            return;
        }
        out->kind = want;
        out->num = (int32_t)cf_load_be32(v.data);
        return;
    case CF_HFILE_FI_LONG:
        if (v.len != 8) {
            out->malformed = "expected an 8-byte long";
            return;
        }
        out->kind = want;
        out->num = (int64_t)cf_load_be64(v.data);
        return;
    case CF_HFILE_FI_BOOL:
        if (v.len != 1) {
            out->malformed = "expected a 1-byte boolean";
            return;
        }
        out->kind = want;
        out->num = v.data[0] != 0;
        return;
    case CF_HFILE_FI_TIMERANGE: decode_timerange(v, out); return;
    case CF_HFILE_FI_KEY:
        /* v1 files with raw keys store their last key as raw bytes too (v1 cells
         * are always read raw; only the comparator says whether the keys are
         * KeyValues underneath). */
        if (h->info.raw_keys && strstr(h->tr.comparator, "KeyComparator") == NULL &&
            strstr(h->tr.comparator, "KVComparator") == NULL) {
            out->malformed = "raw key (v1 Bytes comparator)";
            return;
        }
        if (cf_hfile_parse_key(&out->key, v.data, v.len, NULL) != CF_OK) {
            out->malformed = "not a KeyValue key";
            return;
        }
        out->key.key = v;
        out->kind = want;
        return;
    case CF_HFILE_FI_COMPACTION:
        if (!is_pbuf(v) || !compaction_ok(v, &out->compacted_files)) {
            out->malformed = "not a CompactionEventTracker message";
            return;
        }
        out->kind = want;
        return;
    }
}

/* ---- names --------------------------------------------------------------------------- */

const char *cf_hfile_block_type_name(const char magic[8])
{
    static const struct {
        const char *magic, *name;
    } t[] = {{"DATABLK*", "DATA"},
             {"DATABLKE", "ENCODED_DATA"},
             {"IDXLEAF2", "LEAF_INDEX"},
             {"BLMFBLK2", "BLOOM_CHUNK"},
             {"METABLKc", "META"},
             {"IDXINTE2", "INTERMEDIATE_INDEX"},
             {"IDXROOT2", "ROOT_INDEX"},
             {"FILEINF2", "FILE_INFO"},
             {"BLMFMET2", "GENERAL_BLOOM_META"},
             {"DFBLMET2", "DELETE_FAMILY_BLOOM_META"},
             {"TRABLK\"$", "TRAILER"},
             {"IDXBLK)+", "INDEX_V1"}};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (memcmp(magic, t[i].magic, HF_MAGIC_LEN) == 0)
            return t[i].name;
    return NULL;
}

const char *cf_hfile_checksum_name(uint8_t type)
{
    return type == 0 ? "NULL" : type == 1 ? "CRC32" : type == 2 ? "CRC32C" : NULL;
}

const char *cf_hfile_encoding_name(int id)
{
    switch (id) {
    case CF_HFILE_DBE_NONE: return "NONE";
    case CF_HFILE_DBE_PREFIX: return "PREFIX";
    case CF_HFILE_DBE_DIFF: return "DIFF";
    case CF_HFILE_DBE_FAST_DIFF: return "FAST_DIFF";
    case 6: return "PREFIX_TREE";
    case CF_HFILE_DBE_ROW_INDEX_V1: return "ROW_INDEX_V1";
    default: return NULL;
    }
}

/* ---- index --------------------------------------------------------------------------- */

static bool emit(cf_hfile_index_fn fn, void *ctx, const cf_hfile_index_block *b, const entry_vec *e,
                 const cf_buf *keys, cf_hfile_block_ref **refs, size_t *cap, bool *oom)
{
    if (e->n > *cap) {
        cf_hfile_block_ref *n = cf_realloc(*refs, e->n * sizeof(**refs));
        if (n == NULL) {
            *oom = true;
            return false;
        }
        *refs = n;
        *cap = e->n;
    }
    for (size_t i = 0; i < e->n; i++)
        (*refs)[i] = (cf_hfile_block_ref){
            e->v[i].off, e->v[i].size, {keys->data + e->v[i].key_off, e->v[i].key_len}};
    return fn(ctx, b, *refs, e->n);
}

cf_status cf_hfile_index_walk(const cf_hfile *h, cf_hfile_index_fn fn, void *ctx, cf_error *err)
{
    const cf_hfile_trailer *t = &h->tr;
    cf_status st = CF_OK;
    cf_hfile_block_ref *refs = NULL;
    size_t refs_cap = 0;
    bool oom = false;
    hf_block blk;
    cf_hfile_block_init(&blk);
    entry_vec cur = {0}, next = {0};
    cf_buf keys;
    cf_buf_init(&keys);
    (void)cf_buf_reserve(&keys, 16);

    if (t->major == 1) {
        /* The reader kept the one level; replay it. */
        cf_hfile_index_block b = {0, 1, "root", t->data_index_offset, 0, 0};
        size_t n = (size_t)h->info.num_data_blocks;
        refs = cf_malloc((n ? n : 1) * sizeof(*refs));
        if (refs == NULL) {
            oom = true;
            goto out;
        }
        for (size_t i = 0; i < n; i++)
            (void)cf_hfile_data_block_at(h, i, &refs[i]);
        (void)fn(ctx, &b, refs, n);
        goto out;
    }
    CF_TRY_OUT(cf_hfile_read_block(h, t->load_on_open_data_offset, 0, HF_ROOT,
                                   h->opt.verify_checksums, &blk, err));
    size_t used;
    CF_TRY_OUT(cf_hfile_parse_root(blk.payload, blk.payload_len, t->data_index_count, &cur, &keys,
                                   &used, "root data index", err));
    cf_hfile_index_block b = {0,
                              t->num_data_index_levels,
                              "root",
                              t->load_on_open_data_offset,
                              blk.hdr.header_size + blk.hdr.on_disk_size_without_header,
                              blk.hdr.uncompressed_size_without_header};
    if (!emit(fn, ctx, &b, &cur, &keys, &refs, &refs_cap, &oom))
        goto out;
    /* Each further level: the blocks the previous level points at, in order. */
    uint64_t budget = h->file_size / h->hdr_size + 1;
    for (uint32_t level = 1; level < t->num_data_index_levels; level++) {
        bool leaf = level + 1 == t->num_data_index_levels;
        next.n = 0;
        for (size_t i = 0; i < cur.n; i++) {
            if (budget-- == 0)
                CF_FAIL_OUT(err, CF_ECORRUPT, "index references more blocks than the file holds");
            uint64_t off = cur.v[i].off;
            CF_TRY_OUT(cf_hfile_read_block(h, off, cur.v[i].size, leaf ? HF_LEAF : HF_INTER,
                                           h->opt.verify_checksums, &blk, err));
            entry_vec kids = {0};
            /* Parse into a private list first, so the callback sees just this block. */
            cf_buf kk;
            cf_buf_init(&kk);
            (void)cf_buf_reserve(&kk, 16);
            st =
                cf_hfile_parse_nonroot(blk.payload, blk.payload_len, &kids, &kk, SIZE_MAX / 2, err);
            if (st != CF_OK) {
                st = cf_error_prefix(err, st, "index block at offset %" PRIu64 ": ", off);
            } else {
                cf_hfile_index_block ib = {level,
                                           t->num_data_index_levels,
                                           leaf ? "leaf" : "intermediate",
                                           off,
                                           cur.v[i].size,
                                           blk.hdr.uncompressed_size_without_header};
                bool go = emit(fn, ctx, &ib, &kids, &kk, &refs, &refs_cap, &oom);
                /* Keep the children for the next level. */
                for (size_t k = 0; go && k < kids.n; k++) {
                    if (next.n == next.cap &&
                        !cf_array_grow(&next.v, &next.cap, sizeof *next.v, 64)) {
                        oom = true;
                        break;
                    }
                    next.v[next.n++] = (hf_entry){kids.v[k].off, kids.v[k].size, 0, 0};
                }
                if (!go && !oom) {
                    cf_free(kids.v);
                    cf_buf_dispose(&kk);
                    goto out;
                }
            }
            cf_free(kids.v);
            cf_buf_dispose(&kk);
            if (st != CF_OK)
                goto out;
            if (oom)
                break;
        }
        if (oom)
            break;
        entry_vec tmp = cur;
        cur = next;
        next = tmp;
    }
out:
    if (oom && st == CF_OK)
        st = cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "index walk: out of memory");
    cf_free(refs);
    cf_free(cur.v);
    cf_free(next.v);
    cf_buf_dispose(&keys);
    cf_hfile_block_dispose(&blk);
    return st;
}

/* ---- Bloom probes -------------------------------------------------------------------- */

static bool slice_is(cf_slice s, const char *lit)
{
    size_t n = strlen(lit);
    return s.len == n && memcmp(s.data, lit, n) == 0;
}

cf_status cf_hfile_bloom_check(const cf_hfile *h, int which, cf_slice row, bool has_column,
                               cf_slice family, cf_slice qualifier, cf_hfile_bloom_result *out,
                               cf_error *err)
{
    (void)family; /* HBase's ROWCOL Bloom key leaves the family out */
    memset(out, 0, sizeof(*out));
    out->may_contain = true;
    out->type = "ROW";
    CF_CHECK(which == CF_HFILE_BLOOM_GENERAL || which == CF_HFILE_BLOOM_DELETE_FAMILY, err,
             CF_EINVAL, "Bloom filter %d: not general (0) or delete family (1)", which);
    const hf_bloom *b = &h->bloom[which];
    bool rowcol = false;
    size_t prefix = SIZE_MAX;
    if (which == CF_HFILE_BLOOM_GENERAL) {
        cf_slice t;
        if (!cf_hfile_file_info_get(h, "BLOOM_FILTER_TYPE", &t) || slice_is(t, "NONE")) {
            out->type = "NONE";
        } else if (slice_is(t, "ROW")) {
            out->type = "ROW";
        } else if (slice_is(t, "ROWCOL")) {
            out->type = "ROWCOL";
            rowcol = true;
        } else if (slice_is(t, "ROWPREFIX_FIXED_LENGTH")) {
            out->type = "ROWPREFIX_FIXED_LENGTH";
            cf_slice p;
            CF_CHECK(cf_hfile_file_info_get(h, "BLOOM_FILTER_PARAM", &p) && p.len == 4, err,
                     CF_ECORRUPT,
                     "ROWPREFIX_FIXED_LENGTH Bloom without a 4-byte BLOOM_FILTER_PARAM");
            prefix = cf_load_be32(p.data);
        } else {
            CF_FAIL(err, CF_ENOTSUP, "Bloom filter type %.*s cannot be probed",
                    (int)(t.len > 32 ? 32 : t.len), (const char *)t.data);
        }
    }
    if (!b->present)
        return CF_OK;
    out->present = true;
    CF_CHECK(!rowcol || has_column, err, CF_EINVAL,
             "the file's Bloom filter is ROWCOL: probing it needs ROW/FAMILY:QUALIFIER");
    /* The Bloom key: the row, its prefix, or the first-on-row-column KeyValue key
     * (row, empty family, qualifier, LATEST_TIMESTAMP, Maximum). */
    uint8_t *kb = NULL;
    const uint8_t *key = row.data;
    size_t klen = row.len < prefix ? row.len : prefix;
    if (rowcol) {
        CF_CHECK(row.len <= UINT16_MAX, err, CF_EINVAL, "row of %zu bytes is too long", row.len);
        CF_CHECK(qualifier.len <= SIZE_MAX / 2 - row.len, err, CF_EINVAL, "column too long");
        klen = 2 + row.len + 1 + qualifier.len + 9;
        kb = cf_malloc(klen);
        CF_CHECK(kb != NULL, err, CF_ENOMEM, "Bloom probe: out of memory");
        kb[0] = (uint8_t)(row.len >> 8);
        kb[1] = (uint8_t)row.len;
        if (row.len)
            memcpy(kb + 2, row.data, row.len);
        kb[2 + row.len] = 0;
        if (qualifier.len)
            memcpy(kb + 3 + row.len, qualifier.data, qualifier.len);
        uint8_t *ts = kb + 3 + row.len + qualifier.len;
        memset(ts, 0xff, 8);
        ts[0] = 0x7f;
        ts[8] = CF_HFILE_MAXIMUM;
        key = kb;
    }
    /* The last chunk whose first key sorts at or before the key. */
    cf_hfile_cell probe;
    if (rowcol)
        (void)cf_hfile_parse_key(&probe, key, klen, NULL);
    size_t lo = 0, hi = b->info.num_chunks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const hf_entry *e = &b->chunks[mid];
        const uint8_t *fk = b->keys.data + e->key_off;
        int r;
        cf_hfile_cell c;
        if (rowcol && cf_hfile_parse_key(&c, fk, e->key_len, NULL) == CF_OK)
            r = cf_hfile_cell_compare(&c, &probe);
        else
            r = cf_hfile_bytes_compare((cf_slice){fk, e->key_len}, (cf_slice){key, klen});
        if (r <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    cf_status st = CF_OK;
    if (lo == 0) {
        out->before_first = true;
        out->may_contain = false;
    } else {
        const hf_entry *e = &b->chunks[lo - 1];
        out->chunk = (uint32_t)(lo - 1);
        hf_block blk;
        cf_hfile_block_init(&blk);
        st = cf_hfile_read_block(h, e->off, e->size, HF_BLOOMCHK, h->opt.verify_checksums, &blk,
                                 err);
        if (st == CF_OK)
            out->may_contain = cf_hfile_bloom_probe(b->info.hash_type, b->info.hash_count,
                                                    blk.payload, blk.payload_len, key, klen);
        cf_hfile_block_dispose(&blk);
    }
    cf_free(kb);
    return st;
}
