/* View 5: the file system from the library's roots (pane_files.c). */
#ifndef CRATE_UI_PANE_FILES_H
#define CRATE_UI_PANE_FILES_H

#include "ui/pane.h"

extern const struct ui_pane ui_pane_files;

#endif
