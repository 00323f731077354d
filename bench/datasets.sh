# bench/datasets.sh - sourced by bench/run_bench.sh and bench/ab/scan_ab.sh: the
# data sets `cfile bench write --dataset` makes, in report order (SETS), and the
# encodings Kudu allows for each one's type (ENCS).
# shellcheck shell=bash disable=SC2034
declare -A ENCS=(
    [int32_random]="PLAIN_ENCODING BIT_SHUFFLE RLE"
    [int64_sorted]="PLAIN_ENCODING BIT_SHUFFLE RLE"
    [int32_small]="PLAIN_ENCODING BIT_SHUFFLE RLE"
    [int32_runs]="PLAIN_ENCODING BIT_SHUFFLE RLE"
    [double_walk]="PLAIN_ENCODING BIT_SHUFFLE"
    [string_zipf]="PLAIN_ENCODING PREFIX_ENCODING DICT_ENCODING"
    [string_keys]="PLAIN_ENCODING PREFIX_ENCODING DICT_ENCODING"
    [bool_runs]="PLAIN_ENCODING RLE"
    [int64_nullable]="PLAIN_ENCODING BIT_SHUFFLE RLE"
)
SETS="int32_random int64_sorted int32_small int32_runs double_walk string_zipf string_keys bool_runs int64_nullable"
