// SPDX-License-Identifier: GPL-2.0-only
/* Loader of the application-label probes (see bpf_labels.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_labels.h"
#include "labels.shared.h"
#include "labels.skel.h"
#include "util.h"

_Static_assert(TT_LABEL_CONFS >= LABEL_MAX_DEFS, "a --label definition without its tt_label_conf");

struct bpf_labels {
	struct labels_bpf *skel;
	struct bpf_link *links[2 * LABEL_MAX_DEFS];
	size_t nr_links;
	struct bpf_link *iter;
	char names[LABEL_MAX_SLOTS][LABEL_NAME_LEN];
	size_t nr_names;
	bool names_sent;
};

static int reuse(struct bpf_map *map, struct bpf_object *first)
{
	struct bpf_map *shared = bpf_object__find_map_by_name(first, bpf_map__name(map));

	return shared ? bpf_map__reuse_fd(map, bpf_map__fd(shared)) : -ENOENT;
}

static int load(struct bpf_labels *l, struct bpf_object *first, int labels_fd, int self_pid,
		bool filter)
{
	struct labels_bpf *s = l->skel;
	int err;

	s->rodata->tt_self_tgid = (uint32_t)self_pid;
	s->rodata->tt_filter_tgids = filter;
	s->rodata->tt_wakeup_bytes = 1 << 20;
	err = reuse(s->maps.tt_events, first) ?: reuse(s->maps.tt_drops, first) ?:
	      reuse(s->maps.tt_tgids, first) ?: reuse(s->maps.tt_stack_ids, first) ?:
	      reuse(s->maps.tt_counters, first);
	if (!err && labels_fd >= 0)
		err = bpf_map__reuse_fd(s->maps.tt_labels, labels_fd);
	if (err)
		return err;
	return labels_bpf__load(s) ? -errno : 0;
}

static void conf_of(const struct label_def *d, struct tt_label_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->slot = (uint32_t)d->slot;
	c->op = d->kind == LABEL_CLEAR ? TT_LABEL_OP_CLEAR : TT_LABEL_OP_SET;
	c->argn = (uint32_t)d->argn;
	switch (d->arg_kind) {
	case LABEL_ARG_NUMBER:
		c->arg_kind = TT_LABEL_ARG_NUMBER;
		break;
	case LABEL_ARG_STRING:
		c->arg_kind = TT_LABEL_ARG_STRING;
		break;
	case LABEL_ARG_LITERAL:
		c->arg_kind = TT_LABEL_ARG_LITERAL;
		snprintf(c->literal, sizeof(c->literal), "%s", d->literal);
		break;
	default:
		c->arg_kind = TT_LABEL_ARG_NONE;
	}
}

static struct bpf_link *attach_one(struct bpf_labels *l, const struct label_def *d, uint32_t idx,
				   bool retprobe)
{
	DECLARE_LIBBPF_OPTS(bpf_uprobe_opts, o);
	struct bpf_program *prog =
		retprobe ? l->skel->progs.tt_label_return : l->skel->progs.tt_label_enter;

	o.func_name = d->function;
	o.retprobe = retprobe;
	o.bpf_cookie = idx;
	return bpf_program__attach_uprobe_opts(prog, d->pid ? d->pid : -1, d->binary, 0, &o);
}

/* Attaches definition idx; on failure says why through warn. */
static void attach_def(struct bpf_labels *l, const struct label_def *d, uint32_t idx,
		       bpf_labels_warn_fn warn)
{
	static const char *const kinds[] = {"--label", "--label-clear", "--label-scope"};
	struct bpf_link *entry, *ret = NULL;
	struct tt_label_conf c;
	char msg[1024], why[700];

	conf_of(d, &c);
	if (access(d->binary, R_OK) < 0) {
		snprintf(why, sizeof(why), "cannot read %s: %s", d->binary, strerror(errno));
		goto fail;
	}
	if (bpf_map_update_elem(bpf_map__fd(l->skel->maps.tt_label_conf), &idx, &c, BPF_ANY) < 0) {
		snprintf(why, sizeof(why), "cannot configure the probe: %s", strerror(errno));
		goto fail;
	}
	entry = attach_one(l, d, idx, false);
	if (entry && d->kind == LABEL_SCOPE) {
		ret = attach_one(l, d, idx, true);
		if (!ret) {
			int e = errno;

			bpf_link__destroy(entry);
			entry = NULL;
			errno = e;
		}
	}
	if (!entry) {
		if (errno == ENOENT)
			snprintf(why, sizeof(why),
				 "no function %s in %s (stripped, or another name?)", d->function,
				 d->binary);
		else
			snprintf(why, sizeof(why), "cannot attach to %s in %s: %s", d->function,
				 d->binary, strerror(errno));
		goto fail;
	}
	l->links[l->nr_links++] = entry;
	if (ret)
		l->links[l->nr_links++] = ret;
	return;
fail:
	snprintf(msg, sizeof(msg), "%s %s: %s; the other labels go on", kinds[d->kind], d->name,
		 why);
	if (warn)
		warn(msg);
}

struct bpf_labels *bpf_labels__new(const struct label_set *set, struct bpf_object *first,
				   int labels_fd, int self_pid, bool filter_tgids,
				   bpf_labels_warn_fn warn, char *err, size_t errlen)
{
	struct bpf_labels *l = xcalloc(1, sizeof(*l));
	int e;

	l->skel = labels_bpf__open();
	if (!l->skel) {
		e = -errno;
		snprintf(err, errlen, "labels: cannot open bpf/labels.bpf.c: %s", strerror(-e));
		goto fail;
	}
	e = load(l, first, labels_fd, self_pid, filter_tgids);
	if (e) {
		snprintf(
			err, errlen,
			"labels: cannot load bpf/labels.bpf.c: %s (sleepable uprobes need Linux 5.19+)",
			strerror(-e));
		goto fail;
	}
	for (size_t i = 0; i < set->nr_defs; i++)
		attach_def(l, &set->defs[i], (uint32_t)i, warn);
	if (!l->nr_links) {
		e = -ENOENT;
		snprintf(err, errlen, "labels: no label definition could attach");
		goto fail;
	}
	l->iter = bpf_program__attach_iter(l->skel->progs.send_labels, NULL);
	if (!l->iter) {
		e = -errno;
		snprintf(err, errlen, "labels: cannot attach the label iterator: %s", strerror(-e));
		goto fail;
	}
	memcpy(l->names, set->names, sizeof(l->names));
	l->nr_names = set->nr_names;
	return l;
fail:
	bpf_labels__free(l);
	errno = -e;
	return NULL;
}

static void send_names(struct bpf_labels *l, const struct event_sink *sink, uint64_t now)
{
	for (size_t i = 0; i < l->nr_names; i++) {
		struct tt_label_name rec = {
			.hdr = {TT_EV_LABEL_NAME, TT_LABEL_NAME_VERSION, sizeof(rec), now},
			.slot = (uint32_t)i,
		};

		memcpy(rec.name, l->names[i], sizeof(rec.name));
		rec.name[sizeof(rec.name) - 1] = '\0';
		sink_emit(sink, &rec.hdr);
	}
	l->names_sent = true;
}

int bpf_labels__tick(struct bpf_labels *l, const struct event_sink *sink, uint64_t now)
{
	char buf[64];
	ssize_t n;
	int fd;

	if (!l->names_sent)
		send_names(l, sink, now);
	fd = bpf_iter_create(bpf_link__fd(l->iter));
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	n = n < 0 ? -errno : 0;
	close(fd);
	return (int)n;
}

void bpf_labels__free(struct bpf_labels *l)
{
	if (!l)
		return;
	bpf_link__destroy(l->iter);
	for (size_t i = 0; i < l->nr_links; i++)
		bpf_link__destroy(l->links[i]);
	labels_bpf__destroy(l->skel);
	free(l);
}
