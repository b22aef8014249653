/* Commands of the "parse" group: filled in by the module that owns them. */
#include "cli/cli.h"

#include <stddef.h>

const struct cli_command cli_parse_commands[] = {
	{NULL, NULL, NULL, NULL},
};
