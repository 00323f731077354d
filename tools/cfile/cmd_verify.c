/* cfile verify: read everything a file holds, checking it as we go.
 *
 * Through the public API alone: open (header, footer, their checksums, feature
 * flags), read every row in order (every data block: checksum, decompression,
 * decoding, ordinals), then seek to the first row of every block through the
 * positional index and, when there is one, to the first value of every block
 * through the value index, so every index level that leads to a block is read.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "values.h"

const char cf_cmd_verify_usage[] =
    "usage: cfile verify FILE...\n"
    "\n"
    "Check each FILE: header and footer, every checksum, every data block decoded\n"
    "row by row, and the positional and value indexes walked to every block.\n"
    "Prints `FILE: ok (N rows, B blocks)` for a good file; for a damaged one the\n"
    "error names the block and its file offset. Exit status 1 if any file is damaged\n"
    "or unreadable, 3 if one uses a feature this build does not support.\n"
    "\n"
    "  --help   this text\n";

typedef struct block_start {
    uint64_t ord;
    _Alignas(16) uint8_t key[32]; /* first value, for the value index */
    bool key_null;
} block_start;

static bool bit(const uint8_t *bm, size_t i) { return (bm[i >> 3] >> (i & 7)) & 1; }

static cf_status verify_one(const char *path, uint64_t *rows_out, size_t *blocks_out,
                            cf_error *err)
{
    cf_reader *r = NULL;
    cf_iter *it = NULL;
    block_start *starts = NULL;
    size_t nstarts = 0, cap = 0;
    cf_arena arena;
    cf_arena_init(&arena);
    cf_status st = cf_cli_open(&r, path, err);
    if (st != CF_OK)
        goto out;
    const cf_file_info *in = cf_reader_info(r);
    size_t width = cf_type_size(in->type);
    st = cf_iter_create(&it, r, err);
    if (st == CF_OK)
        st = cf_iter_seek_to_first(it, err);
    uint64_t rows = 0;
    /* Asking for everything that is left makes each batch exactly one block: the
     * iterator never crosses a block boundary within a batch. */
    while (st == CF_OK) {
        cf_batch b;
        uint64_t left = in->num_values - rows;
        size_t want = left > (1u << 30) ? (1u << 30) : (size_t)left;
        if (want == 0)
            want = 1; /* must see the end */
        st = cf_iter_next_batch(it, want, &b, err);
        if (st != CF_OK || b.count == 0)
            break;
        if (b.first_ord != rows || b.count > left) {
            st = CF_ECORRUPT;
            if (err) {
                err->code = st;
                snprintf(err->msg, sizeof(err->msg),
                         "rows %" PRIu64 "..%" PRIu64 " returned where row %" PRIu64
                         " was due (file claims %" PRIu64 " rows)",
                         b.first_ord, b.first_ord + b.count, rows, in->num_values);
            }
            break;
        }
        if (nstarts == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            block_start *n = realloc(starts, ncap * sizeof(*n));
            if (n == NULL) {
                st = CF_ENOMEM;
                break;
            }
            starts = n;
            cap = ncap;
        }
        block_start *s = &starts[nstarts++];
        memset(s, 0, sizeof(*s));
        s->ord = b.first_ord;
        s->key_null = in->is_array || (b.nonnull != NULL && !bit(b.nonnull, 0));
        if (in->has_validx && !s->key_null) {
            memcpy(s->key, b.values, width);
            if (cf_type_is_binary(in->type)) {
                cf_slice v;
                memcpy(&v, s->key, sizeof(v));
                uint8_t *copy = cf_arena_alloc(&arena, v.len);
                if (copy == NULL) {
                    st = CF_ENOMEM;
                    break;
                }
                if (v.len)
                    memcpy(copy, v.data, v.len);
                v.data = copy;
                memcpy(s->key, &v, sizeof(v));
            }
        }
        rows += b.count;
    }
    if (st == CF_OK && rows != in->num_values) {
        st = CF_ECORRUPT;
        if (err) {
            err->code = st;
            snprintf(err->msg, sizeof(err->msg),
                     "the data blocks hold %" PRIu64 " rows, the footer claims %" PRIu64, rows,
                     in->num_values);
        }
    }
    for (size_t i = 0; st == CF_OK && in->has_posidx && i < nstarts; i++) {
        st = cf_iter_seek_to_ordinal(it, starts[i].ord, err);
        if (st == CF_OK && cf_iter_current_ordinal(it) != starts[i].ord) {
            st = CF_ECORRUPT;
            if (err) {
                err->code = st;
                snprintf(err->msg, sizeof(err->msg),
                         "positional index: seek to row %" PRIu64 " landed at row %" PRIu64,
                         starts[i].ord, cf_iter_current_ordinal(it));
            }
        }
    }
    for (size_t i = 0; st == CF_OK && in->has_validx && i < nstarts; i++) {
        if (starts[i].key_null)
            continue;
        bool exact = false;
        st = cf_iter_seek_at_or_after(it, starts[i].key, &exact, err);
        /* Duplicates may begin in an earlier block, so landing before is fine. */
        if (st == CF_OK && (!exact || cf_iter_current_ordinal(it) > starts[i].ord)) {
            st = CF_ECORRUPT;
            if (err) {
                err->code = st;
                snprintf(err->msg, sizeof(err->msg),
                         "value index: the first value of the block at row %" PRIu64
                         " is not found there (landed at row %" PRIu64 ", exact %d)",
                         starts[i].ord, cf_iter_current_ordinal(it), (int)exact);
            }
        } else if (st == CF_ENOTFOUND) {
            st = CF_ECORRUPT;
            if (err) {
                err->code = st;
                snprintf(err->msg, sizeof(err->msg),
                         "value index: the first value of the block at row %" PRIu64
                         " is not found",
                         starts[i].ord);
            }
        }
    }
    *rows_out = rows;
    *blocks_out = nstarts;
out:
    if (st == CF_ENOMEM && err != NULL && err->msg[0] == '\0')
        snprintf(err->msg, sizeof(err->msg), "out of memory");
    free(starts);
    cf_iter_free(it);
    cf_reader_free(r);
    cf_arena_dispose(&arena);
    return st;
}

int cf_cmd_verify(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int ch;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 'h': return cf_cli_help(c);
        default: return cf_cli_bad_option(c, argv);
        }
    }
    if (argc - optind < 1)
        return cf_cli_usage(c, "expected at least one FILE");
    int rc = CF_EXIT_OK;
    for (int i = optind; i < argc; i++) {
        cf_error err = {0};
        uint64_t rows = 0;
        size_t blocks = 0;
        cf_status st = verify_one(argv[i], &rows, &blocks, &err);
        if (st == CF_OK) {
            fprintf(c->out, "%s: ok (%" PRIu64 " rows, %zu block%s)\n", argv[i], rows, blocks,
                    blocks == 1 ? "" : "s");
            continue;
        }
        int frc = cf_cli_lib_fail(c, argv[i], st, &err);
        if (frc == CF_EXIT_FAIL || rc == CF_EXIT_OK)
            rc = frc;
    }
    return rc;
}
