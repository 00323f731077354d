/* cfile hfile meta|info (HBase's hfile -m) and blocks (-b, -h): the trailer,
 * FileInfo decoded by type, the load-on-open section, the data index level by
 * level and the header of every block. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hfile_cli.h"

/* ---- FileInfo values ----------------------------------------------------------------- */

static const char *fi_kind_name(cf_hfile_fi_kind k)
{
    switch (k) {
    case CF_HFILE_FI_STRING: return "string";
    case CF_HFILE_FI_INT: return "int";
    case CF_HFILE_FI_LONG: return "long";
    case CF_HFILE_FI_BOOL: return "boolean";
    case CF_HFILE_FI_TIMERANGE: return "timerange";
    case CF_HFILE_FI_KEY: return "key";
    case CF_HFILE_FI_COMPACTION: return "compaction_event";
    default: return "bytes";
    }
}

static void print_fi_value(FILE *o, const cf_hfile *h, cf_slice v, const cf_hfile_fi_value *d)
{
    switch (d->kind) {
    case CF_HFILE_FI_INT:
    case CF_HFILE_FI_LONG: fprintf(o, "%" PRId64, d->num); break;
    case CF_HFILE_FI_BOOL: fputs(d->num ? "true" : "false", o); break;
    case CF_HFILE_FI_TIMERANGE:
        fprintf(o, "%" PRId64 "....%" PRId64 "%s", d->tr_from, d->tr_to,
                d->tr_protobuf ? " (protobuf)" : "");
        break;
    /* Decoded as a KeyValue key even where v1 cells are listed raw. */
    case CF_HFILE_FI_KEY: hf_print_cell_key(o, NULL, &d->key); break;
    case CF_HFILE_FI_COMPACTION: {
        fprintf(o, "%zu compacted store file(s)", d->compacted_files);
        cf_slice name;
        for (size_t i = 0; cf_hfile_compacted_file_at(v, i, &name); i++) {
            fputs(i ? ", " : ": ", o);
            hf_print_bytes(o, name);
        }
        break;
    }
    default:
        hf_print_bytes(o, v);
        if (d->malformed)
            fprintf(o, " (%s)", d->malformed);
    }
}

static void jw_fi_value(cf_jw *w, const cf_hfile *h, cf_slice v, const cf_hfile_fi_value *d)
{
    switch (d->kind) {
    case CF_HFILE_FI_INT:
    case CF_HFILE_FI_LONG: cf_jw_int(w, d->num); break;
    case CF_HFILE_FI_BOOL: cf_jw_bool(w, d->num != 0); break;
    case CF_HFILE_FI_TIMERANGE:
        cf_jw_obj_begin(w);
        cf_jw_kv_int(w, "from", d->tr_from);
        cf_jw_kv_int(w, "to", d->tr_to);
        cf_jw_kv_cstr(w, "encoding", d->tr_protobuf ? "protobuf" : "writable");
        if (d->tr_extra)
            cf_jw_kv_uint(w, "trailing_bytes", d->tr_extra);
        cf_jw_obj_end(w);
        break;
    case CF_HFILE_FI_KEY: hf_jw_key(w, NULL, d->key.key); break;
    case CF_HFILE_FI_COMPACTION: {
        cf_jw_obj_begin(w);
        cf_jw_kv_arr_begin(w, "compacted_store_files");
        cf_slice name;
        for (size_t i = 0; cf_hfile_compacted_file_at(v, i, &name); i++)
            hf_jw_bytes(w, name);
        cf_jw_arr_end(w);
        cf_jw_obj_end(w);
        break;
    }
    default: hf_jw_bytes(w, v);
    }
}

/* ---- block walk: counts and the load-on-open section ----------------------------------- */

typedef struct walk_sum {
    char magic[16][9];
    uint64_t count[16];
    size_t n;
    uint64_t load_on_open;
    cf_hfile_block_header lo[16]; /* the load-on-open blocks (a handful) */
    size_t lo_n, lo_more;
} walk_sum;

static bool sum_block(void *ctx, const cf_hfile_block_header *hdr)
{
    walk_sum *s = ctx;
    if (hdr->offset >= s->load_on_open) {
        if (s->lo_n < 16)
            s->lo[s->lo_n++] = *hdr;
        else
            s->lo_more++;
    }
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

static const char *block_name(const char *magic)
{
    const char *n = cf_hfile_block_type_name(magic);
    return n ? n : "UNKNOWN";
}

/* One meta index entry, as meta and blocks both list them. */
static void jw_meta_block(cf_jw *w, cf_slice name, uint64_t off, uint32_t sz)
{
    cf_jw_obj_begin(w);
    cf_jw_key(w, "name");
    hf_jw_bytes(w, name);
    cf_jw_kv_uint(w, "offset", off);
    cf_jw_kv_uint(w, "on_disk_size", sz);
    cf_jw_obj_end(w);
}

/* ---- meta ---------------------------------------------------------------------------- */

static void meta_text(cf_cli *c, cf_hfile *h, const walk_sum *ws, cf_slice mid)
{
    const cf_hfile_trailer *t = cf_hfile_get_trailer(h);
    const cf_hfile_info *in = cf_hfile_get_info(h);
    FILE *o = c->out;
    const char *codec = cf_hfile_codec_name(t->compression_codec);
    fprintf(o,
            "HFile v%" PRIu32 ".%" PRIu32 " (HBase store file), compression %s, data block "
            "encoding %s, %s\n",
            t->major, t->minor, codec ? codec : "?", hf_encoding(h),
            in->checksums ? "block checksums" : "no block checksums");
    fprintf(o,
            "Trailer:\n    fileinfoOffset=%" PRIu64 ",\n    loadOnOpenDataOffset=%" PRIu64
            ",\n    dataIndexCount=%" PRIu32 ",\n    metaIndexCount=%" PRIu32
            ",\n    totalUncompressedBytes=%" PRIu64 ",\n    entryCount=%" PRIu64
            ",\n    compressionCodec=%s,\n    uncompressedDataIndexSize=%" PRIu64
            ",\n    numDataIndexLevels=%" PRIu32 ",\n    firstDataBlockOffset=%" PRId64
            ",\n    lastDataBlockOffset=%" PRId64 ",\n    comparatorClassName=%s,\n"
            "    majorVersion=%" PRIu32 ",\n    minorVersion=%" PRIu32 "\n",
            t->file_info_offset, t->load_on_open_data_offset, t->data_index_count,
            t->meta_index_count, t->total_uncompressed_bytes, t->entry_count, codec ? codec : "?",
            t->uncompressed_data_index_size, t->num_data_index_levels,
            (int64_t)t->first_data_block_offset, (int64_t)t->last_data_block_offset, t->comparator,
            t->major, t->minor);
    fprintf(o, "Fileinfo:\n");
    for (size_t i = 0; i < in->file_info_count; i++) {
        cf_slice k, v;
        cf_hfile_file_info_at(h, i, &k, &v);
        cf_hfile_fi_value d;
        cf_hfile_file_info_decode(h, k, v, &d);
        fputs("    ", o);
        hf_print_bytes(o, k);
        fputs(" = ", o);
        print_fi_value(o, h, v, &d);
        fputc('\n', o);
    }
    if (t->major >= 2) {
        fputs("Load-on-open section:\n", o);
        for (size_t i = 0; i < ws->lo_n; i++)
            fprintf(o,
                    "    %s at %" PRIu64 ", %" PRIu32 " bytes on disk, %" PRIu32 " uncompressed\n",
                    block_name(ws->lo[i].magic), ws->lo[i].offset,
                    ws->lo[i].header_size + ws->lo[i].on_disk_size_without_header,
                    ws->lo[i].uncompressed_size_without_header);
        if (ws->lo_more)
            fprintf(o, "    ... %zu more\n", ws->lo_more);
    }
    fprintf(o,
            "Data blocks: %" PRIu64 ", index levels: %" PRIu32 ", leaf index blocks: %" PRIu64
            ", intermediate index blocks: %" PRIu64 "\n",
            in->num_data_blocks, in->index_levels, in->leaf_index_blocks,
            in->intermediate_index_blocks);
    fputs("Mid-key: ", o);
    if (mid.data)
        hf_print_key(o, h, mid);
    else
        fputs("none (no data blocks)", o);
    fputc('\n', o);
    for (size_t i = 0; i < ws->n; i++)
        fprintf(o, "Blocks %s (%s): %" PRIu64 "\n", ws->magic[i], block_name(ws->magic[i]),
                ws->count[i]);
    for (int b = 0; b < 2; b++) {
        const cf_hfile_bloom_info *bi = cf_hfile_bloom(h, b);
        fprintf(o, "%s:\n", b == 0 ? "Bloom filter" : "Delete Family Bloom filter");
        if (!bi) {
            fputs("    Not present\n", o);
            continue;
        }
        cf_slice bt;
        fputs("    BloomType=", o);
        if (b == 0 && cf_hfile_file_info_get(h, "BLOOM_FILTER_TYPE", &bt))
            hf_print_bytes(o, bt);
        else
            fputs(b == 0 ? "?" : "ROW", o);
        fprintf(o,
                "\n    Compound Bloom filter: version=%" PRIu32 ", chunks=%" PRIu32
                ", totalByteSize=%" PRIu64 ", hashCount=%" PRIu32 ", hashType=%s"
                ", keys=%" PRIu64 ", maxKeys=%" PRIu64 "\n",
                bi->version, bi->num_chunks, bi->total_byte_size, bi->hash_count,
                hash_name(bi->hash_type), bi->total_key_count, bi->total_max_keys);
    }
    for (size_t i = 0; i < in->meta_count; i++) {
        cf_slice name;
        uint64_t off;
        uint32_t sz;
        cf_hfile_meta_at(h, i, &name, &off, &sz);
        fputs("Meta block ", o);
        hf_print_bytes(o, name);
        fprintf(o, ": offset %" PRIu64 ", %" PRIu32 " bytes on disk\n", off, sz);
    }
}

static void jw_trailer(cf_jw *w, const cf_hfile_trailer *t)
{
    cf_jw_kv_obj_begin(w, "trailer");
    cf_jw_kv_uint(w, "file_info_offset", t->file_info_offset);
    if (t->major == 1) {
        cf_jw_kv_uint(w, "data_index_offset", t->data_index_offset);
        cf_jw_kv_uint(w, "data_index_count", t->data_index_count);
        cf_jw_kv_uint(w, "meta_index_offset", t->meta_index_offset);
        cf_jw_kv_uint(w, "meta_index_count", t->meta_index_count);
        cf_jw_kv_uint(w, "total_uncompressed_bytes", t->total_uncompressed_bytes);
        cf_jw_kv_uint(w, "entry_count", t->entry_count);
    } else {
        cf_jw_kv_uint(w, "load_on_open_data_offset", t->load_on_open_data_offset);
        cf_jw_kv_uint(w, "uncompressed_data_index_size", t->uncompressed_data_index_size);
        cf_jw_kv_uint(w, "total_uncompressed_bytes", t->total_uncompressed_bytes);
        cf_jw_kv_uint(w, "data_index_count", t->data_index_count);
        cf_jw_kv_uint(w, "meta_index_count", t->meta_index_count);
        cf_jw_kv_uint(w, "entry_count", t->entry_count);
        cf_jw_kv_uint(w, "num_data_index_levels", t->num_data_index_levels);
        cf_jw_kv_uint(w, "first_data_block_offset", t->first_data_block_offset);
        cf_jw_kv_uint(w, "last_data_block_offset", t->last_data_block_offset);
        cf_jw_kv_cstr(w, "comparator_class_name", t->comparator);
    }
    cf_jw_kv_uint(w, "compression_codec", t->compression_codec);
    cf_jw_obj_end(w);
}

static void jw_blooms(cf_jw *w, const cf_hfile *h)
{
    cf_jw_kv_obj_begin(w, "blooms");
    cf_slice bt;
    cf_jw_key(w, "bloom_filter_type");
    if (cf_hfile_file_info_get(h, "BLOOM_FILTER_TYPE", &bt))
        hf_jw_bytes(w, bt);
    else
        cf_jw_null(w);
    for (int b = 0; b < 2; b++) {
        const cf_hfile_bloom_info *bi = cf_hfile_bloom(h, b);
        cf_jw_key(w, b == 0 ? "general" : "delete_family");
        if (!bi) {
            cf_jw_null(w);
            continue;
        }
        cf_jw_obj_begin(w);
        cf_jw_kv_uint(w, "version", bi->version);
        cf_jw_kv_uint(w, "total_byte_size", bi->total_byte_size);
        cf_jw_kv_uint(w, "hash_count", bi->hash_count);
        cf_jw_kv_cstr(w, "hash_type", hash_name(bi->hash_type));
        cf_jw_kv_uint(w, "total_key_count", bi->total_key_count);
        cf_jw_kv_uint(w, "total_max_keys", bi->total_max_keys);
        cf_jw_kv_uint(w, "num_chunks", bi->num_chunks);
        cf_jw_key(w, "comparator_class_name");
        hf_jw_bytes(w, bi->comparator);
        cf_jw_kv_arr_begin(w, "chunks");
        for (uint32_t i = 0; i < bi->num_chunks; i++) {
            uint64_t off;
            uint32_t sz;
            cf_slice fk;
            cf_hfile_bloom_chunk_at(h, b, i, &off, &sz, &fk);
            cf_jw_obj_begin(w);
            cf_jw_kv_uint(w, "offset", off);
            cf_jw_kv_uint(w, "on_disk_size", sz);
            cf_jw_key(w, "first_key");
            hf_jw_bytes(w, fk);
            cf_jw_obj_end(w);
        }
        cf_jw_arr_end(w);
        cf_jw_obj_end(w);
    }
    cf_jw_obj_end(w);
}

static void meta_json(cf_cli *c, cf_hfile *h, const hf_opts *op, const walk_sum *ws, cf_slice mid)
{
    const cf_hfile_trailer *t = cf_hfile_get_trailer(h);
    const cf_hfile_info *in = cf_hfile_get_info(h);
    cf_jw w;
    hf_jw_begin(&w, c->out, op);
    cf_jw_kv_cstr(&w, "format", "hfile");
    hf_jw_version(&w, h);
    cf_jw_kv_cstr(&w, "data_block_encoding", hf_encoding(h));
    cf_jw_kv_cstr(&w, "comparator", t->comparator);
    cf_jw_kv_cstr(&w, "cell_format", in->raw_keys ? "raw_key_value" : "keyvalue");
    cf_jw_kv_uint(&w, "num_cells", t->entry_count);
    cf_jw_kv_bool(&w, "includes_mvcc", in->includes_mvcc);
    cf_jw_kv_bool(&w, "includes_tags", in->includes_tags);
    cf_jw_kv_bool(&w, "block_checksums", in->checksums);
    jw_trailer(&w, t);
    cf_jw_kv_obj_begin(&w, "index");
    cf_jw_kv_uint(&w, "levels", in->index_levels);
    cf_jw_kv_uint(&w, "root_entries", in->root_entries);
    cf_jw_kv_uint(&w, "intermediate_index_blocks", in->intermediate_index_blocks);
    cf_jw_kv_uint(&w, "leaf_index_blocks", in->leaf_index_blocks);
    cf_jw_kv_uint(&w, "data_blocks", in->num_data_blocks);
    cf_jw_key(&w, "midkey");
    if (in->has_midkey_metadata) {
        cf_jw_obj_begin(&w);
        cf_jw_kv_uint(&w, "mid_leaf_block_offset", in->mid_leaf_offset);
        cf_jw_kv_uint(&w, "mid_leaf_block_on_disk_size", in->mid_leaf_on_disk_size);
        cf_jw_kv_uint(&w, "mid_key_entry", in->mid_key_entry);
        cf_jw_obj_end(&w);
    } else {
        cf_jw_null(&w);
    }
    cf_jw_key(&w, "mid_key");
    if (mid.data)
        hf_jw_key(&w, h, mid);
    else
        cf_jw_null(&w);
    cf_jw_obj_end(&w);
    if (t->major >= 2) {
        cf_jw_kv_obj_begin(&w, "block_counts");
        for (size_t i = 0; i < ws->n; i++)
            cf_jw_kv_uint(&w, ws->magic[i], ws->count[i]);
        cf_jw_obj_end(&w);
        cf_jw_kv_arr_begin(&w, "load_on_open");
        for (size_t i = 0; i < ws->lo_n; i++) {
            cf_jw_obj_begin(&w);
            cf_jw_kv_cstr(&w, "type", block_name(ws->lo[i].magic));
            cf_jw_kv_uint(&w, "offset", ws->lo[i].offset);
            cf_jw_kv_uint(&w, "on_disk_size",
                          (uint64_t)ws->lo[i].header_size + ws->lo[i].on_disk_size_without_header);
            cf_jw_kv_uint(&w, "uncompressed_size", ws->lo[i].uncompressed_size_without_header);
            cf_jw_obj_end(&w);
        }
        cf_jw_arr_end(&w);
    }
    cf_jw_kv_arr_begin(&w, "file_info");
    for (size_t i = 0; i < in->file_info_count; i++) {
        cf_slice k, v;
        cf_hfile_file_info_at(h, i, &k, &v);
        cf_hfile_fi_value d;
        cf_hfile_file_info_decode(h, k, v, &d);
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "key");
        hf_jw_bytes(&w, k);
        cf_jw_key(&w, "value");
        hf_jw_bytes(&w, v);
        cf_jw_kv_cstr(&w, "type", fi_kind_name(d.kind));
        if (d.kind != CF_HFILE_FI_BYTES && d.kind != CF_HFILE_FI_STRING) {
            cf_jw_key(&w, "decoded");
            jw_fi_value(&w, h, v, &d);
        }
        if (d.malformed)
            cf_jw_kv_cstr(&w, "error", d.malformed);
        cf_jw_obj_end(&w);
    }
    cf_jw_arr_end(&w);
    cf_jw_kv_arr_begin(&w, "meta_blocks");
    for (size_t i = 0; i < in->meta_count; i++) {
        cf_slice name;
        uint64_t off;
        uint32_t sz;
        cf_hfile_meta_at(h, i, &name, &off, &sz);
        jw_meta_block(&w, name, off, sz);
    }
    cf_jw_arr_end(&w);
    jw_blooms(&w, h);
    cf_jw_obj_end(&w);
    cf_jw_newline(&w);
}

int hf_do_meta(cf_cli *c, cf_hfile *h, const hf_opts *o)
{
    const cf_hfile_trailer *t = cf_hfile_get_trailer(h);
    cf_error e = {0};
    walk_sum ws;
    memset(&ws, 0, sizeof(ws));
    ws.load_on_open = t->load_on_open_data_offset;
    if (t->major >= 2) {
        cf_status st = cf_hfile_walk_blocks(h, false, sum_block, &ws, &e);
        if (st != CF_OK)
            return cf_cli_lib_fail(c, "walk blocks", st, &e);
    }
    cf_slice mid = {0};
    cf_status mst = cf_hfile_midkey(h, &mid, &e);
    if (mst != CF_OK)
        return cf_cli_lib_fail(c, "mid-key", mst, &e);
    if (o->json)
        meta_json(c, h, o, &ws, mid);
    else
        meta_text(c, h, &ws, mid);
    return CF_EXIT_OK;
}

/* ---- blocks -------------------------------------------------------------------------- */

typedef struct idx_ctx {
    cf_cli *c;
    const cf_hfile *h;
    cf_jw *w; /* NULL for text */
} idx_ctx;

static bool print_index_block(void *ctx, const cf_hfile_index_block *b, const cf_hfile_block_ref *e,
                              size_t n)
{
    idx_ctx *x = ctx;
    bool to_data = b->level + 1 == b->levels;
    if (x->w) {
        cf_jw *w = x->w;
        cf_jw_obj_begin(w);
        cf_jw_kv_uint(w, "level", b->level);
        cf_jw_kv_cstr(w, "kind", b->kind);
        cf_jw_kv_uint(w, "offset", b->offset);
        if (b->on_disk_size)
            cf_jw_kv_uint(w, "on_disk_size", b->on_disk_size);
        cf_jw_kv_uint(w, "uncompressed_size", b->uncompressed_size);
        cf_jw_kv_arr_begin(w, "entries");
        for (size_t i = 0; i < n; i++) {
            cf_jw_obj_begin(w);
            cf_jw_kv_uint(w, "offset", e[i].offset);
            cf_jw_kv_uint(w, "on_disk_size", e[i].on_disk_size);
            cf_jw_key(w, "key");
            hf_jw_key(w, x->h, e[i].key);
            cf_jw_obj_end(w);
        }
        cf_jw_arr_end(w);
        cf_jw_obj_end(w);
        return true;
    }
    FILE *o = x->c->out;
    fprintf(o, "  level %" PRIu32 " %s block at offset %" PRIu64, b->level, b->kind, b->offset);
    if (b->on_disk_size)
        fprintf(o, ", %" PRIu32 " bytes on disk", b->on_disk_size);
    fprintf(o, ": %zu entries -> %s blocks\n", n, to_data ? "data" : "index");
    for (size_t i = 0; i < n; i++) {
        fprintf(o, "    [%zu] offset=%" PRIu64 ", dataSize=%" PRIu32 ", key=", i, e[i].offset,
                e[i].on_disk_size);
        hf_print_key(o, x->h, e[i].key);
        fputc('\n', o);
    }
    return true;
}

static bool print_header(void *ctx, const cf_hfile_block_header *b)
{
    idx_ctx *x = ctx;
    const char *ck = cf_hfile_checksum_name(b->checksum_type);
    if (x->w) {
        cf_jw *w = x->w;
        cf_jw_obj_begin(w);
        cf_jw_kv_uint(w, "offset", b->offset);
        cf_jw_kv_cstr(w, "type", block_name(b->magic));
        cf_jw_kv_cstr(w, "magic", b->magic);
        cf_jw_kv_uint(w, "header_size", b->header_size);
        cf_jw_kv_uint(w, "on_disk_size_without_header", b->on_disk_size_without_header);
        cf_jw_kv_uint(w, "uncompressed_size_without_header", b->uncompressed_size_without_header);
        cf_jw_kv_int(w, "prev_block_offset", b->prev_block_offset);
        if (b->header_size > 24) {
            cf_jw_kv_cstr(w, "checksum_type", ck ? ck : "UNKNOWN");
            cf_jw_kv_uint(w, "bytes_per_checksum", b->bytes_per_checksum);
            cf_jw_kv_uint(w, "on_disk_data_size_with_header", b->on_disk_data_size_with_header);
        }
        cf_jw_obj_end(w);
        return true;
    }
    FILE *o = x->c->out;
    fprintf(o,
            "  offset=%" PRIu64 ", blockType=%s, onDiskSizeWithoutHeader=%" PRIu32
            ", uncompressedSizeWithoutHeader=%" PRIu32 ", prevBlockOffset=%" PRId64,
            b->offset, block_name(b->magic), b->on_disk_size_without_header,
            b->uncompressed_size_without_header, b->prev_block_offset);
    if (b->header_size > 24)
        fprintf(
            o, ", checksumType=%s, bytesPerChecksum=%" PRIu32 ", onDiskDataSizeWithHeader=%" PRIu32,
            ck ? ck : "UNKNOWN", b->bytes_per_checksum, b->on_disk_data_size_with_header);
    fputc('\n', o);
    return true;
}

int hf_do_blocks(cf_cli *c, cf_hfile *h, const hf_opts *o)
{
    const cf_hfile_trailer *t = cf_hfile_get_trailer(h);
    const cf_hfile_info *in = cf_hfile_get_info(h);
    cf_error e = {0};
    cf_jw w;
    idx_ctx x = {c, h, o->json ? &w : NULL};
    cf_status st = CF_OK;
    const char *what = "index";
    if (o->json)
        hf_jw_begin(&w, c->out, o);
    if (!o->headers_only) {
        if (o->json) {
            cf_jw_kv_obj_begin(&w, "index");
            cf_jw_kv_uint(&w, "levels", in->index_levels);
            cf_jw_kv_uint(&w, "data_blocks", in->num_data_blocks);
            cf_jw_kv_arr_begin(&w, "blocks");
        } else {
            fprintf(c->out,
                    "Block index: %" PRIu32 " level(s), %" PRIu32 " root entries, %" PRIu64
                    " data blocks\n",
                    in->index_levels, in->root_entries, in->num_data_blocks);
        }
        st = cf_hfile_index_walk(h, print_index_block, &x, &e);
        if (o->json) {
            cf_jw_arr_end(&w);
            cf_jw_obj_end(&w);
            cf_jw_kv_arr_begin(&w, "meta_index");
        } else if (in->meta_count) {
            fputs("Meta index:\n", c->out);
        }
        for (size_t i = 0; i < in->meta_count; i++) {
            cf_slice name;
            uint64_t off;
            uint32_t sz;
            cf_hfile_meta_at(h, i, &name, &off, &sz);
            if (o->json) {
                jw_meta_block(&w, name, off, sz);
            } else {
                fprintf(c->out, "  [%zu] offset=%" PRIu64 ", dataSize=%" PRIu32 ", name=", i, off,
                        sz);
                hf_print_bytes(c->out, name);
                fputc('\n', c->out);
            }
        }
        if (o->json)
            cf_jw_arr_end(&w);
    }
    if (st == CF_OK && !o->index_only) {
        what = "block headers";
        if (o->json)
            cf_jw_key(&w, "blocks");
        if (t->major < 2) {
            if (o->json)
                cf_jw_null(&w);
            else
                fputs("Block headers: none (HFile v1 blocks have no headers)\n", c->out);
        } else {
            if (o->json)
                cf_jw_arr_begin(&w);
            else
                fputs("Block headers:\n", c->out);
            st = cf_hfile_walk_blocks(h, false, print_header, &x, &e);
            if (o->json)
                cf_jw_arr_end(&w);
        }
    }
    if (o->json) {
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    }
    if (st != CF_OK)
        return cf_cli_lib_fail(c, what, st, &e);
    return CF_EXIT_OK;
}
