# SPDX-License-Identifier: GPL-2.0-only
# Sourced by tests that decode pprof files with the npm package pprof-format
# (lib/pprof_summary.js): need_pprof_format installs it once under the build
# directory ($TT_BUILD/npm) and skips the test (exit 77, via skip()) when
# node is missing or the registry cannot be reached. PPROF_NODE_PATH is then
# the NODE_PATH for pprof_summary.js.
PPROF_NODE_PATH="$TT_BUILD/npm/node_modules"
need_pprof_format() {
	command -v node >/dev/null || skip "node is not installed (needed for pprof-format)"
	if [ ! -d "$PPROF_NODE_PATH/pprof-format" ]; then
		mkdir -p "$TT_BUILD/npm"
		timeout 120 npm install --prefix "$TT_BUILD/npm" --no-audit --no-fund --silent \
			pprof-format >/dev/null 2>&1 || skip "npm install pprof-format failed (no registry?)"
	fi
}
