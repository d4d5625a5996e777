/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Text that does not fit its width, shortened visibly instead of cut
 * mid-word: names lose their middle at a word boundary, prose its end
 * after a whole word, a marker where text went ("…", or "~" on a terminal
 * that is not UTF-8). Text is UTF-8 and already escaped; widths are
 * display columns (wcwidth, by the locale curses set up). No curses here:
 * unit-tested (tests/unit/test_ui_elide.c).
 *
 * The rule for names (elide_name): a trailing tag of one bracketed word
 * (" [k]", " [lua]", " [inlined]") is kept whole; of the rest, the head up
 * to the start of a run of separators and the tail from the end of one are
 * kept, as much of both as fits (a side left empty counts two columns
 * less), the marker between them; each side keeps at least its longest
 * such part within a third of the width, so that neither the start of a
 * name nor its end (a file name, a method) shrinks to a fragment:
 *   "std::vector<int>::_M_realloc_insert"  ->  "std::vector<int…realloc_insert"
 *   "finish_task_switch.isra.0 [k]"        ->  "finish_task…isra.0 [k]"
 * Separators are the characters that join words in function, file and Lua
 * names: _ : . / @ - ( ) < > , and space (not brackets: "TRACE [1]" stays
 * whole). A name whose boundaries keep less than three quarters of what
 * fits (long words) is cut in the middle at a character instead, still
 * marked.
 */
#ifndef THREADTOP_UI_ELIDE_H
#define THREADTOP_UI_ELIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <wchar.h>

/*
 * The character at s (left bytes, state st) into *ret_wc and its columns
 * into *ret_w: a byte that does not decode, or a character with no width,
 * is one '?' of one column. Returns the bytes it takes. (The screen draws
 * by the same decoding, so widths agree.)
 */
size_t elide_char(const char *s, size_t left, mbstate_t *st, wchar_t *ret_wc, int *ret_w);
/* The marker's text: "…" (one column) in UTF-8, "~" otherwise. */
const char *elide_marker(bool utf8);
/* Display width of s (a byte that does not decode counts one column). */
int elide_width(const char *s);
/*
 * Name s in at most width columns into buf (len bytes), by the rule above;
 * s whole when it fits. Returns buf.
 */
char *elide_name(const char *s, int width, bool utf8, char *buf, size_t len);
/*
 * A file path s in at most width columns into buf: its last component
 * (from its last '/') kept whole when it fits beside the marker, as much of
 * the start as fits before the marker ("/var/lib/…/base/16384/2619" ->
 * "/var/l…/2619"); else, or when s is no path, as elide_name. Returns buf.
 */
char *elide_path(const char *s, int width, bool utf8, char *buf, size_t len);
/*
 * Prose s (a message, a trace line, a command line) in at most width
 * columns into buf: whole when it fits, else up to its last word that fits
 * and the marker (mid-word only when the words that fit end before half
 * of the width: one long word). Returns buf.
 */
char *elide_end(const char *s, int width, bool utf8, char *buf, size_t len);

#endif /* THREADTOP_UI_ELIDE_H */
