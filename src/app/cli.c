// SPDX-License-Identifier: GPL-2.0-only
/* Command-line parsing (see cli.h). Bounds every number a user gives. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dict_budget.h"
#include "source_defaults.h"
#include "threadtop/events.h"
#include "trace.h"
#include "export.h"
#include "replay_range.h"
#include "serve.h"

void cli_usage(FILE *f)
{
	fprintf(f,
		"Usage: threadtop [OPTIONS]\n"
		"       threadtop run [OPTIONS] -- COMMAND [ARGS...]\n"
		"Live per-thread profiler: thread states, syscalls, stacks, USE metrics.\n"
		"\n"
		"  -b, --batch            batch mode: print each interval to stdout (like top -b)\n"
		"  -d, --delay SECONDS    interval between outputs (default 1, 0.1 to 3600)\n"
		"  -n, --iterations N     stop after N intervals (default: until SIGINT/SIGTERM)\n"
		"      --format text|json batch output: a table, or one JSON object per line\n"
		"  -p, --pid PID[,PID...] only these processes (all their threads)\n"
		"  -F, --freq HZ          thread sampling rate (default %u, 1 to 1000)\n"
		"      --source auto|bpf|proc\n"
		"                         where samples come from (default auto: BPF, else /proc)\n"
		"  -w, --write FILE       record the session to FILE (.ttr) while running\n"
		"  -r, --read FILE        replay a recording instead of sampling this host\n"
		"      --max-size SIZE    stop recording at SIZE bytes (suffix K, M or G)\n"
		"      --cpu-hz HZ        on-CPU stack sampling rate per CPU (BPF; default %u, 0 = off)\n"
		"      --unwind MODE      user stacks: auto (DWARF where frame pointers fail; default),\n"
		"                         fp (frame pointers only) or dwarf (every sample, BPF)\n"
		"      --stack-bytes N    user stack copied per sample for DWARF unwinding\n"
		"                         (default %u, 64 to 65528)\n"
		"      --unwind-budget PCT\n"
		"                         CPU for DWARF unwinding, %% of one core (default %g; past\n"
		"                         it, frame-pointer stacks until the next second)\n"
		"      --proc-budget PCT  CPU for the /proc source's passes, %% of one core\n"
		"                         (default %g, 0 = no limit); past it the rate is lowered\n"
		"                         and the header, batch JSON and log say so\n"
		"      --syscalls         trace every syscall: exact counts and latency (BPF)\n"
		"      --label NAME=BINARY:FUNCTION:ARG\n"
		"                         a uprobe on FUNCTION sets the thread's label NAME to ARG\n"
		"                         (argN, str:argN or a literal; BINARY is a path or pid:PID)\n"
		"      --label-clear NAME=BINARY:FUNCTION   a uprobe that clears label NAME\n"
		"      --label-scope NAME=BINARY:FUNCTION:ARG  set on entry, clear on return\n"
		"      --labels FILE      label definitions, one per line: set|clear|scope NAME=...\n"
		"      --retain SECONDS   keep exited threads in the view this long (default 60)\n"
		"      --mem-log SECONDS  log what threadtop's memory holds, per structure, every\n"
		"                         SECONDS (to the log pane and --log)\n"
		"      --offcpu           trace context switches: exact off-CPU time per stack and\n"
		"                         run-queue latency (BPF)\n"
		"      --io               trace block I/O requests: count, bytes and latency per\n"
		"                         thread and device (BPF)\n"
		"      --bpf-stats on|off|auto\n"
		"                         time threadtop's BPF programs (BPF_ENABLE_STATS; costs\n"
		"                         every BPF program on the box; auto: on unless tracing)\n"
		"      --sched rr|normal  sample at the lowest real-time priority (rr, default:\n"
		"                         ticks kept on a saturated box) or at normal priority\n"
		"      --trace SUBSYSTEM:EVENT\n"
		"                         capture a kernel tracepoint's lines (repeatable, up to 16;\n"
		"                         root; uses a private tracefs instance)\n"
		"      --trace-lines N    lines kept per tracepoint (default 100, 1 to 100000)\n"
		"      --cmd 'COMMAND'    run a shell command at every snapshot and keep its output\n"
		"                         (repeatable, up to 16)\n"
		"      --cmd-timeout SECONDS\n"
		"                         kill a command after this long (default 5, 0.1 to 3600)\n"
		"      --cmd-max-output SIZE\n"
		"                         output kept per run (default 64K, suffix K or M)\n"
		"      --dict-budget SIZE memory for names, stacks, trace lines and command output\n"
		"                         (default 48M, 1M to 64G); past it they count as dict_full\n"
		"      --cmd-as-root      run --cmd and threadtop run commands as root with\n"
		"                         threadtop's capabilities (default: the sudo user, or\n"
		"                         nobody, with no capabilities); see Security in README\n"
		"      --child-output FILE\n"
		"                         threadtop run: the command's stdout and stderr go to FILE\n"
		"                         (default: threadtop's stderr in batch mode, nowhere in\n"
		"                         the TUI), never to threadtop's stdout\n"
		"      --log FILE         write threadtop's own messages to FILE\n"
		"      --export FILE      when the run ends, write a snapshot to FILE (repeatable);\n"
		"                         format by extension: .folded .pb.gz (pprof)\n"
		"                         .speedscope.json .json (report) .svg (flame graph)\n"
		"      --export-format folded|pprof|speedscope|json|svg\n"
		"                         format of every --export, whatever its extension\n"
		"      --export-by process|tid|state|label:NAME\n"
		"                         folded and SVG: split stacks under the process by thread\n"
		"                         or by thread state, or put label NAME's value above the\n"
		"                         process as the root frame (default process)\n"
		"      --force            let --export and -w replace existing files\n"
		"      --from TIME, --to TIME\n"
		"                         with -r and -b: replay only this range (seconds from the\n"
		"                         recording's start: 90, 2.5m; or UTC: 13:45:10,\n"
		"                         2026-11-29T13:45:10Z); batch output and exports cover it\n"
		"      --serve ADDR:PORT  serve /metrics (Prometheus), /debug/pprof/profile, offcpu\n"
		"                         and threads?seconds=N (pprof) and /api/v1/snapshot (JSON)\n"
		"                         over HTTP; PORT or :PORT listen on 127.0.0.1 only\n"
		"      --serve-token FILE clients must send Authorization: Bearer <FILE's token>\n"
		"      --serve-top N      processes, cgroups, syscalls named in /metrics (default 20)\n"
		"  -h, --help             this help\n"
		"  run ... -- COMMAND     start COMMAND with libthreadtop-sysprof.so preloaded\n"
		"                         (LuaJIT VM states and Lua stacks) and profile just it;\n"
		"                         threadtop ends when it exits\n"
		"  -V, --version          print the version\n",
		(unsigned)SOURCE_DEFAULT_HZ, (unsigned)SOURCE_DEFAULT_CPU_HZ,
		(unsigned)SOURCE_DEFAULT_STACK_BYTES, (double)SOURCE_DEFAULT_UNWIND_BUDGET_PCT,
		(double)SOURCE_DEFAULT_PROC_BUDGET_PCT);
}

static int parse_double(const char *s, double min, double max, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	/* NaN compares false with both bounds: test it, and infinities, first. */
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

static int parse_long(const char *s, long min, long max, long *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

static int parse_pids(const char *arg, struct options *o, FILE *err)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	/* strsep, not strtok: "1,,2", ",", "" hold empty items, which are errors. */
	for (save = copy; (tok = strsep(&save, ",")) != NULL;) {
		long pid;

		if (!*tok) {
			fprintf(err,
				"threadtop: -p %s: an empty item; give process ids separated "
				"by single commas\n",
				arg);
			ret = -EINVAL;
			break;
		}
		if (parse_long(tok, 1, INT_MAX, &pid) < 0) {
			fprintf(err, "threadtop: -p %s: '%s' is not a process id\n", arg, tok);
			ret = -EINVAL;
			break;
		}
		if (o->nr_pids == MAX_PIDS) {
			fprintf(err, "threadtop: -p: more than %d processes\n", MAX_PIDS);
			ret = -EINVAL;
			break;
		}
		o->pids[o->nr_pids++] = (int)pid;
	}
	free(copy);
	return ret;
}

/* "100M" -> bytes; suffixes K, M, G (powers of 1024). */
static int parse_size(const char *s, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		v <<= 10, end++;
		break;
	case 'm':
	case 'M':
		v <<= 20, end++;
		break;
	case 'g':
	case 'G':
		v <<= 30, end++;
		break;
	}
	if (*end || v < 4096 || v > (1ull << 50))
		return -EINVAL;
	*ret = v;
	return 0;
}

enum long_only {
	OPT_FORMAT = 256,
	OPT_SOURCE,
	OPT_PROC_ROOT,
	OPT_SYS_ROOT,
	OPT_LOG,
	OPT_MAX_SIZE,
	OPT_EXPORT = 300,
	OPT_EXPORT_FORMAT,
	OPT_EXPORT_BY,
	OPT_FORCE,
	OPT_FROM,
	OPT_TO,
	OPT_CPU_HZ,
	OPT_UNWIND,
	OPT_STACK_BYTES,
	OPT_UNWIND_BUDGET,
	OPT_PROC_BUDGET,
	OPT_SYSCALLS,
	OPT_OFFCPU,
	OPT_IO,
	OPT_BPF_STATS,
	OPT_SCHED,
	OPT_LABEL = 400,
	OPT_LABEL_CLEAR,
	OPT_LABEL_SCOPE,
	OPT_LABELS,
	OPT_RETAIN,
	OPT_MEM_LOG,
	OPT_TRACE,
	OPT_TRACE_LINES,
	OPT_CMD,
	OPT_CMD_TIMEOUT,
	OPT_CMD_MAX_OUTPUT,
	OPT_DICT_BUDGET,
	OPT_CMD_AS_ROOT,
	OPT_SERVE,
	OPT_SERVE_TOKEN,
	OPT_SERVE_TOP,
	OPT_CHILD_OUTPUT,
};

static const struct option long_opts[] = {
	{"batch", no_argument, NULL, 'b'},
	{"delay", required_argument, NULL, 'd'},
	{"iterations", required_argument, NULL, 'n'},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"pid", required_argument, NULL, 'p'},
	{"freq", required_argument, NULL, 'F'},
	{"source", required_argument, NULL, OPT_SOURCE},
	{"proc-root", required_argument, NULL, OPT_PROC_ROOT},
	{"sys-root", required_argument, NULL, OPT_SYS_ROOT},
	{"log", required_argument, NULL, OPT_LOG},
	{"write", required_argument, NULL, 'w'},
	{"read", required_argument, NULL, 'r'},
	{"max-size", required_argument, NULL, OPT_MAX_SIZE},
	{"export", required_argument, NULL, OPT_EXPORT},
	{"export-format", required_argument, NULL, OPT_EXPORT_FORMAT},
	{"export-by", required_argument, NULL, OPT_EXPORT_BY},
	{"from", required_argument, NULL, OPT_FROM},
	{"to", required_argument, NULL, OPT_TO},
	{"force", no_argument, NULL, OPT_FORCE},
	{"cpu-hz", required_argument, NULL, OPT_CPU_HZ},
	{"unwind", required_argument, NULL, OPT_UNWIND},
	{"stack-bytes", required_argument, NULL, OPT_STACK_BYTES},
	{"unwind-budget", required_argument, NULL, OPT_UNWIND_BUDGET},
	{"proc-budget", required_argument, NULL, OPT_PROC_BUDGET},
	{"syscalls", no_argument, NULL, OPT_SYSCALLS},
	{"offcpu", no_argument, NULL, OPT_OFFCPU},
	{"io", no_argument, NULL, OPT_IO},
	{"bpf-stats", required_argument, NULL, OPT_BPF_STATS},
	{"sched", required_argument, NULL, OPT_SCHED},
	{"label", required_argument, NULL, OPT_LABEL},
	{"label-clear", required_argument, NULL, OPT_LABEL_CLEAR},
	{"label-scope", required_argument, NULL, OPT_LABEL_SCOPE},
	{"labels", required_argument, NULL, OPT_LABELS},
	{"retain", required_argument, NULL, OPT_RETAIN},
	{"mem-log", required_argument, NULL, OPT_MEM_LOG},
	{"trace", required_argument, NULL, OPT_TRACE},
	{"trace-lines", required_argument, NULL, OPT_TRACE_LINES},
	{"cmd", required_argument, NULL, OPT_CMD},
	{"cmd-timeout", required_argument, NULL, OPT_CMD_TIMEOUT},
	{"cmd-max-output", required_argument, NULL, OPT_CMD_MAX_OUTPUT},
	{"dict-budget", required_argument, NULL, OPT_DICT_BUDGET},
	{"cmd-as-root", no_argument, NULL, OPT_CMD_AS_ROOT},
	{"serve", required_argument, NULL, OPT_SERVE},
	{"serve-token", required_argument, NULL, OPT_SERVE_TOKEN},
	{"serve-top", required_argument, NULL, OPT_SERVE_TOP},
	{"child-output", required_argument, NULL, OPT_CHILD_OUTPUT},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{0},
};

static int bad(FILE *err, const char *opt, const char *arg, const char *why)
{
	fprintf(err, "threadtop: %s %s: %s\n", opt, arg, why);
	return -EINVAL;
}

static int parse_args(int argc, char **argv, struct options *ret, FILE *out, FILE *err);

/* A usage error: its one line (already written), then where the help is, not all of it. */
int cli_parse(int argc, char **argv, struct options *ret, FILE *out, FILE *err)
{
	int r = parse_args(argc, argv, ret, out, err);

	if (r == -EINVAL)
		fprintf(err, "try 'threadtop --help'\n");
	return r;
}

static int parse_args(int argc, char **argv, struct options *ret, FILE *out, FILE *err)
{
	struct options o = {
		.delay_s = 1.0,
		.hz = SOURCE_DEFAULT_HZ,
		.format = FORMAT_TEXT,
		.source = SOURCE_AUTO,
		.proc_root = "/proc",
		.sys_root = "/sys",
		.trace_lines = 100,
		.cmd_timeout_s = 5.0,
		.cmd_max_output = 65536,
		.dict_budget = DICT_BUDGET_DEFAULT,
		.cpu_hz = SOURCE_DEFAULT_CPU_HZ,
		.unwind = TT_UNWIND_AUTO,
		.stack_bytes = SOURCE_DEFAULT_STACK_BYTES,
		.unwind_budget_pct = SOURCE_DEFAULT_UNWIND_BUDGET_PCT,
		.proc_budget_pct = SOURCE_DEFAULT_PROC_BUDGET_PCT,
		.bpf_stats = -1,
		.sched_rr = true,
	};
	bool run = argc > 1 && !strcmp(argv[1], "run");
	int c;

	if (run) { /* parse "run OPTIONS...": "run" stands where the program name would */
		argc--;
		argv++;
	}
	optind = 0; /* 0: glibc re-reads the optstring's ordering flag */
	opterr = 0;
	/* run: options stop at the command ("+"), so its own options stay its own. */
	while ((c = getopt_long(argc, argv, run ? "+:bd:n:p:F:w:r:hV" : ":bd:n:p:F:w:r:hV",
				long_opts, NULL)) != -1) {
		long v;

		switch (c) {
		case 'b':
			o.batch = true;
			break;
		case 'd':
			if (parse_double(optarg, 0.1, 3600, &o.delay_s) < 0)
				return bad(err, "-d", optarg, "need seconds from 0.1 to 3600");
			break;
		case 'n':
			if (parse_long(optarg, 1, LONG_MAX, &o.count) < 0)
				return bad(err, "-n", optarg, "need a count of at least 1");
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				o.format = FORMAT_TEXT;
			else if (!strcmp(optarg, "json"))
				o.format = FORMAT_JSON;
			else
				return bad(err, "--format", optarg, "need text or json");
			break;
		case 'p':
			if (parse_pids(optarg, &o, err) < 0) {
				return -EINVAL;
			}
			break;
		case 'F':
			if (parse_long(optarg, 1, 1000, &v) < 0)
				return bad(err, "-F", optarg, "need a rate from 1 to 1000 Hz");
			o.hz = (unsigned)v;
			break;
		case OPT_SOURCE:
			if (!strcmp(optarg, "auto"))
				o.source = SOURCE_AUTO;
			else if (!strcmp(optarg, "bpf"))
				o.source = SOURCE_BPF;
			else if (!strcmp(optarg, "proc"))
				o.source = SOURCE_PROC;
			else
				return bad(err, "--source", optarg, "need auto, bpf or proc");
			break;
		case OPT_PROC_ROOT:
			o.proc_root = optarg;
			break;
		case OPT_SYS_ROOT:
			o.sys_root = optarg;
			break;
		case OPT_LOG:
			o.log_path = optarg;
			break;
		case 'w':
			o.write_path = optarg;
			break;
		case 'r':
			o.read_path = optarg;
			break;
		case OPT_MAX_SIZE:
			if (parse_size(optarg, &o.max_size) < 0)
				return bad(err, "--max-size", optarg,
					   "need a size of at least 4096 bytes, like 500M");
			break;
		case OPT_RETAIN:
			if (parse_double(optarg, 1, 86400, &o.retain_s) < 0)
				return bad(err, "--retain", optarg, "need seconds from 1 to 86400");
			break;
		case OPT_MEM_LOG:
			if (parse_double(optarg, 1, 86400, &o.mem_log_s) < 0)
				return bad(err, "--mem-log", optarg,
					   "need seconds from 1 to 86400");
			break;
		case OPT_LABEL:
		case OPT_LABEL_CLEAR:
		case OPT_LABEL_SCOPE:
		case OPT_LABELS: {
			char why[512];
			int r = c == OPT_LABELS
					? label_set__load_file(&o.labels, optarg, why, sizeof(why))
					: label_set__add(&o.labels,
							 c == OPT_LABEL		? LABEL_SET
							 : c == OPT_LABEL_CLEAR ? LABEL_CLEAR
										: LABEL_SCOPE,
							 optarg, why, sizeof(why));

			if (r < 0) {
				fprintf(err, "threadtop: %s\n", why);
				return -EINVAL;
			}
			break;
		}
		case OPT_EXPORT:
			if (!*optarg)
				return bad(err, "--export", optarg, "need a file name");
			if (o.nr_exports == MAX_EXPORTS)
				return bad(err, "--export", optarg, "at most 8 exports");
			o.exports[o.nr_exports++] = optarg;
			break;
		case OPT_EXPORT_FORMAT: {
			enum export_format f;

			if (export_format_parse(optarg, &f) < 0)
				return bad(err, "--export-format", optarg,
					   "need folded, pprof, speedscope, json or svg");
			o.export_format = f;
			break;
		}
		case OPT_EXPORT_BY:
			if (!strcmp(optarg, "process"))
				o.export_by = EXPORT_BY_PROCESS;
			else if (!strcmp(optarg, "tid"))
				o.export_by = EXPORT_BY_TID;
			else if (!strcmp(optarg, "state"))
				o.export_by = EXPORT_BY_STATE;
			else if (!strncmp(optarg, "label:", 6) && optarg[6] &&
				 strlen(optarg + 6) < TT_COMM_LEN)
				o.export_by = EXPORT_BY_LABEL, o.export_by_label = optarg + 6;
			else
				return bad(
					err, "--export-by", optarg,
					"need process, tid, state or label:NAME (a --label name)");
			break;
		case OPT_FORCE:
			o.force = true;
			break;
		case OPT_FROM:
		case OPT_TO:
			if (replay_time_check(optarg) < 0)
				return bad(err, c == OPT_FROM ? "--from" : "--to", optarg,
					   "need seconds from the recording's start (90, 2.5m, 1h) "
					   "or a UTC time (13:45:10, 2026-11-29T13:45:10Z)");
			*(c == OPT_FROM ? &o.replay_from : &o.replay_to) = optarg;
			break;
		case OPT_CPU_HZ:
			if (parse_long(optarg, 0, 10000, &v) < 0)
				return bad(err, "--cpu-hz", optarg,
					   "need a rate from 0 (off) to 10000 Hz");
			o.cpu_hz = (unsigned)v;
			break;
		case OPT_UNWIND:
			if (!strcmp(optarg, "auto"))
				o.unwind = TT_UNWIND_AUTO;
			else if (!strcmp(optarg, "fp"))
				o.unwind = TT_UNWIND_FP;
			else if (!strcmp(optarg, "dwarf"))
				o.unwind = TT_UNWIND_DWARF;
			else
				return bad(err, "--unwind", optarg, "need auto, fp or dwarf");
			break;
		case OPT_STACK_BYTES:
			if (parse_long(optarg, 64, TT_STACK_COPY_MAX, &v) < 0)
				return bad(err, "--stack-bytes", optarg,
					   "need a size from 64 to 65528 bytes");
			o.stack_bytes = (unsigned)v & ~7u;
			break;
		case OPT_UNWIND_BUDGET:
			if (parse_double(optarg, 0.01, 100, &o.unwind_budget_pct) < 0)
				return bad(err, "--unwind-budget", optarg,
					   "need a percentage of one core from 0.01 to 100");
			break;
		case OPT_PROC_BUDGET:
			if (parse_double(optarg, 0, 100, &o.proc_budget_pct) < 0)
				return bad(
					err, "--proc-budget", optarg,
					"need a percentage of one core from 0 (no limit) to 100");
			break;
		case OPT_SYSCALLS:
			o.syscalls = true;
			break;
		case OPT_OFFCPU:
			o.offcpu = true;
			break;
		case OPT_IO:
			o.io = true;
			break;
		case OPT_BPF_STATS:
			if (!strcmp(optarg, "on"))
				o.bpf_stats = 1;
			else if (!strcmp(optarg, "off"))
				o.bpf_stats = 0;
			else if (!strcmp(optarg, "auto"))
				o.bpf_stats = -1;
			else
				return bad(err, "--bpf-stats", optarg, "need on, off or auto");
			break;
		case OPT_SCHED:
			if (!strcmp(optarg, "rr"))
				o.sched_rr = true;
			else if (!strcmp(optarg, "normal"))
				o.sched_rr = false;
			else
				return bad(err, "--sched", optarg, "need rr or normal");
			break;
		case OPT_TRACE:
			if (!trace_event_name_ok(optarg))
				return bad(err, "--trace", optarg,
					   "need SUBSYSTEM:EVENT, like sched:sched_process_exec");
			if (o.nr_traces == MAX_TRACES)
				return bad(err, "--trace", optarg, "at most 16 tracepoints");
			o.traces[o.nr_traces++] = optarg;
			break;
		case OPT_TRACE_LINES:
			if (parse_long(optarg, 1, 100000, &v) < 0)
				return bad(err, "--trace-lines", optarg,
					   "need a count from 1 to 100000");
			o.trace_lines = (size_t)v;
			break;
		case OPT_CMD:
			if (!*optarg)
				return bad(err, "--cmd", "''", "need a shell command");
			if (o.nr_cmds == MAX_CMDS)
				return bad(err, "--cmd", optarg, "at most 16 commands");
			o.cmds[o.nr_cmds++] = optarg;
			break;
		case OPT_CMD_TIMEOUT:
			if (parse_double(optarg, 0.1, 3600, &o.cmd_timeout_s) < 0)
				return bad(err, "--cmd-timeout", optarg,
					   "need seconds from 0.1 to 3600");
			break;
		case OPT_CMD_MAX_OUTPUT:
			if (parse_size(optarg, &o.cmd_max_output) < 0 ||
			    o.cmd_max_output > (64u << 20))
				return bad(err, "--cmd-max-output", optarg,
					   "need a size from 4096 bytes to 64M, like 64K");
			break;
		case OPT_DICT_BUDGET:
			if (parse_size(optarg, &o.dict_budget) < 0 ||
			    o.dict_budget < DICT_BUDGET_MIN || o.dict_budget > (64ull << 30))
				return bad(err, "--dict-budget", optarg,
					   "need a size from 1M to 64G, like 256M");
			break;
		case OPT_CMD_AS_ROOT:
			o.cmd_as_root = true;
			break;
		case OPT_SERVE:
			if (!*optarg)
				return bad(err, "--serve", "''",
					   "need PORT or ADDR:PORT, like 9464");
			o.serve_addr = optarg;
			break;
		case OPT_SERVE_TOKEN:
			o.serve_token = optarg;
			break;
		case OPT_SERVE_TOP:
			if (parse_long(optarg, 1, SERVE_MAX_TOP, &v) < 0)
				return bad(err, "--serve-top", optarg,
					   "need a count from 1 to 1000");
			o.serve_top = (unsigned)v;
			break;
		case OPT_CHILD_OUTPUT:
			if (!*optarg)
				return bad(err, "--child-output", optarg, "need a file name");
			o.child_output = optarg;
			break;
		case 'h':
			cli_usage(out);
			return CLI_EXIT_OK;
		case 'V':
			fprintf(out, "threadtop %s\n", TT_VERSION);
			return CLI_EXIT_OK;
		case ':':
			fprintf(err, "threadtop: option %s needs a value\n", argv[optind - 1]);
			return -EINVAL;
		default:
			fprintf(err, "threadtop: unknown option %s\n", argv[optind - 1]);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < o.nr_exports && !o.export_format; i++)
		if (export_format_of_path(o.exports[i]) == EXPORT_AUTO)
			return bad(
				err, "--export", o.exports[i],
				"unknown extension: use .folded, .pb.gz, .speedscope.json, .json or "
				".svg, or give --export-format");
	if (run) {
		if (optind >= argc) {
			fprintf(err, "threadtop run: no command given: threadtop run [OPTIONS] -- "
				     "COMMAND [ARGS...]\n");
			return -EINVAL;
		}
		if (o.read_path) {
			fprintf(err, "threadtop run: -r replays a recording; it cannot run a "
				     "command\n");
			return -EINVAL;
		}
		o.run_argv = argv + optind;
		optind = argc;
	} else if (o.child_output) {
		fprintf(err, "threadtop: --child-output is for threadtop run's command\n");
		return -EINVAL;
	}
	if (optind < argc) {
		fprintf(err, "threadtop: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	if ((o.serve_token || o.serve_top) && !o.serve_addr) {
		fprintf(err, "threadtop: --serve-token and --serve-top set up --serve: give "
			     "--serve ADDR:PORT too\n");
		return -EINVAL;
	}
	if (o.max_size && !o.write_path) {
		fprintf(err, "threadtop: --max-size caps a recording: it needs -w FILE\n");
		return -EINVAL;
	}
	if ((o.replay_from || o.replay_to) && (!o.read_path || !o.batch)) {
		fprintf(err,
			"threadtop: --from/--to choose a range of a replay in batch mode: they "
			"need -r FILE and -b (in the interactive replay, b jumps and [ ] "
			"selects a range)\n");
		return -EINVAL;
	}
	if (o.read_path && o.write_path && !strcmp(o.read_path, o.write_path)) {
		fprintf(err, "threadtop: -r and -w name the same file %s\n", o.read_path);
		return -EINVAL;
	}
	*ret = o;
	return CLI_RUN;
}
