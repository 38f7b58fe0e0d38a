// SPDX-License-Identifier: MIT
/* A loaded module's dynamic section, as dl_iterate_phdr reports the module. */
#pragma once

#include <link.h>
#include <stddef.h>

/* The dynamic section of module `info` in memory, or NULL when it has none (a static one). */
static inline const ElfW(Dyn) * tp_module_dynamic(const struct dl_phdr_info *info)
{
	for (size_t i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			return (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	return NULL;
}
