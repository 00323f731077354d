/* Internal: the record reader's parts (include/cfile/parquet.h "record
 * assembly"), shared by the three files that make it:
 *   assemble.c         the field tree, building a batch's arrays from the
 *                      leaves, and the public calls (open, next, free);
 *   records_leaf.c     one leaf column's buffered levels and values: filled
 *                      from its chunk's pages, cut into batches, dropped;
 *   records_threads.c  the worker team: a batch's leaves filled and fields
 *                      built in parallel, or whole row groups decoded ahead.
 * Nothing outside them sees these structures. */
#ifndef CF_PARQUET_RECORDS_H
#define CF_PARQUET_RECORDS_H

#include "internal.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/team.h>

/* One field of the tree: the public array plus what assembly needs. */
typedef struct field {
    cf_parquet_array a; /* first member: &field->a is the public view */
    uint16_t valid_def, elem_def, elem_rep;
    uint32_t rep_leaf; /* index into r->leaves */
    struct field **kids;
    /* Owned buffers behind the array's const pointers. */
    uint8_t *validity;
    size_t validity_cap;
    int32_t *offsets;
    size_t offsets_cap;
    uint8_t *values;
    size_t values_cap;
} field;

/* One leaf column's buffered levels and values, for one row group at a time.
 * The arrays below are views: a batch taken from the front advances them
 * (lh entries and vh values past the start of their allocations) rather than
 * moving what is left, so a leaf holding a whole row group hands out each
 * batch in place; the next fill moves the rest to the front first. */
typedef struct leaf {
    uint32_t column;
    uint32_t rg; /* the row group being read (for errors and metadata) */
    const cf_parquet_column *col;
    bool is_bytes;        /* BYTE_ARRAY */
    bool flat;            /* max_rep 0: every entry starts a row, `rep` is
                           * never filled (all zeros) */
    size_t vsize;         /* value form size (cf_slice for BYTE_ARRAY) */
    uint16_t rep_def[64]; /* def level of the r-th repeated ancestor (r = 1..) */
    cf_parquet_column_reader *rd;
    bool eof;
    uint64_t levels_total; /* entries read from this chunk */
    uint16_t last_def;     /* def level of the chunk's last entry so far */
    uint64_t rows_total;   /* row starts taken from this chunk */
    uint16_t *def, *rep;
    size_t n, level_cap;
    size_t starts; /* rows starting in [0, n) */
    /* Dense non-null values: fixed-size forms, or for BYTE_ARRAY the bytes
     * with voff[i]..voff[i+1] per value (offsets into `bytes`, which never
     * moves while a batch is out). */
    uint8_t *vals;
    size_t nv, vals_cap;
    size_t *voff;
    size_t voff_cap;
    uint8_t *bytes;
    size_t bytes_len, bytes_cap;
    size_t lh, vh; /* entries and values taken since the last fill */
    /* Per batch: entries and values it takes, and the walk's cursor. */
    size_t cut, cut_values;
    size_t vcur;
    /* Scratch for one read. */
    cf_slice *scratch;
} leaf;

/* A set of leaves holding one row group: the current one, or one decoded
 * ahead by the team (records_threads.c). */
typedef struct rg_slot {
    leaf *leaves; /* leaf_count of them */
    int64_t rg;   /* the row group held or being decoded; -1: free */
    uint64_t run; /* the team run decoding it (ahead slots) */
    bool failed;  /* a decode job failed: read it again in batches */
} rg_slot;

struct cf_parquet_records {
    const cf_parquet *pq;
    cf_parquet_records_options o;
    field *root;
    field *top; /* the batch's STRUCT: root with the chosen fields */
    uint32_t leaf_count;
    leaf *leaves; /* the current slot's */
    uint32_t rg;  /* current row group */
    bool rg_open;
    int64_t rg_first_row; /* file row of the row group's first row */
    int64_t rg_rows_done; /* rows of the row group handed out (or skipped) */
    uint32_t batch_rg;
    int64_t batch_first_row;
    uint64_t pages_read;
    bool done;
    /* Every field, to free. */
    field **all;
    uint32_t all_count;
    size_t all_cap;
    /* Slots: one without threads or when the leaves share a batch's work;
     * more when row groups are decoded ahead (records_threads.c). */
    rg_slot *slots;
    uint32_t nslots, cur_slot;
    /* threads > 1: the team, and its jobs' statuses and errors. */
    cf_team *team;
    bool ahead;       /* row groups decoded ahead (else a batch's leaves) */
    size_t njobs_cap; /* jst/jerr/jobs entries */
    cf_status *jst;
    cf_error *jerr;
    /* Ahead: the slots the open run decodes, job i being leaf i % leaf_count
     * of slot posted[i / leaf_count]. */
    uint32_t *posted;
    uint32_t nposted;
    bool run_open;       /* an ahead run is posted and not yet finished */
    uint64_t run_ticket; /* its ticket */
    uint32_t ahead_next; /* the next row group to consider decoding ahead */
    size_t fill_want;    /* rows the fill jobs read towards */
    size_t workers;      /* the team's threads besides the caller */
    int64_t *rg_first;   /* ahead: each row group's first row in the file */
    atomic_bool stop;    /* freeing: ahead jobs not yet started do nothing */
};

#define LEAF_WHERE "row group %" PRIu32 " column %" PRIu32 " (%.*s)"
#define LEAF_ARGS(l)                                                                               \
    (l)->rg, (l)->column, (int)(l)->col->leaf->element->name.len,                                  \
        (const char *)(l)->col->leaf->element->name.data

cf_status cf_pq_rec_oom(cf_error *err);
/* Grow *p (elements of `elem` bytes, *cap of them) to hold n. */
cf_status cf_pq_rec_grow(void **p, size_t *cap, size_t n, size_t elem, cf_error *err);

/* ---- records_leaf.c ---- */
cf_status cf_pq_leaf_init(leaf *l, const cf_parquet *pq, uint32_t column, cf_error *err);
/* Start reading row group rg of the leaf's column. */
cf_status cf_pq_leaf_open(leaf *l, const cf_parquet *pq, uint32_t rg, cf_error *err);
/* Forget the row group (its pages read are added to *pages_read). */
void cf_pq_leaf_reset(leaf *l, uint64_t *pages_read);
void cf_pq_leaf_dispose(leaf *l);
/* Read until the leaf holds `want` rows or its chunk ends (SIZE_MAX: the
 * whole chunk). */
cf_status cf_pq_leaf_fill_to(const cf_parquet_records *r, leaf *l, size_t want, cf_error *err);
/* Take a batch of at most `rows` rows: everything before the (rows + 1)-th
 * row start; *rows_out: the rows it holds. */
void cf_pq_leaf_cut(leaf *l, size_t rows, size_t *rows_out);
/* Drop the batch's entries from the front. */
void cf_pq_leaf_compact(leaf *l, size_t rows);
/* Start the open row group at its row `target` (offset index, then drops). */
cf_status cf_pq_leaves_skip_to(cf_parquet_records *r, int64_t target, cf_error *err);

/* ---- records_threads.c ---- */
/* Make the slots and their leaves (of columns `cols`), decide how the
 * threads are used and start the team (threads > 1). */
cf_status cf_pq_rec_start_threads(cf_parquet_records *r, const uint32_t *cols, cf_error *err);
/* Stop the team and free the slots. */
void cf_pq_rec_stop_threads(cf_parquet_records *r);
/* Make row group r->rg current: its slot decoded ahead (*ready true), or a
 * free slot whose leaves the caller opens and fills in batches. */
cf_status cf_pq_rec_take_row_group(cf_parquet_records *r, bool *ready, cf_error *err);
/* Post the decoding of the next row groups into the free slots, when no run
 * is still open. */
void cf_pq_rec_post_ahead(cf_parquet_records *r);
/* Every leaf of the current slot holds `want` rows, or its chunk ended. */
cf_status cf_pq_rec_fill_leaves(cf_parquet_records *r, size_t want, cf_error *err);
/* Build every top-level field of a batch of `rows` rows. */
cf_status cf_pq_rec_build_fields(cf_parquet_records *r, size_t rows, cf_error *err);

/* ---- assemble.c ---- */
/* Build top-level field k of the batch (rows long). */
cf_status cf_pq_rec_build_top(cf_parquet_records *r, uint32_t k, size_t rows, cf_error *err);

#endif
