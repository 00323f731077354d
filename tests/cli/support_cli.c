/* Shared by the CLI tests: see support_cli.h. */
#include "support_cli.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "test_common.h"

void run_argv(run *r, FILE *out_to, char **args)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = "cfile";
    while (*args != NULL && argc < 31)
        argv[argc++] = *args++;
    argv[argc] = NULL;
    FILE *out = out_to != NULL ? out_to : open_memstream(&r->out, &r->out_len);
    FILE *err = open_memstream(&r->err, &r->err_len);
    r->rc = cf_cli_main(argc, argv, out, err);
    if (out_to == NULL)
        fclose(out);
    else
        r->out = NULL;
    fclose(err);
}

/* The arguments in ap up to a NULL (at most 30) into args, NULL-terminated. */
static void collect(char *args[32], va_list ap)
{
    size_t n = 0;
    char *a;
    while ((a = va_arg(ap, char *)) != NULL && n < 30)
        args[n++] = a;
    args[n] = NULL;
}

void cli(run *r, ...)
{
    char *args[32];
    va_list ap;
    va_start(ap, r);
    collect(args, ap);
    va_end(ap);
    run_argv(r, NULL, args);
}

void done(run *r)
{
    free(r->out);
    free(r->err);
}

void cli_rc(run *r, int rc)
{
    EXPECT_RC(*r, rc);
    done(r);
}

void cli_out(run *r, int rc, const char *needle)
{
    EXPECT_RC(*r, rc);
    if (r->out == NULL || strstr(r->out, needle) == NULL)
        fail_msg("stdout lacks '%s': %.300s", needle, r->out ? r->out : "(not captured)");
    done(r);
}

static void has_each(const char *text, va_list ap)
{
    const char *needle;
    while ((needle = va_arg(ap, const char *)) != NULL)
        if (text == NULL || strstr(text, needle) == NULL)
            fail_msg("'%s' not in: %.600s", needle, text ? text : "(nothing)");
}

void cli_has(const char *text, ...)
{
    va_list ap;
    va_start(ap, text);
    has_each(text, ap);
    va_end(ap);
}

void cli_out_has(run *r, int rc, ...)
{
    EXPECT_RC(*r, rc);
    va_list ap;
    va_start(ap, rc);
    has_each(r->out, ap);
    va_end(ap);
    done(r);
}

void cli_out_is(run *r, int rc, const char *want)
{
    EXPECT_RC(*r, rc);
    assert_non_null(r->out);
    assert_string_equal(r->out, want);
    done(r);
}

void cli_prints(const char *want, ...)
{
    char *args[32];
    va_list ap;
    va_start(ap, want);
    collect(args, ap);
    va_end(ap);
    run r;
    run_argv(&r, NULL, args);
    cli_out_is(&r, 0, want);
}

void cli_err(run *r, int rc, const char *needle)
{
    EXPECT_RC(*r, rc);
    if (strstr(r->err, needle) == NULL)
        fail_msg("stderr lacks '%s': %.300s", needle, r->err);
    done(r);
}

void write_text(const char *path, const char *text, size_t len)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, len, fp), len);
    fclose(fp);
}

void write_str(const char *path, const char *text)
{
    write_text(path, text, strlen(text));
}

void copy_file(const char *from, const char *to)
{
    size_t len;
    uint8_t *bytes = cf_test_read_file(from, &len);
    assert_non_null(bytes);
    write_text(to, (const char *)bytes, len);
    free(bytes);
}

char cli_dir[64];

int cli_dir_setup(void **state)
{
    (void)state;
    strcpy(cli_dir, "/tmp/cf_cli_XXXXXX");
    return mkdtemp(cli_dir) == NULL ? -1 : 0;
}

int cli_dir_teardown(void **state)
{
    (void)state;
    return cf_test_rm_rf(cli_dir);
}

char *cli_dir_path(const char *name)
{
    static char buf[16][256];
    static unsigned k;
    char *p = buf[k++ % 16];
    snprintf(p, 256, "%s/%s", cli_dir, name);
    return p;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* dir's entries, sorted, joined with spaces ("-" when dir does not exist). */
static void entries(const char *dir, char *out, size_t cap)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        snprintf(out, cap, "-");
        return;
    }
    enum { MAX = 16 };
    char names[MAX][256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n == MAX)
            fail_msg("%s holds more than %d entries", dir, MAX);
        snprintf(names[n++], sizeof(names[0]), "%s", e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof(names[0]), cmp_name);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        strncat(out, i ? " " : "", cap - strlen(out) - 1);
        strncat(out, names[i], cap - strlen(out) - 1);
    }
}

void cli_dir_holds(const char *dir, const char *want)
{
    char got[1024];
    entries(dir, got, sizeof(got));
    if (strcmp(got, want) != 0)
        fail_msg("%s holds [%s], want [%s]", dir, got, want);
}
