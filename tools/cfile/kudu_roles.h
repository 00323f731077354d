/* What each block is to its tablet, from every superblock of a server (the roles
 * `kudu fs list` prints): base column of a rowset, bloom, ad-hoc index, REDO or
 * UNDO delta. Built once per command over the tablets cf_kudu_fs_tablet_at lists.
 *
 * Call order: cf_kudu_roles_load (find)* cf_kudu_roles_free. The roles point into
 * the tablets they keep open (REQUIRES: the fs outlives the roles).
 */
#ifndef CF_CLI_KUDU_ROLES_H
#define CF_CLI_KUDU_ROLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/kudu.h>

#include "cli.h"

typedef struct cf_kudu_role {
    uint64_t block_id;
    const char *tablet_id;
    const char *table_name;
    uint64_t rowset_id;
    cf_kudu_block_kind kind;
    const char *column;  /* column blocks: its name */
    int64_t delta_index; /* undo/redo: position in the rowset's list; else -1 */
} cf_kudu_role;

/* A tablet whose superblock could not be read. */
typedef struct cf_kudu_role_failure {
    const char *tablet_id;
    char msg[256];
    cf_status st;
} cf_kudu_role_failure;

typedef struct cf_kudu_roles {
    cf_kudu_role *v; /* by block id, then tablet and rowset */
    size_t n;
    cf_kudu_tablet **tablets;
    size_t ntablets;
    cf_kudu_role_failure *failed;
    size_t nfailed;
} cf_kudu_roles;

/* Read every tablet's superblock. A tablet that cannot be read is kept in `failed`
 * (not an error: its blocks show as orphans, and check says why). Returns 0, or an
 * exit code after printing (out of memory). */
int cf_kudu_roles_load(cf_cli *c, const cf_kudu_fs *fs, cf_kudu_roles *r);
void cf_kudu_roles_free(cf_kudu_roles *r);
/* The first role of block `id`, or NULL (an orphan); *count (may be NULL) gets how
 * many roles name it (more than one is damage). */
const cf_kudu_role *cf_kudu_roles_find(const cf_kudu_roles *r, uint64_t id, size_t *count);

#endif
