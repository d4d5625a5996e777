/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The defaults of the collection options, for the command line (its values
 * and its usage text) and for the sources, which apply them to an option
 * left 0. Plain numbers, so that the usage text can spell them (SOURCE_STR).
 */
#ifndef THREADTOP_SOURCE_DEFAULTS_H
#define THREADTOP_SOURCE_DEFAULTS_H

#define SOURCE_DEFAULT_HZ 20		   /* -F: thread sampling passes per second */
#define SOURCE_DEFAULT_CPU_HZ 99	   /* --cpu-hz: on-CPU samples per second and CPU */
#define SOURCE_DEFAULT_STACK_BYTES 8192	   /* --stack-bytes: user stack copied for DWARF */
#define SOURCE_DEFAULT_UNWIND_BUDGET_PCT 1 /* --unwind-budget: % of one core */
#define SOURCE_DEFAULT_PROC_BUDGET_PCT 5   /* --proc-budget: % of one core */

/* A default as a string literal: SOURCE_STR(SOURCE_DEFAULT_HZ) is "20". */
#define SOURCE_STR(x) SOURCE_STR_(x)
#define SOURCE_STR_(x) #x

#endif /* THREADTOP_SOURCE_DEFAULTS_H */
