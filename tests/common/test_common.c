/* nftw() is XSI. */
#define _XOPEN_SOURCE 700
#include "test_common.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

void cf_test_fail_status(cf_status st, const cf_error *err, const char *file, int line)
{
    print_error("%s:%d: expected ok, got %s: %s\n", file, line, cf_status_str(st),
                err ? err->msg : "(no error record)");
    _fail(file, line);
    abort(); /* _fail longjmps out of the test; never reached */
}

void cf_test_assert_ok(cf_status st, const cf_error *err, const char *file, int line)
{
    if (st != CF_OK)
        cf_test_fail_status(st, err, file, line);
}

void cf_test_assert_status(cf_status st, cf_status want, const cf_error *err, const char *file,
                           int line)
{
    if (st == want)
        return;
    print_error("%s:%d: expected %s, got %s: %s\n", file, line, cf_status_str(want),
                cf_status_str(st), err ? err->msg : "(no error record)");
    _fail(file, line);
}

void cf_test_assert_replayed(cf_status st, cf_status want, const cf_error *err, const char *who,
                             const cf_error *first, const char *file, int line)
{
    cf_test_assert_status(st, want, err, file, line);
    char pre[128];
    snprintf(pre, sizeof pre, "%s: an earlier call failed: ", who);
    size_t plen = strlen(pre), mlen = strlen(err->msg);
    bool ok = first->code == want && first->msg[0] != '\0' && err->code == want &&
              strncmp(err->msg, pre, plen) == 0 && mlen > plen &&
              strncmp(err->msg + plen, first->msg, mlen - plen) == 0 &&
              (mlen == sizeof err->msg - 1 || strlen(first->msg) == mlen - plen);
    if (ok)
        return;
    print_error("%s:%d: expected the replay \"%s%s\" (%s), got \"%s\" (%s)\n", file, line, pre,
                first->msg, cf_status_str(first->code), err->msg, cf_status_str(err->code));
    _fail(file, line);
}

void cf_test_assert_bytes(const void *a, size_t alen, const void *b, size_t blen, const char *file,
                          int line)
{
    const uint8_t *x = a, *y = b;
    size_t n = alen < blen ? alen : blen, i = 0;
    while (i < n && x[i] == y[i])
        i++;
    if (i == n && alen == blen)
        return;
    print_error("%s:%d: bytes differ at offset %zu (lengths %zu vs %zu)\n", file, line, i, alen,
                blen);
    size_t from = i >= 8 ? i - 8 : 0;
    for (int k = 0; k < 2; k++) {
        const uint8_t *p = k ? y : x;
        size_t len = k ? blen : alen;
        char line_buf[200];
        size_t o = 0;
        for (size_t j = from; j < len && j < from + 24 && o + 4 < sizeof line_buf; j++)
            o += (size_t)snprintf(line_buf + o, sizeof line_buf - o, "%02x ", p[j]);
        line_buf[o] = '\0';
        print_error("  %s @%zu: %s\n", k ? "want" : "got ", from, line_buf);
    }
    _fail(file, line);
}

size_t cf_test_unhex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    int hi = -1;
    for (; *hex; hex++) {
        int v;
        char c = *hex;
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (c >= 'a' && c <= 'f')
            v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v = c - 'A' + 10;
        else
            continue;
        if (hi < 0) {
            hi = v;
        } else {
            if (n < cap)
                out[n] = (uint8_t)(hi << 4 | v);
            n++;
            hi = -1;
        }
    }
    return n;
}

uint64_t cf_test_seed(uint64_t dflt)
{
    static int printed;
    const char *env = getenv("CF_TEST_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 0) : dflt;
    if (!printed) {
        printf("# seed %llu (set CF_TEST_SEED to replay)\n", (unsigned long long)seed);
        printed = 1;
    }
    return seed;
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void cf_rng_init(cf_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t cf_rng_next(cf_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t cf_rng_below(cf_rng *r, uint64_t n)
{
    return n ? cf_rng_next(r) % n : 0;
}

uint8_t *cf_test_dup(const void *p, size_t n)
{
    uint8_t *copy = malloc(n ? n : 1);
    assert_non_null(copy);
    if (n > 0)
        memcpy(copy, p, n);
    return copy;
}

void cf_test_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        fail_msg("%s: cannot create", path);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

uint8_t *cf_test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
    if (p && n > 0 && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    if (p)
        *len = (size_t)n;
    return p;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int cf_test_rm_rf(const char *path)
{
    /* Depth first so each directory is empty when its turn comes; PHYS so a
     * link is removed, never what it points to. */
    if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        return errno == ENOENT ? 0 : -1;
    return 0;
}

const char *cf_test_shared_dir(void)
{
    const char *env = getenv("CF_SHARED_DIR");
    return env && *env ? env : CF_SHARED_DIR;
}

void cf_test_sweep_buf_setup(void *ctx)
{
    cf_test_sweep_buf *b = ctx;
    static const uint8_t zeros[60];
    assert_true(b->prefill <= sizeof zeros);
    cf_buf_init(&b->out);
    cf_buf_append(&b->out, zeros, b->prefill);
    assert_false(b->out.oom);
}

int cf_test_alloc_sweep(const char *what, cf_test_alloc_setup setup, cf_test_alloc_run run,
                        void *ctx, uint64_t max_k)
{
    for (uint64_t k = 1; k <= max_k; k++) {
        cf_error err;
        memset(&err, 0, sizeof err);
        if (setup != NULL)
            setup(ctx);
        cf_alloc_fail_after(k);
        cf_status st = run(ctx, &err);
        cf_alloc_fail_after(0);
        if (st == CF_OK)
            return (int)(k - 1);
        if (st != CF_ENOMEM || err.msg[0] == '\0')
            fail_msg("%s, allocation %llu failing: %s (\"%s\"), want CF_ENOMEM with a message",
                     what, (unsigned long long)k, cf_status_str(st), err.msg);
    }
    fail_msg("%s: still failing with %llu allocations allowed", what, (unsigned long long)max_k);
    return -1;
}

int cf_test_run(int argc, char **argv, const char *name, const struct CMUnitTest *tests, size_t n)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "-t") == 0)
            cmocka_set_test_filter(argv[i + 1]);
    return _cmocka_run_group_tests(name, tests, n, NULL, NULL);
}
