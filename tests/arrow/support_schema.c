/* The Arrow tests' schema check (support_schema.h). */
#include "support_schema.h"

#include <stdarg.h>
#include <string.h>

#include "test_common.h"

void stream_schema_is(struct ArrowArrayStream *s, struct ArrowSchema *sc, ...)
{
    assert_int_equal(s->get_schema(s, sc), 0);
    assert_string_equal(sc->format, "+s");
    va_list ap;
    va_start(ap, sc);
    int64_t i = 0;
    const char *name;
    for (; (name = va_arg(ap, const char *)) != NULL; i++) {
        const char *format = va_arg(ap, const char *);
        if (i >= sc->n_children)
            fail_msg("the schema has %lld columns; column %lld (%s) missing",
                     (long long)sc->n_children, (long long)i, name);
        assert_string_equal(sc->children[i]->name, name);
        assert_string_equal(sc->children[i]->format, format);
    }
    va_end(ap);
    assert_int_equal(sc->n_children, i);
}
