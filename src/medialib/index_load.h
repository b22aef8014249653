/* Building the in-memory index from the database (start-up, after scans). */
#ifndef CRATE_MEDIALIB_INDEX_LOAD_H
#define CRATE_MEDIALIB_INDEX_LOAD_H

#include "base/err.h"
#include "medialib/db.h"
#include "medialib/index.h"

/* Every present (not missing) media row with its properties: url, the
 * common tags, stream properties, statistics, and every free-form or
 * further tag value. *out is owned by the caller (mlib_index_free) and is
 * finished (mlib_index_finish). */
int mlib_index_load(struct mlib_db *db, struct mlib_index **out, struct crate_err *err);

#endif
