/* `cfile kudu` subcommands (cmd_kudu*.c); each gets argv[0] = its own name. */
#ifndef CF_KUDU_CMD_H
#define CF_KUDU_CMD_H

#include "cli.h"

int cf_cmd_kudu_pbc(cf_cli *c, int argc, char **argv);
int cf_cmd_kudu_fs(cf_cli *c, int argc, char **argv);
int cf_cmd_kudu_tablet(cf_cli *c, int argc, char **argv);
int cf_cmd_kudu_wal(cf_cli *c, int argc, char **argv);
/* `cfile kudu tablet scan` (cmd_kudu_scan.c), for cmd_kudu_tablet.c's dispatch: argv[0]
 * is "scan". */
int cf_cmd_kudu_tablet_scan(cf_cli *c, int argc, char **argv);
extern const char cf_cmd_kudu_tablet_scan_usage[];

#endif
