/* Writing a tablet's superblock (tablet-meta/<id>) from cfile's terms, for tests
 * that build servers and for moving data into Kudu's formats.
 *
 * The message is laid out as Kudu's TabletMetadata::ToSuperBlockUnlocked and
 * RowSetMetadata::ToProtobuf fill it (tablet/tablet_metadata.cc,
 * tablet/rowset_metadata.cc): table and tablet id, partition, last durable MRS id,
 * rowsets (id, last durable DMS id, column blocks with column ids, REDO then UNDO
 * deltas, bloom and ad-hoc index blocks, the key range, the live row count when
 * the tablet supports it), table name, schema (schema_pb.c), schema version,
 * partition schema (a range over the key columns by id, no hash), data state, the
 * data dir group and supports_live_row_count. protobuf-c writes fields in number
 * order as protobuf's C++ does, so equal content gives Kudu's bytes
 * (tests/kudu/test_tablet.c compares every layout's superblock).
 */
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

#include "kudufs/pbc_writer.h"
#include "tablet.h"

typedef struct sb_parts {
    cf_kudu_schema_pb schema;
    Kudu__Tablet__RowSetDataPB *rs;
    Kudu__Tablet__RowSetDataPB **rsp;
    Kudu__Tablet__ColumnDataPB *cols;
    Kudu__Tablet__ColumnDataPB **colp;
    Kudu__Tablet__DeltaDataPB *deltas;
    Kudu__Tablet__DeltaDataPB **deltap;
    Kudu__BlockIdPB *blocks;
    Kudu__PartitionSchemaPB__ColumnIdentifierPB *ident;
    Kudu__PartitionSchemaPB__ColumnIdentifierPB **identp;
    ProtobufCBinaryData *uuids;
} sb_parts;

static void parts_free(sb_parts *p)
{
    cf_kudu_schema_pb_dispose(&p->schema);
    cf_free(p->rs);
    cf_free(p->rsp);
    cf_free(p->cols);
    cf_free(p->colp);
    cf_free(p->deltas);
    cf_free(p->deltap);
    cf_free(p->blocks);
    cf_free(p->ident);
    cf_free(p->identp);
    cf_free(p->uuids);
}

static Kudu__BlockIdPB *block(Kudu__BlockIdPB **next, uint64_t id)
{
    Kudu__BlockIdPB *b = (*next)++;
    kudu__block_id_pb__init(b);
    b->has_id = true;
    b->id = id;
    return b;
}

/* The n delta files of one kind (REDO or UNDO) with blocks ids[], as the next n
 * of p's delta messages from *di on (advanced); returns where they start. */
static Kudu__Tablet__DeltaDataPB **deltas(sb_parts *p, size_t *di, Kudu__BlockIdPB **next,
                                          const uint64_t *ids, size_t n)
{
    Kudu__Tablet__DeltaDataPB **first = &p->deltap[*di];
    for (size_t i = 0; i < n; i++, (*di)++) {
        kudu__tablet__delta_data_pb__init(&p->deltas[*di]);
        p->deltas[*di].block = block(next, ids[i]);
        p->deltap[*di] = &p->deltas[*di];
    }
    return first;
}

/* A superblock message and what it points into: zeroed, filled by build,
 * then packed or written and freed with parts_free(&m->p). */
typedef struct sb_msg {
    Kudu__Tablet__TabletSuperBlockPB sb;
    Kudu__PartitionPB part;
    Kudu__PartitionSchemaPB ps;
    Kudu__PartitionSchemaPB__RangeSchemaPB range;
    Kudu__DataDirGroupPB ddg;
    sb_parts p;
} sb_msg;

/* Fill m->sb (pointing into the rest of m) from spec. */
static cf_status build(sb_msg *m, const cf_kudu_superblock_spec *spec, cf_error *err)
{
    Kudu__Tablet__TabletSuperBlockPB *sb = &m->sb;
    sb_parts *p = &m->p;
    Kudu__PartitionPB *part = &m->part;
    Kudu__PartitionSchemaPB *ps = &m->ps;
    Kudu__PartitionSchemaPB__RangeSchemaPB *range = &m->range;
    Kudu__DataDirGroupPB *ddg = &m->ddg;
    CF_CHECK(spec->version == CF_KUDU_SUPERBLOCK_SPEC_VERSION, err, CF_EINVAL,
             "superblock: spec version %u (want %u)", spec->version,
             CF_KUDU_SUPERBLOCK_SPEC_VERSION);
    CF_CHECK(cf_kudu_tablet_id_valid(spec->tablet_id), err, CF_EINVAL,
             "superblock: tablet id is not 32 hex digits");
    CF_CHECK(spec->table_id != NULL && spec->table_name != NULL && spec->schema != NULL, err,
             CF_EINVAL, "superblock: table id, table name and schema are required");
    size_t ncols = 0, ndeltas = 0, nblocks = 0;
    for (size_t r = 0; r < spec->nrowsets; r++) {
        const cf_kudu_rowset *rs = &spec->rowsets[r];
        ncols += rs->ncolumns;
        ndeltas += rs->nredo + rs->nundo;
        nblocks += rs->ncolumns + rs->nredo + rs->nundo + 2;
    }
    size_t nkey = cf_schema_key_count(spec->schema);
    p->rs = cf_calloc(spec->nrowsets + 1, sizeof(*p->rs));
    p->rsp = cf_calloc(spec->nrowsets + 1, sizeof(*p->rsp));
    p->cols = cf_calloc(ncols + 1, sizeof(*p->cols));
    p->colp = cf_calloc(ncols + 1, sizeof(*p->colp));
    p->deltas = cf_calloc(ndeltas + 1, sizeof(*p->deltas));
    p->deltap = cf_calloc(ndeltas + 1, sizeof(*p->deltap));
    p->blocks = cf_calloc(nblocks + 1, sizeof(*p->blocks));
    p->ident = cf_calloc(nkey + 1, sizeof(*p->ident));
    p->identp = cf_calloc(nkey + 1, sizeof(*p->identp));
    p->uuids = cf_calloc(spec->ndata_dir_uuids + 1, sizeof(*p->uuids));
    CF_CHECK(p->rs && p->rsp && p->cols && p->colp && p->deltas && p->deltap && p->blocks &&
                 p->ident && p->identp && p->uuids,
             err, CF_ENOMEM, "superblock: out of memory");
    CF_TRY(cf_kudu_schema_pb_build(&p->schema, spec->schema, spec->column_ids, err));

    kudu__tablet__tablet_super_block_pb__init(sb);
    sb->has_table_id = sb->has_tablet_id = true;
    sb->table_id = (ProtobufCBinaryData){strlen(spec->table_id), (uint8_t *)spec->table_id};
    sb->tablet_id = (ProtobufCBinaryData){32, (uint8_t *)spec->tablet_id};
    sb->has_last_durable_mrs_id = true;
    sb->last_durable_mrs_id = spec->last_durable_mrs_id;
    kudu__partition_pb__init(part);
    part->has_partition_key_start = part->has_partition_key_end = true;
    part->partition_key_start =
        (ProtobufCBinaryData){spec->partition_key_start_len, (uint8_t *)spec->partition_key_start};
    part->partition_key_end =
        (ProtobufCBinaryData){spec->partition_key_end_len, (uint8_t *)spec->partition_key_end};
    sb->partition = part;

    Kudu__BlockIdPB *next = p->blocks;
    size_t ci = 0, di = 0;
    for (size_t r = 0; r < spec->nrowsets; r++) {
        const cf_kudu_rowset *in = &spec->rowsets[r];
        Kudu__Tablet__RowSetDataPB *o = &p->rs[r];
        kudu__tablet__row_set_data_pb__init(o);
        o->has_id = o->has_last_durable_dms_id = true;
        o->id = in->id;
        o->last_durable_dms_id = in->last_durable_dms_id;
        o->columns = &p->colp[ci];
        o->n_columns = in->ncolumns;
        for (size_t i = 0; i < in->ncolumns; i++, ci++) {
            kudu__tablet__column_data_pb__init(&p->cols[ci]);
            p->cols[ci].block = block(&next, in->column_blocks[i]);
            p->cols[ci].has_column_id = true;
            p->cols[ci].column_id = (int32_t)in->column_ids[i];
            p->colp[ci] = &p->cols[ci];
        }
        o->redo_deltas = deltas(p, &di, &next, in->redo_blocks, in->nredo);
        o->n_redo_deltas = in->nredo;
        o->undo_deltas = deltas(p, &di, &next, in->undo_blocks, in->nundo);
        o->n_undo_deltas = in->nundo;
        if (in->has_bloom)
            o->bloom_block = block(&next, in->bloom_block);
        if (in->has_adhoc_index)
            o->adhoc_index_block = block(&next, in->adhoc_index_block);
        CF_CHECK((in->min_key == NULL) == (in->max_key == NULL), err, CF_EINVAL,
                 "superblock: rowset %zu: a min key without a max key or the reverse", r);
        if (in->min_key != NULL) {
            o->has_min_encoded_key = o->has_max_encoded_key = true;
            o->min_encoded_key = (ProtobufCBinaryData){in->min_key_len, (uint8_t *)in->min_key};
            o->max_encoded_key = (ProtobufCBinaryData){in->max_key_len, (uint8_t *)in->max_key};
        }
        if (spec->supports_live_row_count && in->has_live_row_count) {
            o->has_live_row_count = true;
            o->live_row_count = in->live_row_count;
        }
        p->rsp[r] = o;
    }
    sb->n_rowsets = spec->nrowsets;
    sb->rowsets = p->rsp;
    sb->table_name = (char *)spec->table_name;
    sb->schema = &p->schema.pb;
    sb->has_schema_version = true;
    sb->schema_version = spec->schema_version;

    /* a range partition over the primary key, by column id (common/partition.cc) */
    kudu__partition_schema_pb__init(ps);
    kudu__partition_schema_pb__range_schema_pb__init(range);
    for (size_t i = 0; i < nkey; i++) {
        kudu__partition_schema_pb__column_identifier_pb__init(&p->ident[i]);
        p->ident[i].identifier_case =
            KUDU__PARTITION_SCHEMA_PB__COLUMN_IDENTIFIER_PB__IDENTIFIER_ID;
        p->ident[i].id = (int32_t)(spec->column_ids ? spec->column_ids[i] : i);
        p->identp[i] = &p->ident[i];
    }
    range->n_columns = nkey;
    range->columns = p->identp;
    ps->range_schema = range;
    sb->partition_schema = ps;
    sb->has_tablet_data_state = true;
    sb->tablet_data_state = spec->data_state;
    if (spec->ndata_dir_uuids > 0) {
        kudu__data_dir_group_pb__init(ddg);
        for (size_t i = 0; i < spec->ndata_dir_uuids; i++)
            p->uuids[i] = (ProtobufCBinaryData){strlen(spec->data_dir_uuids[i]),
                                                (uint8_t *)spec->data_dir_uuids[i]};
        ddg->n_uuids = spec->ndata_dir_uuids;
        ddg->uuids = p->uuids;
        sb->data_dir_group = ddg;
    }
    sb->has_supports_live_row_count = true;
    sb->supports_live_row_count = spec->supports_live_row_count;
    sb->n_txn_metadata = spec->ntxns;
    sb->txn_metadata = (Kudu__Tablet__TxnMetadataEntry **)spec->txns;
    sb->extra_config = spec->extra_config;
    return CF_OK;
}

void cf_kudu_superblock_spec_init(cf_kudu_superblock_spec *spec)
{
    memset(spec, 0, sizeof(*spec));
    spec->version = CF_KUDU_SUPERBLOCK_SPEC_VERSION;
    spec->data_state = KUDU__TABLET__TABLET_DATA_STATE__TABLET_DATA_READY;
    spec->supports_live_row_count = true;
    spec->partition_key_start = spec->partition_key_end = (const uint8_t *)"";
}

cf_status cf_kudu_superblock_pack(cf_buf *out, const cf_kudu_superblock_spec *spec, cf_error *err)
{
    sb_msg m = {0};
    cf_status st = build(&m, spec, err);
    if (st == CF_OK) {
        size_t n = kudu__tablet__tablet_super_block_pb__get_packed_size(&m.sb);
        uint8_t *dst = cf_buf_extend(out, n);
        if (dst == NULL)
            st = cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "superblock: out of memory");
        else
            kudu__tablet__tablet_super_block_pb__pack(&m.sb, dst);
    }
    parts_free(&m.p);
    return st;
}

cf_status cf_kudu_superblock_write(const char *path, const cf_kudu_superblock_spec *spec,
                                   cf_error *err)
{
    sb_msg m = {0};
    cf_status st = build(&m, spec, err);
    if (st == CF_OK)
        st = cf_kudu_pbc_write_file(path, &m.sb.base, err);
    parts_free(&m.p);
    return st;
}
