# SPDX-License-Identifier: GPL-2.0-only
# Compiles bpf/*.bpf.c with clang -target bpf and generates a libbpf skeleton
# (<name>.skel.h) for each with bpftool. A new BPF program is a new file in
# bpf/ (with bpf/<name>.shared.h for what it shares with its loader): nothing
# here changes.

# The thread sampler keeps task references in a map (kptrs), whose BTF type
# tags clang emits from version 15: the newest clang found is used.
find_program(TT_BPF_CLANG NAMES clang-19 clang-18 clang-17 clang-16 clang-15 clang REQUIRED)
execute_process(COMMAND ${TT_BPF_CLANG} -dumpversion OUTPUT_VARIABLE tt_clang_version
	OUTPUT_STRIP_TRAILING_WHITESPACE)
if(tt_clang_version VERSION_LESS 15)
	message(FATAL_ERROR "${TT_BPF_CLANG} is clang ${tt_clang_version}; the BPF programs need clang 15 "
		"or newer (BTF type tags for task references): apt-get install clang-16")
endif()
find_program(TT_BPFTOOL NAMES bpftool HINTS /usr/sbin /sbin REQUIRED)

set(TT_BPF_GEN_DIR ${CMAKE_BINARY_DIR}/bpf-gen)
file(MAKE_DIRECTORY ${TT_BPF_GEN_DIR})

# vmlinux.h: CO-RE relocates field offsets at load time, so the header only has
# to describe the types; it is dumped from the build machine's BTF unless one is
# given (-DTT_VMLINUX_H=path) for a machine without BTF.
set(TT_VMLINUX_H "" CACHE FILEPATH "vmlinux.h to use instead of dumping /sys/kernel/btf/vmlinux")
set(TT_BTF_FILE "/sys/kernel/btf/vmlinux" CACHE FILEPATH "BTF to dump vmlinux.h from")
if(TT_VMLINUX_H)
	configure_file(${TT_VMLINUX_H} ${TT_BPF_GEN_DIR}/vmlinux.h COPYONLY)
	add_custom_target(tt_vmlinux_h)
else()
	add_custom_command(OUTPUT ${TT_BPF_GEN_DIR}/vmlinux.h
		COMMAND ${TT_BPFTOOL} btf dump file ${TT_BTF_FILE} format c > ${TT_BPF_GEN_DIR}/vmlinux.h.tmp
		COMMAND ${CMAKE_COMMAND} -E rename ${TT_BPF_GEN_DIR}/vmlinux.h.tmp ${TT_BPF_GEN_DIR}/vmlinux.h
		COMMENT "Dumping vmlinux.h from ${TT_BTF_FILE}"
		VERBATIM)
	add_custom_target(tt_vmlinux_h DEPENDS ${TT_BPF_GEN_DIR}/vmlinux.h)
endif()

# tt_bpf_skeletons(<out_var>): builds every bpf/*.bpf.c and sets <out_var> to
# the list of generated skeleton headers.
function(tt_bpf_skeletons out_var)
	file(GLOB bpf_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/bpf/*.bpf.c)
	file(GLOB bpf_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/bpf/*.h
		${PROJECT_SOURCE_DIR}/include/threadtop/*.h)
	if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
		set(arch x86)
	elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
		set(arch arm64)
	else()
		set(arch ${CMAKE_SYSTEM_PROCESSOR})
	endif()
	set(skels)
	foreach(src ${bpf_sources})
		get_filename_component(name ${src} NAME_WE)
		set(obj ${TT_BPF_GEN_DIR}/${name}.bpf.o)
		set(skel ${TT_BPF_GEN_DIR}/${name}.skel.h)
		add_custom_command(OUTPUT ${obj}
			COMMAND ${TT_BPF_CLANG} -g -O2 -target bpf -D__TARGET_ARCH_${arch}
				-mcpu=v3 -Wall -Wno-unused-function -Werror
				-I${TT_BPF_GEN_DIR} -I${PROJECT_SOURCE_DIR}/bpf
				-I${PROJECT_SOURCE_DIR}/include
				-c ${src} -o ${obj}
			DEPENDS ${src} ${bpf_headers} tt_vmlinux_h ${TT_BPF_GEN_DIR}/vmlinux.h
			COMMENT "BPF ${name}.bpf.c"
			VERBATIM)
		add_custom_command(OUTPUT ${skel}
			COMMAND ${TT_BPFTOOL} gen skeleton ${obj} name ${name}_bpf > ${skel}.tmp
			COMMAND ${CMAKE_COMMAND} -E rename ${skel}.tmp ${skel}
			DEPENDS ${obj}
			COMMENT "BPF skeleton ${name}.skel.h"
			VERBATIM)
		list(APPEND skels ${skel})
	endforeach()
	set(${out_var} ${skels} PARENT_SCOPE)
endfunction()
