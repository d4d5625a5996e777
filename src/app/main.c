// SPDX-License-Identifier: GPL-2.0-only
/* threadtop's entry point: parse options, pick the front end, run. */
#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "app.h"
#include "cli.h"
#include "log.h"
#include "run_cmd.h"
#ifdef TT_HAVE_UI
#include "tui.h"
#endif

int main(int argc, char **argv)
{
	struct options o;
	struct run_child child = {0, -1};
	int r = cli_parse(argc, argv, &o, stdout, stderr);

	if (r < 0)
		return 2;
	if (r == CLI_EXIT_OK)
		return 0;
	if (o.run_argv) {
#ifdef TT_HAVE_UI
		bool tui = !o.batch;
#else
		bool tui = false;
#endif
		if (run_cmd__spawn(&o, tui, &child) < 0)
			return 1;
	}
#ifdef TT_HAVE_UI
	if (!o.batch) {
		setlocale(LC_ALL, "");
		return app_run(&o, &tui_frontend, &child);
	}
#else
	if (!o.batch)
		log_msg("built without the interactive view: showing batch output (use -b)");
#endif
	return app_run(&o, &batch_frontend, &child);
}
