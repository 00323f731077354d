/* cfile: read and write Apache Kudu's CFile columnar format.
 *
 * This header includes the stable core of the public API: status.h (codes and
 * cf_error), types.h, io.h, reader.h, iter.h, writer.h, cache.h, arrow.h and
 * version.h. The extensions have headers of their own, included on their own:
 * bloom.h (BloomFiles), delta.h (DeltaFiles), rowset.h (DiskRowSets and tables),
 * hfile.h (HBase HFiles) and parquet.h (Apache Parquet).
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
