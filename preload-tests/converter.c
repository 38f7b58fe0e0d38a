// SPDX-License-Identifier: MIT
/*
 * The converter run by the tests (tp_convert), what python reads in its output (tp_python_on),
 * a recording's records walked (tp_recording_walk), and the small text and path helpers the tests
 * of outputs share.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness_internal.h"
#include "taskprobe_recording.h"

void tp_convert(const char *const args[], struct tp_run *run)
{
	enum { MAX = 32 };
	const char *argv[MAX] = {TP_TIMELINE};
	size_t n = 1;
	for (; args[n - 1] != NULL; n++) {
		cr_assert_lt(n, MAX - 1, "too many arguments for the converter");
		argv[n] = args[n - 1];
	}
	argv[n] = NULL;
	tp_run(TP_PLAIN, argv, NULL, run);
}

char *tp_python_on(const char *program, const char *file)
{
	char *cmd;
	cr_assert(asprintf(&cmd, "python3 -c '%s' '%s'", program, file) > 0);
	FILE *p = popen(cmd, "r");
	free(cmd);
	cr_assert_not_null(p);
	char *text = tp_read_stream(p, NULL);
	cr_expect_eq(pclose(p), 0, "python failed on %s", file);
	return text;
}

uint64_t tp_recording_walk(const char *data, size_t size, tp_record_visit *each, void *ctx)
{
	uint64_t records = 0;
	for (size_t at = 0; at < size;) {
		if (size - at >= 8 && memcmp(data + at, TP_RECORDING_MAGIC, 8) == 0) {
			struct tp_recording_header h;
			cr_assert_geq(size - at, sizeof h);
			memcpy(&h, data + at, sizeof h);
			at += h.header_size;
			continue;
		}
		struct tp_recording_chunk c;
		cr_assert_geq(size - at, sizeof c);
		memcpy(&c, data + at, sizeof c);
		cr_assert_eq(c.magic, TP_CHUNK_MAGIC);
		cr_assert(c.size >= sizeof c && c.size <= size - at);
		records += c.records;
		for (size_t r = at + sizeof c; r + 8 <= at + c.size;) {
			uint64_t word;
			memcpy(&word, data + r, sizeof word);
			each(&c, word, ctx);
			r += tp_record_bytes(word);
		}
		at += c.size;
	}
	return records;
}

unsigned tp_occurrences(const char *text, const char *needle)
{
	unsigned n = 0;
	for (const char *at = text; (at = strstr(at, needle)) != NULL; at += strlen(needle))
		n++;
	return n;
}

bool tp_says_libomp_lacks_device_memory(const char *err)
{
	static const char *const routines[] = {"alloc", "memcpy", "free"};
	static const char why[] = "@OMP_4.5, which this one needs: it stays on libgomp\n";
	static const char lacks[] = "), which taskprobe gives the programs of its run built for "
				    "libgomp, lacks omp_target_";
	const char *at = strstr(err, "LLVM's libomp (");
	at = at != NULL ? strstr(at, lacks) : NULL;
	if (at == NULL)
		return false;
	at += strlen(lacks);
	for (size_t k = 0; k < sizeof routines / sizeof routines[0]; k++)
		if (strncmp(at, routines[k], strlen(routines[k])) == 0 &&
		    strncmp(at + strlen(routines[k]), why, strlen(why)) == 0)
			return true;
	return false;
}

char *tp_path_in(const char *dir, const char *name)
{
	char *path;
	cr_assert(asprintf(&path, "%s/%s", dir, name) > 0);
	return path;
}
