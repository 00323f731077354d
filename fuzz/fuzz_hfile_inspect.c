/* Fuzz HFile inspection (src/hfile/inspect.c) with whole files:
 *
 *   input: [opt][file bytes]
 *   opt bit 0: verify checksums (else skipped, so mutations reach the parsers
 *   behind them); bits 1..7: which rows and columns the Bloom probes use.
 *
 * Open, then: decode every FileInfo value by its key (and again under the keys
 * of every typed kind, so each decoder sees arbitrary bytes), walk the index
 * level by level, probe both Bloom filters with rows taken from the file.
 * A clean error is a pass. Invariants: a decoded key's slices lie inside the
 * value; a walk visits at most as many data-block entries as the reader
 * flattened, in the same order, when it succeeds. */
/* cf-needs: hfile */
#include "fuzz.h"

#include <string.h>

#include <cfile/hfile.h>

static const char *const typed_keys[] = {
    "MAX_SEQ_ID_KEY", "hfile.AVG_KEY_LEN",    "MAJOR_COMPACTION_KEY", "TIMERANGE",
    "hfile.LASTKEY",  "COMPACTION_EVENT_KEY", "BLOOM_FILTER_TYPE"};

static bool inside(cf_slice part, cf_slice whole)
{
    return part.len == 0 || (part.data >= whole.data && part.len <= whole.len &&
                             (size_t)(part.data - whole.data) <= whole.len - part.len);
}

static void decode(const cf_hfile *h, cf_slice k, cf_slice v)
{
    cf_hfile_fi_value d;
    cf_hfile_file_info_decode(h, k, v, &d);
    if (d.kind == CF_HFILE_FI_KEY) {
        FUZZ_REQUIRE(inside(d.key.row, v) && inside(d.key.family, v) && inside(d.key.qualifier, v));
    } else if (d.kind == CF_HFILE_FI_COMPACTION) {
        cf_slice name;
        size_t n = 0;
        while (cf_hfile_compacted_file_at(v, n, &name)) {
            FUZZ_REQUIRE(inside(name, v));
            n++;
        }
        FUZZ_REQUIRE(n == d.compacted_files);
    } else if (d.kind == CF_HFILE_FI_BYTES && d.malformed) {
        FUZZ_REQUIRE(d.malformed[0] != '\0');
    }
}

typedef struct walk {
    const cf_hfile *h;
    uint64_t data;
    bool ok;
} walk;

static bool on_block(void *ctx, const cf_hfile_index_block *b, const cf_hfile_block_ref *e,
                     size_t n)
{
    walk *w = ctx;
    FUZZ_REQUIRE(b->level < b->levels && b->kind != NULL);
    if (b->level + 1 != b->levels)
        return true;
    for (size_t i = 0; i < n; i++, w->data++) {
        if (w->data >= cf_hfile_get_info(w->h)->num_data_blocks) {
            w->ok = false;
            return false;
        }
        cf_hfile_block_ref r;
        FUZZ_REQUIRE(cf_hfile_data_block_at(w->h, w->data, &r));
        FUZZ_REQUIRE(r.offset == e[i].offset && r.on_disk_size == e[i].on_disk_size);
    }
    return true;
}

static void check_hfile(cf_hfile *h, const fuzz_file *f, uint8_t opt)
{
    const cf_hfile_info *info = cf_hfile_get_info(h);
    for (size_t i = 0; i < info->file_info_count; i++) {
        cf_slice k, v;
        cf_hfile_file_info_at(h, i, &k, &v);
        decode(h, k, v);
        for (size_t t = 0; t < sizeof(typed_keys) / sizeof(typed_keys[0]); t++)
            decode(h, (cf_slice){(const uint8_t *)typed_keys[t], strlen(typed_keys[t])}, v);
    }
    cf_error err = {0};
    walk w = {h, 0, true};
    if (cf_hfile_index_walk(h, on_block, &w, &err) == CF_OK && w.ok)
        FUZZ_REQUIRE(w.data == info->num_data_blocks);
    (void)cf_hfile_block_type_name("DATABLK*");
    /* Bloom probes with rows of the first cells and a column from the file. */
    cf_hfile_iter *it = NULL;
    if (cf_hfile_iter_create(&it, h, &err) == CF_OK) {
        for (int i = 0; i < 4; i++) {
            cf_hfile_cell c;
            bool has;
            if (cf_hfile_iter_next(it, &c, &has, &err) != CF_OK || !has)
                break;
            cf_slice row = info->raw_keys ? c.key : c.row;
            bool col = (opt >> (1 + i)) & 1;
            for (int which = 0; which < 2; which++) {
                cf_hfile_bloom_result r;
                cf_status st =
                    cf_hfile_bloom_check(h, which, row, col, c.family, c.qualifier, &r, &err);
                if (st == CF_OK && !r.present)
                    FUZZ_REQUIRE(r.may_contain);
            }
        }
        cf_hfile_iter_free(it);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_hfile_target(data, size, check_hfile);
}
