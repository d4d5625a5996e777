// SPDX-License-Identifier: GPL-2.0-only
/*
 * Command capture (see cmdcap.h). A run ends when its child is reaped and
 * its pipe reached end of file; a 50 ms timer, armed only while something
 * runs, reaps children and enforces the timeout with SIGKILL to the run's
 * process group (so "sh -c 'sleep 100'" takes the sleep with it).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dict_budget.h"
#include "cmdcap.h"
#include "util.h"

#define POLL_NS (50 * 1000000ull)
#define EOF_GRACE_NS NSEC_PER_SEC /* after a kill, how long the pipe may stay open */

struct run {
	pid_t pid;
	int fd; /* read end of the output pipe, -1 at end of file */
	char *buf;
	size_t len;
	bool truncated;
	bool reaped;
	int status;
	bool timed_out;
	uint64_t start_mono, start_real, end_mono;
	size_t expect;	/* a replayed run: bytes of output its pieces add up to */
	size_t charged; /* a replayed run: bytes taken from the budget (all of expect) */
	bool dropped;	/* a replayed run whose output did not fit the budget */
};

struct command {
	struct cmdcap *owner;
	const char *cmd;
	char *text; /* a replayed command's text (cmd points here) */
	bool running;
	struct run run;
	/* The latest finished run. */
	bool done;
	struct run last;
	uint64_t runs, skipped;
};

struct cmdcap {
	struct cmdcap_opts opts;
	struct loop *loop;
	int timer_id;
	bool timer_armed;
	struct command cmds[CMDCAP_MAX];
	struct dict_budget *budget; /* a replay's, not owned; or NULL */
};

static void arm(struct cmdcap *c, bool on)
{
	if (c->timer_armed == on)
		return;
	loop__set_timer(c->loop, c->timer_id, on ? POLL_NS : 0, on ? POLL_NS : 0);
	c->timer_armed = on;
}

bool cmdcap__busy(const struct cmdcap *c)
{
	for (size_t i = 0; i < c->opts.nr; i++)
		if (c->cmds[i].running)
			return true;
	return false;
}

static void close_pipe(struct command *cmd)
{
	if (cmd->run.fd < 0)
		return;
	loop__remove_fd(cmd->owner->loop, cmd->run.fd);
	close(cmd->run.fd);
	cmd->run.fd = -1;
}

/* The run is over when the child is reaped and its output fully read. */
static void maybe_finish(struct command *cmd)
{
	if (!cmd->running || !cmd->run.reaped || cmd->run.fd >= 0)
		return;
	free(cmd->last.buf);
	cmd->last = cmd->run;
	memset(&cmd->run, 0, sizeof(cmd->run));
	cmd->run.fd = -1;
	cmd->running = false;
	cmd->done = true;
	cmd->runs++;
	if (!cmdcap__busy(cmd->owner))
		arm(cmd->owner, false);
}

static void try_reap(struct command *cmd)
{
	if (cmd->run.reaped)
		return;
	if (waitpid(cmd->run.pid, &cmd->run.status, WNOHANG) == cmd->run.pid) {
		cmd->run.reaped = true;
		cmd->run.end_mono = monotonic_ns();
	}
}

static int on_output(void *ctx, int fd, uint32_t events)
{
	struct command *cmd = ctx;
	size_t cap = cmd->owner->opts.max_output;
	char chunk[4096];

	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0) {
			close_pipe(cmd); /* end of file (or an error: the same for us) */
			try_reap(cmd);
			maybe_finish(cmd);
			return 0;
		}
		if (cmd->run.len < cap) {
			size_t take =
				(size_t)n < cap - cmd->run.len ? (size_t)n : cap - cmd->run.len;

			memcpy(cmd->run.buf + cmd->run.len, chunk, take);
			cmd->run.len += take;
			if (take < (size_t)n)
				cmd->run.truncated = true;
		} else {
			cmd->run.truncated = true; /* read and dropped: the child must not block */
		}
	}
}

static int on_timer(void *ctx, uint64_t now, uint64_t expirations)
{
	struct cmdcap *c = ctx;

	for (size_t i = 0; i < c->opts.nr; i++) {
		struct command *cmd = &c->cmds[i];

		if (!cmd->running)
			continue;
		try_reap(cmd);
		if (!cmd->run.timed_out && now - cmd->run.start_mono >= c->opts.timeout_ns) {
			kill(-cmd->run.pid, SIGKILL);
			cmd->run.timed_out = true;
		}
		/* A killed run whose pipe a stray process still holds: stop waiting for it. */
		if (cmd->run.timed_out && cmd->run.reaped &&
		    now - cmd->run.start_mono >= c->opts.timeout_ns + EOF_GRACE_NS)
			close_pipe(cmd);
		maybe_finish(cmd);
	}
	return 0;
}

struct cmdcap *cmdcap__new(const struct cmdcap_opts *opts, struct loop *loop)
{
	struct cmdcap *c;
	int id;

	if (opts->nr > CMDCAP_MAX || !opts->max_output || !opts->timeout_ns) {
		errno = EINVAL;
		return NULL;
	}
	c = xcalloc(1, sizeof(*c));
	c->opts = *opts;
	if (!c->opts.shell)
		c->opts.shell = "/bin/sh";
	c->loop = loop;
	id = loop__add_timer(loop, 0, 0, on_timer, c); /* disarmed until a run starts */
	if (id < 0) {
		free(c);
		errno = -id;
		return NULL;
	}
	c->timer_id = id;
	for (size_t i = 0; i < opts->nr; i++) {
		c->cmds[i].owner = c;
		c->cmds[i].cmd = opts->cmds[i];
		c->cmds[i].run.fd = -1;
		c->cmds[i].last.fd = -1;
	}
	return c;
}

/* In the child: a clean signal state, output to the pipe, no privileges, then the shell. */
static void exec_child(const struct cmdcap *c, const char *command, int wfd)
{
	static const char denied[] = "threadtop: cannot drop privileges for this command; "
				     "not run (see --log)\n";
	sigset_t none;
	int null_fd;

	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL); /* the loop blocks SIGINT, SIGTERM, ... */
	signal(SIGPIPE, SIG_DFL);	       /* threadtop ignores it; ignoring survives exec */
	null_fd = open("/dev/null", O_RDONLY);
	if (null_fd >= 0)
		dup2(null_fd, 0);
	dup2(wfd, 1);
	dup2(wfd, 2);
	if (child_creds_apply(&c->opts.creds) < 0) {
		/* Never run a command with more than it was promised. */
		if (write(1, denied, sizeof(denied) - 1) < 0) {
			/* nobody reads it: the exit code still says so */
		}
		_exit(126);
	}
	execl(c->opts.shell, "sh", "-c", command, (char *)NULL);
	_exit(127);
}

static int start(struct cmdcap *c, struct command *cmd)
{
	int fds[2], err;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(fds[0]);
		close(fds[1]);
		return err;
	}
	if (pid == 0)
		exec_child(c, cmd->cmd, fds[1]);
	setpgid(pid, pid); /* also in the child: whichever runs first */
	close(fds[1]);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	memset(&cmd->run, 0, sizeof(cmd->run));
	cmd->run.pid = pid;
	cmd->run.fd = fds[0];
	cmd->run.buf = xmalloc(c->opts.max_output);
	cmd->run.start_mono = monotonic_ns();
	cmd->run.start_real = realtime_ns();
	cmd->running = true;
	err = loop__add_fd(c->loop, fds[0], on_output, cmd);
	if (err < 0) {
		/* Without a watch nobody would drain the pipe: give up on this run. */
		kill(-pid, SIGKILL);
		waitpid(pid, &cmd->run.status, 0);
		close(fds[0]);
		free(cmd->run.buf);
		memset(&cmd->run, 0, sizeof(cmd->run));
		cmd->run.fd = -1;
		cmd->running = false;
		return err;
	}
	arm(c, true);
	return 0;
}

int cmdcap__run_all(struct cmdcap *c)
{
	int started = 0;

	if (!c->loop)
		return 0; /* replayed: nothing runs */
	for (size_t i = 0; i < c->opts.nr; i++) {
		struct command *cmd = &c->cmds[i];
		int err;

		if (cmd->running) {
			cmd->skipped++;
			continue;
		}
		err = start(c, cmd);
		if (err < 0)
			return err;
		started++;
	}
	return started;
}

void cmdcap__free(struct cmdcap *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->opts.nr; i++) {
		struct command *cmd = &c->cmds[i];

		if (cmd->running) {
			kill(-cmd->run.pid, SIGKILL);
			if (!cmd->run.reaped)
				waitpid(cmd->run.pid, NULL, 0); /* SIGKILL: immediate */
			close_pipe(cmd);
			free(cmd->run.buf);
		}
		if (cmd->last.charged)
			dict_budget__give(c->budget, 0, cmd->last.charged);
		free(cmd->last.buf);
		free(cmd->text);
	}
	if (c->timer_armed)
		arm(c, false);
	free(c);
}

size_t cmdcap__count(const struct cmdcap *c)
{
	return c->opts.nr;
}

void cmdcap__result(const struct cmdcap *c, size_t i, struct cmd_result *ret)
{
	const struct command *cmd = &c->cmds[i];
	const struct run *r = &cmd->last;

	*ret = (struct cmd_result){.cmd = cmd->cmd,
				   .done = cmd->done,
				   .running = cmd->running,
				   .runs = cmd->runs,
				   .skipped = cmd->skipped};
	if (!cmd->done)
		return;
	ret->exit_code = WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
	ret->signal = WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0;
	ret->timed_out = r->timed_out;
	ret->truncated = r->truncated;
	ret->started_ns = r->start_real;
	ret->duration_ns = r->end_mono > r->start_mono ? r->end_mono - r->start_mono : 0;
	ret->output = r->buf;
	ret->output_len = r->len;
}

void cmdcap__set_budget(struct cmdcap *c, struct dict_budget *b)
{
	c->budget = b;
}

struct cmdcap *cmdcap__new_offline(void)
{
	struct cmdcap *c = xcalloc(1, sizeof(*c));

	c->timer_id = -1;
	c->opts.max_output = TT_CMD_OUTPUT_MAX;
	for (size_t i = 0; i < CMDCAP_MAX; i++) {
		c->cmds[i].owner = c;
		c->cmds[i].cmd = ""; /* a command whose first run is not replayed yet */
		c->cmds[i].run.fd = -1;
		c->cmds[i].last.fd = -1;
	}
	return c;
}

int cmdcap__replay(struct cmdcap *c, const struct tt_cmd_output *rec)
{
	struct command *cmd;
	struct run *r;

	if (c->loop || rec->index >= CMDCAP_MAX)
		return -EINVAL;
	cmd = &c->cmds[rec->index];
	r = &cmd->last;
	if (rec->offset == 0) {
		if (r->charged)
			dict_budget__give(c->budget, 0, r->charged);
		free(r->buf);
		memset(r, 0, sizeof(*r));
		r->fd = -1;
		free(cmd->text);
		cmd->text = xstrndup(rec->data, rec->cmd_len);
		cmd->cmd = cmd->text;
		/* The wait status the run had, for cmdcap__result. */
		r->status = rec->signal ? rec->signal : (rec->exit_code & 0xff) << 8;
		r->reaped = true;
		r->timed_out = rec->flags & TT_CMD_TIMED_OUT;
		r->truncated = rec->flags & TT_CMD_TRUNCATED;
		r->start_real = rec->started_ns;
		r->end_mono = rec->duration_ns;
		r->expect = rec->output_len;
		cmd->runs = rec->runs;
		cmd->skipped = rec->skipped;
		cmd->done = true;
		if (rec->index >= c->opts.nr)
			c->opts.nr = rec->index + 1u;
		/* The whole output at once: a run is kept whole or without output. */
		if (r->expect && !dict_budget__take(c->budget, 0, r->expect)) {
			r->dropped = r->truncated = true;
			return 0;
		}
		r->charged = r->expect;
	} else if (cmd->done && r->dropped) {
		return 0;
	} else if (!cmd->done || rec->offset != r->len) {
		return -EINVAL;
	}
	if (rec->piece_len > r->expect - r->len)
		return -EINVAL;
	r->buf = xrealloc(r->buf, r->len + rec->piece_len + 1);
	memcpy(r->buf + r->len, rec->data + rec->cmd_len, rec->piece_len);
	r->len += rec->piece_len;
	return 0;
}
