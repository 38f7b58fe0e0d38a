// SPDX-License-Identifier: MIT
/*
 * Opens the library argv[1] with dlopen(RTLD_NOW | RTLD_LOCAL), as Python opens its extension
 * modules (with their dependencies: an MPI library under mpi4py), and returns what its function
 * argv[2] (int (void)) returns. As a careful loader does, it takes a message from dlerror()
 * after the successful dlopen for a failure (status 3). The program links nothing but libc.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	(void)dlerror();
	void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (library == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	const char *said = dlerror();
	if (said != NULL) {
		fprintf(stderr, "dlopen succeeded, yet dlerror() says: %s\n", said);
		return 3;
	}
	int (*run)(void) = (int (*)(void))dlsym(library, argv[2]);
	if (run == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	return run();
}
