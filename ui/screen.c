// SPDX-License-Identifier: GPL-2.0-only
/*
 * The terminal (see screen.h). Colours only when the terminal has them and
 * NO_COLOR is unset; line drawing in UTF-8 only when the locale's codeset is
 * UTF-8. Signals are the event loop's business (signalfd), so a resize is
 * applied by screen_resize() from the loop, not by curses' own handler.
 */
#include <errno.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

#include <curses.h>

#include "elide.h"
#include "keys.h"
#include "screen.h"

static struct {
	SCREEN *scr;
	FILE *out, *in; /* headless only */
	bool open, utf8, color, headless;
	attr_t attr[ROLE_MAX];
	struct screen_mouse mouse;
} S;

bool screen_utf8(void)
{
	return S.utf8;
}

static void setup_roles(void)
{
	static const struct {
		short fg, bg;
		attr_t extra;
	} pal[ROLE_MAX] = {
		[ROLE_NORMAL] = {-1, -1, 0},
		[ROLE_TITLE] = {COLOR_CYAN, -1, A_BOLD},
		[ROLE_COLHEAD] = {COLOR_BLACK, COLOR_GREEN, 0},
		[ROLE_COLHEAD_SORT] = {COLOR_BLACK, COLOR_CYAN, A_BOLD},
		[ROLE_SELECTED] = {COLOR_BLACK, COLOR_CYAN, 0},
		[ROLE_FKEY] = {-1, -1, A_BOLD},
		[ROLE_FLABEL] = {COLOR_BLACK, COLOR_CYAN, 0},
		[ROLE_LABEL] = {COLOR_CYAN, -1, 0},
		[ROLE_VALUE] = {-1, -1, A_BOLD},
		[ROLE_TAB] = {-1, -1, 0},
		[ROLE_TAB_ACTIVE] = {COLOR_BLACK, COLOR_GREEN, A_BOLD},
		[ROLE_CRUMB] = {COLOR_YELLOW, -1, A_BOLD},
		[ROLE_WARN] = {COLOR_RED, -1, A_BOLD},
		[ROLE_DIM] = {COLOR_BLUE, -1, A_BOLD},
		[ROLE_BAR] = {COLOR_GREEN, -1, 0},
		[ROLE_KERNEL] = {COLOR_MAGENTA, -1, 0},
		[ROLE_ST_R] = {COLOR_GREEN, -1, A_BOLD},
		[ROLE_ST_Q] = {COLOR_YELLOW, -1, A_BOLD},
		[ROLE_ST_S] = {COLOR_BLUE, -1, A_BOLD},
		[ROLE_ST_D] = {COLOR_RED, -1, A_BOLD},
		[ROLE_ST_OTHER] = {COLOR_MAGENTA, -1, 0},
	};
	/* Monochrome: attributes alone must tell the roles apart. */
	static const attr_t mono[ROLE_MAX] = {
		[ROLE_TITLE] = A_BOLD,
		[ROLE_COLHEAD] = A_BOLD | A_UNDERLINE,
		[ROLE_COLHEAD_SORT] = A_BOLD | A_UNDERLINE | A_REVERSE,
		[ROLE_SELECTED] = A_REVERSE,
		[ROLE_FKEY] = A_BOLD,
		[ROLE_FLABEL] = A_REVERSE,
		[ROLE_VALUE] = A_BOLD,
		[ROLE_TAB_ACTIVE] = A_REVERSE,
		[ROLE_CRUMB] = A_BOLD,
		[ROLE_WARN] = A_BOLD,
		[ROLE_ST_R] = A_BOLD,
		[ROLE_ST_D] = A_BOLD | A_UNDERLINE,
	};

	for (int r = 0; r < ROLE_MAX; r++) {
		if (!S.color) {
			S.attr[r] = mono[r];
			continue;
		}
		if (r == ROLE_NORMAL) {
			S.attr[r] = A_NORMAL;
			continue;
		}
		init_pair((short)r, pal[r].fg, pal[r].bg);
		S.attr[r] = COLOR_PAIR(r) | pal[r].extra;
	}
}

int screen_open(const struct screen_opts *o)
{
	const char *nc = getenv("NO_COLOR");

	if (S.open)
		return 0;
	S.headless = o && o->headless;
	S.utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	if (S.headless) {
		S.out = fopen("/dev/null", "we");
		S.in = fopen("/dev/null", "re");
		if (!S.out || !S.in)
			goto fail;
		S.scr = newterm("xterm-256color", S.out, S.in);
	} else {
		S.scr = newterm(NULL, stdout, stdin);
	}
	if (!S.scr)
		goto fail;
	set_term(S.scr);
	S.open = true;
	if (S.headless)
		resize_term(o->rows, o->cols); /* no KEY_RESIZE queued: see screen_resize */
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	S.color = has_colors() && !(nc && *nc);
	if (S.color) {
		start_color();
		use_default_colors();
	}
	setup_roles();
	return 0;
fail:
	if (S.out)
		fclose(S.out);
	if (S.in)
		fclose(S.in);
	S.out = S.in = NULL;
	return -ENOTTY;
}

void screen_close(void)
{
	if (!S.open)
		return;
	endwin();
	delscreen(S.scr);
	S.scr = NULL;
	S.open = false;
	if (S.out)
		fclose(S.out);
	if (S.in)
		fclose(S.in);
	S.out = S.in = NULL;
	if (!S.headless)
		fflush(stdout);
}

/*
 * resize_term, not resizeterm: ncurses 6.4's resizeterm pushes a KEY_RESIZE
 * on every call, changed or not, and a KEY_RESIZE brings us back here. The
 * echo made the next key press cost 256 full repaints (the key loop's cap),
 * half a megabyte to the terminal, and the key itself waited behind them.
 * The caller repaints; the screen contents are unknown after a resize.
 */
void screen_resize(void)
{
	struct winsize ws;

	if (!S.open || S.headless)
		return;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col &&
	    is_term_resized(ws.ws_row, ws.ws_col)) {
		resize_term(ws.ws_row, ws.ws_col);
		clearok(curscr, TRUE);
	}
}

void screen_size(int *rows, int *cols)
{
	*rows = S.open ? LINES : 0;
	*cols = S.open ? COLS : 0;
}

int screen_key(void)
{
	MEVENT ev;
	int c;

	if (!S.open)
		return UK_NONE;
	c = wgetch(stdscr);
	switch (c) {
	case ERR:
		return UK_NONE;
	case KEY_UP:
		return UK_UP;
	case KEY_DOWN:
		return UK_DOWN;
	case KEY_LEFT:
		return UK_LEFT;
	case KEY_RIGHT:
		return UK_RIGHT;
	case KEY_PPAGE:
		return UK_PGUP;
	case KEY_NPAGE:
		return UK_PGDN;
	case KEY_HOME:
		return UK_HOME;
	case KEY_END:
		return UK_END;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		return UK_BACKSPACE;
	case KEY_DC:
		return UK_DELETE;
	case KEY_BTAB:
		return UK_BTAB;
	case KEY_ENTER:
	case '\r':
	case '\n':
		return UK_ENTER;
	case KEY_RESIZE:
		return UK_RESIZE;
	case 12:
		return UK_CTRL_L;
	case KEY_MOUSE:
		if (getmouse(&ev) != OK)
			return UK_IGNORED;
		S.mouse = (struct screen_mouse){.y = ev.y, .x = ev.x};
		if (ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))
			S.mouse.click = true;
		else if (ev.bstate & BUTTON4_PRESSED)
			S.mouse.wheel = -1;
		else if (ev.bstate & BUTTON5_PRESSED)
			S.mouse.wheel = 1;
		else
			return UK_IGNORED;
		return UK_MOUSE;
	default:
		if (c >= KEY_F(1) && c <= KEY_F(10))
			return UK_F1 + (c - KEY_F(1));
		if (c > 0xff)
			return UK_IGNORED;
		return c;
	}
}

void screen_mouse(struct screen_mouse *ret)
{
	*ret = S.mouse;
}

void screen_begin(bool clear_all)
{
	if (clear_all)
		clearok(curscr, TRUE);
	werase(stdscr);
}

void screen_end_frame(void)
{
	wnoutrefresh(stdscr);
	doupdate();
}

int screen_text_right(int y, int x, int width, const char *s, enum screen_role role)
{
	int tw = elide_width(s);

	return screen_text(y, x + (width > tw ? width - tw : 0), width, s, role, false);
}

int screen_text(int y, int x, int width, const char *s, enum screen_role role, bool pad)
{
	wchar_t wbuf[512];
	mbstate_t st;
	size_t n = 0;
	int used = 0;
	const char *p = s;
	size_t left = strlen(s);

	if (width <= 0 || y < 0 || y >= LINES || x >= COLS)
		return 0;
	if (x + width > COLS)
		width = COLS - x;
	memset(&st, 0, sizeof(st));
	while (left && n < sizeof(wbuf) / sizeof(wbuf[0]) - 1) {
		wchar_t wc;
		int w;
		size_t k = elide_char(p, left, &st, &wc, &w);

		if (used + w > width)
			break;
		wbuf[n++] = wc;
		used += w;
		p += k;
		left -= k;
	}
	wbuf[n] = L'\0';
	wattrset(stdscr, S.attr[role]);
	mvwaddnwstr(stdscr, y, x, wbuf, (int)n);
	if (pad)
		for (int i = used; i < width; i++)
			mvwaddch(stdscr, y, x + i, ' ');
	wattrset(stdscr, A_NORMAL);
	return pad ? width : used;
}

int screen_wrapped(int y, int h, int cols, const char *s, enum screen_role role)
{
	int line = 0;

	for (const char *p = s; *p && line < h; line++) {
		int indent = p != s ? 2 : 0;
		size_t len = strlen(p), cut = (size_t)(cols - indent);

		if (len <= cut) {
			cut = len;
		} else {
			/* At a space when one is near the end, never inside a UTF-8 character. */
			for (size_t b = cut; b > cut - cut / 4; b--)
				if (p[b - 1] == ' ') {
					cut = b;
					break;
				}
			while (cut > 1 && ((unsigned char)p[cut] & 0xc0) == 0x80)
				cut--;
		}
		screen_fill(y + line, 0, cols, role);
		screen_text(y + line, indent, (int)cut, p, role, false);
		p += cut;
	}
	return line ? line : 1;
}

void screen_fill(int y, int x, int width, enum screen_role role)
{
	if (y < 0 || y >= LINES || x >= COLS || width <= 0)
		return;
	if (x + width > COLS)
		width = COLS - x;
	wattrset(stdscr, S.attr[role]);
	mvwhline(stdscr, y, x, ' ', width);
	wattrset(stdscr, A_NORMAL);
}

void screen_bar(int y, int x, int width, const double *parts, const enum screen_role *roles,
		const char *letters, size_t n, double full)
{
	int pos = 0;
	double acc = 0;

	if (width <= 0 || y < 0 || y >= LINES)
		return;
	for (size_t i = 0; i < n && full > 0; i++) {
		int end;

		acc += parts[i];
		end = (int)(acc / full * width + 0.5);
		if (end > width)
			end = width;
		wattrset(stdscr, S.attr[roles[i]]);
		for (; pos < end; pos++)
			mvwaddch(stdscr, y, x + pos, (chtype)(unsigned char)letters[i]);
	}
	wattrset(stdscr, A_NORMAL);
	for (; pos < width; pos++)
		mvwaddch(stdscr, y, x + pos, ' ');
}

const char *screen_tree_glyph(bool last, bool branch)
{
	if (!branch)
		return S.utf8 ? "\u2502 " : "| ";
	if (S.utf8)
		return last ? "\u2514\u2500" : "\u251c\u2500";
	return last ? "`-" : "|-";
}
