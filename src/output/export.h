/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Snapshots of the model written to files: folded stacks, pprof, speedscope,
 * the JSON report and an interactive SVG flame graph. The format follows the
 * file name's extension unless one is forced. Files are written safely
 * (safe_file.h): never a partial file, never over an existing file unless
 * forced. Library code: errors are returned with a message, not logged.
 */
#ifndef THREADTOP_EXPORT_H
#define THREADTOP_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "threadtop/frame_namer.h"
#include "model.h"

enum export_format {
	EXPORT_AUTO = 0,   /* from the file name */
	EXPORT_FOLDED,	   /* .folded, .txt: "root;...;leaf count" lines */
	EXPORT_PPROF,	   /* .pb.gz, .pprof: gzipped profile.proto */
	EXPORT_SPEEDSCOPE, /* .speedscope.json */
	EXPORT_JSON,	   /* .json: the full report */
	EXPORT_SVG,	   /* .svg: interactive flame graph */
	EXPORT_FORMAT_MAX,
};

/* Extra root frames of folded stacks and flame graphs. */
enum export_by {
	EXPORT_BY_PROCESS = 0, /* process name only */
	EXPORT_BY_TID,	       /* then "thread-name [tid]" under the process */
	EXPORT_BY_STATE,       /* then the thread state under the process */
	EXPORT_BY_LABEL,       /* "NAME=value" of label by_label above the process */
};

/* "folded", "pprof", ... and back; export_format_parse returns -EINVAL when unknown. */
const char *export_format_name(enum export_format f);
int export_format_parse(const char *name, enum export_format *ret);
/* The format path's extension names; EXPORT_AUTO when none fits. */
enum export_format export_format_of_path(const char *path);

struct tracer;
struct cmdcap;

struct export_opts {
	enum export_format format; /* EXPORT_AUTO: from the path */
	enum export_by by;
	const char *by_label;		   /* EXPORT_BY_LABEL: the --label name */
	bool force;			   /* replace existing files */
	enum model_window window;	   /* usually WIN_SESSION */
	const struct model_filter *filter; /* NULL = everything (the TUI passes its view's) */
	const struct frame_namer *namer;   /* NULL = addresses */
	/* What the report says about the run. */
	const char *source;   /* "bpf", "proc", "replay" */
	unsigned hz;	      /* thread sampling rate */
	unsigned cpu_hz;      /* on-CPU sampling rate: the weight of an on-CPU sample */
	const char *host;     /* NULL = gethostname(); a replay: the recording's */
	const char *kernel;   /* kernel release; NULL = uname(); a replay: the recording's */
	uint64_t realtime_ns; /* wall-clock time of the snapshot; 0 = now; a replay: its clock */
	/* Diagnostic attachments for the JSON report (capture.h); NULL = none. */
	const struct tracer *tracer; /* --trace: every kept line */
	const struct cmdcap *cmds;   /* --cmd: the latest run of each */
};

#define EXPORT_MAX_FILES 3

/* What an export wrote: one file, or one per kind of samples for the
 * formats that hold one profile per file (folded, SVG). */
struct export_result {
	size_t nr;
	char *paths[EXPORT_MAX_FILES]; /* allocated; export_result__release frees */
	size_t sizes[EXPORT_MAX_FILES];
};
void export_result__release(struct export_result *r);

/*
 * Writes a snapshot of m to path. Returns 0 and fills *ret, or a negative
 * errno with a one-line reason in err (errlen bytes) that names the file;
 * on error no file is left behind.
 */
int export__write(struct model *m, const char *path, const struct export_opts *o,
		  struct export_result *ret, char *err, size_t errlen);

/*
 * Writes what export__write would put in a file of format fmt (not
 * EXPORT_AUTO) to the stream f instead: the bytes --serve sends. p is the
 * profile to write (NULL: built here from m as o says); kind is the one
 * shown first by the formats that show one. Returns 0 or a negative errno.
 */
struct profile;
int export__write_stream(struct model *m, const struct profile *p, int kind, enum export_format fmt,
			 const struct export_opts *o, FILE *f);

/* Checks before a run that path could be written (see safe_file_check);
 * on error explains in err. */
int export__check(const char *path, const struct export_opts *o, char *err, size_t errlen);

#endif /* THREADTOP_EXPORT_H */
