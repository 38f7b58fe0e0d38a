// SPDX-License-Identifier: MIT
/*
 * glibc (2.36 here; its bug 31717, mended in later releases) sets a loaded library's static TLS
 * up again, from its initial image, in every thread, when a library that depends on it is loaded
 * while it still counts as not initialized: after _dl_fini, which marks every library so, and
 * only for a library whose TLS set-up ld.so left pending, which it does for all of them under an
 * auditor (the launcher's LD_AUDIT) until the first pthread_create. So the exit report, naming a
 * single-threaded program's wait sites after the destructors (libdw loaded then), zeroed libc's
 * own TLS (errno, the ctype tables, malloc's thread cache): its next printf of a double crashed,
 * and the program (a Python script that polled once, under `taskprobe run` with TASKPROBE_REPORT)
 * ended by SIGSEGV instead of status 0.
 *
 * The TLS of a library already loaded is saved before the load and put back after it when the
 * load set it to its initial image, which it was not before: a reset, never a value the library
 * wrote since (one it wrote back to the image is left as it is, which is the same bytes). Only
 * the calling thread's: a process whose libraries' TLS can be reset never created a thread.
 */
#define _GNU_SOURCE
#include "library_load.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Libc's TLS is 144 bytes; blocks past these, and past so many libraries, are not kept. */
#define KEPT_BYTES  1024
#define KEPT_BLOCKS 16

struct kept {
	unsigned char *data;        /* the calling thread's block */
	const unsigned char *image; /* the library's initial image */
	size_t size, image_size;
	unsigned char *copy; /* in `bytes` */
};

struct keeping {
	struct kept blocks[KEPT_BLOCKS];
	unsigned n;
	size_t used;
	unsigned char bytes[KEPT_BYTES];
};

/* Whether `data` is the initial image `image` followed by zeros: a block as a reset leaves it. */
static bool as_initialized(const struct kept *k)
{
	if (memcmp(k->data, k->image, k->image_size) != 0)
		return false;
	for (size_t i = k->image_size; i < k->size; i++)
		if (k->data[i] != 0)
			return false;
	return true;
}

static int keep_block(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct keeping *k = arg;
	/* the program's own (named ""): no library depends on it, and its TLS may be large */
	if (info->dlpi_tls_data == NULL || k->n == KEPT_BLOCKS || info->dlpi_name == NULL ||
	    info->dlpi_name[0] == '\0')
		return 0;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		if (p->p_type != PT_TLS || p->p_memsz == 0 || p->p_filesz > p->p_memsz ||
		    p->p_memsz > KEPT_BYTES - k->used)
			continue;
		struct kept *b = &k->blocks[k->n];
		*b = (struct kept){
			.data = info->dlpi_tls_data,
			.image = (const unsigned char *)(info->dlpi_addr + p->p_vaddr),
			.size = p->p_memsz,
			.image_size = p->p_filesz,
			.copy = &k->bytes[k->used],
		};
		/* one that is as initialized now cannot be told reset: left alone */
		if (as_initialized(b))
			continue;
		memcpy(b->copy, b->data, b->size);
		k->used += b->size;
		k->n++;
	}
	return 0;
}

void *tp_library_load(const char *name, int flags, char *why, size_t why_size)
{
	struct keeping k;
	k.n = 0;
	k.used = 0;
	dl_iterate_phdr(keep_block, &k);
	void *lib = dlopen(name, flags);
	int saved_errno = errno;
	if (lib == NULL && why != NULL && why_size > 0) {
		const char *said = dlerror();
		snprintf(why, why_size, "%s", said != NULL ? said : "no reason given");
	}
	for (unsigned i = 0; i < k.n; i++)
		if (as_initialized(&k.blocks[i]))
			memcpy(k.blocks[i].data, k.blocks[i].copy, k.blocks[i].size);
	errno = saved_errno;
	return lib;
}
