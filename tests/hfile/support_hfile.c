/* cf-needs: hfile */
#include "support_hfile.h"

#include <stdio.h>
#include <string.h>

#include "test_common.h"

cf_hfile_writer_options hf_options(uint32_t compression, uint32_t block_size)
{
    cf_hfile_writer_options o;
    cf_hfile_writer_options_init(&o);
    o.compression = compression;
    o.block_size = block_size;
    return o;
}

bool hfile_next(cf_hfile_iter *it, cf_hfile_cell *c)
{
    cf_error err = {0};
    bool has;
    CF_ASSERT_OK(cf_hfile_iter_next(it, c, &has, &err), &err);
    return has;
}

void hfile_corpus_open(hfile_corpus *c)
{
    snprintf(c->dir, sizeof(c->dir), "%s/hfile", cf_test_shared_dir());
    c->d = opendir(c->dir);
    assert_non_null(c->d);
}

bool hfile_corpus_next(hfile_corpus *c)
{
    struct dirent *de;
    while ((de = readdir(c->d)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n < 6 || strcmp(de->d_name + n - 6, ".hfile") != 0)
            continue;
        c->name = de->d_name;
        snprintf(c->path, sizeof(c->path), "%s/%s", c->dir, de->d_name);
        snprintf(c->json, sizeof(c->json), "%s.expected.json", c->path);
        return true;
    }
    closedir(c->d);
    return false;
}
