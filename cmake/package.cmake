# SPDX-License-Identifier: GPL-2.0-only
# The Debian package: `cpack -G DEB` in a build directory makes
# threadtop_VERSION_amd64.deb of what `cmake --install` installs, under /usr,
# plus the bash completion and the recorder unit example. Depends: come from
# dpkg-shlibdeps (Debian's library packages the binaries link); the BPF
# programs are compiled into threadtop, so no compiler, clang or bpftool is
# needed where it runs.
install(FILES ${PROJECT_SOURCE_DIR}/assets/threadtop.bash-completion
	DESTINATION share/bash-completion/completions RENAME threadtop)
install(FILES ${PROJECT_SOURCE_DIR}/assets/deploy/threadtop-recorder.service
	DESTINATION share/doc/threadtop/examples RENAME threadtop.service)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME threadtop)
set(CPACK_PACKAGE_VENDOR threadtop)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "top-like live profiler for Linux threads")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "threadtop maintainers <threadtop@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "threadtop shows, live and per thread, the thread's state, the
syscall it sits in, where it burns CPU and where it waits (eBPF, CO-RE), what
LuaJIT programs do (a sysprof library for stock LuaJIT), application labels
from uprobes and USE metrics of the box; it records sessions, replays them
elsewhere and exports flame graphs, pprof, speedscope and JSON.")
include(CPack)
