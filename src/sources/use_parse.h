/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Parsers for the /proc and /sys files behind the USE metrics (/proc/stat,
 * loadavg, meminfo, vmstat, diskstats, net/dev, net/snmp, the PSI files, a
 * cgroup's cpu.stat and cpu.max). Like procfs.h they take text already read
 * and never touch the file system, so fixtures are plain strings or trees;
 * reading is in use_sampler.c. Counters are returned raw: the sampler takes
 * the deltas (use_counter_delta handles wrapped and reset counters).
 */
#ifndef THREADTOP_USE_PARSE_H
#define THREADTOP_USE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USE_NAME_LEN 32

/* Counter growth from prev to cur: a 32-bit counter that wrapped is
 * unwrapped; any other decrease is a reset and gives 0. */
uint64_t use_counter_delta(uint64_t prev, uint64_t cur);

/* One "cpu" line of /proc/stat, in clock ticks. */
struct use_cpu_times {
	bool valid;	/* the line was there (an offline CPU has none) */
	uint64_t busy;	/* everything but idle and iowait */
	uint64_t total; /* user nice system idle iowait irq softirq steal */
};

/*
 * Parses /proc/stat: the "cpu" total into *all, "cpuN" into cpus[N] for
 * N < cap (others invalid), procs_running into *ret_running. Returns the
 * number of CPU slots needed (highest N + 1, may exceed cap) or -EINVAL.
 */
int use_parse_stat(const char *buf, struct use_cpu_times *all, struct use_cpu_times *cpus,
		   size_t cap, unsigned *ret_running);

/* /proc/loadavg: the runnable count ("2/345" gives 2). 0 or -EINVAL. */
int use_parse_loadavg(const char *buf, unsigned *ret_running);
/* /proc/loadavg: the three load averages and the thread count ("2/345": 345). 0 or -EINVAL. */
int use_parse_loadavg_all(const char *buf, double *ret_avg3, unsigned *ret_tasks);
/* /proc/uptime: seconds since boot (its first field). 0 or -EINVAL. */
int use_parse_uptime(const char *buf, double *ret_s);

struct use_meminfo {
	uint64_t total_kb;
	uint64_t available_kb; /* MemAvailable, or free + buffers + cached on old kernels */
	uint64_t swap_total_kb;
	uint64_t swap_free_kb;
};
/* /proc/meminfo. 0 or -EINVAL (no MemTotal). */
int use_parse_meminfo(const char *buf, struct use_meminfo *ret);

struct use_vmstat {
	uint64_t pswpin, pswpout;
	uint64_t pgscan_kswapd, pgscan_direct;
	uint64_t allocstall; /* sum of allocstall_* (or allocstall) */
	uint64_t oom_kill;
	bool has_oom_kill; /* since 4.13 */
};
/* /proc/vmstat. 0 or -EINVAL (no pswpin line: not a vmstat). */
int use_parse_vmstat(const char *buf, struct use_vmstat *ret);

struct use_disk_stat {
	char name[USE_NAME_LEN];
	uint64_t ios;	     /* reads + writes + discards completed */
	uint64_t io_time_ms; /* time spent on those (fields 4, 8, 12) */
	uint64_t in_flight;
	uint64_t busy_ms;     /* field 10: time with at least one request in flight */
	uint64_t weighted_ms; /* field 11: sum of request times, gives the average queue */
};
/*
 * /proc/diskstats: fills out[0..cap) in file order. Returns the number of
 * devices in the text (may exceed cap) or -EINVAL for a malformed line.
 */
int use_parse_diskstats(const char *buf, struct use_disk_stat *out, size_t cap);

struct use_net_stat {
	char name[USE_NAME_LEN];
	uint64_t rx_bytes, tx_bytes;
	uint64_t drops;	 /* rx drop + rx fifo + tx drop + tx fifo */
	uint64_t errors; /* rx errs + rx frame + tx errs + tx carrier */
};
/* /proc/net/dev, like use_parse_diskstats. */
int use_parse_net_dev(const char *buf, struct use_net_stat *out, size_t cap);

struct use_tcp_stat {
	uint64_t out_segs;
	uint64_t retrans_segs;
	uint64_t in_errs; /* InErrs + InCsumErrors */
};
/* The "Tcp:" header and value lines of /proc/net/snmp. 0 or -EINVAL. */
int use_parse_snmp_tcp(const char *buf, struct use_tcp_stat *ret);

struct use_psi {
	uint64_t some_us; /* "some" total stall, us */
	uint64_t full_us;
	bool has_full;
};
/* A /proc/pressure/{cpu,memory,io} file. 0 or -EINVAL. */
int use_parse_psi(const char *buf, struct use_psi *ret);

struct use_cg_cpu {
	uint64_t usage_us;
	uint64_t nr_throttled;
	uint64_t throttled_us;
	bool has_throttling; /* the cpu controller is enabled here */
};
/* A cgroup v2 cpu.stat. 0 or -EINVAL (no usage_usec). */
int use_parse_cg_cpu_stat(const char *buf, struct use_cg_cpu *ret);

/* A cgroup v2 cpu.max ("QUOTA PERIOD" or "max PERIOD"): the CPUs the quota
 * allows (quota / period), 0 when unlimited. 0 or -EINVAL. */
int use_parse_cg_cpu_max(const char *buf, double *ret_cpus);

/* A hex or decimal counter file such as device/ioerr_cnt ("0x1f"). */
int use_parse_counter(const char *buf, uint64_t *ret);

/* SYS/class/net/IF/speed in Mb/s; 0 when unknown (virtual NICs say -1). */
double use_parse_link_speed(const char *buf);

#endif /* THREADTOP_USE_PARSE_H */
