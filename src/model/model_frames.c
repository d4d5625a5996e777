// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stack frame names for every view (see model.h): the model keeps the frame
 * namer a live run sets up and answers model__frame_name with it, so the
 * batch output, the TUI and the exporters name frames the same way.
 */
#include "model_internal.h"
#include "threadtop/frame_namer.h"

void model__set_frame_namer(struct model *m, const struct frame_namer *namer)
{
	m->namer = namer;
}

const struct frame_namer *model__frame_namer(const struct model *m)
{
	return m ? m->namer : NULL;
}

void model__frame_name(const struct model *m, uint32_t pid, uint64_t addr, bool kernel,
		       struct frame_name *ret)
{
	const char *lua = m && !kernel ? lj_model__frame_name(m->lj, addr) : NULL;

	if (lua) { /* a Lua function of a LuaJIT stack (lj_model.h) */
		*ret = (struct frame_name){.name = lua, .module = LJ_FRAME_MODULE};
		return;
	}
	frame_namer__name(m ? m->namer : NULL, pid, addr, kernel, ret);
}
