/* Kudu's encoded keys decoded (kudu_key.h has the byte forms). */
#include "kudu_key.h"

#include <stdlib.h>
#include <string.h>

#include "vprint.h"

int cf_kudu_key_decode(cf_kudu_key *k, const cf_type *types, const char *const *names, size_t n,
                       const uint8_t *p, size_t len)
{
    memset(k, 0, sizeof(*k));
    if (n > CF_KUDU_KEY_MAX_COLS)
        return -1;
    k->unescaped = malloc(len ? len : 1);
    if (k->unescaped == NULL)
        return -1;
    size_t at = 0, u = 0;
    for (size_t i = 0; i < n; i++) {
        cf_kudu_key_val *v = &k->v[i];
        v->type = types[i];
        v->name = names[i];
        if (cf_type_is_binary(types[i])) {
            uint8_t *start = k->unescaped + u;
            if (i + 1 == n) {
                memcpy(start, p + at, len - at);
                u += len - at;
                at = len;
            } else {
                for (;;) {
                    if (len - at < 2)
                        return -1;
                    if (p[at] != 0) {
                        k->unescaped[u++] = p[at++];
                        continue;
                    }
                    if (p[at + 1] == 0) {
                        at += 2;
                        break;
                    }
                    if (p[at + 1] != 1)
                        return -1;
                    k->unescaped[u++] = 0;
                    at += 2;
                }
            }
            cf_slice s = {start, (size_t)(k->unescaped + u - start)};
            memcpy(v->slot, &s, sizeof s);
            continue;
        }
        switch (cf_type_physical(types[i])) {
        case CF_TYPE_BOOL:
        case CF_TYPE_FLOAT:
        case CF_TYPE_DOUBLE: return -1; /* Kudu has no key encoding for them */
        default: break;
        }
        size_t w = cf_type_size(types[i]);
        if (w == 0 || w > 16 || len - at < w)
            return -1;
        /* big-endian on disk, the memory form is the host's (little-endian) order */
        for (size_t b = 0; b < w; b++)
            v->slot[b] = p[at + w - 1 - b];
        if (!cf_type_is_unsigned(types[i]))
            v->slot[w - 1] ^= 0x80;
        at += w;
    }
    if (at != len)
        return -1;
    k->n = n;
    return 0;
}

void cf_kudu_key_free(cf_kudu_key *k)
{
    free(k->unescaped);
    k->unescaped = NULL;
}

void cf_kudu_key_json(cf_jw *w, const cf_kudu_key *k)
{
    cf_jw_obj_begin(w);
    for (size_t i = 0; i < k->n; i++) {
        cf_jw_key(w, k->v[i].name);
        cf_cli_value_write(w, k->v[i].type, k->v[i].slot);
    }
    cf_jw_obj_end(w);
}

void cf_kudu_key_text(FILE *f, const cf_kudu_key *k)
{
    fputc('(', f);
    for (size_t i = 0; i < k->n; i++) {
        if (i)
            fputs(", ", f);
        cf_vp_value(f, CF_VP_TEXT, k->v[i].type, k->v[i].slot);
    }
    fputc(')', f);
}

long cf_kudu_base64_decode(uint8_t *out, const char *s, size_t len)
{
    uint32_t acc = 0;
    int bits = 0;
    long n = 0;
    for (size_t i = 0; i < len && s[i] != '='; i++) {
        int c = (unsigned char)s[i], v;
        if (c >= 'A' && c <= 'Z')
            v = c - 'A';
        else if (c >= 'a' && c <= 'z')
            v = c - 'a' + 26;
        else if (c >= '0' && c <= '9')
            v = c - '0' + 52;
        else if (c == '+' || c == '-')
            v = 62;
        else if (c == '/' || c == '_')
            v = 63;
        else
            return -1;
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (uint8_t)(acc >> bits);
        }
    }
    return n;
}
