/* The `cfile` binary: everything lives in cf_cli_main so tests can call it. */
#include "cli.h"

int main(int argc, char **argv) { return cf_cli_main(argc, argv, stdout, stderr); }
