/* Internal: a protobuf-c allocator over cf_malloc, for the CFile and HFile
 * readers. protobuf-c's unpack returns NULL both for bytes that do not parse
 * and for a failed allocation; the allocator remembers the second, so the
 * reader can say CF_ENOMEM instead of calling good bytes corrupt (and failure
 * injection, util/alloc.h, reaches every allocation of an unpack).
 *
 *     cf_pb_mem mem;
 *     cf_pb_mem_init(&mem);
 *     Msg *m = msg__unpack(&mem.a, len, data);
 *     CF_CHECK(m != NULL || !mem.oom, err, CF_ENOMEM, "...: out of memory");
 *     CF_CHECK(m != NULL, err, CF_ECORRUPT, "...: does not parse");
 *     ...
 *     msg__free_unpacked(m, &mem.a);   (the same cf_pb_mem, still alive)
 */
#ifndef CF_UTIL_PB_MEM_H
#define CF_UTIL_PB_MEM_H

#include <stdbool.h>
#include <stddef.h>

#include <protobuf-c/protobuf-c.h>

#include "alloc.h"

typedef struct cf_pb_mem {
    ProtobufCAllocator a; /* pass &a to unpack and free_unpacked */
    bool oom;             /* an allocation failed since init */
} cf_pb_mem;

static inline void *cf_pb_mem_alloc(void *ctx, size_t n)
{
    void *p = cf_malloc(n);
    if (p == NULL)
        ((cf_pb_mem *)ctx)->oom = true;
    return p;
}

static inline void cf_pb_mem_free(void *ctx, void *p)
{
    (void)ctx;
    cf_free(p);
}

static inline void cf_pb_mem_init(cf_pb_mem *m)
{
    m->a = (ProtobufCAllocator){cf_pb_mem_alloc, cf_pb_mem_free, m};
    m->oom = false;
}

#endif
