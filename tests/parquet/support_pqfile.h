/* Parquet files built by hand for tests: schema elements, and a whole file's
 * footer (FileMetaData of one row group) around column chunks a test wrote
 * itself, so a test states only what it varies; the good files of the corpus.
 * Shared by tests/parquet, tests/cli and tests/arrow (CMakeLists.txt adds it
 * to each). */
#ifndef CF_TEST_SUPPORT_PQFILE_H
#define CF_TEST_SUPPORT_PQFILE_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/parquet.h>

#include "parquet/thrift.h"
#include "util/buf.h"

/* A decoded SchemaElement named `name` (borrowed); each of the others is
 * left absent when negative. */
cf_parquet_schema_element pqt_element(const char *name, int type, int rep, int children,
                                      int converted);

/* A SchemaElement to write. */
typedef struct pqt_el {
    const char *name;
    int type;       /* -1: group */
    int repetition; /* -1: none (the root) */
    int children;   /* groups */
    int converted;  /* -1: none */
} pqt_el;

/* One column chunk's ColumnChunk and ColumnMetaData. */
typedef struct pqt_chunk {
    int type; /* physical type */
    const int32_t *encodings;
    int encoding_count;
    const char *const *path;
    int path_len;
    int codec;
    int64_t num_values;
    int64_t offset;   /* first byte: ColumnChunk.file_offset */
    int64_t len;      /* its bytes, compressed and uncompressed alike */
    int64_t data_off; /* data_page_offset */
    int64_t dict_off; /* dictionary_page_offset; -1: none */
} pqt_chunk;

/* Append to f, after the chunks' bytes, the footer: FileMetaData (version 2,
 * the schema `els`, num_rows, one row group of the chunks, total_byte_size
 * 100), its length and "PAR1". */
void pqt_footer(cf_buf *f, const pqt_el *els, int nel, int64_t num_rows, const pqt_chunk *chunks,
                int nchunks);

/* FileMetaData's first fields for schema { rep int32 a }: version 2, then the
 * schema list of the root "schema" (one child) and the leaf, whose
 * SchemaElement is left open after its name for the test to add fields to. */
void pqt_meta_int32_a(cf_thrift_writer *w, int rep);

/* The next page of it into *p: false after the last; an error fails the test. */
bool pqt_next_page(cf_parquet_pages *it, cf_parquet_page *p);

/* The files of the corpus (shared/parquet/) expected to read: those whose
 * expected.json does not expect an error. */
typedef struct pqt_corpus {
    DIR *d;
    char dir[1024];
    const char *name; /* the case's name */
    char path[4096];  /* its .parquet file */
} pqt_corpus;

/* false: there is no corpus here. */
bool pqt_corpus_open(pqt_corpus *c);
/* The next file; false (the directory closed) after the last. */
bool pqt_corpus_next(pqt_corpus *c);

/* The path of the corpus case `name` (its .parquet file). */
void pqt_corpus_path(const char *name, char *path, size_t cap);
/* That file opened (free it with cf_parquet_free); an error fails the test. */
cf_parquet *pqt_corpus_file(const char *name);

/* The file held in f[0..len) opened with default options on a memory io (*io,
 * borrowed from f; the caller frees both); an error fails the test. */
cf_parquet *pqt_open_mem(const uint8_t *f, size_t len, cf_io **io);

#endif
