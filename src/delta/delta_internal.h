/* Internal to the delta layer: statistics accumulation and (de)serialization of
 * DeltaStatsPB (format §12.4), shared by the writer and the reader. */
#ifndef CF_DELTA_INTERNAL_H
#define CF_DELTA_INTERNAL_H

#include <cfile/delta.h>

#include "util/buf.h"

/* Running statistics. Column ids are kept in the iteration order of libstdc++'s
 * std::unordered_map<ColumnId, int64_t> (what Kudu serializes), emulated. */
typedef struct cf_dstats {
    int64_t delete_count, reinsert_count;
    uint64_t min_ts, max_ts;
    /* The emulated hash table: nodes in one singly linked list (iteration order),
     * buckets[b] = index of the node *before* the bucket's first node
     * (CF_DSTATS_HEAD for the list head), or CF_DSTATS_EMPTY. */
    cf_delta_col_stat *nodes;
    uint32_t *next;
    uint32_t *buckets;
    size_t n, cap, nbuckets;
    size_t next_resize;
    uint32_t head;
} cf_dstats;

#define CF_DSTATS_NONE UINT32_MAX
#define CF_DSTATS_HEAD (UINT32_MAX - 1)

void cf_dstats_init(cf_dstats *s);
void cf_dstats_dispose(cf_dstats *s);
/* Kudu's DeltaStats::UpdateStats: decode rcl (CF_ECORRUPT as the decoder) and count. */
cf_status cf_dstats_update(cf_dstats *s, uint64_t ts, cf_slice rcl, cf_error *err);
/* Add update_count to col_id (inserting it as the map would). */
cf_status cf_dstats_incr(cf_dstats *s, uint32_t col_id, int64_t count, cf_error *err);
/* Serialize as DeltaStatsPB, column stats in map iteration order. */
cf_status cf_dstats_serialize(cf_dstats *s, cf_buf *out, cf_error *err);
/* Parse a DeltaStatsPB into *out; column stats (allocated, caller frees with
 * cf_free) in serialized order. */
cf_status cf_dstats_parse(const uint8_t *p, size_t len, cf_delta_stats *out,
                          cf_delta_col_stat **cols, cf_error *err);

/* cf_delta_reader_open_file over an io the caller opened, taken over (freed with
 * the reader, or now on failure). */
cf_status cf_delta_reader_open_owned(cf_delta_reader **out, cf_io *io, cf_delta_type type,
                                     const cf_reader_options *opts, cf_error *err);

#endif
