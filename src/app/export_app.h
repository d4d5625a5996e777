/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The --export options in a run: checked before the run starts (so a
 * refused file name does not cost a whole profiling session) and written
 * when it ends. This is the top level: it logs what it did.
 */
#ifndef THREADTOP_EXPORT_APP_H
#define THREADTOP_EXPORT_APP_H

#include "app.h"
#include "cli.h"

/* Checks every --export target. Returns 0 or a negative errno (logged). */
int export_app_check(const struct options *o);

/* Writes every --export of app's session. Returns 0, or the first negative
 * errno (each failure logged; the other exports are still written). */
int export_app_write(struct app *app);

#endif /* THREADTOP_EXPORT_APP_H */
