// SPDX-License-Identifier: MIT
/*
 * The one hash of the shim and its readers: Fibonacci hashing. A key times 2^64 divided by the
 * golden ratio keeps, in its top bits, a mix of all of the key's bits, so that keys that differ
 * only in their low bits (addresses, ids, pointers) land in slots far apart.
 */
#pragma once

#include <stdint.h>

#define TP_HASH_MULTIPLIER 0x9E3779B97F4A7C15ull

/* A slot of a table of 2^bits slots for `key` (0 < bits <= 32). */
static inline uint32_t tp_hash_slot(uint64_t key, unsigned bits)
{
	return (uint32_t)((key * TP_HASH_MULTIPLIER) >> (64 - bits));
}

/* `h` with `key` mixed in: a hash of a sequence, a key at a time. */
static inline uint64_t tp_hash_mix(uint64_t h, uint64_t key)
{
	return (h ^ key) * TP_HASH_MULTIPLIER;
}
