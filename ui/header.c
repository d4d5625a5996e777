// SPDX-License-Identifier: GPL-2.0-only
/*
 * The header: a title line (source, rate, mode, window, clock, PAUSED),
 * meters (CPU busy over all CPUs, memory, average active threads against
 * the CPU count), a line with each CPU's busy level and the USE verdict, a
 * summary line (threads, state mix, samples/s, drops, sampling cost), the
 * pane tabs and the breadcrumb with the filter and hide flags in force.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "elide.h"
#include "escape.h"
#include "use_model.h"

#include "rows.h"
#include "screen.h"
#include "util.h"
#include "tui_internal.h"

static void fmt_kb(uint64_t kb, char *buf, size_t len);

static void meter(int y, int x, int w, const char *label, const double *parts,
		  const enum screen_role *roles, const char *letters, size_t n, double full,
		  const char *figure)
{
	int lw = (int)strlen(label), fw = (int)strlen(figure);
	int bw = w - lw - 4 - fw;

	screen_text(y, x, lw, label, ROLE_LABEL, false);
	screen_text(y, x + lw, 2, " [", ROLE_NORMAL, false);
	if (bw > 0)
		screen_bar(y, x + lw + 2, bw, parts, roles, letters, n, full);
	screen_text(y, x + w - 1 - fw, fw, figure, ROLE_VALUE, false);
	screen_text(y, x + w - 1, 1, "]", ROLE_NORMAL, false);
}

static void title_line(struct tui *t, int cols)
{
	const struct header_info *hi = &t->header;
	char buf[256], clock[32], rate[64];
	time_t now = time(NULL);
	struct replay_status st;
	struct record_status rs;
	struct tm tm;
	int x;

	/* A replay shows the recording's time, not the time of watching it. */
	if (t->host && t->host->replay_status(t->host, &st) && st.shown_ns)
		now = (time_t)(st.shown_realtime_ns / NSEC_PER_SEC);
	gmtime_r(&now, &tm);
	strftime(clock, sizeof(clock), "%H:%M:%S UTC", &tm);
	x = screen_text(0, 0, cols, "threadtop " TT_VERSION, ROLE_TITLE, false);
	unsigned tr = model__traced(t->model);
	char win[64], win_short[48], rec[48] = "", modes[48];
	int left;

	/*
	 * The rate achieved over the rate asked ("19.9/20 Hz"): a starved
	 * sampler shows here. Missed ticks only when there are some. Short, so
	 * that at 80 columns the window still fits beside the clock.
	 */
	if (hi->rate.ticks && hi->rate.missed)
		snprintf(rate, sizeof(rate), "%.1f/%u Hz, %llu missed", hi->rate.hz_achieved, t->hz,
			 (unsigned long long)hi->rate.missed);
	else if (hi->rate.ticks)
		snprintf(rate, sizeof(rate), "%.1f/%u Hz", hi->rate.hz_achieved, t->hz);
	else
		snprintf(rate, sizeof(rate), "%u Hz", t->hz);
	/* Parts drawn whole or not at all, the clock always (it tells a frame from the next). */
	snprintf(modes, sizeof(modes), "%s%s%s%s", tr & MODEL_TRACED_ONCPU ? " +oncpu" : "",
		 tr & MODEL_TRACED_SYSCALLS ? " +syscalls" : "",
		 tr & MODEL_TRACED_OFFCPU ? " +offcpu" : "", tr & MODEL_TRACED_IO ? " +io" : "");
	snprintf(buf, sizeof(buf), "  source %s %s%s", t->source, rate, modes);
	snprintf(win, sizeof(win), "  window: %s (%.1fs)", view_window_name(hi->window),
		 hi->window_s);
	snprintf(win_short, sizeof(win_short), "  %s %.1fs", view_window_name(hi->window),
		 hi->window_s);
	if (t->host && t->host->record_status(t->host, &rs)) {
		if (rs.stopped)
			snprintf(rec, sizeof(rec), "  REC stopped (see log)");
		else
			snprintf(rec, sizeof(rec), "  REC %.1f %s",
				 (double)rs.bytes / (rs.bytes < 1000000 ? 1e3 : 1e6),
				 rs.bytes < 1000000 ? "kB" : "MB");
	}
	left = cols - x - 2 - (int)strlen(clock) - (int)strlen(rec);
	/* The window says what every figure is of: the source loses its rate before the
	 * window goes (at 80 columns with +offcpu, it did). */
	if ((int)(strlen(buf) + strlen(win_short)) > left)
		snprintf(buf, sizeof(buf), "  %s%s", t->source, modes);
	if ((int)(strlen(buf) + strlen(win_short)) <= left) {
		x += screen_text(0, x, cols - x, buf, ROLE_NORMAL, false);
		left -= (int)strlen(buf);
	}
	if ((int)strlen(win) <= left)
		x += screen_text(0, x, cols - x, win, ROLE_NORMAL, false);
	else if ((int)strlen(win_short) <= left)
		x += screen_text(0, x, cols - x, win_short, ROLE_NORMAL, false);
	x += screen_text(0, x, cols - x, "  ", ROLE_NORMAL, false);
	x += screen_text(0, x, cols - x, clock, ROLE_NORMAL, false);
	if (rec[0])
		screen_text(0, x, cols - x, rec, rs.stopped ? ROLE_WARN : ROLE_VALUE, false);
	if (t->view.paused)
		screen_text(0, cols - 8, 8, "[PAUSED]", ROLE_WARN, false);
}

/* The USE utilization of the whole of a kind (index TT_USE_ALL), NAN when unknown. */
static double use_util(const struct use_component *const *cs, size_t n, unsigned kind)
{
	for (size_t i = 0; i < n; i++)
		if (cs[i]->last.kind == kind && cs[i]->last.index == TT_USE_ALL)
			return use_util_pct(&cs[i]->last);
	return NAN;
}

static void meter_line(struct tui *t, int cols, const struct use_component *const *cs, size_t n)
{
	const struct header_info *hi = &t->header;
	static const enum screen_role cpu_roles[] = {ROLE_ST_R};
	static const enum screen_role mem_roles[] = {ROLE_BAR};
	static const enum screen_role act_roles[] = {ROLE_ST_R, ROLE_ST_Q, ROLE_ST_D,
						     ROLE_ST_OTHER};
	uint64_t active_samples = 0;
	double cpu = use_util(cs, n, TT_USE_CPU), mem = use_util(cs, n, TT_USE_MEMORY);
	double parts[4], full;
	char fig[48];
	int third = cols / 3;

	/* Without USE records (a replay of an old file), the sampled threads' CPU time. */
	if (isnan(cpu))
		cpu = hi->ncpu ? hi->cpu_pct / hi->ncpu : 0;
	snprintf(fig, sizeof(fig), "%.1f%%", cpu);
	meter(1, 0, third - 1, "CPU", &cpu, cpu_roles, "|", 1, 100.0, fig);
	if (hi->has_host && hi->host.mem_total_kb) {
		char used[16], total[16];

		/* htop's figure: used of total (used = total - available) */
		fmt_kb(hi->host.mem_total_kb - hi->host.mem_avail_kb, used, sizeof(used));
		fmt_kb(hi->host.mem_total_kb, total, sizeof(total));
		mem = 100.0 * (double)(hi->host.mem_total_kb - hi->host.mem_avail_kb) /
		      (double)hi->host.mem_total_kb;
		snprintf(fig, sizeof(fig), "%s/%s", used, total);
	} else if (isnan(mem)) {
		mem = 0;
		snprintf(fig, sizeof(fig), "n/a");
	} else {
		snprintf(fig, sizeof(fig), "%.1f%%", mem);
	}
	meter(1, third, third - 1, "Mem", &mem, mem_roles, "|", 1, 100.0, fig);

	for (int s = 0; s < TT_ST_MAX; s++)
		if (model_state_active((unsigned)s))
			active_samples += hi->states[s];
	memset(parts, 0, sizeof(parts));
	if (active_samples) {
		double k = hi->active / (double)active_samples;

		parts[0] = (double)hi->states[TT_ST_R] * k;
		parts[1] = (double)hi->states[TT_ST_Q] * k;
		parts[2] = (double)hi->states[TT_ST_D] * k;
		parts[3] = hi->active - parts[0] - parts[1] - parts[2];
	}
	full = hi->active > hi->ncpu ? hi->active : hi->ncpu;
	snprintf(fig, sizeof(fig), "%.2f/%d", hi->active, hi->ncpu);
	meter(1, 2 * third, cols - 2 * third, "Act", parts, act_roles, "RQD*", 4, full, fig);
}

/* One cell per CPU by busy level, then the USE verdict. */
static void cpu_line(struct tui *t, int cols, const struct use_component *const *cs, size_t n)
{
	static const char *const utf8[] = {" ",	     "\u2581", "\u2582", "\u2583", "\u2584",
					   "\u2585", "\u2586", "\u2587", "\u2588"};
	static const char ascii[] = " .:-=+*#%@";
	struct use_verdict v;
	int x, shown = 0, ncpus = 0;
	char buf[1100], text[4 * sizeof(v.text)];

	for (size_t i = 0; i < n; i++)
		if (cs[i]->last.kind == TT_USE_CPU && cs[i]->last.index != TT_USE_ALL)
			ncpus++;
	snprintf(buf, sizeof(buf), "CPUs %d ", ncpus);
	x = screen_text(2, 0, cols, buf, ROLE_LABEL, false);
	for (size_t i = 0; i < n && x < cols / 2; i++) {
		const struct tt_use_metric *r = &cs[i]->last;
		double u;
		char cell[8];

		if (r->kind != TT_USE_CPU || r->index == TT_USE_ALL)
			continue;
		u = use_util_pct(r);
		if (isnan(u) || u < 0)
			u = 0;
		if (u > 100)
			u = 100;
		if (screen_utf8())
			snprintf(cell, sizeof(cell), "%s", utf8[(int)(u / 100.0 * 8 + 0.5)]);
		else
			snprintf(cell, sizeof(cell), "%c", ascii[(int)(u / 100.0 * 9 + 0.5)]);
		x += screen_text(2, x, 1, cell,
				 u >= USE_BUSY_PCT     ? ROLE_ST_D
				 : u >= USE_ALMOST_PCT ? ROLE_ST_Q
						       : ROLE_ST_R,
				 false);
		shown++;
	}
	if (shown < ncpus)
		x += screen_text(2, x, cols - x, "+", ROLE_DIM, false);
	if (!ncpus)
		x += screen_text(2, x, cols - x, "(no USE data)", ROLE_DIM, false);
	x += 2;
	use_model__verdict(model__use(t->model), &v);
	snprintf(buf, sizeof(buf), "USE: %s", verdict_fit(&v, cols - x - 5, text, sizeof(text)));
	screen_text(2, x, cols - x, buf,
		    v.level == USE_VERDICT_SATURATED ? ROLE_WARN
		    : v.level >= USE_VERDICT_ALMOST  ? ROLE_CRUMB
						     : ROLE_NORMAL,
		    false);
}

/* "1.2G" from kB: top's units, one decimal below 10. */
static void fmt_kb(uint64_t kb, char *buf, size_t len)
{
	static const char units[] = "KMGTP";
	double v = (double)kb;
	int u = 0;

	while (v >= 1024 && u < 4)
		v /= 1024, u++;
	snprintf(buf, len, v < 10 && u ? "%.1f%c" : "%.0f%c", v, units[u]);
}

/* "3d 04:05" or "04:05:06": uptime as top shows it. */
static void fmt_uptime(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = ns / NSEC_PER_SEC, d = s / 86400;

	if (d)
		snprintf(buf, len, "%llud %02llu:%02llu", (unsigned long long)d,
			 (unsigned long long)(s / 3600 % 24), (unsigned long long)(s / 60 % 60));
	else
		snprintf(buf, len, "%02llu:%02llu:%02llu", (unsigned long long)(s / 3600),
			 (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
}

/*
 * The summary: threads alive now and how many of them run, wait for a CPU
 * or for the disk (counts, as top's "Tasks:" line), load average, uptime,
 * swap, then the window's state shares, sampling rate and drops. Parts are
 * drawn whole, in that order, as long as they fit: a narrow terminal drops
 * the last ones rather than cutting one mid-word.
 */
static void summary_line(struct tui *t, int cols)
{
	const struct header_info *hi = &t->header;
	const uint32_t *ns = hi->now.states;
	uint64_t total = 0;
	char buf[256], a[16], b[16];
	size_t o = 0;
	int x = 0;

	o += (size_t)snprintf(buf, sizeof(buf), "Threads %zu: %u running, %u waiting, %u D",
			      hi->now.alive, ns[TT_ST_R], ns[TT_ST_Q], ns[TT_ST_D]);
	if (ns[TT_ST_T] + ns[TT_ST_t])
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, ", %u stopped",
				      ns[TT_ST_T] + ns[TT_ST_t]);
	if (ns[TT_ST_Z])
		snprintf(buf + o, sizeof(buf) - o, ", %u zombie", ns[TT_ST_Z]);
	x += screen_text(3, x, cols - x, buf, ROLE_NORMAL, false);
	if (hi->has_host) {
		snprintf(buf, sizeof(buf), "  Load %.2f %.2f %.2f", hi->host.load_milli[0] / 1000.0,
			 hi->host.load_milli[1] / 1000.0, hi->host.load_milli[2] / 1000.0);
		if (x + (int)strlen(buf) <= cols)
			x += screen_text(3, x, cols - x, buf, ROLE_NORMAL, false);
		fmt_uptime(hi->host.uptime_ns, a, sizeof(a));
		snprintf(buf, sizeof(buf), "  Up %s", a);
		if (x + (int)strlen(buf) <= cols)
			x += screen_text(3, x, cols - x, buf, ROLE_NORMAL, false);
		if (hi->host.swap_total_kb) {
			fmt_kb(hi->host.swap_total_kb - hi->host.swap_free_kb, a, sizeof(a));
			fmt_kb(hi->host.swap_total_kb, b, sizeof(b));
			snprintf(buf, sizeof(buf), "  Swp %s/%s", a, b);
			if (x + (int)strlen(buf) <= cols)
				x += screen_text(3, x, cols - x, buf, ROLE_NORMAL, false);
		}
	}
	/* Drops are never hidden by the parts after them: they say the figures are short. */
	snprintf(buf, sizeof(buf), "  Drops %llu (session %llu)",
		 (unsigned long long)hi->drops_interval, (unsigned long long)hi->drops_session);
	if (hi->drops_session && x + (int)strlen(buf) <= cols)
		x += screen_text(3, x, cols - x, buf, ROLE_WARN, false);
	for (int s = 0; s < TT_ST_MAX; s++)
		total += hi->states[s];
	o = (size_t)snprintf(buf, sizeof(buf), "  States");
	for (int s = 0; s < TT_ST_MAX && o < sizeof(buf); s++)
		if (hi->states[s])
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, " %c:%.0f%%",
					      TT_STATE_LETTERS[s],
					      100.0 * (double)hi->states[s] / (double)total);
	if (total && x + (int)strlen(buf) <= cols)
		x += screen_text(3, x, cols - x, buf, ROLE_NORMAL, false);
	snprintf(buf, sizeof(buf), "  Samples/s %.0f  Tick %.2fms", hi->samples_per_s, hi->tick_ms);
	if (x + (int)strlen(buf) <= cols)
		x += screen_text(3, x, cols - x, buf, ROLE_NORMAL, false);
	if (!hi->drops_session && x + 9 <= cols)
		screen_text(3, x, cols - x, "  Drops 0", ROLE_NORMAL, false);
}

/* The tab of pane p: " 1 Threads " (pad), else " 1 Threads". */
static void tab_text(const struct tui *t, int p, bool pad, char *buf, size_t len)
{
	/* The Threads tab says when it shows processes (H). */
	snprintf(buf, len, " %d %s%s", p + 1,
		 p == PANE_THREADS && view_procs(&t->view) ? (t->view.tree ? "Tree" : "Procs")
							   : view_pane_name((enum ui_pane)p),
		 pad ? " " : "");
}

static void tabs_line(struct tui *t, int cols)
{
	bool pad = true;
	int x = 0;

	t->layout.tabs_y = 4;
	/* The tabs' own padding separates them; at 80 columns nine fit with one blank between. */
	for (int p = 0, w = 0; p < PANE_MAX; p++) {
		char buf[32];

		tab_text(t, p, true, buf, sizeof(buf));
		w += (int)strlen(buf);
		pad = w <= cols;
	}
	for (int p = 0; p < PANE_MAX; p++) {
		char buf[32];

		tab_text(t, p, pad, buf, sizeof(buf));
		t->layout.tab_x[p] = x;
		x += screen_text(4, x, cols - x, buf,
				 p == (int)t->view.pane ? ROLE_TAB_ACTIVE : ROLE_TAB, false);
	}
	t->layout.tab_x[PANE_MAX] = x;
	/* The hint only whole: at 80 columns the tabs take the line. */
	static const char hint[] = "  Tab/Shift-Tab switch, Enter drills down, Esc backs up";

	if (x + (int)sizeof(hint) - 1 <= cols)
		screen_text(4, x, cols - x, hint, ROLE_DIM, false);
}

static void crumb_line(struct tui *t, int cols)
{
	const struct view *v = &t->view;
	char crumb[VIEW_MAX_CRUMBS * (CRUMB_LABEL + 3) + 8], right[160], fit[sizeof(crumb)];
	int rw;

	right[0] = '\0';
	if (v->filter[0])
		snprintf(right, sizeof(right), "filter \"%s\"", v->filter);
	if (v->hide_kthreads) {
		size_t o = strlen(right);

		snprintf(right + o, sizeof(right) - o, "%shiding kernel threads", o ? "  " : "");
	}
	if (t->hidden_idle) {
		size_t o = strlen(right);

		snprintf(right + o, sizeof(right) - o, "%s%zu idle rows hidden (i shows)",
			 o ? "  " : "", t->hidden_idle);
	}
	rw = (int)strlen(right);
	if (rw > cols / 2)
		rw = cols / 2;
	view_breadcrumb(v, crumb, sizeof(crumb));
	/* A long trail loses its middle: "all" and the latest narrowing stay. */
	screen_text(5, 0, cols - rw - 1,
		    elide_name(crumb, cols - rw - 1, screen_utf8(), fit, sizeof(fit)), ROLE_CRUMB,
		    false);
	if (rw)
		screen_text(5, cols - rw, rw, elide_end(right, rw, screen_utf8(), fit, sizeof(fit)),
			    ROLE_DIM, false);
}

const char *verdict_fit(const struct use_verdict *v, int width, char *buf, size_t len)
{
	char words[sizeof(v->text)], esc[4 * sizeof(v->text)];

	if (v->level == USE_VERDICT_NO_DATA) {
		snprintf(buf, len, "%s", width >= 24 ? "no interval measured yet" : "no data yet");
		return buf;
	}
	/* The longest wording that fits (use_wording.c), never the text cut. */
	for (int w = 0; use_verdict_wording(v, w, words, sizeof(words)); w++) {
		/* The verdict names a component (a cgroup or device name): escaped. */
		escape_for_terminal(words, strlen(words), esc, sizeof(esc));
		if (!esc[0])
			snprintf(esc, sizeof(esc), "%s", use_verdict_level_name(v->level));
		if (elide_width(esc) <= width)
			break;
	}
	/* Even the shortest is too wide (a long cgroup name): its middle goes. */
	return elide_name(esc, width, screen_utf8(), buf, len);
}

void header_draw(struct tui *t, int cols)
{
	const struct use_component **cs;
	size_t n = use_model__current(model__use(t->model), &cs);

	title_line(t, cols);
	meter_line(t, cols, cs, n);
	cpu_line(t, cols, cs, n);
	summary_line(t, cols);
	tabs_line(t, cols);
	crumb_line(t, cols);
}
