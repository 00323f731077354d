/* cf-needs: tables */
#include "support_walgen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support_fsroot.h"
#include "test_common.h"

#include "kudu_log.pb-c.h"
#include "kudu_tablet.pb-c.h"
#include "util/bitmap.h"
#include "util/buf.h"

void walgen_begin(walgen *g, const char *tablet, uint64_t seq, const cf_schema *sch,
                  const uint32_t *ids, uint32_t schema_version)
{
    walgen_begin_edit(g, tablet, seq, sch, ids, schema_version, NULL);
}

void walgen_begin_edit(walgen *g, const char *tablet, uint64_t seq, const cf_schema *sch,
                       const uint32_t *ids, uint32_t schema_version,
                       void (*edit)(Kudu__SchemaPB *pb))
{
    cf_error e = {0};
    memset(g, 0, sizeof *g);
    snprintf(g->tablet, sizeof g->tablet, "%s", tablet);
    g->sch = sch;
    CF_ASSERT_OK(cf_kudu_schema_pb_build(&g->spb, sch, ids, &e), &e);
    g->has_spb = true;
    if (edit != NULL)
        edit(&g->spb.pb);
    Kudu__Log__LogSegmentHeaderPB h = KUDU__LOG__LOG_SEGMENT_HEADER_PB__INIT;
    h.has_tablet_id = true;
    h.tablet_id.data = (uint8_t *)g->tablet;
    h.tablet_id.len = strlen(g->tablet);
    h.has_sequence_number = true;
    h.sequence_number = seq;
    h.schema = &g->spb.pb;
    h.has_schema_version = true;
    h.schema_version = schema_version;
    CF_ASSERT_OK(kudu_wal_writer_begin(&g->w, &h, &e), &e);
}

void walgen_begin_header(walgen *g, const Kudu__Log__LogSegmentHeaderPB *h, const cf_schema *sch)
{
    cf_error e = {0};
    memset(g, 0, sizeof *g);
    snprintf(g->tablet, sizeof g->tablet, "%.*s", (int)h->tablet_id.len,
             (const char *)h->tablet_id.data);
    g->sch = sch;
    CF_ASSERT_OK(kudu_wal_writer_begin(&g->w, h, &e), &e);
}

void walgen_batch_open(walgen *g)
{
    assert_false(g->batch_open);
    g->batch_open = true;
}

void walgen_batch_close(walgen *g, uint64_t *start, uint64_t *end)
{
    cf_error e = {0};
    assert_true(g->batch_open);
    if (start != NULL)
        *start = g->w.out.len;
    CF_ASSERT_OK(kudu_wal_writer_batch_bytes(&g->w, g->batch.data, g->batch.len, &e), &e);
    if (end != NULL)
        *end = g->w.out.len;
    cf_buf_clear(&g->batch);
    g->batch_open = false;
}

void walgen_close(walgen *g, bool footer, cf_buf *out, uint64_t *footer_at)
{
    cf_error e = {0};
    assert_false(g->batch_open);
    Kudu__Log__LogSegmentFooterPB f = KUDU__LOG__LOG_SEGMENT_FOOTER_PB__INIT;
    f.has_num_entries = true;
    f.num_entries = (int64_t)g->nentries;
    if (footer_at != NULL)
        *footer_at = footer ? g->w.out.len : 0;
    if (footer)
        CF_ASSERT_OK(kudu_wal_writer_footer(&g->w, &f, &e), &e);
    *out = g->w.out;
    cf_buf_dispose(&g->batch);
    if (g->has_spb)
        cf_kudu_schema_pb_dispose(&g->spb);
    memset(g, 0, sizeof *g);
}

void walgen_schema(walgen *g, const cf_schema *sch)
{
    g->sch = sch;
}

/* One entry into the open batch (or a batch of its own): LogEntryBatchPB is
 * `repeated LogEntryPB entry = 1`, so a batch's bytes are its entries each as
 * field 1 (tag 0x0a, varint length, the message). */
static void put_entry(walgen *g, Kudu__Log__LogEntryPB *entry)
{
    size_t n = kudu__log__log_entry_pb__get_packed_size(entry);
    cf_buf_put_u8(&g->batch, 0x0a);
    for (size_t v = n;; v >>= 7) {
        if (v < 0x80) {
            cf_buf_put_u8(&g->batch, (uint8_t)v);
            break;
        }
        cf_buf_put_u8(&g->batch, (uint8_t)(v | 0x80));
    }
    uint8_t *p = cf_buf_extend(&g->batch, n);
    assert_true(p != NULL || n == 0);
    if (n)
        kudu__log__log_entry_pb__pack(entry, p);
    g->nentries++;
    if (!g->batch_open) {
        g->batch_open = true;
        walgen_batch_close(g, NULL, NULL);
    }
}

static void put_replicate(walgen *g, Kudu__Log__ReplicateMsg *rm, int64_t term, int64_t index,
                          uint64_t ts, int op_type)
{
    Kudu__Consensus__OpId id = KUDU__CONSENSUS__OP_ID__INIT;
    id.has_term = id.has_index = true;
    id.term = term;
    id.index = index;
    rm->id = &id;
    rm->has_timestamp = rm->has_op_type = true;
    rm->timestamp = ts;
    rm->op_type = (Kudu__Log__OperationType)op_type;
    Kudu__Log__LogEntryPB en = KUDU__LOG__LOG_ENTRY_PB__INIT;
    en.has_type = true;
    en.type = KUDU__LOG__LOG_ENTRY_TYPE_PB__REPLICATE;
    en.replicate = rm;
    put_entry(g, &en);
}

void walgen_write(walgen *g, int64_t term, int64_t index, uint64_t ts, cf_kudu_row_op_type type,
                  const bool *set, const void *const *vals, int64_t txn)
{
    cf_buf rows, ind;
    cf_buf_init(&rows);
    cf_buf_init(&ind);
    kudu_rowops_encode(&rows, &ind, g->sch, type, set, vals);
    walgen_write_rows(g, term, index, ts, &rows, &ind, txn);
    cf_buf_dispose(&rows);
    cf_buf_dispose(&ind);
}

Kudu__RowOperationsPB walgen_rowops(const cf_buf *rows, const cf_buf *ind)
{
    assert_false(rows->oom || ind->oom);
    Kudu__RowOperationsPB ro = KUDU__ROW_OPERATIONS_PB__INIT;
    ro.has_rows = ro.has_indirect_data = true;
    ro.rows = (ProtobufCBinaryData){rows->len, rows->data};
    ro.indirect_data = (ProtobufCBinaryData){ind->len, ind->data};
    return ro;
}

size_t walgen_rowops_cuts(const Kudu__RowOperationsPB *ro, const Kudu__SchemaPB *pb,
                          const cf_schema *sch)
{
    cf_arena a = {0};
    size_t ends = 0;
    for (size_t cut = 0; cut <= ro->rows.len; cut++) {
        Kudu__RowOperationsPB c = *ro;
        uint8_t *p = malloc(cut + 1); /* exactly the cut: a read past it is ASan's */
        assert_non_null(p);
        memcpy(p, ro->rows.data, cut);
        c.rows = (ProtobufCBinaryData){cut, p};
        cf_kudu_row_op *ops;
        size_t n;
        cf_error err = {0};
        cf_status st = kudu_rowops_decode(&a, &c, NULL, pb, sch, NULL, &ops, &n, &err);
        if (st == CF_OK)
            ends++;
        else
            assert_int_equal(st, CF_ECORRUPT);
        free(p);
        cf_arena_reset(&a);
    }
    cf_arena_dispose(&a);
    return ends;
}

void walgen_write_rows(walgen *g, int64_t term, int64_t index, uint64_t ts, const cf_buf *rows,
                       const cf_buf *ind, int64_t txn)
{
    Kudu__RowOperationsPB ro = walgen_rowops(rows, ind);
    Kudu__Log__WriteRequestPB wr = KUDU__LOG__WRITE_REQUEST_PB__INIT;
    wr.row_operations = &ro;
    wr.has_tablet_id = true;
    wr.tablet_id.data = (uint8_t *)g->tablet;
    wr.tablet_id.len = strlen(g->tablet);
    if (txn >= 0) {
        wr.has_txn_id = true;
        wr.txn_id = txn;
    }
    Kudu__Log__ReplicateMsg rm = KUDU__LOG__REPLICATE_MSG__INIT;
    rm.write_request = &wr;
    put_replicate(g, &rm, term, index, ts, KUDU__LOG__OPERATION_TYPE__WRITE_OP);
}

static void put_commit(walgen *g, int64_t term, int64_t index, int op_type,
                       Kudu__Tablet__TxResultPB *tr)
{
    Kudu__Consensus__OpId id = KUDU__CONSENSUS__OP_ID__INIT;
    id.has_term = true;
    id.has_index = index >= 0;
    id.term = term;
    id.index = index;
    Kudu__Log__CommitMsg cm = KUDU__LOG__COMMIT_MSG__INIT;
    cm.has_op_type = true;
    cm.op_type = (Kudu__Log__OperationType)op_type;
    cm.commited_op_id = &id;
    cm.result = tr;
    Kudu__Log__LogEntryPB en = KUDU__LOG__LOG_ENTRY_PB__INIT;
    en.has_type = true;
    en.type = KUDU__LOG__LOG_ENTRY_TYPE_PB__COMMIT;
    en.commit = &cm;
    put_entry(g, &en);
}

void walgen_commit_write(walgen *g, int64_t term, int64_t index, walgen_result r)
{
    Kudu__Tablet__MemStoreTargetPB mt = KUDU__TABLET__MEM_STORE_TARGET_PB__INIT;
    if (r.mrs >= 0) {
        mt.has_mrs_id = true;
        mt.mrs_id = r.mrs;
    } else if (r.rs >= 0) {
        mt.has_rs_id = mt.has_dms_id = true;
        mt.rs_id = r.rs;
        mt.dms_id = r.dms;
    } else {
        mt.has_rs_txn_id = true;
        mt.rs_txn_id = r.txn;
    }
    Kudu__Tablet__MemStoreTargetPB *mts[1] = {&mt};
    Kudu__AppStatusPB fs = KUDU__APP_STATUS_PB__INIT;
    fs.has_code = true;
    fs.code = KUDU__APP_STATUS_PB__ERROR_CODE__ALREADY_PRESENT;
    fs.message = (char *)"key already present";
    Kudu__Tablet__OperationResultPB orr = KUDU__TABLET__OPERATION_RESULT_PB__INIT;
    if (r.failed) {
        orr.failed_status = &fs;
    } else {
        orr.n_mutated_stores = 1;
        orr.mutated_stores = mts;
    }
    Kudu__Tablet__OperationResultPB *ors[1] = {&orr};
    Kudu__Tablet__TxResultPB tr = KUDU__TABLET__TX_RESULT_PB__INIT;
    tr.n_ops = 1;
    tr.ops = ors;
    put_commit(g, term, index, KUDU__LOG__OPERATION_TYPE__WRITE_OP, &tr);
}

void walgen_commit(walgen *g, int64_t term, int64_t index, int op_type, bool failed)
{
    Kudu__AppStatusPB fs = KUDU__APP_STATUS_PB__INIT;
    fs.has_code = true;
    fs.code = KUDU__APP_STATUS_PB__ERROR_CODE__INVALID_ARGUMENT;
    fs.message = (char *)"alter failed";
    Kudu__Tablet__OperationResultPB orr = KUDU__TABLET__OPERATION_RESULT_PB__INIT;
    orr.failed_status = &fs;
    Kudu__Tablet__OperationResultPB *ors[1] = {&orr};
    Kudu__Tablet__TxResultPB tr = KUDU__TABLET__TX_RESULT_PB__INIT;
    tr.n_ops = 1;
    tr.ops = ors;
    put_commit(g, term, index, op_type, failed ? &tr : NULL);
}

void walgen_alter(walgen *g, int64_t term, int64_t index, uint64_t ts, const cf_schema *sch,
                  const uint32_t *ids, uint32_t version)
{
    cf_error e = {0};
    cf_kudu_schema_pb spb;
    CF_ASSERT_OK(cf_kudu_schema_pb_build(&spb, sch, ids, &e), &e);
    Kudu__Log__AlterSchemaRequestPB a = KUDU__LOG__ALTER_SCHEMA_REQUEST_PB__INIT;
    a.has_tablet_id = true;
    a.tablet_id.data = (uint8_t *)g->tablet;
    a.tablet_id.len = strlen(g->tablet);
    a.schema = &spb.pb;
    a.has_schema_version = true;
    a.schema_version = version;
    Kudu__Log__ReplicateMsg rm = KUDU__LOG__REPLICATE_MSG__INIT;
    rm.alter_schema_request = &a;
    put_replicate(g, &rm, term, index, ts, KUDU__LOG__OPERATION_TYPE__ALTER_SCHEMA_OP);
    cf_kudu_schema_pb_dispose(&spb);
}

void walgen_participant(walgen *g, int64_t term, int64_t index, uint64_t ts, int type, int64_t txn)
{
    Kudu__Log__ParticipantOpPB op = KUDU__LOG__PARTICIPANT_OP_PB__INIT;
    op.has_type = op.has_txn_id = true;
    op.type = (Kudu__Log__ParticipantOpPB__ParticipantOpType)type;
    op.txn_id = txn;
    Kudu__Log__ParticipantRequestPB pr = KUDU__LOG__PARTICIPANT_REQUEST_PB__INIT;
    pr.op = &op;
    Kudu__Log__ReplicateMsg rm = KUDU__LOG__REPLICATE_MSG__INIT;
    rm.participant_request = &pr;
    put_replicate(g, &rm, term, index, ts, KUDU__LOG__OPERATION_TYPE__PARTICIPANT_OP);
}

void walgen_bare_entry(walgen *g, int type)
{
    Kudu__Log__LogEntryPB en = KUDU__LOG__LOG_ENTRY_PB__INIT;
    en.has_type = true;
    en.type = (Kudu__Log__LogEntryTypePB)type;
    put_entry(g, &en);
}

void walgen_noop(walgen *g, int64_t term, int64_t index, uint64_t ts)
{
    Kudu__Log__ReplicateMsg rm = KUDU__LOG__REPLICATE_MSG__INIT;
    put_replicate(g, &rm, term, index, ts, KUDU__LOG__OPERATION_TYPE__NO_OP);
}

void walgen_finish(walgen *g, const char *root, const char *suffix, uint64_t seq)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/wals/%s%s", root, g->tablet, suffix);
    assert_true(mkdir(p, 0700) == 0 || errno == EEXIST);
    snprintf(p, sizeof p, "%s/wals/%s%s/wal-%09llu", root, g->tablet, suffix,
             (unsigned long long)seq);
    cf_test_write_file(p, g->w.out.data, g->w.out.len);
    kudu_wal_writer_dispose(&g->w);
    cf_buf_dispose(&g->batch);
    if (g->has_spb)
        cf_kudu_schema_pb_dispose(&g->spb);
}

void walgen_tablet_root(const char *root, const walgen_tablet *t)
{
    kfs_single_root(root, "log", NULL);
    char p[1200];
    snprintf(p, sizeof p, "%s/wals/%s", root, t->tablet);
    assert_int_equal(mkdir(p, 0700), 0);
    Kudu__TableExtraConfigPB xc = KUDU__TABLE_EXTRA_CONFIG_PB__INIT;
    xc.has_history_max_age_sec = true;
    xc.history_max_age_sec = t->history_max_age_sec;
    cf_kudu_superblock_spec sp;
    kfs_superblock_spec(&sp, t->tablet, "walgen", t->sch, t->ids);
    sp.schema_version = t->version;
    sp.last_durable_mrs_id = t->last_durable_mrs;
    sp.txns = t->txns;
    sp.ntxns = t->ntxns;
    sp.extra_config = t->history_max_age_sec >= 0 ? &xc : NULL;
    kfs_superblock_write(root, &sp);
}

static void put_cell(char *out, size_t cap, const cf_column *c, const cf_batch *b, size_t i)
{
    size_t len = strlen(out);
    if (b->nonnull != NULL && !cf_bitmap_get(b->nonnull, i)) {
        snprintf(out + len, cap - len, "-");
        return;
    }
    switch (c->type) {
    case CF_TYPE_INT64:
        snprintf(out + len, cap - len, "%lld", (long long)((const int64_t *)b->values)[i]);
        break;
    case CF_TYPE_INT32:
        snprintf(out + len, cap - len, "%d", ((const int32_t *)b->values)[i]);
        break;
    case CF_TYPE_STRING: {
        const cf_slice *s = (const cf_slice *)b->values + i;
        snprintf(out + len, cap - len, "%.*s", (int)s->len, (const char *)s->data);
        break;
    }
    default: snprintf(out + len, cap - len, "?"); break;
    }
}

cf_status walgen_scan(const char *root, const char *tablet, uint64_t as_of, int64_t max_age,
                      char *out, size_t cap, size_t *pending, cf_error *err)
{
    cf_kudu_scan_options so;
    cf_kudu_scan_options_init(&so);
    so.as_of = as_of;
    so.history_max_age_sec = max_age;
    return walgen_scan_opts(root, tablet, &so, out, cap, pending, err);
}

cf_status walgen_scan_opts(const char *root, const char *tablet, const cf_kudu_scan_options *so,
                           char *out, size_t cap, size_t *pending, cf_error *err)
{
    cf_kudu_fs *fs;
    cf_kudu_tablet *t;
    kfs_open_tablet(root, tablet, &fs, &t);
    cf_kudu_scanner *sc = NULL;
    cf_status st = cf_kudu_scanner_create(&sc, t, so, err);
    out[0] = '\0';
    if (pending != NULL)
        *pending = cf_kudu_scanner_wal_pending(sc, NULL, NULL);
    const cf_schema *s = cf_kudu_tablet_schema(t);
    cf_row_batch b;
    while (kfs_scan_next(sc, &b, &st, err)) {
        for (size_t i = 0; i < b.count; i++) {
            for (size_t c = 0; c < cf_schema_column_count(s); c++) {
                if (c > 0)
                    snprintf(out + strlen(out), cap - strlen(out), "|");
                put_cell(out, cap, cf_schema_column_at(s, c), &b.cols[c], i);
            }
            snprintf(out + strlen(out), cap - strlen(out), ";");
        }
    }
    cf_kudu_scanner_free(sc);
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);
    return st;
}
