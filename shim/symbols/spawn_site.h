// SPDX-License-Identifier: MIT
/*
 * Spawn sites: the places in the program that spawn tasks (for OpenMP, a task construct's call
 * into libomp), each kept by its call address under a small key, and named, in words a person
 * reads, only when a tracer reads the text (or at exit, for the report). Lookups of a known call
 * address take no lock and allocate nothing; naming one happens once per address, serialized,
 * and may read debug information (slow, so never again for that address).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The most distinct site texts, and call addresses leading to them (several may share a text). */
#define TP_SITES_MAX          4096
#define TP_SITE_ADDRESSES_MAX 16384

/* The longest site text kept, NUL included; longer ones are cut. */
#define TP_SITE_TEXT_MAX 256

/*
 * The keys the calling thread found last, two slots (a set) each by call address: its address in
 * the low TP_SITE_KEY_ADDRESS_BITS bits, its key above them (0: none). A thread spawns and waits
 * at few constructs (a recursion's two tasks and its taskwait): a lookup is then a load and a
 * compare, or two. Two calls in one set are both kept (a task construct's call and its taskwait's,
 * 256 bytes apart, as in BOTS uts): a new one takes a set's first slot, the first's call moving to
 * the second. A slot is one word, written whole: a signal handler's lookup on the same thread,
 * between the compare and the use, cannot pair one address with another's key.
 */
#define TP_SITE_KEY_ADDRESS_BITS 48
#define TP_SITE_KEYS_KNOWN       16
_Static_assert(TP_SITE_ADDRESSES_MAX < 1u << (64 - TP_SITE_KEY_ADDRESS_BITS), "a key fits");
extern __thread uint64_t tp_site_keys_known[TP_SITE_KEYS_KNOWN]
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

/* The first slot of the set of `address` in tp_site_keys_known: calls lie bytes apart, a set's 16
 * of them. */
static inline unsigned tp_site_key_slot(uintptr_t address)
{
	return (unsigned)(address >> 4) % (TP_SITE_KEYS_KNOWN / 2) * 2;
}

/* The key in slot `known` of tp_site_keys_known if it holds `address`, else 0. */
static inline uint32_t tp_site_key_if_known(uint64_t known, uintptr_t address)
{
	return known != 0 && (known & ((1ull << TP_SITE_KEY_ADDRESS_BITS) - 1)) == address
		       ? (uint32_t)(known >> TP_SITE_KEY_ADDRESS_BITS)
		       : 0;
}

/* tp_spawn_site_key's path when the address is not known to the thread: looked up, kept. */
uint32_t tp_spawn_site_key_lookup(const void *return_address);

/*
 * The key of the call whose return address is `return_address` (as OMPT's codeptr_ra): 1 to
 * TP_SITE_ADDRESSES_MAX, one per call address, in order of first sight; 0 for a NULL address or
 * when the table is full (said once). Costs no naming: what the
 * in-process consumers keep, to be named where they are read.
 */
static inline uint32_t tp_spawn_site_key(const void *return_address)
{
	uintptr_t address = (uintptr_t)return_address;
	const uint64_t *set = &tp_site_keys_known[tp_site_key_slot(address)];
	uint32_t key = tp_site_key_if_known(set[0], address);
	if (__builtin_expect(key != 0, 1))
		return key;
	key = tp_site_key_if_known(set[1], address);
	if (__builtin_expect(key != 0, 1))
		return key;
	return tp_spawn_site_key_lookup(return_address);
}

/*
 * The key of the function whose first instruction is `entry` (a thread's start routine), as
 * tp_spawn_site_key: its site (tp_spawn_site_of_key) is named as the function, at its entry.
 */
uint32_t tp_spawn_site_key_of_function(const void *entry);

/*
 * The name of the function of key `key` (of tp_spawn_site_key_of_function) from its module's
 * symbols alone, "function (module file name)", kept for the life of the process; NULL for
 * another key or when FUNCTION_SYMBOLS_MAX are named. Named the first time (no debug
 * information read: a thread's start, for a tracer's thread-start), under the naming lock.
 */
const char *tp_spawn_site_function_symbol(uint32_t key);

/* The call address of key `key` (its return address), 0 for an unknown key. */
uintptr_t tp_spawn_site_key_address(uint32_t key);

/*
 * The contract's site id of key `key`: 1 to TP_SITES_MAX in order of first naming, equal for
 * equal texts; 0 for key 0 or when the site table is full. Names the key's address the first
 * time (slow: debug information is read), so only for a tracer that reads the text, and the exit
 * report.
 */
uint32_t tp_spawn_site_of_key(uint32_t key);

/* The site id of key `key` if it was named already, else 0: never names. */
uint32_t tp_spawn_site_if_named(uint32_t key);

/* Whether key `key` was named already (its site may be 0: the site table was full). */
bool tp_spawn_site_is_named(uint32_t key);

/* tp_spawn_site_of_key of the key of `return_address`. */
uint32_t tp_spawn_site(const void *return_address);

/* The text of site `id` (kept for the life of the process), or NULL for 0 or an unknown id. */
const char *tp_spawn_site_text(uint32_t id);

/* The lifecycle's steps for this module (lifecycle.c calls them, in the order it states). */
void tp_spawn_sites_prepare_fork(void); /* no site half named */
void tp_spawn_sites_after_fork(void);
