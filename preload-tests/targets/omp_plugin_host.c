// SPDX-License-Identifier: MIT
/*
 * A program that loads plug-ins by a relative path, as many do ("./plugins/x.so", or a library
 * found through LD_LIBRARY_PATH=.): `omp_plugin_host DIR FILE [unload [FILE...]]` changes to
 * DIR, loads "./FILE" (omp_plugin.c), changes to / (nothing relative is found again from here),
 * and prints what the plug-in's plugin_run returns; with "unload", unloads it then (dlclose), and
 * does the same with each FILE after, loaded by its absolute path from DIR (where the last one lay,
 * as a rule: the loader reuses the range freed), but one named "+FILE", which stays loaded (as
 * code another module held is named at exit). Prints where each lay. `omp_plugin_host DIR FILE
 * reinstall NEW` unloads FILE, then puts DIR/NEW in its place (renamed over it, as an install of a
 * new build does) and exits. Exits 0, 1 if a plug-in cannot be loaded, unloaded or reinstalled.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* `path` loaded, or NULL (said). */
static void *load(const char *path)
{
	void *plugin = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (plugin == NULL)
		fprintf(stderr, "%s\n", dlerror());
	return plugin;
}

/* Runs `plugin`'s plugin_run, says where it lay, unloads it if `unload`; 1 on failure. */
static int run(void *plugin, const char *file, int unload)
{
	long (*plugin_run)(void) = (long (*)(void))dlsym(plugin, "plugin_run");
	Dl_info info;
	if (plugin_run == NULL || dladdr((void *)plugin_run, &info) == 0)
		return 1;
	printf("plug-in %s at %p: %ld\n", file, info.dli_fbase, plugin_run());
	return unload && dlclose(plugin) != 0;
}

int main(int argc, char **argv)
{
	bool reinstall = argc == 5 && strcmp(argv[3], "reinstall") == 0;
	if (argc < 3 || (argc > 3 && strcmp(argv[3], "unload") != 0 && !reinstall) ||
	    chdir(argv[1]) != 0)
		return 2;
	char path[4096];
	snprintf(path, sizeof path, "./%s", argv[2]);
	void *plugin = load(path);
	if (plugin == NULL || chdir("/") != 0 || run(plugin, argv[2], argc > 3) != 0)
		return 1;
	if (reinstall) {
		char new_build[4096];
		snprintf(new_build, sizeof new_build, "%s/%s", argv[1], argv[4]);
		snprintf(path, sizeof path, "%s/%s", argv[1], argv[2]);
		return rename(new_build, path) != 0;
	}
	for (int i = 4; i < argc; i++) {
		bool keep = argv[i][0] == '+';
		const char *file = argv[i] + keep;
		snprintf(path, sizeof path, "%s/%s", argv[1], file);
		if ((plugin = load(path)) == NULL || run(plugin, file, !keep) != 0)
			return 1;
	}
	return 0;
}
