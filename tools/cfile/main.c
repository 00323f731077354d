/* The `cfile` binary: everything lives in cf_cli_main so tests can call it. */
#include <signal.h>

#include "cli.h"

int main(int argc, char **argv)
{
    /* Over a file-size limit (ulimit -f) write(2) then fails with EFBIG, which
     * every write path reports ("File too large") and cleans up after, instead
     * of the process dying mid-write with its temporary files left behind.
     * SIGPIPE keeps its disposition: by default `cfile dump f | head -1` ends
     * quietly when head exits, as cat and grep do. */
    signal(SIGXFSZ, SIG_IGN);
    return cf_cli_main(argc, argv, stdout, stderr);
}
