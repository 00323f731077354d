/* cfile verify: check every checksum and decode every block of each file, and
 * say exactly which blocks (and so which rows) are damaged.
 *
 * The work is cf_reader_verify's; this file only reports. Intact files print
 * one line; a damaged file prints a line per damaged block with its offset and
 * row range, then which rows are readable.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/bloom.h>

#include "cli.h"

const char cf_cmd_verify_usage[] =
    "usage: cfile verify [--json] FILE...\n"
    "\n"
    "Check each FILE: header and footer, every checksum, every index block of both\n"
    "B-trees, and every data block decoded row by row. Prints `FILE: ok (N rows,\n"
    "B data blocks, I index blocks)` for a good file. For a damaged file, each\n"
    "damaged block is named with its kind, file offset and the rows it holds, and\n"
    "the intact blocks are still counted, so you can tell exactly which rows are lost.\n"
    "A BloomFile (as `cfile info` names it) is checked as one: its value index and\n"
    "every bloom block (checksum and header), printing `FILE: ok (BloomFile: N bloom\n"
    "blocks, I index blocks)`.\n"
    "Exit status 1 if any file is damaged or unreadable, 3 if one uses a feature\n"
    "this build does not support.\n"
    "\n"
    "  --json   one JSON object per file: {\"file\", \"ok\", \"kind\" (CFile or BloomFile),\n"
    "           \"rows\", \"data_blocks\", \"index_blocks\", \"bloom_blocks\" (BloomFiles),\n"
    "           \"damaged\": [{\"kind\", \"offset\", \"size\", \"first_ordinal\", \"rows\",\n"
    "           \"error\"}]}\n"
    "  --help   this text\n";

typedef struct damage {
    const char *kind;
    uint64_t off, first, rows;
    uint32_t size;
    char msg[256];
} damage;

typedef struct tally {
    uint64_t rows;
    size_t data_blocks, index_blocks, bloom_blocks;
    damage *bad;
    size_t nbad, cap;
    bool oom;
} tally;

static void on_block(void *ctx, const cf_block_report *rep)
{
    tally *t = ctx;
    bool data = strcmp(rep->kind, "data block") == 0;
    if (data)
        t->data_blocks++;
    else if (strcmp(rep->kind, "bloom block") == 0)
        t->bloom_blocks++;
    else if (strstr(rep->kind, "index") != NULL)
        t->index_blocks++;
    if (rep->status == CF_OK) {
        if (data)
            t->rows += rep->rows;
        return;
    }
    if (t->nbad == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 8;
        damage *d = realloc(t->bad, cap * sizeof *d);
        if (d == NULL) {
            t->oom = true;
            return;
        }
        t->bad = d;
        t->cap = cap;
    }
    damage *d = &t->bad[t->nbad++];
    d->kind = rep->kind;
    d->off = rep->off;
    d->size = rep->size;
    d->first = rep->first_ord;
    d->rows = rep->rows;
    snprintf(d->msg, sizeof d->msg, "%s", rep->msg ? rep->msg : cf_status_str(rep->status));
}

static void print_json(cf_cli *c, const char *path, cf_status st, const cf_error *err,
                       const tally *t, bool bloom)
{
    cf_jw w;
    cf_jw_init(&w, c->out);
    cf_jw_obj_begin(&w);
    cf_jw_kv_cstr(&w, "file", path);
    cf_jw_kv_bool(&w, "ok", st == CF_OK);
    if (t == NULL) { /* the file did not open */
        cf_jw_kv_cstr(&w, "error", err->msg);
    } else {
        cf_jw_kv_cstr(&w, "kind", bloom ? "BloomFile" : "CFile");
        cf_jw_kv_uint(&w, "rows", t->rows);
        cf_jw_kv_uint(&w, "data_blocks", t->data_blocks);
        cf_jw_kv_uint(&w, "index_blocks", t->index_blocks);
        if (bloom)
            cf_jw_kv_uint(&w, "bloom_blocks", t->bloom_blocks);
        cf_jw_kv_arr_begin(&w, "damaged");
        for (size_t i = 0; i < t->nbad; i++) {
            const damage *d = &t->bad[i];
            cf_jw_obj_begin(&w);
            cf_jw_kv_cstr(&w, "kind", d->kind);
            cf_jw_kv_uint(&w, "offset", d->off);
            cf_jw_kv_uint(&w, "size", d->size);
            cf_jw_kv_uint(&w, "first_ordinal", d->first);
            cf_jw_kv_uint(&w, "rows", d->rows);
            cf_jw_kv_cstr(&w, "error", d->msg);
            cf_jw_obj_end(&w);
        }
        cf_jw_arr_end(&w);
    }
    cf_jw_obj_end(&w);
    cf_jw_newline(&w);
}

static void print_human(cf_cli *c, const char *path, const cf_file_info *fi, const tally *t)
{
    if (t->nbad == 0 && cf_bloom_is_bloom_file(fi)) {
        fprintf(c->out, "%s: ok (BloomFile: %zu bloom block%s, %zu index block%s)\n", path,
                t->bloom_blocks, t->bloom_blocks == 1 ? "" : "s", t->index_blocks,
                t->index_blocks == 1 ? "" : "s");
        return;
    }
    if (t->nbad == 0) {
        fprintf(c->out, "%s: ok (%" PRIu64 " rows, %zu data block%s, %zu index block%s)\n", path,
                t->rows, t->data_blocks, t->data_blocks == 1 ? "" : "s", t->index_blocks,
                t->index_blocks == 1 ? "" : "s");
        return;
    }
    for (size_t i = 0; i < t->nbad; i++) {
        const damage *d = &t->bad[i];
        if (strcmp(d->kind, "data block") == 0 && d->rows > 0)
            fprintf(c->out,
                    "%s: DAMAGED data block at offset %" PRIu64 " (rows %" PRIu64 "..%" PRIu64
                    "): %s\n",
                    path, d->off, d->first, d->first + d->rows - 1, d->msg);
        else if (strcmp(d->kind, "data block") == 0)
            fprintf(c->out,
                    "%s: DAMAGED data block at offset %" PRIu64 " (from row %" PRIu64 "): %s\n",
                    path, d->off, d->first, d->msg);
        else
            fprintf(c->out, "%s: DAMAGED %s at offset %" PRIu64 ": %s\n", path, d->kind, d->off,
                    d->msg);
    }
    fprintf(c->out,
            "%s: %zu damaged block%s; %" PRIu64 " of %" PRIu64
            " rows are in intact data blocks (%zu intact)\n",
            path, t->nbad, t->nbad == 1 ? "" : "s", t->rows, fi->num_values,
            t->data_blocks - (t->nbad > t->data_blocks ? t->data_blocks : t->nbad));
}

int cf_cmd_verify(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bool json = false;
    int ch;
    while ((ch = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
        switch (ch) {
        case 'j': json = true; break;
        case 'h': return cf_cli_help(c);
        default: return cf_cli_bad_option(c, argv);
        }
    }
    if (argc - optind < 1)
        return cf_cli_usage(c, "expected at least one FILE");
    int rc = CF_EXIT_OK;
    for (int i = optind; i < argc; i++) {
        const char *path = argv[i];
        cf_error err = {0};
        cf_reader *r = NULL;
        cf_status st = cf_cli_open(&r, path, &err);
        if (st != CF_OK) {
            if (json)
                print_json(c, path, st, &err, NULL, false);
            int frc = cf_cli_lib_fail(c, path, st, &err);
            if (frc == CF_EXIT_FAIL || rc == CF_EXIT_OK)
                rc = frc;
            continue;
        }
        tally t = {0};
        bool bloom = cf_bloom_is_bloom_file(cf_reader_info(r));
        st = cf_cli_verify(r, on_block, &t, NULL, &err);
        if (st == CF_OK && t.oom)
            st = CF_ENOMEM;
        if (json)
            print_json(c, path, st, &err, &t, bloom);
        else
            print_human(c, path, cf_reader_info(r), &t);
        if (st != CF_OK) {
            int frc = st == CF_ENOTSUP ? CF_EXIT_NOTSUP : CF_EXIT_FAIL;
            if (t.nbad == 0) /* a failure not tied to a block: say it */
                cf_cli_lib_fail(c, path, st, &err);
            else
                fprintf(c->err, "cfile: %s: %zu damaged block%s\n", path, t.nbad,
                        t.nbad == 1 ? "" : "s");
            if (frc == CF_EXIT_FAIL || rc == CF_EXIT_OK)
                rc = frc;
        }
        free(t.bad);
        cf_reader_free(r);
    }
    return rc;
}
