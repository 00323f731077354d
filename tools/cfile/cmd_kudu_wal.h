/* `cfile kudu wal` (cmd_kudu_wal.c), dispatched by cmd_kudu.c; argv[0] is "wal". */
#ifndef CF_CLI_CMD_KUDU_WAL_H
#define CF_CLI_CMD_KUDU_WAL_H

#include "cli.h"

extern const char cf_cmd_kudu_wal_usage[];
int cf_cmd_kudu_wal(cf_cli *c, int argc, char **argv);

#endif
