// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload for the call tree by function (issue #25): one process, two
 * threads, each burning CPU in its own hot function reached through the
 * same caller: "tf-alpha" in alpha_spin(), "tf-beta" in beta_spin(), both
 * under spin_loop(). Each hot loop spans several addresses, so a tree that
 * merges by address shows a function many times; by function, once. Runs
 * argv[1] seconds (default 60) or until killed.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

static volatile int stop;

__attribute__((noinline)) static unsigned long alpha_spin(unsigned long n)
{
	for (unsigned long i = 0; i < 2000000; i++) {
		n = n * 6364136223846793005ul + 1442695040888963407ul;
		if (n & 1)
			n ^= i << 3;
	}
	return n;
}

__attribute__((noinline)) static unsigned long beta_spin(unsigned long n)
{
	for (unsigned long i = 0; i < 2000000; i++) {
		n = n * 2862933555777941757ul + 3037000493ul;
		if (n & 2)
			n += i >> 2;
	}
	return n;
}

__attribute__((noinline)) static unsigned long spin_loop(int which)
{
	unsigned long n = (unsigned long)which;

	while (!stop)
		n = which ? beta_spin(n) : alpha_spin(n);
	return n;
}

static void *thread_main(void *arg)
{
	int which = (int)(long)arg;

	prctl(PR_SET_NAME, which ? "tf-beta" : "tf-alpha");
	return (void *)spin_loop(which);
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 60;
	pthread_t th[2];

	for (long i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, thread_main, (void *)i);
	sleep((unsigned)(seconds > 0 ? seconds : 60));
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	return 0;
}
