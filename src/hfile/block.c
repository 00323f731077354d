/* HFile blocks and cells (layout in internal.h).
 *
 * Cell in a data block (NONE encoding), big-endian:
 *   off  size  field
 *     0     4  key length K
 *     4     4  value length V
 *     8     K  key:  row length (2) | row | family length (1) | family |
 *                    qualifier | timestamp (8, signed) | type (1)
 *   8+K     V  value
 *           2  tags length T, then T bytes     (only when the file has tags)
 *         1-9  mvcc / sequence id, Hadoop vlong (only when KEY_VALUE_VERSION = 1)
 * ROW_INDEX_V1 (DATABLKE, encoding id 7): id (2) | cells as above |
 *   row count (4) | row offsets (4 each) | cells length (4).
 */
#include "internal.h"

#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

void cf_hfile_block_init(hf_block *b)
{
    memset(b, 0, sizeof(*b));
    cf_buf_init(&b->raw);
    cf_buf_init(&b->unpacked);
}

void cf_hfile_block_dispose(hf_block *b)
{
    cf_buf_dispose(&b->raw);
    cf_buf_dispose(&b->unpacked);
}

static void parse_header(const uint8_t *p, uint32_t hs, uint64_t off, cf_hfile_block_header *hdr)
{
    memset(hdr, 0, sizeof(*hdr));
    memcpy(hdr->magic, p, HF_MAGIC_LEN);
    hdr->offset = off;
    hdr->on_disk_size_without_header = cf_load_be32(p + 8);
    hdr->uncompressed_size_without_header = cf_load_be32(p + 12);
    hdr->prev_block_offset = (int64_t)cf_load_be64(p + 16);
    hdr->header_size = hs;
    if (hs == HF_HDR_CKSUM) {
        hdr->checksum_type = p[24];
        hdr->bytes_per_checksum = cf_load_be32(p + 25);
        hdr->on_disk_data_size_with_header = cf_load_be32(p + 29);
    } else {
        hdr->on_disk_data_size_with_header = hs + hdr->on_disk_size_without_header;
    }
}

static bool printable_magic(const char *m)
{
    for (int i = 0; i < HF_MAGIC_LEN; i++)
        if ((unsigned char)m[i] < 0x20 || (unsigned char)m[i] > 0x7e)
            return false;
    return true;
}

cf_status cf_hfile_read_header(const cf_hfile *h, uint64_t off, cf_hfile_block_header *hdr,
                               cf_error *err)
{
    uint32_t hs = h->hdr_size;
    CF_CHECK(off <= h->file_size && hs <= h->file_size - off, err, CF_ECORRUPT,
             "block at offset %" PRIu64 ": header runs past the end of the %" PRIu64 "-byte file",
             off, h->file_size);
    uint8_t p[HF_HDR_CKSUM];
    CF_TRY(h->io->ops->read_at(h->io, off, p, hs, err));
    parse_header(p, hs, off, hdr);
    CF_CHECK(printable_magic(hdr->magic), err, CF_ECORRUPT,
             "block at offset %" PRIu64 ": no block magic", off);
    return CF_OK;
}

cf_status cf_hfile_read_block(const cf_hfile *h, uint64_t off, uint32_t expect_size,
                              const char *magic, bool verify, hf_block *b, cf_error *err)
{
    cf_hfile_block_header *hdr = &b->hdr;
    CF_TRY(cf_hfile_read_header(h, off, hdr, err));
    uint32_t hs = h->hdr_size;
    if (magic != NULL)
        CF_CHECK(memcmp(hdr->magic, magic, HF_MAGIC_LEN) == 0, err, CF_ECORRUPT,
                 "block at offset %" PRIu64 ": magic '%.8s', expected '%.8s'", off,
                 printable_magic(hdr->magic) ? hdr->magic : "????????", magic);
    uint64_t rest = h->file_size - off - hs;
    CF_CHECK(hdr->on_disk_size_without_header <= rest, err, CF_ECORRUPT,
             "block at offset %" PRIu64 ": on-disk size %" PRIu32 " runs past the end of the file",
             off, hdr->on_disk_size_without_header);
    CF_CHECK(hdr->on_disk_size_without_header <= h->opt.max_block_len &&
                 hdr->uncompressed_size_without_header <= h->opt.max_block_len,
             err, CF_ECORRUPT,
             "block at offset %" PRIu64 ": %" PRIu32 "/%" PRIu32
             " bytes exceed the %zu-byte block limit",
             off, hdr->on_disk_size_without_header, hdr->uncompressed_size_without_header,
             h->opt.max_block_len);
    size_t total = (size_t)hs + hdr->on_disk_size_without_header;
    if (expect_size != 0)
        CF_CHECK(expect_size == total, err, CF_ECORRUPT,
                 "block at offset %" PRIu64 ": index says %" PRIu32 " bytes, header says %zu", off,
                 expect_size, total);
    size_t data_end = total; /* header + compressed payload */
    if (hs == HF_HDR_CKSUM) {
        uint32_t dsz = hdr->on_disk_data_size_with_header;
        CF_CHECK(dsz >= hs && dsz <= total, err, CF_ECORRUPT,
                 "block at offset %" PRIu64 ": data size %" PRIu32 " outside [%u, %zu]", off, dsz,
                 hs, total);
        size_t ck_bytes = total - dsz;
        size_t bpc = hdr->bytes_per_checksum;
        size_t chunks = bpc == 0 ? 0 : dsz / bpc + (dsz % bpc != 0);
        if (hdr->checksum_type == 0) {
            /* Type NULL: HBase sizes the checksum area from bytes per checksum
             * all the same (none when that is 0) and skips verifying it; its
             * writer and Hudi's 1.1+ writer fill it with zeros. Hudi's first
             * native writer left the area out, which Hudi's reader, never
             * looking at it, reads too. */
            CF_CHECK(ck_bytes == 0 || ck_bytes == chunks * 4, err, CF_ECORRUPT,
                     "block at offset %" PRIu64 ": %zu checksum bytes with checksum type NULL, "
                     "expected %zu or none",
                     off, ck_bytes, chunks * 4);
        } else {
            CF_CHECK(hdr->checksum_type <= 2, err, CF_ECORRUPT,
                     "block at offset %" PRIu64 ": unknown checksum type %u", off,
                     hdr->checksum_type);
            CF_CHECK(bpc > 0, err, CF_ECORRUPT,
                     "block at offset %" PRIu64 ": zero bytes per checksum", off);
            CF_CHECK(ck_bytes == chunks * 4, err, CF_ECORRUPT,
                     "block at offset %" PRIu64 ": %zu checksum bytes for %zu chunks", off,
                     ck_bytes, chunks);
        }
        data_end = dsz;
    }
    cf_buf_clear(&b->raw);
    uint8_t *raw = cf_buf_extend(&b->raw, total);
    CF_CHECK(raw != NULL, err, CF_ENOMEM, "block at offset %" PRIu64 ": out of memory", off);
    CF_TRY(h->io->ops->read_at(h->io, off, raw, total, err));
    if (verify && hs == HF_HDR_CKSUM && hdr->checksum_type != 0) {
        size_t bpc = hdr->bytes_per_checksum;
        const uint8_t *ck = raw + data_end;
        for (size_t pos = 0, i = 0; pos < data_end; pos += bpc, i++) {
            size_t n = data_end - pos < bpc ? data_end - pos : bpc;
            uint32_t want = cf_load_be32(ck + 4 * i);
            uint32_t got = cf_hfile_checksum(hdr->checksum_type, raw + pos, n);
            CF_CHECK(want == got, err, CF_ECORRUPT,
                     "block at offset %" PRIu64 " (%.8s): checksum mismatch in chunk %zu "
                     "(stored %08" PRIx32 ", computed %08" PRIx32 ")",
                     off, hdr->magic, i, want, got);
        }
    }
    const uint8_t *src = raw + hs;
    size_t src_len = data_end - hs;
    size_t ulen = hdr->uncompressed_size_without_header;
    if (h->tr.compression_codec == CF_HFILE_NONE) {
        CF_CHECK(src_len == ulen, err, CF_ECORRUPT,
                 "block at offset %" PRIu64 ": %zu payload bytes, header says %zu", off, src_len,
                 ulen);
        b->payload = src;
        b->payload_len = src_len;
        return CF_OK;
    }
    cf_buf_clear(&b->unpacked);
    /* Reserve one byte more so an empty payload still gets a buffer. */
    CF_CHECK(cf_buf_reserve(&b->unpacked, ulen + 1), err, CF_ENOMEM,
             "block at offset %" PRIu64 ": out of memory", off);
    uint8_t *dst = cf_buf_extend(&b->unpacked, ulen);
    if (dst == NULL)
        dst = b->unpacked.data;
    CF_CHECK(dst != NULL, err, CF_ENOMEM, "block at offset %" PRIu64 ": out of memory", off);
    cf_status st = cf_hfile_decompress(h->tr.compression_codec, src, src_len, dst, ulen, err);
    if (st != CF_OK)
        return cf_error_prefix(err, st, "block at offset %" PRIu64 " (%.8s): ", off, hdr->magic);
    b->payload = dst;
    b->payload_len = ulen;
    return CF_OK;
}

cf_status cf_hfile_cells_region(const cf_hfile *h, const char *magic, const uint8_t *p, size_t n,
                                cf_buf *scratch, const uint8_t **cells, size_t *cells_len,
                                cf_error *err)
{
    if (memcmp(magic, HF_ENCDATA, HF_MAGIC_LEN) != 0) {
        *cells = p;
        *cells_len = n;
        return CF_OK;
    }
    CF_CHECK(n >= 2, err, CF_ECORRUPT, "encoded data block: %zu bytes hold no encoding id", n);
    int id = hf_be16(p);
    const char *name = cf_hfile_encoding_name(id);
    /* HBase's EncodedScanner refuses a block whose encoding is not the file's. */
    int want = h->info.data_block_encoding;
    if (want > 0 && id != want)
        CF_FAIL(err, CF_ECORRUPT, "encoded data block: encoding %s (id %d), file says %s",
                name ? name : "unknown", id, cf_hfile_encoding_name(want));
    if (id == CF_HFILE_DBE_NONE) {
        *cells = p + 2;
        *cells_len = n - 2;
        return CF_OK;
    }
    if (id == CF_HFILE_DBE_ROW_INDEX_V1) {
        CF_CHECK(n - 2 >= 8, err, CF_ECORRUPT, "ROW_INDEX_V1 block: %zu bytes too short", n);
        uint32_t clen = cf_load_be32(p + n - 4);
        CF_CHECK(clen <= n - 2 - 8, err, CF_ECORRUPT,
                 "ROW_INDEX_V1 block: cells length %" PRIu32 " exceeds the block", clen);
        uint32_t rows = cf_load_be32(p + 2 + clen);
        CF_CHECK(rows <= (n - 2 - 8 - clen) / 4 && (size_t)rows * 4 == n - 2 - 8 - clen, err,
                 CF_ECORRUPT, "ROW_INDEX_V1 block: %" PRIu32 " row offsets do not fit", rows);
        *cells = p + 2;
        *cells_len = clen;
        return CF_OK;
    }
    hf_cellfmt f = {h->info.includes_mvcc, h->info.includes_tags, h->tags_compressed,
                    h->opt.max_block_len};
    cf_buf_clear(scratch);
    CF_TRY(cf_hfile_dbe_decode(id, p + 2, n - 2, &f, scratch, err));
    /* Keep a valid pointer for an empty region. */
    CF_CHECK(cf_buf_reserve(scratch, 1), err, CF_ENOMEM, "encoded data block: out of memory");
    *cells = scratch->data;
    *cells_len = scratch->len;
    return CF_OK;
}

cf_status cf_hfile_parse_key(cf_hfile_cell *c, const uint8_t *k, size_t klen, cf_error *err)
{
    CF_CHECK(klen >= HF_KEY_INFRA, err, CF_ECORRUPT, "key of %zu bytes is shorter than 12", klen);
    size_t rlen = hf_be16(k);
    CF_CHECK(rlen <= klen - HF_KEY_INFRA, err, CF_ECORRUPT,
             "key: row length %zu exceeds the %zu-byte key", rlen, klen);
    size_t flen = k[2 + rlen];
    CF_CHECK(flen <= klen - HF_KEY_INFRA - rlen, err, CF_ECORRUPT,
             "key: family length %zu exceeds the key", flen);
    c->key = (cf_slice){k, klen};
    c->row = (cf_slice){k + 2, rlen};
    c->family = (cf_slice){k + 3 + rlen, flen};
    c->qualifier = (cf_slice){k + 3 + rlen + flen, klen - HF_KEY_INFRA - rlen - flen};
    c->timestamp = (int64_t)cf_load_be64(k + klen - 9);
    c->type = k[klen - 1];
    return CF_OK;
}

cf_status cf_hfile_parse_cell(const cf_hfile *h, const uint8_t *p, size_t n, cf_hfile_cell *c,
                              size_t *used, cf_error *err)
{
    CF_CHECK(n >= 8, err, CF_ECORRUPT, "cell: %zu bytes cannot hold its lengths", n);
    size_t klen = cf_load_be32(p), vlen = cf_load_be32(p + 4);
    CF_CHECK(klen <= n - 8, err, CF_ECORRUPT, "cell: key length %zu exceeds the %zu bytes left",
             klen, n - 8);
    CF_CHECK(vlen <= n - 8 - klen, err, CF_ECORRUPT,
             "cell: value length %zu exceeds the %zu bytes left", vlen, n - 8 - klen);
    const uint8_t *k = p + 8;
    if (h->raw_compare) {
        memset(c, 0, sizeof(*c));
        c->key = (cf_slice){k, klen};
    } else if (klen >= 2 && hf_be16(k) == klen - 2) {
        /* A row-only key (row length + row), as Hudi's first native writer
         * stored its record keys; Hudi reads it as a Put at LATEST_TIMESTAMP
         * with an empty column, as its later writers spell out. */
        memset(c, 0, sizeof(*c));
        c->key = (cf_slice){k, klen};
        c->row = (cf_slice){k + 2, klen - 2};
        c->timestamp = INT64_MAX;
        c->type = CF_HFILE_PUT;
    } else {
        CF_TRY(cf_hfile_parse_key(c, k, klen, err));
    }
    c->value = (cf_slice){k + klen, vlen};
    size_t pos = 8 + klen + vlen;
    c->tags = (cf_slice){NULL, 0};
    c->mvcc = 0;
    if (h->info.includes_tags) {
        CF_CHECK(n - pos >= 2, err, CF_ECORRUPT, "cell: tags length truncated");
        size_t tlen = hf_be16(p + pos);
        pos += 2;
        CF_CHECK(tlen <= n - pos, err, CF_ECORRUPT, "cell: tags length %zu exceeds the block",
                 tlen);
        c->tags = (cf_slice){p + pos, tlen};
        pos += tlen;
    }
    if (h->info.includes_mvcc) {
        int64_t v = 0;
        size_t m = cf_hfile_get_vlong(p + pos, n - pos, &v);
        CF_CHECK(m > 0, err, CF_ECORRUPT, "cell: memstore timestamp vlong truncated");
        c->mvcc = (uint64_t)v;
        pos += m;
    }
    *used = pos;
    return CF_OK;
}

int cf_hfile_cell_compare(const cf_hfile_cell *a, const cf_hfile_cell *b)
{
    int r = cf_hfile_bytes_compare(a->row, b->row);
    if (r != 0)
        return r;
    /* An empty column with type Minimum is "last on row": it sorts after every
     * real cell of the row (HBase CellComparator). */
    bool a_last = a->family.len + a->qualifier.len == 0 && a->type == CF_HFILE_MINIMUM;
    bool b_last = b->family.len + b->qualifier.len == 0 && b->type == CF_HFILE_MINIMUM;
    if (a_last && !b_last)
        return 1;
    if (b_last && !a_last)
        return -1;
    if ((r = cf_hfile_bytes_compare(a->family, b->family)) != 0)
        return r;
    if ((r = cf_hfile_bytes_compare(a->qualifier, b->qualifier)) != 0)
        return r;
    if (a->timestamp != b->timestamp)
        return a->timestamp > b->timestamp ? -1 : 1; /* newest first */
    if (a->type != b->type)
        return a->type > b->type ? -1 : 1;
    return 0;
}

int cf_hfile_key_compare(const cf_hfile *h, const uint8_t *key, size_t len,
                         const cf_hfile_cell *search)
{
    if (h->raw_compare)
        return cf_hfile_bytes_compare((cf_slice){key, len}, search->key);
    cf_hfile_cell c;
    if (cf_hfile_parse_key(&c, key, len, NULL) != CF_OK) {
        /* Hudi's native writer stores row-only index keys (2-byte length + row). */
        if (len >= 2 && (size_t)hf_be16(key) == len - 2) {
            memset(&c, 0, sizeof(c));
            c.row = (cf_slice){key + 2, len - 2};
            c.timestamp = INT64_MAX;
            c.type = CF_HFILE_MAXIMUM;
        } else {
            return cf_hfile_bytes_compare((cf_slice){key, len}, search->key);
        }
    }
    return cf_hfile_cell_compare(&c, search);
}
