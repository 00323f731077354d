/* Harness pieces shared by the fuzz targets (see fuzz.h). */
#include "fuzz.h"

#include <string.h>

#include "cfile/internal.h"
#include "encoding/encodings.h"
#include "index/index_block.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/varint.h"
#include "cfile.pb-c.h"

#include "all_types.h" /* tests/common: the list the tests loop over too */

/* Bounds that keep one input fast: beyond them we stop decoding (a block may
 * legitimately describe millions of values in a few bytes with RLE). */
#define DECODE_CAP ((size_t)1 << 18) /* values decoded per block */
#define STORE_CAP 4096u              /* values remembered for seek checks */
#define CHUNK_MAX 257u               /* values per next() call */
#define SCAN_CAP ((uint64_t)1 << 20) /* rows scanned per file */
#define ARENA_CAP ((size_t)1 << 20)  /* bytes of binary values remembered */

/* ---- option bytes and helpers ----------------------------------------------------------- */

uint8_t fuzz_u8(fuzz_input *in)
{
    if (in->size == 0)
        return 0;
    uint8_t v = in->data[0];
    in->data++;
    in->size--;
    return v;
}

uint16_t fuzz_u16(fuzz_input *in)
{
    uint16_t lo = fuzz_u8(in);
    return (uint16_t)(lo | (uint16_t)fuzz_u8(in) << 8);
}

uint32_t fuzz_u32(fuzz_input *in)
{
    uint32_t lo = fuzz_u16(in);
    return lo | (uint32_t)fuzz_u16(in) << 16;
}

uint32_t fuzz_rng_next(fuzz_rng *r)
{
    /* xorshift32; a zero state would stick at zero. */
    uint32_t x = r->s ? r->s : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    r->s = x;
    return x;
}

size_t fuzz_rng_below(fuzz_rng *r, size_t n)
{
    if (n == 0)
        return 0;
    uint64_t x = ((uint64_t)fuzz_rng_next(r) << 32) | fuzz_rng_next(r);
    return (size_t)(x % n);
}

uint8_t *fuzz_dup(const uint8_t *p, size_t len)
{
    uint8_t *d = malloc(len ? len : 1);
    FUZZ_REQUIRE(d != NULL);
    if (len)
        memcpy(d, p, len);
    return d;
}

FILE *fuzz_text_open(fuzz_text *t)
{
    t->buf = NULL;
    t->len = 0;
    t->f = open_memstream(&t->buf, &t->len);
    FUZZ_REQUIRE(t->f != NULL);
    return t->f;
}

char *fuzz_text_close(fuzz_text *t)
{
    FUZZ_REQUIRE(fclose(t->f) == 0);
    t->f = NULL;
    return t->buf;
}

/* FUZZ_VERBOSE=1 in the environment reports how far each input got (to check
 * that seeds reach the code they are meant for). */
static bool verbose(void)
{
    static int v = -1;
    if (v < 0)
        v = getenv("FUZZ_VERBOSE") != NULL;
    return v != 0;
}

bool fuzz_skip(const char *check)
{
    const char *s = getenv("FUZZ_SKIP");
    if (s == NULL)
        return false;
    size_t n = strlen(check);
    for (const char *p = strstr(s, check); p; p = strstr(p + 1, check))
        if ((p == s || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return true;
    return false;
}

/* A failed call must say why with a status a caller can branch on. */
void fuzz_require_clean_error(cf_status st, const cf_error *err)
{
    FUZZ_REQUIRE(st != CF_OK);
    FUZZ_REQUIRE_MSG(st == CF_ECORRUPT || st == CF_ENOTSUP || st == CF_EIO || st == CF_ENOMEM ||
                         st == CF_EINVAL || st == CF_ENOTFOUND,
                     err);
    FUZZ_REQUIRE(err->code == st);
    FUZZ_REQUIRE(err->msg[0] != '\0');
    FUZZ_REQUIRE(memchr(err->msg, '\0', sizeof err->msg) != NULL);
}

cf_status fuzz_check_rcl(cf_slice rcl, const cf_delta_column *schema, size_t ncols,
                         fuzz_rcl_value_fn value, cf_error *err)
{
    cf_rcl_decoder d;
    cf_status st = cf_rcl_decoder_init(&d, rcl, err);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, err);
        return st;
    }
    FUZZ_REQUIRE(d.type >= CF_RCL_UPDATE && d.type <= CF_RCL_REINSERT);
    size_t changes = 0;
    cf_error cerr = {0};
    while (d.type != CF_RCL_DELETE && cf_rcl_decoder_has_next(&d)) {
        cf_rcl_change c;
        cf_status cst = cf_rcl_decoder_next(&d, &c, &cerr);
        if (cst != CF_OK) {
            fuzz_require_clean_error(cst, &cerr);
            break;
        }
        FUZZ_REQUIRE(++changes <= rcl.len / 2);
        FUZZ_REQUIRE(c.is_null ? c.value.len == 0 : c.value.len < rcl.len);
        if (!c.is_null && c.value.len > 0)
            FUZZ_REQUIRE(c.value.data > rcl.data &&
                         c.value.data + c.value.len <= rcl.data + rcl.len);
        if (!c.is_null && value != NULL)
            value(c.value, c.col_id);
        int idx;
        cst = cf_rcl_change_validate(&c, schema, ncols, &idx, &cerr);
        if (cst != CF_OK)
            fuzz_require_clean_error(cst, &cerr);
        else
            FUZZ_REQUIRE(idx == cf_delta_schema_find(schema, ncols, c.col_id));
    }
    return CF_OK;
}

static volatile uint64_t fuzz_sink; /* keeps touched bytes from being optimized away */

static void touch(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += b[i];
    fuzz_sink += s;
}

static bool type_orderable(cf_type t)
{
    cf_type p = cf_type_physical(t);
    return p != CF_TYPE_BOOL && p != CF_TYPE_FLOAT && p != CF_TYPE_DOUBLE;
}

/* ---- remembered values ------------------------------------------------------------------- */

/* Values in memory form plus, for binary types, private copies of their bytes
 * (the decoder's slices are checked against them at the end). */
typedef struct stash {
    cf_type type;
    size_t es;
    size_t n;
    uint8_t *vals;  /* STORE_CAP * es */
    uint8_t *arena; /* binary copies */
    size_t arena_len;
    size_t *arena_off;
    bool full; /* a value did not fit: n stops there */
} stash;

static void stash_init(stash *s, cf_type t)
{
    memset(s, 0, sizeof *s);
    s->type = t;
    s->es = cf_type_size(t);
    s->vals = calloc(STORE_CAP, s->es);
    s->arena = malloc(ARENA_CAP);
    s->arena_off = calloc(STORE_CAP, sizeof(size_t));
    FUZZ_REQUIRE(s->vals && s->arena && s->arena_off);
}

static void stash_dispose(stash *s)
{
    free(s->vals);
    free(s->arena);
    free(s->arena_off);
}

static void stash_add(stash *s, const void *v)
{
    if (s->full || s->n == STORE_CAP) {
        s->full = true;
        return;
    }
    if (cf_type_is_binary(s->type)) {
        cf_slice sl;
        memcpy(&sl, v, sizeof sl);
        FUZZ_REQUIRE(sl.len == 0 || sl.data != NULL);
        if (sl.len > ARENA_CAP - s->arena_len) {
            s->full = true;
            return;
        }
        if (sl.len)
            memcpy(s->arena + s->arena_len, sl.data, sl.len);
        s->arena_off[s->n] = s->arena_len;
        s->arena_len += sl.len;
    }
    memcpy(s->vals + s->n * s->es, v, s->es);
    s->n++;
}

/* Value i as the decoder reported it, compared through our private copy. */
static bool stash_equal(const stash *s, size_t i, const void *v)
{
    if (cf_type_is_binary(s->type)) {
        cf_slice a, b;
        memcpy(&a, s->vals + i * s->es, sizeof a);
        memcpy(&b, v, sizeof b);
        return a.len == b.len &&
               (b.len == 0 || memcmp(s->arena + s->arena_off[i], b.data, b.len) == 0);
    }
    return memcmp(s->vals + i * s->es, v, s->es) == 0;
}

/* Binary slices handed out must stay valid (and unchanged) until the next load. */
static void stash_check_slices(const stash *s)
{
    if (!cf_type_is_binary(s->type))
        return;
    for (size_t i = 0; i < s->n; i++)
        FUZZ_REQUIRE(stash_equal(s, i, s->vals + i * s->es));
}

static bool stash_sorted(const stash *s)
{
    for (size_t i = 1; i < s->n; i++)
        if (cf_value_compare(s->type, s->vals + (i - 1) * s->es, s->vals + i * s->es) > 0)
            return false;
    return true;
}

static void check_value_form(cf_type t, const void *v)
{
    if (cf_type_physical(t) == CF_TYPE_BOOL)
        FUZZ_REQUIRE(*(const uint8_t *)v <= 1);
    if (cf_type_is_binary(t)) {
        cf_slice sl;
        memcpy(&sl, v, sizeof sl);
        FUZZ_REQUIRE(sl.len == 0 || sl.data != NULL);
        touch(sl.data, sl.len);
    }
}

/* ---- decoders ------------------------------------------------------------------------------ */

size_t fuzz_types_for(cf_encoding enc, cf_type *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < CF_NTYPES && n < cap; i++)
        if (cf_decoder_lookup(cf_all_types[i], enc) != NULL)
            out[n++] = cf_all_types[i];
    return n;
}

#define DICT_MAX 1024u
static cf_slice dict_entries[DICT_MAX];
static uint8_t dict_bytes[DICT_MAX * 24];
static cf_dict dicts[DICT_MAX + 1];
static bool dict_built;

const cf_dict *fuzz_dict(size_t n)
{
    if (!dict_built) {
        /* Sorted entries of lengths 0..23 so that value seeks have an order to use. */
        size_t pos = 0;
        for (size_t i = 0; i < DICT_MAX; i++) {
            int len = snprintf((char *)dict_bytes + pos, 24, "%04zu%.*s", i, (int)(i % 19),
                               "abcdefghijklmnopqrstuvwxyz");
            dict_entries[i] = (cf_slice){dict_bytes + pos, i == 0 ? 0 : (size_t)len};
            pos += 24;
        }
        for (size_t i = 0; i <= DICT_MAX; i++)
            dicts[i] = (cf_dict){dict_entries, i};
        dict_built = true;
    }
    return &dicts[n > DICT_MAX ? DICT_MAX : n];
}

/* After an error the decoder may be anywhere, but never past count. */
static void check_error_pos(const cf_decoder *d)
{
    FUZZ_REQUIRE(d->pos <= d->count);
}

/* A value-seek target: a value the block holds (when `from_values` and it
 * holds any), else random bytes: a slice of 0..cap bytes in `keybytes` for
 * binary types, es random bytes otherwise. */
static void random_seek_key(fuzz_rng *rng, cf_type type, const stash *sv, bool from_values,
                            uint8_t *key, uint8_t *keybytes, size_t cap)
{
    size_t es = sv->es;
    if (from_values && sv->n > 0) {
        memcpy(key, sv->vals + fuzz_rng_below(rng, sv->n) * es, es);
    } else if (cf_type_is_binary(type)) {
        size_t kl = fuzz_rng_below(rng, cap + 1);
        for (size_t i = 0; i < kl; i++)
            keybytes[i] = (uint8_t)fuzz_rng_next(rng);
        cf_slice ks = {keybytes, kl};
        memcpy(key, &ks, sizeof ks);
    } else {
        for (size_t i = 0; i < es; i++)
            key[i] = (uint8_t)fuzz_rng_next(rng);
    }
}

void fuzz_check_decoder(cf_encoding enc, cf_type type, const cf_dict *dict, const uint8_t *blk,
                        size_t len, uint32_t seed)
{
    cf_error err = {0};
    const cf_decoder_ops *ops = cf_decoder_lookup(type, enc);
    if (ops == NULL)
        return;
    cf_dec_params p = {type, cf_type_size(type), dict};
    cf_decoder *d = NULL;
    cf_status st = ops->create(&d, &p, &err);
    FUZZ_REQUIRE_MSG(st == CF_OK, &err);
    FUZZ_REQUIRE(d->ops == ops);
    st = ops->load(d, blk, len, &err);
    if (verbose())
        fprintf(stderr, "decoder %s/%s: load: %s %s\n", cf_type_name(type), cf_encoding_name(enc),
                cf_status_str(st), st ? err.msg : "");
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
        ops->free(d);
        return;
    }
    FUZZ_REQUIRE(d->pos == 0);
    const size_t count = d->count, es = p.elem_size;
    fuzz_rng rng = {seed};
    stash sv;
    stash_init(&sv, type);
    uint8_t *chunk = calloc(CHUNK_MAX + 1, es);
    FUZZ_REQUIRE(chunk != NULL);

    /* 1. a sequential decode in chunks of varied sizes */
    bool all_ok = true, capped = false;
    size_t pos = 0;
    while (pos < count) {
        if (pos >= DECODE_CAP) {
            capped = true;
            break;
        }
        size_t n = 1 + fuzz_rng_below(&rng, CHUNK_MAX);
        size_t got = SIZE_MAX;
        st = ops->next(d, chunk, n, &got, &err);
        if (st != CF_OK) {
            fuzz_require_clean_error(st, &err);
            check_error_pos(d);
            all_ok = false;
            break;
        }
        FUZZ_REQUIRE(got <= n && got <= count - pos);
        FUZZ_REQUIRE(got == n || got == count - pos); /* fewer only at the end */
        pos += got;
        FUZZ_REQUIRE(d->pos == pos);
        for (size_t i = 0; i < got; i++) {
            check_value_form(type, chunk + i * es);
            stash_add(&sv, chunk + i * es);
        }
    }
    if (all_ok && !capped) {
        size_t got = SIZE_MAX;
        st = ops->next(d, chunk, 1 + fuzz_rng_below(&rng, CHUNK_MAX), &got, &err);
        FUZZ_REQUIRE_MSG(st == CF_OK, &err);
        FUZZ_REQUIRE(got == 0 && d->pos == count);
    }
    const bool complete = all_ok && !capped && !sv.full && sv.n == count;

    /* 2. seeks: to the end is fine, past it is rejected */
    st = ops->seek(d, count, &err);
    if (all_ok && !capped) {
        FUZZ_REQUIRE_MSG(st == CF_OK, &err);
        FUZZ_REQUIRE(d->pos == count);
        size_t got = SIZE_MAX;
        st = ops->next(d, chunk, 1, &got, &err);
        FUZZ_REQUIRE_MSG(st == CF_OK && got == 0, &err);
    }
    FUZZ_REQUIRE(ops->seek(d, count + 1 + fuzz_rng_below(&rng, 1000), &err) != CF_OK);
    FUZZ_REQUIRE(ops->seek(d, SIZE_MAX, &err) != CF_OK);

    /* 3. random seeks agree with the sequential decode */
    for (int k = 0; k < 4 && count > 0; k++) {
        size_t idx = fuzz_rng_below(&rng, count);
        if (k == 0)
            idx = 0;
        else if (k == 1)
            idx = count - 1;
        st = ops->seek(d, idx, &err);
        if (st != CF_OK) {
            fuzz_require_clean_error(st, &err);
            check_error_pos(d);
            continue;
        }
        FUZZ_REQUIRE(d->pos == idx);
        size_t n = 1 + fuzz_rng_below(&rng, 16), got = SIZE_MAX;
        st = ops->next(d, chunk, n, &got, &err);
        if (st != CF_OK) {
            fuzz_require_clean_error(st, &err);
            check_error_pos(d);
            continue;
        }
        size_t want = count - idx < n ? count - idx : n;
        FUZZ_REQUIRE(got == want);
        FUZZ_REQUIRE(d->pos == idx + got);
        for (size_t i = 0; i < got && idx + i < sv.n; i++) {
            check_value_form(type, chunk + i * es);
            FUZZ_REQUIRE(stash_equal(&sv, idx + i, chunk + i * es));
        }
    }

    /* 4. value seeks: keys taken from the block and made up */
    const bool orderable = type_orderable(type);
    const bool sorted = complete && stash_sorted(&sv);
    uint8_t key[32] = {0};
    uint8_t keybytes[8];
    const int value_seeks = count > DECODE_CAP && fuzz_skip("long_seek") ? 0 : 4;
    for (int k = 0; k < value_seeks; k++) {
        random_seek_key(&rng, type, &sv, k < 2, key, keybytes, sizeof keybytes);
        /* binary keys taken from the block point into decoder memory, which a
         * seek may not move: copy them to our own buffer first */
        if (cf_type_is_binary(type) && k < 2 && sv.n > 0) {
            cf_slice ks;
            memcpy(&ks, key, sizeof ks);
            size_t kl = ks.len < sizeof keybytes ? ks.len : sizeof keybytes;
            if (kl)
                memcpy(keybytes, ks.data, kl);
            ks = (cf_slice){keybytes, kl};
            memcpy(key, &ks, sizeof ks);
        }
        bool exact = false;
        st = ops->seek_at_or_after(d, key, &exact, &err);
        if (!orderable) {
            FUZZ_REQUIRE(st != CF_OK);
            continue;
        }
        if (st == CF_ENOTFOUND) {
            FUZZ_REQUIRE(d->pos == count);
            if (sorted && count > 0)
                FUZZ_REQUIRE(cf_value_compare(type, sv.vals + (count - 1) * es, key) < 0);
            continue;
        }
        if (st != CF_OK) {
            fuzz_require_clean_error(st, &err);
            check_error_pos(d);
            continue;
        }
        FUZZ_REQUIRE(d->pos < count);
        size_t at = d->pos;
        if (sorted) {
            int c = cf_value_compare(type, sv.vals + at * es, key);
            FUZZ_REQUIRE(c >= 0);
            FUZZ_REQUIRE(exact == (c == 0));
            if (at > 0)
                FUZZ_REQUIRE(cf_value_compare(type, sv.vals + (at - 1) * es, key) <= 0);
        }
        size_t got = SIZE_MAX;
        st = ops->next(d, chunk, 1, &got, &err);
        if (st == CF_OK) {
            FUZZ_REQUIRE(got == 1);
            if (at < sv.n)
                FUZZ_REQUIRE(stash_equal(&sv, at, chunk));
        } else {
            fuzz_require_clean_error(st, &err);
        }
    }

    /* 5. a saved state (the block cache keeps one per block) adopted by a
     * second decoder reads what the first read; cut short, it is refused */
    size_t sl = ops->saved_len ? ops->saved_len(d) : 0;
    if (complete && sl > 0) {
        uint32_t *saved = malloc(sl);
        FUZZ_REQUIRE(saved != NULL);
        ops->save(d, saved);
        cf_decoder *d2 = NULL;
        st = ops->create(&d2, &p, &err);
        FUZZ_REQUIRE_MSG(st == CF_OK, &err);
        FUZZ_REQUIRE(ops->load_saved(d2, blk, len, saved, sl - 4, &err) != CF_OK);
        st = ops->load_saved(d2, blk, len, saved, sl, &err);
        FUZZ_REQUIRE_MSG(st == CF_OK, &err);
        FUZZ_REQUIRE(d2->count == count && d2->first_ord == d->first_ord && d2->pos == 0);
        for (size_t i = 0; i < count; i++) {
            size_t got = SIZE_MAX;
            st = ops->next(d2, chunk, 1, &got, &err);
            FUZZ_REQUIRE_MSG(st == CF_OK && got == 1, &err);
            FUZZ_REQUIRE(stash_equal(&sv, i, chunk));
        }
        /* value seeks through the saved state (PREFIX: its restart fence)
         * answer as a plain load does, whatever the block holds */
        cf_decoder *d3 = NULL;
        st = ops->create(&d3, &p, &err);
        FUZZ_REQUIRE_MSG(st == CF_OK, &err);
        st = ops->load(d3, blk, len, &err);
        FUZZ_REQUIRE_MSG(st == CF_OK, &err);
        for (int k = 0; k < 8 && orderable; k++) {
            random_seek_key(&rng, type, &sv, k < 4, key, keybytes, sizeof keybytes);
            bool e2 = false, e3 = false;
            cf_status s2 = ops->seek_at_or_after(d2, key, &e2, &err);
            cf_status s3 = ops->seek_at_or_after(d3, key, &e3, &err);
            FUZZ_REQUIRE(s2 == s3 && d2->pos == d3->pos);
            FUZZ_REQUIRE(s2 != CF_OK || e2 == e3);
        }
        ops->free(d3);
        ops->free(d2);
        free(saved);
    }

    stash_check_slices(&sv);
    free(chunk);
    stash_dispose(&sv);
    ops->free(d);
}

size_t fuzz_types_which(cf_encoding enc, int which, cf_type *out)
{
    cf_type all[32];
    size_t na = fuzz_types_for(enc, all, 32), nt = 0;
    for (size_t i = 0; i < na; i++)
        if (which == FUZZ_TYPES_ALL || (which == FUZZ_TYPES_BINARY) == cf_type_is_binary(all[i]))
            out[nt++] = all[i];
    return nt;
}

int fuzz_decoder_target(cf_encoding enc, int which, const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    cf_type types[32];
    size_t nt = fuzz_types_which(enc, which, types);
    if (nt == 0)
        return 0; /* the encoding is not built yet */
    cf_type t = types[fuzz_u8(&in) % nt];
    uint32_t seed = fuzz_u32(&in);
    size_t dict_n = fuzz_u16(&in) % (DICT_MAX + 1);
    const cf_dict *dict = enc == CF_ENC_DICT ? fuzz_dict(dict_n) : NULL;
    uint8_t *blk = fuzz_dup(in.data, in.size);
    fuzz_check_decoder(enc, t, dict, blk, in.size, seed);
    free(blk);
    return 0;
}

/* ---- whole files ----------------------------------------------------------------------------- */

/* An io without view_at, so blocks go through read_at into scratch buffers
 * (the path files opened with pread take). */
typedef struct ro_io {
    cf_io base;
    const uint8_t *p;
    size_t n;
    bool strict; /* a read out of range is a finding */
} ro_io;

static cf_status ro_read_at(cf_io *io, uint64_t off, void *dst, size_t len, cf_error *err)
{
    ro_io *r = (ro_io *)io;
    if (off > r->n || len > r->n - off) {
        FUZZ_REQUIRE(!r->strict); /* the reader checks what it asks for */
        if (err) {
            err->code = CF_EIO;
            snprintf(err->msg, sizeof err->msg, "fuzz io: read of %zu bytes at %llu past %zu", len,
                     (unsigned long long)off, r->n);
            err->where[0] = '\0';
        }
        return CF_EIO;
    }
    if (len)
        memcpy(dst, r->p + off, len);
    return CF_OK;
}

static uint64_t ro_size(cf_io *io)
{
    return ((ro_io *)io)->n;
}
static void ro_free(cf_io *io)
{
    free(io);
}

static const cf_io_ops ro_ops = {ro_read_at, NULL, ro_size, NULL, NULL, ro_free};

cf_io *fuzz_io_noview(const uint8_t *p, size_t n)
{
    ro_io *r = calloc(1, sizeof *r);
    FUZZ_REQUIRE(r != NULL);
    r->base.ops = &ro_ops;
    r->p = p;
    r->n = n;
    return &r->base;
}

cf_io *fuzz_io_noview_strict(const uint8_t *p, size_t n)
{
    cf_io *io = fuzz_io_noview(p, n);
    ((ro_io *)io)->strict = true;
    return io;
}

bool fuzz_file_open(fuzz_file *f, const uint8_t *p, size_t n, bool no_view)
{
    cf_error err = {0};
    f->bytes = fuzz_dup(p, n);
    f->size = n;
    f->io = NULL;
    if (no_view)
        f->io = fuzz_io_noview(f->bytes, n);
    else if (cf_io_open_mem(&f->io, f->bytes, n, &err) != CF_OK)
        f->io = NULL;
    if (!f->io) {
        free(f->bytes);
        f->bytes = NULL;
        return false;
    }
    return true;
}

void fuzz_file_close(fuzz_file *f)
{
    cf_io_free(f->io);
    free(f->bytes);
    f->io = NULL;
    f->bytes = NULL;
}

bool fuzz_file_input(fuzz_file *f, uint8_t *opt, const uint8_t *data, size_t size,
                     uint8_t no_view_bits)
{
    fuzz_input in = {data, size};
    *opt = fuzz_u8(&in);
    return fuzz_file_open(f, in.data, in.size, (*opt & no_view_bits) != 0);
}

#if CF_HAVE_PARQUET
int fuzz_parquet_target(const uint8_t *data, size_t size, uint8_t no_view_bits,
                        fuzz_parquet_fn check)
{
    uint8_t opt;
    fuzz_file f;
    if (!fuzz_file_input(&f, &opt, data, size, no_view_bits))
        return 0;
    cf_error err = {0};
    cf_parquet *pq = NULL;
    cf_status st = cf_parquet_open(&pq, f.io, NULL, &err);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
        FUZZ_REQUIRE(pq == NULL);
    } else {
        check(pq, &f, opt);
        cf_parquet_free(pq);
    }
    fuzz_file_close(&f);
    return 0;
}
#endif

#if CF_HAVE_HFILE
int fuzz_hfile_target(const uint8_t *data, size_t size, fuzz_hfile_fn check)
{
    uint8_t opt;
    fuzz_file f;
    if (!fuzz_file_input(&f, &opt, data, size, 0))
        return 0;
    cf_error err = {0};
    cf_hfile_options o;
    cf_hfile_options_init(&o);
    o.verify_checksums = (opt & 1) != 0;
    o.max_block_len = 1 << 24;
    cf_hfile *h = NULL;
    if (cf_hfile_open(&h, f.io, &o, &err) != CF_OK) {
        FUZZ_REQUIRE(err.msg[0] != '\0');
    } else {
        check(h, &f, opt);
        cf_hfile_free(h);
    }
    fuzz_file_close(&f);
    return 0;
}
#endif

int fuzz_read_or_round_trip(const uint8_t *data, size_t size, fuzz_body_fn read_file,
                            fuzz_body_fn round_trip)
{
    fuzz_input in = {data, size};
    uint8_t opt = fuzz_u8(&in);
    uint8_t *rest = fuzz_dup(in.data, in.size);
    if (opt & 1)
        round_trip(opt, rest, in.size);
    else
        read_file(opt, rest, in.size);
    free(rest);
    return 0;
}

typedef struct verify_seen {
    size_t reports, bad;
} verify_seen;

static void on_block(void *ctx, const cf_block_report *rep)
{
    verify_seen *vs = ctx;
    vs->reports++;
    FUZZ_REQUIRE(rep->kind != NULL);
    touch(rep->kind, strlen(rep->kind));
    if (rep->status != CF_OK) {
        vs->bad++;
        FUZZ_REQUIRE(rep->msg != NULL);
        touch(rep->msg, strlen(rep->msg));
    }
}

/* Checks on one batch of a view scan; remembers values for the seek checks. */
static void check_batch(const cf_file_info *fi, const cf_batch *b, stash *sv, uint8_t *nn_stash)
{
    size_t es = cf_type_size(fi->type);
    if (fi->nullable)
        FUZZ_REQUIRE(b->nonnull != NULL);
    if (b->nonnull)
        touch(b->nonnull, (b->count + 7) / 8);
    if (fi->is_array) {
        FUZZ_REQUIRE(b->elem_offsets != NULL);
        for (size_t i = 0; i < b->count; i++)
            FUZZ_REQUIRE(b->elem_offsets[i] <= b->elem_offsets[i + 1]);
        FUZZ_REQUIRE(b->elem_offsets[b->count] <= b->elem_count);
        FUZZ_REQUIRE(b->elem_count == 0 || b->values != NULL);
        for (size_t i = 0; i < b->elem_count; i++)
            check_value_form(fi->type, (const uint8_t *)b->values + i * es);
        if (b->elem_nonnull)
            touch(b->elem_nonnull, (b->elem_count + 7) / 8);
        return;
    }
    FUZZ_REQUIRE(b->count == 0 || b->values != NULL);
    static const uint8_t zeros[32];
    for (size_t i = 0; i < b->count; i++) {
        const uint8_t *v = (const uint8_t *)b->values + i * es;
        bool present = b->nonnull == NULL || (b->nonnull[i / 8] >> (i % 8) & 1);
        check_value_form(fi->type, v);
        if (!present) {
            /* iter.h: NULL rows hold zeros (an empty slice for binary) */
            if (cf_type_is_binary(fi->type)) {
                cf_slice sl;
                memcpy(&sl, v, sizeof sl);
                FUZZ_REQUIRE(sl.len == 0);
            } else {
                FUZZ_REQUIRE(memcmp(v, zeros, es) == 0);
            }
        }
        size_t before = sv->n;
        stash_add(sv, v);
        if (sv->n > before)
            nn_stash[before] = present;
    }
}

/* A value test for block filters: the value's first byte (a binary value's
 * first byte, or 0 when empty) is below a threshold. */
typedef struct block_test_ctx {
    cf_type type;
    uint8_t below;
} block_test_ctx;

static bool block_test(void *ctx, const void *value)
{
    const block_test_ctx *c = ctx;
    uint8_t b = 0;
    if (cf_type_is_binary(c->type)) {
        cf_slice sl;
        memcpy(&sl, value, sizeof sl);
        if (sl.len > 0)
            b = sl.data[0];
    } else {
        b = *(const uint8_t *)value;
    }
    return b < c->below;
}

void fuzz_check_file(const uint8_t *file, size_t len, bool verify_checksums, uint32_t seed)
{
    cf_error err = {0};
    fuzz_rng rng = {seed};
    cf_io *io = NULL;
    if (seed & 1) {
        io = fuzz_io_noview(file, len);
    } else {
        cf_status st = cf_io_open_mem(&io, file, len, &err);
        FUZZ_REQUIRE_MSG(st == CF_OK, &err);
    }
    cf_reader_options o;
    cf_reader_options_init(&o);
    o.verify_checksums = verify_checksums;
    cf_reader *r = NULL;
    cf_status st = cf_reader_open(&r, io, &o, &err);
    if (verbose())
        fprintf(stderr, "file of %zu bytes: open: %s %s\n", len, cf_status_str(st),
                st ? err.msg : "");
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
        FUZZ_REQUIRE(r == NULL);
        cf_io_free(io);
        return;
    }

    /* header, footer and metadata */
    const cf_file_info *fi = cf_reader_info(r);
    FUZZ_REQUIRE(fi->format_version == 1 || fi->format_version == 2);
    FUZZ_REQUIRE(cf_type_valid((int)fi->type));
    FUZZ_REQUIRE(fi->file_size == len);
    FUZZ_REQUIRE(fi->header_len <= 65536 && fi->footer_len <= 65536);
    FUZZ_REQUIRE(fi->num_values <= UINT32_MAX);
    const cf_metadata_pair *md;
    size_t nmd = cf_reader_header_metadata(r, &md);
    for (size_t i = 0; i < nmd; i++) {
        touch(md[i].key.data, md[i].key.len);
        touch(md[i].value.data, md[i].value.len);
    }
    nmd = cf_reader_footer_metadata(r, &md);
    for (size_t i = 0; i < nmd; i++) {
        touch(md[i].key.data, md[i].key.len);
        touch(md[i].value.data, md[i].value.len);
    }
    cf_slice mv;
    if (cf_reader_get_metadata(r, "k", &mv))
        touch(mv.data, mv.len);

    const uint64_t nrows = fi->num_values;
    const size_t es = cf_type_size(fi->type);
    bool scan_ok = false, scan_capped = false, iter_made = false;
    stash sv;
    stash_init(&sv, fi->type);
    uint8_t *nn_stash = calloc(STORE_CAP, 1); /* presence of the rows in sv */
    FUZZ_REQUIRE(nn_stash != NULL);

    cf_iter *it = NULL;
    st = cf_iter_create(&it, r, &err);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
        FUZZ_REQUIRE(it == NULL);
    } else {
        iter_made = true;
        FUZZ_REQUIRE(cf_iter_current_ordinal(it) == 0);
        /* 1. a full scan through views */
        st = cf_iter_seek_to_first(it, &err);
        scan_ok = st == CF_OK;
        if (st != CF_OK) {
            fuzz_require_clean_error(st, &err);
            if (verbose())
                fprintf(stderr, "  seek to first: %s\n", err.msg);
        }
        uint64_t expect = 0;
        while (scan_ok) {
            size_t max = 1 + fuzz_rng_below(&rng, (fuzz_rng_next(&rng) & 3) ? 300 : 70000);
            cf_batch b;
            memset(&b, 0xa5, sizeof b);
            st = cf_iter_next_batch(it, max, &b, &err);
            if (st != CF_OK) {
                fuzz_require_clean_error(st, &err);
                if (verbose())
                    fprintf(stderr, "  scan at row %llu: %s\n", (unsigned long long)expect,
                            err.msg);
                scan_ok = false;
                break;
            }
            if (b.count == 0)
                break;
            FUZZ_REQUIRE(b.count <= max);
            FUZZ_REQUIRE(b.first_ord == expect);
            FUZZ_REQUIRE(b.count <= nrows - expect);
            check_batch(fi, &b, &sv, nn_stash);
            expect += b.count;
            FUZZ_REQUIRE(cf_iter_current_ordinal(it) == expect);
            if (expect >= SCAN_CAP) {
                scan_capped = true;
                break;
            }
        }
        if (scan_ok && !scan_capped)
            FUZZ_REQUIRE(expect == nrows);

        /* 2. copies into caller buffers (not for arrays) */
        if (!fi->is_array && cf_iter_seek_to_first(it, &err) == CF_OK) {
            size_t cap = 1 + fuzz_rng_below(&rng, 64);
            uint8_t *vals = malloc(cap * es);
            uint8_t *nn = malloc((cap + 7) / 8);
            FUZZ_REQUIRE(vals && nn);
            uint64_t at = 0;
            for (int k = 0; k < 3; k++) {
                size_t got = SIZE_MAX;
                st = cf_iter_copy_batch(it, vals, fi->nullable ? nn : NULL, cap, &got, &err);
                if (st != CF_OK) {
                    fuzz_require_clean_error(st, &err);
                    break;
                }
                FUZZ_REQUIRE(got <= cap);
                for (size_t i = 0; i < got; i++) {
                    check_value_form(fi->type, vals + i * es);
                    bool present = !fi->nullable || (nn[i / 8] >> (i % 8) & 1);
                    if (scan_ok && at + i < sv.n) {
                        FUZZ_REQUIRE(present == (nn_stash[at + i] != 0));
                        if (present)
                            FUZZ_REQUIRE(stash_equal(&sv, at + i, vals + i * es));
                    }
                }
                at += got;
                if (got == 0)
                    break;
            }
            free(vals);
            free(nn);
        }

        /* 3. seeks to ordinals, inside and outside the file */
        uint64_t ords[8] = {0,          nrows ? nrows - 1 : 0,
                            nrows / 2,  fuzz_rng_below(&rng, nrows + 1),
                            nrows,      nrows + 1,
                            UINT64_MAX, fuzz_rng_below(&rng, nrows + 1)};
        for (size_t k = 0; k < 8; k++) {
            uint64_t ord = ords[k];
            st = cf_iter_seek_to_ordinal(it, ord, &err);
            if (!fi->has_posidx) {
                FUZZ_REQUIRE(st == CF_EINVAL);
                break;
            }
            if (ord >= nrows) {
                FUZZ_REQUIRE_MSG(st == CF_ENOTFOUND || st == CF_ECORRUPT, &err);
                continue;
            }
            if (st != CF_OK) {
                fuzz_require_clean_error(st, &err);
                FUZZ_REQUIRE_MSG(!scan_ok || st != CF_ENOTFOUND, &err);
                continue;
            }
            FUZZ_REQUIRE(cf_iter_current_ordinal(it) == ord);
            cf_batch b;
            st = cf_iter_next_batch(it, 1 + fuzz_rng_below(&rng, 8), &b, &err);
            if (st != CF_OK) {
                fuzz_require_clean_error(st, &err);
                continue;
            }
            if (scan_ok)
                FUZZ_REQUIRE(b.count > 0);
            if (b.count == 0)
                continue;
            FUZZ_REQUIRE(b.first_ord == ord);
            if (!fi->is_array && scan_ok && ord < sv.n) {
                bool present = b.nonnull == NULL || (b.nonnull[0] & 1);
                FUZZ_REQUIRE(present == (nn_stash[ord] != 0));
                if (present)
                    FUZZ_REQUIRE(stash_equal(&sv, ord, b.values));
            }
        }

        /* 3b. block tests (iter.h): a block ruled out holds no row that passes */
        if (!fi->is_array && fi->has_posidx) {
            block_test_ctx bt = {fi->type, (uint8_t)fuzz_rng_next(&rng)};
            cf_block_filter *flt = NULL;
            st = cf_block_filter_create(&flt, r, block_test, &bt, &err);
            FUZZ_REQUIRE_MSG(st == CF_OK, &err);
            for (int k = 0; k < 4; k++) {
                uint64_t ord = fuzz_rng_below(&rng, nrows + 1);
                cf_block_info bi;
                st = cf_iter_block_at(it, ord, k == 3 ? NULL : flt, &bi, &err);
                if (ord >= nrows) {
                    FUZZ_REQUIRE_MSG(st == CF_ENOTFOUND || st == CF_ECORRUPT, &err);
                    continue;
                }
                if (st != CF_OK) {
                    fuzz_require_clean_error(st, &err);
                    continue;
                }
                FUZZ_REQUIRE(bi.first_ord <= ord && ord - bi.first_ord < bi.rows);
                FUZZ_REQUIRE(cf_iter_current_ordinal(it) == ord);
                if (!scan_ok || bi.may_match)
                    continue;
                for (uint64_t i = bi.first_ord; i < bi.first_ord + bi.rows && i < sv.n; i++) {
                    if (!nn_stash[i])
                        continue;
                    uint8_t v[32];
                    memcpy(v, sv.vals + i * es, es);
                    if (cf_type_is_binary(fi->type)) { /* our copy of the bytes */
                        cf_slice sl;
                        memcpy(&sl, v, sizeof sl);
                        sl.data = sv.arena + sv.arena_off[i];
                        memcpy(v, &sl, sizeof sl);
                    }
                    FUZZ_REQUIRE(!block_test(&bt, v));
                }
            }
            cf_block_filter_free(flt);
        }

        /* 4. seeks by value (keys copied out of the iterator first) */
        if (!fi->is_array && type_orderable(fi->type)) {
            for (int k = 0; k < 3; k++) {
                uint8_t key[32] = {0}, kb[16];
                const uint8_t *kept = NULL; /* our copy of a binary key's bytes */
                if (k < 2 && sv.n > 0) {
                    size_t pick = fuzz_rng_below(&rng, sv.n);
                    memcpy(key, sv.vals + pick * es, es);
                    kept = sv.arena + sv.arena_off[pick];
                } else {
                    for (size_t i = 0; i < es; i++)
                        key[i] = (uint8_t)fuzz_rng_next(&rng);
                }
                if (cf_type_is_binary(fi->type)) {
                    cf_slice ks;
                    memcpy(&ks, key, sizeof ks);
                    size_t kl = k < 2 && sv.n > 0 ? ks.len : fuzz_rng_below(&rng, 9);
                    if (kl > sizeof kb)
                        kl = sizeof kb;
                    /* the stashed slice points into a block the iterator may have
                     * dropped since: take the bytes from the stash's own copy */
                    for (size_t i = 0; i < kl; i++)
                        kb[i] = kept ? kept[i] : (uint8_t)fuzz_rng_next(&rng);
                    ks = (cf_slice){kb, kl};
                    memcpy(key, &ks, sizeof ks);
                }
                bool exact = false;
                st = cf_iter_seek_at_or_after(it, key, &exact, &err);
                if (!fi->has_validx) {
                    FUZZ_REQUIRE(st == CF_EINVAL);
                    break;
                }
                if (st != CF_OK) {
                    fuzz_require_clean_error(st, &err);
                    continue;
                }
                FUZZ_REQUIRE(cf_iter_current_ordinal(it) < nrows);
                cf_batch b;
                st = cf_iter_next_batch(it, 4, &b, &err);
                if (st != CF_OK)
                    fuzz_require_clean_error(st, &err);
                else if (b.count > 0)
                    check_value_form(fi->type, b.values);
            }
        }
    }

    /* 5. verify agrees with what the scan saw */
    verify_seen vs = {0, 0};
    size_t damaged = SIZE_MAX;
    st = cf_reader_verify(r, on_block, &vs, &damaged, &err);
    if (verbose())
        fprintf(stderr, "  scan %s, verify: %s %s\n", scan_ok ? "ok" : "failed", cf_status_str(st),
                st ? err.msg : "");
    FUZZ_REQUIRE(damaged != SIZE_MAX);
    if (st == CF_OK) {
        FUZZ_REQUIRE(damaged == 0 && vs.bad == 0);
        /* a file verify calls intact must read from start to end */
        if (iter_made && !scan_capped && !fuzz_skip("verify_scan"))
            FUZZ_REQUIRE(scan_ok);
    } else {
        fuzz_require_clean_error(st, &err);
    }

    cf_iter_free(it);
    free(nn_stash);
    stash_dispose(&sv);
    cf_reader_free(r);
    cf_io_free(io);
}

/* ---- building a file around one block ------------------------------------------------------- */

void fuzz_wrap_block(const fuzz_wrap *w, const uint8_t *blk, size_t len, uint8_t **out,
                     size_t *out_len)
{
    cf_buf f;
    cf_buf_init(&f);
    cf_buf_append(&f, CF_MAGIC_V2, CF_MAGIC_LEN);
    cf_buf_put_le32(&f, 0); /* an empty CFileHeaderPB */

    Kudu__BlockPointerPB dict_ptr = KUDU__BLOCK_POINTER_PB__INIT;
    bool has_dict = w->encoding == CF_ENC_DICT;
    if (has_dict) {
        const cf_dict *dict = fuzz_dict(w->dict_entries);
        cf_enc_params ep = {CF_TYPE_BINARY, sizeof(cf_slice), 1u << 20, 16};
        cf_encoder *e = NULL;
        cf_error err;
        FUZZ_REQUIRE(cf_enc_plain_binary_ops.create(&e, &ep, &err) == CF_OK);
        if (dict->count)
            e->ops->add(e, dict->entries, dict->count, true);
        cf_slice s;
        FUZZ_REQUIRE_MSG(e->ops->finish(e, 0, &s, &err) == CF_OK, &err);
        dict_ptr.offset = (int64_t)f.len;
        dict_ptr.size = (int32_t)s.len;
        cf_buf_append(&f, s.data, s.len);
        cf_encoder_free(e);
    }

    Kudu__BlockPointerPB data_ptr = KUDU__BLOCK_POINTER_PB__INIT;
    data_ptr.offset = (int64_t)f.len;
    data_ptr.size = (int32_t)len;
    cf_buf_append(&f, blk, len);

    /* format §9.2: a positional key is the block's first ordinal, fixed32 big-endian */
    cf_index_builder ib;
    cf_ib_init(&ib, true);
    uint8_t key[4];
    cf_store_be32(key, 0);
    cf_ib_add(&ib, (cf_slice){key, 4}, (cf_block_ptr){(uint64_t)data_ptr.offset, (uint32_t)len});
    cf_slice is;
    cf_error err;
    FUZZ_REQUIRE_MSG(cf_ib_finish(&ib, &is, &err) == CF_OK, &err);
    Kudu__BlockPointerPB root = KUDU__BLOCK_POINTER_PB__INIT;
    root.offset = (int64_t)f.len;
    root.size = (int32_t)is.len;
    cf_buf_append(&f, is.data, is.len);
    cf_ib_dispose(&ib);

    Kudu__BTreeInfoPB posidx = KUDU__BTREE_INFO_PB__INIT;
    posidx.root_block = &root;
    Kudu__CFileFooterPB ft = KUDU__CFILE_FOOTER_PB__INIT;
    ft.data_type = (Kudu__DataType)w->type;
    ft.encoding = (Kudu__EncodingType)w->encoding;
    ft.num_values = (int64_t)w->num_values;
    ft.posidx_info = &posidx;
    ft.has_compression = 1;
    ft.compression = KUDU__COMPRESSION_TYPE__NO_COMPRESSION;
    ft.has_is_type_nullable = 1;
    ft.is_type_nullable = w->nullable;
    ft.has_is_type_array = 1;
    ft.is_type_array = w->is_array;
    ft.has_incompatible_features = 1;
    ft.incompatible_features = w->is_array ? CF_FEATURE_ARRAY_DATA_BLOCK : 0;
    if (has_dict)
        ft.dict_block_ptr = &dict_ptr;
    size_t flen = kudu__cfile_footer_pb__get_packed_size(&ft);
    uint8_t *fp = cf_buf_extend(&f, flen);
    FUZZ_REQUIRE(fp != NULL);
    kudu__cfile_footer_pb__pack(&ft, fp);
    cf_buf_append(&f, CF_MAGIC_V2, CF_MAGIC_LEN);
    cf_buf_put_le32(&f, (uint32_t)flen);
    FUZZ_REQUIRE(!f.oom);

    *out = fuzz_dup(f.data, f.len);
    *out_len = f.len;
    cf_buf_dispose(&f);
}

size_t fuzz_pairs(cf_type *types, cf_encoding *encs, size_t cap)
{
    static const cf_encoding all[] = {CF_ENC_PLAIN, CF_ENC_PREFIX, CF_ENC_GROUP_VARINT,
                                      CF_ENC_RLE,   CF_ENC_DICT,   CF_ENC_BIT_SHUFFLE};
    size_t np = 0;
    for (size_t e = 0; e < sizeof all / sizeof all[0]; e++) {
        cf_type ts[32];
        size_t nt = fuzz_types_for(all[e], ts, 32);
        for (size_t i = 0; i < nt && np < cap; i++) {
            types[np] = ts[i];
            encs[np++] = all[e];
        }
    }
    return np;
}

int fuzz_block_in_file_target(bool is_array, const uint8_t *data, size_t size)
{
    cf_type pt[128];
    cf_encoding pe[128];
    size_t np = fuzz_pairs(pt, pe, 128);
    fuzz_input in = {data, size};
    size_t pick = fuzz_u8(&in) % np;
    uint32_t seed = fuzz_u32(&in);
    size_t dict_n = fuzz_u16(&in) % (DICT_MAX + 1);
    /* The file claims exactly the rows (cells) the block claims, so that the
     * scan gets past the row-count checks and into the block. */
    uint32_t v1 = 0, v2 = 0;
    const uint8_t *end = in.data + in.size;
    const uint8_t *q = cf_varint32_decode(in.data, end, &v1);
    if (q)
        q = cf_varint32_decode(q, end, &v2);
    fuzz_wrap w = {pt[pick], pe[pick],           !is_array || (seed & 2),
                   is_array, is_array ? v2 : v1, dict_n};
    if (fuzz_skip("huge_rows") && (v1 > (1u << 20) || v2 > (1u << 20)))
        return 0;
    uint8_t *file;
    size_t len;
    fuzz_wrap_block(&w, in.data, in.size, &file, &len);
    fuzz_check_file(file, len, false, seed);
    free(file);
    return 0;
}

/* ---- a codec against its reference library ----------------------------------------------------
 */

int fuzz_codec_diff_target(const fuzz_codec_diff *c, const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    unsigned mode = fuzz_u8(&in);
    size_t dst_len = fuzz_u16(&in) | (size_t)(fuzz_u8(&in) & 0x0f) << 16; /* < 1 MiB */
    uint8_t *src = fuzz_dup(in.data, in.size);
    size_t src_len = in.size;
    unsigned lie = mode >> 1 & 7; /* 0: the true size, else off by lie - 4 */
    if (mode & 1) {
        uint8_t *payload;
        src_len = c->compress(src, in.size, mode >> 4, &payload);
        long want = (long)in.size + (lie == 0 ? 0 : (long)lie - 4);
        dst_len = want < 0 ? 0 : (size_t)want;
        free(src);
        src = fuzz_dup(payload, src_len); /* exactly the payload: ASan sees reads past it */
        free(payload);
    }
    uint8_t *ours = malloc(dst_len + c->slack ? dst_len + c->slack : 1);
    uint8_t *theirs = malloc(dst_len ? dst_len : 1);
    bool ok = c->ours(src, src_len, ours, dst_len);
    long got = 0;
    bool lib_ok = c->theirs(src, src_len, theirs, dst_len, &got);
    if (ok != lib_ok) {
        fprintf(stderr, "ours %s, %s %s (%ld) a %zu-byte %s for %zu bytes\n",
                ok ? "accepts" : "refuses", c->lib, lib_ok ? "accepts" : "refuses", got, src_len,
                c->unit, dst_len);
        abort();
    }
    FUZZ_REQUIRE(!ok || dst_len == 0 || memcmp(ours, theirs, dst_len) == 0);
    if ((mode & 1) && lie == 0) /* a true payload of the true size */
        FUZZ_REQUIRE(ok && (dst_len == 0 || memcmp(ours, in.data, dst_len) == 0));
    free(ours);
    free(theirs);
    free(src);
    return 0;
}
