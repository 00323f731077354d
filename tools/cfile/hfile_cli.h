/* What the `cfile hfile` subcommands share (cmd_hfile*.c): their options,
 * byte strings and keys in text and JSON, and the per-file entry points.
 *
 * JSON byte strings follow shared/hfile/README.md: a JSON string when the bytes
 * are valid, printable UTF-8, else {"hex": "..."}. Text output escapes bytes as
 * HBase's Bytes.toStringBinary does (\xNN for anything not printable ASCII).
 */
#ifndef CF_CLI_HFILE_CLI_H
#define CF_CLI_HFILE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cfile/hfile.h>

#include "cli.h"

/* Every option of `cfile hfile`; each subcommand uses its own. */
typedef struct hf_opts {
    bool json;
    const char *hex;    /* seek: the row as hex */
    bool keys_only;     /* dump --keys */
    uint64_t limit;     /* dump --limit: cells per file at most (UINT64_MAX: all) */
    const uint8_t *row; /* dump --row / --row-hex (malloc'd) */
    size_t row_len;
    bool has_row;
    bool details;         /* stats --details: range counts in text output too */
    bool index_only;      /* blocks --index */
    bool headers_only;    /* blocks --headers */
    const char *file_key; /* several files: each JSON object starts with "file": path */
    /* write */
    uint32_t block_size;
    const char *compression;
    const char *encoding;
    const char *checksum; /* write --checksum: NULL, CRC32, CRC32C */
    bool no_bloom, no_mvcc, tags;
} hf_opts;

/* Byte strings. */
void hf_jw_bytes(cf_jw *w, cf_slice s);
void hf_print_bytes(FILE *f, cf_slice s);
const char *hf_type_name(uint8_t t);
/* A serialized key: decoded object (or bytes for raw v1 keys / unparsable ones).
 * h NULL: a key the library decoded as a KeyValue (a v1 KeyComparator file's
 * LASTKEY, while its cells are listed raw). */
void hf_jw_key(cf_jw *w, const cf_hfile *h, cf_slice k);
/* The members of a parsed key ("row", "family", "qualifier", "timestamp",
 * "type") inside an object the caller opened: hf_jw_key's object, dump's cells. */
void hf_jw_key_members(cf_jw *w, const cf_hfile_cell *c);
void hf_print_key(FILE *f, const cf_hfile *h, cf_slice k);
/* row/family:qualifier/timestamp/Type of a parsed cell (v1: the raw key). */
void hf_print_cell_key(FILE *f, const cf_hfile *h, const cf_hfile_cell *c);
/* How the key before a cell (its bytes as stored) sorts against the cell's:
 * <0, 0, >0. Raw v1 keys compare as bytes, KeyValue keys by HBase's cell order. */
int hf_key_cmp_prev(const cf_hfile *h, cf_slice prev, const cf_hfile_cell *cell);
/* Tags: T[i]: type:value for each well-formed tag; false if the bytes are not tags. */
bool hf_print_tags(FILE *f, cf_slice tags);
void hf_jw_tags(cf_jw *w, cf_slice tags);
/* "hfile_version": {...}, "compression": "..." members. */
void hf_jw_version(cf_jw *w, const cf_hfile *h);
/* Begin a per-file JSON object (with "file" when o->file_key is set). */
void hf_jw_begin(cf_jw *w, FILE *out, const hf_opts *o);
/* Hex text to bytes; -1 when not hex. *out is malloc'd. */
int hf_unhex(const char *s, uint8_t **out, size_t *len);
/* Data block encoding name of an open file. */
const char *hf_encoding(const cf_hfile *h);

/* Per-file subcommands (cmd_hfile_meta.c, cmd_hfile_stats.c). Each returns a CF_EXIT_*. */
int hf_do_meta(cf_cli *c, cf_hfile *h, const hf_opts *o);
int hf_do_blocks(cf_cli *c, cf_hfile *h, const hf_opts *o);
int hf_do_stats(cf_cli *c, cf_hfile *h, const hf_opts *o);
int hf_do_check(cf_cli *c, cf_hfile *h, const hf_opts *o);
/* Whole-command subcommands (cmd_hfile_write.c): argv after the subcommand name. */
int hf_do_bloom(cf_cli *c, const hf_opts *o, int argc, char **argv);
int hf_do_write(cf_cli *c, const hf_opts *o, int argc, char **argv);

#endif
