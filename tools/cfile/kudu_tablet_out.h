/* What the `cfile kudu tablet` subcommands print (kudu_tablet_out.c): a tablet's
 * partition, schema, consensus metadata and rowsets, as JSON and as text, read
 * from kudu.h's getters and from the superblock's and consensus metadata's
 * protobuf JSON (the public form of what the getters do not give). */
#ifndef CF_CLI_KUDU_TABLET_OUT_H
#define CF_CLI_KUDU_TABLET_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cfile/kudu.h>

#include "cli.h"
#include "json.h"

/* A tablet's superblock and consensus metadata as parsed protobuf JSON. */
typedef struct cf_kt_meta_json {
    cf_json_doc sb, cm;
    bool has_sb, has_cm;
    char cm_err[300]; /* why there is no consensus metadata, when it is damaged */
} cf_kt_meta_json;

/* One block a rowset names: its kind and where the fs has it. */
typedef struct cf_kt_rblock {
    uint64_t id;
    cf_kudu_block_kind kind;
    long column_id;         /* COLUMN, else -1 */
    long delta_index;       /* UNDO/REDO, else -1 */
    const cf_kudu_block *b; /* NULL: missing */
} cf_kt_rblock;

/* "cfile <cmd>: <message>"; the exit code for st (3 CF_ENOTSUP, 2 CF_EINVAL, else 1). */
int cf_kt_lib_fail(cf_cli *c, cf_status st, const cf_error *e);
/* Parse t's superblock and consensus metadata JSON into m (free it with
 * cf_kt_meta_free whatever this returns): 0, or the exit code after printing why.
 * Damaged consensus metadata is not a failure: m->cm_err says what is wrong. */
int cf_kt_meta_load(cf_cli *c, const cf_kudu_tablet *t, cf_kt_meta_json *m);
void cf_kt_meta_free(cf_kt_meta_json *m);
/* Members of protobuf JSON: an object's member, a string, an integer (number or
 * decimal string; dflt when absent). */
const cf_json *cf_kt_jget(const cf_json *o, const char *k);
const char *cf_kt_jstr(const cf_json *o, const char *k);
/* cf_kt_jstr, or dflt where the member is absent or not a string. */
const char *cf_kt_jstr_or(const cf_json *o, const char *k, const char *dflt);
long long cf_kt_jint(const cf_json *o, const char *k, long long dflt);
/* The partition of superblock sb: hash buckets, range columns, both keys in hex
 * and the range bounds decoded (null = unbounded); the text form as Kudu's
 * PartitionDebugString. */
void cf_kt_partition_json(cf_jw *w, const cf_kudu_tablet *t, const cf_json *sb);
void cf_kt_partition_text(FILE *f, const cf_kudu_tablet *t, const cf_json *sb);
/* The schema as Kudu's Schema::ToString with column ids; the JSON form with
 * encodings, compression, block sizes, defaults and the primary key. */
void cf_kt_schema_text(FILE *f, const cf_kudu_tablet *t, const cf_json *sb);
void cf_kt_schema_json(cf_jw *w, const cf_kudu_tablet *t, const cf_json *sb);
/* Term, vote and committed config (null / "none" without consensus metadata). */
void cf_kt_consensus_json(cf_jw *w, const cf_kt_meta_json *m);
void cf_kt_consensus_text(FILE *f, const cf_kt_meta_json *m);
/* The name of the column with Kudu id `id`, or NULL. */
const char *cf_kt_column_name(const cf_kudu_tablet *t, uint32_t id);
/* Every block of rs in Kudu's order (columns, bloom, ad-hoc index, UNDO, REDO),
 * found in fs; malloc'd (NULL and *n = 0 when out of memory). */
cf_kt_rblock *cf_kt_rowset_blocks(const cf_kudu_fs *fs, const cf_kudu_rowset *rs, size_t *n);
/* Every rowset with its blocks, lengths, places and keys; returns how many
 * blocks the superblock names that fs does not hold. */
size_t cf_kt_rowsets_json(cf_jw *w, const cf_kudu_fs *fs, const cf_kudu_tablet *t);
size_t cf_kt_rowsets_text(FILE *f, const cf_kudu_fs *fs, const cf_kudu_tablet *t);

#endif
