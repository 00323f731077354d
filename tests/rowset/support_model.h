/* Shared by the rowset and table tests: temp directories, and the in-memory
 * model their MVCC tests check a table "k STRING KEY, j INT32 KEY, v INT32 NULL,
 * s STRING NULL" against (each key's history of versions, the predicates the
 * scans draw, random updates of v and s, and comparing a returned row). */
#ifndef CF_TEST_SUPPORT_MODEL_H
#define CF_TEST_SUPPORT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/rowset.h>

#include "test_common.h"

/* A fresh directory under /tmp (a static buffer: valid until the next call). */
char *mkdtemp_dir(void);
/* The same in memory (/dev/shm, where fsync costs nothing) when there is one:
 * for tests of thousands of commits. */
char *mkdtemp_fast_dir(void);
/* A cmocka fixture (TMPDIR_TEST): *state is a fresh directory under /tmp for
 * the test (a const char *), removed with all it holds after the test, passed
 * or failed. */
int tmpdir_setup(void **state);
int tmpdir_teardown(void **state);
#define TMPDIR_TEST(f) cmocka_unit_test_setup_teardown(f, tmpdir_setup, tmpdir_teardown)
/* Bit i of a non-null bitmap; a NULL bitmap means every row is present. */
bool bit(const uint8_t *bm, size_t i);

/* One version of a row: from ts on (until the next version) it reads as this. */
typedef struct version {
    uint64_t ts;
    bool alive;
    bool v_nn, s_nn;
    int32_t v;
    char s[16];
} version;

/* A key's history, oldest first. */
typedef struct mrow {
    version *h;
    size_t n, cap;
    bool gone; /* dropped by a compaction: the rowset no longer holds the key */
} mrow;

/* Key columns (k, j) of model row i: rows sorted by i are sorted by key. */
void mkey(size_t i, char *kb, int32_t *j);
void push_version(mrow *r, version v);
/* The key of model row i as a lookup takes it: key[] points at ks (k) and j. */
typedef struct model_key {
    char k[16];
    int32_t j;
    cf_slice ks;
    const void *key[2];
} model_key;
void model_key_of(model_key *mk, size_t i);
/* The version a snapshot at snap sees (ts < snap), or NULL when none is alive. */
const version *at(const mrow *r, uint64_t snap);

/* Whether model row i at version v passes the scans' random predicate:
 * kind 0 none, 1 v >= x, 2 s IS NULL, 3 k <= kb. */
bool passes(const version *v, size_t i, int kind, int32_t x, const char *kb);

/* Row r of a batch is model row i at version v: key columns 0 and 1 when
 * `keys`, v in column cv and s in column cs. */
void check_row(const cf_row_batch *b, size_t r, size_t i, const version *v, bool keys, size_t cv,
               size_t cs);

/* A random update of v and/or s (at least one) over `cur` at ts: ch[0..nch)
 * for cf_rowset_update / cf_table_update (pointing into this struct), and the
 * version the row then has. */
typedef struct model_update {
    cf_column_change ch[2];
    size_t nch;
    int32_t v;
    char sb[16];
    cf_slice sv;
    version next;
} model_update;
void model_update_draw(model_update *u, cf_rng *rng, const version *cur, uint64_t ts);

/* The model's random scan predicate over nkeys model rows: none (kind 0),
 * v >= x (1), s IS NULL (2), or k <= kb (3). */
typedef struct model_pred {
    int kind;
    int32_t x;
    char kb[16];
    cf_slice ks;
    cf_pred p[1];
} model_pred;
/* Draw a predicate and a batch size into *mp and o (which then points into
 * mp); o->snapshot = snap. */
void model_pred_draw(model_pred *mp, cf_scan_options *o, cf_rng *rng, size_t nkeys, uint64_t snap);
/* Batch b is the next rows of the model at snap that pass mp, from model row
 * *i on (absent and filtered rows skipped); *i moves past them. keys, cv, cs:
 * as check_row. */
void model_check_batch(const cf_row_batch *b, const mrow *m, size_t nkeys, size_t *i, uint64_t snap,
                       const model_pred *mp, bool keys, size_t cv, size_t cs);
/* After the last batch: no model row from i on passes mp at snap. */
void model_check_rest(const mrow *m, size_t nkeys, size_t i, uint64_t snap, const model_pred *mp);
/* The answer of a lookup of model row r at snap (status st, row g; v in
 * column 2, s in 3; key columns 0 and 1 checked when `keys`): CF_ENOTFOUND
 * when the model has no live version there, else that version. */
void model_check_get(cf_status st, const cf_error *err, const cf_row_batch *g, const mrow *m,
                     size_t r, uint64_t snap, bool keys);
/* Free the histories of m[0..n) and m itself. */
void model_free(mrow *m, size_t n);

/* The start of a model test: a fresh directory (*dir, malloc'd) holding a
 * rowset of the model's schema with model rows first, first + step, ... below
 * end, each with random v and s (each NULL a quarter of the time) at
 * timestamp 10; and the model of nkeys rows, those with that first version.
 * model_end frees the model and removes the directory. */
mrow *model_start(char **dir, size_t nkeys, size_t first, size_t end, size_t step, cf_rng *rng);
void model_end(char *dir, mrow *m, size_t nkeys);

/* A random insert of a row at ts: v (NULL a quarter of the time when
 * v_nullable) and s ("<tag><n>", NULL a third of the time). vals points into
 * this struct and at mk's key columns (NULL when mk is: a reinsert takes the
 * key apart); next is the version the row then has. */
typedef struct model_insert {
    int32_t v;
    char sb[16];
    cf_slice sv;
    const void *vals[4];
    version next;
} model_insert;
void model_insert_draw(model_insert *mi, cf_rng *rng, const model_key *mk, bool v_nullable,
                       char tag, uint64_t ts);

/* The model's side of an update (to version *next) or a delete at ts of row r,
 * whose call returned st: CF_ENOTFOUND when the model has no live version of
 * the row, else CF_OK and the row gets the new version. Returns whether it did. */
bool model_apply_update(mrow *r, cf_status st, const cf_error *err, const version *next);
bool model_apply_delete(mrow *r, cf_status st, const cf_error *err, uint64_t ts);
/* After a compaction with history mark ahm: rows deleted before it are gone. */
void model_compacted(mrow *m, size_t nkeys, uint64_t ahm);
/* A snapshot to check at: the latest a quarter of the time, else one in
 * [ahm, ts + 2). */
uint64_t model_snap_draw(cf_rng *rng, uint64_t ahm, uint64_t ts);

/* Check a rowset or a table at snapshot snap against model rows m[0..nkeys): a
 * scan with a random predicate and projection (mkey order), then random
 * lookups (5 of the rowset, with their key columns checked; 8 of the table). */
void model_check_rowset(cf_rowset *rs, const mrow *m, size_t nkeys, uint64_t snap, cf_rng *rng);
void model_check_table(cf_table *t, const mrow *m, size_t nkeys, uint64_t snap, cf_rng *rng);

#endif
