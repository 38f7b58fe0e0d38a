// SPDX-License-Identifier: MIT
/*
 * Loads LLVM's libomp (argv[1]) at run time, runs a parallel region of two threads through its
 * GOMP_parallel entry point, unloads it, and does all of that twice. Prints each region's
 * thread count.
 */
#include <dlfcn.h>
#include <stdio.h>

static void count_thread(void *counter)
{
	__atomic_add_fetch((int *)counter, 1, __ATOMIC_RELAXED);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	for (int round = 1; round <= 2; round++) {
		void *omp = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		if (omp == NULL) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		void (*parallel)(void (*)(void *), void *, unsigned, unsigned) = (void (*)(
			void (*)(void *), void *, unsigned, unsigned))dlsym(omp, "GOMP_parallel");
		int threads = 0;
		parallel(count_thread, &threads, 2, 0);
		printf("round %d: %d threads\n", round, threads);
		fflush(stdout);
		dlclose(omp);
	}
	return 0;
}
