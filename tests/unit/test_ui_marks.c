/* ui/marks.c: the set of marked rows behind Space, m and M. */
#include <stdlib.h>

#include "harness.h"
#include "ui/marks.h"

TEST(marks_toggle_set_count_and_list)
{
	struct ui_marks m = {0};
	CHECK(!marks_has(&m, 0));
	CHECK(marks_toggle(&m, 5));
	CHECK(marks_toggle(&m, 70000)); /* grows past the first words */
	marks_set(&m, 2, true);
	marks_set(&m, 2, true); /* twice: counted once */
	CHECK_INT(m.n, 3);
	CHECK(!marks_toggle(&m, 5));
	CHECK_INT(m.n, 2);
	size_t *v, n = marks_list(&m, SIZE_MAX, &v);
	CHECK_INT(n, 2);
	CHECK_INT(v[0], 2);
	CHECK_INT(v[1], 70000);
	free(v);
	/* a limit (the list's length) leaves out marks past it */
	n = marks_list(&m, 100, &v);
	CHECK_INT(n, 1);
	free(v);
	marks_clear(&m);
	CHECK_INT(m.n, 0);
	CHECK(!marks_has(&m, 2));
	n = marks_list(&m, SIZE_MAX, &v);
	CHECK_INT(n, 0);
	free(v);
}
