// SPDX-License-Identifier: GPL-2.0-only
/*
 * Starting the parts of a run (see app_internal.h): checks -p, starts the
 * live source (BPF, else /proc), the USE sampler, --trace/--cmd capture and
 * the recording (-w), the --serve server, then drops the capabilities the loop no longer needs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include "capture.h"
#include "child_creds.h"
#include "recorded_names.h"
#include "log.h"
#include "privileges.h"
#include "record.h"
#include "run_cmd.h"
#include "serve.h"
#include "source_bpf.h"
#include "source_proc.h"
#include "use_sampler.h"
#include "util.h"

#include "app_internal.h"

int app_check_pids(const struct options *o)
{
	int root = open(o->proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (root < 0) {
		log_msg("cannot open %s: %s", o->proc_root, strerror(errno));
		return -errno;
	}
	for (size_t i = 0; i < o->nr_pids; i++) {
		char name[16];

		snprintf(name, sizeof(name), "%d", o->pids[i]);
		if (faccessat(root, name, F_OK, 0) < 0) {
			log_msg("-p %d: no such process (it may have exited; check with ps -p %d)",
				o->pids[i], o->pids[i]);
			close(root);
			return -ESRCH;
		}
	}
	close(root);
	return 0;
}

static void warn_line(const char *msg)
{
	log_msg("%s", msg);
}

int app_start_source(struct app *app)
{
	const struct options *o = app->o;
	struct event_sink sink = {app_emit, app};
	char err[512] = "";

	if (o->source != SOURCE_PROC) {
		struct bpf_source_opts bo = {
			.pids = o->nr_pids ? o->pids : NULL,
			.nr_pids = o->nr_pids,
			.hz = app->hz,
			.self_pid = getpid(),
			.cpu_hz = o->cpu_hz,
			.unwind = o->unwind,
			.stack_bytes = o->stack_bytes,
			.unwind_budget_pct = o->unwind_budget_pct,
			.syscalls = o->syscalls,
			.offcpu = o->offcpu,
			.io = o->io,
			/* Timing each run costs more than a tracer's run itself. */
			.bpf_stats = o->bpf_stats < 0 ? !o->syscalls && !o->offcpu && !o->io
						      : o->bpf_stats,
			/* A recording must replay from any point: no repeats in it. */
			.full_samples = o->write_path != NULL,
			/* The TUI shows the thread sampler's rows first; batch output
			 * waits for every program, so its first interval has them all. */
			.defer_optional = app->fe->progress != NULL,
			.labels = o->labels.nr_defs ? &o->labels : NULL,
			.warn = warn_line,
			.maps = app->maps,
		};
		const char *why;

		app_progress(app, "loading BPF programs (the kernel verifies them: seconds on a "
				  "loaded box)...");
		app->source = bpf_source__new(&bo, sink, err, sizeof(err));
		if (app->source)
			return 0;
		/* libbpf's own words (the verifier log) go to the log file only. */
		why = bpf_source__libbpf_log();
		if (*why && log_file_text(why) == 0)
			snprintf(err + strlen(err), sizeof(err) - strlen(err),
				 " (libbpf and verifier log in %s)", o->log_path);
		else if (*why)
			snprintf(err + strlen(err), sizeof(err) - strlen(err),
				 " (rerun with --log FILE to keep the verifier log)");
		if (o->source == SOURCE_BPF) {
			log_msg("%s", err);
			return -ENOTSUP;
		}
		log_msg("%s; falling back to /proc", err);
	}
	if (o->syscalls || o->offcpu || o->io)
		log_msg("--syscalls, --offcpu and --io need the BPF source: not traced");
	if (o->labels.nr_defs)
		log_msg("--label needs the BPF source (uprobes): no labels in this run");
	app_progress(app, "starting the /proc thread sampler...");
	struct proc_source_opts po = {
		.proc_root = o->proc_root,
		.pids = o->nr_pids ? o->pids : NULL,
		.nr_pids = o->nr_pids,
		.hz = app->hz,
		.self_pid = getpid(),
		.budget_pct = o->proc_budget_pct,
		.full_samples = o->write_path != NULL,
		.warn = warn_line,
	};
	app->source = proc_source__new(&po, sink, err, sizeof(err));
	if (!app->source) {
		log_msg("%s", err);
		return -errno;
	}
	if (geteuid() != 0)
		log_msg("not root: /proc shows syscalls and wait channels only for your own processes; "
			"run as root to see all");
	return 0;
}

/* USE metrics are optional: without them the thread views still work. */
void app_start_use(struct app *app)
{
	struct use_sampler_opts uo = {app->o->proc_root, app->o->sys_root};
	struct event_sink sink = {app_emit, app};

	app->use = use_sampler__new(&uo, sink, monotonic_ns());
	if (!app->use)
		log_msg("USE metrics off: cannot read %s/stat or %s/meminfo: %s", uo.proc_root,
			uo.proc_root, strerror(errno));
}

/* --trace and --cmd: only live, while threadtop still holds its privileges. */
int app_start_capture(struct app *app)
{
	const struct options *o = app->o;
	struct tracer_opts to = {o->traces, o->nr_traces, app->trace_lines, NULL};
	struct cmdcap_opts co = {o->cmds,
				 o->nr_cmds,
				 (uint64_t)(o->cmd_timeout_s * (double)NSEC_PER_SEC),
				 (size_t)o->cmd_max_output,
				 NULL,
				 {0}};
	char err[512], note[256];

	if (o->nr_cmds) {
		if (child_creds_resolve(&co.creds, o->cmd_as_root, err, sizeof(err)) < 0) {
			log_msg("--cmd: %s", err);
			return -1;
		}
		if (co.creds.as_root)
			log_info("--cmd: commands run as %s with threadtop's capabilities "
				 "(--cmd-as-root)",
				 co.creds.user);
		else
			log_info("--cmd: commands run as %s (uid %u, gid %u) with no capabilities",
				 co.creds.user, (unsigned)co.creds.uid, (unsigned)co.creds.gid);
	}
	app->capture = capture__new(&to, &co, app->loop, err, sizeof(err), note, sizeof(note));
	if (!app->capture) {
		log_msg("%s", err);
		return -1;
	}
	capture__set_budget(app->capture, app->budget);
	if (note[0])
		log_msg("%s", note);
	return 0;
}

/* The kept set, in as many log lines as it takes (cut after a reason's ")"). */
static void log_kept(const char *desc)
{
	const size_t room = LOG_LINE - 64;
	size_t len = strlen(desc);

	if (!len) {
		log_info("capabilities: kept none; dropped all others");
		return;
	}
	while (len > room) {
		size_t cut = room;

		while (cut > 1 && desc[cut - 1] != ')')
			cut--;
		if (cut <= 1)
			cut = room;
		log_info("capabilities: kept %.*s", (int)cut, desc);
		desc += cut;
		len -= cut;
		while (*desc == ',' || *desc == ' ')
			desc++, len--;
	}
	log_info("capabilities: kept %s; dropped all others", desc);
}

/*
 * Everything that needs privilege (loading BPF, attaching, opening files
 * and tracefs) is done by now: keep only what the running loop still uses.
 */
void app_drop_privileges(struct app *app)
{
	static const struct capability_need bpf_needs[] = {
		{.cap = CAP_BPF, .why = "drain BPF maps, run the thread sampler each tick"},
		{.cap = CAP_PERFMON, .why = "BPF tracing, uprobes on processes that start later"},
	};
	static const struct capability_need proc_needs[] = {
		{.cap = CAP_SYS_PTRACE, .why = "read syscall, maps and stacks of every process"},
		{.cap = CAP_DAC_READ_SEARCH,
		 .why = "read every user's /proc files and binaries for symbols"},
		{.cap = CAP_SYSLOG, .why = "kernel addresses in /proc/kallsyms"},
		{.cap = CAP_CHECKPOINT_RESTORE,
		 .why = "open deleted binaries via /proc/PID/map_files for symbols"},
	};
	static const struct capability_need cmd_needs[] = {
		{.cap = CAP_SETUID,
		 .why = "start each --cmd run as the sudo user or nobody",
		 .dormant = true},
		{.cap = CAP_SETGID,
		 .why = "give each --cmd run that user's groups",
		 .dormant = true},
		{.cap = CAP_SETPCAP, .why = "empty each --cmd run's bounding set", .dormant = true},
	};
	const struct options *o = app->o;
	/* Children that run as another user (child_creds.h), unless --cmd-as-root. */
	bool user_cmds = o->nr_cmds && !o->cmd_as_root && geteuid() == 0;
	bool user_child = app->child->pid > 0 && !o->cmd_as_root && geteuid() == 0;
	struct capability_need keep[16];
	size_t n = 0;
	char desc[1024];
	int err;

	if (app->replay)
		return; /* nothing was kept before the file was read (drop_for_replay) */
	if (!strcmp(app_source_name(app), "bpf"))
		for (size_t i = 0; i < ARRAY_SIZE(bpf_needs); i++)
			keep[n++] = bpf_needs[i];
	for (size_t i = 0; i < ARRAY_SIZE(proc_needs); i++)
		keep[n++] = proc_needs[i];
	if (user_cmds)
		for (size_t i = 0; i < ARRAY_SIZE(cmd_needs); i++)
			keep[n++] = cmd_needs[i];
	if (user_cmds || user_child)
		keep[n++] = (struct capability_need){
			.cap = CAP_KILL,
			.why = "stop commands run as another user (--cmd-timeout, threadtop run)"};
	err = privileges_drop(keep, n, desc, sizeof(desc));
	if (err < 0)
		log_msg("cannot drop capabilities: %s; going on with them", strerror(-err));
	else
		log_kept(desc);
}

int app_start_recording(struct app *app)
{
	char err[320] = "", pids[MAX_PIDS * 12] = "", extra[48];
	size_t n = 0;
	struct recorder_opts ro = {
		.path = app->o->write_path,
		.force = app->o->force,
		.max_size = app->o->max_size,
		.source = app_source_name(app),
		.hz = app->hz,
		.interval_s = app->delay_s,
	};

	for (size_t i = 0; i < app->o->nr_pids && n < sizeof(pids); i++)
		n += (size_t)snprintf(pids + n, sizeof(pids) - n, "%s%d", i ? "," : "",
				      app->o->pids[i]);
	ro.pids = app->o->nr_pids ? pids : NULL;
	/* A replay keeps as many trace lines as this run did. */
	snprintf(extra, sizeof(extra), "trace_lines=%zu\n", app->trace_lines);
	ro.extra_info = extra;
	app->rec = recorder__new(&ro, err, sizeof(err));
	if (app->rec && !app->names) {
		app->names = recorded_names__new();
		recorded_names__set_budget(app->names, app->budget);
	}
	if (!app->rec) {
		log_msg("%s", err);
		return -errno;
	}
	return 0;
}

static struct model *serve_model(void *ctx)
{
	return app_model(ctx);
}

/* What --export would use at this moment: the profiles served match its files. */
static void serve_export_opts(void *ctx, struct export_opts *ret)
{
	struct app *app = ctx;

	*ret = (struct export_opts){
		.by = (enum export_by)app->o->export_by,
		.by_label = app->o->export_by_label,
		.window = WIN_SESSION,
		.namer = model__exact_namer(app->model),
		.source = app_source_name(app),
		.hz = app->hz,
		.cpu_hz = app->o->cpu_hz,
		.tracer = capture__tracer(app->capture),
		.cmds = capture__cmds(app->capture),
	};
}

static uint64_t serve_interval_time(void *ctx)
{
	return app_interval_realtime_ns(ctx);
}

int app_start_serve(struct app *app)
{
	const struct options *o = app->o;
	struct serve_opts so = {
		.addr = o->serve_addr,
		.token_path = o->serve_token,
		.top = o->serve_top,
		.max_seconds = o->retain_s > 0 ? o->retain_s : 60,
		.offcpu = o->offcpu,
		.io = o->io,
		.cpu_hz = app->replay || o->source != SOURCE_PROC ? o->cpu_hz : 0,
	};
	struct serve_host h = {serve_model, serve_export_opts, serve_interval_time, app};
	char err[512];

	app->serve = serve__new(app->loop, &so, &h, err, sizeof(err));
	if (!app->serve) {
		log_msg("%s", err);
		return -errno;
	}
	log_msg("serving http://%s/metrics, /debug/pprof/ and /api/v1/snapshot%s",
		serve__address(app->serve),
		serve__loopback(app->serve) ? ""
		: o->serve_token	    ? " on a non-loopback address (bearer token required)"
				 : " on a non-loopback address WITHOUT a token: anyone who "
				   "reaches it reads this host's profile (see --serve-token)");
	return 0;
}

/*
 * How the sampler keeps its schedule on a saturated box (issue #21). With
 * every CPU saturated by normal-priority busy threads, a sampler at normal
 * priority waits behind them: measured with 16 spinners on 2 CPUs, 3-15% of
 * the 20 Hz ticks were missed; at SCHED_RR priority 1 none were
 * (assets/benchmarks.md). So a live run samples the way 0x.tools advises to
 * run xcapture (chrt -r 1): at the lowest real-time priority, below any
 * real-time task of the box, in the one loop thread (a thread of its own
 * would buy nothing more while the loop's work between ticks, rendering
 * included, is short: what is not, as opening a file's DWARF, runs on a
 * worker at normal priority, src/lib/bg_jobs.h). SCHED_RESET_ON_FORK: no child (--cmd,
 * threadtop run) inherits it. The cost is bounded by RLIMIT_RTTIME: past
 * RT_BUDGET_US of CPU without blocking, SIGXCPU puts threadtop back to
 * normal priority for the rest of the run (and the log says so), so a
 * pass that grew too long cannot hold a CPU from the box's own work.
 */
#define RT_BUDGET_US 500000

static volatile sig_atomic_t rt_demoted;

static void on_xcpu(int signo)
{
	struct sched_param normal = {0};

	(void)signo;
	sched_setscheduler(0, SCHED_OTHER, &normal); /* a plain syscall: async-signal-safe */
	rt_demoted = 1;
}

void app_start_rt(struct app *app)
{
	struct sched_param rt = {.sched_priority = 1};
	struct sigaction sa = {.sa_handler = on_xcpu};
	struct rlimit lim;

	if (app->replay || !app->o->sched_rr)
		return;
	if (getrlimit(RLIMIT_RTTIME, &lim) == 0) {
		lim.rlim_cur = lim.rlim_max < RT_BUDGET_US ? lim.rlim_max : RT_BUDGET_US;
		setrlimit(RLIMIT_RTTIME, &lim);
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGXCPU, &sa, NULL);
	if (sched_setscheduler(0, SCHED_RR | SCHED_RESET_ON_FORK, &rt) < 0) {
		log_info("--sched rr: cannot run at real-time priority: %s; sampling at normal "
			 "priority (ticks may be missed on a saturated box; --sched normal says so "
			 "quietly)",
			 strerror(errno));
		return;
	}
	app->rt = true;
}

void app_check_rt(struct app *app)
{
	if (!app->rt || !rt_demoted)
		return;
	app->rt = false;
	log_msg("--sched rr: threadtop ran %d ms without a pause at real-time priority; back to "
		"normal priority for the rest of the run (ticks may be missed on a saturated box)",
		RT_BUDGET_US / 1000);
}

void app_stop_rt(struct app *app)
{
	struct sched_param normal = {0};

	if (!app->rt)
		return;
	/* The work after the loop (exports, symbols) is no sampling: it waits its turn. */
	sched_setscheduler(0, SCHED_OTHER, &normal);
	app->rt = false;
}
