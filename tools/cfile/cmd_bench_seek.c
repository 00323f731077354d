/* `cfile bench seek`: random seeks by ordinal or by value, and the keys used
 * (--keys-out) for the peer benchmarks. */
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "datasets.h"
#include "json.h"

/* ---- seek ------------------------------------------------------------------------------ */

typedef struct key_set {
    size_t n, es;
    uint8_t *vals;   /* n keys in memory form */
    uint8_t **owned; /* string keys' bytes */
} key_set;

static void keys_free(key_set *k)
{
    if (k->owned)
        for (size_t i = 0; i < k->n; i++)
            free(k->owned[i]);
    free(k->owned);
    free(k->vals);
}

/* Value-seek keys: the values at random rows, every other one made absent. */
static cf_status make_keys(const cf_reader *r, size_t n, key_set *k, cf_error *err)
{
    const cf_file_info *fi = cf_reader_info(r);
    k->n = n;
    k->es = cf_type_size(fi->type);
    k->vals = calloc(n, k->es);
    k->owned = cf_type_is_binary(fi->type) ? calloc(n, sizeof *k->owned) : NULL;
    if (k->vals == NULL || (cf_type_is_binary(fi->type) && k->owned == NULL))
        return CF_ENOMEM;
    cf_iter *it;
    cf_status st = cf_iter_create(&it, r, err);
    if (st != CF_OK)
        return st;
    uint64_t s = 42;
    uint8_t v[16];
    for (size_t i = 0; i < n && st == CF_OK; i++) {
        size_t got;
        st = cf_iter_seek_to_ordinal(it, cf_dataset_rng_next(&s) % fi->num_values, err);
        if (st == CF_OK)
            st = cf_iter_copy_batch(it, v, NULL, 1, &got, err);
        if (st != CF_OK)
            break;
        bool absent = i % 2 == 1;
        uint8_t *dst = k->vals + i * k->es;
        if (cf_type_is_binary(fi->type)) {
            cf_slice sl = *(cf_slice *)(void *)v;
            uint8_t *b = malloc(sl.len + 1);
            if (b == NULL)
                return CF_ENOMEM;
            memcpy(b, sl.data, sl.len);
            b[sl.len] = 0; /* with absent: the key plus a NUL sorts just after it */
            k->owned[i] = b;
            cf_slice ks = {b, sl.len + (absent ? 1 : 0)};
            memcpy(dst, &ks, sizeof ks);
        } else if (absent && (k->es == 4 || k->es == 8) && fi->type != CF_TYPE_FLOAT &&
                   fi->type != CF_TYPE_DOUBLE) {
            if (k->es == 4) {
                uint32_t x;
                memcpy(&x, v, 4);
                x++;
                memcpy(dst, &x, 4);
            } else {
                uint64_t x;
                memcpy(&x, v, 8);
                x++;
                memcpy(dst, &x, 8);
            }
        } else {
            memcpy(dst, v, k->es);
        }
    }
    cf_iter_free(it);
    return st;
}

/* int64: 8-byte LE each; strings: u32 LE length + bytes. */
int cf_bench_seek(cf_cli *c, int argc, char **argv)
{
    const char *mode = NULL, *keys_out = NULL, *path;
    uint64_t n = 100000, cache_mb = 0;
    bool mmap = false;
    const cf_bench_opt opts[] = {
        {"mode", 'o', CF_BENCH_TEXT, &mode, NULL},
        {"n", 'n', CF_BENCH_COUNT, &n, NULL},
        {"mmap", 'm', CF_BENCH_FLAG, &mmap, NULL},
        {"cache", 'c', CF_BENCH_COUNT, &cache_mb, NULL},
        {"keys-out", 'K', CF_BENCH_TEXT, &keys_out, NULL},
        {NULL, 0, 0, NULL, NULL},
    };
    int rc = cf_bench_parse_opts(c, argc, argv, opts, "FILE", &path);
    if (rc >= 0)
        return rc;
    if (mode == NULL || (strcmp(mode, "ordinal") != 0 && strcmp(mode, "value") != 0))
        return cf_cli_usage(c, "--mode ordinal or --mode value");
    if (n == 0 || n > 100000000)
        return cf_cli_usage(c, "--n 1..100000000");
    bool by_value = strcmp(mode, "value") == 0;
    cf_error e = {0};
    cf_cache *cache = NULL;
    cf_reader *r = NULL;
    cf_iter *it = NULL;
    key_set ks = {0};
    uint64_t *ords = NULL;
    double *lat = NULL;
    int ret = CF_EXIT_FAIL;
    cf_status st = CF_OK;
    if (cache_mb && (st = cf_cache_create(&cache, (size_t)cache_mb << 20, &e)) != CF_OK)
        goto out;
    if ((st = cf_bench_open_reader(&r, path, mmap, true, cache, &e)) != CF_OK)
        goto out;
    const cf_file_info *fi = cf_reader_info(r);
    if (fi->num_values == 0 || fi->is_array) {
        ret = cf_cli_fail(c, "%s: nothing to seek (empty or array column)", path);
        goto out;
    }
    if (by_value && !fi->has_validx) {
        ret = cf_cli_fail(c, "%s: no value index", path);
        goto out;
    }
    ords = malloc(n * sizeof *ords);
    lat = malloc(n * sizeof *lat);
    if (ords == NULL || lat == NULL)
        goto out;
    uint64_t s = 7;
    for (size_t i = 0; i < n; i++)
        ords[i] = cf_dataset_rng_next(&s) % fi->num_values;
    if (by_value && (st = make_keys(r, n, &ks, &e)) != CF_OK)
        goto out;
    if (keys_out && by_value && cf_bench_write_values(keys_out, fi->type, ks.vals, n) != 0) {
        ret = cf_cli_fail(c, "cannot write %s", keys_out);
        goto out;
    }
    if ((st = cf_iter_create(&it, r, &e)) != CF_OK)
        goto out;
    uint8_t v[16], nn[1];
    uint64_t exact_n = 0;
    /* Pass 0 warms every block the targets touch; pass 1 is timed. */
    for (int pass = 0; pass < 2; pass++) {
        exact_n = 0;
        for (size_t i = 0; i < n; i++) {
            double t0 = cf_cli_now_s();
            size_t got = 0;
            bool exact = false;
            if (by_value)
                st = cf_iter_seek_at_or_after(it, ks.vals + i * ks.es, &exact, &e);
            else
                st = cf_iter_seek_to_ordinal(it, ords[i], &e);
            if (st == CF_ENOTFOUND) {
                st = CF_OK; /* past the last value: a valid answer */
            } else if (st == CF_OK) {
                st = cf_iter_copy_batch(it, v, nn, 1, &got, &e);
            }
            lat[i] = cf_cli_now_s() - t0;
            if (st != CF_OK)
                goto out;
            exact_n += exact;
        }
    }
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += lat[i];
    double mean = total / (double)n;
    qsort(lat, n, sizeof *lat, cf_bench_cmp_double);
    FILE *f = c->out;
    cf_bench_json_header(f, "seek", path, fi);
    fprintf(f, ",\"mode\":\"%s\",\"n\":%" PRIu64 ",\"mmap\":%s,\"cache_mb\":%" PRIu64, mode, n,
            mmap ? "true" : "false", cache_mb);
    fprintf(f, ",\"seeks_per_s\":%.0f,\"mean_us\":%.3f,\"p50_us\":%.3f,\"p99_us\":%.3f",
            (double)n / total, mean * 1e6, lat[n / 2] * 1e6, lat[(size_t)((double)n * 0.99)] * 1e6);
    if (by_value)
        fprintf(f, ",\"exact\":%" PRIu64, exact_n);
    cf_bench_json_cache(f, cache);
    fprintf(f, "}\n");
    ret = CF_EXIT_OK;
out:
    if (ret == CF_EXIT_FAIL && st != CF_OK)
        ret = cf_cli_lib_fail(c, path, st, &e);
    cf_iter_free(it);
    keys_free(&ks);
    free(ords);
    free(lat);
    cf_reader_free(r);
    cf_cache_free(cache);
    return ret;
}
