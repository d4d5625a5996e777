/* SPDX-License-Identifier: GPL-2.0-only */
/* Command-line options: parsed into struct options, nothing else done here. */
#ifndef THREADTOP_CLI_H
#define THREADTOP_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "batch.h"
#include "labels.h"

enum source_kind { SOURCE_AUTO, SOURCE_BPF, SOURCE_PROC };

#define MAX_PIDS 1024
#define MAX_TRACES 16 /* --trace, as TRACE_MAX_EVENTS */
#define MAX_CMDS 16   /* --cmd, as CMDCAP_MAX */
#define MAX_EXPORTS 8

struct options {
	bool batch;		   /* -b */
	double delay_s;		   /* -d, seconds between outputs */
	long count;		   /* -n, intervals to print; 0 = until a signal */
	enum output_format format; /* --format */
	int pids[MAX_PIDS];	   /* -p */
	size_t nr_pids;
	unsigned hz;		 /* -F, thread sampling rate */
	enum source_kind source; /* --source */
	const char *proc_root;	 /* --proc-root (tests) */
	const char *sys_root;	 /* --sys-root (tests) */
	const char *log_path;	 /* --log */
	const char *write_path;	 /* -w: record to this file */
	const char *read_path;	 /* -r: replay this file instead of sampling */
	const char *replay_from; /* --from: start of the replayed range (replay_range.h) */
	const char *replay_to;	 /* --to: its end */
	uint64_t max_size;	 /* --max-size: cap of the recording in bytes, 0 = none */
	/* Snapshots written when the run ends (export.h). */
	const char *exports[MAX_EXPORTS]; /* --export FILE, repeatable */
	size_t nr_exports;
	int export_format;	     /* --export-format: enum export_format, 0 = from the name */
	int export_by;		     /* --export-by: enum export_by */
	const char *export_by_label; /* --export-by label:NAME: the label name */
	bool force;		     /* --force: exports may replace existing files */
	unsigned cpu_hz;	     /* --cpu-hz, on-CPU sampling rate per CPU; 0 = off */
	unsigned unwind;	     /* --unwind: enum tt_unwind_mode */
	unsigned stack_bytes;	     /* --stack-bytes: user stack copied per sample (DWARF) */
	double unwind_budget_pct;    /* --unwind-budget: CPU for DWARF unwinding, % of a core */
	double proc_budget_pct;	     /* --proc-budget: CPU for /proc passes, % of a core */
	bool syscalls;		     /* --syscalls, exact syscall tracing (BPF) */
	bool offcpu;		     /* --offcpu, exact off-CPU tracing (BPF) */
	bool io;		     /* --io, block I/O request tracing (BPF) */
	int bpf_stats;		     /* --bpf-stats: 1 on, 0 off, -1 auto (on unless tracing) */
	bool sched_rr;		 /* --sched rr (default): run at the lowest real-time priority */
	struct label_set labels; /* --label, --label-clear, --label-scope, --labels */
	double retain_s;      /* --retain: seconds exited threads stay in the model, 0 = default */
	uint64_t dict_budget; /* --dict-budget: bytes of dictionaries (dict_budget.h) */
	double mem_log_s;     /* --mem-log: seconds between memory lines in the log, 0 = none */

	/* --serve (serve.h): the node agent's HTTP endpoints. */
	const char *serve_addr;	 /* --serve ADDR:PORT, NULL = off */
	const char *serve_token; /* --serve-token FILE */
	unsigned serve_top;	 /* --serve-top N: rows named per /metrics family */

	/* Diagnostic attachments (capture.h). */
	const char *traces[MAX_TRACES]; /* --trace SUBSYSTEM:EVENT */
	size_t nr_traces;
	size_t trace_lines;	    /* --trace-lines: kept per tracepoint */
	const char *cmds[MAX_CMDS]; /* --cmd 'SHELL COMMAND' */
	size_t nr_cmds;
	double cmd_timeout_s;	 /* --cmd-timeout */
	uint64_t cmd_max_output; /* --cmd-max-output, bytes */
	bool cmd_as_root;	 /* --cmd-as-root: children keep root and its capabilities */
	/* threadtop run [OPTIONS] -- COMMAND ARGS...: the command (NULL-terminated) */
	char **run_argv;
	const char *child_output; /* --child-output FILE: the command's stdout and stderr */
};

enum cli_result {
	CLI_RUN = 0,	/* options parsed: run */
	CLI_EXIT_OK = 1 /* help or version printed: exit 0 */
};

/*
 * Parses argv into ret. Returns CLI_RUN, CLI_EXIT_OK, or -EINVAL after
 * printing the reason and the usage to err (the caller exits 2).
 */
int cli_parse(int argc, char **argv, struct options *ret, FILE *out, FILE *err);
void cli_usage(FILE *f);

#endif /* THREADTOP_CLI_H */
