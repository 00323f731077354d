/* RowOperationsPB rows (common/row_operations.proto), decoded as Kudu's
 * RowOperationsPBDecoder decodes a WriteRequestPB on the tablet server
 * (common/row_operations.cc) and encoded as its client-side
 * RowOperationsPBEncoder writes them.
 *
 * `rows` is a sequence of ops, each: one type byte; an "isset" bitmap of the
 * client schema's columns (ceil(n/8) bytes, bit i = byte i/8, bit i%8); when the
 * client schema has a nullable column, a NULL bitmap of the same size (bit set =
 * NULL); then, for each column that is set and not NULL, its value: fixed-size
 * types as their little-endian cell bytes (BOOL 1 byte, INT128/DECIMAL128 16),
 * STRING/BINARY/VARCHAR and array cells as a 64-bit Slice, {fixed64 offset into
 * indirect_data, fixed64 length}. An array cell's bytes are the FlatBuffers
 * `Content` table of common/serdes/array1d.fbs (the form RowChangeLists carry,
 * src/delta/array_cell.c); the decoder verifies them (GetColumnSlice's
 * ArrayCellMetadataView::Init) and fails the whole batch as corrupt when they
 * do not verify, and so do we. Decoded arrays are cf_array_cell (types.h).
 *
 * The client schema (WriteRequestPB.schema, without column ids) is mapped onto
 * the tablet's by column name, as Schema::GetProjectionMapping does; sizes and
 * nullability are the tablet column's, as in the decoder. Where the decoder only
 * marks an op failed (a NULL for a NOT NULL column, DELETE with a non-key value,
 * a missing required column) it still consumes exactly the bytes the encoder
 * wrote, and so do we; such an op keeps what could be read. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cfile/delta.h>

#include "util/alloc.h"
#include "util/error.h"
#include "wal.h"

#define SLICE_BYTES 16u /* sizeof(Slice) on the 64-bit platforms Kudu runs on */

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static bool bit(const uint8_t *bm, size_t i)
{
    return (bm[i >> 3] >> (i & 7)) & 1;
}

/* Bytes a value of the column takes in `rows`. */
static size_t cell_bytes(const cf_column *c)
{
    if (c->is_array || cf_type_is_binary(c->type))
        return SLICE_BYTES;
    return cf_type_size(c->type);
}

typedef struct decoder {
    cf_arena *a;
    const Kudu__RowOperationsPB *pb;
    const cf_schema *tablet;
    const Kudu__SchemaPB *tablet_pb;
    size_t ncols;       /* tablet columns */
    size_t nclient;     /* client columns */
    size_t nclient_key; /* its leading key columns */
    size_t *map;        /* client column -> tablet column */
    bool nullables;     /* the client schema has a nullable column */
    const uint8_t *p, *end, *start;
    size_t op;       /* number of the op being decoded, for messages */
    size_t auto_col; /* the tablet's auto-incrementing column, or SIZE_MAX */
    bool has_counter;
    int64_t counter; /* its counter as the leader left it in the request */
    bool failed;     /* the op being decoded gets a row error from Kudu's decoder */
} decoder;

/* --array_cell_max_elem_num (common/row_operations.cc), a runtime flag: its
 * default. RowOperationsPBDecoder::GetColumnSlice gives an op whose array cell
 * holds more elements a row error ("too many array elements"). */
#define KUDU_ARRAY_CELL_MAX_ELEM_NUM 1024u

static cf_status fail_at(decoder *d, cf_error *err, const char *what)
{
    CF_FAIL(err, CF_ECORRUPT, "row op %zu at byte %zu of rows: %s", d->op,
            (size_t)(d->p - d->start), what);
}

/* The array cell `bytes` of column c as a cf_array_cell in arena memory: the
 * elements copied out aligned (binary ones as slices into `bytes`), the
 * validity bitmap kept only when some element is NULL. */
static cf_status array_value(cf_arena *a, const cf_column *c, cf_slice bytes, cf_array_cell **out,
                             cf_error *err)
{
    cf_array_cell_view view;
    CF_TRY(cf_array_cell_decode(&view, bytes, c->type, err));
    cf_array_cell *cell = cf_arena_alloc_aligned(a, sizeof *cell, _Alignof(cf_array_cell));
    CF_CHECK(cell != NULL, err, CF_ENOMEM, "out of memory decoding row operations");
    size_t esz = cf_type_size(c->type);
    cell->type = c->type;
    cell->count = view.count;
    cell->values = NULL;
    cell->nonnull = NULL;
    if (view.count > 0) {
        /* count <= 65535 (decode checks it), so the product cannot overflow */
        uint8_t *vals = cf_arena_alloc_aligned(a, view.count * esz, 16);
        CF_CHECK(vals != NULL, err, CF_ENOMEM, "out of memory decoding row operations");
        for (size_t i = 0; i < view.count; i++) {
            if (cf_array_cell_is_null(&view, i))
                memset(vals + i * esz, 0, esz); /* NULL slots hold zeros (types.h) */
            else
                cf_array_cell_get(&view, i, vals + i * esz);
        }
        cell->values = vals;
    }
    if (view.has_nulls) {
        size_t nb = (view.count + 7) / 8;
        uint8_t *bm = cf_arena_alloc(a, nb);
        CF_CHECK(bm != NULL, err, CF_ENOMEM, "out of memory decoding row operations");
        memcpy(bm, view.validity, nb);
        cell->nonnull = bm;
    }
    *out = cell;
    return CF_OK;
}

/* Read column t's value at d->p into arena memory in memory form. */
static cf_status read_value(decoder *d, size_t t, const void **out, cf_error *err)
{
    const cf_column *c = cf_schema_column_at(d->tablet, t);
    /* Kudu has no serialized form for these cells (KuduToScalarArrayType) and its
     * master refuses such columns (CatalogManager::CreateTable): never data. */
    CF_CHECK(!c->is_array || (c->type != CF_TYPE_INT128 && c->type != CF_TYPE_DECIMAL128), err,
             CF_ENOTSUP,
             "row op %zu column %s: arrays of 128-bit %s are not supported (Kudu "
             "refuses such columns)",
             d->op, c->name, cf_type_name(c->type));
    size_t n = cell_bytes(c);
    if ((size_t)(d->end - d->p) < n) {
        char msg[200];
        snprintf(msg, sizeof msg, "not enough data for column %s (%zu bytes)", c->name, n);
        return fail_at(d, err, msg);
    }
    void *v;
    if (n == SLICE_BYTES && (c->is_array || cf_type_is_binary(c->type))) {
        uint64_t off = le64(d->p), len = le64(d->p + 8);
        size_t have = d->pb->has_indirect_data ? d->pb->indirect_data.len : 0;
        if (off > have || len > have - off) {
            char msg[200];
            snprintf(msg, sizeof msg,
                     "column %s: bad indirect slice (offset %llu, length %llu, %zu bytes of "
                     "indirect data)",
                     c->name, (unsigned long long)off, (unsigned long long)len, have);
            return fail_at(d, err, msg);
        }
        cf_slice *s = cf_arena_alloc_aligned(d->a, sizeof *s, _Alignof(cf_slice));
        CF_CHECK(s != NULL, err, CF_ENOMEM, "out of memory decoding row operations");
        /* no indirect data at all: an empty value, without arithmetic on NULL */
        s->data = have ? d->pb->indirect_data.data + off : (const uint8_t *)"";
        s->len = (size_t)len;
        v = s;
        if (c->is_array) {
            cf_error aerr = {0};
            cf_array_cell *cell = NULL;
            cf_status st = array_value(d->a, c, *s, &cell, &aerr);
            if (st == CF_ECORRUPT) {
                char msg[400];
                snprintf(msg, sizeof msg, "column %s: corrupted array cell data (%s)", c->name,
                         aerr.msg);
                return fail_at(d, err, msg);
            }
            if (st != CF_OK) {
                if (err != NULL)
                    *err = aerr;
                return cf_error_prefix(err, st, "row op %zu column %s: ", d->op, c->name);
            }
            v = cell;
            if (cell->count > KUDU_ARRAY_CELL_MAX_ELEM_NUM)
                d->failed = true;
        }
    } else {
        v = cf_arena_alloc_aligned(d->a, n, 16);
        CF_CHECK(v != NULL, err, CF_ENOMEM, "out of memory decoding row operations");
        memcpy(v, d->p, n);
        if (c->type == CF_TYPE_BOOL)
            *(uint8_t *)v = *(uint8_t *)v != 0;
    }
    d->p += n;
    *out = v;
    return CF_OK;
}

/* The write default of tablet column t (ColumnSchemaPB.write_default_value):
 * *has false when there is none. */
static cf_status default_value(decoder *d, size_t t, bool *has, const void **out, cf_error *err)
{
    const Kudu__ColumnSchemaPB *p = d->tablet_pb->columns[t];
    const cf_column *c = cf_schema_column_at(d->tablet, t);
    *has = false;
    *out = NULL;
    if (!p->has_write_default_value)
        return CF_OK;
    const ProtobufCBinaryData *b = &p->write_default_value;
    if (c->is_array || cf_type_is_binary(c->type)) {
        cf_slice *s = cf_arena_alloc_aligned(d->a, sizeof *s, _Alignof(cf_slice));
        CF_CHECK(s != NULL, err, CF_ENOMEM, "out of memory decoding row operations");
        s->data = b->data;
        s->len = b->len;
        *out = s;
        if (c->is_array) {
            cf_array_cell *cell = NULL;
            cf_status st = array_value(d->a, c, *s, &cell, err);
            *out = cell;
            if (st != CF_OK)
                return cf_error_prefix(err, st, "schema column %s: write default: ", c->name);
        }
    } else {
        size_t n = cf_type_size(c->type);
        CF_CHECK(b->len == n, err, CF_ECORRUPT,
                 "schema column %s: %zu-byte write default for a %zu-byte type", c->name, b->len,
                 n);
        void *v = cf_arena_alloc_aligned(d->a, n, 16);
        CF_CHECK(v != NULL, err, CF_ENOMEM, "out of memory decoding row operations");
        memcpy(v, b->data, n);
        *out = v;
    }
    *has = true;
    return CF_OK;
}

static bool valid_type(unsigned t)
{
    return t >= CF_KUDU_OP_INSERT && t <= CF_KUDU_OP_UPSERT_IGNORE;
}

static cf_status decode_op(decoder *d, cf_kudu_row_op *op, cf_error *err)
{
    if (d->p >= d->end)
        return fail_at(d, err, "no operation type");
    unsigned type = *d->p;
    if (!valid_type(type)) {
        char msg[64];
        snprintf(msg, sizeof msg, "unknown operation type %u", type);
        return fail_at(d, err, msg);
    }
    d->p++;
    size_t bm = (d->nclient + 7) / 8;
    if ((size_t)(d->end - d->p) < bm)
        return fail_at(d, err, "no room for the isset bitmap");
    const uint8_t *isset = d->p;
    d->p += bm;
    const uint8_t *nulls = NULL;
    if (d->nullables) {
        if ((size_t)(d->end - d->p) < bm)
            return fail_at(d, err, "no room for the NULL bitmap");
        nulls = d->p;
        d->p += bm;
    }
    bool *set = cf_arena_alloc(d->a, d->ncols * sizeof *set);
    const void **values = cf_arena_alloc_aligned(d->a, d->ncols * sizeof *values, sizeof(void *));
    CF_CHECK(set != NULL && values != NULL, err, CF_ENOMEM,
             "out of memory decoding row operations");
    memset(set, 0, d->ncols * sizeof *set);
    memset(values, 0, d->ncols * sizeof *values);
    op->type = (cf_kudu_row_op_type)type;
    op->ncols = d->ncols;
    op->set = set;
    op->values = (const void *const *)values;

    d->failed = false;
    bool insert = type == CF_KUDU_OP_INSERT || type == CF_KUDU_OP_INSERT_IGNORE;
    bool upsert = type == CF_KUDU_OP_UPSERT || type == CF_KUDU_OP_UPSERT_IGNORE;
    bool update = type == CF_KUDU_OP_UPDATE || type == CF_KUDU_OP_UPDATE_IGNORE;
    bool del = type == CF_KUDU_OP_DELETE || type == CF_KUDU_OP_DELETE_IGNORE;
    for (size_t ci = 0; ci < d->nclient; ci++) {
        size_t t = d->map[ci];
        const cf_column *c = cf_schema_column_at(d->tablet, t);
        if (!bit(isset, ci))
            continue;
        bool null = nulls != NULL && bit(nulls, ci);
        /* The encoder writes a value for every set column that is not NULL; a
         * NOT NULL column is never NULL to it, whatever its bit says. */
        bool present = !null || !c->nullable;
        const void *v = NULL;
        if (present)
            CF_TRY(read_value(d, t, &v, err));
        bool is_key = ci < d->nclient_key;
        if (del && !is_key) {
            d->failed = true; /* a failed op in Kudu: the value is read and dropped */
            continue;
        }
        if ((update || del) && is_key && null) {
            d->failed = true; /* NULL key: failed op */
            continue;
        }
        if (null && !c->nullable) {
            d->failed = true; /* NULL for a NOT NULL column: failed op */
            continue;
        }
        set[t] = true;
        values[t] = null ? NULL : v;
    }
    if (insert && d->auto_col != SIZE_MAX && !set[d->auto_col]) {
        /* Kudu's leader writes the tablet's counter into each REPLICATE; the decoder
         * gives each INSERT the next value (DecodeInsertOrUpsert). Without a valid
         * counter the op failed: the column stays unset. */
        if (d->has_counter && d->counter >= 0 && d->counter < INT64_MAX) {
            int64_t *v = cf_arena_alloc_aligned(d->a, sizeof *v, 8);
            CF_CHECK(v != NULL, err, CF_ENOMEM, "out of memory decoding row operations");
            *v = ++d->counter;
            set[d->auto_col] = true;
            values[d->auto_col] = v;
        }
    } else if (upsert && d->auto_col != SIZE_MAX && set[d->auto_col] &&
               values[d->auto_col] != NULL && d->has_counter) {
        int64_t given;
        memcpy(&given, values[d->auto_col], sizeof given);
        if (given > d->counter)
            d->counter = given;
    }
    if (insert || upsert) {
        /* SetupPrototypeRow: columns left out get their write default or NULL.
         * INSERT takes the whole row; UPSERT applied to an existing row changes
         * only what the client set, so only INSERT's row is filled in here. */
        for (size_t t = 0; t < d->ncols && insert; t++) {
            if (set[t])
                continue;
            bool has;
            const void *v;
            CF_TRY(default_value(d, t, &has, &v, err));
            if (has || cf_schema_column_at(d->tablet, t)->nullable) {
                set[t] = true;
                values[t] = v;
            }
        }
    }
    /* A key column left out, or a NOT NULL one an INSERT leaves without a default:
     * the decoder's "No value provided for ... column" row errors. */
    size_t nkeys = cf_schema_key_count(d->tablet);
    for (size_t t = 0; t < d->ncols; t++)
        if (!set[t] && (t < nkeys || (insert && !cf_schema_column_at(d->tablet, t)->nullable)))
            d->failed = true;
    op->failed = d->failed;
    return CF_OK;
}

/* Client column i of `client` mapped to the tablet by name. */
static cf_status map_client(decoder *d, const Kudu__SchemaPB *client, cf_error *err)
{
    d->nclient = client->n_columns;
    d->map = cf_arena_alloc_aligned(d->a, d->nclient * sizeof *d->map, sizeof(size_t));
    CF_CHECK(d->map != NULL || d->nclient == 0, err, CF_ENOMEM, "out of memory");
    bool keys_done = false;
    for (size_t i = 0; i < client->n_columns; i++) {
        const Kudu__ColumnSchemaPB *c = client->columns[i];
        CF_CHECK(c->name != NULL, err, CF_ECORRUPT, "write request schema: column %zu has no name",
                 i);
        int t = cf_schema_find(d->tablet, c->name);
        CF_CHECK(t >= 0, err, CF_ECORRUPT,
                 "write request schema: column %s is not in the tablet's schema", c->name);
        const cf_column *tc = cf_schema_column_at(d->tablet, (size_t)t);
        if (c->has_type) {
            /* an array is NESTED with its element type in nested_type.array */
            bool arr = c->type == KUDU__DATA_TYPE__NESTED;
            int elem = (int)c->type;
            if (arr && c->nested_type != NULL && c->nested_type->array != NULL &&
                c->nested_type->array->has_type)
                elem = (int)c->nested_type->array->type;
            else if (arr)
                elem = (int)tc->type;
            CF_CHECK(arr == tc->is_array && elem == (int)tc->type, err, CF_ECORRUPT,
                     "write request schema: column %s is %s%d, the tablet's is %s%s", c->name,
                     arr ? "an array of " : "", elem, cf_type_name(tc->type),
                     tc->is_array ? "[]" : "");
        }
        for (size_t j = 0; j < i; j++)
            CF_CHECK(d->map[j] != (size_t)t, err, CF_ECORRUPT,
                     "write request schema: column %s twice", c->name);
        d->map[i] = (size_t)t;
        bool key = c->has_is_key && c->is_key;
        if (key) {
            CF_CHECK(!keys_done && (size_t)t == i, err, CF_ECORRUPT,
                     "write request schema: key column %s out of place", c->name);
            d->nclient_key++;
        } else {
            keys_done = true;
        }
        if (c->has_is_nullable && c->is_nullable)
            d->nullables = true;
    }
    return CF_OK;
}

cf_status kudu_rowops_decode(cf_arena *a, const Kudu__RowOperationsPB *pb,
                             const Kudu__SchemaPB *client, const Kudu__SchemaPB *tablet_pb,
                             const cf_schema *tablet, const int64_t *auto_counter,
                             cf_kudu_row_op **ops, size_t *nops, cf_error *err)
{
    *ops = NULL;
    *nops = 0;
    decoder d = {.a = a, .pb = pb, .tablet = tablet, .tablet_pb = tablet_pb};
    d.ncols = cf_schema_column_count(tablet);
    CF_CHECK(tablet_pb != NULL && tablet_pb->n_columns == d.ncols, err, CF_EINVAL,
             "row operations: the tablet schema and its SchemaPB differ");
    d.auto_col = SIZE_MAX;
    for (size_t i = 0; i < d.ncols; i++)
        if (tablet_pb->columns[i]->has_is_auto_incrementing &&
            tablet_pb->columns[i]->is_auto_incrementing &&
            cf_schema_column_at(tablet, i)->type == CF_TYPE_INT64)
            d.auto_col = i;
    d.has_counter = auto_counter != NULL;
    d.counter = auto_counter ? *auto_counter : -1;
    if (client != NULL && client->n_columns > 0) {
        CF_TRY(map_client(&d, client, err));
    } else {
        d.nclient = d.ncols;
        d.map = cf_arena_alloc_aligned(a, d.ncols * sizeof *d.map, sizeof(size_t));
        CF_CHECK(d.map != NULL, err, CF_ENOMEM, "out of memory");
        for (size_t i = 0; i < d.ncols; i++) {
            d.map[i] = i;
            if (cf_schema_column_at(tablet, i)->nullable)
                d.nullables = true;
        }
        d.nclient_key = cf_schema_key_count(tablet);
    }
    if (!pb->has_rows || pb->rows.len == 0)
        return CF_OK;
    d.start = d.p = pb->rows.data;
    d.end = d.p + pb->rows.len;
    /* Each op takes at least its type byte: that bounds the array. */
    size_t cap = 0, n = 0;
    cf_kudu_row_op *out = NULL;
    while (d.p < d.end) {
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            if (ncap > pb->rows.len)
                ncap = pb->rows.len;
            cf_kudu_row_op *no = cf_arena_alloc_aligned(a, ncap * sizeof *no, sizeof(void *));
            CF_CHECK(no != NULL, err, CF_ENOMEM, "out of memory decoding row operations");
            if (n)
                memcpy(no, out, n * sizeof *out);
            out = no;
            cap = ncap;
        }
        d.op = n;
        CF_TRY(decode_op(&d, &out[n], err));
        n++;
    }
    *ops = out;
    *nops = n;
    return CF_OK;
}

void kudu_rowops_encode(cf_buf *rows, cf_buf *indirect, const cf_schema *schema,
                        cf_kudu_row_op_type type, const bool *set, const void *const *values)
{
    size_t n = cf_schema_column_count(schema);
    size_t bm = (n + 7) / 8;
    bool nullables = false;
    for (size_t i = 0; i < n; i++)
        nullables |= cf_schema_column_at(schema, i)->nullable;
    cf_buf_put_u8(rows, (uint8_t)type);
    uint8_t *isset = cf_buf_extend(rows, bm);
    if (isset == NULL)
        return;
    memset(isset, 0, bm);
    size_t isset_at = (size_t)(isset - rows->data);
    size_t nulls_at = rows->len;
    if (nullables) {
        uint8_t *nb = cf_buf_extend(rows, bm);
        if (nb == NULL)
            return;
        memset(nb, 0, bm);
    }
    for (size_t i = 0; i < n; i++) {
        if (!set[i])
            continue;
        const cf_column *c = cf_schema_column_at(schema, i);
        rows->data[isset_at + i / 8] |= (uint8_t)(1u << (i % 8));
        if (values[i] == NULL) { /* REQUIRES: only for nullable columns */
            rows->data[nulls_at + i / 8] |= (uint8_t)(1u << (i % 8));
            continue;
        }
        if (c->is_array) {
            /* the cell serialized as Kudu's client does; one it cannot hold
             * (INT128 elements, over 65535 of them) goes as an empty array */
            const cf_array_cell *cell = values[i];
            size_t cap = cf_array_cell_encoded_max(cell), len = 0;
            size_t at = indirect->len;
            uint8_t *dst = cf_buf_extend(indirect, cap);
            cf_error aerr = {0};
            if (dst == NULL || cf_array_cell_encode(dst, cap, &len, cell, &aerr) != CF_OK)
                len = 0;
            if (dst != NULL)
                indirect->len = at + len;
            cf_buf_put_le64(rows, at);
            cf_buf_put_le64(rows, len);
        } else if (cf_type_is_binary(c->type)) {
            const cf_slice *s = values[i];
            cf_buf_put_le64(rows, indirect->len);
            cf_buf_put_le64(rows, s->len);
            cf_buf_append(indirect, s->data, s->len);
        } else {
            cf_buf_append(rows, values[i], cf_type_size(c->type));
        }
    }
}
