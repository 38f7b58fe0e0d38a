// SPDX-License-Identifier: MIT
/*
 * The live statistics' file (live.h), in a directory only its user can write
 * (taskprobe_live.h): TP_LIVE_FILE_PREFIX and the pid. The file is opened only to make it and to
 * give it space on kernels before 5.14; no descriptor is kept, so the program's own descriptors
 * are never in the way. Space is given before it is written, so that a full tmpfs is a failure
 * said once, never a SIGBUS in the host later.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/*
 * Chooses the file's directory (TASKPROBE_LIVE_DIR, else the user's own one, made if missing)
 * and removes the stale files of gone processes in it; false, said, when there is none.
 */
bool tp_live_file_directory(void);

/*
 * Makes this process's file (TP_LIVE_FILE_SIZE bytes, the parts written at start given space),
 * maps it shared, has `fill` write its header and layout, and only then gives it its name;
 * returns the mapping, or NULL (said) when it cannot.
 */
void *tp_live_file_make(void (*fill)(void *m));

/*
 * Gives [offset, offset + length) of the file space with fallocate (kernels before 5.14, where
 * the mapping cannot), if its path still names the file made; whether it did.
 */
bool tp_live_file_allocate(uint64_t offset, uint64_t length);

/* Removes the file (the process ends, its statistics not kept). */
void tp_live_file_remove(void);
