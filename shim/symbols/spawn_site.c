// SPDX-License-Identifier: MIT
/*
 * Spawn sites. Three tables: call addresses to keys (open addressing; an entry is written whole
 * before its address is published with a release store, so readers take no lock), keys to their
 * addresses and, once named, their site ids, and site texts to ids (touched only while naming,
 * under the naming lock). Several call addresses can share a text: a compiler that unrolls a
 * loop copies its one task construct. A key costs no naming: the in-process consumers keep keys
 * and addresses, and are named where they are read. Threads' start routines are kept here too,
 * as keys of function entries.
 */
#define _GNU_SOURCE
#include "spawn_site.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "code_map.h"
#include "hash.h"
#include "symbolize.h"
#include "shim_work.h"
#include "source_lines.h"
#include "warn.h"

/* Twice the addresses kept, so that probing stays short when the table is nearly full. */
#define ADDRESS_SLOT_BITS 15
#define ADDRESS_SLOTS     (1u << ADDRESS_SLOT_BITS)
#define TEXT_SLOTS        (2 * TP_SITES_MAX)
_Static_assert(ADDRESS_SLOTS >= 2 * TP_SITE_ADDRESSES_MAX, "address table too small");

struct address_slot {
	uintptr_t address; /* 0: free; published last */
	uint32_t key;
};

static struct address_slot addresses[ADDRESS_SLOTS];
static uint32_t n_addresses; /* keys given: 1 to n_addresses */
static pthread_mutex_t adding = PTHREAD_MUTEX_INITIALIZER;

/*
 * By key: its address, and its site id once named (0 before, or when the site table was full);
 * the module that held it when it was kept (code_map.h's index + 1; 0: none known), by which it
 * is named once that module is unloaded; whether the address is a function's entry (a thread's
 * start routine), not a return address.
 */
static struct {
	uintptr_t address;
	uint32_t site;
	uint32_t module;
	bool named;
	bool function;
} keys[TP_SITE_ADDRESSES_MAX + 1];
static char texts[TP_SITES_MAX + 1][TP_SITE_TEXT_MAX]; /* by id; [0] unused */
static uint32_t n_sites;
static uint16_t text_slots[TEXT_SLOTS]; /* site ids by text hash; 0 free */
static pthread_mutex_t naming = PTHREAD_MUTEX_INITIALIZER;

/* A full table is said once: the calls past it have no site (their tasks and waits count under
 * none), which must not pass for a complete answer. */
__attribute__((cold, noinline)) static void say_full(const char *what, unsigned most)
{
	static int said;
	if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED) == 0)
		tp_warn("more than %u %s: the calls past them have no site (their tasks and waits "
			"count under no site)",
			most, what);
}

static uint32_t address_slot_of(uintptr_t address)
{
	return tp_hash_slot(address, ADDRESS_SLOT_BITS);
}

/* The key published for `address`, 0 when the address has no entry yet. */
static uint32_t lookup(uintptr_t address)
{
	for (uint32_t i = address_slot_of(address), n = 0; n < ADDRESS_SLOTS;
	     i = (i + 1) % ADDRESS_SLOTS, n++) {
		uintptr_t here = __atomic_load_n(&addresses[i].address, __ATOMIC_ACQUIRE);
		if (here == address)
			return addresses[i].key;
		if (here == 0)
			break;
	}
	return 0;
}

/* The id of `text`, given now if it is new; 0 when the site table is full. Under `naming`. */
static uint32_t site_of_text(const char *text)
{
	uint32_t i = (uint32_t)(tp_hash_text(text) % TEXT_SLOTS);
	for (; text_slots[i] != 0; i = (i + 1) % TEXT_SLOTS)
		if (strcmp(texts[text_slots[i]], text) == 0)
			return text_slots[i];
	if (n_sites == TP_SITES_MAX)
		return 0;
	uint32_t id = n_sites + 1;
	memcpy(texts[id], text, TP_SITE_TEXT_MAX);
	text_slots[i] = (uint16_t)id;
	__atomic_store_n(&n_sites, id, __ATOMIC_RELEASE);
	return id;
}

__thread uint64_t tp_site_keys_known[TP_SITE_KEYS_KNOWN];

/* The key found for `address` (nonzero) is known to the thread, if the address fits beside it. */
static uint32_t key_kept(uintptr_t address, uint32_t key)
{
	if (key != 0 && address >> TP_SITE_KEY_ADDRESS_BITS == 0) {
		uint64_t *set = &tp_site_keys_known[tp_site_key_slot(address)];
		set[1] = set[0];
		set[0] = address | (uint64_t)key << TP_SITE_KEY_ADDRESS_BITS;
	}
	return key;
}

uint32_t tp_spawn_site_key_lookup(const void *return_address)
{
	uintptr_t address = (uintptr_t)return_address;
	if (address == 0)
		return 0;
	uint32_t key = lookup(address);
	if (__builtin_expect(key != 0, 1))
		return key_kept(address, key);
	if (__atomic_load_n(&n_addresses, __ATOMIC_ACQUIRE) == TP_SITE_ADDRESSES_MAX) {
		say_full("call addresses", TP_SITE_ADDRESSES_MAX); /* no module looked up */
		return 0;
	}
	/* its module, while it is loaded (the call's, before the return address): as the shim's
	 * work, so that a signal handler's wait meanwhile keys nothing (this thread may hold the
	 * modules' lock), as the recorder looks its sites' modules up (recorder_sites.c) */
	bool nested = tp_shim_work_begin();
	uint32_t module = tp_code_module_of(address - 1);
	tp_shim_work_end(nested);
	tp_shim_own_lock(&adding);
	key = lookup(address); /* another thread may have added it meanwhile */
	if (key == 0 && n_addresses < TP_SITE_ADDRESSES_MAX) {
		key = n_addresses + 1;
		keys[key].address = address;
		keys[key].module = module;
		uint32_t i = address_slot_of(address);
		while (addresses[i].address != 0)
			i = (i + 1) % ADDRESS_SLOTS;
		addresses[i].key = key;
		__atomic_store_n(&addresses[i].address, address, __ATOMIC_RELEASE);
		__atomic_store_n(&n_addresses, key, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&adding);
	if (key == 0)
		say_full("call addresses", TP_SITE_ADDRESSES_MAX);
	return key_kept(address, key);
}

uint32_t tp_spawn_site_key_of_function(const void *entry)
{
	uint32_t key = tp_spawn_site_key(entry);
	/* before it is named: every caller with the key sets it first */
	if (key != 0 && !__atomic_load_n(&keys[key].function, __ATOMIC_ACQUIRE))
		__atomic_store_n(&keys[key].function, true, __ATOMIC_RELEASE);
	return key;
}

uintptr_t tp_spawn_site_key_address(uint32_t key)
{
	return key != 0 && key <= __atomic_load_n(&n_addresses, __ATOMIC_ACQUIRE)
		       ? keys[key].address
		       : 0;
}

uint32_t tp_spawn_site_of_key(uint32_t key)
{
	if (key == 0 || key > __atomic_load_n(&n_addresses, __ATOMIC_ACQUIRE))
		return 0;
	if (__builtin_expect(__atomic_load_n(&keys[key].named, __ATOMIC_ACQUIRE), 1))
		return keys[key].site;
	tp_shim_own_lock(&naming);
	if (!keys[key].named) {
		char text[TP_SITE_TEXT_MAX];
		bool function = __atomic_load_n(&keys[key].function, __ATOMIC_ACQUIRE);
		struct tp_source_module m;
		uintptr_t start, end;
		if (keys[key].module != 0 &&
		    tp_code_module_unloaded(keys[key].module - 1, &m, &start, &end))
			tp_symbolize_unloaded(&m, start, keys[key].address, function, text,
					      sizeof text);
		else if (function)
			tp_symbolize_function(keys[key].address, true, text, sizeof text);
		else
			tp_symbolize_call(keys[key].address, text, sizeof text);
		keys[key].site = site_of_text(text);
		__atomic_store_n(&keys[key].named, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&naming);
	return keys[key].site;
}

/*
 * Functions named from their symbols alone, for the thread-start probe: at most
 * FUNCTION_SYMBOLS_MAX texts, by key (an index into function_symbols, 0 before it is named).
 */
#define FUNCTION_SYMBOLS_MAX 256
static uint16_t function_symbol_of_key[TP_SITE_ADDRESSES_MAX + 1];
static char function_symbols[FUNCTION_SYMBOLS_MAX + 1][TP_SITE_TEXT_MAX]; /* [0] unused */
static uint32_t n_function_symbols;

const char *tp_spawn_site_function_symbol(uint32_t key)
{
	if (key == 0 || key > __atomic_load_n(&n_addresses, __ATOMIC_ACQUIRE) ||
	    !__atomic_load_n(&keys[key].function, __ATOMIC_ACQUIRE))
		return NULL;
	uint16_t i = __atomic_load_n(&function_symbol_of_key[key], __ATOMIC_ACQUIRE);
	if (__builtin_expect(i != 0, 1))
		return function_symbols[i];
	tp_shim_own_lock(&naming);
	i = function_symbol_of_key[key];
	if (i == 0 && n_function_symbols < FUNCTION_SYMBOLS_MAX) {
		i = (uint16_t)++n_function_symbols;
		tp_symbolize_function(keys[key].address, false, function_symbols[i],
				      sizeof function_symbols[i]);
		__atomic_store_n(&function_symbol_of_key[key], i, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&naming);
	return i != 0 ? function_symbols[i] : NULL;
}

bool tp_spawn_site_is_named(uint32_t key)
{
	return key != 0 && key <= __atomic_load_n(&n_addresses, __ATOMIC_ACQUIRE) &&
	       __atomic_load_n(&keys[key].named, __ATOMIC_ACQUIRE);
}

uint32_t tp_spawn_site_if_named(uint32_t key)
{
	return tp_spawn_site_is_named(key) ? keys[key].site : 0;
}

uint32_t tp_spawn_site(const void *return_address)
{
	uint32_t key = tp_spawn_site_key(return_address);
	uint32_t site = tp_spawn_site_of_key(key);
	if (site == 0 && key != 0) /* the site table full (a full key table is said there) */
		say_full("sites", TP_SITES_MAX);
	return site;
}

const char *tp_spawn_site_text(uint32_t id)
{
	return id != 0 && id <= __atomic_load_n(&n_sites, __ATOMIC_ACQUIRE) ? texts[id] : NULL;
}

/* A fork while another thread names or adds a site: the child gets the locks free, and whole
 * tables. */
void tp_spawn_sites_prepare_fork(void)
{
	tp_shim_own_lock(&naming);
	tp_shim_own_lock(&adding);
}

void tp_spawn_sites_after_fork(void)
{
	pthread_mutex_unlock(&adding);
	pthread_mutex_unlock(&naming);
}
