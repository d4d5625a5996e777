# SPDX-License-Identifier: GPL-2.0-only
# Sourced by tests that check speedscope files against speedscope's own
# file-format schema: need_speedscope_schema installs the npm package
# speedscope once under the build directory ($TT_BUILD/npm) and sets
# SPEEDSCOPE_SCHEMA to its dist/release/file-format-schema.json; when npm
# or the registry is missing it says so and leaves SPEEDSCOPE_SCHEMA empty
# (lib/speedscope_check.py then checks the events without the schema).
SPEEDSCOPE_SCHEMA=
need_speedscope_schema() {
	local pkg=$TT_BUILD/npm/node_modules/speedscope
	if [ ! -f "$pkg/dist/release/file-format-schema.json" ] && command -v npm >/dev/null; then
		mkdir -p "$TT_BUILD/npm"
		# Bounded: with no route to the registry (a kernel harness guest)
		# npm waited past the test's own limit.
		timeout 120 npm install --prefix "$TT_BUILD/npm" --no-audit --no-fund --silent \
			speedscope >/dev/null 2>&1 || true
	fi
	if [ -f "$pkg/dist/release/file-format-schema.json" ]; then
		SPEEDSCOPE_SCHEMA=$pkg/dist/release/file-format-schema.json
	else
		echo "note: npm package speedscope not installed: its schema is not checked"
	fi
}
