#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Fixture set-up (setup.pprof_format in tests/CMakeLists.txt): installs the
# npm package pprof-format under the build directory once, before the tests
# that decode pprof files with it start, so that tests run in parallel never
# install it into the same directory at once. Never fails: where node or the
# registry is missing, those tests skip, or check less, and say so.
set -u
: "${TT_BUILD:?}"
skip() {
	echo "note: $*: the tests that decode pprof files skip or check less"
	exit 0
}
# shellcheck source=pprof_format.bash
. "$(dirname "$0")/pprof_format.bash"
need_pprof_format
echo "pprof-format in $PPROF_NODE_PATH"
