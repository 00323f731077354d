/* Internal: the block encoding vtable (format §8). One file per encoding
 * implements an encoder (block builder) and a decoder, picked from the
 * (type, encoding) registry.
 *
 * Values cross this interface in "memory form": cf_type_size(type) bytes each,
 * little-endian; cf_slice for binary types; one byte 0/1 for BOOL. Encoders only
 * ever see non-NULL values; the cfile layer handles NULLs and arrays.
 */
#ifndef CF_ENCODING_H
#define CF_ENCODING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/types.h>

typedef struct cf_encoder cf_encoder;
typedef struct cf_decoder cf_decoder;

/* A decoded dictionary (DICT encoding): entry c is codeword c. */
typedef struct cf_dict {
    const cf_slice *entries;
    size_t count;
} cf_dict;

typedef struct cf_enc_params {
    cf_type type;
    size_t elem_size;          /* cf_type_size(type) */
    uint32_t block_size;       /* resolved (>= 512) */
    uint32_t restart_interval; /* PREFIX; >= 1 */
} cf_enc_params;

typedef struct cf_encoder_ops {
    cf_encoding encoding;
    cf_status (*create)(cf_encoder **out, const cf_enc_params *p, cf_error *err);
    void (*free)(cf_encoder *e);
    /* Offer n values; returns how many the block took (0..n), by Kudu's rules
     * for this encoding (format §10.2). force = take all n whatever the limits
     * (array cells are never split). CF_ENOMEM is reported by finish. */
    size_t (*add)(cf_encoder *e, const void *vals, size_t n, bool force);
    /* Kudu's "block full" test for this encoding. */
    bool (*is_full)(const cf_encoder *e);
    /* Values in the current block. */
    size_t (*count)(const cf_encoder *e);
    /* The encoded block, header included, with this first ordinal. The slice
     * points into the encoder and is valid until reset. */
    cf_status (*finish)(cf_encoder *e, uint32_t first_ord, cf_slice *out, cf_error *err);
    /* Start the next block (DICT: may switch to plain mode, format §8.8.3). */
    void (*reset)(cf_encoder *e);
    /* DICT only (NULL otherwise): the dictionary block, a PLAIN BINARY block
     * with ordinal 0; valid until free. */
    cf_status (*finish_dict)(cf_encoder *e, cf_slice *out, cf_error *err);
} cf_encoder_ops;

struct cf_encoder {
    const cf_encoder_ops *ops;
};

typedef struct cf_dec_params {
    cf_type type;
    size_t elem_size;    /* cf_type_size(type) */
    const cf_dict *dict; /* DICT only: the file's dictionary (outlives the decoder) */
} cf_dec_params;

/* A test on single non-NULL values for block skipping (block_any below). */
typedef struct cf_value_test {
    bool (*fn)(void *ctx, const void *value); /* value in memory form */
    void *ctx;
    /* DICT: bit c set = dictionary entry c passes (fn already applied once per
     * entry); NULL = no such answers. */
    const uint8_t *dict_pass;
} cf_value_test;

typedef struct cf_decoder_ops {
    cf_encoding encoding;
    cf_status (*create)(cf_decoder **out, const cf_dec_params *p, cf_error *err);
    void (*free)(cf_decoder *d);
    /* Bind to a new encoded block (borrowed; it must stay valid while the decoder
     * uses it) and check its header against len. Sets count and first_ord; the
     * position becomes 0. Every length, count and offset is checked here or
     * before it is used: CF_ECORRUPT with a message naming the problem. */
    cf_status (*load)(cf_decoder *d, const uint8_t *data, size_t len, cf_error *err);
    /* Move to value index idx (0 <= idx <= count). */
    cf_status (*seek)(cf_decoder *d, size_t idx, cf_error *err);
    /* Decode up to n values from the position into dst (memory form, dense) and
     * advance. *got = values decoded (fewer only at the end of the block).
     * Binary slices point into the block, the dictionary or decoder memory and
     * stay valid until the next load or free. */
    cf_status (*next)(cf_decoder *d, void *dst, size_t n, size_t *got, cf_error *err);
    /* Move to the first value >= *key (memory form) in the type's order
     * (signed/unsigned integers, memcmp for binary); *exact = equal.
     * CF_ENOTFOUND (position = count) if every value is smaller; CF_ENOTSUP for
     * types without an order (BOOL, FLOAT, DOUBLE). */
    cf_status (*seek_at_or_after)(cf_decoder *d, const void *key, bool *exact, cf_error *err);
    /* Optional, NULL when values are not stored in memory form: a pointer to the
     * next n values (n <= count - pos) inside the block or decoder memory, valid
     * until the next load; advances like next(). Lets scans skip a copy. */
    const void *(*view)(cf_decoder *d, size_t n);
    /* Optional (DICT): the next n values (n <= count - pos) as codewords of
     * the dictionary in cf_dec_params.dict rather than as values: *cw = n
     * codewords, each checked to name an entry, valid until the next call on
     * the decoder; advances like next(). *cw = NULL (CF_OK, nothing moved)
     * when the loaded block holds no codewords (DICT's plain-string blocks):
     * use next(). Lets a nullable scan look entries up straight into their
     * rows. */
    cf_status (*codewords)(cf_decoder *d, size_t n, const uint32_t **cw, cf_error *err);
    /* Optional, NULL when the encoding has no shortcut: *any = whether some
     * value of the loaded block may pass t, decided from the encoding's
     * structure (DICT: the codewords against t->dict_pass; RLE: fn once per
     * repeated run) and true whenever it cannot tell. Leaves the position
     * anywhere: callers seek afterwards. */
    cf_status (*block_any)(cf_decoder *d, const cf_value_test *t, bool *any, cf_error *err);
    /* Optional, all three or none: for decoders whose load decodes something
     * per block (PLAIN BINARY's offsets, DICT's codewords), so a block cache can
     * keep that state with the block's bytes and a later load adopt it instead
     * of decoding again. saved_len = bytes save writes for the loaded block (0:
     * nothing worth keeping); it may first finish decoding what load deferred
     * (DICT codewords), and returns 0 if that fails (next() reports it). save
     * writes the state to dst (4-byte aligned). load_saved binds to data as
     * load does, borrowing state that save wrote after a load of these very
     * bytes (it must outlive the binding). It makes only cheap consistency
     * checks (CF_ECORRUPT when state and block disagree: the caller then loads
     * normally); the decoder is unbound on failure. */
    size_t (*saved_len)(cf_decoder *d);
    void (*save)(const cf_decoder *d, void *dst);
    cf_status (*load_saved)(cf_decoder *d, const uint8_t *data, size_t len, const void *state,
                            size_t state_len, cf_error *err);
    /* Optional, all three or none: a per-block index that lets
     * seek_at_or_after skip most of the block (BIT_SHUFFLE: each chunk's first
     * value), too costly to build on every load but worth keeping in a cache.
     * seek_index_len = its bytes for the loaded block (0: none); build writes
     * it to dst (8-byte aligned), decoding what it needs (an error leaves the
     * decoder usable, without an index); use lends the decoder an index built
     * from these very bytes (it must stay valid until the next load, which
     * forgets it; a wrong len is ignored). */
    size_t (*seek_index_len)(cf_decoder *d);
    cf_status (*seek_index_build)(cf_decoder *d, void *dst, cf_error *err);
    void (*seek_index_use)(cf_decoder *d, const void *idx, size_t len);
} cf_decoder_ops;

struct cf_decoder {
    const cf_decoder_ops *ops;
    size_t count;       /* values in the loaded block */
    uint32_t first_ord; /* ordinal field of the loaded block's header */
    size_t pos;         /* index of the next value next() returns */
    /* Set by the owner after create (default false): binary values next()
     * hands out need stay valid only until the next call on the decoder, not
     * until the next load, so a decoder may reuse their memory on every call
     * (PREFIX: a batch-sized arena instead of one growing over the block). */
    bool batch_scoped;
};

/* The encoding actually used for a request, as Kudu resolves it (format §8.0):
 * AUTO, GROUP_VARINT and pairs Kudu does not allow become the type's default. */
cf_encoding cf_encoding_resolve(cf_type t, cf_encoding requested);
/* NULL when no implementation exists for the pair (writers: GROUP_VARINT never). */
const cf_encoder_ops *cf_encoder_lookup(cf_type t, cf_encoding e);
const cf_decoder_ops *cf_decoder_lookup(cf_type t, cf_encoding e);

/* Convenience for fuzzers and tests: create + load in one call. */
cf_status cf_decoder_open(cf_decoder **out, cf_encoding e, const cf_dec_params *p,
                          const uint8_t *data, size_t len, cf_error *err);
static inline void cf_decoder_free(cf_decoder *d)
{
    if (d)
        d->ops->free(d);
}
static inline void cf_encoder_free(cf_encoder *e)
{
    if (e)
        e->ops->free(e);
}

/* Three-way comparison of two values in memory form, in the type's key order.
 * Defined for every type with a key encoder (not BOOL, FLOAT, DOUBLE). */
int cf_value_compare(cf_type t, const void *a, const void *b);

#endif
