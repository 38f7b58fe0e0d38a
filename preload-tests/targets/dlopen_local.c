// SPDX-License-Identifier: MIT
/*
 * Opens the library argv[1] with dlopen(RTLD_NOW | RTLD_LOCAL), as Python opens its extension
 * modules (with their dependencies: an MPI library under mpi4py), and returns what its function
 * argv[2] (int (void)) returns. The program itself links nothing but libc.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (library == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	int (*run)(void) = (int (*)(void))dlsym(library, argv[2]);
	if (run == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	return run();
}
