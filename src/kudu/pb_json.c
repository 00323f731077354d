/* Kudu's protobuf messages as JSON, the way protobuf's JSON mapping prints them
 * with original field names (what `kudu pbc dump --json` shows): only the fields
 * present, 64-bit integers as decimal strings, bytes as base64, enums by name,
 * maps as objects. Driven by protoc-c's descriptors, so every message of
 * proto/kudu/ prints without code of its own. */
#include "pb_json.h"

#include <cfile/kudu.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kudu_common.pb-c.h"
#include "kudu_log.pb-c.h"
#include "kudu_opid.pb-c.h"
#include "kudu_raft.pb-c.h"
#include "kudu_tablet.pb-c.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/pb_mem.h"

/* The messages a caller may name: what Kudu keeps in containers and log segments,
 * and the pieces worth printing on their own. */
static const ProtobufCMessageDescriptor *const known[] = {
    &kudu__instance_metadata_pb__descriptor,
    &kudu__dir_instance_metadata_pb__descriptor,
    &kudu__dir_set_pb__descriptor,
    &kudu__block_id_pb__descriptor,
    &kudu__block_record_pb__descriptor,
    &kudu__container_sup_header_pb__descriptor,
    &kudu__schema_pb__descriptor,
    &kudu__row_operations_pb__descriptor,
    &kudu__tablet__tablet_super_block_pb__descriptor,
    &kudu__tablet__tx_result_pb__descriptor,
    &kudu__consensus__consensus_metadata_pb__descriptor,
    &kudu__consensus__raft_config_pb__descriptor,
    &kudu__consensus__raft_peer_pb__descriptor,
    &kudu__consensus__op_id__descriptor,
    &kudu__log__log_entry_pb__descriptor,
    &kudu__log__log_entry_batch_pb__descriptor,
    &kudu__log__log_segment_header_pb__descriptor,
    &kudu__log__log_segment_footer_pb__descriptor,
    &kudu__log__replicate_msg__descriptor,
    &kudu__log__commit_msg__descriptor,
    &kudu__log__write_request_pb__descriptor,
};

#define NKNOWN (sizeof known / sizeof known[0])

/* By full name; Kudu's name for a message that proto/kudu/ keeps in another
 * package ("kudu.consensus.ReplicateMsg" is kudu.log.ReplicateMsg here) is found
 * by its short name, which is unique among the known messages. */
const ProtobufCMessageDescriptor *kudu_pb_find_type(const char *type)
{
    if (type == NULL)
        return NULL;
    for (size_t i = 0; i < NKNOWN; i++)
        if (strcmp(known[i]->name, type) == 0)
            return known[i];
    if (strncmp(type, "kudu.", 5) != 0)
        return NULL;
    const char *dot = strrchr(type, '.');
    const char *shortname = dot + 1;
    for (size_t i = 0; i < NKNOWN; i++)
        if (strcmp(known[i]->short_name, shortname) == 0)
            return known[i];
    return NULL;
}

bool cf_kudu_pb_type_known(const char *type)
{
    return kudu_pb_find_type(type) != NULL;
}

typedef struct jout {
    cf_buf *b;
    bool pretty;
    int depth;
} jout;

static void put(jout *o, const char *s)
{
    cf_buf_append(o->b, s, strlen(s));
}

static void newline(jout *o)
{
    if (!o->pretty)
        return;
    cf_buf_put_u8(o->b, '\n');
    for (int i = 0; i < o->depth; i++)
        cf_buf_put_u8(o->b, ' ');
}

static void put_string(jout *o, const uint8_t *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    cf_buf_put_u8(o->b, '"');
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == '"' || c == '\\') {
            cf_buf_put_u8(o->b, '\\');
            cf_buf_put_u8(o->b, c);
        } else if (c < 0x20) {
            char e[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
            put(o, e);
        } else {
            cf_buf_put_u8(o->b, c);
        }
    }
    cf_buf_put_u8(o->b, '"');
}

static void put_base64(jout *o, const uint8_t *s, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    cf_buf_put_u8(o->b, '"');
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)s[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)s[i + 1] << 8;
        if (i + 2 < n)
            v |= s[i + 2];
        char q[5] = {tab[v >> 18], tab[(v >> 12) & 63], i + 1 < n ? tab[(v >> 6) & 63] : '=',
                     i + 2 < n ? tab[v & 63] : '=', 0};
        put(o, q);
    }
    cf_buf_put_u8(o->b, '"');
}

/* The shortest decimal form that reads back as the same value, as protobuf prints
 * floating-point fields; non-finite values are the strings JSON mapping names. */
static void put_double(jout *o, double v, bool single)
{
    char s[40];
    if (isnan(v)) {
        put(o, "\"NaN\"");
        return;
    }
    if (isinf(v)) {
        put(o, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        return;
    }
    for (int prec = single ? 6 : 15; prec <= 17; prec++) {
        snprintf(s, sizeof s, "%.*g", prec, v);
        if (single ? (float)strtod(s, NULL) == (float)v : strtod(s, NULL) == v)
            break;
    }
    put(o, s);
}

static void put_enum(jout *o, const ProtobufCEnumDescriptor *d, int v)
{
    const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(d, v);
    char s[16];
    if (ev != NULL) {
        cf_buf_put_u8(o->b, '"');
        put(o, ev->name);
        cf_buf_put_u8(o->b, '"');
    } else {
        snprintf(s, sizeof s, "%d", v);
        put(o, s);
    }
}

static void put_message(jout *o, const ProtobufCMessage *m);

/* One value of field f stored at p. */
static void put_value(jout *o, const ProtobufCFieldDescriptor *f, const void *p)
{
    char s[32];
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
        snprintf(s, sizeof s, "%" PRId32, *(const int32_t *)p);
        put(o, s);
        break;
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
        snprintf(s, sizeof s, "%" PRIu32, *(const uint32_t *)p);
        put(o, s);
        break;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
        snprintf(s, sizeof s, "\"%" PRId64 "\"", *(const int64_t *)p);
        put(o, s);
        break;
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
        snprintf(s, sizeof s, "\"%" PRIu64 "\"", *(const uint64_t *)p);
        put(o, s);
        break;
    case PROTOBUF_C_TYPE_FLOAT: put_double(o, *(const float *)p, true); break;
    case PROTOBUF_C_TYPE_DOUBLE: put_double(o, *(const double *)p, false); break;
    case PROTOBUF_C_TYPE_BOOL: put(o, *(const protobuf_c_boolean *)p ? "true" : "false"); break;
    case PROTOBUF_C_TYPE_ENUM: put_enum(o, f->descriptor, *(const int *)p); break;
    case PROTOBUF_C_TYPE_STRING: {
        const char *str = *(char *const *)p;
        put_string(o, (const uint8_t *)str, strlen(str));
        break;
    }
    case PROTOBUF_C_TYPE_BYTES: {
        const ProtobufCBinaryData *bd = p;
        put_base64(o, bd->data, bd->len);
        break;
    }
    case PROTOBUF_C_TYPE_MESSAGE: put_message(o, *(ProtobufCMessage *const *)p); break;
    }
}

static size_t value_size(const ProtobufCFieldDescriptor *f)
{
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32: return 4;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64: return 8;
    case PROTOBUF_C_TYPE_FLOAT: return sizeof(float);
    case PROTOBUF_C_TYPE_DOUBLE: return sizeof(double);
    case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_ENUM: return sizeof(int);
    case PROTOBUF_C_TYPE_STRING: return sizeof(char *);
    case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
    case PROTOBUF_C_TYPE_MESSAGE: return sizeof(ProtobufCMessage *);
    }
    return 0;
}

/* Is an optional (or oneof) field present in m? */
static bool present(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f)
{
    const char *base = (const char *)m;
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
        return *(const uint32_t *)(base + f->quantifier_offset) == f->id;
    if (f->type == PROTOBUF_C_TYPE_MESSAGE)
        return *(void *const *)(base + f->offset) != NULL;
    if (f->type == PROTOBUF_C_TYPE_STRING) {
        const char *s = *(char *const *)(base + f->offset);
        return s != NULL && s != (const char *)f->default_value;
    }
    if (f->label == PROTOBUF_C_LABEL_REQUIRED)
        return true;
    return *(const protobuf_c_boolean *)(base + f->quantifier_offset);
}

/* A message named *Entry with fields key (1) and value (2): how a proto map field
 * travels (proto/kudu/ spells Kudu's maps that way). */
static bool is_map_entry(const ProtobufCMessageDescriptor *d)
{
    size_t n = strlen(d->short_name);
    return n > 5 && strcmp(d->short_name + n - 5, "Entry") == 0 && d->n_fields == 2 &&
           strcmp(d->fields[0].name, "key") == 0 && strcmp(d->fields[1].name, "value") == 0;
}

static void put_map(jout *o, const ProtobufCFieldDescriptor *f, ProtobufCMessage *const *items,
                    size_t n)
{
    const ProtobufCMessageDescriptor *d = f->descriptor;
    cf_buf_put_u8(o->b, '{');
    o->depth++;
    for (size_t i = 0; i < n; i++) {
        const char *base = (const char *)items[i];
        const ProtobufCFieldDescriptor *kf = &d->fields[0], *vf = &d->fields[1];
        if (i > 0)
            cf_buf_put_u8(o->b, ',');
        newline(o);
        /* Map keys are strings in JSON: a string key as it is, any other in quotes. */
        if (kf->type == PROTOBUF_C_TYPE_STRING) {
            put_value(o, kf, base + kf->offset);
        } else {
            cf_buf_put_u8(o->b, '"');
            size_t before = o->b->len;
            put_value(o, kf, base + kf->offset);
            /* 64-bit keys printed themselves quoted: drop the inner quotes. */
            if (o->b->len > before + 1 && o->b->data[before] == '"') {
                memmove(o->b->data + before, o->b->data + before + 1, o->b->len - before - 2);
                o->b->len -= 2;
            }
            cf_buf_put_u8(o->b, '"');
        }
        put(o, o->pretty ? ": " : ":");
        if (present(items[i], vf))
            put_value(o, vf, base + vf->offset);
        else
            put(o, vf->type == PROTOBUF_C_TYPE_MESSAGE ? "{}" : "null");
    }
    o->depth--;
    if (n > 0)
        newline(o);
    cf_buf_put_u8(o->b, '}');
}

static void put_message(jout *o, const ProtobufCMessage *m)
{
    const ProtobufCMessageDescriptor *d = m->descriptor;
    const char *base = (const char *)m;
    bool first = true;
    cf_buf_put_u8(o->b, '{');
    o->depth++;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        size_t count = 1;
        const char *vals = base + f->offset;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            count = *(const size_t *)(base + f->quantifier_offset);
            if (count == 0)
                continue;
            vals = *(const char *const *)(base + f->offset);
        } else if (!present(m, f)) {
            continue;
        }
        if (!first)
            cf_buf_put_u8(o->b, ',');
        first = false;
        newline(o);
        put_string(o, (const uint8_t *)f->name, strlen(f->name));
        put(o, o->pretty ? ": " : ":");
        if (f->label != PROTOBUF_C_LABEL_REPEATED) {
            put_value(o, f, vals);
            continue;
        }
        if (f->type == PROTOBUF_C_TYPE_MESSAGE && is_map_entry(f->descriptor)) {
            put_map(o, f, (ProtobufCMessage *const *)vals, count);
            continue;
        }
        cf_buf_put_u8(o->b, '[');
        o->depth++;
        size_t sz = value_size(f);
        for (size_t k = 0; k < count; k++) {
            if (k > 0)
                cf_buf_put_u8(o->b, ',');
            newline(o);
            put_value(o, f, vals + k * sz);
        }
        o->depth--;
        newline(o);
        cf_buf_put_u8(o->b, ']');
    }
    o->depth--;
    if (!first)
        newline(o);
    cf_buf_put_u8(o->b, '}');
}

void kudu_pb_json_append(cf_buf *out, const ProtobufCMessage *m, bool pretty, int depth)
{
    jout o = {out, pretty, depth};
    put_message(&o, m);
}

cf_status kudu_pb_json_string(const ProtobufCMessage *m, bool pretty, char **json, cf_error *err)
{
    cf_buf b;
    cf_buf_init(&b);
    kudu_pb_json_append(&b, m, pretty, 0);
    cf_buf_put_u8(&b, 0);
    if (b.oom) {
        cf_buf_dispose(&b);
        *json = NULL;
        CF_FAIL(err, CF_ENOMEM, "out of memory printing a %s as JSON", m->descriptor->name);
    }
    /* The caller frees with free(): hand over a malloc'd copy. */
    *json = malloc(b.len);
    if (*json != NULL)
        memcpy(*json, b.data, b.len);
    cf_buf_dispose(&b);
    CF_CHECK(*json != NULL, err, CF_ENOMEM, "out of memory printing a %s as JSON",
             m->descriptor->name);
    return CF_OK;
}

cf_status kudu_pb_unpack(const ProtobufCMessageDescriptor *d, const void *data, size_t len,
                         const char *what, ProtobufCMessage **out, cf_error *err)
{
    cf_pb_mem mem;
    cf_pb_mem_init(&mem);
    *out = protobuf_c_message_unpack(d, &mem.a, len, data);
    CF_CHECK(*out != NULL || !mem.oom, err, CF_ENOMEM, "%s: out of memory parsing a %s", what,
             d->name);
    CF_CHECK(*out != NULL, err, CF_ECORRUPT, "%s: %zu bytes do not parse as a %s", what, len,
             d->name);
    return CF_OK;
}

void kudu_pb_free(ProtobufCMessage *m)
{
    if (m == NULL)
        return;
    cf_pb_mem mem;
    cf_pb_mem_init(&mem);
    protobuf_c_message_free_unpacked(m, &mem.a);
}

cf_status cf_kudu_pb_to_json(const char *type, const void *data, size_t len, bool pretty,
                             char **json, cf_error *err)
{
    *json = NULL;
    const ProtobufCMessageDescriptor *d = kudu_pb_find_type(type);
    CF_CHECK(d != NULL, err, CF_ENOTSUP, "unknown Kudu message type '%s'",
             type != NULL ? type : "(null)");
    ProtobufCMessage *m = NULL;
    CF_TRY(kudu_pb_unpack(d, data, len, d->name, &m, err));
    cf_status st = kudu_pb_json_string(m, pretty, json, err);
    kudu_pb_free(m);
    return st;
}
