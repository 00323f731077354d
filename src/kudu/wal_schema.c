/* A Kudu SchemaPB (common.proto, as a WAL segment header or a WriteRequestPB
 * carries it) as a cf_schema. Kudu's DataType, EncodingType and CompressionType
 * numbers are cfile's own (types.h follows common.proto), so the fields carry
 * over one for one; NESTED columns are arrays of their element type
 * (NestedDataTypePB.array). */
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"
#include "wal.h"

static cf_status column_from_pb(cf_column *c, const Kudu__ColumnSchemaPB *p, size_t i,
                                cf_error *err)
{
    memset(c, 0, sizeof *c);
    CF_CHECK(p->name != NULL && p->name[0] != '\0', err, CF_ECORRUPT,
             "schema column %zu has no name", i);
    CF_CHECK(p->has_type, err, CF_ECORRUPT, "schema column %zu (%s) has no type", i, p->name);
    int t = (int)p->type;
    c->name = p->name;
    if (t == KUDU__DATA_TYPE__NESTED) {
        CF_CHECK(p->nested_type != NULL && p->nested_type->array != NULL &&
                     p->nested_type->array->has_type,
                 err, CF_ENOTSUP, "schema column %s: a NESTED type other than an array", p->name);
        t = (int)p->nested_type->array->type;
        c->is_array = true;
    }
    CF_CHECK(t != KUDU__DATA_TYPE__IS_DELETED, err, CF_ENOTSUP,
             "schema column %s: the IS_DELETED virtual type", p->name);
    CF_CHECK(cf_type_valid(t), err, CF_ECORRUPT, "schema column %s: unknown type %d", p->name, t);
    c->type = (cf_type)t;
    c->is_key = p->has_is_key && p->is_key;
    c->nullable = p->has_is_nullable && p->is_nullable;
    if (p->has_encoding && p->encoding != KUDU__ENCODING_TYPE__UNKNOWN_ENCODING)
        c->encoding = (cf_encoding)p->encoding;
    if (p->has_compression && p->compression != KUDU__COMPRESSION_TYPE__UNKNOWN_COMPRESSION)
        c->compression = (cf_compression)p->compression;
    if (p->has_cfile_block_size && p->cfile_block_size > 0)
        c->block_size = (uint32_t)p->cfile_block_size;
    if (p->type_attributes != NULL) {
        c->precision = p->type_attributes->precision;
        c->scale = p->type_attributes->scale;
        c->length = p->type_attributes->length;
    }
    return CF_OK;
}

cf_status kudu_wal_schema_from_pb(cf_schema **out, const Kudu__SchemaPB *pb, cf_error *err)
{
    *out = NULL;
    CF_CHECK(pb != NULL && pb->n_columns > 0, err, CF_ECORRUPT, "schema has no columns");
    CF_CHECK(pb->n_columns <= CF_SCHEMA_MAX_COLUMNS, err, CF_ENOTSUP,
             "schema has %zu columns (at most %u)", pb->n_columns, CF_SCHEMA_MAX_COLUMNS);
    cf_column *cols = cf_calloc(pb->n_columns, sizeof *cols);
    CF_CHECK(cols != NULL, err, CF_ENOMEM, "out of memory");
    cf_status st = CF_OK;
    for (size_t i = 0; i < pb->n_columns && st == CF_OK; i++)
        st = column_from_pb(&cols[i], pb->columns[i], i, err);
    if (st == CF_OK) {
        st = cf_schema_create(out, cols, pb->n_columns, err);
        if (st == CF_EINVAL)
            st = kudu_recode(
                err, cf_error_prefix(err, CF_ENOTSUP, "Kudu schema not expressible in cfile: "));
    }
    cf_free(cols);
    return st;
}
