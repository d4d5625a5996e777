// SPDX-License-Identifier: GPL-2.0-only
/*
 * Time travel in a replay (threadtop -r FILE): a timeline row under the
 * header with a cursor on the interval shown, and the keys that move it.
 * Space plays or pauses, t / T step to the next / previous interval, b jumps
 * to a time (HH:MM[:SS] of the recording, or -30s, +2m, -1h from here),
 * + / - change the speed (1x, 2x, 10x, as fast as possible), Home / End go
 * to the first / last interval, [ marks the start of a range and ] shows the
 * range up to the interval shown as one. The keys only ask the app; the
 * app replays and the TUI redraws from the model as for a live interval.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "keys.h"
#include "screen.h"
#include "timeline.h"
#include "tui_internal.h"
#include "util.h"

#define PROMPT_LEN 32

struct timeline {
	bool prompt; /* b: reading a time */
	char edit[PROMPT_LEN];
	uint64_t mark_ns; /* [: the interval the range starts with, 0 = none */
};

struct timeline *timeline__new(void)
{
	return xcalloc(1, sizeof(struct timeline));
}

void timeline__free(struct timeline *tl)
{
	free(tl);
}

static void fmt_clock(uint64_t realtime_ns, char *buf, size_t len)
{
	time_t secs = (time_t)(realtime_ns / NSEC_PER_SEC);
	struct tm tm;

	gmtime_r(&secs, &tm);
	strftime(buf, len, "%H:%M:%S", &tm);
}

/* Wall-clock time of the recording at monotonic t, from the interval shown. */
static uint64_t wall_of(const struct replay_status *st, uint64_t t)
{
	return st->shown_realtime_ns + t - st->shown_ns;
}

/*
 * "-30s", "+2m", "-1h", "90" (seconds ahead), or "HH:MM[:SS]" (UTC, the day
 * of the interval shown). Returns the recording's monotonic time, or 0.
 */
uint64_t timeline_parse(const struct replay_status *st, const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	if (strchr(s, ':')) {
		unsigned h = 0, m = 0, sec = 0;
		uint64_t day, wall;

		if (sscanf(s, "%u:%u:%u", &h, &m, &sec) < 2 || h > 23 || m > 59 || sec > 59)
			return 0;
		day = st->shown_realtime_ns / NSEC_PER_SEC / 86400 * 86400;
		wall = (day + h * 3600ull + m * 60ull + sec) * NSEC_PER_SEC;
		return st->shown_ns + wall - st->shown_realtime_ns;
	} else {
		char *end;
		double v = strtod(s, &end), mult = 1;

		if (end == s)
			return 0;
		if (*end == 'm')
			mult = 60, end++;
		else if (*end == 'h')
			mult = 3600, end++;
		else if (*end == 's')
			end++;
		if (*end)
			return 0;
		v *= mult * 1e9;
		if (v < 0 && (uint64_t)-v >= st->shown_ns)
			return st->first_ns;
		return (uint64_t)((double)st->shown_ns + v);
	}
}

static int prompt_key(struct tui *t, const struct replay_status *st, int key)
{
	struct timeline *tl = t->timeline;
	size_t len = strlen(tl->edit);

	switch (key) {
	case UK_ESC:
		tl->prompt = false;
		return RX_REDRAW;
	case UK_ENTER: {
		uint64_t when = timeline_parse(st, tl->edit);

		tl->prompt = false;
		if (!when) {
			snprintf(t->view.status, sizeof(t->view.status), "not a time: %.40s",
				 tl->edit);
			return RX_REDRAW;
		}
		t->host->replay_jump(t->host, when);
		return RX_REQUERY;
	}
	case UK_BACKSPACE:
	case 127:
	case 8:
		if (len)
			tl->edit[len - 1] = '\0';
		return RX_REDRAW;
	default:
		if (key >= 32 && key < 127 && len + 1 < sizeof(tl->edit)) {
			tl->edit[len] = (char)key;
			tl->edit[len + 1] = '\0';
		}
		return RX_REDRAW;
	}
}

int timeline_key(struct tui *t, int key)
{
	struct timeline *tl = t->timeline;
	struct replay_status st;

	if (!tl || !t->host || !t->host->replay_status(t->host, &st))
		return -1;
	if (tl->prompt)
		return prompt_key(t, &st, key);
	if (t->view.mode != MODE_NORMAL)
		return -1;
	switch (key) {
	case ' ':
		t->host->replay_pause(t->host, !st.paused);
		return RX_REDRAW;
	case 't':
		t->host->replay_step(t->host, 1);
		return RX_REQUERY;
	case 'T':
		t->host->replay_step(t->host, -1);
		return RX_REQUERY;
	case 'b':
		tl->prompt = true;
		tl->edit[0] = '\0';
		return RX_REDRAW;
	case '+':
	case '=':
		t->host->replay_speed(t->host, 1);
		return RX_REDRAW;
	case '-':
		t->host->replay_speed(t->host, -1);
		return RX_REDRAW;
	case UK_HOME:
		t->host->replay_jump(t->host, st.first_ns);
		return RX_REQUERY;
	case UK_END:
		t->host->replay_jump(t->host, st.last_ns);
		return RX_REQUERY;
	case '[':
		tl->mark_ns = st.shown_ns;
		snprintf(t->view.status, sizeof(t->view.status), "range starts here; ] shows it");
		return RX_REDRAW;
	case ']':
		t->host->replay_range(t->host, tl->mark_ns ? tl->mark_ns : st.first_ns,
				      st.shown_ns);
		tl->mark_ns = 0;
		snprintf(t->view.status, sizeof(t->view.status),
			 "showing the range as one interval; Esc shows one interval again");
		return RX_REQUERY;
	case UK_ESC:
		/* Esc undoes [ and ] before it backs up a drill-down level. */
		if (tl->mark_ns) {
			tl->mark_ns = 0;
			snprintf(t->view.status, sizeof(t->view.status), "range start cleared");
			return RX_REDRAW;
		}
		if (!st.range_from_ns || t->view.nr_crumbs)
			return -1;
		t->host->replay_jump(t->host, st.shown_ns);
		snprintf(t->view.status, sizeof(t->view.status), "range cleared: one interval");
		return RX_REQUERY;
	default:
		return -1;
	}
}

static int bar_pos(const struct replay_status *st, uint64_t t, int w)
{
	uint64_t span = st->last_ns > st->first_ns ? st->last_ns - st->first_ns : 1;

	if (t <= st->first_ns)
		return 0;
	if (t >= st->last_ns)
		return w - 1;
	return (int)((double)(t - st->first_ns) / (double)span * (w - 1) + 0.5);
}

void timeline_draw(struct tui *t, int y, int cols)
{
	struct timeline *tl = t->timeline;
	struct replay_status st;
	char left[160], clock[16], from[16], bar[512];
	int x, w;

	if (!tl || !t->host || !t->host->replay_status(t->host, &st))
		return;
	screen_fill(y, 0, cols, ROLE_NORMAL);
	if (tl->prompt) {
		snprintf(left, sizeof(left), "jump to (HH:MM:SS, -30s, +2m; Enter, Esc): %s_",
			 tl->edit);
		screen_text(y, 0, cols, left, ROLE_WARN, false);
		return;
	}
	fmt_clock(st.shown_ns ? st.shown_realtime_ns : wall_of(&st, st.first_ns), clock,
		  sizeof(clock));
	if (st.range_from_ns) {
		uint64_t start = st.range_from_ns - (uint64_t)(st.interval_s * 1e9);

		fmt_clock(wall_of(&st, start), from, sizeof(from));
		snprintf(left, sizeof(left), "REPLAY %.24s %s  range %s-%s UTC  ", st.host,
			 st.at_end   ? "END"
			 : st.paused ? "PAUSED"
				     : "PLAY",
			 from, clock);
	} else {
		char speed[24];

		if (st.speed > 0)
			snprintf(speed, sizeof(speed), "%gx", st.speed);
		else
			snprintf(speed, sizeof(speed), "max");
		snprintf(left, sizeof(left), "REPLAY %.24s %s %s  %s UTC  %+.1fs of %.1fs  ",
			 st.host,
			 st.at_end   ? "END"
			 : st.paused ? "PAUSED"
				     : "PLAY",
			 speed, clock,
			 st.shown_ns > st.first_ns ? (double)(st.shown_ns - st.first_ns) / 1e9
						   : 0.0,
			 (double)(st.last_ns - st.first_ns) / 1e9);
	}
	x = screen_text(y, 0, cols, left, st.paused || st.at_end ? ROLE_WARN : ROLE_TITLE, false);
	w = cols - x - 2;
	if (w < 10)
		return;
	if (w > (int)sizeof(bar) - 1)
		w = (int)sizeof(bar) - 1;
	{
		int cur = bar_pos(&st, st.shown_ns, w);
		int lo = st.range_from_ns ? bar_pos(&st, st.range_from_ns, w) : cur;

		for (int i = 0; i < w; i++)
			bar[i] = i < lo ? '=' : (i <= cur ? '#' : '-');
		if (tl->mark_ns)
			bar[bar_pos(&st, tl->mark_ns, w)] = '[';
		bar[cur] = '|';
		bar[w] = '\0';
	}
	screen_text(y, x, 1, "[", ROLE_NORMAL, false);
	screen_text(y, x + 1, w, bar, ROLE_BAR, false);
	screen_text(y, x + 1 + w, 1, "]", ROLE_NORMAL, false);
}

const struct key_help timeline_help[] = {
	{"Space", "replay: play / pause"},
	{"t / T", "replay: next / previous interval"},
	{"b", "replay: jump to a time (HH:MM:SS, -30s, +2m)"},
	{"+ / -", "replay: faster / slower (1x 2x 10x max); Stacks: use Right / Left"},
	{"Home / End", "replay: first / last interval"},
	{"[ then ]", "replay: show the range from [ to here as one interval (Esc: one again)"},
};
const size_t timeline_help_count = sizeof(timeline_help) / sizeof(timeline_help[0]);
