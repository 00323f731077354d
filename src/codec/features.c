/* cf_build_features: what this build of the library has, said by the code that has it
 * (the codec table, the kernels picked at run time) rather than by a list kept by hand. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <cfile/version.h>

#include "bitshuffle.h"
#include "compress.h"
#include "crc32c.h"
#include "lz4.h"
#include "snappy.h"

static char text[384];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void build(void)
{
    size_t n = 0;
    n += (size_t)snprintf(text + n, sizeof(text) - n, "codecs:");
    /* The CFile block codecs, then the ones only Parquet and HFile pages use (gzip is
     * zlib's deflate in a gzip frame; zstd, brotli, lzo and bzip2 are required by the build). */
    static const cf_compression block[] = {CF_COMP_SNAPPY, CF_COMP_LZ4, CF_COMP_ZLIB};
    static const char *const block_name[] = {"snappy", "lz4", "zlib"};
    for (size_t i = 0; i < sizeof(block) / sizeof(block[0]); i++)
        if (cf_codec_available(block[i]))
            n += (size_t)snprintf(text + n, sizeof(text) - n, " %s", block_name[i]);
    n += (size_t)snprintf(text + n, sizeof(text) - n, " gzip zstd brotli lzo bzip2\n");
    n += (size_t)snprintf(text + n, sizeof(text) - n,
                          "crc32c: %s\nbitshuffle: %s\nlz4 decode: %s\nsnappy decode: %s\n"
                          "inflate: %s\n",
                          cf_crc32c_impl(), cf_bitshuffle_impl(), cf_lz4_impl(), cf_snappy_impl(),
                          cf_codec_inflater_name());
}

const char *cf_build_features(void)
{
    pthread_once(&once, build);
    return text;
}
