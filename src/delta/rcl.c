/* RowChangeList encoding and decoding (format §12.3).
 *
 *   offset | size        | field
 *   0      | 1           | type: 1 UPDATE, 2 DELETE (whole list), 3 REINSERT
 *   1      | 1..5        | varint32 column id        \
 *   .      | 1..5        | varint32 len + 1 (0=NULL)  } repeated (UPDATE: at least once)
 *   .      | len         | value bytes               /
 *
 * Error messages repeat Kudu's RowChangeListDecoder wording on purpose (the
 * golden files record Kudu's Status text, values redacted), so they do not
 * follow our lower-case style.
 */
#include <stdio.h>
#include <string.h>

#include <cfile/delta.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/varint.h"

struct cf_rcl_builder {
    cf_buf buf;
    cf_rcl_type type;
};

cf_status cf_rcl_builder_create(cf_rcl_builder **out, cf_error *err)
{
    cf_rcl_builder *b = cf_calloc(1, sizeof(*b));
    CF_CHECK(b != NULL, err, CF_ENOMEM, "rcl builder: out of memory");
    cf_buf_init(&b->buf);
    /* Room for the type byte now: cf_rcl_builder_reset cannot report a failure,
     * and a DELETE (no column change to fail instead) that lost its type byte
     * to an allocation failure was an empty list, accepted, logged and stored,
     * that no reader takes (a table's log then refused to replay). */
    if (!cf_buf_reserve(&b->buf, 64)) {
        cf_free(b);
        CF_FAIL(err, CF_ENOMEM, "rcl builder: out of memory");
    }
    *out = b;
    return CF_OK;
}

void cf_rcl_builder_free(cf_rcl_builder *b)
{
    if (b == NULL)
        return;
    cf_buf_dispose(&b->buf);
    cf_free(b);
}

void cf_rcl_builder_reset(cf_rcl_builder *b, cf_rcl_type type)
{
    cf_buf_clear(&b->buf);
    b->type = type;
    cf_buf_put_u8(&b->buf, (uint8_t)type);
}

cf_status cf_rcl_builder_add(cf_rcl_builder *b, uint32_t col_id, const void *value, size_t len,
                             cf_error *err)
{
    CF_CHECK(b->type == CF_RCL_UPDATE || b->type == CF_RCL_REINSERT, err, CF_ESTATE,
             "rcl builder: column change in a list of type %d", (int)b->type);
    CF_CHECK(value == NULL || len < UINT32_MAX, err, CF_EINVAL,
             "rcl builder: value of %zu bytes for column id %" PRIu32 " is too long", len, col_id);
    cf_buf_put_varint32(&b->buf, col_id);
    if (value == NULL) {
        cf_buf_put_u8(&b->buf, 0);
    } else {
        cf_buf_put_varint32(&b->buf, (uint32_t)len + 1);
        cf_buf_append(&b->buf, value, len);
    }
    CF_CHECK(!b->buf.oom, err, CF_ENOMEM, "rcl builder: out of memory");
    return CF_OK;
}

cf_slice cf_rcl_builder_bytes(const cf_rcl_builder *b)
{
    return (cf_slice){b->buf.data, b->buf.len};
}

cf_status cf_rcl_decoder_init(cf_rcl_decoder *d, cf_slice rcl, cf_error *err)
{
    d->p = rcl.data;
    d->end = rcl.data + rcl.len;
    d->type = 0;
    CF_CHECK(rcl.len > 0, err, CF_ECORRUPT, "empty changelist - expected type");
    uint8_t t = rcl.data[0];
    CF_CHECK(t >= CF_RCL_UPDATE && t <= CF_RCL_REINSERT, err, CF_ECORRUPT,
             "bad type enum value: %d in <redacted>", (int)t);
    CF_CHECK(t != CF_RCL_DELETE || rcl.len == 1, err, CF_ECORRUPT,
             "DELETE changelist too long: <redacted>");
    /* An empty REINSERT is legal: a table whose columns are all key columns. */
    CF_CHECK(t != CF_RCL_UPDATE || rcl.len > 1, err, CF_ECORRUPT,
             "empty changelist - expected column updates");
    d->type = (cf_rcl_type)t;
    d->p++;
    return CF_OK;
}

bool cf_rcl_decoder_has_next(const cf_rcl_decoder *d)
{
    return d->p != d->end;
}

cf_status cf_rcl_decoder_next(cf_rcl_decoder *d, cf_rcl_change *out, cf_error *err)
{
    uint32_t id, size;
    const uint8_t *q = cf_varint32_decode(d->p, d->end, &id);
    CF_CHECK(q != NULL, err, CF_ECORRUPT, "Invalid column ID varint in delta");
    d->p = q;
    q = cf_varint32_decode(d->p, d->end, &size);
    CF_CHECK(q != NULL, err, CF_ECORRUPT, "Invalid size varint in delta");
    d->p = q;
    out->col_id = id;
    out->is_null = size == 0;
    out->value = (cf_slice){NULL, 0};
    if (size == 0)
        return CF_OK;
    size--;
    size_t left = (size_t)(d->end - d->p);
    CF_CHECK(size <= left, err, CF_ECORRUPT,
             "truncated value for column id %" PRIu32 ", expected %" PRIu32
             " bytes, only %zu remaining",
             id, size, left);
    out->value = (cf_slice){d->p, size};
    d->p += size;
    return CF_OK;
}

/* Kudu's ColumnSchema::ToString() form: "name TYPE[(attrs)] NULLABLE|NOT NULL". */
static void column_desc(char *dst, size_t cap, const cf_delta_column *c)
{
    const char *tn = cf_type_name(c->type);
    char attrs[32] = "";
    switch (c->type) {
    case CF_TYPE_DECIMAL32:
    case CF_TYPE_DECIMAL64:
    case CF_TYPE_DECIMAL128:
        tn = "DECIMAL";
        snprintf(attrs, sizeof(attrs), "(%d, %d)", c->precision, c->scale);
        break;
    case CF_TYPE_VARCHAR: snprintf(attrs, sizeof(attrs), "(%d)", c->length); break;
    default: break;
    }
    snprintf(dst, cap, "%s %s%s %s", c->name ? c->name : "?", tn ? tn : "?", attrs,
             c->nullable ? "NULLABLE" : "NOT NULL");
}

cf_status cf_rcl_change_validate(const cf_rcl_change *c, const cf_delta_column *cols, size_t ncols,
                                 int *col_idx, cf_error *err)
{
    int i = cf_delta_schema_find(cols, ncols, c->col_id);
    *col_idx = i;
    if (i < 0)
        return CF_OK; /* a column the reader's schema no longer has */
    const cf_delta_column *col = &cols[i];
    char desc[160];
    if (c->is_null) {
        if (!col->nullable) {
            column_desc(desc, sizeof(desc), col);
            CF_FAIL(err, CF_ECORRUPT, "decoded set-to-NULL for non-nullable column: %s", desc);
        }
        return CF_OK;
    }
    if (cf_type_is_binary(col->type))
        return CF_OK;
    if (c->value.len != cf_type_size(col->type)) {
        column_desc(desc, sizeof(desc), col);
        CF_FAIL(err, CF_ECORRUPT, "invalid value <redacted> for column %s", desc);
    }
    return CF_OK;
}
