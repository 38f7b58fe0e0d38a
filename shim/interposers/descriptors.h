// SPDX-License-Identifier: MIT
/* The close family made through syscall() (descriptors.c), for the syscall() interposer. */
#pragma once

#include <stdbool.h>

/*
 * A close, close_range, dup2 or dup3 made through syscall() (SYS_close, SYS_close_range, SYS_dup2,
 * SYS_dup3: what a program does where its C library had no close_range, or a library that calls
 * the kernel itself), with the care of the close family's functions for the descriptors the shim
 * keeps: true, the call made and its result in *ret (errno as the call left it); false for any
 * other number (or no real syscall()).
 */
bool tp_close_family_syscall(long number, const long a[6], long *ret);
