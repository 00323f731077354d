/* Fuzz the log block manager's container loader (src/kudufs/lbm.c, lbm_record.c):
 * a container's metadata file read as Kudu's loader reads it, over any bytes.
 *
 *   input: [opt][data size x4 (LE)][metadata file bytes]
 *     opt bits 0-1: filesystem block size 512, 1024, 4096 or 65536
 *     opt bits 2-3: --log_container_max_size 4 KiB, 64 KiB, 1 MiB or 10 GiB
 *     opt bit 4: the rest is not a file but [len][BlockRecordPB bytes]... records,
 *                wrapped here into a valid version 2 container (checksums right), so
 *                the loader's record logic is reached instead of its checksum checks
 *
 * Invariants: the load ends (a clean error is only ever out of memory); records
 * come in strictly increasing file offsets inside the file; every live block lies
 * inside the data file (or is empty), appears once and is counted in live_blocks
 * and live_bytes; deleted blocks never outnumber the records; a dead container is
 * full and has no live block; every problem names the metadata or data file. */
/* cf-needs: tables */
#include "fuzz.h"

#include <string.h>

#include <cfile/kudu.h>

#include "codec/crc32c.h"
#include "kudufs/fs_internal.h"
#include "util/alloc.h"
#include "util/endian.h"

/* Append one version 2 record of n bytes at p to buf (room checked by the caller). */
static size_t put_record(uint8_t *buf, size_t at, const uint8_t *p, size_t n)
{
    cf_store_le32(buf + at, (uint32_t)n);
    cf_store_le32(buf + at + 4, cf_crc32c(buf + at, 4));
    memcpy(buf + at + 8, p, n);
    cf_store_le32(buf + at + 8 + n, cf_crc32c(p, n));
    return at + 12 + n;
}

/* [len][bytes]... as a container: header, supplemental header, the records. */
static uint8_t *wrap(const uint8_t *in, size_t len, size_t *out_len)
{
    static const uint8_t sup[] = "\x12\x12kudu.BlockRecordPB";
    size_t cap = 16 + 12 + sizeof sup + len * 13 + 1, at = 0;
    uint8_t *buf = malloc(cap);
    FUZZ_REQUIRE(buf != NULL);
    memcpy(buf, "kuducntr", 8);
    cf_store_le32(buf + 8, 2);
    cf_store_le32(buf + 12, cf_crc32c(buf, 12));
    at = put_record(buf, 16, sup, sizeof sup - 1);
    for (size_t i = 0; i < len;) {
        size_t n = in[i++];
        if (n > len - i)
            n = len - i;
        at = put_record(buf, at, in + i, n);
        i += n;
    }
    *out_len = at;
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5)
        return 0;
    static const uint64_t fsbs[] = {512, 1024, 4096, 65536};
    static const uint64_t maxes[] = {4096, 65536, 1 << 20, (uint64_t)10 << 30};
    uint8_t opt = data[0];
    uint64_t data_size = (uint64_t)data[1] | (uint64_t)data[2] << 8 | (uint64_t)data[3] << 16 |
                         (uint64_t)data[4] << 24;
    const uint8_t *meta = data + 5;
    size_t meta_len = size - 5;
    uint8_t *wrapped = NULL;
    if (opt & 0x10) {
        wrapped = wrap(meta, meta_len, &meta_len);
        meta = wrapped;
    }

    cf_kudu_fs *fs = cf_calloc(1, sizeof *fs);
    FUZZ_REQUIRE(fs != NULL);
    cf_kudu_data_dir dir = {
        .root = "root", .dir = "root/data", .uuid = "u", .fs_block_size = fsbs[opt & 3]};
    fs->dirs = &dir;
    fs->ndirs = 1;
    fs->bm = CF_KUDU_BM_LOG;
    fs->lbm_max_size = maxes[(opt >> 2) & 3];
    cf_kudu_container c;
    memset(&c, 0, sizeof c);
    c.id = "c";
    c.data_path = "root/data/c.data";
    c.metadata_path = "root/data/c.metadata";
    c.data_size = data_size;

    cf_io *io = NULL;
    cf_error e = {0};
    FUZZ_REQUIRE(cf_io_open_mem(&io, meta, meta_len, &e) == CF_OK);
    uint64_t aligned = 0;
    cf_status st = cf_kudu_lbm_load_container(fs, &c, io, &aligned, &e);
    FUZZ_REQUIRE_MSG(st == CF_OK || st == CF_ENOMEM, &e);
    if (st == CF_OK) {
        for (size_t i = 0; i < c.nrecords; i++) {
            FUZZ_REQUIRE(c.records[i].file_offset < meta_len);
            FUZZ_REQUIRE(i == 0 || c.records[i].file_offset > c.records[i - 1].file_offset);
        }
        FUZZ_REQUIRE(c.live_blocks == fs->nblocks);
        FUZZ_REQUIRE(c.deleted_blocks <= c.nrecords);
        FUZZ_REQUIRE(c.live_blocks + c.deleted_blocks <= c.nrecords);
        uint64_t bytes = 0;
        for (size_t i = 0; i < fs->nblocks; i++) {
            const cf_kudu_block *b = &fs->blocks[i];
            FUZZ_REQUIRE(b->length == 0 ||
                         (b->offset <= data_size && b->length <= data_size - b->offset));
            for (size_t j = 0; j < i; j++)
                FUZZ_REQUIRE(fs->blocks[j].id != b->id);
            bytes += b->length;
        }
        FUZZ_REQUIRE(bytes == c.live_bytes);
        FUZZ_REQUIRE(!c.dead || (c.full && c.live_blocks == 0));
        for (size_t i = 0; i < fs->nproblems; i++)
            FUZZ_REQUIRE(strcmp(fs->problems[i].path, c.metadata_path) == 0 ||
                         strcmp(fs->problems[i].path, c.data_path) == 0);
    }
    cf_free((void *)c.records);
    cf_io_free(io);
    cf_kudu_fs_free(fs);
    free(wrapped);
    return 0;
}
