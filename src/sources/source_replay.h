/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The replay source: the records of a .ttr recording, fed to the sink in
 * file order, including the clock and interval marks the recording run made,
 * so the model sees exactly what it saw live. Its fd is an eventfd that is
 * readable while there is more to play; each ready() plays up to the next
 * interval mark, so the loop stays responsive on long files.
 */
#ifndef THREADTOP_SOURCE_REPLAY_H
#define THREADTOP_SOURCE_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "threadtop/source.h"
#include "ttr_reader.h"

/*
 * Opens path. On failure returns NULL with errno set and one line in err
 * naming the file, the offset and the reason.
 */
struct source *replay_source__new(const char *path, struct event_sink sink, char *err,
				  size_t errlen);
/* The same over fd, opened already (path names it in messages); the source owns fd. */
struct source *replay_source__new_fd(int fd, const char *path, struct event_sink sink, char *err,
				     size_t errlen);

/*
 * Positions the replay at the event chunk holding time_ns (monotonic, the
 * recording's clock), after emitting to the sink the dictionaries as they
 * stood there (from the nearest snapshot, then the chunks since), timed at
 * the chunk's start. The caller gives the sink a fresh model first and plays
 * on (ready) to the interval it wants. Returns 0, -ERANGE past the end, or
 * -EBADMSG with src->error set.
 */
int replay_source__seek(struct source *src, uint64_t time_ns);

/* The reader under src (host info, chunk index). Owned by the source. */
const struct ttr_reader *replay_source__reader(struct source *src);

#endif /* THREADTOP_SOURCE_REPLAY_H */
