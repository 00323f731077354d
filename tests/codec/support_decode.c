#include "support_decode.h"

#include <stdlib.h>
#include <string.h>

void decode_fill(cf_rng *r, uint8_t *p, size_t n, int kind)
{
    switch (kind) {
    case 0: /* random: incompressible (long literals) */
        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)cf_rng_next(r);
        break;
    case 1: /* long runs of few values (bitshuffled planes): long copies at offset 1 */
        for (size_t i = 0; i < n;) {
            uint8_t v = cf_rng_below(r, 3) ? 0 : (uint8_t)cf_rng_next(r);
            size_t run = 1 + cf_rng_below(r, 600);
            for (size_t j = 0; j < run && i < n; j++)
                p[i++] = v;
        }
        break;
    case 2: { /* short periodic patterns: copies at offsets 1..32 */
        size_t period = 1 + cf_rng_below(r, 32);
        for (size_t i = 0; i < n; i++)
            p[i] = i < period ? (uint8_t)cf_rng_next(r) : p[i - period];
        for (size_t k = 0; k < n / 200; k++)
            p[cf_rng_below(r, n)] ^= 1;
        break;
    }
    case 3: { /* the bench's SNAPPY page: int64 i/4 + noise, one literal byte
               * and a 7-byte copy at offset 8, or 8 bytes from further back */
        for (size_t i = 0; i < n; i++) {
            uint64_t x = (uint64_t)(i / 8) / 4 + (cf_rng_below(r, 16) & (i % 8 ? 0 : 15));
            p[i] = (uint8_t)(x >> (8 * (i % 8)));
        }
        break;
    }
    case 4: { /* sorted little-endian int64s (PLAIN int64 blocks): one literal
               * byte, then a 7-byte copy at offset 8, per value */
        uint64_t x = cf_rng_next(r) >> 8;
        for (size_t i = 0; i < n; i++) {
            if (i % 8 == 0)
                x += 2 + cf_rng_below(r, 3);
            p[i] = (uint8_t)(x >> (8 * (i % 8)));
        }
        break;
    }
    case 5: /* runs of short periods 1..16 with long copies (the pattern path) */
        for (size_t i = 0; i < n;) {
            size_t period = 1 + cf_rng_below(r, 16), run = 1 + cf_rng_below(r, 300);
            for (size_t j = 0; j < run && i < n; j++, i++)
                p[i] = j < period ? (uint8_t)cf_rng_next(r) : p[i - period];
        }
        break;
    default: /* text-like: small alphabet */
        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)('a' + cf_rng_below(r, 4 + (unsigned)cf_rng_below(r, 20)));
    }
}

static uint8_t raw[DECODE_MAX_RAW], comp[DECODE_MAX_RAW * 2];

void decode_sweep_valid(const decode_pair *d, uint64_t seed)
{
    cf_rng r;
    cf_rng_init(&r, seed);
    uint8_t *out = malloc(DECODE_MAX_RAW + d->slack);
    assert_non_null(out);
    for (int it = 0; it < 20000; it++) {
        size_t n = cf_rng_below(&r, 8) == 0 ? cf_rng_below(&r, 40) : 1 + cf_rng_below(&r, 8192);
        decode_fill(&r, raw, n, (int)cf_rng_below(&r, DECODE_KINDS));
        size_t c = d->compress(raw, n, comp, sizeof comp);
        if (!d->ours(comp, c, out, n))
            fail_msg("valid payload of %zu bytes (%zu compressed by %s) refused", n, c, d->lib);
        assert_memory_equal(out, raw, n);
        d->check_same(comp, c, n);
        /* a length other than the payload's own is refused by both */
        if (n > 0)
            d->check_same(comp, c, n - 1);
        d->check_same(comp, c, n + 1);
    }
    free(out);
}

void decode_sweep_mutations(const decode_pair *d, uint64_t seed)
{
    cf_rng r;
    cf_rng_init(&r, seed);
    for (int it = 0; it < 20000; it++) {
        size_t n = 1 + cf_rng_below(&r, 4096);
        decode_fill(&r, raw, n, (int)cf_rng_below(&r, DECODE_KINDS));
        size_t c = d->compress(raw, n, comp, sizeof comp);
        int flips = 1 + (int)cf_rng_below(&r, 3);
        for (int f = 0; f < flips; f++)
            comp[cf_rng_below(&r, c)] ^= (uint8_t)(1u << cf_rng_below(&r, 8));
        if (cf_rng_below(&r, 4) == 0)
            c = cf_rng_below(&r, c + 1); /* truncate */
        d->check_same(comp, c, n);
    }
}

void decode_check_impl(const char *impl)
{
    const char *off = getenv("CF_CPU_DISABLE");
    print_message("# decoder in use: %s\n", impl);
    if (off != NULL && strcmp(off, "all") == 0)
        assert_string_equal(impl, "portable");
}
