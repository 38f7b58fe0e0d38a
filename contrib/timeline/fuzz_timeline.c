// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the timeline converter: the input, split into lines, is fed as
 * perf script output; the output goes to /dev/null. Built with ASan and UBSan by meson when
 * clang has libFuzzer; preload-tests runs it for a bounded time.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "timeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	if (sink == NULL)
		sink = fopen("/dev/null", "w");
	struct timeline *t = timeline_new(sink);
	if (t == NULL)
		return 0;
	uint64_t number = 0;
	for (size_t start = 0; start < size;) {
		const uint8_t *nl = memchr(data + start, '\n', size - start);
		size_t len = nl != NULL ? (size_t)(nl - (data + start)) : size - start;
		timeline_feed(t, (const char *)data + start, len, ++number, NULL);
		start += len + 1;
	}
	timeline_finish(t);
	return 0;
}
