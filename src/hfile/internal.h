/* Internal: the HFile layer's shared pieces (block I/O, codecs, vlongs, the
 * reader's state). Layout facts cite HBase's HFileBlock / FixedFileTrailer /
 * HFileBlockIndex and hudi-io/hfile_format.md.
 *
 * Block header (big-endian), HFile v2.1+/v3 with HBase checksums:
 *   off  size  field
 *     0     8  magic (block type)
 *     8     4  on-disk size without header (compressed payload + checksums)
 *    12     4  uncompressed payload size (without header)
 *    16     8  offset of the previous block of the same type (-1 if none)
 *    24     1  checksum type (0 NULL, 1 CRC32, 2 CRC32C)
 *    25     4  bytes per checksum chunk
 *    29     4  on-disk data size with header (header + compressed payload)
 *    33        payload, then ceil(on-disk data size with header / bpc) 4-byte
 *              checksums over header + payload
 * v2.0 headers stop at offset 24 and carry no checksums.
 */
#ifndef CF_HFILE_INTERNAL_H
#define CF_HFILE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cfile/hfile.h>

#include "util/buf.h"
#include "util/bytes.h"
#include "util/endian.h"

#define HF_MAGIC_LEN 8
#define HF_HDR_CKSUM 33
#define HF_HDR_NOCKSUM 24
#define HF_TRAILER_V1 60
#define HF_TRAILER_V2 212
#define HF_TRAILER_V3 4096
#define HF_KEY_INFRA 12 /* row length (2) + family length (1) + timestamp (8) + type (1) */

extern const char HF_DATA[];     /* "DATABLK*" */
extern const char HF_ENCDATA[];  /* "DATABLKE" */
extern const char HF_LEAF[];     /* "IDXLEAF2" */
extern const char HF_BLOOMCHK[]; /* "BLMFBLK2" */
extern const char HF_META[];     /* "METABLKc" */
extern const char HF_INTER[];    /* "IDXINTE2" */
extern const char HF_ROOT[];     /* "IDXROOT2" */
extern const char HF_FILEINFO[]; /* "FILEINF2" */
extern const char HF_GBLOOM[];   /* "BLMFMET2" */
extern const char HF_DFBLOOM[];  /* "DFBLMET2" */
extern const char HF_TRAILER[];  /* "TRABLK\"$" */
extern const char HF_IDXV1[];    /* "IDXBLK)+" */

static inline uint16_t hf_be16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

/* Byte strings in unsigned byte order, a shorter prefix first (HBase's
 * Bytes.compareTo, the library's cf_bytes_cmp): the order of rows, families,
 * qualifiers, raw keys and FileInfo keys. Inline: cell comparisons in seeks
 * call it per probe. */
static inline int cf_hfile_bytes_compare(cf_slice a, cf_slice b)
{
    return cf_bytes_cmp(a.data, a.len, b.data, b.len);
}

/* One field of a fixed big-endian layout (the v1 and v2.0 trailers, Bloom
 * metadata): `width` bytes (4 or 8) at offset `at`, stored into the
 * uint32_t or uint64_t member (`dst_size` bytes) at offset `dst` of a
 * struct. HF_BE(at, width, type, member) spells one. */
typedef struct hf_be_field {
    uint16_t at;
    uint8_t width, dst_size;
    uint16_t dst;
} hf_be_field;
#define HF_BE(at, width, type, member)                                                             \
    {                                                                                              \
        (at), (width), sizeof(((type *)0)->member), offsetof(type, member)                         \
    }

/* Read a layout's n fields from p (all of whose bytes the caller checked are
 * there) into the struct at s. */
static inline void cf_hfile_read_be_fields(void *s, const uint8_t *p, const hf_be_field *f,
                                           size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const uint8_t *q = p + f[i].at;
        uint64_t v = f[i].width == 8 ? cf_load_be64(q) : cf_load_be32(q);
        uint8_t *d = (uint8_t *)s + f[i].dst;
        if (f[i].dst_size == 8) {
            memcpy(d, &v, 8);
        } else {
            uint32_t w = (uint32_t)v;
            memcpy(d, &w, 4);
        }
    }
}

/* Hadoop WritableUtils vlong/vint. Returns bytes consumed, 0 if malformed or short. */
size_t cf_hfile_get_vlong(const uint8_t *p, size_t n, int64_t *out);
void cf_hfile_put_vlong(cf_buf *b, int64_t v);
/* Bytes of a vlong encoding. */
size_t cf_hfile_vlong_size(int64_t v);

/* Decompress one block payload with the trailer's codec into exactly dst_len. */
cf_status cf_hfile_decompress(uint32_t codec, const uint8_t *src, size_t len, uint8_t *dst,
                              size_t dst_len, cf_error *err);
/* Decompress a payload of unknown size (v1 blocks), at most max bytes. */
cf_status cf_hfile_decompress_grow(uint32_t codec, const uint8_t *src, size_t len, cf_buf *dst,
                                   size_t max, cf_error *err);
/* Append the codec's output (Hadoop framing for SNAPPY/LZ4, gzip stream for GZ). */
cf_status cf_hfile_compress(uint32_t codec, const uint8_t *src, size_t len, cf_buf *dst,
                            cf_error *err);
bool cf_hfile_codec_built(uint32_t codec);

/* Checksum of one chunk with HBase's checksum type (1 CRC32, 2 CRC32C). */
uint32_t cf_hfile_checksum(uint8_t type, const uint8_t *p, size_t len);

/* One flattened index entry; the key lives in a key buffer at key_off. */
typedef struct hf_entry {
    uint64_t off;
    uint32_t size;
    uint32_t key_len;
    size_t key_off;
} hf_entry;

/* A growing list of index entries (keys in a separate cf_buf). */
typedef struct entry_vec {
    hf_entry *v;
    size_t n, cap;
} entry_vec;

/* Root-format index entries (offset, size, vint key length, key): count of
 * them from p (n bytes) into e/keys; *used = bytes consumed. what names the
 * index in messages. */
cf_status cf_hfile_parse_root(const uint8_t *p, size_t n, uint64_t count, entry_vec *e,
                              cf_buf *keys, size_t *used, const char *what, cf_error *err);
/* A non-root (leaf or intermediate) index block payload, at most limit entries. */
cf_status cf_hfile_parse_nonroot(const uint8_t *p, size_t n, entry_vec *e, cf_buf *keys,
                                 size_t limit, cf_error *err);
/* A key buffer that owns memory from the start, so "data + offset" is valid
 * even when every key is empty (index.c). */
void cf_hfile_keybuf_init(cf_buf *b);

typedef struct hf_bloom {
    bool present;
    cf_hfile_bloom_info info;
    hf_entry *chunks;
    cf_buf keys;
} hf_bloom;

typedef struct hf_fi {
    size_t key_off, key_len, val_off, val_len;
} hf_fi;

struct cf_hfile {
    cf_io *io;
    bool own_io;
    cf_hfile_options opt;
    uint64_t file_size;
    cf_hfile_trailer tr;
    cf_hfile_info info;
    uint32_t hdr_size;    /* 33, 24, or 0 (v1) */
    bool raw_compare;     /* v1: Bytes comparator on raw keys */
    bool tags_compressed; /* FileInfo hfile.TAGS_COMPRESSED (delta encodings only) */
    hf_entry *blocks;     /* flattened data index */
    cf_buf keys;
    hf_entry *metas;
    cf_buf meta_keys;
    hf_fi *fi;
    cf_buf fi_buf;
    hf_bloom bloom[2];
    uint8_t midkey_meta[16];
};

/* Opening, part by part (reader.c calls them in the version's order). */
/* The trailer into h->tr, from the version word at the file's end (trailer.c). */
cf_status cf_hfile_parse_trailer(cf_hfile *h, cf_error *err);
/* FileInfo into h->fi: "PBUF" + FileInfoProto, else the Writable map
 * (file_info.c); the Writable map alone (v1). */
cf_status cf_hfile_parse_file_info(cf_hfile *h, const uint8_t *p, size_t n, cf_error *err);
cf_status cf_hfile_parse_file_info_writable(cf_hfile *h, const uint8_t *p, size_t n, cf_error *err);
/* A BLMFMET2 (which = CF_HFILE_BLOOM_GENERAL) or DFBLMET2 payload into
 * h->bloom[which] (bloom_meta.c). */
cf_status cf_hfile_parse_bloom_meta(cf_hfile *h, int which, const uint8_t *p, size_t n,
                                    cf_error *err);
/* Read the data index below the root entries (keys in root_keys) into
 * h->blocks, h->keys, checking every data block lies before the load-on-open
 * section and the walk stays within what a file of tstart bytes can hold
 * (index.c). */
cf_status cf_hfile_index_flatten(cf_hfile *h, const entry_vec *root, const uint8_t *root_keys,
                                 uint64_t tstart, cf_error *err);

/* A block read from disk. */
typedef struct hf_block {
    cf_hfile_block_header hdr;
    cf_buf raw;             /* on-disk bytes */
    cf_buf unpacked;        /* decompressed payload when compressed */
    const uint8_t *payload; /* uncompressed payload */
    size_t payload_len;
} hf_block;

void cf_hfile_block_init(hf_block *b);
void cf_hfile_block_dispose(hf_block *b);
/* Read, verify and decompress the block at off (v2/v3). expect_size is the
 * on-disk size with header from an index (0 = unknown); magic NULL = any. */
cf_status cf_hfile_read_block(const cf_hfile *h, uint64_t off, uint32_t expect_size,
                              const char *magic, bool verify, hf_block *b, cf_error *err);
/* Parse just a block header at off. */
cf_status cf_hfile_read_header(const cf_hfile *h, uint64_t off, cf_hfile_block_header *hdr,
                               cf_error *err);

/* What each cell carries after its value, and a cap on a decoded block. */
typedef struct hf_cellfmt {
    bool mvcc, tags, tags_compressed;
    size_t max;
} hf_cellfmt;

/* Expand an encoded data block (PREFIX, DIFF, FAST_DIFF; p/n = the payload
 * after the 2-byte encoding id) into plain cells appended to out
 * (encoding.c). CF_ENOTSUP names an encoding we cannot decode. */
cf_status cf_hfile_dbe_decode(int id, const uint8_t *p, size_t n, const hf_cellfmt *f, cf_buf *out,
                              cf_error *err);

/* TagCompressionContext's LRU dictionary, read in encoding.c and written in
 * encoding_write.c: entries keep their index; a full dictionary replaces its
 * least recently used entry. The index for a new entry, given the entries so
 * far (*n, counted here) and each one's last use. */
#define CF_HFILE_TAG_DICT_CAP 127
static inline uint32_t cf_hfile_tag_dict_slot(uint32_t *n, const uint64_t *used)
{
    if (*n < CF_HFILE_TAG_DICT_CAP)
        return (*n)++;
    uint32_t i = 0;
    for (uint32_t j = 1; j < CF_HFILE_TAG_DICT_CAP; j++)
        if (used[j] < used[i])
            i = j;
    return i;
}

/* Encode a block of plain cells (block.c's layout, as f describes them) with
 * encoding id (PREFIX, DIFF, FAST_DIFF, ROW_INDEX_V1): appends the whole
 * DATABLKE payload, encoding id first, to out (encoding_write.c). */
cf_status cf_hfile_dbe_encode(int id, const uint8_t *cells, size_t n, const hf_cellfmt *f,
                              cf_buf *out, cf_error *err);

/* The cells region of a data block payload: DATABLKE blocks are checked
 * against the file's encoding and, when delta-encoded, expanded into
 * scratch (which the region then points into). */
cf_status cf_hfile_cells_region(const cf_hfile *h, const char *magic, const uint8_t *p, size_t n,
                                cf_buf *scratch, const uint8_t **cells, size_t *cells_len,
                                cf_error *err);
/* Parse one cell at p (n bytes left); *used = its size. */
cf_status cf_hfile_parse_cell(const cf_hfile *h, const uint8_t *p, size_t n, cf_hfile_cell *c,
                              size_t *used, cf_error *err);

/* Compare a stored key (KeyValue or raw) against a search cell. */
int cf_hfile_key_compare(const cf_hfile *h, const uint8_t *key, size_t len,
                         const cf_hfile_cell *search);

/* Bloom bit probe on one chunk (bits = chunk payload). */
bool cf_hfile_bloom_probe(uint32_t hash_type, uint32_t hash_count, const uint8_t *bits,
                          size_t nbytes, const void *key, size_t len);

#endif
