/* cfile hfile: inspect HBase HFiles (info, dump, seek, verify), in the spirit
 * of HBase's `hbase hfile -m -p -v` pretty-printer. JSON output follows
 * shared/hfile/README.md: byte strings are JSON strings when they are valid,
 * printable UTF-8, else {"hex": "..."}. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/hfile.h>

#include "cli.h"

const char cf_cmd_hfile_usage[] =
    "usage: cfile hfile info [--json] FILE\n"
    "       cfile hfile dump [--json] FILE\n"
    "       cfile hfile seek [--json] FILE (ROW | --hex HEX)\n"
    "       cfile hfile verify [--json] FILE\n"
    "\n"
    "Read an Apache HBase HFile (v1, v2 or v3).\n"
    "  info    trailer, FileInfo, index, meta blocks, Bloom filters (like hfile -m)\n"
    "  dump    every cell in file order (like hfile -p); JSON: {\"hfile_version\",\n"
    "          \"compression\", \"num_cells\", \"cells\": [...]}\n"
    "  seek    the first cell whose row (v1: key) is >= ROW; JSON:\n"
    "          {\"exact\", \"lower_bound\": {\"cell_index\", \"row\", \"value\"} | null}\n"
    "  verify  every block's checksum, every cell, cell order and counts (like hfile -v)\n"
    "\n"
    "  --json      JSON output\n"
    "  --hex HEX   (seek) the row as hex bytes\n"
    "  --help      this text\n";

/* ---- byte strings ------------------------------------------------------------------ */

/* Python's str.isprintable for one code point, for the ranges that occur in
 * practice: controls, separators, format characters and unassigned/private
 * planes are not printable. */
static bool cp_printable(uint32_t cp)
{
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0xa0) || cp == 0xad)
        return false;
    if (cp == 0x1680 || cp == 0x180e || (cp >= 0x2000 && cp <= 0x200f) ||
        (cp >= 0x2028 && cp <= 0x202f) || (cp >= 0x205f && cp <= 0x206f) || cp == 0x3000 ||
        cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb) || (cp >= 0x600 && cp <= 0x605) ||
        cp == 0x61c || cp == 0x6dd || cp == 0x70f)
        return false;
    if ((cp >= 0xd800 && cp <= 0xf8ff) || (cp & 0xfffe) == 0xfffe || cp >= 0xe0000)
        return false;
    return true;
}

static bool bytes_printable(const uint8_t *p, size_t n)
{
    if (!cf_utf8_valid(p, n))
        return false;
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        uint8_t b = p[i];
        if (b < 0x80) {
            cp = b;
            i += 1;
        } else if (b < 0xe0) {
            cp = ((uint32_t)(b & 0x1f) << 6) | (p[i + 1] & 0x3f);
            i += 2;
        } else if (b < 0xf0) {
            cp = ((uint32_t)(b & 0x0f) << 12) | ((uint32_t)(p[i + 1] & 0x3f) << 6) |
                 (p[i + 2] & 0x3f);
            i += 3;
        } else {
            cp = ((uint32_t)(b & 0x07) << 18) | ((uint32_t)(p[i + 1] & 0x3f) << 12) |
                 ((uint32_t)(p[i + 2] & 0x3f) << 6) | (p[i + 3] & 0x3f);
            i += 4;
        }
        if (!cp_printable(cp))
            return false;
    }
    return true;
}

static void jw_bytes(cf_jw *w, cf_slice s)
{
    if (bytes_printable(s.data, s.len)) {
        cf_jw_str(w, s.data ? (const char *)s.data : "", s.len);
    } else {
        cf_jw_obj_begin(w);
        cf_jw_key(w, "hex");
        cf_jw_hex(w, s.data, s.len);
        cf_jw_obj_end(w);
    }
}

static void print_bytes(FILE *f, cf_slice s)
{
    for (size_t i = 0; i < s.len; i++) {
        uint8_t b = s.data[i];
        if (b >= 0x20 && b < 0x7f && b != '\\')
            fputc(b, f);
        else
            fprintf(f, "\\x%02X", b);
    }
}

static const char *type_name(uint8_t t)
{
    const char *n = cf_hfile_type_name(t);
    return n ? n : "Unknown";
}

static void jw_cell(cf_jw *w, const cf_hfile *h, const cf_hfile_cell *c)
{
    const cf_hfile_info *in = cf_hfile_get_info(h);
    cf_jw_obj_begin(w);
    if (in->raw_keys) {
        cf_jw_key(w, "key");
        jw_bytes(w, c->key);
    } else {
        cf_jw_key(w, "row");
        jw_bytes(w, c->row);
        cf_jw_key(w, "family");
        jw_bytes(w, c->family);
        cf_jw_key(w, "qualifier");
        jw_bytes(w, c->qualifier);
        cf_jw_key(w, "timestamp");
        cf_jw_int(w, c->timestamp);
        cf_jw_key(w, "type");
        cf_jw_cstr(w, type_name(c->type));
    }
    cf_jw_key(w, "value");
    jw_bytes(w, c->value);
    if (in->includes_mvcc) {
        cf_jw_key(w, "mvcc");
        cf_jw_uint(w, c->mvcc);
    }
    if (in->includes_tags) {
        cf_jw_key(w, "tags");
        cf_jw_hex(w, c->tags.data, c->tags.len);
    }
    cf_jw_obj_end(w);
}

static void jw_key(cf_jw *w, const cf_hfile *h, cf_slice k)
{
    cf_hfile_cell c;
    if (cf_hfile_get_info(h)->raw_keys || cf_hfile_parse_key(&c, k.data, k.len, NULL) != CF_OK) {
        jw_bytes(w, k);
        return;
    }
    cf_jw_obj_begin(w);
    cf_jw_key(w, "row");
    jw_bytes(w, c.row);
    cf_jw_key(w, "family");
    jw_bytes(w, c.family);
    cf_jw_key(w, "qualifier");
    jw_bytes(w, c.qualifier);
    cf_jw_key(w, "timestamp");
    cf_jw_int(w, c.timestamp);
    cf_jw_key(w, "type");
    cf_jw_cstr(w, type_name(c.type));
    cf_jw_obj_end(w);
}

static void print_key(FILE *f, const cf_hfile *h, cf_slice k)
{
    cf_hfile_cell c;
    if (cf_hfile_get_info(h)->raw_keys || cf_hfile_parse_key(&c, k.data, k.len, NULL) != CF_OK) {
        print_bytes(f, k);
        return;
    }
    print_bytes(f, c.row);
    fputc('/', f);
    print_bytes(f, c.family);
    fputc(':', f);
    print_bytes(f, c.qualifier);
    fprintf(f, "/%" PRId64 "/%s", c.timestamp, type_name(c.type));
}

static void jw_version(cf_jw *w, const cf_hfile *h)
{
    const cf_hfile_trailer *t = cf_hfile_get_trailer(h);
    cf_jw_key(w, "hfile_version");
    cf_jw_obj_begin(w);
    cf_jw_key(w, "major");
    cf_jw_uint(w, t->major);
    cf_jw_key(w, "minor");
    cf_jw_uint(w, t->minor);
    cf_jw_obj_end(w);
    cf_jw_key(w, "compression");
    const char *cn = cf_hfile_codec_name(t->compression_codec);
    cf_jw_cstr(w, cn ? cn : "UNKNOWN");
}

/* ---- subcommands ------------------------------------------------------------------- */

typedef struct block_stats {
    char magic[16][9];
    uint64_t count[16];
    size_t n;
    uint64_t total_uncompressed; /* header + uncompressed payload, summed */
} block_stats;

static bool count_block(void *ctx, const cf_hfile_block_header *hdr)
{
    block_stats *s = ctx;
    s->total_uncompressed += hdr->header_size + hdr->uncompressed_size_without_header;
    for (size_t i = 0; i < s->n; i++) {
        if (memcmp(s->magic[i], hdr->magic, 8) == 0) {
            s->count[i]++;
            return true;
        }
    }
    if (s->n < 16) {
        memcpy(s->magic[s->n], hdr->magic, 9);
        s->count[s->n++] = 1;
    }
    return true;
}

static const char *hash_name(uint32_t t)
{
    return t == 0 ? "JENKINS" : t == 1 ? "MURMUR" : t == 2 ? "MURMUR3" : "UNKNOWN";
}

static int do_info(cf_cli *c, cf_hfile *h, bool json)
{
    const cf_hfile_trailer *t = cf_hfile_get_trailer(h);
    const cf_hfile_info *in = cf_hfile_get_info(h);
    cf_error e = {0};
    block_stats bs;
    memset(&bs, 0, sizeof(bs));
    if (t->major >= 2) {
        cf_status st = cf_hfile_walk_blocks(h, false, count_block, &bs, &e);
        if (st != CF_OK)
            return cf_cli_lib_fail(c, "walk blocks", st, &e);
    }
    cf_slice mid = {0};
    cf_status mst = cf_hfile_midkey(h, &mid, &e);
    if (mst != CF_OK)
        return cf_cli_lib_fail(c, "mid-key", mst, &e);
    static const char *const dbe[] = {"NONE", "?", "PREFIX", "DIFF", "FAST_DIFF", "?",
                                      "PREFIX_TREE", "ROW_INDEX_V1"};
    const char *enc = in->data_block_encoding >= 0 && in->data_block_encoding < 8
                          ? dbe[in->data_block_encoding] : "UNKNOWN";
    if (!json) {
        FILE *o = c->out;
        fprintf(o, "HFile v%" PRIu32 ".%" PRIu32 " (HBase store file)\n", t->major, t->minor);
        fprintf(o, "Trailer:\n  fileinfoOffset=%" PRIu64 ", loadOnOpenDataOffset=%" PRIu64
                   ", dataIndexCount=%" PRIu32 ", metaIndexCount=%" PRIu32
                   ", totalUncompressedBytes=%" PRIu64 ", entryCount=%" PRIu64
                   ", compressionCodec=%s, uncompressedDataIndexSize=%" PRIu64
                   ", numDataIndexLevels=%" PRIu32 ", firstDataBlockOffset=%" PRId64
                   ", lastDataBlockOffset=%" PRId64 ", comparatorClassName=%s\n",
                t->file_info_offset, t->load_on_open_data_offset, t->data_index_count,
                t->meta_index_count, t->total_uncompressed_bytes, t->entry_count,
                cf_hfile_codec_name(t->compression_codec) ? cf_hfile_codec_name(t->compression_codec) : "?",
                t->uncompressed_data_index_size, t->num_data_index_levels,
                (int64_t)t->first_data_block_offset, (int64_t)t->last_data_block_offset,
                t->comparator);
        fprintf(o, "Fileinfo:\n");
        for (size_t i = 0; i < in->file_info_count; i++) {
            cf_slice k, v;
            cf_hfile_file_info_at(h, i, &k, &v);
            fputs("    ", o);
            print_bytes(o, k);
            fputs(" = ", o);
            print_bytes(o, v);
            fputc('\n', o);
        }
        fprintf(o, "Data block encoding: %s\nData blocks: %" PRIu64 ", index levels: %" PRIu32
                   ", leaf index blocks: %" PRIu64 ", intermediate index blocks: %" PRIu64 "\n",
                enc, in->num_data_blocks, in->index_levels, in->leaf_index_blocks,
                in->intermediate_index_blocks);
        fputs("Mid-key: ", o);
        print_key(o, h, mid);
        fputc('\n', o);
        for (size_t i = 0; i < bs.n; i++)
            fprintf(o, "Blocks %s: %" PRIu64 "\n", bs.magic[i], bs.count[i]);
        for (int b = 0; b < 2; b++) {
            const cf_hfile_bloom_info *bi = cf_hfile_bloom(h, b);
            fprintf(o, "%s Bloom: ", b == 0 ? "General" : "Delete family");
            if (!bi) {
                fputs("none\n", o);
                continue;
            }
            fprintf(o, "chunks=%" PRIu32 ", totalByteSize=%" PRIu64 ", hashCount=%" PRIu32
                       ", hashType=%s, keys=%" PRIu64 "/%" PRIu64 "\n",
                    bi->num_chunks, bi->total_byte_size, bi->hash_count, hash_name(bi->hash_type),
                    bi->total_key_count, bi->total_max_keys);
        }
        for (size_t i = 0; i < in->meta_count; i++) {
            cf_slice name;
            uint64_t off;
            uint32_t sz;
            cf_hfile_meta_at(h, i, &name, &off, &sz);
            fputs("Meta block ", o);
            print_bytes(o, name);
            fprintf(o, ": offset %" PRIu64 ", %" PRIu32 " bytes on disk\n", off, sz);
        }
        return CF_EXIT_OK;
    }
    cf_jw w;
    cf_jw_init(&w, c->out);
    cf_jw_obj_begin(&w);
    cf_jw_key(&w, "format");
    cf_jw_cstr(&w, "hfile");
    jw_version(&w, h);
    cf_jw_key(&w, "data_block_encoding");
    cf_jw_cstr(&w, enc);
    cf_jw_key(&w, "comparator");
    cf_jw_cstr(&w, t->comparator);
    cf_jw_key(&w, "cell_format");
    cf_jw_cstr(&w, in->raw_keys ? "raw_key_value" : "keyvalue");
    cf_jw_key(&w, "num_cells");
    cf_jw_uint(&w, t->entry_count);
    cf_jw_key(&w, "includes_mvcc");
    cf_jw_bool(&w, in->includes_mvcc);
    cf_jw_key(&w, "includes_tags");
    cf_jw_bool(&w, in->includes_tags);
    cf_jw_key(&w, "trailer");
    cf_jw_obj_begin(&w);
    cf_jw_key(&w, "file_info_offset");
    cf_jw_uint(&w, t->file_info_offset);
    if (t->major == 1) {
        cf_jw_key(&w, "data_index_offset");
        cf_jw_uint(&w, t->data_index_offset);
        cf_jw_key(&w, "data_index_count");
        cf_jw_uint(&w, t->data_index_count);
        cf_jw_key(&w, "meta_index_offset");
        cf_jw_uint(&w, t->meta_index_offset);
        cf_jw_key(&w, "meta_index_count");
        cf_jw_uint(&w, t->meta_index_count);
        cf_jw_key(&w, "total_uncompressed_bytes");
        cf_jw_uint(&w, t->total_uncompressed_bytes);
        cf_jw_key(&w, "entry_count");
        cf_jw_uint(&w, t->entry_count);
    } else {
        cf_jw_key(&w, "load_on_open_data_offset");
        cf_jw_uint(&w, t->load_on_open_data_offset);
        cf_jw_key(&w, "uncompressed_data_index_size");
        cf_jw_uint(&w, t->uncompressed_data_index_size);
        cf_jw_key(&w, "total_uncompressed_bytes");
        cf_jw_uint(&w, t->total_uncompressed_bytes);
        cf_jw_key(&w, "data_index_count");
        cf_jw_uint(&w, t->data_index_count);
        cf_jw_key(&w, "meta_index_count");
        cf_jw_uint(&w, t->meta_index_count);
        cf_jw_key(&w, "entry_count");
        cf_jw_uint(&w, t->entry_count);
        cf_jw_key(&w, "num_data_index_levels");
        cf_jw_uint(&w, t->num_data_index_levels);
        cf_jw_key(&w, "first_data_block_offset");
        cf_jw_uint(&w, t->first_data_block_offset);
        cf_jw_key(&w, "last_data_block_offset");
        cf_jw_uint(&w, t->last_data_block_offset);
        cf_jw_key(&w, "comparator_class_name");
        cf_jw_cstr(&w, t->comparator);
    }
    cf_jw_key(&w, "compression_codec");
    cf_jw_uint(&w, t->compression_codec);
    cf_jw_obj_end(&w);
    cf_jw_key(&w, "index");
    cf_jw_obj_begin(&w);
    cf_jw_key(&w, "levels");
    cf_jw_uint(&w, in->index_levels);
    cf_jw_key(&w, "root_entries");
    cf_jw_uint(&w, in->root_entries);
    cf_jw_key(&w, "intermediate_index_blocks");
    cf_jw_uint(&w, in->intermediate_index_blocks);
    cf_jw_key(&w, "leaf_index_blocks");
    cf_jw_uint(&w, in->leaf_index_blocks);
    cf_jw_key(&w, "data_blocks");
    cf_jw_uint(&w, in->num_data_blocks);
    cf_jw_key(&w, "midkey");
    if (in->has_midkey_metadata) {
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "mid_leaf_block_offset");
        cf_jw_uint(&w, in->mid_leaf_offset);
        cf_jw_key(&w, "mid_leaf_block_on_disk_size");
        cf_jw_uint(&w, in->mid_leaf_on_disk_size);
        cf_jw_key(&w, "mid_key_entry");
        cf_jw_uint(&w, in->mid_key_entry);
        cf_jw_obj_end(&w);
    } else {
        cf_jw_null(&w);
    }
    cf_jw_key(&w, "mid_key");
    if (mid.data)
        jw_key(&w, h, mid);
    else
        cf_jw_null(&w);
    cf_jw_obj_end(&w);
    if (t->major >= 2) {
        cf_jw_key(&w, "block_counts");
        cf_jw_obj_begin(&w);
        for (size_t i = 0; i < bs.n; i++) {
            cf_jw_key(&w, bs.magic[i]);
            cf_jw_uint(&w, bs.count[i]);
        }
        cf_jw_obj_end(&w);
    }
    cf_jw_key(&w, "file_info");
    cf_jw_arr_begin(&w);
    for (size_t i = 0; i < in->file_info_count; i++) {
        cf_slice k, v;
        cf_hfile_file_info_at(h, i, &k, &v);
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "key");
        jw_bytes(&w, k);
        cf_jw_key(&w, "value");
        jw_bytes(&w, v);
        cf_jw_obj_end(&w);
    }
    cf_jw_arr_end(&w);
    cf_jw_key(&w, "meta_blocks");
    cf_jw_arr_begin(&w);
    for (size_t i = 0; i < in->meta_count; i++) {
        cf_slice name;
        uint64_t off;
        uint32_t sz;
        cf_hfile_meta_at(h, i, &name, &off, &sz);
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "name");
        jw_bytes(&w, name);
        cf_jw_key(&w, "offset");
        cf_jw_uint(&w, off);
        cf_jw_key(&w, "on_disk_size");
        cf_jw_uint(&w, sz);
        cf_jw_obj_end(&w);
    }
    cf_jw_arr_end(&w);
    cf_jw_key(&w, "blooms");
    cf_jw_obj_begin(&w);
    for (int b = 0; b < 2; b++) {
        const cf_hfile_bloom_info *bi = cf_hfile_bloom(h, b);
        cf_jw_key(&w, b == 0 ? "general" : "delete_family");
        if (!bi) {
            cf_jw_null(&w);
            continue;
        }
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "version");
        cf_jw_uint(&w, bi->version);
        cf_jw_key(&w, "total_byte_size");
        cf_jw_uint(&w, bi->total_byte_size);
        cf_jw_key(&w, "hash_count");
        cf_jw_uint(&w, bi->hash_count);
        cf_jw_key(&w, "hash_type");
        cf_jw_cstr(&w, hash_name(bi->hash_type));
        cf_jw_key(&w, "total_key_count");
        cf_jw_uint(&w, bi->total_key_count);
        cf_jw_key(&w, "total_max_keys");
        cf_jw_uint(&w, bi->total_max_keys);
        cf_jw_key(&w, "num_chunks");
        cf_jw_uint(&w, bi->num_chunks);
        cf_jw_key(&w, "comparator_class_name");
        jw_bytes(&w, bi->comparator);
        cf_jw_key(&w, "chunks");
        cf_jw_arr_begin(&w);
        for (uint32_t i = 0; i < bi->num_chunks; i++) {
            uint64_t off;
            uint32_t sz;
            cf_slice fk;
            cf_hfile_bloom_chunk(h, b, i, &off, &sz, &fk);
            cf_jw_obj_begin(&w);
            cf_jw_key(&w, "offset");
            cf_jw_uint(&w, off);
            cf_jw_key(&w, "on_disk_size");
            cf_jw_uint(&w, sz);
            cf_jw_key(&w, "first_key");
            jw_bytes(&w, fk);
            cf_jw_obj_end(&w);
        }
        cf_jw_arr_end(&w);
        cf_jw_obj_end(&w);
    }
    cf_jw_obj_end(&w);
    cf_jw_obj_end(&w);
    cf_jw_newline(&w);
    return CF_EXIT_OK;
}

static int do_dump(cf_cli *c, cf_hfile *h, bool json)
{
    cf_error e = {0};
    cf_hfile_iter *it = NULL;
    cf_status st = cf_hfile_iter_create(&it, h, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, "iterate", st, &e);
    cf_jw w;
    cf_jw_init(&w, c->out);
    if (json) {
        cf_jw_obj_begin(&w);
        jw_version(&w, h);
        cf_jw_key(&w, "num_cells");
        cf_jw_uint(&w, cf_hfile_get_trailer(h)->entry_count);
        cf_jw_key(&w, "cells");
        cf_jw_arr_begin(&w);
    }
    uint64_t n = 0;
    for (;;) {
        cf_hfile_cell cell;
        bool has;
        st = cf_hfile_iter_next(it, &cell, &has, &e);
        if (st != CF_OK || !has)
            break;
        n++;
        if (json) {
            jw_cell(&w, h, &cell);
        } else {
            fputs("K: ", c->out);
            print_key(c->out, h, cell.key);
            fprintf(c->out, "/vlen=%zu/seqid=%" PRIu64 " V: ", cell.value.len, cell.mvcc);
            print_bytes(c->out, cell.value);
            fputc('\n', c->out);
        }
    }
    cf_hfile_iter_free(it);
    if (json) {
        cf_jw_arr_end(&w);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    }
    if (st != CF_OK)
        return cf_cli_lib_fail(c, "dump", st, &e);
    if (!json)
        fprintf(c->out, "Scanned kv count -> %" PRIu64 "\n", n);
    return CF_EXIT_OK;
}

static int unhex(const char *s, uint8_t **out, size_t *len)
{
    size_t n = strlen(s);
    if (n % 2)
        return -1;
    uint8_t *b = malloc(n / 2 + 1);
    if (!b)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        int v = 0;
        for (int k = 0; k < 2; k++) {
            char ch = s[2 * i + k];
            int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                  : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
            if (d < 0) {
                free(b);
                return -1;
            }
            v = v * 16 + d;
        }
        b[i] = (uint8_t)v;
    }
    *out = b;
    *len = n / 2;
    return 0;
}

static int do_seek(cf_cli *c, cf_hfile *h, bool json, const uint8_t *row, size_t len)
{
    cf_error e = {0};
    cf_hfile_iter *it = NULL;
    cf_status st = cf_hfile_iter_create(&it, h, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, "iterate", st, &e);
    const cf_hfile_info *in = cf_hfile_get_info(h);
    st = cf_hfile_iter_seek_row(it, row, len, &e);
    uint64_t blk = 0, cib = 0, idx = 0;
    cf_hfile_cell cell;
    bool has = false;
    if (st == CF_OK) {
        cf_hfile_iter_position(it, &blk, &cib);
        st = cf_hfile_iter_next(it, &cell, &has, &e);
    }
    /* The cell's ordinal: cells of every earlier block, plus its place in its own. */
    if (st == CF_OK && has) {
        cf_hfile_iter_position(it, &blk, &cib);
        idx = cib - 1;
        for (uint64_t b = 0; b < blk && st == CF_OK; b++) {
            uint64_t k;
            st = cf_hfile_block_cell_count(h, b, &k, &e);
            idx += k;
        }
    }
    if (st != CF_OK) {
        cf_hfile_iter_free(it);
        return cf_cli_lib_fail(c, "seek", st, &e);
    }
    cf_slice got = in->raw_keys ? cell.key : cell.row;
    bool exact = has && got.len == len && (len == 0 || memcmp(got.data, row, len) == 0);
    if (json) {
        cf_jw w;
        cf_jw_init(&w, c->out);
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "exact");
        cf_jw_bool(&w, exact);
        cf_jw_key(&w, "lower_bound");
        if (has) {
            cf_jw_obj_begin(&w);
            cf_jw_key(&w, "cell_index");
            cf_jw_uint(&w, idx);
            cf_jw_key(&w, in->raw_keys ? "key" : "row");
            jw_bytes(&w, got);
            cf_jw_key(&w, "value");
            jw_bytes(&w, cell.value);
            cf_jw_obj_end(&w);
        } else {
            cf_jw_null(&w);
        }
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else if (has) {
        fprintf(c->out, "%s cell %" PRIu64 ": ", exact ? "found" : "next", idx);
        print_key(c->out, h, cell.key);
        fputs(" V: ", c->out);
        print_bytes(c->out, cell.value);
        fputc('\n', c->out);
    } else {
        fputs("past the last row\n", c->out);
    }
    cf_hfile_iter_free(it);
    return has ? CF_EXIT_OK : CF_EXIT_FAIL;
}

static bool count_only(void *ctx, const cf_hfile_block_header *hdr)
{
    (void)hdr;
    (*(uint64_t *)ctx)++;
    return true;
}

static int do_verify(cf_cli *c, cf_hfile *h, bool json)
{
    cf_error e = {0};
    const cf_hfile_trailer *t = cf_hfile_get_trailer(h);
    const cf_hfile_info *in = cf_hfile_get_info(h);
    uint64_t blocks = 0, cells = 0;
    cf_status st = CF_OK;
    if (t->major >= 2)
        st = cf_hfile_walk_blocks(h, true, count_only, &blocks, &e);
    cf_hfile_iter *it = NULL;
    if (st == CF_OK)
        st = cf_hfile_iter_create(&it, h, &e);
    uint8_t *prev = NULL;
    size_t prev_len = 0, prev_cap = 0;
    bool order_ok = true;
    while (st == CF_OK) {
        cf_hfile_cell cell;
        bool has;
        st = cf_hfile_iter_next(it, &cell, &has, &e);
        if (st != CF_OK || !has)
            break;
        if (cells > 0) {
            cf_hfile_cell pc;
            int r;
            if (in->raw_keys) {
                size_t m = prev_len < cell.key.len ? prev_len : cell.key.len;
                r = memcmp(prev, cell.key.data, m);
                if (r == 0)
                    r = prev_len < cell.key.len ? -1 : prev_len > cell.key.len;
            } else {
                cf_hfile_parse_key(&pc, prev, prev_len, NULL);
                r = cf_hfile_cell_compare(&pc, &cell);
            }
            if (r > 0 && order_ok) {
                order_ok = false;
                fprintf(c->err, "cfile: cell %" PRIu64 " sorts before its predecessor\n", cells);
            }
        }
        if (cell.key.len > prev_cap) {
            uint8_t *np = realloc(prev, cell.key.len);
            if (!np) {
                st = CF_ENOMEM;
                break;
            }
            prev = np;
            prev_cap = cell.key.len;
        }
        if (cell.key.len)
            memcpy(prev, cell.key.data, cell.key.len);
        prev_len = cell.key.len;
        cells++;
    }
    free(prev);
    cf_hfile_iter_free(it);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, "verify", st, &e);
    bool count_ok = cells == t->entry_count;
    if (!count_ok)
        fprintf(c->err, "cfile: %" PRIu64 " cells, trailer says %" PRIu64 "\n", cells,
                t->entry_count);
    bool ok = count_ok && order_ok;
    if (json) {
        cf_jw w;
        cf_jw_init(&w, c->out);
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "ok");
        cf_jw_bool(&w, ok);
        cf_jw_key(&w, "blocks");
        cf_jw_uint(&w, blocks);
        cf_jw_key(&w, "cells");
        cf_jw_uint(&w, cells);
        cf_jw_key(&w, "checksums_verified");
        cf_jw_bool(&w, in->checksums);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        fprintf(c->out, "%s: %" PRIu64 " blocks, %" PRIu64 " cells%s\n", ok ? "OK" : "FAILED",
                blocks, cells, in->checksums ? ", all checksums verified" : "");
    }
    return ok ? CF_EXIT_OK : CF_EXIT_FAIL;
}

int cf_cmd_hfile(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"hex", required_argument, NULL, 'x'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bool json = false;
    const char *hex = NULL;
    int ch;
    while ((ch = getopt_long(argc, argv, "jx:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'j': json = true; break;
        case 'x': hex = optarg; break;
        case 'h': return cf_cli_help(c);
        default: return cf_cli_bad_option(c, argv);
        }
    }
    if (optind >= argc)
        return cf_cli_usage(c, "missing subcommand (info, dump, seek, verify)");
    const char *sub = argv[optind++];
    bool is_seek = strcmp(sub, "seek") == 0;
    if (strcmp(sub, "info") && strcmp(sub, "dump") && !is_seek && strcmp(sub, "verify"))
        return cf_cli_usage(c, "unknown subcommand '%s'", sub);
    if (optind >= argc)
        return cf_cli_usage(c, "missing FILE");
    const char *path = argv[optind++];
    uint8_t *row = NULL;
    size_t row_len = 0;
    if (is_seek) {
        if (hex != NULL) {
            if (unhex(hex, &row, &row_len) != 0)
                return cf_cli_usage(c, "--hex: not hex: %s", hex);
        } else if (optind < argc) {
            const char *r = argv[optind++];
            row_len = strlen(r);
            row = malloc(row_len + 1);
            if (!row)
                return cf_cli_fail(c, "out of memory");
            memcpy(row, r, row_len + 1);
        } else {
            return cf_cli_usage(c, "seek needs ROW or --hex HEX");
        }
    }
    if (optind < argc) {
        free(row);
        return cf_cli_usage(c, "unexpected argument '%s'", argv[optind]);
    }
    cf_error e = {0};
    cf_hfile *h = NULL;
    cf_status st = cf_hfile_open_file(&h, path, NULL, &e);
    if (st != CF_OK) {
        free(row);
        return cf_cli_lib_fail(c, path, st, &e);
    }
    int rc;
    if (strcmp(sub, "info") == 0)
        rc = do_info(c, h, json);
    else if (strcmp(sub, "dump") == 0)
        rc = do_dump(c, h, json);
    else if (is_seek)
        rc = do_seek(c, h, json, row ? row : (const uint8_t *)"", row_len);
    else
        rc = do_verify(c, h, json);
    free(row);
    cf_hfile_free(h);
    return rc;
}
