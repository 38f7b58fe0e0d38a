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

/* The runtime the program's GOMP_* calls reach: the first of the two in load order. */
enum tp_openmp_runtime tp_openmp_runtime_first(void);

/* Whether libgomp is loaded behind libomp: a program built for libgomp that runs on libomp. */
bool tp_openmp_libgomp_on_libomp(void);

/*
 * At start: a process whose OpenMP runtime is libgomp (libomp not loaded before it) says, once,
 * that its tasks are not seen. The launcher moves the program it starts onto libomp
 * (LD_PRELOAD); a program that one starts (a script's) inherits only the LD_PRELOAD of a program
 * that needed none, and its loaded runtime cannot be swapped: it is told to run under taskprobe
 * itself (README, "OpenMP programs built with GCC").
 */
void tp_openmp_runtimes_start(void);
