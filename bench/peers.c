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

#ifdef CF_HAVE_LEVELDB
static void run_leveldb(const keys *v, const keys *q, const char *dir, double *lat)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/leveldb", dir);
    char *err = NULL;
    leveldb_options_t *o = leveldb_options_create();
    leveldb_options_set_create_if_missing(o, 1);
    leveldb_destroy_db(o, path, &err);
    leveldb_free(err);
    err = NULL;
    leveldb_t *db = leveldb_open(o, path, &err);
    if (err) {
        fprintf(stderr, "leveldb: %s\n", err);
        return;
    }
    leveldb_writeoptions_t *wo = leveldb_writeoptions_create();
    leveldb_writebatch_t *wb = leveldb_writebatch_create();
    for (size_t i = 0; i < v->n; i++) {
        uint64_t row = i;
        leveldb_writebatch_put(wb, (const char *)v->k[i], v->len[i], (const char *)&row, 8);
        if (i % 10000 == 9999 || i + 1 == v->n) {
            leveldb_write(db, wo, wb, &err);
            leveldb_writebatch_clear(wb);
        }
    }
    /* Compact so lookups read sorted tables, like a CFile, not the memtable. */
    leveldb_compact_range(db, NULL, 0, NULL, 0);
    leveldb_readoptions_t *ro = leveldb_readoptions_create();
    size_t found = 0;
    for (int pass = 0; pass < 2; pass++) {
        found = 0;
        for (size_t i = 0; i < q->n; i++) {
            double t0 = now_s();
            size_t vl;
            char *val = leveldb_get(db, ro, (const char *)q->k[i], q->len[i], &vl, &err);
            lat[i] = now_s() - t0;
            found += val != NULL;
            leveldb_free(val);
        }
    }
    report("leveldb", lat, q->n, found);
    leveldb_readoptions_destroy(ro);
    leveldb_writebatch_destroy(wb);
    leveldb_writeoptions_destroy(wo);
    leveldb_close(db);
    leveldb_options_destroy(o);
}
#endif

#ifdef CF_HAVE_ROCKSDB
static void run_rocksdb(const keys *v, const keys *q, const char *dir, double *lat)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/rocksdb", dir);
    char *err = NULL;
    rocksdb_options_t *o = rocksdb_options_create();
    rocksdb_options_set_create_if_missing(o, 1);
    rocksdb_destroy_db(o, path, &err);
    free(err);
    err = NULL;
    rocksdb_t *db = rocksdb_open(o, path, &err);
    if (err) {
        fprintf(stderr, "rocksdb: %s\n", err);
        return;
    }
    rocksdb_writeoptions_t *wo = rocksdb_writeoptions_create();
    rocksdb_writebatch_t *wb = rocksdb_writebatch_create();
    for (size_t i = 0; i < v->n; i++) {
        uint64_t row = i;
        rocksdb_writebatch_put(wb, (const char *)v->k[i], v->len[i], (const char *)&row, 8);
        if (i % 10000 == 9999 || i + 1 == v->n) {
            rocksdb_write(db, wo, wb, &err);
            rocksdb_writebatch_clear(wb);
        }
    }
    rocksdb_compact_range(db, NULL, 0, NULL, 0);
    rocksdb_readoptions_t *ro = rocksdb_readoptions_create();
    size_t found = 0;
    for (int pass = 0; pass < 2; pass++) {
        found = 0;
        for (size_t i = 0; i < q->n; i++) {
            double t0 = now_s();
            size_t vl;
            char *val = rocksdb_get(db, ro, (const char *)q->k[i], q->len[i], &vl, &err);
            lat[i] = now_s() - t0;
            found += val != NULL;
            free(val);
        }
    }
    report("rocksdb", lat, q->n, found);
    rocksdb_readoptions_destroy(ro);
    rocksdb_writebatch_destroy(wb);
    rocksdb_writeoptions_destroy(wo);
    rocksdb_close(db);
    rocksdb_options_destroy(o);
}
#endif

#ifdef CF_HAVE_SQLITE
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
    size_t found = 0;
    for (int pass = 0; pass < 2; pass++) {
        found = 0;
        for (size_t i = 0; i < q->n; i++) {
            double t0 = now_s();
            sqlite3_bind_blob(sel, 1, q->k[i], (int)q->len[i], SQLITE_STATIC);
            found += sqlite3_step(sel) == SQLITE_ROW;
            sqlite3_reset(sel);
            lat[i] = now_s() - t0;
        }
    }
    report("sqlite", lat, q->n, found);
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
