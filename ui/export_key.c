// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TUI's export key (see export_key.h): a file-name prompt, then
 * export__write over the view's filter and window. Writing is safe as
 * everywhere (never over an existing file: the status says to pick another
 * name), and nothing is printed while curses owns the terminal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "export_key.h"
#include "screen.h"
#include "tui_internal.h"
#include "export.h"
#include "util.h"

#define PATH_LEN 256

struct export_prompt {
	bool open;
	char edit[PATH_LEN];
};

struct export_prompt *export_prompt__new(void)
{
	return xcalloc(1, sizeof(struct export_prompt));
}

void export_prompt__free(struct export_prompt *xp)
{
	free(xp);
}

static void default_name(const struct tui *t, char *buf, size_t len)
{
	char host[64] = "localhost", when[32];
	time_t now = time(NULL);
	const char *ext;
	struct tm tm;

	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	for (char *p = host; *p; p++) /* a name safe in any shell and file system */
		if (*p == '/' || *p == ' ')
			*p = '_';
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
	ext = ui_panes[t->view.pane]->export_ext;
	snprintf(buf, len, "threadtop-%s-%s.%s", host, when, ext ? ext : "json");
}

static void run_export(struct tui *t, const char *path)
{
	const struct frontend_settings *o = t->host ? t->host->settings(t->host) : NULL;
	struct model_filter f;
	struct export_opts eo = {
		.window = t->header.window,
		.filter = &f,
		.source = t->source,
		.hz = t->hz,
		.cpu_hz = o ? o->cpu_hz : 0,
		.by = o ? (enum export_by)o->export_by : EXPORT_BY_PROCESS,
	};
	struct export_result res;
	struct replay_status st;
	char err[256];
	int e;

	/* The model's exact namer: the symbolizer on a live run, none in a replay. */
	eo.namer = model__exact_namer(t->model);
	/* A replay's exports describe the recording: its host and clock. */
	if (t->host && t->host->replay_status(t->host, &st)) {
		eo.host = st.host;
		eo.realtime_ns = st.shown_realtime_ns;
	}
	view_filter(&t->view, &f);
	e = export__write(t->model, path, &eo, &res, err, sizeof(err));
	if (e < 0) {
		snprintf(t->view.status, sizeof(t->view.status), "%.120s", err);
		return;
	}
	if (res.nr == 1)
		snprintf(t->view.status, sizeof(t->view.status), "exported %.200s (%zu bytes)",
			 res.paths[0], res.sizes[0]);
	else
		snprintf(t->view.status, sizeof(t->view.status),
			 "exported %.80s and %zu more files", res.paths[0], res.nr - 1);
	export_result__release(&res);
}

int export_key(struct tui *t, int key)
{
	struct export_prompt *xp = t->export_prompt;
	size_t len;

	if (!xp)
		return -1;
	if (!xp->open) {
		if ((key != 'e' && key != 'x') || t->view.mode != MODE_NORMAL)
			return -1;
		xp->open = true;
		default_name(t, xp->edit, sizeof(xp->edit));
		t->view.status[0] = '\0';
		return RX_REDRAW;
	}
	len = strlen(xp->edit);
	switch (key) {
	case UK_ESC:
		xp->open = false;
		return RX_REDRAW;
	case UK_ENTER:
		xp->open = false;
		if (len)
			run_export(t, xp->edit);
		return RX_REDRAW;
	case UK_BACKSPACE:
	case 127:
	case 8:
		if (len)
			xp->edit[len - 1] = '\0';
		return RX_REDRAW;
	default:
		if (key >= 32 && key < 127 && len + 1 < sizeof(xp->edit)) {
			xp->edit[len] = (char)key;
			xp->edit[len + 1] = '\0';
		}
		return RX_REDRAW; /* the prompt takes every key while open */
	}
}

void export_prompt_draw(struct tui *t, int y, int cols)
{
	char buf[PATH_LEN + 96];

	if (!t->export_prompt || !t->export_prompt->open)
		return;
	screen_fill(y, 0, cols, ROLE_NORMAL);
	snprintf(buf, sizeof(buf),
		 "export to (.folded .pb.gz .speedscope.json .json .svg; Enter, Esc): %s_",
		 t->export_prompt->edit);
	screen_text(y, 0, cols, buf, ROLE_WARN, false);
}
