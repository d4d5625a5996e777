// SPDX-License-Identifier: GPL-2.0-only
/*
 * Portable encoding of event records (see event_codec.h). Each record type
 * is described by a layout string of field widths in declaration order:
 * '1' '2' '4' '8' are integers of that many bytes, 'c' is a comm
 * (TT_COMM_LEN bytes, copied as is). The variable tail (stack frames, string
 * bytes) follows the fixed part.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "event_codec.h"

#define HDR "2248"

/* No implicit padding: the layouts below must cover each struct exactly. */
_Static_assert(sizeof(struct tt_event_header) == 16, "tt_event_header layout");
_Static_assert(sizeof(struct tt_thread_sample) == 144, "tt_thread_sample layout");
_Static_assert(sizeof(struct tt_thread_info) == 56, "tt_thread_info layout");
_Static_assert(sizeof(struct tt_thread_repeat) == 24, "tt_thread_repeat layout");
_Static_assert(sizeof(struct tt_thread_repeat) + TT_REPEAT_MAX * sizeof(__u32) <= TT_EVENT_MAX_SIZE,
	       "TT_EVENT_MAX_SIZE holds a full repeat record");
_Static_assert(sizeof(struct tt_string) == 24, "tt_string layout");
_Static_assert(sizeof(struct tt_proc_info) == 56, "tt_proc_info layout");
_Static_assert(sizeof(struct tt_host_stats) == 72, "tt_host_stats layout");
_Static_assert(sizeof(struct tt_stack) == 32, "tt_stack layout");
_Static_assert(sizeof(struct tt_tick) == 48, "tt_tick layout");
_Static_assert(sizeof(struct tt_drops) == 16 + 8 * TT_DROP_MAX, "tt_drops layout");
_Static_assert(sizeof(struct tt_stack) + TT_MAX_STACK_DEPTH * sizeof(__u64) <= TT_EVENT_MAX_SIZE,
	       "TT_EVENT_MAX_SIZE holds a full stack");
_Static_assert(sizeof(struct tt_frame_name) == 40, "tt_frame_name layout");
_Static_assert(sizeof(struct tt_build_id) == 24, "tt_build_id layout");
_Static_assert(sizeof(struct tt_clock) == 16, "tt_clock layout");
_Static_assert(sizeof(struct tt_interval) == 32, "tt_interval layout");
_Static_assert(sizeof(struct tt_use_metric) == 112, "tt_use_metric layout");
_Static_assert(sizeof(struct tt_cpu_sample) == 72, "tt_cpu_sample layout");
_Static_assert(sizeof(struct tt_syscall_stats) == 48 + 4 * TT_SYSCALL_HIST_BUCKETS,
	       "tt_syscall_stats layout");
_Static_assert(sizeof(struct tt_offcpu) == 72, "tt_offcpu layout");
_Static_assert(sizeof(struct tt_io_stats) ==
		       88 + 4 * TT_IO_HIST_BUCKETS + TT_COMM_LEN + TT_IO_DISK_LEN,
	       "tt_io_stats layout");
_Static_assert(sizeof(struct tt_io_wait) == 56 + TT_IO_DISK_LEN, "tt_io_wait layout");
_Static_assert(sizeof(struct tt_prog_stats) == 56, "tt_prog_stats layout");
_Static_assert(sizeof(struct tt_luajit_sample) == 40, "tt_luajit_sample layout");
_Static_assert(sizeof(struct tt_luajit_func) == 40, "tt_luajit_func layout");
_Static_assert(sizeof(struct tt_stack_copy) == 96, "tt_stack_copy layout");
_Static_assert(sizeof(struct tt_luajit_sample) + TT_LJ_MAX_FRAMES * sizeof(__u64) <=
		       TT_EVENT_MAX_SIZE,
	       "TT_EVENT_MAX_SIZE holds a full LuaJIT sample");

enum tail_kind {
	TAIL_NONE,
	TAIL_STRING,
	TAIL_STACK,
	TAIL_FRAME,
	TAIL_LJ_FRAMES,
	TAIL_LJ_NAME,
	TAIL_STACK_BYTES,
	TAIL_TRACE,
	TAIL_CMD,
	TAIL_TIDS,
	TAIL_BUILD_ID,
	TAIL_IO,      /* no tail: a fixed record whose fields are checked */
	TAIL_IO_WAIT, /* the same */
};

_Static_assert(sizeof(struct tt_trace_line) == 40, "tt_trace_line layout");
_Static_assert(sizeof(struct tt_cmd_output) == 72, "tt_cmd_output layout");

struct record_desc {
	const char *name;
	unsigned version;
	size_t fixed_size;
	const char *layout;
	enum tail_kind tail;
};

_Static_assert(sizeof(struct tt_label_value) == 80, "tt_label_value layout");
_Static_assert(sizeof(struct tt_thread_labels) == 32 + 4 * 80, "tt_thread_labels layout");
_Static_assert(sizeof(struct tt_label_name) == 40, "tt_label_name layout");

#define LABEL_VALUE \
	"8"         \
	"11111111"  \
	"cccc"

/* tt_io_stats up to its stacks (version 3 adds them): versions 1 and 2 end there. */
#define IO_STATS_V2    \
	HDR "444444"   \
	    "88888"    \
	    "44444444" \
	    "44444444" \
	    "44444444" \
	    "44444444" \
	    "ccc"
#define IO_STATS_V2_SIZE offsetof(struct tt_io_stats, kstack_id)

static const struct record_desc descs[TT_EV_TYPE_MAX] = {
	[TT_EV_THREAD_LABELS] = {"thread_labels", TT_THREAD_LABELS_VERSION,
				 sizeof(struct tt_thread_labels),
				 HDR "4444" LABEL_VALUE LABEL_VALUE LABEL_VALUE LABEL_VALUE,
				 TAIL_NONE},
	[TT_EV_LABEL_NAME] = {"label_name", TT_LABEL_NAME_VERSION, sizeof(struct tt_label_name),
			      HDR "44c", TAIL_NONE},
	[TT_EV_THREAD_SAMPLE] = {"thread_sample", TT_THREAD_SAMPLE_VERSION,
				 sizeof(struct tt_thread_sample),
				 HDR "44888"
				     "888888"
				     "4444"
				     "4112c"
				     "44",
				 TAIL_NONE},
	[TT_EV_THREAD_REPEAT] = {"thread_repeat", TT_THREAD_REPEAT_VERSION,
				 sizeof(struct tt_thread_repeat), HDR "44", TAIL_TIDS},
	[TT_EV_THREAD_INFO] = {"thread_info", TT_THREAD_INFO_VERSION, sizeof(struct tt_thread_info),
			       HDR "44844c", TAIL_NONE},
	[TT_EV_PROC_INFO] = {"proc_info", TT_PROC_INFO_VERSION, sizeof(struct tt_proc_info),
			     HDR "4444"
				 "88"
				 "44",
			     TAIL_NONE},
	[TT_EV_HOST_STATS] = {"host_stats", TT_HOST_STATS_VERSION, sizeof(struct tt_host_stats),
			      HDR "88888"
				  "4444",
			      TAIL_NONE},
	[TT_EV_STRING] = {"string", TT_STRING_VERSION, sizeof(struct tt_string), HDR "44",
			  TAIL_STRING},
	[TT_EV_STACK] = {"stack", TT_STACK_VERSION, sizeof(struct tt_stack), HDR "44224",
			 TAIL_STACK},
	[TT_EV_TICK] = {"tick", TT_TICK_VERSION, sizeof(struct tt_tick), HDR "4484444", TAIL_NONE},
	[TT_EV_DROPS] = {"drops", TT_DROPS_VERSION, sizeof(struct tt_drops), HDR "88888",
			 TAIL_NONE},
	[TT_EV_CLOCK] = {"clock", TT_CLOCK_VERSION, sizeof(struct tt_clock), HDR, TAIL_NONE},
	[TT_EV_FRAME_NAME] = {"frame_name", TT_FRAME_NAME_VERSION, sizeof(struct tt_frame_name),
			      HDR "8422224", TAIL_FRAME},
	[TT_EV_BUILD_ID] = {"build_id", TT_BUILD_ID_VERSION, sizeof(struct tt_build_id), HDR "422",
			    TAIL_BUILD_ID},
	[TT_EV_INTERVAL] = {"interval", TT_INTERVAL_VERSION, sizeof(struct tt_interval), HDR "844",
			    TAIL_NONE},
	[TT_EV_USE_METRIC] = {"use_metric", TT_USE_METRIC_VERSION, sizeof(struct tt_use_metric),
			      HDR "88888"
				  "444"
				  "2222"
				  "112"
				  "cc",
			      TAIL_NONE},
	[TT_EV_CPU_SAMPLE] = {"cpu_sample", TT_CPU_SAMPLE_VERSION, sizeof(struct tt_cpu_sample),
			      HDR "448444"
				  "22c44",
			      TAIL_NONE},
	[TT_EV_SYSCALL_STATS] = {"syscall_stats", TT_SYSCALL_STATS_VERSION,
				 sizeof(struct tt_syscall_stats),
				 HDR "444488"
				     "44444444"
				     "44444444"
				     "44444444"
				     "44444444",
				 TAIL_NONE},
	[TT_EV_IO_STATS] = {"io_stats", TT_IO_STATS_VERSION, sizeof(struct tt_io_stats),
			    IO_STATS_V2 "44", TAIL_IO},
	[TT_EV_IO_WAIT] = {"io_wait", TT_IO_WAIT_VERSION, sizeof(struct tt_io_wait),
			   HDR "444444"
			       "88"
			       "cc",
			   TAIL_IO_WAIT},
	[TT_EV_OFFCPU] = {"offcpu", TT_OFFCPU_VERSION, sizeof(struct tt_offcpu), HDR "44448844c",
			  TAIL_NONE},
	[TT_EV_PROG_STATS] = {"prog_stats", TT_PROG_STATS_VERSION, sizeof(struct tt_prog_stats),
			      HDR "888c", TAIL_NONE},
	[TT_EV_LUAJIT_SAMPLE] = {"luajit_sample", TT_LUAJIT_SAMPLE_VERSION,
				 sizeof(struct tt_luajit_sample), HDR "44444112", TAIL_LJ_FRAMES},
	[TT_EV_LUAJIT_FUNC] = {"luajit_func", TT_LUAJIT_FUNC_VERSION, sizeof(struct tt_luajit_func),
			       HDR "84444", TAIL_LJ_NAME},
	[TT_EV_TRACE_LINE] = {"trace_line", TT_TRACE_LINE_VERSION, sizeof(struct tt_trace_line),
			      HDR "88224", TAIL_TRACE},
	[TT_EV_CMD_OUTPUT] = {"cmd_output", TT_CMD_OUTPUT_VERSION, sizeof(struct tt_cmd_output),
			      HDR "8888"
				  "4444"
				  "2222",
			      TAIL_CMD},
	/* Live only; a copy larger than TT_EVENT_MAX_SIZE validates but never decodes. */
	[TT_EV_STACK_COPY] = {"stack_copy", TT_STACK_COPY_VERSION, sizeof(struct tt_stack_copy),
			      HDR "44"
				  "88888888"
				  "44",
			      TAIL_STACK_BYTES},
	/* Live only, as the copy that follows it. */
	[TT_EV_OFFCPU_SITE] = {"offcpu_site", TT_OFFCPU_SITE_VERSION, sizeof(struct tt_offcpu_site),
			       HDR "44844", TAIL_NONE},
};

/*
 * Older versions whose fixed part differs from the current one, decoded and
 * encoded as they are (a reader checks hdr.version before reading a field
 * that version lacks). Versions not listed share the current layout.
 */
static const struct {
	unsigned type;
	struct record_desc desc;
} legacy[] = {
	/* Version 1: no labels_hash. */
	{TT_EV_CPU_SAMPLE,
	 {"cpu_sample", 1, 64,
	  HDR "448444"
	      "22c",
	  TAIL_NONE}},
	/* Version 1: no syscall_target_id. */
	{TT_EV_THREAD_SAMPLE,
	 {"thread_sample", 1, 136,
	  HDR "44888"
	      "888888"
	      "4444"
	      "4112c",
	  TAIL_NONE}},
	/* Version 1: no asked_us, target_us, missed (the model reads the weights it took). */
	{TT_EV_TICK, {"tick", 1, 32, HDR "448", TAIL_NONE}},
	/* Versions 1 and 2 (1 reserved io_worker): no stacks. */
	{TT_EV_IO_STATS, {"io_stats", 1, IO_STATS_V2_SIZE, IO_STATS_V2, TAIL_IO}},
	{TT_EV_IO_STATS, {"io_stats", 2, IO_STATS_V2_SIZE, IO_STATS_V2, TAIL_IO}},
};

const char *tt_event_type_name(unsigned type)
{
	if (type < TT_EV_TYPE_MAX && descs[type].name)
		return descs[type].name;
	return "unknown";
}

static const struct record_desc *desc_of(unsigned type)
{
	if (type >= TT_EV_TYPE_MAX || !descs[type].name)
		return NULL;
	return &descs[type];
}

/* The layout of this type and version (the caller checks the version is known). */
static const struct record_desc *desc_for(unsigned type, unsigned version)
{
	for (size_t i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++)
		if (legacy[i].type == type && legacy[i].desc.version == version)
			return &legacy[i].desc;
	return desc_of(type);
}

int tt_event_known(unsigned type, unsigned version)
{
	const struct record_desc *d = desc_of(type);

	return d && version >= 1 && version <= d->version;
}

/* Tail bytes a record of this type and fixed part claims. */
static size_t tail_size(const struct record_desc *d, const void *fixed)
{
	switch (d->tail) {
	case TAIL_STRING:
		return ((const struct tt_string *)fixed)->len;
	case TAIL_STACK:
		return (size_t)((const struct tt_stack *)fixed)->nr * sizeof(__u64);
	case TAIL_FRAME:
		return (size_t)((const struct tt_frame_name *)fixed)->name_len +
		       ((const struct tt_frame_name *)fixed)->module_len +
		       ((const struct tt_frame_name *)fixed)->inlined_len;
	case TAIL_LJ_FRAMES:
		return (size_t)((const struct tt_luajit_sample *)fixed)->nr * sizeof(__u64);
	case TAIL_LJ_NAME:
		return ((const struct tt_luajit_func *)fixed)->len;
	case TAIL_STACK_BYTES:
		return ((const struct tt_stack_copy *)fixed)->len;
	case TAIL_TRACE:
		return (size_t)((const struct tt_trace_line *)fixed)->event_len +
		       ((const struct tt_trace_line *)fixed)->line_len;
	case TAIL_CMD:
		return (size_t)((const struct tt_cmd_output *)fixed)->cmd_len +
		       ((const struct tt_cmd_output *)fixed)->piece_len;
	case TAIL_TIDS:
		return (size_t)((const struct tt_thread_repeat *)fixed)->nr * sizeof(__u32);
	case TAIL_BUILD_ID:
		return (size_t)((const struct tt_build_id *)fixed)->module_len +
		       ((const struct tt_build_id *)fixed)->id_len;
	default:
		return 0;
	}
}

static const char *check_trace(const struct tt_trace_line *t)
{
	if (t->event_len < 3 || t->event_len > TT_TRACE_EVENT_MAX)
		return "trace event name not 3 to 127 bytes";
	if (t->line_len > TT_TRACE_LINE_MAX)
		return "trace line longer than 1023 bytes";
	if (!t->total)
		return "trace line counted as none";
	return NULL;
}

static const char *check_cmd(const struct tt_cmd_output *c)
{
	if (c->index >= TT_CMD_MAX)
		return "command index out of range";
	if (c->flags & ~TT_CMD_FLAGS_KNOWN)
		return "unknown command flags";
	if (!c->cmd_len || c->cmd_len > TT_CMD_TEXT_MAX)
		return "command text not 1 to 1024 bytes";
	if ((size_t)c->cmd_len + c->piece_len > TT_MAX_STRING_LEN)
		return "command record longer than 4096 bytes";
	if (c->output_len > TT_CMD_OUTPUT_MAX || c->offset > c->output_len ||
	    c->piece_len > c->output_len - c->offset)
		return "command output piece outside its output";
	if (c->signal < 0 || c->signal > 64 || (c->signal && c->exit_code != -1))
		return "command status inconsistent";
	if (!c->runs)
		return "command run counted as none";
	return NULL;
}

static const char *check_build_id(const struct tt_build_id *b)
{
	if (!b->module_len || b->module_len > TT_MAX_STRING_LEN)
		return "build-id module name not 1 to 4096 bytes";
	if (!b->id_len || b->id_len > TT_BUILD_ID_MAX)
		return "build-id not 1 to 64 bytes";
	return NULL;
}

/* The bounds of an I/O record: a kernel dev_t, a known direction, errors among the requests. */
static const char *check_io(const struct tt_io_stats *io)
{
	if (io->major >= 1u << 12 || io->minor >= 1u << 20)
		return "I/O device number out of range";
	if (io->op >= TT_IO_OP_MAX)
		return "unknown I/O direction";
	if (!io->count || io->errors > io->count || io->io_worker > io->count)
		return "I/O request counts inconsistent";
	return NULL;
}

static const char *check_io_wait(const struct tt_io_wait *w)
{
	if (w->major >= 1u << 12 || w->minor >= 1u << 20)
		return "I/O device number out of range";
	if (w->op >= TT_IO_OP_MAX)
		return "unknown I/O direction";
	if (w->flags & ~TT_IO_WAIT_ISSUED)
		return "unknown I/O wait flags";
	return NULL;
}

static const char *check_tail(const struct record_desc *d, const void *fixed)
{
	if (d->tail == TAIL_STRING && ((const struct tt_string *)fixed)->len > TT_MAX_STRING_LEN)
		return "string longer than 4096 bytes";
	if (d->tail == TAIL_STACK && ((const struct tt_stack *)fixed)->nr > TT_MAX_STACK_DEPTH)
		return "stack deeper than 127 frames";
	if (d->tail == TAIL_FRAME &&
	    (size_t)((const struct tt_frame_name *)fixed)->name_len +
			    ((const struct tt_frame_name *)fixed)->module_len >
		    TT_MAX_STRING_LEN)
		return "frame name longer than 4096 bytes";
	if (d->tail == TAIL_FRAME &&
	    ((const struct tt_frame_name *)fixed)->inlined_len > TT_MAX_STRING_LEN)
		return "inlined frame names longer than 4096 bytes";
	if (d->tail == TAIL_LJ_FRAMES &&
	    ((const struct tt_luajit_sample *)fixed)->nr > TT_LJ_MAX_FRAMES)
		return "LuaJIT sample deeper than 64 frames";
	if (d->tail == TAIL_LJ_FRAMES &&
	    ((const struct tt_luajit_sample *)fixed)->vmstate >= TT_LJ_VMSTATE_MAX)
		return "unknown LuaJIT VM state";
	if (d->tail == TAIL_LJ_NAME &&
	    ((const struct tt_luajit_func *)fixed)->len > TT_MAX_STRING_LEN)
		return "LuaJIT function name longer than 4096 bytes";
	if (d->tail == TAIL_STACK_BYTES &&
	    ((const struct tt_stack_copy *)fixed)->len > TT_STACK_COPY_MAX)
		return "stack copy longer than 65528 bytes";
	if (d->tail == TAIL_TRACE)
		return check_trace(fixed);
	if (d->tail == TAIL_CMD)
		return check_cmd(fixed);
	if (d->tail == TAIL_TIDS && ((const struct tt_thread_repeat *)fixed)->nr > TT_REPEAT_MAX)
		return "more than 1024 threads in a repeat record";
	if (d->tail == TAIL_BUILD_ID)
		return check_build_id(fixed);
	if (d->tail == TAIL_IO)
		return check_io(fixed);
	if (d->tail == TAIL_IO_WAIT)
		return check_io_wait(fixed);
	return NULL;
}

int tt_event_validate(const struct tt_event_header *ev, size_t avail)
{
	const struct record_desc *d;

	if (avail < sizeof(*ev))
		return -EINVAL;
	d = desc_of(ev->type);
	if (!d || ev->version == 0 || ev->version > d->version)
		return -EINVAL;
	d = desc_for(ev->type, ev->version);
	if (ev->size > avail || ev->size < d->fixed_size || check_tail(d, ev) ||
	    ev->size != d->fixed_size + tail_size(d, ev))
		return -EINVAL;
	return 0;
}

/* Converts the fixed fields between host order (src) and little-endian (dst). */
static void convert_fixed(const char *layout, const unsigned char *src, unsigned char *dst)
{
	for (; *layout; layout++) {
		uint16_t v16;
		uint32_t v32;
		uint64_t v64;

		switch (*layout) {
		case '1':
			*dst++ = *src++;
			break;
		case '2':
			memcpy(&v16, src, 2);
			v16 = htole16(v16); /* an involution: also le16toh */
			memcpy(dst, &v16, 2);
			src += 2, dst += 2;
			break;
		case '4':
			memcpy(&v32, src, 4);
			v32 = htole32(v32);
			memcpy(dst, &v32, 4);
			src += 4, dst += 4;
			break;
		case '8':
			memcpy(&v64, src, 8);
			v64 = htole64(v64);
			memcpy(dst, &v64, 8);
			src += 8, dst += 8;
			break;
		case 'c':
			memcpy(dst, src, TT_COMM_LEN);
			src += TT_COMM_LEN, dst += TT_COMM_LEN;
			break;
		}
	}
}

static void convert_tail(const struct record_desc *d, const unsigned char *src, unsigned char *dst,
			 size_t bytes)
{
	if (d->tail == TAIL_STACK || d->tail == TAIL_LJ_FRAMES) {
		for (size_t off = 0; off < bytes; off += 8) {
			uint64_t v;

			memcpy(&v, src + off, 8);
			v = htole64(v);
			memcpy(dst + off, &v, 8);
		}
	} else if (d->tail == TAIL_TIDS) {
		for (size_t off = 0; off < bytes; off += 4) {
			uint32_t v;

			memcpy(&v, src + off, 4);
			v = htole32(v);
			memcpy(dst + off, &v, 4);
		}
	} else {
		memcpy(dst, src, bytes);
	}
}

ssize_t tt_event_encode(const struct tt_event_header *ev, void *buf, size_t cap)
{
	const struct record_desc *d;

	if (tt_event_validate(ev, ev->size) < 0)
		return -EINVAL;
	if (ev->size > cap)
		return -ENOSPC;
	d = desc_for(ev->type, ev->version);
	convert_fixed(d->layout, (const unsigned char *)ev, buf);
	convert_tail(d, (const unsigned char *)ev + d->fixed_size,
		     (unsigned char *)buf + d->fixed_size, ev->size - d->fixed_size);
	return ev->size;
}

ssize_t tt_event_decode(const void *buf, size_t len, struct tt_event_header *out, size_t out_cap,
			const char **ret_why)
{
	const struct record_desc *d;
	struct tt_event_header hdr;
	const char *why = NULL;
	size_t tail;

	if (len < sizeof(hdr))
		return -EAGAIN;
	convert_fixed(HDR, buf, (unsigned char *)&hdr);
	d = desc_of(hdr.type);
	if (!d)
		why = "unknown record type";
	else if (hdr.version == 0 || hdr.version > d->version)
		why = "record version newer than this threadtop";
	if (why)
		goto invalid;
	d = desc_for(hdr.type, hdr.version);
	if (hdr.size < d->fixed_size)
		why = "record shorter than its type";
	else if (hdr.size > TT_EVENT_MAX_SIZE || hdr.size > out_cap)
		why = "record size out of bounds";
	if (why)
		goto invalid;
	if (len < d->fixed_size)
		return -EAGAIN;
	convert_fixed(d->layout, buf, (unsigned char *)out);
	why = check_tail(d, out);
	if (why)
		goto invalid;
	tail = tail_size(d, out);
	if (hdr.size != d->fixed_size + tail) {
		why = "record size does not match its contents";
		goto invalid;
	}
	if (len < hdr.size)
		return -EAGAIN;
	convert_tail(d, (const unsigned char *)buf + d->fixed_size,
		     (unsigned char *)out + d->fixed_size, tail);
	return hdr.size;
invalid:
	if (ret_why)
		*ret_why = why;
	return -EINVAL;
}
