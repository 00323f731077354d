/* Built against an installed cfile (pkg-config --cflags --libs cfile) by
 * tests/install/install_test.sh: checks the version and writes then reads a
 * small file through the public API only. Exit 0 and "cfile <version> ok" on
 * success. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cfile/cfile.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: hello EXPECTED_VERSION TMPFILE\n");
        return 2;
    }
    const char *v = cf_version_string();
    unsigned n = cf_version();
    char from_num[32];
    snprintf(from_num, sizeof(from_num), "%u.%u.%u", n >> 16, (n >> 8) & 0xff, n & 0xff);
    if (strcmp(v, argv[1]) != 0 || strcmp(from_num, v) != 0) {
        fprintf(stderr, "version %s (%s), want %s\n", v, from_num, argv[1]);
        return 1;
    }
    /* The header's macros agree with the library it was linked with. */
    if (n != ((CF_VERSION_MAJOR << 16) | (CF_VERSION_MINOR << 8) | CF_VERSION_PATCH)) {
        fprintf(stderr, "header version differs from the library's\n");
        return 1;
    }
    const char *name = cf_type_name(CF_TYPE_INT32);
    if (name == NULL || strcmp(name, "INT32") != 0) {
        fprintf(stderr, "cf_type_name(INT32) = %s\n", name ? name : "(null)");
        return 1;
    }
    /* Write 1000 INT64 rows with LZ4 (so the codec libraries are linked too),
     * read them back and compare. */
    enum { N = 1000 };
    static int64_t vals[N], got[N];
    for (int i = 0; i < N; i++)
        vals[i] = (int64_t)i * i - 7;
    cf_error err = {0};
    cf_writer_options o;
    cf_writer_options_init(&o, CF_TYPE_INT64);
    o.compression = CF_COMP_LZ4;
    cf_writer *w = NULL;
    cf_status st = cf_writer_create_file(&w, argv[2], &o, &err);
    if (st == CF_OK)
        st = cf_writer_append(w, vals, NULL, N, &err);
    if (st == CF_OK)
        st = cf_writer_finish(w, &err);
    cf_writer_free(w);
    if (st != CF_OK) {
        fprintf(stderr, "write: %s: %s\n", cf_status_str(st), err.msg);
        return 1;
    }
    cf_reader *r = NULL;
    cf_iter *it = NULL;
    size_t total = 0, count = 0;
    st = cf_reader_open_file(&r, argv[2], false, NULL, &err);
    if (st == CF_OK)
        st = cf_iter_create(&it, r, &err);
    while (st == CF_OK && total < N) {
        st = cf_iter_copy_batch(it, got + total, NULL, N - total, &count, &err);
        if (st == CF_OK && count == 0)
            break;
        total += count;
    }
    cf_iter_free(it);
    cf_reader_free(r);
    if (st != CF_OK || total != N || memcmp(vals, got, sizeof(vals)) != 0) {
        fprintf(stderr, "read back: %s: %s (%zu rows)\n", cf_status_str(st), err.msg, total);
        return 1;
    }
    printf("cfile %s ok\n", v);
    return 0;
}
