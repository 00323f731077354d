/* tools/cfile/datasets.c: the benchmark data sets must not change, since
 * numbers measured on them are compared across versions. The hashes below
 * were taken from the generators as they were before they moved into this
 * module (three copies: bench/encodings.c, bench/compression.c and
 * tools/cfile/cmd_bench.c), at a short length (runs cut short, one string)
 * and a long one. Also: the suite's order and end, names, and freeing. */
#include "test_common.h"

#include <string.h>

#include "datasets.h"

/* FNV-1a over what a benchmark sees of a set: type, count, raw bytes, flags,
 * the values (binary: each length as a size_t, then its bytes) and the
 * non-null bitmap. */
static uint64_t h;
static void hash_bytes(const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 0x100000001b3ull;
}

static uint64_t hash_set(const cf_dataset *d)
{
    h = 0xcbf29ce484222325ull;
    int type = (int)d->type, nullable = d->nullable, validx = d->validx;
    size_t n = d->n;
    unsigned long long raw = d->raw_bytes;
    hash_bytes(&type, sizeof type);
    hash_bytes(&n, sizeof n);
    hash_bytes(&raw, sizeof raw);
    hash_bytes(&nullable, sizeof nullable);
    hash_bytes(&validx, sizeof validx);
    bool binary = d->type == CF_TYPE_STRING || d->type == CF_TYPE_BINARY;
    if (binary) {
        const cf_slice *s = d->vals;
        for (size_t i = 0; i < n; i++) {
            size_t l = s[i].len;
            hash_bytes(&l, sizeof l);
            hash_bytes(s[i].data, l);
        }
    } else {
        hash_bytes(d->vals, n * cf_type_size(d->type));
    }
    if (d->nonnull)
        hash_bytes(d->nonnull, n / 8 + 1);
    return h;
}

static const struct {
    const char *name;
    uint64_t raw7, hash7, raw_long, hash_long; /* n = 7 and n = 100003 */
} named[] = {
    {"int32_random", 28, 0xb8bac304231332c3ull, 400012, 0x65adc1ac29056b72ull},
    {"int64_sorted", 56, 0x54d9597ed887e09full, 800024, 0x1e12bab17f7b142full},
    {"int32_small", 28, 0x258b7fc96cea653full, 400012, 0xa9a8e12134f447a9ull},
    {"int32_runs", 28, 0xf0248447ab4c74a3ull, 400012, 0xcd6c224db3c60a03ull},
    {"double_walk", 56, 0x04c7d0ca48a28263ull, 800024, 0x96cd59712e53ef2eull},
    {"string_zipf", 119, 0xe0a909e452a783c5ull, 1700051, 0x929c08a7e98a14cfull},
    {"string_keys", 126, 0xead454e0bd035d76ull, 1800054, 0xbd7709ee686e0acdull},
    {"bool_runs", 7, 0x27c8c163ac3e2eadull, 100003, 0xc4a94b4f9532988cull},
    {"int64_nullable", 56, 0x26734a04b8106cf0ull, 800024, 0x1208c386c6c7c0bfull},
    {"string_nullable", 93, 0xe7c12b007a83dcc3ull, 1439414, 0xce6e2176305a4779ull},
};

static void test_datasets__named_unchanged(void **state)
{
    assert_int_equal(cf_dataset_count, sizeof named / sizeof named[0]);
    for (size_t i = 0; i < cf_dataset_count; i++) {
        assert_string_equal(cf_dataset_names[i], named[i].name);
        for (int pass = 0; pass < 2; pass++) {
            size_t n = pass ? 100003 : 7;
            cf_dataset d;
            assert_int_equal(cf_dataset_generate(&d, named[i].name, n), 0);
            assert_string_equal(d.name, named[i].name);
            assert_int_equal(d.n, n);
            assert_int_equal(d.raw_bytes, pass ? named[i].raw_long : named[i].raw7);
            uint64_t got = hash_set(&d), want = pass ? named[i].hash_long : named[i].hash7;
            if (got != want)
                fail_msg("%s n=%zu: hash %016llx, was %016llx", named[i].name, n,
                         (unsigned long long)got, (unsigned long long)want);
            cf_dataset_free(&d);
        }
    }
}

static void test_datasets__named_errors(void **state)
{
    cf_dataset d;
    assert_int_equal(cf_dataset_generate(&d, "no_such_set", 10), -1);
    cf_dataset_free(&d); /* safe after a failure */
    assert_int_equal(cf_dataset_generate(&d, "int32_random", 0), 0);
    assert_int_equal(d.n, 0);
    assert_int_equal(d.raw_bytes, 0);
    cf_dataset_free(&d);
    cf_dataset_free(NULL);
}

/* n = 7 (strings: 1) and n = 100003 (strings: 25000), as the benchmarks pass
 * n / 4 for the string sets. */
static const struct {
    const char *name;
    cf_type type;
    uint64_t raw7, hash7, raw_long, hash_long;
} suite[] = {
    {"int64 sorted keys", CF_TYPE_INT64, 56, 0xd4f59fdb9e5c74faull, 800024, 0x4b0e1884ec74e6a7ull},
    {"int32 random", CF_TYPE_INT32, 28, 0x7d24dfb81e503ed2ull, 400012, 0x6fe2df1a9f3d74f6ull},
    {"int32 in [0,65536)", CF_TYPE_INT32, 28, 0x91d731afef998ee1ull, 400012, 0x607dfc2992eb6fe0ull},
    {"int32 run-heavy", CF_TYPE_INT32, 28, 0x2d6eeeb239b3a739ull, 400012, 0x1016cb7954cd2764ull},
    {"timestamps (us)", CF_TYPE_UNIXTIME_MICROS, 56, 0x1e890bf447dc4007ull, 800024,
     0x73592f163d250042ull},
    {"double random walk", CF_TYPE_DOUBLE, 56, 0xf93131c8eee62a9eull, 800024,
     0x3edfb4422b1919ddull},
    {"bool with runs", CF_TYPE_BOOL, 7, 0x27c8c163ac3e2eadull, 100003, 0xc0fb1fbdab4ebdabull},
    {"strings zipf (1000)", CF_TYPE_STRING, 15, 0xac0dfcede691bbd1ull, 365509,
     0xab1a18a926277d90ull},
    {"sorted user%010d keys", CF_TYPE_STRING, 18, 0x03db6d33fcd3de9bull, 450000,
     0xb4bb1baf1d7e1f22ull},
};

static void test_datasets__suite_unchanged(void **state)
{
    for (int pass = 0; pass < 2; pass++) {
        size_t n = pass ? 100003 : 7, n_str = pass ? 25000 : 1;
        cf_dataset_suite s;
        cf_dataset_suite_init(&s);
        cf_dataset d;
        for (size_t i = 0; i < sizeof suite / sizeof suite[0]; i++) {
            assert_int_equal(cf_dataset_suite_next(&s, &d, n, n_str), 1);
            assert_string_equal(d.name, suite[i].name);
            assert_int_equal(d.type, suite[i].type);
            assert_int_equal(d.raw_bytes, pass ? suite[i].raw_long : suite[i].raw7);
            uint64_t got = hash_set(&d), want = pass ? suite[i].hash_long : suite[i].hash7;
            if (got != want)
                fail_msg("%s n=%zu: hash %016llx, was %016llx", suite[i].name, d.n,
                         (unsigned long long)got, (unsigned long long)want);
            cf_dataset_free(&d);
        }
        assert_int_equal(cf_dataset_suite_next(&s, &d, n, n_str), 0);
        cf_dataset_free(&d);
    }
}

static void test_datasets__bench_encodings(void **state)
{
    size_t k;
    const cf_encoding *e = cf_dataset_bench_encodings(CF_TYPE_INT64, &k);
    assert_int_equal(k, 3);
    assert_int_equal(e[0], CF_ENC_PLAIN);
    assert_int_equal(e[1], CF_ENC_BIT_SHUFFLE);
    assert_int_equal(e[2], CF_ENC_RLE);
    e = cf_dataset_bench_encodings(CF_TYPE_DOUBLE, &k);
    assert_int_equal(k, 2);
    assert_int_equal(e[1], CF_ENC_BIT_SHUFFLE);
    e = cf_dataset_bench_encodings(CF_TYPE_STRING, &k);
    assert_int_equal(k, 3);
    assert_int_equal(e[1], CF_ENC_PREFIX);
    assert_int_equal(e[2], CF_ENC_DICT);
    e = cf_dataset_bench_encodings(CF_TYPE_BOOL, &k);
    assert_int_equal(k, 2);
    assert_int_equal(e[1], CF_ENC_RLE);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_datasets__named_unchanged),
        cmocka_unit_test(test_datasets__named_errors),
        cmocka_unit_test(test_datasets__suite_unchanged),
        cmocka_unit_test(test_datasets__bench_encodings),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
