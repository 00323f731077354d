/* kudu.BlockRecordPB (src/kudu/fs/fs.proto), decoded by hand: the log block
 * manager's metadata files hold one per block created or deleted, so a server
 * with a million blocks means a million records, and protobuf-c's unpack would
 * allocate two objects for each. The wire format is protobuf's:
 *
 *   field 1 block_id   (length-delimited BlockIdPB: field 1 id, fixed64)
 *   field 2 op_type    (varint enum: CREATE = 1, DELETE = 2)
 *   field 3 timestamp_us (varint)
 *   field 4 offset     (varint int64)
 *   field 5 length     (varint int64)
 *
 * Any other field is skipped by its wire type, as protobuf does; a later
 * occurrence of a scalar field wins, and a repeated embedded message merges. */
#include <string.h>

#include "fs_internal.h"

static bool varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (*p == end)
            return false;
        uint8_t b = *(*p)++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false;
}

/* Skip a field of wire type `wt`; groups (3, 4) are refused, as in proto3 and
 * any message Kudu writes. */
static bool skip(const uint8_t **p, const uint8_t *end, unsigned wt)
{
    uint64_t n;
    switch (wt) {
    case 0: return varint(p, end, &n);
    case 1:
        if (end - *p < 8)
            return false;
        *p += 8;
        return true;
    case 2:
        if (!varint(p, end, &n) || n > (uint64_t)(end - *p))
            return false;
        *p += n;
        return true;
    case 5:
        if (end - *p < 4)
            return false;
        *p += 4;
        return true;
    default: return false;
    }
}

static bool block_id(const uint8_t *p, const uint8_t *end, cf_kudu_block_record *r)
{
    while (p < end) {
        uint64_t key;
        if (!varint(&p, end, &key) || key >> 3 == 0)
            return false;
        unsigned wt = (unsigned)(key & 7);
        if (key >> 3 == 1 && wt == 1) {
            if (end - p < 8)
                return false;
            uint64_t v = 0;
            for (int i = 7; i >= 0; i--)
                v = v << 8 | p[i];
            p += 8;
            r->block_id = v;
            r->has_block_id = true;
        } else if (!skip(&p, end, wt)) {
            return false;
        }
    }
    return true;
}

bool cf_kudu_block_record_decode(const uint8_t *p, size_t len, cf_kudu_block_record *r)
{
    memset(r, 0, sizeof *r);
    const uint8_t *end = p + len;
    while (p < end) {
        uint64_t key, v;
        if (!varint(&p, end, &key) || key >> 3 == 0 || key >> 3 > 0x1fffffff)
            return false;
        unsigned wt = (unsigned)(key & 7);
        uint64_t field = key >> 3;
        if (field == 1 && wt == 2) {
            if (!varint(&p, end, &v) || v > (uint64_t)(end - p))
                return false;
            /* BlockIdPB's id is required: a present but empty sub-message does not
             * name a block (merging with an earlier one would). */
            if (!block_id(p, p + v, r))
                return false;
            p += v;
        } else if (field >= 2 && field <= 5 && wt == 0) {
            if (!varint(&p, end, &v))
                return false;
            switch (field) {
            case 2:
                /* An enum is an int32 on the wire: the low 32 bits, sign-extended. */
                r->op = (int64_t)(int32_t)(uint32_t)v;
                r->has_op = true;
                break;
            case 3:
                r->timestamp_us = v;
                r->has_timestamp = true;
                break;
            case 4:
                r->offset = (int64_t)v;
                r->has_offset = true;
                break;
            default:
                r->length = (int64_t)v;
                r->has_length = true;
                break;
            }
        } else if (!skip(&p, end, wt)) {
            return false;
        }
    }
    return true;
}
