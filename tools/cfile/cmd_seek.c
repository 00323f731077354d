/* cfile seek: position an iterator through an index and read from there. */
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "values.h"

const char cf_cmd_seek_usage[] =
    "usage: cfile seek [--json] FILE (--ordinal N | --value V) [--count K]\n"
    "\n"
    "Seek through the positional index to row N, or through the value index to the\n"
    "first row whose value is >= V, then read K rows (default 1) from there.\n"
    "V is a value form of the column's type (see `cfile dump --help`); for STRING and\n"
    "VARCHAR columns text that is not a JSON string is taken as is, for BINARY as hex.\n"
    "\n"
    "With --json the result is one object: {\"op\": \"seek_to_ordinal\" or\n"
    "\"seek_at_or_after\", \"target\", \"status\": \"OK\", \"ordinal\", \"exact\" (value\n"
    "seeks), \"values\": [...]}, or {\"op\", \"target\", \"status\": \"Not found\",\n"
    "\"message\"} when the row or value lies past the end.\n"
    "\n"
    "A row or value past the end is \"not found\": exit 1, and without --json the\n"
    "message `cfile seek: FILE: not found: ...` on standard error, as `cfile dump\n"
    "--from` says it. Reading K rows stops quietly at the last row.\n"
    "\n"
    "Exit status: 0 found, 1 not found (the JSON is printed all the same) or error,\n"
    "2 usage, 3 not supported.\n"
    "\n"
    "  --json        one compact JSON document (a line; see above)\n"
    "  --ordinal N   seek to row N\n"
    "  --value V     seek to the first value >= V (needs a value index)\n"
    "  --count K     rows to read after the seek (default 1)\n"
    "  --help        this text\n";

int cf_cmd_seek(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},        {"ordinal", required_argument, NULL, 'o'},
        {"value", required_argument, NULL, 'v'}, {"count", required_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
    };
    bool json = false;
    const char *ord_arg = NULL, *val_arg = NULL;
    uint64_t ord = 0, count = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "jo:v:n:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'j': json = true; break;
        case 'o':
            ord_arg = optarg;
            if (cf_cli_parse_u64(optarg, &ord) != 0)
                return cf_cli_usage(c, "--ordinal: not a row number: %s", optarg);
            break;
        case 'v': val_arg = optarg; break;
        case 'n':
            if (cf_cli_parse_u64(optarg, &count) != 0)
                return cf_cli_usage(c, "--count: not a count: %s", optarg);
            break;
        case 'h': return cf_cli_help(c);
        default: return cf_cli_bad_option(c, argv);
        }
    }
    if (argc - optind != 1)
        return cf_cli_usage(c, "expected one FILE");
    if ((ord_arg == NULL) == (val_arg == NULL))
        return cf_cli_usage(c, "give exactly one of --ordinal and --value");
    const char *path = argv[optind];

    cf_error err = {0};
    cf_reader *r = NULL;
    cf_iter *it = NULL;
    cf_cli_arena arena;
    cf_cli_arena_init(&arena);
    int rc = CF_EXIT_OK;
    _Alignas(16) uint8_t key[32];
    cf_status st = cf_cli_open(&r, path, &err);
    if (st != CF_OK) {
        rc = cf_cli_lib_fail(c, path, st, &err);
        goto out;
    }
    const cf_file_info *in = cf_reader_info(r);
    if (val_arg != NULL) {
        char msg[256];
        if (in->is_array) {
            rc = cf_cli_usage(c, "--value: array columns have no value index");
            goto out;
        }
        if (cf_cli_value_parse_arg(val_arg, in->type, key, &arena, msg, sizeof(msg)) != 0) {
            rc = cf_cli_usage(c, "--value: %s", msg);
            goto out;
        }
    }
    st = cf_iter_create(&it, r, &err);
    if (st != CF_OK) {
        rc = cf_cli_lib_fail(c, path, st, &err);
        goto out;
    }
    bool exact = false;
    if (val_arg != NULL)
        st = cf_iter_seek_at_or_after(it, key, &exact, &err);
    else
        st = cf_iter_seek_to_ordinal(it, ord, &err);
    if (st != CF_OK && st != CF_ENOTFOUND) {
        rc = cf_cli_lib_fail(c, path, st, &err);
        goto out;
    }

    cf_jw w;
    cf_jw_init(&w, c->out);
    if (json) {
        cf_jw_obj_begin(&w);
        cf_jw_kv_cstr(&w, "op", val_arg ? "seek_at_or_after" : "seek_to_ordinal");
        cf_jw_key(&w, "target");
        if (val_arg)
            cf_cli_value_write(&w, in->type, key);
        else
            cf_jw_uint(&w, ord);
    }
    if (st == CF_ENOTFOUND) {
        const char *m = err.msg[0] ? err.msg : "not found";
        if (json) {
            cf_jw_kv_cstr(&w, "status", "Not found");
            cf_jw_key(&w, "message");
            char full[300];
            snprintf(full, sizeof(full), "Not found: %s", m);
            cf_jw_cstr(&w, full);
            cf_jw_obj_end(&w);
            cf_jw_newline(&w);
            rc = CF_EXIT_FAIL;
        } else {
            rc = cf_cli_not_found(c, path, m); /* as `dump --from` past the end */
        }
        goto out;
    }
    uint64_t landed = cf_iter_current_ordinal(it);
    if (json) {
        cf_jw_kv_cstr(&w, "status", "OK");
        cf_jw_kv_uint(&w, "ordinal", landed);
        if (val_arg)
            cf_jw_kv_bool(&w, "exact", exact);
        cf_jw_kv_arr_begin(&w, "values");
    } else {
        fprintf(c->out, "ordinal %" PRIu64 "%s\n", landed,
                val_arg ? (exact ? " (exact match)" : " (first value after the target)") : "");
    }
    uint64_t left = count;
    while (left > 0) {
        cf_batch b;
        st = cf_iter_next_batch(it, left < CF_CLI_BATCH ? (size_t)left : CF_CLI_BATCH, &b, &err);
        if (st != CF_OK) {
            if (json)
                fputc('\n', c->out);
            rc = cf_cli_lib_fail(c, path, st, &err);
            goto out;
        }
        if (b.count == 0)
            break;
        for (size_t i = 0; i < b.count; i++) {
            if (!json) {
                fprintf(c->out, "%" PRIu64 ": ", b.first_ord + i);
                cf_jw_init(&w, c->out);
            }
            cf_cli_row_write(&w, in->type, in->is_array, &b, i);
            if (!json)
                fputc('\n', c->out);
        }
        left -= b.count;
    }
    if (json) {
        cf_jw_arr_end(&w);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    }
out:
    cf_iter_free(it);
    cf_reader_free(r);
    cf_cli_arena_dispose(&arena);
    return rc;
}
