// SPDX-License-Identifier: MIT
/*
 * Live statistics (live_private.h): the sites' rows, a task site's or a sync site's given at its
 * first use, and its entry in the file published then. Off the hot path: an event whose site has
 * its row and its entry costs live_row_in's load and publish_site's.
 */
#define _GNU_SOURCE
#include "live_private.h"

#include <stdio.h>

#include "spawn_site.h"
#include "spin_lock.h"

_Static_assert(TP_LIVE_OVERFLOW < ROW_BEING_GIVEN, "a row fits the map's entries");

uint16_t rows_by_site[TP_SITES_MAX + 1];
uint16_t sync_rows_by_site[TP_SYNC_MUTEX][TP_SITES_MAX + 1];
static uint32_t rows_given; /* rows 1 to TP_LIVE_OVERFLOW - 1 given so far */

uint32_t live_new_row(uint16_t *by_site, uint32_t site)
{
	uint16_t none = 0, row;
	if (__atomic_compare_exchange_n(&by_site[site], &none, ROW_BEING_GIVEN, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		uint32_t given = __atomic_add_fetch(&rows_given, 1, __ATOMIC_RELAXED);
		row = given < TP_LIVE_OVERFLOW ? (uint16_t)given : TP_LIVE_OVERFLOW;
		__atomic_store_n(&by_site[site], row, __ATOMIC_RELEASE);
		return row;
	}
	/* another thread gives this site its row: a few instructions away */
	while ((row = __atomic_load_n(&by_site[site], __ATOMIC_ACQUIRE)) == ROW_BEING_GIVEN)
		tp_cpu_relax();
	return row;
}

void live_publish_site_first(uint32_t row, uint32_t site, bool by_program, uint32_t sync)
{
	struct tp_live_site *entry = &sites[row];
	uint32_t empty = TP_LIVE_ENTRY_EMPTY;
	if (!__atomic_compare_exchange_n(&entry->state, &empty, TP_LIVE_ENTRY_WRITING, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	/* the program's sites by address, named where they are read; the other rows in words */
	uintptr_t address = row == TP_LIVE_OVERFLOW || row == TP_LIVE_NO_SITE
				    ? 0
				    : tp_spawn_site_key_address(site);
	entry->address = address;
	entry->module = address != 0 ? live_module_entry(address) : TP_LIVE_NO_MODULE;
	const char *text = row == TP_LIVE_OVERFLOW  ? TP_LIVE_OVERFLOW_TEXT
			   : row == TP_LIVE_NO_SITE ? TP_LIVE_NO_SITE_TEXT
						    : "";
	snprintf(entry->text, sizeof entry->text, "%s", text);
	entry->site_id = row == TP_LIVE_OVERFLOW ? 0 : site;
	entry->by_executor = !by_program;
	entry->sync_kind = sync;
	__atomic_store_n(&entry->state, TP_LIVE_ENTRY_READY, __ATOMIC_RELEASE);
}
