#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Sourced by the callgrind benchmarks. valgrind runs a program's code translated, and there the
# breakpoint a uprobe puts in a file's pages is a SIGTRAP that kills the run: any tracer attached
# to the built library does it (a test's running beside, bpftrace's own for a moment after it
# exits). So they measure a private copy, another file that no tracer's probes are in, under the
# same name (callgrind's report names its functions' module by it).
# private_copy FILE DIR: copies FILE into DIR and prints the copy's path.
private_copy() {
	cp "$1" "$2/$(basename "$1")"
	echo "$2/$(basename "$1")"
}
