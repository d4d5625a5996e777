// SPDX-License-Identifier: GPL-2.0-only
/*
 * long_names: CPU burnt under functions whose names are too long for an
 * 80-column terminal, below a recursion deep enough that the Stacks pane
 * must hide outer levels: main -> tt_outer_function_of_the_long_names_workload
 * -> tt_recursive_descent_helper (x DEPTH) -> the leaf named below (spins).
 * The TUI tests (tui_fit80.sh) look for these names whole or elided with
 * the marker, never cut. Runs for SECONDS (default 60).
 */
#include <stdlib.h>
#include <time.h>

#define DEPTH 24

static double deadline;
static volatile unsigned long sink;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void
tt_leaf_function_whose_name_is_far_too_long_for_an_eighty_column_terminal(void)
{
	for (unsigned long i = 0; i < 1000000; i++)
		sink += i;
}

/* The volatile read after each call keeps the calls from becoming jumps. */
__attribute__((noinline)) static void tt_recursive_descent_helper(int depth)
{
	if (depth)
		tt_recursive_descent_helper(depth - 1);
	else
		tt_leaf_function_whose_name_is_far_too_long_for_an_eighty_column_terminal();
	sink += (unsigned long)depth;
}

__attribute__((noinline)) static void tt_outer_function_of_the_long_names_workload(void)
{
	while (now_s() < deadline)
		tt_recursive_descent_helper(DEPTH);
	sink++;
}

int main(int argc, char **argv)
{
	deadline = now_s() + (argc > 1 ? atof(argv[1]) : 60);
	tt_outer_function_of_the_long_names_workload();
	return 0;
}
