// SPDX-License-Identifier: GPL-2.0-only
/*
 * The USE sampler (see use_sampler.h): reads the counters of every resource
 * into a snapshot, and at each interval end turns the difference between two
 * snapshots into TT_EV_USE_METRIC records. Parsing is in use_parse.c; this
 * file only reads (bounded) and computes. Which figure stands for what, per
 * resource (Gregg's USE checklist):
 *
 *   CPU     util: /proc/stat all but idle and iowait; saturation: runnable
 *           threads per CPU from /proc/loadavg averaged over the ticks (limit
 *           1.0), PSI cpu; per CPU: util only
 *   memory  util: MemTotal - MemAvailable; saturation: pages swapped in or
 *           out + scanned by direct reclaim per second (limit 100), PSI
 *           memory; aux: kswapd scans per second; errors: oom_kill
 *   disk    util: diskstats busy time; saturation: average queue (aqu-sz,
 *           limit 1.0), PSI io (box-wide, on every disk); aux: await ms;
 *           errors: device/ioerr_cnt where the driver has one
 *   net     util: max(rx, tx) bits per second / link speed when known;
 *           saturation: drops + fifo per second (limit 10); aux: bytes per
 *           second; errors: rx errs + frame + tx errs + carrier
 *   tcp     saturation: retransmitted % of segments sent (limit 1 %, and
 *           at least 10 retransmits); errors: InErrs + InCsumErrors
 *   cgroup  (v2 with a cpu.max quota) util: usage / quota; saturation:
 *           throttled time % of the interval (limit 1 %)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup_walk.h"
#include "use_model.h"
#include "use_parse.h"
#include "use_sampler.h"
#include "util.h"

#define BIG_FILE (1u << 20) /* /proc/stat on a large box, /proc/net/dev, diskstats */
#define SMALL_FILE 4096
#define MAX_DISKS 256
#define MAX_NETS 256
#define MAX_CGROUPS 64
#define CGROUP_DEPTH 3
#define CG_PATH_MAX 512

#define MEM_PAGING_LIMIT 100.0 /* pages per second */
#define DISK_QUEUE_LIMIT 1.0
#define NET_DROPS_LIMIT 10.0  /* packets per second */
#define TCP_RETRANS_LIMIT 1.0 /* % */
#define TCP_RETRANS_MIN 10
#define CG_THROTTLE_LIMIT 1.0 /* % */

enum { PSI_CPU, PSI_MEMORY, PSI_IO, PSI_MAX };
static const char *const psi_files[PSI_MAX] = {"pressure/cpu", "pressure/memory", "pressure/io"};

struct cgroup_snap {
	char path[CG_PATH_MAX]; /* relative to the cgroup root, "" for the root */
	double quota_cpus;
	struct use_cg_cpu cpu;
};

struct snapshot {
	uint64_t time_ns;
	struct use_cpu_times all;
	struct use_cpu_times *cpus;
	size_t nr_cpus, cap_cpus;
	unsigned procs_running;
	struct use_meminfo mem;
	struct use_vmstat vm;
	bool have_vm;
	struct use_disk_stat disks[MAX_DISKS];
	uint64_t disk_errs[MAX_DISKS]; /* UINT64_MAX: no ioerr_cnt */
	size_t nr_disks;
	struct use_net_stat nets[MAX_NETS];
	size_t nr_nets;
	struct use_tcp_stat tcp;
	bool have_tcp;
	struct use_psi psi[PSI_MAX];
	bool have_psi[PSI_MAX];
	struct cgroup_snap cgroups[MAX_CGROUPS];
	size_t nr_cgroups;
};

struct use_sampler {
	struct event_sink sink;
	int proc_fd, sys_fd;
	int loadavg_fd; /* kept open: read on every tick, opening it cost more than reading */
	char *buf;	/* BIG_FILE bytes */
	struct snapshot snaps[2];
	int cur; /* index of the baseline in snaps */
	unsigned missing;
	/* Run-queue samples of this interval (loadavg, minus ourselves). */
	uint64_t runnable_sum;
	uint64_t runnable_ticks;
	char cg_root[32]; /* "fs/cgroup" or "fs/cgroup/unified", "" when none */
};

const char *use_missing_text(unsigned bit)
{
	switch (bit) {
	case USE_MISSING_PSI:
		return "PSI is not available (/proc/pressure missing: kernel built with "
		       "CONFIG_PSI_DEFAULT_DISABLED and booted without psi=1); USE saturation "
		       "uses run-queue, paging and queue counters instead";
	case USE_MISSING_LOADAVG:
		return "/proc/loadavg unreadable: CPU saturation uses procs_running at interval ends";
	case USE_MISSING_DISKSTATS:
		return "/proc/diskstats unreadable: no disk USE metrics";
	case USE_MISSING_NET_DEV:
		return "/proc/net/dev unreadable: no network interface USE metrics";
	case USE_MISSING_SNMP:
		return "/proc/net/snmp unreadable: no TCP retransmit figures";
	case USE_MISSING_VMSTAT:
		return "/proc/vmstat unreadable: no memory saturation (paging) or OOM kill counts";
	case USE_MISSING_CGROUP2:
		return "no cgroup v2 hierarchy under /sys/fs/cgroup: no cgroup CPU throttling figures";
	default:
		return NULL;
	}
}

static ssize_t read_small(int dirfd, const char *path, char *buf)
{
	return read_file_at(dirfd, path, buf, SMALL_FILE);
}

static int read_stat(struct use_sampler *us, struct snapshot *s)
{
	int need;
	ssize_t n = read_file_at(us->proc_fd, "stat", us->buf, BIG_FILE);

	if (n < 0)
		return (int)n;
	need = use_parse_stat(us->buf, &s->all, s->cpus, s->cap_cpus, &s->procs_running);
	if (need < 0)
		return need;
	if ((size_t)need > s->cap_cpus) {
		s->cpus = xrealloc(s->cpus, (size_t)need * sizeof(*s->cpus));
		s->cap_cpus = (size_t)need;
		need = use_parse_stat(us->buf, &s->all, s->cpus, s->cap_cpus, &s->procs_running);
		if (need < 0)
			return need;
	}
	s->nr_cpus = (size_t)need;
	return 0;
}

static void read_disks(struct use_sampler *us, struct snapshot *s)
{
	struct use_disk_stat all[MAX_DISKS];
	char path[USE_NAME_LEN + 32], small[SMALL_FILE];
	int n;

	s->nr_disks = 0;
	if (read_file_at(us->proc_fd, "diskstats", us->buf, BIG_FILE) < 0) {
		us->missing |= USE_MISSING_DISKSTATS;
		return;
	}
	n = use_parse_diskstats(us->buf, all, MAX_DISKS);
	for (int i = 0; i < n && i < MAX_DISKS; i++) {
		uint64_t errs;

		/* Whole disks only: partitions are not in /sys/block. */
		if (snprintf(path, sizeof(path), "block/%s", all[i].name) >= (int)sizeof(path) ||
		    us->sys_fd < 0 || faccessat(us->sys_fd, path, F_OK, 0) < 0)
			continue;
		if (snprintf(path, sizeof(path), "block/%s/device/ioerr_cnt", all[i].name) >=
			    (int)sizeof(path) ||
		    read_small(us->sys_fd, path, small) < 0 || use_parse_counter(small, &errs) < 0)
			errs = UINT64_MAX;
		s->disks[s->nr_disks] = all[i];
		s->disk_errs[s->nr_disks++] = errs;
	}
}

static void read_nets(struct use_sampler *us, struct snapshot *s)
{
	int n;

	s->nr_nets = 0;
	if (read_file_at(us->proc_fd, "net/dev", us->buf, BIG_FILE) < 0) {
		us->missing |= USE_MISSING_NET_DEV;
		return;
	}
	n = use_parse_net_dev(us->buf, s->nets, MAX_NETS);
	s->nr_nets = n < 0 ? 0 : (size_t)(n > MAX_NETS ? MAX_NETS : n);
}

/* A cgroup with a CPU quota and throttling figures: one more of the snapshot's. */
static bool visit_cgroup(void *ctx, int dirfd, const char *rel, ino_t ino)
{
	struct snapshot *s = ctx;
	char small[SMALL_FILE];
	double quota;

	(void)ino;
	if (s->nr_cgroups >= MAX_CGROUPS)
		return false;
	if (strlen(rel) < CG_PATH_MAX && read_small(dirfd, "cpu.max", small) >= 0 &&
	    use_parse_cg_cpu_max(small, &quota) == 0 && quota > 0) {
		struct cgroup_snap *cg = &s->cgroups[s->nr_cgroups];

		if (read_small(dirfd, "cpu.stat", small) >= 0 &&
		    use_parse_cg_cpu_stat(small, &cg->cpu) == 0 && cg->cpu.has_throttling) {
			snprintf(cg->path, sizeof(cg->path), "%s", *rel ? rel : "/");
			cg->quota_cpus = quota;
			s->nr_cgroups++;
		}
	}
	return s->nr_cgroups < MAX_CGROUPS;
}

static void read_cgroups(struct use_sampler *us, struct snapshot *s)
{
	int fd;

	s->nr_cgroups = 0;
	if (!us->cg_root[0])
		return;
	fd = openat(us->sys_fd, us->cg_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* The root (a quota set on the whole box), then the tree below it, bounded. */
	if (visit_cgroup(s, fd, "", 0))
		cgroup_walk(fd, "", CGROUP_DEPTH, visit_cgroup, s);
	close(fd);
}

static int read_snapshot(struct use_sampler *us, struct snapshot *s, uint64_t now)
{
	char small[SMALL_FILE];
	int err;

	s->time_ns = now;
	err = read_stat(us, s);
	if (err < 0)
		return err;
	if (read_small(us->proc_fd, "meminfo", small) < 0 || use_parse_meminfo(small, &s->mem) < 0)
		return -EIO;
	s->have_vm = read_file_at(us->proc_fd, "vmstat", us->buf, BIG_FILE) >= 0 &&
		     use_parse_vmstat(us->buf, &s->vm) == 0;
	if (!s->have_vm)
		us->missing |= USE_MISSING_VMSTAT;
	s->have_tcp = read_small(us->proc_fd, "net/snmp", small) >= 0 &&
		      use_parse_snmp_tcp(small, &s->tcp) == 0;
	if (!s->have_tcp)
		us->missing |= USE_MISSING_SNMP;
	for (int i = 0; i < PSI_MAX; i++) {
		s->have_psi[i] = read_small(us->proc_fd, psi_files[i], small) >= 0 &&
				 use_parse_psi(small, &s->psi[i]) == 0;
		if (!s->have_psi[i])
			us->missing |= USE_MISSING_PSI;
	}
	read_disks(us, s);
	read_nets(us, s);
	read_cgroups(us, s);
	return 0;
}

static void find_cgroup_root(struct use_sampler *us)
{
	static const char *const roots[] = {"fs/cgroup", "fs/cgroup/unified"};
	char path[64];

	us->cg_root[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(roots) && us->sys_fd >= 0; i++) {
		snprintf(path, sizeof(path), "%s/cgroup.controllers", roots[i]);
		if (faccessat(us->sys_fd, path, F_OK, 0) == 0) {
			snprintf(us->cg_root, sizeof(us->cg_root), "%s", roots[i]);
			return;
		}
	}
	us->missing |= USE_MISSING_CGROUP2;
}

int use_sampler__set_roots(struct use_sampler *us, const struct use_sampler_opts *opts)
{
	int proc_fd = open(opts->proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (proc_fd < 0)
		return -errno;
	if (us->proc_fd >= 0)
		close(us->proc_fd);
	if (us->sys_fd >= 0)
		close(us->sys_fd);
	us->proc_fd = proc_fd;
	if (us->loadavg_fd >= 0)
		close(us->loadavg_fd);
	us->loadavg_fd = openat(proc_fd, "loadavg", O_RDONLY | O_CLOEXEC);
	/* Without /sys: no disk filter, link speed or cgroups, the rest works. */
	us->sys_fd = open(opts->sys_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	find_cgroup_root(us);
	return 0;
}

struct use_sampler *use_sampler__new(const struct use_sampler_opts *opts, struct event_sink sink,
				     uint64_t now_ns)
{
	struct use_sampler *us = xcalloc(1, sizeof(*us));
	int err;

	us->sink = sink;
	us->proc_fd = us->sys_fd = us->loadavg_fd = -1;
	us->buf = xmalloc(BIG_FILE);
	err = use_sampler__set_roots(us, opts);
	if (!err)
		err = read_snapshot(us, &us->snaps[0], now_ns);
	if (err < 0) {
		use_sampler__free(us);
		errno = -err;
		return NULL;
	}
	return us;
}

void use_sampler__free(struct use_sampler *us)
{
	if (!us)
		return;
	if (us->proc_fd >= 0)
		close(us->proc_fd);
	if (us->sys_fd >= 0)
		close(us->sys_fd);
	if (us->loadavg_fd >= 0)
		close(us->loadavg_fd);
	free(us->snaps[0].cpus);
	free(us->snaps[1].cpus);
	free(us->buf);
	free(us);
}

void use_sampler__tick(struct use_sampler *us, uint64_t now_ns)
{
	char small[256];
	unsigned running;
	ssize_t n = us->loadavg_fd >= 0 ? pread(us->loadavg_fd, small, sizeof(small) - 1, 0) : -1;

	if (n >= 0)
		small[n] = '\0';
	if (n < 0 || use_parse_loadavg(small, &running) < 0) {
		us->missing |= USE_MISSING_LOADAVG;
		return;
	}
	/* We are running while we read it: do not count ourselves. */
	us->runnable_sum += running > 0 ? running - 1 : 0;
	us->runnable_ticks++;
}

unsigned use_sampler__missing(const struct use_sampler *us)
{
	return us->missing;
}

static int32_t to_milli32(double v)
{
	if (isnan(v))
		return TT_USE_UNKNOWN;
	if (v < 0)
		v = 0;
	if (v > 2e6)
		v = 2e6;
	return (int32_t)(v * 1000.0 + 0.5);
}

static int64_t to_milli64(double v)
{
	if (isnan(v))
		return TT_USE_UNKNOWN;
	if (v < 0)
		v = 0;
	if (v > 9e12)
		v = 9e12;
	return (int64_t)(v * 1000.0 + 0.5);
}

static double pct(uint64_t part, uint64_t whole)
{
	double v;

	if (!whole)
		return NAN;
	v = 100.0 * (double)part / (double)whole;
	return v > 100.0 ? 100.0 : v;
}

/* A record with every figure unknown. */
static void record_init(struct tt_use_metric *r, unsigned kind, unsigned index, const char *name,
			uint64_t now, uint64_t interval_ns)
{
	size_t len = strlen(name);

	memset(r, 0, sizeof(*r));
	r->hdr = (struct tt_event_header){TT_EV_USE_METRIC, TT_USE_METRIC_VERSION, sizeof(*r), now};
	r->interval_ns = interval_ns;
	r->kind = (__u16)kind;
	r->index = (__u16)index;
	r->util_milli = r->psi_some_milli = r->psi_full_milli = TT_USE_UNKNOWN;
	r->sat_milli = r->sat_limit_milli = r->aux_milli = TT_USE_UNKNOWN;
	/* Too long (deep cgroup paths): keep the specific end. */
	if (len >= sizeof(r->name)) {
		memcpy(r->name, "..", 2);
		memcpy(r->name + 2, name + len - (sizeof(r->name) - 3), sizeof(r->name) - 3);
	} else {
		memcpy(r->name, name, len);
	}
}

static void set_sat(struct tt_use_metric *r, unsigned what, double value, double limit)
{
	r->sat_what = (__u16)what;
	r->sat_milli = to_milli64(value);
	r->sat_limit_milli = to_milli64(limit);
}

static void set_aux(struct tt_use_metric *r, unsigned what, double value)
{
	r->aux_what = (__u16)what;
	r->aux_milli = to_milli64(value);
}

static void set_psi(struct tt_use_metric *r, const struct snapshot *a, const struct snapshot *b,
		    int which, uint64_t interval_ns)
{
	uint64_t us = interval_ns / 1000;

	if (!a->have_psi[which] || !b->have_psi[which] || !us)
		return;
	r->psi_some_milli = to_milli32(
		pct(use_counter_delta(a->psi[which].some_us, b->psi[which].some_us), us));
	if (a->psi[which].has_full && b->psi[which].has_full)
		r->psi_full_milli = to_milli32(
			pct(use_counter_delta(a->psi[which].full_us, b->psi[which].full_us), us));
}

/* Sets the saturated flag from the figure against its limit, or from PSI. */
static void finish(struct use_sampler *us, struct tt_use_metric *r, bool may_saturate)
{
	bool over = r->sat_milli != TT_USE_UNKNOWN && r->sat_limit_milli != TT_USE_UNKNOWN &&
		    r->sat_milli > r->sat_limit_milli;

	if ((may_saturate && over) || use_psi_saturated(r))
		r->flags |= TT_USE_SATURATED;
	sink_emit(&us->sink, &r->hdr);
}

static double cpu_util(const struct use_cpu_times *a, const struct use_cpu_times *b)
{
	if (!a->valid || !b->valid || b->total <= a->total)
		return NAN;
	return pct(use_counter_delta(a->busy, b->busy), b->total - a->total);
}

static int emit_cpus(struct use_sampler *us, const struct snapshot *a, const struct snapshot *b,
		     uint64_t interval_ns)
{
	struct tt_use_metric r;
	double runnable;
	size_t ncpu = 0;
	int n = 0;

	for (size_t i = 0; i < b->nr_cpus; i++)
		ncpu += b->cpus[i].valid;
	if (!ncpu)
		ncpu = 1;
	if (us->runnable_ticks)
		runnable = (double)us->runnable_sum / (double)us->runnable_ticks;
	else
		runnable = b->procs_running > 0 ? b->procs_running - 1 : 0;
	record_init(&r, TT_USE_CPU, TT_USE_ALL, "cpu", b->time_ns, interval_ns);
	r.util_milli = to_milli32(cpu_util(&a->all, &b->all));
	set_sat(&r, TT_USE_FIG_RUNNABLE_PER_CPU, runnable / (double)ncpu, 1.0);
	set_psi(&r, a, b, PSI_CPU, interval_ns);
	finish(us, &r, true);
	n++;
	for (size_t i = 0; i < b->nr_cpus && i < a->nr_cpus; i++) {
		char name[32];

		if (!a->cpus[i].valid || !b->cpus[i].valid)
			continue;
		snprintf(name, sizeof(name), "cpu%zu", i);
		record_init(&r, TT_USE_CPU, (unsigned)i, name, b->time_ns, interval_ns);
		r.util_milli = to_milli32(cpu_util(&a->cpus[i], &b->cpus[i]));
		finish(us, &r, true);
		n++;
	}
	return n;
}

static void emit_memory(struct use_sampler *us, const struct snapshot *a, const struct snapshot *b,
			uint64_t interval_ns)
{
	double secs = (double)interval_ns / 1e9;
	struct tt_use_metric r;

	record_init(&r, TT_USE_MEMORY, TT_USE_ALL, "memory", b->time_ns, interval_ns);
	r.util_milli = to_milli32(pct(b->mem.total_kb - b->mem.available_kb, b->mem.total_kb));
	if (a->have_vm && b->have_vm) {
		uint64_t paging = use_counter_delta(a->vm.pswpin, b->vm.pswpin) +
				  use_counter_delta(a->vm.pswpout, b->vm.pswpout) +
				  use_counter_delta(a->vm.pgscan_direct, b->vm.pgscan_direct);

		set_sat(&r, TT_USE_FIG_PAGING, (double)paging / secs, MEM_PAGING_LIMIT);
		set_aux(&r, TT_USE_FIG_SCAN,
			(double)use_counter_delta(a->vm.pgscan_kswapd, b->vm.pgscan_kswapd) / secs);
		if (a->vm.has_oom_kill && b->vm.has_oom_kill) {
			r.errors = use_counter_delta(a->vm.oom_kill, b->vm.oom_kill);
			r.flags |= TT_USE_ERRORS_KNOWN;
		}
	}
	set_psi(&r, a, b, PSI_MEMORY, interval_ns);
	finish(us, &r, true);
}

static const struct use_disk_stat *find_disk(const struct snapshot *s, const char *name,
					     size_t *ret_i)
{
	for (size_t i = 0; i < s->nr_disks; i++)
		if (!strcmp(s->disks[i].name, name)) {
			*ret_i = i;
			return &s->disks[i];
		}
	return NULL;
}

static int emit_disks(struct use_sampler *us, const struct snapshot *a, const struct snapshot *b,
		      uint64_t interval_ns)
{
	double ms = (double)interval_ns / 1e6;
	int n = 0;

	for (size_t i = 0; i < b->nr_disks; i++) {
		const struct use_disk_stat *d1 = &b->disks[i], *d0;
		struct tt_use_metric r;
		uint64_t ios, io_ms;
		size_t j;

		d0 = find_disk(a, d1->name, &j);
		/* A device that never did any I/O (unused loop, zram) is noise. */
		if (!d0 || (!d1->ios && !d1->busy_ms))
			continue;
		record_init(&r, TT_USE_DISK, (unsigned)i, d1->name, b->time_ns, interval_ns);
		r.util_milli = to_milli32(
			pct(use_counter_delta(d0->busy_ms, d1->busy_ms), (uint64_t)(ms + 0.5)));
		set_sat(&r, TT_USE_FIG_QUEUE,
			(double)use_counter_delta(d0->weighted_ms, d1->weighted_ms) / ms,
			DISK_QUEUE_LIMIT);
		ios = use_counter_delta(d0->ios, d1->ios);
		io_ms = use_counter_delta(d0->io_time_ms, d1->io_time_ms);
		set_aux(&r, TT_USE_FIG_AWAIT_MS, ios ? (double)io_ms / (double)ios : 0.0);
		if (a->disk_errs[j] != UINT64_MAX && b->disk_errs[i] != UINT64_MAX) {
			r.errors = use_counter_delta(a->disk_errs[j], b->disk_errs[i]);
			r.flags |= TT_USE_ERRORS_KNOWN;
		}
		set_psi(&r, a, b, PSI_IO, interval_ns); /* box-wide: on every disk */
		finish(us, &r, true);
		n++;
	}
	return n;
}

/* Link speed in Mb/s from SYS/class/net/IF/speed; 0 when unknown (virtual NICs say -1). */
static double link_speed(struct use_sampler *us, const char *ifname)
{
	char path[USE_NAME_LEN + 32], small[64];

	snprintf(path, sizeof(path), "class/net/%s/speed", ifname);
	if (us->sys_fd < 0 || read_file_at(us->sys_fd, path, small, sizeof(small)) <= 0)
		return 0;
	return use_parse_link_speed(small);
}

static int emit_nets(struct use_sampler *us, const struct snapshot *a, const struct snapshot *b,
		     uint64_t interval_ns)
{
	double secs = (double)interval_ns / 1e9;
	int n = 0;

	for (size_t i = 0; i < b->nr_nets; i++) {
		const struct use_net_stat *n1 = &b->nets[i], *n0 = NULL;
		struct tt_use_metric r;
		uint64_t rx, tx;
		double speed;

		/* Loopback has no limit; an interface that never moved a byte is noise. */
		if (!strcmp(n1->name, "lo") || (!n1->rx_bytes && !n1->tx_bytes))
			continue;
		for (size_t j = 0; j < a->nr_nets && !n0; j++)
			if (!strcmp(a->nets[j].name, n1->name))
				n0 = &a->nets[j];
		if (!n0)
			continue;
		rx = use_counter_delta(n0->rx_bytes, n1->rx_bytes);
		tx = use_counter_delta(n0->tx_bytes, n1->tx_bytes);
		record_init(&r, TT_USE_NET, (unsigned)i, n1->name, b->time_ns, interval_ns);
		speed = link_speed(us, n1->name);
		if (speed > 0)
			r.util_milli = to_milli32(100.0 * (double)(rx > tx ? rx : tx) * 8.0 / secs /
						  (speed * 1e6));
		set_sat(&r, TT_USE_FIG_DROPS,
			(double)use_counter_delta(n0->drops, n1->drops) / secs, NET_DROPS_LIMIT);
		set_aux(&r, TT_USE_FIG_BYTES, (double)(rx + tx) / secs);
		r.errors = use_counter_delta(n0->errors, n1->errors);
		r.flags |= TT_USE_ERRORS_KNOWN;
		finish(us, &r, true);
		n++;
	}
	return n;
}

static void emit_tcp(struct use_sampler *us, const struct snapshot *a, const struct snapshot *b,
		     uint64_t interval_ns)
{
	struct tt_use_metric r;
	uint64_t out, re;

	if (!a->have_tcp || !b->have_tcp)
		return;
	out = use_counter_delta(a->tcp.out_segs, b->tcp.out_segs);
	re = use_counter_delta(a->tcp.retrans_segs, b->tcp.retrans_segs);
	record_init(&r, TT_USE_TCP, TT_USE_ALL, "tcp", b->time_ns, interval_ns);
	set_sat(&r, TT_USE_FIG_RETRANS_PCT, out ? 100.0 * (double)re / (double)out : 0.0,
		TCP_RETRANS_LIMIT);
	r.errors = use_counter_delta(a->tcp.in_errs, b->tcp.in_errs);
	r.flags |= TT_USE_ERRORS_KNOWN;
	finish(us, &r, re >= TCP_RETRANS_MIN); /* a few retransmits are no saturation */
}

static int emit_cgroups(struct use_sampler *us, const struct snapshot *a, const struct snapshot *b,
			uint64_t interval_ns)
{
	double interval_us = (double)interval_ns / 1e3;
	int n = 0;

	for (size_t i = 0; i < b->nr_cgroups; i++) {
		const struct cgroup_snap *c1 = &b->cgroups[i], *c0 = NULL;
		struct tt_use_metric r;
		double used;

		for (size_t j = 0; j < a->nr_cgroups && !c0; j++)
			if (!strcmp(a->cgroups[j].path, c1->path))
				c0 = &a->cgroups[j];
		if (!c0)
			continue;
		used = (double)use_counter_delta(c0->cpu.usage_us, c1->cpu.usage_us);
		record_init(&r, TT_USE_CGROUP_CPU, (unsigned)i, c1->path, b->time_ns, interval_ns);
		r.util_milli = to_milli32(100.0 * used / (interval_us * c1->quota_cpus));
		set_sat(&r, TT_USE_FIG_THROTTLED_PCT,
			100.0 *
				(double)use_counter_delta(c0->cpu.throttled_us,
							  c1->cpu.throttled_us) /
				interval_us,
			CG_THROTTLE_LIMIT);
		finish(us, &r, true);
		n++;
	}
	return n;
}

/* The box now, for the header: load averages, uptime, memory and swap (top's summary). */
static void emit_host(struct use_sampler *us, const struct snapshot *b)
{
	struct tt_host_stats h = {0};
	char small[256];
	double avg[3] = {0}, up = 0;
	unsigned tasks = 0;
	ssize_t n = us->loadavg_fd >= 0 ? pread(us->loadavg_fd, small, sizeof(small) - 1, 0) : -1;

	if (n >= 0) {
		small[n] = '\0';
		use_parse_loadavg_all(small, avg, &tasks);
	}
	if (read_small(us->proc_fd, "uptime", small) >= 0)
		use_parse_uptime(small, &up);
	h.hdr = (struct tt_event_header){TT_EV_HOST_STATS, TT_HOST_STATS_VERSION, sizeof(h),
					 b->time_ns};
	h.uptime_ns = (uint64_t)(up * 1e9);
	h.mem_total_kb = b->mem.total_kb;
	h.mem_avail_kb = b->mem.available_kb;
	h.swap_total_kb = b->mem.swap_total_kb;
	h.swap_free_kb = b->mem.swap_free_kb;
	for (int i = 0; i < 3; i++)
		h.load_milli[i] = (uint32_t)(avg[i] * 1000 + 0.5);
	h.nr_tasks = tasks;
	sink_emit(&us->sink, &h.hdr);
}

int use_sampler__sample(struct use_sampler *us, uint64_t now_ns)
{
	struct snapshot *a = &us->snaps[us->cur], *b = &us->snaps[!us->cur];
	uint64_t interval_ns;
	int err, n = 0;

	err = read_snapshot(us, b, now_ns);
	if (err < 0)
		return err;
	interval_ns = b->time_ns > a->time_ns ? b->time_ns - a->time_ns : 0;
	if (interval_ns) {
		n += emit_cpus(us, a, b, interval_ns);
		emit_memory(us, a, b, interval_ns);
		n++;
		n += emit_disks(us, a, b, interval_ns);
		n += emit_nets(us, a, b, interval_ns);
		if (a->have_tcp && b->have_tcp)
			n++;
		emit_tcp(us, a, b, interval_ns);
		n += emit_cgroups(us, a, b, interval_ns);
	}
	emit_host(us, b);
	us->runnable_sum = 0;
	us->runnable_ticks = 0;
	us->cur = !us->cur;
	return n;
}
