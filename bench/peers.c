/* bench/peers: point lookups on the same keys in LevelDB, RocksDB and SQLite,
 * for the comparison `make bench` prints beside `cfile bench seek --mode value`.
 *
 *   bench_peers int64|string VALUES KEYS DIR
 *
 * VALUES holds every key of the column and KEYS the lookup keys, as `cfile
 * bench write --values-out` / `cfile bench seek --keys-out` write them (int64:
 * 8-byte LE each; strings: u32 LE length + bytes). Every value is loaded into
 * each engine (under DIR) with its row number as the payload; then every
 * lookup key is looked up once untimed (warm) and once timed, one by one.
 * Prints one JSON line per engine: lookups/s, mean, p50, p99 in microseconds.
 *
 * Keys: int64 as 8 bytes big-endian with the sign bit flipped (so byte order
 * is numeric order, as in the CFile value index); strings as they are.
 * Built only when the libraries are found (CMake's CF_BUILD_BENCH block).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef CF_HAVE_LEVELDB
#include <leveldb/c.h>
#endif
#ifdef CF_HAVE_ROCKSDB
#include <rocksdb/c.h>
#endif
#ifdef CF_HAVE_SQLITE
#include <sqlite3.h>
#endif

typedef struct keys {
    size_t n;
    uint8_t **k;
    size_t *len;
} keys;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int load(const char *path, int is_int, keys *out)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    size_t cap = 1024;
    out->n = 0;
    out->k = malloc(cap * sizeof *out->k);
    out->len = malloc(cap * sizeof *out->len);
    for (;;) {
        uint8_t *b;
        size_t l;
        if (is_int) {
            uint8_t le[8];
            if (fread(le, 1, 8, f) != 8)
                break;
            b = malloc(8);
            l = 8;
            for (int i = 0; i < 8; i++)
                b[i] = le[7 - i];
            b[0] ^= 0x80;
        } else {
            uint8_t h[4];
            if (fread(h, 1, 4, f) != 4)
                break;
            l = (size_t)h[0] | (size_t)h[1] << 8 | (size_t)h[2] << 16 | (size_t)h[3] << 24;
            b = malloc(l ? l : 1);
            if (l && fread(b, 1, l, f) != l) {
                free(b);
                break;
            }
        }
        if (out->n == cap) {
            cap *= 2;
            out->k = realloc(out->k, cap * sizeof *out->k);
            out->len = realloc(out->len, cap * sizeof *out->len);
        }
        out->k[out->n] = b;
        out->len[out->n] = l;
        out->n++;
    }
    fclose(f);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *engine, double *lat, size_t n, size_t found)
{
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += lat[i];
    qsort(lat, n, sizeof *lat, cmp_double);
    printf("{\"op\": \"peer_get\", \"engine\": \"%s\", \"n\": %zu, \"found\": %zu, "
           "\"lookups_per_s\": %.0f, \"mean_us\": %.3f, \"p50_us\": %.3f, \"p99_us\": %.3f}\n",
           engine, n, found, (double)n / total, total / (double)n * 1e6, lat[n / 2] * 1e6,
           lat[(size_t)((double)n * 0.99)] * 1e6);
    fflush(stdout);
}

/* Each lookup key once untimed (warm), then once timed; the latencies in lat.
 * `get` looks a key up in db, saying whether it is there; `release` (may be NULL)
 * then frees what get kept of the answer, outside the timed part. Returns the keys
 * found. */
typedef bool (*get_fn)(void *db, const uint8_t *k, size_t len);
static size_t timed_lookups(const keys *q, double *lat, get_fn get, void (*release)(void *db),
                            void *db)
{
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        n = 0;
        for (size_t i = 0; i < q->n; i++) {
            double t0 = now_s();
            n += get(db, q->k[i], q->len[i]);
            lat[i] = now_s() - t0;
            if (release != NULL)
                release(db);
        }
    }
    return n;
}

/* LevelDB and RocksDB: rocksdb/c.h keeps leveldb/c.h's names and signatures under
 * its own prefix, so one body serves both, the names pasted from the prefix P.
 * Every value goes in with its row number in write batches of 10,000, then a full
 * compaction so that lookups read sorted tables, like a CFile, not the memtable. */
#define KV_ENGINE(P)                                                                               \
    typedef struct P##_db {                                                                        \
        P##_t *db;                                                                                 \
        P##_readoptions_t *ro;                                                                     \
        char *val, *err; /* of the last get */                                                     \
    } P##_db;                                                                                      \
                                                                                                   \
    static bool P##_found(void *db, const uint8_t *k, size_t len)                                  \
    {                                                                                              \
        P##_db *d = db;                                                                            \
        size_t vl;                                                                                 \
        d->val = P##_get(d->db, d->ro, (const char *)k, len, &vl, &d->err);                        \
        return d->val != NULL;                                                                     \
    }                                                                                              \
                                                                                                   \
    static void P##_release(void *db)                                                              \
    {                                                                                              \
        P##_db *d = db;                                                                            \
        P##_free(d->val);                                                                          \
        P##_free(d->err);                                                                          \
        d->val = d->err = NULL;                                                                    \
    }                                                                                              \
                                                                                                   \
    static void run_##P(const keys *v, const keys *q, const char *dir, double *lat)                \
    {                                                                                              \
        char path[4096];                                                                           \
        snprintf(path, sizeof path, "%s/" #P, dir);                                                \
        char *err = NULL;                                                                          \
        P##_options_t *o = P##_options_create();                                                   \
        P##_options_set_create_if_missing(o, 1);                                                   \
        P##_destroy_db(o, path, &err);                                                             \
        P##_free(err);                                                                             \
        err = NULL;                                                                                \
        P##_db d = {P##_open(o, path, &err), NULL, NULL, NULL};                                    \
        if (err) {                                                                                 \
            fprintf(stderr, #P ": %s\n", err);                                                     \
            return;                                                                                \
        }                                                                                          \
        P##_writeoptions_t *wo = P##_writeoptions_create();                                        \
        P##_writebatch_t *wb = P##_writebatch_create();                                            \
        for (size_t i = 0; i < v->n; i++) {                                                        \
            uint64_t row = i;                                                                      \
            P##_writebatch_put(wb, (const char *)v->k[i], v->len[i], (const char *)&row, 8);       \
            if (i % 10000 == 9999 || i + 1 == v->n) {                                              \
                P##_write(d.db, wo, wb, &err);                                                     \
                P##_writebatch_clear(wb);                                                          \
            }                                                                                      \
        }                                                                                          \
        P##_compact_range(d.db, NULL, 0, NULL, 0);                                                 \
        d.ro = P##_readoptions_create();                                                           \
        report(#P, lat, q->n, timed_lookups(q, lat, P##_found, P##_release, &d));                  \
        P##_readoptions_destroy(d.ro);                                                             \
        P##_writebatch_destroy(wb);                                                                \
        P##_writeoptions_destroy(wo);                                                              \
        P##_close(d.db);                                                                           \
        P##_options_destroy(o);                                                                    \
    }

#ifdef CF_HAVE_LEVELDB
KV_ENGINE(leveldb)
#endif
#ifdef CF_HAVE_ROCKSDB
KV_ENGINE(rocksdb)
#endif

#ifdef CF_HAVE_SQLITE
static bool sqlite_found(void *stmt, const uint8_t *k, size_t len)
{
    sqlite3_stmt *sel = stmt;
    sqlite3_bind_blob(sel, 1, k, (int)len, SQLITE_STATIC);
    bool row = sqlite3_step(sel) == SQLITE_ROW;
    sqlite3_reset(sel);
    return row;
}

static void run_sqlite(const keys *v, const keys *q, const char *dir, double *lat)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/sqlite.db", dir);
    remove(path);
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK)
        return;
    sqlite3_exec(db,
                 "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                 "CREATE TABLE t (k BLOB PRIMARY KEY, v INTEGER) WITHOUT ROWID;"
                 "BEGIN;",
                 NULL, NULL, NULL);
    sqlite3_stmt *ins, *sel;
    sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO t VALUES (?, ?)", -1, &ins, NULL);
    for (size_t i = 0; i < v->n; i++) {
        sqlite3_bind_blob(ins, 1, v->k[i], (int)v->len[i], SQLITE_STATIC);
        sqlite3_bind_int64(ins, 2, (sqlite3_int64)i);
        sqlite3_step(ins);
        sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    sqlite3_exec(db, "COMMIT;", NULL, NULL, NULL);
    sqlite3_prepare_v2(db, "SELECT v FROM t WHERE k = ?", -1, &sel, NULL);
    report("sqlite", lat, q->n, timed_lookups(q, lat, sqlite_found, NULL, sel));
    sqlite3_finalize(sel);
    sqlite3_close(db);
}
#endif

int main(int argc, char **argv)
{
    if (argc != 5 || (strcmp(argv[1], "int64") != 0 && strcmp(argv[1], "string") != 0)) {
        fprintf(stderr, "usage: bench_peers int64|string VALUES KEYS DIR\n");
        return 2;
    }
    int is_int = strcmp(argv[1], "int64") == 0;
    keys v, q;
    if (load(argv[2], is_int, &v) != 0 || load(argv[3], is_int, &q) != 0 || q.n == 0) {
        fprintf(stderr, "bench_peers: cannot read %s or %s\n", argv[2], argv[3]);
        return 1;
    }
    double *lat = malloc(q.n * sizeof *lat);
#ifdef CF_HAVE_LEVELDB
    run_leveldb(&v, &q, argv[4], lat);
#endif
#ifdef CF_HAVE_ROCKSDB
    run_rocksdb(&v, &q, argv[4], lat);
#endif
#ifdef CF_HAVE_SQLITE
    run_sqlite(&v, &q, argv[4], lat);
#endif
    (void)argv;
    free(lat);
    for (size_t i = 0; i < v.n; i++)
        free(v.k[i]);
    for (size_t i = 0; i < q.n; i++)
        free(q.k[i]);
    free(v.k);
    free(v.len);
    free(q.k);
    free(q.len);
    return 0;
}
