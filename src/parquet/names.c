/* parquet.thrift enum names, and the normalised logical-type string of
 * shared/parquet/README.md. */
#include <cfile/parquet.h>

#include <stdio.h>

#define NAME_AT(tab, i) ((i) >= 0 && (size_t)(i) < sizeof(tab) / sizeof((tab)[0]) ? (tab)[i] : NULL)

const char *cf_parquet_type_name(int32_t type)
{
    static const char *const t[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                    "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return NAME_AT(t, type);
}

const char *cf_parquet_repetition_name(int32_t repetition)
{
    static const char *const t[] = {"REQUIRED", "OPTIONAL", "REPEATED"};
    return NAME_AT(t, repetition);
}

const char *cf_parquet_converted_name(int32_t converted)
{
    static const char *const t[] = {"UTF8",
                                    "MAP",
                                    "MAP_KEY_VALUE",
                                    "LIST",
                                    "ENUM",
                                    "DECIMAL",
                                    "DATE",
                                    "TIME_MILLIS",
                                    "TIME_MICROS",
                                    "TIMESTAMP_MILLIS",
                                    "TIMESTAMP_MICROS",
                                    "UINT_8",
                                    "UINT_16",
                                    "UINT_32",
                                    "UINT_64",
                                    "INT_8",
                                    "INT_16",
                                    "INT_32",
                                    "INT_64",
                                    "JSON",
                                    "BSON",
                                    "INTERVAL"};
    return NAME_AT(t, converted);
}

const char *cf_parquet_encoding_name(int32_t encoding)
{
    static const char *const t[] = {"PLAIN",
                                    "GROUP_VAR_INT", /* 1: never used by any writer */
                                    "PLAIN_DICTIONARY",
                                    "RLE",
                                    "BIT_PACKED",
                                    "DELTA_BINARY_PACKED",
                                    "DELTA_LENGTH_BYTE_ARRAY",
                                    "DELTA_BYTE_ARRAY",
                                    "RLE_DICTIONARY",
                                    "BYTE_STREAM_SPLIT",
                                    "ALP"};
    return NAME_AT(t, encoding);
}

const char *cf_parquet_codec_name(int32_t codec)
{
    static const char *const t[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                    "BROTLI",       "LZ4",    "ZSTD", "LZ4_RAW"};
    return NAME_AT(t, codec);
}

const char *cf_parquet_page_type_name(int32_t page_type)
{
    static const char *const t[] = {"DATA_PAGE", "INDEX_PAGE", "DICTIONARY_PAGE", "DATA_PAGE_V2"};
    return NAME_AT(t, page_type);
}

const char *cf_parquet_time_unit_name(uint32_t unit)
{
    static const char *const t[] = {NULL, "MILLIS", "MICROS", "NANOS"};
    return unit < 4 ? t[unit] : NULL;
}

const char *cf_parquet_logical_str(const cf_parquet_logical *lt, char *buf, size_t cap)
{
    const char *s = NULL;
    if (cap == 0)
        return buf;
    buf[0] = 0;
    switch (lt->kind) {
    case CF_PARQUET_LT_STRING: s = "STRING"; break;
    case CF_PARQUET_LT_MAP: s = "MAP"; break;
    case CF_PARQUET_LT_LIST: s = "LIST"; break;
    case CF_PARQUET_LT_ENUM: s = "ENUM"; break;
    case CF_PARQUET_LT_DATE: s = "DATE"; break;
    case CF_PARQUET_LT_UNKNOWN: s = "UNKNOWN"; break;
    case CF_PARQUET_LT_JSON: s = "JSON"; break;
    case CF_PARQUET_LT_BSON: s = "BSON"; break;
    case CF_PARQUET_LT_UUID: s = "UUID"; break;
    case CF_PARQUET_LT_FLOAT16: s = "FLOAT16"; break;
    case CF_PARQUET_LT_VARIANT: s = "VARIANT"; break;
    case CF_PARQUET_LT_GEOMETRY: s = "GEOMETRY"; break;
    case CF_PARQUET_LT_GEOGRAPHY: s = "GEOGRAPHY"; break;
    case CF_PARQUET_LT_DECIMAL:
        snprintf(buf, cap, "DECIMAL(%d,%d)", (int)lt->precision, (int)lt->scale);
        return buf;
    case CF_PARQUET_LT_INTEGER:
        snprintf(buf, cap, "INT(%d,%s)", (int)lt->bit_width, lt->is_signed ? "true" : "false");
        return buf;
    case CF_PARQUET_LT_TIME:
    case CF_PARQUET_LT_TIMESTAMP: {
        const char *u = cf_parquet_time_unit_name(lt->unit);
        snprintf(buf, cap, "%s(%s,%s)", lt->kind == CF_PARQUET_LT_TIME ? "TIME" : "TIMESTAMP",
                 u ? u : "?", lt->utc ? "true" : "false");
        return buf;
    }
    default: return buf;
    }
    snprintf(buf, cap, "%s", s);
    return buf;
}
