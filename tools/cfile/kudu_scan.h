/* `cfile kudu tablet scan` (cmd_kudu_scan.c): a tablet's rows as Kudu would answer
 * a scan after a restart. argv[0] is "scan". */
#ifndef CF_CLI_KUDU_SCAN_H
#define CF_CLI_KUDU_SCAN_H

#include "cli.h"

int cf_cmd_kudu_tablet_scan(cf_cli *c, int argc, char **argv);
extern const char cf_cmd_kudu_tablet_scan_usage[];

#endif
