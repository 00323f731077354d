/* cf-needs: hfile */
#include "support_hfile.h"

#include "test_common.h"

bool hfile_next(cf_hfile_iter *it, cf_hfile_cell *c)
{
    cf_error err = {0};
    bool has;
    CF_ASSERT_OK(cf_hfile_iter_next(it, c, &has, &err), &err);
    return has;
}
