# SPDX-License-Identifier: GPL-2.0-only
# pprof export: C code generated from proto/profile.proto by protoc-c at build
# time (nothing generated is checked in). Sets TT_PPROF_SOURCES and
# TT_PPROF_GEN_DIR (add it as a SYSTEM include directory).
pkg_check_modules(PROTOBUF_C REQUIRED IMPORTED_TARGET libprotobuf-c)
find_program(TT_PROTOC_C protoc-c)
if(NOT TT_PROTOC_C)
	message(FATAL_ERROR "protoc-c not found: install protobuf-c-compiler")
endif()
set(TT_PPROF_GEN_DIR ${CMAKE_BINARY_DIR}/gen/proto)
set(TT_PPROF_SOURCES ${TT_PPROF_GEN_DIR}/profile.pb-c.c)
add_custom_command(OUTPUT ${TT_PPROF_GEN_DIR}/profile.pb-c.c ${TT_PPROF_GEN_DIR}/profile.pb-c.h
	COMMAND ${CMAKE_COMMAND} -E make_directory ${TT_PPROF_GEN_DIR}
	COMMAND ${TT_PROTOC_C} --c_out=${TT_PPROF_GEN_DIR} -I${PROJECT_SOURCE_DIR}/proto
		${PROJECT_SOURCE_DIR}/proto/profile.proto
	DEPENDS ${PROJECT_SOURCE_DIR}/proto/profile.proto
	COMMENT "Generating pprof C code with protoc-c"
	VERBATIM)
# Generated code: not ours to keep warning-clean under our flags.
set_source_files_properties(${TT_PPROF_SOURCES} PROPERTIES COMPILE_OPTIONS "-w")
