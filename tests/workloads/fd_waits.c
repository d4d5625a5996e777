// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload of known fd targets (issue #30): thread "fifo_reader" blocks in
 * read on the named FIFO argv[1] (created here, any name: escapes and
 * newlines too), thread "pipe_reader" in read on an anonymous pipe, and
 * threads "recv_server" and "recv_client" in recv on the two ends of a
 * loopback TCP connection. Prints "port P" (the server's), "client C" (the
 * client's local port), "pipe INO" and "ready", then sleeps argv[2]
 * seconds (default 60). On SIGUSR1 the FIFO's reader leaves its read for
 * one on an eventfd: its target changes while it sleeps on.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

struct waiter {
	const char *name;
	int fd;
	int use_recv;
	int next_fd; /* read on SIGUSR2 (EINTR), -1 = none */
};

static volatile sig_atomic_t moved;

static void on_usr2(int sig)
{
	(void)sig;
	moved = 1;
}

static void *wait_on(void *arg)
{
	struct waiter *w = arg;
	char buf[8]; /* an eventfd reads 8 bytes at once */

	prctl(PR_SET_NAME, w->name);
	for (;;) {
		ssize_t n = w->use_recv ? recv(w->fd, buf, sizeof(buf), 0)
					: read(w->fd, buf, sizeof(buf));

		if (n < 0 && moved && w->next_fd >= 0) {
			w->fd = w->next_fd; /* nothing is ever written to it */
			w->next_fd = -1;
			continue;
		}
		if (n <= 0)
			return NULL;
	}
}

static pthread_t start(struct waiter *w)
{
	pthread_t t;

	if (pthread_create(&t, NULL, wait_on, w))
		exit(1);
	return t;
}

int main(int argc, char **argv)
{
	static struct waiter fifo = {"fifo_reader", -1, 0, -1}, pipe_r = {"pipe_reader", -1, 0, -1},
			     srv = {"recv_server", -1, 1, -1}, cli = {"recv_client", -1, 1, -1};
	struct sigaction sa = {.sa_handler = on_usr2}; /* no SA_RESTART: the read ends */
	sigset_t usr1;
	pthread_t reader;
	int sig;
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int secs = argc > 2 ? atoi(argv[2]) : 60, lfd, fds[2];
	struct stat st;

	if (argc < 2 || (mkfifo(argv[1], 0600) && access(argv[1], F_OK)))
		return 2;
	/* O_RDWR: the open does not wait for a writer, and the read waits for data. */
	fifo.fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fifo.fd < 0 || pipe(fds) || fstat(fds[0], &st))
		return 1;
	pipe_r.fd = fds[0];
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&a, &len))
		return 1;
	cli.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (cli.fd < 0 || connect(cli.fd, (struct sockaddr *)&a, sizeof(a)))
		return 1;
	srv.fd = accept(lfd, NULL, NULL);
	printf("port %u\n", ntohs(a.sin_port));
	len = sizeof(a);
	if (srv.fd < 0 || getsockname(cli.fd, (struct sockaddr *)&a, &len))
		return 1;
	printf("client %u\n", ntohs(a.sin_port));
	printf("pipe %llu\n", (unsigned long long)st.st_ino);
	fifo.next_fd = eventfd(0, EFD_CLOEXEC);
	/* SIGUSR1 waits for sigwait below; the reader is the one thread that takes SIGUSR2. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	if (fifo.next_fd < 0 || sigaction(SIGUSR2, &sa, NULL))
		return 1;
	reader = start(&fifo);
	start(&pipe_r);
	start(&srv);
	start(&cli);
	printf("ready\n");
	fflush(stdout);
	alarm((unsigned)secs);
	while (!sigwait(&usr1, &sig)) {
		pthread_kill(reader, SIGUSR2);
		printf("moved\n");
		fflush(stdout);
	}
	return 0;
}
