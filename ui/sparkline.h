/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Sparklines: a series of values drawn as one text cell each, with the
 * Unicode blocks ▁▂▃▄▅▆▇█ or, when the terminal is not UTF-8, the ASCII
 * ramp " .:-=+*#%@" (the ramp of the header's CPU cells). No curses here,
 * so the rendering is unit-tested (tests/unit/test_ui_sparkline.c).
 */
#ifndef THREADTOP_UI_SPARKLINE_H
#define THREADTOP_UI_SPARKLINE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Renders the last `width` of the n values (oldest first) into buf as
 * width cells, value 0 to full; NaN (unknown) is a space, values outside
 * [0, full] are clamped, and a value above 0 never rounds down to the
 * empty cell. Fewer values than width are right-aligned (padded with
 * spaces on the left). buf is always NUL-terminated; returns the cells
 * written (fewer when buf is too small: 3 bytes per cell in UTF-8).
 */
size_t sparkline_render(const float *vals, size_t n, double full, bool utf8, size_t width,
			char *buf, size_t len);

/*
 * Averages n values (oldest first) in bins of `per` values, aligned so the
 * last bin ends with the newest value (the oldest bin may be partial);
 * unknown (NaN) values are left out of a bin's mean, a bin of only
 * unknowns is NaN. Writes at most cap bins into out, the newest last;
 * returns how many.
 */
size_t sparkline_bin(const float *vals, size_t n, size_t per, float *out, size_t cap);

#endif /* THREADTOP_UI_SPARKLINE_H */
