// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload: the parent blocks in vfork (uninterruptible, D) while the child
 * sleeps argv[1] seconds (default 30) before it exits. The child only makes
 * raw syscalls, as a vfork child must.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec ts = {argc > 1 ? atoi(argv[1]) : 30, 0};
	pid_t child = vfork();

	if (child == 0) {
		syscall(SYS_nanosleep, &ts, NULL);
		syscall(SYS_exit, 0);
	}
	if (child > 0)
		waitpid(child, NULL, 0);
	return child < 0;
}
