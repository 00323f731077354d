/* Fuzz the Kudu WAL segment reader (src/kudu/wal_segment.c) and its writer
 * (wal_writer.c):
 *
 *   input: [opt][rest]
 *   opt bit 0 = 0: `rest` is a segment file (bit 1: through an io without views).
 *                  A clean error is a pass; on success every batch lies inside the
 *                  file in order, the entries add up, a segment without a footer cut
 *                  where its entries end reads back the same batches, never torn,
 *                  and each WRITE_OP's row operations decode against the header's
 *                  schema or fail cleanly.
 *   opt bit 0 = 1: `rest` is row data: one batch per 8 bytes (1..16 batches), each a
 *                  REPLICATE of an INSERT of those bytes; bits 1-2 pick the codec
 *                  (none, LZ4, SNAPPY, ZLIB), bit 3 a footer. Written, read back the
 *                  same; then (no footer) cut at a point picked by bits 4-7 with a
 *                  zero tail: the batches before the cut come back, as a torn tail,
 *                  never an error.
 */
/* cf-needs: tables */
#include "fuzz.h"

#include <string.h>

#include "codec/compress.h"
#include "kudu/tablet.h"
#include "kudu/wal.h"

/* A SchemaPB as the WAL reader converts it (tablet.h), without the ids. */
static cf_status kudu_test_schema(cf_schema **out, const Kudu__SchemaPB *pb, cf_error *err)
{
    uint32_t *ids = NULL;
    cf_status st = cf_kudu_schema_from_pb(out, &ids, pb, "schema", err);
    free(ids);
    return st;
}

static void check_ops(const kudu_wal_seg *s)
{
    cf_schema *schema = NULL;
    if (s->header->schema == NULL || kudu_test_schema(&schema, s->header->schema, NULL))
        return;
    cf_arena a = {0};
    cf_arena_init(&a, 64u << 20);
    for (size_t b = 0; b < s->nbatches; b++)
        for (size_t i = 0; i < s->batches[b].pb->n_entry; i++) {
            const Kudu__Log__LogEntryPB *e = s->batches[b].pb->entry[i];
            if (e->replicate == NULL || e->replicate->write_request == NULL ||
                e->replicate->write_request->row_operations == NULL)
                continue;
            cf_kudu_row_op *ops;
            size_t n;
            cf_error err = {0};
            cf_status st = kudu_rowops_decode(&a, e->replicate->write_request->row_operations,
                                              e->replicate->write_request->schema,
                                              s->header->schema, schema, NULL, &ops, &n, &err);
            if (st != CF_OK)
                fuzz_require_clean_error(st, &err);
            cf_arena_reset(&a);
        }
    cf_arena_dispose(&a);
    cf_schema_free(schema);
}

static void read_file(uint8_t opt, const uint8_t *rest, size_t len)
{
    fuzz_file f;
    if (!fuzz_file_open(&f, rest, len, opt & 2))
        return;
    kudu_wal_seg *s = NULL;
    cf_error err = {0};
    cf_status st = kudu_wal_seg_read(&s, f.io, "seg", &err);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
        fuzz_file_close(&f);
        return;
    }
    if (!s->uninitialized) {
        uint64_t at = s->first_entry_offset;
        size_t n = 0;
        for (size_t b = 0; b < s->nbatches; b++) {
            FUZZ_REQUIRE(s->batches[b].offset == at && s->batches[b].end > at);
            at = s->batches[b].end;
            n += s->batches[b].pb->n_entry;
        }
        FUZZ_REQUIRE(at == s->end_offset && at <= len && n == s->nentries);
        FUZZ_REQUIRE(!(s->has_footer && s->torn_tail));
        check_ops(s);
        if (!s->has_footer && s->end_offset < len) {
            kudu_wal_seg *c = NULL;
            fuzz_file g;
            if (fuzz_file_open(&g, rest, (size_t)s->end_offset, false)) {
                st = kudu_wal_seg_read(&c, g.io, "cut", &err);
                /* the cut may end in a footer magic by chance: then it is read as one */
                if (st == CF_OK && !c->has_footer) {
                    FUZZ_REQUIRE(c->nbatches == s->nbatches && !c->torn_tail);
                }
                kudu_wal_seg_free(c);
                fuzz_file_close(&g);
            }
        }
    }
    kudu_wal_seg_free(s);
    fuzz_file_close(&f);
}

static const int codecs[4] = {CF_COMP_NONE, CF_COMP_LZ4, CF_COMP_SNAPPY, CF_COMP_ZLIB};

static void round_trip(uint8_t opt, const uint8_t *rest, size_t len)
{
    Kudu__ColumnSchemaPB c0 = KUDU__COLUMN_SCHEMA_PB__INIT;
    c0.name = "k";
    c0.has_id = true;
    c0.has_type = c0.has_is_key = true;
    c0.type = KUDU__DATA_TYPE__INT64;
    c0.is_key = true;
    Kudu__ColumnSchemaPB *cols[1] = {&c0};
    Kudu__SchemaPB sch = KUDU__SCHEMA_PB__INIT;
    sch.n_columns = 1;
    sch.columns = cols;
    Kudu__Log__LogSegmentHeaderPB h = KUDU__LOG__LOG_SEGMENT_HEADER_PB__INIT;
    h.has_sequence_number = h.has_tablet_id = true;
    h.sequence_number = 1;
    h.tablet_id.data = (uint8_t *)"t";
    h.tablet_id.len = 1;
    h.schema = &sch;
    h.has_compression_codec = true;
    h.compression_codec = (Kudu__CompressionType)codecs[(opt >> 1) & 3];
    if (!cf_codec_available((cf_compression)h.compression_codec))
        return;
    kudu_wal_writer w;
    cf_error err = {0};
    if (kudu_wal_writer_begin(&w, &h, &err) != CF_OK)
        return;
    size_t nb = len / 8;
    if (nb == 0)
        nb = 1;
    if (nb > 16)
        nb = 16;
    uint64_t ends[16];
    for (size_t b = 0; b < nb; b++) {
        /* INSERT, isset bitmap {k}, k's 8 bytes */
        uint8_t row[10] = {CF_KUDU_OP_INSERT, 1};
        if (len >= 8 * (b + 1))
            memcpy(row + 2, rest + 8 * b, 8);
        Kudu__RowOperationsPB ro = KUDU__ROW_OPERATIONS_PB__INIT;
        ro.has_rows = true;
        ro.rows.data = row;
        ro.rows.len = 10;
        Kudu__Log__WriteRequestPB wr = KUDU__LOG__WRITE_REQUEST_PB__INIT;
        wr.row_operations = &ro;
        wr.has_tablet_id = true;
        wr.tablet_id = h.tablet_id;
        Kudu__Consensus__OpId id = KUDU__CONSENSUS__OP_ID__INIT;
        id.has_term = id.has_index = true;
        id.term = 1;
        id.index = (int64_t)b + 1;
        Kudu__Log__ReplicateMsg rm = KUDU__LOG__REPLICATE_MSG__INIT;
        rm.id = &id;
        rm.has_op_type = rm.has_timestamp = true;
        rm.timestamp = b;
        rm.op_type = KUDU__LOG__OPERATION_TYPE__WRITE_OP;
        rm.write_request = &wr;
        Kudu__Log__LogEntryPB e = KUDU__LOG__LOG_ENTRY_PB__INIT;
        e.has_type = true;
        e.type = KUDU__LOG__LOG_ENTRY_TYPE_PB__REPLICATE;
        e.replicate = &rm;
        Kudu__Log__LogEntryPB *es[1] = {&e};
        Kudu__Log__LogEntryBatchPB batch = KUDU__LOG__LOG_ENTRY_BATCH_PB__INIT;
        batch.n_entry = 1;
        batch.entry = es;
        FUZZ_REQUIRE_MSG(kudu_wal_writer_batch(&w, &batch, &err) == CF_OK, &err);
        ends[b] = w.out.len;
    }
    bool footer = opt & 8;
    if (footer) {
        Kudu__Log__LogSegmentFooterPB f = KUDU__LOG__LOG_SEGMENT_FOOTER_PB__INIT;
        f.has_num_entries = true;
        f.num_entries = (int64_t)nb;
        FUZZ_REQUIRE_MSG(kudu_wal_writer_footer(&w, &f, &err) == CF_OK, &err);
    }
    fuzz_file f;
    if (fuzz_file_open(&f, w.out.data, w.out.len, false)) {
        kudu_wal_seg *s = NULL;
        FUZZ_REQUIRE_MSG(kudu_wal_seg_read(&s, f.io, "rt", &err) == CF_OK, &err);
        FUZZ_REQUIRE(s->nbatches == nb && s->has_footer == footer && !s->torn_tail);
        check_ops(s);
        kudu_wal_seg_free(s);
        fuzz_file_close(&f);
    }
    if (!footer) {
        /* cut somewhere after the header, then 64 zero bytes */
        uint64_t span = w.out.len - w.first_entry_offset;
        size_t cut = (size_t)(w.first_entry_offset + (span * (opt >> 4)) / 15);
        uint8_t *p = calloc(1, cut + 64);
        FUZZ_REQUIRE(p != NULL);
        memcpy(p, w.out.data, cut);
        if (fuzz_file_open(&f, p, cut + 64, false)) {
            kudu_wal_seg *s = NULL;
            FUZZ_REQUIRE_MSG(kudu_wal_seg_read(&s, f.io, "cut", &err) == CF_OK, &err);
            /* a batch survives the cut when its cut bytes were zeros anyway */
            size_t whole = 0;
            uint64_t end = w.first_entry_offset;
            while (whole < nb && ends[whole] <= cut + 64) {
                bool zeros = true;
                for (uint64_t i = cut; i < ends[whole]; i++)
                    zeros &= w.out.data[i] == 0;
                if (!zeros)
                    break;
                end = ends[whole++];
            }
            FUZZ_REQUIRE(s->nbatches == whole && s->end_offset == end);
            FUZZ_REQUIRE(s->torn_tail == (end < cut + 64));
            kudu_wal_seg_free(s);
            fuzz_file_close(&f);
        }
        free(p);
    }
    kudu_wal_writer_dispose(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_read_or_round_trip(data, size, read_file, round_trip);
}
