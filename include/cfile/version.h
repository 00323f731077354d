/* cfile: the library's version and what this build has. Below every layer (it needs
 * nothing else), so the code that answers it (src/cfile/reader.c, src/codec/features.c)
 * and the code that prints it (the Parquet writer's created_by) include only this.
 *
 * Call order: any, at any time, from any thread (the feature text is built once,
 * under pthread_once). Ownership: the strings returned are static; never free them. */
#ifndef CFILE_VERSION_H
#define CFILE_VERSION_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CF_VERSION_MAJOR 0
#define CF_VERSION_MINOR 1
#define CF_VERSION_PATCH 0

/* (major << 16) | (minor << 8) | patch of the linked library. */
CF_API unsigned cf_version(void);
/* "0.1.0" */
CF_API const char *cf_version_string(void);
/* What this build has, for `cfile --version` and bug reports: newline-terminated
 * "key: values" lines. "codecs:" lists every compression library compiled in
 * (snappy lz4 zlib gzip zstd brotli lzo bzip2), "crc32c:" and "bitshuffle:" the kernel picked
 * for this CPU at run time (e.g. "avx2+vpclmul", "portable"). Static storage. */
CF_API const char *cf_build_features(void);

#ifdef __cplusplus
}
#endif
#endif
