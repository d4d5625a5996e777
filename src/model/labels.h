/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Application labels (issue "Application context"): definitions of uprobes
 * that set or clear a per-thread label slot, as given on the command line
 * (--label, --label-clear, --label-scope) or in a labels file. This module
 * only parses and validates; attaching is the BPF source's job.
 */
#ifndef THREADTOP_LABELS_H
#define THREADTOP_LABELS_H

#include <stddef.h>
#include <stdint.h>

#define LABEL_MAX_SLOTS 4  /* distinct label names per run */
#define LABEL_NAME_LEN 16  /* including the NUL */
#define LABEL_VALUE_LEN 64 /* bytes of a string value, including the NUL */
#define LABEL_FUNC_LEN 128
#define LABEL_PATH_LEN 256
#define LABEL_MAX_DEFS 64

enum label_kind {
	LABEL_SET,   /* on entry of FUNCTION: slot = ARG */
	LABEL_CLEAR, /* on entry of FUNCTION: slot = nothing */
	LABEL_SCOPE, /* slot = ARG on entry, nothing on return */
};

enum label_arg_kind {
	LABEL_ARG_NONE,	   /* clear */
	LABEL_ARG_NUMBER,  /* argN as an integer */
	LABEL_ARG_STRING,  /* str:argN, a bounded string read from user memory */
	LABEL_ARG_LITERAL, /* a fixed text */
};

struct label_def {
	enum label_kind kind;
	char name[LABEL_NAME_LEN];
	int slot;		     /* index of name among the run's label names */
	char binary[LABEL_PATH_LEN]; /* executable or library path */
	int pid;		     /* pid:PID was given: binary is /proc/PID/exe */
	char function[LABEL_FUNC_LEN];
	enum label_arg_kind arg_kind;
	int argn; /* 1 to 6 for NUMBER and STRING */
	char literal[LABEL_VALUE_LEN];
};

struct label_set {
	struct label_def defs[LABEL_MAX_DEFS];
	size_t nr_defs;
	char names[LABEL_MAX_SLOTS][LABEL_NAME_LEN]; /* slot -> name */
	size_t nr_names;
};

/*
 * Parses one definition "NAME=BINARY:FUNCTION[:ARG]" of the given kind and
 * adds it to set. BINARY is a path (no ':') or pid:PID; ARG is argN, str:argN
 * or a literal (required for set and scope, absent for clear). On error
 * returns -EINVAL (or -E2BIG when the set is full) and writes a one-line
 * reason to err.
 */
int label_set__add(struct label_set *set, enum label_kind kind, const char *spec, char *err,
		   size_t errlen);

/*
 * Parses a labels file's text: one definition per line, "set", "clear" or
 * "scope" then the definition; blank lines and lines starting with # are
 * ignored. Errors name the line: "FILE:LINE: reason".
 */
int label_set__parse_file(struct label_set *set, const char *name, const char *text, size_t len,
			  char *err, size_t errlen);

/* Reads and parses a labels file (at most 1 MiB). */
int label_set__load_file(struct label_set *set, const char *path, char *err, size_t errlen);

/* Slot of a label name, or -1. */
int label_set__slot(const struct label_set *set, const char *name);

#endif /* THREADTOP_LABELS_H */
