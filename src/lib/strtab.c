// SPDX-License-Identifier: GPL-2.0-only
/* String interning: hash buckets (hash.h) chained in a u64map (see strtab.h). */
#include <stdlib.h>
#include <string.h>

#include "threadtop/events.h"
#include "hash.h"
#include "strtab.h"
#include "u64map.h"
#include "util.h"

struct str_entry {
	struct str_entry *next; /* same hash */
	uint32_t id;
	uint32_t len;
	char text[];
};

struct strtab {
	struct u64map *by_hash;
	struct str_entry **by_id; /* index id - 1 */
	size_t nr, cap;
};

struct strtab *strtab__new(void)
{
	struct strtab *tab = xcalloc(1, sizeof(*tab));

	tab->by_hash = u64map__new();
	return tab;
}

void strtab__free(struct strtab *tab)
{
	if (!tab)
		return;
	for (size_t i = 0; i < tab->nr; i++)
		free(tab->by_id[i]);
	free(tab->by_id);
	u64map__free(tab->by_hash);
	free(tab);
}

uint32_t strtab__intern(struct strtab *tab, const char *s, size_t len, bool *ret_new)
{
	struct str_entry *head, *e;
	uint64_t h;

	if (ret_new)
		*ret_new = false;
	if (len > TT_MAX_STRING_LEN)
		len = TT_MAX_STRING_LEN;
	h = hash_bytes(HASH_INIT, s, len);
	head = u64map__get(tab->by_hash, h);
	for (e = head; e; e = e->next) {
		if (e->len == len && memcmp(e->text, s, len) == 0)
			return e->id;
	}
	if (tab->nr >= TT_STRING_ID_LAST)
		return 0; /* out of ids (events.h) */
	e = xmalloc(sizeof(*e) + len + 1);
	memcpy(e->text, s, len);
	e->text[len] = '\0';
	e->len = (uint32_t)len;
	e->next = head;
	xgrow((void **)&tab->by_id, &tab->cap, tab->nr + 1, sizeof(*tab->by_id));
	tab->by_id[tab->nr++] = e;
	e->id = (uint32_t)tab->nr;
	u64map__put(tab->by_hash, h, e);
	if (ret_new)
		*ret_new = true;
	return e->id;
}

const char *strtab__get(const struct strtab *tab, uint32_t id, size_t *ret_len)
{
	if (id == 0 || id > tab->nr)
		return NULL;
	if (ret_len)
		*ret_len = tab->by_id[id - 1]->len;
	return tab->by_id[id - 1]->text;
}
