// SPDX-License-Identifier: MIT
/*
 * A program that loads a plug-in by a relative path, as many do ("./plugins/x.so", or a library
 * found through LD_LIBRARY_PATH=.): `omp_plugin_host DIR FILE [unload]` changes to DIR, loads
 * "./FILE" (omp_plugin.c), changes to / (nothing relative is found again from here), and prints
 * what the plug-in's plugin_run returns; with "unload", unloads it then (dlclose), before the
 * exit. Exits 0, 1 if the plug-in cannot be loaded or unloaded.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4 || chdir(argv[1]) != 0)
		return 2;
	char relative[4096];
	snprintf(relative, sizeof relative, "./%s", argv[2]);
	void *plugin = dlopen(relative, RTLD_NOW | RTLD_LOCAL);
	if (plugin == NULL || chdir("/") != 0) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	long (*run)(void) = (long (*)(void))dlsym(plugin, "plugin_run");
	if (run == NULL)
		return 1;
	printf("plug-in: %ld\n", run());
	return argc == 4 && dlclose(plugin) != 0;
}
