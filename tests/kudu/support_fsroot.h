/* Helpers the fs and LBM tests share (support_fsroot.c): the layouts of
 * ../shared/kudu-fs opened as their expected/fs.json says, and scratch roots in
 * temporary directories built with the library's writers. */
#ifndef CF_TEST_KUDU_SUPPORT_FSROOT_H
#define CF_TEST_KUDU_SUPPORT_FSROOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/kudu.h>

#include "json.h"
#include "kudu/tablet.h"
#include "kudufs/lbm_writer.h"

typedef struct kfs_layout {
    char dir[1024];  /* <shared>/kudu-fs/<name> */
    cf_json_doc fsj; /* expected/fs.json */
    char wal[1100];
    char data[8][1100];
    const char *data_ptrs[8];
    size_t ndata;
} kfs_layout;

/* The layouts of ../shared/kudu-fs every test reads (one of each block manager
 * and data dir arrangement). */
#define KFS_NLAYOUTS 4
extern const char *const kfs_layouts[KFS_NLAYOUTS];
/* <shared>/kudu-fs/<layout>/<rel> into out (asserts it fits). */
void kfs_layout_path(char *out, size_t cap, const char *layout, const char *rel);

/* Load layout `name` (asserts); kfs_layout_dispose after. */
void kfs_layout_load(kfs_layout *l, const char *name);
void kfs_layout_dispose(kfs_layout *l);
/* Open its fs with the options the layout names. */
cf_status kfs_layout_open(const kfs_layout *l, cf_kudu_fs **fs, cf_error *err);
/* Parse <layout>/expected/<name> (asserts). */
void kfs_expected(const kfs_layout *l, const char *name, cf_json_doc *doc);
/* A JSON number member as an integer (asserts). */
int64_t kfs_int(const cf_json *obj, const char *key);

/* A fresh temporary directory (mkdtemp under TMPDIR); free with cf_test_rm_rf. */
void kfs_tmpdir(char *out, size_t cap);
/* A scratch server: a fresh temporary directory `tmp` (remove it with
 * cf_test_rm_rf) holding the single root <tmp>/r (kfs_single_root with dir_type and
 * server_key), its data directory <root>/data. */
typedef struct kfs_scratch {
    char tmp[512], root[600], data[700];
} kfs_scratch;
void kfs_scratch_new(kfs_scratch *s, const char *dir_type, const char *server_key);

/* The spec of a single root (WAL, metadata and the one data dir, uuid all[0]; all:
 * an array of one outliving the spec) of a new server fedcba98... with the given
 * block manager ("log" or "file"), 4 KiB file system blocks and no server key. */
cf_kudu_root_spec kfs_root_spec(const char *root, const char *dir_type, const char *const *all);
/* That root written (data dir 0123...), with server key `server_key` (NULL: none). */
void kfs_single_root(const char *root, const char *dir_type, const char *server_key);

/* A superblock spec (cf_kudu_superblock_spec_init, then these) of tablet `tablet` of
 * table fedcba98... named table_name, at schema sch with Kudu column ids `ids`; the
 * caller adds rowsets, versions and the rest. */
void kfs_superblock_spec(cf_kudu_superblock_spec *sp, const char *tablet, const char *table_name,
                         const cf_schema *sch, const uint32_t *ids);
/* sp written to <root>/tablet-meta/<its tablet id> (asserts). */
void kfs_superblock_write(const char *root, const cf_kudu_superblock_spec *sp);

/* The fs of the single root `root` (its WAL directory; default options) and
 * its tablet `tablet` (asserts both open); free t, then fs. */
void kfs_open_tablet(const char *root, const char *tablet, cf_kudu_fs **fs, cf_kudu_tablet **t);

/* The next batch of sc into *b while *st is CF_OK; false at the end or on a
 * failure (then in *st). Asserting: kfs_scan_next_ok, for scans that must not fail. */
bool kfs_scan_next(cf_kudu_scanner *sc, cf_row_batch *b, cf_status *st, cf_error *err);
bool kfs_scan_next_ok(cf_kudu_scanner *sc, cf_row_batch *b);

/* JSON equality as ../shared/tools/kudu_check.py judges it: 64-bit integers as
 * numbers or decimal strings are equal when their values are; other numbers are
 * equal as doubles, or, when `floats`, as floats too (a FLOAT cell printed in
 * another round-trip form); objects have the same members in any order. */
bool kudu_json_equal_as(const cf_json *a, const cf_json *b, bool floats);
/* kudu_json_equal_as(a, b, true). */
bool kudu_json_equal(const cf_json *a, const cf_json *b);

/* The first problem whose text contains `needle`, or NULL. */
const cf_kudu_problem *kfs_problem(const cf_kudu_fs *fs, const char *needle);

#endif
