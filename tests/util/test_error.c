/* cf_error: setting, NULL records, prefixing and its truncation, the macros. */
#include "test_common.h"

#include <stdio.h>
#include <string.h>

#include "util/error.h"

static void test_error__set_fills_record(void **state)
{
    cf_error err;
    memset(&err, 0x55, sizeof err);
    int line = __LINE__ + 1;
    cf_status st =
        cf_error_set(&err, CF_ECORRUPT, __FILE__, line, "block %d at offset %u", 7, 81920u);
    assert_int_equal(st, CF_ECORRUPT);
    assert_int_equal(err.code, CF_ECORRUPT);
    assert_string_equal(err.msg, "block 7 at offset 81920");
    char where[64];
    snprintf(where, sizeof where, "test_error.c:%d", line); /* base name only */
    assert_string_equal(err.where, where);
}

static void test_error__null_record(void **state)
{
    assert_int_equal(cf_error_set(NULL, CF_EIO, __FILE__, __LINE__, "x %d", 1), CF_EIO);
    assert_int_equal(cf_error_prefix(NULL, CF_EIO, "ctx: "), CF_EIO);
}

static void test_error__long_message_truncated(void **state)
{
    cf_error err;
    char big[1000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    cf_error_set(&err, CF_EINVAL, "x.c", 1, "%s", big);
    assert_int_equal(strlen(err.msg), sizeof err.msg - 1);
}

static void test_error__prefix(void **state)
{
    cf_error err;
    cf_error_set(&err, CF_ECORRUPT, "x.c", 1, "bad restart count");
    assert_int_equal(cf_error_prefix(&err, CF_ECORRUPT, "block %d: ", 3), CF_ECORRUPT);
    assert_string_equal(err.msg, "block 3: bad restart count");
    cf_error_prefix(&err, CF_ECORRUPT, "file %s: ", "a.cfile");
    assert_string_equal(err.msg, "file a.cfile: block 3: bad restart count");
    assert_int_equal(err.code, CF_ECORRUPT);
    assert_string_equal(err.where, "x.c:1"); /* the origin is kept */
}

static void test_error__prefix_ok_is_noop(void **state)
{
    cf_error err;
    cf_error_set(&err, CF_EIO, "x.c", 1, "old");
    assert_int_equal(cf_error_prefix(&err, CF_OK, "ctx: "), CF_OK);
    assert_string_equal(err.msg, "old");
}

static void test_error__prefix_truncates_message_tail(void **state)
{
    cf_error err;
    char big[300];
    memset(big, 'm', sizeof err.msg - 1);
    big[sizeof err.msg - 1] = '\0';
    cf_error_set(&err, CF_EIO, "x.c", 1, "%s", big);
    cf_error_prefix(&err, CF_EIO, "ctx: ");
    assert_int_equal(strlen(err.msg), sizeof err.msg - 1);
    assert_memory_equal(err.msg, "ctx: mmm", 8);
    assert_int_equal(err.msg[sizeof err.msg - 2], 'm');
}

static void test_error__prefix_longer_than_its_buffer(void **state)
{
    cf_error err;
    cf_error_set(&err, CF_EIO, "x.c", 1, "tail");
    char pre[400];
    memset(pre, 'p', sizeof pre - 1);
    pre[sizeof pre - 1] = '\0';
    cf_error_prefix(&err, CF_EIO, "%s", pre);
    size_t len = strlen(err.msg);
    assert_true(len < sizeof err.msg);
    /* The prefix is cut, the message survives after it. */
    assert_int_equal(err.msg[0], 'p');
    assert_string_equal(err.msg + len - 4, "tail");
}

static cf_status check_helper(int x, cf_error *err)
{
    CF_CHECK(x > 0, err, CF_EINVAL, "x must be positive, got %d", x);
    return CF_OK;
}

static cf_status try_helper(int x, cf_error *err)
{
    CF_TRY(check_helper(x, err));
    return CF_ENOTFOUND; /* reached only when the check passed */
}

static void test_error__macros(void **state)
{
    cf_error err;
    assert_int_equal(try_helper(1, &err), CF_ENOTFOUND);
    assert_int_equal(try_helper(-2, &err), CF_EINVAL);
    assert_string_equal(err.msg, "x must be positive, got -2");
    assert_int_equal(try_helper(-2, NULL), CF_EINVAL);
}

static void test_error__status_names(void **state)
{
    assert_string_equal(cf_status_str(CF_OK), "ok");
    assert_string_equal(cf_status_str(CF_ECORRUPT), "corruption");
    for (int s = CF_OK; s <= CF_EBUSY; s++) {
        const char *n = cf_status_str((cf_status)s);
        assert_non_null(n);
        assert_string_not_equal(n, "unknown status");
    }
    assert_string_equal(cf_status_str((cf_status)99), "unknown status");
    /* The codes are pinned forever. */
    assert_int_equal(CF_EINVAL, 1);
    assert_int_equal(CF_ESTATE, 2);
    assert_int_equal(CF_ECORRUPT, 3);
    assert_int_equal(CF_ENOTSUP, 4);
    assert_int_equal(CF_EIO, 5);
    assert_int_equal(CF_ENOMEM, 6);
    assert_int_equal(CF_ENOTFOUND, 7);
    assert_int_equal(CF_EBUFSIZE, 8);
    assert_int_equal(CF_EBUSY, 9);
}

/* cf_sticky: the first failure wins; replays carry its status, message and origin. */
static void test_error__sticky(void **state)
{
    cf_sticky s = {0};
    cf_error err, first;
    assert_false(cf_sticky_failed(&s));
    memset(&err, 0x55, sizeof err);
    assert_int_equal(cf_sticky_replay(&s, "w", &err), CF_OK);
    assert_int_equal(err.msg[0], 0x55); /* untouched while nothing failed */
    assert_int_equal(cf_sticky_set(&s, CF_OK, NULL), CF_OK);
    assert_false(cf_sticky_failed(&s));

    cf_error_set(&first, CF_ECORRUPT, "x.c", 7, "block 3: bad crc");
    assert_int_equal(cf_sticky_set(&s, CF_ECORRUPT, &first), CF_ECORRUPT);
    assert_true(cf_sticky_failed(&s));
    /* a later failure does not replace the first */
    cf_error second;
    cf_error_set(&second, CF_EIO, "y.c", 9, "disk gone");
    assert_int_equal(cf_sticky_set(&s, CF_EIO, &second), CF_EIO);

    assert_int_equal(cf_sticky_replay(&s, "cfile writer", &err), CF_ECORRUPT);
    assert_int_equal(err.code, CF_ECORRUPT);
    assert_string_equal(err.msg, "cfile writer: an earlier call failed: block 3: bad crc");
    assert_string_equal(err.where, "x.c:7");
    CF_ASSERT_REPLAYED(cf_sticky_replay(&s, "cfile writer", &err), CF_ECORRUPT, &err,
                       "cfile writer", &first);
    assert_int_equal(cf_sticky_replay(&s, "w", NULL), CF_ECORRUPT);
    /* the first failure as it was */
    assert_int_equal(cf_sticky_first(&s, &err), CF_ECORRUPT);
    assert_string_equal(err.msg, "block 3: bad crc");
    assert_int_equal(cf_sticky_first(&s, NULL), CF_ECORRUPT);
}

static void test_error__sticky_without_message(void **state)
{
    cf_sticky s = {0};
    cf_error err;
    assert_int_equal(cf_sticky_set(&s, CF_ENOMEM, NULL), CF_ENOMEM);
    assert_int_equal(cf_sticky_replay(&s, "bloom writer", &err), CF_ENOMEM);
    assert_string_equal(err.msg, "bloom writer: an earlier call failed (out of memory)");
    /* a record the callee never filled (no terminator) is cut, not overrun */
    cf_sticky t = {0};
    cf_error junk;
    memset(&junk, 'j', sizeof junk);
    assert_int_equal(cf_sticky_set(&t, CF_EIO, &junk), CF_EIO);
    assert_int_equal(cf_sticky_replay(&t, "w", &err), CF_EIO);
    assert_int_equal(strlen(err.msg), sizeof err.msg - 1);
    assert_memory_equal(err.msg, "w: an earlier call failed: jjj", 30);
}

/* A long first message is cut at the record's end, its beginning kept. */
static void test_error__sticky_long_message(void **state)
{
    cf_sticky s = {0};
    cf_error first, err;
    char big[300];
    memset(big, 'm', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    cf_error_set(&first, CF_EINVAL, "x.c", 1, "%s", big);
    cf_sticky_set(&s, CF_EINVAL, &first);
    CF_ASSERT_REPLAYED(cf_sticky_replay(&s, "rowset writer", &err), CF_EINVAL, &err,
                       "rowset writer", &first);
    assert_int_equal(strlen(err.msg), sizeof err.msg - 1);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error__set_fills_record),
        cmocka_unit_test(test_error__null_record),
        cmocka_unit_test(test_error__long_message_truncated),
        cmocka_unit_test(test_error__prefix),
        cmocka_unit_test(test_error__prefix_ok_is_noop),
        cmocka_unit_test(test_error__prefix_truncates_message_tail),
        cmocka_unit_test(test_error__prefix_longer_than_its_buffer),
        cmocka_unit_test(test_error__macros),
        cmocka_unit_test(test_error__status_names),
        cmocka_unit_test(test_error__sticky),
        cmocka_unit_test(test_error__sticky_without_message),
        cmocka_unit_test(test_error__sticky_long_message),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
