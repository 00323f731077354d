/* cf-needs: tables */
/* Shared by the CLI tests of tables: see support_cli.h. */
#include "support_cli.h"

#include "test_common.h"

void cli_table_create(const char *dir, const char *schema)
{
    run r;
    CLI(&r, "table", "create", (char *)dir, "--schema", (char *)schema);
    cli_rc(&r, 0);
}
