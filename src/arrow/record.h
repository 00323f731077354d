/* Internal: record-batch streams (include/cfile/arrow.h "streams").
 *
 *   node.c     schema and array nodes owning their strings, buffers and children
 *   column.c   a column builder: values appended from cf_batch pieces or one by one,
 *              then handed over as one ArrowArray (and its schema)
 *   stream.c   the ArrowArrayStream over a source of record batches
 *   cfiles.c, table.c, hfile.c   the sources
 */
#ifndef CF_ARROW_RECORD_H
#define CF_ARROW_RECORD_H

#include <cfile/arrow.h>
#include <cfile/iter.h>

#include "cfile/arrow_internal.h"
#include "util/buf.h"

/* ---- nodes ------------------------------------------------------------------------------ */

/* A schema node: format and name copied, `n_children` zeroed children it owns
 * (released with it unless moved out). */
cf_status cf_arrow_schema_new(struct ArrowSchema *out, const char *format, const char *name,
                              int64_t flags, int64_t n_children, cf_error *err);
/* A deep copy of a schema this module made (no dictionary, no metadata). */
cf_status cf_arrow_schema_copy(struct ArrowSchema *out, const struct ArrowSchema *s, cf_error *err);
/* The errno an ArrowArrayStream callback returns for a status (0 for CF_OK):
 * the one mapping every stream of this module uses. */
int cf_arrow_errno(cf_status st);
/* An array node with n_buffers NULL buffer slots and n_children zeroed children;
 * cf_arrow_array_own hands it a cf_malloc'd buffer (freed with it). */
cf_status cf_arrow_array_new(struct ArrowArray *out, int64_t length, int64_t n_buffers,
                             int64_t n_children, cf_error *err);
void cf_arrow_array_own(struct ArrowArray *a, int slot, void *buf);

/* ---- column builder ---------------------------------------------------------------------- */

typedef struct cf_arrow_col {
    cf_type type; /* element type for arrays */
    bool is_array, nullable;
    bool binary;     /* values are offsets + bytes */
    bool large;      /* int64 offsets */
    bool check_utf8; /* validate each value (STRING/VARCHAR, CF_ARROW_UTF8_CHECK) */
    char *name;
    cf_arrow_options o; /* with this column's decimal precision and scale */
    size_t count, nulls;
    cf_buf validity;           /* bit per row, LSB-first */
    cf_buf values;             /* fixed width values, bits for BOOL, or offsets (binary, list) */
    cf_buf bytes;              /* binary data */
    struct cf_arrow_col *elem; /* arrays: the element builder */
} cf_arrow_col;

/* o is copied (its batch_rows etc. unused here). precision/scale 0 = o's. */
cf_status cf_arrow_col_init(cf_arrow_col *c, const char *name, cf_type type, bool is_array,
                            bool nullable, int precision, int scale, const cf_arrow_options *o,
                            cf_error *err);
void cf_arrow_col_dispose(cf_arrow_col *c);
/* The column's schema node. */
cf_status cf_arrow_col_schema(const cf_arrow_col *c, struct ArrowSchema *out, cf_error *err);
/* Append rows [from, from + n) of b (iter.h's form; arrays take their cells'
 * elements). row0 = the stream row of b's row 0 (for error messages). */
cf_status cf_arrow_col_append(cf_arrow_col *c, const cf_batch *b, size_t from, size_t n,
                              uint64_t row0, cf_error *err);
/* Append one value in memory form (cf_slice for binary types); NULL = a NULL. */
cf_status cf_arrow_col_append_one(cf_arrow_col *c, const void *value, uint64_t row, cf_error *err);
/* Hand the rows appended so far over as one array (moved into *out) and start over. */
cf_status cf_arrow_col_finish(cf_arrow_col *c, struct ArrowArray *out, cf_error *err);

/* ---- streams ------------------------------------------------------------------------------ */

/* A source of record batches: the columns in cols[0..ncols), filled by fill()
 * with up to `rows` rows (fewer only at the end: 0 = the end). */
typedef struct cf_arrow_source {
    cf_status (*fill)(void *ctx, cf_arrow_col *cols, size_t rows, size_t *got, cf_error *err);
    void (*free)(void *ctx);
    void *ctx;
} cf_arrow_source;

/* The stream over src and its columns (cols, ncols: initialized builders, taken
 * over with src, also on failure). */
cf_status cf_arrow_stream_make(struct ArrowArrayStream *out, cf_arrow_source src,
                               cf_arrow_col *cols, size_t ncols, const cf_arrow_options *o,
                               cf_error *err);
/* Free src and the column array cols, of which cols[0..made) were initialized:
 * what a stream's maker does when it fails before cf_arrow_stream_make. */
void cf_arrow_source_drop(cf_arrow_source src, cf_arrow_col *cols, size_t made);

/* ---- the stream contract shared by every stream ------------------------------------------ */

/* What the ArrowArrayStream callbacks need beyond the source: the schema
 * (copied for each get_schema), the first failure's errno (then final) and its
 * message (get_last_error). Each stream's private data begins with it, so the
 * callbacks below serve them all. */
typedef struct cf_arrow_stream_state {
    struct ArrowSchema schema;
    int failed;
    char msg[320];
} cf_arrow_stream_state;

/* Record a get_next failure: it sticks, and its message is the last error. */
int cf_arrow_stream_fail(cf_arrow_stream_state *st, cf_status status, const cf_error *err);
/* get_schema and get_last_error for a stream whose private data begins with
 * a cf_arrow_stream_state. */
int cf_arrow_stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out);
const char *cf_arrow_stream_last_error(struct ArrowArrayStream *s);
/* Fill out's callbacks (get_schema and get_last_error the shared ones above)
 * for the private data p; returns CF_OK. */
cf_status cf_arrow_stream_publish(struct ArrowArrayStream *out,
                                  int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *),
                                  void (*release)(struct ArrowArrayStream *), void *p);

#endif
