// SPDX-License-Identifier: GPL-2.0-only
/* threadtop's entry point: parse options, pick the front end, run. */
#include <stdio.h>
#include <unistd.h>

#include "threadtop/app.h"
#include "threadtop/cli.h"
#include "threadtop/log.h"

int main(int argc, char **argv)
{
	struct options o;
	int r = cli_parse(argc, argv, &o, stdout, stderr);

	if (r < 0)
		return 2;
	if (r == CLI_EXIT_OK)
		return 0;
	if (!o.batch)
		log_msg("the interactive view is not built yet: showing batch output (use -b)");
	return app_run(&o, &batch_frontend);
}
