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

/* cfile hfile: inspect and write HBase HFiles, with what HBase's `hbase hfile`
 * (HFilePrettyPrinter) offers -- -m meta, -b block index, -h block headers,
 * -s stats, -e keys, -p cells, -w row, -k row order, -v verify -- as
 * subcommands with --json everywhere. This file parses the options, runs a
 * subcommand over each FILE, and holds dump, seek and verify; meta and blocks
 * live in cmd_hfile_meta.c, stats and check in cmd_hfile_stats.c, bloom and
 * write in cmd_hfile_write.c. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/hfile.h>

#include "cli.h"
#include "hfile_cli.h"

const char cf_cmd_hfile_usage[] =
    "usage: cfile hfile meta [--json] FILE...\n"
    "       cfile hfile info [--json] FILE...\n"
    "       cfile hfile blocks [--json] [--index | --headers] FILE...\n"
    "       cfile hfile stats [--json] [--details] FILE...\n"
    "       cfile hfile dump [--json] [--keys] [--row ROW | --row-hex HEX] [--limit N] FILE...\n"
    "       cfile hfile check [--json] FILE...\n"
    "       cfile hfile verify [--json] FILE...\n"
    "       cfile hfile seek [--json] FILE (ROW | --hex HEX)\n"
    "       cfile hfile bloom [--json] FILE ROW[/FAMILY:QUALIFIER]\n"
    "       cfile hfile write [--block-size N] [--compression C] [--encoding E]\n"
    "                         [--checksum T] [--no-bloom] [--no-mvcc] [--tags] [--json]\n"
    "                         OUT [CELLS.jsonl]\n"
    "\n"
    "Read an Apache HBase HFile (v1, v2 or v3), or write one (v3). The subcommands\n"
    "match `hbase hfile` (HFilePrettyPrinter) options:\n"
    "  meta    (-m) trailer, FileInfo decoded by type (ints, longs, booleans,\n"
    "          TIMERANGE, LASTKEY as a key, compaction events), load-on-open blocks,\n"
    "          mid-key, Bloom filters, meta blocks; `info` is the same\n"
    "  blocks  (-b, -h) the data index level by level (root, intermediate, leaf\n"
    "          entries) and the header of every block: type, sizes, previous\n"
    "          block of its type, checksum type, bytes per checksum\n"
    "  stats   (-s, -d) key, value, row-size (bytes and cells) statistics with\n"
    "          percentiles and range counts, cells by type, timestamp and mvcc\n"
    "          ranges, families, the biggest row\n"
    "  dump    (-p, -e, -w) every cell in file order, with tags (T[i]); --keys\n"
    "          prints keys only; --row prints just that row's cells (exit 1 if it\n"
    "          has none); --limit N (-n N) stops after N cells of each file, as\n"
    "          `cfile dump --limit` does (in JSON: the first N of \"cells\")\n"
    "  check   (-k) cell order: exit 1 naming the first cell that sorts before\n"
    "          its predecessor; also reports cells of more than one family\n"
    "  verify  (-v) every block's checksum (blocks of checksum type NULL have none:\n"
    "          said so), every cell, cell order and counts\n"
    "  seek    the first cell whose row (v1: key) is >= ROW; JSON:\n"
    "          {\"exact\", \"lower_bound\": {\"cell_index\", \"row\", \"value\"} | null}\n"
    "  bloom   probe the general Bloom filter (keyed as BLOOM_FILTER_TYPE says: ROW,\n"
    "          ROWCOL needs /FAMILY:QUALIFIER, ROWPREFIX_FIXED_LENGTH) and the\n"
    "          delete-family Bloom filter; exit 1 when the general filter rules\n"
    "          the row (column) out, else 0 (also when the file has no filter)\n"
    "  write   an HFile v3 from JSON lines (CELLS.jsonl, default - = stdin), one\n"
    "          cell per line, the form dump --json prints:\n"
    "          {\"row\", \"family\", \"qualifier\", \"timestamp\", \"type\", \"value\",\n"
    "          \"tags\"? (hex), \"mvcc\"?}; bytes are strings or {\"hex\": \"...\"}, type a\n"
    "          name (Put, Delete, DeleteColumn, DeleteFamily, DeleteFamilyVersion)\n"
    "          or code; cells must be in HBase order. OUT appears only when complete.\n"
    "          The summary goes to stderr; --json prints {\"file\", \"cells\", \"bytes\"}.\n"
    "\n"
    "With several FILEs, text output separates them with \"Scanning -> FILE\" and\n"
    "--json prints one JSON object per line, each starting with \"file\"; the exit\n"
    "code is 1 if any file failed, else 3 if any needs an unsupported feature.\n"
    "\n"
    "  --json            one compact JSON document (a line) per FILE\n"
    "  --hex HEX         (seek) the row as hex bytes\n"
    "  --keys            (dump) keys only, no values\n"
    "  --row ROW         (dump) only the cells of this row\n"
    "  --row-hex HEX     (dump) the same, the row as hex bytes\n"
    "  --details         (stats) range counts in text output (JSON always has them)\n"
    "  --index           (blocks) only the index\n"
    "  --headers         (blocks) only the block headers\n"
    "  --block-size N    (write) data block size (default 65536)\n"
    "  --compression C   (write) NONE, GZ, SNAPPY, LZ4, ZSTD, LZO, BZIP2 (default NONE)\n"
    "  --encoding E      (write) NONE, PREFIX, DIFF, FAST_DIFF, ROW_INDEX_V1 (default\n"
    "                    NONE; all but NONE and ROW_INDEX_V1 need one family per file)\n"
    "  --checksum T      (write) block checksum type, HBase's names: CRC32C (default),\n"
    "                    CRC32, or NULL (checksum area kept but zero-filled, as HBase\n"
    "                    and Apache Hudi 1.1+ write it; no reader verifies it)\n"
    "  --no-bloom        (write) no ROW Bloom filter\n"
    "  --no-mvcc         (write) no mvcc vlongs (KEY_VALUE_VERSION 0)\n"
    "  --tags            (write) cells carry tags (FileInfo hfile.MAX_TAGS_LEN)\n"
    "  --help            this text\n";

/* ---- dump -------------------------------------------------------------------------- */

static void jw_cell(cf_jw *w, const cf_hfile *h, const cf_hfile_cell *c, bool keys_only)
{
    const cf_hfile_info *in = cf_hfile_get_info(h);
    cf_jw_obj_begin(w);
    if (in->raw_keys) {
        cf_jw_key(w, "key");
        hf_jw_bytes(w, c->key);
    } else {
        hf_jw_key_members(w, c);
    }
    if (keys_only) {
        cf_jw_kv_uint(w, "value_len", c->value.len);
    } else {
        cf_jw_key(w, "value");
        hf_jw_bytes(w, c->value);
    }
    if (in->includes_mvcc)
        cf_jw_kv_uint(w, "mvcc", c->mvcc);
    if (in->includes_tags) {
        cf_jw_key(w, "tags");
        cf_jw_hex(w, c->tags.data, c->tags.len);
        if (c->tags.len) {
            cf_jw_key(w, "tag_list");
            hf_jw_tags(w, c->tags);
        }
    }
    cf_jw_obj_end(w);
}

static bool row_is(const cf_hfile *h, const cf_hfile_cell *c, const hf_opts *o)
{
    cf_slice r = cf_hfile_get_info(h)->raw_keys ? c->key : c->row;
    return r.len == o->row_len && (r.len == 0 || memcmp(r.data, o->row, r.len) == 0);
}

static int do_dump(cf_cli *c, cf_hfile *h, const hf_opts *o)
{
    cf_error e = {0};
    cf_hfile_iter *it = NULL;
    cf_status st = cf_hfile_iter_create(&it, h, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, "iterate", st, &e);
    if (o->has_row)
        st = cf_hfile_iter_seek_row(it, o->row, o->row_len, &e);
    cf_jw w;
    if (o->json) {
        hf_jw_begin(&w, c->out, o);
        hf_jw_version(&w, h);
        cf_jw_kv_uint(&w, "num_cells", cf_hfile_get_trailer(h)->entry_count);
        cf_jw_kv_arr_begin(&w, "cells");
    }
    uint64_t n = 0;
    while (st == CF_OK && n < o->limit) {
        cf_hfile_cell cell;
        bool has;
        st = cf_hfile_iter_next(it, &cell, &has, &e);
        if (st != CF_OK || !has)
            break;
        if (o->has_row && !row_is(h, &cell, o))
            break;
        n++;
        if (o->json) {
            jw_cell(&w, h, &cell, o->keys_only);
            continue;
        }
        fputs("K: ", c->out);
        hf_print_cell_key(c->out, h, &cell);
        fprintf(c->out, "/vlen=%zu/seqid=%" PRIu64, cell.value.len, cell.mvcc);
        if (!o->keys_only) {
            fputs(" V: ", c->out);
            hf_print_bytes(c->out, cell.value);
        }
        if (cell.tags.len && !hf_print_tags(c->out, cell.tags)) {
            fputs(" T: ", c->out);
            hf_print_bytes(c->out, cell.tags);
        }
        fputc('\n', c->out);
    }
    cf_hfile_iter_free(it);
    if (o->json) {
        cf_jw_arr_end(&w);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    }
    if (st != CF_OK)
        return cf_cli_lib_fail(c, "dump", st, &e);
    if (!o->json)
        fprintf(c->out, "Scanned kv count -> %" PRIu64 "\n", n);
    if (o->has_row && n == 0 && o->limit > 0) {
        fputs("cfile: no cell has row '", c->err);
        hf_print_bytes(c->err, (cf_slice){o->row, o->row_len});
        fputs("'\n", c->err);
        return CF_EXIT_FAIL;
    }
    return CF_EXIT_OK;
}

static int do_seek(cf_cli *c, cf_hfile *h, const hf_opts *o, const uint8_t *row, size_t len)
{
    bool json = o->json;
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
        hf_jw_begin(&w, c->out, o);
        cf_jw_kv_bool(&w, "exact", exact);
        cf_jw_key(&w, "lower_bound");
        if (has) {
            cf_jw_obj_begin(&w);
            cf_jw_kv_uint(&w, "cell_index", idx);
            cf_jw_key(&w, in->raw_keys ? "key" : "row");
            hf_jw_bytes(&w, got);
            cf_jw_key(&w, "value");
            hf_jw_bytes(&w, cell.value);
            cf_jw_obj_end(&w);
        } else {
            cf_jw_null(&w);
        }
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else if (has) {
        fprintf(c->out, "%s cell %" PRIu64 ": ", exact ? "found" : "next", idx);
        hf_print_key(c->out, h, cell.key);
        fputs(" V: ", c->out);
        hf_print_bytes(c->out, cell.value);
        fputc('\n', c->out);
    } else {
        fputs("past the last row\n", c->out);
    }
    cf_hfile_iter_free(it);
    return has ? CF_EXIT_OK : CF_EXIT_FAIL;
}

/* Blocks, and those of them whose checksum type is NULL (nothing to verify). */
static bool count_only(void *ctx, const cf_hfile_block_header *hdr)
{
    uint64_t *n = ctx;
    n[0]++;
    n[1] += hdr->header_size > 24 && hdr->checksum_type == 0;
    return true;
}

static int do_verify(cf_cli *c, cf_hfile *h, const hf_opts *o)
{
    bool json = o->json;
    cf_error e = {0};
    const cf_hfile_trailer *t = cf_hfile_get_trailer(h);
    const cf_hfile_info *in = cf_hfile_get_info(h);
    uint64_t counts[2] = {0, 0}, cells = 0;
    cf_status st = CF_OK;
    if (t->major >= 2)
        st = cf_hfile_walk_blocks(h, true, count_only, counts, &e);
    uint64_t blocks = counts[0], unchecked = counts[1];
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
        if (cells > 0 && order_ok && hf_key_cmp_prev(h, (cf_slice){prev, prev_len}, &cell) > 0) {
            order_ok = false;
            fprintf(c->err, "cfile: cell %" PRIu64 " sorts before its predecessor\n", cells);
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
        hf_jw_begin(&w, c->out, o);
        cf_jw_kv_bool(&w, "ok", ok);
        cf_jw_kv_uint(&w, "blocks", blocks);
        cf_jw_kv_uint(&w, "cells", cells);
        cf_jw_kv_bool(&w, "checksums_verified", in->checksums && unchecked == 0);
        cf_jw_kv_uint(&w, "null_checksum_blocks", unchecked);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        char ck[96] = "";
        if (in->checksums && unchecked == 0)
            snprintf(ck, sizeof(ck), ", all checksums verified");
        else if (in->checksums && unchecked == blocks)
            snprintf(ck, sizeof(ck), ", no checksums to verify (type NULL)");
        else if (in->checksums)
            snprintf(ck, sizeof(ck), ", checksums verified but for %" PRIu64 " blocks of type NULL",
                     unchecked);
        fprintf(c->out, "%s: %" PRIu64 " blocks, %" PRIu64 " cells%s\n", ok ? "OK" : "FAILED",
                blocks, cells, ck);
    }
    return ok ? CF_EXIT_OK : CF_EXIT_FAIL;
}

static const char *const per_file[] = {"meta", "info",  "blocks", "stats",
                                       "dump", "check", "verify", NULL};

static int run_one(cf_cli *c, const char *sub, cf_hfile *h, const hf_opts *o)
{
    if (strcmp(sub, "meta") == 0 || strcmp(sub, "info") == 0)
        return hf_do_meta(c, h, o);
    if (strcmp(sub, "blocks") == 0)
        return hf_do_blocks(c, h, o);
    if (strcmp(sub, "stats") == 0)
        return hf_do_stats(c, h, o);
    if (strcmp(sub, "dump") == 0)
        return do_dump(c, h, o);
    if (strcmp(sub, "check") == 0)
        return hf_do_check(c, h, o);
    return do_verify(c, h, o);
}

/* 1 (damage) outranks 3 (unsupported), which outranks 0. */
static int worse(int a, int b)
{
    if (a == CF_EXIT_FAIL || b == CF_EXIT_FAIL)
        return CF_EXIT_FAIL;
    return a != CF_EXIT_OK ? a : b;
}

int cf_cmd_hfile(cf_cli *c, int argc, char **argv)
{
    enum {
        O_ROW = 256,
        O_ROW_HEX,
        O_DETAILS,
        O_INDEX,
        O_HEADERS,
        O_BLOCK_SIZE,
        O_COMPRESSION,
        O_ENCODING,
        O_CHECKSUM,
        O_NO_BLOOM,
        O_NO_MVCC,
        O_TAGS,
        O_KEYS,
        O_LIMIT
    };
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"hex", required_argument, NULL, 'x'},
        {"keys", no_argument, NULL, O_KEYS},
        {"limit", required_argument, NULL, O_LIMIT},
        {"row", required_argument, NULL, O_ROW},
        {"row-hex", required_argument, NULL, O_ROW_HEX},
        {"details", no_argument, NULL, O_DETAILS},
        {"index", no_argument, NULL, O_INDEX},
        {"headers", no_argument, NULL, O_HEADERS},
        {"block-size", required_argument, NULL, O_BLOCK_SIZE},
        {"compression", required_argument, NULL, O_COMPRESSION},
        {"encoding", required_argument, NULL, O_ENCODING},
        {"checksum", required_argument, NULL, O_CHECKSUM},
        {"no-bloom", no_argument, NULL, O_NO_BLOOM},
        {"no-mvcc", no_argument, NULL, O_NO_MVCC},
        {"tags", no_argument, NULL, O_TAGS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    hf_opts o;
    memset(&o, 0, sizeof(o));
    o.limit = UINT64_MAX;
    const char *row_text = NULL, *row_hex = NULL;
    /* The options that belong to one subcommand, and which of them were given
     * (the last of each subcommand's), to refuse them elsewhere. */
    static const char *const subs[] = {"seek", "dump", "stats", "blocks", "write"};
    enum { S_SEEK, S_DUMP, S_STATS, S_BLOCKS, S_WRITE, NSUBS };
    static const struct {
        int ch;
        int sub;
        const char *name;
    } owned[] = {
        {'x', S_SEEK, "--hex"},
        {'n', S_DUMP, "--limit"},
        {O_LIMIT, S_DUMP, "--limit"},
        {O_KEYS, S_DUMP, "--keys"},
        {O_ROW, S_DUMP, "--row"},
        {O_ROW_HEX, S_DUMP, "--row-hex"},
        {O_DETAILS, S_STATS, "--details"},
        {O_INDEX, S_BLOCKS, "--index"},
        {O_HEADERS, S_BLOCKS, "--headers"},
        {O_BLOCK_SIZE, S_WRITE, "--block-size"},
        {O_COMPRESSION, S_WRITE, "--compression"},
        {O_ENCODING, S_WRITE, "--encoding"},
        {O_CHECKSUM, S_WRITE, "--checksum"},
        {O_NO_BLOOM, S_WRITE, "--no-bloom"},
        {O_NO_MVCC, S_WRITE, "--no-mvcc"},
        {O_TAGS, S_WRITE, "--tags"},
    };
    const char *given[NSUBS] = {NULL};
    int ch;
    while ((ch = getopt_long(argc, argv, "jx:n:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'j': o.json = true; break;
        case 'n':
        case O_LIMIT:
            if (cf_cli_parse_u64(optarg, &o.limit) != 0)
                return cf_cli_usage(c, "--limit: '%s' is not a cell count", optarg);
            break;
        case 'x': o.hex = optarg; break;
        case O_KEYS: o.keys_only = true; break;
        case O_ROW: row_text = optarg; break;
        case O_ROW_HEX: row_hex = optarg; break;
        case O_DETAILS: o.details = true; break;
        case O_INDEX: o.index_only = true; break;
        case O_HEADERS: o.headers_only = true; break;
        case O_BLOCK_SIZE: {
            uint64_t v;
            if (cf_cli_parse_u64(optarg, &v) != 0 || v == 0 || v > (1u << 30))
                return cf_cli_usage(c, "--block-size: not a size in 1..2^30: %s", optarg);
            o.block_size = (uint32_t)v;
            break;
        }
        case O_COMPRESSION: o.compression = optarg; break;
        case O_ENCODING: o.encoding = optarg; break;
        case O_CHECKSUM: o.checksum = optarg; break;
        case O_NO_BLOOM: o.no_bloom = true; break;
        case O_NO_MVCC: o.no_mvcc = true; break;
        case O_TAGS: o.tags = true; break;
        case 'h': return cf_cli_help(c);
        default: return cf_cli_bad_option(c, argv);
        }
        for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++)
            if (owned[i].ch == ch)
                given[owned[i].sub] = owned[i].name;
    }
    if (optind >= argc)
        return cf_cli_usage(c, "missing subcommand (meta, blocks, stats, dump, check, verify, "
                               "seek, bloom, write)");
    const char *sub = argv[optind++];
    bool is_seek = strcmp(sub, "seek") == 0, known = is_seek;
    for (int i = 0; per_file[i]; i++)
        known |= strcmp(sub, per_file[i]) == 0;
    known |= strcmp(sub, "bloom") == 0 || strcmp(sub, "write") == 0;
    if (!known)
        return cf_cli_usage(c, "unknown subcommand '%s'", sub);
    const char *stray = NULL;
    for (int i = 0; i < NSUBS && stray == NULL; i++)
        if (given[i] && strcmp(sub, subs[i]) != 0)
            stray = given[i];
    if (stray)
        return cf_cli_usage(c, "%s does not apply to '%s'", stray, sub);
    if (o.index_only && o.headers_only)
        return cf_cli_usage(c, "--index and --headers exclude each other");
    if (row_text && row_hex)
        return cf_cli_usage(c, "--row and --row-hex exclude each other");
    if (strcmp(sub, "bloom") == 0)
        return hf_do_bloom(c, &o, argc - optind, argv + optind);
    if (strcmp(sub, "write") == 0)
        return hf_do_write(c, &o, argc - optind, argv + optind);
    if (optind >= argc)
        return cf_cli_usage(c, "missing FILE");
    uint8_t *row = NULL;
    size_t row_len = 0;
    if (row_hex && hf_unhex(row_hex, &row, &row_len) != 0)
        return cf_cli_usage(c, "--row-hex: not hex: %s", row_hex);
    if (row_text) {
        row_len = strlen(row_text);
        row = malloc(row_len + 1);
        if (!row)
            return cf_cli_fail(c, "out of memory");
        memcpy(row, row_text, row_len + 1);
    }
    if (row) {
        o.row = row;
        o.row_len = row_len;
        o.has_row = true;
    }
    int nfiles = argc - optind;
    if (is_seek) {
        const char *path = argv[optind++];
        if (o.hex != NULL) {
            if (hf_unhex(o.hex, &row, &row_len) != 0)
                return cf_cli_usage(c, "--hex: not hex: %s", o.hex);
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
        if (optind < argc) {
            free(row);
            return cf_cli_usage(c, "unexpected argument '%s'", argv[optind]);
        }
        cf_error e = {0};
        cf_hfile *h = NULL;
        cf_status st = cf_hfile_open_file(&h, path, NULL, &e);
        int rc = st != CF_OK ? cf_cli_lib_fail(c, path, st, &e)
                             : do_seek(c, h, &o, row ? row : (const uint8_t *)"", row_len);
        free(row);
        cf_hfile_free(h);
        return rc;
    }
    int rc = CF_EXIT_OK;
    for (int i = optind; i < argc; i++) {
        const char *path = argv[i];
        if (nfiles > 1) {
            o.file_key = path;
            if (!o.json)
                fprintf(c->out, "%sScanning -> %s\n", i > optind ? "\n" : "", path);
        }
        cf_error e = {0};
        cf_hfile *h = NULL;
        cf_status st = cf_hfile_open_file(&h, path, NULL, &e);
        int r = st != CF_OK ? cf_cli_lib_fail(c, path, st, &e) : run_one(c, sub, h, &o);
        cf_hfile_free(h);
        rc = worse(rc, r);
    }
    free(row);
    return rc;
}
