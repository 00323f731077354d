/* The directory options of `cfile kudu` commands (kudu_args.h). Kudu spells them
 * --fs_wal_dir, --fs_metadata_dir and --fs_data_dirs (src/kudu/fs/fs_manager.cc);
 * we take those and the dashed forms our CLI uses elsewhere. */
#include "kudu_args.h"

#include <stdlib.h>
#include <string.h>

void cf_kudu_args_init(cf_kudu_args *a)
{
    memset(a, 0, sizeof *a);
}

void cf_kudu_args_free(cf_kudu_args *a)
{
    if (a == NULL)
        return;
    for (size_t i = 0; i < a->ndata_dirs; i++)
        free(a->data_dirs[i]);
    free(a->data_dirs);
    memset(a, 0, sizeof *a);
}

/* Append each non-empty comma-separated piece of `list`. Kudu ignores empty
 * entries in --fs_data_dirs; so do we, but a list with none is a usage error. */
static int add_data_dirs(cf_cli *c, cf_kudu_args *a, const char *list)
{
    size_t added = 0;
    const char *p = list;
    while (*p != '\0') {
        const char *e = strchr(p, ',');
        size_t n = e != NULL ? (size_t)(e - p) : strlen(p);
        if (n > 0) {
            char **grown = realloc(a->data_dirs, (a->ndata_dirs + 1) * sizeof *grown);
            if (grown == NULL)
                return cf_cli_fail(c, "out of memory");
            a->data_dirs = grown;
            char *d = malloc(n + 1);
            if (d == NULL)
                return cf_cli_fail(c, "out of memory");
            memcpy(d, p, n);
            d[n] = '\0';
            a->data_dirs[a->ndata_dirs++] = d;
            added++;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    if (added == 0)
        return cf_cli_usage(c, "--fs-data-dirs: no directory in '%s'", list);
    return 0;
}

int cf_kudu_args_option(cf_cli *c, cf_kudu_args *a, int opt, const char *arg)
{
    switch (opt) {
    case CF_KUDU_OPT_WAL:
        if (arg[0] == '\0')
            return cf_cli_usage(c, "--fs-wal-dir: empty directory name");
        a->wal_dir = arg;
        return 0;
    case CF_KUDU_OPT_META:
        if (arg[0] == '\0')
            return cf_cli_usage(c, "--fs-metadata-dir: empty directory name");
        a->metadata_dir = arg;
        return 0;
    case CF_KUDU_OPT_DATA: return add_data_dirs(c, a, arg);
    default: return -1;
    }
}

int cf_kudu_args_options(cf_cli *c, const cf_kudu_args *a, cf_kudu_fs_options *opts)
{
    cf_kudu_fs_options_init(opts);
    if (a->wal_dir == NULL)
        return cf_cli_usage(c, "--fs-wal-dir DIR is required");
    opts->wal_dir = a->wal_dir;
    opts->metadata_dir = a->metadata_dir;
    opts->data_dirs = (const char *const *)a->data_dirs;
    opts->ndata_dirs = a->ndata_dirs;
    return 0;
}

int cf_kudu_args_open(cf_cli *c, const cf_kudu_args *a, cf_kudu_fs **fs)
{
    *fs = NULL;
    cf_kudu_fs_options opts;
    int rc = cf_kudu_args_options(c, a, &opts);
    if (rc != 0)
        return rc;
    cf_error e = {0};
    cf_status st = cf_kudu_fs_open(fs, &opts, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, c->cmd, st, &e);
    if (cf_kudu_fs_locked(*fs))
        fprintf(c->err,
                "cfile %s: warning: a running Kudu server holds the lock on %s's instance file; "
                "its files may change while they are read\n",
                c->cmd, a->wal_dir);
    return 0;
}
