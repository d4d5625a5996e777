/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The LuaJIT pane's pure parts, unit-tested without a terminal
 * (tests/unit/test_ui_luajit.c): VM-state shares and the text of a bar.
 */
#ifndef THREADTOP_UI_PANE_LUAJIT_H
#define THREADTOP_UI_PANE_LUAJIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "threadtop/events.h"

/*
 * The share (0..1) of each of the TT_LJ_VMSTATE_MAX states in counts, of
 * samples; all 0 when samples is 0. Counts above samples are clamped.
 */
void lj_vm_shares(const uint64_t *counts, uint64_t samples, double *ret);

/*
 * A horizontal bar of share (0..1) in width cells into buf: full blocks and
 * an eighth-block remainder in UTF-8, else '#' per full cell (ASCII). No
 * padding. Returns buf.
 */
char *lj_bar_text(double share, int width, bool utf8, char *buf, size_t len);

#endif /* THREADTOP_UI_PANE_LUAJIT_H */
