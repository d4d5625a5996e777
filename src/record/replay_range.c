// SPDX-License-Identifier: GPL-2.0-only
/* --from/--to times of a replay (see replay_range.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay_range.h"
#include "util.h"

#define MAX_OFFSET_S (10.0 * 365 * 86400) /* ten years: a bound, not a real recording */

enum time_kind { T_BAD, T_OFFSET, T_CLOCK, T_DATE };

struct parsed {
	enum time_kind kind;
	double offset_s;	 /* T_OFFSET */
	unsigned h, m, s;	 /* T_CLOCK, T_DATE */
	unsigned year, mon, day; /* T_DATE */
};

static bool clock_ok(const struct parsed *p)
{
	return p->h < 24 && p->m < 60 && p->s < 60;
}

static struct parsed parse(const char *text)
{
	struct parsed p = {.kind = T_BAD};
	int n = 0;

	if (sscanf(text, "%4u-%2u-%2u%*1[T ]%2u:%2u:%2u%n", &p.year, &p.mon, &p.day, &p.h, &p.m,
		   &p.s, &n) == 6 &&
	    (!text[n] || !strcmp(text + n, "Z"))) {
		if (clock_ok(&p) && p.year >= 1970 && p.mon >= 1 && p.mon <= 12 && p.day >= 1 &&
		    p.day <= 31)
			p.kind = T_DATE;
		return p;
	}
	if (strchr(text, ':')) {
		n = 0;
		if ((sscanf(text, "%2u:%2u:%2u%n", &p.h, &p.m, &p.s, &n) == 3 ||
		     (p.s = 0, n = 0, sscanf(text, "%2u:%2u%n", &p.h, &p.m, &n) == 2)) &&
		    !text[n] && clock_ok(&p))
			p.kind = T_CLOCK;
		return p;
	}
	{
		char *end;
		double v, mult = 1;

		if (*text == '+')
			text++;
		if (*text < '0' || *text > '9')
			return p;
		v = strtod(text, &end);
		if (*end && end[1])
			return p;
		if (*end == 'm')
			mult = 60;
		else if (*end == 'h')
			mult = 3600;
		else if (*end && *end != 's')
			return p;
		v *= mult;
		if (v >= 0 && v <= MAX_OFFSET_S) {
			p.kind = T_OFFSET;
			p.offset_s = v;
		}
	}
	return p;
}

int replay_time_check(const char *text)
{
	return parse(text).kind == T_BAD ? -EINVAL : 0;
}

static void fmt_wall(uint64_t wall_ns, char *buf, size_t len)
{
	time_t secs = (time_t)(wall_ns / NSEC_PER_SEC);
	struct tm tm;

	gmtime_r(&secs, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void span_text(const struct replay_span *sp, char *buf, size_t len)
{
	double secs = (double)(sp->last_ns - sp->first_ns) / 1e9;
	char a[32], b[32];

	if (!sp->boot_time_ns) {
		snprintf(buf, len, "0 to %.1f s", secs);
		return;
	}
	fmt_wall(sp->boot_time_ns + sp->first_ns, a, sizeof(a));
	fmt_wall(sp->boot_time_ns + sp->last_ns, b, sizeof(b));
	snprintf(buf, len, "0 to %.1f s, %s to %s", secs, a, b);
}

int replay_time_parse(const char *opt, const char *text, const struct replay_span *sp,
		      uint64_t *ret_ns, char *err, size_t errlen)
{
	struct parsed p = parse(text);
	char span[128];
	uint64_t t;

	span_text(sp, span, sizeof(span));
	if (p.kind == T_BAD) {
		snprintf(err, errlen,
			 "%s %s: not a time: give seconds from the recording's start (90, 2.5m, "
			 "1h) or a UTC time (13:45:10, 2026-11-29T13:45:10Z)",
			 opt, text);
		return -EINVAL;
	}
	if (p.kind != T_OFFSET && !sp->boot_time_ns) {
		snprintf(err, errlen,
			 "%s %s: the recording has no wall-clock base (boot_time_ns): give "
			 "seconds from its start (%s)",
			 opt, text, span);
		return -EINVAL;
	}
	if (p.kind == T_OFFSET) {
		t = sp->first_ns + (uint64_t)(p.offset_s * 1e9 + 0.5);
	} else {
		uint64_t first_wall = sp->boot_time_ns + sp->first_ns, wall;
		struct tm tm = {0};

		if (p.kind == T_DATE) {
			tm.tm_year = (int)p.year - 1900;
			tm.tm_mon = (int)p.mon - 1;
			tm.tm_mday = (int)p.day;
		} else { /* the day the recording started; the next day if that is before it */
			time_t secs = (time_t)(first_wall / NSEC_PER_SEC);

			gmtime_r(&secs, &tm);
		}
		tm.tm_hour = (int)p.h;
		tm.tm_min = (int)p.m;
		tm.tm_sec = (int)p.s;
		wall = (uint64_t)timegm(&tm) * NSEC_PER_SEC;
		if (p.kind == T_CLOCK && wall + NSEC_PER_SEC <= first_wall)
			wall += 86400 * NSEC_PER_SEC;
		t = wall >= sp->boot_time_ns ? wall - sp->boot_time_ns : 0;
	}
	/* Within a second of either end means that end (a rounded "--to 30"). */
	if (t < sp->first_ns && sp->first_ns - t <= NSEC_PER_SEC)
		t = sp->first_ns;
	if (t > sp->last_ns && t - sp->last_ns <= NSEC_PER_SEC)
		t = sp->last_ns;
	if (t < sp->first_ns || t > sp->last_ns) {
		snprintf(err, errlen,
			 "%s %s: outside the recording, which spans %s; give a time inside it", opt,
			 text, span);
		return -ERANGE;
	}
	*ret_ns = t;
	return 0;
}
