// SPDX-License-Identifier: GPL-2.0-only
/* Sparkline cells for a series of values (see sparkline.h). */
#include <math.h>
#include <string.h>

#include "sparkline.h"

static const char *const blocks[] = {"\u2581", "\u2582", "\u2583", "\u2584",
				     "\u2585", "\u2586", "\u2587", "\u2588"};
static const char ramp[] = ".:-=+*#%@";

/* The cell of value v in [0, full]: its glyph. */
static const char *cell(double v, double full, bool utf8, char *one)
{
	size_t levels = utf8 ? sizeof(blocks) / sizeof(blocks[0]) : sizeof(ramp) - 1;
	double frac;
	size_t i;

	if (isnan(v) || !(full > 0)) {
		one[0] = ' ';
		one[1] = '\0';
		return one;
	}
	frac = v / full;
	if (frac < 0)
		frac = 0;
	if (frac > 1)
		frac = 1;
	/* Level 0 is the lowest visible mark: even an idle component shows it is measured. */
	i = (size_t)(frac * (double)(levels - 1) + 0.5);
	if (i == 0 && frac > 0.02 && levels > 1)
		i = 1; /* a small load never looks like none */
	if (utf8)
		return blocks[i];
	one[0] = ramp[i];
	one[1] = '\0';
	return one;
}

size_t sparkline_render(const float *vals, size_t n, double full, bool utf8, size_t width,
			char *buf, size_t len)
{
	size_t o = 0, cells = 0, first = n > width ? n - width : 0;
	char one[2];

	if (!len)
		return 0;
	buf[0] = '\0';
	for (size_t pad = n < width ? width - n : 0; pad; pad--, cells++) {
		if (o + 2 > len)
			return cells;
		buf[o++] = ' ';
		buf[o] = '\0';
	}
	for (size_t i = first; i < n; i++, cells++) {
		const char *g = cell(vals[i], full, utf8, one);
		size_t gl = strlen(g);

		if (o + gl + 1 > len)
			return cells;
		memcpy(buf + o, g, gl);
		o += gl;
		buf[o] = '\0';
	}
	return cells;
}

size_t sparkline_bin(const float *vals, size_t n, size_t per, float *out, size_t cap)
{
	size_t bins, first;

	if (!per)
		per = 1;
	bins = (n + per - 1) / per;
	if (bins > cap)
		bins = cap;
	first = bins * per > n ? 0 : n - bins * per;
	for (size_t b = 0; b < bins; b++) {
		/* Bin b covers [end - per, end), end counted back from the newest value. */
		size_t end = n - (bins - 1 - b) * per, start = end > per ? end - per : 0;
		double sum = 0;
		size_t k = 0;

		if (start < first)
			start = first;
		for (size_t i = start; i < end; i++) {
			if (isnan(vals[i]))
				continue;
			sum += vals[i];
			k++;
		}
		out[b] = k ? (float)(sum / (double)k) : NAN;
	}
	return bins;
}
