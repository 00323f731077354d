/* cfile: read and write Apache Kudu's CFile columnar format.
 *
 * This header includes the stable core of the public API: status.h (codes and
 * cf_error), types.h, io.h, reader.h, iter.h, writer.h, cache.h, arrow.h and
 * version.h. The extensions have headers of their own, included on their own:
 * bloom.h (BloomFiles), delta.h (DeltaFiles), rowset.h (DiskRowSets and tables),
 * hfile.h (HBase HFiles) and parquet.h (Apache Parquet).
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
