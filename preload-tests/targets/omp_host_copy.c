// SPDX-License-Identifier: MIT
/*
 * A library built with GCC that copies a text through the host device's memory: omp_target_alloc,
 * omp_target_memcpy and omp_target_free, which GCC's libgomp has and LLVM's libomp 14 lacks (it
 * leaves them to libomptarget). omp_late_library.c loads it at run time.
 */
#include <omp.h>
#include <string.h>

const char *host_copy(const char *text);

const char *host_copy(const char *text)
{
	static char back[256];
	size_t size = strlen(text) + 1;
	int host = omp_get_initial_device();
	if (size > sizeof back)
		return "too long";
	char *there = omp_target_alloc(size, host);
	if (there == NULL)
		return "no host device memory";
	int failed = omp_target_memcpy(there, text, size, 0, 0, host, host) != 0 ||
		     omp_target_memcpy(back, there, size, 0, 0, host, host) != 0;
	omp_target_free(there, host);
	return failed ? "copy refused" : back;
}
