/* Kudu's SchemaPB (common/common.proto) to and from cfile's schema.
 *
 * Kudu's DataType, EncodingType and CompressionType numbers are cfile's cf_type,
 * cf_encoding and cf_compression numbers (include/cfile/types.h), so the mapping is
 * a check, not a table. A NESTED column is an array: its element type is
 * nested_type.array.type (common/wire_protocol.cc, ColumnSchemaBuilderFromPB).
 * DECIMAL precision and scale and VARCHAR's length come from type_attributes.
 */
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

#include "tablet.h"

static const char *const type_names[] = {
    "UINT8",  "INT8",      "UINT16",    "INT16",      "UINT32",     "INT32",   "UINT64",
    "INT64",  "STRING",    "BOOL",      "FLOAT",      "DOUBLE",     "BINARY",  "UNIXTIME_MICROS",
    "INT128", "DECIMAL32", "DECIMAL64", "DECIMAL128", "IS_DELETED", "VARCHAR", "DATE",
    "NESTED",
};

const char *cf_kudu_data_type_name(int t)
{
    return t >= 0 && (size_t)t < sizeof(type_names) / sizeof(type_names[0]) ? type_names[t] : NULL;
}

/* A scalar type cfile reads (Kudu's IS_DELETED is a virtual column, never stored). */
static cf_status scalar_type(cf_type *out, int t, const char *file, size_t i, const char *name,
                             cf_error *err)
{
    CF_CHECK(t != KUDU__DATA_TYPE__IS_DELETED, err, CF_ENOTSUP,
             "%s: schema column %zu '%s': type IS_DELETED is not stored data", file, i, name);
    CF_CHECK(cf_type_valid(t), err, CF_ECORRUPT, "%s: schema column %zu '%s': unknown type %d",
             file, i, name, t);
    *out = (cf_type)t;
    return CF_OK;
}

static cf_status column_from_pb(cf_column *c, uint32_t *id, const Kudu__ColumnSchemaPB *pb,
                                const char *file, size_t i, cf_error *err)
{
    CF_CHECK(pb->name != NULL, err, CF_ECORRUPT, "%s: schema column %zu: no name", file, i);
    const char *nm = pb->name;
    CF_CHECK(pb->has_id, err, CF_ECORRUPT, "%s: schema column %zu '%s': no id", file, i, nm);
    CF_CHECK(pb->has_type, err, CF_ECORRUPT, "%s: schema column %zu '%s': no type", file, i, nm);
    *id = pb->id;
    memset(c, 0, sizeof(*c));
    c->name = nm;
    c->nullable = pb->has_is_nullable && pb->is_nullable;
    c->is_key = pb->has_is_key && pb->is_key;
    if (pb->type == KUDU__DATA_TYPE__NESTED) {
        const Kudu__NestedDataTypePB *n = pb->nested_type;
        CF_CHECK(n != NULL, err, CF_ECORRUPT,
                 "%s: schema column %zu '%s': NESTED without nested_type", file, i, nm);
        CF_CHECK(n->descriptor_case == KUDU__NESTED_DATA_TYPE_PB__DESCRIPTOR_ARRAY &&
                     n->array != NULL,
                 err, CF_ENOTSUP, "%s: schema column %zu '%s': a nested type that is not an array",
                 file, i, nm);
        CF_CHECK(n->array->has_type, err, CF_ECORRUPT,
                 "%s: schema column %zu '%s': array without an element type", file, i, nm);
        CF_CHECK(n->array->type != KUDU__DATA_TYPE__NESTED, err, CF_ENOTSUP,
                 "%s: schema column %zu '%s': arrays of arrays", file, i, nm);
        CF_TRY(scalar_type(&c->type, n->array->type, file, i, nm, err));
        c->is_array = true;
    } else {
        CF_CHECK(pb->nested_type == NULL, err, CF_ECORRUPT,
                 "%s: schema column %zu '%s': nested_type on a %s column", file, i, nm,
                 cf_kudu_data_type_name(pb->type) ? cf_kudu_data_type_name(pb->type) : "?");
        CF_TRY(scalar_type(&c->type, pb->type, file, i, nm, err));
    }
    if (pb->has_encoding) {
        CF_CHECK((int)pb->encoding >= 0 && (int)pb->encoding <= (int)CF_ENC_BIT_SHUFFLE, err,
                 CF_ECORRUPT, "%s: schema column %zu '%s': unknown encoding %d", file, i, nm,
                 (int)pb->encoding);
        c->encoding = (cf_encoding)pb->encoding;
    }
    if (pb->has_compression) {
        CF_CHECK((int)pb->compression >= 0 && (int)pb->compression <= (int)CF_COMP_ZLIB, err,
                 CF_ECORRUPT, "%s: schema column %zu '%s': unknown compression %d", file, i, nm,
                 (int)pb->compression);
        c->compression = (cf_compression)pb->compression;
    }
    if (pb->has_cfile_block_size) {
        /* Kudu's reader takes any value; 0 or less means the server's default */
        c->block_size = pb->cfile_block_size > 0 ? (uint32_t)pb->cfile_block_size : 0;
    }
    const Kudu__ColumnTypeAttributesPB *a = pb->type_attributes;
    if (a != NULL) {
        c->precision = a->has_precision ? a->precision : 0;
        c->scale = a->has_scale ? a->scale : 0;
        c->length = a->has_length ? a->length : 0;
    }
    return CF_OK;
}

cf_status cf_kudu_schema_from_pb(cf_schema **out, uint32_t **ids, const Kudu__SchemaPB *pb,
                                 const char *file, cf_error *err)
{
    *out = NULL;
    *ids = NULL;
    size_t n = pb->n_columns;
    CF_CHECK(n > 0, err, CF_ECORRUPT, "%s: schema: no columns", file);
    CF_CHECK(n <= CF_SCHEMA_MAX_COLUMNS, err, CF_ENOTSUP, "%s: schema: %zu columns (at most %u)",
             file, n, CF_SCHEMA_MAX_COLUMNS);
    cf_column *cols = cf_calloc(n, sizeof(*cols));
    uint32_t *cid = cf_calloc(n, sizeof(*cid));
    cf_status st = CF_OK;
    if (cols == NULL || cid == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "%s: schema: out of memory", file);
    bool in_key = true;
    for (size_t i = 0; i < n; i++) {
        CF_TRY_OUT(column_from_pb(&cols[i], &cid[i], pb->columns[i], file, i, err));
        /* common/wire_protocol.cc (ColumnPBsToSchema): the key columns lead */
        if (cols[i].is_key && !in_key)
            CF_FAIL_OUT(err, CF_ECORRUPT,
                        "%s: schema column %zu '%s': key column after a non-key one", file, i,
                        cols[i].name);
        in_key = in_key && cols[i].is_key;
        for (size_t j = 0; j < i; j++)
            if (cid[j] == cid[i])
                CF_FAIL_OUT(err, CF_ECORRUPT, "%s: schema columns %zu and %zu: both have id %u",
                            file, j, i, cid[i]);
    }
    st = cf_schema_create(out, cols, n, err);
    if (st != CF_OK) {
        /* what Kudu allows and cfile's schema does not (a key type; a name longer than
         * 256 bytes, from a server run with a larger --max_identifier_length) */
        cf_error_prefix(err, st, "%s: ", file);
        if (st == CF_EINVAL) {
            st = CF_ENOTSUP;
            if (err != NULL)
                err->code = st;
        }
        goto out;
    }
    *ids = cid;
    cid = NULL;
out:
    cf_free(cols);
    cf_free(cid);
    return st;
}

void cf_kudu_schema_pb_dispose(cf_kudu_schema_pb *p)
{
    cf_free(p->cols);
    cf_free(p->colp);
    cf_free(p->attrs);
    cf_free(p->nested);
    cf_free(p->arrays);
    memset(p, 0, sizeof(*p));
}

cf_status cf_kudu_schema_pb_build(cf_kudu_schema_pb *out, const cf_schema *s, const uint32_t *ids,
                                  cf_error *err)
{
    memset(out, 0, sizeof(*out));
    size_t n = cf_schema_column_count(s);
    out->cols = cf_calloc(n, sizeof(*out->cols));
    out->colp = cf_calloc(n, sizeof(*out->colp));
    out->attrs = cf_calloc(n, sizeof(*out->attrs));
    out->nested = cf_calloc(n, sizeof(*out->nested));
    out->arrays = cf_calloc(n, sizeof(*out->arrays));
    if (!out->cols || !out->colp || !out->attrs || !out->nested || !out->arrays) {
        cf_kudu_schema_pb_dispose(out);
        CF_FAIL(err, CF_ENOMEM, "schema: out of memory");
    }
    kudu__schema_pb__init(&out->pb);
    for (size_t i = 0; i < n; i++) {
        const cf_column *c = cf_schema_column_at(s, i);
        Kudu__ColumnSchemaPB *p = &out->cols[i];
        kudu__column_schema_pb__init(p);
        p->has_id = true;
        p->id = ids ? ids[i] : (uint32_t)i;
        p->name = (char *)c->name;
        p->has_type = true;
        p->type = (Kudu__DataType)c->type;
        /* Kudu always sets is_key (SchemaToColumnPBs), is_nullable, immutable and the
         * storage attributes (ColumnSchemaToPB), both in common/wire_protocol.cc */
        p->has_is_key = true;
        p->is_key = c->is_key;
        p->has_is_nullable = true;
        p->is_nullable = c->nullable;
        p->has_encoding = true;
        p->encoding = (Kudu__EncodingType)c->encoding;
        p->has_compression = true;
        p->compression = (Kudu__CompressionType)c->compression;
        p->has_cfile_block_size = true;
        p->cfile_block_size = (int32_t)c->block_size;
        p->has_immutable = true;
        if (c->is_array) {
            p->type = KUDU__DATA_TYPE__NESTED;
            Kudu__NestedDataTypePB *nt = &out->nested[i];
            kudu__nested_data_type_pb__init(nt);
            kudu__nested_data_type_pb__array_type_descriptor__init(&out->arrays[i]);
            out->arrays[i].has_type = true;
            out->arrays[i].type = (Kudu__DataType)c->type;
            nt->descriptor_case = KUDU__NESTED_DATA_TYPE_PB__DESCRIPTOR_ARRAY;
            nt->array = &out->arrays[i];
            p->nested_type = nt;
        }
        bool dec = c->type == CF_TYPE_DECIMAL32 || c->type == CF_TYPE_DECIMAL64 ||
                   c->type == CF_TYPE_DECIMAL128;
        if (dec || c->type == CF_TYPE_VARCHAR) {
            Kudu__ColumnTypeAttributesPB *a = &out->attrs[i];
            kudu__column_type_attributes_pb__init(a);
            if (dec) {
                a->has_precision = a->has_scale = true;
                a->precision = c->precision;
                a->scale = c->scale;
            } else {
                a->has_length = true;
                a->length = c->length;
            }
            p->type_attributes = a;
        }
        out->colp[i] = p;
    }
    out->pb.n_columns = n;
    out->pb.columns = out->colp;
    return CF_OK;
}
