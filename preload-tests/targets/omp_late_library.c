// SPDX-License-Identifier: MIT
/*
 * A GCC-built OpenMP program whose own OpenMP calls are common ones (a parallel region, single,
 * tasks), that loads, after its tasks, a library built with GCC (argv[1], lazily bound as
 * dlopen's callers usually do) and calls its routine, which uses OpenMP routines of its own
 * (omp_host_copy.c); then looks omp_target_alloc up in libgomp.so.1 itself, opened by its name,
 * as a program that loads its OpenMP runtime by hand does. Prints the tasks' sum, the library's
 * answer, and whether the name was found. Exits 0.
 */
#include <dlfcn.h>
#include <stdio.h>

enum { TASKS = 8 };

static long sum_in_tasks(void)
{
	long sum = 0;
#pragma omp parallel
#pragma omp single
	for (int part = 1; part <= TASKS; part++) {
#pragma omp task shared(sum)
		{
#pragma omp atomic
			sum += part;
		}
	}
	return sum;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	printf("%d tasks summed to %ld\n", TASKS, sum_in_tasks());
	fflush(stdout);
	void *library = dlopen(argv[1], RTLD_LAZY | RTLD_LOCAL);
	if (library == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	const char *(*host_copy)(const char *) = (const char *(*)(const char *))dlsym(library,
										      "host_copy");
	if (host_copy == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	printf("the library copied \"%s\"\n", host_copy("through the host device's memory"));
	void *runtime = dlopen("libgomp.so.1", RTLD_NOW | RTLD_LOCAL);
	printf("libgomp.so.1 %s omp_target_alloc\n",
	       runtime != NULL && dlsym(runtime, "omp_target_alloc") != NULL ? "has" : "lacks");
	return 0;
}
