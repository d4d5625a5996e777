// SPDX-License-Identifier: GPL-2.0-only
/* Open-addressing u64 -> pointer hash map (see u64map.h). */
#include <stdlib.h>
#include <string.h>

#include "u64map.h"
#include "util.h"

struct slot {
	uint64_t key;
	void *value; /* NULL marks an empty slot: values are never NULL */
};

struct u64map {
	struct slot *slots;
	size_t cap; /* power of two */
	size_t count;
};

static size_t hash64(uint64_t key)
{
	/* splitmix64 finaliser: tids and ids are dense, spread them. */
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ull;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebull;
	key ^= key >> 31;
	return (size_t)key;
}

struct u64map *u64map__new(void)
{
	struct u64map *map = xcalloc(1, sizeof(*map));

	map->cap = 64;
	map->slots = xcalloc(map->cap, sizeof(*map->slots));
	return map;
}

void u64map__free(struct u64map *map)
{
	if (!map)
		return;
	free(map->slots);
	free(map);
}

static size_t find(const struct u64map *map, uint64_t key)
{
	size_t mask = map->cap - 1, i = hash64(key) & mask;

	while (map->slots[i].value && map->slots[i].key != key)
		i = (i + 1) & mask;
	return i;
}

void *u64map__get(const struct u64map *map, uint64_t key)
{
	return map->slots[find(map, key)].value;
}

static void grow(struct u64map *map)
{
	struct slot *old = map->slots;
	size_t old_cap = map->cap;

	map->cap *= 2;
	map->slots = xcalloc(map->cap, sizeof(*map->slots));
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].value)
			map->slots[find(map, old[i].key)] = old[i];
	free(old);
}

void *u64map__put(struct u64map *map, uint64_t key, void *value)
{
	size_t i;
	void *prev;

	if ((map->count + 1) * 4 > map->cap * 3)
		grow(map);
	i = find(map, key);
	prev = map->slots[i].value;
	map->slots[i].key = key;
	map->slots[i].value = value;
	if (!prev)
		map->count++;
	return prev;
}

/* Backward-shift deletion keeps every probe chain unbroken. */
static void remove_slot(struct u64map *map, size_t i)
{
	size_t mask = map->cap - 1, j = i;

	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!map->slots[j].value)
			break;
		home = hash64(map->slots[j].key) & mask;
		/* Move j back to i unless its home lies cyclically in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			map->slots[i] = map->slots[j];
			i = j;
		}
	}
	map->slots[i].value = NULL;
	map->count--;
}

void *u64map__remove(struct u64map *map, uint64_t key)
{
	size_t i = find(map, key);
	void *value = map->slots[i].value;

	if (value)
		remove_slot(map, i);
	return value;
}

size_t u64map__count(const struct u64map *map)
{
	return map->count;
}

size_t u64map__bytes(const struct u64map *map)
{
	return map ? sizeof(*map) + map->cap * sizeof(*map->slots) : 0;
}

bool u64map__next(const struct u64map *map, size_t *pos, uint64_t *ret_key, void **ret_value)
{
	for (size_t i = *pos; i < map->cap; i++) {
		if (map->slots[i].value) {
			*ret_key = map->slots[i].key;
			*ret_value = map->slots[i].value;
			*pos = i + 1;
			return true;
		}
	}
	*pos = map->cap;
	return false;
}

void *u64map__peek(const struct u64map *map, size_t pos)
{
	return pos < map->cap ? map->slots[pos].value : NULL;
}

void u64map__remove_at(struct u64map *map, size_t *pos)
{
	size_t i = *pos - 1;

	remove_slot(map, i);
	/* An entry shifted back into slot i has not been visited yet. */
	if (map->slots[i].value)
		*pos = i;
}

void u64map__free_all(struct u64map *map, void (*free_value)(void *value))
{
	if (!map)
		return;
	for (size_t i = 0; i < map->cap; i++)
		if (map->slots[i].value)
			free_value(map->slots[i].value);
	u64map__free(map);
}

size_t u64map__expire(struct u64map *map, uint64_t now_round, uint64_t idle_rounds,
		      uint64_t (*last_round)(const void *value), void (*free_value)(void *value))
{
	size_t pos = 0, n = 0;
	uint64_t key;
	void *value;

	while (u64map__next(map, &pos, &key, &value)) {
		if (now_round - last_round(value) > idle_rounds) {
			u64map__remove_at(map, &pos);
			free_value(value);
			n++;
		}
	}
	return n;
}

size_t u64map__trim(struct u64map *map, size_t max, uint64_t (*last_round)(const void *value),
		    void (*free_value)(void *value))
{
	size_t n = 0;

	while (map->count > max) {
		uint64_t key, oldest_key = 0, oldest = UINT64_MAX;
		size_t pos = 0;
		void *value;

		while (u64map__next(map, &pos, &key, &value)) {
			if (last_round(value) < oldest) {
				oldest = last_round(value);
				oldest_key = key;
			}
		}
		free_value(u64map__remove(map, oldest_key));
		n++;
	}
	return n;
}
