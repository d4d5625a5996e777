// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload for the export tests: names itself argv[2] (any bytes, e.g.
 * markup and a terminal escape, cut to 15 by the kernel) and spins in
 * tt_export_hot_fn(), a function with a known name, for argv[1] seconds.
 */
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

unsigned long tt_export_hot_fn(unsigned long n);

__attribute__((noipa)) unsigned long tt_export_hot_fn(unsigned long n)
{
	/* GCC -O2 sets up no frame in a leaf that needs no stack, whatever the
	 * frame-pointer flags; asking for the frame address makes it keep one,
	 * so a frame-pointer walk finds main above us. */
	volatile void *frame = __builtin_frame_address(0);

	(void)frame;
	for (unsigned long i = 0; i < 1000000; i++)
		n = n * 6364136223846793005ul + 1442695040888963407ul;
	return n;
}

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 30);
	volatile unsigned long sink = 1;

	if (argc > 2)
		prctl(PR_SET_NAME, argv[2]);
	while (time(NULL) < end)
		sink = tt_export_hot_fn(sink);
	return 0;
}
