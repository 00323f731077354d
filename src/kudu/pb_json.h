/* Internal: Kudu's protobuf messages (proto/kudu/) unpacked, found by name and
 * printed as JSON (pb_json.c), for every reader of src/kudu/. */
#ifndef CF_KUDU_PB_JSON_H
#define CF_KUDU_PB_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <cfile/status.h>
#include <protobuf-c/protobuf-c.h>

#include "util/buf.h"

/* The descriptor of a message by its full name (Kudu's or proto/kudu/'s), or NULL. */
const ProtobufCMessageDescriptor *kudu_pb_find_type(const char *type);

/* Unpack `len` bytes as a `d`; CF_ECORRUPT "<what>: N bytes do not parse as a T", or
 * CF_ENOMEM. Free with kudu_pb_free. */
cf_status kudu_pb_unpack(const ProtobufCMessageDescriptor *d, const void *data, size_t len,
                         const char *what, ProtobufCMessage **out, cf_error *err);
void kudu_pb_free(ProtobufCMessage *m); /* NULL is a no-op */

/* Append m as JSON to out (out->oom on failure); `depth` is the indentation level the
 * object starts at when pretty. */
void kudu_pb_json_append(cf_buf *out, const ProtobufCMessage *m, bool pretty, int depth);
/* m as JSON in a new string the caller free()s. */
cf_status kudu_pb_json_string(const ProtobufCMessage *m, bool pretty, char **json, cf_error *err);

#endif
