/* A google.protobuf.FileDescriptorSet built from protobuf-c's descriptors, for the
 * supplemental header of the protobuf containers cfile writes (pbc_writer.c).
 *
 * Kudu's writer (util/pb_util.cc, WritablePBContainerFile::CreateNew) stores the
 * .proto files of the record type and of everything they import; its reader only
 * needs them to print records of a type it was not compiled with (`kudu pbc dump`:
 * a DescriptorPool over the set, then FindMessageTypeByName(pb_type)). Reading a
 * superblock back (ReadPBContainerFromPath) parses the set but never uses it.
 *
 * protobuf-c keeps each type's fields, labels and nesting (in the full name) but
 * not which .proto file a type came from, so the set is rebuilt as one synthetic
 * file per top-level type ("cfile/kudu.tablet.TabletSuperBlockPB.proto"), holding
 * that type with its nested types and importing the files of the types its fields
 * name. One file per top-level type cannot make an import cycle unless the messages
 * themselves are mutually recursive (Kudu's on-disk messages are not). Left out, as
 * a pool does not need them to decode: default values, json names, comments.
 *
 * descriptor.proto field numbers used below:
 *   FileDescriptorSet    file 1
 *   FileDescriptorProto  name 1, package 2, dependency 3, message_type 4, enum_type 5
 *   DescriptorProto      name 1, field 2, nested_type 3, enum_type 4, oneof_decl 8
 *   FieldDescriptorProto name 1, number 3, label 4, type 5, type_name 6, options 8,
 *                        oneof_index 9
 *   FieldOptions         packed 2
 *   OneofDescriptorProto name 1
 *   EnumDescriptorProto  name 1, value 2;  EnumValueDescriptorProto name 1, number 2
 */
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

#include "pbc_writer.h"

/* Enough for every type one Kudu message reaches (a superblock reaches 25). */
#define MAX_TYPES 256

typedef struct node {
    const char *name; /* full name, no leading dot */
    size_t name_len;
    const ProtobufCMessageDescriptor *msg; /* NULL: enum or stub */
    const ProtobufCEnumDescriptor *en;     /* NULL: message or stub */
    const char *package;
} node;

typedef struct builder {
    node nodes[MAX_TYPES];
    size_t n;
    bool overflow;
} builder;

static node *find(builder *b, const char *name, size_t len)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->nodes[i].name_len == len && memcmp(b->nodes[i].name, name, len) == 0)
            return &b->nodes[i];
    return NULL;
}

static node *add(builder *b, const char *name, size_t len, const char *package)
{
    node *nd = find(b, name, len);
    if (nd != NULL)
        return nd;
    if (b->n == MAX_TYPES) {
        b->overflow = true;
        return NULL;
    }
    nd = &b->nodes[b->n++];
    *nd = (node){.name = name, .name_len = len, .package = package};
    /* every enclosing message must exist, as a stub if no field reaches it */
    size_t plen = strlen(package);
    for (size_t i = len; i > plen + 1; i--)
        if (name[i - 1] == '.' && i - 1 > plen) {
            add(b, name, i - 1, package);
            break;
        }
    return nd;
}

static void collect_msg(builder *b, const ProtobufCMessageDescriptor *d);

static void collect_enum(builder *b, const ProtobufCEnumDescriptor *e)
{
    node *nd = add(b, e->name, strlen(e->name), e->package_name);
    if (nd != NULL)
        nd->en = e;
}

static void collect_msg(builder *b, const ProtobufCMessageDescriptor *d)
{
    node *nd = add(b, d->name, strlen(d->name), d->package_name);
    if (nd == NULL || nd->msg != NULL)
        return;
    nd->msg = d;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->type == PROTOBUF_C_TYPE_MESSAGE)
            collect_msg(b, f->descriptor);
        else if (f->type == PROTOBUF_C_TYPE_ENUM)
            collect_enum(b, f->descriptor);
    }
}

/* The length of the top-level type's name that contains `nd`. */
static size_t top_len(const node *nd)
{
    size_t skip = strlen(nd->package);
    skip += skip > 0; /* the package's dot */
    const char *p = memchr(nd->name + skip, '.', nd->name_len - skip);
    return p ? (size_t)(p - nd->name) : nd->name_len;
}

static bool is_child(const node *parent, const node *c)
{
    return c->name_len > parent->name_len + 1 &&
           memcmp(c->name, parent->name, parent->name_len) == 0 &&
           c->name[parent->name_len] == '.' &&
           memchr(c->name + parent->name_len + 1, '.', c->name_len - parent->name_len - 1) == NULL;
}

/* ---- wire helpers ---- */

static void put_tag(cf_buf *o, uint32_t field, uint32_t wire)
{
    cf_buf_put_varint32(o, field << 3 | wire);
}

static void put_bytes(cf_buf *o, uint32_t field, const void *p, size_t len)
{
    put_tag(o, field, 2);
    cf_buf_put_varint64(o, len);
    cf_buf_append(o, p, len);
}

static void put_str(cf_buf *o, uint32_t field, const char *s)
{
    put_bytes(o, field, s, strlen(s));
}

static void put_int(cf_buf *o, uint32_t field, int64_t v)
{
    put_tag(o, field, 0);
    cf_buf_put_varint64(o, (uint64_t)v);
}

/* Append `sub` as field `field` of `o` and empty it. */
static void put_sub(cf_buf *o, uint32_t field, cf_buf *sub)
{
    put_bytes(o, field, sub->data, sub->len);
    o->oom |= sub->oom;
    cf_buf_clear(sub);
}

/* descriptor.proto's FieldDescriptorProto.Type for protobuf-c's type. */
static int field_type(ProtobufCType t)
{
    static const int map[] = {
        [PROTOBUF_C_TYPE_INT32] = 5,     [PROTOBUF_C_TYPE_SINT32] = 17,
        [PROTOBUF_C_TYPE_SFIXED32] = 15, [PROTOBUF_C_TYPE_INT64] = 3,
        [PROTOBUF_C_TYPE_SINT64] = 18,   [PROTOBUF_C_TYPE_SFIXED64] = 16,
        [PROTOBUF_C_TYPE_UINT32] = 13,   [PROTOBUF_C_TYPE_FIXED32] = 7,
        [PROTOBUF_C_TYPE_UINT64] = 4,    [PROTOBUF_C_TYPE_FIXED64] = 6,
        [PROTOBUF_C_TYPE_FLOAT] = 2,     [PROTOBUF_C_TYPE_DOUBLE] = 1,
        [PROTOBUF_C_TYPE_BOOL] = 8,      [PROTOBUF_C_TYPE_ENUM] = 14,
        [PROTOBUF_C_TYPE_STRING] = 9,    [PROTOBUF_C_TYPE_BYTES] = 12,
        [PROTOBUF_C_TYPE_MESSAGE] = 11,
    };
    return (unsigned)t < sizeof(map) / sizeof(map[0]) ? map[t] : 12;
}

static int field_label(ProtobufCLabel l)
{
    switch (l) {
    case PROTOBUF_C_LABEL_REQUIRED: return 2;
    case PROTOBUF_C_LABEL_REPEATED: return 3;
    default: return 1; /* optional, and proto3's "none" */
    }
}

static void put_type_name(cf_buf *o, uint32_t field, const char *full)
{
    put_tag(o, field, 2);
    cf_buf_put_varint64(o, strlen(full) + 1);
    cf_buf_put_u8(o, '.');
    cf_buf_append(o, full, strlen(full));
}

static const char *short_name(const node *nd)
{
    const char *s = nd->name + nd->name_len;
    while (s > nd->name && s[-1] != '.')
        s--;
    return s;
}

static void put_name(cf_buf *o, uint32_t field, const node *nd)
{
    const char *s = short_name(nd);
    put_bytes(o, field, s, (size_t)(nd->name + nd->name_len - s));
}

static void emit_enum(cf_buf *o, const node *nd)
{
    cf_buf v;
    cf_buf_init(&v);
    put_name(o, 1, nd);
    for (unsigned i = 0; i < nd->en->n_values; i++) {
        put_str(&v, 1, nd->en->values[i].name);
        put_int(&v, 2, nd->en->values[i].value);
        put_sub(o, 2, &v);
    }
    cf_buf_dispose(&v);
}

/* A DescriptorProto for `nd` (recursing into its nested types) into o. */
static void emit_msg(cf_buf *o, const builder *b, const node *nd)
{
    cf_buf sub, opt;
    cf_buf_init(&sub);
    cf_buf_init(&opt);
    put_name(o, 1, nd);
    const ProtobufCMessageDescriptor *d = nd->msg;
    /* oneofs: protobuf-c marks their fields and gives the fields of one oneof the
     * same quantifier offset; it keeps no oneof names, so they are made up */
    unsigned oneof_q[64];
    unsigned noneof = 0;
    for (unsigned i = 0; d != NULL && i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        put_str(&sub, 1, f->name);
        put_int(&sub, 3, f->id);
        put_int(&sub, 4, field_label(f->label));
        put_int(&sub, 5, field_type(f->type));
        if (f->type == PROTOBUF_C_TYPE_MESSAGE)
            put_type_name(&sub, 6, ((const ProtobufCMessageDescriptor *)f->descriptor)->name);
        else if (f->type == PROTOBUF_C_TYPE_ENUM)
            put_type_name(&sub, 6, ((const ProtobufCEnumDescriptor *)f->descriptor)->name);
        if (f->flags & PROTOBUF_C_FIELD_FLAG_PACKED) {
            put_int(&opt, 2, 1);
            put_sub(&sub, 8, &opt);
        }
        if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
            unsigned k = 0;
            while (k < noneof && oneof_q[k] != f->quantifier_offset)
                k++;
            if (k == noneof && noneof < 64)
                oneof_q[noneof++] = f->quantifier_offset;
            put_int(&sub, 9, k);
        }
        put_sub(o, 2, &sub);
    }
    for (size_t i = 0; i < b->n; i++) {
        const node *c = &b->nodes[i];
        if (!is_child(nd, c))
            continue;
        if (c->en != NULL) {
            emit_enum(&sub, c);
            put_sub(o, 4, &sub);
        } else {
            emit_msg(&sub, b, c);
            put_sub(o, 3, &sub);
        }
    }
    for (unsigned k = 0; k < noneof; k++) {
        char nm[24];
        snprintf(nm, sizeof nm, "oneof_%u", k);
        put_str(&sub, 1, nm);
        put_sub(o, 8, &sub);
    }
    o->oom |= sub.oom | opt.oom;
    cf_buf_dispose(&sub);
    cf_buf_dispose(&opt);
}

static void put_file_name(cf_buf *o, uint32_t field, const char *top, size_t len)
{
    static const char pre[] = "cfile/", suf[] = ".proto";
    put_tag(o, field, 2);
    cf_buf_put_varint64(o, sizeof pre - 1 + len + sizeof suf - 1);
    cf_buf_append(o, pre, sizeof pre - 1);
    cf_buf_append(o, top, len);
    cf_buf_append(o, suf, sizeof suf - 1);
}

/* Top-level names `t` depends on, in `deps` (indexes of top-level nodes). */
static size_t file_deps(const builder *b, const node *top, size_t tl, size_t *deps, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < b->n; i++) {
        const node *nd = &b->nodes[i];
        if (nd->msg == NULL || top_len(nd) != tl || memcmp(nd->name, top->name, tl) != 0)
            continue;
        for (unsigned k = 0; k < nd->msg->n_fields; k++) {
            const ProtobufCFieldDescriptor *f = &nd->msg->fields[k];
            const char *ref = f->type == PROTOBUF_C_TYPE_MESSAGE
                                  ? ((const ProtobufCMessageDescriptor *)f->descriptor)->name
                              : f->type == PROTOBUF_C_TYPE_ENUM
                                  ? ((const ProtobufCEnumDescriptor *)f->descriptor)->name
                                  : NULL;
            if (ref == NULL)
                continue;
            const node *r = find((builder *)b, ref, strlen(ref));
            size_t rl = top_len(r);
            if (rl == tl && memcmp(r->name, top->name, tl) == 0)
                continue;
            const node *rt = find((builder *)b, ref, rl);
            size_t j = (size_t)(rt - b->nodes), x = 0;
            while (x < n && deps[x] != j)
                x++;
            if (x == n && n < cap)
                deps[n++] = j;
        }
    }
    return n;
}

/* Emit the file of top-level node `i` after the files it imports (post-order). */
static void emit_file(cf_buf *set, const builder *b, size_t i, bool *done, bool *busy)
{
    if (done[i] || busy[i])
        return; /* busy: an import cycle; the pool will say so, not us */
    busy[i] = true;
    const node *top = &b->nodes[i];
    size_t deps[MAX_TYPES];
    size_t nd = file_deps(b, top, top->name_len, deps, MAX_TYPES);
    for (size_t k = 0; k < nd; k++)
        emit_file(set, b, deps[k], done, busy);
    cf_buf f, sub;
    cf_buf_init(&f);
    cf_buf_init(&sub);
    put_file_name(&f, 1, top->name, top->name_len);
    put_str(&f, 2, top->package);
    for (size_t k = 0; k < nd; k++)
        put_file_name(&f, 3, b->nodes[deps[k]].name, b->nodes[deps[k]].name_len);
    if (top->en != NULL) {
        emit_enum(&sub, top);
        put_sub(&f, 5, &sub);
    } else {
        emit_msg(&sub, b, top);
        put_sub(&f, 4, &sub);
    }
    put_sub(set, 1, &f);
    cf_buf_dispose(&f);
    cf_buf_dispose(&sub);
    done[i] = true;
}

cf_status cf_kudu_pb_descriptor_set(cf_buf *out, const ProtobufCMessageDescriptor *type,
                                    cf_error *err)
{
    builder *b = cf_calloc(1, sizeof(*b));
    bool *flags = cf_calloc(2 * MAX_TYPES, sizeof(bool));
    cf_status st = CF_OK;
    if (b == NULL || flags == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "protobuf descriptors: out of memory");
    collect_msg(b, type);
    if (b->overflow)
        CF_FAIL_OUT(err, CF_ENOTSUP, "protobuf descriptors: %s reaches more than %d types",
                    type->name, MAX_TYPES);
    for (size_t i = 0; i < b->n; i++)
        if (top_len(&b->nodes[i]) == b->nodes[i].name_len)
            emit_file(out, b, i, flags, flags + MAX_TYPES);
    if (out->oom)
        CF_FAIL_OUT(err, CF_ENOMEM, "protobuf descriptors: out of memory");
out:
    cf_free(b);
    cf_free(flags);
    return st;
}
