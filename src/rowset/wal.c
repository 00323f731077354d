/* The write-ahead log: segment and record format, the reader, the appender
 * (layout in wal.h, rules in docs/ROWSET.md "Write-ahead log").
 *
 * The shape follows Kudu's log (src/kudu/consensus/log_util.cc): a segment
 * starts with a magic and a length-prefixed header; entries are batches, each
 * behind a fixed header holding its length, the CRC-32C of its bytes and a
 * CRC-32C of the header itself (Kudu's 12-byte "v1" entry header, without
 * compression). The header CRC matters: without it a flipped length bit would
 * send the reader into the middle of a record, and damage would look like a
 * torn tail. Where we differ: Kudu closes a segment with a footer (entry count,
 * index range) so a reader can skip scanning it; our segments are only ever
 * retired by a checkpoint, which deletes them, and replay reads every record of
 * the one live segment anyway, so there is no footer.
 *
 * Torn tail or damage: a crash during an append leaves a prefix of the record
 * (the header says more bytes than the file has) or, after a power loss, a
 * record whose bytes did not all reach the disk. Neither was acknowledged. A bad
 * record is therefore a torn tail when nothing valid follows it, and damage
 * (CF_ECORRUPT) when a valid record does: an acknowledged op would be lost. When
 * the bad record's own header is valid, the search starts after the bytes it
 * claims, so user data inside a torn payload that happens to look like a record
 * cannot turn a crash into "damage".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wal.h"

#include "io/io_at.h"

#include "codec/crc32c.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/varint.h"

/* Records examined in full while deciding whether a bad record is a torn tail:
 * past this many valid-looking headers, call it damage (bounds the work on
 * hostile bytes). */
#define MAX_PROBES 64

/* ---- payloads ------------------------------------------------------------------------------ */

void cf_wal_batch_encode_v(cf_buf *b, const cf_wal_op *ops, size_t n, uint32_t format)
{
    cf_buf_put_u8(b, (uint8_t)format);
    cf_buf_put_varint64(b, n);
    for (size_t i = 0; i < n; i++) {
        cf_buf_put_u8(b, ops[i].type);
        if (format >= 2)
            cf_buf_put_u8(b, ops[i].flags);
        cf_buf_put_le64(b, ops[i].ts);
        cf_buf_put_varint64(b, ops[i].key.len);
        cf_buf_append(b, ops[i].key.data, ops[i].key.len);
        cf_buf_put_varint64(b, ops[i].rcl.len);
        cf_buf_append(b, ops[i].rcl.data, ops[i].rcl.len);
    }
}

void cf_wal_batch_encode(cf_buf *b, const cf_wal_op *ops, size_t n)
{
    cf_wal_batch_encode_v(b, ops, n, CF_WAL_VERSION);
}

cf_status cf_wal_batch_begin(cf_wal_batch *b, cf_slice payload, cf_error *err)
{
    const uint8_t *p = payload.data, *end = payload.data + payload.len;
    CF_CHECK(payload.len >= 2, err, CF_ECORRUPT, "wal batch: %zu bytes", payload.len);
    CF_CHECK(p[0] >= 1 && p[0] <= CF_WAL_VERSION, err, CF_ECORRUPT, "wal batch: unknown format %u",
             p[0]);
    b->format = p[0];
    uint64_t n;
    p = cf_varint64_decode(p + 1, end, &n);
    CF_CHECK(p != NULL, err, CF_ECORRUPT, "wal batch: bad op count");
    /* an op is at least 11 bytes: check before anyone trusts the count */
    CF_CHECK(n > 0 && n <= (uint64_t)(end - p) / 11, err, CF_ECORRUPT,
             "wal batch: %" PRIu64 " ops in %zu bytes", n, (size_t)(end - p));
    b->p = p;
    b->end = end;
    b->left = n;
    return CF_OK;
}

static cf_status get_slice(const uint8_t **p, const uint8_t *end, cf_slice *out, const char *what,
                           cf_error *err)
{
    uint64_t n;
    const uint8_t *q = cf_varint64_decode(*p, end, &n);
    CF_CHECK(q != NULL && n <= (uint64_t)(end - q), err, CF_ECORRUPT,
             "wal op: %s overruns the batch", what);
    *out = (cf_slice){q, (size_t)n};
    *p = q + n;
    return CF_OK;
}

cf_status cf_wal_batch_next(cf_wal_batch *b, cf_wal_op *op, bool *has, cf_error *err)
{
    *has = false;
    if (b->left == 0) {
        CF_CHECK(b->p == b->end, err, CF_ECORRUPT, "wal batch: %zu bytes after the last op",
                 (size_t)(b->end - b->p));
        return CF_OK;
    }
    size_t fl = b->format >= 2; /* the flags byte */
    CF_CHECK(b->end - b->p >= (ptrdiff_t)(9 + fl), err, CF_ECORRUPT, "wal op: truncated");
    op->type = b->p[0];
    CF_CHECK(op->type >= CF_WAL_INSERT && op->type <= CF_WAL_DELETE, err, CF_ECORRUPT,
             "wal op: unknown type %u", op->type);
    op->flags = fl ? b->p[1] : 0;
    CF_CHECK((op->flags & ~CF_WAL_OP_MRS) == 0, err, CF_ECORRUPT, "wal op: unknown flags 0x%02x",
             op->flags);
    op->ts = cf_load_le64(b->p + 1 + fl);
    b->p += 9 + fl;
    CF_TRY(get_slice(&b->p, b->end, &op->key, "key", err));
    CF_TRY(get_slice(&b->p, b->end, &op->rcl, "change list", err));
    cf_rcl_decoder d;
    CF_TRY(cf_rcl_decoder_init(&d, op->key, err));
    CF_CHECK(d.type == CF_RCL_UPDATE, err, CF_ECORRUPT, "wal op: key is not a column list");
    CF_TRY(cf_rcl_decoder_init(&d, op->rcl, err));
    static const uint8_t want[] = {0, CF_RCL_REINSERT, CF_RCL_UPDATE, CF_RCL_DELETE};
    CF_CHECK(d.type == want[op->type], err, CF_ECORRUPT,
             "wal op: change list of type %u for a type %u op", d.type, op->type);
    b->left--;
    *has = true;
    return CF_OK;
}

/* ---- segments ------------------------------------------------------------------------------ */

void cf_wal_header_encode(uint8_t dst[CF_WAL_HEADER_LEN], const cf_wal_header *h)
{
    memcpy(dst, CF_WAL_MAGIC, 8);
    cf_store_le32(dst + 8, h->version ? h->version : CF_WAL_VERSION);
    cf_store_le32(dst + 12, 16);
    cf_store_le64(dst + 16, h->seq);
    cf_store_le64(dst + 24, h->durable_ts);
    cf_store_le32(dst + 32, cf_crc32c(dst, 32));
}

cf_status cf_wal_header_parse(const uint8_t *p, size_t len, const char *name, cf_wal_header *h,
                              cf_error *err)
{
    CF_CHECK(len >= 16 && memcmp(p, CF_WAL_MAGIC, 8) == 0, err, CF_ECORRUPT,
             "%s: not a log segment (bad magic)", name);
    uint32_t ver = cf_load_le32(p + 8), flen = cf_load_le32(p + 12);
    CF_CHECK(ver >= 1 && ver <= CF_WAL_VERSION, err,
             ver > CF_WAL_VERSION ? CF_ENOTSUP : CF_ECORRUPT,
             "%s: log format version %" PRIu32 " unknown", name, ver);
    CF_CHECK(flen == 16 && len >= CF_WAL_HEADER_LEN, err, CF_ECORRUPT,
             "%s: truncated segment header", name);
    CF_CHECK(cf_crc32c(p, 32) == cf_load_le32(p + 32), err, CF_ECORRUPT,
             "%s: segment header checksum mismatch", name);
    h->seq = cf_load_le64(p + 16);
    h->durable_ts = cf_load_le64(p + 24);
    h->version = ver;
    return CF_OK;
}

void cf_wal_reader_init(cf_wal_reader *r, const uint8_t *data, size_t len, const char *name)
{
    r->data = data;
    r->len = len;
    r->off = len < CF_WAL_HEADER_LEN ? len : CF_WAL_HEADER_LEN;
    r->name = name;
    r->torn = false;
}

void cf_wal_record_encode(cf_buf *b, const uint8_t *payload, size_t len)
{
    uint8_t h[CF_WAL_RECORD_HEADER];
    cf_store_le32(h, (uint32_t)len);
    cf_store_le32(h + 4, cf_crc32c(payload, len));
    cf_store_le32(h + 8, cf_crc32c(h, 8));
    cf_buf_append(b, h, sizeof(h));
    cf_buf_append(b, payload, len);
}

typedef enum { REC_OK, REC_SHORT, REC_BAD_HEADER, REC_TOO_LONG, REC_BAD_PAYLOAD } rec_state;

/* Classify the record at off; *plen = its payload length when the header is valid. */
static rec_state record_at(const uint8_t *d, size_t len, size_t off, uint32_t *plen)
{
    if (len - off < CF_WAL_RECORD_HEADER)
        return REC_SHORT;
    const uint8_t *h = d + off;
    if (cf_crc32c(h, 8) != cf_load_le32(h + 8))
        return REC_BAD_HEADER;
    *plen = cf_load_le32(h);
    if (*plen > CF_WAL_MAX_RECORD)
        return REC_TOO_LONG;
    if (*plen > len - off - CF_WAL_RECORD_HEADER)
        return REC_SHORT;
    if (cf_crc32c(h + CF_WAL_RECORD_HEADER, *plen) != cf_load_le32(h + 4))
        return REC_BAD_PAYLOAD;
    return REC_OK;
}

/* Does a valid record start anywhere in [from, len)? */
static bool valid_after(const uint8_t *d, size_t len, size_t from)
{
    int probes = 0;
    for (size_t o = from; o < len && len - o >= CF_WAL_RECORD_HEADER; o++) {
        if (cf_crc32c(d + o, 8) != cf_load_le32(d + o + 8))
            continue; /* cheap: most offsets stop here */
        if (++probes > MAX_PROBES)
            return true;
        uint32_t pl;
        rec_state s = record_at(d, len, o, &pl);
        if (s == REC_OK || s == REC_TOO_LONG)
            return true;
    }
    return false;
}

cf_status cf_wal_reader_next(cf_wal_reader *r, cf_slice *payload, bool *has, cf_error *err)
{
    *has = false;
    if (r->torn || r->off >= r->len)
        return CF_OK;
    uint32_t plen = 0;
    rec_state s = record_at(r->data, r->len, r->off, &plen);
    switch (s) {
    case REC_OK:
        *payload = (cf_slice){r->data + r->off + CF_WAL_RECORD_HEADER, plen};
        r->off += CF_WAL_RECORD_HEADER + (size_t)plen;
        *has = true;
        return CF_OK;
    case REC_SHORT:
        /* an append cut short: the header, or its payload, never fully arrived */
        r->torn = true;
        return CF_OK;
    case REC_TOO_LONG:
        CF_FAIL(err, CF_ECORRUPT, "%s: record at offset %zu: length %" PRIu32 " exceeds %u",
                r->name, r->off, plen, CF_WAL_MAX_RECORD);
    case REC_BAD_HEADER:
    case REC_BAD_PAYLOAD: {
        size_t from =
            s == REC_BAD_PAYLOAD ? r->off + CF_WAL_RECORD_HEADER + (size_t)plen : r->off + 1;
        CF_CHECK(!valid_after(r->data, r->len, from), err, CF_ECORRUPT,
                 "%s: record at offset %zu: %s checksum mismatch, and valid records follow",
                 r->name, r->off, s == REC_BAD_HEADER ? "header" : "payload");
        r->torn = true;
        return CF_OK;
    }
    }
    return CF_OK;
}

/* ---- the directory -------------------------------------------------------------------------- */

char *cf_wal_segment_path(const char *table_dir, uint64_t seq)
{
    size_t l = strlen(table_dir) + 64;
    char *p = cf_malloc(l);
    if (p != NULL)
        snprintf(p, l, "%s/" CF_WAL_DIR "/wal-%016" PRIu64 ".log", table_dir, seq);
    return p;
}

/* The file name of segment seq, "wal-<16 digits>.log", into buf (>= 32 bytes). */
static void segment_file(char *buf, size_t cap, uint64_t seq)
{
    snprintf(buf, cap, "wal-%016" PRIu64 ".log", seq);
}

/* The log directory of the table directory (tdfd, table_dir) (dirfd.c), opened
 * (following a symlink, as a path would): the fd, or -1 with errno set. */
static int wal_dir_open(int tdfd, const char *table_dir)
{
    if (tdfd != AT_FDCWD)
        return openat(tdfd, CF_WAL_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char *d = cf_rs_path(table_dir, CF_WAL_DIR);
    if (d == NULL) {
        errno = ENOMEM;
        return -1;
    }
    int fd = cf_rs_dir_open(d);
    int e = errno;
    cf_free(d);
    errno = e;
    return fd;
}

/* Is name "wal-<16 digits>.log"? Then *seq is its number. */
static bool segment_name(const char *name, uint64_t *seq)
{
    if (strlen(name) != 24 || memcmp(name, "wal-", 4) != 0 || strcmp(name + 20, ".log") != 0)
        return false;
    uint64_t v = 0;
    for (int i = 4; i < 20; i++) {
        if (name[i] < '0' || name[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(name[i] - '0');
    }
    *seq = v;
    return true;
}

static int seq_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

cf_status cf_wal_list(const char *table_dir, uint64_t **seqs, size_t *n, cf_error *err)
{
    return cf_wal_list_at(AT_FDCWD, table_dir, seqs, n, err);
}

cf_status cf_wal_list_at(int tdfd, const char *table_dir, uint64_t **seqs, size_t *n, cf_error *err)
{
    *seqs = NULL;
    *n = 0;
    int wfd = wal_dir_open(tdfd, table_dir);
    DIR *dir = wfd >= 0 ? fdopendir(wfd) : NULL;
    if (dir == NULL) {
        int e = errno;
        if (wfd >= 0)
            close(wfd);
        if (e == ENOENT)
            return CF_OK;
        CF_CHECK(e != ENOMEM, err, CF_ENOMEM, "wal: out of memory");
        CF_FAIL(err, CF_EIO, "%s/" CF_WAL_DIR ": %s", table_dir, strerror(e));
    }
    cf_status st = CF_OK;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        uint64_t s;
        if (!segment_name(e->d_name, &s))
            continue;
        if (*n == cap && !cf_array_grow(seqs, &cap, sizeof **seqs, 4))
            CF_FAIL_OUT(err, CF_ENOMEM, "wal: out of memory");
        (*seqs)[(*n)++] = s;
    }
    if (*n > 1)
        qsort(*seqs, *n, sizeof(**seqs), seq_cmp);
out:
    closedir(dir);
    if (st != CF_OK) {
        cf_free(*seqs);
        *seqs = NULL;
        *n = 0;
    }
    return st;
}

bool cf_wal_has_records_at(int tdfd, const char *table_dir)
{
    uint64_t *seqs = NULL;
    size_t n = 0;
    cf_error e;
    if (cf_wal_list_at(tdfd, table_dir, &seqs, &n, &e) != CF_OK)
        return true;
    int wfd = n > 0 ? wal_dir_open(tdfd, table_dir) : -1;
    bool any = n > 0 && wfd < 0;
    for (size_t i = 0; i < n && !any; i++) {
        char name[32];
        segment_file(name, sizeof(name), seqs[i]);
        struct stat sb;
        any = fstatat(wfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
              sb.st_size > (off_t)CF_WAL_HEADER_LEN;
    }
    if (wfd >= 0)
        close(wfd);
    cf_free(seqs);
    return any;
}

static cf_status read_file_at(int dfd, const char *name, const char *path, uint8_t **data,
                              size_t *len, cf_error *err);

cf_status cf_wal_read_file(const char *path, uint8_t **data, size_t *len, cf_error *err)
{
    return read_file_at(AT_FDCWD, path, path, data, len, err);
}

static cf_status read_file_at(int dfd, const char *name, const char *path, uint8_t **data,
                              size_t *len, cf_error *err)
{
    *data = NULL;
    *len = 0;
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        CF_CHECK(errno != ENOENT, err, CF_ENOTFOUND, "%s: vanished", path);
        CF_FAIL(err, CF_EIO, "%s: %s", path, strerror(errno));
    }
    cf_status st = CF_OK;
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        CF_FAIL_OUT(err, CF_EIO, "%s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        CF_FAIL_OUT(err, CF_ECORRUPT, "%s: not a regular file", path);
    if ((uint64_t)sb.st_size > CF_WAL_MAX_SEGMENT)
        CF_FAIL_OUT(err, CF_ECORRUPT, "%s: %" PRIu64 " bytes is larger than a log segment can be",
                    path, (uint64_t)sb.st_size);
    size_t n = (size_t)sb.st_size;
    *data = cf_malloc(n ? n : 1);
    if (*data == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "%s: out of memory", path);
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, *data + got, n - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            CF_FAIL_OUT(err, CF_EIO, "%s: %s", path, strerror(errno));
        if (r == 0)
            break; /* shrank meanwhile (a writer truncating a torn tail): read what is there */
        got += (size_t)r;
    }
    *len = got;
out:
    close(fd);
    if (st != CF_OK) {
        cf_free(*data);
        *data = NULL;
    }
    return st;
}

cf_status cf_wal_scan_dir(const char *table_dir, cf_wal_apply_fn fn, void *ctx, cf_wal_scan *out,
                          cf_error *err)
{
    return cf_wal_scan_dir_at(AT_FDCWD, table_dir, fn, ctx, out, err);
}

cf_status cf_wal_scan_dir_at(int tdfd, const char *table_dir, cf_wal_apply_fn fn, void *ctx,
                             cf_wal_scan *out, cf_error *err)
{
    memset(out, 0, sizeof(*out));
    uint64_t *seqs = NULL;
    size_t n = 0;
    CF_TRY(cf_wal_list_at(tdfd, table_dir, &seqs, &n, err));
    if (n == 0)
        return CF_OK;
    cf_status st = CF_OK;
    uint8_t *data = NULL;
    size_t len = 0;
    char name[32];
    segment_file(name, sizeof(name), seqs[n - 1]);
    char *path = cf_wal_segment_path(table_dir, seqs[n - 1]);
    int wfd = -1;
    if (path == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "wal: out of memory");
    if ((wfd = wal_dir_open(tdfd, table_dir)) < 0) {
        if (errno == ENOENT)
            CF_FAIL_OUT(err, CF_ENOTFOUND, "%s: vanished", path);
        CF_FAIL_OUT(err, CF_EIO, "%s: %s", path, strerror(errno));
    }
    CF_TRY_OUT(read_file_at(wfd, name, path, &data, &len, err));
    CF_TRY_OUT(cf_wal_header_parse(data, len, name, &out->hdr, err));
    if (out->hdr.seq != seqs[n - 1])
        CF_FAIL_OUT(err, CF_ECORRUPT, "%s: header says segment %" PRIu64, name, out->hdr.seq);
    cf_wal_reader r;
    cf_wal_reader_init(&r, data, len, name);
    for (;;) {
        cf_slice payload;
        bool has;
        size_t at = r.off;
        CF_TRY_OUT(cf_wal_reader_next(&r, &payload, &has, err));
        if (!has)
            break;
        cf_wal_batch b;
        st = cf_wal_batch_begin(&b, payload, err);
        if (st == CF_OK && b.format != out->hdr.version)
            st = cf_error_set(err, CF_ECORRUPT, __FILE__, __LINE__,
                              "batch of format %u in a version %" PRIu32 " segment", b.format,
                              out->hdr.version);
        for (;;) {
            cf_wal_op op;
            if (st == CF_OK)
                st = cf_wal_batch_next(&b, &op, &has, err);
            if (st != CF_OK) {
                cf_error_prefix(err, st, "%s: record at offset %zu: ", name, at);
                goto out;
            }
            if (!has)
                break;
            if (fn != NULL)
                CF_TRY_OUT(fn(ctx, &op, name, at, err));
        }
    }
    out->found = true;
    out->valid_end = r.off;
    out->file_len = len;
    out->segments = n;
out:
    if (wfd >= 0)
        close(wfd);
    cf_free(data);
    cf_free(path);
    cf_free(seqs);
    return st;
}

/* ---- the segment a table needs ------------------------------------------------------------- */

cf_status cf_wal_check_need(const char *table_dir, const cf_wal_need *need, const cf_wal_scan *scan,
                            cf_error *err)
{
    /* the scan's reading is all it checks: table_dir only names the segment */
    if (need->seq == 0 || (scan->found && scan->hdr.seq > need->seq))
        return CF_OK;
    char *path = cf_wal_segment_path(table_dir, need->seq);
    CF_CHECK(path != NULL, err, CF_ENOMEM, "wal: out of memory");
    cf_status st = CF_OK;
    if (!scan->found || scan->hdr.seq < need->seq) {
        char newest[64] = "the log holds no segment";
        if (scan->found)
            snprintf(newest, sizeof(newest), "the newest is wal-%016" PRIu64 ".log", scan->hdr.seq);
        st = cf_error_set(err, CF_ECORRUPT, __FILE__, __LINE__,
                          "%s: write-ahead log segment missing (%s): TABLET records that it "
                          "holds the table's acknowledged changes not yet in its rowsets; "
                          "refusing to open the table without them",
                          path, newest);
    } else if (scan->valid_end < need->bytes) {
        st = cf_error_set(err, CF_ECORRUPT, __FILE__, __LINE__,
                          "%s: write-ahead log segment truncated: %" PRIu64
                          " bytes of whole records, but TABLET records that %" PRIu64
                          " were durable; refusing to open the table without them",
                          path, scan->valid_end, need->bytes);
    }
    cf_free(path);
    return st;
}

/* ---- the writer ---------------------------------------------------------------------------- */

struct cf_wal {
    char *table_dir; /* for messages: files are reached through tdfd and wdfd */
    int tdfd;        /* the table directory, our own descriptor of it */
    int wdfd;        /* its log directory, likewise */
    int fd;
    uint64_t seq;
    uint32_t version; /* of the current segment: the format appends are written in */
    uint64_t bytes, unsynced;
    cf_wal_sync_mode mode;
    uint64_t sync_bytes;
    cf_sticky sticky; /* the first failure, replayed by every later call */
    cf_buf payload, rec;
};

static cf_status sync_dir(int fd, const char *path, cf_error *err)
{
    int r = fsync(fd), e = errno;
    CF_CHECK(r == 0, err, CF_EIO, "fsync %s: %s", path, strerror(e));
    return CF_OK;
}

/* The permission bits of table_dir/name, or of table_dir itself (name NULL);
 * 0 when it is not there. New segments take those of the table's metadata
 * (TABLET, else MANIFEST), the log directory those of the table's directory:
 * the log holds the table's rows, and a private table stays private. */
static unsigned mode_of(const cf_wal *w, const char *name)
{
    struct stat sb;
    unsigned m = 0;
    if (fstatat(w->tdfd, name != NULL ? name : ".", &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
        (S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode)))
        m = (unsigned)(sb.st_mode & 07777);
    return m;
}

/* Create segment `seq` at path atomically (temporary name, fsync, rename,
 * directory fsync). */
static cf_status create_segment_at(const cf_wal *w, const char *path, uint64_t seq,
                                   uint64_t durable_ts, cf_error *err)
{
    uint8_t h[CF_WAL_HEADER_LEN];
    cf_wal_header_encode(h, &(cf_wal_header){.seq = seq, .durable_ts = durable_ts});
    cf_io *io = NULL;
    unsigned mode = mode_of(w, CF_RS_TABLET);
    if (mode == 0)
        mode = mode_of(w, CF_RS_MANIFEST);
    char name[32];
    segment_file(name, sizeof(name), seq);
    cf_status st = cf_io_create_file_at(&io, w->wdfd, name, path, mode, err);
    if (st == CF_OK)
        st = io->ops->append(io, h, sizeof(h), err);
    if (st == CF_OK)
        st = io->ops->commit(io, err);
    cf_io_free(io);
    return st;
}

static cf_status create_segment(const cf_wal *w, uint64_t seq, uint64_t durable_ts, cf_error *err)
{
    char *path = cf_wal_segment_path(w->table_dir, seq);
    CF_CHECK(path != NULL, err, CF_ENOMEM, "wal: out of memory");
    cf_status st = create_segment_at(w, path, seq, durable_ts, err);
    cf_free(path);
    return st;
}

/* Append to the segment at path (w->seq's) from now on; allocates nothing. */
static cf_status open_append_at(cf_wal *w, const char *path, cf_error *err)
{
    char name[32];
    segment_file(name, sizeof(name), w->seq);
    int fd = openat(w->wdfd, name, O_WRONLY | O_APPEND | O_CLOEXEC);
    int e = errno;
    struct stat sb;
    if (fd >= 0 && fstat(fd, &sb) != 0) {
        e = errno;
        close(fd);
        fd = -1;
    }
    if (fd < 0)
        CF_FAIL(err, CF_EIO, "%s: %s", path, strerror(e));
    if (w->fd >= 0)
        close(w->fd);
    w->fd = fd;
    w->bytes = (uint64_t)sb.st_size;
    w->unsynced = 0;
    return CF_OK;
}

static cf_status open_append(cf_wal *w, cf_error *err)
{
    char *path = cf_wal_segment_path(w->table_dir, w->seq);
    CF_CHECK(path != NULL, err, CF_ENOMEM, "wal: out of memory");
    cf_status st = open_append_at(w, path, err);
    cf_free(path);
    return st;
}

/* Remove segments older than w->seq and temporaries of ours (never a symlink,
 * never a file whose name is not ours). */
static void remove_old(const cf_wal *w)
{
    DIR *dir = cf_rs_opendir_at(w->wdfd, NULL);
    if (dir != NULL) {
        struct dirent *e;
        while ((e = readdir(dir)) != NULL) {
            uint64_t s;
            bool old = segment_name(e->d_name, &s) && s < w->seq;
            /* cf_io_create_file's temporaries: "<segment name>.tmp.<pid>.<hex>" */
            char base[32];
            bool tmp = strlen(e->d_name) > 29 && memcmp(e->d_name + 24, ".tmp.", 5) == 0 &&
                       (memcpy(base, e->d_name, 24), base[24] = '\0', segment_name(base, &s));
            if (!old && !tmp)
                continue;
            struct stat sb;
            if (fstatat(w->wdfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode))
                unlinkat(w->wdfd, e->d_name, 0);
        }
        closedir(dir);
    }
}

void cf_wal_free(cf_wal *w)
{
    if (w == NULL)
        return;
    if (w->fd >= 0)
        close(w->fd);
    cf_buf_dispose(&w->payload);
    cf_buf_dispose(&w->rec);
    if (w->wdfd >= 0)
        close(w->wdfd);
    if (w->tdfd >= 0)
        close(w->tdfd);
    cf_free(w->table_dir);
    cf_free(w);
}

cf_status cf_wal_open(cf_wal **out, const char *table_dir, const cf_wal_scan *scan,
                      uint64_t durable_ts, cf_wal_sync_mode mode, uint64_t sync_bytes,
                      cf_error *err)
{
    return cf_wal_open_at(out, AT_FDCWD, table_dir, scan, durable_ts, mode, sync_bytes, err);
}

cf_status cf_wal_open_at(cf_wal **out, int tdfd, const char *table_dir, const cf_wal_scan *scan,
                         uint64_t durable_ts, cf_wal_sync_mode mode, uint64_t sync_bytes,
                         cf_error *err)
{
    *out = NULL;
    cf_wal *w = cf_calloc(1, sizeof(*w));
    CF_CHECK(w != NULL, err, CF_ENOMEM, "wal: out of memory");
    w->fd = -1;
    w->wdfd = -1;
    /* our own descriptor of the table directory: the log's files are reached
     * through it (and the log directory's) for as long as the log is open */
    w->tdfd = tdfd == AT_FDCWD ? cf_rs_dir_open(table_dir) : fcntl(tdfd, F_DUPFD_CLOEXEC, 0);
    w->mode = mode;
    w->sync_bytes = sync_bytes;
    cf_buf_init(&w->payload);
    cf_buf_init(&w->rec);
    cf_status st = CF_OK;
    char *waldir = NULL, *path = NULL;
    size_t l = strlen(table_dir);
    if ((w->table_dir = cf_malloc(l + 1)) == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "wal: out of memory");
    memcpy(w->table_dir, table_dir, l + 1);
    if ((waldir = cf_rs_path(table_dir, CF_WAL_DIR)) == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "wal: out of memory");
    if (w->tdfd < 0)
        CF_FAIL_OUT(err, CF_EIO, "%s: %s", table_dir, strerror(errno));
    w->version = CF_WAL_VERSION;
    if (scan != NULL && scan->found) {
        w->seq = scan->hdr.seq;
        w->version = scan->hdr.version ? scan->hdr.version : CF_WAL_VERSION;
        if (scan->valid_end < scan->file_len) {
            /* A torn tail: an append that never returned. Cut it, durably,
             * before anything is appended after it. */
            if ((path = cf_wal_segment_path(table_dir, w->seq)) == NULL)
                CF_FAIL_OUT(err, CF_ENOMEM, "wal: out of memory");
            char name[32];
            segment_file(name, sizeof(name), w->seq);
            if ((w->wdfd = wal_dir_open(w->tdfd, table_dir)) < 0)
                CF_FAIL_OUT(err, CF_EIO, "%s: %s", waldir, strerror(errno));
            int fd = openat(w->wdfd, name, O_WRONLY | O_CLOEXEC);
            if (fd < 0)
                CF_FAIL_OUT(err, CF_EIO, "%s: %s", path, strerror(errno));
            int r = ftruncate(fd, (off_t)scan->valid_end);
            if (r == 0)
                r = fdatasync(fd);
            int e = errno;
            close(fd);
            if (r != 0)
                CF_FAIL_OUT(err, CF_EIO, "truncate %s: %s", path, strerror(e));
        }
    } else {
        unsigned dmode = mode_of(w, NULL);
        if (mkdirat(w->tdfd, CF_WAL_DIR, dmode ? 0700 : 0777) == 0) {
            if (dmode)
                (void)fchmodat(w->tdfd, CF_WAL_DIR, dmode, 0);
        } else if (errno != EEXIST) {
            CF_FAIL_OUT(err, CF_EIO, "%s: cannot create directory: %s", waldir, strerror(errno));
        }
        CF_TRY_OUT(sync_dir(w->tdfd, table_dir, err));
        if ((w->wdfd = wal_dir_open(w->tdfd, table_dir)) < 0)
            CF_FAIL_OUT(err, CF_EIO, "%s: %s", waldir, strerror(errno));
        w->seq = 1;
        CF_TRY_OUT(create_segment(w, w->seq, durable_ts, err));
    }
    if (w->wdfd < 0 && (w->wdfd = wal_dir_open(w->tdfd, table_dir)) < 0)
        CF_FAIL_OUT(err, CF_EIO, "%s: %s", waldir, strerror(errno));
    CF_TRY_OUT(open_append(w, err));
    /* A segment found whole may end in appends a writer before us never synced
     * (group commit, no sync, a kill): the page cache holds them, a power loss
     * would not. Count them unsynced, so cf_wal_durable_bytes never vouches for
     * them before our own fdatasync (a truncation above synced the file). */
    if (scan != NULL && scan->found && scan->valid_end >= scan->file_len &&
        w->bytes > CF_WAL_HEADER_LEN)
        w->unsynced = w->bytes - CF_WAL_HEADER_LEN;
    remove_old(w);
out:
    cf_free(waldir);
    cf_free(path);
    if (st != CF_OK) {
        cf_wal_free(w);
        return st;
    }
    *out = w;
    return CF_OK;
}

static cf_status write_all(cf_wal *w, const uint8_t *p, size_t n, cf_error *err)
{
    while (n > 0) {
        ssize_t r = write(w->fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            CF_FAIL(err, CF_EIO, "wal segment %" PRIu64 ": write: %s", w->seq,
                    e == EFBIG ? "File too large" : strerror(e));
        }
        p += r;
        n -= (size_t)r;
        w->bytes += (uint64_t)r;
        w->unsynced += (uint64_t)r;
    }
    return CF_OK;
}

cf_status cf_wal_sync(cf_wal *w, cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->sticky, "wal", err));
    if (w->unsynced == 0)
        return CF_OK;
    if (fdatasync(w->fd) != 0) {
        cf_error_set(err, CF_EIO, __FILE__, __LINE__, "wal segment %" PRIu64 ": fdatasync: %s",
                     w->seq, strerror(errno));
        return cf_sticky_set(&w->sticky, CF_EIO, err);
    }
    w->unsynced = 0;
    return CF_OK;
}

cf_status cf_wal_reserve(cf_wal *w, const cf_wal_op *ops, size_t n, cf_error *err)
{
    /* cf_wal_batch_encode_v's most: format and count, then per op type, flags,
     * ts and two length-prefixed strings (varints of at most 10 bytes) */
    size_t need = 1 + 10;
    for (size_t i = 0; i < n; i++) {
        size_t op = 2 + 8 + 10 + 10;
        CF_CHECK(cf_add_ok(op, ops[i].key.len, &op) && cf_add_ok(op, ops[i].rcl.len, &op) &&
                     cf_add_ok(need, op, &need),
                 err, CF_EINVAL, "wal: operation too large");
    }
    cf_buf_clear(&w->payload);
    cf_buf_clear(&w->rec);
    CF_CHECK(cf_buf_reserve(&w->payload, need) &&
                 cf_buf_reserve(&w->rec, need + CF_WAL_RECORD_HEADER),
             err, CF_ENOMEM, "wal: out of memory");
    return CF_OK;
}

cf_status cf_wal_append(cf_wal *w, const cf_wal_op *ops, size_t n, cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->sticky, "wal", err));
    cf_buf_clear(&w->payload);
    cf_wal_batch_encode_v(&w->payload, ops, n, w->version);
    CF_CHECK(!w->payload.oom, err, CF_ENOMEM, "wal: out of memory");
    CF_CHECK(w->payload.len <= CF_WAL_MAX_RECORD, err, CF_EINVAL,
             "operation of %zu bytes is larger than a log record may be (%u)", w->payload.len,
             CF_WAL_MAX_RECORD);
    cf_buf_clear(&w->rec);
    cf_wal_record_encode(&w->rec, w->payload.data, w->payload.len);
    CF_CHECK(!w->rec.oom, err, CF_ENOMEM, "wal: out of memory");
    cf_status st = write_all(w, w->rec.data, w->rec.len, err);
    if (st != CF_OK)
        return cf_sticky_set(&w->sticky, st, err);
    if (w->mode == CF_WAL_SYNC_COMMIT ||
        (w->mode == CF_WAL_SYNC_GROUP && w->unsynced >= w->sync_bytes))
        return cf_wal_sync(w, err);
    return CF_OK;
}

cf_status cf_wal_roll(cf_wal *w, uint64_t durable_ts, cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->sticky, "wal", err));
    /* The new segment's path first: once the segment exists, switching to it
     * must not fail for want of memory (the log would then be unusable until
     * reopened, as after a failed write). */
    char *path = cf_wal_segment_path(w->table_dir, w->seq + 1);
    CF_CHECK(path != NULL, err, CF_ENOMEM, "wal: out of memory");
    cf_status st = create_segment_at(w, path, w->seq + 1, durable_ts, err);
    if (st != CF_OK) {
        /* Not there (the temporary was removed): the current segment is still
         * the newest, keep appending to it. There after all (a failure after
         * the rename): replay would start from it, so nothing may be appended
         * to the old one. */
        struct stat sb;
        char name[32];
        segment_file(name, sizeof(name), w->seq + 1);
        bool there = fstatat(w->wdfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0;
        cf_free(path);
        return there ? cf_sticky_set(&w->sticky, st, err) : st;
    }
    w->seq++;
    w->version = CF_WAL_VERSION;
    st = open_append_at(w, path, err);
    cf_free(path);
    if (st != CF_OK)
        return cf_sticky_set(&w->sticky, st, err);
    return CF_OK;
}

void cf_wal_retire(cf_wal *w)
{
    remove_old(w);
}

cf_status cf_wal_checkpoint(cf_wal *w, uint64_t durable_ts, cf_error *err)
{
    CF_TRY(cf_wal_roll(w, durable_ts, err));
    /* The new segment is durable (create_segment synced it and the directory):
     * the older ones hold only ops whose effects are in the rowsets' files. */
    remove_old(w);
    return CF_OK;
}

void cf_wal_set_mode(cf_wal *w, cf_wal_sync_mode mode, uint64_t sync_bytes)
{
    w->mode = mode;
    w->sync_bytes = sync_bytes;
}

uint64_t cf_wal_bytes(const cf_wal *w)
{
    return w->bytes;
}
uint64_t cf_wal_durable_bytes(const cf_wal *w)
{
    return w->bytes - w->unsynced;
}
uint64_t cf_wal_seq(const cf_wal *w)
{
    return w->seq;
}
uint32_t cf_wal_version(const cf_wal *w)
{
    return w->version;
}
