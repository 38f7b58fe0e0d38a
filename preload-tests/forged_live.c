// SPDX-License-Identifier: MIT
/* Live statistics files forged by the tests (forged_live.h). */
#define _GNU_SOURCE
#include "forged_live.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* /proc/PID/stat's starttime (field 22). */
uint64_t start_ticks_of(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	char stat[4096];
	FILE *file = fopen(path, "re");
	cr_assert_not_null(file, "%s: %s", path, strerror(errno));
	size_t len = fread(stat, 1, sizeof stat - 1, file);
	fclose(file);
	stat[len] = '\0';
	const char *field = strrchr(stat, ')');
	cr_assert_not_null(field);
	for (int i = 0; i < 19; i++) {
		field = strchr(field + 1, ' ');
		cr_assert_not_null(field, "%s", stat);
	}
	return strtoull(field + 1, NULL, 10);
}

uint64_t pid_namespace_of(pid_t pid)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof path, "/proc/%d/ns/pid", (int)pid);
	cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
	return (uint64_t)st.st_ino;
}

/* A header naming `pid` as the shim writes it (a file of the layout, not ended). */
struct forged forged_for(pid_t pid)
{
	struct forged f = {
		.site_text = "forged_site (forged.c:7)",
		.thread_name = "forged-thread",
		.thread_name_len = strlen("forged-thread"),
	};
	struct tp_live_header *h = &f.header;
	memcpy(h->magic, TP_LIVE_MAGIC, sizeof h->magic);
	h->version = TP_LIVE_VERSION;
	h->header_size = sizeof *h;
	h->file_size = TP_LIVE_FILE_SIZE;
	h->pid = (uint32_t)pid;
	h->clock = TP_LIVE_CLOCK_MONOTONIC;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	h->ns_at_start = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec - 1000000000u;
	h->long_poll_ns = 10000000;
	h->rows_offset = TP_LIVE_ROWS_OFFSET;
	h->rows_stride = TP_LIVE_ROWS_STRIDE;
	memcpy(h->comm, "forgedcomm", sizeof "forgedcomm");
	h->pid_namespace = pid_namespace_of(pid);
	h->start_ticks = start_ticks_of(pid);
	return f;
}

void put(int fd, const void *data, size_t len, uint64_t offset)
{
	cr_assert_eq(pwrite(fd, data, len, (off_t)offset), (ssize_t)len, "%s", strerror(errno));
}

/* Writes `f` as the statistics of its header's pid... named for `pid`, in `dir`; its path. */
char *write_forged(const char *dir, pid_t pid, const struct forged *f)
{
	char *path;
	cr_assert(asprintf(&path, "%s/" TP_LIVE_FILE_PREFIX "%d", dir, (int)pid) > 0);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(ftruncate(fd, TP_LIVE_FILE_SIZE), 0);
	put(fd, &f->header, sizeof f->header, 0);
	struct tp_live_site site = {.state = TP_LIVE_ENTRY_READY, .site_id = 1};
	memcpy(site.text, f->site_text, strnlen(f->site_text, sizeof site.text));
	put(fd, &site, sizeof site, TP_LIVE_SITES_OFFSET + 1 * sizeof site);
	if (f->stack_module != NULL) {
		/* a stack of two frames in a module whose file (no ELF: named by address and file
		 * name) is named `stack_module` in `dir` */
		struct tp_live_module module = {.state = TP_LIVE_ENTRY_READY,
						.bias = FORGED_MODULE_START,
						.start = FORGED_MODULE_START,
						.end = FORGED_MODULE_START + 0x1000};
		snprintf(module.path, sizeof module.path, "%s/%s", dir, f->stack_module);
		int file = open(module.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		cr_assert(file >= 0, "%s", strerror(errno));
		cr_assert_eq(write(file, "not an ELF file\n", 16), 16);
		close(file);
		put(fd, &module, sizeof module, TP_LIVE_MODULES_OFFSET);
		struct tp_live_stack stack = {
			.state = TP_LIVE_ENTRY_READY,
			.site = 1,
			.stack_id = 1,
			.samples = 1,
			.depth = 2,
			.pcs = {FORGED_MODULE_START + 0x10, FORGED_MODULE_START + 0x20}};
		put(fd, &stack, sizeof stack, TP_LIVE_STACKS_OFFSET);
	} else if (f->modules[0].path != NULL) {
		struct tp_live_stack stack = {
			.state = TP_LIVE_ENTRY_READY, .site = 1, .stack_id = 1, .samples = 1};
		for (size_t i = 0; i < FORGED_MODULES && f->modules[i].path != NULL; i++) {
			const struct forged_module *m = &f->modules[i];
			struct tp_live_module module = {.state = TP_LIVE_ENTRY_READY,
							.build_id_size = m->build_id_size,
							.bias = m->bias,
							.start = m->start,
							.end = m->end};
			memcpy(module.build_id, m->build_id, sizeof module.build_id);
			snprintf(module.path, sizeof module.path, "%s", m->path);
			put(fd, &module, sizeof module, TP_LIVE_MODULES_OFFSET + i * sizeof module);
			stack.pcs[stack.depth++] = m->pc;
			/* and a site at that address (rows 2, 3...), which the console names */
			uint32_t row = 2 + (uint32_t)i;
			struct tp_live_site at = {.state = TP_LIVE_ENTRY_READY,
						  .site_id = row,
						  .module = (uint32_t)i,
						  .address = m->pc};
			put(fd, &at, sizeof at, TP_LIVE_SITES_OFFSET + row * sizeof at);
			struct tp_live_site_stats figures = {.spawned = 1};
			put(fd, &figures, sizeof figures,
			    TP_LIVE_ROWS_OFFSET + row * sizeof figures);
		}
		put(fd, &stack, sizeof stack, TP_LIVE_STACKS_OFFSET);
	}
	struct tp_live_thread slot = {
		.in_use = TP_LIVE_SLOT_LIVE,
		.generation = 1,
		.tid = FORGED_TID,
		.worker = 1,
		.rows_ready = 1,
		.state = TP_LIVE_POLLING,
		.state_since = f->header.ns_at_start,
		.site = 1,
		.polls = 4,
		.taken_ns = f->header.ns_at_start,
	};
	memcpy(slot.name, f->thread_name,
	       f->thread_name_len < sizeof slot.name ? f->thread_name_len : sizeof slot.name);
	put(fd, &slot, sizeof slot, TP_LIVE_THREADS_OFFSET);
	struct tp_live_site_stats row = {
		.spawned = FORGED_SPAWNED, .done = FORGED_DONE, .busy_ns = 1000};
	row.poll_histogram[7] = 4; /* its 4 polls, 128 to 255 ns */
	put(fd, &row, sizeof row, TP_LIVE_ROWS_OFFSET + 1 * sizeof row);
	cr_assert_eq(close(fd), 0);
	return path;
}

void forged_flaw(struct forged *f, enum forged_flaw flaw)
{
	switch (flaw) {
	case FORGED_SOUND:
		break;
	case FORGED_ROWS_PAST_END:
		f->header.rows_offset = 1ull << 60;
		break;
	case FORGED_STRIDE_PAST_END:
		f->header.rows_stride = 1ull << 60;
		break;
	case FORGED_SIZE_PAST_LAYOUT:
		f->header.file_size = 1ull << 40;
		break;
	case FORGED_HEADER_SHORT:
		f->header.header_size = 8;
		break;
	case FORGED_SIZE_UNDER_LAYOUT:
		f->header.file_size = 4096;
		break;
	case FORGED_OTHER_VERSION:
		f->header.version = TP_LIVE_VERSION + 1;
		break;
	case FORGED_OTHER_MAGIC:
		f->header.magic[0] ^= 0x20;
		break;
	case FORGED_PID_1:
		f->header.pid = 1;
		break;
	case FORGED_EARLIER_PROCESS:
		f->header.start_ticks += 1;
		break;
	case FORGED_OTHER_PID_NAMESPACE:
		f->header.pid_namespace += 1;
		break;
	}
}
