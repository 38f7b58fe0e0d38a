// SPDX-License-Identifier: MIT
/*
 * Do no harm (launcher): see test_harm.c.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>

#include "harness.h"
#include "harness_internal.h"
