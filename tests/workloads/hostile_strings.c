// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload with hostile strings: its comm holds an escape sequence and an
 * invalid UTF-8 byte, or is argv[3] when given (e.g. a U+202E override); its
 * command line is whatever the test passes (e.g. 4 KiB of text with
 * escapes). It sleeps for argv[1] seconds.
 */
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	prctl(PR_SET_NAME, argc > 3 ? argv[3] : "\x1b[31mEVIL\xff\x07");
	sleep(argc > 1 ? (unsigned)atoi(argv[1]) : 30);
	return 0;
}
