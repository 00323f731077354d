/* The record reader's threads (records.h): the worker team of cfile/team.h,
 * used in one of two ways, chosen when the reader opens, or not at all when
 * the threads were left to the reader (CF_PARQUET_THREADS_AUTO) and the work
 * would not pay for them (work_pays).
 *
 * Row groups ahead (two or more row groups to read): `workers` = threads
 * workers decode whole row groups, every leaf column of each one a job, into
 * slots of leaves ahead of the row group the caller hands out; the caller
 * only cuts and builds batches from a decoded slot, taking decode jobs itself
 * when it would otherwise wait. A run decodes up to `workers` row groups and
 * the next is posted as soon as it has finished (checked after every batch),
 * into the slots the caller has left: 2 x workers + 1 slots, so that while
 * one run decodes, the previous run's row groups are there to hand out.
 * Memory: at most that many row groups, and those ahead at most
 * max_ahead_bytes by the metadata's counts.
 *
 * A batch's leaves (one row group, or row groups too large to decode ahead):
 * the caller and threads - 1 workers fill each leaf towards the batch (one job
 * per leaf), then build each top-level field (one job per field).
 *
 * Same answer as one thread: a row group is decoded ahead only when it lies
 * wholly inside the rows asked for, and a row group whose decoding failed is
 * read again a batch at a time on the caller, so that its batches before the
 * damage are handed out and the error is the one the one-thread loop meets,
 * at the same batch. Jobs of one run touch only their own leaf or field and
 * the immutable file; the first failing job in index order gives the error. */
#include "records.h"

#include "util/alloc.h"
#include "util/error.h"

#define DEFAULT_AHEAD_BYTES ((size_t)256 << 20)

/* ---- sizes ------------------------------------------------------------------------------ */

static size_t sat_add(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

static size_t sat_mul(size_t a, size_t b)
{
    size_t p;
    return cf_mul_ok(a, b, &p) ? p : SIZE_MAX;
}

/* The bytes a decoded row group holds in the leaves: levels (2 bytes, 4 with
 * repetition), value forms, and a byte array's bytes (at most its
 * uncompressed size); SIZE_MAX when the metadata says nothing sane. */
static size_t decoded_bytes(const cf_parquet_records *r, uint32_t g)
{
    const cf_parquet_row_group *rg = &cf_parquet_meta(r->pq)->row_groups[g];
    const leaf *ls = r->slots[0].leaves;
    size_t total = 0;
    for (uint32_t i = 0; i < r->leaf_count; i++) {
        const cf_parquet_column_meta *m = &rg->columns[ls[i].column].meta;
        if (m->num_values < 0 || m->total_uncompressed_size < 0)
            return SIZE_MAX;
        size_t each = (ls[i].flat ? 2 : 4) + ls[i].vsize + (ls[i].is_bytes ? sizeof(size_t) : 0);
        total = sat_add(total, sat_mul((size_t)m->num_values, each));
        if (ls[i].is_bytes)
            total = sat_add(total, (size_t)m->total_uncompressed_size);
    }
    return total;
}

/* May row group g be decoded ahead? Wholly inside the rows asked for, not
 * empty, each chunk within a batch's level limit, and within the budget
 * alone. */
static bool ahead_ok(const cf_parquet_records *r, uint32_t g)
{
    const cf_parquet_row_group *rg = &cf_parquet_meta(r->pq)->row_groups[g];
    if (rg->num_rows <= 0 || r->rg_first[g] < r->o.row_begin ||
        r->rg_first[g] > r->o.row_end - rg->num_rows)
        return false;
    const leaf *ls = r->slots[0].leaves;
    for (uint32_t i = 0; i < r->leaf_count; i++) {
        int64_t nv = rg->columns[ls[i].column].meta.num_values;
        if (nv < 0 || (uint64_t)nv >= r->o.max_batch_levels)
            return false;
    }
    return decoded_bytes(r, g) <= r->o.max_ahead_bytes;
}

/* ---- the team --------------------------------------------------------------------------- */

/* Grow the slots to n, the new ones with free leaves of columns `cols`; the
 * slots already made, and the current one, stay as they are. */
static cf_status grow_slots(cf_parquet_records *r, const uint32_t *cols, uint32_t n, cf_error *err)
{
    rg_slot *slots = cf_realloc(r->slots, n * sizeof(rg_slot));
    if (!slots)
        return cf_pq_rec_oom(err);
    r->slots = slots;
    while (r->nslots < n) {
        rg_slot *s = &r->slots[r->nslots];
        *s = (rg_slot){.rg = -1};
        s->leaves = cf_calloc(r->leaf_count ? r->leaf_count : 1, sizeof(leaf));
        if (!s->leaves)
            return cf_pq_rec_oom(err);
        r->nslots++; /* counted once its leaves exist: stop_threads frees them */
        for (uint32_t i = 0; i < r->leaf_count; i++)
            CF_TRY(cf_pq_leaf_init(&s->leaves[i], r->pq, cols[i], err));
    }
    r->leaves = r->slots[r->cur_slot].leaves;
    return CF_OK;
}

/* Does the work pay for threads? Decoding that runs at memory speed (every
 * chunk asked for stored UNCOMPRESSED and flat) is slower spread over cores
 * than on one: handing decoded values to the caller's core costs more than
 * decoding them (measured: 0.7-0.9x on 3 M-row PLAIN, dictionary and string
 * files). Nor does a read under MIN_PARALLEL_BYTES uncompressed, which takes
 * less time than starting the team. */
#define MIN_PARALLEL_BYTES ((size_t)1 << 20)

static bool work_pays(const cf_parquet_records *r)
{
    const cf_parquet_file_meta *m = cf_parquet_meta(r->pq);
    const leaf *ls = r->slots[0].leaves;
    bool heavy = false;
    size_t bytes = 0;
    for (uint32_t g = 0; g < m->row_group_count; g++) {
        const cf_parquet_row_group *rg = &m->row_groups[g];
        if (rg->num_rows <= 0 || r->rg_first[g] >= r->o.row_end ||
            r->rg_first[g] + rg->num_rows <= r->o.row_begin)
            continue;
        for (uint32_t i = 0; i < r->leaf_count; i++) {
            const cf_parquet_column_meta *c = &rg->columns[ls[i].column].meta;
            heavy |= c->codec != CF_PARQUET_UNCOMPRESSED || !ls[i].flat;
            if (c->total_uncompressed_size > 0)
                bytes = sat_add(bytes, (size_t)c->total_uncompressed_size);
        }
    }
    return heavy && bytes >= MIN_PARALLEL_BYTES;
}

cf_status cf_pq_rec_start_threads(cf_parquet_records *r, const uint32_t *cols, cf_error *err)
{
    atomic_init(&r->stop, false);
    if (r->o.max_ahead_bytes == 0)
        r->o.max_ahead_bytes = DEFAULT_AHEAD_BYTES;
    size_t t = r->o.threads;
    bool chosen = t != CF_PARQUET_THREADS_AUTO; /* asked for: used whatever the work */
    if (!chosen)
        t = cf_team_online_cpus(CF_PARQUET_MAX_THREADS);
    const cf_parquet_file_meta *m = cf_parquet_meta(r->pq);
    /* The current slot: all a single thread needs. */
    CF_TRY(grow_slots(r, cols, 1, err));
    if (t < 2 || r->leaf_count == 0)
        return CF_OK;
    r->rg_first = cf_calloc(m->row_group_count ? m->row_group_count : 1, sizeof(int64_t));
    if (!r->rg_first)
        return cf_pq_rec_oom(err);
    int64_t first = 0;
    for (uint32_t g = 0; g < m->row_group_count; g++) {
        r->rg_first[g] = first;
        first = m->row_groups[g].num_rows > INT64_MAX - first ? INT64_MAX
                                                              : first + m->row_groups[g].num_rows;
    }
    if (!chosen && !work_pays(r))
        return CF_OK;
    uint32_t eligible = 0;
    for (uint32_t g = 0; g < m->row_group_count; g++)
        eligible += ahead_ok(r, g);
    size_t jobs;
    if (eligible >= 2) {
        r->ahead = true;
        r->workers = t;
        CF_TRY(grow_slots(r, cols, (uint32_t)(2 * t + 1), err));
        r->posted = cf_calloc(t, sizeof(uint32_t));
        if (!r->posted)
            return cf_pq_rec_oom(err);
        jobs = t * r->leaf_count;
    } else {
        /* Each thread fills whole leaves and builds whole fields. */
        size_t most = r->leaf_count > r->o.field_count ? r->leaf_count : r->o.field_count;
        if (t > most)
            t = most;
        if (t < 2)
            return CF_OK;
        r->workers = t - 1;
        jobs = most;
    }
    if (jobs < r->o.field_count)
        jobs = r->o.field_count;
    r->jst = cf_calloc(jobs ? jobs : 1, sizeof(*r->jst));
    r->jerr = cf_calloc(jobs ? jobs : 1, sizeof(*r->jerr));
    if (!r->jst || !r->jerr)
        return cf_pq_rec_oom(err);
    r->njobs_cap = jobs;
    return cf_team_create(&r->team, r->workers, err);
}

void cf_pq_rec_stop_threads(cf_parquet_records *r)
{
    atomic_store(&r->stop, true);
    cf_team_free(r->team); /* waits for the jobs already running */
    r->team = NULL;
    for (uint32_t s = 0; s < r->nslots; s++) {
        for (uint32_t i = 0; r->slots[s].leaves && i < r->leaf_count; i++)
            cf_pq_leaf_dispose(&r->slots[s].leaves[i]);
        cf_free(r->slots[s].leaves);
    }
    cf_free(r->slots);
    r->slots = NULL;
    r->nslots = 0;
    r->leaves = NULL;
    cf_free(r->jst);
    cf_free(r->jerr);
    cf_free(r->posted);
    cf_free(r->rg_first);
}

/* The error of the run's first failing job, or CF_OK. */
static cf_status first_job_error(cf_parquet_records *r, size_t n, cf_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (r->jst[i] != CF_OK) {
            if (err)
                *err = r->jerr[i];
            return r->jst[i];
        }
    return CF_OK;
}

/* ---- row groups ahead ------------------------------------------------------------------- */

static cf_status ahead_job(void *ctx, size_t i, cf_error *err)
{
    cf_parquet_records *r = ctx;
    if (atomic_load_explicit(&r->stop, memory_order_relaxed))
        return CF_EINVAL; /* never read: the reader is being freed */
    rg_slot *s = &r->slots[r->posted[i / r->leaf_count]];
    leaf *l = &s->leaves[i % r->leaf_count];
    CF_TRY(cf_pq_leaf_open(l, r->pq, (uint32_t)s->rg, err));
    return cf_pq_leaf_fill_to(r, l, SIZE_MAX, err);
}

/* The open run has finished: mark the slots a job failed in. */
static void run_finished(cf_parquet_records *r)
{
    r->run_open = false;
    for (size_t i = 0; i < (size_t)r->nposted * r->leaf_count; i++)
        if (r->jst[i] != CF_OK)
            r->slots[r->posted[i / r->leaf_count]].failed = true;
    r->nposted = 0;
}

void cf_pq_rec_post_ahead(cf_parquet_records *r)
{
    if (!r->ahead)
        return;
    if (r->run_open) {
        if (!cf_team_done(r->team, r->run_ticket))
            return;
        run_finished(r);
    }
    const cf_parquet_file_meta *m = cf_parquet_meta(r->pq);
    size_t used = 0;
    for (uint32_t s = 0; s < r->nslots; s++)
        if (s != r->cur_slot && r->slots[s].rg >= 0)
            used = sat_add(used, decoded_bytes(r, (uint32_t)r->slots[s].rg));
    if (r->ahead_next <= r->rg)
        r->ahead_next = r->rg + 1;
    uint32_t n = 0, s = 0;
    while (n < r->workers && r->ahead_next < m->row_group_count) {
        uint32_t g = r->ahead_next;
        if (r->rg_first[g] >= r->o.row_end)
            break;
        if (!ahead_ok(r, g)) {
            r->ahead_next++; /* read a batch at a time when it comes */
            continue;
        }
        size_t need = decoded_bytes(r, g);
        if (sat_add(used, need) > r->o.max_ahead_bytes)
            break; /* wait for room */
        while (s < r->nslots && (s == r->cur_slot || r->slots[s].rg >= 0))
            s++;
        if (s == r->nslots)
            break; /* no free slot */
        r->slots[s].rg = g;
        r->slots[s].failed = false;
        r->posted[n++] = s;
        used = sat_add(used, need);
        r->ahead_next++;
    }
    if (n == 0)
        return;
    r->nposted = n;
    r->run_ticket =
        cf_team_start(r->team, ahead_job, r, (size_t)n * r->leaf_count, r->jst, r->jerr);
    for (uint32_t k = 0; k < n; k++)
        r->slots[r->posted[k]].run = r->run_ticket;
    r->run_open = true;
}

cf_status cf_pq_rec_take_row_group(cf_parquet_records *r, bool *ready, cf_error *err)
{
    (void)err;
    *ready = false;
    uint32_t found = r->nslots;
    for (uint32_t s = 0; s < r->nslots; s++)
        if (r->slots[s].rg == (int64_t)r->rg)
            found = s;
    if (found < r->nslots) {
        rg_slot *sl = &r->slots[found];
        if (r->run_open && sl->run == r->run_ticket) {
            cf_team_finish(r->team, r->run_ticket);
            run_finished(r);
        }
        if (sl->failed) {
            /* Read it again from the start, a batch at a time, to meet the
             * damage where one thread would. */
            for (uint32_t i = 0; i < r->leaf_count; i++)
                cf_pq_leaf_reset(&sl->leaves[i], NULL);
            sl->failed = false;
        } else {
            *ready = true;
        }
    } else {
        for (found = 0; found < r->nslots; found++)
            if (r->slots[found].rg < 0)
                break;
        /* The slot of the row group before is free by now (close). */
        CF_CHECK(found < r->nslots, err, CF_EINVAL, "parquet records: no free slot (a bug)");
    }
    r->cur_slot = found;
    r->slots[found].rg = r->rg;
    r->leaves = r->slots[found].leaves;
    return CF_OK;
}

/* ---- a batch's leaves and fields ---------------------------------------------------------- */

static cf_status fill_job(void *ctx, size_t i, cf_error *err)
{
    cf_parquet_records *r = ctx;
    return cf_pq_leaf_fill_to(r, &r->leaves[i], r->fill_want, err);
}

cf_status cf_pq_rec_fill_leaves(cf_parquet_records *r, size_t want, cf_error *err)
{
    if (!r->team || r->ahead) {
        for (uint32_t i = 0; i < r->leaf_count; i++)
            CF_TRY(cf_pq_leaf_fill_to(r, &r->leaves[i], want, err));
        return CF_OK;
    }
    r->fill_want = want;
    cf_team_run(r->team, fill_job, r, r->leaf_count, r->jst, r->jerr);
    return first_job_error(r, r->leaf_count, err);
}

static cf_status build_job(void *ctx, size_t i, cf_error *err)
{
    cf_parquet_records *r = ctx;
    return cf_pq_rec_build_top(r, (uint32_t)i, r->top->a.length, err);
}

cf_status cf_pq_rec_build_fields(cf_parquet_records *r, size_t rows, cf_error *err)
{
    uint32_t n = r->top->a.child_count;
    if (!r->team || r->ahead || n < 2) {
        for (uint32_t k = 0; k < n; k++)
            CF_TRY(cf_pq_rec_build_top(r, k, rows, err));
        return CF_OK;
    }
    cf_team_run(r->team, build_job, r, n, r->jst, r->jerr);
    return first_job_error(r, n, err);
}
