/* `cfile info --blocks` (cmd_info.c): every block of a CFile as verify reports
 * it, with the value statistics of each data block read again, as a table, as
 * JSON and as the blocks of the --svg picture.
 *
 * Call order: cf_cli_verify(..., cf_blocks_collect, &list, ...), qsort by
 * cf_blocks_by_offset, cf_blocks_gather_stats, then print; cf_blk_list_dispose.
 */
#ifndef CF_CLI_INFO_BLOCKS_H
#define CF_CLI_INFO_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cfile/cfile.h>

#include "blockstats.h"
#include "json.h"

typedef struct cf_blk {
    const char *kind; /* a string literal of the library's */
    uint64_t off, first_ord, rows;
    uint32_t size, logical_size;
    int dict_mode;
    cf_status status;
    char *msg; /* owned; NULL when intact */
    /* Added to the library's report: */
    uint32_t index_entries; /* index blocks: entries */
    unsigned index_level;   /* index blocks: depth below the root (0) */
    size_t seq;             /* the order verify reported it (a pre-order walk per tree) */
    cf_cli_bstats *st;      /* data blocks: value statistics; NULL when not read */
    uint64_t distinct;      /* DICT data blocks (st->want_distinct) */
} cf_blk;

typedef struct cf_blk_list {
    cf_blk *v;
    size_t n, cap;
    bool oom;
} cf_blk_list;

/* cf_verify_fn: add the reported block to the cf_blk_list ctx (oom set when
 * out of memory). */
void cf_blocks_collect(void *ctx, const cf_block_report *rep);
void cf_blk_list_dispose(cf_blk_list *l);
/* qsort order of cf_blk by file offset. */
int cf_blocks_by_offset(const void *a, const void *b);
/* Read every intact data block's rows again, through an iterator, and gather their
 * statistics. Blocks must be in file order. */
cf_status cf_blocks_gather_stats(const cf_reader *r, cf_blk_list *l, cf_error *err);
/* A block's min (max when max) value form as text, cut to cap characters. */
void cf_blocks_value_cell(char *out, size_t cap, const cf_cli_bstats *s, bool max);
/* "blocks" and "block_totals" members. */
void cf_blocks_json(cf_jw *w, const cf_blk_list *l);
/* The block table. */
void cf_blocks_text(FILE *out, bool color, const cf_blk_list *l);
/* The bytes no block accounts for: the header and the footer. */
void cf_blocks_framing_line(FILE *out, const cf_reader *r, const cf_blk_list *l);

#endif
