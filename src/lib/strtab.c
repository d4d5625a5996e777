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
	uint64_t used_ns;	/* the last strtab__intern_at or strtab__touch */
	uint32_t id;
	uint32_t len;
	char text[];
};

struct strtab {
	struct u64map *by_hash;
	struct str_entry **by_id; /* index id - 1; NULL once evicted (8 bytes an id ever) */
	size_t nr, cap;		  /* ids given out */
	size_t live;		  /* entries not evicted */
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
		free(tab->by_id[i]); /* NULL once evicted */
	free(tab->by_id);
	u64map__free(tab->by_hash);
	free(tab);
}

uint32_t strtab__intern(struct strtab *tab, const char *s, size_t len, bool *ret_new)
{
	return strtab__intern_at(tab, s, len, 0, ret_new);
}

uint32_t strtab__intern_at(struct strtab *tab, const char *s, size_t len, uint64_t now_ns,
			   bool *ret_new)
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
		if (e->len == len && memcmp(e->text, s, len) == 0) {
			e->used_ns = now_ns;
			return e->id;
		}
	}
	if (tab->nr >= TT_STRING_ID_LAST)
		return 0; /* out of ids (events.h) */
	e = xmalloc(sizeof(*e) + len + 1);
	memcpy(e->text, s, len);
	e->text[len] = '\0';
	e->len = (uint32_t)len;
	e->used_ns = now_ns;
	e->next = head;
	xgrow((void **)&tab->by_id, &tab->cap, tab->nr + 1, sizeof(*tab->by_id));
	tab->by_id[tab->nr++] = e;
	e->id = (uint32_t)tab->nr;
	tab->live++;
	u64map__put(tab->by_hash, h, e);
	if (ret_new)
		*ret_new = true;
	return e->id;
}

const char *strtab__get(const struct strtab *tab, uint32_t id, size_t *ret_len)
{
	if (id == 0 || id > tab->nr || !tab->by_id[id - 1])
		return NULL;
	if (ret_len)
		*ret_len = tab->by_id[id - 1]->len;
	return tab->by_id[id - 1]->text;
}

bool strtab__touch(struct strtab *tab, uint32_t id, uint64_t now_ns)
{
	if (id == 0 || id > tab->nr || !tab->by_id[id - 1])
		return false;
	tab->by_id[id - 1]->used_ns = now_ns;
	return true;
}

size_t strtab__evict(struct strtab *tab, uint64_t before_ns, void (*gone)(void *arg, uint32_t id),
		     void *arg)
{
	size_t pos = 0, n = 0;
	struct str_entry *head;
	uint64_t h;

	/* By hash, not by id: the walk is as long as what is held, not as all ids ever. */
	while (u64map__next(tab->by_hash, &pos, &h, (void **)&head)) {
		struct str_entry *keep = NULL, **tail = &keep;

		for (struct str_entry *e = head, *next; e; e = next) {
			next = e->next;
			if (e->used_ns >= before_ns) {
				*tail = e;
				tail = &e->next;
				continue;
			}
			if (gone)
				gone(arg, e->id);
			tab->by_id[e->id - 1] = NULL;
			free(e);
			n++;
		}
		*tail = NULL;
		if (!keep)
			u64map__remove_at(tab->by_hash, &pos);
		else if (keep != head)
			u64map__put(tab->by_hash, h, keep); /* the key is there: no rehash */
	}
	tab->live -= n;
	return n;
}

size_t strtab__count(const struct strtab *tab)
{
	return tab->live;
}
