/* The (encoding, type) pairs fuzz_pq_values picks from with its first option
 * byte, in that order. gen_corpus.c writes one seed per pair from the same
 * table, so the seeds and the selector cannot drift apart. Needs
 * "parquet/encoding.h" first. */
#ifndef CF_FUZZ_PQ_VALUE_PAIRS_H
#define CF_FUZZ_PQ_VALUE_PAIRS_H

typedef struct fuzz_pq_value_pair {
    unsigned enc, type;
} fuzz_pq_value_pair;

static const fuzz_pq_value_pair fuzz_pq_value_pairs[] = {
    {CF_PQE_PLAIN, CF_PQT_BOOLEAN},
    {CF_PQE_PLAIN, CF_PQT_INT32},
    {CF_PQE_PLAIN, CF_PQT_INT64},
    {CF_PQE_PLAIN, CF_PQT_INT96},
    {CF_PQE_PLAIN, CF_PQT_FLOAT},
    {CF_PQE_PLAIN, CF_PQT_DOUBLE},
    {CF_PQE_PLAIN, CF_PQT_BYTE_ARRAY},
    {CF_PQE_PLAIN, CF_PQT_FIXED_LEN_BYTE_ARRAY},
    {CF_PQE_RLE, CF_PQT_BOOLEAN},
    {CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT32},
    {CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT64},
    {CF_PQE_DELTA_LENGTH_BYTE_ARRAY, CF_PQT_BYTE_ARRAY},
    {CF_PQE_DELTA_BYTE_ARRAY, CF_PQT_BYTE_ARRAY},
    {CF_PQE_DELTA_BYTE_ARRAY, CF_PQT_FIXED_LEN_BYTE_ARRAY},
    {CF_PQE_BYTE_STREAM_SPLIT, CF_PQT_FLOAT},
    {CF_PQE_BYTE_STREAM_SPLIT, CF_PQT_DOUBLE},
    {CF_PQE_BYTE_STREAM_SPLIT, CF_PQT_INT32},
    {CF_PQE_BYTE_STREAM_SPLIT, CF_PQT_INT64},
    {CF_PQE_BYTE_STREAM_SPLIT, CF_PQT_FIXED_LEN_BYTE_ARRAY},
};
#define FUZZ_PQ_VALUE_PAIR_COUNT (sizeof fuzz_pq_value_pairs / sizeof fuzz_pq_value_pairs[0])

#endif
