/* cfile: read and write Apache Kudu's CFile columnar format.
 *
 * This header includes the stable core of the public API: status.h (codes and
 * cf_error), types.h, io.h, reader.h, iter.h, writer.h, cache.h, arrow.h and
 * version.h. The extensions have headers of their own, included on their own:
 * bloom.h (BloomFiles), delta.h (DeltaFiles), rowset.h (DiskRowSets and tables),
 * hfile.h (HBase HFiles) and parquet.h (Apache Parquet). Every header compiles
 * on its own and includes what it uses (ctest build/exports checks it).
 *
 * Rules every header keeps (each opens with its own call order, ownership and
 * thread rules, and marks preconditions with REQUIRES:):
 *   - A handle made by _create/_open is freed by its _free; _free(NULL) is a no-op.
 *   - Options structs are filled by their _init; a NULL options pointer means
 *     the defaults.
 *   - An io, cache, reader or table passed to a constructor is borrowed: it must
 *     outlive what was made from it. The *_file variants own the io they open.
 *   - Pointers handed out say how long they live (usually: until the next call
 *     on the same handle, or as long as the handle).
 *   - Fallible calls return cf_status and take an optional cf_error *err last.
 *   - There is no global state and no init call: separate handles may be used
 *     from separate threads freely. The immutable readers (cf_reader, the bloom
 *     and delta readers, cf_hfile, cf_parquet) and a cf_cache may be shared by
 *     threads; every other handle (writers, iterators, scanners, rowsets,
 *     tables) belongs to one thread at a time.
 *
 * One convention each, the same in every header:
 *   Names     cf_<module>_<verb>[_<object>], one prefix per module (cf_io_,
 *             cf_reader_, cf_iter_, cf_writer_, cf_cache_, cf_arrow_, cf_bloom_,
 *             cf_delta_ and cf_rcl_, cf_hfile_, cf_parquet_, cf_rowset_,
 *             cf_table_); a type several modules share is named for what it is
 *             (cf_slice, cf_batch, cf_schema, cf_pred, cf_row_batch).
 *   Options   cf_X_options_init fills the defaults and a version that
 *             open/create check; cf_X_open(out, ..., const cf_X_options *opts,
 *             err) takes NULL for all defaults and refuses a bad field with
 *             CF_EINVAL naming it; an open handle's settings are cf_X_set_*.
 *             Deliberate exceptions: cf_writer_create requires its options
 *             (cf_writer_options_init takes the column type: there is no
 *             default type), and the CFile-based bloom and delta readers take
 *             cf_reader_options.
 *   Getters   that cannot fail return the value: cf_X_<noun>(const cf_X *)
 *             (cf_reader_info, cf_table_last_ts); counts are cf_X_<things>_count
 *             (cf_schema_column_count, cf_parquet_column_count). Where the noun
 *             already names the struct returned, cf_X_get_<noun>
 *             (cf_rowset_get_info, cf_cache_get_stats, cf_hfile_get_info).
 *             The i-th of a list (0-based) is cf_X_<noun>_at(h, i, ...)
 *             (cf_schema_column_at, cf_table_rowset_at, cf_rowset_file_at,
 *             cf_parquet_column_at, cf_hfile_meta_at, cf_hfile_data_block_at):
 *             i past the end is checked and gives NULL, or false for those
 *             that fill out-parameters. cf_iter_block_at is not one of them:
 *             it takes a row ordinal, positions the iterator and reads, so it
 *             returns cf_status like the seeks it sits beside.
 *   End of data  CF_OK with nothing in it, never an error code: a batch of
 *             count 0 (cf_batch, cf_row_batch), a copy's *count or *n of 0.
 *             One item at a time into a caller's struct: bool *has, false at
 *             the end (cf_hfile_iter_next, cf_parquet_pages_next). One item
 *             handed out as a pointer: NULL at the end
 *             (cf_parquet_records_next), as an Arrow stream gives a released
 *             array. The one exception is cf_rcl_decoder, a caller-allocated
 *             decoder over bytes already in memory: has_next (which cannot
 *             fail) before each next.
 *   Lookups   by key or name. In memory, where nothing can fail: bool found
 *             or -1 (cf_reader_get_metadata, cf_hfile_file_info_get,
 *             cf_schema_find). Where the lookup reads or decodes and so can
 *             fail: cf_status, CF_ENOTFOUND when absent (cf_rowset_get,
 *             cf_table_get, cf_iter_seek_*, cf_parquet_page_index_read).
 */
#ifndef CFILE_CFILE_H
#define CFILE_CFILE_H

#include "arrow.h"
#include "cache.h"
#include "io.h"
#include "iter.h"
#include "reader.h"
#include "status.h"
#include "types.h"
#include "version.h"
#include "writer.h"

#endif
