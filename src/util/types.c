/* Column types, encodings and codecs: names, sizes, and the
 * mapping of logical onto physical types (format §1.9). Which encodings a type
 * allows is encoding policy and lives with the encodings (encoding/registry.c).
 *
 * Encoders are chosen by the physical type:
 *
 *   logical                                   physical
 *   STRING, BINARY, VARCHAR                   BINARY
 *   UNIXTIME_MICROS, DECIMAL64                INT64
 *   DECIMAL32, DATE                           INT32
 *   DECIMAL128                                INT128
 *   every other type                          itself
 */
#include <cfile/types.h>

#include <strings.h>

typedef struct name_entry {
    const char *name;
    int value;
} name_entry;

/* Kudu's spellings first (cf_*_name returns those), short forms after. */
static const name_entry type_names[] = {
    {"UINT8", CF_TYPE_UINT8},
    {"INT8", CF_TYPE_INT8},
    {"UINT16", CF_TYPE_UINT16},
    {"INT16", CF_TYPE_INT16},
    {"UINT32", CF_TYPE_UINT32},
    {"INT32", CF_TYPE_INT32},
    {"UINT64", CF_TYPE_UINT64},
    {"INT64", CF_TYPE_INT64},
    {"STRING", CF_TYPE_STRING},
    {"BOOL", CF_TYPE_BOOL},
    {"FLOAT", CF_TYPE_FLOAT},
    {"DOUBLE", CF_TYPE_DOUBLE},
    {"BINARY", CF_TYPE_BINARY},
    {"UNIXTIME_MICROS", CF_TYPE_UNIXTIME_MICROS},
    {"INT128", CF_TYPE_INT128},
    {"DECIMAL32", CF_TYPE_DECIMAL32},
    {"DECIMAL64", CF_TYPE_DECIMAL64},
    {"DECIMAL128", CF_TYPE_DECIMAL128},
    {"VARCHAR", CF_TYPE_VARCHAR},
    {"DATE", CF_TYPE_DATE},
    /* short forms and common aliases */
    {"BOOLEAN", CF_TYPE_BOOL},
    {"TIMESTAMP", CF_TYPE_UNIXTIME_MICROS},
};

static const name_entry encoding_names[] = {
    {"AUTO_ENCODING", CF_ENC_AUTO},
    {"PLAIN_ENCODING", CF_ENC_PLAIN},
    {"PREFIX_ENCODING", CF_ENC_PREFIX},
    {"GROUP_VARINT", CF_ENC_GROUP_VARINT},
    {"RLE", CF_ENC_RLE},
    {"DICT_ENCODING", CF_ENC_DICT},
    {"BIT_SHUFFLE", CF_ENC_BIT_SHUFFLE},
    /* short forms */
    {"AUTO", CF_ENC_AUTO},
    {"PLAIN", CF_ENC_PLAIN},
    {"PREFIX", CF_ENC_PREFIX},
    {"GVINT", CF_ENC_GROUP_VARINT},
    {"DICT", CF_ENC_DICT},
    {"DICTIONARY", CF_ENC_DICT},
    {"BITSHUFFLE", CF_ENC_BIT_SHUFFLE},
    {"BSHUF", CF_ENC_BIT_SHUFFLE},
};

static const name_entry compression_names[] = {
    {"DEFAULT_COMPRESSION", CF_COMP_DEFAULT},
    {"NO_COMPRESSION", CF_COMP_NONE},
    {"SNAPPY", CF_COMP_SNAPPY},
    {"LZ4", CF_COMP_LZ4},
    {"ZLIB", CF_COMP_ZLIB},
    /* short forms */
    {"DEFAULT", CF_COMP_DEFAULT},
    {"NONE", CF_COMP_NONE},
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *name_of(const name_entry *t, size_t n, int v)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].value == v)
            return t[i].name; /* the first entry for a value is Kudu's spelling */
    return NULL;
}

static cf_status parse(const name_entry *t, size_t n, const char *name, int *out)
{
    if (name == NULL || out == NULL)
        return CF_EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (strcasecmp(t[i].name, name) == 0) {
            *out = t[i].value;
            return CF_OK;
        }
    }
    return CF_EINVAL;
}

const char *cf_type_name(cf_type t)
{
    return name_of(type_names, COUNT_OF(type_names), (int)t);
}

const char *cf_encoding_name(cf_encoding e)
{
    return name_of(encoding_names, COUNT_OF(encoding_names), (int)e);
}

const char *cf_compression_name(cf_compression c)
{
    return name_of(compression_names, COUNT_OF(compression_names), (int)c);
}

cf_status cf_type_parse(cf_type *out, const char *name)
{
    int v;
    cf_status st = parse(type_names, COUNT_OF(type_names), name, &v);
    if (st == CF_OK)
        *out = (cf_type)v;
    return st;
}

cf_status cf_encoding_parse(cf_encoding *out, const char *name)
{
    int v;
    cf_status st = parse(encoding_names, COUNT_OF(encoding_names), name, &v);
    if (st == CF_OK)
        *out = (cf_encoding)v;
    return st;
}

cf_status cf_compression_parse(cf_compression *out, const char *name)
{
    int v;
    cf_status st = parse(compression_names, COUNT_OF(compression_names), name, &v);
    if (st == CF_OK)
        *out = (cf_compression)v;
    return st;
}

bool cf_type_valid(int t)
{
    /* 18 is IS_DELETED, a virtual column never stored in a CFile (format §1.9). */
    return t >= CF_TYPE_UINT8 && t <= CF_TYPE_DATE && t != 18;
}

bool cf_type_is_binary(cf_type t)
{
    return t == CF_TYPE_STRING || t == CF_TYPE_BINARY || t == CF_TYPE_VARCHAR;
}

cf_type cf_type_physical(cf_type t)
{
    switch (t) {
    case CF_TYPE_STRING:
    case CF_TYPE_VARCHAR: return CF_TYPE_BINARY;
    case CF_TYPE_UNIXTIME_MICROS:
    case CF_TYPE_DECIMAL64: return CF_TYPE_INT64;
    case CF_TYPE_DECIMAL32:
    case CF_TYPE_DATE: return CF_TYPE_INT32;
    case CF_TYPE_DECIMAL128: return CF_TYPE_INT128;
    default: return t;
    }
}

size_t cf_type_size(cf_type t)
{
    switch (cf_type_physical(t)) {
    case CF_TYPE_UINT8:
    case CF_TYPE_INT8:
    case CF_TYPE_BOOL: return 1;
    case CF_TYPE_UINT16:
    case CF_TYPE_INT16: return 2;
    case CF_TYPE_UINT32:
    case CF_TYPE_INT32:
    case CF_TYPE_FLOAT: return 4;
    case CF_TYPE_UINT64:
    case CF_TYPE_INT64:
    case CF_TYPE_DOUBLE: return 8;
    case CF_TYPE_INT128: return 16;
    case CF_TYPE_BINARY: return sizeof(cf_slice);
    default: return 0;
    }
}

int cf_type_int_bits(cf_type t)
{
    switch (t) {
    case CF_TYPE_UINT8:
    case CF_TYPE_INT8: return 8;
    case CF_TYPE_UINT16:
    case CF_TYPE_INT16: return 16;
    case CF_TYPE_UINT32:
    case CF_TYPE_INT32: return 32;
    case CF_TYPE_UINT64:
    case CF_TYPE_INT64: return 64;
    case CF_TYPE_INT128: return 128;
    default: return 0;
    }
}

bool cf_type_is_unsigned(cf_type t)
{
    return t == CF_TYPE_UINT8 || t == CF_TYPE_UINT16 || t == CF_TYPE_UINT32 || t == CF_TYPE_UINT64;
}
