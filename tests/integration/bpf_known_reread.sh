#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bpf_known.sh without the wakeup hooks: the one-pass sampler's passes then
# re-read every thread known, as on a kernel that refuses the hooks.
THREADTOP_TEST_NO_WAKEUPS=1 exec bash "$(dirname "$0")/bpf_known.sh"
