// SPDX-License-Identifier: MIT
/*
 * The libraries' destructors' pages, mapped in at the start of exit (destructors_ready.h).
 */
#define _GNU_SOURCE
#include "destructors_ready.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "module_dynamic.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

/* The page of `address`, mapped in if it is not (an error, such as an unmapped page, is none). */
static void populate(uintptr_t address, uintptr_t page_size)
{
	if (address != 0)
		(void)madvise((void *)(address & ~(page_size - 1)), page_size, MADV_POPULATE_READ);
}

/* dl_iterate_phdr's callback: module `info`'s destructors' pages. */
static int module_destructors(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	uintptr_t page_size = *(const uintptr_t *)data;
	const ElfW(Dyn) *dyn = tp_module_dynamic(info);
	uintptr_t fini = 0, array = 0, array_size = 0;
	for (; dyn != NULL && dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_FINI)
			fini = info->dlpi_addr + dyn->d_un.d_ptr;
		else if (dyn->d_tag == DT_FINI_ARRAY)
			array = info->dlpi_addr + dyn->d_un.d_ptr;
		else if (dyn->d_tag == DT_FINI_ARRAYSZ)
			array_size = dyn->d_un.d_val;
	}
	populate(fini, page_size);
	if (array != 0) {
		populate(array, page_size);
		/* the array's entries are relocated: each a destructor's address */
		for (size_t i = 0; i < array_size / sizeof(uintptr_t); i++)
			populate(((const uintptr_t *)array)[i], page_size);
	}
	return 0;
}

void tp_destructors_ready(void)
{
	int saved_errno = errno;
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t page_size = page > 0 ? (uintptr_t)page : 4096;
	dl_iterate_phdr(module_destructors, &page_size);
	errno = saved_errno;
}
