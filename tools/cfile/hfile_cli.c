/* Shared pieces of `cfile hfile` (see hfile_cli.h). */
#include "hfile_cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Python's str.isprintable for one code point, for the ranges that occur in
 * practice: controls, separators, format characters and unassigned/private
 * planes are not printable. */
static bool cp_printable(uint32_t cp)
{
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0xa0) || cp == 0xad)
        return false;
    if (cp == 0x1680 || cp == 0x180e || (cp >= 0x2000 && cp <= 0x200f) ||
        (cp >= 0x2028 && cp <= 0x202f) || (cp >= 0x205f && cp <= 0x206f) || cp == 0x3000 ||
        cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb) || (cp >= 0x600 && cp <= 0x605) ||
        cp == 0x61c || cp == 0x6dd || cp == 0x70f)
        return false;
    if ((cp >= 0xd800 && cp <= 0xf8ff) || (cp & 0xfffe) == 0xfffe || cp >= 0xe0000)
        return false;
    return true;
}

static bool bytes_printable(const uint8_t *p, size_t n)
{
    if (!cf_utf8_valid(p, n))
        return false;
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        uint8_t b = p[i];
        if (b < 0x80) {
            cp = b;
            i += 1;
        } else if (b < 0xe0) {
            cp = ((uint32_t)(b & 0x1f) << 6) | (p[i + 1] & 0x3f);
            i += 2;
        } else if (b < 0xf0) {
            cp = ((uint32_t)(b & 0x0f) << 12) | ((uint32_t)(p[i + 1] & 0x3f) << 6) |
                 (p[i + 2] & 0x3f);
            i += 3;
        } else {
            cp = ((uint32_t)(b & 0x07) << 18) | ((uint32_t)(p[i + 1] & 0x3f) << 12) |
                 ((uint32_t)(p[i + 2] & 0x3f) << 6) | (p[i + 3] & 0x3f);
            i += 4;
        }
        if (!cp_printable(cp))
            return false;
    }
    return true;
}

void hf_jw_bytes(cf_jw *w, cf_slice s)
{
    if (bytes_printable(s.data, s.len)) {
        cf_jw_str(w, s.data ? (const char *)s.data : "", s.len);
    } else {
        cf_jw_obj_begin(w);
        cf_jw_key(w, "hex");
        cf_jw_hex(w, s.data, s.len);
        cf_jw_obj_end(w);
    }
}

int hf_key_cmp_prev(const cf_hfile *h, cf_slice prev, const cf_hfile_cell *cell)
{
    if (cf_hfile_get_info(h)->raw_keys) {
        size_t m = prev.len < cell->key.len ? prev.len : cell->key.len;
        int r = m ? memcmp(prev.data, cell->key.data, m) : 0;
        return r ? r : prev.len < cell->key.len ? -1 : prev.len > cell->key.len;
    }
    cf_hfile_cell pc;
    (void)cf_hfile_parse_key(&pc, prev.data, prev.len, NULL);
    return cf_hfile_cell_compare(&pc, cell);
}

void hf_print_bytes(FILE *f, cf_slice s)
{
    for (size_t i = 0; i < s.len; i++) {
        uint8_t b = s.data[i];
        if (b >= 0x20 && b < 0x7f && b != '\\')
            fputc(b, f);
        else
            fprintf(f, "\\x%02X", b);
    }
}

const char *hf_type_name(uint8_t t)
{
    const char *n = cf_hfile_type_name(t);
    return n ? n : "Unknown";
}

void hf_jw_key_members(cf_jw *w, const cf_hfile_cell *c)
{
    cf_jw_key(w, "row");
    hf_jw_bytes(w, c->row);
    cf_jw_key(w, "family");
    hf_jw_bytes(w, c->family);
    cf_jw_key(w, "qualifier");
    hf_jw_bytes(w, c->qualifier);
    cf_jw_kv_int(w, "timestamp", c->timestamp);
    cf_jw_kv_cstr(w, "type", hf_type_name(c->type));
}

void hf_jw_key(cf_jw *w, const cf_hfile *h, cf_slice k)
{
    cf_hfile_cell c;
    if ((h && cf_hfile_get_info(h)->raw_keys) ||
        cf_hfile_parse_key(&c, k.data, k.len, NULL) != CF_OK) {
        hf_jw_bytes(w, k);
        return;
    }
    cf_jw_obj_begin(w);
    hf_jw_key_members(w, &c);
    cf_jw_obj_end(w);
}

void hf_print_cell_key(FILE *f, const cf_hfile *h, const cf_hfile_cell *c)
{
    if (h && cf_hfile_get_info(h)->raw_keys) {
        hf_print_bytes(f, c->key);
        return;
    }
    hf_print_bytes(f, c->row);
    fputc('/', f);
    hf_print_bytes(f, c->family);
    fputc(':', f);
    hf_print_bytes(f, c->qualifier);
    fprintf(f, "/%" PRId64 "/%s", c->timestamp, hf_type_name(c->type));
}

void hf_print_key(FILE *f, const cf_hfile *h, cf_slice k)
{
    cf_hfile_cell c;
    if (cf_hfile_get_info(h)->raw_keys || cf_hfile_parse_key(&c, k.data, k.len, NULL) != CF_OK) {
        hf_print_bytes(f, k);
        return;
    }
    hf_print_cell_key(f, h, &c);
}

/* Tag layout (HBase ArrayBackedTag): length (2, big-endian, type + value) | type (1) | value. */
static bool tags_ok(cf_slice t)
{
    size_t pos = 0;
    while (pos < t.len) {
        if (t.len - pos < 2)
            return false;
        size_t n = ((size_t)t.data[pos] << 8) | t.data[pos + 1];
        if (n < 1 || n > t.len - pos - 2)
            return false;
        pos += 2 + n;
    }
    return true;
}

bool hf_print_tags(FILE *f, cf_slice t)
{
    if (!tags_ok(t))
        return false;
    size_t pos = 0;
    for (int i = 0; pos < t.len; i++) {
        size_t n = ((size_t)t.data[pos] << 8) | t.data[pos + 1];
        fprintf(f, " T[%d]: type=%u value=", i, t.data[pos + 2]);
        hf_print_bytes(f, (cf_slice){t.data + pos + 3, n - 1});
        pos += 2 + n;
    }
    return true;
}

void hf_jw_tags(cf_jw *w, cf_slice t)
{
    if (!tags_ok(t)) {
        cf_jw_null(w);
        return;
    }
    cf_jw_arr_begin(w);
    size_t pos = 0;
    while (pos < t.len) {
        size_t n = ((size_t)t.data[pos] << 8) | t.data[pos + 1];
        cf_jw_obj_begin(w);
        cf_jw_kv_uint(w, "type", t.data[pos + 2]);
        cf_jw_key(w, "value");
        hf_jw_bytes(w, (cf_slice){t.data + pos + 3, n - 1});
        cf_jw_obj_end(w);
        pos += 2 + n;
    }
    cf_jw_arr_end(w);
}

void hf_jw_version(cf_jw *w, const cf_hfile *h)
{
    const cf_hfile_trailer *t = cf_hfile_get_trailer(h);
    cf_jw_kv_obj_begin(w, "hfile_version");
    cf_jw_kv_uint(w, "major", t->major);
    cf_jw_kv_uint(w, "minor", t->minor);
    cf_jw_obj_end(w);
    cf_jw_key(w, "compression");
    const char *cn = cf_hfile_codec_name(t->compression_codec);
    cf_jw_cstr(w, cn ? cn : "UNKNOWN");
}

void hf_jw_begin(cf_jw *w, FILE *out, const hf_opts *o)
{
    cf_jw_init(w, out);
    cf_jw_obj_begin(w);
    if (o->file_key)
        cf_jw_kv_cstr(w, "file", o->file_key);
}

int hf_unhex(const char *s, uint8_t **out, size_t *len)
{
    size_t n = strlen(s);
    if (n % 2)
        return -1;
    uint8_t *b = malloc(n / 2 + 1);
    if (!b)
        return -1;
    if (cf_cli_hex_decode(b, s, n) != 0) {
        free(b);
        return -1;
    }
    *out = b;
    *len = n / 2;
    return 0;
}

const char *hf_encoding(const cf_hfile *h)
{
    const char *n = cf_hfile_encoding_name(cf_hfile_get_info(h)->data_block_encoding);
    return n ? n : "UNKNOWN";
}
