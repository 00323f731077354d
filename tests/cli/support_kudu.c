/* cf-needs: tables */
/* Shared by the CLI's Kudu tests: see support_kudu.h. */
#include "support_kudu.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "json.h"
#include "support_fsroot.h"
#include "util/buf.h"
#include "test_common.h"

const char *const cli_kudu_layouts[4] = {"fbm-small-s4", "lbm-basic-s1", "lbm-compound-s2",
                                         "lbm-onedir-s3"};

cf_kudu_root_spec cli_kudu_root(const char *root, const char *const *all)
{
    cf_kudu_root_spec spec = kfs_root_spec(root, "log", all);
    cf_error err = {0};
    CF_ASSERT_OK(cf_kudu_root_write(&spec, &err), &err);
    return spec;
}

const char *const cli_kudu_expected[4] = {"tablet_latest.json", "tablet_flushed.json",
                                          "tablet_as_of.json", "tablet_latest.json"};

bool cli_kudu_lay_open(cli_kudu_lay *l, const char *name, const char *base)
{
    snprintf(l->root, sizeof(l->root), "%s/kudu-fs/%s", cf_test_shared_dir(), name);
    if (base == NULL)
        base = l->root;
    char p[700];
    snprintf(p, sizeof(p), "%s/expected/fs.json", l->root);
    struct stat st;
    if (stat(p, &st) != 0)
        return false;
    cf_json_doc d;
    char msg[200];
    if (cf_json_parse_file(&d, p, msg, sizeof(msg)) != 0)
        fail_msg("%s: %s", p, msg);
    const cf_json *w = cf_json_get(&d.root, "wal_root");
    const cf_json *dr = cf_json_get(&d.root, "data_roots");
    const cf_json *t = cf_json_get(&d.root, "tablet_id");
    assert_true(w != NULL && dr != NULL && t != NULL);
    snprintf(l->wal, sizeof(l->wal), "%s/%s", base, w->str);
    snprintf(l->tablet, sizeof(l->tablet), "%s", t->str);
    l->data[0] = '\0';
    for (size_t i = 0; i < dr->n; i++) {
        size_t n = strlen(l->data);
        snprintf(l->data + n, sizeof(l->data) - n, "%s%s/%s", i ? "," : "", base, dr->items[i].str);
    }
    cf_json_doc_dispose(&d);
    return true;
}

Kudu__Tablet__TabletSuperBlockPB *cli_kudu_superblock_pb(const cf_kudu_superblock_spec *spec)
{
    cf_error err = {0};
    cf_buf b;
    cf_buf_init(&b);
    CF_ASSERT_OK(cf_kudu_superblock_pack(&b, spec, &err), &err);
    Kudu__Tablet__TabletSuperBlockPB *pb =
        kudu__tablet__tablet_super_block_pb__unpack(NULL, b.len, b.data);
    cf_buf_dispose(&b);
    assert_non_null(pb);
    return pb;
}
