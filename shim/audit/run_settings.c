// SPDX-License-Identifier: MIT
/* The audit module's settings, read from /proc/self/environ (run_settings.h). */
#define _GNU_SOURCE
#include <stdint.h>

#include "no_libc.h"
#include "run_settings.h"

void read_settings(struct settings *s)
{
	enum { N = 7 };
	static const char *const names[N] = {
		"TASKPROBE_LIBOMP=",        "TASKPROBE_LIBOMP_BRIDGE=", "TASKPROBE_LIBOMP_NOTES=",
		"LD_TRACE_LOADED_OBJECTS=", "TASKPROBE_LIBOMP_LISTED=", "TASKPROBE_LIBGOMP=",
		"LD_LIBRARY_PATH="};
	char *values[N] = {s->libomp, s->bridge,  s->notes,       s->listing,
			   s->listed, s->libgomp, s->library_path};
	const size_t sizes[N] = {sizeof s->libomp,      sizeof s->bridge, sizeof s->notes,
				 sizeof s->listing,     sizeof s->listed, sizeof s->libgomp,
				 sizeof s->library_path};
	for (int k = 0; k < N; k++)
		values[k][0] = '\0';
	int fd = open_read("/proc/self/environ");
	if (fd < 0)
		return;
	/* in the entry: how far each name still matches (SIZE_MAX: no longer), and which value
	 * is being copied, and how much of it (past its size: too long) */
	size_t matched[N] = {0}, copied = 0;
	int copying = -1;
	char block[1024];
	size_t n;
	while ((n = read_some(fd, block, sizeof block)) > 0) {
		for (size_t i = 0; i < n; i++) {
			char c = block[i];
			if (copying >= 0) {
				size_t size = sizes[copying];
				if (copied < size)
					values[copying][copied] = c;
				copied++;
				if (c != '\0' && copied < size)
					continue;
				if (c != '\0' || copied > size)
					values[copying][0] = '\0'; /* too long: unset */
				if (c != '\0')
					continue;
				copying = -1;
				for (int k = 0; k < N; k++)
					matched[k] = 0;
				continue;
			}
			for (int k = 0; k < N; k++) {
				if (c == '\0') {
					matched[k] = 0;
				} else if (matched[k] != SIZE_MAX && names[k][matched[k]] == c) {
					if (names[k][++matched[k]] == '\0')
						copying = k;
				} else {
					matched[k] = SIZE_MAX;
				}
			}
			if (copying >= 0) {
				copied = 0;
				for (int k = 0; k < N; k++)
					matched[k] = SIZE_MAX;
			}
		}
	}
	close_file(fd);
	if (copying >= 0)
		values[copying][0] = '\0'; /* cut short */
}
