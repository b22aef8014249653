#include "ui/ui.h"

int ui_run(struct app *app, struct crate_err *err)
{
	(void)app;
	return crate_err_set(err, CRATE_ERR_INVALID, "the terminal interface is not built yet");
}
