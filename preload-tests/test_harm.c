// SPDX-License-Identifier: MIT
/*
 * Do no harm: the suite `harm`. Putting taskprobe in front of a program changes nothing of it
 * (its output, exit status, files, limits, system calls), and nothing taskprobe reads or writes
 * can be turned against anyone (setuid programs, planted links, other users' files). This file
 * holds the shim's side; test_harm_launcher.c the launcher's and test_harm_console.c the
 * console's.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>

#include "harness.h"
#include "harness_internal.h"
