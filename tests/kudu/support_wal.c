/* cf-needs: tables */
#include "support_wal.h"

#include "vprint.h"

void wal_write_op(cf_jw *w, const cf_schema *s, const cf_kudu_row_op *op)
{
    cf_jw_obj_begin(w);
    cf_jw_key(w, "op");
    cf_jw_cstr(w, cf_kudu_row_op_name(op->type));
    cf_jw_key(w, "row");
    cf_jw_obj_begin(w);
    for (size_t k = 0; k < op->ncols; k++) {
        if (!op->set[k])
            continue;
        const cf_column *c = cf_schema_column_at(s, k);
        cf_jw_key(w, c->name);
        if (op->values[k] == NULL)
            cf_jw_null(w);
        else
            cf_cli_value_write(w, c->type, op->values[k]);
    }
    cf_jw_obj_end(w);
    cf_jw_obj_end(w);
}
