#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Builds the audit module's libgomp bridge (libomp_audit.c): a shared object that defines no
# symbol and needs, in this order, LLVM's libomp and GCC's libgomp, each by a name of its own the
# module answers. Loaded where a process needs libgomp, it puts libomp ahead of libgomp in the
# lookup order: what libomp has binds there, what it lacks to libgomp. Known by libgomp's name,
# the bridge is what the dynamic linker checks the versions of libgomp an object needs against:
# it defines each version the libgomp found here defines (none when there is none: the module
# then leaves every process on libgomp).
#
# usage: gomp-bridge.sh OUTPUT WORK_DIR LIBGOMP|"" READELF|"" LIBOMP_NAME LIBGOMP_NAME CC...
set -eu
output=$1 work=$2 libgomp=$3 readelf=$4 libomp_name=$5 libgomp_name=$6
shift 6
mkdir -p "$work"
: >"$work/empty.c"
# Every version libgomp defines but its base (the file's own name); a script of none is "{ };".
if [ -n "$libgomp" ] && [ -n "$readelf" ]; then
	LC_ALL=C "$readelf" -V --wide "$libgomp" |
		sed -n '/^Version definition section/,/^Version needs section/{/Flags: BASE/d;s/.*Flags: .*Name: \([^ ]*\)$/\1 { };/p}'
fi >"$work/versions.map"
[ -s "$work/versions.map" ] || echo '{ };' >"$work/versions.map"
# The two names the bridge needs: empty objects of those sonames, linked to and never loaded.
"$@" -shared -nostdlib -o "$work/$libomp_name" "$work/empty.c" "-Wl,-soname,$libomp_name"
"$@" -shared -nostdlib -o "$work/$libgomp_name" "$work/empty.c" "-Wl,-soname,$libgomp_name"
# Never unloaded (-z nodelete): libomp, once loaded, stays, and so does the libgomp it binds to
# (the dynamic linker's relocation dependency); a bridge unloaded with the last plug-in that
# needed libgomp would leave that libgomp to be found by its name for the next one, which would
# then run its constructs half on libgomp (GOMP_single_start) under libomp's teams.
"$@" -shared -nostdlib -o "$output" "$work/empty.c" -Wl,-soname,libtaskprobe-gomp-bridge.so \
	"-Wl,--version-script=$work/versions.map" -Wl,--no-as-needed -Wl,-z,nodelete \
	"$work/$libomp_name" "$work/$libgomp_name"
