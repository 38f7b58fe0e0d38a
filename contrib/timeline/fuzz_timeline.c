// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the timeline converter: an input that starts as a recording does is
 * converted as one (copied to 8-byte aligned memory, as a file read or mapped is); any other,
 * split into lines, is fed as perf script output. The output goes to /dev/null. A recording's
 * code is named by its modules alone: the paths an input holds are never opened. Built with ASan
 * and UBSan by meson when clang has libFuzzer; preload-tests runs it for a bounded time.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "code_names.h"
#include "recording.h"
#include "timeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	if (sink == NULL)
		sink = fopen("/dev/null", "w");
	struct timeline *t = timeline_new(sink, NULL);
	if (t == NULL)
		return 0;
	if (recording_detect(data, size)) {
		uint64_t *aligned = malloc(size + 8);
		if (aligned != NULL) {
			memcpy(aligned, data, size);
			struct recording_input in = {"fuzz", (const unsigned char *)aligned, size};
			struct recording_totals totals;
			code_names_read_files(false);
			recording_convert(t, &in, 1, NULL, &totals);
			code_names_free();
			free(aligned);
		}
		timeline_finish(t, NULL, NULL);
		return 0;
	}
	uint64_t number = 0;
	for (size_t start = 0; start < size;) {
		const uint8_t *nl = memchr(data + start, '\n', size - start);
		size_t len = nl != NULL ? (size_t)(nl - (data + start)) : size - start;
		timeline_feed(t, (const char *)data + start, len, ++number, NULL);
		start += len + 1;
	}
	timeline_finish(t, NULL, NULL);
	return 0;
}
