/* cfile bloom: write a BloomFile from a list of keys, and probe one (format §11). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/bloom.h>

#include "cli.h"
#include "values.h"

const char cf_cmd_bloom_usage[] =
    "usage: cfile bloom write [--bytes N] [--fp-rate R] [--hex] [--json] KEYS.txt OUT\n"
    "       cfile bloom probe [--json] [--hex] FILE --key KEY [--key KEY]...\n"
    "       cfile bloom probe [--json] [--hex] FILE --key KEY [--key KEY]...\n"
    "       cfile bloom probe [--json] [--hex] FILE KEY...\n"
    "\n"
    "write: build a BloomFile as Kudu's BloomFileWriter does, from KEYS.txt (one key\n"
    "per line, in sorted byte order; every line is a key, the final newline ends the\n"
    "last one; '-' reads standard input). Bloom blocks hold N bytes of bitmap (default 4096) sized "
    "for a\n"
    "false-positive rate R (default Kudu's 0.0001f = 9.999999747378752e-05).\n"
    "probe: say for each KEY whether it may be present (true) or is definitely\n"
    "absent (false).\n"
    "\n"
    "  --bytes N     bitmap bytes per bloom block (write)\n"
    "  --fp-rate R   target false-positive rate, 0 < R < 1 (write)\n"
    "  --key KEY     (probe) a key to probe, repeatable; or the keys after FILE\n"
    "                (one spelling or the other, as `cfile table get`)\n"
    "  --key KEY     (probe) a key to probe, repeatable; or the keys after FILE\n"
    "                (one spelling or the other, as `cfile table get`)\n"
    "  --hex         keys (lines of KEYS.txt, KEY arguments, --key) are hex-encoded bytes\n"
    "  --json        write: {\"status\", \"num_keys\", \"bytes_per_bloom\", \"fp_rate\",\n"
    "                \"written_size\", \"num_blocks\", \"n_hashes\", \"expected_count\"};\n"
    "                probe: [{\"key\", \"maybe_present\"}, ...] with keys as given\n"
    "  --help        this text\n"
    "\n"
    "Exit status: 0 ok (whatever the answers), 1 bad input or damaged file (probe:\n"
    "also a FILE that is not a BloomFile, which has no answers to give), 2 usage.\n";

static int bloom_write(cf_cli *c, const char *keys_path, const char *out_path,
                       const cf_bloom_writer_options *o, bool hex, bool json)
{
    size_t len;
    char *input;
    int rc0 = cf_cli_read_input(c, keys_path, &input, &len);
    if (rc0 != 0)
        return rc0;
    uint8_t *text = (uint8_t *)input;
    cf_error err = {0};
    cf_bloom_writer *w = NULL;
    int rc = CF_EXIT_OK;
    cf_status st = cf_bloom_writer_create_file(&w, out_path, o, &err);
    if (st != CF_OK) {
        rc = cf_cli_lib_fail(c, out_path, st, &err);
        goto out;
    }
    size_t start = 0, line = 1;
    while (start < len) {
        uint8_t *nl = memchr(text + start, '\n', len - start);
        size_t end = nl != NULL ? (size_t)(nl - text) : len;
        cf_slice key = {text + start, end - start};
        if (hex) {
            long n = cf_cli_hex_decode(text + start, (const char *)text + start, end - start) == 0
                         ? (long)((end - start) / 2)
                         : -1;
            if (n < 0) {
                rc = cf_cli_fail(c, "%s:%zu: not a hex key", keys_path, line);
                goto out;
            }
            key.len = (size_t)n;
        }
        st = cf_bloom_writer_add(w, key, &err);
        if (st != CF_OK) {
            size_t wn = strlen(keys_path) + 24; /* ":" and a line number */
            char *what = malloc(wn);
            if (what != NULL)
                snprintf(what, wn, "%s:%zu", keys_path, line);
            rc = cf_cli_lib_fail(c, what != NULL ? what : keys_path, st, &err);
            free(what);
            goto out;
        }
        start = end + 1;
        line++;
    }
    st = cf_bloom_writer_finish(w, &err);
    if (st != CF_OK) {
        rc = cf_cli_lib_fail(c, out_path, st, &err);
        goto out;
    }
    const cf_bloom_sizing *sz = cf_bloom_writer_sizing(w);
    if (json) {
        cf_jw j;
        cf_jw_init(&j, c->out);
        cf_jw_obj_begin(&j);
        cf_jw_kv_cstr(&j, "status", "OK");
        cf_jw_kv_uint(&j, "num_keys", cf_bloom_writer_num_keys(w));
        cf_jw_kv_uint(&j, "bytes_per_bloom", sz->n_bytes);
        cf_jw_key(&j, "fp_rate");
        char num[CF_CLI_NUM_CAP];
        bool is_string;
        cf_cli_format_double(num, o->fp_rate, &is_string); /* a number: 0 < fp_rate < 1 */
        cf_jw_raw(&j, num);
        cf_jw_kv_uint(&j, "written_size", cf_bloom_writer_written_size(w));
        cf_jw_kv_uint(&j, "num_blocks", cf_bloom_writer_num_blocks(w));
        cf_jw_kv_uint(&j, "n_hashes", sz->n_hashes);
        cf_jw_kv_uint(&j, "expected_count", sz->expected_count);
        cf_jw_obj_end(&j);
        cf_jw_newline(&j);
    } else {
        fprintf(c->out,
                "wrote %s: %" PRIu64 " keys in %" PRIu64 " bloom blocks of %zu bytes "
                "(%zu keys each, %" PRIu32 " hash functions), %" PRIu64 " bytes\n",
                out_path, cf_bloom_writer_num_keys(w), cf_bloom_writer_num_blocks(w), sz->n_bytes,
                sz->expected_count, sz->n_hashes, cf_bloom_writer_written_size(w));
    }
out:
    cf_bloom_writer_free(w);
    free(text);
    return rc;
}

static int bloom_probe(cf_cli *c, const char *path, char **keys, int nkeys, bool hex, bool json)
{
    cf_error err = {0};
    cf_bloom_reader *r = NULL;
    cf_status st = cf_bloom_reader_open_file(&r, path, true, NULL, &err);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, path, st, &err);
    int rc = CF_EXIT_OK;
    bool *ans = calloc((size_t)nkeys, sizeof *ans);
    uint8_t *buf = NULL;
    if (ans == NULL) {
        rc = cf_cli_fail(c, "out of memory");
        goto out;
    }
    /* Probe everything first, so an error prints no partial answer. */
    for (int i = 0; i < nkeys; i++) {
        cf_slice key = {(const uint8_t *)keys[i], strlen(keys[i])};
        if (hex) {
            free(buf);
            buf = malloc(key.len / 2 + 1);
            long n = buf != NULL && cf_cli_hex_decode(buf, keys[i], key.len) == 0
                         ? (long)(key.len / 2)
                         : -1;
            if (n < 0) {
                rc = buf == NULL ? cf_cli_fail(c, "out of memory")
                                 : cf_cli_usage(c, "not a hex key: %s", keys[i]);
                goto out;
            }
            key = (cf_slice){buf, (size_t)n};
        }
        st = cf_bloom_reader_may_contain(r, key, &ans[i], &err);
        if (st != CF_OK) {
            rc = cf_cli_lib_fail(c, path, st, &err);
            goto out;
        }
    }
    if (json) {
        cf_jw j;
        cf_jw_init(&j, c->out);
        cf_jw_arr_begin(&j);
        for (int i = 0; i < nkeys; i++) {
            cf_jw_obj_begin(&j);
            cf_jw_key(&j, "key");
            cf_jw_str(&j, keys[i], strlen(keys[i]));
            cf_jw_kv_bool(&j, "maybe_present", ans[i]);
            cf_jw_obj_end(&j);
        }
        cf_jw_arr_end(&j);
        cf_jw_newline(&j);
    } else {
        for (int i = 0; i < nkeys; i++)
            fprintf(c->out, "%s\t%s\n", keys[i], ans[i] ? "maybe present" : "absent");
    }
out:
    free(buf);
    free(ans);
    cf_bloom_reader_free(r);
    return rc;
}

int cf_cmd_bloom(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"bytes", required_argument, NULL, 'b'},
        {"fp-rate", required_argument, NULL, 'f'},
        {"hex", no_argument, NULL, 'x'},
        {"json", no_argument, NULL, 'j'},
        {"key", required_argument, NULL, 'k'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
        return cf_cli_help(c);
    if (argc < 2)
        return cf_cli_usage(c, "expected `write` or `probe`");
    const char *sub = argv[1];
    bool is_write = strcmp(sub, "write") == 0;
    if (!is_write && strcmp(sub, "probe") != 0)
        return cf_cli_usage(c, "unknown bloom command '%s' (expected write or probe)", sub);
    argc--;
    argv++;
    cf_bloom_writer_options o;
    cf_bloom_writer_options_init(&o);
    bool hex = false, json = false, have_bytes = false, have_fp = false;
    /* --key KEY takes two arguments, so argc slots always suffice. */
    char **keys = calloc((size_t)argc, sizeof(char *));
    if (!keys)
        return cf_cli_fail(c, "bloom: out of memory");
    int nkeys = 0, rc = -1, ch;
    while (rc < 0 && (ch = getopt_long(argc, argv, "b:f:xjh", opts, NULL)) != -1) {
        switch (ch) {
        case 'b': {
            uint64_t v;
            if (cf_cli_parse_u64(optarg, &v) != 0 || v == 0 || v > CF_BLOOM_MAX_BLOCK_BYTES) {
                rc = cf_cli_usage(c, "--bytes: not a block size in 1..%u: %s",
                                  CF_BLOOM_MAX_BLOCK_BYTES, optarg);
                break;
            }
            o.bytes_per_block = (size_t)v;
            have_bytes = true;
            break;
        }
        case 'f': {
            char *end;
            errno = 0;
            double v = strtod(optarg, &end);
            if (*optarg == '\0' || *end != '\0' || errno != 0 || !(v > 0.0 && v < 1.0)) {
                rc = cf_cli_usage(c, "--fp-rate: not a rate in (0, 1): %s", optarg);
                break;
            }
            o.fp_rate = v;
            have_fp = true;
            break;
        }
        case 'x': hex = true; break;
        case 'j': json = true; break;
        case 'k': keys[nkeys++] = optarg; break;
        case 'h': rc = cf_cli_help(c); break;
        default: rc = cf_cli_bad_option(c, argv); break;
        }
    }
    if (rc >= 0) {
        /* an option was refused (or --help) */
    } else if (is_write) {
        if (nkeys > 0)
            rc = cf_cli_usage(c, "bloom write: --key is for probe (write reads KEYS.txt)");
        else if (argc - optind != 2)
            rc = cf_cli_usage(c, "bloom write: expected KEYS.txt and OUT");
        else
            rc = bloom_write(c, argv[optind], argv[optind + 1], &o, hex, json);
    } else if (have_bytes || have_fp) {
        rc = cf_cli_usage(c, "bloom probe: --bytes and --fp-rate are for write");
    } else if (nkeys > 0) {
        if (argc - optind != 1)
            rc = cf_cli_usage(c, "bloom probe: give the keys with --key or after FILE, not both");
        else
            rc = bloom_probe(c, argv[optind], keys, nkeys, hex, json);
    } else if (argc - optind < 2) {
        rc = cf_cli_usage(c, "bloom probe: expected FILE and at least one KEY (or --key KEY)");
    } else {
        rc = bloom_probe(c, argv[optind], argv + optind + 1, argc - optind - 1, hex, json);
    }
    free(keys);
    return rc;
}
