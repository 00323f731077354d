/* cf_iter_next_arrow / cf_arrow_schema: an independent Arrow C Data Interface
 * consumer, written from the Arrow spec (format strings, buffer counts, validity
 * bitmaps, offsets, list children), checks every exported buffer against what
 * `cfile dump --json` prints for the same file: every golden file, files written
 * here for the types and shapes the golden set lacks, the options, zero copy
 * from mmap and memory ios, release and child moves, and allocation failures. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cfile/arrow.h>
#include <cfile/cfile.h>

#include "cli.h"
#include "json.h"
#include "support_cli.h"
#include "test_common.h"
#include "util/alloc.h"
#include "util/int128.h"

/* ---- dump --json ------------------------------------------------------------------------ */

typedef struct dumped {
    cf_json_doc doc;
    const cf_json *values;
    const char *type; /* DataType name as dump spells it */
    bool nullable, is_array;
} dumped;

static void dump_json(dumped *d, const char *path)
{
    char *text = NULL, *etext = NULL;
    size_t len = 0, elen = 0;
    FILE *out = open_memstream(&text, &len);
    FILE *errf = open_memstream(&etext, &elen);
    assert_non_null(out);
    assert_non_null(errf);
    char *argv[] = {"cfile", "dump", "--json", (char *)path, NULL};
    int rc = cf_cli_main(4, argv, out, errf);
    fclose(out);
    fclose(errf);
    if (rc != 0)
        fail_msg("cfile dump --json %s: exit %d: %s", path, rc, etext);
    free(etext);
    char msg[128];
    memset(&d->doc, 0, sizeof d->doc);
    if (cf_json_parse(&d->doc, text, len, msg, sizeof msg) != 0)
        fail_msg("dump output of %s: %s", path, msg);
    free(text);
    const cf_json *root = &d->doc.root;
    d->values = cf_json_get(root, "values");
    const cf_json *t = cf_json_get(root, "type");
    assert_non_null(d->values);
    assert_non_null(t);
    assert_int_equal(d->values->kind, CF_JSON_ARRAY);
    d->type = t->str;
    d->nullable = cf_json_get(root, "nullable")->kind == CF_JSON_TRUE;
    d->is_array = cf_json_get(root, "is_array")->kind == CF_JSON_TRUE;
}

/* ---- the consumer: Arrow format strings ------------------------------------------------- */

typedef enum kind { K_INT, K_UINT, K_F32, K_F64, K_BOOL, K_STR, K_BIN, K_DEC, K_LIST } kind;

typedef struct fmt {
    kind k;
    int width; /* bytes of one fixed-width value; offset width for K_STR/K_BIN */
    int prec, scale;
} fmt;

/* Parse the subset of format strings a CFile column can map to (Arrow spec,
 * "Data type description -- format strings"). */
static fmt parse_format(const char *f)
{
    fmt r = {0};
    if (strlen(f) == 1) {
        static const char codes[] = "cCsSiIlLfgbuUzZ";
        const char *p = strchr(codes, f[0]);
        if (p == NULL)
            fail_msg("unexpected format %s", f);
        switch (f[0]) {
        case 'c':
            r.k = K_INT;
            r.width = 1;
            break;
        case 'C':
            r.k = K_UINT;
            r.width = 1;
            break;
        case 's':
            r.k = K_INT;
            r.width = 2;
            break;
        case 'S':
            r.k = K_UINT;
            r.width = 2;
            break;
        case 'i':
            r.k = K_INT;
            r.width = 4;
            break;
        case 'I':
            r.k = K_UINT;
            r.width = 4;
            break;
        case 'l':
            r.k = K_INT;
            r.width = 8;
            break;
        case 'L':
            r.k = K_UINT;
            r.width = 8;
            break;
        case 'f':
            r.k = K_F32;
            r.width = 4;
            break;
        case 'g':
            r.k = K_F64;
            r.width = 8;
            break;
        case 'b': r.k = K_BOOL; break;
        case 'u':
            r.k = K_STR;
            r.width = 4;
            break;
        case 'U':
            r.k = K_STR;
            r.width = 8;
            break;
        case 'z':
            r.k = K_BIN;
            r.width = 4;
            break;
        case 'Z':
            r.k = K_BIN;
            r.width = 8;
            break;
        }
        return r;
    }
    if (strcmp(f, "tdD") == 0) {
        r.k = K_INT;
        r.width = 4;
        return r;
    }
    if (strncmp(f, "tsu:", 4) == 0) {
        r.k = K_INT;
        r.width = 8;
        return r;
    }
    if (strcmp(f, "+l") == 0) {
        r.k = K_LIST;
        return r;
    }
    int bits = 128, n = 0;
    if (sscanf(f, "d:%d,%d%n", &r.prec, &r.scale, &n) == 2) {
        if (f[n] == ',')
            bits = atoi(f + n + 1);
        else
            assert_int_equal(f[n], '\0');
        assert_true(bits == 32 || bits == 64 || bits == 128);
        r.k = K_DEC;
        r.width = bits / 8;
        return r;
    }
    fail_msg("unexpected format %s", f);
    return r;
}

/* The format a CFile type must export as, from the mapping in the issue. */
static const char *expected_format(const char *type, const cf_arrow_options *o, bool large,
                                   char *buf, size_t cap)
{
    static const struct {
        const char *t, *f;
    } m[] = {
        {"INT8", "c"},   {"UINT8", "C"},  {"INT16", "s"},       {"UINT16", "S"}, {"INT32", "i"},
        {"UINT32", "I"}, {"INT64", "l"},  {"UINT64", "L"},      {"FLOAT", "f"},  {"DOUBLE", "g"},
        {"BOOL", "b"},   {"DATE", "tdD"}, {"INT128", "d:38,0"},
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (strcmp(type, m[i].t) == 0)
            return m[i].f;
    if (strcmp(type, "STRING") == 0 || strcmp(type, "VARCHAR") == 0) {
        if (o->utf8 == CF_ARROW_UTF8_BINARY)
            return large ? "Z" : "z";
        return large ? "U" : "u";
    }
    if (strcmp(type, "BINARY") == 0)
        return large ? "Z" : "z";
    if (strcmp(type, "UNIXTIME_MICROS") == 0) {
        snprintf(buf, cap, "tsu:%s", o->timezone ? o->timezone : "");
        return buf;
    }
    int maxp = strcmp(type, "DECIMAL32") == 0 ? 9 : strcmp(type, "DECIMAL64") == 0 ? 18 : 38;
    int p = o->decimal_precision ? o->decimal_precision : maxp;
    if (o->native_decimal_widths && maxp < 38)
        snprintf(buf, cap, "d:%d,%d,%d", p, o->decimal_scale, maxp == 9 ? 32 : 64);
    else
        snprintf(buf, cap, "d:%d,%d", p, o->decimal_scale);
    return buf;
}

/* ---- the consumer: value checks --------------------------------------------------------- */

static bool bit_at(const void *bm, int64_t i)
{
    return (((const uint8_t *)bm)[i >> 3] >> (i & 7)) & 1;
}

static cf_i128 parse_i128(const char *s)
{
    bool neg = *s == '-';
    if (neg || *s == '+')
        s++;
    assert_true(*s >= '0' && *s <= '9');
    cf_u128 v = 0;
    for (; *s; s++) {
        assert_true(*s >= '0' && *s <= '9');
        v = v * 10 + (unsigned)(*s - '0');
    }
    return neg ? (cf_i128)(0 - v) : (cf_i128)v;
}

static size_t unhex(const char *h, size_t hlen, uint8_t *out)
{
    assert_int_equal(hlen % 2, 0);
    for (size_t i = 0; i < hlen / 2; i++) {
        unsigned x;
        assert_int_equal(sscanf(h + 2 * i, "%2x", &x), 1);
        out[i] = (uint8_t)x;
    }
    return hlen / 2;
}

/* Bits of a FLOAT/DOUBLE value form. */
static uint64_t float_bits(const cf_json *v, bool dbl)
{
    assert_true(v->kind == CF_JSON_STRING || v->kind == CF_JSON_NUMBER);
    if (strcmp(v->str, "NaN") == 0)
        return dbl ? 0x7ff8000000000000ull : 0x7fc00000u;
    if (strcmp(v->str, "Infinity") == 0)
        return dbl ? 0x7ff0000000000000ull : 0x7f800000u;
    if (strcmp(v->str, "-Infinity") == 0)
        return dbl ? 0xfff0000000000000ull : 0xff800000u;
    if (strncmp(v->str, "0x", 2) == 0)
        return strtoull(v->str + 2, NULL, 16);
    assert_int_equal(v->kind, CF_JSON_NUMBER);
    if (dbl) {
        double d = strtod(v->str, NULL);
        uint64_t b;
        memcpy(&b, &d, 8);
        return b;
    }
    float f = strtof(v->str, NULL);
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

/* Compare element `i` (offset applied) of a leaf array with one non-null value form. */
static void check_value(const struct ArrowArray *a, fmt f, const char *type, int64_t i,
                        const cf_json *v)
{
    int64_t j = a->offset + i;
    const uint8_t *data = a->buffers[1];
    assert_non_null(data);
    switch (f.k) {
    case K_INT: {
        assert_int_equal(v->kind, CF_JSON_NUMBER);
        assert_true(cf_json_is_integer(v));
        int64_t got = 0;
        switch (f.width) {
        case 1: got = ((const int8_t *)data)[j]; break;
        case 2: got = ((const int16_t *)(const void *)data)[j]; break;
        case 4: got = ((const int32_t *)(const void *)data)[j]; break;
        case 8: got = ((const int64_t *)(const void *)data)[j]; break;
        }
        int64_t want = strtoll(v->str, NULL, 10);
        if (got != want)
            fail_msg("%s element %lld: arrow %lld, dump %s", type, (long long)i, (long long)got,
                     v->str);
        break;
    }
    case K_UINT: {
        assert_int_equal(v->kind, CF_JSON_NUMBER);
        uint64_t got = 0;
        switch (f.width) {
        case 1: got = data[j]; break;
        case 2: got = ((const uint16_t *)(const void *)data)[j]; break;
        case 4: got = ((const uint32_t *)(const void *)data)[j]; break;
        case 8: got = ((const uint64_t *)(const void *)data)[j]; break;
        }
        assert_true(got == strtoull(v->str, NULL, 10));
        break;
    }
    case K_F32: {
        uint32_t got;
        memcpy(&got, data + 4 * j, 4);
        assert_true(got == (uint32_t)float_bits(v, false));
        break;
    }
    case K_F64: {
        uint64_t got;
        memcpy(&got, data + 8 * j, 8);
        assert_true(got == float_bits(v, true));
        break;
    }
    case K_BOOL:
        assert_true(v->kind == CF_JSON_TRUE || v->kind == CF_JSON_FALSE);
        assert_int_equal(bit_at(data, j), v->kind == CF_JSON_TRUE);
        break;
    case K_DEC: {
        /* decimal128/64/32: little-endian two's complement of f.width bytes. */
        cf_i128 got = 0;
        if (f.width == 16) {
            memcpy(&got, data + 16 * j, 16);
        } else if (f.width == 8) {
            int64_t x;
            memcpy(&x, data + 8 * j, 8);
            got = x;
        } else {
            int32_t x;
            memcpy(&x, data + 4 * j, 4);
            got = x;
        }
        assert_true(v->kind == CF_JSON_STRING || v->kind == CF_JSON_NUMBER);
        assert_true(got == parse_i128(v->str));
        break;
    }
    case K_STR:
    case K_BIN: {
        const uint8_t *bytes = a->buffers[2];
        assert_non_null(bytes);
        int64_t o0, o1;
        if (f.width == 4) {
            const int32_t *o = a->buffers[1];
            o0 = o[j];
            o1 = o[j + 1];
        } else {
            const int64_t *o = a->buffers[1];
            o0 = o[j];
            o1 = o[j + 1];
        }
        assert_true(o0 >= 0 && o1 >= o0);
        uint8_t *want = malloc(v->len / 2 + v->len + 1);
        size_t wlen;
        bool text = strcmp(type, "STRING") == 0 || strcmp(type, "VARCHAR") == 0;
        if (f.k == K_BIN && !text) {
            assert_int_equal(v->kind, CF_JSON_STRING);
            wlen = unhex(v->str, v->len, want);
        } else if (v->kind == CF_JSON_STRING) {
            memcpy(want, v->str, v->len);
            wlen = v->len;
        } else {
            const cf_json *h = cf_json_get(v, "hex");
            assert_non_null(h);
            free(want);
            want = malloc(h->len / 2 + 1);
            wlen = unhex(h->str, h->len, want);
        }
        CF_ASSERT_BYTES(bytes + o0, (size_t)(o1 - o0), want, wlen);
        free(want);
        break;
    }
    case K_LIST: fail_msg("list in a leaf"); break;
    }
}

static int64_t count_nulls(const struct ArrowArray *a)
{
    if (a->buffers[0] == NULL)
        return 0;
    int64_t n = 0;
    for (int64_t i = 0; i < a->length; i++)
        n += !bit_at(a->buffers[0], a->offset + i);
    return n;
}

/* Structure shared by every array node (spec: "The ArrowArray structure"). */
static void check_node(const struct ArrowArray *a, const struct ArrowSchema *s, fmt f)
{
    assert_non_null(a->release);
    assert_non_null(s->release);
    assert_null(a->dictionary);
    assert_null(s->dictionary);
    int64_t want_buffers = f.k == K_STR || f.k == K_BIN ? 3 : 2;
    assert_int_equal(a->n_buffers, want_buffers);
    assert_non_null(a->buffers);
    assert_true(a->length >= 0 && a->offset >= 0);
    assert_true(a->null_count >= -1 && a->null_count <= a->length);
    if (a->null_count > 0)
        assert_non_null(a->buffers[0]);
    if (a->null_count != -1)
        assert_int_equal(a->null_count, count_nulls(a));
    if (a->null_count > 0)
        assert_true(s->flags & ARROW_FLAG_NULLABLE);
    assert_int_equal(a->n_children, f.k == K_LIST ? 1 : 0);
    assert_int_equal(s->n_children, a->n_children);
}

static bool valid_at(const struct ArrowArray *a, int64_t i)
{
    return a->buffers[0] == NULL || bit_at(a->buffers[0], a->offset + i);
}

/* The whole exported batch against rows [first, first + length) of the dump. */
static void check_batch(const struct ArrowArray *a, const struct ArrowSchema *s, const dumped *d,
                        size_t first)
{
    fmt f = parse_format(s->format);
    check_node(a, s, f);
    assert_true(first + (size_t)a->length <= d->values->n);
    assert_int_equal(f.k == K_LIST, d->is_array);
    if (f.k != K_LIST) {
        for (int64_t i = 0; i < a->length; i++) {
            const cf_json *v = &d->values->items[first + (size_t)i];
            assert_int_equal(valid_at(a, i), v->kind != CF_JSON_NULL);
            if (v->kind != CF_JSON_NULL)
                check_value(a, f, d->type, i, v);
        }
        return;
    }
    const struct ArrowArray *c = a->children[0];
    const struct ArrowSchema *cs = s->children[0];
    assert_string_equal(cs->name, "item");
    fmt cf = parse_format(cs->format);
    assert_true(cf.k != K_LIST);
    check_node(c, cs, cf);
    const int32_t *offs = a->buffers[1];
    assert_non_null(offs);
    for (int64_t i = 0; i < a->length; i++) {
        const cf_json *cell = &d->values->items[first + (size_t)i];
        int32_t o0 = offs[a->offset + i], o1 = offs[a->offset + i + 1];
        assert_true(o0 >= 0 && o1 >= o0 && o1 <= c->length);
        if (!valid_at(a, i)) {
            assert_int_equal(cell->kind, CF_JSON_NULL);
            continue;
        }
        assert_int_equal(cell->kind, CF_JSON_ARRAY);
        assert_int_equal((size_t)(o1 - o0), cell->n);
        for (int32_t e = o0; e < o1; e++) {
            const cf_json *v = &cell->items[e - o0];
            assert_int_equal(valid_at(c, e), v->kind != CF_JSON_NULL);
            if (v->kind != CF_JSON_NULL)
                check_value(c, cf, d->type, e, v);
        }
    }
}

/* The schema (top level and list child) against the dumped header. */
static void check_schema(const struct ArrowSchema *s, const dumped *d, const cf_arrow_options *o,
                         bool large)
{
    char buf[64];
    const char *want = expected_format(d->type, o, large, buf, sizeof buf);
    assert_non_null(s->release);
    assert_string_equal(s->name, o->name ? o->name : "");
    assert_null(s->metadata);
    assert_int_equal(s->flags, d->nullable ? ARROW_FLAG_NULLABLE : 0);
    if (d->is_array) {
        assert_string_equal(s->format, "+l");
        assert_int_equal(s->n_children, 1);
        assert_string_equal(s->children[0]->format, want);
        assert_int_equal(s->children[0]->flags, ARROW_FLAG_NULLABLE);
        assert_int_equal(s->children[0]->n_children, 0);
    } else {
        assert_string_equal(s->format, want);
        assert_int_equal(s->n_children, 0);
    }
}

/* ---- scans ------------------------------------------------------------------------------ */

typedef enum io_kind { IO_PREAD, IO_MMAP, IO_MEM } io_kind;

typedef struct opened {
    cf_io *io;
    cf_reader *r;
    uint8_t *bytes; /* IO_MEM */
    cf_iter *it;    /* open_iter */
} opened;

static void open_as(opened *op, const char *path, io_kind k)
{
    cf_error err;
    memset(op, 0, sizeof *op);
    if (k == IO_PREAD) {
        CF_ASSERT_OK(cf_io_open_file(&op->io, path, &err), &err);
    } else if (k == IO_MMAP) {
        CF_ASSERT_OK(cf_io_open_mmap(&op->io, path, &err), &err);
    } else {
        size_t len;
        op->bytes = cf_test_read_file(path, &len);
        assert_non_null(op->bytes);
        CF_ASSERT_OK(cf_io_open_mem(&op->io, op->bytes, len, &err), &err);
    }
    CF_ASSERT_OK(cf_reader_open(&op->r, op->io, NULL, &err), &err);
}

/* open_as, and an iterator over the file in op->it. */
static void open_iter(opened *op, const char *path, io_kind k)
{
    open_as(op, path, k);
    cf_error err;
    CF_ASSERT_OK(cf_iter_create(&op->it, op->r, &err), &err);
}

static void close_opened(opened *op)
{
    cf_iter_free(op->it);
    cf_reader_free(op->r);
    cf_io_free(op->io);
    free(op->bytes);
}

/* Is [p, p+len) inside the io's lent bytes? */
static bool in_io(cf_io *io, const void *p, size_t len)
{
    if (io->ops->view_at == NULL)
        return false;
    uint64_t size = io->ops->size(io);
    const uint8_t *base = io->ops->view_at(io, 0, (size_t)size);
    return base != NULL && (const uint8_t *)p >= base && (const uint8_t *)p + len <= base + size;
}

typedef struct scan_stats {
    size_t batches, rows, zero_copy;
} scan_stats;

/* Export the whole file in batches of max_rows and check each one. The arrays
 * are kept until the end of the scan (and past cf_iter_free) to prove they do
 * not depend on the iterator. */
static scan_stats scan(const char *path, const dumped *d, io_kind k, size_t max_rows,
                       const cf_arrow_options *o)
{
    opened op;
    open_iter(&op, path, k);
    cf_arrow_options oo = *o;
    if (k != IO_PREAD)
        oo.lender = op.io;
    cf_error err;

    size_t cap = 16, n = 0;
    struct ArrowArray *arrs = malloc(cap * sizeof *arrs);
    struct ArrowSchema *schs = malloc(cap * sizeof *schs);
    scan_stats st = {0};
    for (;;) {
        if (n == cap) {
            cap *= 2;
            arrs = realloc(arrs, cap * sizeof *arrs);
            schs = realloc(schs, cap * sizeof *schs);
        }
        CF_ASSERT_OK(cf_iter_next_arrow(op.it, max_rows, &oo, &arrs[n], &schs[n], &err), &err);
        if (arrs[n].release == NULL) {
            assert_null(schs[n].release);
            break;
        }
        assert_true(arrs[n].length > 0 && (size_t)arrs[n].length <= max_rows);
        check_schema(&schs[n], d, o, o->large_binary);
        check_batch(&arrs[n], &schs[n], d, st.rows);
        if (!d->is_array && arrs[n].n_buffers == 2 &&
            in_io(op.io, arrs[n].buffers[1], (size_t)arrs[n].length))
            st.zero_copy++;
        st.rows += (size_t)arrs[n].length;
        n++;
    }
    assert_int_equal(st.rows, d->values->n);
    cf_iter_free(op.it);
    op.it = NULL;
    /* Still valid after more calls and after the iterator is gone. */
    size_t first = 0;
    for (size_t i = 0; i < n; i++) {
        check_batch(&arrs[i], &schs[i], d, first);
        first += (size_t)arrs[i].length;
        arrs[i].release(&arrs[i]);
        assert_null(arrs[i].release);
        schs[i].release(&schs[i]);
        assert_null(schs[i].release);
    }
    st.batches = n;
    free(arrs);
    free(schs);
    close_opened(&op);
    return st;
}

/* Does a dumped value (or an array cell's element) hold STRING bytes that are
 * not UTF-8 (dump prints them as {"hex": ...})? */
static bool holds_non_utf8(const cf_json *v)
{
    if (v->kind == CF_JSON_OBJECT)
        return true;
    if (v->kind == CF_JSON_ARRAY)
        for (size_t i = 0; i < v->n; i++)
            if (holds_non_utf8(&v->items[i]))
                return true;
    return false;
}

/* The UTF-8 rule (arrow.h): with the default options, some batch of a file whose
 * STRING values are not all UTF-8 fails with CF_ENOTSUP naming the row. */
static void expect_utf8_refusal(const char *path, const cf_arrow_options *o)
{
    opened op;
    open_iter(&op, path, IO_PREAD);
    cf_error err;
    cf_status st;
    for (;;) {
        struct ArrowArray a;
        st = cf_iter_next_arrow(op.it, 64, o, &a, NULL, &err);
        if (st != CF_OK || a.release == NULL)
            break;
        a.release(&a);
    }
    CF_ASSERT_STATUS(st, CF_ENOTSUP, &err);
    assert_non_null(strstr(err.msg, "is not valid UTF-8"));
    close_opened(&op);
}

static void check_file(const char *path, const cf_arrow_options *o)
{
    dumped d;
    dump_json(&d, path);
    cf_arrow_options dflt;
    if (o == NULL) {
        cf_arrow_options_init(&dflt);
        o = &dflt;
    }
    cf_arrow_options bin;
    if (o->utf8 == CF_ARROW_UTF8_CHECK && holds_non_utf8(d.values)) {
        expect_utf8_refusal(path, o);
        bin = *o;
        bin.utf8 = CF_ARROW_UTF8_BINARY;
        o = &bin;
    }
    scan(path, &d, IO_PREAD, 1024, o);
    scan(path, &d, IO_MMAP, 37, o);
    scan(path, &d, IO_MEM, 1, o);
    /* cf_arrow_schema agrees with the per-batch schema. */
    opened op;
    open_as(&op, path, IO_PREAD);
    struct ArrowSchema s;
    cf_error err;
    CF_ASSERT_OK(cf_arrow_schema(op.r, o, &s, &err), &err);
    check_schema(&s, &d, o, o->large_binary);
    s.release(&s);
    assert_null(s.release);
    close_opened(&op);
    cf_json_doc_dispose(&d.doc);
}

/* ---- golden files ----------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_arrow__golden(void **state)
{
    (void)state;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/golden", cf_test_shared_dir());
    DIR *dp = opendir(dir);
    assert_non_null(dp);
    char *names[512];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL && n < 512) {
        if (e->d_name[0] == '.' || strncmp(e->d_name, "bloom-", 6) == 0)
            continue;
        char p[1200];
        struct stat sb;
        snprintf(p, sizeof p, "%.400s/%.255s/%.255s.cfile", dir, e->d_name, e->d_name);
        if (stat(p, &sb) == 0)
            names[n++] = strdup(e->d_name);
    }
    closedir(dp);
    qsort(names, n, sizeof names[0], cmp_str);
    assert_true(n >= 100);
    for (size_t i = 0; i < n; i++) {
        char p[1200];
        snprintf(p, sizeof p, "%.400s/%.255s/%.255s.cfile", dir, names[i], names[i]);
        check_file(p, NULL);
        free(names[i]);
    }
    printf("checked %zu golden files\n", n);
}

/* ---- files written here ----------------------------------------------------------------- */

/* A random value of type t in memory form; binary bytes come from `pool`. */
static void random_value(cf_rng *g, cf_type t, void *slot, const uint8_t *pool)
{
    size_t w = cf_type_size(t);
    if (cf_type_is_binary(t)) {
        cf_slice s = {pool + cf_rng_below(g, 64), (size_t)cf_rng_below(g, 20)};
        if (cf_rng_below(g, 10) == 0)
            s.len = 0;
        memcpy(slot, &s, sizeof s);
        return;
    }
    if (t == CF_TYPE_BOOL) {
        *(uint8_t *)slot = (uint8_t)cf_rng_below(g, 2);
        return;
    }
    uint8_t raw[16];
    for (int i = 0; i < 16; i++)
        raw[i] = (uint8_t)cf_rng_next(g);
    if (t == CF_TYPE_FLOAT) {
        float f = (float)((double)(int64_t)cf_rng_next(g) / 1e12);
        memcpy(raw, &f, 4);
    } else if (t == CF_TYPE_DOUBLE) {
        double x = (double)(int64_t)cf_rng_next(g) / 1e9;
        memcpy(raw, &x, 8);
    } else if (t == CF_TYPE_DECIMAL32) {
        int32_t x = (int32_t)(cf_rng_below(g, 1999999999u)) - 999999999;
        memcpy(raw, &x, 4);
    } else if (t == CF_TYPE_DECIMAL64) {
        int64_t x = (int64_t)cf_rng_below(g, 1999999999999999999ull) - 999999999999999999ll;
        memcpy(raw, &x, 8);
    } else if (t == CF_TYPE_DECIMAL128) {
        cf_i128 x = (cf_i128)(int64_t)cf_rng_next(g) * 1000000007;
        memcpy(raw, &x, 16);
    }
    memcpy(slot, raw, w);
}

/* Write `rows` rows (cells) of type t with some NULLs, empty arrays, NULL
 * elements; returns the path. */
static const char *write_file(const char *name, cf_type t, cf_encoding enc, bool nullable,
                              bool is_array, size_t rows, uint64_t seed)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s.cfile", cli_dir, name);
    cf_rng g;
    cf_rng_init(&g, seed);
    static const uint8_t pool[128] =
        "The quick brown fox jumps over the lazy dog; "
        "\xff\xfe\x00\x01 naive caf\xc3\xa9 0123456789 abcdefghijklmnopq"
        "rstuvwxyzABCDEFGHIJ";
    cf_writer_options wo;
    cf_writer_options_init(&wo, t);
    wo.encoding = enc;
    wo.nullable = nullable;
    wo.is_array = is_array;
    wo.block_size = 1024; /* several blocks, so batches stop at block ends */
    cf_error err;
    cf_writer *w;
    CF_ASSERT_OK(cf_writer_create_file(&w, path, &wo, &err), &err);
    size_t es = cf_type_size(t);
    uint8_t *nn = calloc(rows / 8 + 1, 1);
    if (!is_array) {
        uint8_t *vals = calloc(rows, es);
        for (size_t i = 0; i < rows; i++) {
            bool present = !nullable || cf_rng_below(&g, 4) != 0;
            if (present)
                nn[i / 8] |= (uint8_t)(1u << (i % 8));
            random_value(&g, t, vals + i * es, pool);
        }
        CF_ASSERT_OK(cf_writer_append(w, vals, nullable ? nn : NULL, rows, &err), &err);
        free(vals);
    } else {
        uint32_t *counts = calloc(rows, sizeof *counts);
        size_t total = 0;
        for (size_t i = 0; i < rows; i++) {
            bool present = !nullable || cf_rng_below(&g, 6) != 0;
            if (present) {
                nn[i / 8] |= (uint8_t)(1u << (i % 8));
                counts[i] = cf_rng_below(&g, 5) == 0 ? 0 : (uint32_t)cf_rng_below(&g, 9);
            }
            total += counts[i];
        }
        uint8_t *elems = calloc(total + 1, es);
        uint8_t *enn = calloc(total / 8 + 1, 1);
        for (size_t e = 0; e < total; e++) {
            if (cf_rng_below(&g, 5) != 0)
                enn[e / 8] |= (uint8_t)(1u << (e % 8));
            random_value(&g, t, elems + e * es, pool);
        }
        CF_ASSERT_OK(
            cf_writer_append_arrays(w, elems, enn, counts, nullable ? nn : NULL, rows, &err), &err);
        free(elems);
        free(enn);
        free(counts);
    }
    CF_ASSERT_OK(cf_writer_finish(w, &err), &err);
    cf_writer_free(w);
    free(nn);
    return path;
}

static const cf_type all_types[] = {
    CF_TYPE_INT8,      CF_TYPE_UINT8,     CF_TYPE_INT16,      CF_TYPE_UINT16,
    CF_TYPE_INT32,     CF_TYPE_UINT32,    CF_TYPE_INT64,      CF_TYPE_UINT64,
    CF_TYPE_FLOAT,     CF_TYPE_DOUBLE,    CF_TYPE_BOOL,       CF_TYPE_STRING,
    CF_TYPE_VARCHAR,   CF_TYPE_BINARY,    CF_TYPE_DATE,       CF_TYPE_INT128,
    CF_TYPE_DECIMAL32, CF_TYPE_DECIMAL64, CF_TYPE_DECIMAL128, CF_TYPE_UNIXTIME_MICROS,
};
#define N_TYPES (sizeof all_types / sizeof all_types[0])

/* Every type, as scalars and arrays, nullable or not, default encoding and PLAIN. */
static void test_arrow__every_type(void **state)
{
    (void)state;
    uint64_t seed = cf_test_seed(0xa77000);
    size_t files = 0;
    for (size_t ti = 0; ti < N_TYPES; ti++) {
        for (int shape = 0; shape < 8; shape++) {
            bool nullable = shape & 1, is_array = shape & 2, plain = shape & 4;
            cf_type t = all_types[ti];
            cf_encoding enc =
                plain && cf_type_allows_encoding(t, CF_ENC_PLAIN) ? CF_ENC_PLAIN : CF_ENC_AUTO;
            char name[64];
            snprintf(name, sizeof name, "%s-%d", cf_type_name(t), shape);
            const char *p =
                write_file(name, t, enc, nullable, is_array, 700, seed + ti * 8 + (uint64_t)shape);
            check_file(p, NULL);
            unlink(p);
            files++;
        }
    }
    printf("checked %zu written files\n", files);
}

/* Decimal precision/scale, native widths, large offsets, timezone, name. */
static void test_arrow__options(void **state)
{
    (void)state;
    uint64_t seed = cf_test_seed(0xa77001);
    cf_arrow_options o;
    static const cf_type decs[] = {CF_TYPE_DECIMAL32, CF_TYPE_DECIMAL64, CF_TYPE_DECIMAL128};
    for (size_t i = 0; i < 3; i++) {
        for (int arr = 0; arr < 2; arr++) {
            const char *p = write_file("dec", decs[i], CF_ENC_AUTO, true, arr, 300, seed);
            cf_arrow_options_init(&o);
            o.decimal_precision = 9;
            o.decimal_scale = 2;
            o.name = "price";
            check_file(p, &o);
            o.native_decimal_widths = true;
            check_file(p, &o);
            cf_arrow_options_init(&o);
            o.native_decimal_widths = true;
            o.decimal_scale = -3;
            check_file(p, &o);
            unlink(p);
        }
    }
    static const cf_type bins[] = {CF_TYPE_STRING, CF_TYPE_BINARY, CF_TYPE_VARCHAR};
    for (size_t i = 0; i < 3; i++) {
        for (int arr = 0; arr < 2; arr++) {
            const char *p = write_file("bin", bins[i], CF_ENC_AUTO, true, arr, 300, seed);
            cf_arrow_options_init(&o);
            o.large_binary = true;
            check_file(p, &o);
            unlink(p);
        }
    }
    const char *p = write_file("ts", CF_TYPE_UNIXTIME_MICROS, CF_ENC_AUTO, false, false, 300, seed);
    cf_arrow_options_init(&o);
    o.timezone = "Europe/Paris";
    check_file(p, &o);
    unlink(p);
}

/* Bad options are CF_EINVAL before any row is consumed. */
static void test_arrow__bad_options(void **state)
{
    (void)state;
    const char *p = write_file("badopt", CF_TYPE_DECIMAL32, CF_ENC_AUTO, false, false, 50, 1);
    opened op;
    open_iter(&op, p, IO_PREAD);
    cf_error err;
    struct ArrowArray a;
    struct ArrowSchema s;
    cf_arrow_options o;
    struct {
        int32_t prec, scale;
        bool native;
        uint32_t version;
    } bad[] = {
        {39, 0, false, CF_ARROW_OPTIONS_VERSION},
        {-1, 0, false, CF_ARROW_OPTIONS_VERSION},
        {10, 0, true, CF_ARROW_OPTIONS_VERSION},
        {5, 6, false, CF_ARROW_OPTIONS_VERSION},
        {0, 0, false, 99},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cf_arrow_options_init(&o);
        o.decimal_precision = bad[i].prec;
        o.decimal_scale = bad[i].scale;
        o.native_decimal_widths = bad[i].native;
        o.version = bad[i].version;
        CF_ASSERT_STATUS(cf_iter_next_arrow(op.it, 10, &o, &a, &s, &err), CF_EINVAL, &err);
        assert_null(a.release);
        assert_null(s.release);
        CF_ASSERT_STATUS(cf_arrow_schema(op.r, &o, &s, &err), CF_EINVAL, &err);
        assert_null(s.release);
        assert_int_equal(cf_iter_current_ordinal(op.it), 0);
    }
    /* Defaults (NULL options), schema not asked for. */
    CF_ASSERT_OK(cf_iter_next_arrow(op.it, 10, NULL, &a, NULL, &err), &err);
    assert_int_equal(a.length, 10);
    a.release(&a);
    close_opened(&op);
}

/* PLAIN fixed-width non-null blocks from mmap/memory are referenced, not copied;
 * without a lender (or from pread) they are copied. */
static void test_arrow__zero_copy(void **state)
{
    (void)state;
    static const cf_type ts[] = {CF_TYPE_INT32, CF_TYPE_INT64,           CF_TYPE_DOUBLE,
                                 CF_TYPE_DATE,  CF_TYPE_UNIXTIME_MICROS, CF_TYPE_DECIMAL128,
                                 CF_TYPE_INT128};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        const char *p = write_file("zc", ts[i], CF_ENC_PLAIN, false, false, 2000, 7 + i);
        dumped d;
        dump_json(&d, p);
        cf_arrow_options o;
        cf_arrow_options_init(&o);
        scan_stats mm = scan(p, &d, IO_MMAP, 100, &o);
        assert_true(mm.batches > 1);
        assert_int_equal(mm.zero_copy, mm.batches);
        scan_stats mem = scan(p, &d, IO_MEM, 100, &o);
        assert_int_equal(mem.zero_copy, mem.batches);
        scan_stats pr = scan(p, &d, IO_PREAD, 100, &o);
        assert_int_equal(pr.zero_copy, 0);

        /* No lender: copies, even from an mmap. */
        opened op;
        open_iter(&op, p, IO_MMAP);
        cf_error err;
        struct ArrowArray a;
        CF_ASSERT_OK(cf_iter_next_arrow(op.it, 100, &o, &a, NULL, &err), &err);
        assert_false(in_io(op.io, a.buffers[1], 1));
        a.release(&a);
        /* Widened decimals cannot be referenced. */
        close_opened(&op);
        cf_json_doc_dispose(&d.doc);
        unlink(p);
    }
}

/* release NULLs release; a moved child outlives its parent (arrays and schemas). */
static void test_arrow__release_and_move(void **state)
{
    (void)state;
    const char *p = write_file("mv", CF_TYPE_STRING, CF_ENC_AUTO, true, true, 200, 9);
    dumped d;
    dump_json(&d, p);
    opened op;
    open_iter(&op, p, IO_PREAD);
    cf_error err;
    struct ArrowArray a;
    struct ArrowSchema s;
    cf_arrow_options bin; /* the strings are random bytes: export them as binary */
    cf_arrow_options_init(&bin);
    bin.utf8 = CF_ARROW_UTF8_BINARY;
    CF_ASSERT_OK(cf_iter_next_arrow(op.it, 50, &bin, &a, &s, &err), &err);
    check_batch(&a, &s, &d, 0);

    /* Move the child array and child schema out (spec: "Moving child arrays"). */
    struct ArrowArray child = *a.children[0];
    a.children[0]->release = NULL;
    struct ArrowSchema child_s = *s.children[0];
    s.children[0]->release = NULL;
    int32_t last_off = ((const int32_t *)a.buffers[1])[a.length];
    a.release(&a);
    assert_null(a.release);
    s.release(&s);
    assert_null(s.release);

    assert_int_equal(child.length, last_off);
    fmt f = parse_format(child_s.format);
    assert_int_equal(f.k, K_BIN);
    check_node(&child, &child_s, f);
    int64_t e = 0;
    for (size_t row = 0; row < 50; row++) {
        const cf_json *cell = &d.values->items[row];
        for (size_t k = 0; cell->kind == CF_JSON_ARRAY && k < cell->n; k++, e++) {
            assert_int_equal(valid_at(&child, e), cell->items[k].kind != CF_JSON_NULL);
            if (cell->items[k].kind != CF_JSON_NULL)
                check_value(&child, f, d.type, e, &cell->items[k]);
        }
    }
    assert_int_equal(e, child.length);
    child.release(&child);
    assert_null(child.release);
    child_s.release(&child_s);
    assert_null(child_s.release);

    /* Drain: the end is signalled by a released array, again and again. */
    size_t rows = 50;
    for (;;) {
        CF_ASSERT_OK(cf_iter_next_arrow(op.it, 64, &bin, &a, &s, &err), &err);
        if (a.release == NULL)
            break;
        check_batch(&a, &s, &d, rows);
        rows += (size_t)a.length;
        a.release(&a);
        s.release(&s);
    }
    assert_int_equal(rows, 200);
    CF_ASSERT_OK(cf_iter_next_arrow(op.it, 64, &bin, &a, &s, &err), &err);
    assert_null(a.release);
    assert_null(s.release);
    close_opened(&op);
    cf_json_doc_dispose(&d.doc);
    unlink(p);
}

/* Every allocation failing in turn: CF_ENOMEM or success, never a leak (ASan). */
static void test_arrow__alloc_failures(void **state)
{
    (void)state;
    static const struct {
        cf_type t;
        bool arr;
    } cases[] = {
        {CF_TYPE_STRING, true},
        {CF_TYPE_DECIMAL32, false},
        {CF_TYPE_BOOL, true},
        {CF_TYPE_UNIXTIME_MICROS, false},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *p = write_file("oom", cases[c].t, CF_ENC_AUTO, true, cases[c].arr, 100, 3);
        opened op;
        open_as(&op, p, IO_PREAD);
        bool succeeded = false;
        size_t failures = 0;
        for (uint64_t k = 1; k < 200 && !succeeded; k++) {
            cf_iter *it;
            cf_error err;
            CF_ASSERT_OK(cf_iter_create(&it, op.r, &err), &err);
            cf_arrow_options o;
            cf_arrow_options_init(&o);
            o.timezone = "UTC";
            o.utf8 = CF_ARROW_UTF8_BINARY; /* random bytes */
            struct ArrowArray a;
            struct ArrowSchema s;
            /* Warm the iterator's buffers first: the iterator reports some of its
             * own allocation failures as corruption (iter.c), and this test is
             * about the exporter's. Same-sized batches need no new iterator memory. */
            CF_ASSERT_OK(cf_iter_next_arrow(it, 10, &o, &a, &s, &err), &err);
            a.release(&a);
            s.release(&s);
            cf_alloc_fail_after(k);
            cf_status st = cf_iter_next_arrow(it, 10, &o, &a, &s, &err);
            cf_alloc_fail_after(0);
            if (st == CF_OK) {
                succeeded = true;
                a.release(&a);
                s.release(&s);
            } else {
                if (st != CF_ENOMEM)
                    fail_msg("allocation %d failing: %s: %s (%s)", (int)k, cf_status_str(st),
                             err.msg, err.where);
                assert_null(a.release);
                assert_null(s.release);
                failures++;
            }
            cf_iter_free(it);
        }
        assert_true(succeeded);
        assert_true(failures >= 3);
        close_opened(&op);
        unlink(p);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arrow__golden),     CLI_DIR_TEST(test_arrow__every_type),
        CLI_DIR_TEST(test_arrow__options),        CLI_DIR_TEST(test_arrow__bad_options),
        CLI_DIR_TEST(test_arrow__zero_copy),      CLI_DIR_TEST(test_arrow__release_and_move),
        CLI_DIR_TEST(test_arrow__alloc_failures),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
