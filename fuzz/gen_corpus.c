/* Writes the seed corpus of every fuzz target (fuzz/corpus/<target>/):
 *
 *   cf_fuzz_gen_corpus OUT_DIR GOLDEN_DIR [GOLDEN_DELTA_DIR]
 *
 * Decoder seeds are blocks our encoders write (with the option bytes their
 * target expects); reader and footer seeds are the smallest of Kudu's golden
 * files; nullable/array seeds are data blocks of files our writer writes;
 * framing and index seeds are framed blocks and B-trees built by our writers;
 * bloom and delta seeds are Kudu's small BloomFiles and DeltaFiles (GOLDEN_DIR
 * and GOLDEN_DELTA_DIR, default GOLDEN_DIR-delta), files our writers write as
 * their tests do, and key and delta lists for the round-trip modes.
 * Deterministic: the same tree gives the same corpus. Keep it small (a few
 * seeds per target): libFuzzer grows its own corpus in a scratch directory.
 */
/* cf-needs: hfile tables parquet */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <cfile/bloom.h>
#include <cfile/delta.h>
#include <cfile/hfile.h>

#include "cfile/internal.h"
#include "codec/compress.h"
#include "codec/crc32c.h"
#include "encoding/encodings.h"
#include "index/btree.h"
#include "rowset/wal.h"
#include "parquet/encoding.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/group_varint.h"

#include "support_opts.h" /* tests/cfile: writer options from one literal */

static const char *out_dir;

static void die(const char *what, const cf_error *err)
{
    fprintf(stderr, "gen_corpus: %s: %s\n", what, err ? err->msg : strerror(errno));
    exit(1);
}

static void put_file(const char *target, const char *name, const uint8_t *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", out_dir, target);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/%s", out_dir, target, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0)
        die(path, NULL);
}

/* [type/pair selector][seed x4][dict size x2] */
static void put_opts(cf_buf *b, uint8_t sel, uint32_t seed, uint16_t dict_n)
{
    cf_buf_put_u8(b, sel);
    cf_buf_put_le32(b, seed);
    cf_buf_append(b, &dict_n, 2);
}

/* n values of type t in memory form: mode 0 ascending, 1 scrambled, 2 runs. */
static void gen_values(cf_type t, size_t n, int mode, uint8_t *vals, char *arena)
{
    size_t es = cf_type_size(t);
    cf_type p = cf_type_physical(t);
    uint64_t x = 0x243f6a8885a308d3ull;
    for (size_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t v = mode == 0 ? i * 3 : mode == 1 ? x >> 17 : i / 7;
        uint8_t *d = vals + i * es;
        memset(d, 0, es);
        if (p == CF_TYPE_BINARY) {
            char *s = arena + i * 16;
            int len = snprintf(s, 16, "k%06llu%s", (unsigned long long)(v % 1000000),
                               mode == 1 ? &"xyz"[v % 4] : "");
            cf_slice sl = {(const uint8_t *)s, (size_t)len};
            memcpy(d, &sl, sizeof sl);
        } else if (p == CF_TYPE_BOOL) {
            *d = (uint8_t)(mode == 0 ? i >= n / 2 : v & 1);
        } else if (p == CF_TYPE_FLOAT) {
            float f = (float)(int64_t)(v % 100000) * 0.5f;
            memcpy(d, &f, 4);
        } else if (p == CF_TYPE_DOUBLE) {
            double f = (double)(int64_t)v * 0.25;
            memcpy(d, &f, 8);
        } else {
            memcpy(d, &v, es < 8 ? es : 8);
        }
    }
}

/* ---- decoders ------------------------------------------------------------------------- */

static void decoder_seeds(const char *target, cf_encoding enc, int which)
{
    cf_type types[32];
    size_t nt = fuzz_types_which(enc, which, types);
    if (nt == 0)
        return;
    enum { N = 160 };
    static uint8_t vals[N * 16];
    static char arena[N * 16];
    for (size_t k = 0; k < 3; k++) {
        size_t ti = k * nt / 3;
        if (k > 0 && ti == (k - 1) * nt / 3)
            continue;
        cf_type t = types[ti];
        for (int mode = 0; mode < 2; mode++) {
            cf_buf b;
            cf_buf_init(&b);
            put_opts(&b, (uint8_t)ti, 0x1234567u * (uint32_t)(k * 2 + mode + 1), 1024);
            gen_values(t, N, mode == 0 ? 0 : (k & 1) ? 2 : 1, vals, arena);
            cf_error err;
            if (enc == CF_ENC_GROUP_VARINT) {
                /* format §8.9: gvint(count, min, first_ordinal, 0) then deltas in groups */
                uint32_t v32[N], mn = UINT32_MAX;
                for (size_t i = 0; i < N; i++) {
                    memcpy(&v32[i], vals + i * 4, 4);
                    mn = v32[i] < mn ? v32[i] : mn;
                }
                uint32_t hdr[4] = {N, mn, 7, 0};
                cf_gvint_append(&b, hdr, 4);
                for (size_t i = 0; i < N; i++)
                    v32[i] -= mn;
                cf_gvint_append(&b, v32, N);
            } else {
                const cf_encoder_ops *ops = cf_encoder_lookup(t, enc);
                if (ops == NULL)
                    continue;
                cf_enc_params ep = {t, cf_type_size(t), 512, mode ? 4 : 16};
                cf_encoder *e;
                if (ops->create(&e, &ep, &err) != CF_OK)
                    die("encoder", &err);
                ops->add(e, vals, N, false);
                cf_slice s;
                if (ops->finish(e, (uint32_t)(k * 1000), &s, &err) != CF_OK)
                    die("encoder finish", &err);
                cf_buf_append(&b, s.data, s.len);
                cf_encoder_free(e);
            }
            char name[64];
            snprintf(name, sizeof name, "%s-%s", cf_type_name(t), mode ? "mixed" : "sorted");
            put_file(target, name, b.data, b.len);
            cf_buf_dispose(&b);
        }
    }
}

/* ---- files our writer writes ----------------------------------------------------------- */

static void write_file(cf_buf *out, cf_type t, cf_encoding enc, cf_compression comp, bool nullable,
                       bool is_array, bool checksums, size_t rows)
{
    enum { N = 400 };
    static uint8_t vals[N * 16];
    static char arena[N * 16];
    if (rows > N)
        rows = N;
    cf_error err;
    cf_io *io;
    if (cf_io_create_mem(&io, &err) != CF_OK)
        die("io", &err);
    cf_writer_options o = col_options((col_opts){t, enc, comp, nullable, is_array,
                                                 .no_checksums = !checksums, .block_size = 512});
    cf_writer *w;
    if (cf_writer_create(&w, io, &o, &err) != CF_OK)
        die("writer", &err);
    gen_values(t, N, 2, vals, arena);
    uint8_t nn[N / 8];
    for (size_t i = 0; i < sizeof nn; i++)
        nn[i] = (uint8_t)(0xb7 ^ (i * 29));
    cf_status st;
    if (is_array) {
        uint32_t counts[N];
        size_t cells = 0, used = 0;
        while (cells < rows / 4 && used < N) {
            uint32_t c = (uint32_t)(cells % 5);
            if (nullable && !(nn[3 + cells / 8] >> (cells % 8) & 1))
                c = 0; /* a NULL cell has no elements */
            if (c > N - used)
                c = (uint32_t)(N - used);
            counts[cells++] = c;
            used += c;
        }
        st = cf_writer_append_arrays(w, vals, nn, counts, nullable ? nn + 3 : NULL, cells, &err);
    } else {
        st = cf_writer_append(w, vals, nullable ? nn : NULL, rows, &err);
    }
    if (st == CF_OK)
        st = cf_writer_finish(w, &err);
    if (st != CF_OK)
        die("write", &err);
    cf_slice s = cf_io_mem_contents(io);
    cf_buf_clear(out);
    cf_buf_append(out, s.data, s.len);
    cf_writer_free(w);
    cf_io_free(io);
}

/* The logical bytes of the first data block of a file (through the positional index). */
static bool first_data_block(const uint8_t *file, size_t len, cf_buf *out)
{
    cf_error err;
    cf_io *io;
    cf_reader *r;
    if (cf_io_open_mem(&io, file, len, &err) != CF_OK)
        die("io", &err);
    if (cf_reader_open(&r, io, NULL, &err) != CF_OK)
        die("open", &err);
    const cf_file_info *fi = cf_reader_info(r);
    bool ok = false;
    cf_buf scratch;
    cf_buf_init(&scratch);
    cf_slice s;
    cf_index_block ib;
    cf_slice key;
    cf_block_ptr child;
    if (fi->has_posidx &&
        cf_reader_read_block(r, (cf_block_ptr){fi->posidx_root_off, fi->posidx_root_size}, &scratch,
                             &s, "index", &err) == CF_OK &&
        cf_ib_parse(&ib, s.data, s.len, &err) == CF_OK && ib.count > 0 && ib.leaf &&
        cf_ib_entry(&ib, 0, &key, &child, &err) == CF_OK) {
        cf_buf data;
        cf_buf_init(&data);
        if (cf_reader_read_block(r, child, &data, &s, "data", &err) == CF_OK) {
            cf_buf_append(out, s.data, s.len);
            ok = true;
        }
        cf_buf_dispose(&data);
    }
    cf_buf_dispose(&scratch);
    cf_reader_free(r);
    cf_io_free(io);
    return ok;
}

static void block_in_file_seeds(const char *target, bool is_array)
{
    cf_type pt[128];
    cf_encoding pe[128];
    size_t np = fuzz_pairs(pt, pe, 128);
    /* a spread of pairs: fixed-width, BOOL and binary encodings */
    static const struct {
        cf_type t;
        cf_encoding e;
    } want[] = {{CF_TYPE_INT32, CF_ENC_BIT_SHUFFLE}, {CF_TYPE_BOOL, CF_ENC_RLE},
                {CF_TYPE_STRING, CF_ENC_DICT},       {CF_TYPE_BINARY, CF_ENC_PREFIX},
                {CF_TYPE_INT64, CF_ENC_PLAIN},       {CF_TYPE_INT16, CF_ENC_RLE}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        size_t sel = np;
        for (size_t i = 0; i < np; i++)
            if (pt[i] == want[k].t && pe[i] == want[k].e)
                sel = i;
        if (sel == np)
            continue;
        cf_buf f, b;
        cf_buf_init(&f);
        cf_buf_init(&b);
        write_file(&f, want[k].t, want[k].e, CF_COMP_NONE, true, is_array, false, 300);
        put_opts(&b, (uint8_t)sel, 0x9e3779b9u * (uint32_t)(k + 1) | 2u, 1024);
        if (first_data_block(f.data, f.len, &b)) {
            char name[64];
            snprintf(name, sizeof name, "%s-%s", cf_type_name(want[k].t),
                     cf_encoding_name(want[k].e));
            put_file(target, name, b.data, b.len);
        }
        cf_buf_dispose(&f);
        cf_buf_dispose(&b);
    }
}

/* ---- golden files ---------------------------------------------------------------------- */

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Golden case directories (sorted) whose .cfile is at most max_len bytes. */
static size_t small_golden(const char *golden, size_t max_len, char paths[][512], size_t cap)
{
    DIR *d = opendir(golden);
    if (d == NULL)
        die(golden, NULL);
    char *names[512];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 512)
        if (e->d_name[0] != '.')
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char p[512];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s/%s.cfile", golden, names[i], names[i]);
        if (k < cap && stat(p, &st) == 0 && (size_t)st.st_size <= max_len)
            snprintf(paths[k++], 512, "%s", p);
        free(names[i]);
    }
    return k;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        die(path, NULL);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)n + 1);
    if (p == NULL || fread(p, 1, (size_t)n, f) != (size_t)n)
        die(path, NULL);
    fclose(f);
    *len = (size_t)n;
    return p;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static void golden_seeds(const char *golden)
{
    static char paths[64][512];
    /* Every golden file up to 2 KiB: all encodings, codecs, nullable and arrays. */
    size_t n = small_golden(golden, 2100, paths, 64);
    for (size_t i = 0; i < n; i++) {
        size_t len;
        uint8_t *f = slurp(paths[i], &len);
        put_file("fuzz_reader", base_name(paths[i]), f, len);
        /* fuzz_footer: [opt][u16 n][footer PB][everything before the footer CRC] */
        if (i % 3 == 0 && len > 16) {
            uint32_t flen = cf_load_le32(f + len - 4);
            /* without checksums nothing precedes the footer PB: keep all of the body */
            cf_error err;
            cf_io *io;
            cf_reader *r;
            size_t crc_len = 4;
            cf_io_open_mem(&io, f, len, &err);
            if (cf_reader_open(&r, io, NULL, &err) == CF_OK) {
                if (!(cf_reader_info(r)->incompatible_features & CF_FEATURE_CHECKSUM))
                    crc_len = 0;
                cf_reader_free(r);
            }
            cf_io_free(io);
            if ((size_t)flen + 12 + crc_len <= len) {
                cf_buf b;
                cf_buf_init(&b);
                cf_buf_put_u8(&b, (uint8_t)(4 | (i & 8)));
                uint16_t n16 = (uint16_t)flen;
                cf_buf_append(&b, &n16, 2);
                cf_buf_append(&b, f + len - 12 - flen, flen);
                cf_buf_append(&b, f, len - 12 - crc_len - flen);
                put_file("fuzz_footer", base_name(paths[i]), b.data, b.len);
                cf_buf_dispose(&b);
            }
        }
        /* fuzz_index_block: the positional root's logical bytes */
        if (i % 4 == 0) {
            cf_error err;
            cf_io *io;
            cf_reader *r;
            cf_io_open_mem(&io, f, len, &err);
            if (cf_reader_open(&r, io, NULL, &err) == CF_OK) {
                const cf_file_info *fi = cf_reader_info(r);
                cf_buf scratch, b;
                cf_buf_init(&scratch);
                cf_buf_init(&b);
                cf_slice s;
                if (fi->has_posidx &&
                    cf_reader_read_block(r,
                                         (cf_block_ptr){fi->posidx_root_off, fi->posidx_root_size},
                                         &scratch, &s, "index", &err) == CF_OK) {
                    cf_buf_put_u8(&b, (uint8_t)(i << 1));
                    cf_buf_append(&b, s.data, s.len);
                    put_file("fuzz_index_block", base_name(paths[i]), b.data, b.len);
                }
                cf_buf_dispose(&scratch);
                cf_buf_dispose(&b);
                cf_reader_free(r);
            }
            cf_io_free(io);
        }
        free(f);
    }
    /* A header seed: the header PB of a file with metadata. */
    for (size_t i = 0; i < n; i++) {
        if (strstr(paths[i], "metadata") == NULL)
            continue;
        size_t len;
        uint8_t *f = slurp(paths[i], &len);
        uint32_t hlen = cf_load_le32(f + 8);
        if ((size_t)hlen + 16 <= len) {
            cf_buf b;
            cf_buf_init(&b);
            cf_buf_put_u8(&b, 1 | 4);
            uint16_t n16 = (uint16_t)hlen;
            cf_buf_append(&b, &n16, 2);
            cf_buf_append(&b, f + 12, hlen);
            cf_buf_append(&b, f + 16 + hlen, len - 16 - hlen);
            put_file("fuzz_footer", "header-metadata", b.data, b.len);
            cf_buf_dispose(&b);
        }
        free(f);
        break;
    }
}

/* ---- framing and trees ------------------------------------------------------------------ */

static void framing_seeds(void)
{
    uint8_t text[700];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = (uint8_t)("the quick brown fox "[i % 20] + (i / 100));
    for (unsigned c = 0; c < 4; c++) {
        for (unsigned crc = 0; crc < 2; crc++) {
            cf_frame_opts fo = {.compression = (cf_compression)(CF_COMP_NONE + c),
                                .checksums = crc != 0};
            cf_buf fr, b;
            cf_buf_init(&fr);
            cf_buf_init(&b);
            cf_error err;
            if (!cf_codec_available(fo.compression) ||
                cf_frame_block(&fo, text, sizeof text, &fr, &err) != CF_OK)
                continue;
            /* opt: codec, crc present and verified */
            cf_buf_put_u8(&b, (uint8_t)(c | (crc ? 8 | 16 : 0) | (c & 1 ? 32 : 0)));
            cf_buf_append(&b, fr.data, fr.len);
            char name[32];
            snprintf(name, sizeof name, "v2-%s%s", cf_compression_name(fo.compression),
                     crc ? "-crc" : "");
            put_file("fuzz_framing", name, b.data, b.len);
            /* v1 (format §5.2): fixed32 compressed length, fixed32 raw length, payload */
            if (c != 0 && !crc) {
                cf_buf comp;
                cf_buf_init(&comp);
                if (cf_codec_compress(fo.compression, text, sizeof text, &comp, &err) == CF_OK) {
                    cf_buf_clear(&b);
                    cf_buf_put_u8(&b, (uint8_t)(c | 4));
                    cf_buf_put_le32(&b, (uint32_t)comp.len);
                    cf_buf_put_le32(&b, sizeof text);
                    cf_buf_append(&b, comp.data, comp.len);
                    snprintf(name, sizeof name, "v1-%s", cf_compression_name(fo.compression));
                    put_file("fuzz_framing", name, b.data, b.len);
                }
                cf_buf_dispose(&comp);
            }
            cf_buf_dispose(&fr);
            cf_buf_dispose(&b);
        }
    }
}

static cf_status img_write(void *ctx, const uint8_t *data, size_t len, cf_block_ptr *out,
                           cf_error *err)
{
    cf_buf *img = ctx;
    *out = (cf_block_ptr){img->len, (uint32_t)len};
    cf_buf_append(img, data, len);
    return CF_OK;
}

static void tree_seeds(void)
{
    for (unsigned k = 0; k < 2; k++) {
        cf_buf img;
        cf_buf_init(&img);
        cf_buf_append(&img, "img", 3); /* no block at offset 0, as in a file */
        cf_error err;
        cf_btree_writer *w;
        if (cf_btree_writer_create(&w, k ? 64 : 128, img_write, &img, &err) != CF_OK)
            die("btree", &err);
        for (uint32_t i = 0; i < (k ? 60u : 20u); i++) {
            uint8_t key[4];
            cf_store_be32(key, i * 100);
            if (cf_btree_writer_append(w, (cf_slice){key, 4}, (cf_block_ptr){1000 + i, 50}, &err) !=
                CF_OK)
                die("btree append", &err);
        }
        cf_block_ptr root;
        if (cf_btree_writer_finish(w, &root, &err) != CF_OK)
            die("btree finish", &err);
        cf_btree_writer_free(w);
        cf_buf b;
        cf_buf_init(&b);
        cf_buf_put_u8(&b, (uint8_t)(1 | (k << 3)));
        cf_buf_put_le32(&b, (uint32_t)root.off);
        cf_buf_put_le32(&b, root.size);
        cf_buf_append(&b, img.data, img.len);
        put_file("fuzz_index_block", k ? "tree-3-levels" : "tree-2-levels", b.data, b.len);
        cf_buf_dispose(&b);
        cf_buf_dispose(&img);
    }
}

/* ---- bloom and delta files -------------------------------------------------------------- */

static void put_opt_file(const char *target, const char *name, uint8_t opt, const uint8_t *p,
                         size_t n)
{
    cf_buf b;
    cf_buf_init(&b);
    cf_buf_put_u8(&b, opt);
    cf_buf_append(&b, p, n);
    put_file(target, name, b.data, b.len);
    cf_buf_dispose(&b);
}

/* Kudu's small BloomFile (the multi-block one is 25 KB: ours below covers it). */
static void bloom_seeds(const char *golden)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/bloom-100keys-4096b/bloom-100keys-4096b.cfile", golden);
    size_t len;
    uint8_t *f = slurp(path, &len);
    put_opt_file("fuzz_bloom", "kudu-100keys-4096b", 2, f, len); /* read, checksums verified */
    put_opt_file("fuzz_bloom", "kudu-100keys-4096b-nocrc", 0, f, len);
    free(f);

    /* Ours, as tests/bloom writes them: sorted decimal keys over several small blocks. */
    for (unsigned crc = 0; crc < 2; crc++) {
        cf_error err;
        cf_io *io;
        cf_bloom_writer *w;
        cf_bloom_writer_options o;
        cf_bloom_writer_options_init(&o);
        o.bytes_per_block = 64;
        o.fp_rate = 0.01;
        o.checksums = crc != 0;
        if (cf_io_create_mem(&io, &err) != CF_OK ||
            cf_bloom_writer_create(&w, io, &o, &err) != CF_OK)
            die("bloom writer", &err);
        for (unsigned i = 0; i < 200; i++) {
            char k[16];
            int n = snprintf(k, sizeof k, "key%05u", i * 7);
            if (cf_bloom_writer_add(w, (cf_slice){(const uint8_t *)k, (size_t)n}, &err) != CF_OK)
                die("bloom add", &err);
        }
        if (cf_bloom_writer_finish(w, &err) != CF_OK)
            die("bloom finish", &err);
        cf_bloom_writer_free(w);
        cf_slice c = cf_io_mem_contents(io);
        put_opt_file("fuzz_bloom", crc ? "ours-multiblock" : "ours-multiblock-nocrc",
                     (uint8_t)(crc ? 2 | 4 : 8), c.data, c.len);
        cf_io_free(io);
    }

    /* Round-trip mode: [len][bytes] keys, opt picks block size, fp rate, checksums. */
    cf_buf keys;
    cf_buf_init(&keys);
    for (unsigned i = 0; i < 60; i++) {
        char k[16];
        int n = snprintf(k, sizeof k, "%u", i * 37 % 1000);
        cf_buf_put_u8(&keys, (uint8_t)n);
        cf_buf_append(&keys, k, (size_t)n);
    }
    cf_buf_put_u8(&keys, 0); /* the empty key */
    put_opt_file("fuzz_bloom", "keys-32b-fp0.1", 1 | (2 << 1) | (1 << 4) | 64, keys.data, keys.len);
    put_opt_file("fuzz_bloom", "keys-4096b-default", 1 | (7 << 1) | (3 << 4), keys.data, keys.len);
    cf_buf_dispose(&keys);
}

/* Every golden DeltaFile up to 6 KiB (type from the case name), ours with each
 * codec over small blocks, and delta lists for the round-trip mode. */
/* A delta file our writer writes into memory, with a change-list builder. */
typedef struct delta_file {
    cf_io *io;
    cf_delta_writer *w;
    cf_rcl_builder *b;
} delta_file;

/* o: NULL for the writer's defaults. */
static void delta_start(delta_file *d, const cf_delta_writer_options *o)
{
    cf_error err;
    if (cf_io_create_mem(&d->io, &err) != CF_OK || cf_rcl_builder_create(&d->b, &err) != CF_OK ||
        cf_delta_writer_create(&d->w, d->io, o, &err) != CF_OK)
        die("delta writer", &err);
}

/* The builder's change list, for row at timestamp ts. */
static void delta_append(delta_file *d, uint32_t row, uint64_t ts)
{
    cf_error err;
    if (cf_delta_writer_append(d->w, row, ts, cf_rcl_builder_bytes(d->b), &err) != CF_OK)
        die("delta append", &err);
}

/* Finish the file and keep it as fuzz_delta's seed `name` with option byte opt. */
static void delta_put(delta_file *d, const char *name, uint8_t opt)
{
    cf_error err;
    if (cf_delta_writer_finish(d->w, &err) != CF_OK)
        die("delta finish", &err);
    cf_delta_writer_free(d->w);
    cf_rcl_builder_free(d->b);
    cf_slice s = cf_io_mem_contents(d->io);
    put_opt_file("fuzz_delta", name, opt, s.data, s.len);
    cf_io_free(d->io);
}

static void delta_seeds(const char *golden_delta)
{
    static char paths[64][512];
    size_t n = small_golden(golden_delta, 6 * 1024, paths, 64);
    for (size_t i = 0; i < n; i++) {
        size_t len;
        uint8_t *f = slurp(paths[i], &len);
        bool undo = strncmp(base_name(paths[i]), "undo", 4) == 0;
        put_opt_file("fuzz_delta", base_name(paths[i]), (uint8_t)((undo ? 2 : 0) | 4 | (i << 4)), f,
                     len);
        free(f);
    }

    static const cf_compression codecs[] = {CF_COMP_NONE, CF_COMP_SNAPPY, CF_COMP_LZ4,
                                            CF_COMP_ZLIB};
    for (unsigned c = 0; c < 4; c++) {
        if (!cf_codec_available(codecs[c]))
            continue;
        cf_error err;
        cf_delta_writer_options o;
        cf_delta_writer_options_init(&o);
        o.compression = codecs[c];
        o.block_size = 512;
        o.checksums = c != 1;
        delta_file d;
        delta_start(&d, &o);
        cf_rcl_builder *b = d.b;
        for (uint32_t row = 0; row < 120; row++) {
            cf_rcl_type t = row % 11 == 5 ? CF_RCL_DELETE : CF_RCL_UPDATE;
            cf_rcl_builder_reset(b, t);
            if (t == CF_RCL_UPDATE) {
                int64_t v = (int64_t)row * 1000;
                char s[16];
                int sn = snprintf(s, sizeof s, "v%u", row);
                if (cf_rcl_builder_add(b, 1, &v, sizeof v, &err) != CF_OK ||
                    cf_rcl_builder_add(b, 2, row % 3 ? s : NULL, (size_t)sn, &err) != CF_OK)
                    die("rcl add", &err);
            }
            delta_append(&d, row * 3, 10 + row % 5);
        }
        char name[32];
        snprintf(name, sizeof name, "ours-redo-%s", cf_compression_name(codecs[c]));
        delta_put(&d, name, (uint8_t)((o.checksums ? 4 : 0) | (c << 4) | (c & 1) << 3));
    }

    /* Array cells (format §12.3, docs/SPEC-NOTES.md D.2) as change values, on the
     * column ids fuzz_delta reads as INT32, STRING, BINARY, INT64 and BOOL cells. */
    {
        cf_error err;
        delta_file d;
        delta_start(&d, NULL);
        cf_rcl_builder *b = d.b;
        static const cf_type types[] = {CF_TYPE_INT32, CF_TYPE_STRING, CF_TYPE_BINARY,
                                        CF_TYPE_INT64, CF_TYPE_BOOL};
        for (uint32_t row = 0; row < 40; row++) {
            cf_rcl_builder_reset(b, CF_RCL_UPDATE);
            for (uint32_t k = 0; k < 2; k++) {
                uint32_t id = 5 + (row + k) % 5;
                cf_type t = types[id % 5];
                size_t count = (row + k) % 4;
                static const int32_t i32[4] = {3, -3, 0, 9};
                static const int64_t i64[4] = {1, -1, 7, INT64_MIN};
                static const uint8_t bools[4] = {1, 0, 1, 1};
                static const cf_slice str[4] = {{(const uint8_t *)"a", 1},
                                                {(const uint8_t *)"", 0},
                                                {(const uint8_t *)"xyz", 3},
                                                {(const uint8_t *)"q", 1}};
                uint8_t nn = (uint8_t)(row % 3 ? 0xf : 0x5);
                const void *vals = t == CF_TYPE_INT32   ? (const void *)i32
                                   : t == CF_TYPE_INT64 ? (const void *)i64
                                   : t == CF_TYPE_BOOL  ? (const void *)bools
                                                        : (const void *)str;
                cf_array_cell cell = {t, count, vals, &nn};
                uint8_t buf[256];
                size_t len;
                if (cf_array_cell_encode(buf, sizeof buf, &len, &cell, &err) != CF_OK ||
                    cf_rcl_builder_add(b, id, buf, len, &err) != CF_OK)
                    die("array cell", &err);
            }
            delta_append(&d, row, 20 + row % 3);
        }
        delta_put(&d, "ours-redo-arrays", 4);
    }

    /* Round-trip mode: [row step][ts][kind][len][bytes] records. */
    cf_buf recs;
    cf_buf_init(&recs);
    for (unsigned i = 0; i < 80; i++) {
        uint8_t r[4 + 8] = {(uint8_t)(i % 5 == 0 ? 0xf1 : i % 3), (uint8_t)(i * 13),
                            (uint8_t)(i * 7), (uint8_t)(i % 9)};
        for (unsigned j = 0; j < 8; j++)
            r[4 + j] = (uint8_t)('a' + (i + j) % 26);
        cf_buf_append(&recs, r, 4 + r[3]);
    }
    for (unsigned m = 0; m < 4; m++) {
        /* REDO/UNDO, each codec, checksums and statistics on some */
        uint8_t opt = (uint8_t)(1 | (m & 1) << 1 | m << 2 | (m & 2) << 3 | (m < 3) << 5 | m << 6);
        char name[32];
        snprintf(name, sizeof name, "deltas-%s-%u", m & 1 ? "undo" : "redo", m);
        put_opt_file("fuzz_delta", name, opt, recs.data, recs.len);
    }
    cf_buf_dispose(&recs);
}

/* fuzz_array_cell: [type index][cell] for a few cells our writer makes (the
 * index is into fuzz_array_cell.c's type table). */
static void array_cell_seeds(void)
{
    static const int32_t i32[5] = {1, 2, 0, -4, 5};
    static const int64_t i64[2] = {INT64_MAX, -1};
    static const cf_slice str[3] = {
        {(const uint8_t *)"ab", 2}, {(const uint8_t *)"", 0}, {(const uint8_t *)"z", 1}};
    static const uint8_t some = 0x1b, odd = 0x5;
    static const struct {
        const char *name;
        uint8_t index;
        cf_array_cell cell;
    } seeds[] = {
        {"int32-nulls", 5, {CF_TYPE_INT32, 5, i32, &some}},
        {"int32-empty", 5, {CF_TYPE_INT32, 0, NULL, NULL}},
        {"int64", 7, {CF_TYPE_INT64, 2, i64, NULL}},
        {"string-nulls", 15, {CF_TYPE_STRING, 3, str, &odd}},
        {"binary", 16, {CF_TYPE_BINARY, 3, str, NULL}},
    };
    for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
        uint8_t buf[256];
        size_t len;
        cf_error err;
        if (cf_array_cell_encode(buf, sizeof buf, &len, &seeds[i].cell, &err) != CF_OK)
            die("array cell", &err);
        put_opt_file("fuzz_array_cell", seeds[i].name, seeds[i].index, buf, len);
    }
}

/* fuzz_wal: segments our log writes (read mode: opt 0) and op lists for the
 * round trip (opt bit 0 set). A segment of a few records of each op type, the
 * same with a torn tail, and an empty one. */
static void wal_seeds(void)
{
    cf_error err;
    cf_rcl_builder *b;
    if (cf_rcl_builder_create(&b, &err) != CF_OK)
        die("rcl", &err);
    cf_buf seg, payload, lists;
    cf_buf_init(&seg);
    cf_buf_init(&payload);
    cf_buf_init(&lists);
    uint8_t h[CF_WAL_HEADER_LEN];
    cf_wal_header_encode(h, &(cf_wal_header){.seq = 3, .durable_ts = 10});
    cf_buf_append(&seg, h, sizeof(h));
    put_opt_file("fuzz_wal", "segment-empty", 0, seg.data, seg.len);
    for (int i = 0; i < 6; i++) {
        static const cf_rcl_type rt[] = {CF_RCL_REINSERT, CF_RCL_UPDATE, CF_RCL_DELETE};
        int32_t k = i * 3;
        int64_t v = i * 1000;
        cf_buf_clear(&lists);
        cf_rcl_builder_reset(b, CF_RCL_UPDATE);
        if (cf_rcl_builder_add(b, 0, &k, 4, &err) != CF_OK)
            die("rcl", &err);
        cf_slice ks = cf_rcl_builder_bytes(b);
        cf_buf_append(&lists, ks.data, ks.len);
        cf_rcl_builder_reset(b, rt[i % 3]);
        if (i % 3 != 2 && (cf_rcl_builder_add(b, 1, &v, 8, &err) != CF_OK ||
                           cf_rcl_builder_add(b, 2, "abc", 3, &err) != CF_OK))
            die("rcl", &err);
        cf_slice vs = cf_rcl_builder_bytes(b);
        cf_buf_append(&lists, vs.data, vs.len);
        cf_wal_op op = {(uint8_t)(1 + i % 3),
                        11 + (uint64_t)i,
                        {lists.data, ks.len},
                        {lists.data + ks.len, vs.len},
                        (uint8_t)(i & 1)};
        cf_buf_clear(&payload);
        cf_wal_batch_encode(&payload, &op, 1);
        cf_wal_record_encode(&seg, payload.data, payload.len);
    }
    put_opt_file("fuzz_wal", "segment-6-ops", 0, seg.data, seg.len);
    put_opt_file("fuzz_wal", "segment-torn-tail", 0, seg.data, seg.len - 5);
    /* round trip: [type][ts step][key len][rcl len][bytes] */
    static const uint8_t ops[] = {0, 1, 4, 3, 1, 2, 3, 4, 'a', 'b', 'c', 1, 5, 4, 8, 5, 6, 7,
                                  8, 1, 2, 3, 4, 5, 6, 7, 8,   2,   1,   4, 0, 9, 9, 9, 9};
    put_opt_file("fuzz_wal", "ops-batch1", 1 | (0 << 1) | (17 << 3), ops, sizeof(ops));
    put_opt_file("fuzz_wal", "ops-batch3", 1 | (2 << 1) | (29 << 3), ops, sizeof(ops));
    if (seg.oom || payload.oom || lists.oom)
        die("wal seeds", NULL);
    cf_buf_dispose(&seg);
    cf_buf_dispose(&payload);
    cf_buf_dispose(&lists);
    cf_rcl_builder_free(b);
}

/* ---- Parquet pages ------------------------------------------------------------------------ */

/* fuzz_pq_levels [mode][max x2][count x2][bytes], fuzz_pq_values
 * [pair][type length][count x2][seed x4][bytes], fuzz_pq_codec
 * [codec][size x3][bytes]: each built by our encoders from a few value shapes. */
static void parquet_seeds(void)
{
    cf_error err;
    cf_buf b, body;
    cf_buf_init(&b);
    cf_buf_init(&body);
    char name[64];
    /* levels: runs, literals, BIT_PACKED, dictionary indices */
    uint16_t lv[600];
    uint32_t idx[600];
    for (int mode = 0; mode < 4; mode++) {
        for (int shape = 0; shape < 3; shape++) {
            uint16_t max = shape == 0 ? 1 : shape == 1 ? 3 : 300;
            size_t n = shape == 2 ? 600 : 100;
            for (size_t i = 0; i < n; i++) {
                lv[i] = (uint16_t)(shape == 0 ? (i / 20) % 2 : (i * 7 + i / 9) % (max + 1u));
                idx[i] = lv[i];
            }
            cf_buf_clear(&b);
            cf_buf_put_u8(&b, (uint8_t)mode);
            cf_buf_append(&b, &max, 2);
            uint16_t n16 = (uint16_t)n;
            cf_buf_append(&b, &n16, 2);
            cf_status st =
                mode == 3
                    ? cf_pq_dict_indices_encode(&b, idx, n, max + 1u, &err)
                    : cf_pq_levels_encode(&b, lv, n, mode == 2 ? CF_PQE_BIT_PACKED : CF_PQE_RLE,
                                          max, mode == 0, &err);
            if (st != CF_OK)
                die("parquet levels", &err);
            if (mode == 3) { /* the size field is the dictionary size */
                uint16_t sz = (uint16_t)(max + 1);
                memcpy(b.data + 1, &sz, 2);
            }
            snprintf(name, sizeof name, "mode%d-shape%d", mode, shape);
            put_file("fuzz_pq_levels", name, b.data, b.len);
        }
    }
    /* values: every pair fuzz_pq_values picks from, in its order */
    const cf_pq_value_pair *pairs = cf_pq_value_pairs;
    static const char *const words[] = {"apple", "apricot", "banana",   "band", "bandana",
                                        "",      "cherry",  "cherries", "date", "date"};
    uint8_t raw[300 * 12];
    cf_slice sl[300];
    for (size_t k = 0; k < CF_PQ_VALUE_PAIR_COUNT; k++) {
        const int32_t tl = pairs[k].type == CF_PQT_FIXED_LEN_BYTE_ARRAY ? 5 : 0;
        const size_t n = 200, w = cf_pq_value_size(pairs[k].type, tl);
        for (size_t i = 0; i < n; i++) {
            uint64_t x = 1000 + i * 3 + (i % 17 == 0 ? 1u << 20 : 0);
            for (size_t j = 0; j < w && pairs[k].type != CF_PQT_BYTE_ARRAY; j++)
                raw[i * w + j] = pairs[k].type == CF_PQT_BOOLEAN ? (uint8_t)(i % 3 == 0)
                                                                 : (uint8_t)(x >> (8 * (j % 8)));
            const char *wd = words[(i / 3) % 10];
            sl[i] = (cf_slice){(const uint8_t *)wd, strlen(wd)};
        }
        const void *vals =
            pairs[k].type == CF_PQT_BYTE_ARRAY ? (const void *)sl : (const void *)raw;
        cf_buf_clear(&b);
        cf_buf_put_u8(&b, (uint8_t)k);
        cf_buf_put_u8(&b, (uint8_t)tl);
        uint16_t n16 = (uint16_t)n;
        cf_buf_append(&b, &n16, 2);
        cf_buf_put_le32(&b, 0x1234u + (uint32_t)k);
        if (cf_pq_encode(&b, pairs[k].encoding, pairs[k].type, tl, vals, n, &err) != CF_OK)
            die("parquet values", &err);
        snprintf(name, sizeof name, "%s-%s", cf_pq_encoding_name(pairs[k].encoding),
                 cf_pq_type_name(pairs[k].type));
        put_file("fuzz_pq_values", name, b.data, b.len);
    }
    /* codecs: one text page each */
    cf_buf_clear(&body);
    for (int i = 0; i < 300; i++)
        cf_buf_append(&body, words[i % 10], strlen(words[i % 10]));
    for (unsigned c = 0; c <= CF_PQC_LZ4_RAW; c++) {
        if (!cf_pq_codec_supported(c))
            continue;
        cf_buf_clear(&b);
        cf_buf_put_u8(&b, (uint8_t)c);
        uint16_t lo = (uint16_t)body.len;
        cf_buf_append(&b, &lo, 2);
        cf_buf_put_u8(&b, (uint8_t)(body.len >> 16));
        if (cf_pq_compress(c, body.data, body.len, 0, &b, &err) != CF_OK)
            die("parquet codec", &err);
        put_file("fuzz_pq_codec", cf_pq_codec_name(c), b.data, b.len);
    }
    cf_buf_dispose(&b);
    cf_buf_dispose(&body);
}

/* HFiles our writer writes with each data block encoding and each codec
 * (small blocks, tags, mvcc; two with checksum type NULL, as Hudi 1.1+ writes
 * blocks), with checksums verified (opt 1) and skipped
 * (opt 0) so mutations reach the decoders. The real HBase, Hudi, Phoenix,
 * Kylin and Bigtable files of corpus/fuzz_hfile/ were added by hand. */
static void hfile_seeds(void)
{
    static const struct {
        int enc;
        uint32_t codec;
        bool tags;
        bool null_ck; /* checksum type NULL, its area zero-filled (Hudi 1.1+) */
    } v[] = {
        {CF_HFILE_DBE_PREFIX, CF_HFILE_NONE, true, false},
        {CF_HFILE_DBE_DIFF, CF_HFILE_NONE, false, false},
        {CF_HFILE_DBE_FAST_DIFF, CF_HFILE_NONE, true, false},
        {CF_HFILE_DBE_ROW_INDEX_V1, CF_HFILE_NONE, true, false},
        {CF_HFILE_DBE_NONE, CF_HFILE_GZ, false, false},
        {CF_HFILE_DBE_NONE, CF_HFILE_SNAPPY, false, false},
        {CF_HFILE_DBE_NONE, CF_HFILE_LZ4, false, false},
        {CF_HFILE_DBE_FAST_DIFF, CF_HFILE_LZO, false, false},
        {CF_HFILE_DBE_DIFF, CF_HFILE_ZSTD, true, false},
        {CF_HFILE_DBE_PREFIX, CF_HFILE_BZIP2, false, false},
        {CF_HFILE_DBE_NONE, CF_HFILE_NONE, false, true},
        {CF_HFILE_DBE_NONE, CF_HFILE_GZ, false, true},
    };
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        cf_error err = {0};
        cf_io *io;
        if (cf_io_create_mem(&io, &err) != CF_OK)
            die("hfile seed", &err);
        cf_hfile_writer_options o;
        cf_hfile_writer_options_init(&o);
        o.encoding = v[i].enc;
        o.compression = v[i].codec;
        o.include_tags = v[i].tags;
        o.block_size = 256;
        o.row_bloom = i % 2 == 0;
        if (v[i].null_ck)
            o.checksum_type = 0;
        cf_hfile_writer *w;
        if (cf_hfile_writer_create(&w, io, &o, &err) != CF_OK)
            die("hfile seed", &err);
        for (int k = 0; k < 24; k++) {
            char row[16], val[16];
            snprintf(row, sizeof row, "row%03d", k / 3);
            snprintf(val, sizeof val, "v%d", k % 4);
            cf_hfile_cell c;
            memset(&c, 0, sizeof c);
            c.row = (cf_slice){(const uint8_t *)row, strlen(row)};
            c.family = (cf_slice){(const uint8_t *)"f", 1};
            c.qualifier = (cf_slice){(const uint8_t *)"qq", (size_t)(k % 3)};
            c.timestamp = 5000 - k % 3;
            c.type = k % 5 == 4 ? CF_HFILE_DELETE : CF_HFILE_PUT;
            c.value = (cf_slice){(const uint8_t *)val, strlen(val)};
            c.mvcc = (uint64_t)k * 7;
            if (o.include_tags && k % 2)
                c.tags = (cf_slice){(const uint8_t *)"\x00\x03\x01xy", 5};
            if (cf_hfile_writer_append(w, &c, &err) != CF_OK)
                die("hfile seed", &err);
        }
        if (cf_hfile_writer_finish(w, &err) != CF_OK)
            die("hfile seed", &err);
        cf_hfile_writer_free(w);
        cf_slice f = cf_io_mem_contents(io);
        char name[64];
        for (uint8_t opt = 0; opt < 2; opt++) {
            snprintf(name, sizeof name, "written_%s_%s%s%s", cf_hfile_encoding_name(o.encoding),
                     cf_hfile_codec_name(o.compression), v[i].null_ck ? "_nullck" : "",
                     opt ? "" : "_nocrc");
            put_opt_file("fuzz_hfile", name, opt, f.data, f.len);
        }
        cf_io_free(io);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s OUT_DIR GOLDEN_DIR [GOLDEN_DELTA_DIR]\n", argv[0]);
        return 2;
    }
    out_dir = argv[1];
    mkdir(out_dir, 0777);
    decoder_seeds("fuzz_dec_plain", CF_ENC_PLAIN, FUZZ_TYPES_FIXED);
    decoder_seeds("fuzz_dec_plain_binary", CF_ENC_PLAIN, FUZZ_TYPES_BINARY);
    decoder_seeds("fuzz_dec_prefix", CF_ENC_PREFIX, FUZZ_TYPES_BINARY);
    decoder_seeds("fuzz_dec_dict", CF_ENC_DICT, FUZZ_TYPES_BINARY);
    decoder_seeds("fuzz_dec_rle", CF_ENC_RLE, FUZZ_TYPES_ALL);
    decoder_seeds("fuzz_dec_bshuf", CF_ENC_BIT_SHUFFLE, FUZZ_TYPES_ALL);
    decoder_seeds("fuzz_dec_gvint", CF_ENC_GROUP_VARINT, FUZZ_TYPES_ALL);
    block_in_file_seeds("fuzz_dec_nullable", false);
    block_in_file_seeds("fuzz_dec_array", true);
    golden_seeds(argv[2]);
    framing_seeds();
    tree_seeds();
    bloom_seeds(argv[2]);
    array_cell_seeds();
    wal_seeds();
    parquet_seeds();
    hfile_seeds();
    char delta_dir[4096];
    snprintf(delta_dir, sizeof delta_dir, "%s", argv[2]);
    size_t dl = strlen(delta_dir);
    while (dl > 1 && delta_dir[dl - 1] == '/')
        delta_dir[--dl] = '\0';
    snprintf(delta_dir + dl, sizeof delta_dir - dl, "-delta");
    delta_seeds(argc == 4 ? argv[3] : delta_dir);
    return 0;
}
