/* Fuzz opening a whole Parquet file (src/parquet/parquet.c): magic, footer
 * length, FileMetaData, schema tree and the checks that tie them together.
 *
 *   input: [opt][file bytes]
 *   opt bit 0: read through an io without view_at (the pread path)
 *
 * A clean error is a pass. After success every getter is walked: the columns
 * agree with the tree and the row groups, levels follow the repetitions on
 * each path, chunk ranges lie inside the file, and the row count is the sum
 * of the row groups'. Then every page header of every chunk is walked (CRCs
 * checked when opt bit 1 is set): pages stay inside their chunk and their
 * values never exceed the chunk's; then each chunk is decoded (levels within
 * their maxima, values where the levels say, as many levels as values). */
/* cf-needs: parquet */
#include "fuzz.h"

#include <string.h>

#include <cfile/parquet.h>

static void walk(const cf_parquet_node *n, uint32_t *nodes)
{
    (*nodes)++;
    for (uint32_t i = 0; i < n->child_count; i++) {
        const cf_parquet_node *c = n->children[i];
        FUZZ_REQUIRE(c->parent == n && c->depth == n->depth + 1);
        FUZZ_REQUIRE(c->max_def == n->max_def + (c->repetition != CF_PARQUET_REQUIRED));
        FUZZ_REQUIRE(c->max_rep == n->max_rep + (c->repetition == CF_PARQUET_REPEATED));
        walk(c, nodes);
    }
}

static void check_parquet(cf_parquet *pq, const fuzz_file *f, uint8_t opt)
{
    cf_error err = {0};
    cf_status st;
    FUZZ_REQUIRE(cf_parquet_sniff(f->io));
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    uint64_t fsize = cf_parquet_file_size(pq);
    FUZZ_REQUIRE(fsize == f->size && cf_parquet_footer_len(pq) <= fsize - 12);
    /* The tree is small enough to recurse: depth is capped at open. */
    uint32_t nodes = 0;
    walk(cf_parquet_schema_root(pq), &nodes);
    FUZZ_REQUIRE(nodes == m->schema_count);
    uint32_t ncol = cf_parquet_column_count(pq);
    int64_t rows = 0;
    uint64_t data_end = fsize - 8 - cf_parquet_footer_len(pq);
    for (uint32_t g = 0; g < m->row_group_count; g++) {
        const cf_parquet_row_group *rg = &m->row_groups[g];
        FUZZ_REQUIRE(rg->column_count == ncol && rg->num_rows >= 0);
        rows += rg->num_rows;
        for (uint32_t c = 0; c < ncol; c++) {
            const cf_parquet_column_meta *cm = &rg->columns[c].meta;
            FUZZ_REQUIRE(cm->type == cf_parquet_column_at(pq, c)->type);
            FUZZ_REQUIRE(cm->total_compressed_size >= 0 &&
                         (uint64_t)cm->total_compressed_size <= data_end);
            if (cm->num_values > 0)
                FUZZ_REQUIRE(cm->data_page_offset >= 4 &&
                             (uint64_t)cm->data_page_offset < data_end);
        }
    }
    FUZZ_REQUIRE(rows == cf_parquet_num_rows(pq));
    for (uint32_t i = 0; i < ncol; i++) {
        const cf_parquet_column *c = cf_parquet_column_at(pq, i);
        FUZZ_REQUIRE(c->leaf->column == (int32_t)i && c->path_len == c->leaf->depth);
        FUZZ_REQUIRE(c->max_def == c->leaf->max_def && c->max_rep == c->leaf->max_rep);
        char buf[64];
        cf_parquet_logical_str(&c->leaf->logical, buf, sizeof(buf));
        FUZZ_REQUIRE(strlen(buf) < sizeof(buf));
    }
    cf_parquet_pages_options walk_opts, nocrc;
    cf_parquet_pages_options_init(&walk_opts);
    walk_opts.verify_crc = (opt & 2) != 0;
    cf_parquet_pages_options_init(&nocrc);
    nocrc.verify_crc = false;
    for (uint32_t g = 0; g < m->row_group_count; g++) {
        for (uint32_t c = 0; c < ncol; c++) {
            const cf_parquet_column_meta *cm = &m->row_groups[g].columns[c].meta;
            cf_parquet_pages *it = NULL;
            st = cf_parquet_pages_open(&it, pq, g, c, &walk_opts, &err);
            FUZZ_REQUIRE_MSG(st == CF_OK, &err);
            int64_t values = 0;
            uint64_t bytes = 0;
            bool has = false;
            while ((st = cf_parquet_pages_next(it, &(cf_parquet_page){0}, &has, &err)) == CF_OK &&
                   has) {
            }
            cf_parquet_pages_free(it);
            if (st != CF_OK) {
                fuzz_require_clean_error(st, &err);
                continue;
            }
            /* A second walk that looks at each page. */
            st = cf_parquet_pages_open(&it, pq, g, c, &nocrc, &err);
            FUZZ_REQUIRE_MSG(st == CF_OK, &err);
            for (;;) {
                cf_parquet_page p;
                st = cf_parquet_pages_next(it, &p, &has, &err);
                FUZZ_REQUIRE_MSG(st == CF_OK, &err);
                if (!has)
                    break;
                FUZZ_REQUIRE(p.body.len == (size_t)p.compressed_size);
                FUZZ_REQUIRE(p.offset + p.header_len + p.body.len <= data_end);
                bytes += p.header_len + p.body.len;
                if (p.type == CF_PARQUET_DATA_PAGE || p.type == CF_PARQUET_DATA_PAGE_V2)
                    values += p.num_values;
            }
            cf_parquet_pages_free(it);
            FUZZ_REQUIRE(values == cm->num_values);
            FUZZ_REQUIRE(bytes <= (uint64_t)cm->total_compressed_size);
            /* The page index, when the chunk has one. */
            cf_parquet_page_index *pi = NULL;
            st = cf_parquet_page_index_read(&pi, pq, g, c, &err);
            if (st == CF_OK) {
                const cf_parquet_offset_index *oi = cf_parquet_page_index_offsets(pi);
                const cf_parquet_column_index *ci = cf_parquet_page_index_columns(pi);
                FUZZ_REQUIRE(oi || ci);
                if (oi && ci)
                    FUZZ_REQUIRE(oi->page_count == ci->page_count);
                for (uint32_t k = 0; ci && k < ci->page_count; k++)
                    FUZZ_REQUIRE(ci->min_values[k].len <= fsize && ci->max_values[k].len <= fsize);
                cf_parquet_page_index_free(pi);
            } else if (st != CF_ENOTFOUND) {
                fuzz_require_clean_error(st, &err);
            }
            /* And the chunk's levels and values, decoded. */
            cf_parquet_column_reader *cr = NULL;
            st = cf_parquet_column_open(&cr, pq, g, c, &err);
            if (st != CF_OK) {
                fuzz_require_clean_error(st, &err);
                continue;
            }
            const cf_parquet_column *col = cf_parquet_column_at(pq, c);
            uint16_t def[257], rep[257];
            void *vals = malloc(257 * cf_parquet_column_value_size(cr));
            int64_t levels = 0;
            for (;;) {
                size_t nl, nv;
                st = cf_parquet_column_read(cr, 257, def, rep, vals, &nl, &nv, &err);
                if (st != CF_OK) {
                    fuzz_require_clean_error(st, &err);
                    break;
                }
                if (nl == 0) {
                    FUZZ_REQUIRE(levels == cm->num_values);
                    break;
                }
                size_t present = 0;
                for (size_t i = 0; i < nl; i++) {
                    FUZZ_REQUIRE(def[i] <= col->max_def && rep[i] <= col->max_rep);
                    present += def[i] == col->max_def;
                }
                FUZZ_REQUIRE(present == nv && nl <= 257);
                levels += (int64_t)nl;
            }
            free(vals);
            cf_parquet_column_free(cr);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_parquet_target(data, size, 1, check_parquet);
}
