#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tracer-ready protocol: when a tracer started ahead of the program it traces may let the
# program run. This file is its one definition. contrib/bench/run sources it; meson writes the
# block below into the launcher (contrib/taskprobe.in, installed as one file); the test harness
# (preload-tests/tracer.c) follows it with the constants below, which meson reads from here.
#
# The tracer: a bpftrace program whose BEGIN prints a line. bpftrace runs BEGIN once every probe
# is attached, and prints nothing on stdout before it but its own "Attaching N probes..." line.
# The shipped scripts print "Tracing ...", the harness's and the benchmarks' programs "READY".
#
# The waiting side: the tracer is ready at the first whole line of its standard output that does
# not start with TRACER_NOT_READY_PREFIX. It looks every TRACER_READY_CHECK_MS, and gives up (and
# stops the tracer, and the program held for it) when the tracer has ended first or
# TRACER_READY_TIMEOUT_S have passed.

# >>> tracer-ready protocol
TRACER_READY_TIMEOUT_S=60
TRACER_READY_CHECK_MS=20
TRACER_NOT_READY_PREFIX='Attaching '

# tracer_ready_line LINE: whether LINE, a line of the tracer's output, says it is ready.
tracer_ready_line() {
	[[ $1 != "$TRACER_NOT_READY_PREFIX"* ]]
}

# tracer_ready_file FILE: whether FILE, the tracer's output so far, holds that line (a last line
# still without its newline does not count).
tracer_ready_file() {
	local line
	while IFS= read -r line; do
		tracer_ready_line "$line" && return 0
	done < "$1"
	return 1
}

# tracer_await_ready PID CHECK...: runs CHECK... (tracer_ready_file FILE, or the caller's own
# test) every TRACER_READY_CHECK_MS until it succeeds; returns 1 if the tracer PID ends first or
# TRACER_READY_TIMEOUT_S pass.
tracer_await_ready() {
	local pid=$1 polls=$((TRACER_READY_TIMEOUT_S * 1000 / TRACER_READY_CHECK_MS)) interval
	shift
	interval=$(printf '%d.%03d' $((TRACER_READY_CHECK_MS / 1000)) $((TRACER_READY_CHECK_MS % 1000)))
	until "$@"; do
		if ! kill -0 "$pid" 2>/dev/null || [ "$polls" -le 0 ]; then
			return 1
		fi
		sleep "$interval"
		polls=$((polls - 1))
	done
}
# <<< tracer-ready protocol
