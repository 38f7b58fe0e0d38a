// SPDX-License-Identifier: MIT
/*
 * Do no harm (console): see test_harm.c.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>

#include "harness.h"
#include "harness_internal.h"
