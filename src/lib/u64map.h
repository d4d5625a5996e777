/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A hash map from 64-bit keys to pointers: the thread table (by tid), the
 * string and stack dictionaries (by id). Open addressing with linear probing
 * and backward-shift deletion, so no tombstones accumulate under churn.
 * The map does not own the values.
 */
#ifndef THREADTOP_U64MAP_H
#define THREADTOP_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct u64map;

struct u64map *u64map__new(void);
void u64map__free(struct u64map *map);
/* The value for key, or NULL. */
void *u64map__get(const struct u64map *map, uint64_t key);
/* Inserts or replaces; returns the value it replaced, or NULL. */
void *u64map__put(struct u64map *map, uint64_t key, void *value);
/* Removes key; returns its value, or NULL when absent. */
void *u64map__remove(struct u64map *map, uint64_t key);
size_t u64map__count(const struct u64map *map);
/* Bytes the map's slots take (not its values'). */
size_t u64map__bytes(const struct u64map *map);
/*
 * Iterates: start with *pos = 0; returns false at the end. Removing the
 * current entry while iterating is allowed only through u64map__remove_at;
 * after such a removal no entry is skipped, but one may be seen twice.
 */
bool u64map__next(const struct u64map *map, size_t *pos, uint64_t *ret_key, void **ret_value);
/*
 * The value in the slot an iteration reaches at pos, or NULL (an empty slot,
 * or past the end): for a walk that prefetches what it will visit next.
 */
void *u64map__peek(const struct u64map *map, size_t pos);
/* Removes the entry u64map__next just returned (pos as it left it). */
void u64map__remove_at(struct u64map *map, size_t *pos);

/* Frees every value with free_value, then the map. NULL-safe. */
void u64map__free_all(struct u64map *map, void (*free_value)(void *value));
/*
 * Caches that forget idle entries: each value records the round it was last
 * used in (read back with last_round). Removes and frees with free_value
 * every value unused for more than idle_rounds rounds before now_round;
 * returns how many.
 */
size_t u64map__expire(struct u64map *map, uint64_t now_round, uint64_t idle_rounds,
		      uint64_t (*last_round)(const void *value), void (*free_value)(void *value));

/*
 * The same caches, bounded: while more than max values are held, removes and
 * frees the one used longest ago (a walk of the map per value removed: for
 * maps of a few hundred entries). Returns how many went.
 */
size_t u64map__trim(struct u64map *map, size_t max, uint64_t (*last_round)(const void *value),
		    void (*free_value)(void *value));

#endif /* THREADTOP_U64MAP_H */
