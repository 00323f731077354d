/* cfile kudu fs dump: the server's uuid, one block's bytes, the block as a CFile
 * (`cfile dump`), its CFile index tree, or every root's file tree as `kudu fs dump
 * tree` prints it. */
#include <dirent.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "info_blocks.h"
#include "kudu_fs_cmd.h"

static int open_block(cf_cli *c, const cf_kudu_fs *fs, const char *text, cf_io **io, char *name,
                      size_t cap)
{
    uint64_t id;
    if (cf_cli_parse_u64(text, &id) != 0)
        return cf_cli_usage(c, "not a block id: %s", text);
    cf_error e = {0};
    cf_status st = cf_kudu_fs_open_block(fs, id, false, io, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, "kudu fs dump", st, &e);
    const cf_kudu_block *b = cf_kudu_fs_find_block(fs, id);
    if (b->container != NULL)
        snprintf(name, cap, "block %" PRIu64 " (%s at offset %" PRIu64 ")", id, b->path, b->offset);
    else
        snprintf(name, cap, "block %" PRIu64 " (%s)", id, b->path);
    return 0;
}

static int dump_bytes(cf_cli *c, cf_io *io, bool hex, const char *name)
{
    uint8_t buf[65536];
    uint64_t size = io->ops->size(io);
    for (uint64_t off = 0; off < size;) {
        size_t n = size - off < sizeof buf ? (size_t)(size - off) : sizeof buf;
        cf_error e = {0};
        cf_status st = io->ops->read_at(io, off, buf, n, &e);
        if (st != CF_OK)
            return cf_cli_lib_fail(c, name, st, &e);
        if (!hex) {
            fwrite(buf, 1, n, c->out);
        } else {
            for (size_t i = 0; i < n; i += 16) {
                fprintf(c->out, "%08" PRIx64 ":", off + i);
                for (size_t j = i; j < i + 16 && j < n; j++)
                    fprintf(c->out, "%s%02x", (j - i) % 2 == 0 ? " " : "", buf[j]);
                fputc('\n', c->out);
            }
        }
        off += n;
    }
    return CF_EXIT_OK;
}

static int dump_tree(cf_cli *c, cf_io *io, bool json, const char *name)
{
    cf_reader *r = NULL;
    cf_error e = {0};
    cf_status st = cf_cli_open_io(&r, io, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, name, st, &e);
    cf_blk_list l = {0};
    size_t damaged = 0;
    st = cf_cli_verify(r, cf_blocks_collect, &l, &damaged, &e);
    int rc = CF_EXIT_OK;
    if (st != CF_OK || l.oom) {
        rc = l.oom ? cf_cli_fail(c, "%s: out of memory", name) : cf_cli_lib_fail(c, name, st, &e);
        goto out;
    }
    if (json) {
        cf_jw w;
        cf_jw_init(&w, c->out);
        cf_jw_obj_begin(&w);
        cf_blocks_json(&w, &l);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        /* The trees as verify walks them: each index block indented by its level. */
        for (size_t i = 0; i < l.n; i++) {
            const cf_blk *b = &l.v[i];
            bool index = strstr(b->kind, "index") != NULL;
            unsigned indent = index ? b->index_level : 0;
            if (!index) {
                for (size_t j = i; j-- > 0;)
                    if (strstr(l.v[j].kind, "index") != NULL) {
                        indent = l.v[j].index_level + 1;
                        break;
                    }
            }
            fprintf(c->out, "%*s%s at offset %" PRIu64 ", %u bytes", (int)indent * 2, "", b->kind,
                    b->off, b->size);
            if (index)
                fprintf(c->out, ": %u entries\n", b->index_entries);
            else
                fprintf(c->out, ": rows %" PRIu64 "..%" PRIu64 "\n", b->first_ord,
                        b->first_ord + b->rows);
            if (b->msg != NULL)
                fprintf(c->out, "%*s  DAMAGED: %s\n", (int)indent * 2, "", b->msg);
        }
    }
    if (damaged > 0)
        rc = CF_EXIT_FAIL;
out:
    cf_blk_list_dispose(&l);
    cf_reader_free(r);
    return rc;
}

/* The names in a directory, sorted (readdir's order is the filesystem's). */
static int name_cmp(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* One directory of `kudu fs dump tree` (fs_manager.cc DumpFileSystemTree): each
 * entry on a line after `prefix`, a directory with a "/" and its entries under it
 * with "---" more. Links are printed with their target and not entered, so a link
 * loop ends; depth is capped for the same reason. */
static void fs_tree_dir(cf_cli *c, const char *path, const char *prefix, int depth)
{
    DIR *d = opendir(path);
    if (d == NULL)
        return;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            char **p = realloc(names, cap * sizeof *p);
            if (p == NULL)
                break;
            names = p;
        }
        if ((names[n] = strdup(e->d_name)) == NULL)
            break;
        n++;
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, name_cmp);
    for (size_t i = 0; i < n; i++) {
        size_t plen = strlen(path) + 1 + strlen(names[i]) + 1;
        char *sub = malloc(plen);
        if (sub == NULL)
            break;
        snprintf(sub, plen, "%s/%s", path, names[i]);
        struct stat sb;
        if (lstat(sub, &sb) == 0 && S_ISLNK(sb.st_mode)) {
            char target[4096];
            ssize_t k = readlink(sub, target, sizeof target - 1);
            target[k > 0 ? k : 0] = '\0';
            fprintf(c->out, "%s%s -> %s\n", prefix, names[i], target);
        } else if (S_ISDIR(sb.st_mode) && depth < 32) {
            fprintf(c->out, "%s%s/\n", prefix, names[i]);
            size_t qlen = strlen(prefix) + 4;
            char *deeper = malloc(qlen);
            if (deeper != NULL) {
                snprintf(deeper, qlen, "%s---", prefix);
                fs_tree_dir(c, sub, deeper, depth + 1);
                free(deeper);
            }
        } else {
            fprintf(c->out, "%s%s\n", prefix, names[i]);
        }
        free(sub);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Every root once, in Kudu's order: the WAL root, the metadata root, the data roots. */
static void fs_tree(cf_cli *c, const cf_kudu_fs *fs)
{
    size_t nd = cf_kudu_fs_data_dir_count(fs);
    const char **roots = calloc(nd + 2, sizeof *roots);
    if (roots == NULL)
        return;
    size_t n = 0;
    roots[n++] = cf_kudu_fs_wal_dir(fs);
    roots[n++] = cf_kudu_fs_metadata_dir(fs);
    for (size_t i = 0; i < nd; i++)
        roots[n++] = cf_kudu_fs_data_dir_at(fs, i);
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen = seen || strcmp(roots[i], roots[j]) == 0;
        if (seen)
            continue;
        fprintf(c->out, "File-System Root: %s\n", roots[i]);
        fs_tree_dir(c, roots[i], "|-", 0);
    }
    free(roots);
}

int cf_kudu_fs_cmd_dump(cf_cli *c, fs_args *a, const cf_kudu_fs *fs, const char *what)
{
    if (strcmp(what, "uuid") == 0) {
        if (a->nargs != 0)
            return cf_cli_usage(c, "dump uuid takes no BLOCK_ID");
        if (a->json)
            fprintf(c->out, "{\"uuid\":\"%s\"}\n", cf_kudu_fs_uuid(fs));
        else
            fprintf(c->out, "%s\n", cf_kudu_fs_uuid(fs));
        return CF_EXIT_OK;
    }
    bool block = strcmp(what, "block") == 0, cfile = strcmp(what, "cfile") == 0,
         tree = strcmp(what, "tree") == 0;
    if (!block && !cfile && !tree)
        return cf_cli_usage(c, "dump what? uuid, block, cfile or tree, not '%s'", what);
    if (tree && a->nargs == 0) {
        fs_tree(c, fs);
        return CF_EXIT_OK;
    }
    if (a->nargs != 1)
        return cf_cli_usage(c, "dump %s needs one BLOCK_ID", what);
    cf_io *io = NULL;
    char name[512];
    int rc = open_block(c, fs, a->args[0], &io, name, sizeof name);
    if (rc != 0)
        return rc;
    if (block) {
        rc = dump_bytes(c, io, a->hex, name);
    } else if (tree) {
        rc = dump_tree(c, io, a->json, name);
    } else {
        cf_cli sub = *c;
        sub.cmd = "kudu fs dump cfile";
        cf_cli_getopt_reset();
        rc = cf_cmd_dump_io(&sub, a->dump_argc, a->dump_argv, io, name);
    }
    cf_io_free(io);
    return rc;
}
