# SPDX-License-Identifier: GPL-2.0-only
# Generates the syscall number -> name table from the kernel UAPI header of the
# build machine (x86-64: asm/unistd_64.h), so names match the kernel ABI.
find_file(TT_UNISTD_H NAMES asm/unistd_64.h
	PATHS /usr/include/${CMAKE_LIBRARY_ARCHITECTURE} /usr/include NO_DEFAULT_PATH)
if(NOT TT_UNISTD_H)
	message(FATAL_ERROR "asm/unistd_64.h not found: install linux-libc-dev")
endif()
set(TT_SYSCALL_TABLE ${CMAKE_BINARY_DIR}/gen/syscall_table.c)
add_custom_command(OUTPUT ${TT_SYSCALL_TABLE}
	COMMAND ${CMAKE_COMMAND} -DIN=${TT_UNISTD_H} -DOUT=${TT_SYSCALL_TABLE}
		-P ${PROJECT_SOURCE_DIR}/cmake/gen_syscalls.cmake
	DEPENDS ${TT_UNISTD_H} ${PROJECT_SOURCE_DIR}/cmake/gen_syscalls.cmake
	COMMENT "Generating syscall name table"
	VERBATIM)
