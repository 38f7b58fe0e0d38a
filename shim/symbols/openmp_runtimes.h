// SPDX-License-Identifier: MIT
/*
 * Which OpenMP runtimes the process has loaded, by their file names: GCC's libgomp has no tool
 * interface, LLVM's libomp has one (and implements libgomp's entry points, so a program built
 * by GCC runs on it when it is loaded first: taskprobe run preloads it).
 */
#pragma once

#include <stdbool.h>

enum tp_openmp_runtime {
	TP_OPENMP_NONE,
	TP_OPENMP_LIBGOMP,
	TP_OPENMP_LIBOMP, /* or Intel's libiomp5, its sibling */
};

/* The runtime whose code holds `address` (TP_OPENMP_NONE: neither's, or no object's). */
enum tp_openmp_runtime tp_openmp_code_of(const void *address);

/* The runtime the program's GOMP_* calls reach: the first of the two in load order. */
enum tp_openmp_runtime tp_openmp_runtime_first(void);

/*
 * Whether a program built for libgomp runs on libomp: libgomp is loaded behind libomp (preloaded,
 * or by the launcher's audit module's bridge), or libomp in its place (an object needs libgomp,
 * which is not loaded).
 */
bool tp_openmp_libgomp_on_libomp(void);

/*
 * At start: a process whose OpenMP runtime is libgomp (libomp not loaded before it) says, once,
 * that its tasks are not seen, and why: under the launcher, whose audit module gives every
 * process of the run that needs libgomp LLVM's libomp ahead of it (TASKPROBE_LIBOMP), libomp
 * lacks some of what it calls or it brings a libgomp of its own; else libomp is not installed, or
 * the launcher was not used (docs/openmp.md).
 */
void tp_openmp_runtimes_start(void);
