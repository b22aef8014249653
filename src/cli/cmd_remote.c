/* Commands of the "remote" group: filled in by the module that owns them. */
#include "cli/cli.h"

#include <stddef.h>

const struct cli_command cli_remote_commands[] = {
	{NULL, NULL, NULL, NULL},
};
