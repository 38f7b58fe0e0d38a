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

/*
 * For tables indexed by a hash's low bits (a mask): MurmurHash3's 64-bit finalizer, after which
 * every bit of `h` moves every bit of the result, low ones included.
 */
#define TP_HASH_FINISH_MULTIPLIER 0xff51afd7ed558ccdull
static inline uint64_t tp_hash_finish(uint64_t h)
{
	h ^= h >> 33;
	h *= TP_HASH_FINISH_MULTIPLIER;
	return h ^ h >> 33;
}

/* Two keys (a process and an id, a scope and an id) as one hash, for a mask. */
static inline uint64_t tp_hash_pair(uint64_t a, uint64_t b)
{
	return tp_hash_finish(a ^ b * TP_HASH_MULTIPLIER);
}

/* A NUL-terminated text's hash: 64-bit FNV-1a over its bytes. */
#define TP_HASH_TEXT_BASIS 1469598103934665603ull
#define TP_HASH_TEXT_PRIME 1099511628211ull
static inline uint64_t tp_hash_text(const char *text)
{
	uint64_t h = TP_HASH_TEXT_BASIS;
	for (; *text != '\0'; text++)
		h = (h ^ (unsigned char)*text) * TP_HASH_TEXT_PRIME;
	return h;
}
