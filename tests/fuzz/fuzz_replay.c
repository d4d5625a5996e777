// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzes the whole replay path with arbitrary recordings: threadtop itself
 * (app_run, as `threadtop -r FILE -b`) reads the file, feeds the model, the
 * recorded names and the capture, prints every interval as text and as
 * JSON, and writes every export format at the end. Nothing may crash, leak,
 * abort or grow past the dictionary budget (libFuzzer's -rss_limit_mb).
 * Seeds: corpus/replay/ (small recordings, one with hostile names).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "child_creds.h"
#include "cli.h"
#include "log.h"
#include "run_cmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], ttr[96];

static const char *const exports[] = {"x.folded", "x.pb.gz", "x.speedscope.json", "x.json",
				      "x.svg"};

/* At exit: the recording and the exports, then the directory. */
static void cleanup(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
}

static void setup(void)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	struct child_creds creds;
	char why[256];

	/*
	 * A replay run as root becomes nobody before it reads the file (app_replay.c)
	 * and cannot come back: become it first, so every run starts as the user it
	 * ends as and can write the next input.
	 */
	if (child_creds_resolve(&creds, false, why, sizeof(why)) < 0 ||
	    child_creds_apply(&creds) < 0)
		abort();
	snprintf(dir, sizeof(dir), "/tmp/fuzz_replay.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(ttr, sizeof(ttr), "%s/in.ttr", dir);
	atexit(cleanup);
	/* The batch output goes to stdout: to /dev/null, it is rendered all the same. */
	if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
		abort();
	close(null);
}

static void replay(const char *format, bool export)
{
	char paths[5][128];
	char *argv[32] = {"threadtop", "-r", ttr, "-b", "--format", (char *)format, "--force"};
	int argc = 7;
	struct options o;
	struct run_child child = {0, -1};

	for (size_t i = 0; export && i < sizeof(exports) / sizeof(exports[0]); i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir, exports[i]);
		unlink(paths[i]);
		argv[argc++] = "--export";
		argv[argc++] = paths[i];
	}
	optind = 0; /* getopt again from the start */
	if (cli_parse(argc, argv, &o, stdout, stdout) != 0)
		abort();       /* the options are ours: they parse */
	log_set_stderr(false); /* its one-line messages: not a finding */
	app_run(&o, &batch_frontend, &child);
	log_close();
	fflush(stdout);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f;

	if (size > (1u << 20))
		return 0;
	if (!dir[0])
		setup();
	f = fopen(ttr, "we");
	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	replay("text", true);
	replay("json", false);
	return 0;
}
