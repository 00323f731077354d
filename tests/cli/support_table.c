/* cf-needs: tables */
/* Shared by the CLI tests of tables: see support_cli.h. */
#include "support_cli.h"

#include <stdio.h>

#include "test_common.h"

void cli_table_create(const char *dir, const char *schema)
{
    run r;
    CLI(&r, "table", "create", (char *)dir, "--schema", (char *)schema);
    cli_rc(&r, 0);
}

char *cli_table_import(const char *name, const char *schema, const char *csv, const char *want_out)
{
    char *dir = cli_dir_path(name);
    char csv_name[128];
    snprintf(csv_name, sizeof csv_name, "%s.csv", name);
    char *path = cli_dir_path(csv_name);
    write_str(path, csv);
    run r;
    CLI(&r, "table", "import", dir, "--schema", (char *)schema, path);
    if (want_out != NULL)
        cli_out(&r, 0, want_out);
    else
        cli_rc(&r, 0);
    return dir;
}
