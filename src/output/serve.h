/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --serve: threadtop as a node agent that fleet engines pull from. A small
 * read-only HTTP/1.1 server in the event loop (non-blocking, bounded in
 * connections, request size and time) serving /metrics (Prometheus text),
 * /debug/pprof/profile, /offcpu, /io and /threads?seconds=N (gzipped pprof, as
 * --export writes it, of the next N seconds), and /api/v1/snapshot (the JSON
 * report of the last interval). Every figure comes from the model's queries
 * and the exporters, so what is served is what batch output and --export
 * say. Library code: errors are returned with a message, not logged.
 */
#ifndef THREADTOP_SERVE_H
#define THREADTOP_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "loop.h"
#include "model.h"

#define SERVE_DEFAULT_TOP 20 /* processes, cgroups and syscalls named in /metrics */
#define SERVE_MAX_TOP 1000

struct serve_opts {
	const char *addr;	/* --serve: "HOST:PORT", "[V6]:PORT", ":PORT" or "PORT" */
	const char *token_path; /* --serve-token: the bearer token's file, or NULL */
	unsigned top;		/* --serve-top: rows named per family; the rest is "other" */
	double max_seconds;	/* the longest ?seconds= (the model's retention) */
	bool offcpu;		/* --offcpu: /debug/pprof/offcpu has data */
	bool io;		/* --io: /debug/pprof/io has data */
	unsigned cpu_hz;	/* on-CPU sampling; 0: /debug/pprof/profile has none */
};

/* What the server reads of the run (the application provides it). */
struct serve_host {
	/* The model served; asked at every request (a replay's jump resets it). */
	struct model *(*model)(void *ctx);
	/* The run's export options: source, rates, frame namer. */
	void (*export_opts)(void *ctx, struct export_opts *ret);
	/* CLOCK_REALTIME ns at the end of the last interval (batch output's "time"). */
	uint64_t (*interval_realtime_ns)(void *ctx);
	void *ctx;
};

struct serve;

/*
 * Parses o->addr ("9464" and ":9464" mean 127.0.0.1:9464; any other address
 * only when given), reads the token file (at most 4 KiB, a regular file),
 * listens and adds the listener to loop. NULL with errno set and a one-line
 * reason in err (errlen bytes) naming the address or file and what to do.
 */
struct serve *serve__new(struct loop *loop, const struct serve_opts *o, const struct serve_host *h,
			 char *err, size_t errlen);
/* Closes the listener and every connection (pending profiles are dropped). NULL-safe. */
void serve__free(struct serve *s);

/* "127.0.0.1:9464": where it listens (the port the kernel chose for port 0). */
const char *serve__address(const struct serve *s);
/* Whether it listens on a loopback address only. */
bool serve__loopback(const struct serve *s);

/*
 * Every record the model takes, in order (app_emit calls it before the
 * model ingests ev): the children taking profiles follow them. Cheap when
 * none is. NULL-safe.
 */
void serve__record(struct serve *s, const struct tt_event_header *ev);

/* An interval just closed (WIN_LAST holds it): /metrics counters add it. */
void serve__interval(struct serve *s);

#endif /* THREADTOP_SERVE_H */
