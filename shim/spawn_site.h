// SPDX-License-Identifier: MIT
/*
 * Spawn sites: the places in the program that spawn tasks (for OpenMP, a task construct's call
 * into libomp), each named once, in words a person reads, and given a small id. Lookups of a
 * known call address take no lock and allocate nothing; naming a new one happens once per address,
 * serialized, and may read debug information (slow, so never again for that address).
 */
#pragma once

#include <stdint.h>

/* The most distinct site texts, and call addresses leading to them (several may share a text). */
#define TP_SITES_MAX          4096
#define TP_SITE_ADDRESSES_MAX 16384

/* The longest site text kept, NUL included; longer ones are cut. */
#define TP_SITE_TEXT_MAX 256

/*
 * The site of the call whose return address is `return_address` (as OMPT's codeptr_ra): its id,
 * 1 to TP_SITES_MAX in order of first sight, equal for equal texts; 0 for a NULL address, or when
 * the tables are full (counted in tp_spawn_sites_dropped).
 */
uint32_t tp_spawn_site(const void *return_address);

/* The text of site `id` (kept for the life of the process), or NULL for 0 or an unknown id. */
const char *tp_spawn_site_text(uint32_t id);

/* How many lookups found the tables full. */
uint64_t tp_spawn_sites_dropped(void);
